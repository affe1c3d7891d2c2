#pragma once
// Counters of an integration. Each counter means exactly one thing (see doc/integrator-guide.md).

#include <span>
#include <string>

#include "esdirk/export.hpp"

namespace esdirk {

struct ESDIRK_API Statistics {
  long steps = 0;                 ///< NSTEP: attempted steps (accepted + every kind of rejection)
  long accepted_steps = 0;        ///< steps that passed the error test
  long rejected_steps = 0;        ///< steps rejected by the error test
  long function_evaluations = 0;  ///< NFUN: calls of Problem::evaluate by the method itself
  long fd_function_evaluations = 0;  ///< calls of Problem::evaluate to form finite differences
  long jacobian_evaluations = 0;     ///< NJAC: Jacobians formed (analytic or by differences)
  long lu_factorizations = 0;        ///< NLU: LU factorizations (iteration matrix, dg/dz at init)
  long back_substitutions = 0;       ///< NBACK: right-hand sides solved with an LU
  long stage_factorizations = 0;  ///< LUs of stage matrices M_i (exact sensitivities), not in NLU
  long dense_output_factorizations = 0;  ///< LUs of dg/dz for the dense output (one per step at most)
  long newton_iterations = 0;        ///< Newton iterations (residual evaluations) of stage solves
  long newton_failures = 0;          ///< stage solves that diverged or hit the iteration limit
  long jacobian_refreshes = 0;  ///< Newton recoveries: J at a stage iterate and its LU (in NJAC, NLU)
  long newton_dampings = 0;     ///< Newton corrections halved because the model left its domain
  /// Stage-2 starts from the last step's dense output (StagePredictor::dense_output) that left the
  /// model's domain, gave a non-finite value or diverged, retried from the stage extrapolation
  long stage_start_fallbacks = 0;
  long jacobian_reuses = 0;  ///< attempts with the Jacobian of an earlier step (Options::reuse_jacobian)
  long lu_reuses = 0;        ///< attempts with the previous step's LU (same J; same h, or one within Options::lu_reuse_h_change): not in NLU
  long steps_kept = 0;       ///< accepted steps after which h was kept (Options::keep_step_ratio_*)
  long callback_failures = 0;        ///< recoverable callback failures and non-finite values
  long parameter_jacobian_evaluations = 0;  ///< NJACP: [f_p; g_p] formed (sensitivities)
  long sensitivity_solves = 0;  ///< NSENS: accepted steps whose sensitivities were solved
  long events = 0;              ///< events located (event module)
  long adjoint_steps = 0;       ///< backward steps of an adjoint sweep
  long checkpoints = 0;         ///< checkpoints stored by an adjoint sweep
  // The event module (events/, doc/events-guide.md):
  long event_function_evaluations = 0;  ///< calls of the event functions h (detection, location)
  long event_fd_evaluations = 0;  ///< calls of h or of the reset to form difference Jacobians
  long event_root_iterations = 0;    ///< iterations of the event root finder
  long event_dense_evaluations = 0;  ///< dense-output evaluations for event detection and location
  long event_transitions = 0;        ///< transitions applied (state and time events)
  long event_reinitializations = 0;  ///< restarts of the integrator after a transition
  long event_grazing_warnings = 0;   ///< events with |dh/dt| below the grazing tolerance
  // The adjoint's reverse sweeps (sensitivity/, doc/adjoint-guide.md), beside adjoint_steps and
  // checkpoints above:
  long adjoint_transposed_solves = 0;  ///< right-hand sides solved with a transposed stage matrix
  long adjoint_factorizations = 0;     ///< LUs of stage matrices formed by the sweep (extra LUs)
  long adjoint_jacobian_evaluations = 0;  ///< stage Jacobians J_i formed by the sweep
  long adjoint_recomputed_steps = 0;   ///< steps replayed from checkpoints (not in steps)
  // The Krylov stage solver (LinearSolverKind::krylov, doc/linear-solvers-guide.md):
  long linear_iterations = 0;      ///< GMRES iterations (Krylov basis vectors formed)
  long preconditioner_setups = 0;  ///< preconditioner setups (in place of LUs; also in NLU)
  long preconditioner_solves = 0;  ///< applications of the preconditioner
  long jacobian_vector_products = 0;  ///< products of M = E - h gamma J with a vector
  long linear_solver_failures = 0;    ///< GMRES solves that did not reach their tolerance

  /// Adds every counter of `other` (for accumulating over shooting intervals).
  Statistics& operator+=(const Statistics& other);
  /// Subtracts every counter of `other` (the counters of a stretch of a run: after - before).
  Statistics& operator-=(const Statistics& other);
  /// An aligned two-column table, one counter per line, seed names in brackets.
  std::string table() const;
  /// "name,value" lines with a header line.
  std::string csv() const;
};

/// One counter of Statistics: its stable name (as in table() and csv(), and as the C API's
/// esdirk_solver_get_counter takes it), the paper's name ("NSTEP", or "") and the member.
struct StatisticsCounter {
  const char* name;
  const char* seed_name;
  long Statistics::*counter;
};

/// Every counter of Statistics, in the order of table() and csv(). Bindings walk this list,
/// so a counter added here reaches C and Fortran without an edit there.
ESDIRK_API std::span<const StatisticsCounter> statistics_counters();

}  // namespace esdirk
