// Cost of the hybrid adjoint against forward sensitivities on Serban & Recuero 2019's EM oscillator
// (examples/em_oscillator: memory, 3 states, 1 algebraic, 4 parameters, ~19 reversals), the
// gradient of G = int_0^10 u^2 dt with respect to the 4 parameters and the 3 initial states
// (figures for doc/benchmarks.md and doc/adjoint-guide.md). Wall time, best of --repeat runs of:
//   states     HybridSolver, no sensitivities (the reference run)
//   record     the same run recorded by a HybridAdjoint (its steps are the reference's)
//   adjoint    record + HybridAdjoint::gradient (one sweep, one objective row)
//   forward-7  forward sensitivities, 7 directions (x0, p), outside the error test (the same
//              steps as the reference: the comparison at equal steps)
//   forward-7e the same under the default error control of the sensitivities (its own steps)
// plus the adjoint's work counters. Run with nice and OPENBLAS_NUM_THREADS=1; timings on a shared
// machine are noisy: the ratios are what to read, repeated.
//
// --only NAME runs one of them once (states, record, adjoint, forward, forward-e), for instruction
// counts: valgrind --tool=callgrind bench_hybrid_adjoint --only adjoint. --budget K gives the
// adjoint a memory budget of K step records (checkpointing: blocks replayed in the sweep).
//
//     bench_hybrid_adjoint [--rtol 1e-8] [--repeat 20] [--only NAME] [--budget K]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "em_oscillator/em_oscillator_model.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"

namespace {

double best_of(int repeat, const std::function<void()>& run) {
  double best = 1e300;
  for (int k = 0; k < repeat; ++k) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

struct Setup {
  em_oscillator::Model model;
  esdirk::HybridOptions options;
  std::vector<double> x0 = std::vector<double>(3, 0.0), z0 = std::vector<double>(1, 0.0),
                      p = em_oscillator::nominal(), memory0 = std::vector<double>(4, 0.0);
};

bool failed = false;
void require(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    failed = true;
  }
}

}  // namespace

int main(int argc, char** argv) {
  double rtol = 1e-8;
  int repeat = 20;
  std::string only;
  long budget_records = 0;  // 0: keep every step
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rtol") && i + 1 < argc) rtol = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--budget") && i + 1 < argc) budget_records = std::atol(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--rtol R] [--repeat N] [--only states|record|adjoint|forward|forward-e] [--budget K]\n", argv[0]);
      return 2;
    }
  }
  // One measurement, once (for callgrind); the others are skipped.
  const auto runs = [&](const char* name) { return only.empty() || only == name; };
  const int times = only.empty() ? repeat : 1;
  Setup s;
  s.options.integrator.rtol = rtol;
  s.options.integrator.atol = 1e-2 * rtol;
  const double t_end = em_oscillator::t_end;
  std::vector<double> x(3), z(1);
  esdirk::DenseMatrix seed(7, 7), Sx(3, 7), Sz(1, 7);
  for (int i = 0; i < 7; ++i) seed(i, i) = 1.0;
  long steps_states = 0, steps_forward = 0, steps_error_controlled = 0, events = 0;
  double G_forward[7] = {0, 0, 0, 0, 0, 0, 0}, G_adjoint[7] = {0, 0, 0, 0, 0, 0, 0};
  esdirk::HybridAdjointReport report;

  const double t_states = !runs("states") ? 0.0 : best_of(times, [&] {
    esdirk::HybridSolver solver(s.model, s.options);
    require(esdirk::ok(solver.initialize(0.0, em_oscillator::loading, s.x0, s.z0, s.p, s.memory0)), "init");
    require(esdirk::ok(solver.integrate_to(t_end, x, z)), "states");
    steps_states = solver.statistics().accepted_steps;
    events = solver.event_count();
  });
  const double t_record = !runs("record") ? 0.0 : best_of(times, [&] {
    esdirk::HybridSolver solver(s.model, s.options);
    esdirk::HybridAdjoint adjoint(solver);
    require(esdirk::ok(solver.initialize(0.0, em_oscillator::loading, s.x0, s.z0, s.p, s.memory0)), "init");
    require(esdirk::ok(adjoint.integrate_to(t_end, x, z)), "record");
  });
  esdirk::HybridAdjointOptions budget;
  budget.memory_budget = budget_records * (5 + 4 * (2 * 3 + 2 * 1 + 1));  // records of 41 doubles
  const double t_adjoint = !runs("adjoint") ? 0.0 : best_of(times, [&] {
    esdirk::HybridSolver solver(s.model, s.options);
    esdirk::HybridAdjoint adjoint(solver, budget);
    require(esdirk::ok(solver.initialize(0.0, em_oscillator::loading, s.x0, s.z0, s.p, s.memory0)), "init");
    require(esdirk::ok(adjoint.integrate_to(t_end, x, z)), "record");
    esdirk::HybridObjective objective;
    esdirk::DenseMatrix w(4, 1), dx0(3, 1), dp(4, 1);
    w(2, 0) = 1.0;  // G = q(10)
    objective.set_terminal_weights(w.cref());
    require(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())), "gradient");
    for (int i = 0; i < 3; ++i) G_adjoint[i] = dx0(i, 0);
    for (int i = 0; i < 4; ++i) G_adjoint[3 + i] = dp(i, 0);
    report = adjoint.report();
  });
  const auto forward = [&](bool error_control, long& steps) {
    esdirk::HybridSolver solver(s.model, s.options);
    require(esdirk::ok(solver.initialize(0.0, em_oscillator::loading, s.x0, s.z0, s.p, s.memory0)), "init");
    esdirk::SensitivityOptions so;
    so.error_control = error_control;
    require(esdirk::ok(solver.initialize_sensitivities(seed.cref(), so)), "sensitivities");
    require(esdirk::ok(solver.integrate_to(t_end, x, z, Sx.ref(), Sz.ref())), "forward");
    if (!error_control)  // the comparison on the adjoint's steps
      for (int i = 0; i < 7; ++i) G_forward[i] = Sx(2, i);
    steps = solver.statistics().accepted_steps;
  };
  const double t_forward = !runs("forward") ? 0.0 : best_of(times, [&] { forward(false, steps_forward); });
  const double t_forward_e = !runs("forward-e") ? 0.0 : best_of(times, [&] { forward(true, steps_error_controlled); });
  if (failed) return 1;
  if (!only.empty()) {
    std::printf("%s done\n", only.c_str());
    return 0;
  }

  double worst = 0.0, scale = 0.0;
  for (double v : G_forward) scale = std::max(scale, std::abs(v));
  for (int i = 0; i < 7; ++i) worst = std::max(worst, std::abs(G_adjoint[i] - G_forward[i]) / scale);
  std::printf("EM oscillator (seed 000 5.2), rtol %.0e, %ld reversals; dG/d(x0, p), 7 inputs, best of %d\n\n",
              rtol, events, repeat);
  std::printf("  %-46s %9s %7s %s\n", "run", "ms", "steps", "ratio to states");
  std::printf("  %-46s %9.3f %7ld %6.2f\n", "states only", 1e3 * t_states, steps_states, 1.0);
  std::printf("  %-46s %9.3f %7ld %6.2f\n", "recorded by HybridAdjoint", 1e3 * t_record, steps_states,
              t_record / t_states);
  std::printf("  %-46s %9.3f %7ld %6.2f\n", "recorded + adjoint gradient (1 row)", 1e3 * t_adjoint, steps_states,
              t_adjoint / t_states);
  std::printf("  %-46s %9.3f %7ld %6.2f\n", "forward sensitivities, 7 dirs, same steps", 1e3 * t_forward,
              steps_forward, t_forward / t_states);
  std::printf("  %-46s %9.3f %7ld %6.2f\n", "forward sensitivities, 7 dirs, error-controlled", 1e3 * t_forward_e,
              steps_error_controlled, t_forward_e / t_states);
  std::printf("\n  adjoint / forward at equal steps: %.2f; adjoint vs forward gradient (same steps): %.1e relative\n",
              t_adjoint / t_forward, worst);
  std::printf("  sweep: %ld adjoint steps, %ld transposed solves, %ld stage LUs, %ld Jacobians, %ld jumps, "
              "%ld stored doubles\n",
              report.sweep.adjoint_steps, report.sweep.transposed_solves, report.sweep.stage_factorizations,
              report.sweep.jacobian_evaluations, report.jumps, report.peak_stored_doubles);
  if (budget_records > 0)
    std::printf("  budget of %ld records: %ld checkpoints, %ld steps recomputed\n", budget_records,
                report.checkpoints, report.recomputed_steps);
  return worst < 1e-10 ? 0 : 1;
}
