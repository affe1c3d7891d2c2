// A templated model that is bad for dual numbers: a non-finite derivative, a non-finite value,
// an exception. The status names the model function, the equation and the argument; the run
// keeps its last good state.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/ad/model_problem.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/adjoint.hpp"

namespace {

// x0' = -x0 + sqrt(x1 - x1) after t = 1: the value is 0, its derivative 0.5/sqrt(0) (1 - 1) is
// NaN along every direction (a square root of a quantity that is zero); the first column
// found, x[0], is named.
struct SqrtOfZero {
  template <class T>
  int f(double t, std::span<const T> x, std::span<const T>, std::span<const T>, std::span<T> f) const {
    using std::sqrt;
    f[0] = -x[0];
    f[1] = -2.0 * x[1];
    if (t > 1.0) f[0] += sqrt(x[1] - x[1]);
    return 0;
  }
};

// Throws for dual numbers only (as a model that converts to double would have to).
struct ThrowsForDuals {
  template <class T>
  int f(double, std::span<const T> x, std::span<const T>, std::span<const T>, std::span<T> f) const {
    if constexpr (!std::is_same_v<T, double>) throw std::domain_error("no dual numbers here");
    f[0] = -x[0];
    return 0;
  }
};

// x0' = -p x0, x1' = x0 - 2 x1; once poisoned, f[0] gains sqrt(x1 - x1): the same values, a
// NaN derivative (as SqrtOfZero), so that the forward run is clean and only the adjoint's
// Jacobians at its stage points meet the NaN.
struct PoisonedAfterTheRun {
  bool poisoned = false;
  template <class T>
  int f(double, std::span<const T> x, std::span<const T>, std::span<const T> p, std::span<T> f) const {
    using std::sqrt;
    f[0] = -p[0] * x[0];
    f[1] = x[0] - 2.0 * x[1];
    if (poisoned) f[0] += sqrt(x[1] - x[1]);
    return 0;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(bad_model)

BOOST_AUTO_TEST_CASE(non_finite_derivative_names_function_equation_and_argument) {
  esdirk::ad::ModelProblem<SqrtOfZero> problem(2, 0, 0);
  esdirk::Integrator solver(problem, esdirk::Options{});
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0, 1.0}, {}, {})));
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(0.9, x).status));
  const esdirk::Outcome outcome = solver.integrate_to(3.0, x);
  BOOST_TEST((outcome.status == esdirk::Status::callback_failures));
  const std::string& message = solver.message();
  BOOST_TEST_MESSAGE(message);
  BOOST_TEST(message.find("the derivative of the model's f[0] with respect to x[0] is not finite") !=
             std::string::npos);
  BOOST_TEST(message.find("forming J") != std::string::npos);
  // The last good state: the end of the last step that started before t = 1 (J is formed at a
  // step's start), on the exact solution to the run's tolerance.
  BOOST_TEST(solver.t() > 1.0);
  BOOST_TEST(solver.t() < 1.5);
  BOOST_TEST(std::abs(solver.x()[0] - std::exp(-solver.t())) < 1e-4);
  BOOST_TEST((problem.last_failure().kind == esdirk::ad::ModelFailure::Kind::derivative_not_finite));
  BOOST_TEST(problem.ad_statistics().failures > 0);
}

BOOST_AUTO_TEST_CASE(non_finite_value_and_exception_are_reported) {
  esdirk::ad::ModelProblem<SqrtOfZero> problem(2, 0, 0);
  // After t = 1 the derivative along any direction is NaN (0.5 / sqrt(0) times 0).
  const std::vector<double> x{1.0, 2.0}, v{1.0, 0.0};
  std::vector<double> out(2);
  BOOST_TEST(problem.jacobian_vector_product(2.0, x, {}, {}, v, {}, out) == 1);
  BOOST_TEST(problem.failure_note().find("with respect to the direction") != std::string::npos);

  esdirk::ad::ModelProblem<ThrowsForDuals> throwing(1, 0, 0);
  esdirk::DenseMatrix J(1, 1);
  BOOST_TEST(throwing.jacobian(0.0, std::vector<double>{1.0}, {}, {}, J.ref()) == -1);
  BOOST_TEST(throwing.failure_note() ==
             "the model's f threw at t = 0 (forming J): no dual numbers here");
  esdirk::Integrator solver(throwing, esdirk::Options{});
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> y(1);
  const esdirk::Outcome outcome = solver.integrate_to(1.0, y);
  BOOST_TEST((outcome.status == esdirk::Status::callback_fatal));
  BOOST_TEST(solver.message().find("(model: the model's f threw") != std::string::npos);
  BOOST_TEST(solver.t() == 0.0);
  BOOST_TEST(solver.x()[0] == 1.0);
}

// The adjoint sweep forms J at every stage point; a NaN in an AD model's J there is reported by
// the model's own check (the sweep's JacobianEvaluator tests the entries again): a clear status,
// the message naming the stage time, the adjoint, and the model's function, equation and
// argument; the outputs keep their values, and the same recording gives the right gradient
// once the model is repaired.
BOOST_AUTO_TEST_CASE(a_non_finite_derivative_at_an_adjoint_stage_point_is_named) {
  esdirk::ad::ModelProblem<PoisonedAfterTheRun> problem(2, 0, 1);
  esdirk::Integrator solver(problem, esdirk::Options{});
  esdirk::Adjoint adjoint(solver);
  const std::vector<double> x0{1.0, 0.5}, p{0.7};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, {}, p)));
  solver.set_stop_time(1.0);
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.0, x).status));
  esdirk::AdjointObjective objective;
  objective.terminal = [](double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, esdirk::MatrixRef dx,
                          esdirk::MatrixRef, esdirk::MatrixRef) {
    dx(1, 0) = 1.0;  // C = x1(1)
    return 0;
  };
  esdirk::DenseMatrix clean_dx0(2, 1), clean_dp(1, 1);
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(objective, clean_dx0.ref(), clean_dp.ref())));

  problem.model().poisoned = true;
  esdirk::DenseMatrix dx0(2, 1), dp(1, 1);
  dx0.fill(7.0);
  dp.fill(7.0);
  BOOST_TEST((adjoint.gradient(objective, dx0.ref(), dp.ref()) == esdirk::Status::callback_failures));
  const std::string& message = adjoint.message();
  BOOST_TEST_MESSAGE(message);
  BOOST_TEST(message.find("the Jacobian failed or was not finite at the stage t = ") == 0);
  BOOST_TEST(message.find("(adjoint) (model: the derivative of the model's f[0] with respect to x[") != std::string::npos);
  BOOST_TEST(message.find("is not finite") != std::string::npos);
  BOOST_TEST((problem.last_failure().kind == esdirk::ad::ModelFailure::Kind::derivative_not_finite));
  BOOST_TEST(dx0(0, 0) == 7.0);
  BOOST_TEST(dx0(1, 0) == 7.0);
  BOOST_TEST(dp(0, 0) == 7.0);

  problem.model().poisoned = false;
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())));
  BOOST_TEST(dx0(0, 0) == clean_dx0(0, 0));
  BOOST_TEST(dx0(1, 0) == clean_dx0(1, 0));
  BOOST_TEST(dp(0, 0) == clean_dp(0, 0));
  BOOST_TEST(dp(0, 0) < 0.0);  // a faster decay of x0 feeds x1 less
}

BOOST_AUTO_TEST_SUITE_END()
