/* The method, tolerance-rule, reuse and difference-increment setters of esdirk_method.h,
 * compiled as C99: their effect on the DAE x' = -z, 0 = z - x^2 (x = 1/(1+t)) and on Robertson's
 * DAE with difference Jacobians, "auto" resolved by rtol, the refusal of sensitivities with
 * Jacobian reuse, and every invalid value refused with the options kept. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_method.h"

static int hyperbola(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                     const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)p;
  (void)user_data;
  f[0] = -z[0];
  g[0] = z[0] - x[0] * x[0];
  return 0;
}

/* Robertson's DAE (y1, y2 differential, y3 algebraic) without a Jacobian callback. */
static int robertson(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                     const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)p;
  (void)user_data;
  f[0] = -0.04 * x[0] + 1e4 * x[1] * z[0];
  f[1] = 0.04 * x[0] - 1e4 * x[1] * z[0] - 3e7 * x[1] * x[1];
  g[0] = x[0] + x[1] + z[0] - 1.0;
  return 0;
}

/* Robertson's DAE to t = 1e11 at rtol 1e-6 with difference Jacobians under `rule`: the relative
 * error of y1 against the published value, or INFINITY if the run failed. Difference columns
 * of the tiny y2 and y3 with MINPACK's relative increments are wrong enough to fail the run. */
static double robertson_error(int rule) {
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  double x[2] = {1.0, 0.0}, z = 0.0, algebraic_atol = 1e-6;
  int status;
  CHECK_STATUS(esdirk_problem_create(2, 1, 0, robertson, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_tolerances(solver, 1e-6, 1e-13), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_algebraic_atol(solver, &algebraic_atol, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_difference_increment(solver, rule), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, 2, &z, 1, NULL, 0), ESDIRK_SUCCESS);
  status = esdirk_solver_integrate_to(solver, 1e11, x, 2, &z, 1);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  return status < 0 ? INFINITY : fabs(x[0] / 0.2083340149701255e-07 - 1.0);
}

/* Integrates to t = 2 at rtol = atol = tol and returns the error of x; *steps gets the steps. */
static double run(esdirk_solver* solver, double tol, int64_t* steps) {
  double x = 1.0, z = 0.5;
  CHECK_STATUS(esdirk_solver_set_tolerances(solver, tol, tol), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x, 1, &z, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(solver, 2.0), ESDIRK_SUCCESS);
  CHECK(esdirk_solver_integrate_to(solver, 2.0, &x, 1, &z, 1) >= 0);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "steps", steps), ESDIRK_SUCCESS);
  return fabs(x - 1.0 / 3.0);
}

static int contains(const char* text, const char* part) { return strstr(text, part) != NULL; }

int main(void) {
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  int64_t steps_calibrated = 0, steps_raw = 0, steps = 0, value = 0;
  double error_calibrated, error_raw, error;
  CHECK_STATUS(esdirk_problem_create(1, 1, 0, hyperbola, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);

  /* Defaults: "auto" (resolved at initialize: ESDIRK436 at rtol 1e-8) under the calibrated rule. */
  CHECK(strcmp(esdirk_solver_method_name(solver), "auto") == 0);
  error_calibrated = run(solver, 1e-8, &steps_calibrated);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK436") == 0);
  /* The raw rule asks the error test for less: fewer steps, a larger error. */
  CHECK_STATUS(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_RAW, 0.0), ESDIRK_SUCCESS);
  error_raw = run(solver, 1e-8, &steps_raw);
  CHECK(steps_raw < steps_calibrated);
  CHECK(error_raw > 3.0 * error_calibrated);
  /* A calibration factor of 100 (the method's is 0.1) loosens the calibrated rule. */
  CHECK_STATUS(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_CALIBRATED, 100.0),
               ESDIRK_SUCCESS);
  error = run(solver, 1e-8, &steps);
  CHECK(steps < steps_calibrated && error > error_calibrated);
  /* Factor 0: the method's own constant again, the same run as the default's bit for bit. */
  CHECK_STATUS(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_CALIBRATED, 0.0),
               ESDIRK_SUCCESS);
  error = run(solver, 1e-8, &steps);
  CHECK(steps == steps_calibrated && error == error_calibrated);

  /* "auto": ESDIRK34 at rtol 1e-2, the order-4 member at 1e-9 (resolved at initialize). */
  CHECK_STATUS(esdirk_solver_set_method(solver, "ESDIRK34"), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK436") == 0); /* still the integrator's */
  run(solver, 1e-8, &steps);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK34") == 0);
  CHECK_STATUS(esdirk_solver_set_method(solver, "auto"), ESDIRK_SUCCESS);
  run(solver, 1e-2, &steps);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK34") == 0);
  error = run(solver, 1e-9, &steps);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK436") == 0);
  CHECK(error < 1e-7);
  CHECK_STATUS(esdirk_solver_set_method(solver, "ESDIRK547"), ESDIRK_SUCCESS);
  run(solver, 1e-6, &steps);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK547") == 0);
  CHECK_STATUS(esdirk_solver_set_method(solver, "auto"), ESDIRK_SUCCESS);

  /* Stage counts (what sizes an adjoint's step records), "auto" by rtol; bad names and rtols. */
  CHECK(esdirk_method_stages("ESDIRK34", 1e-9) == 4 && esdirk_method_stages("ESDIRK436", 0.0) == 6);
  CHECK(esdirk_method_stages("ESDIRK547", 1e-3) == 7);
  CHECK(esdirk_method_stages("auto", 1e-2) == 4 && esdirk_method_stages("auto", 1e-3) == 6);
  CHECK(esdirk_method_stages(NULL, 1e-6) == -1 && esdirk_method_stages("esdirk34", 1e-6) == -1);
  CHECK(esdirk_method_stages("auto", 0.0) == -1 && esdirk_method_stages("auto", NAN) == -1);
  CHECK(esdirk_method_stages("auto", INFINITY) == -1);

  /* Jacobian reuse and kept steps show in their counters; sensitivities refuse reuse. */
  CHECK_STATUS(esdirk_solver_set_jacobian_reuse(solver, 1, 0.5), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 0.5, 2.0), ESDIRK_SUCCESS);
  run(solver, 1e-6, &steps);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "jacobian_reuses", &value), ESDIRK_SUCCESS);
  CHECK(value > 0);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "steps_kept", &value), ESDIRK_SUCCESS);
  CHECK(value > 0);
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, NULL, 1, 1, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "reuse_jacobian"));
  /* With h free to move, only a nearby h lets the kept LU serve the next step. */
  {
    int64_t lu_reuses_same_h = 0, lu_reuses_nearby = 0;
    CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 1.0, 1.0), ESDIRK_SUCCESS);
    run(solver, 1e-6, &steps);
    CHECK_STATUS(esdirk_solver_get_counter(solver, "lu_reuses", &lu_reuses_same_h), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_lu_reuse_h_change(solver, 0.3), ESDIRK_SUCCESS);
    error = run(solver, 1e-6, &steps);
    CHECK_STATUS(esdirk_solver_get_counter(solver, "lu_reuses", &lu_reuses_nearby), ESDIRK_SUCCESS);
    CHECK(lu_reuses_nearby > lu_reuses_same_h);
    CHECK(error < 1e-5);
    CHECK_STATUS(esdirk_solver_set_lu_reuse_h_change(solver, 0.0), ESDIRK_SUCCESS);
  }
  CHECK_STATUS(esdirk_solver_set_jacobian_reuse(solver, 0, 0.1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 1.0, 1.0), ESDIRK_SUCCESS);
  run(solver, 1e-6, &steps);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "jacobian_reuses", &value), ESDIRK_SUCCESS);
  CHECK(value == 0);

  /* Difference-Jacobian increments: the default rule integrates Robertson's DAE to its
   * published value, MINPACK's relative rule does not. */
  CHECK(robertson_error(ESDIRK_DIFFERENCE_ERROR_WEIGHTED) < 1e-5); /* 10 rtol; measured 2.0e-6 */
  CHECK(robertson_error(ESDIRK_DIFFERENCE_RELATIVE) > 1.0);

  /* Bad values: refused with a message naming what was wrong; the options stay as they were
   * (the run after them equals the calibrated default run above, bit for bit). */
  CHECK_STATUS(esdirk_solver_set_tolerance_rule(solver, 2, 0.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "ESDIRK_TOLERANCE_RAW"));
  CHECK_STATUS(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_RAW, -1.0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "calibration_factor"));
  CHECK_STATUS(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_RAW, NAN),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_RAW, INFINITY),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_method(solver, "esdirk34"), ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "ESDIRK547")); /* lists the known names */
  CHECK_STATUS(esdirk_solver_set_method(solver, ""), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_method(solver, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_jacobian_reuse(solver, 1, 0.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "jacobian_reuse_contraction"));
  CHECK_STATUS(esdirk_solver_set_jacobian_reuse(solver, 1, 1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_jacobian_reuse(solver, 1, NAN), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 0.0, 1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "keep_step_ratio_low"));
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 1.5, 2.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, NAN, 1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 1.0, 0.9), ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "keep_step_ratio_high"));
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 1.0, INFINITY), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 1.0, NAN), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_lu_reuse_h_change(solver, -0.1), ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "lu_reuse_h_change"));
  CHECK_STATUS(esdirk_solver_set_lu_reuse_h_change(solver, 1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_lu_reuse_h_change(solver, NAN), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_difference_increment(solver, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(contains(esdirk_solver_last_error(solver), "ESDIRK_DIFFERENCE_RELATIVE"));
  CHECK_STATUS(esdirk_solver_set_difference_increment(solver, -1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK436") == 0); /* the integrator's */
  error = run(solver, 1e-8, &steps);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK436") == 0);
  CHECK(steps == steps_calibrated && error == error_calibrated);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "jacobian_reuses", &value), ESDIRK_SUCCESS);
  CHECK(value == 0);

  /* high above the controller's max_step_ratio (5): accepted when set, refused at initialize
   * (the controller may still change); a larger max_step_ratio makes it valid. */
  {
    double x = 1.0, z = 0.5;
    CHECK_STATUS(esdirk_solver_set_keep_step_ratio(solver, 1.0, 8.0), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x, 1, &z, 1, NULL, 0),
                 ESDIRK_INVALID_ARGUMENT);
    CHECK(contains(esdirk_solver_last_error(solver), "keep_step_ratio_high"));
    CHECK_STATUS(esdirk_solver_set_controller(solver, 1, 1.0, 1.0, 0.9, 0.2, 10.0), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x, 1, &z, 1, NULL, 0), ESDIRK_SUCCESS);
  }

  /* The Newton stopping test: the correction-size test takes more iterations at the same
   * tolerance; the default again gives the default run bit for bit; bad values refused. */
  {
    int64_t iterations_rate = 0, iterations_correction = 0, steps_again = 0;
    const double error_rate = run(solver, 1e-8, &steps);
    CHECK_STATUS(esdirk_solver_get_counter(solver, "newton_iterations", &iterations_rate), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_CORRECTION, 0.03), ESDIRK_SUCCESS);
    run(solver, 1e-8, &steps_again);
    CHECK_STATUS(esdirk_solver_get_counter(solver, "newton_iterations", &iterations_correction),
                 ESDIRK_SUCCESS);
    CHECK(iterations_correction > iterations_rate);
    CHECK_STATUS(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_RESIDUAL, 0.03), ESDIRK_SUCCESS);
    CHECK(run(solver, 1e-8, &steps_again) < 1e-6);
    CHECK_STATUS(esdirk_solver_set_newton_test(solver, 3, 0.03), ESDIRK_INVALID_ARGUMENT);
    CHECK(contains(esdirk_solver_last_error(solver), "ESDIRK_NEWTON_CONTRACTION_RATE"));
    CHECK_STATUS(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_CONTRACTION_RATE, 1.0),
                 ESDIRK_INVALID_ARGUMENT);
    CHECK(contains(esdirk_solver_last_error(solver), "newton_rate_floor"));
    CHECK_STATUS(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_CONTRACTION_RATE, -0.1),
                 ESDIRK_INVALID_ARGUMENT);
    CHECK_STATUS(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_CONTRACTION_RATE, NAN),
                 ESDIRK_INVALID_ARGUMENT);
    CHECK_STATUS(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_CONTRACTION_RATE, 0.03), ESDIRK_SUCCESS);
    CHECK(run(solver, 1e-8, &steps_again) == error_rate && steps_again == steps);
    CHECK_STATUS(esdirk_solver_get_counter(solver, "newton_iterations", &value), ESDIRK_SUCCESS);
    CHECK(value == iterations_rate);
  }

  /* NULL handles. */
  CHECK_STATUS(esdirk_solver_set_tolerance_rule(NULL, ESDIRK_TOLERANCE_RAW, 0.0),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_method(NULL, "auto"), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_jacobian_reuse(NULL, 1, 0.1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(NULL, 1.0, 1.0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_lu_reuse_h_change(NULL, 0.3), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_difference_increment(NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_difference_increment(NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_difference_increment(NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_difference_increment(NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_difference_increment(NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK(esdirk_solver_method_name(NULL) == NULL);
  CHECK_STATUS(esdirk_solver_set_newton_test(NULL, 0, 0.03), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_newton_test(NULL, 0, 0.03), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_newton_test(NULL, 0, 0.03), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_newton_test(NULL, 0, 0.03), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_newton_test(NULL, 0, 0.03), ESDIRK_NULL_ARGUMENT);

  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  return report();
}
