/* The Newton-Krylov callbacks of esdirk_sparse.h, compiled as C99: a method-of-lines problem
 * (the 1-D Brusselator on an interleaved grid) solved matrix-free with a user preconditioner
 * built from the J the setup receives, with the difference quotient and with an exact J v,
 * matches the direct (KLU) solution; the callbacks are called as the statistics count them;
 * and bad input (a failing or NaN preconditioner, a NaN J v, NULL pointers, a setup without a
 * solve, settings out of range or out of order) gets a clear status and message and loses
 * nothing; the multiple-shooting evaluator's copies of the problem keep the callbacks; and the
 * adjoint's transposed solves call the preconditioner with its transpose flag; a hybrid problem
 * takes the same callbacks with its mode and memory (esdirk_hybrid_problem_set_krylov_callbacks). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "brusselator_1d_kernels.h"
#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_multishoot.h"
#include "esdirk/esdirk_options.h"
#include "esdirk/esdirk_sparse.h"

/* The 1-D Brusselator of tests/common/brusselator_1d_kernels.h (16 points, interleaved: state
 * 2k is u_k, 2k + 1 is v_k). */
#define POINTS BRUSSELATOR_1D_POINTS
#define NX BRUSSELATOR_1D_N

typedef struct {
  double inverse[POINTS][4]; /* the inverse of each point's 2x2 block of M, column-major */
  long setups, solves, products, transposed_solves;
  int setup_code, solve_code; /* returned by the callbacks when nonzero (failure injection) */
  int solve_nan, product_nan; /* write a NaN instead */
} Model;

static int brusselator(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                       const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)p, (void)g, (void)user_data;
  brusselator_1d_f(x, f);
  return 0;
}

/* The exact J v. */
static int product(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                   const double* z, const double* p, const double* dx, double* out,
                   void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)p;
  Model* model = (Model*)user_data;
  ++model->products;
  brusselator_1d_jv(x, dx, out);
  if (model->product_nan) out[3] = NAN;
  return 0;
}

/* Block Jacobi from the J the setup receives: each point's 2x2 block of M = I - h_gamma J,
 * read from the CSC pattern, inverted in closed form. */
static int setup(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double h_gamma, esdirk_int nnz,
                 const esdirk_int* column_pointers, const esdirk_int* row_indices,
                 const double* values, void* user_data) {
  (void)nz, (void)np, (void)t, (void)x, (void)z, (void)p, (void)nnz;
  Model* model = (Model*)user_data;
  ++model->setups;
  if (model->setup_code != 0) return model->setup_code;
  double block[POINTS][4] = {{0.0}};
  for (esdirk_int j = 0; j < nx; ++j)
    for (esdirk_int k = column_pointers[j]; k < column_pointers[j + 1]; ++k) {
      const esdirk_int i = row_indices[k];
      if (i / 2 == j / 2) block[j / 2][(i % 2) + 2 * (j % 2)] = -h_gamma * values[k];
    }
  return brusselator_1d_invert_blocks((const double(*)[4])block, model->inverse);
}

static int solve(esdirk_int nx, esdirk_int nz, const double* r, double* out, int transpose,
                 void* user_data) {
  (void)nx, (void)nz;
  Model* model = (Model*)user_data;
  ++model->solves;
  if (transpose) ++model->transposed_solves;
  if (model->solve_code != 0) return model->solve_code;
  brusselator_1d_block_solve((const double(*)[4])model->inverse, r, out, transpose);
  if (model->solve_nan) out[5] = NAN;
  return 0;
}

/* The pattern: each point's 2x2 block and the same species at the neighbours (rows sorted). */
static esdirk_int pointers[NX + 1], rows[6 * NX];
static void make_pattern(void) {
  esdirk_int count = 0;
  for (int j = 0; j < NX; ++j) {
    pointers[j] = count;
    const int k = j / 2;
    if (k > 0) rows[count++] = j - 2;
    rows[count++] = 2 * k;
    rows[count++] = 2 * k + 1;
    if (k + 1 < POINTS) rows[count++] = j + 2;
  }
  pointers[NX] = count;
}

static void initial_state(double* x) {
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < POINTS; ++k) {
    x[2 * k] = 1.0 + sin(2.0 * pi * (k + 1) / (POINTS + 1));
    x[2 * k + 1] = 3.0;
  }
}

#define RTOL 1e-6
#define T_END 2.0

/* The problem with the pattern, back-end `solver`, Krylov settings of dimension 20 and the
 * matrix-free switch, and the callbacks given. */
static esdirk_problem* make_problem(Model* model, int solver, int matrix_free,
                                    esdirk_jacobian_vector_fn jv, int preconditioned) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(NX, 0, 0, brusselator, model, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_problem_jacobian_structure(problem),
                                                     pointers, rows, solver),
               ESDIRK_SUCCESS);
  if (solver == ESDIRK_LINEAR_SOLVER_KRYLOV) {
    CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem),
                                                      20, 4, 0.05, 1e-3, 2),
                 ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(
                     esdirk_problem_jacobian_structure(problem), matrix_free, 1e-10,
                     ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
                 ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_problem_set_krylov_callbacks(problem, jv, preconditioned ? setup : NULL,
                                                     preconditioned ? solve : NULL),
                 ESDIRK_SUCCESS);
  }
  return problem;
}

/* Runs to T_END; the status of the integration (initialize is checked). */
static int run(esdirk_problem* problem, double* x, esdirk_solver** out_solver) {
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_tolerances(solver, RTOL, RTOL), ESDIRK_SUCCESS);
  initial_state(x);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, NX, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  const int status = esdirk_solver_integrate_to(solver, T_END, x, NX, NULL, 0);
  if (out_solver)
    *out_solver = solver;
  else
    esdirk_solver_free(&solver);
  return status;
}

static double max_difference(const double* a, const double* b) {
  double d = 0.0;
  for (int i = 0; i < NX; ++i) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static int64_t counter(const esdirk_solver* solver, const char* name) {
  int64_t value = -1;
  CHECK_STATUS(esdirk_solver_get_counter(solver, name, &value), ESDIRK_SUCCESS);
  return value;
}

static double direct[NX];

static void direct_solution(void) {
  Model model = {0};
  esdirk_problem* problem = make_problem(&model, ESDIRK_LINEAR_SOLVER_SPARSE, 0, NULL, 0);
  CHECK_STATUS(run(problem, direct, NULL), ESDIRK_SUCCESS);
  esdirk_problem_free(&problem);
}

/* Matrix-free (differences or the exact J v) and with J's products, each with the user
 * preconditioner: the direct solution to the tolerance, and the callbacks called exactly as
 * often as the statistics count them. */
static void matrix_free_with_a_user_preconditioner_matches_the_direct_solution(void) {
  struct {
    int matrix_free;
    esdirk_jacobian_vector_fn jv;
  } cases[] = {{1, NULL}, {1, product}, {0, NULL}};
  for (int c = 0; c < 3; ++c) {
    Model model = {0};
    esdirk_problem* problem =
        make_problem(&model, ESDIRK_LINEAR_SOLVER_KRYLOV, cases[c].matrix_free, cases[c].jv, 1);
    double x[NX];
    esdirk_solver* solver = NULL;
    CHECK_STATUS(run(problem, x, &solver), ESDIRK_SUCCESS);
    const double difference = max_difference(x, direct);
    printf("case %d (matrix_free %d, exact J v %d): max |x - x_KLU| = %.3g, setups %ld, solves "
           "%ld, products %ld\n",
           c, cases[c].matrix_free, cases[c].jv != NULL, difference, model.setups, model.solves,
           model.products);
    /* Both runs are within about rtol of the solution (|x| is about 1 to 4). */
    CHECK(difference < 10.0 * RTOL);
    CHECK(model.setups > 0 && model.setups == counter(solver, "preconditioner_setups"));
    CHECK(model.solves > 0 && model.solves == counter(solver, "preconditioner_solves"));
    if (cases[c].jv) CHECK(model.products > 0 && model.products == counter(solver, "jacobian_vector_products"));
    else CHECK(model.products == 0);
    esdirk_solver_free(&solver);
    esdirk_problem_free(&problem);
  }
}

/* A callback that fails (any nonzero code) or writes a NaN: ESDIRK_LINEAR_SOLVER_FAILURES, the
 * message naming the callback, and the state of the last good step kept. */
static void check_failure(Model* model, esdirk_problem* problem, int* flag, int value,
                          const char* expected) {
  double x[NX];
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_tolerances(solver, RTOL, RTOL), ESDIRK_SUCCESS);
  initial_state(x);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, NX, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 0.5, x, NX, NULL, 0), ESDIRK_SUCCESS);
  double t_good = 0.0, x_good[NX], t_after = 0.0, x_after[NX];
  CHECK_STATUS(esdirk_solver_get_state(solver, &t_good, x_good, NX, NULL, 0), ESDIRK_SUCCESS);
  *flag = value;
  CHECK_STATUS(esdirk_solver_integrate_to(solver, T_END, x, NX, NULL, 0),
               ESDIRK_LINEAR_SOLVER_FAILURES);
  const char* message = esdirk_solver_last_error(solver);
  printf("  %s\n", message);
  CHECK(strstr(message, expected) != NULL);
  CHECK_STATUS(esdirk_solver_get_state(solver, &t_after, x_after, NX, NULL, 0), ESDIRK_SUCCESS);
  CHECK(t_after == t_good && memcmp(x_after, x_good, sizeof x_good) == 0);
  *flag = 0;
  (void)model;
  esdirk_solver_free(&solver);
}

static void failing_callbacks_stop_with_a_clear_status_and_keep_the_state(void) {
  Model model = {0};
  esdirk_problem* problem = make_problem(&model, ESDIRK_LINEAR_SOLVER_KRYLOV, 1, product, 1);
  check_failure(&model, problem, &model.solve_code, 2,
                "the preconditioner solve callback returned 2");
  check_failure(&model, problem, &model.solve_code, -3,  /* no fatal code: the same stop */
                "the preconditioner solve callback returned -3");
  check_failure(&model, problem, &model.setup_code, 7,
                "the preconditioner setup callback returned 7");
  check_failure(&model, problem, &model.solve_nan, 1,
                "the preconditioner solve callback gave non-finite values");
  check_failure(&model, problem, &model.product_nan, 1, "the J v callback gave non-finite values");
  /* After the failures the same problem runs normally again. */
  double x[NX];
  CHECK_STATUS(run(problem, x, NULL), ESDIRK_SUCCESS);
  CHECK(max_difference(x, direct) < 10.0 * RTOL);
  esdirk_problem_free(&problem);
}

static void bad_arguments_are_refused_and_change_nothing(void) {
  Model model = {0};
  esdirk_problem* problem = make_problem(&model, ESDIRK_LINEAR_SOLVER_KRYLOV, 1, product, 1);
  CHECK_STATUS(esdirk_problem_set_krylov_callbacks(NULL, product, setup, solve), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_krylov_options(esdirk_problem_jacobian_structure(NULL), 1,
                                                   1e-10, ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
      ESDIRK_NULL_ARGUMENT);
  /* A setup without its solve, or a solve without its setup. */
  CHECK_STATUS(esdirk_problem_set_krylov_callbacks(problem, product, setup, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_problem_jacobian_structure(problem)),
               "setup and solve") != NULL);
  CHECK_STATUS(esdirk_problem_set_krylov_callbacks(problem, NULL, NULL, solve),
               ESDIRK_INVALID_ARGUMENT);
  /* The sensitivity tolerance out of (0, 1). */
  const double bad_tolerances[] = {0.0, 1.0, -1e-3, NAN};
  for (int k = 0; k < 4; ++k) {
    CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(
                     esdirk_problem_jacobian_structure(problem), 0, bad_tolerances[k],
                     ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
                 ESDIRK_INVALID_ARGUMENT);
    CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_problem_jacobian_structure(problem)),
                 "sensitivity_tolerance") != NULL);
  }
  /* The GMRES settings again: they leave the matrix-free switch as it is. */
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 20,
                                                    4, 0.05, 1e-3, 2),
               ESDIRK_SUCCESS);
  /* Nothing changed: still matrix-free (the only use of J v) with the exact J v and the user
   * preconditioner. */
  double x[NX];
  esdirk_solver* solver = NULL;
  CHECK_STATUS(run(problem, x, &solver), ESDIRK_SUCCESS);
  CHECK(model.products > 0 && model.products == counter(solver, "jacobian_vector_products"));
  CHECK(model.setups > 0 && model.setups == counter(solver, "preconditioner_setups"));
  /* Matrix-free products have no place in the sensitivities: refused, naming the setting. */
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, NX, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, NULL, NX, NX, NX), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "matrix_free") != NULL);
  esdirk_solver_free(&solver);
  /* Removing the callbacks: the built-in block-Jacobi and difference products. */
  CHECK_STATUS(esdirk_problem_set_krylov_callbacks(problem, NULL, NULL, NULL), ESDIRK_SUCCESS);
  const long setups = model.setups;
  CHECK_STATUS(run(problem, x, NULL), ESDIRK_SUCCESS);
  CHECK(model.setups == setups);
  CHECK(max_difference(x, direct) < 10.0 * RTOL);
  esdirk_problem_free(&problem);

  /* On a system below 30 unknowns the default Krylov dimension is n (it was 30, and the options
   * call was refused until the GMRES settings came first). */
  esdirk_problem* small = NULL;
  CHECK_STATUS(esdirk_problem_create(4, 0, 0, brusselator, &model, &small), ESDIRK_SUCCESS);
  const esdirk_int small_pointers[] = {0, 1, 2, 3, 4}, small_rows[] = {0, 1, 2, 3};
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_problem_jacobian_structure(small),
                                                     small_pointers, small_rows,
                                                     ESDIRK_LINEAR_SOLVER_KRYLOV),
               ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_krylov_options(esdirk_problem_jacobian_structure(small), 1,
                                                   1e-10, ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(small), 4, 4,
                                                    0.05, 1e-3, 1),
               ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_krylov_options(esdirk_problem_jacobian_structure(small), 1,
                                                   1e-8, ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
      ESDIRK_SUCCESS);
  esdirk_problem_free(&small);
}

/* A stiff rotation, x' = w (x_1, -x_0) with w = 1e6: M = I - h gamma J has a zero diagonal
 * correction, so Jacobi is the identity and GMRES(1) cuts the residual by a factor
 * sqrt(1 - 1 / (1 + (h gamma w)^2)) per cycle: for h = 1, about 1 - 1e-12. */
static int rotation(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                    const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)p, (void)g, (void)user_data;
  f[0] = 1e6 * x[1];
  f[1] = -1e6 * x[0];
  return 0;
}

/* The rotation from (1, 0) towards t = 10 with GMRES(1), `restarts` restarts and at most 60
 * steps from h = 1 (restarts < 0: the settings the problem has). The problem's preconditioner
 * is block-Jacobi with blocks of 1, the identity here (ILU(0) of the full 2 x 2 pattern would be
 * the exact LU, and GMRES would converge at once). */
static int run_rotation(esdirk_problem* problem, int restarts, double* t, double* x) {
  if (restarts >= 0)
    CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 1,
                                                      restarts, 0.05, 1e-3, 1),
                 ESDIRK_SUCCESS);
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_step_limits(solver, 1.0, 0.0, 1e300, 60), ESDIRK_SUCCESS);
  x[0] = 1.0, x[1] = 0.0;
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, 2, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  const int status = esdirk_solver_integrate_to(solver, 10.0, x, 2, NULL, 0);
  CHECK_STATUS(esdirk_solver_get_state(solver, t, x, 2, NULL, 0), ESDIRK_SUCCESS);
  esdirk_solver_free(&solver);
  return status;
}

/* GMRES had no stagnation test, and esdirk_problem_set_krylov_settings (now
 * esdirk_jacobian_structure_set_krylov) took any restart
 * count: with INT_MAX restarts the rotation above never finished its first step (issue 27).
 * Counts beyond 1000 are refused by the core's check of the settings (the message names the
 * limit), and the settings stay as they were; at the limit the run ends (a cycle without
 * progress ends its solve; the steps shrink until GMRES converges, then the step limit stops
 * the run). */
static void gmres_restarts_beyond_the_cap_are_refused_not_run_for_ever(void) {
  const esdirk_int full_pointers[] = {0, 2, 4}, full_rows[] = {0, 1, 0, 1};
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(2, 0, 0, rotation, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(esdirk_problem_jacobian_structure(problem),
                                            full_pointers, full_rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
      ESDIRK_SUCCESS);
  /* The GMRES settings first: the defaults (dimension 30) do not fit n = 2. */
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 1,
                                                    4, 0.05, 1e-3, 1),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(
                   esdirk_problem_jacobian_structure(problem), 0, 1e-10,
                   ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI),
               ESDIRK_SUCCESS);
  double t_kept = 0.0, x_kept[2], t = 0.0, x[2];
  const int kept = run_rotation(problem, 4, &t_kept, x_kept);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 1,
                                                    INT_MAX, 0.05, 1e-3, 1),
               ESDIRK_INVALID_ARGUMENT);
  printf("  %s\n",
         esdirk_jacobian_structure_last_error(esdirk_problem_jacobian_structure(problem)));
  CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_problem_jacobian_structure(problem)),
               "Krylov settings: max_restarts must be <= 1000 (got 2147483647, n = 2)") != NULL);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 1,
                                                    1001, 0.05, 1e-3, 1),
               ESDIRK_INVALID_ARGUMENT);
  /* Kept: the same run as with 4 restarts, to the bit. */
  CHECK_STATUS(run_rotation(problem, -1, &t, x), kept);
  CHECK(t == t_kept && memcmp(x, x_kept, sizeof x) == 0);
  /* At the limit the run ends at the step limit. */
  CHECK_STATUS(run_rotation(problem, 1000, &t, x), ESDIRK_TOO_MANY_STEPS);
  CHECK(t > 0.0 && t < 10.0 && isfinite(x[0]) && isfinite(x[1]));
  esdirk_problem_free(&problem);
}

static int zero_rhs(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                    const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nz, (void)np, (void)t, (void)x, (void)z, (void)p, (void)g, (void)user_data;
  for (esdirk_int i = 0; i < nx; ++i) f[i] = 0.0;
  return 0;
}

/* The Krylov dimension had no cap but n: a dimension near n asked n + 1 basis vectors of n
 * values (n^2 memory) at setup. Beyond 500 the core refuses it naming the cap, before anything
 * is allocated, and the settings stay as they were. */
static void krylov_dimensions_beyond_the_cap_are_refused_before_the_basis_is_allocated(void) {
  enum { N = 1000 };
  static esdirk_int pointers[N + 1], rows[N];
  for (esdirk_int j = 0; j <= N; ++j) pointers[j] = j;
  for (esdirk_int j = 0; j < N; ++j) rows[j] = j;
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(N, 0, 0, zero_rhs, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_problem_jacobian_structure(problem),
                                                     pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 20,
                                                    4, 0.05, 1e-3, 1),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), N,
                                                    4, 0.05, 1e-3, 1),
               ESDIRK_INVALID_ARGUMENT);
  printf("  %s\n",
         esdirk_jacobian_structure_last_error(esdirk_problem_jacobian_structure(problem)));
  CHECK(strstr(
            esdirk_jacobian_structure_last_error(esdirk_problem_jacobian_structure(problem)),
            "the Krylov dimension must be <= 500 (the GMRES basis holds dimension + 1 vectors of n "
            "values) (got 1000, n = 1000)") != NULL);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 501,
                                                    4, 0.05, 1e-3, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 500,
                                                    4, 0.05, 1e-3, 1),
               ESDIRK_SUCCESS);
  /* At the cap a solver is made (two stage systems of 501 basis vectors of 1000 values) and
   * runs (x' = 0). */
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  static double x[N];
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, N, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 1.0, x, N, NULL, 0), ESDIRK_SUCCESS);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
}

/* The multiple-shooting evaluator's copies of the problem keep the Krylov callbacks (a copy
 * without them would run the built-in block-Jacobi): its interval calls the user
 * preconditioner, for the states and the sensitivities' stage solves, and ends at the direct
 * solution. */
static void intervals_use_the_problems_preconditioner(void) {
  Model model = {0};
  esdirk_problem* problem = make_problem(&model, ESDIRK_LINEAR_SOLVER_KRYLOV, 0, NULL, 1);
  esdirk_multishoot* ms = NULL;
  CHECK_STATUS(esdirk_multishoot_create(problem, 1, 1, &ms), ESDIRK_SUCCESS);
  esdirk_options* options = NULL;
  CHECK_STATUS(esdirk_options_create(&options), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_tolerances(options, RTOL, RTOL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_set_options(ms, options), ESDIRK_SUCCESS);
  esdirk_options_free(&options);
  const double t0 = 0.0, t1 = T_END;
  double x[NX], x_end[NX];
  static double A[NX * NX];
  esdirk_int status = -1;
  initial_state(x);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, &t0, &t1, x, NULL, NULL, x_end, NULL, A, NULL, NULL,
                                          NULL, NULL, &status),
               ESDIRK_SUCCESS);
  CHECK(status == ESDIRK_SUCCESS);
  CHECK(model.setups > 0 && model.solves > 0);
  printf("multiple shooting: max |x - x_KLU| = %.3g, setups %ld, solves %ld\n",
         max_difference(x_end, direct), model.setups, model.solves);
  CHECK(max_difference(x_end, direct) < 10.0 * RTOL);
  esdirk_multishoot_free(&ms);
  esdirk_problem_free(&problem);
}

/* esdirk_jacobian_structure_set_krylov_sensitivity: forward sensitivities (two directions of
 * x0) with the step's preconditioner (the default) and with a setup per stage give the same
 * sensitivities to the integration tolerance, the second with more preconditioner setups; an
 * error fraction of 0.01 takes fewer GMRES iterations; a fraction outside [0, 1) is refused,
 * naming it, and NULL is refused. */
static void sensitivity_stage_solves_take_their_settings(void) {
  static double S[3][NX * 2];
  int64_t setups[3], iterations[3];
  const int step_preconditioner[3] = {1, 0, 1};
  const double fraction[3] = {0.0, 0.0, 0.01};
  for (int c = 0; c < 3; ++c) {
    Model model = {0};
    esdirk_problem* problem = make_problem(&model, ESDIRK_LINEAR_SOLVER_KRYLOV, 0, NULL, 1);
    esdirk_jacobian_structure* structure = esdirk_problem_jacobian_structure(problem);
    if (c == 0) {
      CHECK_STATUS(esdirk_jacobian_structure_set_krylov_sensitivity(structure, 1, 1.0), ESDIRK_INVALID_ARGUMENT);
      CHECK(strstr(esdirk_jacobian_structure_last_error(structure), "sensitivity_error_fraction must be in [0, 1)") !=
            NULL);
      CHECK_STATUS(esdirk_jacobian_structure_set_krylov_sensitivity(NULL, 1, 0.0), ESDIRK_NULL_ARGUMENT);
    }
    CHECK_STATUS(esdirk_jacobian_structure_set_krylov_sensitivity(structure, step_preconditioner[c], fraction[c]),
                 ESDIRK_SUCCESS);
    esdirk_solver* solver = NULL;
    CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_tolerances(solver, RTOL, RTOL), ESDIRK_SUCCESS);
    double x[NX], seed[NX * 2] = {0.0};
    seed[0] = 1.0;
    seed[NX + 1] = 1.0;
    initial_state(x);
    CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, NX, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_start_sensitivities(solver, seed, NX, 2, NX), ESDIRK_SUCCESS);
    CHECK(esdirk_solver_integrate_sensitivities_to(solver, T_END, x, NX, NULL, 0, S[c], NX, NULL, 1, 2) >= 0);
    setups[c] = counter(solver, "preconditioner_setups");
    iterations[c] = counter(solver, "linear_iterations");
    esdirk_solver_free(&solver);
    esdirk_problem_free(&problem);
  }
  double difference = 0.0, size = 0.0;
  for (int i = 0; i < 2 * NX; ++i) {
    difference = fmax(difference, fabs(S[1][i] - S[0][i]));
    size = fmax(size, fabs(S[1][i]));
  }
  printf("sensitivity stage solves: setups %ld (step preconditioner) / %ld (per stage), GMRES iterations %ld / %ld "
         "(fraction 0.01), max |S - S_per_stage| = %.3g of %.3g\n",
         (long)setups[0], (long)setups[1], (long)iterations[0], (long)iterations[2], difference, size);
  CHECK(setups[0] < setups[1]);
  CHECK(iterations[2] < iterations[0]);
  CHECK(size > 0.0 && difference < 10.0 * RTOL * size);
}

/* The adjoint's transposed stage solves reach the user preconditioner with `transpose` set:
 * the gradient of the final sum of u with respect to x0 equals the KLU adjoint's to the
 * integration tolerance. */
static void adjoint_uses_the_transposed_preconditioner(void) {
  double gradients[2][NX];
  for (int c = 0; c < 2; ++c) {
    Model model = {0};
    esdirk_problem* problem =
        make_problem(&model, c == 0 ? ESDIRK_LINEAR_SOLVER_SPARSE : ESDIRK_LINEAR_SOLVER_KRYLOV, 0,
                     NULL, 1);
    esdirk_solver* solver = NULL;
    CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_tolerances(solver, RTOL, RTOL), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_adjoint(solver, 1, 0), ESDIRK_SUCCESS);
    double x[NX];
    initial_state(x);
    CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, x, NX, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_stop_time(solver, T_END), ESDIRK_SUCCESS);
    CHECK(esdirk_solver_integrate_to(solver, T_END, x, NX, NULL, 0) >= 0);
    double W[NX];
    for (int i = 0; i < NX; ++i) W[i] = i % 2 == 0 ? 1.0 : 0.0;
    esdirk_objective* objective = NULL;
    CHECK_STATUS(esdirk_objective_create(1, &objective), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_objective_set_terminal_weights(objective, W, NX, NX), ESDIRK_SUCCESS);
    const long forward_transposed = model.transposed_solves;
    CHECK_STATUS(esdirk_solver_adjoint_gradient(solver, objective, gradients[c], NX, NX, NULL, 0, 0),
                 ESDIRK_SUCCESS);
    if (c == 1) {
      printf("adjoint: transposed preconditioner solves %ld (forward run %ld)\n",
             model.transposed_solves, forward_transposed);
      CHECK(forward_transposed == 0 && model.transposed_solves > 0);
    }
    esdirk_objective_free(&objective);
    esdirk_solver_free(&solver);
    esdirk_problem_free(&problem);
  }
  double difference = 0.0, size = 0.0;
  for (int i = 0; i < NX; ++i) {
    difference = fmax(difference, fabs(gradients[1][i] - gradients[0][i]));
    size = fmax(size, fabs(gradients[0][i]));
  }
  printf("adjoint: max |g - g_KLU| = %.3g (max |g_KLU| = %.3g)\n", difference, size);
  CHECK(size > 0.0 && difference < 10.0 * RTOL * size);
}

/* The same Brusselator as a hybrid problem (one mode, no events): its callbacks, given the mode
 * and the memory, forward to the plain ones. */
static int hybrid_brusselator(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                              const double* x, const double* z, const double* p, const double* mem, double* f,
                              double* g, void* user_data) {
  (void)mode, (void)nm, (void)mem;
  return brusselator(nx, nz, np, t, x, z, p, f, g, user_data);
}
static int modes_seen_wrong = 0; /* a callback that was given another mode or a memory */
static int hybrid_product(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                          const double* x, const double* z, const double* p, const double* mem, const double* v,
                          double* out, void* user_data) {
  if (mode != 4 || nm != 0 || mem != NULL) ++modes_seen_wrong;
  return product(nx, nz, np, t, x, z, p, v, out, user_data);
}
static int hybrid_setup(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                        const double* x, const double* z, const double* p, const double* mem, double h_gamma,
                        esdirk_int nnz, const esdirk_int* column_pointers, const esdirk_int* row_indices,
                        const double* values, void* user_data) {
  if (mode != 4 || nm != 0 || mem != NULL) ++modes_seen_wrong;
  return setup(nx, nz, np, t, x, z, p, h_gamma, nnz, column_pointers, row_indices, values, user_data);
}

/* Runs the hybrid problem in mode 4 to T_END: the status; the solver is kept in *out. */
static int run_hybrid(esdirk_hybrid_problem* problem, double* x, esdirk_hybrid_solver** out) {
  esdirk_options* options = NULL;
  CHECK_STATUS(esdirk_options_create(&options), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_tolerances(options, RTOL, RTOL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, out), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_options(*out, options), ESDIRK_SUCCESS);
  esdirk_options_free(&options);
  initial_state(x);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(*out, 0.0, 4, x, NX, NULL, 0, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  double t_reached = 0.0;
  return esdirk_hybrid_solver_integrate_to(*out, T_END, x, NX, NULL, 0, &t_reached);
}

/* The hybrid problem's callbacks: matrix-free with the exact J v and the user preconditioner,
 * the direct solution to the tolerance, every call counted and given the mode; a failing setup
 * stops the run as the plain problem's does; a setup without a solve is refused. */
static void hybrid_problems_take_the_same_callbacks_with_their_mode(void) {
  Model model = {0};
  esdirk_hybrid_problem* problem = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(NX, 0, 0, 0, 0, hybrid_brusselator, &model, &problem), ESDIRK_SUCCESS);
  esdirk_jacobian_structure* structure = esdirk_hybrid_problem_jacobian_structure(problem);
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(structure, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov_options(structure, 1, 1e-10, ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_krylov_callbacks(problem, hybrid_product, hybrid_setup, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(structure), "setup and solve, or neither") != NULL);
  CHECK_STATUS(esdirk_hybrid_problem_set_krylov_callbacks(NULL, hybrid_product, hybrid_setup, solve),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_krylov_callbacks(problem, hybrid_product, hybrid_setup, solve),
               ESDIRK_SUCCESS);

  double x[NX];
  esdirk_hybrid_solver* solver = NULL;
  CHECK_STATUS(run_hybrid(problem, x, &solver), ESDIRK_SUCCESS);
  int64_t setups = -1, solves = -1, products = -1;
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "preconditioner_setups", &setups), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "preconditioner_solves", &solves), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "jacobian_vector_products", &products), ESDIRK_SUCCESS);
  printf("hybrid: max |x - x_KLU| = %.3g, setups %ld, solves %ld, products %ld\n", max_difference(x, direct),
         model.setups, model.solves, model.products);
  CHECK(max_difference(x, direct) < 10.0 * RTOL);
  CHECK(model.setups > 0 && model.setups == setups);
  CHECK(model.solves > 0 && model.solves == solves);
  CHECK(model.products > 0 && model.products == products);
  CHECK(modes_seen_wrong == 0);
  esdirk_hybrid_solver_free(&solver);

  model.setup_code = 7;
  CHECK_STATUS(run_hybrid(problem, x, &solver), ESDIRK_LINEAR_SOLVER_FAILURES);
  printf("  %s\n", esdirk_hybrid_solver_last_error(solver));
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "the preconditioner setup callback returned 7") != NULL);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

int main(void) {
  make_pattern();
  direct_solution();
  matrix_free_with_a_user_preconditioner_matches_the_direct_solution();
  failing_callbacks_stop_with_a_clear_status_and_keep_the_state();
  bad_arguments_are_refused_and_change_nothing();
  gmres_restarts_beyond_the_cap_are_refused_not_run_for_ever();
  krylov_dimensions_beyond_the_cap_are_refused_before_the_basis_is_allocated();
  intervals_use_the_problems_preconditioner();
  adjoint_uses_the_transposed_preconditioner();
  hybrid_problems_take_the_same_callbacks_with_their_mode();
  sensitivity_stage_solves_take_their_settings();
  return report();
}
