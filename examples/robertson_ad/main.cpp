// Robertson's stiff kinetics of examples/robertson written once as templates (doc/ad-guide.md):
// the ODE and the index-1 DAE with every Jacobian by automatic differentiation, none by hand
// and none differenced. The twin of examples/robertson, which carries its Jacobians by hand.
//
// Integrates both forms to t = 1e11, checks them against the published reference values (to
// 1e3 rtol, as examples/robertson does) and against the hand-Jacobian runs (the same steps and
// the same numbers: AD's Jacobian of these equations rounds exactly as the hand-written one).
//
//     robertson_ad [--rtol 1e-8]
//
// Exit status 0 and "CHECK PASSED" when all agree.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "common/example_support.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "esdirk/integrator.hpp"
#include "robertson/robertson_model.hpp"

const char* const usage =
    "usage: robertson_ad [--rtol R]\n"
    "\n"
    "Robertson's kinetics to t = 1e11 as an ODE and as an index-1 DAE, with the Jacobians by\n"
    "automatic differentiation, against the reference values and the hand-Jacobian runs.\n"
    "\n"
    "  --rtol R     relative tolerance (default 1e-8)\n"
    "  --help       this text\n";

// y' = f(y): the three reactions, for any scalar type T.
struct RobertsonOde {
  template <class T>
  int f(double, std::span<const T> y, std::span<const T>, std::span<const T>, std::span<T> f) const {
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[2] = 3e7 * y[1] * y[1];
    f[1] = -f[0] - f[2];
    return 0;
  }
};

// x = (y1, y2), z = y3: the third equation replaced by the mass balance.
struct RobertsonDae {
  template <class T>
  int f(double, std::span<const T> x, std::span<const T> z, std::span<const T>, std::span<T> f) const {
    f[0] = -0.04 * x[0] + 1e4 * x[1] * z[0];
    f[1] = 0.04 * x[0] - 1e4 * x[1] * z[0] - 3e7 * x[1] * x[1];
    return 0;
  }
  template <class T>
  int g(double, std::span<const T> x, std::span<const T> z, std::span<const T>, std::span<T> g) const {
    g[0] = x[0] + x[1] + z[0] - 1.0;
    return 0;
  }
};

struct Result {
  bool ok = false;
  std::vector<double> y;
  esdirk::Statistics stats;
};

Result solve(esdirk::Problem& problem, const esdirk::Options& options, std::vector<double> x0,
             std::vector<double> z0) {
  esdirk::Integrator solver(problem, options);
  std::vector<double> x(x0.size()), z(z0.size());
  bool ok = esdirk::ok(solver.initialize(0.0, x0, z0, {}));
  for (double t = 1e-5; ok && t <= robertson::t_end; t *= 10.0) ok = esdirk::ok(solver.integrate_to(t, x, z));
  if (!ok) std::fprintf(stderr, "failed: %s\n", solver.message().c_str());
  Result r{ok, x, solver.statistics()};
  r.y.insert(r.y.end(), z.begin(), z.end());
  return r;
}

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  double rtol = 1e-8;
  if (argc == 3 && !std::strcmp(argv[1], "--rtol")) {
    rtol = std::atof(argv[2]);
  } else if (argc != 1) {
    std::fputs(usage, stderr);
    return 2;
  }
  esdirk::Options options;  // the tolerances of examples/robertson
  options.rtol = rtol;
  options.atol = 1e-7 * rtol;
  esdirk::Options dae_options = options;
  dae_options.algebraic_atol = {rtol};

  esdirk::ad::ModelProblem<RobertsonOde> ode(3, 0, 0);
  esdirk::ad::ModelProblem<RobertsonDae> dae(2, 1, 0);
  robertson::Ode hand_ode;
  robertson::Dae hand_dae;
  const Result runs[4] = {solve(ode, options, {1.0, 0.0, 0.0}, {}), solve(dae, dae_options, {1.0, 0.0}, {0.0}),
                          solve(hand_ode, options, {1.0, 0.0, 0.0}, {}),
                          solve(hand_dae, dae_options, {1.0, 0.0}, {0.0})};
  bool good = runs[0].ok && runs[1].ok && runs[2].ok && runs[3].ok;
  if (!good) {
    std::printf("CHECK FAILED\n");
    return 1;
  }
  std::printf("Robertson to t = 1e11, Jacobians by AD, rtol = %.1e\n\n", rtol);
  std::printf("%-4s %24s %24s %24s\n", "", "ODE (AD)", "DAE (AD)", "reference");
  double worst = 0.0, versus_hand = 0.0;
  for (int i = 0; i < 3; ++i) {
    const auto k = static_cast<std::size_t>(i);
    std::printf("y%-3d %24.16e %24.16e %24.16e\n", i + 1, runs[0].y[k], runs[1].y[k], robertson::reference[k]);
    for (int r = 0; r < 2; ++r) {
      worst = std::max(worst, std::abs(runs[r].y[k] - robertson::reference[k]) / robertson::reference[k]);
      versus_hand = std::max(versus_hand, std::abs(runs[r].y[k] - runs[r + 2].y[k]) / std::abs(runs[r + 2].y[k]));
    }
  }
  const double mass_ode = runs[0].y[0] + runs[0].y[1] + runs[0].y[2] - 1.0;
  const double mass_dae = runs[1].y[0] + runs[1].y[1] + runs[1].y[2] - 1.0;
  std::printf("\nmass balance y1 + y2 + y3 - 1: ODE %.1e, DAE %.1e\n", mass_ode, mass_dae);
  std::printf("largest relative error against the reference: %.2e\n", worst);
  std::printf("largest relative difference from the hand-Jacobian runs: %.2e\n", versus_hand);
  std::printf("\n%-28s %10s %10s %10s %10s\n", "statistics", "ODE AD", "ODE hand", "DAE AD", "DAE hand");
  std::printf("%-28s %10ld %10ld %10ld %10ld\n", "steps", runs[0].stats.steps, runs[2].stats.steps,
              runs[1].stats.steps, runs[3].stats.steps);
  std::printf("%-28s %10ld %10ld %10ld %10ld\n", "Jacobians", runs[0].stats.jacobian_evaluations,
              runs[2].stats.jacobian_evaluations, runs[1].stats.jacobian_evaluations,
              runs[3].stats.jacobian_evaluations);
  std::printf("%-28s %10ld %10ld %10ld %10ld\n", "difference evaluations", runs[0].stats.fd_function_evaluations,
              runs[2].stats.fd_function_evaluations, runs[1].stats.fd_function_evaluations,
              runs[3].stats.fd_function_evaluations);
  std::printf("\nhow the DAE's derivatives were formed:\n%s", dae.derivative_methods().c_str());
  const bool same_steps = runs[0].stats.steps == runs[2].stats.steps && runs[1].stats.steps == runs[3].stats.steps;
  good = std::abs(mass_ode) < 1e-12 && std::abs(mass_dae) < 1e-12 && worst <= 1e3 * rtol && versus_hand <= 1e-12 &&
         same_steps && runs[0].stats.fd_function_evaluations == 0 && runs[1].stats.fd_function_evaluations == 0;
  std::printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  return good ? 0 : 1;
}
