/* esdirk C API: the ESDIRK integrators (ESDIRK34, ESDIRK436, ESDIRK547) for stiff ODEs and
 * index-1 DAEs
 *
 *     x' = f(t, x, z, p),   0 = g(t, x, z, p)
 *
 * for C (C99) and, through the Fortran 2003 module, for Fortran callers.
 *
 * Conventions (see doc/c-api-guide.md):
 *  - Opaque handles with *_create / *_free pairs. *_free takes the handle's address, frees
 *    it and sets it to NULL; freeing NULL (or a pointer to NULL) is a no-op.
 *  - Every function returns an int status: ESDIRK_SUCCESS (0), a positive code for a normal
 *    stop of an integration before tout (ESDIRK_STOP_TIME_REACHED), or a negative code for a
 *    failure; test `status < 0`. The handle keeps a readable message of the last failure
 *    (esdirk_solver_last_error).
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

/* ESDIRK_C_API marks the exported functions (the library hides everything else). A program
 * that links the static library may define ESDIRK_STATIC_DEFINE (the esdirk::static target
 * does) to drop the mark. */
#ifndef ESDIRK_C_API
#if defined(ESDIRK_STATIC_DEFINE)
#define ESDIRK_C_API
#elif defined(_WIN32)
#if defined(ESDIRK_BUILDING_LIBRARY)
#define ESDIRK_C_API __declspec(dllexport)
#else
#define ESDIRK_C_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define ESDIRK_C_API __attribute__((visibility("default")))
#else
#define ESDIRK_C_API
#endif
#endif

/* ESDIRK_DEPRECATED marks a function kept for one release beside its replacement (GCC and
 * clang warn at each call, naming the replacement; doc/c-api-guide.md lists them). A caller
 * that must keep calling one may define ESDIRK_NO_DEPRECATION_WARNINGS. */
#ifndef ESDIRK_DEPRECATED
#if defined(__GNUC__) && !defined(ESDIRK_NO_DEPRECATION_WARNINGS)
#define ESDIRK_DEPRECATED(replacement) __attribute__((deprecated("use " replacement)))
#else
#define ESDIRK_DEPRECATED(replacement)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The one integer type for sizes, indices and leading dimensions. */
typedef int32_t esdirk_int;

/* ---- Status codes ------------------------------------------------------------------------ */
/* The codes, their names and one-line messages are the rows of <esdirk/status_codes.def>, the
 * one table shared with C++ (esdirk::Status) and Fortran (the esdirk module). The enumerators
 * are ESDIRK_ followed by the table's C_NAME:
 *    0  ESDIRK_SUCCESS: done (integrate_to reached tout; step took one step)
 *  > 0  normal stops before tout: ESDIRK_STOP_TIME_REACHED (1), ESDIRK_LISTENER_STOP (2)
 *  < 0  failures: numerical ones from -1 (ESDIRK_TOO_MANY_STEPS, ...), ESDIRK_STRUCTURALLY_
 *       SINGULAR (-10), misuse from -101 (ESDIRK_NULL_ARGUMENT, ESDIRK_INVALID_ARGUMENT, ...)
 * So `status < 0` tests for failure. The values never change between versions. */
#define ESDIRK_STATUS(kind, name, C_NAME, value, message) ESDIRK_##C_NAME = value,
enum esdirk_status_code {
#include "esdirk/status_codes.def"
};
#undef ESDIRK_STATUS

/** A stable lower-case name of a status ("success", "too_many_steps", ...; "unknown"). */
ESDIRK_C_API const char* esdirk_status_name(int status);
/** One line that says what a status means ("unknown status" for a value not in the table). */
ESDIRK_C_API const char* esdirk_status_message(int status);

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
ESDIRK_C_API int esdirk_problem_create(esdirk_int nx, esdirk_int nz, esdirk_int np,
                                       esdirk_residual_fn residual, void* user_data,
                                       esdirk_problem** problem);
/** Optional analytic Jacobians (finite differences otherwise). NULL removes one. */
ESDIRK_C_API int esdirk_problem_set_jacobian(esdirk_problem* problem, esdirk_jacobian_fn jacobian);
ESDIRK_C_API int esdirk_problem_set_parameter_jacobian(
    esdirk_problem* problem, esdirk_parameter_jacobian_fn parameter_jacobian);
/** Frees *problem (which must outlive the solvers that use it) and sets it to NULL. */
ESDIRK_C_API void esdirk_problem_free(esdirk_problem** problem);

/* ---- The solver ---------------------------------------------------------------------------- */
typedef struct esdirk_solver esdirk_solver;

ESDIRK_C_API int esdirk_solver_create(esdirk_problem* problem, esdirk_solver** solver);
ESDIRK_C_API void esdirk_solver_free(esdirk_solver** solver);
/** The message of the last failure on this handle ("" if none). Valid until the next call. */
ESDIRK_C_API const char* esdirk_solver_last_error(const esdirk_solver* solver);

/* Options (defaults as in doc/integrator-guide.md); validated at the next initialize. */
/** Deprecated (one release): esdirk_options_set_tolerances. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerances and esdirk_solver_set_options") int esdirk_solver_set_tolerances(esdirk_solver* solver, double rtol, double atol);
/** Per-component tolerances of the nx differential states. */
ESDIRK_C_API int esdirk_solver_set_tolerance_vectors(esdirk_solver* solver, const double* rtol,
                                                     const double* atol, esdirk_int nx);
/** Absolute tolerances of the nz algebraic states. */
/** Deprecated (one release): esdirk_options_set_algebraic_atol. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_algebraic_atol and esdirk_solver_set_options") int esdirk_solver_set_algebraic_atol(esdirk_solver* solver, const double* atol,
                                                  esdirk_int nz);
/** Deprecated (one release): esdirk_options_set_step_limits, _set_controller, _set_newton,
 *  _set_filter_error_estimate, _set_failure_limits (the same values; the object checks them when
 *  set, these at the next initialize, as they always did). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_step_limits and esdirk_solver_set_options") int esdirk_solver_set_step_limits(esdirk_solver* solver, double initial_step,
                                               double min_step, double max_step, long max_steps);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_controller and esdirk_solver_set_options") int esdirk_solver_set_controller(esdirk_solver* solver, int predictive, double k1,
                                              double k2, double safety, double min_step_ratio,
                                              double max_step_ratio);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_newton and esdirk_solver_set_options") int esdirk_solver_set_newton(esdirk_solver* solver, int max_iterations,
                                          double tolerance, double reference_contraction);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_filter_error_estimate and esdirk_solver_set_options") int esdirk_solver_set_filter_error_estimate(esdirk_solver* solver, int filter);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_failure_limits and esdirk_solver_set_options") int esdirk_solver_set_failure_limits(esdirk_solver* solver,
                                                  int max_error_test_failures,
                                                  int max_newton_failures,
                                                  int max_callback_failures);

/** Sets t0, x0, p and makes z consistent (g(t0, x0, z0) = 0) by Newton from z0_guess. A call
 *  that fails keeps the solver's previous state. */
ESDIRK_C_API int esdirk_solver_initialize(esdirk_solver* solver, double t0, const double* x0,
                                          esdirk_int nx, const double* z0_guess, esdirk_int nz,
                                          const double* p, esdirk_int np);
/** Restart after a discontinuity: new t, x, p and consistent z; keeps the step-size guess. A
 *  restart that fails (no consistent z, a failing callback) keeps the previous state, from which
 *  the solver can go on. */
ESDIRK_C_API int esdirk_solver_restart(esdirk_solver* solver, double t, const double* x,
                                       esdirk_int nx, const double* z_guess, esdirk_int nz,
                                       const double* p, esdirk_int np);
/** Integrates to tout and writes x(tout), z(tout) (z may be NULL with nz = 0). Returns
 *  ESDIRK_SUCCESS when tout was reached, ESDIRK_STOP_TIME_REACHED (1) when a stop time set by
 *  esdirk_solver_set_stop_time lies before tout and was reached exactly (x, z are then the
 *  solution at the stop time: see esdirk_solver_get_state for t), ESDIRK_LISTENER_STOP (2)
 *  when a step listener stopped the run, and a negative code on failure, when it writes the
 *  solution at the last accepted time. */
ESDIRK_C_API int esdirk_solver_integrate_to(esdirk_solver* solver, double tout, double* x,
                                            esdirk_int nx, double* z, esdirk_int nz);
/** One accepted step towards tout (never past the stop time). Returns ESDIRK_SUCCESS after
 *  one step, ESDIRK_STOP_TIME_REACHED when that step ended exactly at the stop time. */
ESDIRK_C_API int esdirk_solver_step(esdirk_solver* solver, double tout);
ESDIRK_C_API int esdirk_solver_set_stop_time(esdirk_solver* solver, double tstop);
ESDIRK_C_API int esdirk_solver_clear_stop_time(esdirk_solver* solver);
/** Dense output over the last accepted step (z is corrected onto g = 0, which evaluates the
 *  model up to twice). */
ESDIRK_C_API int esdirk_solver_dense_output(esdirk_solver* solver, double t, double* x,
                                            esdirk_int nx, double* z, esdirk_int nz);
/** The current time and state. */
ESDIRK_C_API int esdirk_solver_get_state(const esdirk_solver* solver, double* t, double* x,
                                         esdirk_int nx, double* z, esdirk_int nz);

/** The integrator's counters (see doc/integrator-guide.md, "Statistics").
 *
 *  The struct only grows at its end, and the library fills only as much of it as the caller
 *  says it has: set struct_size to sizeof(esdirk_statistics) (ESDIRK_STATISTICS_INIT does),
 *  and a program compiled against an older, shorter struct keeps working with a newer
 *  library (the counters it knows are filled, nothing past struct_size is written). A
 *  struct_size larger than this library's struct (a newer header, or garbage from a struct
 *  left uninitialized) is ESDIRK_INVALID_ARGUMENT and nothing is written: read newer
 *  counters by name. struct_size is read, never written; 0 (a struct left zeroed) is
 *  ESDIRK_INVALID_ARGUMENT too.
 *  Every counter, including ones added after this struct was last extended, can also be read
 *  by name with esdirk_solver_get_counter. */
typedef struct esdirk_statistics {
  size_t struct_size; /* set by the caller: sizeof(esdirk_statistics) */
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
  /* New counters are appended here, never inserted above. */
} esdirk_statistics;

/** An esdirk_statistics with struct_size set and every counter 0:
 *  `esdirk_statistics stats = ESDIRK_STATISTICS_INIT;` */
#define ESDIRK_STATISTICS_INIT \
  { sizeof(esdirk_statistics), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

/** Deprecated (one release): every counter by name with *_get_counter, the names from
 *  esdirk_counter_name. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_solver_get_counter and esdirk_counter_name") int esdirk_solver_get_statistics(const esdirk_solver* solver,
                                              esdirk_statistics* statistics);
/** One counter by its name (as in doc/integrator-guide.md: "steps", "lu_factorizations",
 *  ...); ESDIRK_INVALID_ARGUMENT for a name the library does not know. */
ESDIRK_C_API int esdirk_solver_get_counter(const esdirk_solver* solver, const char* name,
                                           int64_t* value);
/** The name of the index-th counter (0-based) of the library's statistics, NULL past the
 *  last: walk it to list every counter of this version of the library. */
ESDIRK_C_API const char* esdirk_counter_name(int index);

/* ---- Forward sensitivities (staggered direct, Kristensen et al. 2005 Algorithms 1-2) --------- */
#define ESDIRK_SENSITIVITY_EXACT 0 /* derivative of the discrete solution (default) */
#define ESDIRK_SENSITIVITY_PAPER 1 /* Kristensen et al. 2005 Algorithm 2: Jacobians frozen at t_n */

/* Whether the sensitivities enter the error test: the library's choice for the mode (on in
 * exact mode, off in paper mode), off (the configuration of Kristensen et al. 2005), or on. */
#define ESDIRK_ERROR_CONTROL_DEFAULT (-1)
#define ESDIRK_ERROR_CONTROL_OFF 0
#define ESDIRK_ERROR_CONTROL_ON 1

/** Deprecated (one release): esdirk_options_set_sensitivity (esdirk_options.h). The
 *  sensitivity mode (default: exact) and whether the sensitivities enter the error test
 *  (ESDIRK_ERROR_CONTROL_DEFAULT: on in exact mode, off in paper mode; _OFF; _ON). Takes
 *  effect at the next esdirk_solver_start_sensitivities. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_sensitivity and esdirk_solver_set_options") int esdirk_solver_set_sensitivity_options(esdirk_solver* solver, int mode,
                                                       int error_control);
/** Starts the sensitivities at the solver's current point (after initialize or restart; after
 *  integrate_to that point is the last accepted time, which may lie beyond tout: set a stop
 *  time to start exactly at an output time).
 *  `seed` is (nx + np) x ns, column-major with leading dimension ld >= nx + np: each column a
 *  direction (dx0; dp). NULL seeds the identity (ns must then be nx + np). */
ESDIRK_C_API int esdirk_solver_start_sensitivities(esdirk_solver* solver, const double* seed,
                                                   esdirk_int rows, esdirk_int ns, esdirk_int ld);
/** Integrates states and sensitivities to tout: x, z as esdirk_solver_integrate_to, Sx
 *  (nx x ns, leading dimension ldsx) and Sz (nz x ns, ldsz; may be NULL). */
ESDIRK_C_API int esdirk_solver_integrate_sensitivities_to(esdirk_solver* solver, double tout,
                                                          double* x, esdirk_int nx, double* z,
                                                          esdirk_int nz, double* Sx,
                                                          esdirk_int ldsx, double* Sz,
                                                          esdirk_int ldsz, esdirk_int ns);

/* ---- The shooting interval (Kristensen et al. 2005 section 2) -------------------------------- */
typedef struct esdirk_shooting esdirk_shooting;

/** The running cost h(t, x, z, u) and its gradients dh/dx (nx), dh/dz (nz), dh/du (nu). */
typedef int (*esdirk_running_cost_fn)(esdirk_int nx, esdirk_int nz, esdirk_int nu, double t,
                                      const double* x, const double* z, const double* u,
                                      double* value, double* dh_dx, double* dh_dz, double* dh_du,
                                      void* user_data);

/** An interval integrator for `problem`, whose parameters are the controls u (nu = np). */
ESDIRK_C_API int esdirk_shooting_create(esdirk_problem* problem, esdirk_shooting** shooting);
ESDIRK_C_API void esdirk_shooting_free(esdirk_shooting** shooting);
ESDIRK_C_API const char* esdirk_shooting_last_error(const esdirk_shooting* shooting);
/** Options, taking effect at the next esdirk_shooting_integrate. */
/** Deprecated (one release): esdirk_options_set_tolerances. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerances and esdirk_shooting_set_options") int esdirk_shooting_set_tolerances(esdirk_shooting* shooting, double rtol,
                                                double atol);
/** Deprecated (one release): esdirk_options_set_algebraic_atol. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_algebraic_atol and esdirk_shooting_set_options") int esdirk_shooting_set_algebraic_atol(esdirk_shooting* shooting, const double* atol,
                                                    esdirk_int nz);
/** Deprecated (one release): esdirk_options_set_sensitivity (mode and error control). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_sensitivity and esdirk_shooting_set_options") int esdirk_shooting_set_sensitivity_mode(esdirk_shooting* shooting, int mode);
/** Deprecated (one release): esdirk_options_set_step_limits (its max_steps: attempted steps per
 *  interval before it fails with ESDIRK_TOO_MANY_STEPS, default 500000). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_step_limits and esdirk_shooting_set_options") int esdirk_shooting_set_max_steps(esdirk_shooting* shooting, long max_steps);
/** ESDIRK_ERROR_CONTROL_DEFAULT (the default: on in exact mode), _OFF (as Kristensen et al.
 *  2005) or _ON. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_sensitivity and esdirk_shooting_set_options") int esdirk_shooting_set_sensitivity_error_control(esdirk_shooting* shooting,
                                                               int error_control);
/** The running cost (NULL: none, H = q = r = 0). */
ESDIRK_C_API int esdirk_shooting_set_running_cost(esdirk_shooting* shooting,
                                                  esdirk_running_cost_fn cost, void* user_data);
/** Integrates [t_k, t_end] from x_k with u_k held constant and writes x_{k+1} (required),
 *  z_{k+1} (nz), A = dx_{k+1}/dx_k (nx x nx, lda), B = dx_{k+1}/du_k (nx x nu, ldb),
 *  H = int h dt, q = dH/dx_k (nx), r = dH/du_k (nu); every output but x_next may be NULL.
 *  z_guess (nz, may be NULL: the previous interval's z) starts the consistent initialization.
 *  Repeated calls reuse all storage and warm-start the step size. */
ESDIRK_C_API int esdirk_shooting_integrate(esdirk_shooting* shooting, double t_k, double t_end,
                                           const double* x_k, esdirk_int nx, const double* u_k,
                                           esdirk_int nu, const double* z_guess, esdirk_int nz,
                                           double* x_next, double* z_next, double* A,
                                           esdirk_int lda, double* B, esdirk_int ldb, double* H,
                                           double* q, double* r);
/** dz_{k+1}/dx_k (nz x nx) and dz_{k+1}/du_k (nz x nu) of the last successful interval. */
ESDIRK_C_API int esdirk_shooting_get_algebraic_sensitivities(const esdirk_shooting* shooting,
                                                             double* Az, esdirk_int ldaz,
                                                             double* Bz, esdirk_int ldbz);
/** Counters of the last interval (total = 0) or summed over all intervals (total = 1). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_shooting_get_counter and esdirk_counter_name") int esdirk_shooting_get_statistics(const esdirk_shooting* shooting, int total,
                                                esdirk_statistics* statistics);
/** One counter of the last interval (total = 0) or of all intervals (total = 1) by name. */
ESDIRK_C_API int esdirk_shooting_get_counter(const esdirk_shooting* shooting, int total,
                                             const char* name, int64_t* value);
/* Fixed and frozen meshes (doc/multiple-shooting-guide.md, "Fixed and frozen meshes"). Bad input
 * returns ESDIRK_INVALID_ARGUMENT with a message naming the argument and keeps the previous
 * mesh. The settings survive option changes (a frozen mesh then adapts again). */
/** `steps` equal steps per interval without the error test (1 <= steps <= max_steps): a cost
 *  known in advance, and A, B the exact derivative of that discrete map. */
ESDIRK_C_API int esdirk_shooting_set_fixed_steps(esdirk_shooting* shooting, esdirk_int steps);
/** A fixed mesh: n_points points 0 = s_0 < s_1 < ... measured from t_k, for intervals of length
 *  s_{n_points-1} (an interval of another length returns ESDIRK_INVALID_ARGUMENT). */
ESDIRK_C_API int esdirk_shooting_set_mesh(esdirk_shooting* shooting, const double* points,
                                          esdirk_int n_points);
/** Frozen mesh: the next interval adapts and keeps its steps, later intervals of the same length
 *  reuse them. */
ESDIRK_C_API int esdirk_shooting_freeze_mesh(esdirk_shooting* shooting);
/** With a frozen mesh: the next interval adapts again and freezes its steps. */
ESDIRK_C_API int esdirk_shooting_refresh_mesh(esdirk_shooting* shooting);
/** Error-controlled steps on every interval (the default). */
ESDIRK_C_API int esdirk_shooting_use_adaptive_steps(esdirk_shooting* shooting);
/** The last successful interval's error estimate: the largest error-test norm of its steps
 *  (states and, under sensitivity error control, A and B); <= 1 means the steps met the
 *  tolerances, above 1 on a fixed or frozen mesh that the mesh is too coarse for rtol. */
ESDIRK_C_API int esdirk_shooting_get_error_estimate(const esdirk_shooting* shooting,
                                                    double* estimate);
/** The mesh (points from t_k) of the last successful interval on a fixed or frozen mesh (none
 *  after adaptive steps): writes *n_points and, if capacity >= *n_points, the points;
 *  otherwise returns ESDIRK_BUFFER_TOO_SMALL. points may be NULL with capacity 0. */
ESDIRK_C_API int esdirk_shooting_get_mesh(const esdirk_shooting* shooting, double* points,
                                          esdirk_int capacity, esdirk_int* n_points);

/* ---- Structural analysis (Pryce's Sigma-method, Benveniste et al. 2021) ---------------------- */
/** Analyses a model given in the text format of doc/structural-guide.md and writes the full
 *  report (text, or JSON if json != 0) with its terminating NUL into buffer (capacity bytes).
 *  *length receives the report's length without the NUL; *well_posed (may be NULL) 1 or 0.
 *  Returns ESDIRK_BUFFER_TOO_SMALL (with *length set) if it does not fit, and
 *  ESDIRK_INVALID_ARGUMENT with the "line:column: error: ..." message in buffer for a
 *  malformed model. */
ESDIRK_C_API int esdirk_structural_report(const char* model_text, int json, char* buffer,
                                          size_t capacity, size_t* length, int* well_posed);
/** The Sigma-method on a signature matrix given as arrays of (equation, variable, order)
 *  entries with 0-based indices. Writes the canonical offsets (n_equations and n_variables
 *  entries), the paper's index (max c), Pryce's structural index and the degrees of freedom.
 *  Returns ESDIRK_STRUCTURALLY_SINGULAR when no complete matching exists. Any output may be
 *  NULL. */
ESDIRK_C_API int esdirk_structural_sigma(
    esdirk_int n_equations, esdirk_int n_variables, esdirk_int n_entries,
    const esdirk_int* entry_equation, const esdirk_int* entry_variable,
    const esdirk_int* entry_order, esdirk_int* equation_offsets, esdirk_int* variable_offsets,
    esdirk_int* max_offset_index, esdirk_int* pryce_structural_index, int64_t* degrees_of_freedom);

/* ---- Hybrid systems: modes, events, transitions, memory (doc/events-guide.md) ------------- */
/* Per mode an index-1 DAE x' = f_m(t, x, z, p, mem), 0 = g_m(...); ne event functions h_m whose
 * zero crossings end a mode; at an event a transition gives the next mode and x+ = phi(t, x-,
 * z-, p, mem); optional memory mem = (x*, z*) (nm = nx + nz values) latched at every transition
 * as (x+, z-). Modes are integers the model chooses. In every callback `mode` is the current
 * mode, the sizes come by value, `mem` is NULL when nm = 0 (z when nz = 0, p when np = 0), and
 * the return value is 0, > 0 (recoverable) or < 0 (fatal), as for esdirk_residual_fn. */
typedef struct esdirk_hybrid_problem esdirk_hybrid_problem;
typedef struct esdirk_hybrid_solver esdirk_hybrid_solver;

/* Direction filters of event components (esdirk_hybrid_solver_set_event_directions). */
#define ESDIRK_EVENT_BOTH 0
#define ESDIRK_EVENT_RISING 1     /* from h < 0 to h > 0 */
#define ESDIRK_EVENT_FALLING (-1) /* from h > 0 to h < 0 */

/** f (nx) and g (nz) of `mode`. */
typedef int (*esdirk_hybrid_residual_fn)(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                         esdirk_int nm, double t, const double* x, const double* z,
                                         const double* p, const double* mem, double* f, double* g,
                                         void* user_data);
/** A Jacobian of `mode`, column-major with leading dimension ld: J = [f_x f_z; g_x g_z]
 *  ((nx+nz) x (nx+nz)) or, as parameter Jacobian, [f_p f_mem; g_p g_mem] ((nx+nz) x (np+nm)). */
typedef int (*esdirk_hybrid_jacobian_fn)(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                         esdirk_int nm, double t, const double* x, const double* z,
                                         const double* p, const double* mem, double* J,
                                         esdirk_int ld, void* user_data);
/** The ne event functions of `mode`: h (ne). */
typedef int (*esdirk_event_fn)(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                               esdirk_int nm, esdirk_int ne, double t, const double* x,
                               const double* z, const double* p, const double* mem, double* h,
                               void* user_data);
/** The gradient of event component k (0-based) as one row [h_t, h_x, h_z, h_p, h_mem]
 *  (1 + nx + nz + np + nm values). */
typedef int (*esdirk_event_jacobian_fn)(int mode, esdirk_int k, esdirk_int nx, esdirk_int nz,
                                        esdirk_int np, esdirk_int nm, double t, const double* x,
                                        const double* z, const double* p, const double* mem,
                                        double* row, void* user_data);
/** The transition at an event: fired[k] (ne) is +1 (rising), -1 (falling) or 0; time_event is
 *  the index of a time event, -1 for a state event. On entry *next_mode holds `mode` and x_plus
 *  (nx) holds x-: leave both for the identity in the same mode. Must be a function of its
 *  arguments (it is differenced when no reset Jacobian is given). */
typedef int (*esdirk_transition_fn)(int mode, esdirk_int ne, const int* fired, int time_event,
                                    esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                                    double t, const double* x, const double* z, const double* p,
                                    const double* mem, int* next_mode, double* x_plus,
                                    void* user_data);
/** D = [phi_t phi_x phi_z phi_p phi_mem], nx x (1 + nx + nz + np + nm), leading dimension ldd. */
typedef int (*esdirk_reset_jacobian_fn)(int mode, esdirk_int ne, const int* fired, int time_event,
                                        esdirk_int nx, esdirk_int nz, esdirk_int np,
                                        esdirk_int nm, double t, const double* x, const double* z,
                                        const double* p, const double* mem, double* D,
                                        esdirk_int ldd, void* user_data);
/** A parameter reset at an event, p+ = psi(t, x-, z-, p-, mem), called after the transition
 *  with the same arguments: on entry p_plus (np) holds p-; assign the parameters that change.
 *  Must be a function of its arguments (it is differenced when no Jacobian is given). */
typedef int (*esdirk_parameter_reset_fn)(int mode, esdirk_int ne, const int* fired, int time_event,
                                         esdirk_int nx, esdirk_int nz, esdirk_int np,
                                         esdirk_int nm, double t, const double* x, const double* z,
                                         const double* p, const double* mem, double* p_plus,
                                         void* user_data);
/** E = [psi_t psi_x psi_z psi_p psi_mem], np x (1 + nx + nz + np + nm), leading dimension lde
 *  (psi_p is the identity for a parameter the reset leaves alone). */
typedef int (*esdirk_parameter_reset_jacobian_fn)(int mode, esdirk_int ne, const int* fired,
                                                  int time_event, esdirk_int nx, esdirk_int nz,
                                                  esdirk_int np, esdirk_int nm, double t,
                                                  const double* x, const double* z,
                                                  const double* p, const double* mem, double* E,
                                                  esdirk_int lde, void* user_data);
/** Nonzero if the model knows `mode` (checked at initialize and at every transition). */
typedef int (*esdirk_has_mode_fn)(int mode, void* user_data);

/** A hybrid problem with nx >= 1, nz >= 0, np >= 0, ne >= 0 event functions and memory (0 or
 *  1: then nm = nx + nz). `residual` is required; with ne > 0 so is the event function
 *  (esdirk_hybrid_problem_set_events) before a solver is initialized. Sizes are capped as for
 *  esdirk_problem_create: nx + nz, 1 + nx + nz + np + nm and ne at most 2^26, else
 *  ESDIRK_INVALID_ARGUMENT. */
ESDIRK_C_API int esdirk_hybrid_problem_create(esdirk_int nx, esdirk_int nz, esdirk_int np,
                                              esdirk_int ne, int memory,
                                              esdirk_hybrid_residual_fn residual, void* user_data,
                                              esdirk_hybrid_problem** problem);
/** The event functions and, optionally (NULL: central differences), their gradients. */
ESDIRK_C_API int esdirk_hybrid_problem_set_events(esdirk_hybrid_problem* problem,
                                                  esdirk_event_fn events,
                                                  esdirk_event_jacobian_fn event_jacobian);
/** The transition (NULL: identity in the same mode) and optionally its Jacobian. */
ESDIRK_C_API int esdirk_hybrid_problem_set_transition(esdirk_hybrid_problem* problem,
                                                      esdirk_transition_fn transition,
                                                      esdirk_reset_jacobian_fn reset_jacobian);
/** Parameter resets at events (doc/events-guide.md, "Parameter resets"): the solver then
 *  integrates each mode with the parameters the last reset gave (the p of initialize first).
 *  np must be the problem's number of parameters (>= 1); reset NULL removes the reset (then
 *  np is not checked); parameter_reset_jacobian NULL: central differences. */
ESDIRK_C_API int esdirk_hybrid_problem_set_parameter_reset(
    esdirk_hybrid_problem* problem, esdirk_int np, esdirk_parameter_reset_fn reset,
    esdirk_parameter_reset_jacobian_fn parameter_reset_jacobian);
/** Optional analytic Jacobians of f and g (NULL: the integrator's differences). */
ESDIRK_C_API int esdirk_hybrid_problem_set_jacobians(esdirk_hybrid_problem* problem,
                                                     esdirk_hybrid_jacobian_fn jacobian,
                                                     esdirk_hybrid_jacobian_fn parameter_jacobian);
/** Which modes exist (NULL: every integer). */
ESDIRK_C_API int esdirk_hybrid_problem_set_has_mode(esdirk_hybrid_problem* problem,
                                                    esdirk_has_mode_fn has_mode);
/** Frees *problem (which must outlive its solvers) and sets it to NULL. */
ESDIRK_C_API void esdirk_hybrid_problem_free(esdirk_hybrid_problem** problem);

ESDIRK_C_API int esdirk_hybrid_solver_create(esdirk_hybrid_problem* problem,
                                             esdirk_hybrid_solver** solver);
ESDIRK_C_API void esdirk_hybrid_solver_free(esdirk_hybrid_solver** solver);
/** The message of the last failure on this handle ("" if none). Valid until the next call. */
ESDIRK_C_API const char* esdirk_hybrid_solver_last_error(const esdirk_hybrid_solver* solver);

/* Options (defaults and meaning in doc/events-guide.md, "HybridOptions"); checked and taken
 * at the next esdirk_hybrid_solver_initialize. */
/** Deprecated (one release): esdirk_options_set_tolerances. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerances and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_tolerances(esdirk_hybrid_solver* solver, double rtol,
                                                     double atol);
/** Deprecated (one release): esdirk_options_set_step_limits. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_step_limits and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_step_limits(esdirk_hybrid_solver* solver,
                                                      double initial_step, double min_step,
                                                      double max_step, long max_steps);
/** One filter per event component (ESDIRK_EVENT_BOTH / _RISING / _FALLING); n = ne. */
ESDIRK_C_API int esdirk_hybrid_solver_set_event_directions(esdirk_hybrid_solver* solver,
                                                           const int* directions, esdirk_int n);
/** Terminal flags (nonzero: integrate_to returns at that event); n = ne. */
ESDIRK_C_API int esdirk_hybrid_solver_set_terminal(esdirk_hybrid_solver* solver,
                                                   const int* terminal, esdirk_int n);
/** Initial events (nonzero: the component fires at t0 if its trigger is already true there,
 *  h(t0) > 0 rising, h(t0) < 0 falling, subject to the direction filters; SBML's initialValue =
 *  false); n = ne, or n = 0 to clear them. The transition is applied at the start of the first
 *  integrate call (an output at t0 is its left limit). */
ESDIRK_C_API int esdirk_hybrid_solver_set_initial_events(esdirk_hybrid_solver* solver,
                                                         const int* initial, esdirk_int n);
/** Known event times (increasing; n may be 0 to clear them). */
ESDIRK_C_API int esdirk_hybrid_solver_set_time_events(esdirk_hybrid_solver* solver,
                                                      const double* times, esdirk_int n);
/** Location: final bracket width (0: 4 ulp of t*), root-finder iterations, samples per step. */
ESDIRK_C_API int esdirk_hybrid_solver_set_event_location(esdirk_hybrid_solver* solver,
                                                         double location_tolerance,
                                                         int max_location_iterations,
                                                         int detection_samples);
/** Protection against chattering, Zeno behaviour and grazing, and the size of the event log. */
ESDIRK_C_API int esdirk_hybrid_solver_set_event_limits(esdirk_hybrid_solver* solver,
                                                       int max_events_per_step,
                                                       double max_events_per_unit_time,
                                                       int event_window, double grazing_tolerance,
                                                       int event_log_capacity);
/** Zeno detection (doc/events-theory.md, D3): the run ends with ESDIRK_ZENO_ACCUMULATION when
 *  the last zeno_intervals intervals between events each shrink and the accumulation time of
 *  their geometric series lies within zeno_time_tolerance * max(1, |t|) of the last event.
 *  zeno_intervals in [3, 65536] (default 8), zeno_time_tolerance finite and >= 0 (default 1e-9;
 *  0 stops only an accumulation exactly at the last event). Other values: ESDIRK_INVALID_ARGUMENT
 *  with a message naming the value, the options unchanged. */
ESDIRK_C_API int esdirk_hybrid_solver_set_zeno(esdirk_hybrid_solver* solver, int zeno_intervals,
                                               double zeno_time_tolerance);
/** Sensitivity jumps at events (default 1) and the event-time sensitivity in them (default 1;
 *  0 treats every event as if its time were fixed). */
ESDIRK_C_API int esdirk_hybrid_solver_set_sensitivity_jumps(esdirk_hybrid_solver* solver,
                                                            int jumps, int event_time_sensitivity);

/** Starts in `mode` at t0: z made consistent from z0_guess (nz; may be NULL with nz = 0), the
 *  memory set to mem0 (nm values; NULL with nm = 0). Builds the solver with the options set so
 *  far; clears sensitivities and the event log. */
ESDIRK_C_API int esdirk_hybrid_solver_initialize(esdirk_hybrid_solver* solver, double t0, int mode,
                                                 const double* x0, esdirk_int nx,
                                                 const double* z0_guess, esdirk_int nz,
                                                 const double* p, esdirk_int np, const double* mem0,
                                                 esdirk_int nm);
/** Forward sensitivities with jumps from here on: `seed` is (nx + np) x ns, column-major with
 *  leading dimension ld >= nx + np, each column a direction (dx0; dp); NULL: the identity (ns
 *  must be nx + np). The initial memory's sensitivity is zero. After initialize only. */
ESDIRK_C_API int esdirk_hybrid_solver_start_sensitivities(esdirk_hybrid_solver* solver,
                                                          const double* seed, esdirk_int rows,
                                                          esdirk_int ns, esdirk_int ld);
/** Integrates to tout across any number of events (cascades at one instant included) and
 *  writes x, z (z may be NULL with nz = 0) and *t_reached (may be NULL). Returns ESDIRK_SUCCESS
 *  at tout (if tout is an event time: the left limit; the transition is applied),
 *  ESDIRK_LISTENER_STOP at a terminal event (the left limit at *t_reached; the next call
 *  applies the transition), or a negative status with the last good state and a message
 *  (esdirk_hybrid_solver_last_error): ESDIRK_EVENT_GRAZING (-11), ESDIRK_TOO_MANY_EVENTS (-12:
 *  chattering, or a cascade at one instant longer than max_events_per_step),
 *  ESDIRK_UNKNOWN_MODE (-13), ESDIRK_ZENO_ACCUMULATION (-14: the event times accumulate),
 *  ESDIRK_EVENT_LOCATION_FAILED (-15: the root finder ran out of iterations),
 *  ESDIRK_CALLBACK_FAILURES / ESDIRK_CALLBACK_FATAL (a callback failed or returned non-finite
 *  values; the message names the event function or the event and t), or the integrator's
 *  failures; after a failure call initialize again. Never returns ESDIRK_STOP_TIME_REACHED:
 *  time events are applied, not returned. Statuses and states kept: doc/events-guide.md,
 *  section 5. */
ESDIRK_C_API int esdirk_hybrid_solver_integrate_to(esdirk_hybrid_solver* solver, double tout,
                                                   double* x, esdirk_int nx, double* z,
                                                   esdirk_int nz, double* t_reached);
/** As esdirk_hybrid_solver_integrate_to, also writing Sx (nx x ns, ldsx) and Sz (nz x ns,
 *  ldsz; may be NULL) with their jumps. */
ESDIRK_C_API int esdirk_hybrid_solver_integrate_sensitivities_to(
    esdirk_hybrid_solver* solver, double tout, double* x, esdirk_int nx, double* z, esdirk_int nz,
    double* Sx, esdirk_int ldsx, double* Sz, esdirk_int ldsz, esdirk_int ns, double* t_reached);
/** Where the solver stands: t, mode, x (nx), z (nz); any output may be NULL. After an event at
 *  tout these are the right limits. */
ESDIRK_C_API int esdirk_hybrid_solver_get_state(const esdirk_hybrid_solver* solver, double* t,
                                                int* mode, double* x, esdirk_int nx, double* z,
                                                esdirk_int nz);
/** The parameters of the current mode (np values; those of initialize until a parameter reset)
 *  and, with sensitivities, their sensitivity dp/dtheta (np x ns, ld; may be NULL). */
ESDIRK_C_API int esdirk_hybrid_solver_get_parameters(const esdirk_hybrid_solver* solver, double* p,
                                                     esdirk_int np, double* Sp, esdirk_int ld,
                                                     esdirk_int ns);
/** The memory (nm values) and, with sensitivities, its sensitivity (nm x ns, ld; may be NULL). */
ESDIRK_C_API int esdirk_hybrid_solver_get_memory(const esdirk_hybrid_solver* solver, double* mem,
                                                 esdirk_int nm, double* Smem, esdirk_int ld,
                                                 esdirk_int ns);

/** One entry of the event log (the first event_log_capacity events are kept). Versioned as
 *  esdirk_statistics: set struct_size (ESDIRK_EVENT_INIT); the struct only grows at its end,
 *  and a caller built with an earlier, shorter struct gets the fields its struct_size covers. */
typedef struct esdirk_event {
  size_t struct_size; /* set by the caller: sizeof(esdirk_event) */
  double t;           /* the event time t* */
  double bracket;     /* final bracket width of the root finder (0 for a time event) */
  double dh_dt;       /* dh/dt along the solution at t*- (transversality; 0 for a cascaded event) */
  int mode_before;
  int mode_after;
  int time_event;     /* index of the time event, -1 for a state event */
  int primary;        /* the component whose root defines t* (0-based), -1 for a time event; for
                         a cascaded event the component that fired */
  int iterations;     /* root-finder iterations */
  /* Since the second version of the struct: */
  int initial;        /* 1: an initial event at t0 (esdirk_hybrid_solver_set_initial_events) */
  int cascade;        /* 0: an event of its own; n >= 1: the n-th event of a cascade at the same
                         instant, made true by the transition before it (doc/events-theory.md, D5) */
} esdirk_event;

#define ESDIRK_EVENT_INIT \
  { sizeof(esdirk_event), 0.0, 0.0, 0.0, 0, 0, 0, 0, 0, 0, 0 }

/** The number of events located so far (*located, all of them) and kept in the log (*logged);
 *  either may be NULL. */
ESDIRK_C_API int esdirk_hybrid_solver_get_event_count(const esdirk_hybrid_solver* solver,
                                                      int64_t* located, esdirk_int* logged);
/** Event `index` (0-based, < logged). */
ESDIRK_C_API int esdirk_hybrid_solver_get_event(const esdirk_hybrid_solver* solver,
                                                esdirk_int index, esdirk_event* event);
/** The vectors of event `index`; every output may be NULL: fired (ne), tau = d(t*)/d(theta)
 *  (ns; with sensitivities; not written when ns = 0), the left and right limits x_minus,
 *  x_plus (nx) and z_minus, z_plus (nz). */
ESDIRK_C_API int esdirk_hybrid_solver_get_event_vectors(const esdirk_hybrid_solver* solver,
                                                        esdirk_int index, int* fired, esdirk_int ne,
                                                        double* tau, esdirk_int ns,
                                                        double* x_minus, double* x_plus,
                                                        esdirk_int nx, double* z_minus,
                                                        double* z_plus, esdirk_int nz);
/** The parameters either side of event `index` (np values each; either may be NULL): p- of the
 *  mode that ended and p+ of the next (the same without a parameter reset). */
ESDIRK_C_API int esdirk_hybrid_solver_get_event_parameters(const esdirk_hybrid_solver* solver,
                                                           esdirk_int index, double* p_minus,
                                                           double* p_plus, esdirk_int np);
/** The state sensitivities either side of event `index`: Sx- and Sx+ (nx x ns, ld). */
ESDIRK_C_API int esdirk_hybrid_solver_get_event_sensitivities(const esdirk_hybrid_solver* solver,
                                                              esdirk_int index, double* sx_minus,
                                                              double* sx_plus, esdirk_int ld,
                                                              esdirk_int ns);

/** The counters of integration, sensitivities and events (esdirk_statistics: its fields; by
 *  name: every counter, including "event_root_iterations", "event_transitions", ...). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_hybrid_solver_get_counter and esdirk_counter_name") int esdirk_hybrid_solver_get_statistics(const esdirk_hybrid_solver* solver,
                                                     esdirk_statistics* statistics);
ESDIRK_C_API int esdirk_hybrid_solver_get_counter(const esdirk_hybrid_solver* solver,
                                                  const char* name, int64_t* value);

#ifdef __cplusplus
}
#endif
#endif /* ESDIRK_ESDIRK_H */
