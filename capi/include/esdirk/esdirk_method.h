/* esdirk C API: the method, the tolerance rule and LU/Jacobian reuse of an esdirk_solver and
 * of every other handle that integrates (C99; Fortran: the module esdirk_method).
 *
 * DEPRECATED for one release: the per-handle setters below are thin wrappers of the options
 * object (esdirk_options.h: esdirk_options_set_method, ... then esdirk_<handle>_set_options),
 * with the same checks, statuses and messages; they will be removed in the next release. What
 * stays: the *_method_name getters and esdirk_method_stages.
 *
 * The options of doc/integrator-guide.md sections 2, 6 and 7 that the setters of esdirk.h do
 * not reach. Like those setters they take effect at the next esdirk_solver_initialize; unlike
 * most of them each is checked when it is set: an invalid value returns ESDIRK_INVALID_ARGUMENT
 * (ESDIRK_NULL_ARGUMENT for a NULL name), leaves the solver's options as they were, and
 * esdirk_solver_last_error says what was wrong. See doc/c-api-guide.md, "Method, tolerance rule
 * and LU reuse".
 */
#ifndef ESDIRK_ESDIRK_METHOD_H
#define ESDIRK_ESDIRK_METHOD_H

#include "esdirk/esdirk.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_multishoot.h"
#include "esdirk/esdirk_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The tolerance rule (ESDIRK_TOLERANCE_CALIBRATED or ESDIRK_TOLERANCE_RAW) and the calibrated
 *  rule's factor kappa: 0 takes the method's measured constant (the default), otherwise finite
 *  and > 0 (ignored by the raw rule, but still checked). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerance_rule and esdirk_solver_set_options") int esdirk_solver_set_tolerance_rule(esdirk_solver* solver, int rule,
                                                  double calibration_factor);

/** The Runge-Kutta method by name: "auto" (default: chosen by rtol at initialize, ESDIRK436 at
 *  and below 1e-3, else ESDIRK34; see doc/integrator-guide.md), "ESDIRK34" (the paper's method),
 *  "ESDIRK436" (order 4), "ESDIRK547" (order 5), "ESDIRK23" or "ESDIRK12". Names are
 *  case-sensitive; any other name is refused. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_method and esdirk_solver_set_options") int esdirk_solver_set_method(esdirk_solver* solver, const char* name);

/** The name of the method: after esdirk_solver_initialize the one in use ("auto" resolved to
 *  the member it chose), before it the one set. NULL for a NULL solver. Valid until the next
 *  call on the solver. */
ESDIRK_C_API const char* esdirk_solver_method_name(const esdirk_solver* solver);

/** States only: keep the Jacobian of the last step while its Newton iterations contracted at
 *  least as fast as `contraction` (in (0, 1); default 0.1). reuse 0 (default): J at t_n every
 *  step. Sensitivities and the adjoint refuse a solver with reuse on
 *  (esdirk_solver_start_sensitivities and esdirk_solver_initialize with a recording adjoint
 *  return ESDIRK_INVALID_ARGUMENT). Every back-end (dense, banded, sparse). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_jacobian_reuse and esdirk_solver_set_options") int esdirk_solver_set_jacobian_reuse(esdirk_solver* solver, int reuse,
                                                  double contraction);

/** With Jacobian reuse: the kept LU of E - h' gamma J also serves a step whose h gamma differs
 *  from h' gamma by at most `fraction` (in [0, 1); default 0: only a step of the same h), so
 *  h may change without a new LU; the stages are still the step's own (its residual uses its
 *  h), the Newton iteration only contracts a little more slowly. Pays on grids whose factors
 *  fill in: 0.3 with esdirk_solver_set_keep_step_ratio(solver, 1, 1) on a 2-D reaction-diffusion
 *  grid with KLU saves 20-25 % over same-h reuse (doc/linear-solvers-guide.md). Without reuse
 *  it has no effect. Options::lu_reuse_h_change. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_lu_reuse_h_change and esdirk_solver_set_options") int esdirk_solver_set_lu_reuse_h_change(esdirk_solver* solver, double fraction);

/** Keep h (and with Jacobian reuse the LU) when the controller proposes a ratio h_new/h in
 *  [low, high] after an accepted step. Need 0 < low <= 1 <= high <= the controller's
 *  max_step_ratio (checked again at initialize, against the controller then set). Default
 *  [1, 1]: h always moves. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_keep_step_ratio and esdirk_solver_set_options") int esdirk_solver_set_keep_step_ratio(esdirk_solver* solver, double low,
                                                   double high);

/* ---- The same setters on the other handles that integrate --------------------------------
 * Same values, checks, statuses and messages (the handle's *_last_error) as the solver's above;
 * each takes effect at the handle's next run (esdirk_shooting_integrate,
 * esdirk_reverse_shooting_integrate, esdirk_multishoot_evaluate / _estimate,
 * esdirk_hybrid_solver_initialize). *_method_name gives the method of the last run ("auto"
 * resolved) if there was one, else the one set (the multiple-shooting evaluator forgets its
 * last run when an option changes).
 *
 * Jacobian reuse is states-only: the shooting interval, the reverse shooting interval and the
 * multiple-shooting evaluator always differentiate, so their set_jacobian_reuse refuses reuse
 * != 0 with ESDIRK_INVALID_ARGUMENT (reuse 0 is accepted). A hybrid solver may reuse; then
 * esdirk_hybrid_solver_start_sensitivities and an initialize with a recording hybrid adjoint
 * return ESDIRK_INVALID_ARGUMENT, as on the solver. */

ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerance_rule and esdirk_shooting_set_options") int esdirk_shooting_set_tolerance_rule(esdirk_shooting* shooting, int rule,
                                                    double calibration_factor);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_method and esdirk_shooting_set_options") int esdirk_shooting_set_method(esdirk_shooting* shooting, const char* name);
ESDIRK_C_API const char* esdirk_shooting_method_name(const esdirk_shooting* shooting);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_jacobian_reuse and esdirk_shooting_set_options") int esdirk_shooting_set_jacobian_reuse(esdirk_shooting* shooting, int reuse,
                                                    double contraction);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_keep_step_ratio and esdirk_shooting_set_options") int esdirk_shooting_set_keep_step_ratio(esdirk_shooting* shooting, double low,
                                                     double high);

ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerance_rule and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_tolerance_rule(esdirk_reverse_shooting* shooting,
                                                            int rule, double calibration_factor);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_method and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_method(esdirk_reverse_shooting* shooting,
                                                    const char* name);
ESDIRK_C_API const char* esdirk_reverse_shooting_method_name(
    const esdirk_reverse_shooting* shooting);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_jacobian_reuse and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_jacobian_reuse(esdirk_reverse_shooting* shooting,
                                                            int reuse, double contraction);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_keep_step_ratio and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_keep_step_ratio(esdirk_reverse_shooting* shooting,
                                                             double low, double high);

ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerance_rule and esdirk_multishoot_set_options") int esdirk_multishoot_set_tolerance_rule(esdirk_multishoot* ms, int rule,
                                                      double calibration_factor);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_method and esdirk_multishoot_set_options") int esdirk_multishoot_set_method(esdirk_multishoot* ms, const char* name);
ESDIRK_C_API const char* esdirk_multishoot_method_name(const esdirk_multishoot* ms);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_jacobian_reuse and esdirk_multishoot_set_options") int esdirk_multishoot_set_jacobian_reuse(esdirk_multishoot* ms, int reuse,
                                                      double contraction);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_keep_step_ratio and esdirk_multishoot_set_options") int esdirk_multishoot_set_keep_step_ratio(esdirk_multishoot* ms, double low,
                                                       double high);

ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerance_rule and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_tolerance_rule(esdirk_hybrid_solver* solver, int rule,
                                                         double calibration_factor);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_method and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_method(esdirk_hybrid_solver* solver, const char* name);
ESDIRK_C_API const char* esdirk_hybrid_solver_method_name(const esdirk_hybrid_solver* solver);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_jacobian_reuse and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_jacobian_reuse(esdirk_hybrid_solver* solver, int reuse,
                                                         double contraction);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_keep_step_ratio and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_keep_step_ratio(esdirk_hybrid_solver* solver,
                                                          double low, double high);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_lu_reuse_h_change and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_lu_reuse_h_change(esdirk_hybrid_solver* solver,
                                                            double fraction);

/** The Newton stopping test of every handle above: ESDIRK_NEWTON_CONTRACTION_RATE (default),
 *  ESDIRK_NEWTON_CORRECTION or ESDIRK_NEWTON_RESIDUAL, and the smallest contraction rate the
 *  rate-based test trusts (Options::newton_rate_floor, default 0.03; in [0, 1), checked for
 *  every test). Checked when set like the setters above; takes effect at the next run. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_newton_test and esdirk_solver_set_options") int esdirk_solver_set_newton_test(esdirk_solver* solver, int test, double rate_floor);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_newton_test and esdirk_shooting_set_options") int esdirk_shooting_set_newton_test(esdirk_shooting* shooting, int test,
                                                 double rate_floor);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_newton_test and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_newton_test(esdirk_reverse_shooting* shooting,
                                                         int test, double rate_floor);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_newton_test and esdirk_multishoot_set_options") int esdirk_multishoot_set_newton_test(esdirk_multishoot* ms, int test,
                                                   double rate_floor);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_newton_test and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_newton_test(esdirk_hybrid_solver* solver, int test,
                                                      double rate_floor);

/** The increment rule of difference Jacobians on every handle above:
 *  ESDIRK_DIFFERENCE_ERROR_WEIGHTED (default) or ESDIRK_DIFFERENCE_RELATIVE
 *  (Options::difference_increment). The sensitivities and adjoints of the handle form the same
 *  columns. No effect on a problem with an analytic Jacobian. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_difference_increment and esdirk_solver_set_options") int esdirk_solver_set_difference_increment(esdirk_solver* solver, int rule);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_difference_increment and esdirk_shooting_set_options") int esdirk_shooting_set_difference_increment(esdirk_shooting* shooting, int rule);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_difference_increment and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_difference_increment(esdirk_reverse_shooting* shooting,
                                                                  int rule);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_difference_increment and esdirk_multishoot_set_options") int esdirk_multishoot_set_difference_increment(esdirk_multishoot* ms, int rule);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_difference_increment and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_difference_increment(esdirk_hybrid_solver* solver,
                                                               int rule);

/** The number of stages s of the method `name` resolves to at relative tolerance rtol ("auto" as
 *  at initialize, by rtol; any other name ignores rtol), what sizes the adjoint's step records:
 *  5 + s (2 nx + 2 nz + 1) doubles each (esdirk_solver_set_adjoint's memory_budget). -1 for a
 *  NULL or unknown name, or "auto" with an rtol that is not finite and > 0. */
ESDIRK_C_API int esdirk_method_stages(const char* name, double rtol);

#ifdef __cplusplus
}
#endif
#endif /* ESDIRK_ESDIRK_METHOD_H */
