#pragma once
// The back-ends of StageLinearSystem for banded and sparse Jacobians. Each forms
// M = E - h gamma J from the CSC values of J (E: identity on the nx differential rows, zero on
// the algebraic rows, which are kept as g_x, g_z: see linear_solver.hpp) and factors it.
// Everything is allocated by the constructor; factor and solve allocate nothing.

#include <memory>
#include <string>

#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/matrix.hpp"
#include "esdirk/sparsity.hpp"
#include "esdirk/stage_linear_system.hpp"
#include "esdirk/statistics.hpp"

namespace esdirk::internal {

class StructuredLu {
 public:
  virtual ~StructuredLu() = default;
  /// Forms and factors M. Returns 0, or the 1-based column of a zero pivot (M singular).
  virtual int factor(const JacobianMatrix& J, double h_gamma) = 0;
  /// Krylov only: M from J and h_gamma for the products, preconditioned by `other`'s
  /// preconditioner as its last factor() left it (no setup). The direct back-ends throw.
  virtual int factor_preconditioned_by(const JacobianMatrix& J, double h_gamma, const StructuredLu& other);
  /// B <- M^{-1} B, or M^{-T} B if `transpose`.
  virtual void solve(MatrixRef B, bool transpose) const = 0;
  /// Bytes held by the factorization and its workspace (memory reports).
  virtual std::size_t bytes() const = 0;
  /// Entries of M, of its factors and the flops of one factorization (cost models).
  virtual FactorizationCost cost() const = 0;
  /// Where an iterative back-end counts its work (linear iterations, preconditioner setups and
  /// solves, products with M, failed solves); null: nowhere. The direct back-ends count nothing.
  virtual void set_statistics(Statistics* /*stats*/) {}
  /// False if the last solve() did not reach its tolerance (iterative back-ends only).
  virtual bool last_solve_converged() const { return true; }
  /// The relative residual at which an iterative back-end's solves stop (its forcing term);
  /// the direct back-ends solve exactly and ignore it.
  virtual void set_tolerance(double /*tolerance*/) {}
  /// Krylov only: column c <- M^{-1} column c to the relative residual tolerances[c], for the
  /// `count` columns. The direct back-ends throw.
  virtual void solve_columns(double* const* columns, const double* tolerances, int count) const;
  /// An iterative back-end may solve up to `count` right-hand sides together (one pass of its
  /// preconditioner for all); sizes its workspace for them. Setup only, never in a solve.
  virtual void reserve_columns(int /*count*/) {}
  /// Why the last factor() returned a zero pivot, for the run's message: empty where the
  /// pivot's column says it all (the direct back-ends); a preconditioner's row and what to
  /// change (the Krylov back-end). Built only when asked, after a failure.
  virtual std::string failure_note() const { return {}; }
};

/// LAPACK band LU (dgbtrf/dgbtrs) with the structure's bandwidths.
std::unique_ptr<StructuredLu> make_banded_lu(int nx, int nz, const JacobianStructure& structure);
/// KLU. Throws std::invalid_argument naming a column if the pattern of M is structurally
/// singular (no choice of values makes M invertible).
std::unique_ptr<StructuredLu> make_sparse_lu(int nx, int nz, const JacobianStructure& structure);
/// Restarted GMRES with ILU(0), block-Jacobi or the problem's preconditioner (krylov_stage_system.cpp). Throws
/// std::invalid_argument for a structure without a pattern or invalid KrylovSettings.
std::unique_ptr<StructuredLu> make_krylov(int nx, int nz, const JacobianStructure& structure);

}  // namespace esdirk::internal
