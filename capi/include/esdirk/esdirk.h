/* esdirk C API: the ESDIRK34 integrator for stiff ODEs and index-1 DAEs
 *
 *     x' = f(t, x, z, p),   0 = g(t, x, z, p)
 *
 * for C (C99) and, through the Fortran 2003 module, for Fortran callers.
 *
 * Conventions (see doc/c-api-guide.md):
 *  - Opaque handles with *_create / *_free pairs. *_free takes the handle's address, frees
 *    it and sets it to NULL; freeing NULL (or a pointer to NULL) is a no-op.
 *  - Every function returns an int status: ESDIRK_SUCCESS (0) or a negative code. The
 *    handle keeps a readable message of the last failure (esdirk_solver_last_error).
 *  - Sizes are esdirk_int; vectors come with their length, matrices are column-major with an
 *    explicit leading dimension; all output buffers are owned by the caller.
 *  - Callbacks receive the sizes and the caller's user_data (which may be NULL) and return
 *    0 on success, > 0 for a recoverable failure (the step is retried with a smaller h) and
 *    < 0 for a fatal one (the call returns ESDIRK_CALLBACK_FATAL).
 *  - The library never prints and no C++ exception crosses this interface.
 *  - Options take effect at the next esdirk_solver_initialize.
 */
#ifndef ESDIRK_ESDIRK_H
#define ESDIRK_ESDIRK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The one integer type for sizes, indices and leading dimensions. */
typedef int32_t esdirk_int;

/* ---- Status codes ------------------------------------------------------------------------ */
#define ESDIRK_SUCCESS 0
/* Numerical failures; the solution at the last accepted time stays available. */
#define ESDIRK_TOO_MANY_STEPS (-1)
#define ESDIRK_STEP_SIZE_TOO_SMALL (-2)
#define ESDIRK_ERROR_TEST_FAILURES (-3)
#define ESDIRK_NEWTON_FAILURES (-4)
#define ESDIRK_SINGULAR_ITERATION_MATRIX (-5)
#define ESDIRK_CALLBACK_FAILURES (-6)
#define ESDIRK_CALLBACK_FATAL (-7)
#define ESDIRK_INITIALIZATION_FAILED (-8)
#define ESDIRK_SINGULAR_ALGEBRAIC_JACOBIAN (-9)
#define ESDIRK_STRUCTURALLY_SINGULAR (-10) /* structural analysis: no complete matching */
/* Misuse. */
#define ESDIRK_NULL_ARGUMENT (-101)    /* a required pointer (handle, vector, callback) is NULL */
#define ESDIRK_INVALID_ARGUMENT (-102) /* a size, value or option is invalid */
#define ESDIRK_WRONG_CALL_ORDER (-103) /* e.g. integrate before a successful initialize */
#define ESDIRK_OUT_OF_MEMORY (-104)
#define ESDIRK_INTERNAL_ERROR (-105)   /* an unexpected C++ exception (e.g. from a callback) */
#define ESDIRK_BUFFER_TOO_SMALL (-106) /* a caller's text buffer cannot hold the result */

/** A stable lower-case name of a status ("success", "too_many_steps", ...; "unknown"). */
const char* esdirk_status_name(int status);

/* ---- The problem --------------------------------------------------------------------------- */
typedef struct esdirk_problem esdirk_problem;

/** f (size nx) and g (size nz; NULL when nz = 0) at (t, x, z, p). */
typedef int (*esdirk_residual_fn)(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                  const double* x, const double* z, const double* p, double* f,
                                  double* g, void* user_data);
/** J = [f_x f_z; g_x g_z], (nx+nz) x (nx+nz), column-major with leading dimension ldj. */
typedef int (*esdirk_jacobian_fn)(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                  const double* x, const double* z, const double* p, double* J,
                                  esdirk_int ldj, void* user_data);
/** Jp = [f_p; g_p], (nx+nz) x np, column-major with leading dimension ldjp. */
typedef int (*esdirk_parameter_jacobian_fn)(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                            const double* x, const double* z, const double* p,
                                            double* Jp, esdirk_int ldjp, void* user_data);

/** Creates a problem with nx >= 1 differential and nz >= 0 algebraic states and np >= 0
 *  parameters. `residual` is required; `user_data` is passed to every callback. */
int esdirk_problem_create(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_residual_fn residual,
                          void* user_data, esdirk_problem** problem);
/** Optional analytic Jacobians (finite differences otherwise). NULL removes one. */
int esdirk_problem_set_jacobian(esdirk_problem* problem, esdirk_jacobian_fn jacobian);
int esdirk_problem_set_parameter_jacobian(esdirk_problem* problem,
                                          esdirk_parameter_jacobian_fn parameter_jacobian);
/** Frees *problem (which must outlive the solvers that use it) and sets it to NULL. */
void esdirk_problem_free(esdirk_problem** problem);

/* ---- The solver ---------------------------------------------------------------------------- */
typedef struct esdirk_solver esdirk_solver;

int esdirk_solver_create(esdirk_problem* problem, esdirk_solver** solver);
void esdirk_solver_free(esdirk_solver** solver);
/** The message of the last failure on this handle ("" if none). Valid until the next call. */
const char* esdirk_solver_last_error(const esdirk_solver* solver);

/* Options (defaults as in doc/integrator-guide.md); validated at the next initialize. */
int esdirk_solver_set_tolerances(esdirk_solver* solver, double rtol, double atol);
/** Per-component tolerances of the nx differential states. */
int esdirk_solver_set_tolerance_vectors(esdirk_solver* solver, const double* rtol,
                                        const double* atol, esdirk_int nx);
/** Absolute tolerances of the nz algebraic states. */
int esdirk_solver_set_algebraic_atol(esdirk_solver* solver, const double* atol, esdirk_int nz);
int esdirk_solver_set_step_limits(esdirk_solver* solver, double initial_step, double min_step,
                                  double max_step, long max_steps);
int esdirk_solver_set_controller(esdirk_solver* solver, int predictive, double k1, double k2,
                                 double safety, double min_step_ratio, double max_step_ratio);
int esdirk_solver_set_newton(esdirk_solver* solver, int max_iterations, double tolerance,
                             double reference_contraction);
int esdirk_solver_set_filter_error_estimate(esdirk_solver* solver, int filter);
/** Consecutive failures of each kind before a step gives up (defaults 12, 12, 12). */
int esdirk_solver_set_failure_limits(esdirk_solver* solver, int max_error_test_failures,
                                     int max_newton_failures, int max_callback_failures);

/** Sets t0, x0, p and makes z consistent (g(t0, x0, z0) = 0) by Newton from z0_guess. */
int esdirk_solver_initialize(esdirk_solver* solver, double t0, const double* x0, esdirk_int nx,
                             const double* z0_guess, esdirk_int nz, const double* p, esdirk_int np);
/** Restart after a discontinuity: new t, x, p and consistent z; keeps the step-size guess. */
int esdirk_solver_restart(esdirk_solver* solver, double t, const double* x, esdirk_int nx,
                          const double* z_guess, esdirk_int nz, const double* p, esdirk_int np);
/** Integrates to tout and writes x(tout), z(tout) (z may be NULL with nz = 0). On failure
 *  writes the solution at the last accepted time. */
int esdirk_solver_integrate_to(esdirk_solver* solver, double tout, double* x, esdirk_int nx,
                               double* z, esdirk_int nz);
/** One accepted step towards tout (never past the stop time). */
int esdirk_solver_step(esdirk_solver* solver, double tout);
int esdirk_solver_set_stop_time(esdirk_solver* solver, double tstop);
int esdirk_solver_clear_stop_time(esdirk_solver* solver);
/** Dense output over the last accepted step (z is corrected onto g = 0, which evaluates the
 *  model up to twice). */
int esdirk_solver_dense_output(esdirk_solver* solver, double t, double* x, esdirk_int nx, double* z,
                               esdirk_int nz);
/** The current time and state. */
int esdirk_solver_get_state(const esdirk_solver* solver, double* t, double* x, esdirk_int nx,
                            double* z, esdirk_int nz);

/** The integrator's counters (see doc/integrator-guide.md, "Statistics"). */
typedef struct esdirk_statistics {
  int64_t steps;
  int64_t accepted_steps;
  int64_t rejected_steps;
  int64_t function_evaluations;
  int64_t fd_function_evaluations;
  int64_t jacobian_evaluations;
  int64_t lu_factorizations;
  int64_t back_substitutions;
  int64_t newton_iterations;
  int64_t newton_failures;
  int64_t callback_failures;
  int64_t parameter_jacobian_evaluations;
  int64_t sensitivity_solves;
  int64_t events;
  int64_t adjoint_steps;
  int64_t checkpoints;
} esdirk_statistics;

int esdirk_solver_get_statistics(const esdirk_solver* solver, esdirk_statistics* statistics);

/* ---- Forward sensitivities (staggered direct, seed 002 Algorithms 1-2) -------------------- */
#define ESDIRK_SENSITIVITY_EXACT 0 /* derivative of the discrete solution (default) */
#define ESDIRK_SENSITIVITY_PAPER 1 /* seed 002 Algorithm 2: Jacobians frozen at t_n */

/** The sensitivity mode and whether the sensitivities enter the error test (default: exact,
 *  off). Takes effect at the next esdirk_solver_start_sensitivities. */
int esdirk_solver_set_sensitivity_options(esdirk_solver* solver, int mode, int error_control);
/** Starts the sensitivities at the solver's current point (after initialize or restart; after
 *  integrate_to that point is the last accepted time, which may lie beyond tout: set a stop
 *  time to start exactly at an output time).
 *  `seed` is (nx + np) x ns, column-major with leading dimension ld >= nx + np: each column a
 *  direction (dx0; dp). NULL seeds the identity (ns must then be nx + np). */
int esdirk_solver_start_sensitivities(esdirk_solver* solver, const double* seed, esdirk_int rows,
                                      esdirk_int ns, esdirk_int ld);
/** Integrates states and sensitivities to tout: x, z as esdirk_solver_integrate_to, Sx
 *  (nx x ns, leading dimension ldsx) and Sz (nz x ns, ldsz; may be NULL). */
int esdirk_solver_integrate_sensitivities_to(esdirk_solver* solver, double tout, double* x,
                                             esdirk_int nx, double* z, esdirk_int nz, double* Sx,
                                             esdirk_int ldsx, double* Sz, esdirk_int ldsz,
                                             esdirk_int ns);

/* ---- The shooting interval (seed 002 section 2) ------------------------------------------- */
typedef struct esdirk_shooting esdirk_shooting;

/** The running cost h(t, x, z, u) and its gradients dh/dx (nx), dh/dz (nz), dh/du (nu). */
typedef int (*esdirk_running_cost_fn)(esdirk_int nx, esdirk_int nz, esdirk_int nu, double t,
                                      const double* x, const double* z, const double* u,
                                      double* value, double* dh_dx, double* dh_dz, double* dh_du,
                                      void* user_data);

/** An interval integrator for `problem`, whose parameters are the controls u (nu = np). */
int esdirk_shooting_create(esdirk_problem* problem, esdirk_shooting** shooting);
void esdirk_shooting_free(esdirk_shooting** shooting);
const char* esdirk_shooting_last_error(const esdirk_shooting* shooting);
/** Options, taking effect at the next esdirk_shooting_integrate. */
int esdirk_shooting_set_tolerances(esdirk_shooting* shooting, double rtol, double atol);
int esdirk_shooting_set_algebraic_atol(esdirk_shooting* shooting, const double* atol,
                                       esdirk_int nz);
int esdirk_shooting_set_sensitivity_mode(esdirk_shooting* shooting, int mode);
/** The running cost (NULL: none, H = q = r = 0). */
int esdirk_shooting_set_running_cost(esdirk_shooting* shooting, esdirk_running_cost_fn cost,
                                     void* user_data);
/** Integrates [t_k, t_end] from x_k with u_k held constant and writes x_{k+1} (required),
 *  z_{k+1} (nz), A = dx_{k+1}/dx_k (nx x nx, lda), B = dx_{k+1}/du_k (nx x nu, ldb),
 *  H = int h dt, q = dH/dx_k (nx), r = dH/du_k (nu); every output but x_next may be NULL.
 *  z_guess (nz, may be NULL: the previous interval's z) starts the consistent initialization.
 *  Repeated calls reuse all storage and warm-start the step size. */
int esdirk_shooting_integrate(esdirk_shooting* shooting, double t_k, double t_end,
                              const double* x_k, esdirk_int nx, const double* u_k, esdirk_int nu,
                              const double* z_guess, esdirk_int nz, double* x_next, double* z_next,
                              double* A, esdirk_int lda, double* B, esdirk_int ldb, double* H,
                              double* q, double* r);
/** dz_{k+1}/dx_k (nz x nx) and dz_{k+1}/du_k (nz x nu) of the last successful interval. */
int esdirk_shooting_get_algebraic_sensitivities(const esdirk_shooting* shooting, double* Az,
                                                esdirk_int ldaz, double* Bz, esdirk_int ldbz);
/** Counters of the last interval (total = 0) or summed over all intervals (total = 1). */
int esdirk_shooting_get_statistics(const esdirk_shooting* shooting, int total,
                                   esdirk_statistics* statistics);

/* ---- Structural analysis (Pryce's Sigma-method, seed 004) --------------------------------- */
/** Analyses a model given in the text format of doc/structural-guide.md and writes the full
 *  report (text, or JSON if json != 0) with its terminating NUL into buffer (capacity bytes).
 *  *length receives the report's length without the NUL; *well_posed (may be NULL) 1 or 0.
 *  Returns ESDIRK_BUFFER_TOO_SMALL (with *length set) if it does not fit, and
 *  ESDIRK_INVALID_ARGUMENT with the "line:column: error: ..." message in buffer for a
 *  malformed model. */
int esdirk_structural_report(const char* model_text, int json, char* buffer, size_t capacity,
                             size_t* length, int* well_posed);
/** The Sigma-method on a signature matrix given as arrays of (equation, variable, order)
 *  entries with 0-based indices. Writes the canonical offsets (n_equations and n_variables
 *  entries), the seed's index (max c), Pryce's structural index and the degrees of freedom.
 *  Returns ESDIRK_STRUCTURALLY_SINGULAR when no complete matching exists. Any output may be
 *  NULL. */
int esdirk_structural_sigma(esdirk_int n_equations, esdirk_int n_variables, esdirk_int n_entries,
                            const esdirk_int* entry_equation, const esdirk_int* entry_variable,
                            const esdirk_int* entry_order, esdirk_int* equation_offsets,
                            esdirk_int* variable_offsets, esdirk_int* max_offset_index,
                            esdirk_int* pryce_structural_index, int64_t* degrees_of_freedom);

#ifdef __cplusplus
}
#endif
#endif /* ESDIRK_ESDIRK_H */
