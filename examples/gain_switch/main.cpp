// A controller gain switched by an event (a parameter reset): x' = -k x, and where x falls
// through 1/2 the transition sets k := 2 k. Closed form with x(0) = x0, k(0) = k0:
//     t* = ln(2 x0) / k0,   x(T) = 2 x0^2 exp(-2 k0 T),
//     dx(T)/dx0 = 4 x0 exp(-2 k0 T),   dx(T)/dk0 = -2 T x(T),   k(T) = 2 k0.
// The forward sensitivities follow the chain rule through the reset (k+ depends on k0); the
// hybrid adjoint gives the same gradient by the transposed jump (doc/events-theory.md, J3p).
//
//     gain_switch

#include <cmath>
#include <cstdio>
#include <vector>

#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "common/example_support.hpp"

namespace {

class SwitchedGain : public esdirk::HybridProblem {
 public:
  SwitchedGain() : HybridProblem(/*nx*/ 1, /*nz*/ 0, /*np*/ 1, /*events*/ 1) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = -p[0] * x[0];
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - 0.5;
    return 0;
  }
  // x is not reset (the default transition); the gain is.
  bool has_parameter_reset() const override { return true; }
  int reset_parameters(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                       esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector,
                       esdirk::Vector p_plus) override {
    p_plus[0] = 2.0 * p[0];
    return 0;
  }
};

bool all_ok = true;

void check(bool ok, const char* what, double value, double reference) {
  std::printf("  %-22s %18.12g  reference %18.12g  %s\n", what, value, reference, ok ? "ok" : "WRONG");
  all_ok = all_ok && ok;
}

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

}  // namespace

const char* const usage =
    "usage: gain_switch\n"
    "\n"
    "A controller gain switched by an event (a parameter reset, k := 2 k where x falls through\n"
    "1/2): the event time, x(T), k(T) and their sensitivities to (x0, k0), forward and by the\n"
    "hybrid adjoint, checked against the closed form.\n"
    "\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  const double x0 = 1.3, k0 = 0.8, T = 2.5;
  SwitchedGain model;
  esdirk::HybridOptions options;
  options.integrator.rtol = 1e-10;
  options.integrator.atol = 1e-12;
  options.directions = {esdirk::EventDirection::falling};
  esdirk::HybridSolver solver(model, options);
  esdirk::HybridAdjoint adjoint(solver);
  const std::vector<double> x0v{x0}, p{k0};
  if (!esdirk::ok(solver.initialize(0.0, 0, x0v, {}, p))) return 1;
  esdirk::DenseMatrix seed(2, 2);
  seed(0, 0) = seed(1, 1) = 1.0;  // directions (x0, k0)
  esdirk::SensitivityOptions so;
  so.stage_solve = esdirk::StageSolve::factorization;  // stage equations solved to rounding
  if (!esdirk::ok(solver.initialize_sensitivities(seed.cref(), so))) return 1;
  std::vector<double> x(1);
  esdirk::DenseMatrix Sx(1, 2);
  const esdirk::Outcome out = adjoint.integrate_to(T, x, {}, Sx.ref());
  if (!esdirk::ok(out)) {
    std::printf("%s\nCHECK FAILED\n", solver.message().c_str());
    return 1;
  }
  esdirk::HybridObjective objective;  // Phi = x(T)
  esdirk::DenseMatrix w(1, 1);
  w(0, 0) = 1.0;
  objective.set_terminal_weights(w.cref());
  esdirk::DenseMatrix dx0(1, 1), dp(1, 1);
  if (!esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref()))) return 1;

  const double exact = 2.0 * x0 * x0 * std::exp(-2.0 * k0 * T);
  std::printf("x' = -k x, k := 2 k at x = 1/2; x0 = %g, k0 = %g, T = %g (%ld event)\n", x0, k0, T,
              solver.event_count());
  check(solver.event_count() == 1 && rel(solver.event(0).t, std::log(2.0 * x0) / k0) < 1e-9, "event time t*",
        solver.event(0).t, std::log(2.0 * x0) / k0);
  check(solver.parameters()[0] == 2.0 * k0, "k(T)", solver.parameters()[0], 2.0 * k0);
  check(std::abs(solver.parameter_sensitivity()(0, 1) - 2.0) < 1e-9, "dk(T)/dk0", solver.parameter_sensitivity()(0, 1),
        2.0);
  check(rel(x[0], exact) < 1e-8, "x(T)", x[0], exact);
  check(rel(Sx(0, 0), 4.0 * x0 * std::exp(-2.0 * k0 * T)) < 1e-7, "dx(T)/dx0", Sx(0, 0),
        4.0 * x0 * std::exp(-2.0 * k0 * T));
  check(rel(Sx(0, 1), -2.0 * T * exact) < 1e-7, "dx(T)/dk0", Sx(0, 1), -2.0 * T * exact);
  check(rel(dx0(0, 0), Sx(0, 0)) < 1e-12, "adjoint dx(T)/dx0", dx0(0, 0), Sx(0, 0));
  check(rel(dp(0, 0), Sx(0, 1)) < 1e-12, "adjoint dx(T)/dk0", dp(0, 0), Sx(0, 1));
  std::printf("%s\n", all_ok ? "CHECK PASSED" : "CHECK FAILED");
  return all_ok ? 0 : 1;
}
