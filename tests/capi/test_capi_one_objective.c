/* One objective handle for both adjoints: esdirk_objective (esdirk_adjoint.h) with
 * esdirk_objective_set_outputs serves esdirk_hybrid_solver_adjoint_gradient, in place of the
 * deprecated esdirk_hybrid_objective_* (esdirk_hybrid_objective is now the same type). Checked:
 * the gradient of a hybrid run through the one handle equals the one through the deprecated
 * functions to the last bit and the closed form; each gradient refuses the terms its run does
 * not have (ESDIRK_INVALID_ARGUMENT, nothing written, the recording kept); the deprecated
 * functions keep their statuses and messages. */
#ifndef ESDIRK_NO_DEPRECATION_WARNINGS /* the deprecated functions are compared on purpose */
#define ESDIRK_NO_DEPRECATION_WARNINGS
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_hybrid_adjoint.h"
#include "esdirk/esdirk_options.h"

#include "hyperbola_model.h"

/* C_k = (k + 1) x(t_k). */
static int weighted_output(esdirk_int k, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int rows,
                           double t, const double* x, const double* z, const double* p, double* dx,
                           esdirk_int lddx, double* dz, esdirk_int lddz, double* dp, esdirk_int lddp,
                           void* user_data) {
  (void)nx, (void)nz, (void)np, (void)rows, (void)t, (void)x, (void)z, (void)p, (void)lddx, (void)dz,
      (void)lddz, (void)dp, (void)lddp, (void)user_data;
  dx[0] = (double)(k + 1);
  return 0;
}

static int running(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int rows, double t,
                   const double* x, const double* z, const double* p, double* dx, esdirk_int lddx,
                   double* dz, esdirk_int lddz, double* dp, esdirk_int lddp, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)rows, (void)t, (void)x, (void)z, (void)p, (void)lddx, (void)dz,
      (void)lddz, (void)dp, (void)lddp, (void)user_data;
  dx[0] = 1.0;
  return 0;
}

static const double times[3] = {0.5, 1.0, 2.0};
static const double W[2] = {1.0, 0.0}; /* terminal C = x(2) */

/* A recording hybrid solver run with outputs at 0.5, 1 and 2. */
static void hybrid_recorded_run(esdirk_hybrid_solver* hs) {
  const double x0 = 1.0, z0 = 1.0;
  double x, z, t;
  CHECK_STATUS(esdirk_hybrid_solver_initialize(hs, 0.0, 0, &x0, 1, &z0, 1, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  for (int k = 0; k < 3; ++k)
    CHECK_STATUS(esdirk_hybrid_solver_integrate_to(hs, times[k], &x, 1, &z, 1, &t), ESDIRK_SUCCESS);
}

static void solver_recorded_run(esdirk_solver* s) {
  const double x0 = 1.0, z0 = 1.0;
  double x, z;
  CHECK_STATUS(esdirk_solver_initialize(s, 0.0, &x0, 1, &z0, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(s, 2.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(s, 2.0, &x, 1, &z, 1), ESDIRK_SUCCESS);
}

static void hybrid_gradient_through_one_objective(esdirk_options* recording) {
  esdirk_hybrid_problem* hp = NULL;
  esdirk_hybrid_solver* hs = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 1, 0, 0, 0, hybrid_hyperbola, NULL, &hp), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(hp, &hs), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_options(hs, recording), ESDIRK_SUCCESS);
  hybrid_recorded_run(hs);

  esdirk_objective* one = NULL;
  esdirk_hybrid_objective* old = NULL;
  CHECK_STATUS(esdirk_objective_create(1, &one), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_terminal_weights(one, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_outputs(one, weighted_output, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_create(1, &old), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(old, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_outputs(old, weighted_output, NULL), ESDIRK_SUCCESS);
  double g_one = 0.0, g_old = 0.0;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(hs, one, &g_one, 1, 1, NULL, 0, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(hs, old, &g_old, 1, 1, NULL, 0, 0), ESDIRK_SUCCESS);
  CHECK(memcmp(&g_one, &g_old, sizeof g_one) == 0);
  /* sum_k (k + 1) / (1 + t_k)^2 + 1 / 9 */
  const double exact = 1.0 / 2.25 + 2.0 / 4.0 + 3.0 / 9.0 + 1.0 / 9.0;
  CHECK(fabs(g_one - exact) < 1e-5);

  /* Terms a hybrid run does not have: refused, nothing written, the recording kept. */
  double untouched = -7.0;
  CHECK_STATUS(esdirk_objective_set_running(one, running, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(hs, one, &untouched, 1, 1, NULL, 0, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(hs), "running cost") != NULL);
  CHECK(untouched == -7.0);
  CHECK_STATUS(esdirk_objective_set_running(one, NULL, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_output_times(one, times, 3, weighted_output, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(hs, one, &untouched, 1, 1, NULL, 0, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(hs), "esdirk_objective_set_output_times") != NULL);
  CHECK(untouched == -7.0);
  CHECK_STATUS(esdirk_objective_set_output_times(one, NULL, 0, NULL, NULL), ESDIRK_SUCCESS);
  double again = 0.0;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(hs, one, &again, 1, 1, NULL, 0, 0), ESDIRK_SUCCESS);
  CHECK(memcmp(&again, &g_one, sizeof again) == 0);
  /* NULL removes the outputs: the terminal term alone, 1/9. */
  CHECK_STATUS(esdirk_objective_set_outputs(one, NULL, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(hs, one, &again, 1, 1, NULL, 0, 0), ESDIRK_SUCCESS);
  CHECK(fabs(again - 1.0 / 9.0) < 1e-5);

  esdirk_hybrid_objective_free(&old);
  CHECK(old == NULL);
  esdirk_objective_free(&one);
  esdirk_hybrid_solver_free(&hs);
  esdirk_hybrid_problem_free(&hp);
}

static void solver_refuses_the_outputs_term(esdirk_options* recording) {
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 0, hyperbola, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(solver, recording), ESDIRK_SUCCESS);
  solver_recorded_run(solver);
  esdirk_objective* objective = NULL;
  CHECK_STATUS(esdirk_objective_create(1, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_outputs(objective, weighted_output, NULL), ESDIRK_SUCCESS);
  double untouched = -7.0, g = 0.0;
  CHECK_STATUS(esdirk_solver_adjoint_gradient(solver, objective, &untouched, 1, 1, NULL, 0, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "esdirk_objective_set_outputs") != NULL);
  CHECK(untouched == -7.0);
  int passed = 1;
  double worst = -1.0;
  char summary[256];
  CHECK_STATUS(esdirk_solver_check_gradient(solver, objective, &g, 1, 1, NULL, 0, 0, 1e-6, 1, 1u, &worst,
                                            &passed, summary, sizeof summary),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_objective_set_outputs(objective, NULL, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(solver, objective, &g, 1, 1, NULL, 0, 0), ESDIRK_SUCCESS);
  CHECK(fabs(g - 1.0 / 9.0) < 1e-5);
  /* A handle made by the deprecated hybrid create is the same type and serves the solver too. */
  esdirk_hybrid_objective* old = NULL;
  double g_old = 0.0;
  CHECK_STATUS(esdirk_hybrid_objective_create(1, &old), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(old, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(solver, old, &g_old, 1, 1, NULL, 0, 0), ESDIRK_SUCCESS);
  CHECK(memcmp(&g, &g_old, sizeof g) == 0);
  esdirk_hybrid_objective_free(&old);
  esdirk_objective_free(&objective);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
}

static void bad_input_keeps_its_statuses_and_messages(void) {
  esdirk_objective* one = NULL;
  esdirk_hybrid_objective* old = NULL;
  CHECK_STATUS(esdirk_objective_set_outputs(NULL, weighted_output, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_objective_set_outputs(NULL, weighted_output, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_objective_create(0, &one), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_objective_create(0, &old), ESDIRK_INVALID_ARGUMENT);
  CHECK(one == NULL && old == NULL);
  CHECK_STATUS(esdirk_objective_create(1, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_objective_create(1, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK(strcmp(esdirk_objective_last_error(NULL), "null objective handle") == 0);
  CHECK(strcmp(esdirk_hybrid_objective_last_error(NULL), "null hybrid objective handle") == 0);
  CHECK_STATUS(esdirk_objective_set_terminal(NULL, NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal(NULL, NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_objective_create(2, &one), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_create(2, &old), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_terminal_weights(one, NULL, 2, 2), ESDIRK_NULL_ARGUMENT);
  CHECK(strcmp(esdirk_objective_last_error(one), "set_terminal_weights: W is NULL") == 0);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(old, NULL, 2, 2), ESDIRK_NULL_ARGUMENT);
  CHECK(strcmp(esdirk_hybrid_objective_last_error(old), "hybrid set_terminal_weights: W is NULL") == 0);
  const double bad[4] = {1.0, NAN, 0.0, 1.0};
  CHECK_STATUS(esdirk_objective_set_terminal_weights(one, bad, 2, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_objective_last_error(one), "ldw >= n") != NULL);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(old, bad, 2, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strcmp(esdirk_hybrid_objective_last_error(old), "hybrid set_terminal_weights: W has non-finite entries") ==
        0);
  esdirk_hybrid_objective_free(&old);
  esdirk_hybrid_objective_free(&old); /* a NULL handle: a no-op */
  esdirk_objective_free(&one);
  esdirk_hybrid_objective_free(NULL);
}

int main(void) {
  esdirk_options* recording = NULL;
  CHECK_STATUS(esdirk_options_create(&recording), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_tolerances(recording, 1e-8, 1e-10), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_adjoint(recording, 1, 0), ESDIRK_SUCCESS);
  hybrid_gradient_through_one_objective(recording);
  solver_refuses_the_outputs_term(recording);
  bad_input_keeps_its_statuses_and_messages();
  esdirk_options_free(&recording);
  return report();
}
