// Van der Pol's oscillator with eps = 1e-6 (VDPOL of the Bari/CWI test set) on [0, 2]: a
// stiff limit cycle with fast jumps. Prints the solution against the published reference and
// a coarse trajectory table from the dense output.
//
//     van_der_pol [--rtol 1e-8]
//
// Exit status 0 when the run succeeds and matches the reference to 100 * rtol.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "esdirk/integrator.hpp"
#include "van_der_pol_model.hpp"
#include "common/example_support.hpp"

const char* const usage =
    "usage: van_der_pol [--rtol R]\n"
    "\n"
    "Van der Pol's oscillator with eps = 1e-6 on [0, 2], against the published reference.\n"
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
  van_der_pol::Model model(1e-6);
  esdirk::Options options;
  options.rtol = options.atol = rtol;
  esdirk::Integrator solver(model, options);
  if (!esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, {}))) return 1;

  std::printf("Van der Pol, eps = 1e-6, %s, rtol = atol = %.1e\n\n%8s %22s %22s\n",
              solver.method().name.c_str(), rtol, "t", "y1", "y2");
  std::vector<double> y(2);
  for (int k = 1; k <= 10; ++k) {
    const double t = 0.2 * k;
    if (!esdirk::ok(solver.integrate_to(t, y))) {
      std::fprintf(stderr, "failed: %s\n", solver.message().c_str());
      return 1;
    }
    std::printf("%8.2f %22.15f %22.15f\n", t, y[0], y[1]);
  }
  double worst = 0.0;
  for (int i = 0; i < 2; ++i)
    worst = std::max(
        worst, std::abs(y[i] - van_der_pol::reference[i]) / std::abs(van_der_pol::reference[i]));
  std::printf("\nreference at t = 2: %22.15f %22.15f\n", van_der_pol::reference[0],
              van_der_pol::reference[1]);
  std::printf("largest relative error: %.2e\n\nstatistics:\n%s", worst,
              solver.statistics().table().c_str());
  const bool good = worst <= 100.0 * rtol;
  std::printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  return good ? 0 : 1;
}
