// The counters (one meaning each), the single-LU property, invariants of the Dow sensitivities
// and the optional error control.
#include <boost/test/unit_test.hpp>

#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

struct Run {
  esdirk::Statistics stats;
  DenseMatrix S;  // [Sx; Sz] at the end (empty without sensitivities)
  long fallbacks = 0;
  long stages = 0;  // of the method the run resolved ("auto" by default)
};

// Dow over [0, t_end] with the stop time at t_end; `mode` empty: no sensitivities.
Run dow_run(double rtol, const esdirk::SensitivityMode* mode, bool error_control = false,
            double t_end = 10.0, int first_column = 0, int columns = 15,
            esdirk::StageSolve stage_solve = esdirk::StageSolve::automatic) {
  dow::Model model;
  const Setup s = dow_setup(t_end);
  esdirk::Integrator solver(model, dow_options(rtol));
  BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p)));
  solver.set_stop_time(t_end);
  std::vector<double> x(6), z(4);
  Run run;
  run.stages = solver.method().stages;
  if (!mode) {
    BOOST_REQUIRE(esdirk::ok(solver.integrate_to(t_end, x, z)));
    run.stats = solver.statistics();
    return run;
  }
  esdirk::SensitivityOptions so;
  so.mode = *mode;
  so.error_control = error_control;
  so.stage_solve = stage_solve;
  esdirk::ForwardSensitivity sens(solver, so);
  const DenseMatrix full_seed = dow_scaled_seed();
  DenseMatrix seed(15, columns);
  for (int j = 0; j < columns; ++j)
    for (int i = 0; i < 15; ++i) seed(i, j) = full_seed(i, first_column + j);
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  DenseMatrix Sx(6, columns), Sz(4, columns);
  BOOST_REQUIRE(esdirk::ok(sens.integrate_to(t_end, x, z, Sx.ref(), Sz.ref())));
  run.stats = solver.statistics();
  run.S = stacked(sens);
  run.fallbacks = sens.last_stages().fallback_factorizations();
  return run;
}

const esdirk::SensitivityMode paper = esdirk::SensitivityMode::paper;
const esdirk::SensitivityMode exact = esdirk::SensitivityMode::exact;

}  // namespace

BOOST_AUTO_TEST_SUITE(statistics_and_invariants)

BOOST_AUTO_TEST_CASE(single_lu_per_step_and_counters) {
  const Run plain = dow_run(1e-6, nullptr);
  const Run p = dow_run(1e-6, &paper);
  const Run e = dow_run(1e-6, &exact);
  const long steps = plain.stats.accepted_steps;
  const long ns = 15, s = plain.stages, n_init = 1;  // one consistent initialization of S_z (a DAE)
  for (const Run* run : {&p, &e}) {
    // The same step sequence: sensitivities (without error control) do not steer the steps.
    BOOST_TEST(run->stats.steps == plain.stats.steps);
    BOOST_TEST(run->stats.accepted_steps == steps);
    BOOST_TEST(run->stats.function_evaluations == plain.stats.function_evaluations);
    // NSENS: one sensitivity solve per accepted step, none on rejected steps.
    BOOST_TEST(run->stats.sensitivity_solves == steps);
    // NLU: the single-LU property. The step loop factors nothing more; the only extra LU is the
    // one of g_z for the consistent S_z(t0).
    BOOST_TEST(run->fallbacks == 0);
    BOOST_TEST(run->stats.lu_factorizations == plain.stats.lu_factorizations + n_init);
  }
  BOOST_TEST(plain.stats.sensitivity_solves == 0);
  const long n = 10;
  // paper: with 15 directions and n = 10, M^{-1} is formed once per step from the step's LU
  // (counted as n back-substitutions) and applied as a product; the initialization solves with
  // g_z once per direction.
  BOOST_TEST(p.stats.back_substitutions == plain.stats.back_substitutions + n * steps + ns);
  BOOST_TEST(p.stats.stage_factorizations == 0);
  // exact (the cost model picks the stage LUs at n = 10, 15 directions): stages 2..s each factor
  // their own matrix M_i (not counted in NLU) and solve the ns columns with it.
  BOOST_TEST(e.stats.stage_factorizations == (s - 1) * steps);
  BOOST_TEST(e.stats.back_substitutions == plain.stats.back_substitutions + (s - 1) * ns * steps + ns);
  // exact with refinement by the step's LU (the one-LU rule for the sensitivities too): M^{-1}
  // as in paper mode, no stage LU except where the refinement does not converge and falls back
  // to the stage's own LU (ns solves each). That happens on the steps the Newton recovery made
  // possible (the stages needed a Jacobian of their own, so J_n is a poor preconditioner there).
  const Run r = dow_run(1e-6, &exact, false, 10.0, 0, 15, esdirk::StageSolve::refinement);
  BOOST_TEST(r.stats.stage_factorizations == r.fallbacks);
  BOOST_TEST(r.fallbacks <= plain.stats.jacobian_refreshes);
  BOOST_TEST(r.stats.lu_factorizations == plain.stats.lu_factorizations + n_init);
  BOOST_TEST(r.stats.back_substitutions == plain.stats.back_substitutions + n * steps + ns + ns * r.fallbacks);
  BOOST_TEST(row_scaled_error(r.S.cref(), e.S.cref(), 0, 10) <= 1e-9);
  // paper: the frozen J, one [f_p; g_p] per step.
  BOOST_TEST(p.stats.jacobian_evaluations == plain.stats.jacobian_evaluations + n_init);
  BOOST_TEST(p.stats.parameter_jacobian_evaluations == steps + n_init);
  // exact: stage Jacobians at stages 2..s; [f_p; g_p] at stages 2..s, stage 1 reusing the last
  // stage of the previous step (all four on the first step).
  BOOST_TEST(e.stats.jacobian_evaluations ==
             plain.stats.jacobian_evaluations + (s - 1) * steps + n_init);
  BOOST_TEST(e.stats.parameter_jacobian_evaluations == (s - 1) * steps + 1 + n_init);
}

BOOST_AUTO_TEST_CASE(few_directions_back_substitute_and_agree_with_the_inverse) {
  // Paper mode with few directions ((s - 1) * k < n) solves each stage by back-substitution
  // instead of forming M^{-1}; the two ways differ only by rounding.
  const Run all = dow_run(1e-6, &paper);
  const Run plain = dow_run(1e-6, nullptr);
  const long n = 10, steps = plain.stats.accepted_steps, s = plain.stages;
  const int k = static_cast<int>((n - 1) / (s - 1));  // 3 for ESDIRK34, 1 for ESDIRK436
  const Run few = dow_run(1e-6, &paper, false, 10.0, 6, k);
  BOOST_TEST(few.stats.back_substitutions == plain.stats.back_substitutions + (s - 1) * k * steps + k);
  double worst = 0.0;
  for (int j = 0; j < k; ++j) {
    double scale = 0.0;
    for (int i = 0; i < 10; ++i) scale = std::max(scale, std::abs(all.S(i, 6 + j)));
    for (int i = 0; i < 10; ++i)
      worst = std::max(worst, std::abs(few.S(i, j) - all.S(i, 6 + j)) / scale);
  }
  BOOST_TEST_MESSAGE("paper, " << k << " directions by back-substitution vs M^{-1}: " << worst);
  BOOST_TEST(worst < 1e-11);
}

BOOST_AUTO_TEST_CASE(dow_invariant_sensitivities_sum_to_zero) {
  // c'x is constant for c = (1,0,1,1,0,0), (0,1,1,1,1,0), (0,0,0,-1,1,1), for every Runge-Kutta
  // method, so c'S = c'S(0): zero along the parameters, c_j along the initial state u_j(0).
  const double c[3][6] = {{1, 0, 1, 1, 0, 0}, {0, 1, 1, 1, 1, 0}, {0, 0, 0, -1, 1, 1}};
  for (const auto* mode : {&paper, &exact}) {
    const Run run = dow_run(1e-6, mode);
    double worst = 0.0;
    for (int j = 0; j < 15; ++j) {
      double scale = 0.0;
      for (int i = 0; i < 6; ++i) scale = std::max(scale, std::abs(run.S(i, j)));
      for (const auto& ck : c) {
        double sum = j < 6 ? -ck[j] : 0.0;
        for (int i = 0; i < 6; ++i) sum += ck[i] * run.S(i, j);
        worst = std::max(worst, std::abs(sum) / std::max(scale, 1.0));
        BOOST_TEST(std::abs(sum) <= 1e-10 * std::max(scale, 1.0), "column " << j << ": " << sum);
      }
    }
    BOOST_TEST_MESSAGE("Dow invariant sensitivities, " << (mode == &paper ? "paper" : "exact")
                                                       << ": " << worst);
  }
}

BOOST_AUTO_TEST_CASE(error_control_includes_the_sensitivities) {
  // Off by default (same steps as without sensitivities); on, the sensitivity error estimate
  // joins the error test: more steps, and more accurate sensitivities than the states' steps
  // alone give (measured against a tight run).
  const Run off = dow_run(1e-5, &exact);
  const Run on = dow_run(1e-5, &exact, true);
  const Run tight = dow_run(1e-9, &exact);
  BOOST_TEST(on.stats.accepted_steps > off.stats.accepted_steps);
  const double error_off = row_scaled_error(off.S.cref(), tight.S.cref(), 0, 10);
  const double error_on = row_scaled_error(on.S.cref(), tight.S.cref(), 0, 10);
  BOOST_TEST_MESSAGE("Dow rtol 1e-5: error off " << error_off << " (" << off.stats.accepted_steps
                                                 << " steps), on " << error_on << " ("
                                                 << on.stats.accepted_steps << " steps)");
  BOOST_TEST(error_on < error_off);
}

BOOST_AUTO_TEST_CASE(default_direction_tolerances_follow_the_seed_scaling) {
  // Without error_atol, direction j is tested against atol_i / sigma_j (the seed column in
  // units of the typical magnitudes of its variables, as CVODES's pbar): seeding the parameters
  // with unit columns e_l instead of p_l e_l scales S and its error estimate by 1/p_l and the
  // tolerance with them, so the error test does not change: the same steps up to rounding
  // (which can flip a borderline acceptance) and the same sensitivities to the tolerance.
  // (With the states' tolerances for every column, the former default, the two runs are 17
  // steps apart and their sensitivities differ by 2.8e-5: both checks below fail.)
  dow::Model model;
  const Setup s = dow_setup();
  auto run = [&](bool scaled, long& steps) {
    esdirk::Integrator solver(model, dow_options(1e-5));
    BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p)));
    solver.set_stop_time(10.0);
    esdirk::SensitivityOptions so;
    so.error_control = true;
    esdirk::ForwardSensitivity sens(solver, so);
    DenseMatrix seed(15, 9);
    for (int l = 0; l < 9; ++l) seed(6 + l, l) = scaled ? s.p[static_cast<std::size_t>(l)] : 1.0;
    BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
    std::vector<double> x(6), z(4);
    DenseMatrix Sx(6, 9), Sz(4, 9);
    BOOST_REQUIRE(esdirk::ok(sens.integrate_to(10.0, x, z, Sx.ref(), Sz.ref())));
    steps = solver.statistics().steps;
    if (!scaled)
      for (int l = 0; l < 9; ++l)
        for (int i = 0; i < 6; ++i) Sx(i, l) *= s.p[static_cast<std::size_t>(l)];
    return Sx;
  };
  long steps_scaled = 0, steps_unit = 0;
  const DenseMatrix a = run(true, steps_scaled), b = run(false, steps_unit);
  BOOST_TEST_MESSAGE("error control, scaled vs unit parameter seeds: " << steps_scaled << " / "
                                                                      << steps_unit << " steps");
  BOOST_TEST(std::abs(steps_unit - steps_scaled) <= steps_scaled / 50);
  BOOST_TEST(row_scaled_error(b.cref(), a.cref(), 0, 6) <= 1e-5);
}

BOOST_AUTO_TEST_SUITE_END()
