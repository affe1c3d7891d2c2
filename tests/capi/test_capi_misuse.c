/* Every C API function called with NULL or invalid arguments, or in the wrong order: each
 * returns its documented negative status and never crashes. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"

static int decay(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)z;
  (void)p;
  (void)g;
  (void)user_data;
  f[0] = -x[0];
  return 0;
}

static void test_null_handles(void) {
  double v = 1.0, t;
  esdirk_statistics stats;
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, decay, NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, NULL, NULL, &problem), ESDIRK_NULL_ARGUMENT);
  CHECK(problem == NULL);
  CHECK_STATUS(esdirk_problem_set_jacobian(NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_problem_set_parameter_jacobian(NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_create(NULL, &solver), ESDIRK_NULL_ARGUMENT);
  CHECK(solver == NULL);
  CHECK_STATUS(esdirk_solver_create(NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_tolerances(NULL, 1e-6, 1e-6), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_tolerance_vectors(NULL, &v, &v, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_algebraic_atol(NULL, &v, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_step_limits(NULL, 0, 0, 1, 10), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_controller(NULL, 1, 1, 1, 0.9, 0.2, 5), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_newton(NULL, 8, 0.1, 0.3), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_filter_error_estimate(NULL, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_failure_limits(NULL, 12, 12, 12), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_initialize(NULL, 0, &v, 1, NULL, 0, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_restart(NULL, 0, &v, 1, NULL, 0, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_integrate_to(NULL, 1, &v, 1, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_step(NULL, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_stop_time(NULL, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_clear_stop_time(NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_dense_output(NULL, 1, &v, 1, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_get_state(NULL, &t, &v, 1, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_get_statistics(NULL, &stats), ESDIRK_NULL_ARGUMENT);
  CHECK(strlen(esdirk_solver_last_error(NULL)) > 0);
  /* Sensitivities, shooting intervals, structural analysis. */
  double A[1], B[1], H, q[1], r[1], seed[1] = {1.0};
  esdirk_shooting* shooting = NULL;
  size_t length = 0;
  char buffer[16];
  esdirk_int e[1] = {0}, c[1];
  CHECK_STATUS(esdirk_solver_set_sensitivity_options(NULL, ESDIRK_SENSITIVITY_EXACT, 0),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_start_sensitivities(NULL, seed, 1, 1, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_integrate_sensitivities_to(NULL, 1, &v, 1, NULL, 0, A, 1, NULL, 0, 1),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_create(NULL, &shooting), ESDIRK_NULL_ARGUMENT);
  CHECK(shooting == NULL);
  CHECK_STATUS(esdirk_shooting_create(NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_tolerances(NULL, 1e-6, 1e-6), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_algebraic_atol(NULL, &v, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_mode(NULL, ESDIRK_SENSITIVITY_PAPER),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_running_cost(NULL, NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_integrate(NULL, 0, 1, &v, 1, NULL, 0, NULL, 0, &v, NULL, A, 1, B, 1,
                                         &H, q, r),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_get_algebraic_sensitivities(NULL, A, 1, B, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_get_statistics(NULL, 1, &stats), ESDIRK_NULL_ARGUMENT);
  CHECK(strlen(esdirk_shooting_last_error(NULL)) > 0);
  esdirk_shooting_free(NULL);
  esdirk_shooting_free(&shooting);
  CHECK_STATUS(esdirk_structural_report(NULL, 0, buffer, sizeof buffer, &length, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_structural_report("model m", 0, buffer, sizeof buffer, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_structural_sigma(1, 1, 1, NULL, e, e, c, c, NULL, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_structural_sigma(0, 1, 0, e, e, e, c, c, NULL, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT);
  /* Freeing NULL, or a pointer to NULL, is a no-op. */
  esdirk_problem_free(NULL);
  esdirk_problem_free(&problem);
  esdirk_solver_free(NULL);
  esdirk_solver_free(&solver);
}

static void test_invalid_arguments_and_call_order(void) {
  double v = 1.0, t, x[2];
  esdirk_statistics stats = ESDIRK_STATISTICS_INIT;
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_problem_create(0, 0, 0, decay, NULL, &problem), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_problem_create(1, -1, 0, decay, NULL, &problem), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_problem_create(1, 0, -3, decay, NULL, &problem), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, decay, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);

  /* Wrong order: nothing works before a successful initialize. */
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, &v, 1, NULL, 0), ESDIRK_WRONG_CALL_ORDER);
  CHECK(strstr(esdirk_solver_last_error(solver), "initialize") != NULL);
  CHECK_STATUS(esdirk_solver_step(solver, 1.0), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_solver_restart(solver, 0.0, &v, 1, NULL, 0, NULL, 0),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_solver_set_stop_time(solver, 1.0), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_solver_clear_stop_time(solver), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_solver_dense_output(solver, 0.0, &v, 1, NULL, 0), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_solver_get_state(solver, &t, &v, 1, NULL, 0), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_solver_get_statistics(solver, &stats), ESDIRK_SUCCESS); /* all zero */
  CHECK(stats.steps == 0);

  /* Invalid values and sizes. */
  CHECK_STATUS(esdirk_solver_set_tolerances(solver, -1.0, 1e-6), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_tolerances(solver, NAN, 1e-6), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_tolerance_vectors(solver, &v, NULL, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_tolerance_vectors(solver, x, x, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_algebraic_atol(solver, &v, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, NULL, 1, NULL, 0, NULL, 0),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, 2, NULL, 0, NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "do not match") != NULL);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &v, 1, NULL, 1, NULL, 0),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_initialize(solver, NAN, &v, 1, NULL, 0, NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  /* Invalid options are reported by the next initialize, naming the option. */
  CHECK_STATUS(esdirk_solver_set_controller(solver, 1, 1.0, 1.0, 2.0, 0.2, 5.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &v, 1, NULL, 0, NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "safety") != NULL);
  CHECK_STATUS(esdirk_solver_set_controller(solver, 1, 1.0, 1.0, 0.9, 0.2, 5.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_newton(solver, 0, 0.1, 0.3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &v, 1, NULL, 0, NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_newton(solver, 8, 0.1, 0.3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &v, 1, NULL, 0, NULL, 0), ESDIRK_SUCCESS);

  /* After initialize: wrong sizes, NULL outputs, output times. */
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, x, 2, NULL, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, NULL, 1, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 0.0, &v, 1, NULL, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "initial time") != NULL);
  CHECK_STATUS(esdirk_solver_get_statistics(solver, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_get_state(solver, NULL, &v, 1, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, &v, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK(fabs(v - exp(-1.0)) < 1e-4);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, -1.0, &v, 1, NULL, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_dense_output(solver, 5.0, &v, 1, NULL, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_dense_output(solver, 1.0, &v, 1, &v, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_stop_time(solver, 0.5), ESDIRK_INVALID_ARGUMENT); /* behind t */
  CHECK_STATUS(esdirk_solver_restart(solver, 1.0, x, 2, NULL, 0, NULL, 0), ESDIRK_INVALID_ARGUMENT);
  /* Sensitivities: invalid mode, no parameters to seed beyond nx + np = 1, wrong order. */
  CHECK_STATUS(esdirk_solver_set_sensitivity_options(solver, 7, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(
      esdirk_solver_integrate_sensitivities_to(solver, 2.0, &v, 1, NULL, 0, x, 1, NULL, 0, 1),
      ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, NULL, 1, 2, 1), ESDIRK_INVALID_ARGUMENT);
  double t_start, x_start;
  CHECK_STATUS(esdirk_solver_get_state(solver, &t_start, &x_start, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, NULL, 1, 1, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_solver_integrate_sensitivities_to(solver, 2.0, &v, 1, NULL, 0, NULL, 1, NULL, 0, 1),
      ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(
      esdirk_solver_integrate_sensitivities_to(solver, 2.0, &v, 1, NULL, 0, x, 0, NULL, 0, 1),
      ESDIRK_INVALID_ARGUMENT); /* leading dimension below nx */
  CHECK_STATUS(
      esdirk_solver_integrate_sensitivities_to(solver, 2.0, &v, 1, NULL, 0, x, 1, NULL, 0, 1),
      ESDIRK_SUCCESS);
  /* Seeded at the solver's current point t_start (integrate_to may have stepped past 1):
   * dx(2)/dx(t_start) = exp(-(2 - t_start)) for x' = -x. */
  CHECK(fabs(x[0] - exp(-(2.0 - t_start))) < 1e-4);
  /* Shooting: invalid mode, sizes, leading dimensions, a NULL algebraic tolerance. */
  esdirk_shooting* sh = NULL;
  CHECK_STATUS(esdirk_shooting_create(problem, &sh), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_mode(sh, -4), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_tolerances(sh, -1.0, 1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_algebraic_atol(sh, &v, 1), ESDIRK_INVALID_ARGUMENT);
  double xn[1], Am[1];
  CHECK_STATUS(esdirk_shooting_integrate(sh, 0.0, 1.0, &v, 2, NULL, 0, NULL, 0, xn, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_integrate(sh, 0.0, 1.0, &v, 1, NULL, 0, NULL, 0, xn, NULL, Am, 0,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_integrate(sh, 1.0, 0.5, &v, 1, NULL, 0, NULL, 0, xn, NULL, Am, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT); /* negative length */
  CHECK_STATUS(esdirk_shooting_integrate(sh, 0.0, 1.0, &v, 1, NULL, 0, NULL, 0, NULL, NULL, Am, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_integrate(sh, 0.0, 1.0, &v, 1, NULL, 0, NULL, 0, xn, NULL, Am, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  esdirk_shooting_free(&sh);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
}

int main(void) {
  test_null_handles();
  test_invalid_arguments_and_call_order();
  return report();
}
