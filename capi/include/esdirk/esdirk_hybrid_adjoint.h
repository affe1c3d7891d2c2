/* esdirk C API: the discrete adjoint of a hybrid run (events, transitions, memory): gradients of
 * a few objectives with respect to the initial state and all parameters, the exact transpose of
 * the forward sensitivities with their jumps (C99; Fortran: the module esdirk_hybrid_adjoint).
 * doc/c-api-guide.md, "Hybrid adjoint"; doc/adjoint-guide.md, "Hybrid runs".
 *
 * The conventions of esdirk.h and esdirk_adjoint.h hold (handles, int statuses with the
 * handle's last error as text, column-major matrices with leading dimensions, callbacks
 * returning 0 / > 0 (failure) / < 0 (fatal), the gradient callbacks of esdirk_adjoint.h).
 *
 *     esdirk_options_set_adjoint(options, 1, 0);        // record the runs after the next initialize
 *     esdirk_hybrid_solver_set_options(solver, options); // (esdirk_options.h)
 *     esdirk_hybrid_solver_initialize(solver, t0, mode, x0, nx, z0, nz, p, np, mem0, nm);
 *     for (k = 0; k < K; ++k)                           // each call records output number k
 *       esdirk_hybrid_solver_integrate_to(solver, t[k], x, nx, z, nz, &t_reached);
 *     esdirk_objective_create(1, &objective);           // the objective of esdirk_adjoint.h
 *     esdirk_objective_set_outputs(objective, my_output_gradient, data);
 *     esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, nx, nx, dp, np, np);
 *
 * The steps and the event sequence are frozen (the step-size controller, the root finder and
 * the mode sequence are not differentiated): the gradient is that of the computed solution, the
 * number the forward sensitivities (esdirk_hybrid_solver_integrate_sensitivities_to) give on the
 * same run, to rounding. A running cost int L dt is a quadrature state q' = L of the model (as
 * for the forward sensitivities), so its Leibniz terms at events come with the jumps; put q into
 * the terminal term. Every step of the run is kept, or with a memory budget blocks of steps are
 * recomputed bit for bit from checkpoints during the sweep (the same gradient, to the last bit).
 */
#ifndef ESDIRK_ESDIRK_HYBRID_ADJOINT_H
#define ESDIRK_ESDIRK_HYBRID_ADJOINT_H

#include "esdirk/esdirk.h"
#include "esdirk/esdirk_adjoint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Objectives of a hybrid run ------------------------------------------------------------ */
/* The objective of esdirk_adjoint.h serves both adjoints: esdirk_hybrid_objective is its old
 * name, kept (with the deprecated functions below) so that programs written for it compile
 * unchanged. */
typedef esdirk_objective esdirk_hybrid_objective;

/** Deprecated (one release): esdirk_objective_create, _free, _last_error, _set_terminal,
 *  _set_terminal_weights and _set_outputs (esdirk_adjoint.h) on the same handle, with the same
 *  checks; these keep their messages ("hybrid set_terminal_weights: ..."). An objective with rows >= 1 rows (a few rows share one sweep), a sum of point terms at the
 *  outputs the recorded run returned (one per integrate call since initialize, numbered 0, 1, ...):
 *      Phi = sum_k C_k(x(t_k), z(t_k), p) + C(x(t_f), z(t_f), p),   t_f the last output.
 *  An output at an event time is the left limit (what integrate_to wrote). If the last call
 *  stopped at a terminal event (ESDIRK_LISTENER_STOP), t_f = t* moves with x0 and p and the
 *  gradient includes that (the terminal term must then not depend on t explicitly). The p the
 *  terms receive is that of the output's mode (after a parameter reset, esdirk.h, the reset's
 *  p+); the gradient dp is with respect to the p of initialize. At least one term must be set. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_objective_create") int esdirk_hybrid_objective_create(esdirk_int rows, esdirk_hybrid_objective** objective);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_objective_free") void esdirk_hybrid_objective_free(esdirk_hybrid_objective** objective);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_objective_last_error") const char* esdirk_hybrid_objective_last_error(const esdirk_hybrid_objective* objective);
/** The terminal term's gradient at the last output (esdirk_objective_gradient_fn of
 *  esdirk_adjoint.h; NULL removes it; replaces terminal weights). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_objective_set_terminal") int esdirk_hybrid_objective_set_terminal(esdirk_hybrid_objective* objective,
                                                      esdirk_objective_gradient_fn gradient,
                                                      void* user_data);
/** A terminal term given as constant weights: C = W^T [x(tf); z(tf)], W (nx + nz) x rows with
 *  leading dimension ldw >= n = nx + nz (copied; finite; replaces a terminal callback). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_objective_set_terminal_weights") int esdirk_hybrid_objective_set_terminal_weights(esdirk_hybrid_objective* objective,
                                                              const double* W, esdirk_int n,
                                                              esdirk_int ldw);
/** The gradient of C_k at recorded output k (0-based, the last output included: it then adds
 *  to the terminal term); NULL removes it. The callback's k is the output number. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_objective_set_outputs") int esdirk_hybrid_objective_set_outputs(esdirk_hybrid_objective* objective,
                                                     esdirk_output_gradient_fn gradient,
                                                     void* user_data);

/* ---- The adjoint of a hybrid solver -------------------------------------------------------- */
/** record = 1: the next esdirk_hybrid_solver_initialize attaches the adjoint, which records the
 *  run from t0 (steps, events, and every output of the integrate calls after it); record = 0
 *  detaches it there. A recording lasts until the next initialize. memory_budget: the doubles
 *  the step records may occupy (0 keeps every step; otherwise at most k = budget / (doubles per
 *  record) records are kept, the steps of each mode are split into blocks of at most k with a
 *  checkpoint each, and the sweep replays a block bit for bit when its records are gone). A
 *  budget below one step record makes that initialize return ESDIRK_INVALID_ARGUMENT (the old
 *  run is kept); a negative one is refused here. */
/** Deprecated (one release): esdirk_options_set_adjoint (esdirk_options.h). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_adjoint and esdirk_hybrid_solver_set_options") int esdirk_hybrid_solver_set_adjoint(esdirk_hybrid_solver* solver, int record,
                                                  long memory_budget);
/** Outputs recorded since the last initialize (*count, may be NULL) and the time of output k
 *  (esdirk_hybrid_solver_adjoint_output_time, k < count). ESDIRK_WRONG_CALL_ORDER without a
 *  recording. */
ESDIRK_C_API int esdirk_hybrid_solver_adjoint_outputs(const esdirk_hybrid_solver* solver,
                                                      esdirk_int* count);
ESDIRK_C_API int esdirk_hybrid_solver_adjoint_output_time(const esdirk_hybrid_solver* solver,
                                                          esdirk_int k, double* t);
/** The gradient of every objective row with respect to x0 (dx0: nx x rows, leading dimension
 *  lddx0 >= nx) and p (dp: np x rows, lddp >= np; may be NULL when np = 0 or not wanted) on the
 *  recorded run (z0 consistent: dz0/dx0 is included; the initial memory is held fixed).
 *  Returns ESDIRK_WRONG_CALL_ORDER without a recording (set_adjoint not called before
 *  initialize, no integrate call since, or the last integrate call failed),
 *  ESDIRK_INVALID_ARGUMENT for wrong sizes, terminal weights of the wrong length, an objective
 *  without a term or with a term only a solver's run has (running cost, output times),
 *  ESDIRK_CALLBACK_FAILURES / ESDIRK_CALLBACK_FATAL when an objective, model, event or reset
 *  callback failed or gave non-finite values, ESDIRK_EVENT_GRAZING for an event with
 *  dh/dt ~ 0 (no event-time sensitivity), the singular-matrix statuses of the integrator; on
 *  failure dx0 and dp are not written. Can be called again with other objectives. */
ESDIRK_C_API int esdirk_hybrid_solver_adjoint_gradient(esdirk_hybrid_solver* solver,
                                                       const esdirk_objective* objective,
                                                       double* dx0, esdirk_int nx,
                                                       esdirk_int lddx0, double* dp, esdirk_int np,
                                                       esdirk_int lddp);

/** What the recording and the last sweep did. Versioned like esdirk_statistics: set struct_size
 *  (ESDIRK_HYBRID_ADJOINT_REPORT_INIT); the struct only grows at its end. Zeros before a sweep
 *  (the recording's fields are filled from initialize on). */
typedef struct esdirk_hybrid_adjoint_report {
  size_t struct_size;
  int64_t adjoint_steps;          /* steps swept backwards */
  int64_t transposed_solves;      /* right-hand sides solved with a transposed stage matrix */
  int64_t stage_factorizations;   /* LUs of stage matrices (the extra LUs of the sweep) */
  int64_t jacobian_evaluations;   /* stage Jacobians formed */
  int64_t parameter_jacobian_evaluations; /* [f_p f_mem; g_p g_mem] formed */
  int64_t objective_evaluations;  /* calls of the objective's gradient callbacks */
  int64_t segments;               /* modes swept (events + 1) */
  int64_t jumps;                  /* event jumps transposed */
  int64_t peak_stored_doubles;    /* doubles held by step records, schedule, checkpoints, events */
  int64_t recorded_steps;         /* steps of the recording */
  int64_t recorded_outputs;       /* outputs of the recording */
  int64_t checkpoints;            /* block starts stored (0 without a memory budget) */
  int64_t recomputed_steps;       /* steps replayed from checkpoints by the last sweep */
  int64_t stored_records;         /* step records held at a time */
} esdirk_hybrid_adjoint_report;
#define ESDIRK_HYBRID_ADJOINT_REPORT_INIT \
  { sizeof(esdirk_hybrid_adjoint_report), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }
ESDIRK_C_API int esdirk_hybrid_solver_get_adjoint_report(const esdirk_hybrid_solver* solver,
                                                         esdirk_hybrid_adjoint_report* report);

#ifdef __cplusplus
}
#endif

#endif /* ESDIRK_ESDIRK_HYBRID_ADJOINT_H */
