// Bad input to the hybrid adjoint: a gradient before a recorded run, after a failed one, an
// objective that fails or returns NaN, sizes that do not fit. Each a clear status or
// exception, and nothing lost: the recording still gives the right gradient afterwards.

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "bouncing_ball/bouncing_ball_model.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "event_fixtures.hpp"

namespace {

using namespace event_tests;

const std::vector<double> ball_x0{bouncing_ball::z0, bouncing_ball::v0};
const std::vector<double> ball_p{bouncing_ball::gravity, bouncing_ball::restitution};

esdirk::HybridObjective final_height() {
  esdirk::HybridObjective objective;
  esdirk::DenseMatrix w(2, 1);
  w(0, 0) = 1.0;
  objective.set_terminal_weights(w.cref());
  return objective;
}

// The ball whose model fails (fatally) after t = 1.5, past the impact.
class FailingBall : public bouncing_ball::Model {
 public:
  int evaluate(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::ConstVector m, esdirk::Vector f, esdirk::Vector g) override {
    if (t > 1.5) return -1;
    return bouncing_ball::Model::evaluate(mode, t, x, z, p, m, f, g);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(hybrid_adjoint_bad_input)

BOOST_AUTO_TEST_CASE(gradient_before_a_recorded_run_throws) {
  bouncing_ball::Model model;
  esdirk::HybridSolver solver(model, tight(1e-8));
  esdirk::HybridAdjoint adjoint(solver);
  esdirk::DenseMatrix dx0(2, 1), dp(2, 1);
  BOOST_CHECK_THROW(adjoint.gradient(final_height(), dx0.ref(), dp.ref()), std::logic_error);
  // Initialized, but nothing integrated through the adjoint.
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, ball_x0, {}, ball_p)));
  BOOST_CHECK_THROW(adjoint.gradient(final_height(), dx0.ref(), dp.ref()), std::logic_error);
  // An adjoint constructed after initialize() did not see the run start.
  esdirk::HybridAdjoint late(solver);
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(late.integrate_to(1.0, x)));
  BOOST_CHECK_THROW(late.gradient(final_height(), dx0.ref(), dp.ref()), std::logic_error);
}

BOOST_AUTO_TEST_CASE(gradient_after_a_failed_run_throws) {
  FailingBall model;
  esdirk::HybridOptions options = tight(1e-8);
  options.integrator.max_step = 0.1;  // free flight is exact: otherwise one step passes 1.5
  esdirk::HybridSolver solver(model, options);
  esdirk::HybridAdjoint adjoint(solver);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, ball_x0, {}, ball_p)));
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(1.0, x)));
  const esdirk::Outcome o = adjoint.integrate_to(bouncing_ball::t_end, x);
  BOOST_TEST((o.status == esdirk::Status::callback_fatal));
  esdirk::DenseMatrix dx0(2, 1), dp(2, 1);
  BOOST_CHECK_THROW(adjoint.gradient(final_height(), dx0.ref(), dp.ref()), std::logic_error);
  // A new run clears the failure.
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, ball_x0, {}, ball_p)));
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(1.0, x)));
  BOOST_TEST(esdirk::ok(adjoint.gradient(final_height(), dx0.ref(), dp.ref())));
}

BOOST_AUTO_TEST_CASE(objective_failures_and_nan_are_reported_and_nothing_is_lost) {
  bouncing_ball::Model model;
  esdirk::HybridSolver solver(model, tight(1e-8));
  esdirk::HybridAdjoint adjoint(solver);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, ball_x0, {}, ball_p)));
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(0.5, x)));
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(bouncing_ball::t_end, x)));
  esdirk::DenseMatrix good_x0(2, 1), good_p(2, 1), dx0(2, 1), dp(2, 1);
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(final_height(), good_x0.ref(), good_p.ref())));

  esdirk::HybridObjective nan;
  nan.at_output = [](int k, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                     esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef) {
    dx(0, 0) = k == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0;
    return 0;
  };
  BOOST_TEST((adjoint.gradient(nan, dx0.ref(), dp.ref()) == esdirk::Status::callback_failures));
  BOOST_TEST(adjoint.message().find("not finite") != std::string::npos, adjoint.message());
  BOOST_TEST(adjoint.message().find("output 0") != std::string::npos, adjoint.message());

  esdirk::HybridObjective failing = final_height();
  failing.at_output = [](int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef, esdirk::MatrixRef, esdirk::MatrixRef) { return 3; };
  BOOST_TEST((adjoint.gradient(failing, dx0.ref(), dp.ref()) == esdirk::Status::callback_failures));
  failing.at_output = [](int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef, esdirk::MatrixRef, esdirk::MatrixRef) { return -1; };
  BOOST_TEST((adjoint.gradient(failing, dx0.ref(), dp.ref()) == esdirk::Status::callback_fatal));
  BOOST_TEST(adjoint.message().find("fatal") != std::string::npos, adjoint.message());

  // The recording is intact: the same gradient as before, bit for bit.
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(final_height(), dx0.ref(), dp.ref())));
  for (int i = 0; i < 2; ++i) {
    BOOST_TEST(dx0(i, 0) == good_x0(i, 0));
    BOOST_TEST(dp(i, 0) == good_p(i, 0));
  }
}

BOOST_AUTO_TEST_CASE(mismatched_sizes_and_empty_objectives_throw) {
  bouncing_ball::Model model;
  esdirk::HybridSolver solver(model, tight(1e-8));
  esdirk::HybridAdjoint adjoint(solver);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, ball_x0, {}, ball_p)));
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(bouncing_ball::t_end, x)));
  esdirk::DenseMatrix dx0(2, 1), dp(2, 1), wrong_x0(3, 1), wrong_p(1, 1), two_rows(2, 2);
  BOOST_CHECK_THROW(adjoint.gradient(final_height(), wrong_x0.ref(), dp.ref()), std::invalid_argument);
  BOOST_CHECK_THROW(adjoint.gradient(final_height(), dx0.ref(), wrong_p.ref()), std::invalid_argument);
  BOOST_CHECK_THROW(adjoint.gradient(final_height(), two_rows.ref(), dp.ref()), std::invalid_argument);
  esdirk::HybridObjective empty;
  BOOST_CHECK_THROW(adjoint.gradient(empty, dx0.ref(), dp.ref()), std::invalid_argument);
  esdirk::HybridObjective weights;  // weights for 3 states, the problem has 2
  esdirk::DenseMatrix w(3, 1);
  weights.set_terminal_weights(w.cref());
  BOOST_CHECK_THROW(adjoint.gradient(weights, dx0.ref(), dp.ref()), std::invalid_argument);
  // dp may be left empty.
  BOOST_TEST(esdirk::ok(adjoint.gradient(final_height(), dx0.ref(), {})));
}

BOOST_AUTO_TEST_SUITE_END()
