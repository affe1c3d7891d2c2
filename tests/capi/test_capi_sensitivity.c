/* The C API of the sensitivities, the shooting interval and the structural analysis,
 * compiled as C99, against exact solutions and the worked pendulum of doc/structural-theory.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"

/* x' = -p z, 0 = z - x^2: x = x0/(1 + p x0 t), z = x^2. */
static int model(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)user_data;
  f[0] = -p[0] * z[0];
  g[0] = z[0] - x[0] * x[0];
  return 0;
}

static double exact_x(double x0, double p, double t) { return x0 / (1.0 + p * x0 * t); }
static double exact_dx_dx0(double x0, double p, double t) {
  return 1.0 / ((1.0 + p * x0 * t) * (1.0 + p * x0 * t));
}
static double exact_dx_dp(double x0, double p, double t) {
  return -x0 * x0 * t / ((1.0 + p * x0 * t) * (1.0 + p * x0 * t));
}

/* The exact mode is the derivative of the discrete solution: at rtol 1e-9 it matches the exact
 * sensitivities to 1e-6. The paper mode (seed Algorithm 2, Jacobians frozen at t_n) is a
 * first-order approximation of it in h; on this problem at rtol 1e-9 it is within 2 %. */
static void test_sensitivities(int mode) {
  const double tol = mode == ESDIRK_SENSITIVITY_EXACT ? 1e-6 : 2e-2;
  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 1, model, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_tolerances(solver, 1e-9, 1e-9), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_sensitivity_options(solver, mode, 0), ESDIRK_SUCCESS);
  const double x0 = 1.0, z0 = 0.0, p = 2.0;
  double x, z, Sx[2], Sz[2];
  /* Before initialize: wrong order. */
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, NULL, 2, 2, 2), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x0, 1, &z0, 1, &p, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_sensitivities_to(solver, 1.0, &x, 1, &z, 1, Sx, 1, Sz, 1, 2),
               ESDIRK_WRONG_CALL_ORDER);
  /* Seeds of the wrong shape. */
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, NULL, 3, 3, 3), ESDIRK_INVALID_ARGUMENT);
  const double seed3[3] = {1.0, 0.0, 0.0};
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, seed3, 2, 1, 1), ESDIRK_INVALID_ARGUMENT);
  /* The identity seed: both directions. */
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, NULL, 2, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_sensitivities_to(solver, 1.0, &x, 1, &z, 1, Sx, 1, Sz, 1, 3),
               ESDIRK_INVALID_ARGUMENT);
  for (int k = 1; k <= 2; ++k) {
    const double t = 0.5 * k;
    CHECK_STATUS(esdirk_solver_integrate_sensitivities_to(solver, t, &x, 1, &z, 1, Sx, 1, Sz, 1, 2),
                 ESDIRK_SUCCESS);
    CHECK(fabs(x - exact_x(x0, p, t)) < 1e-7);
    CHECK(fabs(Sx[0] - exact_dx_dx0(x0, p, t)) < tol);
    CHECK(fabs(Sx[1] - exact_dx_dp(x0, p, t)) < tol);
    CHECK(fabs(Sz[0] - 2.0 * x * Sx[0]) < tol); /* z = x^2 */
    CHECK(fabs(Sz[1] - 2.0 * x * Sx[1]) < tol);
  }
  esdirk_statistics stats = ESDIRK_STATISTICS_INIT;
  CHECK_STATUS(esdirk_solver_get_statistics(solver, &stats), ESDIRK_SUCCESS);
  CHECK(stats.sensitivity_solves == stats.accepted_steps);
  /* A single direction: d/dp only, restarted from t = 1. */
  const double seed_p[2] = {0.0, 1.0};
  const double x1 = exact_x(x0, p, 1.0);
  CHECK_STATUS(esdirk_solver_restart(solver, 1.0, &x1, 1, &z0, 1, &p, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, seed_p, 2, 1, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(
      esdirk_solver_integrate_sensitivities_to(solver, 2.0, &x, 1, &z, 1, Sx, 1, NULL, 0, 1),
      ESDIRK_SUCCESS);
  CHECK(fabs(Sx[0] - exact_dx_dp(x1, p, 1.0)) < tol); /* from t = 1 with x(1) fixed */
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
}

/* Running cost h = x^2 (gradients 2x, 0, 0). */
static int cost(esdirk_int nx, esdirk_int nz, esdirk_int nu, double t, const double* x,
                const double* z, const double* u, double* value, double* dh_dx, double* dh_dz,
                double* dh_du, void* user_data) {
  (void)nx;
  (void)nz;
  (void)nu;
  (void)t;
  (void)z;
  (void)u;
  (void)user_data;
  *value = x[0] * x[0];
  dh_dx[0] = 2.0 * x[0];
  dh_dz[0] = 0.0;
  dh_du[0] = 0.0;
  return 0;
}

static void test_shooting(void) {
  esdirk_problem* problem = NULL;
  esdirk_shooting* shooting = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 1, model, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_tolerances(shooting, 1e-10, 1e-10), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_running_cost(shooting, cost, NULL), ESDIRK_SUCCESS);
  const double x0 = 1.0, u = 2.0;
  double x1, z1, A, B, H, q, r, Az, Bz;
  CHECK_STATUS(esdirk_shooting_get_algebraic_sensitivities(shooting, &Az, 1, &Bz, 1),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 0.0, &x0, 1, &u, 1, NULL, 1, &x1, NULL,
                                         NULL, 1, NULL, 1, NULL, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT); /* zero length */
  CHECK(strlen(esdirk_shooting_last_error(shooting)) > 0);
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &x0, 1, &u, 2, NULL, 1, &x1, NULL,
                                         NULL, 1, NULL, 1, NULL, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT); /* control size */
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &x0, 1, &u, 1, NULL, 1, &x1, &z1, &A,
                                         1, &B, 1, &H, &q, &r),
               ESDIRK_SUCCESS);
  CHECK(fabs(x1 - exact_x(x0, u, 1.0)) < 1e-8);
  CHECK(fabs(z1 - x1 * x1) < 1e-8);
  CHECK(fabs(A - exact_dx_dx0(x0, u, 1.0)) < 1e-7);
  CHECK(fabs(B - exact_dx_dp(x0, u, 1.0)) < 1e-7);
  /* H = int x^2 dt = x0^2 t / (1 + u x0 t) over [0, 1]; q = dH/dx0, r = dH/du. */
  CHECK(fabs(H - x0 * x0 / (1.0 + u * x0)) < 1e-7);
  CHECK(fabs(q - (2.0 * x0 / (1.0 + u * x0) - x0 * x0 * u / ((1.0 + u * x0) * (1.0 + u * x0)))) <
        1e-6);
  CHECK(fabs(r - (-x0 * x0 * x0 / ((1.0 + u * x0) * (1.0 + u * x0)))) < 1e-6);
  CHECK_STATUS(esdirk_shooting_get_algebraic_sensitivities(shooting, &Az, 1, &Bz, 1),
               ESDIRK_SUCCESS);
  CHECK(fabs(Az - 2.0 * x1 * A) < 1e-7);
  CHECK(fabs(Bz - 2.0 * x1 * B) < 1e-7);
  /* Two half intervals compose: A = A2 A1, B = A2 B1 + B2. */
  double xh, A1, B1, A2, B2, x2;
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 0.5, &x0, 1, &u, 1, NULL, 1, &xh, NULL, &A1,
                                         1, &B1, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.5, 1.0, &xh, 1, &u, 1, NULL, 1, &x2, NULL, &A2,
                                         1, &B2, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(fabs(x2 - x1) < 1e-8);
  CHECK(fabs(A2 * A1 - A) < 1e-7);
  CHECK(fabs(A2 * B1 + B2 - B) < 1e-7);
  esdirk_statistics last = ESDIRK_STATISTICS_INIT, total = ESDIRK_STATISTICS_INIT;
  CHECK_STATUS(esdirk_shooting_get_statistics(shooting, 0, &last), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_get_statistics(shooting, 1, &total), ESDIRK_SUCCESS);
  CHECK(total.accepted_steps > last.accepted_steps && last.accepted_steps > 0);
  esdirk_shooting_free(&shooting);
  CHECK(shooting == NULL);
  esdirk_problem_free(&problem);
  CHECK_STATUS(esdirk_shooting_integrate(NULL, 0.0, 1.0, &x0, 1, &u, 1, NULL, 1, &x1, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);
}

/* The model's analytic Jacobians: with them the sensitivities are the derivative of the
 * discrete map to rounding (difference Jacobians would leave ~sqrt(eps) in them). */
static int model_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                          const double* z, const double* p, double* J, esdirk_int ldj, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)user_data;
  J[0] = 0.0;            /* df/dx */
  J[1] = -2.0 * x[0];    /* dg/dx */
  J[ldj] = -p[0];        /* df/dz */
  J[ldj + 1] = 1.0;      /* dg/dz */
  (void)z;
  return 0;
}
static int model_parameter_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                                    const double* z, const double* p, double* Jp, esdirk_int ldjp,
                                    void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)x;
  (void)p;
  (void)ldjp;
  (void)user_data;
  Jp[0] = -z[0];
  Jp[1] = 0.0;
  return 0;
}

/* Fixed and frozen meshes: a fixed mesh's A and B are the derivative of that discrete map
 * (central differences of the same map); bad input returns ESDIRK_INVALID_ARGUMENT naming the
 * argument and keeps the mesh; a frozen mesh is reused without rejections. */
static void test_shooting_meshes(void) {
  esdirk_problem* problem = NULL;
  esdirk_shooting* shooting = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 1, model, NULL, &problem), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_jacobian(problem, model_jacobian), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_problem_set_parameter_jacobian(problem, model_parameter_jacobian), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_tolerances(shooting, 1e-12, 1e-12), ESDIRK_SUCCESS);
  const double mesh[] = {0.0, 0.2, 0.5, 1.0};
  CHECK_STATUS(esdirk_shooting_set_mesh(shooting, mesh, 4), ESDIRK_SUCCESS);
  const double x0 = 1.5, u = 0.8, dx = 1e-5 * x0, du = 1e-5 * u;
  double x1 = 0.0, A = 0.0, B = 0.0, xp = 0.0, xm = 0.0, estimate = 0.0;
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &x0, 1, &u, 1, NULL, 1, &x1, NULL, &A, 1,
                                         &B, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  esdirk_statistics stats;
  stats.struct_size = sizeof stats;
  CHECK_STATUS(esdirk_shooting_get_statistics(shooting, 0, &stats), ESDIRK_SUCCESS);
  CHECK(stats.accepted_steps == 3 && stats.rejected_steps == 0);
  CHECK_STATUS(esdirk_shooting_get_error_estimate(shooting, &estimate), ESDIRK_SUCCESS);
  CHECK(estimate > 1.0); /* three steps are far too few for rtol 1e-12 */
  const double xa = x0 + dx, xb = x0 - dx, ua = u + du, ub = u - du;
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &xa, 1, &u, 1, NULL, 1, &xp, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &xb, 1, &u, 1, NULL, 1, &xm, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(fabs((xp - xm) / (2.0 * dx) - A) < 1e-8 * fabs(A));
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &x0, 1, &ua, 1, NULL, 1, &xp, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &x0, 1, &ub, 1, NULL, 1, &xm, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(fabs((xp - xm) / (2.0 * du) - B) < 1e-8 * fabs(B));

  /* Bad input: named, and the mesh kept. */
  const double not_increasing[] = {0.0, 0.5, 0.5, 1.0};
  CHECK_STATUS(esdirk_shooting_set_fixed_steps(shooting, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(shooting), "steps = 0") != NULL);
  CHECK_STATUS(esdirk_shooting_set_mesh(shooting, not_increasing, 4), ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(shooting), "is zero") != NULL);
  CHECK_STATUS(esdirk_shooting_set_mesh(shooting, NULL, 4), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 2.0, &x0, 1, &u, 1, NULL, 1, &xp, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_shooting_last_error(shooting), "t_end") != NULL);
  double again = 0.0, points[8];
  esdirk_int n_points = 0;
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &x0, 1, &u, 1, NULL, 1, &again, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK(again == x1);
  CHECK_STATUS(esdirk_shooting_get_mesh(shooting, points, 2, &n_points), ESDIRK_BUFFER_TOO_SMALL);
  CHECK(n_points == 4);
  CHECK_STATUS(esdirk_shooting_get_mesh(shooting, points, 8, &n_points), ESDIRK_SUCCESS);
  CHECK(n_points == 4 && points[1] == 0.2 && points[3] == 1.0);

  /* Frozen: the first interval adapts, the next reuses its steps; option changes keep the setting. */
  CHECK_STATUS(esdirk_shooting_set_tolerances(shooting, 1e-8, 1e-8), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_freeze_mesh(shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &x0, 1, &u, 1, NULL, 1, &x1, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_get_mesh(shooting, points, 0, &n_points), ESDIRK_BUFFER_TOO_SMALL);
  const esdirk_int frozen_points = n_points;
  CHECK(frozen_points >= 2);
  const double moved = 1.45;
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 3.0, 4.0, &moved, 1, &u, 1, NULL, 1, &x1, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_get_statistics(shooting, 0, &stats), ESDIRK_SUCCESS);
  CHECK(stats.accepted_steps == frozen_points - 1 && stats.rejected_steps == 0);
  CHECK_STATUS(esdirk_shooting_refresh_mesh(shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_use_adaptive_steps(shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 1.0, &x0, 1, &u, 1, NULL, 1, &x1, NULL, NULL, 1,
                                         NULL, 1, NULL, NULL, NULL),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_get_mesh(shooting, NULL, 0, &n_points), ESDIRK_SUCCESS);
  CHECK(n_points == 0);
  CHECK_STATUS(esdirk_shooting_get_error_estimate(shooting, &estimate), ESDIRK_SUCCESS);
  CHECK(estimate <= 1.0);
  esdirk_shooting_free(&shooting);
  esdirk_problem_free(&problem);
  CHECK_STATUS(esdirk_shooting_freeze_mesh(NULL), ESDIRK_NULL_ARGUMENT);
}

/* The pendulum (Pryce 2001; doc/structural-theory.md section 8): offsets c = (0, 0, 2),
 * d = (2, 2, 0); Benveniste et al. 2021's index max c = 2; Pryce's structural index 3 (lambda
 * has d = 0); 2 degrees of freedom. */
static void test_structural(void) {
  const esdirk_int eq[] = {0, 0, 0, 1, 1, 1, 2, 2};
  const esdirk_int var[] = {0, 0, 2, 1, 1, 2, 0, 1};
  const esdirk_int order[] = {2, 0, 0, 2, 0, 0, 0, 0};
  esdirk_int c[3], d[3], index, pryce;
  int64_t dof;
  CHECK_STATUS(esdirk_structural_sigma(3, 3, 8, eq, var, order, c, d, &index, &pryce, &dof),
               ESDIRK_SUCCESS);
  CHECK(c[0] == 0 && c[1] == 0 && c[2] == 2);
  CHECK(d[0] == 2 && d[1] == 2 && d[2] == 0);
  CHECK(index == 2 && pryce == 3 && dof == 2);
  /* Structurally singular: two equations in the same single variable and one free variable. */
  const esdirk_int eq2[] = {0, 1}, var2[] = {0, 0}, ord2[] = {0, 0};
  CHECK_STATUS(esdirk_structural_sigma(2, 2, 2, eq2, var2, ord2, c, d, NULL, NULL, NULL),
               ESDIRK_STRUCTURALLY_SINGULAR);
  const esdirk_int bad[] = {0, 5};
  CHECK_STATUS(esdirk_structural_sigma(2, 2, 2, eq2, bad, ord2, c, d, NULL, NULL, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_structural_sigma(2, 2, 2, NULL, var2, ord2, c, d, NULL, NULL, NULL),
               ESDIRK_NULL_ARGUMENT);

  const char* pendulum =
      "model pendulum\n"
      "variables x y lambda\n"
      "equation f1: x'' x lambda\n"
      "equation f2: y'' y lambda\n"
      "equation f3: x y\n";
  char report[8192];
  size_t length = 0;
  int well_posed = 0;
  CHECK_STATUS(esdirk_structural_report(pendulum, 0, report, sizeof report, &length, &well_posed),
               ESDIRK_SUCCESS);
  CHECK(well_posed == 1);
  CHECK(length == strlen(report));
  CHECK(strstr(report, "lambda") != NULL);
  CHECK_STATUS(esdirk_structural_report(pendulum, 1, report, sizeof report, &length, NULL),
               ESDIRK_SUCCESS);
  CHECK(report[0] == '{');
  char tiny[4];
  CHECK_STATUS(esdirk_structural_report(pendulum, 0, tiny, sizeof tiny, &length, NULL),
               ESDIRK_BUFFER_TOO_SMALL);
  CHECK(length > sizeof tiny);
  CHECK_STATUS(esdirk_structural_report("model m\nvariables x\nequation e: q\n", 0, report,
                                        sizeof report, &length, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(report, "3:") != NULL); /* line 3 of the model text */
  CHECK_STATUS(esdirk_structural_report(NULL, 0, report, sizeof report, &length, NULL),
               ESDIRK_NULL_ARGUMENT);
}

int main(void) {
  test_sensitivities(ESDIRK_SENSITIVITY_EXACT);
  test_sensitivities(ESDIRK_SENSITIVITY_PAPER);
  test_shooting();
  test_shooting_meshes();
  test_structural();
  return report();
}
