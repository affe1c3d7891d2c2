/* The C API of multiple shooting (esdirk_multishoot.h), compiled as C99: the intervals of
 * x' = -u z, 0 = z - x^2 against their closed forms (x_end, z_end, A = dx/dx0, B = dx/du),
 * one and two threads bit-identical, a failing interval reported by its own status, and the
 * bad input of every setter. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_multishoot.h"

static int model(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* u, double* f, double* g, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)user_data;
  if (x[0] > 1e3) return 1; /* a recoverable failure: the model is not defined there */
  f[0] = -u[0] * z[0];
  g[0] = z[0] - x[0] * x[0];
  return 0;
}

enum { N = 4 };

/* x(t) = x0 / (1 + u x0 t) on each interval. */
static void test_intervals_match_the_closed_form(esdirk_problem* problem) {
  const double t_begin[N] = {0.0, 0.5, 1.0, 1.5}, t_end[N] = {0.5, 1.0, 1.5, 2.0};
  const double x[N] = {1.0, 0.8, 0.6, 0.5}, u[N] = {2.0, 1.0, 0.5, 3.0};
  double z_guess[N], x_end[2][N], z_end[N], A[2][N], B[2][N];
  esdirk_int status[N];
  for (int k = 0; k < N; ++k) z_guess[k] = x[k] * x[k];
  for (int threads = 1; threads <= 2; ++threads) {
    esdirk_multishoot* ms = NULL;
    CHECK_STATUS(esdirk_multishoot_create(problem, N, threads, &ms), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_multishoot_set_tolerances(ms, 1e-9, 1e-12), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess, x_end[threads - 1],
                                            z_end, A[threads - 1], B[threads - 1], NULL, NULL, NULL,
                                            status),
                 ESDIRK_SUCCESS);
    for (int k = 0; k < N; ++k) {
      const double d = t_end[k] - t_begin[k], s = 1.0 + u[k] * x[k] * d;
      CHECK(status[k] == ESDIRK_SUCCESS);
      CHECK(fabs(x_end[threads - 1][k] - x[k] / s) < 1e-7);
      CHECK(fabs(z_end[k] - x_end[threads - 1][k] * x_end[threads - 1][k]) < 1e-9);
      CHECK(fabs(A[threads - 1][k] - 1.0 / (s * s)) < 1e-6);
      CHECK(fabs(B[threads - 1][k] + x[k] * x[k] * d / (s * s)) < 1e-6);
    }
    esdirk_multishoot_free(&ms);
    CHECK(ms == NULL);
  }
  CHECK(memcmp(x_end[0], x_end[1], sizeof x_end[0]) == 0);
  CHECK(memcmp(A[0], A[1], sizeof A[0]) == 0);
  CHECK(memcmp(B[0], B[1], sizeof B[0]) == 0);
}

/* A given first step gives the same answer to the tolerance. */
static void test_initial_step(esdirk_problem* problem) {
  const double t0 = 0.0, t1 = 1.0, x = 1.0, u = 1.0, z = 1.0;
  double automatic = 0.0, given = 0.0;
  esdirk_multishoot* ms = NULL;
  CHECK_STATUS(esdirk_multishoot_create(problem, 1, 1, &ms), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_set_tolerances(ms, 1e-9, 1e-12), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, &t0, &t1, &x, &u, &z, &automatic, NULL, NULL, NULL,
                                          NULL, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_set_initial_step(ms, 1e-6), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, &t0, &t1, &x, &u, &z, &given, NULL, NULL, NULL, NULL,
                                          NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(fabs(automatic - 0.5) < 1e-7 && fabs(given - 0.5) < 1e-7);
  esdirk_multishoot_free(&ms);
}

/* esdirk_multishoot_method_name gave the name set ("auto") even after an evaluation; it gives
 * the method the intervals took, and the one set again once an option changed. */
static void test_method_name_is_the_one_auto_resolved_to(esdirk_problem* problem) {
  const double t0 = 0.0, t1 = 1.0, x = 1.0, u = 1.0, z = 1.0;
  double x_end = 0.0;
  esdirk_multishoot* ms = NULL;
  CHECK_STATUS(esdirk_multishoot_create(problem, 1, 1, &ms), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_set_tolerances(ms, 1e-9, 1e-12), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_multishoot_method_name(ms), "auto") == 0); /* before a run: the one set */
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, &t0, &t1, &x, &u, &z, &x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_multishoot_method_name(ms), "ESDIRK436") == 0); /* "auto" at rtol 1e-9 */
  CHECK_STATUS(esdirk_multishoot_set_tolerances(ms, 1e-4, 1e-6), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_multishoot_method_name(ms), "auto") == 0); /* an option changed */
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, &t0, &t1, &x, &u, &z, &x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_multishoot_method_name(ms), "ESDIRK34") == 0); /* "auto" at rtol 1e-4 */
  esdirk_multishoot_free(&ms);
}

/* One interval whose model fails everywhere (x > 1e3): its status says so, the others are
 * still evaluated, and the call returns the failing interval's status with a message. */
static void test_a_failing_interval(esdirk_problem* problem) {
  const double t_begin[2] = {0.0, 0.0}, t_end[2] = {1.0, 1.0}, x[2] = {1.0, 2e3}, u[2] = {1.0, 1.0};
  const double z_guess[2] = {1.0, 4e6};
  double x_end[2] = {-1.0, -1.0};
  esdirk_int status[2] = {-99, -99};
  esdirk_multishoot* ms = NULL;
  CHECK_STATUS(esdirk_multishoot_create(problem, 2, 2, &ms), ESDIRK_SUCCESS);
  const int s = esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess, x_end, NULL, NULL,
                                           NULL, NULL, NULL, NULL, status);
  CHECK(s != ESDIRK_SUCCESS);
  CHECK(status[0] == ESDIRK_SUCCESS && fabs(x_end[0] - 0.5) < 1e-5);
  CHECK(status[1] == s);
  CHECK(strlen(esdirk_multishoot_last_error(ms)) > 0);
  esdirk_multishoot_free(&ms);
}

static void test_bad_input(esdirk_problem* problem) {
  esdirk_multishoot* ms = NULL;
  CHECK_STATUS(esdirk_multishoot_create(NULL, 2, 1, &ms), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_create(problem, 2, 1, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_create(problem, 0, 1, &ms), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_create(problem, 2, 0, &ms), ESDIRK_INVALID_ARGUMENT);
  CHECK(ms == NULL);
  CHECK_STATUS(esdirk_multishoot_set_tolerances(NULL, 1e-6, 1e-6), ESDIRK_NULL_ARGUMENT);
  CHECK(strlen(esdirk_multishoot_last_error(NULL)) > 0);
  CHECK_STATUS(esdirk_multishoot_create(problem, 2, 1, &ms), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_set_tolerances(ms, -1.0, 1e-6), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_tolerances(ms, NAN, 1e-6), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_initial_step(ms, -1e-3), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_initial_step(ms, INFINITY), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_multishoot_last_error(ms), "h0") != NULL);
  const double atol[2] = {1e-6, 1e-6};
  CHECK_STATUS(esdirk_multishoot_set_algebraic_atol(ms, atol, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_algebraic_atol(ms, NULL, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_algebraic_atol(ms, atol, 1), ESDIRK_SUCCESS);
  const double t_begin[2] = {0.0, 1.0}, t_end[2] = {1.0, 2.0}, x[2] = {1.0, 0.5}, u[2] = {1.0, 1.0};
  const double z[2] = {1.0, 0.25};
  double x_end[2];
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, NULL, z, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, NULL, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);
  /* A NaN node state: a clear failure, and the handle still works afterwards. */
  const double x_nan[2] = {NAN, 0.5};
  CHECK(esdirk_multishoot_evaluate(ms, t_begin, t_end, x_nan, u, z, x_end, NULL, NULL, NULL, NULL,
                                   NULL, NULL, NULL) != ESDIRK_SUCCESS);
  CHECK(strlen(esdirk_multishoot_last_error(ms)) > 0);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(fabs(x_end[1] - 0.5 / 1.5) < 1e-5);
  esdirk_multishoot_free(&ms);
  esdirk_multishoot_free(NULL); /* harmless */
}

int main(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 1, model, NULL, &problem), ESDIRK_SUCCESS);
  test_intervals_match_the_closed_form(problem);
  test_initial_step(problem);
  test_method_name_is_the_one_auto_resolved_to(problem);
  test_a_failing_interval(problem);
  test_bad_input(problem);
  esdirk_problem_free(&problem);
  return report();
}
