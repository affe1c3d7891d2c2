// Memory: the counterexample to Serban & Recuero 2019's eq. 25 (erratum E7,
// doc/events-theory.md J6). Mode 0: y' = 1, y(0) = 0, an event at y = p (t1 = p), identity
// reset; mode 1: y' = y* with the memory y* = y(t1) = p. The true sensitivity is
// dy/dp = 1 + t - 2p, 2 - p at t = p + 1; the paper's rule s* = s+ gives 2 - 2p, the total
// derivative s* = s+ + y'+ tau gives 2 - p.

#include <boost/test/unit_test.hpp>

#include "event_fixtures.hpp"

namespace {

using namespace event_tests;

class LatchedRate : public esdirk::HybridProblem {
 public:
  LatchedRate() : HybridProblem(1, 0, 1, 1, true) {}
  bool has_mode(int mode) const override { return mode == 0 || mode == 1; }
  int evaluate(int mode, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector memory, esdirk::Vector f, esdirk::Vector) override {
    f[0] = mode == 0 ? 1.0 : memory[0];
    return 0;
  }
  int events(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = mode == 0 ? x[0] - p[0] : 1.0;  // no event in mode 1
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next,
                 esdirk::Vector) override {
    next = 1;
    return 0;
  }
};

Run latched_run(double p, double rtol, bool sensitivities = true) {
  LatchedRate model;
  esdirk::DenseMatrix seed(2, 1);
  seed(1, 0) = 1.0;
  return run(model, tight(rtol), 0.0, 0, {0.0}, {}, {p}, p + 1.0, sensitivities ? &seed : nullptr,
             {0.0});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(memory_tests)

BOOST_AUTO_TEST_CASE(e7_counterexample_gives_the_total_derivative) {
  for (double p : {0.5, 1.0, 1.7}) {
    const Run r = latched_run(p, 1e-10);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
    BOOST_TEST(std::abs(r.events[0].t - p) < 1e-9);
    BOOST_TEST(std::abs(r.x[0] - 2.0 * p) < 1e-9);
    BOOST_TEST(std::abs(r.events[0].tau[0] - 1.0) < 1e-9);              // t1 = p
    BOOST_TEST(std::abs(r.events[0].sx_plus(0, 0) - (1.0 - p)) < 1e-9);  // s+ = 1 - p
    BOOST_TEST(std::abs(r.Sx(0, 0) - (2.0 - p)) < 1e-8, "p = " << p << ": " << r.Sx(0, 0));
    BOOST_TEST(std::abs(r.Sx(0, 0) - (2.0 - 2.0 * p)) > 0.4);  // not the paper's rule
    // Against central differences of whole runs (the event re-located in each).
    const double dp = 1e-6;
    LatchedRate model;
    const Run plus = run(model, tight(1e-12), 0.0, 0, {0.0}, {}, {p + dp}, p + 1.0, nullptr, {0.0});
    const Run minus = run(model, tight(1e-12), 0.0, 0, {0.0}, {}, {p - dp}, p + 1.0, nullptr, {0.0});
    BOOST_TEST(relative_error(r.Sx(0, 0), (plus.x[0] - minus.x[0]) / (2.0 * dp)) < 1e-6);
  }
}

BOOST_AUTO_TEST_CASE(memory_sensitivity_is_reported) {
  LatchedRate model;
  esdirk::HybridSolver solver(model, tight(1e-10));
  const std::vector<double> x0{0.0}, p{0.8}, m0{0.0};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p, m0)));
  esdirk::DenseMatrix seed(2, 1);
  seed(1, 0) = 1.0;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(seed.cref())));
  std::vector<double> x(1);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.5, x)));
  BOOST_TEST(solver.mode() == 1);
  BOOST_TEST(std::abs(solver.memory()[0] - 0.8) < 1e-10);
  BOOST_TEST(std::abs(solver.memory_sensitivity()(0, 0) - 1.0) < 1e-9);  // d y(t1)/dp = 1
}

BOOST_AUTO_TEST_SUITE_END()
