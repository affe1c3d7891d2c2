// Initial events (HybridOptions::initial_events): a trigger already true at t0 fires there, as
// if it had been false just before t0. x' = -k x with the rising event h = x - 1/2 and the
// transition x := 2 x, k := 2 k: from x0 = 1 it fires at t = 0, so
//     x(T) = 2 x0 exp(-2 k0 T),   dx/dx0 = 2 exp(-2 k0 T),   dx/dk0 = -2 T x(T),
// while without the flag (the default) nothing fires (x falls through 1/2, which is filtered).

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "adjoint_fixtures.hpp"
#include "event_fixtures.hpp"

namespace {

using namespace event_tests;

class Kick : public esdirk::HybridProblem {
 public:
  explicit Kick(int events = 1) : HybridProblem(1, 0, 1, events) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = -p[0] * x[0];
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    for (double& v : h) v = not_finite ? std::nan("") : x[0] - 0.5;
    return 0;
  }
  int transition(int mode, const esdirk::TransitionCause&, double, esdirk::ConstVector x,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next_mode,
                 esdirk::Vector x_plus) override {
    next_mode = mode + 1;
    x_plus[0] = 2.0 * x[0];
    return 0;
  }
  bool has_parameter_reset() const override { return true; }
  int reset_parameters(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                       esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector,
                       esdirk::Vector p_plus) override {
    p_plus[0] = 2.0 * p[0];
    return 0;
  }
  bool not_finite = false;
};

constexpr double k0 = 0.6, T = 1.5;

esdirk::HybridOptions rising(double rtol, bool initial) {
  esdirk::HybridOptions o = tight(rtol);
  o.directions = {esdirk::EventDirection::rising};
  if (initial) o.initial_events = {true};
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(initial_event_tests)

BOOST_AUTO_TEST_CASE(by_default_a_trigger_true_at_t0_does_not_fire) {
  Kick model;
  const Run r = run(model, rising(1e-10, false), 0.0, 0, {1.0}, {}, {k0}, T);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events.empty());
  BOOST_TEST(relative_error(r.x[0], std::exp(-k0 * T)) < 1e-8);
}

BOOST_AUTO_TEST_CASE(flagged_trigger_true_at_t0_fires_there_with_its_jumps) {
  Kick model;
  const esdirk::DenseMatrix seed = identity(2);
  const double x0 = 1.0;
  const Run r = run(model, rising(1e-10, true), 0.0, 0, {x0}, {}, {k0}, T, &seed);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
  const esdirk::EventRecord& e = r.events[0];
  BOOST_TEST(e.initial);
  BOOST_TEST(e.t == 0.0);
  BOOST_TEST(e.fired[0] == 1);  // h(t0) > 0: a rising crossing from "false just before t0"
  BOOST_TEST(e.mode_after == 1);
  BOOST_TEST(e.x_minus[0] == x0);
  BOOST_TEST(e.x_plus[0] == 2.0 * x0);
  BOOST_TEST(e.p_plus[0] == 2.0 * k0);
  BOOST_TEST(e.tau[0] == 0.0);  // t0 does not move with the parameters
  BOOST_TEST(e.tau[1] == 0.0);
  const double exact = 2.0 * x0 * std::exp(-2.0 * k0 * T);
  BOOST_TEST(relative_error(r.x[0], exact) < 1e-8);
  BOOST_TEST(relative_error(r.Sx(0, 0), 2.0 * std::exp(-2.0 * k0 * T)) < 1e-7);
  BOOST_TEST(relative_error(r.Sx(0, 1), -2.0 * T * exact) < 1e-7);
}

BOOST_AUTO_TEST_CASE(flagged_trigger_false_at_t0_or_filtered_does_not_fire) {
  Kick model;
  // h(t0) < 0 with a rising filter: the trigger is false at t0.
  const Run below = run(model, rising(1e-10, true), 0.0, 0, {0.25}, {}, {k0}, T);
  BOOST_REQUIRE(esdirk::ok(below.status));
  BOOST_TEST(below.events.empty());
  // h(t0) > 0 with a falling filter: a rising "crossing" is filtered out; later x falls through
  // 1/2 at t = ln 2 / k0 and fires there, as usual.
  esdirk::HybridOptions o = rising(1e-10, true);
  o.directions = {esdirk::EventDirection::falling};
  const Run filtered = run(model, o, 0.0, 0, {1.0}, {}, {k0}, T);
  BOOST_REQUIRE(esdirk::ok(filtered.status));
  BOOST_REQUIRE_EQUAL(filtered.events.size(), 1u);
  BOOST_TEST(!filtered.events[0].initial);
  BOOST_TEST(relative_error(filtered.events[0].t, std::log(2.0) / k0) < 1e-9);
  // h(t0) = 0 exactly: not true, never fires at t0.
  const Run zero = run(model, rising(1e-10, true), 0.0, 0, {0.5}, {}, {k0}, T);
  BOOST_REQUIRE(esdirk::ok(zero.status));
  BOOST_TEST(zero.events.empty());
}

BOOST_AUTO_TEST_CASE(output_at_t0_is_the_left_limit_of_the_initial_event) {
  Kick model;
  esdirk::HybridSolver solver(model, rising(1e-10, true));
  const std::vector<double> x0{1.0}, p{k0};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  BOOST_TEST(solver.initial_event_pending());
  BOOST_TEST(solver.x()[0] == 1.0);  // not applied yet
  std::vector<double> x(1);
  const esdirk::Outcome out = solver.integrate_to(0.0, x);
  BOOST_REQUIRE(esdirk::ok(out));
  BOOST_TEST(x[0] == 1.0);              // the left limit, as at any event on an output time
  BOOST_TEST(solver.x()[0] == 2.0);     // the right limit
  BOOST_TEST(solver.mode() == 1);
  BOOST_TEST(solver.parameters()[0] == 2.0 * k0);
  BOOST_TEST(!solver.initial_event_pending());
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(T, x)));
  BOOST_TEST(relative_error(x[0], 2.0 * std::exp(-2.0 * k0 * T)) < 1e-8);
  BOOST_TEST(solver.event_count() == 1);
}

BOOST_AUTO_TEST_CASE(adjoint_equals_forward_through_an_initial_event) {
  Kick model;
  const AdjointComparison r = compare_adjoint(model, rising(1e-9, true), 0.0, 0, {1.0}, {}, {k0}, {0.4, T},
                                              {pick(1, 0), pick(1, 0)});
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events == 1);
  BOOST_TEST(r.report.jumps == 1);
  BOOST_TEST(r.worst_relative_error() < 1e-12, "worst " << r.worst_relative_error());
  // d/dx0 [x(0.4) + x(T)] = 2 (exp(-0.8 k0) + exp(-2 k0 T)).
  const double exact = 2.0 * (std::exp(-0.8 * k0) + std::exp(-2.0 * k0 * T));
  BOOST_TEST(relative_error(r.adjoint(0, 0), exact) < 1e-7);
}

BOOST_AUTO_TEST_CASE(initial_event_option_without_events_or_of_the_wrong_size_is_refused) {
  Kick without(0);
  esdirk::HybridOptions o;
  o.initial_events = {true};
  BOOST_CHECK_EXCEPTION(esdirk::HybridSolver(without, o), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find("initial_events is set (1 entries), but the problem has no event functions") !=
           std::string::npos;
  });
  Kick with;
  o.initial_events = {true, false};
  BOOST_CHECK_EXCEPTION(esdirk::HybridSolver(with, o), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find("initial_events has 2 entries") != std::string::npos;
  });
}

BOOST_AUTO_TEST_CASE(event_functions_not_finite_at_t0_are_a_status_naming_t0) {
  Kick model;
  model.not_finite = true;
  esdirk::HybridSolver solver(model, rising(1e-9, true));
  const std::vector<double> x0{1.0}, p{k0};
  const esdirk::Status status = solver.initialize(0.0, 0, x0, {}, p);
  BOOST_TEST((status == esdirk::Status::callback_failures));
  BOOST_TEST(solver.message().find("event function") != std::string::npos, solver.message());
  BOOST_TEST(solver.message().find("t = 0") != std::string::npos, solver.message());
}

BOOST_AUTO_TEST_SUITE_END()
