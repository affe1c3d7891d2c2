#pragma once
// What the driver shows of a step, and what can be kept of it.
//
// StepView: a view of a trial or accepted step inside the stepper's buffers. It is valid until
// the driver attempts the next step (listeners use it during on_trial / on_accept; keep a
// StepRecord to hold on to a step). StepRecord: an owned copy, for trajectories, replay and
// checkpoints.

#include <vector>

#include "esdirk/matrix.hpp"

namespace esdirk {

class StageLinearSystem;
class JacobianMatrix;

struct StepView {
  long index = 0;      ///< accepted steps before this one since initialize() (0, 1, 2, ...)
  double t = 0.0;      ///< t_n, the start of the step
  double h = 0.0;      ///< the step (negative when integrating backwards)
  double t_end = 0.0;  ///< t_{n+1}: t_n + h, or exactly the stop time the step was cut to
  double h_gamma = 0.0;  ///< h * gamma of the step's iteration matrix
  int stages = 0;
  ConstMatrixRef X;  ///< nx x stages: stage values X_i (X_1 = x_n, X_s = x_{n+1})
  ConstMatrixRef Z;  ///< nz x stages: algebraic stage values Z_i
  ConstMatrixRef F;  ///< nx x stages: stage derivatives F_i (F_1 = f(t_n, x_n, z_n))
  ConstMatrixRef G;  ///< nz x stages: g(T_i, X_i, Z_i) at the converged stages (small)
  const double* stage_times = nullptr;  ///< T_i = t_n + c_i h (T_s = t_end)
  /// J = [f_x f_z; g_x g_z] at (t_n, x_n, z_n), the step's Newton J, when it is dense
  /// (0 x 0 for a banded or sparse problem: use jacobian_matrix).
  ConstMatrixRef jacobian;
  /// The step's factored iteration matrix M = E - h gamma J (solve / solve_transposed).
  const StageLinearSystem* matrix = nullptr;
  /// The step's J in its own storage (dense or sparse); null for a recorded step.
  const JacobianMatrix* jacobian_matrix = nullptr;
  /// Where the Newton iteration of the first implicit stage started, X_2^(0) then Z_2^(0)
  /// (nx + nz values), when that came from the step before (StagePredictor::dense_output);
  /// empty when it came from this step alone (a first step, after a restart, other predictors).
  /// Integrator::resume hands it back, so that a replayed step starts where the recorded one did.
  ConstVector stage_start;
};

/// An owned copy of a step: everything needed to replay it bit for bit (t, h, t_end, the
/// state at its start) and to use it without the stepper (stage values and derivatives).
class StepRecord {
 public:
  StepRecord() = default;
  explicit StepRecord(const StepView& step) { assign(step); }

  /// Copies `step` (allocates only when the sizes grow).
  void assign(const StepView& step);
  /// A view of the copy (no matrix: the LU of a recorded step is not kept).
  StepView view() const;

  long index = 0;
  double t = 0.0;
  double h = 0.0;
  double t_end = 0.0;
  double h_gamma = 0.0;
  int stages = 0;
  DenseMatrix X, Z, F, G;
  std::vector<double> stage_times;
  std::vector<double> stage_start;  ///< StepView::stage_start (empty or nx + nz)
};

}  // namespace esdirk
