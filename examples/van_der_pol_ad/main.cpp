// Van der Pol's oscillator of examples/van_der_pol (eps = 1e-6 on [0, 2]) as one generic lambda
// in esdirk::ad::FunctionProblem (doc/ad-guide.md, "Lambdas"): the Jacobian by automatic
// differentiation, nothing by hand. The twin of examples/van_der_pol, which carries its
// Jacobian by hand.
//
// Checks the solution at t = 2 against the published reference (to 100 rtol, as
// examples/van_der_pol does) and against the hand-Jacobian run (the same steps and the same
// numbers to rounding).
//
//     van_der_pol_ad [--rtol 1e-8]
//
// Exit status 0 and "CHECK PASSED" when all agree.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/example_support.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "esdirk/integrator.hpp"
#include "van_der_pol/van_der_pol_model.hpp"

const char* const usage =
    "usage: van_der_pol_ad [--rtol R]\n"
    "\n"
    "Van der Pol's oscillator with eps = 1e-6 on [0, 2], the Jacobian by automatic\n"
    "differentiation of one generic lambda, against the reference and the hand-Jacobian run.\n"
    "\n"
    "  --rtol R     relative tolerance (default 1e-8)\n"
    "  --help       this text\n";

struct Run {
  bool ok = false;
  std::vector<double> y = std::vector<double>(2);
  esdirk::Statistics stats;
};

Run solve(esdirk::Problem& problem, double rtol) {
  esdirk::Options options;
  options.rtol = options.atol = rtol;
  esdirk::Integrator solver(problem, options);
  Run r;
  r.ok = esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, {})) &&
         esdirk::ok(solver.integrate_to(van_der_pol::t_end, r.y));
  if (!r.ok) std::fprintf(stderr, "failed: %s\n", solver.message().c_str());
  r.stats = solver.statistics();
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
  const double eps = 1e-6;
  // The right-hand side once, with auto arguments: called with spans of double to evaluate f
  // and of dual numbers to form J.
  esdirk::ad::FunctionProblem ad(2, 0, 0, [eps](double, auto y, auto, auto, auto f) {
    f[0] = y[1];
    f[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / eps;
    return 0;
  });
  van_der_pol::Model hand(eps);
  const Run a = solve(ad, rtol), h = solve(hand, rtol);
  if (!a.ok || !h.ok) {
    std::printf("CHECK FAILED\n");
    return 1;
  }
  double worst = 0.0, versus_hand = 0.0;
  for (std::size_t i = 0; i < 2; ++i) {
    worst = std::max(worst, std::abs(a.y[i] - van_der_pol::reference[i]) / std::abs(van_der_pol::reference[i]));
    versus_hand = std::max(versus_hand, std::abs(a.y[i] - h.y[i]) / std::abs(h.y[i]));
  }
  std::printf("Van der Pol, eps = 1e-6, rtol = atol = %.1e, J by AD\n\n", rtol);
  std::printf("%-12s %22s %22s %22s\n", "t = 2", "AD", "hand Jacobian", "reference");
  for (std::size_t i = 0; i < 2; ++i)
    std::printf("y%-11zu %22.15f %22.15f %22.15f\n", i + 1, a.y[i], h.y[i], van_der_pol::reference[i]);
  std::printf("\nlargest relative error against the reference: %.2e\n", worst);
  std::printf("largest relative difference from the hand-Jacobian run: %.2e\n", versus_hand);
  std::printf("steps: AD %ld, hand %ld; Jacobians: AD %ld, hand %ld; difference evaluations: AD %ld\n",
              a.stats.steps, h.stats.steps, a.stats.jacobian_evaluations, h.stats.jacobian_evaluations,
              a.stats.fd_function_evaluations);
  std::printf("\nhow the derivatives were formed:\n%s", ad.derivative_methods().c_str());
  // The stiff limit cycle's jumps amplify rounding differences of J: 1e-9 leaves room for them
  // and still catches a wrong Jacobian (which changes the steps and the error by far more).
  const bool good = worst <= 100.0 * rtol && versus_hand <= 1e-9 && a.stats.fd_function_evaluations == 0;
  std::printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  return good ? 0 : 1;
}
