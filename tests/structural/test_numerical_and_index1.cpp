// Numerical success check of the System Jacobian (item 4) and the semi-explicit index-1
// helper for the integrator (item 8).

#include <boost/test/unit_test.hpp>

#include "structural_test_support.hpp"

using namespace structural_test;

BOOST_AUTO_TEST_SUITE(numerical_and_index1)

BOOST_AUTO_TEST_CASE(clutch_engaged_det_a_plus_b) {
  // Rows e1 e2 e3' e4, columns ω1' ω2' τ1 τ2: J = [[1,0,-a,0],[0,1,0,-b],[1,-1,0,0],[0,0,1,1]],
  // det J = a + b (the clutch, doc/structural-theory.md §8).
  Model model = load("clutch.dae");
  ModeAnalysis m = analyse_mode(model, Mode{{true}});
  auto jacobian = [](double a, double b) {
    return [a, b](esdirk::MatrixRef J) {
      J(0, 0) = 1;
      J(0, 2) = -a;
      J(1, 1) = 1;
      J(1, 3) = -b;
      J(2, 0) = 1;
      J(2, 1) = -1;
      J(3, 2) = 1;
      J(3, 3) = 1;
    };
  };
  JacobianCheck ok = check_system_jacobian(m.result, jacobian(2.0, 3.0));
  BOOST_TEST(ok.nonsingular);
  BOOST_TEST(ok.entries_outside_pattern.empty());
  JacobianCheck bad = check_system_jacobian(m.result, jacobian(2.0, -2.0));
  BOOST_TEST(!bad.nonsingular);
  BOOST_TEST((bad.singular_blocks == std::vector<int>{0}));
}

BOOST_AUTO_TEST_CASE(pendulum_det_minus_2_l_squared) {
  Model model = load("pendulum.dae");
  ModeAnalysis m = analyse_mode(model, Mode{});
  auto at = [](double x, double y) {
    return [x, y](esdirk::MatrixRef J) {
      J(0, 0) = 1;
      J(0, 2) = x;
      J(1, 1) = 1;
      J(1, 2) = y;
      J(2, 0) = 2 * x;
      J(2, 1) = 2 * y;
    };
  };
  BOOST_TEST(check_system_jacobian(m.result, at(0.6, -0.8)).nonsingular);
  BOOST_TEST(!check_system_jacobian(m.result, at(0.0, 0.0)).nonsingular);  // L = 0
  // An entry outside the pattern is reported (here ∂f3/∂λ, which cannot occur).
  auto extra = [](esdirk::MatrixRef J) {
    J(0, 0) = J(1, 1) = 1;
    J(0, 2) = 0.6;
    J(1, 2) = -0.8;
    J(2, 0) = 1.2;
    J(2, 1) = -1.6;
    J(2, 2) = 5;
  };
  JacobianCheck c = check_system_jacobian(m.result, extra);
  BOOST_TEST((c.entries_outside_pattern == std::vector<std::pair<int, int>>{{2, 2}}));
}

BOOST_AUTO_TEST_CASE(numerical_check_misuse) {
  SigmaResult failed = sigma_method(to_sigma({{0, 0}, {-1, -1}}));
  BOOST_CHECK_THROW(check_system_jacobian(failed, [](esdirk::MatrixRef) {}), std::invalid_argument);
  SigmaResult ok = sigma_method(to_sigma({{0}}));
  BOOST_CHECK_THROW(check_system_jacobian(
                        ok, [](esdirk::MatrixRef) {}, 2.0),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(semi_explicit_index1) {
  // x' = f(x, z), 0 = g(x, z) with g_z != 0: index 1.
  SemiExplicitCheck c = check_semi_explicit_index1({1, 1, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}});
  BOOST_TEST(c.index1);
  BOOST_TEST(c.pryce_structural_index == 1);
  // ODE.
  BOOST_TEST(check_semi_explicit_index1({2, 0, {{0, 1}, {1, 0}}}).index1);
  // Pendulum as a first-order semi-explicit system: x' = u, y' = v, u' = -x λ, v' = -y λ - g,
  // 0 = x² + y² - L²: g does not contain λ (g_z = 0), index 3; g must be differentiated twice.
  SemiExplicitPattern pendulum{
      4, 1, {{0, 2}, {1, 3}, {2, 0}, {2, 4}, {3, 1}, {3, 4}, {4, 0}, {4, 1}}};
  SemiExplicitCheck p = check_semi_explicit_index1(pendulum);
  BOOST_TEST(!p.index1);
  BOOST_TEST(p.structurally_regular);
  BOOST_REQUIRE(p.differentiate.size() == 1u);
  BOOST_TEST(p.differentiate[0].g_index == 0);
  BOOST_TEST(p.differentiate[0].times == 2);
  BOOST_TEST(p.pryce_structural_index == 3);
  BOOST_TEST(p.message.find("g1 2x") != std::string::npos);
  // Structurally singular: z occurs nowhere.
  SemiExplicitCheck s = check_semi_explicit_index1({1, 1, {{0, 0}, {1, 0}}});
  BOOST_TEST(!s.structurally_regular);
  BOOST_TEST(!s.index1);
  BOOST_CHECK_THROW(check_semi_explicit_index1({1, 1, {{0, 5}}}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
