/* The C API of multiple shooting (esdirk_multishoot.h), compiled as C99: the intervals of
 * x' = -u z, 0 = z - x^2 against their closed forms (x_end, z_end, A = dx/dx0, B = dx/du),
 * one and two threads bit-identical, a failing interval reported by its own status, and the
 * bad input of every setter, re-entrant calls from the pool's threads, and a system that
 * refuses threads. */
#define _DEFAULT_SOURCE /* fork, setrlimit, alarm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_multishoot.h"
#include "esdirk/esdirk_sparse.h"

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
  CHECK_STATUS(esdirk_multishoot_set_tolerances(ms, 1e-2, 1e-6), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_multishoot_method_name(ms), "auto") == 0); /* an option changed */
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, &t0, &t1, &x, &u, &z, &x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_multishoot_method_name(ms), "ESDIRK34") == 0); /* "auto" at rtol 1e-2 */
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

/* ---- Issue 27: re-entrant calls from the pool's threads ------------------------------------- */

/* The model, calling its own handle from every residual: evaluate (refused), evaluate with
 * NULL arrays (refused), a setter (refused), last_error (a message) and free (a no-op). */
typedef struct {
  esdirk_multishoot* ms;
  int calls, wrong; /* updated from several threads: atomics */
} Reentry;

static int reentering_model(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                            const double* z, const double* u, double* f, double* g, void* user_data) {
  Reentry* r = (Reentry*)user_data;
  f[0] = -u[0] * z[0];
  g[0] = z[0] - x[0] * x[0];
  (void)nx, (void)nz, (void)np, (void)t;
  if (r->ms) {
    const double tb[8] = {0, 0, 0, 0, 0, 0, 0, 0}, te[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    double xe[8];
    esdirk_multishoot* same = r->ms;
    const int s1 = esdirk_multishoot_evaluate(r->ms, tb, te, te, te, te, xe, NULL, NULL, NULL, NULL,
                                              NULL, NULL, NULL);
    const int s2 = esdirk_multishoot_evaluate(r->ms, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                              NULL, NULL, NULL, NULL, NULL);
    const int s3 = esdirk_multishoot_set_tolerances(r->ms, 1e-3, 1e-3);
    const char* message = esdirk_multishoot_last_error(r->ms);
    esdirk_multishoot_free(&same);
    __atomic_fetch_add(&r->calls, 1, __ATOMIC_RELAXED);
    if (s1 != ESDIRK_WRONG_CALL_ORDER || s2 != ESDIRK_NULL_ARGUMENT || s3 != ESDIRK_WRONG_CALL_ORDER ||
        message == NULL || same != r->ms)
      __atomic_fetch_add(&r->wrong, 1, __ATOMIC_RELAXED);
  }
  return 0;
}

/* It aborted ("free(): unaligned chunk"): every refusal wrote the handle's message from its own
 * pool thread at once. A refusal on a thread that does not own the running call now leaves the
 * message alone (last_error there answers that the handle is in use). */
static void test_reentrant_calls_from_four_threads_are_refused_without_a_race(void) {
  enum { M = 8 };
  double t_begin[M], t_end[M], x[M], u[M], z_guess[M], x_end[M];
  esdirk_int status[M];
  Reentry r = {NULL, 0, 0};
  esdirk_problem* problem = NULL;
  esdirk_multishoot* ms = NULL;
  for (int k = 0; k < M; ++k) {
    t_begin[k] = 0.25 * k;
    t_end[k] = 0.25 * (k + 1);
    x[k] = 1.0;
    u[k] = 1.0;
    z_guess[k] = 1.0;
  }
  CHECK_STATUS(esdirk_problem_create(1, 1, 1, reentering_model, &r, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_create(problem, M, 4, &ms), ESDIRK_SUCCESS);
  r.ms = ms;
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, status),
               ESDIRK_SUCCESS);
  CHECK(r.calls > 0 && r.wrong == 0);
  CHECK(strlen(esdirk_multishoot_last_error(ms)) == 0); /* the call succeeded */
  for (int k = 0; k < M; ++k) CHECK(status[k] == ESDIRK_SUCCESS && fabs(x_end[k] - 1.0 / 1.25) < 1e-5);
  r.ms = NULL; /* and the handle still works */
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  esdirk_multishoot_free(&ms);
  CHECK(ms == NULL);
  esdirk_problem_free(&problem);
}

/* ---- Issue 27: a system that refuses threads ------------------------------------------------ */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

/* Under `ulimit -v`, esdirk_multishoot_create(p, 8, 10000) then evaluate hung for ever: the pool
 * threw after ~105 threads and the unwinding blocked on the workers already waiting. In a child
 * with an address-space limit that leaves room for a few dozen thread stacks, 400 intervals on
 * 400 threads must now be evaluated (on the threads the system gave) within 60 s. Skipped under
 * the sanitizers, whose shadow memory needs far more address space than the limit (the thread
 * pool's own test injects the failure and runs under ThreadSanitizer). */
static void test_a_refused_thread_start_leaves_a_working_handle(esdirk_problem* problem) {
#ifdef UNDER_SANITIZER
  (void)problem;
  printf("thread-start limit: skipped under a sanitizer\n");
#else
  enum { M = 400 };
  fflush(NULL);
  const pid_t child = fork();
  if (child == 0) {
    static double t_begin[M], t_end[M], x[M], u[M], z_guess[M], x_end[M];
    long pages = 0;
    FILE* statm = fopen("/proc/self/statm", "r");
    if (!statm || fscanf(statm, "%ld", &pages) != 1) _exit(3);
    fclose(statm);
    const struct rlimit limit = {(rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20),
                                 (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)256 << 20)};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(4);
    alarm(60); /* a hang ends the child with SIGALRM */
    for (int k = 0; k < M; ++k) {
      t_begin[k] = k;
      t_end[k] = k + 1.0;
      x[k] = 1.0;
      u[k] = 1.0;
      z_guess[k] = 1.0;
    }
    esdirk_multishoot* ms = NULL;
    if (esdirk_multishoot_create(problem, M, M, &ms) != ESDIRK_SUCCESS) _exit(5);
    int s = esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess, x_end, NULL, NULL, NULL,
                                       NULL, NULL, NULL, NULL);
    printf("thread-start limit: 400 threads asked for under ulimit -v: %s%s%s\n", esdirk_status_name(s),
           s == ESDIRK_SUCCESS ? "" : ": ", esdirk_multishoot_last_error(ms));
    /* The threads the system gave may leave too little memory for the work itself: then a
     * clear ESDIRK_OUT_OF_MEMORY, and the memory is back once the handle is freed. */
    if (s != ESDIRK_SUCCESS && s != ESDIRK_OUT_OF_MEMORY) _exit(6);
    esdirk_multishoot_free(&ms);
    if (esdirk_multishoot_create(problem, M, 2, &ms) != ESDIRK_SUCCESS) _exit(7);
    s = esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess, x_end, NULL, NULL, NULL, NULL, NULL,
                                   NULL, NULL);
    if (s != ESDIRK_SUCCESS) _exit(8);
    for (int k = 0; k < M; ++k)
      if (!(fabs(x_end[k] - 0.5) < 1e-5)) _exit(9);
    esdirk_multishoot_free(&ms);
    fflush(stdout);
    _exit(0);
  }
  int wstatus = 0;
  CHECK(child > 0 && waitpid(child, &wstatus, 0) == child);
  CHECK(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
  if (!WIFEXITED(wstatus)) fprintf(stderr, "thread-start limit: the child ended with signal %d\n", WTERMSIG(wstatus));
  else if (WEXITSTATUS(wstatus) != 0) fprintf(stderr, "thread-start limit: the child exited with %d\n", WEXITSTATUS(wstatus));
#endif
}

/* Inputs no interval can take are the caller's error, as for esdirk_shooting_integrate: they
 * were CALLBACK_FAILURES per interval. */
static void test_bad_interval_inputs_are_invalid_arguments(esdirk_problem* problem) {
  const double t_begin[2] = {0.0, 1.0}, t_end[2] = {1.0, 2.0}, x[2] = {1.0, 0.5}, u[2] = {1.0, 1.0};
  const double z[2] = {1.0, 0.25};
  double x_end[2] = {-7.0, -7.0};
  esdirk_int status[2] = {-99, -99};
  esdirk_multishoot* ms = NULL;
  CHECK_STATUS(esdirk_multishoot_create(problem, 2, 2, &ms), ESDIRK_SUCCESS);
  const double nan_x[2] = {1.0, NAN}, inf_t[2] = {1.0, INFINITY}, back_t[2] = {1.0, 0.5};
  const double nan_u[2] = {NAN, 1.0}, inf_z[2] = {1.0, -INFINITY};
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, nan_x, u, z, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, status),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_multishoot_last_error(ms), "interval 1: x[0] = nan") != NULL);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, inf_t, x, u, z, x_end, NULL, NULL, NULL, NULL,
                                          NULL, NULL, status),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_multishoot_last_error(ms), "finite") != NULL);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, back_t, x, u, z, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, status),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_multishoot_last_error(ms), "interval 1: [1, 0.5]") != NULL);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_begin, x, u, z, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, status),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, nan_u, z, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, status),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, inf_z, x_end, NULL, NULL, NULL,
                                          NULL, NULL, NULL, status),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(x_end[0] == -7.0 && x_end[1] == -7.0 && status[0] == -99 && status[1] == -99); /* untouched */
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z, x_end, NULL, NULL, NULL, NULL,
                                          NULL, NULL, status),
               ESDIRK_SUCCESS);
  esdirk_multishoot_free(&ms);
}

/* The intervals' copies of the problem keep its Krylov settings (regression: the copies fell
 * back to the default Krylov dimension 30, which this 2-unknown system refuses). */
static void test_intervals_keep_the_problems_krylov_settings(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 1, model, NULL, &problem), ESDIRK_SUCCESS);
  const esdirk_int column_pointers[3] = {0, 2, 4}, row_indices[4] = {0, 1, 0, 1};
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_problem_jacobian_structure(problem),
                                                     column_pointers, row_indices,
                                                     ESDIRK_LINEAR_SOLVER_KRYLOV),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), 2,
                                                    4, 0.05, 1e-3, 2),
               ESDIRK_SUCCESS);
  esdirk_multishoot* ms = NULL;
  CHECK_STATUS(esdirk_multishoot_create(problem, 1, 1, &ms), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_set_tolerances(ms, 1e-9, 1e-12), ESDIRK_SUCCESS);
  const double t0 = 0.0, t1 = 0.5, x = 1.0, u = 2.0, z = 1.0;
  double x_end = 0.0, z_end = 0.0, A = 0.0, B = 0.0;
  esdirk_int status = -1;
  CHECK_STATUS(esdirk_multishoot_evaluate(ms, &t0, &t1, &x, &u, &z, &x_end, &z_end, &A, &B, NULL,
                                          NULL, NULL, &status),
               ESDIRK_SUCCESS);
  const double s = 1.0 + u * x * (t1 - t0);
  CHECK(status == ESDIRK_SUCCESS);
  CHECK(fabs(x_end - x / s) < 1e-7);
  CHECK(fabs(A - 1.0 / (s * s)) < 1e-6);
  CHECK(fabs(B + x * x * (t1 - t0) / (s * s)) < 1e-6);
  esdirk_multishoot_free(&ms);
  esdirk_problem_free(&problem);
}

int main(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 1, model, NULL, &problem), ESDIRK_SUCCESS);
  test_intervals_match_the_closed_form(problem);
  test_initial_step(problem);
  test_method_name_is_the_one_auto_resolved_to(problem);
  test_a_failing_interval(problem);
  test_bad_input(problem);
  test_bad_interval_inputs_are_invalid_arguments(problem);
  test_a_refused_thread_start_leaves_a_working_handle(problem);
  esdirk_problem_free(&problem);
  test_reentrant_calls_from_four_threads_are_refused_without_a_race();
  test_intervals_keep_the_problems_krylov_settings();
  return report();
}
