/* The C API of banded and sparse Jacobians (esdirk_sparse.h), compiled as C99: the three
 * back-ends give the same solution and sensitivities, the pattern round-trips, the checker
 * names missing entries, and every kind of bad input is refused with a message. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_sparse.h"

#define N 30

/* A reaction-diffusion chain: x_i' = c (x_{i-1} - 2 x_i + x_{i+1}) - p0 x_i^2 + p1, x_0 = x_{N+1}
 * = 1 on the boundary, c = (N+1)^2 / 10. J is tridiagonal. */
static const double c = (N + 1.0) * (N + 1.0) / 10.0;

static int chain(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nz, (void)np, (void)t, (void)z, (void)g, (void)user_data;
  for (int i = 0; i < nx; ++i) {
    const double left = i > 0 ? x[i - 1] : 1.0, right = i + 1 < nx ? x[i + 1] : 1.0;
    f[i] = c * (left - 2.0 * x[i] + right) - p[0] * x[i] * x[i] + p[1];
  }
  return 0;
}

/* The analytic J on the tridiagonal CSC pattern (rows of each column sorted). */
static int chain_sparse_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                 const double* x, const double* z, const double* p, esdirk_int nnz,
                                 const esdirk_int* ptr, const esdirk_int* rows, double* values,
                                 void* user_data) {
  (void)nz, (void)np, (void)t, (void)z, (void)nnz, (void)user_data;
  for (int j = 0; j < nx; ++j)
    for (int k = ptr[j]; k < ptr[j + 1]; ++k)
      values[k] = rows[k] == j ? -2.0 * c - 2.0 * p[0] * x[j] : c;
  return 0;
}

/* A wrong one: the diagonal misses the reaction term. */
static int wrong_sparse_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                 const double* x, const double* z, const double* p, esdirk_int nnz,
                                 const esdirk_int* ptr, const esdirk_int* rows, double* values,
                                 void* user_data) {
  (void)nz, (void)np, (void)t, (void)z, (void)nnz, (void)user_data, (void)x, (void)p;
  for (int j = 0; j < nx; ++j)
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) values[k] = rows[k] == j ? -2.0 * c : c;
  return 0;
}

static int dense_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                          const double* z, const double* p, double* J, esdirk_int ldj,
                          void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)x, (void)z, (void)p, (void)J, (void)ldj,
      (void)user_data;
  return 0;
}

/* The tridiagonal pattern, with the rows of each column in reverse order (the library sorts). */
static void tridiagonal(esdirk_int* ptr, esdirk_int* rows) {
  int k = 0;
  for (int j = 0; j < N; ++j) {
    ptr[j] = k;
    if (j + 1 < N) rows[k++] = j + 1;
    rows[k++] = j;
    if (j > 0) rows[k++] = j - 1;
  }
  ptr[N] = k;
}

typedef struct {
  double x[N];
  double S[N * 2];
  long steps;
} Run;

/* Integrates to t = 0.5 with the sensitivities to p (2 directions) on the declared structure. */
static int solve(esdirk_problem* problem, Run* run) {
  esdirk_solver* solver = NULL;
  double x0[N], p[2] = {2.0, 0.5}, seed[(N + 2) * 2];
  for (int i = 0; i < N; ++i) x0[i] = 1.0 + sin(3.14159 * (i + 1.0) / (N + 1.0));
  memset(seed, 0, sizeof seed);
  seed[N] = 1.0;               /* d/dp0 */
  seed[(N + 2) + N + 1] = 1.0; /* d/dp1 */
  int status = esdirk_solver_create(problem, &solver);
  if (status == ESDIRK_SUCCESS) status = esdirk_solver_set_tolerances(solver, 1e-8, 1e-8);
  if (status == ESDIRK_SUCCESS) status = esdirk_solver_initialize(solver, 0.0, x0, N, NULL, 0, p, 2);
  if (status == ESDIRK_SUCCESS) status = esdirk_solver_start_sensitivities(solver, seed, N + 2, 2, N + 2);
  if (status == ESDIRK_SUCCESS)
    status = esdirk_solver_integrate_sensitivities_to(solver, 0.5, run->x, N, NULL, 0, run->S, N,
                                                      NULL, 0, 2);
  if (status != ESDIRK_SUCCESS) fprintf(stderr, "solve: %s\n", esdirk_solver_last_error(solver));
  esdirk_statistics st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  esdirk_solver_get_statistics(solver, &st);
  run->steps = (long)st.accepted_steps;
  esdirk_solver_free(&solver);
  return status;
}

static double max_difference(const double* a, const double* b, int n) {
  double worst = 0.0, scale = 0.0;
  for (int i = 0; i < n; ++i) {
    worst = fmax(worst, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  return worst / scale;
}

static void test_backends_agree(void) {
  esdirk_problem* problem = NULL;
  esdirk_int ptr[N + 1], rows[3 * N];
  tridiagonal(ptr, rows);
  CHECK_STATUS(esdirk_problem_create(N, 0, 2, chain, NULL, &problem), ESDIRK_SUCCESS);
  Run dense, band, klu, coloured;
  CHECK_STATUS(solve(problem, &dense), ESDIRK_SUCCESS); /* dense, dense differences */
  CHECK_STATUS(esdirk_problem_set_jacobian_bandwidths(problem, 1, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_sparse_jacobian(problem, chain_sparse_jacobian), ESDIRK_SUCCESS);
  int kind = -1;
  esdirk_int lower = -1, upper = -1, nnz = -1;
  CHECK_STATUS(esdirk_problem_get_jacobian_structure(problem, &kind, &lower, &upper, &nnz),
               ESDIRK_SUCCESS);
  CHECK(kind == ESDIRK_LINEAR_SOLVER_BANDED && lower == 1 && upper == 1 && nnz == 3 * N - 2);
  CHECK_STATUS(solve(problem, &band), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_jacobian_pattern(problem, ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_SUCCESS);
  CHECK_STATUS(solve(problem, &klu), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_sparse_jacobian(problem, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(solve(problem, &coloured), ESDIRK_SUCCESS); /* KLU, coloured differences */
  /* The analytic band and KLU runs take the same steps and agree to rounding (two LU orderings,
   * amplified over ~100 stiff steps: measured 9e-12 for x, 3e-10 for S); the dense run (dense
   * differences) and the coloured one (3 colours) agree to the differences' accuracy. */
  CHECK(band.steps == klu.steps);
  printf("band - KLU: x %.1e, S %.1e; KLU coloured - dense: x %.1e, S %.1e\n",
         max_difference(band.x, klu.x, N), max_difference(band.S, klu.S, 2 * N),
         max_difference(coloured.x, dense.x, N), max_difference(coloured.S, dense.S, 2 * N));
  CHECK(max_difference(band.x, klu.x, N) < 1e-10);
  CHECK(max_difference(band.S, klu.S, 2 * N) < 1e-8);
  CHECK(max_difference(coloured.x, dense.x, N) < 1e-8);
  CHECK(max_difference(coloured.S, dense.S, 2 * N) < 1e-6);
  CHECK(max_difference(klu.x, dense.x, N) < 1e-7);
  CHECK(max_difference(klu.S, dense.S, 2 * N) < 1e-5);
  /* The pattern comes back with sorted rows. */
  esdirk_int back_ptr[N + 1], back_rows[3 * N];
  CHECK_STATUS(esdirk_problem_get_jacobian_pattern(problem, back_ptr, back_rows, 3 * N - 3),
               ESDIRK_BUFFER_TOO_SMALL);
  CHECK_STATUS(esdirk_problem_get_jacobian_pattern(problem, back_ptr, back_rows, 3 * N),
               ESDIRK_SUCCESS);
  CHECK(back_ptr[N] == 3 * N - 2 && back_rows[0] == 0 && back_rows[1] == 1 && back_rows[2] == 0 &&
        back_rows[3] == 1 && back_rows[4] == 2);
  CHECK_STATUS(esdirk_problem_clear_jacobian_structure(problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_get_jacobian_structure(problem, &kind, NULL, NULL, &nnz), ESDIRK_SUCCESS);
  CHECK(kind == ESDIRK_LINEAR_SOLVER_DENSE && nnz == N * N);
  CHECK_STATUS(esdirk_problem_get_jacobian_pattern(problem, back_ptr, back_rows, 3 * N),
               ESDIRK_WRONG_CALL_ORDER);
  esdirk_problem_free(&problem);
}

static void test_checker(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(N, 0, 2, chain, NULL, &problem), ESDIRK_SUCCESS);
  double x[N], p[2] = {2.0, 0.5};
  for (int i = 0; i < N; ++i) x[i] = 1.0 + 0.01 * i;
  esdirk_int missing = -1, wrong = -1, rows[4], cols[4];
  CHECK_STATUS(esdirk_problem_check_jacobian_pattern(problem, 0.0, x, NULL, p, 0.0, &missing, rows,
                                                     cols, 4, &wrong),
               ESDIRK_WRONG_CALL_ORDER);
  /* A diagonal pattern misses the 2 (N - 1) couplings. */
  esdirk_int ptr[N + 1], diagonal[N];
  for (int j = 0; j <= N; ++j) ptr[j] = j;
  for (int j = 0; j < N; ++j) diagonal[j] = j;
  CHECK_STATUS(esdirk_problem_set_jacobian_pattern(problem, ptr, diagonal, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_check_jacobian_pattern(problem, 0.0, x, NULL, p, 0.0, &missing, rows,
                                                     cols, 4, &wrong),
               ESDIRK_SUCCESS);
  CHECK(missing == 2 * (N - 1) && wrong == 0);
  CHECK(abs(rows[0] - cols[0]) == 1);
  CHECK(strstr(esdirk_problem_structure_error(problem), "missing") != NULL ||
        strstr(esdirk_problem_structure_error(problem), "f[") != NULL);
  /* The right pattern with a wrong analytic Jacobian: every diagonal entry is wrong. */
  esdirk_int tri_ptr[N + 1], tri_rows[3 * N];
  tridiagonal(tri_ptr, tri_rows);
  CHECK_STATUS(esdirk_problem_set_jacobian_pattern(problem, tri_ptr, tri_rows, ESDIRK_LINEAR_SOLVER_BANDED),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_sparse_jacobian(problem, wrong_sparse_jacobian), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_check_jacobian_pattern(problem, 0.0, x, NULL, p, 0.0, &missing, NULL,
                                                     NULL, 0, &wrong),
               ESDIRK_SUCCESS);
  CHECK(missing == 0 && wrong > 0);
  CHECK_STATUS(esdirk_problem_set_sparse_jacobian(problem, chain_sparse_jacobian), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_check_jacobian_pattern(problem, 0.0, x, NULL, p, 0.0, &missing, NULL,
                                                     NULL, 0, &wrong),
               ESDIRK_SUCCESS);
  CHECK(missing == 0 && wrong == 0);
  CHECK(strcmp(esdirk_problem_structure_error(problem), "") == 0);
  esdirk_problem_free(&problem);
}

/* A structure that is refused leaves the previous one in place, with a message. */
static void expect_refused(esdirk_problem* problem, int status, int expected, const char* part) {
  CHECK_STATUS(status, expected);
  const char* message = esdirk_problem_structure_error(problem);
  if (strstr(message, part) == NULL) {
    fprintf(stderr, "message \"%s\" does not name \"%s\"\n", message, part);
    CHECK(0);
  }
  int kind = -1;
  esdirk_int lower = -1;
  CHECK_STATUS(esdirk_problem_get_jacobian_structure(problem, &kind, &lower, NULL, NULL), ESDIRK_SUCCESS);
  CHECK(kind == ESDIRK_LINEAR_SOLVER_BANDED && lower == 1);
}

static void test_bad_input(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(N, 0, 2, chain, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_jacobian_bandwidths(NULL, 1, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_problem_set_jacobian_bandwidths(problem, 1, 1), ESDIRK_SUCCESS);
  /* Bandwidths negative or >= n. */
  expect_refused(problem, esdirk_problem_set_jacobian_bandwidths(problem, -1, 1),
                 ESDIRK_INVALID_ARGUMENT, "bandwidths");
  expect_refused(problem, esdirk_problem_set_jacobian_bandwidths(problem, 1, N),
                 ESDIRK_INVALID_ARGUMENT, "bandwidths");
  expect_refused(problem, esdirk_problem_set_jacobian_bandwidths(problem, N + 5, 0),
                 ESDIRK_INVALID_ARGUMENT, "bandwidths");
  esdirk_int ptr[N + 1], rows[3 * N];
  /* NULL arrays, an unknown back-end. */
  tridiagonal(ptr, rows);
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, NULL, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_NULL_ARGUMENT, "NULL");
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, ptr, NULL, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_NULL_ARGUMENT, "NULL");
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, ptr, rows, 7),
                 ESDIRK_INVALID_ARGUMENT, "linear_solver");
  /* A row outside [0, n). */
  rows[4] = N;
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_INVALID_ARGUMENT, "row");
  rows[4] = -1;
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_INVALID_ARGUMENT, "row");
  /* A row twice in one column. */
  tridiagonal(ptr, rows);
  rows[3] = rows[2];
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_INVALID_ARGUMENT, "twice");
  /* Column pointers that do not start at 0, decrease, or count more than n^2 entries. */
  tridiagonal(ptr, rows);
  ptr[0] = 1;
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_INVALID_ARGUMENT, "column_pointers");
  tridiagonal(ptr, rows);
  ptr[5] = ptr[4] - 1;
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_INVALID_ARGUMENT, "decreas");
  tridiagonal(ptr, rows);
  ptr[N] = N * N + 1;
  expect_refused(problem, esdirk_problem_set_jacobian_pattern(problem, ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_INVALID_ARGUMENT, "column_pointers");
  /* A banded structure with only the dense Jacobian callback: refused when the solver starts. */
  esdirk_solver* solver = NULL;
  double x0[N], p[2] = {2.0, 0.5};
  for (int i = 0; i < N; ++i) x0[i] = 1.0;
  CHECK_STATUS(esdirk_problem_set_jacobian(problem, dense_jacobian), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x0, N, NULL, 0, p, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "sparse_jacobian") != NULL);
  esdirk_solver_free(&solver);
  /* A sparse Jacobian callback without a structure. */
  CHECK_STATUS(esdirk_problem_set_jacobian(problem, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_clear_jacobian_structure(problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_sparse_jacobian(problem, chain_sparse_jacobian), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x0, N, NULL, 0, p, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "pattern") != NULL);
  esdirk_solver_free(&solver);
  CHECK(strcmp(esdirk_problem_structure_error(NULL), "null problem handle") == 0);
  esdirk_problem_free(&problem);
}

/* x' = -x + z, 0 = x - 1 (g does not depend on z): with the pattern as declared the iteration
 * matrix is structurally singular; KLU's analysis says so and names the column. */
static int singular(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                    const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)p, (void)user_data;
  f[0] = -x[0] + z[0];
  g[0] = x[0] - 1.0;
  return 0;
}

static void test_structurally_singular(void) {
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 0, singular, NULL, &problem), ESDIRK_SUCCESS);
  const esdirk_int ptr[3] = {0, 2, 3}, rows[3] = {0, 1, 0};
  CHECK_STATUS(esdirk_problem_set_jacobian_pattern(problem, ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_SUCCESS);
  const double x0 = 1.0, z0 = 1.0;
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  const int status = esdirk_solver_initialize(solver, 0.0, &x0, 1, &z0, 1, NULL, 0);
  CHECK(status < 0);
  CHECK(strstr(esdirk_solver_last_error(solver), "column") != NULL);
  printf("structurally singular: %s: %s\n", esdirk_status_name(status), esdirk_solver_last_error(solver));
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
}

int main(void) {
  test_backends_agree();
  test_checker();
  test_bad_input();
  test_structurally_singular();
  return report();
}
