/* esdirk C API: the method, the tolerance rule and LU/Jacobian reuse of an esdirk_solver
 * (C99; Fortran: the module esdirk_method).
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

#ifdef __cplusplus
extern "C" {
#endif

/* How the tolerances of esdirk_solver_set_tolerances become the tolerances of the error test
 * (doc/integrator-theory.md section 4a). */
#define ESDIRK_TOLERANCE_CALIBRATED 0 /* default: the achieved global error is about rtol */
#define ESDIRK_TOLERANCE_RAW 1        /* seed 002: the error test uses rtol and atol as given */

/** The tolerance rule (ESDIRK_TOLERANCE_CALIBRATED or ESDIRK_TOLERANCE_RAW) and the calibrated
 *  rule's factor kappa: 0 takes the method's measured constant (the default), otherwise finite
 *  and > 0 (ignored by the raw rule, but still checked). */
ESDIRK_C_API int esdirk_solver_set_tolerance_rule(esdirk_solver* solver, int rule,
                                                  double calibration_factor);

/** The Runge-Kutta method by name: "ESDIRK34" (default), "ESDIRK436" (order 4), "ESDIRK547"
 *  (order 5), "ESDIRK23", "ESDIRK12", or "auto" (chosen by rtol at initialize: ESDIRK436 at and
 *  below 1e-5, else ESDIRK34; see doc/integrator-guide.md). Names are case-sensitive; any other
 *  name is refused. */
ESDIRK_C_API int esdirk_solver_set_method(esdirk_solver* solver, const char* name);

/** The name of the method: after esdirk_solver_initialize the one in use ("auto" resolved to
 *  the member it chose), before it the one set. NULL for a NULL solver. Valid until the next
 *  call on the solver. */
ESDIRK_C_API const char* esdirk_solver_method_name(const esdirk_solver* solver);

/** States only: keep the Jacobian of the last step while its Newton iterations contracted at
 *  least as fast as `contraction` (in (0, 1); default 0.1). reuse 0 (default): J at t_n every
 *  step. Sensitivities and the adjoint refuse a solver with reuse on
 *  (esdirk_solver_start_sensitivities and esdirk_solver_initialize with a recording adjoint
 *  return ESDIRK_INVALID_ARGUMENT). Dense problems only: banded and sparse ones ignore it. */
ESDIRK_C_API int esdirk_solver_set_jacobian_reuse(esdirk_solver* solver, int reuse,
                                                  double contraction);

/** Keep h (and with Jacobian reuse the LU) when the controller proposes a ratio h_new/h in
 *  [low, high] after an accepted step. Need 0 < low <= 1 <= high <= the controller's
 *  max_step_ratio (checked again at initialize, against the controller then set). Default
 *  [1, 1]: h always moves. */
ESDIRK_C_API int esdirk_solver_set_keep_step_ratio(esdirk_solver* solver, double low,
                                                   double high);

#ifdef __cplusplus
}
#endif
#endif /* ESDIRK_ESDIRK_METHOD_H */
