/* The Jacobian-structure handle of esdirk_sparse.h, compiled as C99: one handle for plain and
 * hybrid problems (esdirk_problem_jacobian_structure, esdirk_hybrid_problem_jacobian_structure).
 *  - Bad input (NULL handles and arrays, sizes out of range, rows out of range or twice in a
 *    column, an unknown back-end or preconditioner, Krylov settings out of range) is refused
 *    with the status and the words of the deprecated per-problem calls, and the structure is
 *    kept; unsorted rows are accepted and read back sorted.
 *  - Runs declared through the handle equal runs declared through the deprecated calls to the
 *    last bit (KLU, band LU, GMRES with sensitivities, ILU(0) and block-Jacobi).
 *  - tolerance_with_derivatives (KrylovSettings::tolerance_with_derivatives) reaches the
 *    solver: with sensitivities the default 1e-3 and an explicit 1e-3 give the same bits, 0.05
 *    fewer GMRES iterations and other sensitivities; a states-only run never uses it; the
 *    deprecated esdirk_problem_set_krylov_settings keeps it.
 *  - A hybrid problem's structure reaches the hybrid solver: the same bits through the handle
 *    and the deprecated hybrid call; the Krylov settings (new for hybrid problems in C) change
 *    its runs as they change the plain solver's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "brusselator_1d_kernels.h"
#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_options.h"
#include "esdirk/esdirk_sparse.h"

#define POINTS BRUSSELATOR_1D_POINTS
#define NX BRUSSELATOR_1D_N
#define NS 2
#define RTOL 1e-6
#define T_END 2.0

static int brusselator(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                       const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)p, (void)g, (void)user_data;
  brusselator_1d_f(x, f);
  return 0;
}

/* Each point's 2x2 block and the same species at the neighbours; `reversed` writes the rows of
 * each column in decreasing order (the library sorts them). */
static esdirk_int pointers[NX + 1], rows[6 * NX];
static void make_pattern(int reversed) {
  esdirk_int count = 0;
  for (int j = 0; j < NX; ++j) {
    pointers[j] = count;
    const int k = j / 2;
    esdirk_int column[4], m = 0;
    if (k > 0) column[m++] = j - 2;
    column[m++] = 2 * k;
    column[m++] = 2 * k + 1;
    if (k + 1 < POINTS) column[m++] = j + 2;
    for (esdirk_int i = 0; i < m; ++i) rows[count++] = column[reversed ? m - 1 - i : i];
  }
  pointers[NX] = count;
}

static esdirk_problem* new_problem(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(NX, 0, 0, brusselator, NULL, &problem), ESDIRK_SUCCESS);
  return problem;
}

typedef struct {
  double x[NX], Sx[NX * NS];
  int64_t linear_iterations, steps;
} Run;

/* Runs to T_END (with NS sensitivities, of x(T) to x0[0] and x0[1], when `sensitivities`). */
static void run(esdirk_problem* problem, int sensitivities, Run* out) {
  const double pi = 3.14159265358979323846;
  esdirk_solver* solver = NULL;
  esdirk_options* options = NULL;
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_create(&options), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_tolerances(options, RTOL, RTOL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(solver, options), ESDIRK_SUCCESS);
  esdirk_options_free(&options);
  for (int k = 0; k < POINTS; ++k) {
    out->x[2 * k] = 1.0 + sin(2.0 * pi * (k + 1) / (POINTS + 1));
    out->x[2 * k + 1] = 3.0;
  }
  memset(out->Sx, 0, sizeof out->Sx);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, out->x, NX, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  if (sensitivities) {
    double seed[NX * NS] = {0.0};
    seed[0] = 1.0;
    seed[NX + 1] = 1.0;
    CHECK_STATUS(esdirk_solver_start_sensitivities(solver, seed, NX, NS, NX), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_integrate_sensitivities_to(solver, T_END, out->x, NX, NULL, 0,
                                                          out->Sx, NX, NULL, 0, NS),
                 ESDIRK_SUCCESS);
  } else {
    CHECK_STATUS(esdirk_solver_integrate_to(solver, T_END, out->x, NX, NULL, 0), ESDIRK_SUCCESS);
  }
  CHECK_STATUS(esdirk_solver_get_counter(solver, "linear_iterations", &out->linear_iterations),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "steps", &out->steps), ESDIRK_SUCCESS);
  esdirk_solver_free(&solver);
}

static int starts_with(const char* text, const char* prefix) {
  return strncmp(text, prefix, strlen(prefix)) == 0;
}

static int same_bits(const Run* a, const Run* b) {
  return memcmp(a->x, b->x, sizeof a->x) == 0 && memcmp(a->Sx, b->Sx, sizeof a->Sx) == 0;
}

/* The structure read back: back-end, bandwidths, nonzeros and (for a pattern) the arrays. */
typedef struct {
  int solver;
  esdirk_int lower, upper, nonzeros, pointers[NX + 1], rows[6 * NX];
} Read;

static int read_structure(const esdirk_jacobian_structure* s, Read* r) {
  memset(r, 0, sizeof *r);
  const int status = esdirk_jacobian_structure_get(s, &r->solver, &r->lower, &r->upper,
                                                   &r->nonzeros, NULL, NULL, 0);
  if (status != ESDIRK_SUCCESS || r->solver == ESDIRK_LINEAR_SOLVER_DENSE) return status;
  return esdirk_jacobian_structure_get(s, NULL, NULL, NULL, NULL, r->pointers, r->rows, 6 * NX);
}

static int same_structure(const Read* a, const Read* b) { return memcmp(a, b, sizeof *a) == 0; }

static void null_handles_are_refused(void) {
  CHECK(esdirk_problem_jacobian_structure(NULL) == NULL);
  CHECK(esdirk_hybrid_problem_jacobian_structure(NULL) == NULL);
  esdirk_int value = 0;
  int solver = 0;
  CHECK_STATUS(esdirk_jacobian_structure_set_bandwidths(NULL, 1, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(NULL, pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_clear(NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_get(NULL, &solver, &value, &value, &value, NULL, NULL, 0),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(NULL, 20, 4, 0.05, 1e-3, 2),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(NULL, 0, 1e-10,
                                                            ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
               ESDIRK_NULL_ARGUMENT);
  CHECK(strcmp(esdirk_jacobian_structure_last_error(NULL), "null structure handle") == 0);
  /* One handle per problem, the same at every call, distinct between problems. */
  esdirk_problem* a = new_problem();
  esdirk_problem* b = new_problem();
  CHECK(esdirk_problem_jacobian_structure(a) != NULL);
  CHECK(esdirk_problem_jacobian_structure(a) == esdirk_problem_jacobian_structure(a));
  CHECK(esdirk_problem_jacobian_structure(a) != esdirk_problem_jacobian_structure(b));
  CHECK(strcmp(esdirk_jacobian_structure_last_error(esdirk_problem_jacobian_structure(a)), "") ==
        0);
  esdirk_problem_free(&a);
  esdirk_problem_free(&b);
}

/* One bad call on the handle and the same call through the deprecated function on a second
 * problem in the same state: the same status and message, and both structures kept. */
#define SAME_REFUSAL(expected, new_call, old_call)                                                 \
  do {                                                                                             \
    Read before, after;                                                                            \
    CHECK_STATUS(read_structure(s, &before), ESDIRK_SUCCESS);                                      \
    CHECK_STATUS(new_call, expected);                                                              \
    CHECK_STATUS(old_call, expected);                                                              \
    CHECK(strlen(esdirk_jacobian_structure_last_error(s)) > 0);                                    \
    if (strcmp(esdirk_jacobian_structure_last_error(s), esdirk_problem_structure_error(old)) != 0) \
      fprintf(stderr, "messages differ:\n  %s\n  %s\n", esdirk_jacobian_structure_last_error(s),   \
              esdirk_problem_structure_error(old));                                                \
    CHECK(strcmp(esdirk_jacobian_structure_last_error(s), esdirk_problem_structure_error(old)) ==  \
          0);                                                                                      \
    CHECK_STATUS(read_structure(s, &after), ESDIRK_SUCCESS);                                       \
    CHECK(same_structure(&before, &after));                                                        \
  } while (0)

static void bad_patterns_and_bandwidths_are_refused_as_before_and_change_nothing(void) {
  esdirk_problem* problem = new_problem();
  esdirk_problem* old = new_problem();
  esdirk_jacobian_structure* s = esdirk_problem_jacobian_structure(problem);
  make_pattern(0);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(s, pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_problem_set_jacobian_pattern(old, pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      ESDIRK_SUCCESS);
  Read declared;
  CHECK_STATUS(read_structure(s, &declared), ESDIRK_SUCCESS);
  CHECK(declared.solver == ESDIRK_LINEAR_SOLVER_SPARSE && declared.nonzeros == pointers[NX]);
  CHECK(declared.lower == 2 && declared.upper == 2);

  esdirk_int bad_pointers[NX + 1], bad_rows[6 * NX];
  const size_t pointer_bytes = sizeof bad_pointers, row_bytes = sizeof bad_rows;
  /* NULL arrays. */
  SAME_REFUSAL(ESDIRK_NULL_ARGUMENT,
               esdirk_jacobian_structure_set_pattern(s, NULL, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
               esdirk_problem_set_jacobian_pattern(old, NULL, rows, ESDIRK_LINEAR_SOLVER_SPARSE));
  SAME_REFUSAL(
      ESDIRK_NULL_ARGUMENT,
      esdirk_jacobian_structure_set_pattern(s, pointers, NULL, ESDIRK_LINEAR_SOLVER_SPARSE),
      esdirk_problem_set_jacobian_pattern(old, pointers, NULL, ESDIRK_LINEAR_SOLVER_SPARSE));
  /* An unknown back-end. */
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT, esdirk_jacobian_structure_set_pattern(s, pointers, rows, 7),
               esdirk_problem_set_jacobian_pattern(old, pointers, rows, 7));
  CHECK(strstr(esdirk_jacobian_structure_last_error(s), "linear_solver 7") != NULL);
  /* Wrong sizes: a first pointer that is not 0, more entries than n^2, decreasing pointers. */
  memcpy(bad_pointers, pointers, pointer_bytes);
  bad_pointers[0] = 1;
  SAME_REFUSAL(
      ESDIRK_INVALID_ARGUMENT,
      esdirk_jacobian_structure_set_pattern(s, bad_pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      esdirk_problem_set_jacobian_pattern(old, bad_pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE));
  memcpy(bad_pointers, pointers, pointer_bytes);
  bad_pointers[NX] = NX * NX + 1;
  SAME_REFUSAL(
      ESDIRK_INVALID_ARGUMENT,
      esdirk_jacobian_structure_set_pattern(s, bad_pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      esdirk_problem_set_jacobian_pattern(old, bad_pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE));
  CHECK(strstr(esdirk_jacobian_structure_last_error(s), "at most n^2") != NULL);
  memcpy(bad_pointers, pointers, pointer_bytes);
  bad_pointers[5] = bad_pointers[3];
  SAME_REFUSAL(
      ESDIRK_INVALID_ARGUMENT,
      esdirk_jacobian_structure_set_pattern(s, bad_pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      esdirk_problem_set_jacobian_pattern(old, bad_pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE));
  CHECK(strstr(esdirk_jacobian_structure_last_error(s), "decrease") != NULL);
  /* Rows out of range (-1 and n) and a row twice in a column. */
  const esdirk_int out_of_range[2] = {-1, NX};
  for (int k = 0; k < 2; ++k) {
    memcpy(bad_rows, rows, row_bytes);
    bad_rows[pointers[4]] = out_of_range[k];
    SAME_REFUSAL(
        ESDIRK_INVALID_ARGUMENT,
        esdirk_jacobian_structure_set_pattern(s, pointers, bad_rows, ESDIRK_LINEAR_SOLVER_SPARSE),
        esdirk_problem_set_jacobian_pattern(old, pointers, bad_rows, ESDIRK_LINEAR_SOLVER_SPARSE));
  }
  memcpy(bad_rows, rows, row_bytes);
  bad_rows[pointers[4] + 1] = bad_rows[pointers[4]];
  SAME_REFUSAL(
      ESDIRK_INVALID_ARGUMENT,
      esdirk_jacobian_structure_set_pattern(s, pointers, bad_rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      esdirk_problem_set_jacobian_pattern(old, pointers, bad_rows, ESDIRK_LINEAR_SOLVER_SPARSE));
  printf("a row twice in a column: %s\n", esdirk_jacobian_structure_last_error(s));
  /* Bandwidths negative or >= n. */
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT, esdirk_jacobian_structure_set_bandwidths(s, -1, 2),
               esdirk_problem_set_jacobian_bandwidths(old, -1, 2));
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT, esdirk_jacobian_structure_set_bandwidths(s, 2, NX),
               esdirk_problem_set_jacobian_bandwidths(old, 2, NX));

  /* Unsorted rows are accepted and read back sorted: the same structure as the sorted ones. */
  make_pattern(1);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(s, pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      ESDIRK_SUCCESS);
  Read unsorted;
  CHECK_STATUS(read_structure(s, &unsorted), ESDIRK_SUCCESS);
  CHECK(same_structure(&unsorted, &declared));
  make_pattern(0);

  /* The getter: sizes only without arrays; a buffer too small (the sizes written), row indices
   * NULL, a dense structure asked for its pattern. */
  esdirk_int nonzeros = -1, few[4];
  CHECK_STATUS(esdirk_jacobian_structure_get(s, NULL, NULL, NULL, &nonzeros, NULL, NULL, 0),
               ESDIRK_SUCCESS);
  CHECK(nonzeros == pointers[NX]);
  nonzeros = -1;
  CHECK_STATUS(esdirk_jacobian_structure_get(s, NULL, NULL, NULL, &nonzeros, bad_pointers, few, 4),
               ESDIRK_BUFFER_TOO_SMALL);
  CHECK(nonzeros == pointers[NX]);
  CHECK_STATUS(esdirk_jacobian_structure_get(s, NULL, NULL, NULL, NULL, bad_pointers, NULL, 6 * NX),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_clear(s), ESDIRK_SUCCESS);
  int solver = -1;
  esdirk_int lower = -1, upper = -1;
  CHECK_STATUS(esdirk_jacobian_structure_get(s, &solver, &lower, &upper, &nonzeros, bad_pointers,
                                             bad_rows, 6 * NX),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK(solver == ESDIRK_LINEAR_SOLVER_DENSE && lower == NX - 1 && upper == NX - 1 &&
        nonzeros == NX * NX);
  /* The deprecated getters give what the handle gives. */
  CHECK_STATUS(esdirk_jacobian_structure_set_bandwidths(s, 2, 3), ESDIRK_SUCCESS);
  Read banded;
  CHECK_STATUS(read_structure(s, &banded), ESDIRK_SUCCESS);
  int old_solver = -1;
  esdirk_int old_lower = -1, old_upper = -1, old_nonzeros = -1;
  CHECK_STATUS(esdirk_problem_get_jacobian_structure(problem, &old_solver, &old_lower, &old_upper,
                                                     &old_nonzeros),
               ESDIRK_SUCCESS);
  CHECK(old_solver == banded.solver && old_lower == 2 && old_upper == 3 &&
        old_nonzeros == banded.nonzeros);
  CHECK_STATUS(esdirk_problem_get_jacobian_pattern(problem, bad_pointers, bad_rows, 6 * NX),
               ESDIRK_SUCCESS);
  CHECK(memcmp(bad_pointers, banded.pointers, pointer_bytes) == 0);
  esdirk_problem_free(&problem);
  esdirk_problem_free(&old);
}

static void bad_krylov_settings_are_refused_in_the_words_of_the_others(void) {
  esdirk_problem* problem = new_problem();
  esdirk_problem* old = new_problem();
  esdirk_jacobian_structure* s = esdirk_problem_jacobian_structure(problem);
  make_pattern(0);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(s, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
      ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_problem_set_jacobian_pattern(old, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(s, 20, 4, 0.05, 1e-3, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_krylov_settings(old, 20, 4, 0.05, 2), ESDIRK_SUCCESS);
  /* The settings the deprecated call takes: the same refusals and words. */
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT,
               esdirk_jacobian_structure_set_krylov(s, 0, 4, 0.05, 1e-3, 2),
               esdirk_problem_set_krylov_settings(old, 0, 4, 0.05, 2));
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT,
               esdirk_jacobian_structure_set_krylov(s, NX + 1, 4, 0.05, 1e-3, 2),
               esdirk_problem_set_krylov_settings(old, NX + 1, 4, 0.05, 2));
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT,
               esdirk_jacobian_structure_set_krylov(s, 20, -1, 0.05, 1e-3, 2),
               esdirk_problem_set_krylov_settings(old, 20, -1, 0.05, 2));
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT,
               esdirk_jacobian_structure_set_krylov(s, 20, 1001, 0.05, 1e-3, 2),
               esdirk_problem_set_krylov_settings(old, 20, 1001, 0.05, 2));
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT,
               esdirk_jacobian_structure_set_krylov(s, 20, 4, 1.0, 1e-3, 2),
               esdirk_problem_set_krylov_settings(old, 20, 4, 1.0, 2));
  SAME_REFUSAL(ESDIRK_INVALID_ARGUMENT,
               esdirk_jacobian_structure_set_krylov(s, 20, 4, 0.05, 1e-3, NX + 1),
               esdirk_problem_set_krylov_settings(old, 20, 4, 0.05, NX + 1));
  SAME_REFUSAL(
      ESDIRK_INVALID_ARGUMENT,
      esdirk_jacobian_structure_set_krylov_options(s, 0, 1.0, ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
      esdirk_problem_set_krylov_options(old, 0, 1.0));
  CHECK(strstr(esdirk_jacobian_structure_last_error(s),
               "the sensitivity_tolerance must be in (0, 1)") != NULL);
  /* tolerance_with_derivatives out of (0, 1): 0, 1, negative, NaN, with the words of the
   * tolerance ("Krylov settings: the tolerance must be in (0, 1) (got 1.000000, n = 32)"). */
  const double bad[4] = {0.0, 1.0, -1e-3, NAN};
  for (int k = 0; k < 4; ++k) {
    CHECK_STATUS(esdirk_jacobian_structure_set_krylov(s, 20, 4, 0.05, bad[k], 2),
                 ESDIRK_INVALID_ARGUMENT);
    const char* message = esdirk_jacobian_structure_last_error(s);
    CHECK(starts_with(message,
                      "Krylov settings: the tolerance_with_derivatives must be in (0, 1) (got "));
    CHECK(strstr(message, ", n = 32)") != NULL);
    if (k == 3) printf("tolerance_with_derivatives NaN: %s\n", message);
  }
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(s, 20, 4, 1.0, 1e-3, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(starts_with(esdirk_jacobian_structure_last_error(s),
                    "Krylov settings: the tolerance must be in (0, 1) (got "));
  /* An unknown preconditioner: refused, naming the call. */
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(s, 0, 1e-10, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(s),
               "esdirk_jacobian_structure_set_krylov_options: the preconditioner must be") != NULL);
  CHECK_STATUS(esdirk_problem_set_krylov_preconditioner(old, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_problem_structure_error(old),
               "esdirk_problem_set_krylov_preconditioner: the preconditioner must be") != NULL);
  esdirk_problem_free(&problem);
  esdirk_problem_free(&old);

  /* A system of fewer than 30 unknowns: the default Krylov dimension 30 was refused there, so
   * the options before the GMRES settings failed. The defaults are now min(30, n): the options
   * are taken first, and a dimension above n is still refused, naming it. */
  esdirk_problem* tiny = NULL;
  CHECK_STATUS(esdirk_problem_create(4, 0, 0, brusselator, NULL, &tiny), ESDIRK_SUCCESS);
  esdirk_jacobian_structure* t = esdirk_problem_jacobian_structure(tiny);
  const esdirk_int p4[5] = {0, 1, 2, 3, 4}, r4[4] = {0, 1, 2, 3};
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(t, p4, r4, ESDIRK_LINEAR_SOLVER_KRYLOV),
               ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_krylov_options(t, 0, 1e-10, ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(t, 5, 4, 0.05, 1e-3, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(t),
               "the Krylov dimension must be in [1, n] (got 5, n = 4)") != NULL);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(t, 4, 4, 0.05, 1e-3, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(
                   t, 0, 1e-10, ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI),
               ESDIRK_SUCCESS);
  esdirk_problem_free(&tiny);
}

/* The hybrid problem's handle: the same checks and words, and the Krylov settings (which the
 * deprecated hybrid calls never had). */
static int hybrid_residual(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                           double t, const double* x, const double* z, const double* p,
                           const double* mem, double* f, double* g, void* user_data) {
  (void)mode, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)p, (void)mem, (void)g,
      (void)user_data;
  for (esdirk_int i = 0; i < nx; ++i) f[i] = -x[i];
  return 0;
}

static void the_hybrid_handle_checks_as_the_plain_one(void) {
  esdirk_hybrid_problem* hybrid = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(NX, 0, 0, 0, 0, hybrid_residual, NULL, &hybrid),
               ESDIRK_SUCCESS);
  esdirk_problem* plain = new_problem();
  esdirk_jacobian_structure* h = esdirk_hybrid_problem_jacobian_structure(hybrid);
  esdirk_jacobian_structure* s = esdirk_problem_jacobian_structure(plain);
  CHECK(h != NULL && h == esdirk_hybrid_problem_jacobian_structure(hybrid) && h != s);
  make_pattern(0);
  esdirk_int bad_rows[6 * NX];
  memcpy(bad_rows, rows, sizeof bad_rows);
  bad_rows[pointers[7]] = NX + 3;
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(h, pointers, bad_rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(s, pointers, bad_rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      ESDIRK_INVALID_ARGUMENT);
  CHECK(strcmp(esdirk_jacobian_structure_last_error(h), esdirk_jacobian_structure_last_error(s)) ==
        0);
  CHECK(strcmp(esdirk_jacobian_structure_last_error(h),
               esdirk_hybrid_problem_structure_error(hybrid)) == 0);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(h, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(h, 20, 4, 0.05, 0.5, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(h, 20, 4, 0.05, NAN, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(h),
               "tolerance_with_derivatives must be in (0, 1)") != NULL);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(h, NX + 1, 4, 0.05, 1e-3, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(h), "n = 32") != NULL);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(
                   h, 0, 1e-12, ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI),
               ESDIRK_SUCCESS);
  Read read, old_read;
  CHECK_STATUS(read_structure(h, &read), ESDIRK_SUCCESS);
  CHECK(read.solver == ESDIRK_LINEAR_SOLVER_KRYLOV && read.nonzeros == pointers[NX]);
  CHECK(memcmp(read.pointers, pointers, sizeof pointers) == 0);
  memset(&old_read, 0, sizeof old_read);
  CHECK_STATUS(esdirk_hybrid_problem_get_jacobian_structure(
                   hybrid, &old_read.solver, &old_read.lower, &old_read.upper, &old_read.nonzeros),
               ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_hybrid_problem_get_jacobian_pattern(hybrid, old_read.pointers, old_read.rows, 6 * NX),
      ESDIRK_SUCCESS);
  CHECK(same_structure(&read, &old_read));
  CHECK_STATUS(esdirk_jacobian_structure_clear(h), ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_hybrid_problem_get_jacobian_pattern(hybrid, old_read.pointers, old_read.rows, 6 * NX),
      ESDIRK_WRONG_CALL_ORDER);
  esdirk_problem_free(&plain);
  esdirk_hybrid_problem_free(&hybrid);
}

/* The same run through the handle and through the deprecated calls: the same bits. */
static void runs_through_the_handle_equal_the_deprecated_calls_to_the_bit(void) {
  make_pattern(0);
  for (int c = 0; c < 5; ++c) {
    esdirk_problem* now = new_problem();
    esdirk_problem* old = new_problem();
    esdirk_jacobian_structure* s = esdirk_problem_jacobian_structure(now);
    int sensitivities = 1;
    switch (c) {
      case 0: /* KLU */
        CHECK_STATUS(
            esdirk_jacobian_structure_set_pattern(s, pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
            ESDIRK_SUCCESS);
        CHECK_STATUS(
            esdirk_problem_set_jacobian_pattern(old, pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
            ESDIRK_SUCCESS);
        break;
      case 1: /* band LU */
        CHECK_STATUS(esdirk_jacobian_structure_set_bandwidths(s, 2, 2), ESDIRK_SUCCESS);
        CHECK_STATUS(esdirk_problem_set_jacobian_bandwidths(old, 2, 2), ESDIRK_SUCCESS);
        break;
      case 2: /* GMRES, ILU(0), with sensitivities */
      case 3: /* GMRES, block-Jacobi, states only */
      case 4: /* GMRES, ILU(0), states only, a looser forcing term and another sensitivity one */
        sensitivities = c == 2;
        CHECK_STATUS(
            esdirk_jacobian_structure_set_pattern(s, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
            ESDIRK_SUCCESS);
        CHECK_STATUS(
            esdirk_problem_set_jacobian_pattern(old, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
            ESDIRK_SUCCESS);
        CHECK_STATUS(esdirk_jacobian_structure_set_krylov(s, 20, 4, c == 4 ? 0.2 : 0.05, 1e-3, 2),
                     ESDIRK_SUCCESS);
        CHECK_STATUS(esdirk_problem_set_krylov_settings(old, 20, 4, c == 4 ? 0.2 : 0.05, 2),
                     ESDIRK_SUCCESS);
        CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(
                         s, 0, c == 4 ? 1e-8 : 1e-10,
                         c == 3 ? ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI
                                : ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
                     ESDIRK_SUCCESS);
        CHECK_STATUS(esdirk_problem_set_krylov_options(old, 0, c == 4 ? 1e-8 : 1e-10),
                     ESDIRK_SUCCESS);
        if (c == 3)
          CHECK_STATUS(esdirk_problem_set_krylov_preconditioner(
                           old, ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI),
                       ESDIRK_SUCCESS);
        break;
    }
    Read a, b;
    CHECK_STATUS(read_structure(s, &a), ESDIRK_SUCCESS);
    CHECK_STATUS(read_structure(esdirk_problem_jacobian_structure(old), &b), ESDIRK_SUCCESS);
    CHECK(same_structure(&a, &b));
    Run through_handle, through_old;
    run(now, sensitivities, &through_handle);
    run(old, sensitivities, &through_old);
    printf("case %d: %lld steps, %lld GMRES iterations, same bits %d\n", c,
           (long long)through_handle.steps, (long long)through_handle.linear_iterations,
           same_bits(&through_handle, &through_old));
    CHECK(same_bits(&through_handle, &through_old));
    CHECK(through_handle.steps == through_old.steps);
    CHECK(through_handle.linear_iterations == through_old.linear_iterations);
    CHECK((c >= 2) == (through_handle.linear_iterations > 0));
    esdirk_problem_free(&now);
    esdirk_problem_free(&old);
  }
}

/* tolerance_with_derivatives is the forcing term of the states' stage solves while the
 * sensitivities run, and nothing else. */
static void tolerance_with_derivatives_reaches_the_solver(void) {
  make_pattern(0);
  Run runs[4], states[2];
  const double tolerance[4] = {-1.0, 1e-3, 0.05, 0.05}; /* -1: not set (the default) */
  for (int k = 0; k < 4; ++k) {
    esdirk_problem* problem = new_problem();
    esdirk_jacobian_structure* s = esdirk_problem_jacobian_structure(problem);
    CHECK_STATUS(
        esdirk_jacobian_structure_set_pattern(s, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
        ESDIRK_SUCCESS);
    if (tolerance[k] > 0.0)
      CHECK_STATUS(esdirk_jacobian_structure_set_krylov(s, 30, 4, 0.05, tolerance[k], 1),
                   ESDIRK_SUCCESS);
    /* Run 3: the deprecated esdirk_problem_set_krylov_settings keeps the term set before. */
    if (k == 3)
      CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, 30, 4, 0.05, 1), ESDIRK_SUCCESS);
    run(problem, 1, &runs[k]);
    if (k == 0 || k == 2) run(problem, 0, &states[k / 2]);
    esdirk_problem_free(&problem);
  }
  printf(
      "with sensitivities: GMRES iterations %lld (default), %lld (1e-3), %lld (0.05); "
      "|Sx(0,0)| %.17g vs %.17g\n",
      (long long)runs[0].linear_iterations, (long long)runs[1].linear_iterations,
      (long long)runs[2].linear_iterations, runs[0].Sx[0], runs[2].Sx[0]);
  CHECK(same_bits(&runs[0], &runs[1]));
  CHECK(!same_bits(&runs[0], &runs[2]));
  CHECK(runs[2].linear_iterations < runs[0].linear_iterations);
  CHECK(same_bits(&runs[2], &runs[3]));
  /* States only: the states' forcing term alone (0.05 either way): the same bits. */
  CHECK(same_bits(&states[0], &states[1]));
  CHECK(states[0].linear_iterations == states[1].linear_iterations);
}

/* The hybrid problem's structure reaches its solver: the Brusselator as a hybrid problem of
 * one mode and no events. Declared through the handle or the deprecated hybrid call, the same
 * bits (KLU); the Krylov settings, which the deprecated hybrid calls never had, change the
 * run: block-Jacobi against ILU(0), and tolerance_with_derivatives with sensitivities only. */
static int hybrid_brusselator(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                              double t, const double* x, const double* z, const double* p,
                              const double* mem, double* f, double* g, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)p, (void)mem,
      (void)g, (void)user_data;
  brusselator_1d_f(x, f);
  return 0;
}

static void run_hybrid(esdirk_hybrid_problem* problem, int sensitivities, Run* out) {
  const double pi = 3.14159265358979323846;
  esdirk_hybrid_solver* solver = NULL;
  esdirk_options* options = NULL;
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_create(&options), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_tolerances(options, RTOL, RTOL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_options(solver, options), ESDIRK_SUCCESS);
  esdirk_options_free(&options);
  for (int k = 0; k < POINTS; ++k) {
    out->x[2 * k] = 1.0 + sin(2.0 * pi * (k + 1) / (POINTS + 1));
    out->x[2 * k + 1] = 3.0;
  }
  memset(out->Sx, 0, sizeof out->Sx);
  double t = 0.0;
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0.0, 0, out->x, NX, NULL, 0, NULL, 0, NULL, 0),
               ESDIRK_SUCCESS);
  if (sensitivities) {
    double seed[NX * NS] = {0.0};
    seed[0] = 1.0;
    seed[NX + 1] = 1.0;
    CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, seed, NX, NS, NX), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, T_END, out->x, NX, NULL, 0,
                                                                 out->Sx, NX, NULL, 0, NS, &t),
                 ESDIRK_SUCCESS);
  } else {
    CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, T_END, out->x, NX, NULL, 0, &t),
                 ESDIRK_SUCCESS);
  }
  CHECK(t == T_END);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "linear_iterations", &out->linear_iterations),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "steps", &out->steps), ESDIRK_SUCCESS);
  esdirk_hybrid_solver_free(&solver);
}

static void the_hybrid_structure_reaches_the_hybrid_solver(void) {
  make_pattern(0);
  /* case 0: KLU through the handle, 1: KLU through the deprecated call, 2: GMRES with ILU(0),
   * 3: GMRES with block-Jacobi, 4: GMRES, tolerance_with_derivatives 0.05 */
  Run states[5], derivatives[5];
  for (int c = 0; c < 5; ++c) {
    esdirk_hybrid_problem* problem = NULL;
    CHECK_STATUS(esdirk_hybrid_problem_create(NX, 0, 0, 0, 0, hybrid_brusselator, NULL, &problem),
                 ESDIRK_SUCCESS);
    esdirk_jacobian_structure* s = esdirk_hybrid_problem_jacobian_structure(problem);
    if (c == 1) {
      CHECK_STATUS(esdirk_hybrid_problem_set_jacobian_pattern(problem, pointers, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                   ESDIRK_SUCCESS);
    } else {
      CHECK_STATUS(esdirk_jacobian_structure_set_pattern(
                       s, pointers, rows, c == 0 ? ESDIRK_LINEAR_SOLVER_SPARSE : ESDIRK_LINEAR_SOLVER_KRYLOV),
                   ESDIRK_SUCCESS);
    }
    if (c >= 2) {
      CHECK_STATUS(esdirk_jacobian_structure_set_krylov(s, 30, 4, 0.05, c == 4 ? 0.05 : 1e-3, 2), ESDIRK_SUCCESS);
      CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(
                       s, 0, 1e-10, c == 3 ? ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI : ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
                   ESDIRK_SUCCESS);
    }
    run_hybrid(problem, 0, &states[c]);
    run_hybrid(problem, 1, &derivatives[c]);
    esdirk_hybrid_problem_free(&problem);
  }
  printf("hybrid: GMRES iterations, states only: ILU(0) %lld, block-Jacobi %lld; with sensitivities: "
         "1e-3 %lld, 0.05 %lld\n",
         (long long)states[2].linear_iterations, (long long)states[3].linear_iterations,
         (long long)derivatives[2].linear_iterations, (long long)derivatives[4].linear_iterations);
  CHECK(same_bits(&states[0], &states[1]) && same_bits(&derivatives[0], &derivatives[1]));
  CHECK(states[0].linear_iterations == 0 && states[2].linear_iterations > 0);
  CHECK(states[3].linear_iterations != states[2].linear_iterations);
  CHECK(same_bits(&states[2], &states[4]));
  CHECK(!same_bits(&derivatives[2], &derivatives[4]));
  CHECK(derivatives[4].linear_iterations < derivatives[2].linear_iterations);
}

int main(void) {
  null_handles_are_refused();
  bad_patterns_and_bandwidths_are_refused_as_before_and_change_nothing();
  bad_krylov_settings_are_refused_in_the_words_of_the_others();
  the_hybrid_handle_checks_as_the_plain_one();
  runs_through_the_handle_equal_the_deprecated_calls_to_the_bit();
  tolerance_with_derivatives_reaches_the_solver();
  the_hybrid_structure_reaches_the_hybrid_solver();
  return report();
}
