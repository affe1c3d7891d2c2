// Steps over states at rest (regression): with x' = 0 the error estimate is zero and every step
// is five times longer than the one before, restarts included, so after a few dozen events of
// a timer the step that holds the next crossing is 1e18 long. The root finder stopped at a few
// ulp of the bracket's far end (1e3 for a bracket ending at 1e18) and put the crossing at
// t ~ 1e3: every event after t ~ 0.29 was lost (SBML Test Suite 00953).

#include <boost/test/unit_test.hpp>

#include <cmath>

#include "event_fixtures.hpp"

namespace {

using esdirk::ConstVector;
using esdirk::Vector;

// A timer: x' = 0, h = t - x - period (rising), the transition sets x+ = t. Events at
// t = k period.
class RestartingTimer : public esdirk::HybridProblem {
 public:
  explicit RestartingTimer(double period) : HybridProblem(1, 0, 0, 1), period_(period) {}
  int evaluate(int, double, ConstVector, ConstVector, ConstVector, ConstVector, Vector f, Vector) override {
    f[0] = 0.0;
    return 0;
  }
  int events(int, double t, ConstVector x, ConstVector, ConstVector, ConstVector, Vector h) override {
    h[0] = t - x[0] - period_;
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double t, ConstVector, ConstVector, ConstVector,
                 ConstVector, int&, Vector x_plus) override {
    x_plus[0] = t;
    return 0;
  }

 private:
  double period_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(long_steps_at_rest)

BOOST_AUTO_TEST_CASE(a_crossing_early_in_an_astronomically_long_step_is_located_at_its_time) {
  RestartingTimer timer(0.01);
  esdirk::HybridOptions o = event_tests::tight(1e-8);
  o.directions = {esdirk::EventDirection::rising};
  const event_tests::Run r = event_tests::run(timer, o, 0.0, 0, {0.0}, {}, {}, 0.995);
  BOOST_TEST((r.status == esdirk::Status::success), r.message);
  BOOST_REQUIRE_EQUAL(r.events.size(), 99u);
  double longest = 0.0;
  for (const auto& [begin, end] : r.step_spans) longest = std::max(longest, end - begin);
  BOOST_TEST(longest > 1e15);  // the steps this test is about
  for (std::size_t k = 0; k < r.events.size(); ++k) {
    BOOST_TEST_CONTEXT("event " << k) {
      BOOST_TEST(std::abs(r.events[k].t - 0.01 * static_cast<double>(k + 1)) <= 1e-13);
      // Every location within the cap, whatever the length of the step.
      BOOST_TEST(r.events[k].iterations <= o.max_location_iterations);
    }
  }
  BOOST_TEST(std::abs(r.x[0] - r.events.back().t) == 0.0);
}

BOOST_AUTO_TEST_SUITE_END()
