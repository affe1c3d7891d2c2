// Benchmarks of the sensitivity module on the Dow batch reactor (Kristensen et al. 2005, section 5):
//
//  1. overhead: wall time of a 0..10 h run at rtol 1e-6 with the sensitivities to the nine
//     parameters and the six (differential) initial states, divided by the time without
//     sensitivities on the same steps (the sensitivities out of the error test), in paper mode
//     and in exact mode with both ways of solving the stage equations (stage LUs, refinement
//     with the step's LU); and the defaults (exact, under error control, their own steps);
//  2. the same for a 1-D Brusselator with n = 100 (50 grid points) and 1, 3 or 15 directions,
//     where the cost model of exact mode switches between the two ways;
//  3. shooting: time per interval for N = 50 intervals of 0.2 h (x_k chained, u = p).
//
//     bench_sensitivity [--repeats 20]
//     bench_sensitivity --run none|paper|exact|shoot-paper|shoot-exact   (one run, for a profiler)
//
// Times are the best of the repeats (the machine's noise only adds). `--run` does one run of
// one configuration and prints its counters, so that an instruction-counting profiler sees
// that configuration alone.

#include <algorithm>
#include <cmath>
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
Timing time_dow(double rtol, const esdirk::SensitivityOptions* options, int repeats) {
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
    if (options) {
      esdirk::ForwardSensitivity sens(solver, *options);
      sens.initialize(seed.cref());
      esdirk::DenseMatrix Sx(6, 15), Sz(4, 15);
      if (!esdirk::ok(sens.integrate_to(10.0, x, z, Sx.ref(), Sz.ref()))) std::abort();
      timing.stats = solver.statistics();  // while the sensitivities (and their counters) exist
    } else if (!esdirk::ok(solver.integrate_to(10.0, x, z))) {
      std::abort();
    }
    timing.seconds =
        std::min(timing.seconds, std::chrono::duration<double>(Clock::now() - start).count());
    if (!options) timing.stats = solver.statistics();
  }
  return timing;
}

// N intervals of length dt chained from the Dow initial state; time per interval.
Timing time_shooting(const esdirk::SensitivityOptions& so, int intervals, double dt, int repeats) {
  dow::Model model;
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> u(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
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

// The 1-D Brusselator (Hairer & Wanner, Solving ODEs II, IV.1) on N grid points, interleaved
// (u_1, v_1, u_2, v_2, ...), with parameters A, B and the diffusion alpha: n = 2N states.
class Brusselator final : public esdirk::Problem {
 public:
  explicit Brusselator(int points) : Problem(2 * points, 0, 3), N_(points) {}
  int evaluate(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector) override {
    const double A = p[0], B = p[1], c = p[2] * (N_ + 1) * (N_ + 1);
    for (int i = 0; i < N_; ++i) {
      const double u = y[2 * i], v = y[2 * i + 1];
      const double ul = i > 0 ? y[2 * i - 2] : 1.0, ur = i < N_ - 1 ? y[2 * i + 2] : 1.0;
      const double vl = i > 0 ? y[2 * i - 1] : 3.0, vr = i < N_ - 1 ? y[2 * i + 3] : 3.0;
      f[2 * i] = A + u * u * v - (B + 1.0) * u + c * (ul - 2.0 * u + ur);
      f[2 * i + 1] = B * u - u * u * v + c * (vl - 2.0 * v + vr);
    }
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::MatrixRef J) override {
    const double B = p[1], c = p[2] * (N_ + 1) * (N_ + 1);
    J.fill(0.0);
    for (int i = 0; i < N_; ++i) {
      const double u = y[2 * i], v = y[2 * i + 1];
      J(2 * i, 2 * i) = 2.0 * u * v - (B + 1.0) - 2.0 * c;
      J(2 * i, 2 * i + 1) = u * u;
      J(2 * i + 1, 2 * i) = B - 2.0 * u * v;
      J(2 * i + 1, 2 * i + 1) = -u * u - 2.0 * c;
      for (const int d : {-1, 1}) {
        if (i + d < 0 || i + d >= N_) continue;
        J(2 * i, 2 * (i + d)) = c;
        J(2 * i + 1, 2 * (i + d) + 1) = c;
      }
    }
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    const double c = static_cast<double>(N_ + 1) * (N_ + 1);
    for (int i = 0; i < N_; ++i) {
      const double u = y[2 * i], v = y[2 * i + 1];
      const double ul = i > 0 ? y[2 * i - 2] : 1.0, ur = i < N_ - 1 ? y[2 * i + 2] : 1.0;
      const double vl = i > 0 ? y[2 * i - 1] : 3.0, vr = i < N_ - 1 ? y[2 * i + 3] : 3.0;
      Jp(2 * i, 0) = 1.0;
      Jp(2 * i + 1, 0) = 0.0;
      Jp(2 * i, 1) = -u;
      Jp(2 * i + 1, 1) = u;
      Jp(2 * i, 2) = c * (ul - 2.0 * u + ur);
      Jp(2 * i + 1, 2) = c * (vl - 2.0 * v + vr);
    }
    return 0;
  }

 private:
  int N_;
};

// The Brusselator with n = 100 over [0, 10], rtol 1e-6, `ns` directions (the three parameters,
// then initial states); `options` null: no sensitivities.
Timing time_brusselator(int ns, const esdirk::SensitivityOptions* options, int repeats) {
  const int N = 50, n = 2 * N;
  Brusselator model(N);
  std::vector<double> y0(n), p{1.0, 3.0, 0.02};
  for (int i = 0; i < N; ++i) {
    y0[2 * i] = 1.0 + std::sin(2.0 * 3.141592653589793 * (i + 1) / (N + 1));
    y0[2 * i + 1] = 3.0;
  }
  esdirk::DenseMatrix seed(n + 3, ns);
  for (int j = 0; j < ns; ++j) seed(j < 3 ? n + j : j - 3, j) = 1.0;
  esdirk::Options o;
  o.rtol = 1e-6;
  o.atol = 1e-8;
  Timing timing;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    esdirk::Integrator solver(model, o);
    solver.initialize(0.0, y0, {}, p);
    solver.set_stop_time(10.0);
    std::vector<double> y(n);
    if (options) {
      esdirk::ForwardSensitivity sens(solver, *options);
      sens.initialize(seed.cref());
      esdirk::DenseMatrix S(n, ns);
      if (!esdirk::ok(sens.integrate_to(10.0, y, {}, S.ref()))) std::abort();
      timing.stats = solver.statistics();
    } else if (!esdirk::ok(solver.integrate_to(10.0, y, {}))) {
      std::abort();
    }
    timing.seconds =
        std::min(timing.seconds, std::chrono::duration<double>(Clock::now() - start).count());
    if (!options) timing.stats = solver.statistics();
  }
  return timing;
}

esdirk::SensitivityOptions configuration(esdirk::SensitivityMode mode, esdirk::StageSolve way,
                                         bool error_control) {
  esdirk::SensitivityOptions so;
  so.mode = mode;
  so.stage_solve = way;
  so.error_control = error_control;
  return so;
}

void print_row(const char* name, const Timing& t, const Timing& plain) {
  std::printf("%-30s %10.3f %8.2f %8ld %10ld %8ld %8ld\n", name, t.seconds * 1e3,
              t.seconds / plain.seconds, t.stats.accepted_steps, t.stats.back_substitutions,
              t.stats.lu_factorizations, t.stats.stage_factorizations);
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
                   "usage: %s [--repeats N] [--run none|paper|exact|exact-refinement|defaults|shoot-paper|shoot-exact]\n",
                   argv[0]);
      return 2;
    }
  }
  using esdirk::SensitivityMode;
  using esdirk::StageSolve;
  // The overhead rows keep the sensitivities out of the error test, so that the steps are those
  // of the states-only run.
  const esdirk::SensitivityOptions paper = configuration(SensitivityMode::paper, StageSolve::automatic, false);
  const esdirk::SensitivityOptions exact = configuration(SensitivityMode::exact, StageSolve::factorization, false);
  const esdirk::SensitivityOptions refined = configuration(SensitivityMode::exact, StageSolve::refinement, false);
  const esdirk::SensitivityOptions defaults;
  if (run) {
    const std::string which = run;
    Timing t;
    if (which == "none")
      t = time_dow(1e-6, nullptr, 1);
    else if (which == "paper")
      t = time_dow(1e-6, &paper, 1);
    else if (which == "exact")
      t = time_dow(1e-6, &exact, 1);
    else if (which == "exact-refinement")
      t = time_dow(1e-6, &refined, 1);
    else if (which == "defaults")
      t = time_dow(1e-6, &defaults, 1);
    else if (which == "shoot-paper")
      t = time_shooting(paper, 50, 0.2, 1);
    else if (which == "shoot-exact")
      t = time_shooting(defaults, 50, 0.2, 1);
    else {
      std::fprintf(stderr, "unknown run '%s'\n", run);
      return 2;
    }
    std::printf("%s: %.3f ms, steps %ld, NBACK %ld, NLU %ld, NJAC %ld, stage LUs %ld\n", run,
                t.seconds * 1e3, t.stats.accepted_steps, t.stats.back_substitutions,
                t.stats.lu_factorizations, t.stats.jacobian_evaluations, t.stats.stage_factorizations);
    return 0;
  }
  std::printf("Dow (n = 10), rtol 1e-6, 0..10 h, 15 directions (6 initial states, 9 scaled "
              "parameters), best of %d\n\n", repeats);
  const Timing plain = time_dow(1e-6, nullptr, repeats);
  std::printf("%-30s %10s %8s %8s %10s %8s %8s\n", "run", "time [ms]", "ratio", "steps", "NBACK",
              "NLU", "stageLU");
  print_row("states only", plain, plain);
  print_row("paper mode", time_dow(1e-6, &paper, repeats), plain);
  print_row("exact, stage LUs", time_dow(1e-6, &exact, repeats), plain);
  print_row("exact, refinement", time_dow(1e-6, &refined, repeats), plain);
  print_row("defaults (exact, error ctl.)", time_dow(1e-6, &defaults, repeats), plain);

  std::printf("\n1-D Brusselator (n = 100), rtol 1e-6, 0..10, best of %d\n", std::max(1, repeats / 4));
  const Timing bplain = time_brusselator(1, nullptr, std::max(1, repeats / 4));
  print_row("states only", bplain, bplain);
  for (const int ns : {1, 3, 15}) {
    for (const auto* so : {&exact, &refined}) {
      char name[64];
      std::snprintf(name, sizeof name, "exact, %s, ns = %d", so == &exact ? "stage LUs" : "refinement", ns);
      print_row(name, time_brusselator(ns, so, std::max(1, repeats / 4)), bplain);
    }
  }

  std::printf("\nshooting: 50 intervals of 0.2 h, rtol 1e-6, A (6x6), B (6x9), Az, Bz per interval\n");
  for (const auto* so : {&paper, &exact, &defaults}) {
    const Timing t = time_shooting(*so, 50, 0.2, std::max(1, repeats / 4));
    std::printf("%-30s %10.3f ms per interval, %.1f steps per interval\n",
                so == &paper ? "paper mode" : so == &exact ? "exact, stage LUs" : "defaults (exact, error ctl.)",
                t.seconds * 1e3, static_cast<double>(t.stats.accepted_steps) / 50.0);
  }
  return 0;
}
