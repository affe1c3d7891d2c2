// The step-size controller's laws and safeguards, each against its formula.

#include <boost/test/unit_test.hpp>
#include <cmath>

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

BOOST_AUTO_TEST_SUITE_END()
