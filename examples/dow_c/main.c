/* The Dow Chemical batch reactor with the sensitivities to its nine parameters, through the C
 * API: the same run as the C++ example (examples/dow), with the same numbers.
 *
 *     dow_c [--rtol 1e-6] [--mode exact|paper]
 *
 * Prints the states and the scaled sensitivities p_j du_i/dp_j at t = 10 h with 17 digits and
 * the statistics; exits 0 when the run succeeded and the invariants of the states (1e-12) and
 * of their sensitivities (1e-10) hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dow_model.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_options.h"
#include "common/example_help.h"

enum { NX = 6, NZ = 4, NP = 9 };

/* Stops at the first failing call with its status and message. A positive status is a
 * normal stop (the last output time is the stop time, 10 h), not a failure. */
#define TRY(call)                                                                \
  do {                                                                           \
    const int status_ = (call);                                                  \
    if (status_ < 0) {                                                           \
      fprintf(stderr, "%s failed: %s: %s\n", #call, esdirk_status_name(status_), \
              esdirk_solver_last_error(solver));                                 \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

static const char* const usage =
    "usage: dow_c [--rtol R] [--mode exact|paper]\n"
    "\n"
    "The Dow Chemical batch reactor with the sensitivities to its nine parameters through the C API\n"
    "(the numbers of the C++ example dow).\n"
    "\n"
    "  --rtol R             relative tolerance (default 1e-6)\n"
    "  --mode exact|paper   sensitivities of the discrete solution (default) or the IFAC 2005 paper's\n"
    "  --help               this text\n";

int main(int argc, char** argv) {
  if (example_print_help_if_asked(argc, argv, usage)) return 0;
  double rtol = 1e-6;
  int mode = ESDIRK_SENSITIVITY_EXACT;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--rtol") && i + 1 < argc)
      rtol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
      mode = strcmp(argv[++i], "paper") ? ESDIRK_SENSITIVITY_EXACT : ESDIRK_SENSITIVITY_PAPER;
    else {
      fputs(usage, stderr);
      return 2;
    }
  }

  esdirk_problem* problem = NULL;
  esdirk_solver* solver = NULL;
  if (esdirk_problem_create(NX, NZ, NP, dow_residual, NULL, &problem) != ESDIRK_SUCCESS) return 1;
  esdirk_problem_set_jacobian(problem, dow_jacobian);
  esdirk_problem_set_parameter_jacobian(problem, dow_parameter_jacobian);
  if (esdirk_solver_create(problem, &solver) != ESDIRK_SUCCESS) return 1;

  /* The options of the C++ example: the concentrations are O(1), the algebraic states tiny. */
  esdirk_options* options = NULL;
  TRY(esdirk_options_create(&options));
  TRY(esdirk_options_set_tolerances(options, rtol, 1e-6 * rtol));
  TRY(esdirk_options_set_algebraic_atol(options, dow_algebraic_atol, NZ));
  TRY(esdirk_options_set_sensitivity(options, mode, ESDIRK_ERROR_CONTROL_DEFAULT));
  TRY(esdirk_solver_set_options(solver, options));
  esdirk_options_free(&options);
  double z0[NZ];
  dow_algebraic_start(z0);
  TRY(esdirk_solver_initialize(solver, 0.0, dow_x0, NX, z0, NZ, dow_parameters, NP));
  TRY(esdirk_solver_set_stop_time(solver, 10.0));

  /* Seed columns p_j e_j in parameter space: the sensitivities come out scaled, p_j du/dp_j. */
  double seed[(NX + NP) * NP] = {0.0};
  for (int j = 0; j < NP; ++j) seed[(NX + j) + j * (NX + NP)] = dow_parameters[j];
  TRY(esdirk_solver_start_sensitivities(solver, seed, NX + NP, NP, NX + NP));

  /* The output grid of the C++ example: log-spaced through the transient, then every 0.1 h. */
  double x[NX], z[NZ], Sx[NX * NP], Sz[NZ * NP];
  for (int k = -6; k < -1; ++k) {
    const double m[3] = {1.0, 2.0, 5.0};
    for (int i = 0; i < 3; ++i)
      TRY(esdirk_solver_integrate_sensitivities_to(solver, m[i] * pow(10.0, k), x, NX, z, NZ, Sx,
                                                   NX, Sz, NZ, NP));
  }
  for (int k = 1; k <= 100; ++k)
    TRY(esdirk_solver_integrate_sensitivities_to(solver, 0.1 * k, x, NX, z, NZ, Sx, NX, Sz, NZ,
                                                 NP));

  printf("Dow batch reactor through the C API, rtol %.1e, %s mode\n\nstates at t = 10 h\n", rtol,
         mode == ESDIRK_SENSITIVITY_EXACT ? "exact" : "paper");
  for (int i = 0; i < NX; ++i) printf("u%d %.17e\n", i + 1, x[i]);
  for (int i = 0; i < NZ; ++i) printf("u%d %.17e\n", i + 7, z[i]);
  printf(
      "\nscaled sensitivities p_j du_i/dp_j at t = 10 h (rows u1..u10, columns k1 km1 k2 k3 km3 K1 "
      "K2 K3 Qp)\n");
  for (int i = 0; i < NX + NZ; ++i) {
    printf("u%d", i + 1);
    for (int j = 0; j < NP; ++j) printf(" %.17e", i < NX ? Sx[i + j * NX] : Sz[(i - NX) + j * NZ]);
    printf("\n");
  }
  /* The counters of the paper's Table 1, by their names in the library's counter table. */
  static const char* const table1[][2] = {{"NSTEP", "steps"},
                                          {"NFUN", "function_evaluations"},
                                          {"NJAC", "jacobian_evaluations"},
                                          {"NLU", "lu_factorizations"},
                                          {"NBACK", "back_substitutions"},
                                          {"NSENS", "sensitivity_solves"}};
  printf("\nstatistics\n");
  for (int i = 0; i < 6; ++i) {
    int64_t value = 0;
    TRY(esdirk_solver_get_counter(solver, table1[i][1], &value));
    printf("%s %lld\n", table1[i][0], (long long)value);
  }

  /* Invariants: u1 + u3 + u4, u2 + u3 + u4 + u5 and u5 + u6 - u4 are constant, so their
   * sensitivities to the parameters vanish. */
  double worst_state = fabs(x[0] + x[2] + x[3] - 1.5776);
  worst_state = fmax(worst_state, fabs(x[1] + x[2] + x[3] + x[4] - 8.32));
  worst_state = fmax(worst_state, fabs(x[4] + x[5] - x[3] - 0.0131));
  double worst_sens = 0.0;
  for (int j = 0; j < NP; ++j) {
    const double* c = Sx + j * NX;
    double scale = 0.0;
    for (int i = 0; i < NX; ++i) scale = fmax(scale, fabs(c[i]));
    worst_sens = fmax(worst_sens, fabs(c[0] + c[2] + c[3]) / scale);
    worst_sens = fmax(worst_sens, fabs(c[1] + c[2] + c[3] + c[4]) / scale);
    worst_sens = fmax(worst_sens, fabs(c[4] + c[5] - c[3]) / scale);
  }
  printf("\ninvariant drift: states %.1e, sensitivities %.1e (relative to each column)\n",
         worst_state, worst_sens);
  const int good = worst_state <= 1e-12 && worst_sens <= 1e-10 && z[0] > 0.0;
  printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  return good ? 0 : 1;
}
