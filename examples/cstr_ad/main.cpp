// The CSTR of examples/nmpc written once as a template (doc/ad-guide.md): every derivative the
// integrator, the forward sensitivities and the adjoint need comes from automatic
// differentiation, none is written by hand and none is differenced. The twin of
// examples/nmpc/cstr.hpp, which carries its Jacobians by hand (the callback route).
//
// Integrates 10 minutes from (C_A, T) = (0.5, 350) with the coolant at 300 K, the sensitivities
// of the states to x0 and to the coolant temperature u, and the gradient of T(10) by the
// adjoint; checks them against the hand-Jacobian model's run and the adjoint against the
// forward sensitivities.
//
//     cstr_ad
//
// Exit status 0 and "CHECK PASSED" when all agree.

#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include "common/example_support.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "nmpc/cstr.hpp"

const char* const usage =
    "usage: cstr_ad\n"
    "\n"
    "The CSTR with derivatives by automatic differentiation: sensitivities and an adjoint\n"
    "gradient, checked against the hand-Jacobian model.\n"
    "\n"
    "  --help       this text\n";

// x' = f(t, x, u): the equations of cstr::Model, once, for any scalar type T.
struct Cstr {
  template <class T>
  int f(double, std::span<const T> x, std::span<const T>, std::span<const T> u, std::span<T> f) const {
    using std::exp;
    if (!(x[1] > 0.0)) return 1;
    const T k = cstr::k0 * exp(-cstr::EoR / x[1]);
    f[0] = cstr::q / cstr::V * (cstr::CAf - x[0]) - k * x[0];
    f[1] = cstr::q / cstr::V * (cstr::Tf - x[1]) + cstr::heat * k * x[0] + cstr::cooling * (u[0] - x[1]);
    return 0;
  }
};

struct Result {
  std::vector<double> x = std::vector<double>(2);
  esdirk::DenseMatrix S{2, 3}, dx0{2, 1}, du{1, 1};
};

// Forward sensitivities (all x0 and u directions, on the states' steps), then the adjoint of
// T(10) on a second run with the same steps.
bool run(esdirk::Problem& problem, Result& r) {
  const std::vector<double> x0{0.5, 350.0}, u{300.0};
  esdirk::Options options;
  options.rtol = 1e-8;
  options.atol = 1e-10;
  {
    esdirk::Integrator solver(problem, options);
    if (!esdirk::ok(solver.initialize(0.0, x0, {}, u))) return false;
    esdirk::SensitivityOptions sensitivity_options;
    sensitivity_options.error_control = false;  // the states' steps: those the adjoint sweeps
    esdirk::ForwardSensitivity sensitivity(solver, sensitivity_options);
    if (!esdirk::ok(sensitivity.initialize_all())) return false;
    solver.set_stop_time(10.0);  // end on a step, as the adjoint's run
    if (!esdirk::ok(sensitivity.integrate_to(10.0, r.x, {}, r.S.ref()).status)) return false;
  }
  esdirk::Integrator solver(problem, options);
  esdirk::Adjoint adjoint(solver);
  if (!esdirk::ok(solver.initialize(0.0, x0, {}, u))) return false;
  solver.set_stop_time(10.0);
  std::vector<double> x(2);
  if (!esdirk::ok(solver.integrate_to(10.0, x).status)) return false;
  esdirk::DenseMatrix weights(2, 1);
  weights(1, 0) = 1.0;  // T(10)
  esdirk::AdjointObjective objective;
  objective.set_terminal_weights(weights.cref());
  return esdirk::ok(adjoint.gradient(objective, r.dx0.ref(), r.du.ref()));
}

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  esdirk::ad::ModelProblem<Cstr> ad(2, 0, 1);
  cstr::Model hand;
  Result a, h;
  if (!run(ad, a) || !run(hand, h)) {
    std::fprintf(stderr, "a run failed\n");
    return 1;
  }
  std::printf("CSTR, 10 min from (0.5, 350), coolant 300 K\n\n");
  std::printf("%-22s %18s %18s\n", "", "AD", "hand Jacobians");
  std::printf("%-22s %18.10f %18.10f\n", "C_A(10)", a.x[0], h.x[0]);
  std::printf("%-22s %18.10f %18.10f\n", "T(10)", a.x[1], h.x[1]);
  std::printf("%-22s %18.10f %18.10f\n", "dT(10)/dT(0)", a.S(1, 1), h.S(1, 1));
  std::printf("%-22s %18.10f %18.10f\n", "dT(10)/du forward", a.S(1, 2), h.S(1, 2));
  std::printf("%-22s %18.10f %18.10f\n", "dT(10)/du adjoint", a.du(0, 0), h.du(0, 0));
  std::printf("\nhow the derivatives were formed:\n%s\nAD counters:\n%s", ad.derivative_methods().c_str(),
              ad.ad_statistics().table().c_str());
  // AD and hand derivatives agree to rounding, so do the runs (relative 1e-10 leaves room for
  // the rounding of the stiff stages); the adjoint is the transpose of the forward
  // sensitivities of the same steps (to rounding as well).
  double worst = 0.0;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i)
      worst = std::max(worst, std::abs(a.S(i, j) - h.S(i, j)) / (std::abs(h.S(i, j)) + 1e-12));
  const double adjoint_vs_forward = std::abs(a.du(0, 0) - a.S(1, 2)) / std::abs(a.S(1, 2));
  std::printf("\nAD vs hand sensitivities (relative): %.2e\nadjoint vs forward dT/du (relative): %.2e\n", worst,
              adjoint_vs_forward);
  const bool good = worst < 1e-10 && adjoint_vs_forward < 1e-10;
  std::printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  return good ? 0 : 1;
}
