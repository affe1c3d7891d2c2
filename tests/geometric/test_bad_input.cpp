// Bad input, each a clear status or exception: inconsistent tableau sizes, non-finite
// entries, zero weights where the normalized form is asked for, stage solves that do not
// converge, a DAE that is not of index 1 (singular phi_u), failing callbacks, wrong sizes.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "geometric_fixtures.hpp"

using namespace fixtures;

namespace {
bool mentions(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(inconsistent_tableau_sizes) {
  g::RkTableau t = g::radau_iia(2);
  t.a.pop_back();
  BOOST_CHECK_THROW(t.validate(), std::invalid_argument);
  BOOST_CHECK_THROW(g::symplectic_pair(t), std::invalid_argument);
  t = g::radau_iia(2);
  t.c.push_back(1.0);
  BOOST_CHECK_THROW(t.validate(), std::invalid_argument);
  t = g::radau_iia(2);
  t.stages = 0;
  BOOST_CHECK_THROW(t.validate(), std::invalid_argument);
  // A partner of the wrong size.
  esdirk::FunctionProblem p = riccati();
  g::PrkPair pair = g::symplectic_pair(g::radau_iia(2));
  pair.partner.pop_back();
  BOOST_CHECK_THROW(g::TypeTwoStep(p, pair), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(non_finite_tableau_entries) {
  const double nan = std::numeric_limits<double>::quiet_NaN(),
               inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf}) {
    g::RkTableau t = g::gauss_legendre(2);
    t.a[1] = bad;
    BOOST_CHECK_THROW(t.validate(), std::invalid_argument);
    t = g::gauss_legendre(2);
    t.b[0] = bad;
    BOOST_CHECK_THROW(g::symplectic_pair(t), std::invalid_argument);
    BOOST_CHECK_THROW(g::prk_pair(g::gauss_legendre(1), {bad}, "bad"), std::invalid_argument);
  }
}

BOOST_AUTO_TEST_CASE(zero_weights_where_the_normalized_form_is_requested) {
  esdirk::FunctionProblem p = riccati();
  const g::RkTableau midpoint = g::explicit_midpoint();
  BOOST_CHECK_THROW(g::symplectic_pair(midpoint), std::invalid_argument);
  try {
    g::symplectic_pair(g::from_esdirk(esdirk::Tableau::esdirk12()));
    BOOST_FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(mentions(e.what(), "zero"));
  }
  g::StepOptions o;
  o.form = g::AdjointForm::partner;
  const g::PrkPair placeholder = g::prk_pair(midpoint, {0, 0, 0, 0}, "midpoint");
  BOOST_CHECK_THROW(g::TypeTwoStep(p, placeholder, o), std::invalid_argument);
  // The unnormalized form takes it.
  BOOST_CHECK_NO_THROW(g::TypeTwoStep(p, placeholder));
}

BOOST_AUTO_TEST_CASE(stage_solves_that_do_not_converge) {
  esdirk::FunctionProblem p = pendulum();
  g::StepOptions o;
  o.max_iterations = 1;
  g::TypeTwoStep step(p, g::pghvi1(), o);
  const std::vector<double> q0{0.5, 0.0}, u0{-std::sqrt(0.75), 0.0, -std::sqrt(0.75)};
  BOOST_TEST(step.forward(0.0, 2.0, q0, u0) == esdirk::Status::constraint_solve_failed);
  BOOST_TEST(mentions(step.message(), "did not converge"));
  // adjoint() after a failed step is a wrong call order.
  std::vector<double> p0(2);
  const std::vector<double> p1{1.0, 0.0};
  BOOST_CHECK_THROW(step.adjoint(p1, nullptr, p0), std::logic_error);
  // Options themselves.
  o.max_iterations = 0;
  BOOST_CHECK_THROW(g::TypeTwoStep(p, g::pghvi1(), o), std::invalid_argument);
  o = {};
  o.tolerance = -1;
  BOOST_CHECK_THROW(g::TypeTwoStep(p, g::pghvi1(), o), std::invalid_argument);
  o = {};
  o.iteration = static_cast<g::StageIteration>(7);
  BOOST_CHECK_THROW(g::TypeTwoStep(p, g::pghvi1(), o), std::invalid_argument);
  // Simplified Newton from a starting guess too far for the frozen matrix (dt = 2) diverges
  // or stalls: a clear status, and no adjoint afterwards.
  o = {};
  o.iteration = g::StageIteration::simplified_newton;
  g::TypeTwoStep simplified(p, g::pghvi1(), o);
  BOOST_TEST(simplified.forward(0.0, 2.0, q0, u0) == esdirk::Status::constraint_solve_failed);
  BOOST_TEST(mentions(simplified.message(), "simplified Newton"));
  BOOST_CHECK_THROW(simplified.adjoint(p1, nullptr, p0), std::logic_error);
}

// phi_u singular: the pendulum at y = 0 (det phi_u = 2 y^2), and a constraint without u.
BOOST_AUTO_TEST_CASE(dae_not_of_index_one) {
  esdirk::FunctionProblem p = pendulum();
  g::GeometricAdjoint run(p, g::pghvi1());
  const std::vector<double> q0{1.0, 0.0}, u0{0.0, 0.0, 0.0};
  BOOST_TEST(run.forward(uniform_times(1.0, 4), q0, u0) ==
             esdirk::Status::singular_constraint_jacobian);
  BOOST_TEST(mentions(run.message(), "not of index 1"));
  esdirk::FunctionProblem no_u(
      1, 1, 0,
      [](double, ConstVector q, ConstVector, ConstVector, Vector f) {
        f[0] = -q[0];
        return 0;
      },
      [](double, ConstVector q, ConstVector, ConstVector, Vector g) {
        g[0] = q[0] - 1.0;
        return 0;
      });
  g::TypeTwoStep step(no_u, g::symplectic_pair(g::radau_iia(2)));
  const std::vector<double> x{1.0}, u{0.0};
  BOOST_TEST(step.forward(0.0, 0.1, x, u) == esdirk::Status::singular_constraint_jacobian);
}

BOOST_AUTO_TEST_CASE(failing_callbacks) {
  esdirk::FunctionProblem nan_f(
      1, 0, 0, [](double, ConstVector q, ConstVector, ConstVector, Vector f) {
        f[0] = q[0] > 1.5 ? std::numeric_limits<double>::quiet_NaN() : -q[0];
        return 0;
      });
  g::TypeTwoStep step(nan_f, g::symplectic_pair(g::gauss_legendre(2)));
  const std::vector<double> big{2.0}, none;
  BOOST_TEST(step.forward(0.0, 0.1, big, none) == esdirk::Status::callback_failures);
  esdirk::FunctionProblem fatal(
      1, 0, 0, [](double, ConstVector, ConstVector, ConstVector, Vector) { return -1; });
  g::TypeTwoStep step2(fatal, g::symplectic_pair(g::gauss_legendre(2)));
  BOOST_TEST(step2.forward(0.0, 0.1, big, none) == esdirk::Status::callback_fatal);
  // A running cost that fails.
  esdirk::FunctionProblem r = riccati();
  g::TypeTwoStep step3(r, g::pghvi1());
  const std::vector<double> q0{1.0}, p1{1.0};
  std::vector<double> p0(1);
  BOOST_REQUIRE(step3.forward(0.0, 0.1, q0, none) == esdirk::Status::success);
  g::RunningCost L;
  L.gradient = [](double, ConstVector, ConstVector, Vector dq, Vector) {
    dq[0] = std::numeric_limits<double>::infinity();
    return 0;
  };
  BOOST_TEST(step3.adjoint(p1, &L, p0) == esdirk::Status::callback_failures);
}

BOOST_AUTO_TEST_CASE(wrong_sizes_and_call_order) {
  esdirk::FunctionProblem p = van_der_pol(1.0);
  g::GeometricAdjoint run(p, g::pghvi1());
  const std::vector<double> one{1.0}, two{1.0, 0.0}, none;
  BOOST_CHECK_THROW(run.forward(uniform_times(1.0, 4), one, none), std::invalid_argument);
  BOOST_CHECK_THROW(run.forward(std::vector<double>{0.0}, two, none), std::invalid_argument);
  BOOST_CHECK_THROW(run.forward(std::vector<double>{0.0, 1.0, 1.0}, two, none),
                    std::invalid_argument);
  BOOST_CHECK_THROW(run.backward(two), std::logic_error);
  BOOST_CHECK_THROW(run.tangent(two), std::logic_error);
  BOOST_REQUIRE(run.forward(uniform_times(1.0, 4), two, none) == esdirk::Status::success);
  BOOST_CHECK_THROW(run.backward(one), std::invalid_argument);
  BOOST_CHECK_THROW(g::tableau_by_name("gauss9"), std::invalid_argument);
  BOOST_CHECK_THROW(g::gauss_legendre(5), std::invalid_argument);
  BOOST_CHECK_THROW(g::radau_iia(0), std::invalid_argument);
  BOOST_CHECK_THROW(g::lobatto_iiia(1), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
