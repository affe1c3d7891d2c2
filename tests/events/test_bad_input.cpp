// Bad input and numerical trouble: each gives a clear status (with the last good state kept) or
// an exception. NaN from an event function or a reset, a reset that leaves g unsolvable,
// grazing, Zeno behaviour, sizes that disagree, unknown modes, events without event functions.

#include <boost/test/unit_test.hpp>
#include <limits>
#include <stdexcept>

#include "bouncing_ball/bouncing_ball_model.hpp"
#include "event_fixtures.hpp"
#include "tank_switch/tank_switch_model.hpp"

namespace {

using namespace event_tests;
const double nan = std::numeric_limits<double>::quiet_NaN();

// x' = 1 from x(0) = 0; one event at x = 1 (t = 1). The knobs break one piece at a time.
class Ramp : public esdirk::HybridProblem {
 public:
  explicit Ramp(int events = 1, bool memory = false) : HybridProblem(1, 0, 0, events, memory) {}
  bool has_mode(int mode) const override { return mode == 0 || mode == 1; }
  int evaluate(int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = 1.0;
    return 0;
  }
  int events(int, double t, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    for (double& v : h) v = (nan_after >= 0 && t > nan_after) ? bad_value : x[0] - 1.0;
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next,
                 esdirk::Vector x_plus) override {
    next = next_mode;
    if (nan_reset) x_plus[0] = nan;
    return 0;
  }
  double nan_after = -1.0;
  double bad_value = nan;  // what the event function returns after nan_after
  bool nan_reset = false;
  int next_mode = 1;
};

// x = (t - 1)^3 touches h = x = 0 with dh/dt = 0 at t = 1.
class Cubic : public esdirk::HybridProblem {
 public:
  Cubic() : HybridProblem(1, 0, 1, 1) {}
  int evaluate(int, double t, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = 3.0 * p[0] * (t - 1.0) * (t - 1.0);
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0];
    return 0;
  }
};

// A DAE whose mode 1 has no consistent z: g = z^2 + 1.
class Unsolvable : public esdirk::HybridProblem {
 public:
  Unsolvable() : HybridProblem(1, 1, 0, 1) {}
  int evaluate(int mode, double, esdirk::ConstVector x, esdirk::ConstVector z,
               esdirk::ConstVector, esdirk::ConstVector, esdirk::Vector f,
               esdirk::Vector g) override {
    f[0] = 1.0;
    g[0] = mode == 0 ? z[0] - x[0] : z[0] * z[0] + 1.0;
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - 1.0;
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next,
                 esdirk::Vector) override {
    next = 1;
    return 0;
  }
};

esdirk::Outcome ramp_to(Ramp& model, double tout, esdirk::HybridSolver*& keep,
                        esdirk::HybridOptions o = tight(1e-8)) {
  static std::unique_ptr<esdirk::HybridSolver> solver;
  solver = std::make_unique<esdirk::HybridSolver>(model, o);
  keep = solver.get();
  const std::vector<double> x0{0.0};
  BOOST_REQUIRE(esdirk::ok(solver->initialize(0.0, 0, x0, {}, {})));
  std::vector<double> x(1);
  return solver->integrate_to(tout, x);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bad_input_tests)

BOOST_AUTO_TEST_CASE(nan_from_an_event_function) {
  Ramp model;
  model.nan_after = 0.5;
  esdirk::HybridSolver* s = nullptr;
  const esdirk::Outcome out = ramp_to(model, 2.0, s);
  BOOST_TEST((out.status == esdirk::Status::callback_failures));
  BOOST_TEST(s->t() <= 0.5);  // the last point where h was good
  BOOST_TEST(std::abs(s->x()[0] - s->t()) < 1e-9);
  // The message names the component, its value and the time.
  BOOST_TEST(s->message().find("event function 0 returned nan") != std::string::npos, s->message());
  BOOST_TEST(s->message().find(" at t = ") != std::string::npos, s->message());
  std::vector<double> x(1);
  BOOST_CHECK_THROW(s->integrate_to(3.0, x), std::logic_error);  // initialize again first
}

BOOST_AUTO_TEST_CASE(infinity_from_an_event_function) {
  for (const double value : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    Ramp model;
    model.nan_after = 0.5;
    model.bad_value = value;
    esdirk::HybridSolver* s = nullptr;
    const esdirk::Outcome out = ramp_to(model, 2.0, s);
    BOOST_TEST((out.status == esdirk::Status::callback_failures));
    BOOST_TEST(s->t() <= 0.5);  // the last point where h was good
    BOOST_TEST(std::abs(s->x()[0] - s->t()) < 1e-9);
    BOOST_TEST(s->message().find(value > 0 ? "event function 0 returned inf" : "event function 0 returned -inf") !=
                   std::string::npos,
               s->message());
    BOOST_TEST(s->message().find(" at t = ") != std::string::npos, s->message());
  }
}

BOOST_AUTO_TEST_CASE(nan_from_a_reset) {
  Ramp model;
  model.nan_reset = true;
  esdirk::HybridSolver* s = nullptr;
  const esdirk::Outcome out = ramp_to(model, 2.0, s);
  BOOST_TEST((out.status == esdirk::Status::callback_failures));
  BOOST_TEST(std::abs(s->t() - 1.0) < 1e-9);  // the left limit at the event is kept
  BOOST_TEST(std::abs(s->x()[0] - 1.0) < 1e-9);
  BOOST_TEST(s->mode() == 0);
  // The message names the event and the time.
  BOOST_TEST(s->message().find("the transition (reset) of the event (event function 0)") != std::string::npos,
             s->message());
  BOOST_TEST(s->message().find("at t = 1") != std::string::npos, s->message());
}

BOOST_AUTO_TEST_CASE(nan_from_the_reset_of_a_cascaded_event) {
  // x' = 1: h0 = x - 1 sets x := 5, which makes h1 = x - 2 true at t = 1 (a cascade, D5); h1's
  // reset returns NaN. The status names h1's event and t = 1, and the state kept is the one
  // h0's transition left (the cascaded event's left limit).
  class Kick : public esdirk::HybridProblem {
   public:
    Kick() : HybridProblem(1, 0, 0, 2) {}
    int evaluate(int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
      f[0] = 1.0;
      return 0;
    }
    int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector, esdirk::Vector h) override {
      h[0] = x[0] - 1.0;
      h[1] = x[0] - 2.0;
      return 0;
    }
    int transition(int, const esdirk::TransitionCause& cause, double, esdirk::ConstVector,
                   esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int&,
                   esdirk::Vector x_plus) override {
      x_plus[0] = cause.fired_component(0) ? 5.0 : std::numeric_limits<double>::quiet_NaN();
      return 0;
    }
  } model;
  esdirk::HybridOptions o = tight(1e-8);
  o.directions = {esdirk::EventDirection::rising, esdirk::EventDirection::rising};
  esdirk::HybridSolver solver(model, o);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, std::vector<double>{0.0}, {}, {})));
  std::vector<double> x(1);
  const esdirk::Outcome out = solver.integrate_to(2.0, x);
  BOOST_TEST((out.status == esdirk::Status::callback_failures), solver.message());
  BOOST_TEST(std::abs(solver.t() - 1.0) < 1e-9);
  BOOST_TEST(x[0] == 5.0);
  BOOST_TEST(solver.x()[0] == 5.0);
  BOOST_TEST(solver.message().find("the transition (reset) of the event (event function 1)") != std::string::npos,
             solver.message());
  BOOST_TEST(solver.message().find("at t = 1") != std::string::npos, solver.message());
}

BOOST_AUTO_TEST_CASE(a_transition_to_an_unknown_mode) {
  Ramp model;
  model.next_mode = 7;
  esdirk::HybridSolver* s = nullptr;
  const esdirk::Outcome out = ramp_to(model, 2.0, s);
  BOOST_TEST((out.status == esdirk::Status::unknown_mode));
  BOOST_TEST(s->mode() == 0);
  BOOST_TEST(std::abs(s->t() - 1.0) < 1e-9);
  BOOST_TEST(esdirk::status_name(out.status) == "unknown_mode");
  Ramp fresh;
  esdirk::HybridSolver solver(fresh, tight(1e-8));
  BOOST_CHECK_THROW(solver.initialize(0.0, 3, std::vector<double>{0.0}, {}, {}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_reset_that_leaves_g_unsolvable) {
  Unsolvable model;
  esdirk::HybridSolver solver(model, tight(1e-8));
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, std::vector<double>{0.0}, std::vector<double>{0.0}, {})));
  std::vector<double> x(1), z(1);
  const esdirk::Outcome out = solver.integrate_to(2.0, x, z);
  BOOST_TEST(!esdirk::ok(out));
  BOOST_TEST((out.status == esdirk::Status::initialization_failed ||
              out.status == esdirk::Status::singular_algebraic_jacobian));
  BOOST_TEST(std::abs(solver.t() - 1.0) < 1e-8);  // left limit kept
  BOOST_TEST(std::abs(z[0] - 1.0) < 1e-8);
  BOOST_TEST(solver.mode() == 0);
  BOOST_TEST(solver.message().find("re-initialization") != std::string::npos, solver.message());
}

BOOST_AUTO_TEST_CASE(grazing_stops_with_sensitivities_and_is_counted_without) {
  Cubic model;
  esdirk::HybridOptions o = tight(1e-8);
  o.grazing_tolerance = 1e-6;
  const esdirk::DenseMatrix seed = identity(2);
  const Run with = run(model, o, 0.0, 0, {-1.0}, {}, {1.0}, 2.0, &seed);
  BOOST_TEST((with.status == esdirk::Status::event_grazing), with.message);
  BOOST_TEST(with.message.find("grazing") != std::string::npos);
  const Run without = run(model, o, 0.0, 0, {-1.0}, {}, {1.0}, 2.0);
  BOOST_TEST(esdirk::ok(without.status));
  BOOST_TEST(without.stats.event_grazing_warnings >= 1);
}

BOOST_AUTO_TEST_CASE(zeno_ball_stops_at_the_accumulation_time) {
  // gamma < 1 and nothing that stops the ball: infinitely many impacts before
  // t_inf = tau + 2 gamma S / (g (1 - gamma)). The run ends with zeno_accumulation within 1e-6
  // of t_inf (the intervals shrink by gamma), with default options and with long forced steps.
  bouncing_ball::Model model;
  for (const bool long_steps : {false, true}) {
    for (double gamma : {0.5, 0.8, 0.9}) {
      esdirk::HybridOptions o = tight(1e-8);
      if (long_steps) o.integrator.initial_step = o.integrator.max_step = 50.0;
      esdirk::HybridSolver solver(model, o);
      BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, std::vector<double>{5.0, -0.1}, {},
                                                 std::vector<double>{10.0, gamma})));
      std::vector<double> x(2);
      const esdirk::Outcome out = solver.integrate_to(20.0, x);
      BOOST_TEST((out.status == esdirk::Status::zeno_accumulation), solver.message());
      const double S = std::sqrt(0.01 + 100.0), tau = (-0.1 + S) / 10.0;
      const double t_inf = tau + 2.0 * gamma * S / (10.0 * (1.0 - gamma));
      BOOST_TEST(solver.event_count() > 20);
      BOOST_TEST(solver.t() <= t_inf);
      BOOST_TEST(std::abs(solver.t() - t_inf) < 1e-6, "gamma " << gamma << ": t = " << solver.t()
                                                                  << ", t_inf = " << t_inf);
      BOOST_TEST(solver.message().find("accumulate at t = ") != std::string::npos, solver.message());
    }
  }
}

BOOST_AUTO_TEST_CASE(sizes_that_disagree_throw) {
  // An event function of the wrong size (a negative count), direction filters and terminal
  // flags of the wrong size, memory of the wrong size.
  BOOST_CHECK_THROW(Ramp(-1), std::invalid_argument);
  Ramp two(2);
  esdirk::HybridOptions o;
  o.directions = {esdirk::EventDirection::rising};
  BOOST_CHECK_THROW(esdirk::HybridSolver(two, o), std::invalid_argument);
  o.directions.clear();
  o.terminal = {true, false, true};
  BOOST_CHECK_THROW(esdirk::HybridSolver(two, o), std::invalid_argument);
  Ramp with_memory(1, true);
  esdirk::HybridSolver solver(with_memory);
  const std::vector<double> x0{0.0};
  BOOST_CHECK_THROW(solver.initialize(0.0, 0, x0, {}, {}), std::invalid_argument);
  BOOST_CHECK_THROW(solver.initialize(0.0, 0, x0, {}, {}, std::vector<double>{0.0, 1.0}), std::invalid_argument);
  BOOST_CHECK(esdirk::ok(solver.initialize(0.0, 0, x0, {}, {}, std::vector<double>{0.0})));
  Ramp without_memory;
  esdirk::HybridSolver plain(without_memory);
  BOOST_CHECK_THROW(plain.initialize(0.0, 0, x0, {}, {}, std::vector<double>{0.0}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(events_requested_without_event_functions) {
  Ramp none(0);
  esdirk::HybridOptions o;
  o.directions = {esdirk::EventDirection::both};
  BOOST_CHECK_THROW(esdirk::HybridSolver(none, o), std::invalid_argument);
  o.directions.clear();
  o.terminal = {true};
  BOOST_CHECK_THROW(esdirk::HybridSolver(none, o), std::invalid_argument);
  // Without filters a problem without event functions integrates (time events only).
  esdirk::HybridSolver solver(none, o = {});
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, std::vector<double>{0.0}, {}, {})));
  std::vector<double> x(1);
  BOOST_TEST(esdirk::ok(solver.integrate_to(2.0, x)));
  BOOST_TEST(solver.event_count() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
