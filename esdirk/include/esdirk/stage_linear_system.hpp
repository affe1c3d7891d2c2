#pragma once
// The stage linear system of one step: its iteration matrix M = E - h gamma J, factored once,
// with solve and solve_transposed (one LU serves both). The Newton stage solves, the forward
// sensitivities and the adjoint's transposed stage solves all use it.
//
// The dense LU back-end is held by value and called directly: a virtual call through a pointer
// here (one per Newton iteration) cost 5-7 % of the wall time of a Dow run at n = 10, with the
// same instruction count (the calls could not be devirtualized). Banded and sparse back-ends
// will come in behind this class with a dispatch whose cost is measured the same way.

#include "esdirk/linear_solver.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

class ESDIRK_API StageLinearSystem {
 public:
  /// A dense LU back-end sized for (nx, nz).
  StageLinearSystem(int nx, int nz);

  /// Forms and factors M from J and h*gamma for the step with accepted-step index
  /// `step_index`. Returns 0, or the 1-based index of a zero pivot (M singular).
  int factor(ConstMatrixRef J, double h_gamma, long step_index);
  /// B <- M^{-1} B.
  void solve(MatrixRef B) const { solver_.solve(B); }
  /// B <- M^{-T} B.
  void solve_transposed(MatrixRef B) const { solver_.solve_transposed(B); }
  /// W <- M^{-1} (no new factorization).
  void invert(MatrixRef W) const { solver_.invert(W); }
  double h_gamma() const { return solver_.h_gamma(); }
  /// The accepted-step index of the step this factorization belongs to.
  long step_index() const { return step_index_; }

 private:
  DenseLuSolver solver_;
  long step_index_ = -1;
};

}  // namespace esdirk
