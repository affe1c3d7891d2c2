/* The classic one-call driver (esdirk_classic.h), compiled as C99: the tolerance switch, the
 * work arrays (options in, statistics out, short arrays), NULL arguments, continuation calls,
 * failures, and equality with the handle API bit for bit (states, sensitivities, counters). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_classic.h"

/* x' = -p z, 0 = z - x^2: x = x0/(1 + p x0 t), z = x^2. */
static int model(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  if (user_data) ++*(int*)user_data;
  f[0] = -p[0] * z[0];
  g[0] = z[0] - x[0] * x[0];
  return 0;
}
static int model_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                          const double* z, const double* p, double* J, esdirk_int ld,
                          void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)z;
  (void)user_data;
  J[0] = 0.0;         /* df/dx */
  J[1] = -2.0 * x[0]; /* dg/dx */
  J[0 + ld] = -p[0];  /* df/dz */
  J[1 + ld] = 1.0;    /* dg/dz */
  return 0;
}
static int model_parameter_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                    const double* x, const double* z, const double* p,
                                    double* Jp, esdirk_int ld, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)x;
  (void)p;
  (void)ld;
  (void)user_data;
  Jp[0] = -z[0];
  Jp[1] = 0.0;
  return 0;
}
static int fatal_model(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                       const double* z, const double* p, double* f, double* g, void* user_data) {
  model(nx, nz, np, t, x, z, p, f, g, user_data);
  return t > 0.5 ? -1 : 0;
}

static double exact_x(double x0, double p, double t) { return x0 / (1.0 + p * x0 * t); }
static double exact_dx_dp(double x0, double p, double t) {
  return -x0 * x0 * t / ((1.0 + p * x0 * t) * (1.0 + p * x0 * t));
}

static const double P = 2.0;

/* The handle-API run that doc/classic-driver.md gives for a classic call from t0 to tend. */
typedef struct {
  double t, y[2], h, S[4]; /* S: 2 x ns, ns <= 2 */
  esdirk_statistics stats;
  int status;
} HandleRun;

static HandleRun handle_run(double t0, const double y0[2], double tend, double h0, double rtol_x,
                            double atol_x, double rtol_z, double atol_z, int vectors, double hmax,
                            const double* seed, esdirk_int ns) {
  HandleRun r;
  memset(&r, 0, sizeof r);
  r.stats.struct_size = sizeof r.stats;
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  esdirk_problem_create(1, 1, 1, model, NULL, &problem);
  esdirk_problem_set_jacobian(problem, model_jacobian);
  esdirk_problem_set_parameter_jacobian(problem, model_parameter_jacobian);
  esdirk_solver_create(problem, &solver);
  if (vectors) {
    esdirk_solver_set_tolerances(solver, rtol_z, atol_x);
    esdirk_solver_set_tolerance_vectors(solver, &rtol_x, &atol_x, 1);
    esdirk_solver_set_algebraic_atol(solver, &atol_z, 1);
  } else {
    esdirk_solver_set_tolerances(solver, rtol_x, atol_x);
  }
  esdirk_solver_set_step_limits(solver, fabs(h0), 0.0, hmax > 0.0 ? hmax : INFINITY, 500000);
  r.status = esdirk_solver_initialize(solver, t0, y0, 1, y0 + 1, 1, &P, 1);
  if (r.status == ESDIRK_SUCCESS) r.status = esdirk_solver_set_stop_time(solver, tend);
  if (seed && r.status == ESDIRK_SUCCESS)
    r.status = esdirk_solver_start_sensitivities(solver, seed, 2, ns, 2);
  if (r.status == ESDIRK_SUCCESS) {
    if (seed) {
      double Sx[2], Sz[2];
      r.status = esdirk_solver_integrate_sensitivities_to(solver, tend, r.y, 1, r.y + 1, 1, Sx, 1,
                                                          Sz, 1, ns);
      for (esdirk_int j = 0; j < ns; ++j) {
        r.S[2 * j] = Sx[j];
        r.S[2 * j + 1] = Sz[j];
      }
    } else {
      r.status = esdirk_solver_integrate_to(solver, tend, r.y, 1, r.y + 1, 1);
    }
  }
  esdirk_solver_get_state(solver, &r.t, r.y, 1, r.y + 1, 1);
  esdirk_solver_get_statistics(solver, &r.stats);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  return r;
}

static int same_statistics(const esdirk_int* iwork, const esdirk_statistics* s) {
  return iwork[ESDIRK_IWORK_NSTEP] == s->steps && iwork[ESDIRK_IWORK_NACCEPT] == s->accepted_steps &&
         iwork[ESDIRK_IWORK_NREJECT] == s->rejected_steps &&
         iwork[ESDIRK_IWORK_NFUN] == s->function_evaluations &&
         iwork[ESDIRK_IWORK_NJAC] == s->jacobian_evaluations &&
         iwork[ESDIRK_IWORK_NLU] == s->lu_factorizations &&
         iwork[ESDIRK_IWORK_NBACK] == s->back_substitutions &&
         iwork[ESDIRK_IWORK_NSENS] == s->sensitivity_solves &&
         iwork[ESDIRK_IWORK_NNEWT] == s->newton_iterations &&
         iwork[ESDIRK_IWORK_NFDFUN] == s->fd_function_evaluations;
}

/* Scalar tolerances (itol = 0) are the handle API's set_tolerances(rtol, atol) for every
 * component; the statistics in iwork are the handle's counters. */
static void test_scalar_tolerances(void) {
  double t = 0.0, y[2] = {1.0, 0.3}, h = 0.0, rtol = 1e-8, atol = 1e-10;
  esdirk_int iwork[ESDIRK_CLASSIC_LIWORK] = {0};
  double rwork[ESDIRK_CLASSIC_LRWORK] = {0.0};
  int idid = 0;
  const int ret = esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t, y, &P, 2.0, &h, &rtol,
                                 &atol, 0, iwork, ESDIRK_CLASSIC_LIWORK, rwork,
                                 ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(ret == ESDIRK_CLASSIC_TEND_REACHED && idid == ESDIRK_CLASSIC_TEND_REACHED);
  CHECK(t == 2.0);
  CHECK(fabs(y[0] - exact_x(1.0, P, 2.0)) < 1e-7);
  CHECK(fabs(y[1] - y[0] * y[0]) < 1e-12); /* consistent z from the guess 0.3 */
  CHECK(h > 0.0 && rwork[ESDIRK_RWORK_HLAST] > 0.0);
  CHECK(iwork[ESDIRK_IWORK_NSTEP] >= iwork[ESDIRK_IWORK_NACCEPT] + iwork[ESDIRK_IWORK_NREJECT]);
  CHECK(iwork[ESDIRK_IWORK_NFDFUN] == 0); /* analytic Jacobian */
  CHECK(iwork[ESDIRK_IWORK_NSENS] == 0);
  CHECK(strcmp(esdirk_classic_last_error(), "") == 0);
  const double y0[2] = {1.0, 0.3};
  const HandleRun r = handle_run(0.0, y0, 2.0, 0.0, rtol, atol, rtol, atol, 0, 0.0, NULL, 0);
  CHECK(r.status == ESDIRK_SUCCESS);
  CHECK(memcmp(y, r.y, sizeof y) == 0);
  CHECK(r.t == t);
  CHECK(same_statistics(iwork, &r.stats));
  /* A looser tolerance: a larger error and fewer steps. */
  double t2 = 0.0, y2[2] = {1.0, 0.3}, h2 = 0.0, rtol2 = 1e-4, atol2 = 1e-6;
  esdirk_int iwork2[ESDIRK_CLASSIC_LIWORK] = {0};
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t2, y2, &P, 2.0, &h2, &rtol2, &atol2, 0,
                 iwork2, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED);
  CHECK(iwork2[ESDIRK_IWORK_NACCEPT] < iwork[ESDIRK_IWORK_NACCEPT]);
  CHECK(fabs(y2[0] - exact_x(1.0, P, 2.0)) > fabs(y[0] - exact_x(1.0, P, 2.0)));
}

/* Vector tolerances (itol = 1): rtol, atol of length nx + nz, the handle API's tolerance
 * vectors for x, algebraic_atol for z and the z entry of rtol as the scalar rtol; vectors with
 * the scalar values give the scalar run bit for bit; the algebraic rtol entries must agree. */
static void test_vector_tolerances(void) {
  esdirk_int iwork[ESDIRK_CLASSIC_LIWORK] = {0};
  double rwork[ESDIRK_CLASSIC_LRWORK] = {0.0};
  int idid = 0;
  double t = 0.0, y[2] = {1.0, 1.0}, h = 0.0;
  const double rtol[2] = {1e-7, 1e-5}, atol[2] = {1e-9, 1e-11};
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t, y, &P, 1.5, &h, rtol, atol, 1, iwork,
                 ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED && t == 1.5);
  const double y0[2] = {1.0, 1.0};
  const HandleRun r =
      handle_run(0.0, y0, 1.5, 0.0, rtol[0], atol[0], rtol[1], atol[1], 1, 0.0, NULL, 0);
  CHECK(r.status == ESDIRK_SUCCESS && memcmp(y, r.y, sizeof y) == 0);
  CHECK(same_statistics(iwork, &r.stats));
  /* A different rtol of x changes the run (the vector is used). */
  double t3 = 0.0, y3[2] = {1.0, 1.0}, h3 = 0.0;
  const double rtol3[2] = {1e-9, 1e-5};
  esdirk_int iwork3[ESDIRK_CLASSIC_LIWORK] = {0};
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t3, y3, &P, 1.5, &h3, rtol3, atol, 1,
                 iwork3, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED);
  CHECK(iwork3[ESDIRK_IWORK_NACCEPT] > iwork[ESDIRK_IWORK_NACCEPT]);
  /* Vectors holding the scalar values equal the scalar run bit for bit. */
  double ts = 0.0, ys[2] = {1.0, 1.0}, hs = 0.0, tv = 0.0, yv[2] = {1.0, 1.0}, hv = 0.0;
  const double rs = 1e-6, as = 1e-8, rv[2] = {1e-6, 1e-6}, av[2] = {1e-8, 1e-8};
  esdirk_int iws[ESDIRK_CLASSIC_LIWORK] = {0}, iwv[ESDIRK_CLASSIC_LIWORK] = {0};
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &ts, ys, &P, 1.5, &hs, &rs, &as, 0, iws,
                 ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED);
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &tv, yv, &P, 1.5, &hv, rv, av, 1, iwv,
                 ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED);
  CHECK(memcmp(ys, yv, sizeof ys) == 0 && hs == hv);
  CHECK(memcmp(iws, iwv, sizeof iws) == 0);
}

/* Two algebraic states with different relative tolerances are refused (one shared rtol). */
static int two_algebraic(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                         const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)p;
  (void)user_data;
  f[0] = -z[0];
  g[0] = z[0] - x[0];
  g[1] = z[1] - 2.0 * x[0];
  return 0;
}
static void test_algebraic_rtol_must_agree(void) {
  esdirk_int iwork[ESDIRK_CLASSIC_LIWORK] = {0};
  double rwork[ESDIRK_CLASSIC_LRWORK] = {0.0};
  int idid = 0;
  double t = 0.0, y[3] = {1.0, 0.0, 0.0}, h = 0.0;
  const double rtol[3] = {1e-6, 1e-6, 1e-5}, atol[3] = {1e-8, 1e-8, 1e-8};
  CHECK_STATUS(esdirk_classic_integrate(1, 2, 0, two_algebraic, NULL, NULL, &t, y, NULL, 1.0, &h, rtol,
                              atol, 1, iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK,
                              &idid),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(idid == ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_classic_last_error(), "rtol[nx..nx+nz-1] must be equal") != NULL);
  CHECK(t == 0.0 && y[0] == 1.0); /* untouched */
  const double rtol_ok[3] = {1e-6, 1e-5, 1e-5};
  CHECK_STATUS(esdirk_classic_integrate(1, 2, 0, two_algebraic, NULL, NULL, &t, y, NULL, 1.0, &h, rtol_ok,
                              atol, 1, iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK,
                              &idid),
               ESDIRK_CLASSIC_TEND_REACHED);
  CHECK(fabs(y[0] - exp(-1.0)) < 1e-4 && fabs(y[2] - 2.0 * y[0]) < 1e-10);
  CHECK(iwork[ESDIRK_IWORK_NFDFUN] > 0); /* no Jacobian: finite differences */
}

/* Work arrays too short: ESDIRK_BUFFER_TOO_SMALL and a message with the length needed. */
static void test_short_work_arrays(void) {
  esdirk_int iwork[ESDIRK_CLASSIC_LIWORK] = {0};
  double rwork[ESDIRK_CLASSIC_LRWORK] = {0.0};
  int idid = 0;
  double t = 0.0, y[2] = {1.0, 1.0}, h = 0.0, rtol = 1e-6, atol = 1e-6;
  CHECK_STATUS(esdirk_classic_integrate(1, 1, 1, model, NULL, NULL, &t, y, &P, 1.0, &h, &rtol, &atol, 0,
                              iwork, ESDIRK_CLASSIC_LIWORK - 1, rwork, ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_BUFFER_TOO_SMALL);
  CHECK(idid == ESDIRK_BUFFER_TOO_SMALL);
  CHECK(strstr(esdirk_classic_last_error(), "liwork = 19") != NULL);
  CHECK(strstr(esdirk_classic_last_error(), "needs 20") != NULL);
  CHECK_STATUS(esdirk_classic_integrate(1, 1, 1, model, NULL, NULL, &t, y, &P, 1.0, &h, &rtol, &atol, 0,
                              iwork, ESDIRK_CLASSIC_LIWORK, rwork, 3, &idid),
               ESDIRK_BUFFER_TOO_SMALL);
  CHECK(strstr(esdirk_classic_last_error(), "lrwork = 3") != NULL);
  CHECK(strstr(esdirk_classic_last_error(), "needs 20") != NULL);
  CHECK(t == 0.0 && y[0] == 1.0 && y[1] == 1.0);
  /* Longer arrays are fine. */
  esdirk_int iwork_long[30] = {0};
  double rwork_long[25] = {0.0};
  CHECK_STATUS(esdirk_classic_integrate(1, 1, 1, model, NULL, NULL, &t, y, &P, 1.0, &h, &rtol, &atol, 0,
                              iwork_long, 30, rwork_long, 25, &idid),
               ESDIRK_CLASSIC_TEND_REACHED);
  CHECK(iwork_long[20] == 0 && rwork_long[20] == 0.0); /* nothing past the layout is written */
}

/* NULL callbacks and arrays, invalid switches and options. */
static void test_invalid_arguments(void) {
  esdirk_int iwork[ESDIRK_CLASSIC_LIWORK] = {0};
  double rwork[ESDIRK_CLASSIC_LRWORK] = {0.0};
  int idid = 0;
  double t = 0.0, y[2] = {1.0, 1.0}, h = 0.0, rtol = 1e-6, atol = 1e-6, S[2] = {0.0, 0.0};
  const double sp = 1.0;
#define CALL(res, tt, yy, pp, hh, rt, at, itol, iw, rw, id)                                    \
  esdirk_classic_integrate(1, 1, 1, res, NULL, NULL, tt, yy, pp, 1.0, hh, rt, at, itol, iw,               \
                 ESDIRK_CLASSIC_LIWORK, rw, ESDIRK_CLASSIC_LRWORK, id)
  CHECK_STATUS(CALL(NULL, &t, y, &P, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK(idid == ESDIRK_NULL_ARGUMENT);
  CHECK(strstr(esdirk_classic_last_error(), "residual") != NULL);
  CHECK_STATUS(CALL(model, NULL, y, &P, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(CALL(model, &t, NULL, &P, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(CALL(model, &t, y, NULL, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(CALL(model, &t, y, &P, NULL, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(CALL(model, &t, y, &P, &h, NULL, &atol, 0, iwork, rwork, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, NULL, 0, iwork, rwork, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 0, NULL, rwork, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 0, iwork, NULL, &idid), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 0, iwork, rwork, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK(strstr(esdirk_classic_last_error(), "idid") != NULL);
  idid = 0;
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 2, iwork, rwork, &idid), ESDIRK_INVALID_ARGUMENT);
  CHECK(idid == ESDIRK_INVALID_ARGUMENT && strstr(esdirk_classic_last_error(), "itol") != NULL);
  CHECK_STATUS(esdirk_classic_integrate(0, 1, 1, model, NULL, NULL, &t, y, &P, 1.0, &h, &rtol, &atol, 0,
                              iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_INVALID_ARGUMENT);
  double bad_h = NAN;
  CHECK_STATUS(CALL(model, &t, y, &P, &bad_h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_INVALID_ARGUMENT);
  iwork[9] = 1; /* reserved */
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_INVALID_ARGUMENT);
  iwork[9] = 0;
  iwork[ESDIRK_IWORK_MAX_STEPS] = -1;
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_classic_last_error(), "iwork[0]") != NULL);
  iwork[ESDIRK_IWORK_MAX_STEPS] = 0;
  iwork[ESDIRK_IWORK_CONTROLLER] = 2;
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_INVALID_ARGUMENT);
  iwork[ESDIRK_IWORK_CONTROLLER] = 0;
  rwork[ESDIRK_RWORK_SAFETY] = -0.5;
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_INVALID_ARGUMENT);
  rwork[ESDIRK_RWORK_SAFETY] = 2.0; /* positive but invalid: the library's validation names it */
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &rtol, &atol, 0, iwork, rwork, &idid), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_classic_last_error(), "safety") != NULL);
  rwork[ESDIRK_RWORK_SAFETY] = 0.0;
  double negative_rtol = -1.0;
  CHECK_STATUS(CALL(model, &t, y, &P, &h, &negative_rtol, &atol, 0, iwork, rwork, &idid),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(t == 0.0 && y[0] == 1.0);
#undef CALL
  /* The sensitivity variant: S and sp are required (sp with np > 0), shapes checked. */
  CHECK_STATUS(esdirk_classic_sensitivities(1, 1, 1, model, NULL, NULL, NULL, &t, y, &P, 1.0, &h,
                                            &rtol, &atol, 0, 1, NULL, 2, &sp, 1, iwork,
                                            ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_classic_sensitivities(1, 1, 1, model, NULL, NULL, NULL, &t, y, &P, 1.0, &h,
                                            &rtol, &atol, 0, 1, S, 2, NULL, 1, iwork,
                                            ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_classic_sensitivities(1, 1, 1, model, NULL, NULL, NULL, &t, y, &P, 1.0, &h,
                                            &rtol, &atol, 0, 1, S, 1, &sp, 1, iwork,
                                            ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_classic_last_error(), "lds") != NULL);
  CHECK_STATUS(esdirk_classic_sensitivities(1, 1, 1, model, NULL, NULL, NULL, &t, y, &P, 1.0, &h,
                                            &rtol, &atol, 0, 0, S, 2, &sp, 1, iwork,
                                            ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_classic_sensitivities(1, 1, 1, NULL, NULL, NULL, NULL, &t, y, &P, 1.0, &h,
                                            &rtol, &atol, 0, 1, S, 2, &sp, 1, iwork,
                                            ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_NULL_ARGUMENT);
  /* After a success the message is empty again. */
  CHECK_STATUS(esdirk_classic_integrate(1, 1, 1, model, NULL, NULL, &t, y, &P, 1.0, &h, &rtol, &atol, 0,
                              iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_CLASSIC_TEND_REACHED);
  CHECK(strcmp(esdirk_classic_last_error(), "") == 0);
}

/* A continuation call from the previous tend with the returned h is the handle API's fresh
 * start at that point with initial_step = |h|; the pieces stay accurate. */
static void test_continuation(void) {
  esdirk_int iwork[ESDIRK_CLASSIC_LIWORK] = {0};
  double rwork[ESDIRK_CLASSIC_LRWORK] = {0.0};
  int idid = 0;
  double t = 0.0, y[2] = {1.0, 1.0}, h = 0.0, rtol = 1e-8, atol = 1e-10;
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t, y, &P, 1.0, &h, &rtol, &atol, 0, iwork,
                 ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED && t == 1.0 && h > 0.0);
  const double y1[2] = {y[0], y[1]}, h1 = h;
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t, y, &P, 3.0, &h, &rtol, &atol, 0, iwork,
                 ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED && t == 3.0);
  CHECK(fabs(y[0] - exact_x(1.0, P, 3.0)) < 1e-7);
  const HandleRun r = handle_run(1.0, y1, 3.0, h1, rtol, atol, rtol, atol, 0, 0.0, NULL, 0);
  CHECK(r.status == ESDIRK_SUCCESS && memcmp(y, r.y, sizeof y) == 0);
  CHECK(same_statistics(iwork, &r.stats)); /* the statistics are those of the second call */
  /* t = tend: IDID 2, only z made consistent, no step. */
  double y2[2] = {0.5, 0.0};
  double t2 = 3.0, h2 = 0.1;
  CHECK_STATUS(esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t2, y2, &P, 3.0, &h2, &rtol,
                              &atol, 0, iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK,
                              &idid),
               ESDIRK_CLASSIC_INITIALIZED);
  CHECK(idid == ESDIRK_CLASSIC_INITIALIZED && t2 == 3.0 && y2[0] == 0.5);
  CHECK(fabs(y2[1] - 0.25) < 1e-12);
  CHECK(iwork[ESDIRK_IWORK_NSTEP] == 0 && rwork[ESDIRK_RWORK_HLAST] == 0.0);
  /* Backwards: from 3 to 1 with the same call. */
  t = 3.0;
  h = 0.0;
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t, y, &P, 1.0, &h, &rtol, &atol, 0, iwork,
                 ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED && t == 1.0);
  CHECK(fabs(y[0] - exact_x(1.0, P, 1.0)) < 1e-5); /* backwards the solutions spread apart */
  CHECK(h < 0.0 && rwork[ESDIRK_RWORK_HLAST] < 0.0);
}

/* Options in the work arrays: max steps and the bound on h, against the handle API. */
static void test_options_and_failures(void) {
  esdirk_int iwork[ESDIRK_CLASSIC_LIWORK] = {0};
  double rwork[ESDIRK_CLASSIC_LRWORK] = {0.0};
  int idid = 0;
  double t = 0.0, y[2] = {1.0, 1.0}, h = 0.0, rtol = 1e-6, atol = 1e-8;
  rwork[ESDIRK_RWORK_MAX_STEP] = 0.05;
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t, y, &P, 1.0, &h, &rtol, &atol, 0, iwork,
                 ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED && h <= 0.05 && rwork[ESDIRK_RWORK_HLAST] <= 0.05);
  CHECK(iwork[ESDIRK_IWORK_NACCEPT] >= 20);
  const double y0[2] = {1.0, 1.0};
  HandleRun r = handle_run(0.0, y0, 1.0, 0.0, rtol, atol, rtol, atol, 0, 0.05, NULL, 0);
  CHECK(memcmp(y, r.y, sizeof y) == 0 && same_statistics(iwork, &r.stats));
  /* Too many steps: the last accepted point, its statistics, and a continuation finishes. */
  rwork[ESDIRK_RWORK_MAX_STEP] = 0.0;
  iwork[ESDIRK_IWORK_MAX_STEPS] = 3;
  t = 0.0;
  y[0] = y[1] = 1.0;
  h = 0.0;
  CHECK_STATUS(esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t, y, &P, 10.0, &h, &rtol,
                              &atol, 0, iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK,
                              &idid),
               ESDIRK_TOO_MANY_STEPS);
  CHECK(idid == ESDIRK_TOO_MANY_STEPS && t > 0.0 && t < 10.0);
  CHECK(iwork[ESDIRK_IWORK_NSTEP] == 3);
  CHECK(fabs(y[0] - exact_x(1.0, P, t)) < 1e-5);
  CHECK(strlen(esdirk_classic_last_error()) > 0);
  iwork[ESDIRK_IWORK_MAX_STEPS] = 0;
  CHECK_STATUS(esdirk_classic_integrate(1, 1, 1, model, model_jacobian, NULL, &t, y, &P, 10.0, &h, &rtol,
                              &atol, 0, iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK,
                              &idid),
               ESDIRK_CLASSIC_TEND_REACHED);
  CHECK(t == 10.0 && fabs(y[0] - exact_x(1.0, P, 10.0)) < 1e-5);
  /* A fatal callback: ESDIRK_CALLBACK_FATAL with the last good point. */
  t = 0.0;
  y[0] = y[1] = 1.0;
  h = 0.0;
  CHECK_STATUS(esdirk_classic_integrate(1, 1, 1, fatal_model, model_jacobian, NULL, &t, y, &P, 1.0, &h,
                              &rtol, &atol, 0, iwork, ESDIRK_CLASSIC_LIWORK, rwork,
                              ESDIRK_CLASSIC_LRWORK, &idid),
               ESDIRK_CALLBACK_FATAL);
  CHECK(t <= 0.5 && iwork[ESDIRK_IWORK_NFUN] > 0);
  /* user_data reaches the callbacks. */
  int calls = 0;
  t = 0.0;
  y[0] = y[1] = 1.0;
  h = 0.0;
  esdirk_classic_integrate(1, 1, 1, model, model_jacobian, &calls, &t, y, &P, 1.0, &h, &rtol, &atol, 0,
                 iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED && calls >= iwork[ESDIRK_IWORK_NFUN] && calls > 0);
}

/* The sensitivity variant against the handle API bit for bit, and its continuation. */
static void test_sensitivities(int mode) {
  esdirk_int iwork[ESDIRK_CLASSIC_LIWORK] = {0};
  double rwork[ESDIRK_CLASSIC_LRWORK] = {0.0};
  int idid = 0;
  iwork[ESDIRK_IWORK_SENSITIVITY_MODE] = mode;
  double t = 0.0, y[2] = {1.0, 1.0}, h = 0.0, rtol = 1e-8, atol = 1e-10;
  /* Two directions: d/dx0 (S x row 1, sp 0) and d/dp (S x row 0, sp 1). */
  double S[4] = {1.0, 123.0, 0.0, -7.0}; /* the algebraic rows are ignored on entry */
  const double sp[2] = {0.0, 1.0};
  esdirk_classic_sensitivities(1, 1, 1, model, model_jacobian, model_parameter_jacobian, NULL, &t,
                               y, &P, 1.0, &h, &rtol, &atol, 0, 2, S, 2, sp, 1, iwork,
                               ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED && t == 1.0);
  CHECK(iwork[ESDIRK_IWORK_NSENS] == iwork[ESDIRK_IWORK_NACCEPT]);
  const double seed[4] = {1.0, 0.0, 0.0, 1.0};
  const double y0[2] = {1.0, 1.0};
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  esdirk_problem_create(1, 1, 1, model, NULL, &problem);
  esdirk_problem_set_jacobian(problem, model_jacobian);
  esdirk_problem_set_parameter_jacobian(problem, model_parameter_jacobian);
  esdirk_solver_create(problem, &solver);
  esdirk_solver_set_tolerances(solver, rtol, atol);
  esdirk_solver_set_sensitivity_options(
      solver, mode ? ESDIRK_SENSITIVITY_PAPER : ESDIRK_SENSITIVITY_EXACT, ESDIRK_ERROR_CONTROL_DEFAULT);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, y0, 1, y0 + 1, 1, &P, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(solver, 1.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, seed, 2, 2, 2), ESDIRK_SUCCESS);
  double x, z, Sx[2], Sz[2];
  CHECK(esdirk_solver_integrate_sensitivities_to(solver, 1.0, &x, 1, &z, 1, Sx, 1, Sz, 1, 2) >= 0);
  CHECK(x == y[0] && z == y[1]);
  CHECK(Sx[0] == S[0] && Sz[0] == S[1] && Sx[1] == S[2] && Sz[1] == S[3]);
  esdirk_statistics stats = ESDIRK_STATISTICS_INIT;
  esdirk_solver_get_statistics(solver, &stats);
  CHECK(same_statistics(iwork, &stats));
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  const double tol = mode == 0 ? 1e-6 : 2e-2;
  CHECK(fabs(S[2] - exact_dx_dp(1.0, P, 1.0)) < tol);
  CHECK(fabs(S[3] - 2.0 * y[0] * S[2]) < tol);
  /* Continuation: the returned S (and the same sp) carry the sensitivities on to t = 2. */
  const double S1[4] = {S[0], S[1], S[2], S[3]}, y1[2] = {y[0], y[1]}, h1 = h;
  esdirk_classic_sensitivities(1, 1, 1, model, model_jacobian, model_parameter_jacobian, NULL, &t,
                               y, &P, 2.0, &h, &rtol, &atol, 0, 2, S, 2, sp, 1, iwork,
                               ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, &idid);
  CHECK(idid == ESDIRK_CLASSIC_TEND_REACHED && t == 2.0);
  CHECK(fabs(S[2] - exact_dx_dp(1.0, P, 2.0)) < tol);
  CHECK(fabs(S[0] - 1.0 / ((1.0 + 2.0 * P) * (1.0 + 2.0 * P))) < tol);
  /* ... equal to the handle API started at t = 1 with the seed (S1 x rows; sp). */
  const double seed1[4] = {S1[0], 0.0, S1[2], 1.0};
  esdirk_problem_create(1, 1, 1, model, NULL, &problem);
  esdirk_problem_set_jacobian(problem, model_jacobian);
  esdirk_problem_set_parameter_jacobian(problem, model_parameter_jacobian);
  esdirk_solver_create(problem, &solver);
  esdirk_solver_set_tolerances(solver, rtol, atol);
  esdirk_solver_set_step_limits(solver, fabs(h1), 0.0, INFINITY, 500000);
  esdirk_solver_set_sensitivity_options(
      solver, mode ? ESDIRK_SENSITIVITY_PAPER : ESDIRK_SENSITIVITY_EXACT, ESDIRK_ERROR_CONTROL_DEFAULT);
  esdirk_solver_initialize(solver, 1.0, y1, 1, y1 + 1, 1, &P, 1);
  esdirk_solver_set_stop_time(solver, 2.0);
  esdirk_solver_start_sensitivities(solver, seed1, 2, 2, 2);
  CHECK(esdirk_solver_integrate_sensitivities_to(solver, 2.0, &x, 1, &z, 1, Sx, 1, Sz, 1, 2) >= 0);
  CHECK(x == y[0] && z == y[1]);
  CHECK(Sx[0] == S[0] && Sz[0] == S[1] && Sx[1] == S[2] && Sz[1] == S[3]);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  /* t = tend: the algebraic rows of S are made consistent (Sz = 2 x Sx). */
  double S0[2] = {0.0, 99.0}, t0 = 0.0, yy[2] = {1.0, 0.0}, h0 = 0.0;
  CHECK_STATUS(esdirk_classic_sensitivities(1, 1, 1, model, model_jacobian,
                                            model_parameter_jacobian, NULL, &t0, yy, &P, 0.0, &h0,
                                            &rtol, &atol, 0, 1, S0, 2, sp + 1, 1, iwork,
                                            ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK,
                                            &idid),
               ESDIRK_CLASSIC_INITIALIZED);
  CHECK(S0[0] == 0.0 && fabs(S0[1]) < 1e-12 && fabs(yy[1] - 1.0) < 1e-12);
}

int main(void) {
  test_scalar_tolerances();
  test_vector_tolerances();
  test_algebraic_rtol_must_agree();
  test_short_work_arrays();
  test_invalid_arguments();
  test_continuation();
  test_options_and_failures();
  test_sensitivities(0);
  test_sensitivities(1);
  return report();
}
