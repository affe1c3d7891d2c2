// Dense output (order 3 for x and z), stop times, one-step mode, the step observer, restarts.

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"

namespace {

// x' = -z, 0 = z - x^2, x(0) = 1: x = 1/(1+t), z = 1/(1+t)^2.
esdirk::FunctionProblem hyperbola() {
  esdirk::FunctionProblem problem(
      1, 1, 0,
      [](double, auto, auto z, auto, auto f) {
        f[0] = -z[0];
        return 0;
      },
      [](double, auto x, auto z, auto, auto g) {
        g[0] = z[0] - x[0] * x[0];
        return 0;
      });
  return problem;
}

// Largest dense-output error at theta = 0.3 and 0.7 inside each of n fixed steps on [0, 2].
std::pair<double, double> dense_errors(int n, const esdirk::Tableau& method = esdirk::Tableau::esdirk34()) {
  auto problem = hyperbola();
  esdirk::Options options;
  options.method = method;
  options.rtol = options.atol = 1e-13;
  options.max_newton_iterations = 30;
  esdirk::Integrator solver(problem, options);
  BOOST_REQUIRE(
      esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, std::vector<double>{1.0}, {})));
  const double h = 2.0 / n;
  double ex = 0.0, ez = 0.0;
  std::vector<double> x(1), z(1);
  for (int k = 0; k < n; ++k) {
    BOOST_REQUIRE(esdirk::ok(solver.step_exactly(h)));
    for (double theta : {0.3, 0.7}) {
      const double t = (k + theta) * h;
      solver.dense_output(t, x, z);
      ex = std::max(ex, std::abs(x[0] - 1.0 / (1.0 + t)));
      ez = std::max(ez, std::abs(z[0] - 1.0 / ((1.0 + t) * (1.0 + t))));
    }
  }
  return {ex, ez};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dense_output_and_driver)

BOOST_AUTO_TEST_CASE(dense_output_has_order_3_in_x_and_z) {
  std::vector<std::pair<double, double>> errors;
  // From n = 20 on: at coarser steps the z interpolant is pre-asymptotic (its stage at
  // c2 = 0.87 carries a large O(h^3) error constant; see doc/integrator-theory.md).
  for (int n : {20, 40, 80, 160}) errors.push_back(dense_errors(n));
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double px = std::log2(errors[k - 1].first / errors[k].first);
    const double pz = std::log2(errors[k - 1].second / errors[k].second);
    BOOST_TEST_INFO("x order " << px << ", z order " << pz);
    BOOST_TEST(std::abs(px - 3.0) <= 0.3);
    BOOST_TEST_INFO("x order " << px << ", z order " << pz);
    BOOST_TEST(std::abs(pz - 3.0) <= 0.3);
  }
}

// The order-4 and order-5 members use the same cubic Hermite dense output (from F_1 and the
// stiffly accurate last stage). Their step values are accurate to order 4 and 5, so the
// interpolant's own error O(h^4) sets the order (ESDIRK34's step values limit it to 3).
BOOST_AUTO_TEST_CASE(dense_output_of_the_higher_order_members_has_order_4) {
  for (const auto& method : {esdirk::Tableau::esdirk436(), esdirk::Tableau::esdirk547()}) {
    const auto [ex1, ez1] = dense_errors(40, method);
    const auto [ex2, ez2] = dense_errors(80, method);
    const double px = std::log2(ex1 / ex2), pz = std::log2(ez1 / ez2);
    BOOST_TEST_MESSAGE(method.name << ": dense orders x " << px << ", z " << pz);
    BOOST_TEST(std::abs(px - 4.0) <= 0.3, method.name);
    BOOST_TEST(std::abs(pz - 4.0) <= 0.3, method.name);
  }
}

BOOST_AUTO_TEST_CASE(dense_output_is_continuous_and_keeps_linear_invariants) {
  dow::Model model;
  esdirk::Integrator solver(model);
  const auto zs = dow::consistent_algebraic_start();
  BOOST_REQUIRE(esdirk::ok(solver.initialize(
      0.0, {dow::initial_states.begin(), dow::initial_states.end()}, {zs.begin(), zs.end()},
      {dow::nominal_parameters.begin(), dow::nominal_parameters.end()})));
  std::vector<double> x(6), z(4);
  for (int k = 0; k < 50; ++k) {
    BOOST_REQUIRE(esdirk::ok(solver.step(10.0)));
    const esdirk::StepView step = solver.last_step();
    // The interpolant meets the step's end points.
    solver.dense_output(step.t + step.h, x, z);
    for (int i = 0; i < 6; ++i)
      BOOST_TEST(x[i] == solver.x()[i], boost::test_tools::tolerance(1e-12));
    for (int i = 0; i < 4; ++i)
      BOOST_TEST(z[i] == solver.z()[i], boost::test_tools::tolerance(1e-9));
    solver.dense_output(step.t, x, z);
    for (int i = 0; i < 6; ++i) BOOST_TEST(x[i] == step.X(i, 0));
    solver.dense_output(step.t + 0.37 * step.h, x, z);
    const auto inv = dow::invariants(x);
    for (int m = 0; m < 3; ++m) BOOST_TEST(std::abs(inv[m] - dow::invariant_values[m]) <= 1e-13);
  }
  BOOST_CHECK_THROW(solver.dense_output(solver.t() + 1.0, x, z), std::domain_error);
}

// The step ends on the stop time exactly. Its stages stay at or before it for ESDIRK34 (all
// c_i <= 1); ESDIRK436 has c_5 = 26/25, so one stage of the last step may lie up to 0.04 h past
// it (doc/integrator-guide.md, "Stop times").
BOOST_AUTO_TEST_CASE(stop_time_is_hit_exactly_and_never_passed) {
  for (const auto& method : {esdirk::Tableau::esdirk34(), esdirk::Tableau::esdirk436()}) {
    BOOST_TEST_CONTEXT(method.name) {
      auto problem = hyperbola();
      esdirk::Options options;
      options.method = method;
      options.rtol = options.atol = 1e-9;
      esdirk::Integrator solver(problem, options);
      BOOST_REQUIRE(
          esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, std::vector<double>{1.0}, {})));
      double latest_stage = 0.0, overshoot_allowed = 0.0;
      const double c_max = *std::max_element(method.c.begin(), method.c.end());
      solver.set_step_observer([&](const esdirk::StepView& s) {
        for (int i = 0; i < s.stages; ++i)
          if (s.stage_times[i] > latest_stage) {
            latest_stage = s.stage_times[i];
            overshoot_allowed = (c_max - 1.0) * s.h;  // of the step that has the latest stage
          }
      });
      solver.set_stop_time(0.7);
      std::vector<double> x(1), z(1);
      BOOST_REQUIRE(esdirk::ok(solver.integrate_to(5.0, x, z)));  // stops at the stop time
      BOOST_TEST(solver.t() == 0.7);
      BOOST_TEST(latest_stage <= 0.7 + overshoot_allowed);
      if (c_max <= 1.0) BOOST_TEST(latest_stage <= 0.7);
      BOOST_TEST(x[0] == 1.0 / 1.7, boost::test_tools::tolerance(1e-5));
      solver.clear_stop_time();
      BOOST_REQUIRE(esdirk::ok(solver.integrate_to(5.0, x, z)));
      BOOST_TEST(x[0] == 1.0 / 6.0, boost::test_tools::tolerance(1e-5));
    }
  }
}

BOOST_AUTO_TEST_CASE(one_step_mode_and_observer_agree) {
  auto problem = hyperbola();
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(
      esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, std::vector<double>{1.0}, {})));
  int observed = 0;
  double last_end = 0.0;
  solver.set_step_observer([&](const esdirk::StepView& s) {
    ++observed;
    BOOST_TEST(s.t == last_end);  // steps are contiguous
    last_end = s.t + s.h;
  });
  int steps = 0;
  while (solver.t() < 1.0) {
    const double before = solver.t();
    BOOST_REQUIRE(esdirk::ok(solver.step(1.0)));
    ++steps;
    BOOST_TEST(solver.t() > before);
    const esdirk::StepView s = solver.last_step();
    BOOST_TEST(s.X(0, s.stages - 1) == solver.x()[0]);
    BOOST_TEST(s.Z(0, s.stages - 1) == solver.z()[0]);
  }
  BOOST_TEST(observed == steps);
  BOOST_TEST(solver.statistics().accepted_steps == steps);
}

BOOST_AUTO_TEST_CASE(restart_after_a_discontinuity) {
  // x' = p: p = 1 on [0, 1], then p = -2 from the restart at t = 1 on.
  esdirk::FunctionProblem problem(1, 0, 1, [](double, auto, auto, auto p, auto f) {
    f[0] = p[0];
    return 0;
  });
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(
      esdirk::ok(solver.initialize(0.0, std::vector<double>{0.0}, {}, std::vector<double>{1.0})));
  std::vector<double> x(1);
  solver.set_stop_time(1.0);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.0, x)));
  BOOST_TEST(x[0] == 1.0, boost::test_tools::tolerance(1e-12));
  const double h_before = std::abs(solver.next_step());
  const long steps_before = solver.statistics().steps;
  BOOST_REQUIRE(esdirk::ok(solver.restart(1.0, x, {}, std::vector<double>{-2.0})));
  BOOST_TEST(std::abs(solver.next_step()) == h_before);   // the step-size guess survives
  BOOST_TEST(solver.statistics().steps == steps_before);  // and so do the statistics
  BOOST_TEST(!solver.has_step());                         // but not the last step
  solver.clear_stop_time();
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(2.0, x)));
  BOOST_TEST(x[0] == -1.0, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_SUITE_END()
