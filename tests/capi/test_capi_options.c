/* The options object of esdirk_options.h, compiled as C99: every invalid value is refused with
 * the status and message of the per-handle setter it replaces, on each of the five handles
 * that integrate; a refused value changes nothing; set_options copies only what was set, all
 * or nothing; a run configured through the object equals, to the last bit, one configured
 * through the deprecated setters; and the Krylov settings of esdirk_problem_set_krylov_settings
 * are checked and reach the GMRES stage solver. */
#define _DEFAULT_SOURCE /* mmap */
#ifndef ESDIRK_NO_DEPRECATION_WARNINGS /* the deprecated setters are compared on purpose */
#define ESDIRK_NO_DEPRECATION_WARNINGS
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_options.h"
#include "esdirk/esdirk_sparse.h"

#include "hyperbola_model.h"

/* A diffusion chain of N states (tridiagonal J) for the Krylov stage solver. */
#define N 6
static int chain(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nz, (void)np, (void)t, (void)z, (void)p, (void)g, (void)user_data;
  for (esdirk_int i = 0; i < nx; ++i) {
    const double left = i > 0 ? x[i - 1] : 0.0, right = i + 1 < nx ? x[i + 1] : 0.0;
    f[i] = 50.0 * (left - 2.0 * x[i] + right);
  }
  return 0;
}

/* The deprecated setter `SETTER` on handle h of type esdirk_<H> and the same value through an
 * options object and esdirk_<H>_set_options: the same refusal (status and message). */
static char old_message[1024];
#define SAME_REFUSAL(H, h, SETTER, ...)                                                        \
  do {                                                                                         \
    esdirk_options* o_ = NULL;                                                                 \
    CHECK_STATUS(esdirk_options_create(&o_), ESDIRK_SUCCESS);                                  \
    const int old_ = esdirk_##H##_set_##SETTER(h, __VA_ARGS__);                                \
    snprintf(old_message, sizeof old_message, "%s", esdirk_##H##_last_error(h));               \
    int new_ = esdirk_options_set_##SETTER(o_, __VA_ARGS__);                                   \
    const char* new_message_ = esdirk_options_last_error(o_);                                  \
    if (new_ == ESDIRK_SUCCESS) {                                                              \
      new_ = esdirk_##H##_set_options(h, o_);                                                  \
      new_message_ = esdirk_##H##_last_error(h);                                               \
    }                                                                                          \
    CHECK(old_ == ESDIRK_INVALID_ARGUMENT || old_ == ESDIRK_NULL_ARGUMENT);                    \
    CHECK(new_ == old_);                                                                       \
    CHECK(old_message[0] != '\0' && strcmp(old_message, new_message_) == 0);                   \
    if (strcmp(old_message, new_message_) != 0)                                                \
      fprintf(stderr, "  old: %s\n  new: %s\n", old_message, new_message_);                  \
    esdirk_options_free(&o_);                                                                  \
  } while (0)

/* Every invalid value of every setting; reuse != 0 only where the handle refuses it. */
#define ALL_REFUSALS(H, h, refuses_reuse)                              \
  do {                                                                 \
    SAME_REFUSAL(H, h, tolerances, -1.0, 1e-6);                        \
    SAME_REFUSAL(H, h, tolerances, 1e-6, NAN);                         \
    SAME_REFUSAL(H, h, tolerance_rule, 7, 0.0);                        \
    SAME_REFUSAL(H, h, tolerance_rule, ESDIRK_TOLERANCE_CALIBRATED, -1.0); \
    SAME_REFUSAL(H, h, method, "RK4");                                 \
    SAME_REFUSAL(H, h, method, NULL);                                  \
    SAME_REFUSAL(H, h, jacobian_reuse, 0, 2.0);                        \
    if (refuses_reuse) SAME_REFUSAL(H, h, jacobian_reuse, 1, 0.1);     \
    SAME_REFUSAL(H, h, keep_step_ratio, 2.0, 3.0);                     \
    SAME_REFUSAL(H, h, keep_step_ratio, 1.0, INFINITY);                \
    SAME_REFUSAL(H, h, newton_test, 9, 0.03);                          \
    SAME_REFUSAL(H, h, newton_test, ESDIRK_NEWTON_CORRECTION, 1.5);    \
    SAME_REFUSAL(H, h, difference_increment, 5);                       \
  } while (0)

/* One double at the end of a page whose next page cannot be read: a read past it faults, with
 * or without a sanitizer. NULL if the pages cannot be had. */
static double* double_before_an_unreadable_page(void) {
  const long page = sysconf(_SC_PAGESIZE);
  char* p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED || mprotect(p + page, (size_t)page, PROT_NONE) != 0) return NULL;
  return (double*)(p + page) - 1;
}

static void refusals_match_the_per_handle_setters(esdirk_problem* problem) {
  esdirk_solver* solver = NULL;
  esdirk_shooting* shooting = NULL;
  esdirk_reverse_shooting* reverse = NULL;
  esdirk_multishoot* ms = NULL;
  esdirk_hybrid_problem* hp = NULL;
  esdirk_hybrid_solver* hs = NULL;
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_create(problem, &reverse), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_create(problem, 2, 1, &ms), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 1, 0, 1, 0, hybrid_hyperbola, NULL, &hp),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(hp, &hs), ESDIRK_SUCCESS);

  ALL_REFUSALS(solver, solver, 0);
  ALL_REFUSALS(shooting, shooting, 1);
  ALL_REFUSALS(reverse_shooting, reverse, 1);
  ALL_REFUSALS(multishoot, ms, 1);
  ALL_REFUSALS(hybrid_solver, hs, 0);
  SAME_REFUSAL(solver, solver, lu_reuse_h_change, 1.0);
  {
    const double two[2] = {1e-8, 1e-8}; /* nz is 1 */
    SAME_REFUSAL(solver, solver, algebraic_atol, NULL, 1);
    SAME_REFUSAL(solver, solver, algebraic_atol, two, 2);
    SAME_REFUSAL(shooting, shooting, algebraic_atol, NULL, 1);
    SAME_REFUSAL(shooting, shooting, algebraic_atol, two, 2);
    SAME_REFUSAL(reverse_shooting, reverse, algebraic_atol, two, 0);
    SAME_REFUSAL(multishoot, ms, algebraic_atol, two, -1);
  }
  SAME_REFUSAL(hybrid_solver, hs, lu_reuse_h_change, -0.5);

  /* Regression (found by fuzz_capi_multishoot): a deprecated set_algebraic_atol checks the
   * count against the handle's nz before it reads atol, as before the options object. The
   * value is the last readable double of its page, so reading the count of 2 would fault. */
  {
    double* one = double_before_an_unreadable_page();
    CHECK(one != NULL);
    if (one != NULL) {
      *one = 1e-8;
      CHECK_STATUS(esdirk_solver_set_algebraic_atol(solver, one, 2), ESDIRK_INVALID_ARGUMENT);
      CHECK_STATUS(esdirk_shooting_set_algebraic_atol(shooting, one, 2), ESDIRK_INVALID_ARGUMENT);
      CHECK_STATUS(esdirk_reverse_shooting_set_algebraic_atol(reverse, one, 2),
                   ESDIRK_INVALID_ARGUMENT);
      CHECK_STATUS(esdirk_multishoot_set_algebraic_atol(ms, one, 2), ESDIRK_INVALID_ARGUMENT);
    }
    CHECK(strcmp(esdirk_multishoot_last_error(ms), "set_algebraic_atol: length must be nz = 1") ==
          0);
  }

  /* Regression: the deprecated set_jacobian_reuse of a handle that always differentiates names
   * its refusal of reuse before an invalid contraction, as before the options object. */
  CHECK_STATUS(esdirk_shooting_set_jacobian_reuse(shooting, 1, 2.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(shooting), "states-only") != NULL);
  CHECK_STATUS(esdirk_multishoot_set_jacobian_reuse(ms, 1, -1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_multishoot_last_error(ms), "states-only") != NULL);
  CHECK_STATUS(esdirk_solver_set_jacobian_reuse(solver, 1, 2.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_solver_last_error(solver), "set_jacobian_reuse: ") != NULL);

  /* The messages are the setters' own words. */
  esdirk_options* o = NULL;
  CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_options_last_error(o), "") == 0);
  CHECK_STATUS(esdirk_options_set_tolerances(o, -1.0, 0.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strcmp(esdirk_options_last_error(o),
               "set_tolerances: rtol and atol must be finite and >= 0") == 0);
  CHECK_STATUS(esdirk_options_set_method(o, "RK4"), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_options_last_error(o), "set_method: ") == esdirk_options_last_error(o));
  CHECK(strstr(esdirk_options_last_error(o), "ESDIRK436") != NULL); /* lists the known names */

  /* A refused value keeps the object; applying copies only what was set, all or nothing. */
  CHECK_STATUS(esdirk_options_set_method(o, "ESDIRK547"), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_method(o, "bogus"), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_options_set_jacobian_reuse(o, 1, 0.2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_options(shooting, o), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(shooting), "states-only") != NULL);
  CHECK(strcmp(esdirk_shooting_method_name(shooting), "auto") == 0); /* nothing applied */
  CHECK_STATUS(esdirk_solver_set_options(solver, o), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_solver_method_name(solver), "ESDIRK547") == 0);
  CHECK_STATUS(esdirk_options_set_jacobian_reuse(o, 0, 0.1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_options(shooting, o), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_shooting_method_name(shooting), "ESDIRK547") == 0);
  CHECK_STATUS(esdirk_multishoot_set_options(ms, o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_set_options(reverse, o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_options(hs, o), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_multishoot_method_name(ms), "ESDIRK547") == 0);
  CHECK(strcmp(esdirk_reverse_shooting_method_name(reverse), "ESDIRK547") == 0);
  CHECK(strcmp(esdirk_hybrid_solver_method_name(hs), "ESDIRK547") == 0);

  /* The hybrid solver takes the algebraic tolerances through the object too, checked alike. */
  CHECK_STATUS(esdirk_options_set_algebraic_atol(o, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_options(hs, o), ESDIRK_INVALID_ARGUMENT);
  CHECK(strcmp(esdirk_hybrid_solver_last_error(hs), "set_algebraic_atol: length must be nz = 1") == 0);
  {
    const double one = 1e-9;
    CHECK_STATUS(esdirk_options_set_algebraic_atol(o, &one, 1), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_set_options(hs, o), ESDIRK_SUCCESS);
  }

  /* NULL arguments. */
  CHECK_STATUS(esdirk_solver_set_options(solver, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK(strcmp(esdirk_solver_last_error(solver), "set_options: options is NULL") == 0);
  CHECK_STATUS(esdirk_solver_set_options(NULL, o), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_options_set_tolerances(NULL, 1e-6, 1e-6), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_options_create(NULL), ESDIRK_NULL_ARGUMENT);
  esdirk_options_free(&o);
  CHECK(o == NULL);
  esdirk_options_free(&o); /* freeing NULL is a no-op */
  esdirk_options_free(NULL);

  esdirk_hybrid_solver_free(&hs);
  esdirk_hybrid_problem_free(&hp);
  esdirk_multishoot_free(&ms);
  esdirk_reverse_shooting_free(&reverse);
  esdirk_shooting_free(&shooting);
  esdirk_solver_free(&solver);
}

/* The hyperbola to t = 3; x, z and the step count. */
static void run(esdirk_solver* solver, double* x, double* z, int64_t* steps) {
  const double x0 = 1.0, z0 = 1.0;
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x0, 1, &z0, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 3.0, x, 1, z, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "steps", steps), ESDIRK_SUCCESS);
}

static void runs_equal_the_deprecated_setters_bit_for_bit(esdirk_problem* problem) {
  esdirk_solver *old_way = NULL, *new_way = NULL;
  esdirk_options *tolerances = NULL, *method = NULL;
  double x_old, z_old, x_new, z_new;
  const double algebraic_atol = 1e-12;
  int64_t steps_old, steps_new;
  CHECK_STATUS(esdirk_solver_create(problem, &old_way), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_tolerances(old_way, 1e-7, 1e-9), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_method(old_way, "ESDIRK436"), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_newton_test(old_way, ESDIRK_NEWTON_CORRECTION, 0.05),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_keep_step_ratio(old_way, 0.9, 1.2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_algebraic_atol(old_way, &algebraic_atol, 1), ESDIRK_SUCCESS);
  run(old_way, &x_old, &z_old, &steps_old);

  /* Two objects, each with some settings: the second keeps what the first set. */
  CHECK_STATUS(esdirk_solver_create(problem, &new_way), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_create(&tolerances), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_create(&method), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_tolerances(tolerances, 1e-7, 1e-9), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_method(method, "ESDIRK436"), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_newton_test(method, ESDIRK_NEWTON_CORRECTION, 0.05),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_keep_step_ratio(method, 0.9, 1.2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_algebraic_atol(tolerances, &algebraic_atol, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(new_way, tolerances), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(new_way, method), ESDIRK_SUCCESS);
  run(new_way, &x_new, &z_new, &steps_new);

  CHECK(memcmp(&x_old, &x_new, sizeof x_old) == 0 && memcmp(&z_old, &z_new, sizeof z_old) == 0);
  CHECK(steps_old == steps_new && steps_old > 0);
  CHECK(fabs(x_new - 0.25) < 1e-5);
  esdirk_options_free(&method);
  esdirk_options_free(&tolerances);
  esdirk_solver_free(&new_way);
  esdirk_solver_free(&old_way);
}

/* esdirk_options_set_newton_fresh_rate (Options::newton_fresh_rate_floor and
 * newton_carry_observed_rate): bad values are refused naming the setter and the field and keep
 * the object; the defaults set explicitly give the default run to the last bit, and the
 * previous test (0.03, not carried) takes more Newton iterations on the hyperbola. */
static void newton_fresh_rate_is_checked_and_reaches_the_run(esdirk_problem* problem) {
  esdirk_options* o = NULL;
  esdirk_solver* solver = NULL;
  double x_default, z_default, x, z;
  int64_t steps_default, steps, newton_default, newton;
  CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
  const double bad_floors[] = {-0.1, 1.0, NAN, INFINITY};
  for (int i = 0; i < 4; ++i) {
    CHECK_STATUS(esdirk_options_set_newton_fresh_rate(o, bad_floors[i], 1), ESDIRK_INVALID_ARGUMENT);
    CHECK(strstr(esdirk_options_last_error(o), "set_newton_fresh_rate: ") == esdirk_options_last_error(o));
    CHECK(strstr(esdirk_options_last_error(o), "newton_fresh_rate_floor") != NULL);
  }
  CHECK_STATUS(esdirk_options_set_newton_fresh_rate(o, 0.003, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strcmp(esdirk_options_last_error(o),
               "set_newton_fresh_rate: carry_observed_rate must be 0 or 1 (got 2)") == 0);
  CHECK_STATUS(esdirk_options_set_newton_fresh_rate(o, 0.003, -1), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_options_set_newton_fresh_rate(NULL, 0.003, 1), ESDIRK_NULL_ARGUMENT);

  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_tolerances(solver, 1e-8, 1e-10), ESDIRK_SUCCESS);
  run(solver, &x_default, &z_default, &steps_default);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "newton_iterations", &newton_default), ESDIRK_SUCCESS);
  /* Nothing was set by the refusals: applying the object changes nothing. */
  CHECK_STATUS(esdirk_solver_set_options(solver, o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_newton_fresh_rate(o, 0.003, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(solver, o), ESDIRK_SUCCESS);
  run(solver, &x, &z, &steps);
  CHECK(memcmp(&x, &x_default, sizeof x) == 0 && memcmp(&z, &z_default, sizeof z) == 0);
  CHECK(steps == steps_default);
  CHECK_STATUS(esdirk_options_set_newton_fresh_rate(o, 0.03, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_newton_fresh_rate(o, 1.5, 1), ESDIRK_INVALID_ARGUMENT); /* keeps (0.03, 0) */
  CHECK_STATUS(esdirk_solver_set_options(solver, o), ESDIRK_SUCCESS);
  run(solver, &x, &z, &steps);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "newton_iterations", &newton), ESDIRK_SUCCESS);
  fprintf(stderr, "  hyperbola, Newton iterations: default %lld, previous test %lld\n",
          (long long)newton_default, (long long)newton);
  CHECK(newton > newton_default);
  CHECK(fabs(x - 0.25) < 1e-6);
  esdirk_solver_free(&solver);
  esdirk_options_free(&o);
}

/* Runs the chain with the Krylov stage solver; the status of initialize/integrate (the first
 * that fails) and the GMRES iterations. */
static int krylov_run(esdirk_problem* problem, int64_t* iterations) {
  esdirk_solver* solver = NULL;
  double x[N];
  int status;
  for (int i = 0; i < N; ++i) x[i] = sin(3.14159 * (i + 1) / (N + 1));
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  status = esdirk_solver_initialize(solver, 0.0, x, N, NULL, 0, NULL, 0);
  if (status == ESDIRK_SUCCESS) status = esdirk_solver_integrate_to(solver, 0.1, x, N, NULL, 0);
  *iterations = -1;
  if (status == ESDIRK_SUCCESS)
    CHECK_STATUS(esdirk_solver_get_counter(solver, "linear_iterations", iterations),
                 ESDIRK_SUCCESS);
  esdirk_solver_free(&solver);
  return status;
}

static void krylov_settings_are_checked_and_used(void) {
  esdirk_problem* problem = NULL;
  esdirk_int pointers[N + 1], rows[3 * N];
  esdirk_int k = 0;
  int64_t jacobi_iterations = 0, block_iterations = 0;
  for (esdirk_int j = 0; j < N; ++j) {
    pointers[j] = k;
    for (esdirk_int i = j - 1; i <= j + 1; ++i)
      if (i >= 0 && i < N) rows[k++] = i;
  }
  pointers[N] = k;
  CHECK_STATUS(esdirk_problem_create(N, 0, 0, chain, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_jacobian_pattern(problem, pointers, rows,
                                                   ESDIRK_LINEAR_SOLVER_KRYLOV),
               ESDIRK_SUCCESS);
  /* The default Krylov dimension is min(30, n) = 6: the defaults run (30 > n was refused at
   * initialize). */
  int64_t default_iterations = 0, kept_iterations = 0;
  CHECK_STATUS(krylov_run(problem, &default_iterations), ESDIRK_SUCCESS);
  CHECK(default_iterations > 0);

  /* Each setting out of range is refused, naming it, and the settings stay as they were. */
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, 0, 4, 0.05, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_problem_structure_error(problem), "Krylov dimension") != NULL);
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, N + 1, 4, 0.05, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, N, -1, 0.05, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_problem_structure_error(problem), "max_restarts") != NULL);
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, N, 4, 1.0, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_problem_structure_error(problem), "tolerance") != NULL);
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, N, 4, 0.05, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_problem_structure_error(problem), "block size") != NULL);
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, N, 4, 0.05, N + 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(krylov_run(problem, &kept_iterations), ESDIRK_SUCCESS); /* still the defaults */
  CHECK(kept_iterations == default_iterations);
  CHECK_STATUS(esdirk_problem_set_krylov_settings(NULL, N, 4, 0.05, 1), ESDIRK_NULL_ARGUMENT);

  /* Block-Jacobi: Jacobi (block 1) against one block of n (the exact inverse: one GMRES
     iteration a solve). */
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, N, 4, 0.05, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_krylov_preconditioner(problem, ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI),
               ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_problem_structure_error(problem), "") == 0);
  CHECK_STATUS(krylov_run(problem, &jacobi_iterations), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, N, 4, 0.05, N), ESDIRK_SUCCESS);
  CHECK_STATUS(krylov_run(problem, &block_iterations), ESDIRK_SUCCESS);
  CHECK(block_iterations > 0 && jacobi_iterations > block_iterations);
  /* ILU(0) (the default) is the exact LU of the tridiagonal chain: the same iterations as the
     one block of n, whatever the block size. */
  int64_t ilu_iterations = 0;
  CHECK_STATUS(esdirk_problem_set_krylov_settings(problem, N, 4, 0.05, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_krylov_preconditioner(problem, ESDIRK_KRYLOV_PRECONDITIONER_ILU0),
               ESDIRK_SUCCESS);
  CHECK_STATUS(krylov_run(problem, &ilu_iterations), ESDIRK_SUCCESS);
  CHECK(ilu_iterations == block_iterations);
  /* Another value is refused, naming the call; the settings stay. */
  CHECK_STATUS(esdirk_problem_set_krylov_preconditioner(problem, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_problem_structure_error(problem), "esdirk_problem_set_krylov_preconditioner") != NULL);
  CHECK_STATUS(esdirk_problem_set_krylov_preconditioner(NULL, 0), ESDIRK_NULL_ARGUMENT);
  esdirk_problem_free(&problem);
}

/* The settings whose deprecated setters never checked their values (esdirk_solver_set_step_limits,
 * _set_controller, _set_newton, _set_failure_limits; the hybrid solver's set_step_limits): the
 * deprecated setter still accepts a bad value and the next initialize refuses it, as always;
 * the options setter refuses it at once with the same status and the same words, prefixed by
 * its name, and keeps the object as it was (a solver given the object afterwards initializes). */
static char run_message[1024];
#define SAME_RUN_REFUSAL(SETTER, ...)                                                                  \
  do {                                                                                                 \
    esdirk_solver* s_ = NULL;                                                                          \
    esdirk_options* o_ = NULL;                                                                         \
    const double x0_ = 1.0, z0_ = 1.0;                                                                 \
    CHECK_STATUS(esdirk_solver_create(problem, &s_), ESDIRK_SUCCESS);                                  \
    CHECK_STATUS(esdirk_solver_set_##SETTER(s_, __VA_ARGS__), ESDIRK_SUCCESS);                         \
    CHECK_STATUS(esdirk_solver_initialize(s_, 0.0, &x0_, 1, &z0_, 1, NULL, 0), ESDIRK_INVALID_ARGUMENT); \
    snprintf(run_message, sizeof run_message, "%s", esdirk_solver_last_error(s_));                     \
    const char* words_ = strstr(run_message, "invalid option: ");                                      \
    CHECK(words_ != NULL);                                                                             \
    CHECK_STATUS(esdirk_options_create(&o_), ESDIRK_SUCCESS);                                          \
    CHECK_STATUS(esdirk_options_set_##SETTER(o_, __VA_ARGS__), ESDIRK_INVALID_ARGUMENT);               \
    CHECK(strncmp(esdirk_options_last_error(o_), "set_" #SETTER ": ", strlen("set_" #SETTER ": ")) == 0); \
    CHECK(words_ != NULL && strstr(esdirk_options_last_error(o_), words_) != NULL);                    \
    if (words_ == NULL || strstr(esdirk_options_last_error(o_), words_) == NULL)                       \
      fprintf(stderr, "  run: %s\n  object: %s\n", run_message, esdirk_options_last_error(o_));        \
    esdirk_solver_free(&s_);                                                                           \
    CHECK_STATUS(esdirk_solver_create(problem, &s_), ESDIRK_SUCCESS);                                  \
    CHECK_STATUS(esdirk_solver_set_options(s_, o_), ESDIRK_SUCCESS);                                   \
    CHECK_STATUS(esdirk_solver_initialize(s_, 0.0, &x0_, 1, &z0_, 1, NULL, 0), ESDIRK_SUCCESS);       \
    esdirk_options_free(&o_);                                                                          \
    esdirk_solver_free(&s_);                                                                           \
  } while (0)

static void run_checked_settings_are_refused_when_set(esdirk_problem* problem) {
  SAME_RUN_REFUSAL(step_limits, NAN, 0.0, INFINITY, 100);
  SAME_RUN_REFUSAL(step_limits, -1.0, 0.0, INFINITY, 100);
  SAME_RUN_REFUSAL(step_limits, 0.0, 0.5, 0.5, 100);
  SAME_RUN_REFUSAL(step_limits, 0.0, 0.0, 0.0, 100);
  SAME_RUN_REFUSAL(step_limits, 0.0, 0.0, INFINITY, 0);
  SAME_RUN_REFUSAL(controller, 1, 1.0, 1.0, 2.0, 0.2, 5.0);
  SAME_RUN_REFUSAL(controller, 0, -1.0, 1.0, 0.9, 0.2, 5.0);
  SAME_RUN_REFUSAL(controller, 1, 1.0, 0.0, 0.9, 0.2, 5.0);
  SAME_RUN_REFUSAL(controller, 1, 1.0, 1.0, 0.9, 1.0, 5.0);
  SAME_RUN_REFUSAL(controller, 1, 1.0, 1.0, 0.9, 0.2, 1.0);
  SAME_RUN_REFUSAL(controller, 1, 1.0, 1.0, 0.9, 0.2, INFINITY);
  SAME_RUN_REFUSAL(newton, 0, 0.1, 0.3);
  SAME_RUN_REFUSAL(newton, 8, 1.0, 0.3);
  SAME_RUN_REFUSAL(newton, 8, NAN, 0.3);
  SAME_RUN_REFUSAL(newton, 8, 0.1, 0.0);
  SAME_RUN_REFUSAL(failure_limits, 0, 12, 12);
  SAME_RUN_REFUSAL(failure_limits, 12, -1, 12);
  SAME_RUN_REFUSAL(failure_limits, 12, 12, 0);

  /* The hybrid solver's set_step_limits: the same, at its initialize. */
  {
    esdirk_hybrid_problem* hp = NULL;
    esdirk_hybrid_solver* hs = NULL;
    esdirk_options* o = NULL;
    const double x0 = 1.0, z0 = 1.0;
    CHECK_STATUS(esdirk_hybrid_problem_create(1, 1, 0, 0, 0, hybrid_hyperbola, NULL, &hp), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_create(hp, &hs), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_set_step_limits(hs, 0.0, 1.0, 0.5, 100), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_initialize(hs, 0.0, 0, &x0, 1, &z0, 1, NULL, 0, NULL, 0),
                 ESDIRK_INVALID_ARGUMENT);
    CHECK(strstr(esdirk_hybrid_solver_last_error(hs), "min_step must be finite, >= 0 and < max_step (got 1)") != NULL);
    CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_set_step_limits(o, 0.0, 1.0, 0.5, 100), ESDIRK_INVALID_ARGUMENT);
    CHECK(strstr(esdirk_options_last_error(o), "set_step_limits: invalid option: min_step must be finite, >= 0 and < max_step (got 1)") != NULL);
    esdirk_options_free(&o);
    esdirk_hybrid_solver_free(&hs);
    esdirk_hybrid_problem_free(&hp);
  }
  /* The filter is a switch: any int, nonzero on, as the deprecated setter took it. */
  {
    esdirk_options* o = NULL;
    CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_set_filter_error_estimate(o, -3), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_set_filter_error_estimate(NULL, 1), ESDIRK_NULL_ARGUMENT);
    CHECK_STATUS(esdirk_options_set_step_limits(NULL, 0.0, 0.0, 1.0, 10), ESDIRK_NULL_ARGUMENT);
    CHECK_STATUS(esdirk_options_set_controller(NULL, 1, 1.0, 1.0, 0.9, 0.2, 5.0), ESDIRK_NULL_ARGUMENT);
    CHECK_STATUS(esdirk_options_set_newton(NULL, 8, 0.1, 0.3), ESDIRK_NULL_ARGUMENT);
    CHECK_STATUS(esdirk_options_set_failure_limits(NULL, 12, 12, 12), ESDIRK_NULL_ARGUMENT);
    esdirk_options_free(&o);
  }
}

/* The step limits on the handles whose deprecated setters took one of them (shooting and reverse
 * shooting: max_steps; multiple shooting: the initial step): the deprecated setter keeps its
 * own check and message; the object refuses the same values with the same status. */
static void step_limits_on_the_shooting_handles(esdirk_problem* problem) {
  esdirk_shooting* shooting = NULL;
  esdirk_reverse_shooting* reverse = NULL;
  esdirk_multishoot* ms = NULL;
  esdirk_options* o = NULL;
  CHECK_STATUS(esdirk_shooting_create(problem, &shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_create(problem, &reverse), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_create(problem, 2, 1, &ms), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_max_steps(shooting, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(shooting), "set_max_steps: max_steps must be >= 1 (got 0)") != NULL);
  CHECK_STATUS(esdirk_reverse_shooting_set_max_steps(reverse, -5), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_reverse_shooting_last_error(reverse), "set_max_steps: max_steps must be >= 1 (got -5)") != NULL);
  CHECK_STATUS(esdirk_options_set_step_limits(o, 0.0, 0.0, INFINITY, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_options_last_error(o), "set_step_limits: invalid option: max_steps must be > 0 (got 0)") != NULL);
  CHECK_STATUS(esdirk_multishoot_set_initial_step(ms, NAN), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_multishoot_last_error(ms), "set_initial_step: h0 must be finite and >= 0") != NULL);
  CHECK_STATUS(esdirk_options_set_step_limits(o, NAN, 0.0, INFINITY, 10), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_options_last_error(o), "set_step_limits: invalid option: initial_step must be finite and >= 0 (got nan)") != NULL);
  CHECK_STATUS(esdirk_multishoot_set_initial_step(ms, -1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_options_set_step_limits(o, -1.0, 0.0, INFINITY, 10), ESDIRK_INVALID_ARGUMENT);
  /* NULL handles. */
  CHECK_STATUS(esdirk_shooting_set_max_steps(NULL, 10), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_max_steps(NULL, 10), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_initial_step(NULL, 0.1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_step_limits(NULL, 0, 0, 1, 10), ESDIRK_NULL_ARGUMENT);
  esdirk_options_free(&o);
  esdirk_multishoot_free(&ms);
  esdirk_reverse_shooting_free(&reverse);
  esdirk_shooting_free(&shooting);
}

/* One shooting interval of the hyperbola on [0, 2]: x, z, A, B (nu = 0) and the step count. */
static void shooting_run(esdirk_shooting* shooting, double out[4], int64_t* steps, int expected) {
  const double x0 = 1.0, z0 = 1.0;
  double A = 0.0, H = 0.0;
  out[0] = out[1] = out[2] = out[3] = 0.0;
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 2.0, &x0, 1, NULL, 0, &z0, 1, &out[0], &out[1], &A, 1,
                                         NULL, 1, &H, NULL, NULL),
               expected);
  out[2] = A, out[3] = H;
  CHECK_STATUS(esdirk_shooting_get_counter(shooting, 0, "steps", steps), ESDIRK_SUCCESS);
}

/* The hyperbola on the hybrid solver (no events) to t = 3: x and the step count. */
static void hybrid_run(esdirk_hybrid_solver* hs, double* x, int64_t* steps) {
  const double x0 = 1.0, z0 = 1.0;
  double z = 0.0, t = 0.0;
  CHECK_STATUS(esdirk_hybrid_solver_initialize(hs, 0.0, 0, &x0, 1, &z0, 1, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(hs, 3.0, x, 1, &z, 1, &t), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(hs, "steps", steps), ESDIRK_SUCCESS);
}

/* Step limits, controller, Newton, filter and failure limits through the object give the run of
 * the deprecated setters to the last bit: on the solver (all five), the shooting interval
 * (max_steps: a limit that stops the interval, and one that does not), the hybrid solver (step
 * limits). Each setting also changes the run (else the comparison would show nothing). */
static void step_settings_runs_equal_the_deprecated_setters(esdirk_problem* problem) {
  esdirk_solver *old_way = NULL, *new_way = NULL, *plain = NULL;
  esdirk_options* o = NULL;
  double x_old, z_old, x_new, z_new, x_plain, z_plain;
  int64_t steps_old, steps_new, steps_plain;
  CHECK_STATUS(esdirk_solver_create(problem, &old_way), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_step_limits(old_way, 1e-3, 1e-12, 0.4, 5000), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_controller(old_way, 0, 0.8, 1.1, 0.85, 0.25, 4.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_newton(old_way, 6, 0.05, 0.25), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_filter_error_estimate(old_way, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_failure_limits(old_way, 9, 10, 11), ESDIRK_SUCCESS);
  run(old_way, &x_old, &z_old, &steps_old);
  CHECK_STATUS(esdirk_solver_create(problem, &new_way), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_step_limits(o, 1e-3, 1e-12, 0.4, 5000), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_controller(o, 0, 0.8, 1.1, 0.85, 0.25, 4.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_newton(o, 6, 0.05, 0.25), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_filter_error_estimate(o, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_failure_limits(o, 9, 10, 11), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(new_way, o), ESDIRK_SUCCESS);
  run(new_way, &x_new, &z_new, &steps_new);
  CHECK_STATUS(esdirk_solver_create(problem, &plain), ESDIRK_SUCCESS);
  run(plain, &x_plain, &z_plain, &steps_plain);
  CHECK(memcmp(&x_old, &x_new, sizeof x_old) == 0 && memcmp(&z_old, &z_new, sizeof z_old) == 0);
  CHECK(steps_old == steps_new && steps_old > 0);
  CHECK(steps_plain != steps_new);
  CHECK(fabs(x_new - 0.25) < 1e-5);
  esdirk_solver_free(&plain);
  esdirk_solver_free(&new_way);
  esdirk_solver_free(&old_way);
  esdirk_options_free(&o);

  /* The shooting interval: max_steps 3 stops it (ESDIRK_TOO_MANY_STEPS either way), 50 not. */
  for (int k = 0; k < 2; ++k) {
    const long max_steps = k == 0 ? 3 : 50;
    const int expected = k == 0 ? ESDIRK_TOO_MANY_STEPS : ESDIRK_SUCCESS;
    esdirk_shooting *a = NULL, *b = NULL;
    double out_a[4], out_b[4];
    int64_t steps_a = 0, steps_b = 0;
    CHECK_STATUS(esdirk_shooting_create(problem, &a), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_shooting_create(problem, &b), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_shooting_set_max_steps(a, max_steps), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_set_step_limits(o, 0.0, 0.0, INFINITY, max_steps), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_shooting_set_options(b, o), ESDIRK_SUCCESS);
    shooting_run(a, out_a, &steps_a, expected);
    shooting_run(b, out_b, &steps_b, expected);
    CHECK(memcmp(out_a, out_b, sizeof out_a) == 0 && steps_a == steps_b);
    if (k == 1) CHECK(steps_a > 3 && steps_a <= 50);
    esdirk_options_free(&o);
    esdirk_shooting_free(&b);
    esdirk_shooting_free(&a);
  }

  /* The hybrid solver: a largest step that shapes the run. */
  {
    esdirk_hybrid_problem* hp = NULL;
    esdirk_hybrid_solver *a = NULL, *b = NULL, *c = NULL;
    double xa, xb, xc;
    int64_t sa, sb, sc;
    CHECK_STATUS(esdirk_hybrid_problem_create(1, 1, 0, 0, 0, hybrid_hyperbola, NULL, &hp), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_create(hp, &a), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_create(hp, &b), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_create(hp, &c), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_set_step_limits(a, 1e-4, 0.0, 0.05, 100000), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_set_step_limits(o, 1e-4, 0.0, 0.05, 100000), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_set_options(b, o), ESDIRK_SUCCESS);
    hybrid_run(a, &xa, &sa);
    hybrid_run(b, &xb, &sb);
    hybrid_run(c, &xc, &sc);
    CHECK(memcmp(&xa, &xb, sizeof xa) == 0 && sa == sb && sa >= 60 && sc < sa);
    esdirk_options_free(&o);
    esdirk_hybrid_solver_free(&c);
    esdirk_hybrid_solver_free(&b);
    esdirk_hybrid_solver_free(&a);
    esdirk_hybrid_problem_free(&hp);
  }
}

int main(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 0, hyperbola, NULL, &problem), ESDIRK_SUCCESS);
  refusals_match_the_per_handle_setters(problem);
  runs_equal_the_deprecated_setters_bit_for_bit(problem);
  newton_fresh_rate_is_checked_and_reaches_the_run(problem);
  run_checked_settings_are_refused_when_set(problem);
  step_limits_on_the_shooting_handles(problem);
  step_settings_runs_equal_the_deprecated_setters(problem);
  esdirk_problem_free(&problem);
  krylov_settings_are_checked_and_used();
  return report();
}
