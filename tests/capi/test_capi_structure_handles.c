/* The Jacobian structure (esdirk_sparse.h) and the method setters (esdirk_method.h) on every
 * handle that integrates besides the solver, compiled as C99: the hybrid solver with events,
 * sensitivities and its adjoint, the shooting interval, the reverse shooting interval and the
 * multiple-shooting evaluator. Banded and sparse (KLU) runs equal the dense run to rounding
 * (events at the same times, the same sensitivities and gradients); each setter changes the run;
 * every bad value is refused with a status and a message and changes nothing.
 * (test_capi_structure_handles_cpp.cpp: the hybrid runs through C and C++, bit for bit.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_hybrid_adjoint.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_multishoot.h"
#include "esdirk/esdirk_sparse.h"

#define N 10 /* states of the chain */
#define NP 2 /* parameters: decay p0, heating p1 */
#define MAX_EVENTS 64

/* A heated chain with a thermostat: x_i' = c (x_{i-1} - 2 x_i + x_{i+1}) - p0 x_i (+ p1 at the
 * first node while the heater is on, mode 1), x = 0 beyond both ends. The heater switches off
 * when x_0 rises through 0.30 and on again when it falls through 0.15 (event h = x_0 - level).
 * J is tridiagonal in both modes. */
static const double c = 6.0;

static double source(int mode, int i, const double* p) { return mode == 1 && i == 0 ? p[1] : 0.0; }

static void chain_rates(int mode, const double* x, const double* p, double* f) {
  for (int i = 0; i < N; ++i) {
    const double left = i > 0 ? x[i - 1] : 0.0, right = i + 1 < N ? x[i + 1] : 0.0;
    f[i] = c * (left - 2.0 * x[i] + right) - p[0] * x[i] + source(mode, i, p);
  }
}

static void chain_values(const double* p, const esdirk_int* ptr, const esdirk_int* rows,
                         double* values) {
  for (int j = 0; j < N; ++j)
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) values[k] = rows[k] == j ? -2.0 * c - p[0] : c;
}

static int hybrid_chain(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                        double t, const double* x, const double* z, const double* p,
                        const double* mem, double* f, double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)mem, (void)g, (void)user_data;
  chain_rates(mode, x, p, f);
  return 0;
}

static int hybrid_chain_jacobian(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                 esdirk_int nm, double t, const double* x, const double* z,
                                 const double* p, const double* mem, esdirk_int nnz,
                                 const esdirk_int* ptr, const esdirk_int* rows, double* values,
                                 void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)x, (void)z, (void)mem,
      (void)nnz, (void)user_data;
  chain_values(p, ptr, rows, values);
  return 0;
}

static void chain_dense(const double* p, double* J, esdirk_int ld) {
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i)
      J[j * ld + i] = i == j ? -2.0 * c - p[0] : (i == j - 1 || i == j + 1) ? c : 0.0;
}

static int hybrid_chain_dense_jacobian(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                       esdirk_int nm, double t, const double* x, const double* z,
                                       const double* p, const double* mem, double* J, esdirk_int ld,
                                       void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)x, (void)z, (void)mem,
      (void)user_data;
  chain_dense(p, J, ld);
  return 0;
}

/* [f_p] (no memory): d/dp0 = -x, d/dp1 = the heater's unit source. */
static void chain_parameters(int mode, const double* x, double* Jp, esdirk_int ld) {
  for (int i = 0; i < N; ++i) {
    Jp[i] = -x[i];
    Jp[ld + i] = mode == 1 && i == 0 ? 1.0 : 0.0;
  }
}

static int hybrid_chain_parameter_jacobian(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                           esdirk_int nm, double t, const double* x,
                                           const double* z, const double* p, const double* mem,
                                           double* Jp, esdirk_int ld, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)p, (void)mem, (void)user_data;
  chain_parameters(mode, x, Jp, ld);
  return 0;
}

static int thermostat(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                      esdirk_int ne, double t, const double* x, const double* z, const double* p,
                      const double* mem, double* h, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)nm, (void)ne, (void)t, (void)z, (void)p, (void)mem,
      (void)user_data;
  h[0] = x[0] - (mode == 1 ? 0.30 : 0.15);
  return 0;
}

static int switch_heater(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx,
                         esdirk_int nz, esdirk_int np, esdirk_int nm, double t, const double* x,
                         const double* z, const double* p, const double* mem, int* next_mode,
                         double* x_plus, void* user_data) {
  (void)ne, (void)fired, (void)time_event, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)x,
      (void)z, (void)p, (void)mem, (void)x_plus, (void)user_data;
  *next_mode = 1 - mode;
  return 0;
}

/* The same chain as a plain problem in mode 1 (the shooting handles; u = p). */
static int chain(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)g, (void)user_data;
  chain_rates(1, x, p, f);
  return 0;
}

static int chain_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                          const double* z, const double* p, esdirk_int nnz, const esdirk_int* ptr,
                          const esdirk_int* rows, double* values, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)x, (void)z, (void)nnz, (void)user_data;
  chain_values(p, ptr, rows, values);
  return 0;
}

static int chain_dense_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                const double* x, const double* z, const double* p, double* J,
                                esdirk_int ld, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)x, (void)z, (void)user_data;
  chain_dense(p, J, ld);
  return 0;
}

static int chain_parameter_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                    const double* x, const double* z, const double* p, double* Jp,
                                    esdirk_int ld, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)p, (void)user_data;
  chain_parameters(1, x, Jp, ld);
  return 0;
}

/* The tridiagonal CSC pattern (rows sorted). */
static void tridiagonal(esdirk_int* ptr, esdirk_int* rows) {
  int k = 0;
  for (int j = 0; j < N; ++j) {
    ptr[j] = k;
    if (j > 0) rows[k++] = j - 1;
    rows[k++] = j;
    if (j + 1 < N) rows[k++] = j + 1;
  }
  ptr[N] = k;
}

static double max_difference(const double* a, const double* b, int n) {
  double worst = 0.0, scale = 0.0;
  for (int i = 0; i < n; ++i) {
    worst = fmax(worst, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  return scale > 0.0 ? worst / scale : worst;
}

static int same_bits(const double* a, const double* b, int n) {
  return memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}

/* The structure a problem is given in a test: the dense back-end with the analytic dense J
 * (DENSE_ANALYTIC) or difference J, band LU and KLU with coloured differences or the analytic
 * sparse J (the analytic ones also with the analytic f_p). The analytic runs agree to
 * rounding. Difference Jacobians carry a rounding error of ~1e-8 relative, which differs
 * between dense and coloured columns, and between two runs whose states differ in the last
 * bit (a KLU and a dense LU): derivatives computed with them agree to that, not to rounding. */
typedef enum { DENSE, DENSE_ANALYTIC, BANDED, SPARSE, BANDED_ANALYTIC, SPARSE_ANALYTIC } Structure;
static const char* structure_name[] = {"dense", "dense + analytic J",  "banded",
                                       "KLU",   "banded + analytic J", "KLU + analytic J"};

static void declare_hybrid(esdirk_hybrid_problem* hp, Structure s) {
  esdirk_int ptr[N + 1], rows[3 * N];
  tridiagonal(ptr, rows);
  CHECK_STATUS(esdirk_jacobian_structure_clear(esdirk_hybrid_problem_jacobian_structure(hp)),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_sparse_jacobian(hp, NULL), ESDIRK_SUCCESS);
  const int analytic = s == DENSE_ANALYTIC || s == BANDED_ANALYTIC || s == SPARSE_ANALYTIC;
  CHECK_STATUS(esdirk_hybrid_problem_set_jacobians(
                   hp, s == DENSE_ANALYTIC ? hybrid_chain_dense_jacobian : NULL,
                   analytic ? hybrid_chain_parameter_jacobian : NULL),
               ESDIRK_SUCCESS);
  if (s == BANDED || s == BANDED_ANALYTIC)
    CHECK_STATUS(esdirk_jacobian_structure_set_bandwidths(
                     esdirk_hybrid_problem_jacobian_structure(hp), 1, 1),
                 ESDIRK_SUCCESS);
  if (s == SPARSE || s == SPARSE_ANALYTIC)
    CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                       ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_SUCCESS);
  if (s == BANDED_ANALYTIC || s == SPARSE_ANALYTIC)
    CHECK_STATUS(esdirk_hybrid_problem_set_sparse_jacobian(hp, hybrid_chain_jacobian),
                 ESDIRK_SUCCESS);
}

static void declare(esdirk_problem* problem, Structure s) {
  esdirk_int ptr[N + 1], rows[3 * N];
  tridiagonal(ptr, rows);
  CHECK_STATUS(esdirk_jacobian_structure_clear(esdirk_problem_jacobian_structure(problem)),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_sparse_jacobian(problem, NULL), ESDIRK_SUCCESS);
  const int analytic = s == DENSE_ANALYTIC || s == BANDED_ANALYTIC || s == SPARSE_ANALYTIC;
  CHECK_STATUS(
      esdirk_problem_set_jacobian(problem, s == DENSE_ANALYTIC ? chain_dense_jacobian : NULL),
      ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_problem_set_parameter_jacobian(problem, analytic ? chain_parameter_jacobian : NULL),
      ESDIRK_SUCCESS);
  if (s == BANDED || s == BANDED_ANALYTIC)
    CHECK_STATUS(
        esdirk_jacobian_structure_set_bandwidths(esdirk_problem_jacobian_structure(problem), 1, 1),
        ESDIRK_SUCCESS);
  if (s == SPARSE || s == SPARSE_ANALYTIC)
    CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_problem_jacobian_structure(problem),
                                                       ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
                 ESDIRK_SUCCESS);
  if (s == BANDED_ANALYTIC || s == SPARSE_ANALYTIC)
    CHECK_STATUS(esdirk_problem_set_sparse_jacobian(problem, chain_jacobian), ESDIRK_SUCCESS);
}

static esdirk_hybrid_problem* make_hybrid(void) {
  esdirk_hybrid_problem* hp = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(N, 0, NP, 1, 0, hybrid_chain, NULL, &hp),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(hp, thermostat, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(hp, switch_heater, NULL), ESDIRK_SUCCESS);
  return hp;
}

static const double p_nominal[NP] = {0.5, 12.0};
static const double t_final = 3.0;

/* ---- The hybrid solver ---------------------------------------------------------------------- */

typedef struct {
  const char* method; /* NULL: not set */
  int raw;            /* ESDIRK_TOLERANCE_RAW */
  int reuse;
  double keep_high;  /* 0: not set */
  int sensitivities; /* d/dp0, d/dp1 */
  double lu_h_change; /* 0: not set */
} HybridConfig;

typedef struct {
  int status;
  double x[N], S[N * NP];
  double event_times[MAX_EVENTS];
  int64_t events;
  int64_t steps, lus, jacobian_reuses, steps_kept;
  char method[32];
} HybridRun;

static HybridRun run_hybrid(esdirk_hybrid_problem* hp, HybridConfig config) {
  HybridRun run;
  memset(&run, 0, sizeof run);
  esdirk_hybrid_solver* s = NULL;
  double x0[N], seed[(N + NP) * NP];
  memset(x0, 0, sizeof x0);
  memset(seed, 0, sizeof seed);
  seed[N] = 1.0;
  seed[(N + NP) + N + 1] = 1.0;
  int st = esdirk_hybrid_solver_create(hp, &s);
  if (!st) st = esdirk_hybrid_solver_set_tolerances(s, 1e-7, 1e-9);
  if (!st && config.method) st = esdirk_hybrid_solver_set_method(s, config.method);
  if (!st && config.raw) st = esdirk_hybrid_solver_set_tolerance_rule(s, ESDIRK_TOLERANCE_RAW, 0.0);
  if (!st && config.reuse) st = esdirk_hybrid_solver_set_jacobian_reuse(s, 1, 0.1);
  if (!st && config.keep_high > 0.0)
    st = esdirk_hybrid_solver_set_keep_step_ratio(s, 1.0, config.keep_high);
  if (!st && config.lu_h_change > 0.0)
    st = esdirk_hybrid_solver_set_lu_reuse_h_change(s, config.lu_h_change);
  if (!st) st = esdirk_hybrid_solver_initialize(s, 0.0, 1, x0, N, NULL, 0, p_nominal, NP, NULL, 0);
  if (!st && config.sensitivities)
    st = esdirk_hybrid_solver_start_sensitivities(s, seed, N + NP, NP, N + NP);
  if (!st)
    st = config.sensitivities
             ? esdirk_hybrid_solver_integrate_sensitivities_to(s, t_final, run.x, N, NULL, 0, run.S,
                                                               N, NULL, 0, NP, NULL)
             : esdirk_hybrid_solver_integrate_to(s, t_final, run.x, N, NULL, 0, NULL);
  run.status = st;
  if (st) fprintf(stderr, "run_hybrid: %s\n", esdirk_hybrid_solver_last_error(s));
  esdirk_int logged = 0;
  esdirk_hybrid_solver_get_event_count(s, &run.events, &logged);
  for (esdirk_int k = 0; k < logged && k < MAX_EVENTS; ++k) {
    esdirk_event e = ESDIRK_EVENT_INIT;
    esdirk_hybrid_solver_get_event(s, k, &e);
    run.event_times[k] = e.t;
  }
  esdirk_hybrid_solver_get_counter(s, "steps", &run.steps);
  esdirk_hybrid_solver_get_counter(s, "lu_factorizations", &run.lus);
  esdirk_hybrid_solver_get_counter(s, "jacobian_reuses", &run.jacobian_reuses);
  esdirk_hybrid_solver_get_counter(s, "steps_kept", &run.steps_kept);
  const char* name = esdirk_hybrid_solver_method_name(s);
  snprintf(run.method, sizeof run.method, "%s", name ? name : "");
  esdirk_hybrid_solver_free(&s);
  return run;
}

/* The tolerance of a comparison with the dense run of the same kind of Jacobian (analytic:
 * rounding; coloured against dense differences: the differences' rounding error). */
static double tolerance_against_dense(Structure s) {
  return s == BANDED_ANALYTIC || s == SPARSE_ANALYTIC ? 1e-12 : 1e-7;
}
static Structure dense_of_kind(Structure s) {
  return s == BANDED_ANALYTIC || s == SPARSE_ANALYTIC ? DENSE_ANALYTIC : DENSE;
}

static void test_hybrid_structures_equal_dense(void) {
  esdirk_hybrid_problem* hp = make_hybrid();
  const HybridConfig with_s = {"ESDIRK34", 0, 0, 0.0, 1, 0.0};
  HybridRun runs[SPARSE_ANALYTIC + 1];
  for (int s = DENSE; s <= SPARSE_ANALYTIC; ++s) {
    declare_hybrid(hp, (Structure)s);
    runs[s] = run_hybrid(hp, with_s);
    CHECK_STATUS(runs[s].status, ESDIRK_SUCCESS);
  }
  CHECK(runs[DENSE].events >= 4 && runs[DENSE].events < MAX_EVENTS); /* the heater switched */
  for (int s = BANDED; s <= SPARSE_ANALYTIC; ++s) {
    const HybridRun* r = &runs[s];
    const HybridRun* dense = &runs[dense_of_kind((Structure)s)];
    const int events = (int)dense->events;
    CHECK(r->events == dense->events && r->steps == dense->steps);
    const double dt = max_difference(r->event_times, dense->event_times, events);
    const double dx = max_difference(r->x, dense->x, N),
                 dS = max_difference(r->S, dense->S, N * NP);
    printf("hybrid %s - %s: %d events, t* %.1e, x %.1e, S %.1e\n", structure_name[s],
           structure_name[dense_of_kind((Structure)s)], events, dt, dx, dS);
    CHECK(dt <= tolerance_against_dense((Structure)s) &&
          dx <= tolerance_against_dense((Structure)s) &&
          dS <= tolerance_against_dense((Structure)s));
  }
  /* Band LU and KLU: the same run to rounding. With analytic derivatives to 1e-12; with the
   * same coloured differences the states too, but the sensitivities only to the differences'
   * rounding error: the two LUs round the last Newton correction differently, and a difference
   * Jacobian at stage values that differ in their last bits differs by ~eps |f| / (its step)
   * ~1e-8 relative (the rate-based Newton test applies larger last corrections than the
   * correction-size test did, whose rounding had vanished from the stage values here). */
  for (int kind = 0; kind < 2; ++kind) {
    const HybridRun* band = &runs[kind == 0 ? BANDED : BANDED_ANALYTIC];
    const HybridRun* klu = &runs[kind == 0 ? SPARSE : SPARSE_ANALYTIC];
    CHECK(max_difference(band->event_times, klu->event_times, (int)klu->events) <= 1e-12);
    CHECK(max_difference(band->x, klu->x, N) <= 1e-12);
    const Structure of_klu = kind == 0 ? SPARSE : SPARSE_ANALYTIC;
    CHECK(max_difference(band->S, klu->S, N * NP) <= tolerance_against_dense(of_klu));
  }
  esdirk_hybrid_problem_free(&hp);
}

/* The objective sum_i x_i(t_final): its gradient is the column sums of the sensitivities. */
static int hybrid_gradient(esdirk_hybrid_problem* hp, int memory_budget, int change_structure,
                           double* dp) {
  esdirk_hybrid_solver* s = NULL;
  esdirk_hybrid_objective* objective = NULL;
  double x0[N], x[N], W[N], dx0[N];
  memset(x0, 0, sizeof x0);
  for (int i = 0; i < N; ++i) W[i] = 1.0;
  int st = esdirk_hybrid_solver_create(hp, &s);
  if (!st) st = esdirk_hybrid_solver_set_tolerances(s, 1e-7, 1e-9);
  if (!st) st = esdirk_hybrid_solver_set_method(s, "ESDIRK34");
  if (!st) st = esdirk_hybrid_solver_set_adjoint(s, 1, memory_budget);
  if (!st) st = esdirk_hybrid_solver_initialize(s, 0.0, 1, x0, N, NULL, 0, p_nominal, NP, NULL, 0);
  if (!st) st = esdirk_hybrid_solver_integrate_to(s, t_final, x, N, NULL, 0, NULL);
  /* A structure declared after the run reaches neither this solver nor its adjoint. */
  if (!st && change_structure) declare_hybrid(hp, change_structure == 1 ? BANDED : DENSE);
  if (!st) st = esdirk_hybrid_objective_create(1, &objective);
  if (!st) st = esdirk_hybrid_objective_set_terminal_weights(objective, W, N, N);
  if (!st) st = esdirk_hybrid_solver_adjoint_gradient(s, objective, dx0, N, N, dp, NP, NP);
  if (st) fprintf(stderr, "hybrid_gradient: %s\n", esdirk_hybrid_solver_last_error(s));
  esdirk_hybrid_objective_free(&objective);
  esdirk_hybrid_solver_free(&s);
  return st;
}

static void test_hybrid_adjoint_on_structures(void) {
  esdirk_hybrid_problem* hp = make_hybrid();
  double gradients[SPARSE_ANALYTIC + 1][NP];
  for (int s = DENSE; s <= SPARSE_ANALYTIC; ++s) {
    declare_hybrid(hp, (Structure)s);
    double* g = gradients[s];
    double g_budget[NP];
    CHECK_STATUS(hybrid_gradient(hp, 0, 0, g), ESDIRK_SUCCESS);
    /* Checkpointed (replayed) sweeps: the same gradient, bit for bit. */
    CHECK_STATUS(hybrid_gradient(hp, 2000, 0, g_budget), ESDIRK_SUCCESS);
    CHECK(same_bits(g_budget, g, NP));
  }
  for (int s = BANDED; s <= SPARSE_ANALYTIC; ++s) {
    const double d = max_difference(gradients[s], gradients[dense_of_kind((Structure)s)], NP);
    printf("hybrid adjoint %s - %s: %.1e\n", structure_name[s],
           structure_name[dense_of_kind((Structure)s)], d);
    CHECK(d <= tolerance_against_dense((Structure)s));
  }
  /* Band LU against KLU: as in test_hybrid_structures_equal_dense. */
  CHECK(max_difference(gradients[BANDED], gradients[SPARSE], NP) <= tolerance_against_dense(SPARSE));
  CHECK(max_difference(gradients[BANDED_ANALYTIC], gradients[SPARSE_ANALYTIC], NP) <= 1e-12);
  /* Forward against adjoint on KLU (the objective's gradient is 1^T S). With difference
   * derivatives the forward sensitivities' error test is floored (difference_rtol_floor) and
   * takes the states' steps: the adjoint is the transpose of the same discrete derivative. With
   * analytic ones it takes more steps: two approximations of the derivative, within the tolerance.
   */
  for (int s = SPARSE; s <= SPARSE_ANALYTIC; s += SPARSE_ANALYTIC - SPARSE) {
    declare_hybrid(hp, (Structure)s);
    const HybridRun run = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 0, 0.0, 1, 0.0});
    double forward[NP] = {0.0, 0.0};
    for (int j = 0; j < NP; ++j)
      for (int i = 0; i < N; ++i) forward[j] += run.S[j * N + i];
    const double d = max_difference(gradients[s], forward, NP);
    printf("hybrid adjoint - forward (%s): %.1e\n", structure_name[s], d);
    CHECK(d <= (s == SPARSE ? 1e-12 : 1e-5));
  }
  /* hybrid_adjoint_keeps_the_structure_of_its_run: declaring another structure between the run
   * and the sweep (banded after a KLU run; dense after a banded one) changes nothing. */
  declare_hybrid(hp, SPARSE);
  double klu[NP], klu_changed[NP];
  CHECK_STATUS(hybrid_gradient(hp, 0, 0, klu), ESDIRK_SUCCESS);
  declare_hybrid(hp, SPARSE);
  CHECK_STATUS(hybrid_gradient(hp, 2000, 1, klu_changed), ESDIRK_SUCCESS);
  CHECK(same_bits(klu, klu_changed, NP));
  double band[NP], band_changed[NP];
  declare_hybrid(hp, BANDED);
  CHECK_STATUS(hybrid_gradient(hp, 0, 0, band), ESDIRK_SUCCESS);
  CHECK_STATUS(hybrid_gradient(hp, 2000, 2, band_changed), ESDIRK_SUCCESS);
  CHECK(same_bits(band, band_changed, NP));
  esdirk_hybrid_problem_free(&hp);
}

static void test_hybrid_method_setters(void) {
  esdirk_hybrid_problem* hp = make_hybrid();
  declare_hybrid(hp, SPARSE);
  const HybridRun base = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 0, 0.0, 0, 0.0});
  CHECK_STATUS(base.status, ESDIRK_SUCCESS);
  CHECK(strcmp(base.method, "ESDIRK34") == 0);
  const HybridRun order4 = run_hybrid(hp, (HybridConfig){"ESDIRK436", 0, 0, 0.0, 0, 0.0});
  CHECK_STATUS(order4.status, ESDIRK_SUCCESS);
  CHECK(strcmp(order4.method, "ESDIRK436") == 0 && order4.steps != base.steps);
  CHECK(order4.events == base.events);
  const HybridRun automatic = run_hybrid(hp, (HybridConfig){"auto", 0, 0, 0.0, 0, 0.0});
  CHECK(strcmp(automatic.method, "ESDIRK436") == 0); /* rtol 1e-7 */
  CHECK(automatic.steps == order4.steps && same_bits(automatic.x, order4.x, N));
  const HybridRun raw = run_hybrid(hp, (HybridConfig){"ESDIRK34", 1, 0, 0.0, 0, 0.0});
  CHECK_STATUS(raw.status, ESDIRK_SUCCESS);
  CHECK(raw.steps != base.steps);
  const HybridRun reuse = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 1, 1.2, 0, 0.0});
  CHECK_STATUS(reuse.status, ESDIRK_SUCCESS);
  CHECK(base.jacobian_reuses == 0 && base.steps_kept == 0);
  CHECK(reuse.jacobian_reuses > 0 && reuse.steps_kept > 0 && reuse.lus < base.lus);
  CHECK(reuse.events == base.events);
  CHECK(max_difference(reuse.event_times, base.event_times, (int)base.events) < 1e-4);
  const HybridRun kept = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 0, 1.2, 0, 0.0});
  CHECK(kept.steps_kept > 0 && kept.jacobian_reuses == 0);
  /* With h free to move (keep [1, 1]) the LU also serves steps of a nearby h. */
  const HybridRun same_h = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 1, 1.0, 0, 0.0});
  const HybridRun nearby_h = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 1, 1.0, 0, 0.3});
  CHECK_STATUS(nearby_h.status, ESDIRK_SUCCESS);
  CHECK(nearby_h.lus < same_h.lus);
  CHECK(nearby_h.events == base.events);
  CHECK(max_difference(nearby_h.event_times, base.event_times, (int)base.events) < 1e-4);
  /* Reuse is states-only: sensitivities and the adjoint refuse it, with a message. */
  const HybridRun refused = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 1, 0.0, 1, 0.0});
  CHECK_STATUS(refused.status, ESDIRK_INVALID_ARGUMENT);
  esdirk_hybrid_solver* s = NULL;
  double x0[N];
  memset(x0, 0, sizeof x0);
  CHECK_STATUS(esdirk_hybrid_solver_create(hp, &s), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_lu_reuse_h_change(s, 1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(s), "lu_reuse_h_change") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_set_lu_reuse_h_change(NULL, 0.3), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_jacobian_reuse(s, 1, 0.1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(s, 1, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(s, 0.0, 1, x0, N, NULL, 0, p_nominal, NP, NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(s), "reuse_jacobian") != NULL);
  esdirk_hybrid_solver_free(&s);
  esdirk_hybrid_problem_free(&hp);
}

/* ---- Shooting, reverse shooting, multiple shooting ------------------------------------------- */

typedef struct {
  int status;
  double x[N], A[N * N], B[N * NP];
  int64_t steps, steps_kept;
  char method[32];
} ShootingRun;

static const double u_nominal[NP] = {0.5, 12.0};

/* The setters a shooting-type run applies. */
typedef struct {
  const char* method;
  int raw;          /* ESDIRK_TOLERANCE_RAW */
  double keep_high; /* 0: not set */
} Setters;

static ShootingRun run_shooting(esdirk_problem* problem, Setters set) {
  ShootingRun run;
  memset(&run, 0, sizeof run);
  esdirk_shooting* sh = NULL;
  double x0[N];
  for (int i = 0; i < N; ++i) x0[i] = 0.1 * i;
  int st = esdirk_shooting_create(problem, &sh);
  if (!st) st = esdirk_shooting_set_tolerances(sh, 1e-7, 1e-9);
  if (!st && set.method) st = esdirk_shooting_set_method(sh, set.method);
  if (!st && set.raw) st = esdirk_shooting_set_tolerance_rule(sh, ESDIRK_TOLERANCE_RAW, 0.0);
  if (!st && set.keep_high > 0.0) st = esdirk_shooting_set_keep_step_ratio(sh, 1.0, set.keep_high);
  if (!st)
    st = esdirk_shooting_integrate(sh, 0.0, 1.0, x0, N, u_nominal, NP, NULL, 0, run.x, NULL, run.A,
                                   N, run.B, N, NULL, NULL, NULL);
  run.status = st;
  if (st) fprintf(stderr, "run_shooting: %s\n", esdirk_shooting_last_error(sh));
  esdirk_shooting_get_counter(sh, 0, "steps", &run.steps);
  esdirk_shooting_get_counter(sh, 0, "steps_kept", &run.steps_kept);
  snprintf(run.method, sizeof run.method, "%s", esdirk_shooting_method_name(sh));
  esdirk_shooting_free(&sh);
  return run;
}

/* gx = A^T, gu = B^T (lambda = I) from the reverse shooting interval. */
static ShootingRun run_reverse(esdirk_problem* problem, Setters set) {
  ShootingRun run;
  memset(&run, 0, sizeof run);
  esdirk_reverse_shooting* sh = NULL;
  double x0[N], identity[N * N], gx[N * N], gu[NP * N];
  for (int i = 0; i < N; ++i) x0[i] = 0.1 * i;
  memset(identity, 0, sizeof identity);
  for (int i = 0; i < N; ++i) identity[i * (N + 1)] = 1.0;
  int st = esdirk_reverse_shooting_create(problem, &sh);
  if (!st) st = esdirk_reverse_shooting_set_tolerances(sh, 1e-7, 1e-9);
  if (!st && set.method) st = esdirk_reverse_shooting_set_method(sh, set.method);
  if (!st && set.raw)
    st = esdirk_reverse_shooting_set_tolerance_rule(sh, ESDIRK_TOLERANCE_RAW, 0.0);
  if (!st && set.keep_high > 0.0)
    st = esdirk_reverse_shooting_set_keep_step_ratio(sh, 1.0, set.keep_high);
  if (!st)
    st = esdirk_reverse_shooting_integrate(sh, 0.0, 1.0, x0, N, u_nominal, NP, NULL, 0, run.x, NULL,
                                           NULL);
  if (!st)
    st = esdirk_reverse_shooting_transpose_products(sh, identity, N, N, NULL, 0, 0, NULL, N, gx, N,
                                                    gu, NP, NP);
  run.status = st;
  if (st) fprintf(stderr, "run_reverse: %s\n", esdirk_reverse_shooting_last_error(sh));
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) run.A[j * N + i] = gx[i * N + j];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < NP; ++j) run.B[j * N + i] = gu[i * NP + j];
  esdirk_reverse_shooting_get_counter(sh, 0, "steps", &run.steps);
  esdirk_reverse_shooting_get_counter(sh, 0, "steps_kept", &run.steps_kept);
  snprintf(run.method, sizeof run.method, "%s", esdirk_reverse_shooting_method_name(sh));
  esdirk_reverse_shooting_free(&sh);
  return run;
}

#define INTERVALS 2
typedef struct {
  int status;
  double x[INTERVALS * N], A[INTERVALS * N * N], B[INTERVALS * N * NP];
} MultishootRun;

static MultishootRun run_multishoot(esdirk_problem* problem, Setters set) {
  MultishootRun run;
  memset(&run, 0, sizeof run);
  esdirk_multishoot* ms = NULL;
  const double t0[INTERVALS] = {0.0, 0.5}, t1[INTERVALS] = {0.5, 1.0};
  double x[INTERVALS * N], u[INTERVALS * NP];
  for (int i = 0; i < INTERVALS * N; ++i) x[i] = 0.05 * i;
  for (int k = 0; k < INTERVALS; ++k)
    u[k * NP] = u_nominal[0], u[k * NP + 1] = u_nominal[1] * (k + 1);
  int st = esdirk_multishoot_create(problem, INTERVALS, 1, &ms);
  if (!st) st = esdirk_multishoot_set_tolerances(ms, 1e-7, 1e-9);
  if (!st && set.method) st = esdirk_multishoot_set_method(ms, set.method);
  if (!st && set.raw) st = esdirk_multishoot_set_tolerance_rule(ms, ESDIRK_TOLERANCE_RAW, 0.0);
  if (!st && set.keep_high > 0.0)
    st = esdirk_multishoot_set_keep_step_ratio(ms, 1.0, set.keep_high);
  if (!st)
    st = esdirk_multishoot_evaluate(ms, t0, t1, x, u, NULL, run.x, NULL, run.A, run.B, NULL, NULL,
                                    NULL, NULL);
  run.status = st;
  if (st) fprintf(stderr, "run_multishoot: %s\n", esdirk_multishoot_last_error(ms));
  esdirk_multishoot_free(&ms);
  return run;
}

static void test_shooting_handles_on_structures(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(N, 0, NP, chain, NULL, &problem), ESDIRK_SUCCESS);
  ShootingRun forward[SPARSE_ANALYTIC + 1], reverse[SPARSE_ANALYTIC + 1];
  MultishootRun multi[SPARSE_ANALYTIC + 1];
  for (int s = DENSE; s <= SPARSE_ANALYTIC; ++s) {
    declare(problem, (Structure)s);
    forward[s] = run_shooting(problem, (Setters){"ESDIRK34", 0, 0.0});
    reverse[s] = run_reverse(problem, (Setters){"ESDIRK34", 0, 0.0});
    multi[s] = run_multishoot(problem, (Setters){"ESDIRK34", 0, 0.0});
    CHECK_STATUS(forward[s].status, ESDIRK_SUCCESS);
    CHECK_STATUS(reverse[s].status, ESDIRK_SUCCESS);
    CHECK_STATUS(multi[s].status, ESDIRK_SUCCESS);
  }
  for (int s = BANDED; s <= SPARSE_ANALYTIC; ++s) {
    const int o = dense_of_kind((Structure)s);
    const ShootingRun *r = &forward[s], *rr = &reverse[s];
    const MultishootRun* m = &multi[s];
    const double d[] = {max_difference(r->x, forward[o].x, N),
                        max_difference(r->A, forward[o].A, N * N),
                        max_difference(r->B, forward[o].B, N * NP),
                        max_difference(rr->x, reverse[o].x, N),
                        max_difference(rr->A, reverse[o].A, N * N),
                        max_difference(rr->B, reverse[o].B, N * NP),
                        max_difference(m->x, multi[o].x, INTERVALS * N),
                        max_difference(m->A, multi[o].A, INTERVALS * N * N),
                        max_difference(m->B, multi[o].B, INTERVALS * N * NP)};
    printf(
        "%s - %s: shooting x %.1e A %.1e B %.1e; reverse x %.1e A^T %.1e B^T %.1e; "
        "multishoot x %.1e A %.1e B %.1e\n",
        structure_name[s], structure_name[o], d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8]);
    for (int k = 0; k < 9; ++k) CHECK(d[k] <= tolerance_against_dense((Structure)s));
    CHECK(r->steps == forward[o].steps && rr->steps == reverse[o].steps);
  }
  CHECK(max_difference(forward[BANDED].A, forward[SPARSE].A, N * N) <= 1e-12);
  CHECK(max_difference(reverse[BANDED].A, reverse[SPARSE].A, N * N) <= 1e-12);
  CHECK(max_difference(multi[BANDED].A, multi[SPARSE].A, INTERVALS * N * N) <= 1e-12);
  /* The forward and reverse derivatives of one interval agree (different step sequences: the
   * shooting interval's sensitivities enter its error test). */
  declare(problem, SPARSE);
  const ShootingRun f = run_shooting(problem, (Setters){"ESDIRK34", 0, 0.0});
  const ShootingRun b = run_reverse(problem, (Setters){"ESDIRK34", 0, 0.0});
  CHECK(max_difference(f.A, b.A, N * N) <= 1e-5 && max_difference(f.B, b.B, N * NP) <= 1e-5);

  /* Each setter changes the run: method (and its name after the run), tolerance rule. */
  const ShootingRun order4 = run_shooting(problem, (Setters){"ESDIRK436", 0, 0.0});
  CHECK(strcmp(f.method, "ESDIRK34") == 0 && strcmp(order4.method, "ESDIRK436") == 0);
  CHECK(order4.steps != f.steps);
  const ShootingRun automatic = run_shooting(problem, (Setters){"auto", 0, 0.0});
  CHECK(strcmp(automatic.method, "ESDIRK436") == 0 && same_bits(automatic.A, order4.A, N * N));
  const ShootingRun raw = run_shooting(problem, (Setters){"ESDIRK34", 1, 0.0});
  CHECK(raw.steps != f.steps);
  const ShootingRun reverse4 = run_reverse(problem, (Setters){"ESDIRK436", 0, 0.0});
  CHECK(strcmp(reverse4.method, "ESDIRK436") == 0 && strcmp(b.method, "ESDIRK34") == 0);
  CHECK(reverse4.steps != b.steps);
  const ShootingRun reverse_raw = run_reverse(problem, (Setters){"ESDIRK34", 1, 0.0});
  CHECK(reverse_raw.steps != b.steps);
  /* Keeping h for ratios in [1, 1.2] keeps some steps (none by default). */
  const ShootingRun kept = run_shooting(problem, (Setters){"ESDIRK34", 0, 1.2});
  const ShootingRun reverse_kept = run_reverse(problem, (Setters){"ESDIRK34", 0, 1.2});
  CHECK(f.steps_kept == 0 && b.steps_kept == 0);
  CHECK(kept.steps_kept > 0 && reverse_kept.steps_kept > 0);
  /* The multiple-shooting evaluator (no counters through C): each setter changes the result,
   * within the tolerance. */
  const MultishootRun ms34 = run_multishoot(problem, (Setters){"ESDIRK34", 0, 0.0});
  const MultishootRun ms_set[3] = {run_multishoot(problem, (Setters){"ESDIRK436", 0, 0.0}),
                                   run_multishoot(problem, (Setters){"ESDIRK34", 1, 0.0}),
                                   run_multishoot(problem, (Setters){"ESDIRK34", 0, 1.2})};
  for (int k = 0; k < 3; ++k) {
    CHECK_STATUS(ms_set[k].status, ESDIRK_SUCCESS);
    CHECK(!same_bits(ms34.x, ms_set[k].x, INTERVALS * N));
    CHECK(max_difference(ms34.x, ms_set[k].x, INTERVALS * N) < 1e-5);
  }
  esdirk_problem_free(&problem);
}

/* ---- Bad values: a status, a message, nothing changed ---------------------------------------- */

static void check_structure_unchanged(esdirk_hybrid_problem* hp, int kind, esdirk_int lower,
                                      esdirk_int upper, esdirk_int nonzeros) {
  int k = -1;
  esdirk_int l = -1, u = -1, nnz = -1;
  CHECK_STATUS(esdirk_jacobian_structure_get(esdirk_hybrid_problem_jacobian_structure(hp), &k, &l,
                                             &u, &nnz, NULL, NULL, 0),
               ESDIRK_SUCCESS);
  CHECK(k == kind && l == lower && u == upper && nnz == nonzeros);
}

static void test_hybrid_structure_bad_input(void) {
  esdirk_hybrid_problem* hp = make_hybrid();
  esdirk_int ptr[N + 1], rows[3 * N];
  tridiagonal(ptr, rows);
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_DENSE, N - 1, N - 1, N * N);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_bandwidths(esdirk_hybrid_problem_jacobian_structure(hp), 2, 1),
      ESDIRK_SUCCESS);
  const esdirk_int band_nnz = 4 * N - 4; /* diagonals 0, +1, -1, -2: N + 2 (N - 1) + N - 2 */
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_BANDED, 2, 1, band_nnz);
  const char* message = NULL;
  /* Negative, and too large, bandwidths. */
  CHECK_STATUS(
      esdirk_jacobian_structure_set_bandwidths(esdirk_hybrid_problem_jacobian_structure(hp), -1, 1),
      ESDIRK_INVALID_ARGUMENT);
  message = esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp));
  CHECK(strstr(message, "0 <= lower, upper < n = 10") != NULL &&
        strstr(message, "lower -1") != NULL);
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_BANDED, 2, 1, band_nnz);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_bandwidths(esdirk_hybrid_problem_jacobian_structure(hp), 1, N),
      ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)),
               "upper 10") != NULL);
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_BANDED, 2, 1, band_nnz);
  /* A row outside [0, n), a row twice in a column, decreasing pointers, an unknown back-end. */
  esdirk_int bad_rows[3 * N];
  memcpy(bad_rows, rows, sizeof rows);
  bad_rows[ptr[N] - 1] = N;
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                     ptr, bad_rows, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_INVALID_ARGUMENT);
  message = esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp));
  printf("out of range: %s\n", message);
  CHECK(strlen(message) > 0 && strstr(message, "10") != NULL);
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_BANDED, 2, 1, band_nnz);
  memcpy(bad_rows, rows, sizeof rows);
  bad_rows[1] = bad_rows[0]; /* column 0: rows 0, 0 */
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                     ptr, bad_rows, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_INVALID_ARGUMENT);
  message = esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp));
  printf("duplicate: %s\n", message);
  CHECK(strstr(message, "twice") != NULL || strstr(message, "duplicate") != NULL);
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_BANDED, 2, 1, band_nnz);
  esdirk_int bad_ptr[N + 1];
  memcpy(bad_ptr, ptr, sizeof ptr);
  bad_ptr[3] = bad_ptr[2] - 1;
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                     bad_ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strlen(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp))) >
        0);
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_BANDED, 2, 1, band_nnz);
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                     ptr, rows, 7),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)),
               "linear_solver 7") != NULL);
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_BANDED, 2, 1, band_nnz);
  /* NULL arrays and handles. */
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                     NULL, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_NULL_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)),
               "column_pointers is NULL") != NULL);
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                     ptr, NULL, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_NULL_ARGUMENT);
  CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)),
               "row_indices is NULL") != NULL);
  check_structure_unchanged(hp, ESDIRK_LINEAR_SOLVER_BANDED, 2, 1, band_nnz);
  CHECK_STATUS(esdirk_jacobian_structure_set_bandwidths(
                   esdirk_hybrid_problem_jacobian_structure(NULL), 1, 1),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(NULL),
                                                     ptr, rows, 2),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_set_sparse_jacobian(NULL, hybrid_chain_jacobian),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_clear(esdirk_hybrid_problem_jacobian_structure(NULL)),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_jacobian_structure_get(esdirk_hybrid_problem_jacobian_structure(NULL), NULL,
                                             NULL, NULL, NULL, NULL, NULL, 0),
               ESDIRK_NULL_ARGUMENT);
  CHECK(strlen(esdirk_jacobian_structure_last_error(
            esdirk_hybrid_problem_jacobian_structure(NULL))) > 0);
  /* The pattern round-trips with sorted rows; a good call clears the message. */
  esdirk_int reversed[3 * N], ptr_back[N + 1], rows_back[3 * N];
  for (int j = 0; j < N; ++j)
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) reversed[k] = rows[ptr[j + 1] - 1 - (k - ptr[j])];
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                     ptr, reversed, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)),
               "") == 0);
  CHECK_STATUS(esdirk_jacobian_structure_get(esdirk_hybrid_problem_jacobian_structure(hp), NULL,
                                             NULL, NULL, NULL, ptr_back, rows_back, 3 * N - 3),
               ESDIRK_BUFFER_TOO_SMALL);
  CHECK_STATUS(esdirk_jacobian_structure_get(esdirk_hybrid_problem_jacobian_structure(hp), NULL,
                                             NULL, NULL, NULL, ptr_back, rows_back, 3 * N),
               ESDIRK_SUCCESS);
  CHECK(memcmp(ptr_back, ptr, sizeof ptr) == 0 &&
        memcmp(rows_back, rows, (size_t)ptr[N] * sizeof(esdirk_int)) == 0);
  CHECK_STATUS(esdirk_jacobian_structure_clear(esdirk_hybrid_problem_jacobian_structure(hp)),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_jacobian_structure_get(esdirk_hybrid_problem_jacobian_structure(hp), NULL,
                                             NULL, NULL, NULL, ptr_back, rows_back, 3 * N),
               ESDIRK_WRONG_CALL_ORDER);
  esdirk_hybrid_problem_free(&hp);
}

/* Every setter on every handle: bad values refused with a message, the options unchanged. */
static void test_method_setters_bad_values(void) {
  esdirk_problem* problem = NULL;
  esdirk_hybrid_problem* hp = make_hybrid();
  CHECK_STATUS(esdirk_problem_create(N, 0, NP, chain, NULL, &problem), ESDIRK_SUCCESS);
  esdirk_shooting* sh = NULL;
  esdirk_reverse_shooting* rs = NULL;
  esdirk_multishoot* ms = NULL;
  esdirk_hybrid_solver* hs = NULL;
  CHECK_STATUS(esdirk_shooting_create(problem, &sh), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_create(problem, &rs), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_create(problem, INTERVALS, 1, &ms), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(hp, &hs), ESDIRK_SUCCESS);

  /* Unknown method names (case matters), NULL names: refused, the method kept. */
  CHECK_STATUS(esdirk_shooting_set_method(sh, "ESDIRK436"), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_method(sh, "esdirk436"), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(sh), "set_method") != NULL &&
        strstr(esdirk_shooting_last_error(sh), "esdirk436") != NULL);
  CHECK_STATUS(esdirk_shooting_set_method(sh, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(sh), "name is NULL") != NULL);
  CHECK(strcmp(esdirk_shooting_method_name(sh), "ESDIRK436") == 0);
  CHECK_STATUS(esdirk_reverse_shooting_set_method(rs, "RADAU5"), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_reverse_shooting_last_error(rs), "RADAU5") != NULL);
  CHECK(strcmp(esdirk_reverse_shooting_method_name(rs), "auto") == 0); /* the default, before a run */
  CHECK_STATUS(esdirk_multishoot_set_method(ms, "ESDIRK547"), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_set_method(ms, ""), ESDIRK_INVALID_ARGUMENT);
  CHECK(strlen(esdirk_multishoot_last_error(ms)) > 0);
  CHECK(strcmp(esdirk_multishoot_method_name(ms), "ESDIRK547") == 0);
  CHECK_STATUS(esdirk_hybrid_solver_set_method(hs, "auto"), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_method(hs, "ESDIRK34 "), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(hs), "set_method") != NULL);
  CHECK(strcmp(esdirk_hybrid_solver_method_name(hs), "auto") == 0);

  /* Tolerance rule: unknown rule, bad factors. */
  CHECK_STATUS(esdirk_shooting_set_tolerance_rule(sh, 2, 0.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(sh), "rule 2") != NULL);
  CHECK_STATUS(esdirk_reverse_shooting_set_tolerance_rule(rs, ESDIRK_TOLERANCE_CALIBRATED, -1.0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_reverse_shooting_last_error(rs), "set_tolerance_rule") != NULL);
  CHECK_STATUS(esdirk_multishoot_set_tolerance_rule(ms, ESDIRK_TOLERANCE_RAW, NAN),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerance_rule(hs, ESDIRK_TOLERANCE_CALIBRATED, INFINITY),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(hs), "calibration_factor") != NULL);

  /* Reuse: refused by the handles that always differentiate (reuse 0 accepted); bad
   * contraction refused everywhere. */
  CHECK_STATUS(esdirk_shooting_set_jacobian_reuse(sh, 1, 0.1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(sh), "states-only") != NULL);
  CHECK_STATUS(esdirk_shooting_set_jacobian_reuse(sh, 0, 0.1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_set_jacobian_reuse(rs, 1, 0.1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_reverse_shooting_last_error(rs), "adjoint") != NULL);
  CHECK_STATUS(esdirk_multishoot_set_jacobian_reuse(ms, 1, 0.1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_multishoot_last_error(ms), "states-only") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_set_jacobian_reuse(hs, 1, 1.5), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(hs), "set_jacobian_reuse") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_set_jacobian_reuse(hs, 1, 0.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_jacobian_reuse(sh, 0, -0.5), ESDIRK_INVALID_ARGUMENT);

  /* Keep ratios: low > 1, low <= 0, high < 1, high not finite. */
  CHECK_STATUS(esdirk_shooting_set_keep_step_ratio(sh, 1.5, 2.0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(sh), "set_keep_step_ratio") != NULL);
  CHECK_STATUS(esdirk_reverse_shooting_set_keep_step_ratio(rs, 0.0, 1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_keep_step_ratio(ms, 1.0, 0.5), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_keep_step_ratio(hs, 1.0, INFINITY),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(hs), "finite") != NULL);
  /* A keep ratio above the controller's max_step_ratio is refused where the options are used. */
  CHECK_STATUS(esdirk_hybrid_solver_set_keep_step_ratio(hs, 1.0, 1e6), ESDIRK_SUCCESS);
  double x0[N];
  memset(x0, 0, sizeof x0);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(hs, 0.0, 1, x0, N, NULL, 0, p_nominal, NP, NULL, 0),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(hs), "keep_step_ratio_high") != NULL);

  /* NULL handles. */
  CHECK_STATUS(esdirk_shooting_set_method(NULL, "ESDIRK34"), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_method(NULL, "ESDIRK34"), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_method(NULL, "ESDIRK34"), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_method(NULL, "ESDIRK34"), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_tolerance_rule(NULL, 0, 0.0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_tolerance_rule(NULL, 0, 0.0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_tolerance_rule(NULL, 0, 0.0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerance_rule(NULL, 0, 0.0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_jacobian_reuse(NULL, 0, 0.1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_jacobian_reuse(NULL, 0, 0.1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_jacobian_reuse(NULL, 0, 0.1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_jacobian_reuse(NULL, 0, 0.1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_keep_step_ratio(NULL, 1.0, 1.0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_reverse_shooting_set_keep_step_ratio(NULL, 1.0, 1.0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_multishoot_set_keep_step_ratio(NULL, 1.0, 1.0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_keep_step_ratio(NULL, 1.0, 1.0), ESDIRK_NULL_ARGUMENT);
  CHECK(esdirk_shooting_method_name(NULL) == NULL &&
        esdirk_reverse_shooting_method_name(NULL) == NULL &&
        esdirk_multishoot_method_name(NULL) == NULL &&
        esdirk_hybrid_solver_method_name(NULL) == NULL);

  esdirk_hybrid_solver_free(&hs);
  esdirk_multishoot_free(&ms);
  esdirk_reverse_shooting_free(&rs);
  esdirk_shooting_free(&sh);
  esdirk_hybrid_problem_free(&hp);
  esdirk_problem_free(&problem);
}

/* Refused values change nothing: the runs after a refusal equal the runs without it, bit for bit.
 */
static void test_refusals_change_nothing(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(N, 0, NP, chain, NULL, &problem), ESDIRK_SUCCESS);
  declare(problem, BANDED);
  /* Two intervals on each of two handles (the second warm-starts from the first); refusals
   * between them on the second handle. */
  esdirk_shooting *sh = NULL, *other = NULL;
  double x0[N], x_a[N], x_b[N], A_a[N * N], A_b[N * N];
  for (int i = 0; i < N; ++i) x0[i] = 0.1 * i;
  CHECK_STATUS(esdirk_shooting_create(problem, &sh), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &other), ESDIRK_SUCCESS);
  for (int k = 0; k < 2; ++k) {
    CHECK_STATUS(esdirk_shooting_integrate(other, 0.0, 1.0, x0, N, u_nominal, NP, NULL, 0, x_a,
                                           NULL, A_a, N, NULL, 0, NULL, NULL, NULL),
                 ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_shooting_integrate(sh, 0.0, 1.0, x0, N, u_nominal, NP, NULL, 0, x_b, NULL,
                                           A_b, N, NULL, 0, NULL, NULL, NULL),
                 ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_shooting_set_method(sh, "nonsense"), ESDIRK_INVALID_ARGUMENT);
    CHECK_STATUS(esdirk_shooting_set_tolerance_rule(sh, 5, 0.0), ESDIRK_INVALID_ARGUMENT);
    CHECK_STATUS(esdirk_shooting_set_tolerance_rule(sh, ESDIRK_TOLERANCE_RAW, -2.0),
                 ESDIRK_INVALID_ARGUMENT);
    CHECK_STATUS(esdirk_shooting_set_jacobian_reuse(sh, 1, 0.1), ESDIRK_INVALID_ARGUMENT);
    CHECK_STATUS(esdirk_shooting_set_keep_step_ratio(sh, 2.0, 3.0), ESDIRK_INVALID_ARGUMENT);
    CHECK_STATUS(
        esdirk_jacobian_structure_set_bandwidths(esdirk_problem_jacobian_structure(problem), -3, 1),
        ESDIRK_INVALID_ARGUMENT);
  }
  CHECK(same_bits(x_a, x_b, N) && same_bits(A_a, A_b, N * N));
  esdirk_shooting_free(&other);
  esdirk_shooting_free(&sh);

  esdirk_hybrid_problem* hp = make_hybrid();
  declare_hybrid(hp, BANDED);
  const HybridRun a = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 0, 0.0, 1, 0.0});
  esdirk_int ptr[N + 1], rows[3 * N];
  tridiagonal(ptr, rows);
  rows[2] = -1;
  CHECK_STATUS(esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                                     ptr, rows, ESDIRK_LINEAR_SOLVER_SPARSE),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_bandwidths(esdirk_hybrid_problem_jacobian_structure(hp), N, 0),
      ESDIRK_INVALID_ARGUMENT);
  const HybridRun b = run_hybrid(hp, (HybridConfig){"ESDIRK34", 0, 0, 0.0, 1, 0.0});
  CHECK(a.steps == b.steps && same_bits(a.x, b.x, N) && same_bits(a.S, b.S, N * NP));
  esdirk_hybrid_problem_free(&hp);
  esdirk_problem_free(&problem);
}

/* The pattern checker, one mode at a time: mode 0 of this variant also couples x_0 to x_2 (an
 * entry outside the tridiagonal pattern), and the analytic J below forgets p0 in mode 1. */
static int hybrid_chain_wide(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                             double t, const double* x, const double* z, const double* p,
                             const double* mem, double* f, double* g, void* user_data) {
  hybrid_chain(mode, nx, nz, np, nm, t, x, z, p, mem, f, g, user_data);
  if (mode == 0) f[0] += 0.5 * x[2];
  return 0;
}

static int hybrid_chain_wrong_jacobian(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                       esdirk_int nm, double t, const double* x, const double* z,
                                       const double* p, const double* mem, esdirk_int nnz,
                                       const esdirk_int* ptr, const esdirk_int* rows,
                                       double* values, void* user_data) {
  hybrid_chain_jacobian(mode, nx, nz, np, nm, t, x, z, p, mem, nnz, ptr, rows, values, user_data);
  if (mode == 1)
    for (int j = 0; j < N; ++j)
      for (int k = ptr[j]; k < ptr[j + 1]; ++k)
        if (rows[k] == j) values[k] += p[0];
  return 0;
}

static void test_hybrid_pattern_checker(void) {
  esdirk_hybrid_problem* hp = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(N, 0, NP, 1, 0, hybrid_chain_wide, NULL, &hp),
               ESDIRK_SUCCESS);
  double x[N];
  for (int i = 0; i < N; ++i) x[i] = 0.1 * (i + 1);
  esdirk_int missing = -1, wrong = -1, rows[4], cols[4];
  /* Nothing declared: nothing to check. */
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(hp, 1, 0.0, x, NULL, p_nominal, NULL,
                                                            0.0, &missing, rows, cols, 4, &wrong),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)),
               "no pattern") != NULL);
  esdirk_int ptr[N + 1], pattern_rows[3 * N];
  tridiagonal(ptr, pattern_rows);
  CHECK_STATUS(
      esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp), ptr,
                                            pattern_rows, ESDIRK_LINEAR_SOLVER_SPARSE),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(hp, 1, 0.0, x, NULL, p_nominal, NULL,
                                                            0.0, &missing, rows, cols, 4, &wrong),
               ESDIRK_SUCCESS);
  CHECK(missing == 0 && wrong == 0);
  CHECK(strcmp(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)),
               "") == 0);
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(hp, 0, 0.0, x, NULL, p_nominal, NULL,
                                                            0.0, &missing, rows, cols, 4, &wrong),
               ESDIRK_SUCCESS);
  CHECK(missing == 1 && wrong == 0 && rows[0] == 0 && cols[0] == 2);
  printf("mode 0: %s\n",
         esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)));
  CHECK(strstr(esdirk_jacobian_structure_last_error(esdirk_hybrid_problem_jacobian_structure(hp)),
               "x[2]") != NULL);
  /* A wrong analytic J in mode 1: every diagonal entry. */
  CHECK_STATUS(esdirk_hybrid_problem_set_sparse_jacobian(hp, hybrid_chain_wrong_jacobian),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(hp, 1, 0.0, x, NULL, p_nominal, NULL,
                                                            0.0, &missing, rows, cols, 4, &wrong),
               ESDIRK_SUCCESS);
  CHECK(missing == 0 && wrong == N);
  CHECK_STATUS(esdirk_hybrid_problem_set_sparse_jacobian(hp, hybrid_chain_jacobian),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(hp, 1, 0.0, x, NULL, p_nominal, NULL,
                                                            0.0, &missing, rows, cols, 4, &wrong),
               ESDIRK_SUCCESS);
  CHECK(missing == 0 && wrong == 0);
  /* Bad arguments. */
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(NULL, 1, 0.0, x, NULL, p_nominal, NULL,
                                                            0.0, &missing, rows, cols, 4, &wrong),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(hp, 1, 0.0, NULL, NULL, p_nominal, NULL,
                                                            0.0, &missing, rows, cols, 4, &wrong),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(hp, 1, 0.0, x, NULL, NULL, NULL, 0.0,
                                                            &missing, rows, cols, 4, &wrong),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_problem_check_jacobian_pattern(hp, 1, 0.0, x, NULL, p_nominal, NULL,
                                                            0.0, &missing, rows, cols, -1, &wrong),
               ESDIRK_INVALID_ARGUMENT);
  esdirk_hybrid_problem_free(&hp);
}

int main(void) {
  test_hybrid_structures_equal_dense();
  test_hybrid_adjoint_on_structures();
  test_hybrid_method_setters();
  test_shooting_handles_on_structures();
  test_hybrid_structure_bad_input();
  test_hybrid_pattern_checker();
  test_method_setters_bad_values();
  test_refusals_change_nothing();
  return report();
}
