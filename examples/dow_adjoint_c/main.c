/* The gradient of a least-squares fit of the Dow batch reactor by the discrete adjoint, through
 * the C API (esdirk_adjoint.h): the C version of examples/dow_adjoint.
 *
 * Synthetic data d_k are the six concentrations at t_k = 1, 2, 5, 10 h of a run at rtol / 1000
 * with every kinetic parameter 5 % above its nominal value. At the nominal parameters
 *
 *     Phi = 1/2 sum_k sum_i ((u_i(t_k) - d_ik) / sigma_i)^2,   sigma_i = max_k |d_ik| + 1e-3,
 *
 * and its gradient with respect to the 9 parameters and the 6 initial states is one reverse
 * sweep over the recorded steps (the t_k are stop times, hence step ends), with every step kept
 * and again with a memory budget of 16 step records (checkpoints and replays: the same bits).
 * The check: forward sensitivities of the C API in all 15 directions (exact mode, kept out of
 * the error test, so on the same steps) give the same gradient.
 *
 *     dow_adjoint_c [--rtol 1e-6]
 *
 * Prints CHECK PASSED when every component agrees to 1e-10 relative (in practice ~1e-14) and
 * the checkpointed gradient is bit-identical. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dow_model.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_options.h"
#include "common/example_help.h"

enum { NX = 6, NZ = 4, NP = 9, NT = 4, NTHETA = NX + NP };
static const double times[NT] = {1.0, 2.0, 5.0, 10.0};
static const char* names[NTHETA] = {"u1",  "u2",  "u3",  "u4",  "u5",  "u6",  "k1",  "k-1",
                                    "k2",  "k3",  "k-3", "K1",  "K2",  "K3",  "Q+"};

/* The data and the weights of the residuals (what the objective's callback reads). */
struct fit {
  double data[NT][NX];
  double sigma[NX];
};

#define TRY(solver, call)                                                        \
  do {                                                                           \
    const int status_ = (call);                                                  \
    if (status_ < 0) {                                                           \
      printf("CHECK FAILED: %s: %s: %s\n", #call, esdirk_status_name(status_),   \
             esdirk_solver_last_error(solver));                                  \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

static int make_solver(esdirk_problem* problem, double rtol, esdirk_solver** solver) {
  esdirk_options* options = NULL;
  int status = esdirk_solver_create(problem, solver);
  if (status == ESDIRK_SUCCESS) status = esdirk_options_create(&options);
  if (status == ESDIRK_SUCCESS) status = esdirk_options_set_tolerances(options, rtol, 1e-6 * rtol);
  if (status == ESDIRK_SUCCESS) status = esdirk_options_set_algebraic_atol(options, dow_algebraic_atol, NZ);
  if (status == ESDIRK_SUCCESS) status = esdirk_solver_set_options(*solver, options);
  esdirk_options_free(&options);
  return status;
}

/* One setting applied to a solver through an options object: the adjoint recording (budget >= 0)
 * or the sensitivities of the forward check (budget < 0). */
static int configure(esdirk_solver* solver, long budget) {
  esdirk_options* options = NULL;
  int status = esdirk_options_create(&options);
  if (status == ESDIRK_SUCCESS)
    status = budget >= 0 ? esdirk_options_set_adjoint(options, 1, budget)
                         : esdirk_options_set_sensitivity(options, ESDIRK_SENSITIVITY_EXACT,
                                                          ESDIRK_ERROR_CONTROL_OFF);
  if (status == ESDIRK_SUCCESS) status = esdirk_solver_set_options(solver, options);
  esdirk_options_free(&options);
  return status;
}

/* d Phi_k / dx at output time k: (x - d_k) / sigma^2 in the one objective row. */
static int residual_gradient(esdirk_int k, esdirk_int nx, esdirk_int nz, esdirk_int np,
                             esdirk_int rows, double t, const double* x, const double* z,
                             const double* p, double* dx, esdirk_int lddx, double* dz,
                             esdirk_int lddz, double* dp, esdirk_int lddp, void* user_data) {
  (void)nz, (void)np, (void)rows, (void)t, (void)z, (void)p, (void)lddx, (void)dz, (void)lddz,
      (void)dp, (void)lddp;
  const struct fit* fit = (const struct fit*)user_data;
  for (esdirk_int i = 0; i < nx; ++i) dx[i] = (x[i] - fit->data[k][i]) / (fit->sigma[i] * fit->sigma[i]);
  return 0;
}

/* The recorded run at the nominal parameters; returns Phi through *phi. */
static int recorded_run(esdirk_solver* solver, long budget, const struct fit* fit, double* phi) {
  double z0[NZ], x[NX], z[NZ];
  dow_algebraic_start(z0);
  TRY(solver, configure(solver, budget));
  TRY(solver, esdirk_solver_initialize(solver, 0.0, dow_x0, NX, z0, NZ, dow_parameters, NP));
  *phi = 0.0;
  for (int k = 0; k < NT; ++k) {
    TRY(solver, esdirk_solver_set_stop_time(solver, times[k]));
    TRY(solver, esdirk_solver_integrate_to(solver, times[k], x, NX, z, NZ));
    for (int i = 0; i < NX; ++i) {
      const double r = (x[i] - fit->data[k][i]) / fit->sigma[i];
      *phi += 0.5 * r * r;
    }
  }
  return 0;
}

static const char* const usage =
    "usage: dow_adjoint_c [--rtol R]\n"
    "\n"
    "The gradient of a least-squares fit of the Dow batch reactor by the adjoint through the C API,\n"
    "checked against the C API's forward sensitivities on the same steps.\n"
    "\n"
    "  --rtol R     relative tolerance (default 1e-6)\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_print_help_if_asked(argc, argv, usage)) return 0;
  double rtol = 1e-6;
  for (int i = 1; i + 1 < argc; i += 2)
    if (!strcmp(argv[i], "--rtol")) rtol = atof(argv[i + 1]);

  esdirk_problem* problem = NULL;
  if (esdirk_problem_create(NX, NZ, NP, dow_residual, NULL, &problem) != ESDIRK_SUCCESS ||
      esdirk_problem_set_jacobian(problem, dow_jacobian) != ESDIRK_SUCCESS ||
      esdirk_problem_set_parameter_jacobian(problem, dow_parameter_jacobian) != ESDIRK_SUCCESS) {
    printf("CHECK FAILED: problem\n");
    return 1;
  }

  /* Synthetic data from a run 1000 times tighter with the kinetic parameters 5 % higher. */
  struct fit fit;
  double p_true[NP], z0[NZ], x[NX], z[NZ];
  for (int j = 0; j < NP; ++j) p_true[j] = 1.05 * dow_parameters[j];
  dow_algebraic_start(z0);
  esdirk_solver* truth = NULL;
  TRY(truth, make_solver(problem, 1e-3 * rtol, &truth));
  TRY(truth, esdirk_solver_initialize(truth, 0.0, dow_x0, NX, z0, NZ, p_true, NP));
  for (int i = 0; i < NX; ++i) fit.sigma[i] = 0.0;
  for (int k = 0; k < NT; ++k) {
    TRY(truth, esdirk_solver_set_stop_time(truth, times[k]));
    TRY(truth, esdirk_solver_integrate_to(truth, times[k], x, NX, z, NZ));
    for (int i = 0; i < NX; ++i) {
      fit.data[k][i] = x[i];
      fit.sigma[i] = fmax(fit.sigma[i], fabs(x[i]));
    }
  }
  for (int i = 0; i < NX; ++i) fit.sigma[i] += 1e-3;
  esdirk_solver_free(&truth);

  /* The adjoint gradient, every step kept. */
  esdirk_objective* objective = NULL;
  if (esdirk_objective_create(1, &objective) != ESDIRK_SUCCESS ||
      esdirk_objective_set_output_times(objective, times, NT, residual_gradient, &fit) != ESDIRK_SUCCESS) {
    printf("CHECK FAILED: objective\n");
    return 1;
  }
  esdirk_solver* solver = NULL;
  double phi = 0.0, dx0[NX], dp[NP];
  TRY(solver, make_solver(problem, rtol, &solver));
  if (recorded_run(solver, 0, &fit, &phi)) return 1;
  TRY(solver, esdirk_solver_adjoint_gradient(solver, objective, dx0, NX, NX, dp, NP, NP));
  esdirk_adjoint_report report = ESDIRK_ADJOINT_REPORT_INIT;
  TRY(solver, esdirk_solver_get_adjoint_report(solver, &report));

  /* The same with a budget of 16 step records (a record is 5 + 4 (2 nx + 2 nz + 1) doubles). */
  esdirk_solver* bounded = NULL;
  double phi_b = 0.0, dx0_b[NX], dp_b[NP];
  TRY(bounded, make_solver(problem, rtol, &bounded));
  if (recorded_run(bounded, 16L * (5 + 4 * (2 * NX + 2 * NZ + 1)), &fit, &phi_b)) return 1;
  TRY(bounded, esdirk_solver_adjoint_gradient(bounded, objective, dx0_b, NX, NX, dp_b, NP, NP));
  esdirk_adjoint_report report_b = ESDIRK_ADJOINT_REPORT_INIT;
  TRY(bounded, esdirk_solver_get_adjoint_report(bounded, &report_b));
  const int identical = !memcmp(dx0, dx0_b, sizeof dx0) && !memcmp(dp, dp_b, sizeof dp);

  /* The forward check: all 15 directions, exact mode, the sensitivities out of the error test. */
  esdirk_solver* forward = NULL;
  static double Sx[NX * NTHETA];
  double forward_gradient[NTHETA] = {0.0};
  TRY(forward, make_solver(problem, rtol, &forward));
  TRY(forward, configure(forward, -1));
  TRY(forward, esdirk_solver_initialize(forward, 0.0, dow_x0, NX, z0, NZ, dow_parameters, NP));
  TRY(forward, esdirk_solver_start_sensitivities(forward, NULL, NTHETA, NTHETA, NTHETA));
  for (int k = 0; k < NT; ++k) {
    TRY(forward, esdirk_solver_set_stop_time(forward, times[k]));
    TRY(forward, esdirk_solver_integrate_sensitivities_to(forward, times[k], x, NX, z, NZ, Sx, NX, NULL, 0, NTHETA));
    for (int j = 0; j < NTHETA; ++j)
      for (int i = 0; i < NX; ++i)
        forward_gradient[j] += (x[i] - fit.data[k][i]) / (fit.sigma[i] * fit.sigma[i]) * Sx[j * NX + i];
  }
  int64_t forward_steps = 0;
  TRY(forward, esdirk_solver_get_counter(forward, "accepted_steps", &forward_steps));

  printf("Dow least squares through C, rtol %g: %lld steps, Phi = %.10e\n", rtol,
         (long long)report.adjoint_steps, phi);
  printf("%-8s %22s %22s %10s\n", "variable", "adjoint", "forward", "rel. diff");
  double worst = 0.0;
  for (int j = 0; j < NTHETA; ++j) {
    const double a = j < NX ? dx0[j] : dp[j - NX], f = forward_gradient[j];
    const double scale = fmax(fabs(a), fabs(f));
    const double diff = scale > 0.0 ? fabs(a - f) / scale : 0.0;
    worst = fmax(worst, diff);
    printf("%-8s %22.14e %22.14e %10.1e\n", names[j], a, f, diff);
  }
  printf("adjoint: %lld steps, %lld stage LUs, %lld transposed solves, %lld stored doubles\n",
         (long long)report.adjoint_steps, (long long)report.stage_factorizations,
         (long long)report.transposed_solves, (long long)report.peak_stored_doubles);
  printf("budget of 16 records: %lld checkpoints, %lld recomputed steps, %lld stored doubles, %s\n",
         (long long)report_b.checkpoints, (long long)report_b.recomputed_steps,
         (long long)report_b.peak_stored_doubles, identical ? "bit-identical gradient" : "DIFFERENT gradient");
  const int ok = worst <= 1e-10 && identical && forward_steps == report.adjoint_steps && phi == phi_b &&
                 report_b.recomputed_steps > 0;
  printf("worst relative difference %.1e\n%s\n", worst, ok ? "CHECK PASSED" : "CHECK FAILED");

  esdirk_solver_free(&forward);
  esdirk_solver_free(&bounded);
  esdirk_solver_free(&solver);
  esdirk_objective_free(&objective);
  esdirk_problem_free(&problem);
  return ok ? 0 : 1;
}
