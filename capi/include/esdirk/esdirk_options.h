/* esdirk C API: one integrator options object for every handle that integrates (C99; Fortran:
 * the module esdirk_options).
 *
 *     esdirk_options* options = NULL;
 *     esdirk_options_create(&options);
 *     esdirk_options_set_tolerances(options, 1e-6, 1e-10);
 *     esdirk_options_set_method(options, "ESDIRK436");
 *     esdirk_solver_set_options(solver, options);    // or _shooting_, _hybrid_solver_, ...
 *     esdirk_options_free(&options);                 // the handle keeps its own copy
 *
 * An options object is a list of settings: each setter checks its values at once (an invalid
 * value returns ESDIRK_INVALID_ARGUMENT, or ESDIRK_NULL_ARGUMENT for a NULL name, leaves the
 * object as it was, and esdirk_options_last_error says why, in the words of the per-handle
 * setter it replaces). esdirk_<handle>_set_options copies exactly the settings that were set
 * into the handle (the others keep the handle's values), all or nothing: a setting the handle
 * cannot take (Jacobian reuse on a handle that always differentiates, a sensitivity mode or an
 * adjoint recording on a handle without them) returns
 * ESDIRK_INVALID_ARGUMENT, changes nothing, and the handle's *_last_error says why. Like the
 * per-handle setters, the settings take effect at the handle's next run. One object may serve
 * any number of handles. See doc/c-api-guide.md, "The options object", and
 * doc/capi-options-decision.md for why the setters are typed rather than keyed.
 */
#ifndef ESDIRK_ESDIRK_OPTIONS_H
#define ESDIRK_ESDIRK_OPTIONS_H

#include "esdirk/esdirk.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_multishoot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the tolerances become the tolerances of the error test (doc/integrator-theory.md 4a). */
#define ESDIRK_TOLERANCE_CALIBRATED 0 /* default: the achieved global error is about rtol */
#define ESDIRK_TOLERANCE_RAW 1        /* the paper's rule: the error test uses rtol, atol as given */

/* How a stage's Newton iteration decides it has converged (doc/integrator-theory.md section 3). */
#define ESDIRK_NEWTON_CONTRACTION_RATE 0 /* default: the error left after the correction, from the
                                            observed contraction rate (RADAU5's test) */
#define ESDIRK_NEWTON_CORRECTION 1       /* the size of the correction itself (the test before
                                            the rate-based one) */
#define ESDIRK_NEWTON_RESIDUAL 2         /* the paper's test: the raw residual on the
                                            differential rows */

/* How difference Jacobians (a problem without a Jacobian callback) choose the increment of
 * column j (doc/integrator-theory.md section 2b). */
#define ESDIRK_DIFFERENCE_ERROR_WEIGHTED 0 /* default: sqrt(eps) max(|v_j|, min(atol_j/rtol_j, 1))
                                              (an algebraic state's increment at most atol_j) */
#define ESDIRK_DIFFERENCE_RELATIVE 1       /* MINPACK's sqrt(eps)|v_j| (sqrt(eps) where v_j = 0):
                                              the columns of tiny nonzero states can be wrong */

typedef struct esdirk_options esdirk_options;

/** A new, empty options object (no setting set). */
ESDIRK_C_API int esdirk_options_create(esdirk_options** options);
ESDIRK_C_API void esdirk_options_free(esdirk_options** options);
/** Why the last setter on `options` failed ("" if none). Valid until the next call on it. */
ESDIRK_C_API const char* esdirk_options_last_error(const esdirk_options* options);

/** rtol and atol (scalars), finite and >= 0. */
ESDIRK_C_API int esdirk_options_set_tolerances(esdirk_options* options, double rtol, double atol);

/** The absolute tolerances of the nz algebraic states (NULL allowed when nz is 0; default: atol
 *  for each). nz is checked against the handle's problem by set_options. */
ESDIRK_C_API int esdirk_options_set_algebraic_atol(esdirk_options* options, const double* atol,
                                                   esdirk_int nz);

/** The tolerance rule (ESDIRK_TOLERANCE_CALIBRATED or ESDIRK_TOLERANCE_RAW) and the calibrated
 *  rule's factor kappa: 0 takes the method's measured constant (the default), otherwise finite
 *  and > 0 (ignored by the raw rule, but still checked). */
ESDIRK_C_API int esdirk_options_set_tolerance_rule(esdirk_options* options, int rule,
                                                   double calibration_factor);

/** The Runge-Kutta method by name: "auto" (default: chosen by rtol at the run, ESDIRK436 at
 *  and below 1e-3, else ESDIRK34; see doc/integrator-guide.md), "ESDIRK34" (the paper's method),
 *  "ESDIRK436" (order 4), "ESDIRK547" (order 5), "ESDIRK23" or "ESDIRK12". Names are
 *  case-sensitive; any other name is refused. The handles' *_method_name give the method in
 *  use ("auto" resolved). */
ESDIRK_C_API int esdirk_options_set_method(esdirk_options* options, const char* name);

/** States only: keep the Jacobian of the last step while its Newton iterations contracted at
 *  least as fast as `contraction` (in (0, 1); default 0.1). reuse 0 (default): J at t_n every
 *  step. The shooting interval, the reverse shooting interval and the multiple-shooting
 *  evaluator always differentiate: their set_options refuses reuse != 0. A solver or hybrid
 *  solver takes it; its sensitivities and a recording adjoint then refuse to start
 *  (ESDIRK_INVALID_ARGUMENT). Every back-end (dense, banded, sparse). */
ESDIRK_C_API int esdirk_options_set_jacobian_reuse(esdirk_options* options, int reuse,
                                                   double contraction);

/** With Jacobian reuse: the kept LU of E - h' gamma J also serves a step whose h gamma differs
 *  from h' gamma by at most `fraction` (in [0, 1); default 0: only a step of the same h).
 *  Pays on grids whose factors fill in (doc/linear-solvers-guide.md). Without reuse it has no
 *  effect. Options::lu_reuse_h_change. */
ESDIRK_C_API int esdirk_options_set_lu_reuse_h_change(esdirk_options* options, double fraction);

/** Keep h (and with Jacobian reuse the LU) when the controller proposes a ratio h_new/h in
 *  [low, high] after an accepted step. Need 0 < low <= 1 <= high <= the controller's
 *  max_step_ratio (checked again when the handle runs, against the controller then set).
 *  Default [1, 1]: h always moves. */
ESDIRK_C_API int esdirk_options_set_keep_step_ratio(esdirk_options* options, double low,
                                                    double high);

/** The Newton stopping test: ESDIRK_NEWTON_CONTRACTION_RATE (default), ESDIRK_NEWTON_CORRECTION
 *  or ESDIRK_NEWTON_RESIDUAL, and the smallest contraction rate the rate-based test trusts
 *  while the Jacobian is one kept from an earlier step (Options::newton_rate_floor, default
 *  0.03; in [0, 1), checked for every test). With a Jacobian formed in the step the floor is
 *  esdirk_options_set_newton_fresh_rate's. */
ESDIRK_C_API int esdirk_options_set_newton_test(esdirk_options* options, int test,
                                                double rate_floor);

/** The rate-based Newton test with a Jacobian formed in this step: the smallest contraction
 *  rate it trusts (Options::newton_fresh_rate_floor, default 0.003; in [0, 1)) and whether a
 *  stage starts from the rate observed at the stage before (carry_observed_rate 1, the default)
 *  or from its floored rate (0; Options::newton_carry_observed_rate). The previous test is
 *  (0.03, 0) with esdirk_options_set_newton_test's floor 0.03. */
ESDIRK_C_API int esdirk_options_set_newton_fresh_rate(esdirk_options* options,
                                                      double fresh_rate_floor,
                                                      int carry_observed_rate);

/** The increment rule of difference Jacobians: ESDIRK_DIFFERENCE_ERROR_WEIGHTED (default) or
 *  ESDIRK_DIFFERENCE_RELATIVE (Options::difference_increment). The handle's sensitivities and
 *  adjoints form the same columns. No effect on a problem with an analytic Jacobian. */
ESDIRK_C_API int esdirk_options_set_difference_increment(esdirk_options* options, int rule);

/** The step size limits: the first step (0: chosen from f at the start; finite, >= 0), the
 *  smallest and the largest step (0 <= min_step < max_step; max_step may be INFINITY, the
 *  default, min_step 0) and the attempted steps of one call before ESDIRK_TOO_MANY_STEPS
 *  (max_steps > 0, default 500000; per interval on the shooting handles). */
ESDIRK_C_API int esdirk_options_set_step_limits(esdirk_options* options, double initial_step,
                                                double min_step, double max_step, long max_steps);

/** The step size controller (Kristensen et al. 2005, eq. 29): predictive (nonzero, the default:
 *  Gustafsson's law) or 0 (the asymptotic law), its gains k1 >= 0 and k2 > 0 (finite; 1, 1),
 *  the safety factor in (0, 1] (0.9) and the bounds of h_new/h: min_step_ratio in (0, 1)
 *  (0.2), max_step_ratio finite and > 1 (5). */
ESDIRK_C_API int esdirk_options_set_controller(esdirk_options* options, int predictive, double k1,
                                               double k2, double safety, double min_step_ratio,
                                               double max_step_ratio);

/** The stage Newton iteration: at most max_iterations (>= 1, default 8) per stage, the
 *  tolerance of the stopping test in the error weights (in (0, 1), 0.1) and the reference
 *  contraction alpha_ref (in (0, 1), 0.3: above it the next step ratio is alpha_ref/alpha). */
ESDIRK_C_API int esdirk_options_set_newton(esdirk_options* options, int max_iterations,
                                           double tolerance, double reference_contraction);

/** Filter the error estimate through the iteration matrix (nonzero: Shampine's filter, as
 *  RADAU5; 0, the default: the raw estimate of Kristensen et al. 2005). */
ESDIRK_C_API int esdirk_options_set_filter_error_estimate(esdirk_options* options, int filter);

/** Consecutive failures of each kind before a step gives up: error test, Newton, callback
 *  (each >= 1; defaults 12, 12, 12). */
ESDIRK_C_API int esdirk_options_set_failure_limits(esdirk_options* options,
                                                   int max_error_test_failures,
                                                   int max_newton_failures,
                                                   int max_callback_failures);

/** The forward sensitivities: the mode (ESDIRK_SENSITIVITY_EXACT, the default: the derivative
 *  of the discrete solution; ESDIRK_SENSITIVITY_PAPER: Kristensen et al. 2005, Algorithm 2) and
 *  whether they enter the error test (ESDIRK_ERROR_CONTROL_DEFAULT: on in exact mode, off in
 *  paper mode; _OFF; _ON). A solver takes it at its next esdirk_solver_start_sensitivities, a
 *  shooting interval at its next interval. The other handles have no such setting: the reverse
 *  shooting interval computes no forward sensitivities, the multiple-shooting evaluator's and
 *  the hybrid solver's are the exact ones; their set_options refuses it. */
ESDIRK_C_API int esdirk_options_set_sensitivity(esdirk_options* options, int mode,
                                                int error_control);

/** The recording of a run for an adjoint (esdirk_adjoint.h, esdirk_hybrid_adjoint.h): record
 *  nonzero makes the next esdirk_solver_initialize / esdirk_hybrid_solver_initialize attach the
 *  adjoint, which records the runs after it; 0 (the default) detaches it there. memory_budget
 *  (>= 0): the doubles the step records may occupy (0 keeps every step; otherwise checkpoints
 *  and bit-exact replays; a budget below one step record makes that initialize return
 *  ESDIRK_INVALID_ARGUMENT with the old run kept). Only the solver and the hybrid solver record;
 *  the shooting handles' set_options refuses it. */
ESDIRK_C_API int esdirk_options_set_adjoint(esdirk_options* options, int record,
                                            long memory_budget);

/** Copy the settings set on `options` into the handle (see the top of this header). */
ESDIRK_C_API int esdirk_solver_set_options(esdirk_solver* solver, const esdirk_options* options);
ESDIRK_C_API int esdirk_shooting_set_options(esdirk_shooting* shooting,
                                             const esdirk_options* options);
ESDIRK_C_API int esdirk_reverse_shooting_set_options(esdirk_reverse_shooting* shooting,
                                                     const esdirk_options* options);
ESDIRK_C_API int esdirk_multishoot_set_options(esdirk_multishoot* ms,
                                               const esdirk_options* options);
ESDIRK_C_API int esdirk_hybrid_solver_set_options(esdirk_hybrid_solver* solver,
                                                  const esdirk_options* options);

#ifdef __cplusplus
}
#endif
#endif /* ESDIRK_ESDIRK_OPTIONS_H */
