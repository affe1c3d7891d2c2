/* esdirk C API: multiple shooting (C99). The N shooting intervals of one NLP iteration
 * evaluated on a thread pool, bit-identical to a serial evaluation, and the equality-
 * constrained Gauss-Newton parameter estimation on them (doc/multiple-shooting-guide.md).
 *
 *     esdirk_multishoot* ms = NULL;
 *     esdirk_multishoot_create(problem, N, 2, &ms);          // 2 threads
 *     esdirk_multishoot_set_tolerances(ms, 1e-6, 1e-12);
 *     esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess,
 *                                x_end, z_end, A, B, H, q, r, status);
 *     esdirk_multishoot_free(&ms);
 *
 * The conventions of esdirk.h hold. One problem copy (the same callbacks and user data) is
 * made per interval, and the intervals run on several threads at once: the callbacks must be
 * safe to call concurrently (pure functions of their arguments are). Arrays are flat, interval
 * after interval: x, x_end, q (N nx), u, r (N nu), z_guess, z_end (N nz), A (N nx nx, each
 * column-major nx x nx), B (N nx nu), H, t_begin, t_end (N). Output arrays may be NULL when
 * not wanted. */
#ifndef ESDIRK_ESDIRK_MULTISHOOT_H
#define ESDIRK_ESDIRK_MULTISHOOT_H

#include "esdirk/esdirk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct esdirk_multishoot esdirk_multishoot;

/** An evaluator of `intervals` shooting intervals of `problem` (whose parameters are the
 * controls u_k) on `threads` threads (>= 1). The problem must outlive the handle. At most
 * `intervals` threads are started (at the first evaluate); if the system refuses a thread
 * (ulimit -u or -v, a cgroup), the handle works with the threads it got, with the same
 * results. */
ESDIRK_C_API int esdirk_multishoot_create(esdirk_problem* problem, esdirk_int intervals,
                                          esdirk_int threads, esdirk_multishoot** ms);
ESDIRK_C_API void esdirk_multishoot_free(esdirk_multishoot** ms);
ESDIRK_C_API const char* esdirk_multishoot_last_error(const esdirk_multishoot* ms);
/** Options of the intervals; they take effect at the next evaluate or estimate. */
/** Deprecated (one release): esdirk_options_set_tolerances. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_tolerances and esdirk_multishoot_set_options") int esdirk_multishoot_set_tolerances(esdirk_multishoot* ms, double rtol, double atol);
/** Deprecated (one release): esdirk_options_set_algebraic_atol. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_algebraic_atol and esdirk_multishoot_set_options") int esdirk_multishoot_set_algebraic_atol(esdirk_multishoot* ms, const double* atol,
                                                      esdirk_int nz);
/** Deprecated (one release): esdirk_options_set_step_limits (its initial_step: the first step of
 *  every interval, 0: chosen from f at t_k). */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_options_set_step_limits and esdirk_multishoot_set_options") int esdirk_multishoot_set_initial_step(esdirk_multishoot* ms, double h0);
/** The running cost of every interval (called from several threads at once). */
ESDIRK_C_API int esdirk_multishoot_set_running_cost(esdirk_multishoot* ms,
                                                    esdirk_running_cost_fn cost, void* user_data);

/** Evaluates all intervals. ESDIRK_SUCCESS if every interval succeeded; otherwise the status
 * of the first failing one, with a message naming it (the others are still evaluated). The
 * per-interval statuses go to `status` (N entries; may be NULL). Inputs that no interval can
 * take (an end that is not finite, t_end <= t_begin, a node state, control or guess that is
 * not finite) are ESDIRK_INVALID_ARGUMENT, as for esdirk_shooting_integrate: nothing is
 * evaluated and no output is written. Called from inside one of the handle's own callbacks
 * (on any of its threads) it returns ESDIRK_WRONG_CALL_ORDER and changes nothing. */
ESDIRK_C_API int esdirk_multishoot_evaluate(esdirk_multishoot* ms, const double* t_begin,
                                            const double* t_end, const double* x, const double* u,
                                            const double* z_guess, double* x_end, double* z_end,
                                            double* A, double* B, double* H, double* q, double* r,
                                            esdirk_int* status);

/** Parameter estimation by multiple shooting (doc/multiple-shooting-guide.md). `experiments`
 * experiments; experiment e has points[e] measurement times (its intervals are points[e] - 1;
 * their total must equal the handle's interval count). Flat over all experiments' points:
 * times, data and sigma (ny values per point, of the states measured[0..ny)), nodes (nx per
 * point); z_guess: nz per interval; initial_state_known: one flag per experiment (NULL: all
 * known). The problem's parameters are the estimated theta (np = the problem's np). */
typedef struct esdirk_estimation_data {
  esdirk_int experiments;
  const esdirk_int* points;
  const double* times;
  esdirk_int ny;
  const esdirk_int* measured;
  const double* data;
  const double* sigma;
  const double* nodes;
  const double* z_guess;
  const esdirk_int* initial_state_known;
} esdirk_estimation_data;

/** Results of esdirk_multishoot_estimate; arrays of np entries (may be NULL). */
typedef struct esdirk_estimation_result {
  double* theta;
  double* theta_lower;  /* 95 % confidence interval (-inf, inf: not identifiable) */
  double* theta_upper;
  esdirk_int* identifiable;
  esdirk_int iterations;
  esdirk_int rank;
  double cost;
  esdirk_int converged;
} esdirk_estimation_result;

/** Estimates theta from theta0 (np entries). rcond: relative singular-value cutoff (0: the
 * default 1e-8); max_iterations (0: the default 60). ESDIRK_SUCCESS when converged;
 * ESDIRK_INVALID_ARGUMENT for inconsistent data (the message names the experiment), an
 * infeasible start or no convergence (the message says why; the result is filled). */
ESDIRK_C_API int esdirk_multishoot_estimate(esdirk_multishoot* ms, const esdirk_estimation_data* data,
                                            const double* theta0, esdirk_int np, double rcond,
                                            esdirk_int max_iterations,
                                            esdirk_estimation_result* result);

#ifdef __cplusplus
}
#endif

#endif
