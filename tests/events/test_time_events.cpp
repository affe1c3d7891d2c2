// Time events (known times: a dose) through stop times, with the reset's parameter Jacobian and
// no event-time sensitivity: x' = -k x, x(0) = x0, at t = 1 the dose x+ = x- + d.

#include <boost/test/unit_test.hpp>

#include "bouncing_ball/dual.hpp"
#include "event_fixtures.hpp"

namespace {

using namespace event_tests;

class Dosing : public esdirk::HybridProblem {
 public:
  Dosing() : HybridProblem(1, 0, 2, 0) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = -p[0] * x[0];
    return 0;
  }
  int transition(int, const esdirk::TransitionCause& cause, double, esdirk::ConstVector x,
                 esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector, int&,
                 esdirk::Vector x_plus) override {
    ++calls;
    last_index = cause.time_event;
    x_plus[0] = x[0] + p[1];
    return 0;
  }
  int calls = 0, last_index = -2;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(time_event_tests)

BOOST_AUTO_TEST_CASE(dose_at_a_known_time) {
  using D3 = dual::Dual<3>;
  const double x0 = 2.0, k = 0.7, d = 0.5, T = 3.0;
  const D3 X0 = D3::variable(x0, 0), K = D3::variable(k, 1), Dd = D3::variable(d, 2);
  const D3 exact = (X0 * dual::exp(-K * 1.0) + Dd) * dual::exp(-K * (T - 1.0));
  Dosing model;
  esdirk::HybridOptions o = tight(1e-10);
  o.time_events = {1.0};
  const esdirk::DenseMatrix seed = identity(3);
  const Run r = run(model, o, 0.0, 0, {x0}, {}, {k, d}, T, &seed);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
  BOOST_TEST(r.events[0].t == 1.0);  // exactly the stop time
  BOOST_TEST(r.events[0].time_event == 0);
  BOOST_TEST(r.events[0].tau[1] == 0.0);  // no event-time sensitivity
  BOOST_TEST(relative_error(r.x[0], exact.v) < 1e-8);
  for (int j = 0; j < 3; ++j)
    BOOST_TEST(relative_error(r.Sx(0, j), exact.d[static_cast<std::size_t>(j)]) < 1e-7);  // the integration error
  BOOST_TEST(model.calls > 0);
}

BOOST_AUTO_TEST_CASE(output_at_the_event_time_is_the_left_limit) {
  Dosing model;
  esdirk::HybridOptions o = tight(1e-10);
  o.time_events = {1.0};
  esdirk::HybridSolver solver(model, o);
  const std::vector<double> x0{2.0}, p{0.7, 0.5};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  std::vector<double> x(1);
  const esdirk::Outcome out = solver.integrate_to(1.0, x);
  BOOST_REQUIRE(esdirk::ok(out));
  BOOST_TEST(out.t == 1.0);
  BOOST_TEST(std::abs(x[0] - 2.0 * std::exp(-0.7)) < 1e-7);                   // left limit
  BOOST_TEST(std::abs(solver.x()[0] - (2.0 * std::exp(-0.7) + 0.5)) < 1e-7);  // right limit
  BOOST_TEST(solver.event_count() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
