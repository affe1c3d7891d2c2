// Bad input: each case gets a clear exception (misuse) or status (numerical failure), and
// after a failure the solution at the last accepted time is still available.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "van_der_pol/van_der_pol_model.hpp"

using esdirk::Status;

namespace {

const double not_a_number = std::numeric_limits<double>::quiet_NaN();

esdirk::FunctionProblem decay(int np = 0) {
  return esdirk::FunctionProblem(1, 0, np, [](double, auto y, auto, auto, auto f) {
    f[0] = -y[0];
    return 0;
  });
}

// x' = -z, 0 = z - x^2: x = 1/(1+t), z = x^2.
esdirk::FunctionProblem simple_dae() {
  return esdirk::FunctionProblem(
      1, 1, 0,
      [](double, auto, auto z, auto, auto f) {
        f[0] = -z[0];
        return 0;
      },
      [](double, auto x, auto z, auto, auto g) {
        g[0] = z[0] - x[0] * x[0];
        return 0;
      });
}

bool message_contains(const std::exception& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(wrong_vector_sizes_throw) {
  auto problem = simple_dae();
  esdirk::Integrator solver(problem);
  const std::vector<double> one{1.0}, two{1.0, 2.0};
  BOOST_CHECK_EXCEPTION(solver.initialize(0.0, two, one, {}), std::invalid_argument,
                        [](const auto& e) { return message_contains(e, "x0 has size 2"); });
  BOOST_CHECK_EXCEPTION(solver.initialize(0.0, one, {}, {}), std::invalid_argument,
                        [](const auto& e) { return message_contains(e, "z0 has size 0"); });
  BOOST_CHECK_EXCEPTION(solver.initialize(0.0, one, one, one), std::invalid_argument,
                        [](const auto& e) { return message_contains(e, "p has size 1"); });
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, one, one, {})));
  std::vector<double> x(2), z(1);
  BOOST_CHECK_EXCEPTION(solver.integrate_to(1.0, x, z), std::invalid_argument,
                        [](const auto& e) { return message_contains(e, "x_out has size 2"); });
  std::vector<double> x1(1), z2(2);
  BOOST_CHECK_THROW(solver.integrate_to(1.0, x1, z2), std::invalid_argument);
  BOOST_CHECK_THROW(
      esdirk::FunctionProblem(0, 0, 0, [](double, auto, auto, auto, auto) { return 0; }),
      std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(non_finite_initial_values_throw) {
  auto problem = decay();
  esdirk::Integrator solver(problem);
  const std::vector<double> bad{not_a_number};
  BOOST_CHECK_EXCEPTION(solver.initialize(0.0, bad, {}, {}), std::invalid_argument,
                        [](const auto& e) { return message_contains(e, "x0[0] is not finite"); });
  BOOST_CHECK_THROW(solver.initialize(not_a_number, std::vector<double>{1.0}, {}, {}),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(invalid_options_throw_naming_the_option) {
  auto problem = decay();
  auto expect = [&](esdirk::Options o, const char* name) {
    BOOST_CHECK_EXCEPTION(esdirk::Integrator(problem, o), std::invalid_argument,
                          [name](const auto& e) { return message_contains(e, name); });
  };
  esdirk::Options o;
  o.rtol = -1e-6;
  expect(o, "rtol");
  o = {};
  o.atol = not_a_number;
  expect(o, "atol");
  o = {};
  o.rtol = not_a_number;
  expect(o, "rtol");
  o = {};
  o.atol_vector = {1e-6, 1e-6};
  expect(o, "atol_vector has 2 entries");
  o = {};
  o.rtol_vector = {-1.0};
  expect(o, "rtol_vector[0]");
  o = {};
  o.atol = 0.0;
  expect(o, "atol must be > 0");
  o = {};
  o.max_step_ratio = 1.0;
  expect(o, "max_step_ratio");
  o = {};
  o.repeated_rejection_min_ratio = 1.0;
  expect(o, "repeated_rejection_min_ratio");
  o = {};
  o.repeated_rejection_min_ratio = 0.0;
  expect(o, "repeated_rejection_min_ratio");
  o = {};
  o.safety = 1.5;
  expect(o, "safety");
  o = {};
  o.newton_tolerance = 0.0;
  expect(o, "newton_tolerance");
  o = {};
  o.max_newton_iterations = 0;
  expect(o, "max_newton_iterations");
  o = {};
  o.min_step = 1.0;
  o.max_step = 0.5;
  expect(o, "min_step");
  o = {};
  o.initial_step = -1.0;
  expect(o, "initial_step");
  o = {};
  o.max_jacobian_refreshes = -1;
  expect(o, "max_jacobian_refreshes");
  o = {};
  o.max_newton_dampings = 61;
  expect(o, "max_newton_dampings");
  o = {};
  o.stage_predictor = static_cast<esdirk::StagePredictor>(7);
  expect(o, "stage_predictor");
}

BOOST_AUTO_TEST_CASE(call_order_and_output_times) {
  auto problem = decay();
  esdirk::Integrator solver(problem);
  std::vector<double> x(1);
  BOOST_CHECK_THROW(solver.integrate_to(1.0, x), std::logic_error);  // before initialize
  BOOST_CHECK_THROW(solver.step(1.0), std::logic_error);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  BOOST_CHECK_EXCEPTION(solver.integrate_to(0.0, x), std::invalid_argument, [](const auto& e) {
    return message_contains(e, "equals the initial time");
  });
  BOOST_CHECK_THROW(solver.integrate_to(not_a_number, x), std::invalid_argument);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.0, x)));
  BOOST_CHECK_EXCEPTION(solver.integrate_to(-1.0, x), std::invalid_argument, [](const auto& e) {
    return message_contains(e, "behind the current time");
  });
  BOOST_CHECK_THROW(solver.step_exactly(0.0), std::invalid_argument);
  BOOST_CHECK_THROW(solver.step_exactly(-0.1), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(backwards_integration_works) {
  auto problem = decay();
  esdirk::Options options;
  options.rtol = options.atol = 1e-10;
  esdirk::Integrator solver(problem, options);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(-2.0, x)));
  BOOST_TEST(x[0] == std::exp(2.0), boost::test_tools::tolerance(1e-7));
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(-3.0, x)));
  BOOST_TEST(x[0] == std::exp(3.0), boost::test_tools::tolerance(1e-7));
  BOOST_CHECK_THROW(solver.integrate_to(0.0, x), std::invalid_argument);  // wrong side now
}

BOOST_AUTO_TEST_CASE(transient_nan_is_recovered_by_a_smaller_step) {
  int calls = 0;
  esdirk::FunctionProblem problem(1, 0, 0, [&calls](double, auto y, auto, auto, auto f) {
    f[0] = ++calls == 5 ? not_a_number : -y[0];  // one bad evaluation in the first step
    return 0;
  });
  esdirk::Options options;
  options.rtol = options.atol = 1e-8;
  esdirk::Integrator solver(problem, options);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.0, x)));
  BOOST_TEST(solver.statistics().callback_failures == 1);
  BOOST_TEST(x[0] == std::exp(-1.0), boost::test_tools::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(persistent_nan_gives_callback_failures_and_keeps_the_last_state) {
  esdirk::FunctionProblem problem(1, 0, 0, [](double t, auto y, auto, auto, auto f) {
    f[0] = t > 0.5 ? not_a_number : -y[0];
    return 0;
  });
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  const Status status = solver.integrate_to(1.0, x);
  BOOST_TEST(esdirk::status_name(status) == "callback_failures");
  BOOST_TEST(solver.message().find("non-finite") != std::string::npos);
  BOOST_TEST(solver.t() <= 0.5);
  BOOST_TEST(solver.t() > 0.0);
  BOOST_TEST(x[0] == solver.x()[0]);  // the output holds the solution at the last good time
  BOOST_TEST(x[0] == std::exp(-solver.t()), boost::test_tools::tolerance(1e-4));
}

// Found by fuzzing the C API: a restart whose consistent start failed (here f is NaN at the
// new point) had already moved the integrator to the new t and x.
BOOST_AUTO_TEST_CASE(a_failed_restart_keeps_the_previous_state) {
  esdirk::FunctionProblem problem(1, 0, 0, [](double, auto y, auto, auto, auto f) {
    f[0] = y[0] > 100.0 ? not_a_number : -y[0];
    return 0;
  });
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.0, x)));
  const double t_before = solver.t(), x_before = solver.x()[0];
  BOOST_TEST(esdirk::status_name(solver.restart(5.0, std::vector<double>{200.0}, {}, {})) ==
             "callback_failures");
  BOOST_TEST(solver.initialized());
  BOOST_TEST(solver.t() == t_before);
  BOOST_TEST(solver.x()[0] == x_before);
  BOOST_TEST(solver.has_step());  // the last step (and its dense output) is still there
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(2.0, x)));
  BOOST_TEST(x[0] == std::exp(-2.0), boost::test_tools::tolerance(1e-4));
}

BOOST_AUTO_TEST_CASE(a_failed_initialize_keeps_the_previous_state) {
  esdirk::FunctionProblem problem = simple_dae();
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0},
                                             std::vector<double>{1.0}, {})));
  std::vector<double> x(1), z(1);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.0, x, z)));
  const double t_before = solver.t(), x_before = solver.x()[0];
  const long steps_before = solver.statistics().steps;
  // g = z - x^2 overflows at x = 1e200: no consistent start there.
  BOOST_TEST(!esdirk::ok(solver.initialize(3.0, std::vector<double>{1e200},
                                           std::vector<double>{1.0}, {})));
  BOOST_TEST(solver.initialized());
  BOOST_TEST(solver.t() == t_before);
  BOOST_TEST(solver.x()[0] == x_before);
  BOOST_TEST(solver.statistics().steps == steps_before);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(2.0, x, z)));
  BOOST_TEST(x[0] == 1.0 / 3.0, boost::test_tools::tolerance(1e-4));
}

BOOST_AUTO_TEST_CASE(fatal_callback_code_stops_at_once) {
  esdirk::FunctionProblem problem(1, 0, 0, [](double t, auto y, auto, auto, auto f) {
    f[0] = -y[0];
    return t > 0.3 ? -7 : 0;
  });
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  BOOST_TEST(esdirk::status_name(solver.integrate_to(1.0, x)) == "callback_fatal");
  BOOST_TEST(solver.statistics().callback_failures == 0);  // no retries after a fatal code
  BOOST_TEST(solver.t() <= 0.3);
  BOOST_TEST(x[0] == solver.x()[0]);
}

BOOST_AUTO_TEST_CASE(singular_iteration_matrix_is_reported) {
  // A user Jacobian whose g row vanishes after t = 0.5: M cannot be factored there.
  auto problem = simple_dae();
  problem.set_jacobian([](double t, auto x, auto, auto, esdirk::MatrixRef J) {
    J(0, 0) = 0.0;
    J(0, 1) = -1.0;
    J(1, 0) = t > 0.5 ? 0.0 : -2.0 * x[0];
    J(1, 1) = t > 0.5 ? 0.0 : 1.0;
    return 0;
  });
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(
      esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, std::vector<double>{1.0}, {})));
  std::vector<double> x(1), z(1);
  BOOST_TEST(esdirk::status_name(solver.integrate_to(2.0, x, z)) == "singular_iteration_matrix");
  BOOST_TEST(solver.t() > 0.5);
  BOOST_TEST(x[0] == 1.0 / (1.0 + solver.t()), boost::test_tools::tolerance(1e-4));
}

BOOST_AUTO_TEST_CASE(structurally_singular_dgdz_at_t0) {
  esdirk::FunctionProblem problem(
      1, 1, 0,
      [](double, auto, auto z, auto, auto f) {
        f[0] = z[0];
        return 0;
      },
      [](double, auto x, auto, auto, auto g) {
        g[0] = x[0] - 1.0;
        return 0;
      });  // g ignores z
  esdirk::Integrator solver(problem);
  const Status status =
      solver.initialize(0.0, std::vector<double>{1.0}, std::vector<double>{0.0}, {});
  BOOST_TEST(esdirk::status_name(status) == "singular_algebraic_jacobian");
  BOOST_TEST(solver.message().find("z[0]") != std::string::npos);
  std::vector<double> x(1);
  BOOST_CHECK_THROW(solver.integrate_to(1.0, x), std::logic_error);  // not initialized
}

BOOST_AUTO_TEST_CASE(inconsistent_z_that_newton_cannot_fix) {
  esdirk::FunctionProblem problem(
      1, 1, 0,
      [](double, auto, auto z, auto, auto f) {
        f[0] = z[0];
        return 0;
      },
      [](double, auto, auto z, auto, auto g) {
        g[0] = z[0] * z[0] + 1.0;
        return 0;
      });  // no real root
  esdirk::Integrator solver(problem);
  const Status status =
      solver.initialize(0.0, std::vector<double>{1.0}, std::vector<double>{0.5}, {});
  BOOST_TEST(esdirk::status_name(status) == "initialization_failed");
  BOOST_TEST(!solver.message().empty());
}

BOOST_AUTO_TEST_CASE(consistent_z_is_found_from_a_poor_guess) {
  auto problem = simple_dae();
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(
      esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0}, std::vector<double>{100.0}, {})));
  BOOST_TEST(solver.z()[0] == 4.0, boost::test_tools::tolerance(1e-10));
}

BOOST_AUTO_TEST_CASE(too_many_steps_then_resume) {
  van_der_pol::Model model;
  esdirk::Options options;
  options.max_steps = 20;
  esdirk::Integrator solver(model, options);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, {})));
  std::vector<double> x(2);
  BOOST_TEST(esdirk::status_name(solver.integrate_to(2.0, x)) == "too_many_steps");
  const double reached = solver.t();
  BOOST_TEST(reached > 0.0);
  BOOST_TEST(x[0] == solver.x()[0]);
  // Each call gets a fresh budget: calling again continues from where it stopped.
  int calls = 0;
  Status status = Status::too_many_steps;
  while (status == Status::too_many_steps && ++calls < 1000) status = solver.integrate_to(2.0, x);
  BOOST_TEST(esdirk::ok(status));
  BOOST_TEST(x[0] == van_der_pol::reference[0], boost::test_tools::tolerance(1e-3));
}

BOOST_AUTO_TEST_CASE(step_size_underflow_at_a_blow_up) {
  // y' = y^2, y(0) = 1 blows up at t = 1.
  esdirk::FunctionProblem problem(1, 0, 0, [](double, auto y, auto, auto, auto f) {
    f[0] = y[0] * y[0];
    return 0;
  });
  esdirk::Options options;
  options.min_step = 1e-6;
  esdirk::Integrator solver(problem, options);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  const Status status = solver.integrate_to(2.0, x);
  BOOST_TEST(esdirk::status_name(status) == "step_size_too_small");
  BOOST_TEST(solver.t() < 1.0);
  BOOST_TEST(solver.t() > 0.99);
  BOOST_TEST(x[0] == solver.x()[0]);
  BOOST_TEST(x[0] > 100.0);  // it followed the solution into the blow-up
  BOOST_TEST(std::isfinite(x[0]));
}

// Regression: at t0 = 1e308 the step to tout = nextafter(t0) is below 16 ulp(t0); the failure
// said "the error test kept failing" although no step was ever attempted.
BOOST_AUTO_TEST_CASE(no_step_possible_at_a_huge_time_says_no_step_was_attempted) {
  esdirk::FunctionProblem problem(1, 0, 0, [](double, auto x, auto, auto, auto f) {
    f[0] = -x[0];
    return 0;
  });
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(1e308, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  const Status status = solver.integrate_to(std::nextafter(1e308, std::numeric_limits<double>::infinity()), x);
  BOOST_TEST(esdirk::status_name(status) == "step_size_too_small");
  BOOST_TEST(solver.message().find("no step was attempted") != std::string::npos);
  BOOST_TEST(solver.statistics().steps == 0);
  BOOST_TEST(solver.statistics().callback_failures == 0);
}

// Regression: integrate_to(DBL_MAX) let t + h overflow to infinity near the end of the range and
// ended in callback_failures, blaming a callback that never failed.
BOOST_AUTO_TEST_CASE(integrating_to_dbl_max_does_not_blame_a_callback) {
  esdirk::FunctionProblem problem(1, 0, 0, [](double, auto x, auto, auto, auto f) {
    f[0] = -x[0];
    return 0;
  });
  esdirk::Integrator solver(problem);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  const esdirk::Outcome outcome = solver.integrate_to(std::numeric_limits<double>::max(), x);
  BOOST_TEST(esdirk::ok(outcome), solver.message());
  BOOST_TEST(solver.t() == std::numeric_limits<double>::max());
  BOOST_TEST(solver.statistics().callback_failures == 0);
  BOOST_TEST(std::abs(x[0]) < 1e-6);
}

// The rate-based Newton test raised the contraction rate to the remaining iterations by repeated
// multiplication: with a limit near INT_MAX every test took seconds and the run never ended.
BOOST_AUTO_TEST_CASE(max_newton_iterations_near_int_max_made_each_newton_test_take_seconds) {
  van_der_pol::Model model;
  esdirk::Options options;
  options.max_newton_iterations = std::numeric_limits<int>::max();
  esdirk::Integrator solver(model, options);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, {})));
  std::vector<double> x(2);
  BOOST_TEST(esdirk::ok(solver.integrate_to(van_der_pol::t_end, x)), solver.message());
  BOOST_TEST(x[0] == van_der_pol::reference[0], boost::test_tools::tolerance(1e-3));
  BOOST_TEST(x[1] == van_der_pol::reference[1], boost::test_tools::tolerance(1e-3));
}

// atol near DBL_MAX passed every check, but the difference increments' floor atol / rtol
// overflowed and initialize refused it in the words of an internal function
// ("set_increment_floors: values must be finite and >= 0").
BOOST_AUTO_TEST_CASE(atol_near_dbl_max_was_refused_in_the_words_of_set_increment_floors) {
  for (const double atol : {std::numeric_limits<double>::max(), 1e300}) {
    for (const double rtol : {1e-3, 1e-10}) {
      auto problem = simple_dae();  // no Jacobian: differences with the floors
      esdirk::Options options;
      options.atol = atol;
      options.rtol = rtol;
      esdirk::Integrator solver(problem, options);
      BOOST_REQUIRE_MESSAGE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, std::vector<double>{1.0}, {})),
                            solver.message());
      std::vector<double> x(1), z(1);
      BOOST_TEST(esdirk::ok(solver.integrate_to(1.0, x, z)), solver.message());
      // Any accuracy is acceptable at such an atol; the states must stay finite and bounded.
      BOOST_TEST(std::isfinite(x[0]));
      BOOST_TEST(std::abs(x[0]) <= 1.0);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
