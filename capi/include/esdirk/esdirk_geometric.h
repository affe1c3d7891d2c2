/* esdirk C API: geometric integrators for adjoint systems (C99). Partner tableaus of any
 * Runge-Kutta method with their symplecticity defect, and the adjoint of an ODE or an index-1
 * DAE integrated as a (pre)symplectic partitioned Runge-Kutta method over fixed steps: the
 * Type II steps (q_n, p_n+1) -> (q_n+1, p_n) of Tran & Leok (eqs. 3.7, 3.9).
 * doc/geometric-adjoint-guide.md.
 *
 *     esdirk_geometric* g = NULL;
 *     esdirk_geometric_create(problem, "radau3", &g);        // the method and its partner
 *     esdirk_geometric_forward(g, times, N + 1, q0, nx, u0_guess, nz);
 *     esdirk_geometric_backward(g, gradC, nx, NULL, NULL);    // p_N = grad C(q_N)
 *     esdirk_geometric_get(g, 0, &t0, NULL, nx, NULL, 0, p0, NULL);  // p_0 = dC/dq0
 *     esdirk_geometric_free(&g);
 *
 * The problem is an esdirk_problem read as q' = f(t, q, u), 0 = phi(t, q, u) (x = q, z = u,
 * g = phi). The conventions of esdirk.h hold: int statuses (negative on failure) with the
 * handle's last error as text, no printing, no exception across the boundary. Numerical
 * failures: ESDIRK_CONSTRAINT_SOLVE_FAILED (the stage equations did not converge),
 * ESDIRK_SINGULAR_CONSTRAINT_JACOBIAN (dphi/du singular: not of index 1), ESDIRK_CALLBACK_*.
 * Misuse (a zero weight where the partner form is asked for, non-finite tableau entries, wrong
 * sizes, wrong call order): ESDIRK_INVALID_ARGUMENT, ESDIRK_NULL_ARGUMENT,
 * ESDIRK_WRONG_CALL_ORDER.
 */
#ifndef ESDIRK_ESDIRK_GEOMETRIC_H
#define ESDIRK_ESDIRK_GEOMETRIC_H

#include "esdirk/esdirk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Tableaus ------------------------------------------------------------------------------- */

/** The name of built-in tableau k (0-based; NULL outside, so a loop until NULL lists them): "gauss1"
 *  .. "gauss4", "radau1" .. "radau3", "lobatto_iiia2" .. "4", "lobatto_iiib2" .. "4",
 *  "backward_euler", "esdirk12", "esdirk23", "esdirk34", "explicit_midpoint", "rk4",
 *  "sdirk2". */
ESDIRK_C_API const char* esdirk_geometric_tableau_name(esdirk_int k);
/** Deprecated (one release): the number of built-in tableaus (the first k whose name is NULL). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_geometric_tableau_name, which is NULL past the last") esdirk_int esdirk_geometric_tableau_count(void);
/** The stage count of a built-in tableau (ESDIRK_INVALID_ARGUMENT for an unknown name). */
ESDIRK_C_API int esdirk_geometric_tableau_stages(const char* name, esdirk_int* stages);
/** Its coefficients: a (stages x stages, row-major), b, c (stages each) and the classical
 *  order; `stages` must be the tableau's (ESDIRK_INVALID_ARGUMENT otherwise). */
ESDIRK_C_API int esdirk_geometric_tableau(const char* name, esdirk_int stages, double* a, double* b,
                                          double* c, esdirk_int* order);
/** The symplectic partner a~_ij = b_j - b_j a_ji / b_i (row-major) of any tableau, and
 *  max |b_i a~_ij + b_j a_ji - b_i b_j| in *defect (may be NULL). ESDIRK_INVALID_ARGUMENT for
 *  stages < 1, a non-finite entry or a zero weight (no partner with the same weights). */
ESDIRK_C_API int esdirk_geometric_partner(esdirk_int stages, const double* a, const double* b,
                                          double* partner, double* defect);

/* ---- The adjoint integrator ------------------------------------------------------------------ */
typedef struct esdirk_geometric esdirk_geometric;

/** The adjoint forms (esdirk::geometric::AdjointForm). */
#define ESDIRK_GEOMETRIC_UNNORMALIZED 0 /**< zero-weight-safe recursion, any tableau (default) */
#define ESDIRK_GEOMETRIC_PARTNER 1      /**< the PRK with the pair's a~ (3.9); all b_i != 0 */

/** A built-in tableau with its symplectic partner, or "pghvi1" (backward Euler with a~ = 0)
 *  or "be1" (backward Euler on both q and p, not symplectic; use the partner form). A
 *  tableau with a zero weight is taken with the unnormalized form only. `problem` must
 *  outlive the handle. */
ESDIRK_C_API int esdirk_geometric_create(esdirk_problem* problem, const char* tableau,
                                         esdirk_geometric** geometric);
/** Any tableau (a row-major, b, c) and partner coefficients a~ (row-major; NULL: the
 *  symplectic partner, which needs every b_i != 0). */
ESDIRK_C_API int esdirk_geometric_create_pair(esdirk_problem* problem, esdirk_int stages,
                                              const double* a, const double* b, const double* c,
                                              const double* partner, esdirk_geometric** geometric);
/** Frees *geometric and sets it to NULL. */
ESDIRK_C_API void esdirk_geometric_free(esdirk_geometric** geometric);
ESDIRK_C_API const char* esdirk_geometric_last_error(const esdirk_geometric* geometric);
/** The stage-equation tolerance (> 0; default 1e-13), Newton iterations per stage block
 *  (>= 1; default 25) and the form (ESDIRK_GEOMETRIC_*). Takes effect at the next forward. */
ESDIRK_C_API int esdirk_geometric_set_options(esdirk_geometric* geometric, double tolerance,
                                              esdirk_int max_iterations, int form);
/** The symplecticity defect of the handle's pair. */
ESDIRK_C_API int esdirk_geometric_symplecticity_defect(const esdirk_geometric* geometric,
                                                       double* defect);
/** The model's parameters (np values; zeros until set). */
ESDIRK_C_API int esdirk_geometric_set_parameters(esdirk_geometric* geometric, const double* p,
                                                 esdirk_int np);
/** The forward sweep over the step ends times[0..ntimes-1] (strictly monotone, ntimes >= 2)
 *  from q0 (nx) with the algebraic guess u0 (nz; made consistent). */
ESDIRK_C_API int esdirk_geometric_forward(esdirk_geometric* geometric, const double* times,
                                          esdirk_int ntimes, const double* q0, esdirk_int nx,
                                          const double* u0, esdirk_int nz);
/** The gradient of a running cost L(t, q, u): dq (nx) and du (nz; NULL when nz = 0) arrive
 *  zero. Returns 0, > 0 for a failure, < 0 fatal. */
typedef int (*esdirk_geometric_running_fn)(esdirk_int nx, esdirk_int nz, double t, const double* q,
                                           const double* u, double* dq, double* du,
                                           void* user_data);
/** The backward sweep from p_N (nx), with an optional running cost (NULL: none). */
ESDIRK_C_API int esdirk_geometric_backward(esdirk_geometric* geometric, const double* pN,
                                           esdirk_int nx, esdirk_geometric_running_fn running,
                                           void* user_data);
/** The tangent sweep (3.8) from dq_0 (nx). */
ESDIRK_C_API int esdirk_geometric_tangent(esdirk_geometric* geometric, const double* dq0,
                                          esdirk_int nx);
/** The number of steps of the last complete forward sweep. */
ESDIRK_C_API int esdirk_geometric_steps(const esdirk_geometric* geometric, esdirk_int* steps);
/** Step point n (0..steps): t_n, q_n (nx), u_n (nz), p_n and dq_n (nx each); any pointer may
 *  be NULL. p_n and dq_n are those of the last backward / tangent sweep (zeros before). */
ESDIRK_C_API int esdirk_geometric_get(const esdirk_geometric* geometric, esdirk_int n, double* t,
                                      double* q, esdirk_int nx, double* u, esdirk_int nz, double* p,
                                      double* dq);
/** The largest stage-equation defect of the forward sweep, the largest (3.9f) defect of the
 *  backward sweep and the relative drift of <p_n, dq_n> (after backward and tangent; without
 *  a running cost); any pointer may be NULL. */
ESDIRK_C_API int esdirk_geometric_diagnostics(const esdirk_geometric* geometric,
                                              double* forward_defect, double* adjoint_defect,
                                              double* pairing_drift);
/** The presymplectic defect max |M^T J M - J| of the one-step map (q0, p0) -> (q1, p1) of one
 *  step (t, h) from q0 (nx), u_guess (nz) with p1 (nx), by difference quotients. */
ESDIRK_C_API int esdirk_geometric_one_step_defect(esdirk_geometric* geometric, double t, double h,
                                                  const double* q0, const double* u_guess,
                                                  const double* p1, double* defect);

#ifdef __cplusplus
}
#endif

#endif
