// Benchmarks of the sensitivity module on the Dow batch reactor (seed 002 section 5):
//
//  1. overhead: wall time of a 0..10 h run at rtol 1e-6 with the sensitivities to the nine
//     parameters and the six (differential) initial states, divided by the time without
//     sensitivities, in paper and exact mode;
//  2. shooting: time per interval for N = 50 intervals of 0.2 h (x_k chained, u = p).
//
//     bench_sensitivity [--repeats 20]
//     bench_sensitivity --run none|paper|exact|shoot-paper|shoot-exact   (one run, for a profiler)
//
// Times are the best of the repeats (the machine's noise only adds). `--run` does one run of
// one configuration and prints its counters, so that an instruction-counting profiler sees
// that configuration alone.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"

namespace {

using Clock = std::chrono::steady_clock;

esdirk::Options dow_options(double rtol) { return dow::benchmark_options(rtol); }

struct Timing {
  double seconds = 1e300;
  esdirk::Statistics stats;
};

// One Dow run over 0..10 h; `mode` null: no sensitivities. Directions: 6 initial states (unit)
// and 9 parameters (scaled, p_j e_j).
Timing time_dow(double rtol, const esdirk::SensitivityMode* mode, int repeats) {
  dow::Model model;
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  esdirk::DenseMatrix seed(15, 15);
  for (int k = 0; k < 15; ++k) seed(k, k) = k < 6 ? 1.0 : p[static_cast<std::size_t>(k - 6)];
  Timing timing;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    esdirk::Integrator solver(model, dow_options(rtol));
    solver.initialize(0.0, x0, z0, p);
    solver.set_stop_time(10.0);
    std::vector<double> x(6), z(4);
    if (mode) {
      esdirk::SensitivityOptions so;
      so.mode = *mode;
      esdirk::ForwardSensitivity sens(solver, so);
      sens.initialize(seed.cref());
      esdirk::DenseMatrix Sx(6, 15), Sz(4, 15);
      if (!esdirk::ok(sens.integrate_to(10.0, x, z, Sx.ref(), Sz.ref()))) std::abort();
      timing.stats = solver.statistics();  // while the sensitivities (and their counters) exist
    } else if (!esdirk::ok(solver.integrate_to(10.0, x, z))) {
      std::abort();
    }
    timing.seconds =
        std::min(timing.seconds, std::chrono::duration<double>(Clock::now() - start).count());
    if (!mode) timing.stats = solver.statistics();
  }
  return timing;
}

// N intervals of length dt chained from the Dow initial state; time per interval.
Timing time_shooting(esdirk::SensitivityMode mode, int intervals, double dt, int repeats) {
  dow::Model model;
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> u(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  esdirk::SensitivityOptions so;
  so.mode = mode;
  Timing timing;
  for (int r = 0; r < repeats; ++r) {
    esdirk::ShootingInterval interval(model, dow_options(1e-6), so);
    std::vector<double> x = x0;
    const auto start = Clock::now();
    for (int k = 0; k < intervals; ++k) {
      const auto& result = interval.integrate(
          k * dt, (k + 1) * dt, x, u, k == 0 ? esdirk::ConstVector(z0) : esdirk::ConstVector());
      if (!esdirk::ok(result.status)) std::abort();
      x = result.x;
    }
    timing.seconds = std::min(
        timing.seconds, std::chrono::duration<double>(Clock::now() - start).count() / intervals);
    timing.stats = interval.total_statistics();
  }
  return timing;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 20;
  const char* run = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc)
      repeats = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--run") && i + 1 < argc)
      run = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--repeats N] [--run none|paper|exact|shoot-paper|shoot-exact]\n",
                   argv[0]);
      return 2;
    }
  }
  const esdirk::SensitivityMode paper = esdirk::SensitivityMode::paper;
  const esdirk::SensitivityMode exact = esdirk::SensitivityMode::exact;
  if (run) {
    const std::string which = run;
    Timing t;
    if (which == "none")
      t = time_dow(1e-6, nullptr, 1);
    else if (which == "paper")
      t = time_dow(1e-6, &paper, 1);
    else if (which == "exact")
      t = time_dow(1e-6, &exact, 1);
    else if (which == "shoot-paper")
      t = time_shooting(paper, 50, 0.2, 1);
    else if (which == "shoot-exact")
      t = time_shooting(exact, 50, 0.2, 1);
    else {
      std::fprintf(stderr, "unknown run '%s'\n", run);
      return 2;
    }
    std::printf("%s: %.3f ms, steps %ld, NBACK %ld, NLU %ld, NJAC %ld\n", run, t.seconds * 1e3,
                t.stats.accepted_steps, t.stats.back_substitutions, t.stats.lu_factorizations,
                t.stats.jacobian_evaluations);
    return 0;
  }
  std::printf(
      "Dow, rtol 1e-6, 0..10 h, 15 directions (6 initial states, 9 scaled parameters), best of "
      "%d\n\n",
      repeats);
  const Timing plain = time_dow(1e-6, nullptr, repeats);
  std::printf("%-16s %10s %8s %8s %10s %8s\n", "run", "time [ms]", "ratio", "steps", "NBACK",
              "NLU");
  std::printf("%-16s %10.3f %8.2f %8ld %10ld %8ld\n", "states only", plain.seconds * 1e3, 1.0,
              plain.stats.accepted_steps, plain.stats.back_substitutions,
              plain.stats.lu_factorizations);
  for (const auto* mode : {&paper, &exact}) {
    const Timing t = time_dow(1e-6, mode, repeats);
    std::printf("%-16s %10.3f %8.2f %8ld %10ld %8ld\n",
                mode == &paper ? "paper mode" : "exact mode", t.seconds * 1e3,
                t.seconds / plain.seconds, t.stats.accepted_steps, t.stats.back_substitutions,
                t.stats.lu_factorizations);
  }
  std::printf(
      "\nshooting: 50 intervals of 0.2 h, rtol 1e-6, A (6x6), B (6x9), Az, Bz per interval\n");
  for (const auto* mode : {&paper, &exact}) {
    const Timing t = time_shooting(*mode, 50, 0.2, std::max(1, repeats / 4));
    std::printf("%-16s %10.3f ms per interval, %.1f steps per interval\n",
                mode == &paper ? "paper mode" : "exact mode", t.seconds * 1e3,
                static_cast<double>(t.stats.accepted_steps) / 50.0);
  }
  return 0;
}
