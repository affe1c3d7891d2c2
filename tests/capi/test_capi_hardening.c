/* Regression tests of the C API found by hostile use (issue "Hardening"): each case is named
 * after what broke. */
#include <math.h>
#include <stddef.h>

#include "check.h"
#include "esdirk/esdirk.h"

/* x' = -x; when user_data points at a solver, the callback tries to re-initialize it. */
static int decay(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx; (void)nz; (void)np; (void)t; (void)z; (void)p; (void)g;
  f[0] = -x[0];
  if (user_data) {
    esdirk_solver* solver = *(esdirk_solver**)user_data;
    const double x0 = 5.0;
    /* Re-entrant calls are refused while the solver runs, and so is freeing it. */
    if (solver) {
      if (esdirk_solver_initialize(solver, 0.0, &x0, 1, NULL, 0, NULL, 0) != ESDIRK_WRONG_CALL_ORDER) return -1;
      esdirk_solver_free(&solver);
      if (!solver) return -1;
    }
  }
  return 0;
}

/* x' = cos(1e4 t): a fast oscillation that needs ~1e9 steps over [0, 1e6]. */
static int oscillation(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                       const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx; (void)nz; (void)np; (void)x; (void)z; (void)p; (void)g; (void)user_data;
  f[0] = cos(1e4 * t);
  return 0;
}

static void reentrant_initialize_from_a_callback_is_refused(void) {
  esdirk_solver* solver = NULL;
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, decay, &solver, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  const double x0 = 1.0;
  double x = 0.0, t = 0.0;
  esdirk_solver* during_init = solver;
  solver = NULL; /* the callback must not re-enter during this initialize */
  CHECK_STATUS(esdirk_solver_initialize(during_init, 0.0, &x0, 1, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  solver = during_init; /* now every callback tries to re-initialize and to free it */
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK(fabs(x - exp(-1.0)) < 1e-4);
  CHECK_STATUS(esdirk_solver_get_state(solver, &t, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK(t >= 1.0);
  esdirk_solver* gone = solver;
  solver = NULL;
  esdirk_solver_free(&gone);
  CHECK(gone == NULL);
  esdirk_problem_free(&problem);
}

static void a_rejected_initialize_keeps_the_previous_state(void) {
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, decay, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  const double x0 = 1.0, bad = NAN;
  double x = 0.0, t = 0.0;
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x0, 1, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &bad, 1, NULL, 0, NULL, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_get_state(solver, &t, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK(t >= 1.0);            /* not t = 0, x = 0 of a half-made integrator */
  CHECK(fabs(x - exp(-t)) < 1e-4);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 2.0, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
}

/* x' = -x, with f = NaN for x > 100 (no start possible there). */
static int decay_below_100(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                           const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx; (void)nz; (void)np; (void)t; (void)z; (void)p; (void)g; (void)user_data;
  f[0] = x[0] > 100.0 ? NAN : -x[0];
  return 0;
}

/* Found by fuzz_capi_setup: a restart that failed at the new point had moved the solver there
 * (get_state returned success with the rejected t and x). */
static void a_failed_restart_keeps_the_previous_state(void) {
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, decay_below_100, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  const double x0 = 1.0, far = 200.0;
  double x = 0.0, t = 0.0, x_before = 0.0, t_before = 0.0;
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x0, 1, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_get_state(solver, &t_before, &x_before, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_restart(solver, 5.0, &far, 1, NULL, 0, NULL, 0), ESDIRK_CALLBACK_FAILURES);
  CHECK_STATUS(esdirk_solver_get_state(solver, &t, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK(t == t_before && x == x_before);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 2.0, &x, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK(fabs(x - exp(-2.0)) < 1e-4);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
}

static void a_shooting_interval_has_a_step_bound(void) {
  esdirk_problem* problem = NULL;
  esdirk_shooting* shooting = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, oscillation, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_max_steps(shooting, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_max_steps(shooting, 2000), ESDIRK_SUCCESS);
  const double x0 = 0.0;
  double x1 = 0.0, A = 0.0, H = 0.0, q = 0.0;
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1e6, &x0, 1, NULL, 0, NULL, 0, &x1, NULL,
                                         &A, 1, NULL, 1, &H, &q, NULL),
               ESDIRK_TOO_MANY_STEPS);
  esdirk_shooting_free(&shooting);
  esdirk_problem_free(&problem);
}

static void sizes_beyond_the_supported_range_are_invalid_arguments(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(1 << 30, 1 << 30, 0, decay, NULL, &problem), ESDIRK_INVALID_ARGUMENT);
  CHECK(problem == NULL);
  CHECK_STATUS(esdirk_problem_create(1, 0, 2147483647, decay, NULL, &problem), ESDIRK_INVALID_ARGUMENT);
  CHECK(problem == NULL);
}

int main(void) {
  reentrant_initialize_from_a_callback_is_refused();
  a_rejected_initialize_keeps_the_previous_state();
  a_failed_restart_keeps_the_previous_state();
  a_shooting_interval_has_a_step_bound();
  sizes_beyond_the_supported_range_are_invalid_arguments();
  return report();
}
