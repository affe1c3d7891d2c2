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
#include <bit>
#include <cmath>
#include <cstdint>
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
    carried_powers_ = 0;
    fresh_ = fresh_jacobian;
  }
  /// Before this stage has shown a rate, eta is the last stage's eta^0.8 (RADAU5's FACCON).
  /// Its power is taken only when a test needs it (see converged()).
  void start_stage() {
    eta_ = 1.0;
    observed_ = false;
    pending_power_ = by_rate_ && carried_eta_ != 1.0;  // every power of 1 is 1 exactly
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
      // The power costs ~100 instructions, ~4 % of a CSTR shooting interval (bench_shooting
      // --profile fixed), and the answer rarely needs it: it is decided without it wherever
      // that is certain, and taken exactly as it always was (same bits, same order) otherwise.
      // 1. eta^0.8, and every power of it still to be taken (carried_powers_), lies between
      //    min(c, 1) and max(c, 1) for the carried c (the epsilon floor of power() keeps it
      //    there); the margins cover the rounding of the powers and of the products.
      const double lower = std::min(carried_eta_, 1.0), upper = std::max(carried_eta_, 1.0);
      if (lower * measure > tolerance_ * (1.0 + 0x1p-40)) return false;
      if (upper * measure <= tolerance_ * (1.0 - 0x1p-40)) return true;
      // 2. With j = carried_powers_ + 1 <= 4 powers to take, c^(0.8^j) m <= tol is
      //    c^(4^j) <= (tol/m)^(5^j), compared in integer powers (no overflow, see
      //    compare_powers); only a tie within its margin takes the powers. (On the CSTR's fixed
      //    steps of ESDIRK436 the last four stages often converge at their first test.)
      {
        // Beyond four, the first powers are taken (the same powers in the same order).
        for (; carried_powers_ > 3; --carried_powers_) carried_eta_ = power(carried_eta_);
        static constexpr int fours[] = {4, 16, 64, 256}, fives[] = {5, 25, 125, 625};
        const double c = std::max(carried_eta_, std::numeric_limits<double>::epsilon());
        const int order = compare_powers(c, fours[carried_powers_], tolerance_ / measure, fives[carried_powers_]);
        if (order != 0) return order < 0;
      }
      take_carried_powers();
      eta_ = power(carried_eta_);
      pending_power_ = false;
    }
    return eta_ * measure <= tolerance_;
  }
  /// The stage converged: its eta is carried to the next stage (with newton_carry_observed_rate
  /// and a fresh J, the eta of the last rate it observed, not floored). An eta still pending
  /// (the stage converged on the bounds of converged()) is carried as one more power to take.
  void stage_converged() {
    if (!by_rate_) return;
    if (observed_ && fresh_ && carry_observed_) {
      carried_eta_ = observed_eta_;
      carried_powers_ = 0;
    } else if (pending_power_) {
      ++carried_powers_;
      pending_power_ = false;
    } else {
      carried_eta_ = eta_;
      carried_powers_ = 0;
    }
  }

 private:
  // RADAU5's FACCON carry, eta^0.8 (eta floored at epsilon: a stage that converged at once).
  static double power(double eta) {
    return std::pow(std::max(eta, std::numeric_limits<double>::epsilon()), 0.8);
  }
  void take_carried_powers() {
    for (; carried_powers_ > 0; --carried_powers_) carried_eta_ = power(carried_eta_);
  }
  // c^p against q^r for c, q > 0 and p <= 256, r <= 625: -1 (below), +1 (above), or 0 when they
  // are within a relative 2^-36 of each other, or either is not a positive normal number. With
  // c = 2^a f, q = 2^b g (f, g in [1/2, 1), exact), c^p / q^r = 2^(pa - rb) f^p / g^r, where
  // f^p >= 2^-p and g^r >= 2^-r stay normal: the exponents alone decide far from a tie. The
  // rounding in this power (r = 625) of f^p, g^r, of tol/m and of the exact test's four powers
  // and product (each pow within 1 ulp), about 2^-40.5 together, is 20x below the margin.
  static int compare_powers(double c, int p, double q, int r) {
    constexpr double smallest = std::numeric_limits<double>::min(), largest = std::numeric_limits<double>::max();
    if (!(c >= smallest && c <= largest && q >= smallest && q <= largest)) return 0;
    int a = 0, b = 0;
    const double f = split_exponent(c, a), g = split_exponent(q, b);
    const int e = p * a - r * b;  // |a|, |b| <= 1024: no overflow
    if (e > p) return 1;    // c^p / q^r > 2^(e - p) >= 2
    if (e < -r) return -1;  // c^p / q^r < 2^(e + r) <= 1/2
    const double two_to_e = std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
    const double left = power_by_squaring(f, p) * two_to_e, right = power_by_squaring(g, r);
    if (left > right * (1.0 + 0x1p-36)) return 1;
    if (left < right * (1.0 - 0x1p-36)) return -1;
    return 0;
  }
  // x = 2^e f with f in [1/2, 1) (frexp) for a positive normal x, from its bits.
  static double split_exponent(double x, int& e) {
    const auto bits = std::bit_cast<std::uint64_t>(x);
    e = static_cast<int>(bits >> 52) - 1022;
    return std::bit_cast<double>((bits & 0x000F'FFFF'FFFF'FFFFULL) | 0x3FE0'0000'0000'0000ULL);
  }
  static double power_by_squaring(double x, int k) {
    double result = 1.0;
    for (; k > 0; k >>= 1, x *= x)
      if (k & 1) result *= x;
    return result;
  }

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
  int carried_powers_ = 0;    // ... once power() is taken of it this many times more
  double eta_ = 1.0;          // this stage's
  double observed_eta_ = 1.0;  // theta/(1 - theta) of the last rate observed, not floored
  bool observed_ = false;      // this stage (since its last restart) has observed a rate
  bool fresh_ = true;          // the iteration matrix holds a J formed in this step
  bool pending_power_ = false;  // eta_ is still to become carried_eta_^0.8
};

}  // namespace esdirk::internal
