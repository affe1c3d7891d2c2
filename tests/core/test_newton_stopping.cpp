// The stopping test of the stage Newton iteration (Options::newton_test). The rate-based test
// (NewtonTest::contraction_rate, Hairer & Wanner; RADAU5) stops as soon as the error left after
// the correction, estimated from the observed contraction rate, is below the tolerance; the
// correction-size test (preconditioned_residual) waits until the correction itself is. Where
// the rate is small (an exact Jacobian on a smooth stretch of a stiff problem) the first
// stops sooner and the stage values are as accurate, measured against the same steps with the
// stage equations solved far below the tolerance.

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/trajectory.hpp"
#include "internal/newton_stopping_test.hpp"
#include "robertson/robertson_model.hpp"

namespace {

constexpr double rtol = 1e-6, atol = 1e-12;

esdirk::Options fixed_step_options(esdirk::NewtonTest test, double newton_tolerance) {
  esdirk::Options o;
  o.rtol = rtol;
  o.atol = atol;
  o.tolerance_rule = esdirk::ToleranceRule::raw;  // the Newton weights are these tolerances
  o.method = esdirk::Tableau::esdirk34();
  o.newton_test = test;
  o.newton_tolerance = newton_tolerance;
  return o;
}

struct OneStep {
  std::vector<double> x;
  long newton_iterations = 0;
};

// One fixed step of length h from (t0, x0).
OneStep one_step(const esdirk::Options& o, double t0, const std::vector<double>& x0, double h) {
  robertson::Ode model;
  esdirk::Integrator solver(model, o);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(t0, x0, {}, {})));
  const esdirk::Status status = solver.step_exactly(h);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(status), solver.message());
  return {{solver.x().begin(), solver.x().end()}, solver.statistics().newton_iterations};
}

// RMS of (a - b) in the tolerances' weights at b: 1 is the error tolerance itself.
double weighted_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = (a[i] - b[i]) / (atol + rtol * std::abs(b[i]));
    sum += d * d;
  }
  return std::sqrt(sum / static_cast<double>(a.size()));
}

bool names(const std::invalid_argument& e, const char* what) {
  return std::string(e.what()).find(what) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(newton_stopping)

BOOST_AUTO_TEST_CASE(contraction_rate_test_stops_sooner_with_the_same_stage_accuracy) {
  // A point on Robertson's slow manifold (t = 1), reached with tight tolerances.
  robertson::Ode model;
  esdirk::Options start_options;
  start_options.rtol = 1e-10;
  start_options.atol = 1e-16;
  esdirk::Integrator start(model, start_options);
  std::vector<double> x0{1.0, 0.0, 0.0};
  BOOST_REQUIRE(esdirk::ok(start.initialize(0.0, x0, {}, {})));
  BOOST_REQUIRE(esdirk::ok(start.integrate_to(1.0, x0)));

  const double tolerance = 0.1;  // Options::newton_tolerance's default
  long by_rate_iterations = 0, by_correction_iterations = 0;
  for (double h : {0.01, 0.1, 1.0}) {
    const OneStep exact = one_step(fixed_step_options(esdirk::NewtonTest::preconditioned_residual, 1e-7), 1.0, x0, h);
    const OneStep by_correction =
        one_step(fixed_step_options(esdirk::NewtonTest::preconditioned_residual, tolerance), 1.0, x0, h);
    const OneStep by_rate = one_step(fixed_step_options(esdirk::NewtonTest::contraction_rate, tolerance), 1.0, x0, h);
    BOOST_TEST_INFO("h = " << h);
    BOOST_TEST(by_rate.newton_iterations <= by_correction.newton_iterations);
    // Both leave x_n+1 (the last stage) far inside the error tolerance (1 in these units): each
    // implicit stage stops within the Newton tolerance of its exact solution, and the last
    // stage inherits the earlier stages' Newton errors through the stage equations.
    const double implicit_stages = esdirk::Tableau::esdirk34().stages - 1;
    BOOST_TEST(weighted_difference(by_rate.x, exact.x) <= implicit_stages * tolerance);
    BOOST_TEST(weighted_difference(by_correction.x, exact.x) <= implicit_stages * tolerance);
    by_rate_iterations += by_rate.newton_iterations;
    by_correction_iterations += by_correction.newton_iterations;
  }
  // Nine implicit stages in all: 26 against 30 iterations when this was written.
  BOOST_TEST(by_rate_iterations <= 0.9 * by_correction_iterations);
}

BOOST_AUTO_TEST_CASE(a_step_resumed_from_its_record_repeats_bit_for_bit) {
  // The rate carried from stage to stage starts afresh with every attempt, so a step replayed
  // from its start (Trajectory, the adjoint's checkpoints) repeats it bit for bit, although the
  // recording run came to it with the last stage's rate of the step before. On this linear
  // stiff problem the carried rate often decides whether a stage stops after its first
  // correction: with the rate carried across steps instead, some steps came out differently.
  auto model = esdirk::FunctionProblem(1, 0, 0, [](double t, auto y, auto, auto, auto f) {
    f[0] = -1e3 * (y[0] - std::cos(t));
    return 0;
  });
  for (double tolerance : {1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7}) {
    esdirk::Options o;
    o.rtol = o.atol = tolerance;
    o.newton_test = esdirk::NewtonTest::contraction_rate;
    esdirk::Trajectory trajectory;
    esdirk::Integrator run(model, o);
    run.add_listener(trajectory);
    std::vector<double> x{1.0};
    BOOST_REQUIRE(esdirk::ok(run.initialize(0.0, x, {}, {})));
    run.set_stop_time(10.0);
    BOOST_REQUIRE(esdirk::ok(run.integrate_to(10.0, x)));
    BOOST_REQUIRE(trajectory.size() > 20);
    // Every step, resumed from its own record, comes out as it was recorded.
    int differing = 0;
    for (int k = 1; k < trajectory.size(); ++k) {
      esdirk::Integrator again(model, o);  // knows nothing of the steps before k
      again.resume(trajectory[k], {});
      BOOST_REQUIRE(esdirk::ok(trajectory.replay(again, k, 1)));
      const esdirk::StepRecord& r = trajectory[k];
      if (again.x()[0] != r.X(0, r.stages - 1)) ++differing;
    }
    BOOST_TEST_INFO("rtol = atol = " << tolerance);
    BOOST_TEST(differing == 0);
  }
}

BOOST_AUTO_TEST_CASE(bad_newton_test_options_are_clear_errors) {
  robertson::Ode model;
  struct Bad {
    const char* name;
    void (*set)(esdirk::Options&);
  };
  const Bad bad[] = {
      {"newton_test", [](esdirk::Options& o) { o.newton_test = static_cast<esdirk::NewtonTest>(7); }},
      {"newton_test", [](esdirk::Options& o) { o.newton_test = static_cast<esdirk::NewtonTest>(-1); }},
      {"newton_rate_floor", [](esdirk::Options& o) { o.newton_rate_floor = -0.01; }},
      {"newton_rate_floor", [](esdirk::Options& o) { o.newton_rate_floor = 1.0; }},
      {"newton_rate_floor", [](esdirk::Options& o) { o.newton_rate_floor = std::nan(""); }},
      {"newton_tolerance", [](esdirk::Options& o) { o.newton_tolerance = 0.0; }},
  };
  for (const Bad& b : bad) {
    esdirk::Options o;
    b.set(o);
    BOOST_TEST_INFO(b.name);
    BOOST_CHECK_EXCEPTION(esdirk::Integrator(model, o), std::invalid_argument,
                          [&](const std::invalid_argument& e) { return names(e, b.name); });
  }
}

// The rate test takes the carried eta^0.8 only when the first test of a stage could pass with
// it: far above the tolerance the power cannot change the answer. The decision, and the eta a
// converged stage carries on, must be those of the power taken every time, to the last bit.
BOOST_AUTO_TEST_CASE(the_deferred_power_of_the_rate_test_decides_as_the_power_itself) {
  esdirk::Options o;
  o.newton_test = esdirk::NewtonTest::contraction_rate;
  const double tolerance = o.newton_tolerance;
  const double eps = std::numeric_limits<double>::epsilon();
  int decided_without_power = 0, checked = 0;
  for (double rate : {0.0, 1e-9, 0.01, 0.03, 0.2, 0.5, 0.9, 0.999}) {
    for (double scale = 1e-6; scale < 1e4; scale *= 1.37) {
      // A stage that converges at its second iteration with this rate carries eta on.
      esdirk::internal::NewtonStoppingTest test(o, 0);
      test.start_attempt();
      test.start_stage();
      BOOST_TEST_REQUIRE(!test.hopeless(rate, 1e-300, 1));
      BOOST_TEST_REQUIRE(test.converged(1e-300));
      test.stage_converged();
      const double theta = std::max(rate, o.newton_rate_floor);
      const double carried = theta / (1.0 - theta);
      const double power = std::pow(std::max(carried, eps), 0.8);
      // The next stage's first test, at measures around the tolerance / eta^0.8 and far off.
      for (double measure : {scale, tolerance / power, std::nextafter(tolerance / power, 0.0),
                             std::nextafter(tolerance / power, 1e300), tolerance / carried}) {
        test.start_stage();
        const bool expected = power * measure <= tolerance;
        BOOST_TEST_INFO("rate " << rate << ", measure " << measure);
        BOOST_TEST(test.converged(measure) == expected);
        ++checked;
        if (!expected && std::min(carried, 1.0) * measure > tolerance * (1.0 + 0x1p-40))
          ++decided_without_power;
        if (expected) {
          // What the converged stage carries on is eta^0.8 itself.
          test.stage_converged();
          test.start_stage();
          const double next = std::pow(std::max(power, eps), 0.8);
          BOOST_TEST(test.converged(tolerance / next) == (next * (tolerance / next) <= tolerance));
          test.start_attempt();
          test.start_stage();
          BOOST_TEST_REQUIRE(!test.hopeless(rate, 1e-300, 1));
          BOOST_TEST_REQUIRE(test.converged(1e-300));
          test.stage_converged();
        }
      }
    }
  }
  BOOST_TEST(decided_without_power > checked / 20);  // the skip does happen (1 in 12 here)
}

BOOST_AUTO_TEST_SUITE_END()
