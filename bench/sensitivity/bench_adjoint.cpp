// The cost of a gradient by the discrete adjoint on Dow (Kristensen et al. 2005, 10 h, rtol 1e-6): one
// scalar objective (a terminal term and a running cost) with respect to the 9 parameters and
// the 6 initial states. Prints the wall time of (forward run with recording + reverse sweep)
// over that of a states-only run, with and without a memory budget, and the sweep's counters.
// Run with OPENBLAS_NUM_THREADS=1.
//
//     bench_adjoint [--rtol 1e-6] [--repeats 20]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/sensitivity/adjoint.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool run(esdirk::Integrator& solver, double t_end) {
  const auto z0 = dow::consistent_algebraic_start();
  std::vector<double> x(6), z(4);
  if (!esdirk::ok(solver.initialize(0.0, dow::initial_states, z0, dow::nominal_parameters))) return false;
  solver.set_stop_time(t_end);
  return esdirk::ok(solver.integrate_to(t_end, x, z).status);
}

}  // namespace

int main(int argc, char** argv) {
  double rtol = 1e-6;
  int repeats = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--rtol") == 0) rtol = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::atoi(argv[i + 1]);
  }
  const double t_end = 10.0;
  dow::Model model;
  esdirk::AdjointObjective objective;
  objective.terminal = [](double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                          esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef) {
    dx(0, 0) = 1.0;  // u1(tf)
    return 0;
  };
  objective.running = [](double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef) {
    dx(2, 0) = x[2];  // the integral of u3^2 / 2
    return 0;
  };
  esdirk::DenseMatrix dx0(6, 1), dp(9, 1);

  double states = 1e30;
  long steps = 0;
  for (int r = 0; r < repeats; ++r) {
    esdirk::Integrator solver(model, dow::benchmark_options(rtol));
    const auto start = Clock::now();
    if (!run(solver, t_end)) return 1;
    states = std::min(states, seconds_since(start));
    steps = solver.statistics().accepted_steps;
  }
  std::printf("Dow, rtol %g, %ld steps; states-only run %.3f ms (best of %d)\n", rtol, steps,
              1e3 * states, repeats);
  std::printf("%-22s %10s %10s %10s %8s %9s %9s %9s\n", "configuration", "forward", "sweep", "total",
              "ratio", "LUs", "recomp.", "doubles");
  for (long budget_records : {0L, 64L, 16L}) {
    double best_forward = 1e30, best_sweep = 1e30, best_total = 1e30;
    esdirk::AdjointReport report;
    for (int r = 0; r < repeats; ++r) {
      esdirk::Integrator solver(model, dow::benchmark_options(rtol));
      esdirk::AdjointOptions options;
      options.memory_budget = budget_records * (5 + 4 * (2 * 6 + 2 * 4 + 1));
      esdirk::Adjoint adjoint(solver, options);
      const auto start = Clock::now();
      if (!run(solver, t_end)) return 1;
      const double forward = seconds_since(start);
      const auto sweep_start = Clock::now();
      if (!esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref()))) {
        std::printf("adjoint failed: %s\n", adjoint.message().c_str());
        return 1;
      }
      const double sweep = seconds_since(sweep_start);
      best_forward = std::min(best_forward, forward);
      best_sweep = std::min(best_sweep, sweep);
      best_total = std::min(best_total, forward + sweep);
      report = adjoint.report();
    }
    char name[64];
    if (budget_records == 0)
      std::snprintf(name, sizeof name, "keep every step");
    else
      std::snprintf(name, sizeof name, "budget %ld records", budget_records);
    std::printf("%-22s %8.3fms %8.3fms %8.3fms %8.2f %9ld %9ld %9ld\n", name, 1e3 * best_forward,
                1e3 * best_sweep, 1e3 * best_total, best_total / states, report.stage_factorizations,
                report.recomputed_steps, report.peak_stored_doubles);
  }
  std::printf("gradient: d/du1(0) = %.6e, d/dK1 = %.6e\n", dx0(0, 0), dp(0, 0));
  return 0;
}
