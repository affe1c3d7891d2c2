/* The geometric C API (esdirk_geometric.h): tableaus and partners, the adjoint of an ODE and of
 * an index-1 DAE against closed forms and the tangent sweep, the one-step defect of PGHVI-1
 * against BE-1, and every misuse. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk_geometric.h"

/* q' = -u q, 0 = u - q^2 (reduced: q' = -q^3); nz = 0 gives q' = -q^3 directly. */
static int cubic(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                 const double* z, const double* p, double* f, double* g, void* data) {
  (void)nx, (void)np, (void)t, (void)p, (void)data;
  if (nz == 0) {
    f[0] = -x[0] * x[0] * x[0];
    return 0;
  }
  f[0] = -z[0] * x[0];
  g[0] = z[0] - x[0] * x[0];
  return 0;
}
static int cubic_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                          const double* z, const double* p, double* J, esdirk_int ld, void* data) {
  (void)nx, (void)np, (void)t, (void)p, (void)data;
  if (nz == 0) {
    J[0] = -3.0 * x[0] * x[0];
    return 0;
  }
  J[0] = -z[0], J[ld] = -x[0];
  J[1] = -2.0 * x[0], J[1 + ld] = 1.0;
  return 0;
}
/* A constraint without u: not of index 1. */
static int no_u(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                const double* z, const double* p, double* f, double* g, void* data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)z, (void)p, (void)data;
  f[0] = -x[0];
  g[0] = x[0] - 1.0;
  return 0;
}
static int running(esdirk_int nx, esdirk_int nz, double t, const double* q, const double* u,
                   double* dq, double* du, void* data) {
  (void)nx, (void)nz, (void)t, (void)q, (void)u, (void)du, (void)data;
  dq[0] = 1.0; /* L = q */
  return 0;
}

int main(void) {
  /* Tableaus. */
  esdirk_int count = esdirk_geometric_tableau_count(), stages = 0, order = 0;
  CHECK(count >= 20);
  CHECK(esdirk_geometric_tableau_name(-1) == NULL);
  CHECK(esdirk_geometric_tableau_name(count) == NULL);
  /* The names end with NULL: the loop that replaces the deprecated count finds the same number. */
  esdirk_int named = 0;
  while (esdirk_geometric_tableau_name(named) != NULL) ++named;
  CHECK(named == count);
  CHECK_STATUS(esdirk_geometric_tableau_stages("radau3", &stages), ESDIRK_SUCCESS);
  CHECK(stages == 3);
  double a[9], b[3], c[3], partner[9], defect = 1.0;
  CHECK_STATUS(esdirk_geometric_tableau("radau3", 3, a, b, c, &order), ESDIRK_SUCCESS);
  CHECK(order == 5 && fabs(b[2] - 1.0 / 9.0) < 1e-16 && c[2] == 1.0);
  CHECK_STATUS(esdirk_geometric_tableau("radau3", 2, a, b, c, &order), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_tableau("gauss9", 3, a, b, c, &order), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_tableau_stages(NULL, &stages), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_partner(3, a, b, partner, &defect), ESDIRK_SUCCESS);
  CHECK(defect <= 4e-16);
  /* Lobatto IIIA(3) -> IIIB(3). */
  CHECK_STATUS(esdirk_geometric_tableau("lobatto_iiia3", 3, a, b, c, &order), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_partner(3, a, b, partner, NULL), ESDIRK_SUCCESS);
  CHECK(fabs(partner[1] + 1.0 / 6.0) < 1e-15 && fabs(partner[7] - 5.0 / 6.0) < 1e-15 &&
        fabs(partner[8]) < 1e-15);
  /* Zero weight, non-finite entry, bad size. */
  const double mid_a[4] = {0, 0, 0.5, 0}, mid_b[2] = {0, 1}, mid_c[2] = {0, 0.5};
  CHECK_STATUS(esdirk_geometric_partner(2, mid_a, mid_b, partner, NULL), ESDIRK_INVALID_ARGUMENT);
  const double nan_b[2] = {NAN, 1};
  CHECK_STATUS(esdirk_geometric_partner(2, mid_a, nan_b, partner, NULL), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_partner(0, mid_a, mid_b, partner, NULL), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_partner(2, NULL, mid_b, partner, NULL), ESDIRK_NULL_ARGUMENT);

  /* The ODE q' = -q^3 with Radau IIA(3): p0 -> 3^(-3/2), running cost L = q -> 1 - 1/sqrt(3). */
  esdirk_problem* ode = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 0, 0, cubic, NULL, &ode), ESDIRK_SUCCESS);
  esdirk_problem_set_jacobian(ode, cubic_jacobian);
  esdirk_geometric* g = NULL;
  CHECK_STATUS(esdirk_geometric_create(ode, "radau3", &g), ESDIRK_SUCCESS);
  double times[33];
  for (int n = 0; n <= 32; ++n) times[n] = n / 32.0;
  const double q0 = 1.0, one = 1.0, zero = 0.0;
  double p0 = 0.0, t0 = -1.0, dqN = 0.0, drift = 1.0, fdef = 1.0, adef = 1.0;
  esdirk_int steps = 0;
  CHECK_STATUS(esdirk_geometric_backward(g, &one, 1, NULL, NULL), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_geometric_steps(g, &steps), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_geometric_forward(g, times, 33, &q0, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_steps(g, &steps), ESDIRK_SUCCESS);
  CHECK(steps == 32);
  CHECK_STATUS(esdirk_geometric_backward(g, &one, 1, NULL, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_get(g, 0, &t0, NULL, 1, NULL, 0, &p0, NULL), ESDIRK_SUCCESS);
  CHECK(t0 == 0.0 && fabs(p0 - pow(3.0, -1.5)) < 1e-8);
  CHECK_STATUS(esdirk_geometric_tangent(g, &one, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_get(g, 32, NULL, NULL, 1, NULL, 0, NULL, &dqN), ESDIRK_SUCCESS);
  CHECK(fabs(dqN - p0) < 1e-15); /* <p_N, dq_N> = <p_0, dq_0> with p_N = dq_0 = 1 */
  CHECK_STATUS(esdirk_geometric_diagnostics(g, &fdef, &adef, &drift), ESDIRK_SUCCESS);
  CHECK(drift <= 1e-13 && fdef <= 1e-13);
  CHECK_STATUS(esdirk_geometric_backward(g, &zero, 1, running, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_get(g, 0, NULL, NULL, 1, NULL, 0, &p0, NULL), ESDIRK_SUCCESS);
  CHECK(fabs(p0 - (1.0 - 1.0 / sqrt(3.0))) < 1e-8);
  CHECK_STATUS(esdirk_geometric_get(g, 33, NULL, NULL, 1, NULL, 0, &p0, NULL),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_forward(g, times, 1, &q0, 1, NULL, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_forward(g, times, 33, &q0, 2, NULL, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_forward(g, NULL, 33, &q0, 1, NULL, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_set_options(g, -1.0, 25, ESDIRK_GEOMETRIC_UNNORMALIZED),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_set_options(g, 1e-13, 25, 7), ESDIRK_INVALID_ARGUMENT);
  CHECK(strlen(esdirk_geometric_last_error(g)) > 0);
  /* The partner form gives the same gradient. */
  CHECK_STATUS(esdirk_geometric_set_options(g, 1e-13, 25, ESDIRK_GEOMETRIC_PARTNER),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_forward(g, times, 33, &q0, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_backward(g, &one, 1, NULL, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_get(g, 0, NULL, NULL, 1, NULL, 0, &p0, NULL), ESDIRK_SUCCESS);
  CHECK(fabs(p0 - pow(3.0, -1.5)) < 1e-8);
  esdirk_geometric_free(&g);
  CHECK(g == NULL);
  /* Explicit midpoint: zero weight, unnormalized only. */
  CHECK_STATUS(esdirk_geometric_create_pair(ode, 2, mid_a, mid_b, mid_c, NULL, &g),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(g == NULL);
  CHECK_STATUS(esdirk_geometric_create(ode, "explicit_midpoint", &g), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_set_options(g, 1e-13, 25, ESDIRK_GEOMETRIC_PARTNER),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_forward(g, times, 33, &q0, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_backward(g, &one, 1, NULL, NULL), ESDIRK_SUCCESS);
  esdirk_geometric_free(&g);
  CHECK_STATUS(esdirk_geometric_create(ode, "nonsense", &g), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_create(NULL, "radau3", &g), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_geometric_create(ode, "radau3", NULL), ESDIRK_NULL_ARGUMENT);

  /* The index-1 DAE with PGHVI-1 and BE-1: gradients, one-step defects. */
  esdirk_problem* dae = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 0, cubic, NULL, &dae), ESDIRK_SUCCESS);
  esdirk_problem_set_jacobian(dae, cubic_jacobian);
  CHECK_STATUS(esdirk_geometric_create(dae, "pghvi1", &g), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_symplecticity_defect(g, &defect), ESDIRK_SUCCESS);
  CHECK(defect == 0.0);
  const double u0 = 0.5;
  CHECK_STATUS(esdirk_geometric_forward(g, times, 33, &q0, 1, &u0, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_backward(g, &one, 1, NULL, NULL), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_get(g, 0, NULL, NULL, 1, NULL, 0, &p0, NULL), ESDIRK_SUCCESS);
  CHECK(fabs(p0 - pow(3.0, -1.5)) < 2e-2); /* order 1 at h = 1/32 */
  double u = 0.0;
  CHECK_STATUS(esdirk_geometric_get(g, 0, NULL, NULL, 1, &u, 1, NULL, NULL), ESDIRK_SUCCESS);
  CHECK(fabs(u - 1.0) < 1e-13); /* made consistent: u0 = q0^2 */
  CHECK_STATUS(esdirk_geometric_one_step_defect(g, 0.0, 0.5, &q0, &u0, &one, &defect),
               ESDIRK_SUCCESS);
  CHECK(defect <= 1e-10);
  esdirk_geometric_free(&g);
  CHECK_STATUS(esdirk_geometric_create(dae, "be1", &g), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_symplecticity_defect(g, &defect), ESDIRK_SUCCESS);
  CHECK(defect == 1.0);
  CHECK_STATUS(esdirk_geometric_set_options(g, 1e-13, 25, ESDIRK_GEOMETRIC_PARTNER),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_one_step_defect(g, 0.0, 0.5, &q0, &u0, &one, &defect),
               ESDIRK_SUCCESS);
  CHECK(defect >= 1e-3);
  esdirk_geometric_free(&g);
  /* Not of index 1; non-convergence. */
  esdirk_problem* bad = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 0, no_u, NULL, &bad), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_create(bad, "radau2", &g), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_forward(g, times, 33, &q0, 1, &u0, 1),
               ESDIRK_SINGULAR_CONSTRAINT_JACOBIAN);
  CHECK(strstr(esdirk_geometric_last_error(g), "index 1") != NULL);
  esdirk_geometric_free(&g);
  CHECK_STATUS(esdirk_geometric_create(ode, "gauss2", &g), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_set_options(g, 1e-13, 1, ESDIRK_GEOMETRIC_UNNORMALIZED),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_geometric_forward(g, times, 33, &q0, 1, NULL, 0),
               ESDIRK_CONSTRAINT_SOLVE_FAILED);
  esdirk_geometric_free(&g);
  esdirk_geometric_free(NULL);
  CHECK(strcmp(esdirk_geometric_last_error(NULL), "NULL handle") == 0);
  esdirk_problem_free(&bad);
  esdirk_problem_free(&dae);
  esdirk_problem_free(&ode);
  return report();
}
