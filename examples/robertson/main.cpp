// Robertson's stiff chemical kinetics to t = 1e11, once as a stiff ODE and once as an index-1
// DAE (the third equation replaced by the mass balance), compared with the published
// reference values.
//
//     robertson [--rtol 1e-8]
//
// Exit status 0 when both runs succeed, keep the mass balance, and match the reference to
// 1e3 * rtol (relative, for the components above their absolute tolerance).

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "esdirk/integrator.hpp"
#include "robertson_model.hpp"
#include "common/example_support.hpp"

namespace {

struct Result {
  bool ok;
  std::vector<double> y;
  esdirk::Statistics stats;
};

Result solve(esdirk::Problem& problem, const esdirk::Options& options, std::vector<double> x0,
             std::vector<double> z0) {
  esdirk::Integrator solver(problem, options);
  std::vector<double> x(x0.size()), z(z0.size());
  bool ok = esdirk::ok(solver.initialize(0.0, x0, z0, {}));
  // Output at every decade, as the test set prints it.
  for (double t = 1e-5; ok && t <= robertson::t_end; t *= 10.0)
    ok = esdirk::ok(solver.integrate_to(t, x, z));
  if (!ok) std::fprintf(stderr, "failed: %s\n", solver.message().c_str());
  std::vector<double> y = x;
  y.insert(y.end(), z.begin(), z.end());
  return {ok, y, solver.statistics()};
}

}  // namespace

const char* const usage =
    "usage: robertson [--rtol R]\n"
    "\n"
    "Robertson's stiff chemical kinetics to t = 1e11, as an ODE and as an index-1 DAE, against the\n"
    "published reference values.\n"
    "\n"
    "  --rtol R     relative tolerance (default 1e-8)\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  double rtol = 1e-8;
  if (argc == 3 && !std::strcmp(argv[1], "--rtol"))
    rtol = std::atof(argv[2]);
  else if (argc != 1) {
    std::fputs(usage, stderr);
    return 2;
  }
  // y2 (~1e-13 .. 4e-5) drives y1 through 1e4 y2 y3: it needs a small absolute tolerance.
  esdirk::Options options;
  options.rtol = rtol;
  options.atol = 1e-7 * rtol;
  esdirk::Options dae_options = options;
  dae_options.algebraic_atol = {rtol};  // y3 = 1 - y1 - y2 is O(1)

  robertson::Ode ode;
  robertson::Dae dae;
  const Result as_ode = solve(ode, options, {1.0, 0.0, 0.0}, {});
  const Result as_dae = solve(dae, dae_options, {1.0, 0.0}, {0.0});

  std::printf("Robertson to t = 1e11, %s, rtol = %.1e, atol = %.1e\n\n",
              options.resolved_method().name.c_str(), rtol, options.atol);
  std::printf("%-4s %24s %24s %24s\n", "", "ODE", "index-1 DAE", "reference");
  double worst = 0.0;
  for (int i = 0; i < 3; ++i) {
    std::printf("y%-3d %24.16e %24.16e %24.16e\n", i + 1, as_ode.y[i], as_dae.y[i],
                robertson::reference[i]);
    if (std::abs(robertson::reference[i]) > options.atol)
      for (const Result* r : {&as_ode, &as_dae})
        worst =
            std::max(worst, std::abs(r->y[i] - robertson::reference[i]) / robertson::reference[i]);
  }
  const double mass_ode = as_ode.y[0] + as_ode.y[1] + as_ode.y[2] - 1.0;
  const double mass_dae = as_dae.y[0] + as_dae.y[1] + as_dae.y[2] - 1.0;
  std::printf("\nmass balance y1 + y2 + y3 - 1: ODE %.1e, DAE %.1e\n", mass_ode, mass_dae);
  std::printf("largest relative error: %.2e\n", worst);
  std::printf("\n%-28s %10s %10s\n", "statistics", "ODE", "DAE");
  std::printf("%-28s %10ld %10ld\n", "steps", as_ode.stats.steps, as_dae.stats.steps);
  std::printf("%-28s %10ld %10ld\n", "rejected steps", as_ode.stats.rejected_steps,
              as_dae.stats.rejected_steps);
  std::printf("%-28s %10ld %10ld\n", "f evaluations", as_ode.stats.function_evaluations,
              as_dae.stats.function_evaluations);
  std::printf("%-28s %10ld %10ld\n", "Jacobians", as_ode.stats.jacobian_evaluations,
              as_dae.stats.jacobian_evaluations);
  std::printf("%-28s %10ld %10ld\n", "LU factorizations", as_ode.stats.lu_factorizations,
              as_dae.stats.lu_factorizations);

  const bool good = as_ode.ok && as_dae.ok && std::abs(mass_ode) < 1e-12 &&
                    std::abs(mass_dae) < 1e-12 && worst <= 1e3 * rtol;
  std::printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  return good ? 0 : 1;
}
