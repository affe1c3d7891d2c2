// The step-size controller's laws and safeguards, each against its formula.

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "esdirk/controller.hpp"

BOOST_AUTO_TEST_SUITE(controller)

BOOST_AUTO_TEST_CASE(first_step_uses_the_asymptotic_law) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  const double r = 0.05;
  BOOST_TEST(c.after_accept(0.1, r, 0.0) == 0.1 * 0.9 * std::pow(r, -0.25),
             boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(predictive_law_29_when_smaller_than_the_asymptotic_one) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  const double h1 = 0.1, r1 = 0.5;
  const double h2 = c.after_accept(h1, r1, 0.0);
  const double r2 = 0.8;  // the error grew: the predictive law cuts harder than the asymptotic
  const double predictive = (h2 / h1) * 0.9 * std::pow(r2, -0.25) * std::pow(r1 / r2, 0.25) * h2;
  const double asymptotic = 0.9 * std::pow(r2, -0.25) * h2;
  BOOST_REQUIRE(predictive < asymptotic);
  BOOST_TEST(c.after_accept(h2, r2, 0.0) == predictive, boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(step_ratio_clamps) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  BOOST_TEST(c.after_accept(1.0, 1e-20, 0.0) == o.max_step_ratio);
  esdirk::StepController d(o, 4);
  BOOST_TEST(d.after_error_rejection(1.0, 1e20) == o.min_step_ratio);
  esdirk::StepController e(o, 4);
  BOOST_TEST(e.after_error_rejection(1.0, 1.01) <= 0.9);  // a rejection always shrinks h
}

BOOST_AUTO_TEST_CASE(no_growth_right_after_a_rejection) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  const double h = c.after_error_rejection(1.0, 2.0);
  BOOST_TEST(c.after_accept(h, 1e-6, 0.0) == h);
}

BOOST_AUTO_TEST_CASE(slow_newton_limits_the_next_step) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  const double alpha = 0.6;
  BOOST_TEST(c.after_accept(1.0, 1e-3, alpha) == o.reference_contraction / alpha,
             boost::test_tools::tolerance(1e-14));
  BOOST_TEST(c.convergence_limited());
}

BOOST_AUTO_TEST_CASE(newton_failure_shrinks_by_the_rate_and_caps_later_growth) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  BOOST_TEST(c.after_newton_failure(1.0, 0.0) == o.newton_failure_factor);  // unknown rate
  c.after_accept(1.0, 0.5, 0.0);  // an accepted step ends the run of failures
  BOOST_TEST(c.after_newton_failure(1.0, 0.9) == o.reference_contraction / 0.9,
             boost::test_tools::tolerance(1e-14));
  c.after_accept(1.0, 0.5, 0.0);
  BOOST_TEST(c.after_newton_failure(1.0, 100.0) == o.newton_failure_min_factor);
  // The failed size was 1.0: a comfortable step of 0.1 may grow to at most 1.5 x 1.0.
  const double next = c.after_accept(0.1, 1e-12, 0.01);
  BOOST_TEST(next <= 1.0 * o.newton_limit_growth);
}

// A restart into a fast transient: each further failure in a row cuts harder.
BOOST_AUTO_TEST_CASE(repeated_newton_failures_cut_harder) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  const double alpha = 0.6;  // alone, this rate would halve h every time
  BOOST_TEST(c.after_newton_failure(1.0, alpha) == 0.5);
  BOOST_TEST(c.after_newton_failure(1.0, alpha) == o.newton_failure_factor);
  BOOST_TEST(c.after_newton_failure(1.0, alpha) == o.newton_failure_factor);
  BOOST_TEST(c.after_newton_failure(1.0, alpha) == o.newton_failure_min_factor);
}

BOOST_AUTO_TEST_CASE(observed_order_after_two_rejections) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  const double h1 = c.after_error_rejection(1.0, 100.0);
  // The error fell only as h^1 between the two attempts: the next cut uses exponent 1.
  const double r2 = 100.0 * h1;
  const double h2 = c.after_error_rejection(h1, r2);
  BOOST_TEST(h2 == h1 * std::max(o.repeated_rejection_min_ratio, 0.9 / r2),
             boost::test_tools::tolerance(1e-12));
}

// A first step far too large (error norm 1e15, falling like h): from the second rejection on
// the cut follows the measured order down to repeated_rejection_min_ratio, not min_step_ratio.
BOOST_AUTO_TEST_CASE(repeated_rejections_cut_below_min_step_ratio) {
  esdirk::Options o;
  esdirk::StepController c(o, 4);
  BOOST_TEST(c.after_error_rejection(1.0, 1e15) == o.min_step_ratio);  // first: no model yet
  const double h2 = c.after_error_rejection(o.min_step_ratio, 0.2e15);
  BOOST_TEST(h2 == o.min_step_ratio * o.repeated_rejection_min_ratio, boost::test_tools::tolerance(1e-12));
  // Kristensen et al. 2005's configuration (Options::seed002()) keeps its single floor.
  const esdirk::Options seed = esdirk::Options::seed002();
  esdirk::StepController s(seed, 4);
  s.after_error_rejection(1.0, 1e15);
  BOOST_TEST(s.after_error_rejection(0.2, 0.2e15) == 0.2 * seed.min_step_ratio, boost::test_tools::tolerance(1e-12));
  // A min_step_ratio below it is the floor of every cut (no contradiction between the two).
  esdirk::Options low;
  low.min_step_ratio = 1e-4;
  low.validate(1, 0);
  esdirk::StepController l(low, 4);
  l.after_error_rejection(1.0, 1e15);
  BOOST_TEST(l.after_error_rejection(1e-4, 1e11) == 1e-4 * low.min_step_ratio, boost::test_tools::tolerance(1e-12));
}

namespace {

// after_accept as it was before it decided two cases without a pow (every pow taken), with the
// state it reads and writes; the other events as StepController has them. The reference of
// the_proposals_without_the_pows_are_those_with_them.
class ReferenceController {
 public:
  ReferenceController(const esdirk::Options& options, int q) : o_(options), q_(q) {}
  double after_accept(double h, double r, double alpha) {
    r = std::max(r, 1e-10);
    const double s = o_.safety;
    double ratio = s * std::pow(r, -1.0 / q_);
    if (o_.predictive_controller && have_history_) {
      const double predictive = (h / h_previous_) * s * std::pow(r, -o_.controller_k2 / q_) *
                                std::pow(r_previous_ / r, o_.controller_k1 / q_);
      ratio = std::min(ratio, predictive);
    }
    if (last_was_rejection_) ratio = std::min(ratio, 1.0);
    convergence_limited_ = false;
    if (alpha > o_.reference_contraction) {
      const double limit = o_.reference_contraction / alpha;
      if (limit < ratio) {
        ratio = limit;
        convergence_limited_ = true;
      }
    }
    ratio = std::clamp(ratio, o_.min_step_ratio, o_.max_step_ratio);
    if (newton_limit_ > 0.0) {
      const double growth = o_.newton_limit_growth;
      const double limit = alpha < 0.5 * o_.reference_contraction ? newton_limit_ * growth : newton_limit_;
      if (h * ratio > limit) ratio = std::max(std::min(1.0, ratio), limit / h);
      if (h >= newton_limit_) newton_limit_ *= growth;
    }
    h_previous_ = h;
    r_previous_ = std::max(r, o_.previous_error_floor);
    have_history_ = !convergence_limited_;
    last_was_rejection_ = false;
    return h * ratio;
  }
  // The events after which StepController has no history and the next step may not grow (their
  // own proposals are checked by the tests above).
  void after_rejection() {
    have_history_ = false;
    last_was_rejection_ = true;
  }
  void after_newton_failure(double h) {
    newton_limit_ = h;
    after_rejection();
  }
  bool convergence_limited() const { return convergence_limited_; }

 private:
  const esdirk::Options& o_;
  double q_;
  bool have_history_ = false, last_was_rejection_ = false, convergence_limited_ = false;
  double h_previous_ = 0.0, r_previous_ = 0.0, newton_limit_ = 0.0;
};

std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

// after_accept decides without a pow where the asymptotic law is certainly below min_step_ratio
// (the clamp decides) and where, with the default gains, the predictive law is certainly above
// the asymptotic one (the first step and the later ones of a fixed mesh replayed at a tolerance
// it does not meet). The proposals and convergence_limited() must be those of the controller
// that takes every pow, to the bit: random runs of accepted steps (with rejections and Newton
// failures between them) over error norms from 1e-12 to 1e9, with error norms and step ratios
// placed on both decision boundaries, one to a few ulps either side, for several orders q,
// gains, safety factors and ratio limits.
BOOST_AUTO_TEST_CASE(the_proposals_without_the_pows_are_those_with_them) {
  std::mt19937_64 random(31);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  long compared = 0, differing = 0, on_boundaries = 0;
  for (int run = 0; run < 4000; ++run) {
    esdirk::Options o;
    const int setting = run % 8;
    if (setting >= 4) o.safety = 0.5 + 0.5 * unit(random);
    if (setting == 5) o.min_step_ratio = 0.05 + 0.5 * unit(random);
    if (setting == 6) o.controller_k1 = 0.5 + unit(random);
    if (setting == 7) o.controller_k2 = 0.5 + unit(random);
    if (setting == 3) o.predictive_controller = false;
    if (setting == 2) o.max_step_ratio = 2.0 + 8.0 * unit(random);
    const int q = 2 + run % 5;
    esdirk::StepController c(o, q);
    ReferenceController reference(o, q);
    double h = 0.01 + unit(random), previous_h = h, previous_r = 1.0;
    for (int step = 0; step < 40; ++step) {
      const double event = unit(random);
      if (event < 0.05) {
        c.after_error_rejection(h, 2.0);
        reference.after_rejection();
        continue;
      }
      if (event < 0.08) {
        c.after_newton_failure(h, 0.9);
        reference.after_newton_failure(h);
        continue;
      }
      double r = std::pow(10.0, -12.0 + 21.0 * unit(random));
      const double nudge = std::ldexp(static_cast<double>(static_cast<int>(unit(random) * 9.0) - 4), -52);
      const double placement = unit(random);
      if (placement < 0.25) {  // on the clamp's boundary, r = (s/min (1 + 1e-9 ...))^q
        const double margin = placement < 0.12 ? 1e-9 : 0.0;
        r = std::pow(o.safety / o.min_step_ratio * (1.0 + margin), q) * (1.0 + nudge);
        ++on_boundaries;
      } else if (placement < 0.5) {  // on the predictive law's boundary, (h/h_prev)^q r_prev/r = 1
        const double margin = placement < 0.37 ? 1e-9 : 0.0;
        h = previous_h * (1.0 + nudge);
        r = std::pow(h / previous_h, q) * std::max(previous_r, o.previous_error_floor) /
            std::pow(1.0 + margin, q) * (1.0 + nudge);
        ++on_boundaries;
      } else if (placement < 0.6) {  // a uniform mesh: the same step
        h = previous_h;
      }
      const double alpha = unit(random) < 0.3 ? 0.5 * unit(random) + (unit(random) < 0.5 ? 0.8 : 0.0) : 0.0;
      const double expected = reference.after_accept(h, r, alpha);
      const double got = c.after_accept(h, r, alpha);
      ++compared;
      if (bits_of(got) != bits_of(expected) || c.convergence_limited() != reference.convergence_limited())
        ++differing;
      previous_h = h;
      previous_r = r;
      h = got;
    }
  }
  BOOST_TEST_MESSAGE(compared << " proposals compared, " << on_boundaries << " on a decision boundary");
  BOOST_TEST(compared > 100000);
  BOOST_TEST(differing == 0);
}

BOOST_AUTO_TEST_SUITE_END()
