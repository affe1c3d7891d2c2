// `exact` mode is the derivative of the discrete solution: it equals central finite differences
// of the integrator replayed on the same frozen step sequence (Newton converged far below the
// error tolerance so that the replay is the discrete solution, not an iterate of it).
#include <boost/test/unit_test.hpp>

#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

// The Dow seed of the finite-difference tests: the scaled seed, with the direction of u6(0)
// shortened because u6(0) - Q+ < -[A-] has no physical solution ([H+] < 0).
DenseMatrix dow_fd_seed() {
  DenseMatrix seed = dow_scaled_seed();
  seed(5, 5) = 1e-2;
  return seed;
}

DenseMatrix oscillator_seed() {
  DenseMatrix seed(4, 4);
  for (int k = 0; k < 4; ++k) seed(k, k) = 1.0;
  return seed;
}

constexpr double fd_delta = 1e-5;  // truncation ~1e-10, rounding noise ~1e-9 (measured)

}  // namespace

BOOST_AUTO_TEST_SUITE(finite_differences_on_frozen_steps)

BOOST_AUTO_TEST_CASE(dow_exact_mode_equals_finite_differences) {
  dow::Model model;
  const Setup s = dow_setup();
  const auto steps = record_steps(model, dow_options(1e-6), s);
  BOOST_REQUIRE_GT(steps.size(), 50u);
  const auto replay_opts = replay_options(dow_options(1e-6));
  const DenseMatrix seed = dow_fd_seed();
  const DenseMatrix S = replay_sensitivities(model, replay_opts, {}, s, steps, seed.cref());
  BOOST_REQUIRE_EQUAL(S.rows(), 10);
  const DenseMatrix fd =
      frozen_finite_differences(model, replay_opts, s, steps, seed.cref(), fd_delta);
  const double x_error = row_scaled_error(S.cref(), fd.cref(), 0, 6);
  const double z_error = row_scaled_error(S.cref(), fd.cref(), 6, 10);
  BOOST_TEST_MESSAGE("Dow, exact vs frozen FD (scaled, per row max): x " << x_error << ", z "
                                                                         << z_error);
  BOOST_TEST(x_error <= 1e-7);
  BOOST_TEST(z_error <= 1e-7);
}

// The order-4 and order-5 members (6 and 7 stages) on the Dow DAE: the exact-mode derivative
// of the discrete scheme, whatever the number of stages.
BOOST_AUTO_TEST_CASE(dow_exact_mode_equals_finite_differences_for_the_higher_order_members) {
  for (const auto& method : {esdirk::Tableau::esdirk436(), esdirk::Tableau::esdirk547()}) {
    dow::Model model;
    const Setup s = dow_setup();
    esdirk::Options options = dow_options(1e-6);
    options.method = method;
    const auto steps = record_steps(model, options, s);
    BOOST_REQUIRE_GT(steps.size(), 20u);
    const auto replay_opts = replay_options(options);
    const DenseMatrix seed = dow_fd_seed();
    const DenseMatrix S = replay_sensitivities(model, replay_opts, {}, s, steps, seed.cref());
    const DenseMatrix fd = frozen_finite_differences(model, replay_opts, s, steps, seed.cref(), fd_delta);
    const double x_error = row_scaled_error(S.cref(), fd.cref(), 0, 6);
    const double z_error = row_scaled_error(S.cref(), fd.cref(), 6, 10);
    BOOST_TEST_MESSAGE(method.name << " Dow (" << steps.size() << " steps), exact vs frozen FD: x " << x_error << ", z " << z_error);
    BOOST_TEST(x_error <= 1e-7);
    BOOST_TEST(z_error <= 1e-7);
  }
}

BOOST_AUTO_TEST_CASE(oscillator_exact_mode_equals_finite_differences) {
  for (const auto& method : {esdirk::Tableau::esdirk34(), esdirk::Tableau::esdirk23(),
                             esdirk::Tableau::esdirk436(), esdirk::Tableau::esdirk547()}) {
    Oscillator model;
    const Setup s = oscillator_setup();
    esdirk::Options options;
    options.rtol = options.atol = 1e-5;
    options.method = method;
    const auto steps = record_steps(model, options, s);
    BOOST_REQUIRE_GT(steps.size(), method.order > 3 ? 8u : 20u);  // fewer, longer steps at order 4, 5
    const auto replay_opts = replay_options(options);
    const DenseMatrix seed = oscillator_seed();
    const DenseMatrix S = replay_sensitivities(model, replay_opts, {}, s, steps, seed.cref());
    BOOST_REQUIRE_EQUAL(S.rows(), 2);
    const DenseMatrix fd =
        frozen_finite_differences(model, replay_opts, s, steps, seed.cref(), fd_delta);
    const double error = row_scaled_error(S.cref(), fd.cref(), 0, 2);
    BOOST_TEST_MESSAGE(method.name << " oscillator, exact vs frozen FD: " << error);
    BOOST_TEST(error <= 1e-7);
  }
}

BOOST_AUTO_TEST_CASE(finite_difference_jacobians_are_exact_to_their_accuracy) {
  // Without analytic Jacobians the stage Jacobians are forward differences, so exact mode is
  // exact only to their accuracy. (The increment floor is set to 1: the integrator's default,
  // sqrt(eps) * atol, is too small for x1 = 0 here and costs ~1e-3 in J.)
  Oscillator model(false);
  const Setup s = oscillator_setup();
  esdirk::Options options;
  options.rtol = options.atol = 1e-5;
  const auto steps = record_steps(model, options, s);
  const auto replay_opts = replay_options(options);
  const DenseMatrix seed = oscillator_seed();
  const DenseMatrix S =
      replay_sensitivities(model, replay_opts, {}, s, steps, seed.cref(), {1.0, 1.0});
  BOOST_REQUIRE_EQUAL(S.rows(), 2);
  const DenseMatrix fd =
      frozen_finite_differences(model, replay_opts, s, steps, seed.cref(), fd_delta);
  const double error = row_scaled_error(S.cref(), fd.cref(), 0, 2);
  BOOST_TEST_MESSAGE("oscillator with FD Jacobians, exact vs frozen FD: " << error);
  BOOST_TEST(error <= 1e-5);
}

BOOST_AUTO_TEST_CASE(paper_mode_is_not_the_discrete_derivative_but_close) {
  // Algorithm 2 freezes the Jacobians at t_n: its error against the discrete derivative is
  // O(h) per unit time, far above exact mode's and far below the sensitivities themselves.
  dow::Model model;
  const Setup s = dow_setup();
  const auto steps = record_steps(model, dow_options(1e-6), s);
  const auto replay_opts = replay_options(dow_options(1e-6));
  const DenseMatrix seed = dow_fd_seed();
  esdirk::SensitivityOptions paper;
  paper.mode = esdirk::SensitivityMode::paper;
  const DenseMatrix P = replay_sensitivities(model, replay_opts, paper, s, steps, seed.cref());
  const DenseMatrix E = replay_sensitivities(model, replay_opts, {}, s, steps, seed.cref());
  BOOST_REQUIRE_EQUAL(P.rows(), 10);
  BOOST_REQUIRE_EQUAL(E.rows(), 10);
  const double difference = row_scaled_error(P.cref(), E.cref(), 0, 10);
  BOOST_TEST_MESSAGE("Dow rtol 1e-6, paper vs exact (scaled, per row max): " << difference);
  BOOST_TEST(difference > 1e-6);
  BOOST_TEST(difference < 1e-1);
}

BOOST_AUTO_TEST_CASE(dense_output_is_the_derivative_of_the_dense_output) {
  Oscillator model;
  const Setup s = oscillator_setup();
  esdirk::Options options;
  options.rtol = options.atol = 1e-5;
  auto steps = record_steps(model, options, s);
  const auto replay_opts = replay_options(options);
  double t_end = s.t0;
  for (double h : steps) t_end += h;
  const double t_inside = t_end - 0.37 * steps.back();

  auto dense_at = [&](const std::vector<double>& x0, const std::vector<double>& p) {
    esdirk::Integrator solver(model, replay_opts);
    solver.initialize(s.t0, x0, {}, p);
    for (double h : steps) solver.step_exactly(h);
    std::vector<double> x(2);
    solver.dense_output(t_inside, x);
    return x;
  };
  esdirk::Integrator solver(model, replay_opts);
  esdirk::ForwardSensitivity sens(solver);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, {}, s.p)));
  BOOST_REQUIRE(esdirk::ok(sens.initialize_all()));
  for (double h : steps) BOOST_REQUIRE(esdirk::ok(solver.step_exactly(h)));
  DenseMatrix S(2, 4);
  sens.dense_output(t_inside, S.ref());
  DenseMatrix fd(2, 4);
  for (int j = 0; j < 4; ++j) {
    auto xp = s.x0, xm = s.x0, pp = s.p, pm = s.p;
    if (j < 2) {
      xp[j] += fd_delta;
      xm[j] -= fd_delta;
    } else {
      pp[j - 2] += fd_delta;
      pm[j - 2] -= fd_delta;
    }
    const auto plus = dense_at(xp, pp), minus = dense_at(xm, pm);
    for (int i = 0; i < 2; ++i) fd(i, j) = (plus[i] - minus[i]) / (2.0 * fd_delta);
  }
  BOOST_TEST(row_scaled_error(S.cref(), fd.cref(), 0, 2) <= 1e-7);
}

BOOST_AUTO_TEST_CASE(a_few_directions_equal_the_columns_of_all_directions) {
  dow::Model model;
  const Setup s = dow_setup(1.0);
  const auto steps = record_steps(model, dow_options(1e-6), s);
  const DenseMatrix all_seed = dow_scaled_seed();
  DenseMatrix few(15, 2);  // d/d k2 (scaled) and d/d u1(0) + d/d u2(0)
  few(6 + 2, 0) = dow::nominal_parameters[2];
  few(0, 1) = 1.0;
  few(1, 1) = 1.0;
  const DenseMatrix all =
      replay_sensitivities(model, dow_options(1e-6), {}, s, steps, all_seed.cref());
  const DenseMatrix part = replay_sensitivities(model, dow_options(1e-6), {}, s, steps, few.cref());
  BOOST_REQUIRE_EQUAL(part.cols(), 2);
  for (int i = 0; i < 10; ++i) {
    const double scale0 = std::abs(all(i, 8)) + 1e-300,
                 scale1 = std::abs(all(i, 0) + all(i, 1)) + 1e-300;
    BOOST_TEST(std::abs(part(i, 0) - all(i, 8)) / scale0 <= 1e-9);
    BOOST_TEST(std::abs(part(i, 1) - (all(i, 0) + all(i, 1))) / scale1 <= 1e-8);
  }
}

BOOST_AUTO_TEST_CASE(fallback_factorization_gives_the_same_sensitivities) {
  // max_corrections = 1 cannot converge, so every stage falls back to an LU of its own matrix
  // M_i: the same derivative, reached directly. Both refinement paths are exercised: doubling
  // (15 directions, n = 10) and plain sweeps (one direction).
  dow::Model model;
  const Setup s = dow_setup(1.0);
  const auto steps = record_steps(model, dow_options(1e-6), s);
  esdirk::SensitivityOptions refined_options, forced;
  refined_options.stage_solve = esdirk::StageSolve::refinement;
  forced.stage_solve = esdirk::StageSolve::refinement;
  forced.max_corrections = 1;
  DenseMatrix one(15, 1);
  one(6 + 2, 0) = dow::nominal_parameters[2];
  for (const DenseMatrix& seed : {dow_scaled_seed(), one}) {
    BOOST_TEST_INFO(seed.cols() << " directions");
    const DenseMatrix refined =
        replay_sensitivities(model, dow_options(1e-6), refined_options, s, steps, seed.cref());
    const DenseMatrix factored =
        replay_sensitivities(model, dow_options(1e-6), forced, s, steps, seed.cref());
    BOOST_REQUIRE_EQUAL(factored.cols(), seed.cols());
    BOOST_TEST(row_scaled_error(refined.cref(), factored.cref(), 0, 10) <= 1e-9);
  }
  esdirk::Integrator solver(model, dow_options(1e-6));
  esdirk::ForwardSensitivity sens(solver, forced);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p)));
  BOOST_REQUIRE(esdirk::ok(sens.initialize(dow_scaled_seed().cref())));
  BOOST_REQUIRE(esdirk::ok(solver.step_exactly(steps[0])));
  const int stages = solver.method().stages;
  BOOST_TEST(sens.last_stages().fallback_factorizations() == stages - 1);  // stages 2..s
  BOOST_TEST(sens.last_stages().last_max_corrections() == 2);              // reported as max + 1
  BOOST_TEST(solver.statistics().stage_factorizations == stages - 1);      // not in NLU
}

BOOST_AUTO_TEST_CASE(stage_factorization_and_refinement_give_the_same_sensitivities) {
  // The two ways of exact mode solve the same stage equations: the stage LU directly, the
  // refinement to its tolerance (1e-10 of S). Both against differences of the same scheme.
  dow::Model model;
  const Setup s = dow_setup(1.0);
  const auto steps = record_steps(model, dow_options(1e-6), s);
  for (const esdirk::StageSolve way : {esdirk::StageSolve::factorization, esdirk::StageSolve::refinement}) {
    esdirk::SensitivityOptions so;
    so.stage_solve = way;
    const DenseMatrix S = replay_sensitivities(model, dow_options(1e-6), so, s, steps, dow_scaled_seed().cref());
    esdirk::SensitivityOptions other = so;
    other.stage_solve = way == esdirk::StageSolve::factorization ? esdirk::StageSolve::refinement
                                                                   : esdirk::StageSolve::factorization;
    const DenseMatrix T = replay_sensitivities(model, dow_options(1e-6), other, s, steps, dow_scaled_seed().cref());
    BOOST_TEST(row_scaled_error(S.cref(), T.cref(), 0, 10) <= 1e-9);
  }
}

// A stage matrix that is singular does not end the integration: the stage is solved by
// refinement with the step's LU instead (here M_i is made singular on purpose by a model whose
// Jacobian at the stages, but not at t_n, has a zero algebraic block).
BOOST_AUTO_TEST_CASE(a_singular_stage_matrix_falls_back_to_refinement) {
  class SingularAtStages : public dow::Model {
   public:
    int jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p, esdirk::MatrixRef J) override {
      const int code = dow::Model::jacobian(t, x, z, p, J);
      if (t > t_n)  // only at the stages of the step from t_n
        for (int j = 0; j < 10; ++j)
          for (int i = 6; i < 10; ++i) J(i, j) = 0.0;
      return code;
    }
    double t_n = 1e300;
  } model;
  const Setup s = dow_setup(1.0);
  // The raw tolerances (Options::seed002()'s): the state Newton of the first step then converges
  // with J at t_n (at the calibrated rule's tighter internal tolerance it needs a Jacobian refreshed at a
  // stage iterate, which is this model's singular one, and the step ends before the
  // sensitivities are reached).
  esdirk::Options options = dow_options(1e-6);
  options.tolerance_rule = esdirk::ToleranceRule::raw;
  dow::Model plain;
  const auto steps = record_steps(plain, options, s);
  esdirk::Integrator solver(model, options);
  esdirk::SensitivityOptions so;
  so.stage_solve = esdirk::StageSolve::factorization;
  so.error_control = false;
  esdirk::ForwardSensitivity sens(solver, so);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p)));
  BOOST_REQUIRE(esdirk::ok(sens.initialize(dow_scaled_seed().cref())));
  model.t_n = s.t0;
  const esdirk::Status status = solver.step_exactly(steps[0]);
  BOOST_TEST_MESSAGE("status " << esdirk::status_name(status) << ": " << solver.message());
  // The refinement with the step's LU cannot converge to a solution of the singular stage
  // system either (its rows are zero), so the result is a clear status naming the cause.
  BOOST_TEST(solver.statistics().stage_factorizations >= 2);  // the stage LU, then the fallback's
  BOOST_TEST(status == esdirk::Status::callback_failures);
  BOOST_TEST(solver.message().find("stage iteration matrix is singular") != std::string::npos);
}

// The same on a system of order 2, whose stages go through the fixed-order kernels
// (sensitivity/src/fixed_size_stages.hpp): a zero pivot of the fixed-order LU of M_i hands the
// stage to the refinement as the general LU does, and the step ends with the same clear status.
// x' = -x + z, 0 = x - 2z; the algebraic row of J is zero at the stages only.
BOOST_AUTO_TEST_CASE(a_singular_stage_matrix_of_a_small_system_falls_back_as_in_the_general_path) {
  class TinySingularAtStages : public esdirk::Problem {
   public:
    TinySingularAtStages() : Problem(1, 1, 0) {}
    int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector, esdirk::Vector f,
                 esdirk::Vector g) override {
      f[0] = -x[0] + z[0];
      g[0] = x[0] - 2.0 * z[0];
      return 0;
    }
    bool has_jacobian() const override { return true; }
    int jacobian(double t, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, esdirk::MatrixRef J) override {
      const bool stage = t > t_n;
      J(0, 0) = -1.0;
      J(0, 1) = 1.0;
      J(1, 0) = stage ? 0.0 : 1.0;
      J(1, 1) = stage ? 0.0 : -2.0;
      return 0;
    }
    double t_n = 1e300;
  } model;
  esdirk::Options options;
  options.tolerance_rule = esdirk::ToleranceRule::raw;
  esdirk::Integrator solver(model, options);
  esdirk::SensitivityOptions so;
  so.stage_solve = esdirk::StageSolve::factorization;
  so.error_control = false;
  esdirk::ForwardSensitivity sens(solver, so);
  const std::vector<double> x0 = {1.0}, z0 = {0.5};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, z0, {})));
  DenseMatrix seed(1, 1);
  seed(0, 0) = 1.0;
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  model.t_n = 0.0;
  const esdirk::Status status = solver.step_exactly(0.1);
  BOOST_TEST_MESSAGE("status " << esdirk::status_name(status) << ": " << solver.message());
  BOOST_TEST(solver.statistics().stage_factorizations >= 2);  // the stage LU, then the fallback's
  BOOST_TEST(status == esdirk::Status::callback_failures);
  BOOST_TEST(solver.message().find("stage iteration matrix is singular") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
