// Misuse throws with a clear message; numerical failures of the sensitivities are a status.
#include <boost/test/unit_test.hpp>

#include <limits>

#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"
#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

bool mentions(const std::exception& e, const char* text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

// x' = -p0 x with a parameter Jacobian that fails (code) or returns NaN after t = 0.5.
esdirk::FunctionProblem decay_with_bad_parameter_jacobian(int code, bool nan) {
  esdirk::FunctionProblem problem(1, 0, 1, [](double, ConstVector x, ConstVector, ConstVector p, Vector f) {
    f[0] = -p[0] * x[0];
    return 0;
  });
  problem.set_parameter_jacobian([code, nan](double t, ConstVector x, ConstVector, ConstVector, MatrixRef Jp) {
    Jp(0, 0) = -x[0];
    if (t > 0.5) {
      if (nan) Jp(0, 0) = std::numeric_limits<double>::quiet_NaN();
      else return code;
    }
    return 0;
  });
  return problem;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(seed_matrix_of_the_wrong_shape) {
  Oscillator model;
  esdirk::Integrator solver(model);
  esdirk::ForwardSensitivity sens(solver);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, std::vector<double>{5.0, 1.0})));
  DenseMatrix wrong_rows(3, 2), no_cols(4, 0), nan_seed(4, 1);
  nan_seed(0, 0) = std::numeric_limits<double>::quiet_NaN();
  BOOST_CHECK_EXCEPTION(sens.initialize(wrong_rows.cref()), std::invalid_argument,
                        [](const auto& e) { return mentions(e, "nx + np = 4 rows"); });
  BOOST_CHECK_THROW(sens.initialize(no_cols.cref()), std::invalid_argument);
  BOOST_CHECK_THROW(sens.initialize(nan_seed.cref()), std::invalid_argument);
  // Output matrices of the wrong shape.
  DenseMatrix seed(4, 2);
  seed(0, 0) = seed(2, 1) = 1.0;
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  std::vector<double> x(2);
  DenseMatrix Sx(2, 3);
  BOOST_CHECK_THROW(sens.integrate_to(1.0, x, {}, Sx.ref()), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(sensitivities_before_initialization) {
  Oscillator model;
  esdirk::Integrator solver(model);
  esdirk::ForwardSensitivity sens(solver);
  DenseMatrix seed(4, 4);
  BOOST_CHECK_THROW(sens.initialize(seed.cref()), std::logic_error);  // integrator not initialized
  BOOST_CHECK_THROW(sens.state_sensitivity(), std::logic_error);
}

BOOST_AUTO_TEST_CASE(parameter_jacobian_failing_or_nan) {
  struct Case { int code; bool nan; esdirk::Status expected; };
  for (const Case c : {Case{1, false, esdirk::Status::callback_failures},
                       Case{-1, false, esdirk::Status::callback_fatal},
                       Case{0, true, esdirk::Status::callback_failures}}) {
    for (bool error_control : {false, true}) {
      auto problem = decay_with_bad_parameter_jacobian(c.code, c.nan);
      esdirk::Integrator solver(problem);
      esdirk::SensitivityOptions so;
      so.error_control = error_control;
      esdirk::ForwardSensitivity sens(solver, so);
      BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, std::vector<double>{2.0})));
      BOOST_REQUIRE(esdirk::ok(sens.initialize_all()));
      std::vector<double> x(1);
      DenseMatrix Sx(1, 2);
      const esdirk::Status status = sens.integrate_to(1.0, x, {}, Sx.ref());
      BOOST_TEST(status == c.expected, "code " << c.code << " nan " << c.nan << " ec " << error_control
                                                 << ": " << esdirk::status_name(status) << " " << sens.message());
      BOOST_TEST(sens.message().find("parameter Jacobian") != std::string::npos, sens.message());
      // A sensitivity request after the failed integration is an error, not stale numbers.
      BOOST_CHECK_THROW(sens.state_sensitivity(), std::logic_error);
      BOOST_CHECK_THROW(sens.integrate_to(1.0, x, {}, Sx.ref()), std::logic_error);
    }
  }
}

BOOST_AUTO_TEST_CASE(request_after_a_failed_integration) {
  // The integrator itself fails (too many steps); the sensitivities refuse to answer.
  Oscillator model;
  esdirk::Options options;
  options.max_steps = 3;
  esdirk::Integrator solver(model, options);
  esdirk::ForwardSensitivity sens(solver);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, std::vector<double>{5.0, 1.0})));
  BOOST_REQUIRE(esdirk::ok(sens.initialize_all()));
  std::vector<double> x(2);
  BOOST_TEST(!esdirk::ok(solver.integrate_to(10.0, x)));  // driven directly
  BOOST_CHECK_EXCEPTION(sens.state_sensitivity(), std::logic_error,
                        [](const auto& e) { return mentions(e, "failed"); });
  DenseMatrix Sx(2, 4);
  BOOST_CHECK_THROW(sens.dense_output(solver.t(), Sx.ref()), std::logic_error);
  // Through ForwardSensitivity::integrate_to after a fresh start: the status is returned.
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, std::vector<double>{5.0, 1.0})));
  BOOST_REQUIRE(esdirk::ok(sens.initialize_all()));
  esdirk::Status status = esdirk::Status::success;
  for (int k = 1; k <= 10 && esdirk::ok(status); ++k) status = sens.integrate_to(k, x, {}, Sx.ref());
  BOOST_TEST(status == esdirk::Status::too_many_steps);
  BOOST_CHECK_THROW(sens.state_sensitivity(), std::logic_error);
}

BOOST_AUTO_TEST_CASE(shooting_interval_bad_input) {
  dow::Model model;
  const Setup s = dow_setup();
  esdirk::ShootingInterval interval(model, dow_options(1e-6));
  BOOST_CHECK_THROW(interval.result(), std::logic_error);  // nothing integrated yet
  BOOST_CHECK_EXCEPTION(interval.integrate(1.0, 1.0, s.x0, s.p, s.z0), std::invalid_argument,
                        [](const auto& e) { return mentions(e, "zero or negative length"); });
  BOOST_CHECK_THROW(interval.integrate(1.0, 0.5, s.x0, s.p, s.z0), std::invalid_argument);
  const std::vector<double> short_u(8, 1.0);
  BOOST_CHECK_EXCEPTION(interval.integrate(0.0, 0.2, s.x0, short_u, s.z0), std::invalid_argument,
                        [](const auto& e) { return mentions(e, "control vector"); });
  BOOST_CHECK_THROW(interval.integrate(0.0, 0.2, std::vector<double>(5, 1.0), s.p, s.z0), std::invalid_argument);
  BOOST_CHECK_THROW(interval.integrate(0.0, 0.2, s.x0, s.p, std::vector<double>(3, 0.0)), std::invalid_argument);
  // A numerical failure is a status, and result() then refuses.
  esdirk::Options few = dow_options(1e-6);
  few.max_steps = 2;
  esdirk::ShootingInterval failing(model, few);
  const auto& r = failing.integrate(0.0, 1.0, s.x0, s.p, s.z0);
  BOOST_TEST(r.status == esdirk::Status::too_many_steps);
  BOOST_TEST(!r.message.empty());
  BOOST_CHECK_THROW(failing.result(), std::logic_error);
}

BOOST_AUTO_TEST_CASE(invalid_sensitivity_options) {
  Oscillator model;
  esdirk::Integrator solver(model);
  esdirk::SensitivityOptions so;
  so.correction_tolerance = 0.0;
  BOOST_CHECK_THROW(esdirk::ForwardSensitivity(solver, so), std::invalid_argument);
  for (const double bad : {-1e-6, 1.0, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()}) {
    so = {};
    so.difference_rtol_floor = bad;
    BOOST_CHECK_THROW(esdirk::ForwardSensitivity(solver, so), std::invalid_argument);
  }
  so = {};
  so.error_atol = {1e-6, 1e-6};  // 2 entries for 4 directions
  esdirk::ForwardSensitivity sens(solver, so);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, std::vector<double>{5.0, 1.0})));
  BOOST_CHECK_THROW(sens.initialize_all(), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(non_positive_or_non_finite_direction_tolerances_are_rejected) {
  Oscillator model;
  esdirk::Integrator solver(model);
  for (const double bad : {0.0, -1e-6, std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity()}) {
    esdirk::SensitivityOptions so;
    so.error_atol = {1e-6, bad};
    BOOST_CHECK_THROW(esdirk::ForwardSensitivity(solver, so), std::invalid_argument);
  }
  esdirk::SensitivityOptions so;
  so.stage_solve = static_cast<esdirk::StageSolve>(7);
  BOOST_CHECK_THROW(esdirk::ForwardSensitivity(solver, so), std::invalid_argument);
}

// Error control with a seed that has a zero column: that direction's sensitivities stay zero,
// its error is zero (its default tolerance scale is 1, nothing divides by the zero column), and
// the other directions come out as without it.
BOOST_AUTO_TEST_CASE(error_control_with_a_zero_seed_column) {
  Oscillator model;
  esdirk::Options options;
  options.rtol = options.atol = 1e-8;
  DenseMatrix with_zero(4, 3), without(4, 2);
  with_zero(0, 0) = without(0, 0) = 1.0;
  with_zero(3, 2) = without(3, 1) = 1.0;  // column 1 of with_zero stays zero
  DenseMatrix S3(2, 3), S2(2, 2);
  std::vector<double> x(2);
  for (auto* c : {&with_zero, &without}) {
    esdirk::Integrator solver(model, options);
    esdirk::ForwardSensitivity sens(solver);  // error control on (the default)
    BOOST_REQUIRE(sens.options().error_controlled());
    BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, std::vector<double>{5.0, 1.0})));
    BOOST_REQUIRE(esdirk::ok(sens.initialize(c->cref())));
    DenseMatrix& S = c == &with_zero ? S3 : S2;
    BOOST_REQUIRE(esdirk::ok(sens.integrate_to(3.0, x, {}, S.ref())));
  }
  for (int i = 0; i < 2; ++i) {
    BOOST_TEST(S3(i, 1) == 0.0);
    BOOST_TEST(S3(i, 0) == S2(i, 0));  // the zero column does not change the steps
    BOOST_TEST(S3(i, 2) == S2(i, 1));
  }
}

// Options::reuse_jacobian is a states-only option: the forward sensitivities, the adjoint and
// the shooting intervals (which carry sensitivities) refuse it by name.
BOOST_AUTO_TEST_CASE(jacobian_reuse_is_refused_by_the_derivative_modules) {
  Oscillator model;
  esdirk::Options options;
  options.reuse_jacobian = true;
  esdirk::Integrator solver(model, options);
  BOOST_CHECK_EXCEPTION(esdirk::ForwardSensitivity{solver}, std::invalid_argument,
                        [](const std::invalid_argument& e) { return mentions(e, "ForwardSensitivity") && mentions(e, "reuse_jacobian"); });
  BOOST_CHECK_EXCEPTION(esdirk::Adjoint{solver}, std::invalid_argument,
                        [](const std::invalid_argument& e) { return mentions(e, "Adjoint") && mentions(e, "reuse_jacobian"); });
  BOOST_CHECK_THROW((esdirk::ShootingInterval{model, options}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
