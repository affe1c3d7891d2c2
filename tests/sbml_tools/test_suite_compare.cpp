// The suite's acceptance rule (sbml/tools/suite_compare.hpp): |C - U| <= absolute + relative |C|
// at every point, non-finite values only against the same value, the worst point named.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>

#include "suite_compare.hpp"

using namespace esdirk::sbml_suite;

namespace {

ExpectedResults table(std::vector<double> values) {
  ExpectedResults r;
  r.columns = {"S1", "S2"};
  r.times = {0, 1};
  r.values = std::move(values);
  return r;
}

constexpr double inf = std::numeric_limits<double>::infinity();

}  // namespace

BOOST_AUTO_TEST_CASE(the_rule_at_its_edges) {
  const ExpectedResults expected = table({1, 2, 10, -4});
  // absolute 0.1, relative 0.01: allowed 0.11, 0.12, 0.2, 0.14.
  BOOST_TEST(compare(expected, {1.1099, 2.1199, 9.8001, -4.1399}, 0.1, 0.01).pass);
  const Comparison c = compare(expected, {1.1099, 2.1199, 9.8001, -4.15}, 0.1, 0.01);
  BOOST_TEST(!c.pass);
  BOOST_TEST(c.failing_points == 1u);
  BOOST_TEST(c.worst.variable == "S2");
  BOOST_TEST(c.worst.time == 1.0);
  BOOST_TEST(c.worst.expected == -4.0);
  BOOST_TEST(c.worst.got == -4.15);
  BOOST_TEST(c.worst.allowed == 0.14, boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(the_worst_point_is_the_largest_ratio_not_the_largest_difference) {
  // S1 at t=0 is off by 1 of allowed 10 (ratio 0.1: passes); S2 at t=0 by 0.5 of allowed
  // 0.01 (ratio 50); S1 at t=1 by 2 of allowed 1 (ratio 2).
  const ExpectedResults expected = table({1000, 0, 100, 0});
  const Comparison c = compare(expected, {1001, 0.5, 102, 0}, 0.01, 0.0099);
  BOOST_TEST(c.failing_points == 2u);
  BOOST_TEST(c.worst.variable == "S2");
  BOOST_TEST(c.worst.time == 0.0);
  BOOST_TEST(c.worst.ratio == 50.0, boost::test_tools::tolerance(1e-12));
  const std::string text = describe(c.worst);
  BOOST_TEST(text.find("S2 at t = 0: expected 0, got 0.5") == 0u, text);
}

BOOST_AUTO_TEST_CASE(nonfinite_values_pass_only_against_the_same) {
  const double nan = std::nan("");
  BOOST_TEST(compare(table({nan, inf, -inf, 1}), {nan, inf, -inf, 1}, 0, 0).pass);
  BOOST_TEST(!compare(table({nan, inf, -inf, 1}), {0, inf, -inf, 1}, 1, 1).pass);
  BOOST_TEST(!compare(table({nan, inf, -inf, 1}), {nan, -inf, -inf, 1}, 1, 1).pass);
  BOOST_TEST(!compare(table({nan, inf, -inf, 1}), {nan, inf, -inf, nan}, 1, 1).pass);
  const Comparison c = compare(table({0, 0, 0, 1}), {0, 0, 0, inf}, 1, 1);
  BOOST_TEST(std::isinf(c.worst.ratio));
}

BOOST_AUTO_TEST_CASE(zero_tolerances_ask_for_equality) {
  BOOST_TEST(compare(table({1, 2, 3, 4}), {1, 2, 3, 4}, 0, 0).pass);
  const Comparison c = compare(table({1, 2, 3, 4}), {1, 2, 3, std::nextafter(4.0, 5.0)}, 0, 0);
  BOOST_TEST(!c.pass);
  BOOST_TEST(std::isinf(c.worst.ratio));
}

BOOST_AUTO_TEST_CASE(sizes_that_disagree_are_misuse) {
  BOOST_CHECK_THROW(compare(table({1, 2, 3, 4}), {1, 2, 3}, 0, 0), std::invalid_argument);
}
