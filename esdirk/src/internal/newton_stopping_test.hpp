#pragma once
// Internal: the stopping test of a stage's Newton iteration (Options::newton_test), chosen once
// when the stepper is built, so that Stepper::solve_stage is the iteration alone
// (doc/integrator-theory.md section 3).
//
// Each test answers the same questions: what is measured (the correction M^{-1} R in the error
// weights, or the raw R of Kristensen et al. 2005 on the differential rows), when the iteration
// has converged, when it cannot converge within the iterations left, and whether the last
// correction is applied to the converged iterate. NewtonTest::contraction_rate keeps eta = theta/(1 - theta) of the last
// stage that observed a rate and carries it to the next stage (as eta^0.8); the others test the
// measure itself (eta = 1).

#include <algorithm>
#include <cmath>
#include <limits>

#include "esdirk/options.hpp"

namespace esdirk::internal {

class NewtonStoppingTest {
 public:
  NewtonStoppingTest(const Options& options, int nz)
      : raw_residual_(options.newton_test == NewtonTest::residual),
        by_rate_(options.newton_test == NewtonTest::contraction_rate),
        solve_before_test_(!raw_residual_ || nz > 0),
        tolerance_(options.newton_tolerance),
        kept_floor_(options.newton_rate_floor),
        fresh_floor_(options.newton_fresh_rate_floor),
        carry_observed_(options.newton_carry_observed_rate),
        max_iterations_(options.max_newton_iterations) {}

  /// The test of Kristensen et al. 2005: the differential rows of R are measured raw (before the solve), and the
  /// converged iterate keeps F_i = f(T_i, X_i, Z_i) at the tested point (no correction applied).
  bool measures_raw_residual() const { return raw_residual_; }
  /// Whether the correction M^{-1} R is needed to decide (else it is solved only when the
  /// iteration goes on): all but the raw test of an ODE.
  bool solves_before_test() const { return solve_before_test_; }

  /// Every attempt depends only on its start and h (replay_step): eta starts at 1. Whether the
  /// step's J was formed in this step (fresh) or kept from an earlier one selects the floor
  /// (newton_fresh_rate_floor or newton_rate_floor) and what a stage carries on.
  void start_attempt(bool fresh_jacobian) {
    carried_eta_ = 1.0;
    fresh_ = fresh_jacobian;
  }
  /// Before this stage has shown a rate, eta is the last stage's eta^0.8 (RADAU5's FACCON).
  /// Its power is taken only when a test needs it (see converged()).
  void start_stage() {
    eta_ = 1.0;
    observed_ = false;
    pending_power_ = by_rate_ && carried_eta_ != 1.0;  // 1^0.8 is 1 exactly
  }
  /// A refreshed iteration matrix (J at a stage iterate, fresh): no rate of it is known yet.
  void restart() {
    eta_ = 1.0;
    observed_ = false;
    pending_power_ = false;
    fresh_ = true;
  }

  /// The observed rate theta_k = m_k / m_{k-1} of iteration `iteration` (>= 1) with measure m_k:
  /// true if the iteration diverges, or if even this rate cannot reach the tolerance within the
  /// remaining iterations (Hairer & Wanner, Solving ODEs II, IV.8). Updates eta.
  bool hopeless(double rate, double measure, int iteration) {
    if (rate >= 1.0) return true;
    // The rate the estimate trusts is never below the floor (newton_rate_floor, or with a J of
    // this step newton_fresh_rate_floor): the first rate of a stage is often far smaller than
    // the next (the first correction removes the predictor's error in the stiff, nearly linear
    // components; Dow: 6e-5, then 0.02).
    double theta = rate;
    if (by_rate_) {
      theta = std::max(rate, fresh_ ? fresh_floor_ : kept_floor_);
      eta_ = theta / (1.0 - theta);
      observed_eta_ = rate / (1.0 - rate);
      observed_ = true;
      pending_power_ = false;
    }
    const int remaining = max_iterations_ - 1 - iteration;
    const double tested = eta_ * measure;
    return tested > tolerance_ && tested * integer_power(theta, remaining) > tolerance_;
  }

  /// Whether the iterate with measure m has converged: eta m <= newton_tolerance.
  bool converged(double measure) {
    if (pending_power_) {
      // eta^0.8 lies between min(eta, 1) and max(eta, 1): far enough above the tolerance, the
      // power cannot change the answer (the margin covers the rounding of the power and of
      // both products), so it is skipped; otherwise it is taken exactly as it always was.
      const double lower = std::min(carried_eta_, 1.0);
      if (lower * measure > tolerance_ * (1.0 + 0x1p-40)) return false;
      eta_ = std::pow(std::max(carried_eta_, std::numeric_limits<double>::epsilon()), 0.8);
      pending_power_ = false;
    }
    return eta_ * measure <= tolerance_;
  }
  /// The stage converged: its eta is carried to the next stage (with newton_carry_observed_rate
  /// and a fresh J, the eta of the last rate it observed, not floored).
  void stage_converged() {
    if (by_rate_) carried_eta_ = observed_ && fresh_ && carry_observed_ ? observed_eta_ : eta_;
  }

 private:
  // x^k for a small k >= 0 by repeated multiplication: the test evaluates it once per iteration,
  // where std::pow cost 6 % of all instructions on the reference problems. Above 64 remaining
  // iterations (a limit no Newton iteration needs, but any int >= 1 is accepted) std::pow, so
  // that one test never costs O(k): with max_newton_iterations near INT_MAX each test took
  // seconds.
  static double integer_power(double x, int k) {
    if (k > 64) return std::pow(x, k);
    double result = 1.0;
    for (; k > 0; --k) result *= x;
    return result;
  }

  bool raw_residual_, by_rate_, solve_before_test_;
  double tolerance_, kept_floor_, fresh_floor_;
  bool carry_observed_;
  int max_iterations_;
  double carried_eta_ = 1.0;  // eta of the last converged stage of this attempt
  double eta_ = 1.0;          // this stage's
  double observed_eta_ = 1.0;  // theta/(1 - theta) of the last rate observed, not floored
  bool observed_ = false;      // this stage (since its last restart) has observed a rate
  bool fresh_ = true;          // the iteration matrix holds a J formed in this step
  bool pending_power_ = false;  // eta_ is still to become carried_eta_^0.8
};

}  // namespace esdirk::internal
