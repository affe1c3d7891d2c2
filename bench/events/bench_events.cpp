// Cost of the event module (figures for doc/events-guide.md, "Cost"):
//  1. overhead of event detection on steps where nothing fires: Dow (examples/dow) to 10 h with
//     one event function that never fires, against the same hybrid solver without event
//     functions and against the plain Integrator (best of several runs, wall time);
//  2. cost of one location: root-finder iterations, dense-output evaluations, event-function and
//     model calls per event, on the bouncing ball and Serban & Recuero 2019's Example 5.1.
//
//     bench_events [--repeat 5]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <vector>

#include "bouncing_ball/bouncing_ball_model.hpp"
#include "dow/dow_model.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "esdirk/integrator.hpp"
#include "hybrid_ode/hybrid_ode_model.hpp"

namespace {

// Dow as a one-mode hybrid problem with `events` event functions (u1 - 1e3: never zero).
class DowHybrid : public esdirk::HybridProblem {
 public:
  explicit DowHybrid(int events) : HybridProblem(6, 4, 9, events) {}
  int evaluate(int, double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector g) override {
    return model_.evaluate(t, x, z, p, f, g);
  }
  bool has_jacobian() const override { return true; }
  int jacobian(int, double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::MatrixRef J) override {
    return model_.jacobian(t, x, z, p, J);
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    for (double& v : h) v = x[0] - 1e3;
    return 0;
  }

 private:
  dow::Model model_;
};

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());

double run_plain(long& steps) {
  dow::Model model;
  esdirk::Integrator solver(model, dow::benchmark_options(1e-8));
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  std::vector<double> x(6), z(4);
  const auto start = Clock::now();
  solver.initialize(0.0, x0, z0, p);
  solver.integrate_to(10.0, x, z);
  steps = solver.statistics().accepted_steps;
  return seconds_since(start);
}

double run_hybrid(int events, int samples, long& steps, long& h_calls) {
  DowHybrid model(events);
  esdirk::HybridOptions o;
  o.integrator = dow::benchmark_options(1e-8);
  o.detection_samples = samples;
  esdirk::HybridSolver solver(model, o);
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  std::vector<double> x(6), z(4);
  const auto start = Clock::now();
  solver.initialize(0.0, 0, x0, z0, p);
  solver.integrate_to(10.0, x, z);
  steps = solver.statistics().accepted_steps;
  h_calls = solver.statistics().event_function_evaluations;
  return seconds_since(start);
}

void location_cost(const char* name, esdirk::HybridProblem& model, int mode, std::vector<double> x0v,
                   std::vector<double> pv, double t_end, int ns) {
  esdirk::HybridOptions o;
  o.integrator.rtol = 1e-8;
  o.integrator.atol = 1e-10;
  o.detection_samples = 0;  // count location alone: detection costs one h call per step
  esdirk::HybridSolver solver(model, o);
  solver.initialize(0.0, mode, x0v, {}, pv);
  esdirk::DenseMatrix seed(model.nx() + model.np(), ns);
  for (int j = 0; j < ns; ++j) seed(model.nx() + model.np() - ns + j, j) = 1.0;
  solver.initialize_sensitivities(seed.cref());
  std::vector<double> x(static_cast<std::size_t>(model.nx()));
  esdirk::DenseMatrix S(model.nx(), ns);
  solver.integrate_to(t_end, x, {}, S.ref());
  const esdirk::Statistics& s = solver.statistics();
  const double n = static_cast<double>(solver.event_count());
  std::printf("%-22s %6ld %12.1f %12.1f %12.1f %12.1f %12.1f\n", name, solver.event_count(),
              s.event_root_iterations / n, s.event_dense_evaluations / n,
              (s.event_function_evaluations - s.accepted_steps) / n, s.event_fd_evaluations / n,
              s.event_reinitializations / n);
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  if (argc == 3 && !std::strcmp(argv[1], "--repeat")) repeat = std::atoi(argv[2]);
  double plain = 1e300, none = 1e300, one = 1e300, one0 = 1e300;
  long steps_plain = 0, steps_none = 0, steps_one = 0, h_calls = 0, h0 = 0, s0 = 0;
  for (int r = 0; r < repeat; ++r) {
    plain = std::min(plain, run_plain(steps_plain));
    none = std::min(none, run_hybrid(0, 3, steps_none, h0));
    one = std::min(one, run_hybrid(1, 3, steps_one, h_calls));
    one0 = std::min(one0, run_hybrid(1, 0, s0, h0));
  }
  std::printf("Dow to 10 h, rtol 1e-8, best of %d runs\n", repeat);
  std::printf("%-46s %10s %8s %10s %9s\n", "", "wall [s]", "steps", "h calls", "overhead");
  std::printf("%-46s %10.5f %8ld %10s %9s\n", "Integrator", plain, steps_plain, "-", "-");
  std::printf("%-46s %10.5f %8ld %10d %8.1f%%\n", "HybridSolver, no event function", none, steps_none, 0,
              100.0 * (none / plain - 1.0));
  std::printf("%-46s %10.5f %8ld %10ld %8.1f%%\n", "HybridSolver, 1 never-firing event, 3 samples", one, steps_one,
              h_calls, 100.0 * (one / plain - 1.0));
  std::printf("%-46s %10.5f %8ld %10ld %8.1f%%\n", "HybridSolver, 1 never-firing event, 0 samples", one0, s0, h0,
              100.0 * (one0 / plain - 1.0));
  std::printf("detection overhead (1 never-firing event vs none, same solver): %.1f%% with 3 samples, %.1f%% with 0\n",
              100.0 * (one / none - 1.0), 100.0 * (one0 / none - 1.0));

  std::printf("\nCost of one event (rtol 1e-8, sensitivities on, per event)\n");
  std::printf("%-22s %6s %12s %12s %12s %12s %12s\n", "problem", "events", "iterations", "dense evals",
              "h calls", "fd h/phi", "restarts");
  bouncing_ball::Model ball;
  location_cost("bouncing ball (to 8)", ball, 0, {5.0, -0.1}, {10.0, 0.8}, 8.0, 2);
  ball.use_analytic_event_jacobians(false);
  location_cost("  with fd of h, phi", ball, 0, {5.0, -0.1}, {10.0, 0.8}, 8.0, 2);
  hybrid_ode::Model ode;
  location_cost("seed 000 Example 5.1", ode, hybrid_ode::mode_a, {0.0, 0.0}, {2.9}, 5.0, 1);
  return 0;
}
