// The bouncing ball of examples/bouncing_ball written once as templates
// (esdirk::ad::HybridModelProblem, doc/ad-guide.md "Hybrid models"): the flow, the impact's
// event function and the reset v+ = -gamma v-, and an objective; the Jacobians, the event row,
// the reset Jacobian and the objective's gradient by automatic differentiation. The twin of
// examples/bouncing_ball, which writes all of them by hand.
//
// Forward sensitivities of (z, v)(1.9) to (z0, v0, g, gamma) through the impact and the hybrid
// adjoint of C = z(1.9)^2 + gamma v(1.9); checks the impact time against the closed form, the
// sensitivities and gradients against the hand-written model's run (the same steps; rounding
// apart) and the adjoint against the forward sensitivities.
//
//     bouncing_ball_ad
//
// Exit status 0 and "CHECK PASSED" when all agree.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include "bouncing_ball/bouncing_ball_model.hpp"
#include "common/example_support.hpp"
#include "esdirk/ad/hybrid_model_problem.hpp"
#include "esdirk/ad/objective.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"

const char* const usage =
    "usage: bouncing_ball_ad\n"
    "\n"
    "The bouncing ball with every derivative by automatic differentiation: sensitivities through\n"
    "the impact and a hybrid-adjoint gradient, checked against the hand-written model.\n"
    "\n"
    "  --help       this text\n";

// x = (z, v), p = (g, gamma): z' = v, v' = -g; the impact z = 0; v+ = -gamma v-.
struct Ball {
  template <class T>
  int f(int, double, std::span<const T> x, std::span<const T>, std::span<const T> p, std::span<const T>,
        std::span<T> f) const {
    f[0] = x[1];
    f[1] = -p[0];
    return 0;
  }
  template <class T>
  int events(int, T, std::span<const T> x, std::span<const T>, std::span<const T>, std::span<const T>,
             std::span<T> h) const {
    h[0] = x[0];
    return 0;
  }
  template <class T>
  int transition(int, const esdirk::TransitionCause&, T, std::span<const T> x, std::span<const T>,
                 std::span<const T> p, std::span<const T>, int&, std::span<T> x_plus) const {
    x_plus[1] = -p[1] * x[1];  // x_plus holds x- on entry: z stays
    return 0;
  }
};

// C = z(t_end)^2 + gamma v(t_end).
struct Cost {
  template <class T>
  int operator()(double, std::span<const T> x, std::span<const T>, std::span<const T> p, std::span<T> c) const {
    c[0] = x[0] * x[0] + p[1] * x[1];
    return 0;
  }
};

struct Run {
  bool ok = false;
  std::vector<double> x = std::vector<double>(2);
  esdirk::DenseMatrix S{2, 4}, dx0{2, 1}, dp{2, 1};
  esdirk::Statistics stats;
  std::vector<esdirk::EventRecord> events;
};

Run solve(esdirk::HybridProblem& model, const esdirk::ObjectiveGradient& terminal) {
  esdirk::HybridOptions o;
  o.integrator.rtol = 1e-10;
  o.integrator.atol = 1e-12;
  esdirk::HybridSolver solver(model, o);
  esdirk::HybridAdjoint adjoint(solver);
  Run r;
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0};
  const std::vector<double> p{bouncing_ball::gravity, bouncing_ball::restitution};
  esdirk::DenseMatrix seed(4, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  r.ok = esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)) && esdirk::ok(solver.initialize_sensitivities(seed.cref())) &&
         esdirk::ok(adjoint.integrate_to(bouncing_ball::t_end, r.x, {}, r.S.ref()));
  esdirk::HybridObjective objective;
  objective.terminal = terminal;
  r.ok = r.ok && esdirk::ok(adjoint.gradient(objective, r.dx0.ref(), r.dp.ref()));
  if (!r.ok) std::fprintf(stderr, "failed: %s\n", solver.message().c_str());
  r.stats = solver.statistics();
  for (int i = 0; i < solver.logged_events(); ++i) r.events.push_back(solver.event(i));
  return r;
}

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  esdirk::ad::HybridModelProblem<Ball> ad(/*nx*/ 2, /*nz*/ 0, /*np*/ 2, /*events*/ 1);
  bouncing_ball::Model hand;
  const esdirk::ObjectiveGradient by_hand = [](double, esdirk::ConstVector x, esdirk::ConstVector,
                                               esdirk::ConstVector p, esdirk::MatrixRef dx, esdirk::MatrixRef,
                                               esdirk::MatrixRef dp) {
    dx(0, 0) = 2.0 * x[0];
    dx(1, 0) = p[1];
    dp(0, 0) = 0.0;
    dp(1, 0) = x[1];
    return 0;
  };
  const Run a = solve(ad, esdirk::ad::objective_gradient(2, 0, 2, 1, Cost{})), h = solve(hand, by_hand);
  if (!a.ok || !h.ok || a.events.empty()) {
    std::printf("CHECK FAILED\n");
    return 1;
  }
  // The impact: z0 + v0 t - g t^2 / 2 = 0.
  const double g = bouncing_ball::gravity, v0 = bouncing_ball::v0;
  const double tau = (v0 + std::sqrt(v0 * v0 + 2.0 * g * bouncing_ball::z0)) / g;
  const char* names[4] = {"z0", "v0", "g", "gamma"};
  std::printf("Bouncing ball to t = %.1f, every derivative by AD\n\n", bouncing_ball::t_end);
  std::printf("impact time %.12f (closed form %.12f), %zu event(s)\n\n", a.events[0].t, tau, a.events.size());
  std::printf("%-18s %20s %20s\n", "", "AD", "hand-written");
  double worst = 0.0, adjoint_vs_forward = 0.0;
  for (int j = 0; j < 4; ++j) {
    std::printf("dz(t_end)/d%-7s %20.12f %20.12f\n", names[j], a.S(0, j), h.S(0, j));
    for (int i = 0; i < 2; ++i)
      worst = std::max(worst, std::abs(a.S(i, j) - h.S(i, j)) / std::max(1.0, std::abs(h.S(i, j))));
    // dC/d(x0, p) from the forward sensitivities: 2 z S_z + gamma S_v (+ v for gamma).
    const double forward = 2.0 * a.x[0] * a.S(0, j) + bouncing_ball::restitution * a.S(1, j) + (j == 3 ? a.x[1] : 0.0);
    const double adjoint = j < 2 ? a.dx0(j, 0) : a.dp(j - 2, 0);
    const double adjoint_hand = j < 2 ? h.dx0(j, 0) : h.dp(j - 2, 0);
    std::printf("dC/d%-14s %20.12f %20.12f   (forward: %.12f)\n", names[j], adjoint, adjoint_hand, forward);
    worst = std::max(worst, std::abs(adjoint - adjoint_hand) / std::max(1.0, std::abs(adjoint_hand)));
    adjoint_vs_forward = std::max(adjoint_vs_forward, std::abs(adjoint - forward) / std::max(1.0, std::abs(forward)));
  }
  std::printf("\nlargest difference AD vs hand-written: %.2e\nadjoint vs forward sensitivities: %.2e\n", worst,
              adjoint_vs_forward);
  std::printf("steps: AD %ld, hand %ld; difference evaluations: AD %ld (events %ld)\n", a.stats.accepted_steps,
              h.stats.accepted_steps, a.stats.fd_function_evaluations, a.stats.event_fd_evaluations);
  const bool good = std::abs(a.events[0].t - tau) < 1e-9 && a.events.size() == h.events.size() &&
                    a.stats.accepted_steps == h.stats.accepted_steps && worst < 1e-12 && adjoint_vs_forward < 1e-10 &&
                    a.stats.fd_function_evaluations == 0 && a.stats.event_fd_evaluations == 0;
  std::printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  return good ? 0 : 1;
}
