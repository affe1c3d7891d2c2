/* The hybrid (events) functions of the C API: misuse (NULL handles and arguments, wrong sizes,
 * wrong call order) returns the documented negative status and never crashes; a model with
 * memory and modes (the counterexample of erratum E7 to Serban & Recuero 2019) gives its closed form through C; an
 * unknown mode and a callback failure come back as their statuses. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"

/* Mode 0: y' = 1, an event at y = p (t1 = p); mode 1: y' = y* (the memory). dy/dp(p + 1) = 2 - p.
 */
static int latched(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                   const double* x, const double* z, const double* p, const double* mem, double* f,
                   double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)x, (void)z, (void)p, (void)g,
      (void)user_data;
  f[0] = mode == 0 ? 1.0 : mem[0];
  return 0;
}
static int level(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                 esdirk_int ne, double t, const double* x, const double* z, const double* p,
                 const double* mem, double* h, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)nm, (void)ne, (void)t, (void)z, (void)mem, (void)user_data;
  h[0] = mode == 0 ? x[0] - p[0] : 1.0;
  return 0;
}
/* user_data: the mode to go to (1, or 7 which has_mode refuses). */
static int switch_mode(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx,
                       esdirk_int nz, esdirk_int np, esdirk_int nm, double t, const double* x,
                       const double* z, const double* p, const double* mem, int* next_mode,
                       double* x_plus, void* user_data) {
  (void)mode, (void)ne, (void)time_event, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)x,
      (void)z, (void)p, (void)mem, (void)x_plus;
  if (fired[0] != 1) return -1; /* a rising crossing, or a fatal failure */
  *next_mode = user_data ? *(const int*)user_data : 1;
  return 0;
}
static int two_modes(int mode, void* user_data) {
  (void)user_data;
  return mode == 0 || mode == 1;
}

static void test_null_handles(void) {
  double v = 1.0, t;
  int m = 0;
  int64_t n64;
  esdirk_int n;
  esdirk_event event = ESDIRK_EVENT_INIT;
  esdirk_statistics stats = ESDIRK_STATISTICS_INIT;
  esdirk_hybrid_problem* problem = NULL;
  esdirk_hybrid_solver* solver = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, 1, 1, latched, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, 1, 1, NULL, NULL, &problem),
               ESDIRK_NULL_ARGUMENT);
  CHECK(problem == NULL);
  CHECK_STATUS(esdirk_hybrid_problem_create(0, 0, 1, 1, 1, latched, NULL, &problem),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, -1, 1, latched, NULL, &problem),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, 1, 2, latched, NULL, &problem),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(problem == NULL);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(NULL, level, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(NULL, NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_jacobians(NULL, NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_has_mode(NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_create(NULL, &solver), ESDIRK_NULL_ARGUMENT);
  CHECK(solver == NULL);
  CHECK_STATUS(esdirk_hybrid_solver_create(NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerances(NULL, 1e-6, 1e-6), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_step_limits(NULL, 0, 0, 1, 10), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(NULL, &m, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_terminal(NULL, &m, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_time_events(NULL, &v, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_location(NULL, 0, 200, 3), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_limits(NULL, 100, 1e6, 16, 1e-8, 256),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_sensitivity_jumps(NULL, 1, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(NULL, 0, 0, &v, 1, NULL, 0, &v, 1, &v, 1),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(NULL, NULL, 2, 2, 2), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(NULL, 1, &v, 1, NULL, 0, &t),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(NULL, 1, &v, 1, NULL, 0, &v, 1, NULL,
                                                               0, 1, &t),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_state(NULL, &t, &m, &v, 1, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_memory(NULL, &v, 1, NULL, 1, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_event_count(NULL, &n64, &n), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_event(NULL, 0, &event), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(
      esdirk_hybrid_solver_get_event_vectors(NULL, 0, &m, 1, NULL, 0, NULL, NULL, 1, NULL, NULL, 0),
      ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_event_sensitivities(NULL, 0, &v, NULL, 1, 1),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_statistics(NULL, &stats), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(NULL, "events", &n64), ESDIRK_NULL_ARGUMENT);
  CHECK(strlen(esdirk_hybrid_solver_last_error(NULL)) > 0);
  esdirk_hybrid_solver_free(NULL);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(NULL);
  esdirk_hybrid_problem_free(&problem);
}

static void test_wrong_sizes_and_order(void) {
  esdirk_hybrid_problem* problem = NULL;
  esdirk_hybrid_solver* solver = NULL;
  const double x0[1] = {0.0}, p[1] = {0.8}, m0[1] = {0.0};
  double x[1], S[1], t, seed[2] = {0.0, 1.0};
  int dirs[2] = {ESDIRK_EVENT_BOTH, ESDIRK_EVENT_BOTH}, bad_dir = 5, mode;
  int64_t value;
  esdirk_event event = ESDIRK_EVENT_INIT, unsized;
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, 1, 1, latched, NULL, &problem),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  /* Before initialize. */
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, 1, x, 1, NULL, 0, &t),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK(strlen(esdirk_hybrid_solver_last_error(solver)) > 0);
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, seed, 2, 1, 2),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_hybrid_solver_get_state(solver, &t, &mode, x, 1, NULL, 0),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 0, &event), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "events", &value), ESDIRK_WRONG_CALL_ORDER);
  /* The event functions are required with ne > 0. */
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, m0, 1),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(problem, level, NULL), ESDIRK_SUCCESS);
  /* Option sizes and values. */
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, dirs, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, &bad_dir, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, NULL, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_terminal(solver, dirs, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_time_events(solver, NULL, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerances(solver, -1, 1e-6), ESDIRK_INVALID_ARGUMENT);
  /* Invalid options are reported at initialize. */
  CHECK_STATUS(esdirk_hybrid_solver_set_event_location(solver, 0, 0, 3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, m0, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_location(solver, 0, 200, 3), ESDIRK_SUCCESS);
  /* Sizes at initialize: memory of the wrong size, an unknown mode. */
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 2, NULL, 0, p, 1, m0, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, NULL, 1, NULL, 0, p, 1, m0, 1),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_has_mode(problem, two_modes), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 5, x0, 1, NULL, 0, p, 1, m0, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, m0, 1),
               ESDIRK_SUCCESS);
  /* Sensitivities: wrong seed shape, then integrate_sensitivities_to before they start. */
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, seed, 3, 1, 3),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, NULL, 2, 1, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, 1, x, 1, NULL, 0, S, 1, NULL,
                                                               0, 1, &t),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, seed, 2, 1, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, 1, x, 1, NULL, 0, S, 1, NULL,
                                                               0, 2, &t),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, 1, x, 2, NULL, 0, &t),
               ESDIRK_INVALID_ARGUMENT);
  /* Backwards in time is misuse (hybrid runs go forward). */
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, -1, x, 1, NULL, 0, &t),
               ESDIRK_INVALID_ARGUMENT);
  /* The log: an index outside it, an unsized struct, wrong vector sizes. */
  CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 0, &event), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, 1.8, x, 1, NULL, 0, S, 1,
                                                               NULL, 0, 1, &t),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 1, &event), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, -1, &event), ESDIRK_INVALID_ARGUMENT);
  memset(&unsized, 0, sizeof unsized);
  CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 0, &unsized), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 0, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_event_vectors(solver, 0, &mode, 2, NULL, 0, NULL, NULL, 1,
                                                      NULL, NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_event_vectors(solver, 0, NULL, 1, S, 3, NULL, NULL, 1, NULL,
                                                      NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_event_sensitivities(solver, 0, S, NULL, 0, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_memory(solver, x, 2, NULL, 1, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "no_such_counter", &value),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, NULL, &value), ESDIRK_NULL_ARGUMENT);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
  CHECK(solver == NULL && problem == NULL);
}

/* E7 through C: the memory's sensitivity is the total derivative, dy/dp(p + 1) = 2 - p. */
static void test_memory_and_modes(void) {
  esdirk_hybrid_problem* problem = NULL;
  esdirk_hybrid_solver* solver = NULL;
  const double p[1] = {0.8}, x0[1] = {0.0}, m0[1] = {0.0};
  double x[1], S[1], t = 0.0, mem[1], smem[1], tau[1], xm[1], xp[1];
  int mode = -1, fired[1] = {0}, unknown = 7, rising[1] = {ESDIRK_EVENT_RISING};
  esdirk_event event = ESDIRK_EVENT_INIT;
  int64_t transitions = 0, located = 0;
  esdirk_int logged = 0;
  esdirk_statistics stats = ESDIRK_STATISTICS_INIT;
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, 1, 1, latched, NULL, &problem),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(problem, level, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(problem, switch_mode, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_has_mode(problem, two_modes), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerances(solver, 1e-10, 1e-12), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, rising, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, m0, 1),
               ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_hybrid_solver_start_sensitivities(solver, (const double[]){0.0, 1.0}, 2, 1, 2),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, p[0] + 1.0, x, 1, NULL, 0, S,
                                                               1, NULL, 0, 1, &t),
               ESDIRK_SUCCESS);
  CHECK(t == p[0] + 1.0);
  CHECK(fabs(x[0] - 2.0 * p[0]) < 1e-9);
  CHECK(fabs(S[0] - (2.0 - p[0])) < 1e-8);
  CHECK_STATUS(esdirk_hybrid_solver_get_state(solver, &t, &mode, NULL, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK(mode == 1);
  CHECK_STATUS(esdirk_hybrid_solver_get_memory(solver, mem, 1, smem, 1, 1), ESDIRK_SUCCESS);
  CHECK(fabs(mem[0] - p[0]) < 1e-10 && fabs(smem[0] - 1.0) < 1e-9);
  CHECK_STATUS(esdirk_hybrid_solver_get_event_count(solver, &located, &logged), ESDIRK_SUCCESS);
  CHECK(located == 1 && logged == 1);
  CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 0, &event), ESDIRK_SUCCESS);
  CHECK(fabs(event.t - p[0]) < 1e-9 && event.mode_before == 0 && event.mode_after == 1 &&
        event.time_event == -1 && event.primary == 0 && event.iterations > 0 &&
        fabs(event.dh_dt - 1.0) < 1e-9 && event.initial == 0 && event.cascade == 0);
  {
    /* A caller built with the first version of the struct (it ended with `iterations`) gets
     * those fields and nothing is written beyond its struct_size. */
    union {
      esdirk_event event;
      unsigned char bytes[sizeof(esdirk_event) + 16];
    } old;
    const size_t v1 = (offsetof(esdirk_event, iterations) + sizeof(int) + sizeof(size_t) - 1) / sizeof(size_t) *
                      sizeof(size_t);
    size_t i;
    int untouched = 1;
    memset(&old, 0x5a, sizeof old);
    old.event.struct_size = v1;
    CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 0, &old.event), ESDIRK_SUCCESS);
    CHECK(old.event.t == event.t && old.event.iterations == event.iterations && old.event.primary == 0);
    for (i = v1; i < sizeof old.bytes; ++i) untouched = untouched && old.bytes[i] == 0x5a;
    CHECK(untouched);
    /* Larger than this library's struct: garbage or a newer header, refused. */
    old.event.struct_size = sizeof(esdirk_event) + 8;
    CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 0, &old.event), ESDIRK_INVALID_ARGUMENT);
    CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "struct_size") != NULL);
  }
  CHECK_STATUS(
      esdirk_hybrid_solver_get_event_vectors(solver, 0, fired, 1, tau, 1, xm, xp, 1, NULL, NULL, 0),
      ESDIRK_SUCCESS);
  CHECK(fired[0] == 1 && fabs(tau[0] - 1.0) < 1e-9 && fabs(xm[0] - p[0]) < 1e-9 && xp[0] == xm[0]);
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "event_transitions", &transitions),
               ESDIRK_SUCCESS);
  CHECK(transitions == 1);
  CHECK_STATUS(esdirk_hybrid_solver_get_statistics(solver, &stats), ESDIRK_SUCCESS);
  CHECK(stats.events == 1 && stats.accepted_steps > 0);

  /* A transition to a mode has_mode refuses: ESDIRK_UNKNOWN_MODE, the left limit in mode 0;
   * the solver then wants initialize again. */
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, 1, 1, latched, &unknown, &problem),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(problem, level, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(problem, switch_mode, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_has_mode(problem, two_modes), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, m0, 1),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, 2.0, x, 1, NULL, 0, &t),
               ESDIRK_UNKNOWN_MODE);
  CHECK(fabs(t - p[0]) < 1e-6 && fabs(x[0] - p[0]) < 1e-6);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "mode 7") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, 2.0, x, 1, NULL, 0, &t),
               ESDIRK_WRONG_CALL_ORDER);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

/* A gain switched by an event: x' = -k x, k := 2 k where x falls through 1/2 (or, as an initial
 * event, where x > 1/2 at t0). user_data: a nonzero int makes the reset return NaN. */
static int decay(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                 const double* x, const double* z, const double* p, const double* mem, double* f,
                 double* g, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)mem, (void)g,
      (void)user_data;
  f[0] = -p[0] * x[0];
  return 0;
}
static int half(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, esdirk_int ne,
                double t, const double* x, const double* z, const double* p, const double* mem,
                double* h, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)ne, (void)t, (void)z, (void)p,
      (void)mem, (void)user_data;
  h[0] = x[0] - 0.5;
  return 0;
}
static int double_gain(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx,
                       esdirk_int nz, esdirk_int np, esdirk_int nm, double t, const double* x,
                       const double* z, const double* p, const double* mem, double* p_plus,
                       void* user_data) {
  (void)mode, (void)ne, (void)fired, (void)time_event, (void)nx, (void)nz, (void)np, (void)nm,
      (void)t, (void)x, (void)z, (void)mem;
  p_plus[0] = user_data && *(const int*)user_data ? NAN : 2.0 * p[0];
  return 0;
}

static void test_parameter_reset_and_initial_events(void) {
  esdirk_hybrid_problem* problem = NULL;
  esdirk_hybrid_solver* solver = NULL;
  const double k0 = 0.8, p[1] = {0.8}, x0[1] = {1.3}, T = 2.5;
  const double t_star = log(2.0 * 1.3) / 0.8, exact = 2.0 * 1.3 * 1.3 * exp(-2.0 * k0 * T);
  double x[1], S[2], t = 0.0, pk[1], Sp[2];
  int falling[1] = {ESDIRK_EVENT_FALLING}, rising[1] = {ESDIRK_EVENT_RISING}, initial[2] = {1, 1};
  int broken = 0;
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, 1, 0, decay, &broken, &problem),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(problem, half, NULL), ESDIRK_SUCCESS);
  /* A reset of the wrong length is refused where the sizes meet. */
  CHECK_STATUS(esdirk_hybrid_problem_set_parameter_reset(problem, 2, double_gain, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_parameter_reset(NULL, 1, double_gain, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_parameter_reset(problem, 1, double_gain, NULL),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerances(solver, 1e-10, 1e-12), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, falling, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, NULL, 0),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, NULL, 2, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, T, x, 1, NULL, 0, S, 1,
                                                               NULL, 0, 2, &t),
               ESDIRK_SUCCESS);
  CHECK(fabs(x[0] - exact) < 1e-8 * exact);
  CHECK(fabs(S[0] - 4.0 * 1.3 * exp(-2.0 * k0 * T)) < 1e-7 * fabs(S[0])); /* dx/dx0 */
  CHECK(fabs(S[1] + 2.0 * T * exact) < 1e-7 * fabs(S[1]));                /* dx/dk0 */
  CHECK_STATUS(esdirk_hybrid_solver_get_parameters(solver, pk, 1, Sp, 1, 2), ESDIRK_SUCCESS);
  CHECK(pk[0] == 2.0 * k0 && fabs(Sp[0]) < 1e-14 && fabs(Sp[1] - 2.0) < 1e-9);
  CHECK_STATUS(esdirk_hybrid_solver_get_parameters(solver, pk, 2, NULL, 1, 0),
               ESDIRK_INVALID_ARGUMENT);
  /* The parameters either side of the event in the log. */
  {
    double pm[1] = {0.0}, pp[1] = {0.0};
    CHECK_STATUS(esdirk_hybrid_solver_get_event_parameters(solver, 0, pm, pp, 1), ESDIRK_SUCCESS);
    CHECK(pm[0] == k0 && pp[0] == 2.0 * k0);
    CHECK_STATUS(esdirk_hybrid_solver_get_event_parameters(solver, 0, NULL, pp, 1), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_get_event_parameters(solver, 0, pm, pp, 2), ESDIRK_INVALID_ARGUMENT);
    CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "np") != NULL);
    CHECK_STATUS(esdirk_hybrid_solver_get_event_parameters(solver, 1, pm, pp, 1), ESDIRK_INVALID_ARGUMENT);
    CHECK_STATUS(esdirk_hybrid_solver_get_event_parameters(NULL, 0, pm, pp, 1), ESDIRK_NULL_ARGUMENT);
  }

  /* A reset to NaN: ESDIRK_CALLBACK_FAILURES naming the event and the time, the left limit and
   * the old gain kept. */
  broken = 1;
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, NULL, 0),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, T, x, 1, NULL, 0, &t),
               ESDIRK_CALLBACK_FAILURES);
  CHECK(fabs(t - t_star) < 1e-6 && fabs(x[0] - 0.5) < 1e-7);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "parameter reset of the event (event function 0)") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_get_parameters(solver, pk, 1, NULL, 1, 0), ESDIRK_SUCCESS);
  CHECK(pk[0] == k0);
  broken = 0;

  /* An initial event: x0 > 1/2 with a rising filter fires at t0 (k doubles from the start). */
  CHECK_STATUS(esdirk_hybrid_solver_set_initial_events(solver, initial, 2), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "set_initial_events") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_set_initial_events(solver, NULL, 1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_initial_events(solver, initial, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, rising, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 1, NULL, 0, p, 1, NULL, 0),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, T, x, 1, NULL, 0, &t), ESDIRK_SUCCESS);
  CHECK(fabs(x[0] - 1.3 * exp(-2.0 * k0 * T)) < 1e-8 * x[0]);
  {
    esdirk_event event = ESDIRK_EVENT_INIT;
    CHECK_STATUS(esdirk_hybrid_solver_get_event(solver, 0, &event), ESDIRK_SUCCESS);
    CHECK(event.initial == 1 && event.cascade == 0 && event.t == 0.0 && event.primary == 0);
  }
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);

  /* The initial-event option on a problem without events is refused with a message. */
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 1, 0, 0, decay, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_initial_events(solver, initial, 1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "no event functions") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_set_initial_events(solver, NULL, 0), ESDIRK_SUCCESS);
  /* A parameter reset on a problem without parameters: there is no length it could have. */
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 0, 0, 1, 0, decay, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_parameter_reset(problem, 0, double_gain, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_parameter_reset(problem, 0, NULL, NULL), ESDIRK_SUCCESS);
  esdirk_hybrid_problem_free(&problem);
}

/* A ball that loses half its speed at every impact: z' = v, v' = -10, v+ = -v-/2 where z falls
 * through 0. From rest at z0 = 1 the first impact is at sqrt(2 z0 / g) = sqrt(0.2), the flights
 * after it last 2 r^n sqrt(0.2) (r = 1/2): the impacts accumulate at t_inf = 3 sqrt(0.2). */
static int flight(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                  const double* x, const double* z, const double* p, const double* mem, double* f,
                  double* g, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)p, (void)mem, (void)g,
      (void)user_data;
  f[0] = x[1];
  f[1] = -10.0;
  return 0;
}
static int ground(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, esdirk_int ne,
                  double t, const double* x, const double* z, const double* p, const double* mem,
                  double* h, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)ne, (void)t, (void)z, (void)p, (void)mem,
      (void)user_data;
  h[0] = x[0];
  return 0;
}
static int bounce(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx, esdirk_int nz,
                  esdirk_int np, esdirk_int nm, double t, const double* x, const double* z, const double* p,
                  const double* mem, int* next_mode, double* x_plus, void* user_data) {
  (void)mode, (void)ne, (void)fired, (void)time_event, (void)nx, (void)nz, (void)np, (void)nm, (void)t,
      (void)z, (void)p, (void)mem, (void)next_mode, (void)user_data;
  x_plus[1] = -0.5 * x[1];
  return 0;
}

/* The Zeno options through C: checked when set (the options unchanged), taken at initialize. */
static void test_zeno_options(void) {
  esdirk_hybrid_problem* problem = NULL;
  esdirk_hybrid_solver* solver = NULL;
  const double x0[2] = {1.0, 0.0}, t_inf = 3.0 * sqrt(0.2);
  double x[2], t_default = 0.0, t_loose = 0.0;
  int falling[1] = {ESDIRK_EVENT_FALLING};
  CHECK_STATUS(esdirk_hybrid_solver_set_zeno(NULL, 8, 1e-9), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_create(2, 0, 0, 1, 0, flight, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(problem, ground, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(problem, bounce, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, falling, 1), ESDIRK_SUCCESS);
  /* Invalid values, each named. */
  CHECK_STATUS(esdirk_hybrid_solver_set_zeno(solver, 2, 1e-9), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "zeno_intervals = 2") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_set_zeno(solver, 65537, 1e-9), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "[3, 65536]") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_set_zeno(solver, 8, -1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "zeno_time_tolerance") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_set_zeno(solver, 8, NAN), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_zeno(solver, 8, INFINITY), ESDIRK_INVALID_ARGUMENT);
  /* The defaults (8, 1e-9), also after the refused calls: the run stops with the Zeno status
   * within 1e-6 of t_inf, naming it. */
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 2, NULL, 0, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, 5.0, x, 2, NULL, 0, &t_default),
               ESDIRK_ZENO_ACCUMULATION);
  CHECK(fabs(t_default - t_inf) < 1e-6);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "accumulate") != NULL);
  /* A looser window (1e-3) stops earlier, the fewest intervals allowed too; the largest count
   * is accepted. */
  CHECK_STATUS(esdirk_hybrid_solver_set_zeno(solver, 3, 1e-3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 2, NULL, 0, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, 5.0, x, 2, NULL, 0, &t_loose),
               ESDIRK_ZENO_ACCUMULATION);
  CHECK(t_loose < t_default && t_inf - t_loose < 2e-3);
  CHECK_STATUS(esdirk_hybrid_solver_set_zeno(solver, 65536, 0.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0, 0, x0, 2, NULL, 0, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

int main(void) {
  test_null_handles();
  test_zeno_options();
  test_wrong_sizes_and_order();
  test_memory_and_modes();
  test_parameter_reset_and_initial_events();
  return report();
}
