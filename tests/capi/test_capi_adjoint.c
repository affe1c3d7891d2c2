/* The adjoint C API (esdirk_adjoint.h): gradients against the forward sensitivities of the C
 * API on the same steps (terminal weights, a terminal callback, an output time), the
 * checkpointed gradient bit for bit, the reverse-mode shooting interval against the forward
 * one, the counters, and bad input (adjoint before a run, after a failed one or a restart,
 * wrong sizes, NaN and failing objective callbacks, NULL pointers, calls from callbacks). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_method.h"

/* x0' = -x0 + u0 z,  x1' = x0 - u1 x1^2,  0 = z^3 + z - x1 (index 1), two parameters u. */
static int residual(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                    const double* z, const double* u, double* f, double* g, void* data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)data;
  f[0] = -x[0] + u[0] * z[0];
  f[1] = x[0] - u[1] * x[1] * x[1];
  g[0] = z[0] * z[0] * z[0] + z[0] - x[1];
  return 0;
}

static int jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                    const double* z, const double* u, double* J, esdirk_int ld, void* data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)data;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) J[j * ld + i] = 0.0;
  J[0 * ld + 0] = -1.0;
  J[2 * ld + 0] = u[0];
  J[0 * ld + 1] = 1.0;
  J[1 * ld + 1] = -2.0 * u[1] * x[1];
  J[1 * ld + 2] = -1.0;
  J[2 * ld + 2] = 3.0 * z[0] * z[0] + 1.0;
  return 0;
}

static int parameter_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                              const double* x, const double* z, const double* u, double* Jp,
                              esdirk_int ld, void* data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)u, (void)data;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i) Jp[j * ld + i] = 0.0;
  Jp[0 * ld + 0] = z[0];
  Jp[1 * ld + 1] = -x[1] * x[1];
  return 0;
}

/* h = x0^2 + z^2 + u0^2 + u1 x1 / 2 */
static int running_cost(esdirk_int nx, esdirk_int nz, esdirk_int nu, double t, const double* x,
                        const double* z, const double* u, double* h, double* hx, double* hz,
                        double* hu, void* data) {
  (void)nx, (void)nz, (void)nu, (void)t;
  *h = x[0] * x[0] + z[0] * z[0] + u[0] * u[0] + 0.5 * u[1] * x[1];
  hx[0] = 2.0 * x[0];
  hx[1] = 0.5 * u[1];
  hz[0] = 2.0 * z[0];
  hu[0] = 2.0 * u[0];
  hu[1] = 0.5 * x[1];
  if (data && *(const int*)data) hx[1] = NAN; /* a broken gradient, for the bad-input case */
  return 0;
}

static const double x0[2] = {1.0, 0.5}, u0[2] = {0.8, 1.2}, zguess[1] = {0.4};
static const double t_out = 0.3, t_end = 0.8;

/* Row 1 of the two-row objective: C = x0(tf)^2 (a callback); row 0 has terminal weights. */
static int terminal_square(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int rows, double t,
                           const double* x, const double* z, const double* p, double* dx,
                           esdirk_int lddx, double* dz, esdirk_int lddz, double* dp,
                           esdirk_int lddp, void* data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)p, (void)dz, (void)lddz, (void)dp,
      (void)lddp, (void)data;
  dx[0] = 2.0 * x[0];       /* row 0: d(x0^2)/dx */
  if (rows > 1) dx[lddx] = 0.0;
  return 0;
}

/* The output term at t_out: C_0 = x1(t_out) in row 0. */
static int output_term(esdirk_int k, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int rows,
                       double t, const double* x, const double* z, const double* p, double* dx,
                       esdirk_int lddx, double* dz, esdirk_int lddz, double* dp, esdirk_int lddp,
                       void* data) {
  (void)k, (void)nx, (void)nz, (void)np, (void)rows, (void)t, (void)x, (void)z, (void)p,
      (void)lddx, (void)dz, (void)lddz, (void)dp, (void)lddp, (void)data;
  dx[1] = 1.0;
  return 0;
}

/* What a misbehaving objective does: NaN (mode 0), a failure (1), a fatal code (2), or a call
 * of its own solver from inside the callback (3). */
struct bad_objective {
  int mode;
  esdirk_solver* solver;
  esdirk_objective* objective;
  int inner_status;
};
static int bad_terminal(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int rows, double t,
                        const double* x, const double* z, const double* p, double* dx,
                        esdirk_int lddx, double* dz, esdirk_int lddz, double* dp, esdirk_int lddp,
                        void* data) {
  (void)nz, (void)np, (void)rows, (void)t, (void)x, (void)z, (void)p, (void)lddx, (void)dz,
      (void)lddz, (void)dp, (void)lddp;
  struct bad_objective* b = (struct bad_objective*)data;
  if (b->mode == 0) dx[0] = NAN;
  if (b->mode == 1) return 1;
  if (b->mode == 2) return -3;
  if (b->mode == 3) {
    double g[2], gp[2];
    b->inner_status = esdirk_solver_adjoint_gradient(b->solver, b->objective, g, nx, nx, gp, 2, 2);
  }
  return 0;
}

static double max_relative(const double* a, const double* b, int n) {
  double diff = 0.0, scale = 0.0;
  for (int i = 0; i < n; ++i) {
    diff = fmax(diff, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  return diff / scale;
}

/* A solver recording the adjoint over [0, t_out, t_end] with the given budget. */
static esdirk_solver* recorded_run(esdirk_problem* problem, long budget) {
  esdirk_solver* s = NULL;
  double x[2], z[1];
  CHECK_STATUS(esdirk_solver_create(problem, &s), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_tolerances(s, 1e-7, 1e-9), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_adjoint(s, 1, budget), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(s, 0.0, x0, 2, zguess, 1, u0, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(s, t_out), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(s, t_out, x, 2, z, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(s, t_end), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(s, t_end, x, 2, z, 1), ESDIRK_SUCCESS);
  return s;
}

static void gradient_equals_forward_sensitivities(esdirk_problem* problem) {
  /* The forward sensitivities on the same steps: exact mode, kept out of the error test. */
  esdirk_solver* f = NULL;
  double x[2], z[1], S1[8], Sz1[4], S2[8], Sz2[4];
  CHECK_STATUS(esdirk_solver_create(problem, &f), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_tolerances(f, 1e-7, 1e-9), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_sensitivity_options(f, ESDIRK_SENSITIVITY_EXACT, ESDIRK_ERROR_CONTROL_OFF),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(f, 0.0, x0, 2, zguess, 1, u0, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_start_sensitivities(f, NULL, 4, 4, 4), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(f, t_out), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_sensitivities_to(f, t_out, x, 2, z, 1, S1, 2, Sz1, 1, 4),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(f, t_end), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_sensitivities_to(f, t_end, x, 2, z, 1, S2, 2, Sz2, 1, 4),
               ESDIRK_SUCCESS);

  esdirk_solver* s = recorded_run(problem, 0);
  int64_t forward_steps = 0, adjoint_steps = -1;
  CHECK_STATUS(esdirk_solver_get_counter(f, "accepted_steps", &forward_steps), ESDIRK_SUCCESS);

  /* Row 0: W^T [x; z](tf) + x1(t_out); row 1: x0(tf)^2. */
  const double W[6] = {0.5, -1.5, 2.0, 0.0, 0.0, 0.0};
  esdirk_objective* weights = NULL;
  esdirk_objective* square = NULL;
  CHECK_STATUS(esdirk_objective_create(2, &weights), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_terminal_weights(weights, W, 3, 3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_output_times(weights, &t_out, 1, output_term, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_create(1, &square), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_terminal(square, terminal_square, NULL), ESDIRK_SUCCESS);

  double dx0[4], dp[4], dx0_sq[2], dp_sq[2];
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, weights, dx0, 2, 2, dp, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, square, dx0_sq, 2, 2, dp_sq, 2, 2), ESDIRK_SUCCESS);

  /* Forward: d/d(theta_j) of row 0 = W_x . S2(:, j) + W_z Sz2(0, j) + S1(1, j); x = final state. */
  double expected[4], expected_sq[4], got[4], got_sq[4];
  for (int j = 0; j < 4; ++j) {
    expected[j] = W[0] * S2[2 * j] + W[1] * S2[2 * j + 1] + W[2] * Sz2[j] + S1[2 * j + 1];
    expected_sq[j] = 2.0 * x[0] * S2[2 * j];
  }
  for (int j = 0; j < 2; ++j) {
    got[j] = dx0[j];
    got[2 + j] = dp[j];
    got_sq[j] = dx0_sq[j];
    got_sq[2 + j] = dp_sq[j];
  }
  const double e0 = max_relative(got, expected, 4), e1 = max_relative(got_sq, expected_sq, 4);
  printf("adjoint against forward: row 0 %.2e, terminal callback %.2e\n", e0, e1);
  CHECK(e0 <= 1e-12);
  CHECK(e1 <= 1e-12);
  /* Row 1 of the weights objective is W(:, 1) = 0: a zero gradient. */
  CHECK(dx0[2] == 0.0 && dx0[3] == 0.0 && dp[2] == 0.0 && dp[3] == 0.0);

  /* The run-time check: the gradient against forward directional derivatives. */
  double worst = 1.0, bad[4];
  int passed = 0;
  char summary[256], tiny[8];
  CHECK_STATUS(esdirk_solver_check_gradient(s, weights, dx0, 2, 2, dp, 2, 2, 1e-12, 1, 0, &worst, &passed,
                                            summary, sizeof summary),
               ESDIRK_SUCCESS);
  CHECK(passed == 1 && worst <= 1e-12);
  CHECK(strstr(summary, "passed") != NULL);
  CHECK_STATUS(esdirk_solver_check_gradient(s, weights, dx0, 2, 2, dp, 2, 2, 1e-12, 0, 7u, &worst, &passed,
                                            NULL, 0),
               ESDIRK_SUCCESS);
  CHECK(passed == 1);
  memcpy(bad, dx0, sizeof bad);
  bad[1] *= 1.01; /* a wrong d(row 0)/dx0_2 is caught and named */
  CHECK_STATUS(esdirk_solver_check_gradient(s, weights, bad, 2, 2, dp, 2, 2, 1e-8, 1, 0, &worst, &passed,
                                            summary, sizeof summary),
               ESDIRK_SUCCESS);
  CHECK(passed == 0 && worst > 1e-4);
  printf("a wrong gradient: %s\n", summary);
  CHECK(strstr(summary, "FAILED") != NULL && strstr(summary, "row 0, d/dx[1]") != NULL);
  passed = -1;
  CHECK_STATUS(esdirk_solver_check_gradient(s, weights, dx0, 2, 2, dp, 2, 2, 1e-12, 1, 0, &worst, &passed,
                                            tiny, sizeof tiny),
               ESDIRK_BUFFER_TOO_SMALL);
  CHECK(passed == 1 && tiny[7] == '\0' && strlen(tiny) == 7);
  CHECK_STATUS(esdirk_solver_check_gradient(s, weights, dx0, 2, 2, NULL, 2, 2, 1e-12, 1, 0, &worst, &passed,
                                            NULL, 0),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_check_gradient(s, weights, dx0, 2, 2, dp, 2, 2, -1.0, 1, 0, &worst, &passed,
                                            NULL, 0),
               ESDIRK_INVALID_ARGUMENT);

  /* The report and the statistics by name. */
  esdirk_adjoint_report report = ESDIRK_ADJOINT_REPORT_INIT;
  CHECK_STATUS(esdirk_solver_get_adjoint_report(s, &report), ESDIRK_SUCCESS);
  CHECK(report.adjoint_steps == forward_steps);
  /* s - 1 implicit stages per step, s of the method the default "auto" resolves at rtol 1e-7. */
  const int stages = esdirk_method_stages(esdirk_solver_method_name(s), 0.0);
  CHECK(stages == esdirk_method_stages("auto", 1e-7) && stages == 6);
  CHECK(report.stage_factorizations == (stages - 1) * forward_steps);
  CHECK(report.transposed_solves == (stages - 1) * forward_steps); /* the last sweep had one row */
  CHECK(report.checkpoints == 0 && report.recomputed_steps == 0);
  CHECK_STATUS(esdirk_solver_get_counter(s, "adjoint_steps", &adjoint_steps), ESDIRK_SUCCESS);
  CHECK(adjoint_steps == forward_steps);
  int64_t solves = -1;
  CHECK_STATUS(esdirk_solver_get_counter(s, "adjoint_transposed_solves", &solves), ESDIRK_SUCCESS);
  CHECK(solves == report.transposed_solves);

  /* With a memory budget of two records: checkpoints, replays, the same bits. */
  esdirk_solver* bounded = recorded_run(problem, 2 * (5 + stages * (2 * 2 + 2 * 1 + 1)));
  double dx0_b[4], dp_b[4];
  CHECK_STATUS(esdirk_solver_adjoint_gradient(bounded, weights, dx0_b, 2, 2, dp_b, 2, 2), ESDIRK_SUCCESS);
  CHECK(memcmp(dx0_b, dx0, sizeof dx0) == 0 && memcmp(dp_b, dp, sizeof dp) == 0);
  esdirk_adjoint_report rb = ESDIRK_ADJOINT_REPORT_INIT;
  CHECK_STATUS(esdirk_solver_get_adjoint_report(bounded, &rb), ESDIRK_SUCCESS);
  CHECK(rb.stored_records == 2 && rb.checkpoints > 1 && rb.recomputed_steps > 0);
  CHECK(rb.peak_stored_doubles < report.peak_stored_doubles);
  CHECK_STATUS(esdirk_solver_get_counter(bounded, "adjoint_recomputed_steps", &solves), ESDIRK_SUCCESS);
  CHECK(solves == rb.recomputed_steps);

  esdirk_objective_free(&weights);
  esdirk_objective_free(&square);
  CHECK(weights == NULL);
  esdirk_solver_free(&s);
  esdirk_solver_free(&bounded);
  esdirk_solver_free(&f);
}

static void adjoint_bad_input(esdirk_problem* problem) {
  double x[2], z[1], dx0[2] = {7.0, 7.0}, dp[2] = {7.0, 7.0};
  esdirk_objective* o = NULL;
  CHECK_STATUS(esdirk_objective_create(1, &o), ESDIRK_SUCCESS);
  const double w[3] = {1.0, 0.0, 0.0};
  CHECK_STATUS(esdirk_objective_set_terminal_weights(o, w, 3, 3), ESDIRK_SUCCESS);

  /* NULL handles and pointers. */
  CHECK_STATUS(esdirk_objective_create(1, NULL), ESDIRK_NULL_ARGUMENT);
  esdirk_objective* none = NULL;
  CHECK_STATUS(esdirk_objective_create(0, &none), ESDIRK_INVALID_ARGUMENT);
  CHECK(none == NULL);
  CHECK_STATUS(esdirk_objective_set_terminal(NULL, terminal_square, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_objective_set_terminal_weights(o, NULL, 3, 3), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_objective_set_terminal_weights(o, w, 3, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_objective_set_output_times(o, NULL, 1, output_term, NULL), ESDIRK_NULL_ARGUMENT);
  const double unordered[3] = {0.1, 0.5, 0.2};
  CHECK_STATUS(esdirk_objective_set_output_times(o, unordered, 3, output_term, NULL), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_objective_last_error(o), "ordered") != NULL);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(NULL, o, dx0, 2, 2, dp, 2, 2), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_adjoint(NULL, 1, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_get_adjoint_report(NULL, NULL), ESDIRK_NULL_ARGUMENT);

  /* No recording: set_adjoint not called; initialized but not integrated. */
  esdirk_solver* s = NULL;
  CHECK_STATUS(esdirk_solver_create(problem, &s), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 2, 2, dp, 2, 2), ESDIRK_WRONG_CALL_ORDER);
  CHECK(strstr(esdirk_solver_last_error(s), "set_adjoint") != NULL);
  CHECK_STATUS(esdirk_solver_set_adjoint(s, 1, -5), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_adjoint(s, 1, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(s, 0.0, x0, 2, zguess, 1, u0, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 2, 2, dp, 2, 2), ESDIRK_WRONG_CALL_ORDER);
  CHECK(dx0[0] == 7.0 && dp[0] == 7.0);

  /* A failed run (too many steps): no gradient of it. */
  CHECK_STATUS(esdirk_solver_set_step_limits(s, 0.0, 0.0, INFINITY, 3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(s, 0.0, x0, 2, zguess, 1, u0, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(s, 50.0, x, 2, z, 1), ESDIRK_TOO_MANY_STEPS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 2, 2, dp, 2, 2), ESDIRK_WRONG_CALL_ORDER);
  CHECK(strstr(esdirk_solver_last_error(s), "failed") != NULL);
  CHECK(dx0[0] == 7.0);
  esdirk_solver_free(&s);

  /* The last output time inside the last step (no stop time there): the terminal term would
   * be taken at the step end; refused, naming the fix. */
  CHECK_STATUS(esdirk_solver_create(problem, &s), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_adjoint(s, 1, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(s, 0.0, x0, 2, zguess, 1, u0, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(s, 0.55, x, 2, z, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 2, 2, dp, 2, 2), ESDIRK_WRONG_CALL_ORDER);
  CHECK(strstr(esdirk_solver_last_error(s), "set_stop_time(0.55)") != NULL);
  CHECK(dx0[0] == 7.0 && dp[0] == 7.0);
  esdirk_solver_free(&s);

  /* A recorded run, then wrong sizes, objectives without terms, bad output times. */
  s = recorded_run(problem, 0);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, NULL, dx0, 2, 2, dp, 2, 2), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, NULL, 2, 2, dp, 2, 2), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 3, 3, dp, 2, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 2, 1, dp, 2, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 2, 2, dp, 1, 1), ESDIRK_INVALID_ARGUMENT);
  const double w2[2] = {1.0, 0.0};
  esdirk_objective* short_weights = NULL;
  CHECK_STATUS(esdirk_objective_create(1, &short_weights), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_terminal_weights(short_weights, w2, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, short_weights, dx0, 2, 2, dp, 2, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(s), "weights") != NULL);
  esdirk_objective* empty = NULL;
  CHECK_STATUS(esdirk_objective_create(1, &empty), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, empty, dx0, 2, 2, dp, 2, 2), ESDIRK_INVALID_ARGUMENT);
  const double not_a_step_end = 0.55;
  CHECK_STATUS(esdirk_objective_set_output_times(empty, &not_a_step_end, 1, output_term, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, empty, dx0, 2, 2, dp, 2, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(s), "step") != NULL);
  CHECK(dx0[0] == 7.0 && dp[0] == 7.0);

  /* Objective callbacks: NaN, failure, fatal, and a call of the same solver from inside. */
  struct bad_objective b = {0, s, NULL, 0};
  esdirk_objective* bad = NULL;
  CHECK_STATUS(esdirk_objective_create(1, &bad), ESDIRK_SUCCESS);
  b.objective = bad;
  CHECK_STATUS(esdirk_objective_set_terminal(bad, bad_terminal, &b), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, bad, dx0, 2, 2, dp, 2, 2), ESDIRK_CALLBACK_FAILURES);
  CHECK(strstr(esdirk_solver_last_error(s), "not finite") != NULL);
  b.mode = 1;
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, bad, dx0, 2, 2, dp, 2, 2), ESDIRK_CALLBACK_FAILURES);
  b.mode = 2;
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, bad, dx0, 2, 2, dp, 2, 2), ESDIRK_CALLBACK_FATAL);
  CHECK(dx0[0] == 7.0 && dp[0] == 7.0);
  b.mode = 3;
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, bad, dx0, 2, 2, dp, 2, 2), ESDIRK_SUCCESS);
  CHECK(b.inner_status == ESDIRK_WRONG_CALL_ORDER);
  /* Nothing lost: the good objective still works. */
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 2, 2, dp, 2, 2), ESDIRK_SUCCESS);
  CHECK(dx0[0] != 7.0);

  /* A report struct without struct_size. */
  esdirk_adjoint_report zeroed;
  memset(&zeroed, 0, sizeof zeroed);
  CHECK_STATUS(esdirk_solver_get_adjoint_report(s, &zeroed), ESDIRK_INVALID_ARGUMENT);

  /* A restart in between: the smooth adjoint needs one run. */
  CHECK_STATUS(esdirk_solver_restart(s, t_end, x0, 2, zguess, 1, u0, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_adjoint_gradient(s, o, dx0, 2, 2, dp, 2, 2), ESDIRK_WRONG_CALL_ORDER);
  CHECK(strstr(esdirk_solver_last_error(s), "restart") != NULL);
  esdirk_solver_free(&s);

  /* A budget below one record: that initialize fails, the solver is unchanged. */
  CHECK_STATUS(esdirk_solver_create(problem, &s), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_adjoint(s, 1, 3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(s, 0.0, x0, 2, zguess, 1, u0, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(s), "memory_budget") != NULL);
  esdirk_solver_free(&s);

  esdirk_objective_free(&o);
  esdirk_objective_free(&short_weights);
  esdirk_objective_free(&empty);
  esdirk_objective_free(&bad);
  esdirk_objective_free(NULL);
}

static void reverse_shooting(esdirk_problem* problem) {
  esdirk_shooting* fwd = NULL;
  esdirk_reverse_shooting* rev = NULL;
  CHECK_STATUS(esdirk_shooting_create(problem, &fwd), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_create(problem, &rev), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_tolerances(fwd, 1e-7, 1e-9), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_set_tolerances(rev, 1e-7, 1e-9), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_error_control(fwd, ESDIRK_ERROR_CONTROL_OFF), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_running_cost(fwd, running_cost, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_set_running_cost(rev, running_cost, NULL), ESDIRK_SUCCESS);

  double lx[4] = {0.3, -1.1, 0.7, 0.2}, lz[2] = {0.9, -0.4}, w[2] = {1.0, -0.5};
  double gx[4], gu[4];
  /* Before an interval. */
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, lz, 1, 1, w, 2, gx, 2, gu, 2, 2),
               ESDIRK_WRONG_CALL_ORDER);

  double x[2] = {x0[0], x0[1]};
  double worst = 0.0;
  for (int k = 0; k < 2; ++k) {
    const double t0 = 0.4 * k, t1 = 0.4 * (k + 1);
    double xf[2], zf[1], A[4], B[4], Az[2], Bz[2], H, q[2], r[2], xr[2], zr[1], Hr;
    CHECK_STATUS(esdirk_shooting_integrate(fwd, t0, t1, x, 2, u0, 2, k == 0 ? zguess : NULL, 1, xf, zf,
                                           A, 2, B, 2, &H, q, r),
                 ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_shooting_get_algebraic_sensitivities(fwd, Az, 1, Bz, 1), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_reverse_shooting_integrate(rev, t0, t1, x, 2, u0, 2, k == 0 ? zguess : NULL, 1, xr,
                                                   zr, &Hr),
                 ESDIRK_SUCCESS);
    CHECK(xr[0] == xf[0] && xr[1] == xf[1] && zr[0] == zf[0]);
    CHECK(fabs(Hr - H) <= 1e-14 * fabs(H));
    CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, lz, 1, 1, w, 2, gx, 2, gu, 2, 2),
                 ESDIRK_SUCCESS);
    for (int j = 0; j < 2; ++j) {
      double ex[2], eu[2], gotx[2] = {gx[2 * j], gx[2 * j + 1]}, gotu[2] = {gu[2 * j], gu[2 * j + 1]};
      for (int i = 0; i < 2; ++i) {
        ex[i] = A[2 * i] * lx[2 * j] + A[2 * i + 1] * lx[2 * j + 1] + Az[i] * lz[j] + w[j] * q[i];
        eu[i] = B[2 * i] * lx[2 * j] + B[2 * i + 1] * lx[2 * j + 1] + Bz[i] * lz[j] + w[j] * r[i];
      }
      worst = fmax(worst, fmax(max_relative(gotx, ex, 2), max_relative(gotu, eu, 2)));
    }
    x[0] = xf[0];
    x[1] = xf[1];
  }
  printf("reverse shooting against forward: %.2e\n", worst);
  CHECK(worst <= 1e-12);
  int64_t steps = 0, adjoint_steps = 0, factorizations = 0;
  CHECK_STATUS(esdirk_reverse_shooting_get_counter(rev, 0, "accepted_steps", &steps), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_get_counter(rev, 0, "adjoint_steps", &adjoint_steps), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_get_counter(rev, 0, "adjoint_factorizations", &factorizations),
               ESDIRK_SUCCESS);
  CHECK(steps > 0 && adjoint_steps == steps &&
        factorizations == (esdirk_method_stages("auto", 1e-7) - 1) * steps);
  esdirk_statistics st = ESDIRK_STATISTICS_INIT;
  CHECK_STATUS(esdirk_reverse_shooting_get_statistics(rev, 1, &st), ESDIRK_SUCCESS);
  CHECK(st.adjoint_steps > adjoint_steps);

  /* Bad input: NULL, wrong sizes, leading dimensions, m, non-finite lambda, a NaN gradient. */
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(NULL, lx, 2, 2, lz, 1, 1, w, 2, gx, 2, gu, 2, 2),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, NULL, 2, 2, lz, 1, 1, w, 2, gx, 2, gu, 2, 2),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 3, 3, lz, 1, 1, w, 2, gx, 2, gu, 2, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 1, lz, 1, 1, w, 2, gx, 2, gu, 2, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, lz, 1, 1, w, 0, gx, 2, gu, 2, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, lz, 1, 1, w, 2, gx, 2, gu, 3, 3),
               ESDIRK_INVALID_ARGUMENT);
  lx[1] = NAN;
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, lz, 1, 1, w, 2, gx, 2, gu, 2, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_reverse_shooting_last_error(rev), "non-finite") != NULL);
  lx[1] = -1.1;
  const int broken = 1;
  CHECK_STATUS(esdirk_reverse_shooting_set_running_cost(rev, running_cost, (void*)&broken), ESDIRK_SUCCESS);
  const double keep = gx[0];
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, lz, 1, 1, w, 2, gx, 2, gu, 2, 2),
               ESDIRK_CALLBACK_FAILURES);
  CHECK(gx[0] == keep);
  CHECK(strstr(esdirk_reverse_shooting_last_error(rev), "running cost") != NULL);
  /* Without weights the cost is not called: the products of lambda alone. */
  CHECK_STATUS(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, NULL, 1, 1, NULL, 2, gx, 2, NULL, 2, 0),
               ESDIRK_SUCCESS);
  double xr[2];
  CHECK_STATUS(esdirk_reverse_shooting_integrate(rev, 0.0, 0.4, x0, 3, u0, 2, NULL, 1, xr, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_integrate(rev, 0.0, 0.4, NULL, 2, u0, 2, NULL, 1, xr, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_integrate(rev, 0.4, 0.4, x0, 2, u0, 2, NULL, 1, xr, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_tolerances(rev, -1.0, 1e-9), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_max_steps(rev, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_create(problem, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_get_statistics(rev, 0, NULL), ESDIRK_NULL_ARGUMENT);

  esdirk_reverse_shooting_free(&rev);
  CHECK(rev == NULL);
  esdirk_reverse_shooting_free(&rev);
  esdirk_shooting_free(&fwd);
}

int main(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(2, 1, 2, residual, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_jacobian(problem, jacobian), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_parameter_jacobian(problem, parameter_jacobian), ESDIRK_SUCCESS);
  gradient_equals_forward_sensitivities(problem);
  adjoint_bad_input(problem);
  reverse_shooting(problem);
  esdirk_problem_free(&problem);
  return report();
}
