// Location details: direction filters, terminal events, simultaneous events in one transition,
// an event function that is zero at t0 (suppressed) and restarts exactly at h = 0 (no
// re-trigger), output times on an event.

#include <boost/test/unit_test.hpp>

#include "bouncing_ball/bouncing_ball_closed_form.hpp"
#include "bouncing_ball/bouncing_ball_model.hpp"
#include "event_fixtures.hpp"

namespace {

using namespace event_tests;

// x'' = -x from x = 1, v = 0 (so h = v is zero at t0), event h = v, the mode toggles at each
// zero of v (as the EM oscillator's direction xi), identity reset: zeros of v at k pi.
class Reversals : public esdirk::HybridProblem {
 public:
  Reversals() : HybridProblem(2, 0, 0, 1) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = x[1];
    f[1] = -x[0];
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[1];
    return 0;
  }
  int transition(int mode, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next,
                 esdirk::Vector) override {
    next = 1 - mode;
    return 0;
  }
};

// Two event functions with the same root: x' = 1, h0 = x - 1, h1 = 2 - 2x.
class Twin : public esdirk::HybridProblem {
 public:
  Twin() : HybridProblem(1, 0, 0, 2) {}
  int evaluate(int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = 1.0;
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - 1.0;
    h[1] = 2.0 - 2.0 * x[0];
    return 0;
  }
  int transition(int, const esdirk::TransitionCause& cause, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next,
                 esdirk::Vector) override {
    ++transitions;
    both = cause.fired[0] == 1 && cause.fired[1] == -1;
    next = 1;
    return 0;
  }
  int transitions = 0;
  bool both = false;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(location_tests)

BOOST_AUTO_TEST_CASE(zero_at_t0_is_suppressed_and_restarts_at_zero_do_not_retrigger) {
  Reversals model;
  const Run r = run(model, tight(1e-10), 0.0, 0, {1.0, 0.0}, {}, {}, 10.0);
  BOOST_REQUIRE(esdirk::ok(r.status));
  BOOST_REQUIRE_EQUAL(r.events.size(), 3u);  // pi, 2 pi, 3 pi; not 0
  for (int k = 0; k < 3; ++k) {
    BOOST_TEST(std::abs(r.events[static_cast<std::size_t>(k)].t - (k + 1) * M_PI) < 1e-8);
    BOOST_TEST(r.events[static_cast<std::size_t>(k)].mode_after == (k + 1) % 2);
  }
}

BOOST_AUTO_TEST_CASE(direction_filters) {
  bouncing_ball::Model model;
  esdirk::HybridOptions o = tight(1e-10);
  o.directions = {esdirk::EventDirection::rising};  // the ball falls through the floor
  const Run rising = run(model, o, 0.0, 0, {5.0, -0.1}, {}, {10.0, 0.8}, 3.0);
  BOOST_TEST(esdirk::ok(rising.status));
  BOOST_TEST(rising.events.empty());
  BOOST_TEST(rising.x[0] < 0.0);
  o.directions = {esdirk::EventDirection::falling};
  const Run falling = run(model, o, 0.0, 0, {5.0, -0.1}, {}, {10.0, 0.8}, 3.0);
  BOOST_TEST(falling.events.size() == 2u);
}

BOOST_AUTO_TEST_CASE(terminal_events_return_the_left_limit_and_continue) {
  bouncing_ball::Model model;
  esdirk::HybridOptions o = tight(1e-10);
  o.terminal = {true};
  esdirk::HybridSolver solver(model, o);
  const std::vector<double> x0{5.0, -0.1}, p{10.0, 0.8};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  std::vector<double> x(2);
  const double S = std::sqrt(0.01 + 100.0), tau = (-0.1 + S) / 10.0;
  esdirk::Outcome out = solver.integrate_to(3.0, x);
  BOOST_TEST((out.reason == esdirk::StopReason::listener_stop));
  BOOST_TEST(std::abs(out.t - tau) < 1e-12);
  BOOST_TEST(std::abs(x[1] + S) < 1e-9);  // left limit: falling at -S
  int stops = 1;
  while ((out = solver.integrate_to(3.0, x)).reason == esdirk::StopReason::listener_stop) ++stops;
  BOOST_TEST(esdirk::ok(out));
  BOOST_TEST(stops == 2);
  const auto ex = bouncing_ball::exact(5.0, -0.1, 10.0, 0.8, 3.0);
  BOOST_TEST(std::abs(x[0] - ex.z) < 1e-9);
}

BOOST_AUTO_TEST_CASE(simultaneous_events_make_one_transition) {
  Twin model;
  const Run r = run(model, tight(1e-10), 0.0, 0, {0.0}, {}, {}, 2.0);
  BOOST_REQUIRE(esdirk::ok(r.status));
  BOOST_TEST(model.transitions == 1);
  BOOST_TEST(model.both);
  BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
  BOOST_TEST(r.events[0].fired[0] == 1);
  BOOST_TEST(r.events[0].fired[1] == -1);
}

BOOST_AUTO_TEST_CASE(output_time_on_a_state_event) {
  // tout exactly at the located impact: the left limit is returned, the right limit is the
  // solver's state.
  bouncing_ball::Model model;
  esdirk::HybridSolver probe(model, tight(1e-10));
  const std::vector<double> x0{5.0, -0.1}, p{10.0, 0.8};
  BOOST_REQUIRE(esdirk::ok(probe.initialize(0.0, 0, x0, {}, p)));
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(probe.integrate_to(1.5, x)));
  const double t_star = probe.event(0).t;
  esdirk::HybridSolver solver(model, tight(1e-10));
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  const esdirk::Outcome out = solver.integrate_to(t_star, x);
  BOOST_REQUIRE(esdirk::ok(out));
  BOOST_TEST(out.t == t_star);
  BOOST_TEST(x[1] < 0.0);               // left limit (falling)
  BOOST_TEST(solver.x()[1] > 0.0);      // right limit (after the impact)
  BOOST_TEST(solver.event_count() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
