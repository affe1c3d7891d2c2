// esdirk.ShootingInterval (x, A, B, z, H, q, r of one interval) and esdirk.adjoint_gradient
// (the discrete adjoint's gradient of an objective with respect to x0 and p).

#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "bindings.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"
#include "objective.hpp"
#include "problem.hpp"
#include "shooting.hpp"

namespace esdirk::python {

RunningCost running_cost_from(const py::object& cost, ModelProblem& problem) {
  if (cost.is_none()) return {};
  if (!PyCallable_Check(cost.ptr())) throw py::type_error("running_cost must be callable");
  ErrorSlot* errors = &problem.errors();
  const int nx = problem.nx(), nz = problem.nz(), nu = problem.np();
  // cost(t, x, z, u) -> (value, dh/dx, dh/dz, dh/du)
  return [cost, errors, nx, nz, nu](double t, ConstVector x, ConstVector z, ConstVector u,
                                    double& value, Vector hx, Vector hz, Vector hu) -> int {
    py::gil_scoped_acquire gil;
    if (errors->pending()) return -1;
    try {
      auto parts = cost(t, to_array(x), to_array(z), to_array(u)).cast<py::tuple>();
      if (parts.size() != 4)
        throw py::value_error("running_cost must return (value, dh/dx, dh/dz, dh/du)");
      value = parts[0].cast<double>();
      const auto gx = vector_argument(parts[1], nx, "running_cost's dh/dx");
      const auto gz =
          nz ? vector_argument(parts[2], nz, "running_cost's dh/dz") : std::vector<double>{};
      const auto gu =
          nu ? vector_argument(parts[3], nu, "running_cost's dh/du") : std::vector<double>{};
      std::copy(gx.begin(), gx.end(), hx.begin());
      std::copy(gz.begin(), gz.end(), hz.begin());
      std::copy(gu.begin(), gu.end(), hu.begin());
      return 0;
    } catch (py::error_already_set& e) {
      e.restore();
    } catch (py::cast_error&) {
      PyErr_SetString(PyExc_TypeError, "running_cost must return (value, dh/dx, dh/dz, dh/du)");
    } catch (py::builtin_exception& e) {
      e.set_error();
    }
    errors->store_current();
    return -1;
  };
}

py::dict shooting_result_dict(const ShootingResult& r) {
  py::dict d;
  d["t_end"] = r.t_end;
  d["x"] = to_array(r.x);
  d["z"] = to_array(r.z);
  d["A"] = to_array(r.A.cref());
  d["B"] = to_array(r.B.cref());
  d["Az"] = to_array(r.Az.cref());
  d["Bz"] = to_array(r.Bz.cref());
  d["H"] = r.H;
  d["q"] = to_array(r.q);
  d["r"] = to_array(r.r);
  d["statistics"] = statistics_dict(r.statistics);
  d["error_estimate"] = r.error_estimate;
  return d;
}

namespace {

class ShootingBinding {
 public:
  ShootingBinding(std::shared_ptr<ModelProblem> problem, Options options,
                  SensitivityOptions sensitivity)
      : problem_(std::move(problem)) {
    interval_ =
        std::make_unique<ShootingInterval>(*problem_, std::move(options), std::move(sensitivity));
  }

  void set_running_cost(const py::object& cost) {
    interval_->set_running_cost(running_cost_from(cost, *problem_));
  }

  py::dict integrate(double t_k, double t_end, const py::object& x_k, const py::object& u_k,
                     const py::object& z_guess) {
    const auto x = vector_argument(x_k, problem_->nx(), "x_k");
    const auto u = optional_vector(u_k, problem_->np(), "u_k");
    const auto z = z_guess.is_none() ? std::vector<double>{}
                                     : vector_argument(z_guess, problem_->nz(), "z_guess");
    const ShootingResult* r = run_integration(problem_->errors(), problem_->python_only(),
                                              [&] { return &interval_->integrate(t_k, t_end, x, u, z); });
    check(r->status, r->message);
    return shooting_result_dict(*r);
  }

  // The mesh policies (doc/multiple-shooting-guide.md, "Fixed and frozen meshes"): bad input
  // raises ValueError naming the argument, and the previous mesh and policy are kept.
  void set_fixed_steps(int steps) {
    try {
      interval_->set_fixed_steps(steps);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
  }
  void set_mesh(const py::object& points) {
    const py::array_t<double, py::array::c_style | py::array::forcecast> a(points);
    if (a.ndim() != 1) throw py::value_error("set_mesh: the mesh must be a 1-D sequence of points");
    try {
      interval_->set_mesh(ConstVector(a.data(), static_cast<std::size_t>(a.size())));
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
  }
  static const char* policy_name(MeshPolicy policy) {
    switch (policy) {
      case MeshPolicy::fixed: return "fixed";
      case MeshPolicy::frozen: return "frozen";
      case MeshPolicy::adaptive: break;
    }
    return "adaptive";
  }

  ShootingInterval& interval() { return *interval_; }

 private:
  std::shared_ptr<ModelProblem> problem_;
  std::unique_ptr<ShootingInterval> interval_;
};

// esdirk.adjoint_gradient: one forward run over t_span recorded by an Adjoint, then its sweep.
py::dict adjoint_gradient(std::shared_ptr<ModelProblem> problem, py::object t_span, py::object x0,
                          py::object z0, py::object p, py::object weights, py::object terminal,
                          py::object running, int rows, std::optional<Options> options,
                          long memory_budget) {
  const auto span = vector_argument(t_span, 2, "t_span");
  const int nx = problem->nx(), nz = problem->nz(), np = problem->np();
  const auto x = vector_argument(x0, nx, "x0");
  const auto z = optional_vector(z0, nz, "z0");
  const auto pv = optional_vector(p, np, "p");
  AdjointObjective objective;
  DenseMatrix w;
  if (!weights.is_none()) {
    w = weights_argument(weights, nx + nz);
    rows = w.cols();
  }
  objective.rows = rows;
  if (w.rows()) objective.set_terminal_weights(w.cref());
  ErrorSlot& errors = problem->errors();
  if (!terminal.is_none())
    objective.terminal = [terminal, &errors, rows](double t, ConstVector xv, ConstVector zv,
                                                   ConstVector pp, MatrixRef dx, MatrixRef dz,
                                                   MatrixRef dp) {
      return python_gradient(terminal, errors, "terminal", rows, t, xv, zv, pp, dx, dz, dp);
    };
  if (!running.is_none())
    objective.running = [running, &errors, rows](double t, ConstVector xv, ConstVector zv,
                                                 ConstVector pp, MatrixRef dx, MatrixRef dz,
                                                 MatrixRef dp) {
      return python_gradient(running, errors, "running", rows, t, xv, zv, pp, dx, dz, dp);
    };
  try {
    objective.validate();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  Options o = options.value_or(Options{});
  o.validate(nx, nz);
  AdjointOptions ao;
  ao.memory_budget = memory_budget;
  Integrator solver(*problem, o);
  Adjoint adjoint(solver, ao);
  DenseMatrix dx0(nx, rows), dp(np, rows);
  std::vector<double> xe(nx), ze(nz);
  std::string message;
  Status status = Status::success;
  status = run_integration(problem->errors(), problem->python_only(), [&] {
    Status s = solver.initialize(span[0], x, z, pv);
    message = solver.message();
    if (ok(s)) {
      solver.set_stop_time(span[1]);
      s = solver.integrate_to(span[1], xe, ze).status;
      message = solver.message();
    }
    if (ok(s)) {
      s = adjoint.gradient(objective, dx0.ref(), dp.ref());
      message = adjoint.message();
    }
    return s;
  });
  check(status, message);
  py::dict d;
  d["dx0"] = gradient_array(dx0, rows);
  d["dp"] = gradient_array(dp, rows);
  d["x"] = to_array(xe);
  d["z"] = to_array(ze);
  d["steps"] = adjoint.steps();
  d["statistics"] = statistics_dict(solver.statistics());
  return d;
}

}  // namespace

void register_sensitivity(py::module_& m) {
  py::class_<ShootingBinding>(m, "ShootingInterval",
                              R"(One shooting interval (esdirk::ShootingInterval):
integrate(t_k, t_end, x_k, u_k, z_guess=None) -> dict with x, z (at t_end), A = dx/dx_k,
B = dx/du_k, Az, Bz, H (the running cost's integral), q = dH/dx_k, r = dH/du_k, the
interval's statistics and error_estimate (the largest error-test norm of the call's steps). The
problem's parameters are the controls u. A running cost is set_running_cost(cost) with
cost(t, x, z, u) -> (value, dh/dx, dh/dz, dh/du). Repeated calls start from the last step size
(warm start) unless cold_start() is called.

Meshes (mesh_policy "adaptive" by default): set_fixed_steps(n) takes n equal steps on any
interval, set_mesh(points) the points 0 = s_0 < ... < s_N from t_k (intervals of length s_N),
both without the error test (the exact derivative of that discrete map); freeze_mesh() adapts
at the next call and reuses its steps on later calls of the same length until refresh_mesh();
use_adaptive_steps() goes back. mesh is the last call's mesh under a fixed or frozen policy.)")
      .def(py::init([](std::shared_ptr<ModelProblem> problem, std::optional<Options> options,
                       std::optional<SensitivityOptions> sensitivity, py::object running_cost) {
             auto b =
                 std::make_unique<ShootingBinding>(std::move(problem), options.value_or(Options{}),
                                                   sensitivity.value_or(SensitivityOptions{}));
             b->set_running_cost(running_cost);
             return b;
           }),
           py::arg("problem"), py::arg("options") = py::none(),
           py::arg("sensitivity_options") = py::none(), py::arg("running_cost") = py::none())
      .def("set_running_cost", &ShootingBinding::set_running_cost)
      .def("integrate", &ShootingBinding::integrate, py::arg("t_k"), py::arg("t_end"),
           py::arg("x_k"), py::arg("u_k") = py::none(), py::arg("z_guess") = py::none())
      .def("cold_start", [](ShootingBinding& b) { b.interval().cold_start(); })
      .def("set_fixed_steps", &ShootingBinding::set_fixed_steps, py::arg("steps"))
      .def("set_mesh", &ShootingBinding::set_mesh, py::arg("points"))
      .def("freeze_mesh", [](ShootingBinding& b) { b.interval().freeze_mesh(); })
      .def("refresh_mesh", [](ShootingBinding& b) { b.interval().refresh_mesh(); })
      .def("use_adaptive_steps", [](ShootingBinding& b) { b.interval().use_adaptive_steps(); })
      .def_property_readonly("mesh_policy", [](ShootingBinding& b) {
        return ShootingBinding::policy_name(b.interval().mesh_policy());
      })
      .def_property_readonly("mesh", [](ShootingBinding& b) { return to_array(b.interval().mesh()); })
      .def_property_readonly("total_statistics", [](ShootingBinding& b) {
        return statistics_dict(b.interval().total_statistics());
      });

  m.def(
      "adjoint_gradient", &adjoint_gradient, py::arg("problem"), py::arg("t_span"), py::arg("x0"),
      py::arg("z0") = py::none(), py::arg("p") = py::none(), py::arg("weights") = py::none(),
      py::arg("terminal") = py::none(), py::arg("running") = py::none(), py::arg("rows") = 1,
      py::arg("options") = py::none(), py::arg("memory_budget") = 0,
      R"(The gradient of an objective Phi = C(x(tf), z(tf), p) + int L dt with respect to x0 and p by
the discrete adjoint (esdirk::Adjoint), on the steps of one forward run over t_span.
C is given as weights w (C = w . [x(tf); z(tf)]) or as terminal(t, x, z, p) -> (dC/dx, dC/dz,
dC/dp); L as running(t, x, z, p) -> (dL/dx, dL/dz, dL/dp) (None blocks are zero). Returns a
dict: dx0, dp (1-D for one objective row; (n, rows) otherwise), x, z at tf, steps, statistics.)");
}

}  // namespace esdirk::python
