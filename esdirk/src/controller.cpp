#include "esdirk/controller.hpp"

#include <algorithm>
#include <cmath>

namespace esdirk {

StepController::StepController(const Options& options, int q) : options_(options), q_(q) {}

void StepController::reset() {
  have_history_ = false;
  newton_limit_ = 0.0;
  consecutive_newton_failures_ = 0;
  consecutive_rejections_ = 0;
  last_was_rejection_ = false;
  convergence_limited_ = false;
}

double StepController::clamp_ratio(double ratio) const {
  return std::clamp(ratio, options_.min_step_ratio, options_.max_step_ratio);
}

namespace {

// x^q for an integer q >= 1 by q - 1 multiplications (q - 1 roundings).
double integer_power(double x, int q) {
  double power = x;
  for (int k = 1; k < q; ++k) power *= x;
  return power;
}

// The controller's exponents have the denominator q (the tableau's integer controller order);
// powers outside this range are left to the laws' pows.
bool usable_order(double q) { return q >= 1.0 && q <= 64.0; }

}  // namespace

// Two decisions below are taken without a pow where they are certain, so that the proposal has
// the bits it had with the pows. Both rest on the same bound: the computed s * pow(x, -1/q) is
// within 5e-14 of the exact s x^(-1/q) relatively (pow's error is below 1 ulp; -1/q rounded to a
// double moves x^(-1/q) by at most |ln x| 2^-54 <= 4e-14 for any finite x; one rounding of the
// product), and a power by multiplications (q + 2 roundings, below 1e-14 for q <= 64) is far
// inside the margin of 1e-9 each test keeps.
double StepController::after_accept(double h, double r, double alpha) {
  // Floor r: a zero error estimate (e.g. a linear problem) must not give an infinite ratio.
  r = std::max(r, 1e-10);
  const double s = options_.safety;
  const double smallest = options_.min_step_ratio;
  const int q = static_cast<int>(q_);
  convergence_limited_ = false;
  // Where the asymptotic law is certainly below min_step_ratio (r > (s/min (1 + 1e-9))^q), the
  // predictive law and the no-growth rule only lower the ratio, and a Newton-rate limit at or
  // above min_step_ratio leaves it (it replaces the ratio only when below it; a smaller limit is
  // left to the laws, which set convergence_limited_): the clamp gives min_step_ratio whatever
  // the pows give. This is the first step of a fixed or frozen mesh replayed at a tolerance its
  // steps do not meet (error norms 10^3 ... 10^5 on the CSTR's fixed ESDIRK436 steps at rtol
  // 1e-8), where the proposal only matters to a later adaptive step.
  const bool clamped_low =
      usable_order(q_) && s > 0.0 && smallest > 0.0 && smallest < options_.max_step_ratio &&
      r > integer_power(s / smallest * (1.0 + 1e-9), q) &&
      (!(alpha > options_.reference_contraction) || !(options_.reference_contraction / alpha < smallest));
  double ratio = smallest;
  if (!clamped_low) {
    // Asymptotic (deadbeat) law, Kristensen et al. 2005, eq. (27).
    const double decay = std::pow(r, -1.0 / q_);
    ratio = s * decay;
    if (options_.predictive_controller && have_history_) {
      // Gustafsson's predictive law (29): (h_n/h_{n-1}) (eps/r)^{k2/q} (r_{n-1}/r)^{k1/q}.
      // With the default gains k1 = k2 = 1 its first power is the asymptotic law's (the same
      // pow of the same arguments), and it is certainly above the asymptotic law when
      // (h_n/h_{n-1}) (r_{n-1}/r)^{1/q} > 1 + 1e-9, i.e. (h_n/h_{n-1})^q r_{n-1}/r >
      // (1 + 1e-9)^q: then the smaller of the two is the asymptotic law without the second pow
      // (a step whose error fell since the last one, as on a fixed mesh).
      const bool unit_gains = options_.controller_k1 == 1.0 && options_.controller_k2 == 1.0;
      const bool asymptotic_smaller =
          unit_gains && usable_order(q_) &&
          integer_power(h / h_previous_, q) * (r_previous_ / r) > integer_power(1.0 + 1e-9, q);
      if (!asymptotic_smaller) {
        const double first = unit_gains ? decay : std::pow(r, -options_.controller_k2 / q_);
        const double predictive =
            (h / h_previous_) * s * first * std::pow(r_previous_ / r, options_.controller_k1 / q_);
        // The smaller of the two proposals (as RADAU5): the predictive law alone can grow h
        // too fast after a sequence of shrinking errors.
        ratio = std::min(ratio, predictive);
      }
    }
    if (last_was_rejection_) ratio = std::min(ratio, 1.0);  // no growth right after a rejection
    if (alpha > options_.reference_contraction) {
      // Slow Newton convergence: limit the step so the rate falls back to alpha_ref.
      const double limit = options_.reference_contraction / alpha;
      if (limit < ratio) {
        ratio = limit;
        convergence_limited_ = true;
      }
    }
    ratio = clamp_ratio(ratio);
  }
  if (newton_limit_ > 0.0) {
    // Approach the size that failed in steps of at most newton_limit_growth, and pass it
    // only when this step converged comfortably.
    const double growth = options_.newton_limit_growth;
    const double limit =
        alpha < 0.5 * options_.reference_contraction ? newton_limit_ * growth : newton_limit_;
    if (h * ratio > limit) ratio = std::max(std::min(1.0, ratio), limit / h);
    if (h >= newton_limit_) newton_limit_ *= growth;
  }
  h_previous_ = h;
  r_previous_ = std::max(r, options_.previous_error_floor);
  // After a convergence-limited step the error history says nothing about the next step.
  have_history_ = !convergence_limited_;
  consecutive_rejections_ = 0;
  consecutive_newton_failures_ = 0;
  last_was_rejection_ = false;
  return h * ratio;
}

double StepController::after_error_rejection(double h, double r) {
  double exponent = 1.0 / q_;
  double smallest = options_.min_step_ratio;
  if (consecutive_rejections_ >= 1 && h_rejected_ != h && r_rejected_ > 0.0) {
    // Two rejections in a row: the asymptotic model r ~ h^q failed, so estimate the observed
    // order from the two rejected attempts and use it (clamped to [1, q]). With that model
    // measured, follow it further down than a first rejection may: a first step far beyond a
    // fast transient can be off by many orders of magnitude.
    const double observed = std::log(r / r_rejected_) / std::log(h / h_rejected_);
    if (std::isfinite(observed)) {
      exponent = 1.0 / std::clamp(observed, 1.0, q_);
      smallest = std::min(smallest, options_.repeated_rejection_min_ratio);
    }
  }
  double ratio = options_.safety * std::pow(std::max(r, 1e-10), -exponent);
  ratio = std::clamp(ratio, smallest, 0.9);
  ++consecutive_rejections_;
  h_rejected_ = h;
  r_rejected_ = r;
  have_history_ = false;
  last_was_rejection_ = true;
  return h * ratio;
}

double StepController::after_newton_failure(double h, double alpha) {
  newton_limit_ = h;
  double factor = options_.newton_failure_factor;
  if (alpha > 0.0 && std::isfinite(alpha))
    factor =
        std::clamp(options_.reference_contraction / alpha, options_.newton_failure_min_factor, 0.5);
  // Repeated failures at one point mean the step is far too large (a restart into a fast
  // transient with a warm-started h): cut harder each time, so that the failure limit spans
  // many orders of magnitude of h rather than a few halvings.
  if (++consecutive_newton_failures_ >= 2) factor = std::min(factor, options_.newton_failure_factor);
  if (consecutive_newton_failures_ >= 4) factor = std::min(factor, options_.newton_failure_min_factor);
  have_history_ = false;
  last_was_rejection_ = true;
  return h * factor;
}

double StepController::after_failure(double h) {
  have_history_ = false;
  last_was_rejection_ = true;
  return h * options_.newton_failure_factor;
}

}  // namespace esdirk
