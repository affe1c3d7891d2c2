#pragma once
// The linear-solver seam. The iteration matrix of ESDIRK34 is
//
//     M = [ I - h*gamma*f_x   -h*gamma*f_z ]
//         [       g_x               g_z    ]
//
// (Kristensen et al. 2005 eq. 16 with its algebraic rows divided by -h*gamma, which leaves every
// Newton step and sensitivity solve unchanged and keeps M well scaled as h -> 0). A LinearSolver
// forms and factors M from J and h*gamma; dense LAPACK is the back-end here, banded and sparse ones
// can be added behind the same interface.

#include <memory>

#include "esdirk/matrix.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

class ESDIRK_API LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  /// Sizes the workspace. Called once at setup, never in the step loop.
  virtual void resize(int nx, int nz) = 0;
  /// Forms M from J (n x n) and h*gamma and factors it. Returns 0, or k > 0 when the k-th
  /// pivot (1-based) is exactly zero (M singular).
  virtual int factor(ConstMatrixRef J, double h_gamma) = 0;
  /// Overwrites the n x nrhs matrix B with M^{-1} B.
  virtual void solve(MatrixRef B) const = 0;
  /// Overwrites B with M^{-T} B (for adjoints).
  virtual void solve_transposed(MatrixRef B) const = 0;
  /// W = M^{-1} (n x n) from the current factorization (no new factorization): for callers
  /// that apply M^{-1} to many columns of a small system (the stage sensitivities). The
  /// default solves the identity.
  virtual void invert(MatrixRef W) const;
  /// h*gamma of the current factorization.
  virtual double h_gamma() const = 0;
};

/// Dense LU by LAPACK dgetrf/dgetrs.
class ESDIRK_API DenseLuSolver final : public LinearSolver {
 public:
  void resize(int nx, int nz) override;
  int factor(ConstMatrixRef J, double h_gamma) override;
  void solve(MatrixRef B) const override;
  void solve_transposed(MatrixRef B) const override;
  void invert(MatrixRef W) const override;
  double h_gamma() const override { return h_gamma_; }
  /// The factors of the last factor() (LAPACK's packed L and U): for callers that judge the
  /// pivots (a pivot negligible against the largest is a singular matrix to them).
  ConstMatrixRef factors() const { return lu_.cref(); }

 private:
  int nx_ = 0;
  int n_ = 0;
  double h_gamma_ = 0.0;
  DenseMatrix lu_;
  std::vector<int> pivots_;
};

/// LU of a general square matrix (used for dg/dz in the consistent initialization).
/// Returns 0 or the 1-based index of the first zero pivot.
ESDIRK_API int lu_factor(MatrixRef A, int* pivots);
/// Solves A X = B with the factors of lu_factor; transposed if `transpose`.
ESDIRK_API void lu_solve(ConstMatrixRef LU, const int* pivots, MatrixRef B, bool transpose = false);

}  // namespace esdirk
