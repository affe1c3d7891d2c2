// The increment of difference Jacobians (Options::difference_increment): states that are tiny
// but not zero, where MINPACK's sqrt(eps)|v_j| falls below the rounding of the large terms that
// cancel in their rows. The sensitivities this spoiled are tested in
// tests/sensitivity/test_difference_increment.cpp.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/error_weights.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/jacobian.hpp"
#include "reference_problems.hpp"
#include "without_jacobians.hpp"

namespace {

using test_helpers::WithoutJacobians;

}  // namespace

BOOST_AUTO_TEST_SUITE(difference_increments)

// Robertson's DAE starts at y2 = y3 = 0; after the first step y3 (algebraic) is ~1e-12 and
// enters g = y1 + y2 + y3 - 1 next to y1 ~ 1, so the relative increment 1.5e-8 * 1e-12 is far
// below the rounding of g and the column of g_z (= 1) came out wrong by orders of magnitude:
// the run with difference Jacobians ended after 13 steps with an error of 4.8e7. The
// error-weighted increment (y3's floor: its atol/rtol) integrates it like the analytic J.
BOOST_AUTO_TEST_CASE(difference_jacobians_of_tiny_algebraic_states_integrate_robertson) {
  for (const auto& c : reference_problems::all()) {
    if (c.name != "Robertson DAE") continue;
    const double rtol = 1e-6;
    const auto make = c.make;
    reference_problems::Case differenced = c;
    differenced.make = [make] { return std::make_unique<WithoutJacobians>(make()); };
    const auto analytic = reference_problems::solve(c, rtol);
    const auto weighted = reference_problems::solve(differenced, rtol);
    BOOST_REQUIRE(esdirk::ok(analytic.status));
    BOOST_REQUIRE(esdirk::ok(weighted.status));
    BOOST_TEST_MESSAGE("error " << weighted.error << " in " << weighted.stats.steps
                                << " steps (analytic " << analytic.error << " in "
                                << analytic.stats.steps << ")");
    BOOST_TEST(weighted.error <= 10.0 * rtol);
    BOOST_TEST(weighted.stats.steps <= 2 * analytic.stats.steps);
    // Where it broke: the relative increment.
    differenced.options = [base = c.options](double r) {
      esdirk::Options o = base(r);
      o.difference_increment = esdirk::DifferenceIncrement::relative;
      return o;
    };
    const auto relative = reference_problems::solve(differenced, rtol);
    BOOST_TEST((!esdirk::ok(relative.status) || relative.error > 1.0));
    return;
  }
  BOOST_FAIL("no Robertson DAE among the reference problems");
}

// The columns of Dow's algebraic u9, u10 (1e-18 ... 1e-10 in the first steps) against the
// analytic Jacobian, at the start of every accepted step of the first 1e-3 h at rtol 1e-8.
// Measured: 3.8e-10 and 2.0e-8 here, 4.1e-8 and 2.1e-8 over the run to 2 h (30 and 6.5 with the
// relative increment; bench_difference_increment).
BOOST_AUTO_TEST_CASE(difference_columns_of_dows_tiny_algebraic_states_match_the_analytic_ones) {
  dow::Model analytic;
  WithoutJacobians differences(std::make_unique<dow::Model>());
  const esdirk::Options options = dow::benchmark_options(1e-8);
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  esdirk::Statistics unused;
  esdirk::JacobianEvaluator weighted(differences, unused), relative(differences, unused);
  weighted.set_increment_floors(esdirk::ErrorWeights(options, 6, 4).increment_floors());
  esdirk::DenseMatrix J(10, 10), Jw(10, 10), Jr(10, 10);
  std::vector<double> x(6), z(4), f(6), g(4);
  double worst[2] = {0.0, 0.0}, worst_relative[2] = {0.0, 0.0};
  esdirk::Integrator solver(analytic, options);
  solver.set_step_observer([&](const esdirk::StepView& step) {
    for (int i = 0; i < 6; ++i) x[static_cast<std::size_t>(i)] = step.X(i, 0);
    for (int i = 0; i < 4; ++i) z[static_cast<std::size_t>(i)] = step.Z(i, 0);
    analytic.jacobian(step.t, x, z, p, J.ref());
    differences.evaluate(step.t, x, z, p, f, g);
    BOOST_REQUIRE(weighted.state_jacobian(step.t, x, z, p, f, g, Jw.ref()) == 0);
    BOOST_REQUIRE(relative.state_jacobian(step.t, x, z, p, f, g, Jr.ref()) == 0);
    for (int c = 0; c < 2; ++c) {
      const int j = 8 + c;
      double scale = 0.0, ew = 0.0, er = 0.0;
      for (int i = 0; i < 10; ++i) {
        scale = std::max(scale, std::abs(J(i, j)));
        ew = std::max(ew, std::abs(Jw(i, j) - J(i, j)));
        er = std::max(er, std::abs(Jr(i, j) - J(i, j)));
      }
      worst[c] = std::max(worst[c], ew / scale);
      worst_relative[c] = std::max(worst_relative[c], er / scale);
    }
  });
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, z0, p)));
  std::vector<double> xe(6), ze(4);
  solver.set_stop_time(1e-3);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1e-3, xe, ze)));
  BOOST_TEST_MESSAGE("u9, u10 column errors " << worst[0] << ", " << worst[1]
                                              << " (relative increment " << worst_relative[0]
                                              << ", " << worst_relative[1] << ")");
  BOOST_TEST(worst[0] <= 1e-6);
  BOOST_TEST(worst[1] <= 1e-6);
  BOOST_TEST(std::max(worst_relative[0], worst_relative[1]) > 0.1);  // where it broke
}

BOOST_AUTO_TEST_CASE(the_integrator_sets_the_floors_and_sensitivity_evaluators_take_them) {
  dow::Model model;
  esdirk::Options options = dow::benchmark_options(1e-6);
  esdirk::Integrator weighted(model, options);
  const std::vector<double> expected =
      esdirk::ErrorWeights(weighted.options(), 6, 4).increment_floors();
  BOOST_TEST(weighted.jacobians().increment_floors() == expected, boost::test_tools::per_element());
  // Differential: atol/rtol = 1e-6 (the benchmark's atol = 1e-6 rtol, under any tolerance
  // rule); algebraic: at most the user's atol/rtol, and positive.
  for (int j = 0; j < 6; ++j)
    BOOST_TEST(expected[static_cast<std::size_t>(j)] == 1e-6, boost::test_tools::tolerance(1e-12));
  for (int j = 6; j < 10; ++j) {
    BOOST_TEST(expected[static_cast<std::size_t>(j)] > 0.0);
    BOOST_TEST(expected[static_cast<std::size_t>(j)] <=
               dow::algebraic_atol[static_cast<std::size_t>(j - 6)] / 1e-6 * (1 + 1e-12));
  }
  options.difference_increment = esdirk::DifferenceIncrement::relative;
  esdirk::Integrator relative(model, options);
  for (double v : relative.jacobians().increment_floors()) BOOST_TEST(v == 0.0);
  esdirk::Statistics unused;
  esdirk::JacobianEvaluator copy(model, unused);
  copy.use_increments_of(weighted.jacobians());
  BOOST_TEST(copy.increment_floors() == expected, boost::test_tools::per_element());
}

// Integrator::set_increment_floors / set_typical_values are the users' way to the increments
// (the evaluator is internal): they reach the integrator's evaluator, the sensitivities take
// them from there, and bad values are refused with the evaluator's messages, nothing changed.
BOOST_AUTO_TEST_CASE(the_integrator_passes_floors_and_typical_values_to_its_evaluator) {
  dow::Model model;
  esdirk::Options options = dow::benchmark_options(1e-6);
  options.difference_increment = esdirk::DifferenceIncrement::relative;
  esdirk::Integrator solver(model, options);
  std::vector<double> floors(10, 0.0), typical(10, 1.0);
  floors[3] = 1.0;
  typical[7] = 1e-9;
  solver.set_increment_floors(floors);
  solver.set_typical_values(typical);
  BOOST_TEST(solver.jacobians().increment_floors() == floors, boost::test_tools::per_element());
  BOOST_TEST(solver.jacobians().typical_values() == typical, boost::test_tools::per_element());
  auto message_of = [](auto&& call) {
    try {
      call();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  BOOST_TEST(message_of([&] { solver.set_increment_floors(std::vector<double>(9, 0.0)); }) ==
             "set_increment_floors: expected nx + nz = 10 values, got 9");
  BOOST_TEST(message_of([&] { solver.set_typical_values(std::vector<double>(10, 0.0)); }) ==
             "set_typical_values: values must be finite and > 0");
  BOOST_TEST(solver.jacobians().increment_floors() == floors, boost::test_tools::per_element());
  BOOST_TEST(solver.jacobians().typical_values() == typical, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bad_increment_options_are_refused) {
  esdirk::Options options;
  options.difference_increment = static_cast<esdirk::DifferenceIncrement>(7);
  BOOST_CHECK_THROW(options.validate(2, 0), std::invalid_argument);
  dow::Model model;
  esdirk::Statistics unused;
  esdirk::JacobianEvaluator evaluator(model, unused);
  BOOST_CHECK_THROW(evaluator.set_increment_floors(std::vector<double>(9, 0.0)),
                    std::invalid_argument);
  std::vector<double> floors(10, 1e-6);
  for (double bad : {-1e-6, std::nan(""), std::numeric_limits<double>::infinity()}) {
    floors[4] = bad;
    BOOST_CHECK_THROW(evaluator.set_increment_floors(floors), std::invalid_argument);
  }
  BOOST_TEST(evaluator.increment_floors() == std::vector<double>(10, 0.0),
             boost::test_tools::per_element());
  floors[4] = 0.0;  // zero is allowed: the relative rule for that state
  BOOST_CHECK_NO_THROW(evaluator.set_increment_floors(floors));
}

BOOST_AUTO_TEST_SUITE_END()
