// The simple pendulum (Pryce 2001; Benveniste, Caillaud & Malandain, Inria RR-9387, §4.4), read from a model file or given as model text:
// offsets c = (0, 0, 2), d = (2, 2, 0), index 2 (Benveniste et al.) / 3 (Pryce), latent f3', f3'', and the
// System Jacobian det = -2(x² + y²). Also the semi-explicit index-1 helper on the first-order
// form. Exits 1 on any mismatch.
//
//   example_structural_pendulum [MODEL_FILE]

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "esdirk/structural/structural.hpp"
#include "common/example_support.hpp"

using namespace esdirk::structural;

const char* const usage =
    "usage: example_structural_pendulum [MODEL_FILE]\n"
    "\n"
    "Structural analysis of the simple pendulum (Pryce 2001), given as model text or read from\n"
    "MODEL_FILE: offsets, index, latent equations and the System Jacobian, checked against the\n"
    "known values.\n"
    "\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  int failures = 0;
  auto expect = [&failures](bool ok, const std::string& what) {
    if (!ok) {
      std::cerr << "MISMATCH: " << what << "\n";
      ++failures;
    }
  };
  // f1: x'' + x λ = 0, f2: y'' + y λ - g = 0, f3: x² + y² - L² = 0.
  const char* const pendulum = R"(
model pendulum
variables x y lambda
equation f1: x'' x lambda
equation f2: y'' y lambda
equation f3: x y
)";
  const Analysis analysis = argc > 1 ? analyse_file(argv[1]) : analyse(pendulum, "pendulum");
  std::cout << text_report(analysis);
  const SigmaResult& r = analysis.modes.at(0).result;
  expect(r.equation_offsets() == std::vector<int>{0, 0, 2}, "c = (0, 0, 2)");
  expect(r.variable_offsets() == std::vector<int>{2, 2, 0}, "d = (2, 2, 0)");
  expect(r.max_offset_index == 2, "Benveniste et al. index 2");
  expect(r.pryce_structural_index == 3, "Pryce structural index 3");
  expect(r.degrees_of_freedom == 2, "2 degrees of freedom");
  expect(r.latent_equations.size() == 2, "latent f3', f3''");
  expect(r.jacobian_blocks.blocks.size() == 1, "one 3x3 block");

  // System Jacobian at (x, y): [[1, 0, x], [0, 1, y], [2x, 2y, 0]].
  auto at = [](double x, double y) {
    return [x, y](esdirk::MatrixRef J) {
      J(0, 0) = 1, J(0, 2) = x, J(1, 1) = 1, J(1, 2) = y, J(2, 0) = 2 * x, J(2, 1) = 2 * y;
    };
  };
  JacobianCheck on_circle = check_system_jacobian(r, at(0.6, -0.8));
  JacobianCheck at_origin = check_system_jacobian(r, at(0.0, 0.0));
  std::cout << "\nSystem Jacobian at (0.6, -0.8): "
            << (on_circle.nonsingular ? "nonsingular" : "singular")
            << ", at (0, 0): " << (at_origin.nonsingular ? "nonsingular" : "singular") << "\n";
  expect(on_circle.nonsingular && !at_origin.nonsingular, "det = -2(x^2 + y^2)");

  // First-order semi-explicit form for the integrator: x' = u, y' = v, u' = -x λ,
  // v' = -y λ - g, 0 = x² + y² - L². Not index 1: g1 must be differentiated twice.
  SemiExplicitPattern first_order{
      4, 1, {{0, 2}, {1, 3}, {2, 0}, {2, 4}, {3, 1}, {3, 4}, {4, 0}, {4, 1}}};
  SemiExplicitCheck index = check_semi_explicit_index1(first_order);
  std::cout << "semi-explicit check: " << index.message << "\n";
  expect(!index.index1 && index.differentiate.size() == 1 && index.differentiate[0].times == 2,
         "differentiate g1 twice");

  std::cout << (failures == 0 ? "pendulum: all results agree with the known values (Pryce 2001)\n"
                              : "pendulum: MISMATCHES FOUND\n");
  return failures == 0 ? 0 : 1;
}
