/* esdirk C API: the discrete adjoint (gradients of a few objectives with respect to the initial
 * state and all parameters at the cost of about one extra integration) and the shooting interval
 * in reverse mode (C99; Fortran: the module esdirk_adjoint). doc/c-api-guide.md, "Adjoint".
 *
 * The conventions of esdirk.h hold: handles with *_create / *_free(&h), int statuses (negative
 * on failure) with the handle's last error as text, column-major matrices with explicit leading
 * dimensions, callbacks returning 0 / > 0 (failure) / < 0 (fatal), no printing, no exception.
 *
 * The smooth adjoint of a solver:
 *
 *     esdirk_solver_set_adjoint(solver, 1, 0);           // record the steps of the next runs
 *     esdirk_solver_initialize(solver, t0, x0, nx, z0, nz, p, np);
 *     esdirk_solver_set_stop_time(solver, tf);            // the terminal time is a step end
 *     esdirk_solver_integrate_to(solver, tf, x, nx, z, nz);
 *     esdirk_objective_create(1, &objective);
 *     esdirk_objective_set_terminal(objective, my_terminal_gradient, data);
 *     esdirk_solver_adjoint_gradient(solver, objective, dx0, nx, dp, np);
 *
 * The gradient is that of the discrete solution on the recorded steps (the step-size controller
 * is not differentiated), exact to round-off: the transpose of the forward stage sensitivities.
 */
#ifndef ESDIRK_ESDIRK_ADJOINT_H
#define ESDIRK_ESDIRK_ADJOINT_H

#include "esdirk/esdirk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Objectives ---------------------------------------------------------------------------- */
typedef struct esdirk_objective esdirk_objective;

/** The gradient of a point term C(t, x, z, p) of an objective with `rows` rows: writes dC/dx
 *  (nx x rows, leading dimension lddx), dC/dz (nz x rows, lddz; NULL when nz = 0) and dC/dp
 *  (np x rows, lddp; NULL when np = 0), one column per objective row. All three arrive filled
 *  with zeros. Also the form of the running cost's gradient dL at a stage. */
typedef int (*esdirk_objective_gradient_fn)(esdirk_int nx, esdirk_int nz, esdirk_int np,
                                            esdirk_int rows, double t, const double* x,
                                            const double* z, const double* p, double* dx,
                                            esdirk_int lddx, double* dz, esdirk_int lddz,
                                            double* dp, esdirk_int lddp, void* user_data);
/** The gradient of the term C_k at output time number k (0-based) of esdirk_objective_set_
 *  output_times; otherwise as esdirk_objective_gradient_fn. */
typedef int (*esdirk_output_gradient_fn)(esdirk_int k, esdirk_int nx, esdirk_int nz,
                                         esdirk_int np, esdirk_int rows, double t,
                                         const double* x, const double* z, const double* p,
                                         double* dx, esdirk_int lddx, double* dz, esdirk_int lddz,
                                         double* dp, esdirk_int lddp, void* user_data);

/** An objective with rows >= 1 rows (a few rows share one sweep), for the adjoint of a solver
 *  (esdirk_solver_adjoint_gradient) or of a hybrid solver (esdirk_hybrid_solver_adjoint_gradient,
 *  esdirk_hybrid_adjoint.h). Of a solver's run:
 *      Phi = C(x(tf), z(tf), p) + sum_k C_k(x(t_k), z(t_k), p) + sum_n h_n sum_i b_i L(stage i)
 *  where tf is the end of the recorded run, t_k the output times and the running cost L is
 *  integrated with the method's own quadrature. Of a hybrid run:
 *      Phi = C(x(tf), z(tf), p) + sum_k C_k(x(t_k), z(t_k), p)
 *  over the outputs t_k the recorded run returned (esdirk_objective_set_outputs). Every term is
 *  optional, but one must be set; a gradient refuses (ESDIRK_INVALID_ARGUMENT) a term its run
 *  does not have: the outputs on a solver's run, the running cost and output times on a hybrid
 *  run. */
ESDIRK_C_API int esdirk_objective_create(esdirk_int rows, esdirk_objective** objective);
ESDIRK_C_API void esdirk_objective_free(esdirk_objective** objective);
ESDIRK_C_API const char* esdirk_objective_last_error(const esdirk_objective* objective);
/** The terminal term's gradient (NULL removes it; replaces terminal weights). */
ESDIRK_C_API int esdirk_objective_set_terminal(esdirk_objective* objective,
                                               esdirk_objective_gradient_fn gradient,
                                               void* user_data);
/** A terminal term given as constant weights: C = W^T [x(tf); z(tf)], W (nx + nz) x rows with
 *  leading dimension ldw >= n = nx + nz (copied; replaces a terminal callback). */
ESDIRK_C_API int esdirk_objective_set_terminal_weights(esdirk_objective* objective,
                                                       const double* W, esdirk_int n,
                                                       esdirk_int ldw);
/** The running cost's gradient dL at a stage (NULL removes it). */
ESDIRK_C_API int esdirk_objective_set_running(esdirk_objective* objective,
                                              esdirk_objective_gradient_fn gradient,
                                              void* user_data);
/** Output times t_k (ordered in time, each the end of a recorded step: make them stop times of
 *  the forward run) and the gradient of their terms (count = 0 removes them). */
ESDIRK_C_API int esdirk_objective_set_output_times(esdirk_objective* objective,
                                                   const double* times, esdirk_int count,
                                                   esdirk_output_gradient_fn gradient,
                                                   void* user_data);

/** Hybrid runs: the gradient of C_k at recorded output k (0-based: one output per integrate call
 *  since initialize, the last included, when it then adds to the terminal term); NULL removes
 *  it. The callback's k is the output number. See esdirk_hybrid_adjoint.h for what an output is. */
ESDIRK_C_API int esdirk_objective_set_outputs(esdirk_objective* objective,
                                              esdirk_output_gradient_fn gradient,
                                              void* user_data);

/* ---- The adjoint of a solver --------------------------------------------------------------- */
/** record = 1: the next esdirk_solver_initialize attaches the adjoint, which records every
 *  accepted step of the runs after it; record = 0 detaches it there. memory_budget: the doubles
 *  the step records may occupy (0 keeps every step; otherwise the last steps are kept and earlier
 *  ones recomputed bit for bit from checkpoints). A budget below one step record makes that
 *  initialize return ESDIRK_INVALID_ARGUMENT (the old run is kept). */
/** Deprecated (one release): esdirk_options_set_adjoint (esdirk_options.h). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_adjoint and esdirk_solver_set_options") int esdirk_solver_set_adjoint(esdirk_solver* solver, int record, long memory_budget);
/** The gradient of every objective row with respect to x0 (dx0: nx x rows, leading dimension
 *  lddx0 >= nx) and p (dp: np x rows, lddp >= np; NULL when np = 0 or not wanted) on the steps
 *  recorded since the last initialize (z0 consistent: dz0/dx0 is included). Returns
 *  ESDIRK_WRONG_CALL_ORDER without a recording (set_adjoint not called before initialize, no
 *  step taken, a restart in between, or the last integration failed), ESDIRK_INVALID_ARGUMENT
 *  for wrong sizes or output times that are not step ends, ESDIRK_CALLBACK_FAILURES /
 *  ESDIRK_CALLBACK_FATAL when an objective or model callback failed or gave non-finite values
 *  (dx0, dp are then not written). Can be called again with other objectives. */
ESDIRK_C_API int esdirk_solver_adjoint_gradient(esdirk_solver* solver,
                                                const esdirk_objective* objective, double* dx0,
                                                esdirk_int nx, esdirk_int lddx0, double* dp,
                                                esdirk_int np, esdirk_int lddp);

/** Checks a gradient of `objective` (dx0, dp as esdirk_solver_adjoint_gradient wrote them; dp
 *  NULL when np = 0) against forward directional derivatives on the recorded steps (exact-mode
 *  sensitivities with an LU per stage): along one random direction of (x0, p) drawn with `seed`
 *  (all_components = 0) or along every unit direction (all_components = 1, nx + np forward
 *  directions, which names the worst variable). Writes the largest relative error
 *  (*worst_error, may be NULL), *passed = 1 if it is <= tolerance (may be NULL) and a one-line
 *  summary naming the worst row and variable into summary (capacity bytes with the NUL; NULL:
 *  none). A summary that does not fit is cut, NUL-terminated, and the call returns
 *  ESDIRK_BUFFER_TOO_SMALL with everything else written. Other statuses as
 *  esdirk_solver_adjoint_gradient. */
ESDIRK_C_API int esdirk_solver_check_gradient(esdirk_solver* solver, const esdirk_objective* objective,
                                              const double* dx0, esdirk_int nx, esdirk_int lddx0,
                                              const double* dp, esdirk_int np, esdirk_int lddp,
                                              double tolerance, int all_components, unsigned seed,
                                              double* worst_error, int* passed, char* summary,
                                              size_t capacity);

/** What the last sweep did. Versioned like esdirk_statistics: set struct_size
 *  (ESDIRK_ADJOINT_REPORT_INIT); the struct only grows at its end. */
typedef struct esdirk_adjoint_report {
  size_t struct_size;
  int64_t adjoint_steps;          /* steps swept backwards */
  int64_t transposed_solves;      /* right-hand sides solved with a transposed stage matrix */
  int64_t stage_factorizations;   /* LUs of stage matrices (the extra LUs of the sweep) */
  int64_t jacobian_evaluations;   /* stage Jacobians formed */
  int64_t parameter_jacobian_evaluations; /* [f_p; g_p] formed */
  int64_t objective_evaluations;  /* calls of the objective's gradient callbacks */
  int64_t recomputed_steps;       /* steps replayed from checkpoints */
  int64_t checkpoints;            /* segment starts stored */
  int64_t peak_stored_doubles;    /* most doubles held by records, schedule and checkpoints */
  int64_t stored_records;         /* step records kept */
} esdirk_adjoint_report;
#define ESDIRK_ADJOINT_REPORT_INIT \
  { sizeof(esdirk_adjoint_report), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
ESDIRK_C_API int esdirk_solver_get_adjoint_report(const esdirk_solver* solver,
                                                  esdirk_adjoint_report* report);

/* ---- The shooting interval in reverse mode ------------------------------------------------- */
typedef struct esdirk_reverse_shooting esdirk_reverse_shooting;

/** An interval integrator for `problem` (controls u = its parameters, nu = np) that records
 *  the interval's steps and returns products with the transposed interval Jacobians. */
ESDIRK_C_API int esdirk_reverse_shooting_create(esdirk_problem* problem,
                                                esdirk_reverse_shooting** shooting);
ESDIRK_C_API void esdirk_reverse_shooting_free(esdirk_reverse_shooting** shooting);
ESDIRK_C_API const char* esdirk_reverse_shooting_last_error(const esdirk_reverse_shooting* shooting);
/** Options, taking effect at the next esdirk_reverse_shooting_integrate. */
/** Deprecated (one release): esdirk_options_set_tolerances. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerances and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_tolerances(esdirk_reverse_shooting* shooting,
                                                        double rtol, double atol);
/** Deprecated (one release): esdirk_options_set_algebraic_atol. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_algebraic_atol and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_algebraic_atol(esdirk_reverse_shooting* shooting,
                                                            const double* atol, esdirk_int nz);
/** Deprecated (one release): esdirk_options_set_step_limits (its max_steps). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_step_limits and esdirk_reverse_shooting_set_options") int esdirk_reverse_shooting_set_max_steps(esdirk_reverse_shooting* shooting,
                                                       long max_steps);
/** The running cost h(t, x, z, u) (the callback of esdirk_shooting_set_running_cost; NULL: none). */
ESDIRK_C_API int esdirk_reverse_shooting_set_running_cost(esdirk_reverse_shooting* shooting,
                                                          esdirk_running_cost_fn cost,
                                                          void* user_data);
/** Integrates [t_k, t_end] from x_k with u_k held constant, records the steps, and writes
 *  x_{k+1} (required), z_{k+1} (nz; may be NULL) and H = int h dt (may be NULL). z_guess (may
 *  be NULL: the previous interval's z) starts the consistent initialization. Warm-started like
 *  esdirk_shooting_integrate. */
ESDIRK_C_API int esdirk_reverse_shooting_integrate(esdirk_reverse_shooting* shooting, double t_k,
                                                   double t_end, const double* x_k, esdirk_int nx,
                                                   const double* u_k, esdirk_int nu,
                                                   const double* z_guess, esdirk_int nz,
                                                   double* x_next, double* z_next, double* H);
/** For the last successful interval and m >= 1 columns, one reverse sweep writes
 *      gx = A^T lambda_x + Az^T lambda_z + q w^T   (nx x m, leading dimension ldgx >= nx)
 *      gu = B^T lambda_x + Bz^T lambda_z + r w^T   (nu x m, ldgu >= nu; may be NULL)
 *  with lambda_x nx x m (ldlx >= nx), lambda_z nz x m (ldlz >= nz; NULL: zero) and the running
 *  cost's weights w (m entries; NULL: zero). A = dx_{k+1}/dx_k, B = dx_{k+1}/du_k (and Az, Bz of
 *  z_{k+1}) are never formed; q, r are the running cost's gradients (lambda = 0, w = 1 gives
 *  them). ESDIRK_WRONG_CALL_ORDER before a successful interval, ESDIRK_INVALID_ARGUMENT for
 *  wrong sizes or non-finite lambda or w, ESDIRK_CALLBACK_FAILURES / _FATAL when a callback
 *  failed in the sweep. */
ESDIRK_C_API int esdirk_reverse_shooting_transpose_products(
    esdirk_reverse_shooting* shooting, const double* lambda_x, esdirk_int nx, esdirk_int ldlx,
    const double* lambda_z, esdirk_int nz, esdirk_int ldlz, const double* w, esdirk_int m,
    double* gx, esdirk_int ldgx, double* gu, esdirk_int nu, esdirk_int ldgu);
/** Counters of the last interval with its sweeps (total = 0) or of all (total = 1), as
 *  esdirk_shooting_get_statistics; the sweep's counters (adjoint_steps,
 *  adjoint_transposed_solves, adjoint_factorizations, ...) are read by name. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_reverse_shooting_get_counter and esdirk_counter_name") int esdirk_reverse_shooting_get_statistics(const esdirk_reverse_shooting* shooting,
                                                        int total, esdirk_statistics* statistics);
ESDIRK_C_API int esdirk_reverse_shooting_get_counter(const esdirk_reverse_shooting* shooting,
                                                     int total, const char* name, int64_t* value);

#ifdef __cplusplus
}
#endif

#endif /* ESDIRK_ESDIRK_ADJOINT_H */
