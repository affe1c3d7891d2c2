// The hybrid adjoint through the C API and through the C++ classes give the same numbers: the
// bouncing ball of examples/bouncing_ball (the same callbacks: analytic f Jacobians, event and
// reset Jacobians by differences), recorded at three outputs, the last one past both impacts,
// with an objective of output terms and terminal weights. Both take the same code path, so the
// gradients agree to the last bit (checked to 1e-12 relative) and so do the sweep's counters.
#include <cmath>
#include <cstdio>
#include <vector>

#include "bouncing_ball/bouncing_ball_model.hpp"
#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_hybrid_adjoint.h"
#include "esdirk/events/hybrid_adjoint.hpp"

namespace {

constexpr double times[3] = {0.5, 1.2, 2.9};  // impacts near t = 0.990 and 2.590
constexpr double rtol = 1e-10, atol = 1e-12;

int ball_f(int, esdirk_int, esdirk_int, esdirk_int, esdirk_int, double, const double* x,
           const double*, const double* p, const double*, double* f, double*, void*) {
  f[0] = x[1];
  f[1] = -p[0];
  return 0;
}
int ball_jacobian(int, esdirk_int, esdirk_int, esdirk_int, esdirk_int, double, const double*,
                  const double*, const double*, const double*, double* J, esdirk_int ld, void*) {
  J[0] = 0.0;
  J[1] = 0.0;
  J[ld] = 1.0;
  J[ld + 1] = 0.0;
  return 0;
}
int ball_parameter_jacobian(int, esdirk_int, esdirk_int, esdirk_int, esdirk_int, double,
                            const double*, const double*, const double*, const double*, double* J,
                            esdirk_int ld, void*) {
  J[0] = 0.0;
  J[1] = -1.0;
  J[ld] = 0.0;
  J[ld + 1] = 0.0;
  return 0;
}
int ball_event(int, esdirk_int, esdirk_int, esdirk_int, esdirk_int, esdirk_int, double,
               const double* x, const double*, const double*, const double*, double* h, void*) {
  h[0] = x[0];
  return 0;
}
int ball_impact(int, esdirk_int, const int*, int, esdirk_int, esdirk_int, esdirk_int, esdirk_int,
                double, const double* x, const double*, const double* p, const double*, int*,
                double* x_plus, void*) {
  x_plus[0] = x[0];
  x_plus[1] = -p[1] * x[1];
  return 0;
}
// Row 0: sum_k (z(t_k) + 2 v(t_k)); row 1 (terminal weights): v(t_end).
int outputs_c(esdirk_int, esdirk_int, esdirk_int, esdirk_int, esdirk_int, double, const double*,
              const double*, const double*, double* dx, esdirk_int, double*, esdirk_int, double*,
              esdirk_int, void*) {
  dx[0] = 1.0;
  dx[1] = 2.0;
  return 0;
}

struct Gradient {
  std::vector<double> dx0 = std::vector<double>(4), dp = std::vector<double>(4);
  long adjoint_steps = 0, jumps = 0, segments = 0;
};

Gradient run_c() {
  Gradient g;
  esdirk_hybrid_problem* problem = nullptr;
  esdirk_hybrid_solver* solver = nullptr;
  esdirk_hybrid_objective* objective = nullptr;
  const int falling = ESDIRK_EVENT_FALLING;
  const double x0[2] = {bouncing_ball::z0, bouncing_ball::v0};
  const double p[2] = {bouncing_ball::gravity, bouncing_ball::restitution};
  const double W[4] = {0.0, 0.0, 0.0, 1.0};
  double x[2];
  CHECK_STATUS(esdirk_hybrid_problem_create(2, 0, 2, 1, 0, ball_f, nullptr, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(problem, ball_event, nullptr), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(problem, ball_impact, nullptr), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_jacobians(problem, ball_jacobian, ball_parameter_jacobian),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerances(solver, rtol, atol), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, &falling, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(solver, 1, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0.0, 0, x0, 2, nullptr, 0, p, 2, nullptr, 0),
               ESDIRK_SUCCESS);
  for (double t : times)
    CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, t, x, 2, nullptr, 0, nullptr), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_create(2, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_outputs(objective, outputs_c, nullptr), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, g.dx0.data(), 2, 2, g.dp.data(), 2, 2),
               ESDIRK_SUCCESS);
  esdirk_hybrid_adjoint_report report = ESDIRK_HYBRID_ADJOINT_REPORT_INIT;
  CHECK_STATUS(esdirk_hybrid_solver_get_adjoint_report(solver, &report), ESDIRK_SUCCESS);
  g.adjoint_steps = static_cast<long>(report.adjoint_steps);
  g.jumps = static_cast<long>(report.jumps);
  g.segments = static_cast<long>(report.segments);
  esdirk_hybrid_objective_free(&objective);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
  return g;
}

Gradient run_cpp() {
  Gradient g;
  bouncing_ball::Model model;
  model.use_analytic_event_jacobians(false);  // as the C problem: differences
  esdirk::HybridOptions o;
  o.integrator.rtol = rtol;
  o.integrator.atol = atol;
  o.directions = {esdirk::EventDirection::falling};
  esdirk::HybridSolver solver(model, o);
  esdirk::HybridAdjoint adjoint(solver);
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0};
  const std::vector<double> p{bouncing_ball::gravity, bouncing_ball::restitution};
  std::vector<double> x(2);
  CHECK(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  for (double t : times) CHECK(esdirk::ok(adjoint.integrate_to(t, x)));
  esdirk::HybridObjective objective;
  objective.rows = 2;
  objective.at_output = [](int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                           esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef) {
    dx(0, 0) = 1.0;
    dx(1, 0) = 2.0;
    return 0;
  };
  esdirk::DenseMatrix w(2, 2);
  w(1, 1) = 1.0;
  objective.set_terminal_weights(w.cref());
  CHECK(esdirk::ok(adjoint.gradient(objective, esdirk::MatrixRef{g.dx0.data(), 2, 2, 2},
                                    esdirk::MatrixRef{g.dp.data(), 2, 2, 2})));
  g.adjoint_steps = adjoint.report().sweep.adjoint_steps;
  g.jumps = adjoint.report().jumps;
  g.segments = adjoint.report().segments;
  return g;
}

}  // namespace

int main() {
  const Gradient c = run_c(), cpp = run_cpp();
  double worst = 0.0, scale = 0.0;
  bool identical = true;
  for (int i = 0; i < 4; ++i) {
    for (double v : {cpp.dx0[i], cpp.dp[i]}) scale = std::max(scale, std::abs(v));
    worst = std::max({worst, std::abs(c.dx0[i] - cpp.dx0[i]), std::abs(c.dp[i] - cpp.dp[i])});
    identical = identical && c.dx0[i] == cpp.dx0[i] && c.dp[i] == cpp.dp[i];
  }
  std::printf("bouncing ball, C API vs C++ HybridAdjoint: worst difference %.1e (scale %.3g), %s\n", worst,
              scale, identical ? "bit-identical" : "not bit-identical");
  CHECK(scale > 0.1);
  CHECK(worst <= 1e-12 * scale);
  CHECK(c.adjoint_steps == cpp.adjoint_steps && c.adjoint_steps > 0);
  CHECK(c.jumps == cpp.jumps && c.jumps == 2);
  CHECK(c.segments == cpp.segments && c.segments == 3);
  return report();
}
