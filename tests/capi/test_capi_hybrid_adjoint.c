/* The hybrid adjoint through the C API (esdirk_hybrid_adjoint.h): Serban & Recuero 2019's Example 5.1 gives
 * dG/dp = -2.31195 (the closed form, by a complex step through the exact solution, and the
 * forward sensitivities of the same run); the bouncing ball's gradients of outputs at several
 * times equal the forward sensitivities of the same run to 1e-12; a terminal event's gradient is
 * its closed form (the moving t* included); the counters; bad input
 * (gradient before a run, after a failed one, wrong sizes, NaN and failing objective
 * callbacks, NULL handles) returns its status and loses nothing; with a memory budget the
 * gradient is bit-identical to keep-everything. */
#include <complex.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_hybrid_adjoint.h"

/* ---- Serban & Recuero 2019, Example 5.1: x' = 4 - x (mode 0) or 10 - 2x (mode 1), h = x^3 - 5x^2 + 7x - p,
 * rising enters 1, falling enters 0; q' = x carries G = int_0^5 x dt. x = (x, q), p = 2.9. ---- */
static double cubic(double x) { return ((x - 5.0) * x + 7.0) * x; }
static double cubic_slope(double x) { return (3.0 * x - 10.0) * x + 7.0; }

static int ode_f(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                 const double* x, const double* z, const double* p, const double* mem, double* f,
                 double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)p, (void)mem, (void)g,
      (void)user_data;
  f[0] = mode == 0 ? 4.0 - x[0] : 10.0 - 2.0 * x[0];
  f[1] = x[0];
  return 0;
}
static int ode_jacobian(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                        double t, const double* x, const double* z, const double* p,
                        const double* mem, double* J, esdirk_int ld, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)x, (void)z, (void)p, (void)mem,
      (void)user_data;
  J[0] = mode == 0 ? -1.0 : -2.0;
  J[1] = 1.0;
  J[ld] = 0.0;
  J[ld + 1] = 0.0;
  return 0;
}
static int ode_parameter_jacobian(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                  esdirk_int nm, double t, const double* x, const double* z,
                                  const double* p, const double* mem, double* J, esdirk_int ld,
                                  void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)x, (void)z, (void)p,
      (void)mem, (void)ld, (void)user_data;
  J[0] = 0.0; /* f does not depend on p: the whole gradient comes from the jumps */
  J[1] = 0.0;
  return 0;
}
static int ode_event(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                     esdirk_int ne, double t, const double* x, const double* z, const double* p,
                     const double* mem, double* h, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)ne, (void)t, (void)z, (void)mem,
      (void)user_data;
  h[0] = cubic(x[0]) - p[0];
  return 0;
}
static int ode_event_jacobian(int mode, esdirk_int k, esdirk_int nx, esdirk_int nz, esdirk_int np,
                              esdirk_int nm, double t, const double* x, const double* z,
                              const double* p, const double* mem, double* row, void* user_data) {
  (void)mode, (void)k, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)p,
      (void)mem, (void)user_data;
  row[0] = 0.0; /* [h_t, h_x, h_q, h_p] */
  row[1] = cubic_slope(x[0]);
  row[2] = 0.0;
  row[3] = -1.0;
  return 0;
}
static int ode_transition(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx,
                          esdirk_int nz, esdirk_int np, esdirk_int nm, double t, const double* x,
                          const double* z, const double* p, const double* mem, int* next_mode,
                          double* x_plus, void* user_data) {
  (void)mode, (void)ne, (void)time_event, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)x,
      (void)z, (void)p, (void)mem, (void)x_plus, (void)user_data;
  *next_mode = fired[0] > 0 ? 1 : 0;
  return 0;
}

/* The exact dG/dp of Example 5.1 by a complex step through its closed form: x crosses h = p at
 * the roots xa < xb < xc with dx_e/dp = 1/h'(x_e); in mode 0 x = 4 - (4 - x_s) e^{-(t - t_s)},
 * in mode 1 x = 5 - (5 - x_s) e^{-2(t - t_s)}; int x dt is 4 dt - dx in 0 and 5 dt - dx/2 in 1. */
static double crossing(double p, double lo, double hi) {
  double x;
  int i;
  for (i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double m = 0.5 * (lo + hi);
    if ((cubic(m) - p) * (cubic(lo) - p) > 0.0) lo = m;
    else hi = m;
  }
  x = 0.5 * (lo + hi);
  for (i = 0; i < 3; ++i) x -= (cubic(x) - p) / cubic_slope(x);
  return x;
}
static double exact_dG_dp(double p) {
  const double step = 1e-30;
  const double ra = crossing(p, 0.0, 1.0), rb = crossing(p, 1.0, 7.0 / 3.0),
               rc = crossing(p, 7.0 / 3.0, 4.0);
  const double complex xa = ra + I * step / cubic_slope(ra);
  const double complex xb = rb + I * step / cubic_slope(rb);
  const double complex xc = rc + I * step / cubic_slope(rc);
  const double complex t1 = clog(4.0 / (4.0 - xa));
  const double complex t2 = t1 + 0.5 * clog((5.0 - xa) / (5.0 - xb));
  const double complex t3 = t2 + clog((4.0 - xb) / (4.0 - xc));
  const double complex x_end = 5.0 - (5.0 - xc) * cexp(-2.0 * (5.0 - t3));
  const double complex G = (4.0 * t1 - xa) + (5.0 * (t2 - t1) - 0.5 * (xb - xa)) +
                           (4.0 * (t3 - t2) - (xc - xb)) + (5.0 * (5.0 - t3) - 0.5 * (x_end - xc));
  return cimag(G) / step;
}

static esdirk_hybrid_problem* ode_problem(void) {
  esdirk_hybrid_problem* problem = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(2, 0, 1, 1, 0, ode_f, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(problem, ode_event, ode_event_jacobian),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(problem, ode_transition, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_jacobians(problem, ode_jacobian, ode_parameter_jacobian),
               ESDIRK_SUCCESS);
  return problem;
}

static void test_hybrid_ode(void) {
  const double x0[2] = {0.0, 0.0}, p = 2.9;
  /* rows: G = q(5) and x(5) */
  const double W[4] = {0.0, 1.0, 1.0, 0.0};
  double x[2], S[6], t = 0.0, dx0[4] = {0}, dp[2] = {0}, exact, rounded;
  int64_t events = 0, counted = 0;
  esdirk_hybrid_adjoint_report report = ESDIRK_HYBRID_ADJOINT_REPORT_INIT;
  esdirk_hybrid_problem* problem = ode_problem();
  esdirk_hybrid_solver* solver = NULL;
  esdirk_hybrid_objective* objective = NULL;
  esdirk_int outputs = 0;
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerances(solver, 1e-10, 1e-12), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(solver, 1, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0.0, 0, x0, 2, NULL, 0, &p, 1, NULL, 0),
               ESDIRK_SUCCESS);
  /* Forward sensitivities along (x0, p) on the same run, for comparison. */
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, NULL, 3, 3, 3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, 5.0, x, 2, NULL, 0, S, 2,
                                                               NULL, 0, 3, &t),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_get_event_count(solver, &events, NULL), ESDIRK_SUCCESS);
  CHECK(events == 3);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_outputs(solver, &outputs), ESDIRK_SUCCESS);
  CHECK(outputs == 1);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_output_time(solver, 0, &t), ESDIRK_SUCCESS);
  CHECK(t == 5.0);

  CHECK_STATUS(esdirk_hybrid_objective_create(2, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 1, 1),
               ESDIRK_SUCCESS);
  exact = exact_dG_dp(p);
  printf("hybrid ODE: dG/dp adjoint %.12g, forward %.12g, closed form %.12g\n", dp[0], S[5], exact);
  /* The same run's forward sensitivities (column 2 = d/dp; S is 2 x 3): to rounding. */
  CHECK(fabs(dp[0] - S[5]) <= 1e-12 * fabs(S[5]));
  CHECK(fabs(dp[1] - S[4]) <= 1e-12 * fabs(S[4]));
  CHECK(fabs(dx0[0] - S[1]) <= 1e-12 * fabs(S[1]) && fabs(dx0[2] - S[0]) <= 1e-12 * fabs(S[0]));
  /* The exact gradient to the discretization error at rtol 1e-10 (about 1e-10 measured), and
   * the digits the paper prints. */
  CHECK(fabs(dp[0] - exact) <= 1e-8 * fabs(exact));
  rounded = floor(dp[0] * 1e5 + 0.5) / 1e5;
  CHECK(rounded == -2.31195);

  CHECK_STATUS(esdirk_hybrid_solver_get_adjoint_report(solver, &report), ESDIRK_SUCCESS);
  CHECK(report.segments == 4 && report.jumps == 3);
  CHECK(report.recorded_outputs == 1 && report.recorded_steps > 10);
  CHECK(report.adjoint_steps == report.recorded_steps);
  CHECK(report.transposed_solves > 0 && report.objective_evaluations > 0);
  CHECK(report.peak_stored_doubles > report.recorded_steps);
  /* The same counters by name in the solver's statistics. */
  CHECK_STATUS(esdirk_hybrid_solver_get_counter(solver, "adjoint_steps", &counted), ESDIRK_SUCCESS);
  CHECK(counted == report.adjoint_steps);

  /* A last output time that is not a stop time (4.3: the integrator may step past it and
   * interpolate; the C++ test checks that case on a step end it verifies): the gradient is taken
   * at 4.3, equal to the forward sensitivities of that output (issue 26 item 6; the smooth
   * adjoint refuses an output inside a step, the hybrid one records it as dense output). */
  CHECK_STATUS(esdirk_hybrid_solver_initialize(solver, 0.0, 0, x0, 2, NULL, 0, &p, 1, NULL, 0),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, NULL, 3, 3, 3), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, 4.3, x, 2, NULL, 0, S, 2,
                                                               NULL, 0, 3, &t),
               ESDIRK_SUCCESS);
  CHECK(t == 4.3);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 1, 1),
               ESDIRK_SUCCESS);
  CHECK(fabs(dp[0] - S[5]) <= 1e-12 * fabs(S[5]) && fabs(dp[1] - S[4]) <= 1e-12 * fabs(S[4]));
  CHECK(fabs(dx0[0] - S[1]) <= 1e-12 * fabs(S[1]) && fabs(dx0[2] - S[0]) <= 1e-12 * fabs(S[0]));
  CHECK(strlen(esdirk_hybrid_solver_last_error(solver)) == 0);

  esdirk_hybrid_objective_free(&objective);
  CHECK(objective == NULL);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

/* ---- The bouncing ball of Schaefer 2021: z' = v, v' = -g, impact at z = 0 (falling), v+ = -gamma v-;
 * x = (z, v), p = (g, gamma). The event and reset Jacobians by differences (the default). ---- */
static int ball_f(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t,
                  const double* x, const double* z, const double* p, const double* mem, double* f,
                  double* g, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)mem, (void)g,
      (void)user_data;
  f[0] = x[1];
  f[1] = -p[0];
  return 0;
}
static int ball_event(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                      esdirk_int ne, double t, const double* x, const double* z, const double* p,
                      const double* mem, double* h, void* user_data) {
  (void)mode, (void)nx, (void)nz, (void)np, (void)nm, (void)ne, (void)t, (void)z, (void)p,
      (void)mem, (void)user_data;
  h[0] = x[0];
  return 0;
}
static int ball_impact(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx,
                       esdirk_int nz, esdirk_int np, esdirk_int nm, double t, const double* x,
                       const double* z, const double* p, const double* mem, int* next_mode,
                       double* x_plus, void* user_data) {
  (void)mode, (void)ne, (void)fired, (void)time_event, (void)nx, (void)nz, (void)np, (void)nm,
      (void)t, (void)z, (void)mem, (void)next_mode, (void)user_data;
  x_plus[0] = x[0];
  x_plus[1] = -p[1] * x[1];
  return 0;
}

/* The objective of the ball: row 0 = sum_k z(t_k) over the outputs, row 1 = v at the last one
 * (as terminal weights). user_data: 0 normal; 1 returns NaN; 2 fails (> 0); 3 fatal (< 0). */
/* For the call from inside an objective callback (user_data how = 4). */
static esdirk_hybrid_solver* reentered_solver = NULL;
static esdirk_hybrid_objective* reentered_objective = NULL;
static int reentered_status = 0;

static int ball_outputs(esdirk_int k, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int rows,
                        double t, const double* x, const double* z, const double* p, double* dx,
                        esdirk_int lddx, double* dz, esdirk_int lddz, double* dp, esdirk_int lddp,
                        void* user_data) {
  const int how = user_data ? *(const int*)user_data : 0;
  (void)k, (void)nx, (void)nz, (void)np, (void)rows, (void)t, (void)x, (void)z, (void)p, (void)dz,
      (void)lddz, (void)dp, (void)lddp;
  if (how == 2) return 1;
  if (how == 3) return -1;
  if (how == 4) {
    double g[4];
    reentered_status = esdirk_hybrid_solver_adjoint_gradient(reentered_solver, reentered_objective, g, 2, 2,
                                                             g, 2, 2);
    return 1;
  }
  dx[0] = how == 1 ? NAN : 1.0; /* row 0: d z(t_k) / dx */
  (void)lddx;
  return 0;
}

static const double ball_x0[2] = {5.0, -0.1}, ball_p[2] = {10.0, 0.8};
static const double ball_times[3] = {0.5, 1.2, 2.9};

static esdirk_hybrid_problem* ball_problem(void) {
  esdirk_hybrid_problem* problem = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(2, 0, 2, 1, 0, ball_f, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(problem, ball_event, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(problem, ball_impact, NULL), ESDIRK_SUCCESS);
  return problem;
}

static esdirk_hybrid_solver* ball_solver(esdirk_hybrid_problem* problem) {
  const int falling = ESDIRK_EVENT_FALLING;
  esdirk_hybrid_solver* solver = NULL;
  CHECK_STATUS(esdirk_hybrid_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerances(solver, 1e-10, 1e-12), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_event_directions(solver, &falling, 1), ESDIRK_SUCCESS);
  return solver;
}

static void test_bouncing_ball(void) {
  /* terminal weights: row 0 none, row 1 = v */
  const double W[4] = {0.0, 0.0, 0.0, 1.0};
  double x[2], S[8], forward[8] = {0}, dx0[4], dp[4], worst = 0.0, scale[2] = {0.0, 0.0};
  int k, i, row;
  int64_t events = 0;
  esdirk_hybrid_problem* problem = ball_problem();
  esdirk_hybrid_solver* solver = ball_solver(problem);
  esdirk_hybrid_objective* objective = NULL;
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(solver, 1, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_hybrid_solver_initialize(solver, 0.0, 0, ball_x0, 2, NULL, 0, ball_p, 2, NULL, 0),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(solver, NULL, 4, 4, 4), ESDIRK_SUCCESS);
  for (k = 0; k < 3; ++k) {
    CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(solver, ball_times[k], x, 2, NULL,
                                                                 0, S, 2, NULL, 0, 4, NULL),
                 ESDIRK_SUCCESS);
    /* forward[d + 4 row]: the derivative of row `row` along direction d = (z0, v0, g, gamma) */
    for (i = 0; i < 4; ++i) forward[i] += S[2 * i];
  }
  for (i = 0; i < 4; ++i) forward[4 + i] = S[2 * i + 1];
  CHECK_STATUS(esdirk_hybrid_solver_get_event_count(solver, &events, NULL), ESDIRK_SUCCESS);
  CHECK(events == 2); /* impacts near t = 0.990 and 2.590 */

  CHECK_STATUS(esdirk_hybrid_objective_create(2, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_outputs(objective, ball_outputs, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_SUCCESS);
  for (row = 0; row < 2; ++row)
    for (i = 0; i < 4; ++i) scale[row] = fmax(scale[row], fabs(forward[4 * row + i]));
  for (row = 0; row < 2; ++row)
    for (i = 0; i < 4; ++i) {
      const double a = i < 2 ? dx0[2 * row + i] : dp[2 * row + i - 2];
      worst = fmax(worst, fabs(a - forward[4 * row + i]) / scale[row]);
    }
  printf("bouncing ball: adjoint vs forward sensitivities, worst relative difference %.1e\n", worst);
  CHECK(worst <= 1e-12);
  CHECK(scale[0] > 0.1 && scale[1] > 0.1);

  esdirk_hybrid_objective_free(&objective);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

/* ---- A terminal event: the run stops at the first impact t*, and the gradient of v(t*-) is the
 * total derivative with the moving t*: with S = -v(t*) = sqrt(v0^2 + 2 g z0),
 * d/d(z0, v0, g, gamma) = (-g/S, -v0/S, -z0/S, 0). ---------------------------------------------- */
static void test_terminal_event(void) {
  const double W[2] = {0.0, 1.0};
  const int terminal = 1;
  const double z0 = ball_x0[0], v0 = ball_x0[1], g = ball_p[0];
  const double S = sqrt(v0 * v0 + 2.0 * g * z0);
  const double exact[4] = {-g / S, -v0 / S, -z0 / S, 0.0};
  double x[2], t = 0.0, dx0[2], dp[2], worst = 0.0;
  int i;
  esdirk_hybrid_problem* problem = ball_problem();
  esdirk_hybrid_solver* solver = ball_solver(problem);
  esdirk_hybrid_objective* objective = NULL;
  CHECK_STATUS(esdirk_hybrid_solver_set_terminal(solver, &terminal, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(solver, 1, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_hybrid_solver_initialize(solver, 0.0, 0, ball_x0, 2, NULL, 0, ball_p, 2, NULL, 0),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, 1.9, x, 2, NULL, 0, &t),
               ESDIRK_LISTENER_STOP);
  CHECK(fabs(x[1] + S) <= 1e-10 * S);
  CHECK_STATUS(esdirk_hybrid_objective_create(1, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_SUCCESS);
  for (i = 0; i < 4; ++i) worst = fmax(worst, fabs((i < 2 ? dx0[i] : dp[i - 2]) - exact[i]));
  printf("terminal event at t* = %.12g: d v(t*-) / d(z0, v0, g, gamma) off the closed form by %.1e\n", t,
         worst);
  CHECK(worst <= 1e-10);
  esdirk_hybrid_objective_free(&objective);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

/* ---- Checkpointing: a budget of k step records (5 + 5 s doubles each for nx = 2, nz = 0) ----- */
static int ball_gradient(esdirk_hybrid_solver* solver, esdirk_hybrid_objective* objective, long budget,
                         double dx0[4], double dp[4], esdirk_hybrid_adjoint_report* report) {
  double x[2];
  int k, status;
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(solver, 1, budget), ESDIRK_SUCCESS);
  status = esdirk_hybrid_solver_initialize(solver, 0.0, 0, ball_x0, 2, NULL, 0, ball_p, 2, NULL, 0);
  if (status != ESDIRK_SUCCESS) return status;
  for (k = 0; k < 3; ++k)
    CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, ball_times[k], x, 2, NULL, 0, NULL),
                 ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_get_adjoint_report(solver, report), ESDIRK_SUCCESS);
  return ESDIRK_SUCCESS;
}

static void test_checkpointing(void) {
  const double W[4] = {0.0, 0.0, 0.0, 1.0};
  const long record = 5 + 5L * esdirk_method_stages("auto", 1e-10); /* ball_solver's rtol */
  double dx0[4], dp[4], cx0[4], cp[4];
  int i, same = 1;
  esdirk_hybrid_adjoint_report all = ESDIRK_HYBRID_ADJOINT_REPORT_INIT,
                               some = ESDIRK_HYBRID_ADJOINT_REPORT_INIT;
  esdirk_hybrid_problem* problem = ball_problem();
  esdirk_hybrid_solver* solver = ball_solver(problem);
  esdirk_hybrid_objective* objective = NULL;
  CHECK_STATUS(esdirk_hybrid_objective_create(2, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_outputs(objective, ball_outputs, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(ball_gradient(solver, objective, 0, dx0, dp, &all), ESDIRK_SUCCESS);
  CHECK(all.checkpoints == 0 && all.recomputed_steps == 0 && all.stored_records == all.recorded_steps);
  /* 4 records: the same gradient to the last bit, with blocks replayed from checkpoints. */
  CHECK_STATUS(ball_gradient(solver, objective, 4 * record, cx0, cp, &some), ESDIRK_SUCCESS);
  for (i = 0; i < 4; ++i) same = same && cx0[i] == dx0[i] && cp[i] == dp[i];
  CHECK(same);
  CHECK(some.recorded_steps == all.recorded_steps && some.stored_records == 4);
  CHECK(some.checkpoints >= some.recorded_steps / 4 && some.recomputed_steps > 0);
  CHECK(some.recomputed_steps < some.recorded_steps); /* each at most once */
  CHECK(some.peak_stored_doubles < all.peak_stored_doubles);
  printf("bouncing ball, budget of 4 records: bit-identical %d, %lld of %lld steps recomputed, "
         "peak stored doubles %lld (every step kept: %lld)\n",
         same, (long long)some.recomputed_steps, (long long)some.recorded_steps,
         (long long)some.peak_stored_doubles, (long long)all.peak_stored_doubles);
  /* A negative budget; a budget below one record: initialize refuses, the old run is kept. */
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(solver, 1, -1), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(ball_gradient(solver, objective, record - 1, cx0, cp, &some), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "budget") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, cx0, 2, 2, cp, 2, 2),
               ESDIRK_SUCCESS);
  for (i = 0; i < 4; ++i) same = same && cx0[i] == dx0[i] && cp[i] == dp[i];
  CHECK(same);
  esdirk_hybrid_objective_free(&objective);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

/* Issue 27: a budget of (2^32 + 2) records was cut to an int (2 records) and the ring was
 * written past its end (SIGSEGV). The ring now grows with the run: the gradient is the
 * keep-everything one bit for bit, and the stored records are the steps taken. */
static void a_record_budget_beyond_the_int_range_stays_inside_the_ring(void) {
  const double W[4] = {0.0, 0.0, 0.0, 1.0};
  const long record = 5 + 5L * esdirk_method_stages("auto", 1e-10);
  double dx0[4], dp[4], cx0[4], cp[4];
  int i, same = 1;
  esdirk_hybrid_adjoint_report all = ESDIRK_HYBRID_ADJOINT_REPORT_INIT,
                               huge = ESDIRK_HYBRID_ADJOINT_REPORT_INIT;
  esdirk_hybrid_problem* problem = ball_problem();
  esdirk_hybrid_solver* solver = ball_solver(problem);
  esdirk_hybrid_objective* objective = NULL;
  CHECK_STATUS(esdirk_hybrid_objective_create(2, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_outputs(objective, ball_outputs, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(ball_gradient(solver, objective, 0, dx0, dp, &all), ESDIRK_SUCCESS);
  CHECK_STATUS(ball_gradient(solver, objective, record * ((1L << 32) + 2), cx0, cp, &huge), ESDIRK_SUCCESS);
  for (i = 0; i < 4; ++i) same = same && cx0[i] == dx0[i] && cp[i] == dp[i];
  CHECK(same);
  CHECK(huge.stored_records == all.recorded_steps && huge.recomputed_steps == 0);
  CHECK(huge.checkpoints >= 1 && huge.checkpoints <= huge.segments); /* one per mode: its first block */
  esdirk_hybrid_objective_free(&objective);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

/* ---- Bad input ---------------------------------------------------------------------------- */
static void test_null_handles(void) {
  double d[4];
  esdirk_int n;
  esdirk_hybrid_adjoint_report report = ESDIRK_HYBRID_ADJOINT_REPORT_INIT;
  esdirk_hybrid_objective* objective = NULL;
  CHECK_STATUS(esdirk_hybrid_objective_create(1, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_objective_create(0, &objective), ESDIRK_INVALID_ARGUMENT);
  CHECK(objective == NULL);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal(NULL, NULL, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(NULL, d, 2, 2), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_objective_set_outputs(NULL, ball_outputs, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK(strlen(esdirk_hybrid_objective_last_error(NULL)) > 0);
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(NULL, 1, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_outputs(NULL, &n), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_output_time(NULL, 0, d), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(NULL, NULL, d, 2, 2, d, 2, 2),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_get_adjoint_report(NULL, &report), ESDIRK_NULL_ARGUMENT);
  esdirk_hybrid_objective_free(NULL);
  esdirk_hybrid_objective_free(&objective);
}

static int all_equal(const double* a, double v, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (a[i] != v) return 0;
  return 1;
}

static void test_bad_input(void) {
  const double W[4] = {0.0, 0.0, 0.0, 1.0}, W3[3] = {0.0, 0.0, 1.0};
  double x[2], dx0[4], dp[4], t;
  int k, how;
  esdirk_int n = -1;
  esdirk_hybrid_adjoint_report report = ESDIRK_HYBRID_ADJOINT_REPORT_INIT;
  esdirk_hybrid_problem* problem = ball_problem();
  esdirk_hybrid_solver* solver = ball_solver(problem);
  esdirk_hybrid_objective *objective = NULL, *empty = NULL, *wrong = NULL;
  CHECK_STATUS(esdirk_hybrid_objective_create(2, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_outputs(objective, ball_outputs, &how), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_create(1, &empty), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_create(1, &wrong), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(wrong, W3, 3, 3), ESDIRK_SUCCESS);
  /* Objective arguments: NULL or short weights, non-finite weights. */
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(empty, NULL, 2, 2), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(empty, W, 2, 1),
               ESDIRK_INVALID_ARGUMENT);
  dx0[0] = NAN;
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(empty, dx0, 1, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strlen(esdirk_hybrid_objective_last_error(empty)) > 0);
  how = 0;

  /* Before any run: no recording (set_adjoint not called), then set but not initialized. */
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "set_adjoint") != NULL);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_outputs(solver, &n), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(solver, 1, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_WRONG_CALL_ORDER);
  /* Initialized, nothing integrated yet. */
  CHECK_STATUS(
      esdirk_hybrid_solver_initialize(solver, 0.0, 0, ball_x0, 2, NULL, 0, ball_p, 2, NULL, 0),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_outputs(solver, &n), ESDIRK_SUCCESS);
  CHECK(n == 0);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_WRONG_CALL_ORDER);
  for (k = 0; k < 3; ++k)
    CHECK_STATUS(esdirk_hybrid_solver_integrate_to(solver, ball_times[k], x, 2, NULL, 0, NULL),
                 ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_output_time(solver, 3, &t), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_output_time(solver, 0, NULL), ESDIRK_NULL_ARGUMENT);

  /* Wrong sizes and NULL arguments: nothing written. */
  for (k = 0; k < 4; ++k) dx0[k] = dp[k] = 42.0;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, NULL, dx0, 2, 2, dp, 2, 2),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, NULL, 2, 2, dp, 2, 2),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 3, 3, dp, 2, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 1, dp, 2, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 1, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 1),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "lddp") != NULL);
  /* Terminal weights for 3 states; an objective without a term. */
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, wrong, dx0, 2, 2, dp, 2, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, empty, dx0, 2, 2, dp, 2, 2),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "no term") != NULL);
  /* The objective callback returns NaN, fails, is fatal. */
  how = 1;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_CALLBACK_FAILURES);
  CHECK(strlen(esdirk_hybrid_solver_last_error(solver)) > 0);
  how = 2;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_CALLBACK_FAILURES);
  how = 3;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_CALLBACK_FATAL);
  /* A call into the same solver from inside the objective callback is refused. */
  how = 4;
  reentered_solver = solver;
  reentered_objective = objective;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_CALLBACK_FAILURES);
  CHECK(reentered_status == ESDIRK_WRONG_CALL_ORDER);
  CHECK(all_equal(dx0, 42.0, 4) && all_equal(dp, 42.0, 4));
  /* Nothing lost: the recording still gives the gradient; dp may be NULL. */
  how = 0;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_SUCCESS);
  CHECK(!all_equal(dx0, 42.0, 4) && !all_equal(dp, 42.0, 4));
  CHECK(strlen(esdirk_hybrid_solver_last_error(solver)) == 0);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, NULL, 2, 0),
               ESDIRK_SUCCESS);
  /* The report: NULL, struct_size 0. */
  CHECK_STATUS(esdirk_hybrid_solver_get_adjoint_report(solver, NULL), ESDIRK_NULL_ARGUMENT);
  report.struct_size = 0;
  CHECK_STATUS(esdirk_hybrid_solver_get_adjoint_report(solver, &report), ESDIRK_INVALID_ARGUMENT);

  /* After a failed run (too few steps allowed): no gradient of it. */
  CHECK_STATUS(esdirk_hybrid_solver_set_step_limits(solver, 0.0, 0.0, INFINITY, 3), ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_hybrid_solver_initialize(solver, 0.0, 0, ball_x0, 2, NULL, 0, ball_p, 2, NULL, 0),
      ESDIRK_SUCCESS);
  CHECK(esdirk_hybrid_solver_integrate_to(solver, 2.9, x, 2, NULL, 0, NULL) == ESDIRK_TOO_MANY_STEPS);
  for (k = 0; k < 4; ++k) dx0[k] = 42.0;
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_WRONG_CALL_ORDER);
  printf("after a failed run: %s\n", esdirk_hybrid_solver_last_error(solver));
  CHECK(strstr(esdirk_hybrid_solver_last_error(solver), "failed") != NULL);
  CHECK(all_equal(dx0, 42.0, 4));
  /* Detached at the next initialize. */
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(solver, 0, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_hybrid_solver_initialize(solver, 0.0, 0, ball_x0, 2, NULL, 0, ball_p, 2, NULL, 0),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2),
               ESDIRK_WRONG_CALL_ORDER);

  esdirk_hybrid_objective_free(&objective);
  esdirk_hybrid_objective_free(&empty);
  esdirk_hybrid_objective_free(&wrong);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
}

int main(void) {
  test_hybrid_ode();
  test_bouncing_ball();
  test_terminal_event();
  test_checkpointing();
  a_record_budget_beyond_the_int_range_stays_inside_the_ring();
  test_null_handles();
  test_bad_input();
  return report();
}
