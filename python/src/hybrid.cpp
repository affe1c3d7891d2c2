// Hybrid systems from Python: esdirk.HybridProblem / esdirk.HybridSolver (modes, event
// functions, resets, sensitivity jumps), and _solve_events, the event path of solve_ivp (one
// mode, identity resets: scipy's events).

#include "hybrid.hpp"

#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "bindings.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "problem.hpp"
#include "solvers.hpp"
#include "structure.hpp"

namespace esdirk::python {

namespace {

// solve_ivp's events on a smooth problem: one mode, the problem's f and g, one callback per
// event function, no reset.
class EventProblem final : public HybridProblem {
 public:
  EventProblem(ModelProblem& model, std::vector<Callback> events)
      : HybridProblem(model.nx(), model.nz(), model.np(), static_cast<int>(events.size())),
        model_(model),
        events_(std::move(events)) {
    // The problem's declared structure (jac_sparsity, lband/uband), as the run without events
    // has it: the same back-end and, with sparse_jac, the analytic values on the pattern.
    const JacobianStructure& s = model.jacobian_structure();
    if (s.pattern != nullptr) {
      set_jacobian_pattern(*s.pattern, s.solver);
      if (s.solver == LinearSolverKind::krylov) set_krylov_settings(s.krylov);
    }
  }

  int evaluate(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector, Vector f,
               Vector g) override {
    return model_.evaluate(t, x, z, p, f, g);
  }
  bool has_jacobian() const override { return model_.has_jacobian(); }
  int jacobian(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
               MatrixRef J) override {
    return model_.jacobian(t, x, z, p, J);
  }
  bool has_sparse_jacobian() const override { return model_.has_sparse_jacobian(); }
  int sparse_jacobian(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
                      SparseMatrixRef J) override {
    return model_.sparse_jacobian(t, x, z, p, J);
  }
  bool has_parameter_jacobian() const override { return model_.has_parameter_jacobian(); }
  int parameter_jacobian(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
                         MatrixRef Jp) override {
    return model_.parameter_jacobian(t, x, z, p, Jp);
  }
  int events(int, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
             Vector h) override {
    for (std::size_t k = 0; k < events_.size(); ++k) {
      const int code = events_[k].call(t, x, z, p, &h[k], 1, 0, 1, model_.errors());
      if (code != 0) return code;
    }
    return 0;
  }

 private:
  ModelProblem& model_;
  std::vector<Callback> events_;
};

// One callback of a hybrid problem: a single function for every mode (a Python callable takes
// the mode as its first argument; a compiled one is the same in every mode), or a list with
// one function per mode (Python or compiled, called without the mode).
class ModeCallback {
 public:
  ModeCallback() = default;
  ModeCallback(const py::object& value, const std::string& what) {
    if (value.is_none()) return;
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      per_mode_ = true;
      int k = 0;
      const PythonStyle no_mode;
      for (auto item : value)
        by_mode_.push_back(make_callback(py::reinterpret_borrow<py::object>(item), no_mode,
                                         what + "[" + std::to_string(k++) + "]"));
      if (by_mode_.empty()) throw py::value_error(what + ": the list of modes is empty");
      return;
    }
    PythonStyle style;
    style.mode = true;
    by_mode_.push_back(make_callback(value, style, what));
  }
  bool empty() const { return by_mode_.empty(); }
  bool any_compiled() const {
    for (const Callback& c : by_mode_)
      if (c.is_compiled()) return true;
    return false;
  }
  /// Modes this callback knows (per-mode lists), or -1 for any.
  int modes() const { return per_mode_ ? static_cast<int>(by_mode_.size()) : -1; }
  int call(int mode, double t, ConstVector x, ConstVector z, ConstVector p, double* out, int rows,
           int cols, int ld, ErrorSlot& errors) const {
    if (!per_mode_) return by_mode_[0].call(t, x, z, p, out, rows, cols, ld, errors, mode);
    if (mode < 0 || mode >= static_cast<int>(by_mode_.size()))
      return -1;  // has_mode refuses it first
    return by_mode_[static_cast<std::size_t>(mode)].call(t, x, z, p, out, rows, cols, ld, errors);
  }
  /// The values of J on the declared pattern (Callback::call_sparse) of `mode`.
  int call_sparse(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                  SparseMatrixRef J, ErrorSlot& errors) const {
    if (!per_mode_) return by_mode_[0].call_sparse(t, x, z, p, J, errors, mode);
    if (mode < 0 || mode >= static_cast<int>(by_mode_.size())) return -1;
    return by_mode_[static_cast<std::size_t>(mode)].call_sparse(t, x, z, p, J, errors);
  }

 private:
  std::vector<Callback> by_mode_;
  bool per_mode_ = false;
};

// The Python functions of a hybrid problem that run at events only: the transition, the
// parameter reset and their Jacobians, all called as fn(mode, fired, t, x, z, p).
struct EventFunctions {
  py::object transition, parameter_reset, reset_jacobian, parameter_reset_jacobian;
};

}  // namespace

// A hybrid problem from Python: f, g, the event functions and the Jacobians as ModeCallbacks,
// the transition, the parameter reset and their Jacobians as Python functions (called at events
// only; the one C signature has no mode or cause, so they are not compiled).
class PythonHybridProblem final : public HybridProblem {
 public:
  PythonHybridProblem(int nx, int nz, int np, int ne, py::object f, py::object g, py::object events,
                      EventFunctions at_events, py::object jac, py::object jac_p,
                      py::object event_jac, py::object sparse_jac)
      : HybridProblem(nx, nz, np, ne),
        f_(f, "f"),
        g_(g, "g"),
        events_(events, "events"),
        jacobian_(jac, "jac"),
        parameter_jacobian_(jac_p, "jac_p"),
        event_jacobian_(event_jac, "event_jac"),
        sparse_jacobian_(sparse_jac, "sparse_jac"),
        at_events_(std::move(at_events)),
        event_rows_(static_cast<std::size_t>(ne) * (1 + nx + nz + np)) {
    if (f_.empty()) throw py::type_error("the right-hand side f is required");
    if (nz > 0 && g_.empty())
      throw py::type_error("a DAE (nz > 0) needs the algebraic equations g");
    if (ne > 0 && events_.empty()) throw py::type_error("n_events > 0 needs the event functions");
    if (!jacobian_.empty() && !sparse_jacobian_.empty())
      throw py::value_error("give jac (the dense Jacobian) or sparse_jac (its values on the "
                            "declared pattern), not both");
    for (const ModeCallback* c : {&f_, &g_, &events_, &jacobian_, &parameter_jacobian_,
                                  &event_jacobian_, &sparse_jacobian_}) {
      if (c->modes() < 0) continue;
      if (modes_ >= 0 && c->modes() != modes_)
        throw py::value_error("the per-mode lists of callbacks must have the same length");
      modes_ = c->modes();
    }
    const std::pair<const py::object*, const char*> named[] = {
        {&at_events_.transition, "transition"},
        {&at_events_.parameter_reset, "parameter_reset"},
        {&at_events_.reset_jacobian, "reset_jac"},
        {&at_events_.parameter_reset_jacobian, "parameter_reset_jac"}};
    for (const auto& [fn, name] : named)
      if (!fn->is_none() && !PyCallable_Check(fn->ptr()))
        throw py::type_error(std::string(name) + " must be a Python callable (it runs at events "
                             "only and takes the mode and the fired components)");
    if (!at_events_.parameter_reset.is_none() && np == 0)
      throw py::value_error("parameter_reset needs parameters (np >= 1)");
    if (!at_events_.parameter_reset_jacobian.is_none() && at_events_.parameter_reset.is_none())
      throw py::value_error("parameter_reset_jac is given without parameter_reset");
  }

  bool has_mode(int mode) const override { return mode >= 0 && (modes_ < 0 || mode < modes_); }

  int evaluate(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
               Vector f, Vector g) override {
    const int code = f_.call(mode, t, x, z, p, f.data(), nx(), 0, nx(), errors_);
    if (code != 0 || nz() == 0) return code;
    return g_.call(mode, t, x, z, p, g.data(), nz(), 0, nz(), errors_);
  }
  bool has_jacobian() const override { return !jacobian_.empty(); }
  int jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
               MatrixRef J) override {
    return jacobian_.call(mode, t, x, z, p, J.data, J.rows, J.cols, J.ld, errors_);
  }
  bool has_sparse_jacobian() const override { return !sparse_jacobian_.empty(); }
  int sparse_jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
                      SparseMatrixRef J) override {
    return sparse_jacobian_.call_sparse(mode, t, x, z, p, J, errors_);
  }
  bool has_parameter_jacobian() const override { return !parameter_jacobian_.empty(); }
  int parameter_jacobian(int mode, double t, ConstVector x, ConstVector z, ConstVector p,
                         ConstVector, MatrixRef Jp) override {
    return parameter_jacobian_.call(mode, t, x, z, p, Jp.data, Jp.rows, Jp.cols, Jp.ld, errors_);
  }
  int events(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
             Vector h) override {
    return events_.call(mode, t, x, z, p, h.data(), event_count(), 0, event_count(), errors_);
  }
  bool has_event_jacobian() const override { return !event_jacobian_.empty(); }
  // event_jac gives all ne rows [h_t, h_x, h_z, h_p] at once, (ne, 1 + nx + nz + np); the
  // library asks for one row at a time.
  int event_jacobian(int mode, int k, double t, ConstVector x, ConstVector z, ConstVector p,
                     ConstVector, Vector row) override {
    const int ne = event_count(), width = static_cast<int>(row.size());
    const int code = event_jacobian_.call(mode, t, x, z, p, event_rows_.data(), ne, width, ne,
                                          errors_);
    if (code != 0) return code;
    for (int j = 0; j < width; ++j) row[j] = event_rows_[static_cast<std::size_t>(k + j * ne)];
    return 0;
  }

  // transition(mode, fired, t, x, z, p) -> (next_mode, x_plus) or None (no change).
  int transition(int mode, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                 ConstVector p, ConstVector, int& next_mode, Vector x_plus) override {
    if (at_events_.transition.is_none()) return 0;
    return at_event(at_events_.transition, mode, cause, t, x, z, p, [&](const py::object& r) {
      if (r.is_none()) return;
      py::tuple pair;
      try {
        pair = r.cast<py::tuple>();
        if (pair.size() == 2) next_mode = pair[0].cast<int>();
      } catch (py::cast_error&) {
        pair = py::tuple();
      }
      if (pair.size() != 2)
        throw py::type_error("transition must return (next_mode, x_plus) or None");
      const auto xp = vector_argument(pair[1], nx(), "transition's x_plus");
      std::copy(xp.begin(), xp.end(), x_plus.begin());
    });
  }
  bool has_reset_jacobian() const override { return !at_events_.reset_jacobian.is_none(); }
  // reset_jac(mode, fired, t, x, z, p) -> D = [phi_t | phi_x | phi_z | phi_p], (nx, 1+nx+nz+np).
  int reset_jacobian(int mode, const TransitionCause& cause, double t, ConstVector x,
                     ConstVector z, ConstVector p, ConstVector, MatrixRef D) override {
    return at_event(at_events_.reset_jacobian, mode, cause, t, x, z, p,
                    [&](const py::object& r) { copy_matrix(r, D, "reset_jac"); });
  }

  // parameter_reset(mode, fired, t, x, z, p) -> p_plus (np) or None (no change).
  bool has_parameter_reset() const override { return !at_events_.parameter_reset.is_none(); }
  int reset_parameters(int mode, const TransitionCause& cause, double t, ConstVector x,
                       ConstVector z, ConstVector p, ConstVector, Vector p_plus) override {
    return at_event(at_events_.parameter_reset, mode, cause, t, x, z, p, [&](const py::object& r) {
      if (r.is_none()) return;
      const auto pp = vector_argument(r, np(), "parameter_reset's p_plus");
      std::copy(pp.begin(), pp.end(), p_plus.begin());
    });
  }
  bool has_parameter_reset_jacobian() const override {
    return !at_events_.parameter_reset_jacobian.is_none();
  }
  // parameter_reset_jac(...) -> E = [psi_t | psi_x | psi_z | psi_p], (np, 1 + nx + nz + np).
  int parameter_reset_jacobian(int mode, const TransitionCause& cause, double t, ConstVector x,
                               ConstVector z, ConstVector p, ConstVector, MatrixRef E) override {
    return at_event(at_events_.parameter_reset_jacobian, mode, cause, t, x, z, p,
                    [&](const py::object& r) { copy_matrix(r, E, "parameter_reset_jac"); });
  }

  // The Newton-Krylov hooks (set_jacobian_vector_product, set_preconditioner): Python
  // callables with the mode first, jac_vec(mode, t, x, z, p, v) -> (n,), psetup(mode, t, x, z,
  // p, J_values, h_gamma), psolve(r, transpose) -> (n,); RecoverableError fails the GMRES solve
  // (the step is retried), any other error stops the run and is raised.
  void set_jacobian_vector_product(py::object product) { product_ = krylov_hook(product, "jac_vec"); }
  void set_preconditioner(py::object setup, py::object solve) {
    if (setup.is_none() != solve.is_none())
      throw py::value_error("set_preconditioner: give psetup and psolve, or neither");
    py::object s = krylov_hook(setup, "psetup"), v = krylov_hook(solve, "psolve");
    preconditioner_setup_ = std::move(s);
    preconditioner_solve_ = std::move(v);
  }
  bool has_jacobian_vector_product() const override { return !product_.is_none(); }
  int jacobian_vector_product(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
                              ConstVector v, Vector out) override {
    return call_python_guarded(errors_, [&] {
      read_vector(product_(mode, t, to_array(x), to_array(z), to_array(p), to_array(v)), out,
                  "the result of jac_vec");
    });
  }
  bool has_preconditioner() const override { return !preconditioner_solve_.is_none(); }
  int preconditioner_setup(int mode, double t, ConstVector x, ConstVector z, ConstVector p, ConstVector,
                           const JacobianMatrix& J, double h_gamma) override {
    // J's values in the order of jacobian_pattern (the Krylov solver always has a pattern).
    return call_python_guarded(errors_, [&] {
      preconditioner_setup_(mode, t, to_array(x), to_array(z), to_array(p),
                            py::array_t<double>(J.pattern().nonzeros(), J.values()), h_gamma);
    });
  }
  int preconditioner_solve(ConstVector r, Vector out, bool transpose) override {
    return call_python_guarded(errors_, [&] {
      read_vector(preconditioner_solve_(to_array(r), transpose), out, "the result of psolve");
    });
  }

  ErrorSlot& errors() { return errors_; }
  /// No compiled callback: integrations hold the GIL (run_integration).
  bool python_only() const {
    for (const ModeCallback* c : {&f_, &g_, &events_, &jacobian_, &parameter_jacobian_,
                                  &event_jacobian_, &sparse_jacobian_})
      if (c->any_compiled()) return false;
    return true;
  }

 private:
  // A Krylov hook: None or a Python callable (the compiled signatures of Problem's hooks have no
  // mode).
  static py::object krylov_hook(const py::object& fn, const char* what) {
    if (!fn.is_none() && !PyCallable_Check(fn.ptr()))
      throw py::type_error(std::string(what) + " of a HybridProblem must be a Python callable (it takes the mode "
                           "first)");
    return fn;
  }
  static void read_vector(const py::object& value, Vector out, const char* what) {
    const std::vector<double> v = vector_argument(value, static_cast<py::ssize_t>(out.size()), what);
    std::copy(v.begin(), v.end(), out.begin());
  }

  // Calls fn(mode, fired, t, x, z, p) with the GIL and hands its result to `read`; a Python
  // error (or one `read` raises) is kept and ends the call as a fatal callback failure.
  template <class Read>
  int at_event(const py::object& fn, int mode, const TransitionCause& cause, double t,
               ConstVector x, ConstVector z, ConstVector p, Read&& read) {
    py::gil_scoped_acquire gil;
    if (errors_.pending()) return -1;
    try {
      py::list fired;
      for (int k : cause.fired) fired.append(k);
      read(fn(mode, fired, t, to_array(x), to_array(z), to_array(p)));
      return 0;
    } catch (py::error_already_set& e) {
      e.restore();
    } catch (py::builtin_exception& e) {
      e.set_error();
    }
    errors_.store_current();
    return -1;
  }
  static void copy_matrix(const py::object& value, MatrixRef out, const char* what) {
    const DenseMatrix m = matrix_argument(value, out.rows, out.cols, what);
    for (int j = 0; j < out.cols; ++j)
      for (int i = 0; i < out.rows; ++i) out(i, j) = m(i, j);
  }

  ModeCallback f_, g_, events_, jacobian_, parameter_jacobian_, event_jacobian_, sparse_jacobian_;
  EventFunctions at_events_;
  py::object product_ = py::none(), preconditioner_setup_ = py::none(), preconditioner_solve_ = py::none();
  std::vector<double> event_rows_;  // event_jac's (ne, 1 + nx + nz + np) result
  int modes_ = -1;  // the length of the per-mode lists; -1: any mode
  ErrorSlot errors_;
};

// --- esdirk.HybridSolver ------------------------------------------------------------------------

HybridBinding::HybridBinding(std::shared_ptr<PythonHybridProblem> problem, HybridOptions options)
    : problem_(std::move(problem)) {
  solver_ = std::make_unique<HybridSolver>(*problem_, std::move(options));
  x_.resize(problem_->nx());
  z_.resize(problem_->nz());
}

HybridBinding::~HybridBinding() = default;

ErrorSlot& HybridBinding::errors() { return problem_->errors(); }
bool HybridBinding::python_only() const { return problem_->python_only(); }
const HybridProblem& HybridBinding::problem() const { return *problem_; }

void HybridBinding::initialize(double t0, int mode, const py::object& x0, const py::object& z0,
                               const py::object& p) {
  const auto x = vector_argument(x0, problem_->nx(), "x0");
  const auto z = optional_vector(z0, problem_->nz(), "z0");
  const auto pv = optional_vector(p, problem_->np(), "p");
  sensitivities_ = false;
  check(run([&] { return solver_->initialize(t0, mode, x, z, pv); }), solver_->message());
}

void HybridBinding::initialize_sensitivities(const py::object& seed, const py::dict& keywords) {
  const int n = problem_->nx() + problem_->np();
  DenseMatrix S;
  if (seed.is_none()) {
    S.resize(n, n);
    for (int i = 0; i < n; ++i) S(i, i) = 1.0;
  } else {
    S = matrix_argument(seed, n, -1, "seed");
  }
  const auto options = sensitivity_options_from(keywords);
  check(run([&] { return solver_->initialize_sensitivities(S.cref(), options); }),
        solver_->message());
  sensitivities_ = true;
  Sx_.resize(problem_->nx(), solver_->directions());
  Sz_.resize(problem_->nz(), solver_->directions());
}

std::string HybridBinding::integrate_to(double tout, HybridAdjoint* recorder) {
  // x_, z_ receive the last good state when the call fails or a callback raised: .t
  // follows them before anything is raised.
  const Outcome o = run([&] {
    const MatrixRef Sx = sensitivities_ ? Sx_.ref() : MatrixRef{};
    const MatrixRef Sz = sensitivities_ ? Sz_.ref() : MatrixRef{};
    const Outcome r = recorder ? recorder->integrate_to(tout, x_, z_, Sx, Sz)
                               : solver_->integrate_to(tout, x_, z_, Sx, Sz);
    t_ = r.t;
    return r;
  });
  check(o.status, solver_->message());
  return std::string(stop_reason_name(o.reason));
}

py::list HybridBinding::events() const {
  py::list out;
  for (int i = 0; i < solver_->logged_events(); ++i) {
    const EventRecord& e = solver_->event(i);
    py::dict d;
    d["t"] = e.t;
    d["mode_before"] = e.mode_before;
    d["mode_after"] = e.mode_after;
    d["fired"] = e.fired;
    d["time_event"] = e.time_event;
    d["x_minus"] = to_array(e.x_minus);
    d["x_plus"] = to_array(e.x_plus);
    d["z_minus"] = to_array(e.z_minus);
    d["z_plus"] = to_array(e.z_plus);
    d["p_minus"] = to_array(e.p_minus);
    d["p_plus"] = to_array(e.p_plus);
    d["initial"] = e.initial;
    if (!e.tau.empty()) {
      d["tau"] = to_array(e.tau);
      d["Sx_minus"] = to_array(e.sx_minus.cref());
      d["Sx_plus"] = to_array(e.sx_plus.cref());
    }
    out.append(d);
  }
  return out;
}

namespace {

EventDirection direction_of(int d) {
  return d > 0 ? EventDirection::rising : d < 0 ? EventDirection::falling : EventDirection::both;
}

}  // namespace

// The event path of solve_ivp: HybridSolver on one mode. Output at t_eval (or at every step
// end), stopped at the first terminal event (status 1).
SolveResult solve_with_events(ModelProblem& model, std::vector<Callback> event_callbacks,
                              const std::vector<bool>& terminal, const std::vector<int>& directions,
                              const Options& options, const SolveRequest& request,
                              bool& terminated) {
  const int nx = model.nx(), nz = model.nz(), ne = static_cast<int>(event_callbacks.size());
  EventProblem problem(model, std::move(event_callbacks));
  HybridOptions ho;
  ho.integrator = options;
  ho.terminal = terminal;
  for (int d : directions) ho.directions.push_back(direction_of(d));
  ho.event_log_capacity = 100000;
  HybridSolver solver(problem, ho);
  SolveResult r;
  Recorder recorder(r, nx, nz);
  r.method = options.resolved_method().name;
  terminated = false;
  int terminal_component = -1;
  double terminal_t = 0.0;
  std::vector<double> x(nx), z(nz);
  auto finish = [&](Status status, const std::string& message) {
    r.status = status;
    r.message = message;
    r.statistics = solver.statistics();
    r.t_events.assign(static_cast<std::size_t>(ne), {});
    r.events.assign(static_cast<std::size_t>(ne), {});
    for (int i = 0; i < solver.logged_events(); ++i) {
      const EventRecord& e = solver.event(i);
      for (int k = 0; k < ne; ++k) {
        if (e.fired[static_cast<std::size_t>(k)] == 0) continue;
        r.t_events[static_cast<std::size_t>(k)].push_back(e.t);
        std::vector<double> y = e.x_minus;
        y.insert(y.end(), e.z_minus.begin(), e.z_minus.end());
        r.events[static_cast<std::size_t>(k)].push_back(std::move(y));
      }
    }
    // The terminal event is not in the log yet (its transition is applied by a next call).
    if (terminal_component >= 0) {
      const auto k = static_cast<std::size_t>(terminal_component);
      r.t_events[k].push_back(terminal_t);
      std::vector<double> y = x;
      y.insert(y.end(), z.begin(), z.end());
      r.events[k].push_back(std::move(y));
    }
    return r;
  };
  Status s = solver.initialize(request.t0, 0, request.x0, request.z0, request.p);
  if (!ok(s)) return finish(s, solver.message());
  if (request.sensitivities) {
    DenseMatrix seed = request.seed;
    if (!seed.rows()) {
      const int n = nx + model.np();
      seed.resize(n, n);
      for (int i = 0; i < n; ++i) seed(i, i) = 1.0;
    }
    s = solver.initialize_sensitivities(seed.cref(), request.sensitivity_options);
    if (!ok(s)) return finish(s, solver.message());
    recorder.set_directions(solver.directions());
  }
  DenseMatrix Sx(nx, r.directions), Sz(nz, r.directions);
  // With events, sensitivities need t_eval (solve_ivp), so step ends carry none.
  const bool every_step = request.t_eval.empty();
  if (every_step) recorder.output(request.t0, solver.x(), solver.z(), Sx.cref(), Sz.cref());
  if (request.dense)
    recorder.dense_point(request.t0, solver.x(), solver.integrator().current_derivative());
  recorder.observe_steps(solver.integrator(), every_step, request.dense,
                         [&] { return std::pair<ConstMatrixRef, ConstMatrixRef>(Sx.cref(), Sz.cref()); });
  const std::vector<double> single{request.t_final};
  for (double tout : every_step ? single : request.t_eval) {
    // tout = t0 (scipy allows it) goes through integrate_to too, which writes x, z and the
    // sensitivities there (they were left zero before: dy/dy0 = 0 at t0).
    const Outcome o = request.sensitivities ? solver.integrate_to(tout, x, z, Sx.ref(), Sz.ref())
                                            : solver.integrate_to(tout, x, z);
    if (!ok(o)) return finish(o.status, solver.message());
    if (o.reason == StopReason::listener_stop) {  // a terminal event: the left limit at t*
      terminated = true;
      terminal_component = solver.pending_event_component();
      terminal_t = o.t;
      recorder.trim_after(o.t);
      recorder.output(o.t, x, z, Sx.cref(), Sz.cref());
      if (request.dense) {  // the interpolant's last point: the event
        std::vector<double> f(nx), g(nz);
        model.evaluate(o.t, x, z, request.p, f, g);
        recorder.dense_point(o.t, x, f);
      }
      break;
    }
    if (!every_step) recorder.output(tout, x, z, Sx.cref(), Sz.cref());
  }
  return finish(Status::success, "");
}

namespace {

// solve_ivp(events=...) (esdirk/_ivp.py): the event path on one mode.
void register_solve_events(py::module_& m) {
  m.def("_solve_events", [](std::shared_ptr<ModelProblem> problem, const Options& options,
                            double t0, double t_final, py::object x0, py::object z0, py::object p,
                            py::object t_eval, bool dense, bool sensitivities, py::object seed,
                            const SensitivityOptions& sens, py::list events,
                            std::vector<bool> terminal, std::vector<int> directions, bool pass_z,
                            bool pass_p, py::tuple args) {
    SolveRequest q;
    q.t0 = t0;
    q.t_final = t_final;
    q.x0 = vector_argument(x0, problem->nx(), "y0");
    q.z0 = optional_vector(z0, problem->nz(), "z0");
    q.p = optional_vector(p, problem->np(), "p");
    if (!t_eval.is_none()) q.t_eval = vector_argument(t_eval, "t_eval");
    q.dense = dense;
    q.sensitivities = sensitivities;
    if (sensitivities && !seed.is_none())
      q.seed = matrix_argument(seed, problem->nx() + problem->np(), -1, "seed");
    q.sensitivity_options = sens;
    options.validate(problem->nx(), problem->nz());
    problem->use_difference_increments_of(options);
    problem->reset_counters();
    PythonStyle style;
    style.z = pass_z;
    style.p = pass_p;
    style.extra = args;
    std::vector<Callback> callbacks;
    for (std::size_t k = 0; k < events.size(); ++k)
      callbacks.push_back(make_callback(events[k], style, "events[" + std::to_string(k) + "]"));
    bool terminated = false;
    // Python callbacks only: the GIL stays held (see solvers.cpp, without_gil).
    bool python_only = problem->python_only();
    for (const Callback& c : callbacks) python_only = python_only && !c.is_compiled();
    SolveResult r = run_integration(problem->errors(), python_only, [&] {
      return solve_with_events(*problem, std::move(callbacks), terminal, directions, options, q,
                               terminated);
    });
    py::dict d = result_dict(r, *problem);
    d["terminated"] = terminated;
    return d;
  });
}

void register_hybrid_problem(py::module_& m) {
  py::class_<PythonHybridProblem, std::shared_ptr<PythonHybridProblem>> hybrid_class(
      m, "HybridProblem", R"(A hybrid
system: per mode x' = f(mode, t, x, z, p), 0 = g(mode, t, x, z, p), event functions
events(mode, t, x, z, p) -> (n_events,), and transitions
transition(mode, fired, t, x, z, p) -> (next_mode, x_plus) (None: same mode, no reset).
fired[k] is +1 / -1 for a component that crossed rising / falling, 0 otherwise.
f, g, events, jac and jac_p may instead be lists with one function per mode, called without
the mode (Python or compiled: fn(t, x, z, p, out)), or one compiled function for every mode;
the modes are then 0 .. len - 1. The transition is always a Python function (called at events
only).

Parameter resets: parameter_reset(mode, fired, t, x, z, p) -> p_plus (or None), called after
the transition with the same arguments (the left limit, the old parameters); the next mode is
integrated with p_plus, and the sensitivities stay derivatives with respect to the first
mode's parameters (their jump goes through the reset). Analytic Jacobians of what runs at
events (else central differences): reset_jac(mode, fired, t, x, z, p) -> (nx, 1+nx+nz+np)
[phi_t | phi_x | phi_z | phi_p] and parameter_reset_jac(...) -> (np, 1+nx+nz+np), Python
functions; event_jac(mode, t, x, z, p) -> (n_events, 1+nx+nz+np), the rows [h_t, h_x, h_z,
h_p], a ModeCallback like events (per-mode lists or compiled, writing that matrix
column-major).

Large systems (as Problem's, one structure for every mode): set_jacobian_bandwidths,
set_jacobian_pattern(rows, cols, solver) with solver 'sparse' (KLU), 'banded', 'dense' or
'krylov' (GMRES), set_krylov_settings, clear_jacobian_structure, jacobian_pattern,
linear_solver, krylov_settings; declare them before the HybridSolver is made (it keeps the
structure it was made with). sparse_jac(mode, t, x, z, p): J's values on the declared pattern
(a ModeCallback like jac; a scipy.sparse matrix, a dense array taken on the pattern or the
nonzeros in jacobian_pattern's order; compiled: writes those nonzeros). The event and reset
Jacobians stay dense.)");
  hybrid_class
      .def(py::init([](int nx, int nz, int np, int n_events, py::object f, py::object g,
                       py::object events, py::object transition, py::object jac, py::object jac_p,
                       py::object parameter_reset, py::object event_jac, py::object reset_jac,
                       py::object parameter_reset_jac, py::object sparse_jac) {
             try {
               return std::make_shared<PythonHybridProblem>(
                   nx, nz, np, n_events, f, g, events,
                   EventFunctions{transition, parameter_reset, reset_jac, parameter_reset_jac},
                   jac, jac_p, event_jac, sparse_jac);
             } catch (const std::invalid_argument& e) {
               throw py::value_error(e.what());
             }
           }),
           py::arg("nx"), py::arg("nz"), py::arg("np"), py::arg("n_events"), py::arg("f"),
           py::arg("g") = py::none(), py::arg("events") = py::none(),
           py::arg("transition") = py::none(), py::arg("jac") = py::none(),
           py::arg("jac_p") = py::none(), py::arg("parameter_reset") = py::none(),
           py::arg("event_jac") = py::none(), py::arg("reset_jac") = py::none(),
           py::arg("parameter_reset_jac") = py::none(), py::arg("sparse_jac") = py::none());
  add_structure_methods(hybrid_class, true);
  hybrid_class
      .def("set_jacobian_vector_product", &PythonHybridProblem::set_jacobian_vector_product, py::arg("jac_vec"),
           "The exact J v of matrix-free Krylov runs: jac_vec(mode, t, x, z, p, v) -> (nx + nz,); None removes it "
           "(difference products). Python callables only.")
      .def("set_preconditioner", &PythonHybridProblem::set_preconditioner, py::arg("psetup"), py::arg("psolve"),
           "The problem's own preconditioner of the Krylov solver (both or neither; None removes it): "
           "psetup(mode, t, x, z, p, J_values, h_gamma) prepares P ~ E - h_gamma J of the mode (J_values: J's "
           "nonzeros in jacobian_pattern's order), psolve(r, transpose) -> P^-1 r (P^-T r). Python callables "
           "only; RecoverableError fails that GMRES solve (the step is retried).");
  hybrid_class.def(
      "check_jacobian_pattern",
      [](PythonHybridProblem& h, int mode, double t, const py::object& x, const py::object& z,
         const py::object& params, double rtol, double atol, int max_reported) {
        if (!h.has_mode(mode))
          throw py::value_error("check_jacobian_pattern: the problem has no mode " +
                                std::to_string(mode));
        const auto xv = vector_argument(x, h.nx(), "x");
        const auto zv = optional_vector(z, h.nz(), "z");
        const auto pv = optional_vector(params, h.np(), "p");
        JacobianPatternCheck check;
        try {
          check = run_integration(h.errors(), h.python_only(), [&] {
            return esdirk::check_jacobian_pattern(h, mode, t, xv, zv, pv, {},
                                                  check_options(rtol, atol, max_reported));
          });
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
        return pattern_check_dict(check);
      },
      py::arg("mode"), py::arg("t"), py::arg("x"), py::arg("z") = py::none(),
      py::arg("p") = py::none(), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8,
      py::arg("max_reported") = 10,
      "Problem.check_jacobian_pattern for one mode: check every mode, the pattern must hold "
      "the entries of all of them.");
}

void register_hybrid_solver(py::module_& m) {
  py::class_<HybridBinding>(m, "HybridSolver", R"(Integrates a HybridProblem across its events
(esdirk::HybridSolver): HybridSolver(problem, options=None, terminal=None, directions=None,
time_events=None, initial_events=None); initialize(t0, mode, x0, z0=None, p=None);
initialize_sensitivities(seed=None, **sensitivity_options); integrate_to(tout) -> stop reason
("listener_stop" at a terminal event); .t, .x, .z, .Sx, .Sp, .p, .mode, .events (a list of
dicts: t, modes, fired, initial, left and right limits of x, z and p, tau and the sensitivity
jump), .statistics. initial_events[k] = True: component k fires at t0 if its trigger is
already true there (SBML's initialValue = false), at the start of the first integrate_to.)")
      .def(py::init([](std::shared_ptr<PythonHybridProblem> problem, std::optional<Options> options,
                       std::optional<std::vector<bool>> terminal,
                       std::optional<std::vector<int>> directions,
                       std::optional<std::vector<double>> time_events,
                       std::optional<std::vector<bool>> initial_events) {
             HybridOptions ho;
             if (options) ho.integrator = *options;
             if (terminal) ho.terminal = *terminal;
             if (directions)
               for (int d : *directions) ho.directions.push_back(direction_of(d));
             if (time_events) ho.time_events = *time_events;
             if (initial_events) ho.initial_events = *initial_events;
             return std::make_unique<HybridBinding>(std::move(problem), std::move(ho));
           }),
           py::arg("problem"), py::arg("options") = py::none(), py::arg("terminal") = py::none(),
           py::arg("directions") = py::none(), py::arg("time_events") = py::none(),
           py::arg("initial_events") = py::none())
      .def("initialize", &HybridBinding::initialize, py::arg("t0"), py::arg("mode"), py::arg("x0"),
           py::arg("z0") = py::none(), py::arg("p") = py::none())
      .def(
          "initialize_sensitivities",
          [](HybridBinding& b, py::object seed, py::kwargs kw) {
            b.initialize_sensitivities(seed, kw);
          },
          py::arg("seed") = py::none())
      .def(
          "integrate_to", [](HybridBinding& b, double tout) { return b.integrate_to(tout); },
          py::arg("tout"))
      .def_property_readonly("t", &HybridBinding::t)
      .def_property_readonly("x", &HybridBinding::x)
      .def_property_readonly("z", &HybridBinding::z)
      .def_property_readonly("Sx", &HybridBinding::Sx)
      .def_property_readonly("Sz", &HybridBinding::Sz)
      .def_property_readonly("Sp", &HybridBinding::Sp,
                             "dp/dtheta of the current mode's parameters (np, ns): the seed's "
                             "parameter rows until a parameter reset, then their jumps.")
      .def_property_readonly(
          "p", [](HybridBinding& b) { return to_array(b.solver().parameters()); },
          "The parameters of the current mode (changed by parameter resets).")
      .def_property_readonly("initial_event_pending",
                             [](HybridBinding& b) { return b.solver().initial_event_pending(); })
      .def_property_readonly("mode", [](HybridBinding& b) { return b.solver().mode(); })
      .def_property_readonly("events", &HybridBinding::events)
      .def_property_readonly("event_count",
                             [](HybridBinding& b) { return b.solver().event_count(); })
      .def_property_readonly(
          "statistics", [](HybridBinding& b) { return statistics_dict(b.solver().statistics()); })
      .def_property_readonly("message", [](HybridBinding& b) { return b.solver().message(); });
}

}  // namespace

void register_hybrid(py::module_& m) {
  register_solve_events(m);
  register_hybrid_problem(m);
  register_hybrid_solver(m);
}

}  // namespace esdirk::python
