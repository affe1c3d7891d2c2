// Multiple shooting from Python: esdirk.IntervalEvaluator (N shooting intervals on a pool of
// threads) and esdirk.estimate (Gauss-Newton parameter estimation on them).

#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "bindings.hpp"
#include "esdirk/multishoot/estimation.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"
#include "problem.hpp"
#include "shooting.hpp"

namespace esdirk::python {

namespace {

using multishoot::IntervalEvaluator;
using multishoot::IntervalInputs;
using multishoot::IntervalOutputs;

py::dict outputs_dict(const IntervalOutputs& out) {
  const int N = out.intervals(), nx = out.nx(), nz = out.nz(), nu = out.nu();
  py::array_t<int> status(N);
  py::array_t<double> x({N, nx}), z({N, nz}), A({N, nx, nx}), B({N, nx, nu}), H(N), q({N, nx}),
      r({N, nu}), seconds(N);
  py::array_t<long> steps(N);
  auto s = status.mutable_unchecked<1>();
  auto stw = steps.mutable_unchecked<1>();
  auto xw = x.mutable_unchecked<2>();
  auto zw = z.mutable_unchecked<2>();
  auto Aw = A.mutable_unchecked<3>();
  auto Bw = B.mutable_unchecked<3>();
  auto Hw = H.mutable_unchecked<1>();
  auto qw = q.mutable_unchecked<2>();
  auto rw = r.mutable_unchecked<2>();
  auto sw = seconds.mutable_unchecked<1>();
  py::list messages;
  for (int k = 0; k < N; ++k) {
    s(k) = static_cast<int>(out.status(k));
    messages.append(out.message(k));
    sw(k) = out.seconds(k);
    stw(k) = out.steps(k);
    if (!out.ok(k)) continue;
    for (int i = 0; i < nx; ++i) {
      xw(k, i) = out.x_end(k)[static_cast<std::size_t>(i)];
      qw(k, i) = out.q(k)[static_cast<std::size_t>(i)];
      for (int j = 0; j < nx; ++j) Aw(k, i, j) = out.A(k)(i, j);
      for (int j = 0; j < nu; ++j) Bw(k, i, j) = out.B(k)(i, j);
    }
    for (int i = 0; i < nz; ++i) zw(k, i) = out.z_end(k)[static_cast<std::size_t>(i)];
    for (int i = 0; i < nu; ++i) rw(k, i) = out.r(k)[static_cast<std::size_t>(i)];
    Hw(k) = out.H(k);
  }
  py::dict d;
  d["status"] = status;
  d["ok"] = out.all_ok();
  d["messages"] = messages;
  d["x"] = x;
  d["z"] = z;
  d["A"] = A;
  d["B"] = B;
  d["H"] = H;
  d["q"] = q;
  d["steps"] = steps;
  d["r"] = r;
  d["seconds"] = seconds;
  return d;
}

// One copy of the Python problem per interval (the evaluator owns one Problem per interval);
// the copies share the callbacks and each has its own error slot.
class EvaluatorBinding {
 public:
  EvaluatorBinding(std::shared_ptr<ModelProblem> problem, int intervals, Options options,
                   SensitivityOptions sensitivity, int threads)
      : problem_(std::move(problem)) {
    auto factory = [this]() -> std::unique_ptr<Problem> {
      auto copy = std::make_unique<ModelProblem>(*problem_);
      copies_.push_back(copy.get());
      return copy;
    };
    evaluator_ = std::make_unique<IntervalEvaluator>(factory, intervals, std::move(options),
                                                     std::move(sensitivity), threads);
  }
  ~EvaluatorBinding() {
    // The copies hold Python objects: released here, with the GIL (the binding's destructor
    // runs with it).
    evaluator_.reset();
  }

  void set_running_cost(const py::object& cost) {
    evaluator_->set_running_cost(running_cost_from(cost, *problem_));
  }

  // Runs the evaluator with the GIL released and raises the first Python error of any copy.
  template <class Work>
  auto run(Work&& work) {
    problem_->errors().clear();
    for (ModelProblem* c : copies_) c->errors().clear();
    std::optional<decltype(work())> result;
    {
      py::gil_scoped_release release;
      result.emplace(work());
    }
    problem_->errors().raise_if_pending();
    for (ModelProblem* c : copies_) c->errors().raise_if_pending();
    return *result;
  }

  IntervalInputs inputs(const py::object& t_begin, const py::object& t_end, const py::object& x,
                        const py::object& u, const py::object& z_guess) const {
    const int N = evaluator_->intervals(), nx = evaluator_->nx(), nz = evaluator_->nz(),
              nu = evaluator_->nu();
    IntervalInputs in(N, nx, nz, nu);
    in.t_begin = vector_argument(t_begin, N, "t_begin");
    in.t_end = vector_argument(t_end, N, "t_end");
    auto rows = [N](const py::object& v, int n, const char* what) {
      std::vector<double> flat(static_cast<std::size_t>(N) * n, 0.0);
      if (v.is_none() || n == 0) return flat;
      const DenseMatrix m = matrix_argument(v, N, n, what);
      for (int k = 0; k < N; ++k)
        for (int i = 0; i < n; ++i) flat[static_cast<std::size_t>(k) * n + i] = m(k, i);
      return flat;
    };
    if (x.is_none()) throw py::value_error("x (the node states, shape (N, nx)) is required");
    in.x = rows(x, nx, "x");
    in.u = rows(u, nu, "u");
    in.z_guess = rows(z_guess, nz, "z_guess");
    return in;
  }

  py::dict evaluate(const py::object& t_begin, const py::object& t_end, const py::object& x,
                    const py::object& u, const py::object& z_guess) {
    const IntervalInputs in = inputs(t_begin, t_end, x, u, z_guess);
    IntervalOutputs out;
    run([&] { return evaluator_->evaluate(in, out); });
    return outputs_dict(out);
  }

  IntervalEvaluator& evaluator() { return *evaluator_; }

 private:
  std::shared_ptr<ModelProblem> problem_;
  std::vector<ModelProblem*> copies_;
  std::unique_ptr<IntervalEvaluator> evaluator_;
};

multishoot::Experiment experiment_from(const py::dict& d, int nx, int nz, int ny) {
  multishoot::Experiment e;
  auto flat = [](const py::handle& v, const char* what) {
    py::array a = py::array::ensure(v);
    if (!a) throw py::type_error(std::string(what) + " must be an array of numbers");
    return vector_argument(a.attr("reshape")(-1), what);
  };
  if (!d.contains("times") || !d.contains("data") || !d.contains("nodes"))
    throw py::value_error(
        "an experiment needs 'times', 'data' and 'nodes' (and optionally 'sigma', "
        "'z_guess', 'initial_state_known')");
  e.times = vector_argument(d["times"], "times");
  const auto M1 = static_cast<int>(e.times.size());
  e.data = flat(d["data"], "data");
  e.sigma =
      d.contains("sigma") ? flat(d["sigma"], "sigma") : std::vector<double>(e.data.size(), 1.0);
  e.nodes = flat(d["nodes"], "nodes");
  e.z_guess = d.contains("z_guess")
                  ? flat(d["z_guess"], "z_guess")
                  : std::vector<double>(static_cast<std::size_t>(std::max(M1 - 1, 0)) * nz, 0.0);
  if (d.contains("initial_state_known"))
    e.initial_state_known = d["initial_state_known"].cast<bool>();
  (void)nx;
  (void)ny;
  return e;
}

// The result of multishoot::estimate as a dict of NumPy arrays.
py::dict estimation_dict(const multishoot::EstimationResult& r, int np) {
  py::dict d;
  d["converged"] = r.converged;
  d["message"] = r.message;
  d["theta"] = to_array(r.theta);
  d["theta_stddev"] = to_array(r.theta_stddev);
  d["theta_lower"] = to_array(r.theta_lower);
  d["theta_upper"] = to_array(r.theta_upper);
  d["identifiable"] = r.identifiable;
  d["nodes"] = to_array(r.nodes);
  d["cost"] = r.cost;
  d["residuals"] = r.residuals;
  d["rank"] = r.rank;
  d["residual_variance"] = r.residual_variance;
  d["singular_values"] = to_array(r.singular_values);
  py::array_t<double> cov({np, np});
  auto c = cov.mutable_unchecked<2>();
  for (int i = 0; i < np; ++i)
    for (int j = 0; j < np; ++j)
      c(i, j) = r.covariance.empty() ? 0.0 : r.covariance[static_cast<std::size_t>(i + j * np)];
  d["covariance"] = cov;
  d["iterations"] = r.history.size();
  return d;
}

// esdirk.estimate: Gauss-Newton on multiple shooting, the intervals on `threads` threads.
py::dict run_estimation(std::shared_ptr<ModelProblem> problem, std::vector<int> measured,
                        py::list experiments, py::object theta0, std::optional<Options> options,
                        std::optional<SensitivityOptions> sensitivity, int threads,
                        py::kwargs gauss_newton) {
  multishoot::EstimationProblem ep;
  ep.nx = problem->nx();
  ep.nz = problem->nz();
  ep.np = problem->np();
  ep.measured = measured;
  for (auto e : experiments)
    ep.experiments.push_back(
        experiment_from(e.cast<py::dict>(), ep.nx, ep.nz, static_cast<int>(measured.size())));
  const auto theta = vector_argument(theta0, ep.np, "theta0");
  multishoot::GaussNewtonOptions gn;
  py::object gn_object = py::cast(gn);
  for (auto [k, v] : gauss_newton) {
    const std::string name = py::str(k);
    if (!py::hasattr(gn_object, name.c_str()))
      throw py::type_error("estimate() has no Gauss-Newton option '" + name + "'");
    gn_object.attr(name.c_str()) = v;
  }
  gn = gn_object.cast<multishoot::GaussNewtonOptions>();
  try {
    ep.validate();
    gn.validate();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  EvaluatorBinding evaluator(problem, ep.intervals(), options.value_or(Options{}),
                             sensitivity.value_or(SensitivityOptions{}), threads);
  const auto evaluate = [&](const IntervalInputs& in, IntervalOutputs& out) {
    return evaluator.evaluator().evaluate(in, out);
  };
  multishoot::EstimationResult r =
      evaluator.run([&] { return multishoot::estimate(ep, theta, evaluate, gn); });
  return estimation_dict(r, ep.np);
}

// esdirk.IntervalEvaluator.
void register_interval_evaluator(py::module_& m) {
  py::class_<EvaluatorBinding>(m, "IntervalEvaluator",
                               R"(N shooting intervals evaluated on a pool of
threads (esdirk::multishoot::IntervalEvaluator), bit-identical for any number of threads.

IntervalEvaluator(problem, intervals, options=None, sensitivity_options=None, threads=1,
running_cost=None); evaluate(t_begin, t_end, x, u=None, z_guess=None) with x (N, nx),
u (N, nu) -> dict of arrays: status (N,), ok, messages, x (N, nx), z, A (N, nx, nx),
B (N, nx, nu), H, q, r, seconds and steps (accepted + rejected) per interval. Compiled callbacks
run in parallel; Python callbacks take the GIL in turn. Meshes of every interval:
set_fixed_steps(n), freeze_meshes(), refresh_meshes(), use_adaptive_steps() (as
ShootingInterval's).)")
      .def(
          py::init([](std::shared_ptr<ModelProblem> problem, int intervals,
                      std::optional<Options> options, std::optional<SensitivityOptions> sensitivity,
                      int threads, py::object running_cost) {
            try {
              auto b = std::make_unique<EvaluatorBinding>(
                  std::move(problem), intervals, options.value_or(Options{}),
                  sensitivity.value_or(SensitivityOptions{}), threads);
              b->set_running_cost(running_cost);
              return b;
            } catch (const std::invalid_argument& e) {
              throw py::value_error(e.what());
            }
          }),
          py::arg("problem"), py::arg("intervals"), py::arg("options") = py::none(),
          py::arg("sensitivity_options") = py::none(), py::arg("threads") = 1,
          py::arg("running_cost") = py::none())
      .def("evaluate", &EvaluatorBinding::evaluate, py::arg("t_begin"), py::arg("t_end"),
           py::arg("x"), py::arg("u") = py::none(), py::arg("z_guess") = py::none())
      .def("set_warm_start",
           [](EvaluatorBinding& b, bool warm) { b.evaluator().set_warm_start(warm); })
      // Every interval's mesh policy at once (ShootingInterval's, same rules).
      .def("set_fixed_steps",
           [](EvaluatorBinding& b, int steps) {
             try {
               b.evaluator().set_fixed_steps(steps);
             } catch (const std::invalid_argument& e) {
               throw py::value_error(e.what());
             }
           },
           py::arg("steps"))
      .def("freeze_meshes", [](EvaluatorBinding& b) { b.evaluator().freeze_meshes(); })
      .def("refresh_meshes", [](EvaluatorBinding& b) { b.evaluator().refresh_meshes(); })
      .def("use_adaptive_steps", [](EvaluatorBinding& b) { b.evaluator().use_adaptive_steps(); })
      .def_property_readonly("threads", [](EvaluatorBinding& b) { return b.evaluator().threads(); })
      .def_property_readonly("intervals",
                             [](EvaluatorBinding& b) { return b.evaluator().intervals(); });
}

// esdirk.estimate and its options.
void register_estimation(py::module_& m) {
  m.def(
      "estimate", &run_estimation, py::arg("problem"), py::arg("measured"), py::arg("experiments"),
      py::arg("theta0"), py::arg("options") = py::none(),
      py::arg("sensitivity_options") = py::none(), py::arg("threads") = 1,
      R"(Parameter estimation by multiple shooting and Gauss-Newton (esdirk::multishoot::estimate).
problem's parameters are theta; measured: the indices of the measured states; experiments:
dicts with times (M+1,), data (M+1, ny), sigma (M+1, ny, default 1), nodes (M+1, nx: guesses
of the node states), z_guess (M, nz), initial_state_known (default True). Further keywords
are Gauss-Newton options (max_iterations, step_tolerance, ...). Returns a dict: converged,
message, theta, theta_stddev, theta_lower, theta_upper, covariance, nodes, cost, ...)");
  py::class_<multishoot::GaussNewtonOptions>(m, "GaussNewtonOptions")
      .def(py::init<>())
      .def_readwrite("max_iterations", &multishoot::GaussNewtonOptions::max_iterations)
      .def_readwrite("step_tolerance", &multishoot::GaussNewtonOptions::step_tolerance)
      .def_readwrite("defect_tolerance", &multishoot::GaussNewtonOptions::defect_tolerance)
      .def_readwrite("stall_tolerance", &multishoot::GaussNewtonOptions::stall_tolerance)
      .def_readwrite("rcond", &multishoot::GaussNewtonOptions::rcond)
      .def_readwrite("max_backtracks", &multishoot::GaussNewtonOptions::max_backtracks)
      .def_readwrite("max_parameter_step", &multishoot::GaussNewtonOptions::max_parameter_step)
      .def_readwrite("initial_damping", &multishoot::GaussNewtonOptions::initial_damping)
      .def_readwrite("max_damping", &multishoot::GaussNewtonOptions::max_damping)
      .def_readwrite("confidence_z", &multishoot::GaussNewtonOptions::confidence_z);
}

}  // namespace

void register_multishoot(py::module_& m) {
  register_interval_evaluator(m);
  register_estimation(m);
}

}  // namespace esdirk::python
