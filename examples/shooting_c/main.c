/* A minimal multiple-shooting loop in C: the Dow reactor over N = 50 intervals of 0.2 h with
 * the nine parameters as (constant) controls u_k. Each interval returns x_{k+1}, A_k, B_k and
 * the running cost H_k = int u1(t)^2 dt with its gradients q_k, r_k, as an SQP code for NMPC
 * or parameter estimation needs them (Kristensen et al., IFAC 2005, section 2).
 *
 *     shooting_c [N]
 *
 * Two checks that the pieces fit: (1) chaining the intervals from the exact states reproduces
 * one long integration, so the continuity defects x_{k+1} - s_{k+1} vanish to tolerance; (2)
 * the chain rule (the paper's eq. 15): the product A_{N-1} ... A_0 equals the A of one interval
 * over the whole horizon. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dow_c/dow_model.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_options.h"
#include "common/example_help.h"

enum { NX = 6, NZ = 4, NU = 9 };

/* h = u1^2 (a tracking cost on [HA]): value and gradients. */
static int cost(esdirk_int nx, esdirk_int nz, esdirk_int nu, double t, const double* x,
                const double* z, const double* u, double* value, double* dh_dx, double* dh_dz,
                double* dh_du, void* user_data) {
  (void)nx;
  (void)t;
  (void)z;
  (void)u;
  (void)user_data;
  *value = x[0] * x[0];
  for (int i = 0; i < NX; ++i) dh_dx[i] = i == 0 ? 2.0 * x[0] : 0.0;
  for (int i = 0; i < nz; ++i) dh_dz[i] = 0.0;
  for (int i = 0; i < nu; ++i) dh_du[i] = 0.0;
  return 0;
}

/* Runs the chain from x0 over n intervals; returns the final state in x_end, the product of the
 * A_k in A_total (column-major NX x NX), the summed cost, and the largest continuity defect
 * against the states s_k of the chain itself started from x0 (0 by construction, checked with
 * the z of each interval). */
static int chain(esdirk_shooting* sh, int n, const double* x0, double* x_end, double* A_total,
                 double* cost_total) {
  double x[NX], z[NZ], x_next[NX], z_next[NZ], A[NX * NX], B[NX * NU], H, q[NX], r[NU],
      product[NX * NX], tmp[NX * NX];
  memcpy(x, x0, sizeof x);
  dow_algebraic_start(z);
  for (int i = 0; i < NX * NX; ++i) product[i] = (i % (NX + 1)) == 0 ? 1.0 : 0.0;
  *cost_total = 0.0;
  for (int k = 0; k < n; ++k) {
    const int status = esdirk_shooting_integrate(sh, 0.2 * k, 0.2 * (k + 1), x, NX, dow_parameters,
                                                 NU, z, NZ, x_next, z_next, A, NX, B, NX, &H, q, r);
    if (status != ESDIRK_SUCCESS) {
      fprintf(stderr, "interval %d: %s: %s\n", k, esdirk_status_name(status),
              esdirk_shooting_last_error(sh));
      return status;
    }
    /* product <- A_k * product */
    for (int j = 0; j < NX; ++j)
      for (int i = 0; i < NX; ++i) {
        double sum = 0.0;
        for (int l = 0; l < NX; ++l) sum += A[i + l * NX] * product[l + j * NX];
        tmp[i + j * NX] = sum;
      }
    memcpy(product, tmp, sizeof product);
    *cost_total += H;
    memcpy(x, x_next, sizeof x);
    memcpy(z, z_next, sizeof z);
  }
  memcpy(x_end, x, sizeof x);
  if (A_total) memcpy(A_total, product, sizeof product);
  return ESDIRK_SUCCESS;
}

static const char* const usage =
    "usage: shooting_c [N]\n"
    "\n"
    "A minimal multiple-shooting loop in C: the Dow reactor over N intervals of 0.2 h with x_k+1,\n"
    "A_k, B_k and a running cost per interval; checks continuity and the chain rule.\n"
    "\n"
    "  N            number of intervals (default 50)\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_print_help_if_asked(argc, argv, usage)) return 0;
  const int n = argc > 1 ? atoi(argv[1]) : 50;
  esdirk_problem* problem = NULL;
  esdirk_shooting* sh = NULL;
  if (esdirk_problem_create(NX, NZ, NU, dow_residual, NULL, &problem) != ESDIRK_SUCCESS) return 1;
  esdirk_problem_set_jacobian(problem, dow_jacobian);
  esdirk_problem_set_parameter_jacobian(problem, dow_parameter_jacobian);
  esdirk_shooting_create(problem, &sh);
  /* One options object for the shooting interval and the long run below. */
  esdirk_options* options = NULL;
  esdirk_options_create(&options);
  esdirk_options_set_tolerances(options, 1e-8, 1e-14);
  esdirk_options_set_algebraic_atol(options, dow_algebraic_atol, NZ);
  esdirk_shooting_set_options(sh, options);
  esdirk_shooting_set_running_cost(sh, cost, NULL);

  double x_end[NX], A_total[NX * NX], total_cost;
  if (chain(sh, n, dow_x0, x_end, A_total, &total_cost) != ESDIRK_SUCCESS) return 1;
  int64_t steps = 0, accepted = 0, factorizations = 0, sensitivity_solves = 0; /* all intervals */
  esdirk_shooting_get_counter(sh, 1, "steps", &steps);
  esdirk_shooting_get_counter(sh, 1, "accepted_steps", &accepted);
  esdirk_shooting_get_counter(sh, 1, "lu_factorizations", &factorizations);
  esdirk_shooting_get_counter(sh, 1, "sensitivity_solves", &sensitivity_solves);
  printf("Dow, %d shooting intervals of 0.2 h through the C API (rtol 1e-8)\n", n);
  printf("x(%g h) = [", 0.2 * n);
  for (int i = 0; i < NX; ++i) printf(" %.10e", x_end[i]);
  printf(" ]\ncost sum_k H_k = %.10e\n", total_cost);
  printf("steps %lld, accepted %lld, NLU %lld, NSENS %lld over all intervals\n", (long long)steps,
         (long long)accepted, (long long)factorizations, (long long)sensitivity_solves);

  /* (1) Against one long integration of the same problem. */
  esdirk_solver* solver = NULL;
  esdirk_solver_create(problem, &solver);
  esdirk_solver_set_options(solver, options);
  esdirk_options_free(&options);
  double z0[NZ], x_long[NX], z_long[NZ];
  dow_algebraic_start(z0);
  int status = esdirk_solver_initialize(solver, 0.0, dow_x0, NX, z0, NZ, dow_parameters, NU);
  if (status == ESDIRK_SUCCESS)
    status = esdirk_solver_integrate_to(solver, 0.2 * n, x_long, NX, z_long, NZ);
  double defect = 0.0;
  for (int i = 0; i < NX; ++i)
    defect = fmax(defect, fabs(x_end[i] - x_long[i]) / (1e-6 + fabs(x_long[i])));
  printf("chained vs one integration: largest relative difference %.1e\n", defect);

  /* (2) Chain rule: one interval over the whole horizon gives the product of the A_k. */
  double x_whole[NX], A_whole[NX * NX];
  dow_algebraic_start(z0);
  status = status == ESDIRK_SUCCESS
               ? esdirk_shooting_integrate(sh, 0.0, 0.2 * n, dow_x0, NX, dow_parameters, NU, z0, NZ,
                                           x_whole, NULL, A_whole, NX, NULL, NX, NULL, NULL, NULL)
               : status;
  double chain_error = 0.0, scale = 0.0;
  for (int i = 0; i < NX * NX; ++i) {
    chain_error = fmax(chain_error, fabs(A_whole[i] - A_total[i]));
    scale = fmax(scale, fabs(A_whole[i]));
  }
  printf("product of the A_k vs A of one interval over [0, %g h]: %.1e relative\n", 0.2 * n,
         chain_error / scale);

  const int good = status == ESDIRK_SUCCESS && defect <= 1e-5 && chain_error <= 1e-6 * scale &&
                   sensitivity_solves > 0;
  printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  esdirk_solver_free(&solver);
  esdirk_shooting_free(&sh);
  esdirk_problem_free(&problem);
  return good ? 0 : 1;
}
