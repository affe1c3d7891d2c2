/* The derivative settings of the options object: esdirk_options_set_sensitivity (in place of
 * esdirk_solver_set_sensitivity_options, esdirk_shooting_set_sensitivity_mode and
 * _set_sensitivity_error_control) and esdirk_options_set_adjoint (in place of
 * esdirk_solver_set_adjoint and esdirk_hybrid_solver_set_adjoint). Each refuses what the setters
 * it replaces refused, with the same status and words; set_options refuses it on the handles
 * that have no such setting, all or nothing; and a run configured through the object equals the
 * run configured through the deprecated setters to the last bit. */
#ifndef ESDIRK_NO_DEPRECATION_WARNINGS /* the deprecated setters are compared on purpose */
#define ESDIRK_NO_DEPRECATION_WARNINGS
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_hybrid_adjoint.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_options.h"

#include "hyperbola_model.h"

/* The text after the first ": " of a message (the words after the setter's name). */
static const char* words(const char* message) {
  const char* colon = strstr(message, ": ");
  return colon ? colon + 2 : message;
}

static int starts_with(const char* text, const char* prefix) {
  return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* `o` (given a method here) applied to the handles other than the solver: with a prefix, the
 * reverse shooting interval, the multiple-shooting evaluator and, as flagged, the shooting
 * interval and the hybrid solver refuse it with INVALID_ARGUMENT and a message starting with
 * `prefix`, and keep their method (all or nothing); with the prefix "" every handle takes it. */
static void refused_by(esdirk_problem* problem, esdirk_options* o, const char* prefix, int shooting_refuses,
                       int hybrid_refuses) {
  esdirk_shooting* shooting = NULL;
  esdirk_reverse_shooting* reverse = NULL;
  esdirk_multishoot* ms = NULL;
  esdirk_hybrid_problem* hp = NULL;
  esdirk_hybrid_solver* hs = NULL;
  CHECK_STATUS(esdirk_options_set_method(o, "ESDIRK23"), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &shooting), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_reverse_shooting_create(problem, &reverse), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_multishoot_create(problem, 2, 1, &ms), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 1, 0, 0, 0, hybrid_hyperbola, NULL, &hp), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(hp, &hs), ESDIRK_SUCCESS);

  if (prefix[0] == '\0') {
    CHECK_STATUS(esdirk_reverse_shooting_set_options(reverse, o), ESDIRK_SUCCESS);
    CHECK(strcmp(esdirk_reverse_shooting_method_name(reverse), "ESDIRK23") == 0);
    CHECK_STATUS(esdirk_multishoot_set_options(ms, o), ESDIRK_SUCCESS);
    CHECK(strcmp(esdirk_multishoot_method_name(ms), "ESDIRK23") == 0);
  } else {
    CHECK_STATUS(esdirk_reverse_shooting_set_options(reverse, o), ESDIRK_INVALID_ARGUMENT);
    CHECK(starts_with(esdirk_reverse_shooting_last_error(reverse), prefix));
    CHECK(strcmp(esdirk_reverse_shooting_method_name(reverse), "auto") == 0);
    CHECK_STATUS(esdirk_multishoot_set_options(ms, o), ESDIRK_INVALID_ARGUMENT);
    CHECK(starts_with(esdirk_multishoot_last_error(ms), prefix));
    CHECK(strcmp(esdirk_multishoot_method_name(ms), "auto") == 0);
  }
  if (shooting_refuses) {
    CHECK_STATUS(esdirk_shooting_set_options(shooting, o), ESDIRK_INVALID_ARGUMENT);
    CHECK(starts_with(esdirk_shooting_last_error(shooting), prefix));
    CHECK(strcmp(esdirk_shooting_method_name(shooting), "auto") == 0);
  } else {
    CHECK_STATUS(esdirk_shooting_set_options(shooting, o), ESDIRK_SUCCESS);
    CHECK(strcmp(esdirk_shooting_method_name(shooting), "ESDIRK23") == 0);
  }
  if (hybrid_refuses) {
    CHECK_STATUS(esdirk_hybrid_solver_set_options(hs, o), ESDIRK_INVALID_ARGUMENT);
    CHECK(starts_with(esdirk_hybrid_solver_last_error(hs), prefix));
    CHECK(strcmp(esdirk_hybrid_solver_method_name(hs), "auto") == 0);
  } else {
    CHECK_STATUS(esdirk_hybrid_solver_set_options(hs, o), ESDIRK_SUCCESS);
    CHECK(strcmp(esdirk_hybrid_solver_method_name(hs), "ESDIRK23") == 0);
  }
  esdirk_hybrid_solver_free(&hs);
  esdirk_hybrid_problem_free(&hp);
  esdirk_multishoot_free(&ms);
  esdirk_reverse_shooting_free(&reverse);
  esdirk_shooting_free(&shooting);
}

static void sensitivity_setting_is_checked_and_refused_where_absent(esdirk_problem* problem) {
  esdirk_options* o = NULL;
  esdirk_solver* solver = NULL;
  esdirk_shooting* shooting = NULL;
  CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &shooting), ESDIRK_SUCCESS);

  /* NULL and an unknown mode: the statuses and words of the setters it replaces. */
  CHECK_STATUS(esdirk_options_set_sensitivity(NULL, ESDIRK_SENSITIVITY_EXACT, -1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_sensitivity_options(NULL, ESDIRK_SENSITIVITY_EXACT, -1), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_mode(NULL, ESDIRK_SENSITIVITY_EXACT), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_error_control(NULL, 0), ESDIRK_NULL_ARGUMENT);
  for (int mode = -1; mode <= 7; mode += 8) {
    CHECK_STATUS(esdirk_options_set_sensitivity(o, mode, -1), ESDIRK_INVALID_ARGUMENT);
    CHECK(strcmp(esdirk_options_last_error(o), "set_sensitivity: mode must be ESDIRK_SENSITIVITY_EXACT or _PAPER") == 0);
    CHECK_STATUS(esdirk_solver_set_sensitivity_options(solver, mode, -1), ESDIRK_INVALID_ARGUMENT);
    CHECK(strcmp(esdirk_solver_last_error(solver),
                 "set_sensitivity_options: mode must be ESDIRK_SENSITIVITY_EXACT or _PAPER") == 0);
    CHECK(strcmp(words(esdirk_solver_last_error(solver)), words(esdirk_options_last_error(o))) == 0);
    CHECK_STATUS(esdirk_shooting_set_sensitivity_mode(shooting, mode), ESDIRK_INVALID_ARGUMENT);
    CHECK(strcmp(esdirk_shooting_last_error(shooting),
                 "set_sensitivity_mode: mode must be ESDIRK_SENSITIVITY_EXACT or _PAPER") == 0);
  }
  /* A refused value set nothing: every handle takes the object. */
  CHECK_STATUS(esdirk_options_set_method(o, "ESDIRK23"), ESDIRK_SUCCESS);
  refused_by(problem, o, "", 0, 0);
  /* Set, it reaches the solver and the shooting interval and is refused by the others. */
  CHECK_STATUS(esdirk_options_set_sensitivity(o, ESDIRK_SENSITIVITY_PAPER, ESDIRK_ERROR_CONTROL_OFF), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_options_last_error(o), "") == 0);
  CHECK_STATUS(esdirk_solver_set_options(solver, o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_options(shooting, o), ESDIRK_SUCCESS);
  refused_by(problem, o, "set_sensitivity: ", 0, 1);
  esdirk_shooting_free(&shooting);
  esdirk_solver_free(&solver);
  esdirk_options_free(&o);
}

/* The hyperbola from (1, 1) to t = 2 with the sensitivity dx/dx0: x, z, Sx, Sz, steps. */
static void sensitivity_run(esdirk_solver* solver, double out[4], int64_t* steps) {
  const double x0 = 1.0, z0 = 1.0;
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x0, 1, &z0, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, NULL, 1, 1, 1), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_sensitivities_to(solver, 2.0, &out[0], 1, &out[1], 1, &out[2], 1, &out[3],
                                                        1, 1),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_get_counter(solver, "steps", steps), ESDIRK_SUCCESS);
}

static void shooting_run(esdirk_shooting* shooting, double out[4], int64_t* steps) {
  const double x0 = 1.0, z0 = 1.0;
  double A = 0.0, H = 0.0;
  out[0] = out[1] = out[2] = out[3] = 0.0;
  CHECK_STATUS(esdirk_shooting_integrate(shooting, 0.0, 2.0, &x0, 1, NULL, 0, &z0, 1, &out[0], &out[1], &A, 1,
                                         NULL, 1, &H, NULL, NULL),
               ESDIRK_SUCCESS);
  out[2] = A, out[3] = H;
  CHECK_STATUS(esdirk_shooting_get_counter(shooting, 0, "steps", steps), ESDIRK_SUCCESS);
}

/* Paper mode without error control through the object equals it through the deprecated
 * setters, bit for bit, and differs from the default (exact, error-controlled) run. On the
 * shooting interval each deprecated setter keeps the other's setting, in either order. */
static void sensitivity_runs_equal_the_deprecated_setters(esdirk_problem* problem) {
  esdirk_options* o = NULL;
  CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_tolerances(o, 1e-5, 1e-7), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_sensitivity(o, ESDIRK_SENSITIVITY_PAPER, ESDIRK_ERROR_CONTROL_OFF), ESDIRK_SUCCESS);
  esdirk_options* tolerances = NULL;
  CHECK_STATUS(esdirk_options_create(&tolerances), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_options_set_tolerances(tolerances, 1e-5, 1e-7), ESDIRK_SUCCESS);

  esdirk_solver *old_way = NULL, *new_way = NULL, *plain = NULL;
  double r_old[4], r_new[4], r_plain[4];
  int64_t s_old, s_new, s_plain;
  CHECK_STATUS(esdirk_solver_create(problem, &old_way), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &new_way), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &plain), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(old_way, tolerances), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_sensitivity_options(old_way, ESDIRK_SENSITIVITY_PAPER, ESDIRK_ERROR_CONTROL_OFF),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(new_way, o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_options(plain, tolerances), ESDIRK_SUCCESS);
  sensitivity_run(old_way, r_old, &s_old);
  sensitivity_run(new_way, r_new, &s_new);
  sensitivity_run(plain, r_plain, &s_plain);
  CHECK(memcmp(r_old, r_new, sizeof r_old) == 0 && s_old == s_new);
  CHECK(memcmp(r_plain, r_new, sizeof r_new) != 0);
  /* dx(2)/dx0 = 1/9: the exact mode's to 1e-7 here; paper mode's Jacobians frozen at t_n make
   * it first order in h (0.1014 in its 14 steps). */
  CHECK(fabs(r_plain[2] - 1.0 / 9.0) < 1e-6 && fabs(r_new[2] - 1.0 / 9.0) < 2e-2);
  esdirk_solver_free(&plain);
  esdirk_solver_free(&new_way);
  esdirk_solver_free(&old_way);

  esdirk_shooting *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  double out_a[4], out_b[4], out_c[4], out_d[4];
  int64_t steps_a, steps_b, steps_c, steps_d;
  CHECK_STATUS(esdirk_shooting_create(problem, &a), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &b), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &c), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_create(problem, &d), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_options(a, tolerances), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_mode(a, ESDIRK_SENSITIVITY_PAPER), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_error_control(a, ESDIRK_ERROR_CONTROL_OFF), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_options(b, tolerances), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_error_control(b, ESDIRK_ERROR_CONTROL_OFF), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_sensitivity_mode(b, ESDIRK_SENSITIVITY_PAPER), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_options(c, o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_shooting_set_options(d, tolerances), ESDIRK_SUCCESS);
  shooting_run(a, out_a, &steps_a);
  shooting_run(b, out_b, &steps_b);
  shooting_run(c, out_c, &steps_c);
  shooting_run(d, out_d, &steps_d);
  CHECK(memcmp(out_a, out_c, sizeof out_a) == 0 && steps_a == steps_c);
  CHECK(memcmp(out_b, out_c, sizeof out_b) == 0 && steps_b == steps_c);
  CHECK(memcmp(out_d, out_c, sizeof out_d) != 0);
  /* A setting applied after a run reaches the next interval (the interval is rebuilt). */
  CHECK_STATUS(esdirk_shooting_set_options(d, o), ESDIRK_SUCCESS);
  shooting_run(d, out_d, &steps_d);
  CHECK(memcmp(out_d, out_c, sizeof out_d) == 0 && steps_d == steps_c);
  esdirk_shooting_free(&d);
  esdirk_shooting_free(&c);
  esdirk_shooting_free(&b);
  esdirk_shooting_free(&a);
  esdirk_options_free(&tolerances);
  esdirk_options_free(&o);
}

static void adjoint_setting_is_checked_and_refused_where_absent(esdirk_problem* problem) {
  esdirk_options* o = NULL;
  esdirk_solver* solver = NULL;
  esdirk_hybrid_problem* hp = NULL;
  esdirk_hybrid_solver* hs = NULL;
  CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 1, 0, 0, 0, hybrid_hyperbola, NULL, &hp), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_create(hp, &hs), ESDIRK_SUCCESS);

  CHECK_STATUS(esdirk_options_set_adjoint(NULL, 1, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_adjoint(NULL, 1, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(NULL, 1, 0), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_options_set_adjoint(o, 1, -1), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_solver_set_adjoint(solver, 1, -1), ESDIRK_INVALID_ARGUMENT);
  CHECK(strcmp(esdirk_options_last_error(o), "set_adjoint: memory_budget must be >= 0 (0 keeps every step)") == 0);
  CHECK(strcmp(esdirk_solver_last_error(solver), esdirk_options_last_error(o)) == 0);
  CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(hs, 1, -5), ESDIRK_INVALID_ARGUMENT);
  CHECK(strcmp(esdirk_hybrid_solver_last_error(hs),
               "hybrid set_adjoint: memory_budget must be >= 0 (0 keeps every step)") == 0);
  /* The refused budget set nothing; then set, it reaches the two solvers and is refused by the
   * shooting handles. */
  refused_by(problem, o, "", 0, 0);
  CHECK_STATUS(esdirk_options_set_adjoint(o, 1, 0), ESDIRK_SUCCESS);
  CHECK(strcmp(esdirk_options_last_error(o), "") == 0);
  CHECK_STATUS(esdirk_solver_set_options(solver, o), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_options(hs, o), ESDIRK_SUCCESS);
  refused_by(problem, o, "set_adjoint: ", 1, 0);
  esdirk_hybrid_solver_free(&hs);
  esdirk_hybrid_problem_free(&hp);
  esdirk_solver_free(&solver);
  esdirk_options_free(&o);
}

/* A recorded run to t = 2 and the gradient of x(2) with respect to x0; the status of the
 * gradient call. */
static int recorded_gradient(esdirk_solver* solver, const esdirk_objective* objective, double* dx0) {
  const double x0 = 1.0, z0 = 1.0;
  double x, z;
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, &x0, 1, &z0, 1, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_set_stop_time(solver, 2.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_solver_integrate_to(solver, 2.0, &x, 1, &z, 1), ESDIRK_SUCCESS);
  return esdirk_solver_adjoint_gradient(solver, objective, dx0, 1, 1, NULL, 0, 0);
}

static int hybrid_recorded_gradient(esdirk_hybrid_solver* hs, const esdirk_hybrid_objective* objective,
                                    double* dx0) {
  const double x0 = 1.0, z0 = 1.0;
  double x, z, t;
  CHECK_STATUS(esdirk_hybrid_solver_initialize(hs, 0.0, 0, &x0, 1, &z0, 1, NULL, 0, NULL, 0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_to(hs, 2.0, &x, 1, &z, 1, &t), ESDIRK_SUCCESS);
  return esdirk_hybrid_solver_adjoint_gradient(hs, objective, dx0, 1, 1, NULL, 0, 0);
}

/* Recording through the object gives the gradient of the deprecated setter to the last bit,
 * with every step kept and with a budget of two step records (checkpoints and replays); record
 * 0 detaches the adjoint at the next initialize. */
static void adjoint_runs_equal_the_deprecated_setters(esdirk_problem* problem) {
  const double W[2] = {1.0, 0.0}; /* C = x(2) */
  const long budgets[2] = {0, 2 * (5 + 4 * (2 * 1 + 2 * 1 + 1))};
  esdirk_objective* objective = NULL;
  esdirk_hybrid_objective* hybrid_objective = NULL;
  CHECK_STATUS(esdirk_objective_create(1, &objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_objective_set_terminal_weights(objective, W, 2, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_create(1, &hybrid_objective), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_objective_set_terminal_weights(hybrid_objective, W, 2, 2), ESDIRK_SUCCESS);
  esdirk_hybrid_problem* hp = NULL;
  CHECK_STATUS(esdirk_hybrid_problem_create(1, 1, 0, 0, 0, hybrid_hyperbola, NULL, &hp), ESDIRK_SUCCESS);
  for (int k = 0; k < 2; ++k) {
    esdirk_options* o = NULL;
    CHECK_STATUS(esdirk_options_create(&o), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_set_method(o, "ESDIRK34"), ESDIRK_SUCCESS); /* 4 stages: the budget */
    CHECK_STATUS(esdirk_options_set_adjoint(o, 1, budgets[k]), ESDIRK_SUCCESS);
    esdirk_options* method = NULL;
    CHECK_STATUS(esdirk_options_create(&method), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_set_method(method, "ESDIRK34"), ESDIRK_SUCCESS);

    esdirk_solver *old_way = NULL, *new_way = NULL;
    double g_old = 0.0, g_new = 0.0;
    CHECK_STATUS(esdirk_solver_create(problem, &old_way), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_create(problem, &new_way), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_options(old_way, method), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_adjoint(old_way, 1, budgets[k]), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_options(new_way, o), ESDIRK_SUCCESS);
    CHECK_STATUS(recorded_gradient(old_way, objective, &g_old), ESDIRK_SUCCESS);
    CHECK_STATUS(recorded_gradient(new_way, objective, &g_new), ESDIRK_SUCCESS);
    CHECK(memcmp(&g_old, &g_new, sizeof g_new) == 0);
    CHECK(fabs(g_new - 1.0 / 9.0) < 1e-4);
    int64_t recomputed = -1;
    CHECK_STATUS(esdirk_solver_get_counter(new_way, "adjoint_recomputed_steps", &recomputed), ESDIRK_SUCCESS);
    CHECK(k == 0 ? recomputed == 0 : recomputed > 0);
    /* record 0: the next initialize detaches the adjoint. */
    CHECK_STATUS(esdirk_options_set_adjoint(o, 0, 0), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_solver_set_options(new_way, o), ESDIRK_SUCCESS);
    CHECK_STATUS(recorded_gradient(new_way, objective, &g_new), ESDIRK_WRONG_CALL_ORDER);

    esdirk_hybrid_solver *h_old = NULL, *h_new = NULL;
    double hg_old = 0.0, hg_new = 0.0;
    CHECK_STATUS(esdirk_hybrid_solver_create(hp, &h_old), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_create(hp, &h_new), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_set_options(h_old, method), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_set_adjoint(h_old, 1, budgets[k]), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_options_set_adjoint(o, 1, budgets[k]), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_set_options(h_new, o), ESDIRK_SUCCESS);
    CHECK_STATUS(hybrid_recorded_gradient(h_old, hybrid_objective, &hg_old), ESDIRK_SUCCESS);
    CHECK_STATUS(hybrid_recorded_gradient(h_new, hybrid_objective, &hg_new), ESDIRK_SUCCESS);
    CHECK(memcmp(&hg_old, &hg_new, sizeof hg_new) == 0);
    CHECK(fabs(hg_new - 1.0 / 9.0) < 1e-4);
    CHECK_STATUS(esdirk_options_set_adjoint(o, 0, 0), ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_solver_set_options(h_new, o), ESDIRK_SUCCESS);
    CHECK_STATUS(hybrid_recorded_gradient(h_new, hybrid_objective, &hg_new), ESDIRK_WRONG_CALL_ORDER);

    esdirk_hybrid_solver_free(&h_new);
    esdirk_hybrid_solver_free(&h_old);
    esdirk_solver_free(&new_way);
    esdirk_solver_free(&old_way);
    esdirk_options_free(&method);
    esdirk_options_free(&o);
  }
  esdirk_hybrid_problem_free(&hp);
  esdirk_hybrid_objective_free(&hybrid_objective);
  esdirk_objective_free(&objective);
}

int main(void) {
  esdirk_problem* problem = NULL;
  CHECK_STATUS(esdirk_problem_create(1, 1, 0, hyperbola, NULL, &problem), ESDIRK_SUCCESS);
  sensitivity_setting_is_checked_and_refused_where_absent(problem);
  sensitivity_runs_equal_the_deprecated_setters(problem);
  adjoint_setting_is_checked_and_refused_where_absent(problem);
  adjoint_runs_equal_the_deprecated_setters(problem);
  esdirk_problem_free(&problem);
  return report();
}
