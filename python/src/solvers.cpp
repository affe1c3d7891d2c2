// esdirk.Integrator (the driver, optionally with forward sensitivities) and _solve, the C++
// loop behind esdirk.solve_ivp: the whole integration runs without the interpreter unless a
// callback is a Python function.

#include "solvers.hpp"

#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "bindings.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "problem.hpp"

namespace esdirk::python {

namespace {

template <class Work>
auto without_gil(ModelProblem& problem, Work&& work) {
  return run_integration(problem.errors(), problem.python_only(), std::forward<Work>(work));
}

// esdirk.Integrator: the problem, the driver and (after enable_sensitivities) the forward
// sensitivities, owned together so that Python's lifetimes cannot break the references
// between them.
class IntegratorBinding {
 public:
  IntegratorBinding(std::shared_ptr<ModelProblem> problem, Options options)
      : problem_(std::move(problem)) {
    options.validate(problem_->nx(), problem_->nz());
    problem_->use_difference_increments_of(options);
    integrator_ = std::make_unique<Integrator>(*problem_, std::move(options));
    vectorized_columns_at_start_ = problem_->vectorized_columns();
    x_.resize(problem_->nx());
    z_.resize(problem_->nz());
  }

  void initialize(double t0, const py::object& x0, const py::object& z0, const py::object& p) {
    const auto x = vector_argument(x0, problem_->nx(), "x0");
    const auto z = optional_vector(z0, problem_->nz(), "z0");
    const auto pv = optional_vector(p, problem_->np(), "p");
    const Status s = without_gil(*problem_, [&] { return integrator_->initialize(t0, x, z, pv); });
    check(s, integrator_->message());
    sensitivity_.reset();  // a new start: enable_sensitivities again (kept if this call failed)
  }

  void enable_sensitivities(const py::object& seed, const py::dict& keywords) {
    const int n = problem_->nx() + problem_->np();
    sensitivity_.reset();
    auto sens =
        std::make_unique<ForwardSensitivity>(*integrator_, sensitivity_options_from(keywords));
    Status s;
    if (seed.is_none()) {
      s = without_gil(*problem_, [&] { return sens->initialize_all(); });
    } else {
      const DenseMatrix S = matrix_argument(seed, n, -1, "seed");
      s = without_gil(*problem_, [&] { return sens->initialize(S.cref()); });
    }
    check(s, sens->message());
    sensitivity_ = std::move(sens);
    Sx_.resize(problem_->nx(), sensitivity_->directions());
    Sz_.resize(problem_->nz(), sensitivity_->directions());
  }

  std::string integrate_to(double tout) {
    // x_, z_ (and the sensitivities) receive the solution at o.t, also when the call fails
    // (the last good state) or a callback raised: .t follows them before anything is raised.
    const Outcome o = without_gil(*problem_, [&] {
      const Outcome r = sensitivity_
                            ? sensitivity_->integrate_to(tout, x_, z_, Sx_.ref(), Sz_.ref())
                            : integrator_->integrate_to(tout, x_, z_);
      t_out_ = r.t;
      return r;
    });
    check(o.status, sensitivity_ ? sensitivity_->message() : integrator_->message());
    return std::string(stop_reason_name(o.reason));
  }

  std::string step(double tout) {
    const Outcome o = without_gil(*problem_, [&] { return integrator_->step(tout); });
    check(o.status, sensitivity_ ? sensitivity_->message() : integrator_->message());
    t_out_ = integrator_->t();
    std::copy(integrator_->x().begin(), integrator_->x().end(), x_.begin());
    std::copy(integrator_->z().begin(), integrator_->z().end(), z_.begin());
    if (sensitivity_)
      copy(sensitivity_->state_sensitivity(), sensitivity_->algebraic_sensitivity());
    return std::string(stop_reason_name(o.reason));
  }

  py::tuple dense_output(double t) {
    std::vector<double> x(x_.size()), z(z_.size());
    integrator_->dense_output(t, x, z);
    return py::make_tuple(to_array(x), to_array(z));
  }

  Integrator& integrator() { return *integrator_; }
  /// The integrator's counters, with the problem's vectorized difference columns since this
  /// integrator was made counted as difference evaluations (as solve_ivp counts them).
  Statistics statistics() const {
    Statistics s = integrator_->statistics();
    s.fd_function_evaluations += problem_->vectorized_columns() - vectorized_columns_at_start_;
    return s;
  }
  const ForwardSensitivity* sensitivity() const { return sensitivity_.get(); }
  double t() const { return t_out_; }
  py::array_t<double> x() const { return to_array(x_); }
  py::array_t<double> z() const { return to_array(z_); }
  py::object Sx() const { return sensitivity_ ? py::object(to_array(Sx_.cref())) : py::none(); }
  py::object Sz() const { return sensitivity_ ? py::object(to_array(Sz_.cref())) : py::none(); }

 private:
  void copy(ConstMatrixRef sx, ConstMatrixRef sz) {
    for (int j = 0; j < sx.cols; ++j) {
      for (int i = 0; i < sx.rows; ++i) Sx_(i, j) = sx(i, j);
      for (int i = 0; i < sz.rows; ++i) Sz_(i, j) = sz(i, j);
    }
  }

  std::shared_ptr<ModelProblem> problem_;
  std::unique_ptr<Integrator> integrator_;
  std::unique_ptr<ForwardSensitivity> sensitivity_;
  std::vector<double> x_, z_;
  DenseMatrix Sx_, Sz_;
  double t_out_ = 0.0;
  long vectorized_columns_at_start_ = 0;
};

}  // namespace

void Recorder::output(double t, ConstVector x, ConstVector z, ConstMatrixRef sx,
                      ConstMatrixRef sz) {
  const int ns = r_.directions;
  r_.t.push_back(t);
  r_.x.insert(r_.x.end(), x.begin(), x.end());
  r_.z.insert(r_.z.end(), z.begin(), z.end());
  for (int i = 0; i < nx_ && ns > 0; ++i)  // row-major (nx, ns) per time
    for (int j = 0; j < ns; ++j) r_.Sx.push_back(sx(i, j));
  for (int i = 0; i < nz_ && ns > 0; ++i)
    for (int j = 0; j < ns; ++j) r_.Sz.push_back(sz(i, j));
}

void Recorder::dense_point(double t, ConstVector x, ConstVector f) {
  r_.dense_t.push_back(t);
  r_.dense_x.insert(r_.dense_x.end(), x.begin(), x.end());
  r_.dense_f.insert(r_.dense_f.end(), f.begin(), f.end());
}

void Recorder::observe_steps(
    Integrator& integrator, bool every_step, bool dense,
    std::function<std::pair<ConstMatrixRef, ConstMatrixRef>()> sensitivities) {
  if (!every_step && !dense) return;
  integrator.set_step_observer([this, every_step, dense, sensitivities](const StepView& step) {
    const int last = step.stages - 1;
    const ConstVector xe(step.X.column(last), nx_), fe(step.F.column(last), nx_);
    if (dense) dense_point(step.t_end, xe, fe);
    if (every_step) {
      const auto [sx, sz] = sensitivities();
      output(step.t_end, xe, ConstVector(step.Z.column(last), nz_), sx, sz);
    }
  });
}

void Recorder::trim_after(double t) {
  const auto ns = static_cast<std::size_t>(r_.directions);
  std::size_t keep = r_.t.size();
  while (keep > 0 && r_.t[keep - 1] > t) --keep;
  r_.t.resize(keep);
  r_.x.resize(keep * nx_);
  r_.z.resize(keep * nz_);
  r_.Sx.resize(keep * nx_ * ns);
  r_.Sz.resize(keep * nz_ * ns);
  std::size_t dense_keep = r_.dense_t.size();
  while (dense_keep > 0 && r_.dense_t[dense_keep - 1] > t) --dense_keep;
  r_.dense_t.resize(dense_keep);
  r_.dense_x.resize(dense_keep * nx_);
  r_.dense_f.resize(dense_keep * nx_);
}

SolveResult solve(ModelProblem& problem, const Options& options, const SolveRequest& request) {
  const int nx = problem.nx(), nz = problem.nz();
  SolveResult r;
  Recorder recorder(r, nx, nz);
  Integrator solver(problem, options);
  r.method = solver.method().name;
  std::unique_ptr<ForwardSensitivity> sensitivity;
  auto finish = [&](Status status, const std::string& message) {
    r.status = status;
    r.message = message;
    r.statistics = solver.statistics();
    return r;
  };
  Status s = solver.initialize(request.t0, request.x0, request.z0, request.p);
  if (!ok(s)) return finish(s, solver.message());
  if (request.sensitivities) {
    sensitivity = std::make_unique<ForwardSensitivity>(solver, request.sensitivity_options);
    s = request.seed.rows() ? sensitivity->initialize(request.seed.cref())
                            : sensitivity->initialize_all();
    if (!ok(s)) return finish(s, sensitivity->message());
    recorder.set_directions(sensitivity->directions());
  }
  std::vector<double> x(nx), z(nz);
  DenseMatrix Sx(nx, r.directions), Sz(nz, r.directions);
  // The sensitivities where the integrator stands (zero-size without them).
  auto current = [&]() -> std::pair<ConstMatrixRef, ConstMatrixRef> {
    if (!sensitivity) return {Sx.cref(), Sz.cref()};
    return {sensitivity->state_sensitivity(), sensitivity->algebraic_sensitivity()};
  };
  const bool every_step = request.t_eval.empty();
  if (every_step) {
    r.t.reserve(1024);
    const auto [sx, sz] = current();
    recorder.output(request.t0, solver.x(), solver.z(), sx, sz);
  }
  if (request.dense) recorder.dense_point(request.t0, solver.x(), solver.current_derivative());
  recorder.observe_steps(solver, every_step, request.dense, current);
  solver.set_stop_time(request.t_final);
  const std::vector<double> single{request.t_final};
  for (double tout : every_step ? single : request.t_eval) {
    if (tout == request.t0) {  // t_eval may start at t0 (scipy allows it)
      const auto [sx, sz] = current();
      recorder.output(tout, solver.x(), solver.z(), sx, sz);
      continue;
    }
    const Outcome o = sensitivity ? sensitivity->integrate_to(tout, x, z, Sx.ref(), Sz.ref())
                                  : solver.integrate_to(tout, x, z);
    if (!ok(o)) return finish(o.status, sensitivity ? sensitivity->message() : solver.message());
    if (!every_step) recorder.output(tout, x, z, Sx.cref(), Sz.cref());
  }
  return finish(Status::success, "");
}

void register_solvers(py::module_& m) {
  py::class_<IntegratorBinding>(m, "Integrator", R"(The driver (esdirk::Integrator) on a Problem.

Integrator(problem, options=None, **option_keywords); initialize(t0, x0, z0=None, p=None);
integrate_to(tout) -> stop reason, with the solution in .t, .x, .z; step(tout);
dense_output(t) -> (x, z); enable_sensitivities(seed=None, **sensitivity_options) adds the
forward sensitivities (.Sx, .Sz after each call); statistics (a dict). A numerical failure
raises esdirk.SolverError with the library's message; the integrator keeps its last good
state, so a later call can continue.)")
      .def(py::init([](std::shared_ptr<ModelProblem> problem, std::optional<Options> options,
                       py::kwargs kw) {
             Options o = options ? *options : Options{};
             if (kw.size()) {
               py::object obj = py::cast(o);
               for (auto [k, v] : kw) {
                 const std::string name = py::str(k);
                 if (!py::hasattr(obj, name.c_str()))
                   throw py::type_error("Options has no option '" + name + "'");
                 obj.attr(name.c_str()) = v;
               }
               o = obj.cast<Options>();
             }
             return std::make_unique<IntegratorBinding>(std::move(problem), std::move(o));
           }),
           py::arg("problem"), py::arg("options") = py::none())
      .def("initialize", &IntegratorBinding::initialize, py::arg("t0"), py::arg("x0"),
           py::arg("z0") = py::none(), py::arg("p") = py::none())
      .def(
          "enable_sensitivities",
          [](IntegratorBinding& b, py::object seed, py::kwargs kw) {
            b.enable_sensitivities(seed, kw);
          },
          py::arg("seed") = py::none())
      .def("integrate_to", &IntegratorBinding::integrate_to, py::arg("tout"))
      .def("step", &IntegratorBinding::step, py::arg("tout"))
      .def("dense_output", &IntegratorBinding::dense_output, py::arg("t"))
      .def("set_stop_time", [](IntegratorBinding& b, double t) { b.integrator().set_stop_time(t); })
      .def("clear_stop_time", [](IntegratorBinding& b) { b.integrator().clear_stop_time(); })
      .def_property_readonly("t", &IntegratorBinding::t)
      .def_property_readonly("x", &IntegratorBinding::x)
      .def_property_readonly("z", &IntegratorBinding::z)
      .def_property_readonly("Sx", &IntegratorBinding::Sx)
      .def_property_readonly("Sz", &IntegratorBinding::Sz)
      .def_property_readonly(
          "statistics",
          [](IntegratorBinding& b) { return statistics_dict(b.statistics()); })
      .def_property_readonly("message",
                             [](IntegratorBinding& b) { return b.integrator().message(); })
      .def_property_readonly("options",
                             [](IntegratorBinding& b) { return b.integrator().options(); });

  m.def("_solve",
        [](std::shared_ptr<ModelProblem> problem, const Options& options, double t0, double t_final,
           py::object x0, py::object z0, py::object p, py::object t_eval, bool dense,
           bool sensitivities, py::object seed, const SensitivityOptions& sens) {
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
          SolveResult r = without_gil(*problem, [&] { return solve(*problem, options, q); });
          return result_dict(r, *problem);
        });
}

py::dict result_dict(SolveResult& r, const ModelProblem& problem) {
  const int nx = problem.nx(), nz = problem.nz();
  // Vectorized differences are difference evaluations of f, whichever call made them.
  r.statistics.fd_function_evaluations += problem.vectorized_columns();
  const auto nt = static_cast<py::ssize_t>(r.t.size());
  const py::ssize_t ns = r.directions;
  auto array = [](const std::vector<double>& v, std::vector<py::ssize_t> shape) {
    py::array_t<double> a(shape);
    if (!v.empty()) std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
  };
  py::dict d;
  d["t"] = array(r.t, {nt});
  // x, z stored time-major: (nt, n), returned transposed to scipy's (n, nt).
  d["x"] = array(r.x, {nt, nx}).attr("T").attr("copy")();
  d["z"] = array(r.z, {nt, nz}).attr("T").attr("copy")();
  if (ns) {
    d["Sx"] = array(r.Sx, {nt, nx, ns});
    d["Sz"] = array(r.Sz, {nt, nz, ns});
  }
  const auto nd = static_cast<py::ssize_t>(r.dense_t.size());
  d["dense_t"] = array(r.dense_t, {nd});
  d["dense_x"] = array(r.dense_x, {nd, nx});
  d["dense_f"] = array(r.dense_f, {nd, nx});
  d["status"] = static_cast<int>(r.status);
  d["status_name"] = std::string(status_name(r.status));
  d["message"] = r.message;
  d["statistics"] = statistics_dict(r.statistics);
  d["vectorized_calls"] = problem.vectorized_calls();
  d["method"] = r.method;
  d["t_events"] = r.t_events;
  d["events"] = r.events;
  return d;
}

}  // namespace esdirk::python
