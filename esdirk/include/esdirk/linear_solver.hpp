#pragma once
// The iteration matrix of the stages and its dense LU. The iteration matrix of ESDIRK34 is
//
//     M = [ I - h*gamma*f_x   -h*gamma*f_z ]
//         [       g_x               g_z    ]
//
// (Kristensen et al. 2005 eq. 16 with its algebraic rows divided by -h*gamma, which leaves every
// Newton step and sensitivity solve unchanged and keeps M well scaled as h -> 0). DenseLuSolver
// forms and factors M from J and h*gamma by dense LU. StageLinearSystem
// (stage_linear_system.hpp) holds it by value for dense problems and keeps the banded, sparse
// and Krylov back-ends behind its own internal interface, so this class needs no base.
//
// Internal: not exported (a by-value member of public classes, so the header stays installed);
// users reach the stage matrix through Integrator::last_iteration_matrix().

#include <memory>

#include "esdirk/matrix.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// Dense LU of M with partial pivoting (lu_factor and lu_solve below).
class DenseLuSolver {
 public:
  /// Sizes the workspace. Called once at setup, never in the step loop.
  void resize(int nx, int nz);
  /// Forms M from J (n x n) and h*gamma and factors it. Returns 0, or k > 0 when the k-th
  /// pivot (1-based) is exactly zero (M singular).
  int factor(ConstMatrixRef J, double h_gamma);
  /// Overwrites the n x nrhs matrix B with M^{-1} B.
  void solve(MatrixRef B) const;
  /// Overwrites B with M^{-T} B (for adjoints).
  void solve_transposed(MatrixRef B) const;
  /// W = M^{-1} (n x n) from the current factorization (no new factorization): for callers
  /// that apply M^{-1} to many columns of a small system (the stage sensitivities).
  void invert(MatrixRef W) const;
  /// h*gamma of the current factorization.
  double h_gamma() const { return h_gamma_; }
  /// The factors of the last factor() (LAPACK's packed L and U): for callers that judge the
  /// pivots (a pivot negligible against the largest is a singular matrix to them).
  ConstMatrixRef factors() const { return lu_.cref(); }

 private:
  int nx_ = 0;
  int n_ = 0;
  double h_gamma_ = 0.0;
  DenseMatrix lu_;
  std::vector<int> pivots_;
  // Orders factored within their band (linear_solver.cpp, uses_band): the bandwidths of the last
  // factorization (band_kl_ < 0: none yet), which the next one tries first, and for each column
  // of L its last row that may be nonzero.
  int band_kl_ = -1;
  int band_ku_ = 0;
  std::vector<int> l_last_;
};

/// LU of a general square matrix (used for dg/dz in the consistent initialization).
/// Returns 0 or the 1-based index of the first zero pivot.
ESDIRK_API int lu_factor(MatrixRef A, int* pivots);
/// Solves A X = B with the factors of lu_factor; transposed if `transpose`.
ESDIRK_API void lu_solve(ConstMatrixRef LU, const int* pivots, MatrixRef B, bool transpose = false);

}  // namespace esdirk
