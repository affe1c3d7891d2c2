// The sensitivities as step listeners beside other listeners: user observers are no longer
// dropped, any number of listeners coexist without changing a bit, a recorded trajectory
// replays exact-mode sensitivities bit for bit, and the dense output of the algebraic
// sensitivities is the derivative of the algebraic dense output.

#include <boost/test/unit_test.hpp>

#include "esdirk/dense_basis.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"
#include "esdirk/trajectory.hpp"
#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

struct DowSensitivityRun {
  dow::Model model;
  Setup s = dow_setup();
  esdirk::Integrator solver;
  DenseMatrix Sx{6, 15}, Sz{4, 15};
  std::vector<double> x = std::vector<double>(6), z = std::vector<double>(4);
  explicit DowSensitivityRun(const esdirk::Options& options) : solver(model, options) {}
};

bool same_bits(ConstMatrixRef a, ConstMatrixRef b) {
  if (a.rows != b.rows || a.cols != b.cols) return false;
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i)
      if (a(i, j) != b(i, j)) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(listeners)

// Regression: ForwardSensitivity took the integrator's only observer slot, so an observer set
// before it was silently dropped (called 0 times in a 21-step run).
BOOST_AUTO_TEST_CASE(a_user_observer_set_before_the_sensitivities_is_still_called) {
  DowSensitivityRun run(dow_options(1e-4));
  long observed = 0;
  run.solver.set_step_observer([&](const esdirk::StepView&) { ++observed; });
  esdirk::ForwardSensitivity sens(run.solver);
  BOOST_REQUIRE(esdirk::ok(run.solver.initialize(0.0, run.s.x0, run.s.z0, run.s.p)));
  BOOST_REQUIRE(esdirk::ok(sens.initialize(dow_scaled_seed().cref())));
  BOOST_REQUIRE(esdirk::ok(sens.integrate_to(2.0, run.x, run.z, run.Sx.ref(), run.Sz.ref())));
  BOOST_TEST(observed > 10);
  BOOST_TEST(observed == run.solver.statistics().accepted_steps);
  BOOST_TEST(run.solver.statistics().sensitivity_solves == observed);
}

// Regression: setting an observer after the sensitivities replaced theirs, and the next call
// threw an error that blamed a restart.
BOOST_AUTO_TEST_CASE(an_observer_set_after_the_sensitivities_does_not_break_them) {
  DowSensitivityRun plain(dow_options(1e-4)), observed_run(dow_options(1e-4));
  esdirk::ForwardSensitivity a(plain.solver), b(observed_run.solver);
  long observed = 0;
  observed_run.solver.set_step_observer([&](const esdirk::StepView&) { ++observed; });
  for (auto* r : {&plain, &observed_run})
    BOOST_REQUIRE(esdirk::ok(r->solver.initialize(0.0, r->s.x0, r->s.z0, r->s.p)));
  BOOST_REQUIRE(esdirk::ok(a.initialize(dow_scaled_seed().cref())));
  BOOST_REQUIRE(esdirk::ok(b.initialize(dow_scaled_seed().cref())));
  for (double t : {1.0, 2.0}) {
    BOOST_REQUIRE(esdirk::ok(a.integrate_to(t, plain.x, plain.z, plain.Sx.ref(), plain.Sz.ref())));
    BOOST_REQUIRE(esdirk::ok(b.integrate_to(t, observed_run.x, observed_run.z, observed_run.Sx.ref(),
                                            observed_run.Sz.ref())));
  }
  BOOST_TEST(observed == observed_run.solver.statistics().accepted_steps);
  BOOST_TEST(same_bits(plain.Sx.cref(), observed_run.Sx.cref()));
  BOOST_TEST(same_bits(plain.Sz.cref(), observed_run.Sz.cref()));
}

// A user observer, the sensitivities, the running-cost quadrature and a trajectory on one run:
// each sees every accepted step once, and the results are the bits of the run without the
// extra listeners.
BOOST_AUTO_TEST_CASE(observer_sensitivities_quadrature_and_trajectory_coexist_bit_for_bit) {
  dow::Model model;
  const Setup s = dow_setup();
  const esdirk::Options options = dow_options(1e-6);
  esdirk::ShootingInterval bare(model, options), crowded(model, options);
  // Running cost: sum of squares of the states (exercises the quadrature listener).
  const esdirk::RunningCost cost = [](double, ConstVector x, ConstVector, ConstVector, double& h,
                                      Vector hx, Vector hz, Vector hu) {
    h = 0.0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      h += x[k] * x[k];
      hx[k] = 2.0 * x[k];
    }
    std::fill(hz.begin(), hz.end(), 0.0);
    std::fill(hu.begin(), hu.end(), 0.0);
    return 0;
  };
  bare.set_running_cost(cost);
  crowded.set_running_cost(cost);
  long observed = 0;
  crowded.integrator().set_step_observer([&](const esdirk::StepView&) { ++observed; });
  esdirk::Trajectory trajectory;
  crowded.integrator().add_listener(trajectory);
  const esdirk::ShootingResult& r1 = bare.integrate(0.0, 1.0, s.x0, s.p, s.z0);
  const esdirk::ShootingResult& r2 = crowded.integrate(0.0, 1.0, s.x0, s.p, s.z0);
  BOOST_REQUIRE(esdirk::ok(r1.status));
  BOOST_REQUIRE(esdirk::ok(r2.status));
  BOOST_TEST(r1.x == r2.x);
  BOOST_TEST(r1.z == r2.z);
  BOOST_TEST(same_bits(r1.A.cref(), r2.A.cref()));
  BOOST_TEST(same_bits(r1.B.cref(), r2.B.cref()));
  BOOST_TEST(r1.H == r2.H);
  BOOST_TEST(r1.q == r2.q);
  BOOST_TEST(r1.r == r2.r);
  BOOST_TEST(observed == r2.statistics.accepted_steps);
  BOOST_TEST(trajectory.size() == r2.statistics.accepted_steps);
  BOOST_TEST(r2.statistics.sensitivity_solves == r2.statistics.accepted_steps);
  BOOST_TEST(r1.statistics.steps == r2.statistics.steps);
  crowded.integrator().remove_listener(trajectory);
}

BOOST_AUTO_TEST_CASE(replay_reproduces_states_and_exact_sensitivities_to_the_last_bit) {
  for (const bool error_control : {false, true}) {
    esdirk::SensitivityOptions so;
    so.error_control = error_control;
    DowSensitivityRun first(dow_options(1e-6)), second(dow_options(1e-6));
    esdirk::Trajectory trajectory;
    first.solver.add_listener(trajectory);
    esdirk::ForwardSensitivity a(first.solver, so), b(second.solver, so);
    BOOST_REQUIRE(esdirk::ok(first.solver.initialize(0.0, first.s.x0, first.s.z0, first.s.p)));
    BOOST_REQUIRE(esdirk::ok(a.initialize(dow_scaled_seed().cref())));
    first.solver.set_stop_time(2.0);
    BOOST_REQUIRE(esdirk::ok(a.integrate_to(2.0, first.x, first.z, first.Sx.ref(), first.Sz.ref())));

    BOOST_REQUIRE(esdirk::ok(second.solver.initialize(0.0, second.s.x0, second.s.z0, second.s.p)));
    BOOST_REQUIRE(esdirk::ok(b.initialize(dow_scaled_seed().cref())));
    BOOST_REQUIRE(esdirk::ok(trajectory.replay(second.solver)));
    BOOST_TEST(second.solver.t() == 2.0);
    BOOST_TEST(std::vector<double>(second.solver.x().begin(), second.solver.x().end()) == first.x);
    BOOST_TEST(same_bits(b.state_sensitivity(), a.state_sensitivity()));
    BOOST_TEST(same_bits(b.algebraic_sensitivity(), a.algebraic_sensitivity()));
    first.solver.remove_listener(trajectory);
  }
}

// The sensitivity dense output of z is the derivative of the integrator's dense z(t) (which is
// corrected onto g = 0): checked against central differences of that dense output on the same
// frozen steps. The stage interpolant of SZ_i (what the dense output used to return) is not.
BOOST_AUTO_TEST_CASE(dense_algebraic_sensitivities_are_the_derivative_of_the_dense_z) {
  // The raw tolerances (Options::seed002()'s): their longer steps are what makes the stage
  // interpolant's error visible above the differences' noise.
  esdirk::Options options = replay_options(dow_options(1e-6));
  options.tolerance_rule = esdirk::ToleranceRule::raw;
  DowSensitivityRun run(options);
  esdirk::Trajectory trajectory;
  run.solver.add_listener(trajectory);
  // Without sensitivity error control the steps are long enough for the stage interpolant of
  // SZ to differ visibly from the derivative of the corrected z (with it, both are within the
  // differences' noise of 1.5e-7 here).
  esdirk::SensitivityOptions so;
  so.error_control = false;
  esdirk::ForwardSensitivity sens(run.solver, so);
  BOOST_REQUIRE(esdirk::ok(run.solver.initialize(0.0, run.s.x0, run.s.z0, run.s.p)));
  const DenseMatrix seed = dow_scaled_seed();
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  run.solver.set_stop_time(1.0);
  BOOST_REQUIRE(esdirk::ok(sens.integrate_to(1.0, run.x, run.z, run.Sx.ref(), run.Sz.ref())));
  const esdirk::StepView last = run.solver.last_step();
  const double t = last.t + 0.4 * last.h;
  BOOST_REQUIRE(esdirk::ok(sens.dense_output(t, run.Sx.ref(), run.Sz.ref())));

  // The stage interpolant: sum_i l_i(theta) SZ_i.
  std::vector<double> l(static_cast<std::size_t>(last.stages));
  esdirk::stage_interpolation_weights(run.solver.method(), 0.4, l);
  DenseMatrix interpolated(4, 15);
  for (int i = 0; i < last.stages; ++i)
    for (int j = 0; j < 15; ++j)
      for (int k = 0; k < 4; ++k) interpolated(k, j) += l[static_cast<std::size_t>(i)] * sens.last_stages().stage_algebraic(i)(k, j);

  const double delta = 1e-6;
  DenseMatrix fd(4, 15), fdx(6, 15);
  for (int j = 0; j < 15; ++j) {
    std::vector<double> out[2][2];
    for (int side = 0; side < 2; ++side) {
      const double sign = side == 0 ? 1.0 : -1.0;
      std::vector<double> x0 = run.s.x0, p = run.s.p;
      for (int k = 0; k < 6; ++k) x0[k] += sign * delta * seed(k, j);
      for (int k = 0; k < 9; ++k) p[k] += sign * delta * seed(6 + k, j);
      esdirk::Integrator other(run.model, options);
      BOOST_REQUIRE(esdirk::ok(other.initialize(0.0, x0, run.s.z0, p)));
      BOOST_REQUIRE(esdirk::ok(trajectory.replay(other, 0, trajectory.size())));
      out[side][0].assign(6, 0.0);
      out[side][1].assign(4, 0.0);
      other.dense_output(t, out[side][0], out[side][1]);
    }
    for (int k = 0; k < 4; ++k) fd(k, j) = (out[0][1][k] - out[1][1][k]) / (2.0 * delta);
    for (int k = 0; k < 6; ++k) fdx(k, j) = (out[0][0][k] - out[1][0][k]) / (2.0 * delta);
  }
  const double error_x = row_scaled_error(run.Sx.cref(), fdx.cref(), 0, 6);
  const double error_z = row_scaled_error(run.Sz.cref(), fd.cref(), 0, 4);
  const double error_interpolated = row_scaled_error(interpolated.cref(), fd.cref(), 0, 4);
  BOOST_TEST_MESSAGE("dense Sx vs differences " << error_x << ", Sz " << error_z
                                                << ", stage interpolant of SZ " << error_interpolated);
  BOOST_TEST(error_x < 1e-6);
  BOOST_TEST(error_z < 1e-6);
  BOOST_TEST(error_interpolated > 10.0 * error_z);
}

BOOST_AUTO_TEST_SUITE_END()
