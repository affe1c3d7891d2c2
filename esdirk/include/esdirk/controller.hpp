#pragma once
// Step-size control: Gustafsson's predictive controller (Kristensen et al. 2005 eq. 29) with the
// safeguards of mature codes. Works on |h|; the integrator applies the direction.
//
// Internal: the Integrator holds one by value (so this header is installed with integrator.hpp);
// not exported, and nothing outside the library calls it. The unit tests link the static library.

#include "esdirk/options.hpp"

namespace esdirk {

class StepController {
 public:
  /// `q` is the exponent denominator (controller_order() of the tableau: 4 for ESDIRK34).
  StepController(const Options& options, int q);

  /// Forgets the history: the next proposal uses the asymptotic law (27).
  void reset();

  /// The next |h| after an accepted step of size |h| with error norm r (<= 1) and largest
  /// Newton contraction rate alpha (0 if unknown).
  double after_accept(double h, double r, double alpha);
  /// The retry |h| after the error test rejected a step of size |h| with error norm r (> 1).
  double after_error_rejection(double h, double r);
  /// The retry |h| after the Newton iteration failed (alpha: the rate seen, 0 if unknown).
  double after_newton_failure(double h, double alpha);
  /// The retry |h| after a recoverable callback failure or a singular iteration matrix.
  double after_failure(double h);

  /// True when the last proposal was limited by the Newton contraction rate.
  bool convergence_limited() const { return convergence_limited_; }

 private:
  double clamp_ratio(double ratio) const;

  const Options& options_;
  double q_;
  bool have_history_ = false;  // a previous accepted step whose (h, r) the predictive law uses
  double h_previous_ = 0.0;
  double r_previous_ = 0.0;
  int consecutive_rejections_ = 0;
  double h_rejected_ = 0.0;  // the last rejected (h, r), for the observed-order estimate
  double r_rejected_ = 0.0;
  bool last_was_rejection_ = false;
  bool convergence_limited_ = false;
  // The step at which Newton last failed: later steps may exceed it only gradually, or the
  // controller cycles between growing into the failure and shrinking out of it.
  double newton_limit_ = 0.0;
  int consecutive_newton_failures_ = 0;  // since the last accepted step
};

}  // namespace esdirk
