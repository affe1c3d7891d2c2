#pragma once
// The stage linear system of one step: its iteration matrix M = E - h gamma J, factored once,
// with solve and solve_transposed (one LU serves both). The Newton stage solves, the forward
// sensitivities and the adjoint's transposed stage solves all use it.
//
// Three back-ends (doc/linear-solvers-guide.md): dense LU, LAPACK band LU and KLU, chosen by the
// problem's JacobianStructure. The dense LU is held by value and called directly behind one
// predictable branch on the back-end's kind: a virtual call through a pointer here (one per
// Newton iteration) cost 5-7 % of the wall time of a Dow run at n = 10, with the same
// instruction count (the calls could not be devirtualized). The banded and sparse back-ends,
// whose every call does O(n) work, sit behind an internal interface.

#include <memory>
#include <span>
#include <string>

#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/linear_solver.hpp"
#include "esdirk/sparsity.hpp"
#include "esdirk/statistics.hpp"

namespace esdirk {

namespace internal {
class StructuredLu;
}

/// The size of a factored iteration matrix M, for cost models that choose between more
/// factorizations and more back-substitutions (the forward sensitivities' automatic stage
/// solve, doc/linear-solvers-guide.md). A back-substitution of one column touches every entry
/// of the factors once; a factorization does `factorization_flops` floating-point operations.
struct FactorizationCost {
  double matrix_entries = 0.0;       ///< stored entries of M (dense: n^2; band: n (kl + ku + 1))
  double factor_entries = 0.0;       ///< entries of L and U with their fill-in
  double factorization_flops = 0.0;  ///< flops of one numeric factorization
};

class StageLinearSystem {
 public:
  /// A dense LU back-end sized for (nx, nz).
  StageLinearSystem(int nx, int nz);
  /// The back-end `structure.solver` asks for. Banded and sparse ones do their setup here
  /// (the sparse one its symbolic analysis) and throw std::invalid_argument for a structure
  /// they cannot take (a pattern wider than the bandwidths; a structurally singular M, naming
  /// a column).
  StageLinearSystem(int nx, int nz, const JacobianStructure& structure);
  ~StageLinearSystem();
  StageLinearSystem(const StageLinearSystem&) = delete;
  StageLinearSystem& operator=(const StageLinearSystem&) = delete;

  LinearSolverKind kind() const { return kind_; }

  /// Forms and factors M from J and h*gamma for the step with accepted-step index
  /// `step_index`. Returns 0, or the 1-based index of a zero pivot (M singular).
  int factor(const JacobianMatrix& J, double h_gamma, long step_index);
  /// The same from a dense J (dense back-end only; throws std::logic_error otherwise).
  int factor(ConstMatrixRef J, double h_gamma, long step_index);
  /// LinearSolverKind::krylov only: M = E - h gamma J for GMRES's products, preconditioned by
  /// `other`'s preconditioner as `other`'s last factor() set it up, without a setup of its own
  /// (the forward sensitivities' stage systems with the step's preconditioner, theory 8d).
  /// `other` must stay alive and unchanged until this system's next factor. Throws
  /// std::logic_error unless both are Krylov systems of the same size.
  int factor_preconditioned_by(const JacobianMatrix& J, double h_gamma, const StageLinearSystem& other);
  /// B <- M^{-1} B.
  void solve(MatrixRef B) const {
    if (kind_ == LinearSolverKind::dense) [[likely]]
      solver_.solve(B);
    else
      solve_structured(B, false);
  }
  /// B <- M^{-T} B.
  void solve_transposed(MatrixRef B) const {
    if (kind_ == LinearSolverKind::dense) [[likely]]
      solver_.solve_transposed(B);
    else
      solve_structured(B, true);
  }
  /// W <- M^{-1} (no new factorization). n x n: meant for small systems.
  void invert(MatrixRef W) const;
  double h_gamma() const { return h_gamma_; }
  /// The accepted-step index of the step this factorization belongs to.
  long step_index() const { return step_index_; }
  /// Bytes held by the factorization (the LU and its workspace).
  std::size_t bytes() const;
  /// Entries of M and of its factors, flops of one factorization. KLU reports the fill-in of
  /// the last factorization (before the first one, its symbolic analysis's estimates); the
  /// dense and banded back-ends their fixed storage (band: the kl rows of pivoting fill
  /// included) and the textbook flop counts (2/3 n^3; 2 n kl (kl + ku)).
  FactorizationCost factorization_cost() const;
  /// LinearSolverKind::krylov: where GMRES counts its work (Statistics::linear_iterations ...);
  /// the direct back-ends count nothing here.
  void set_statistics(Statistics* stats);
  /// False if the last solve or solve_transposed did not reach the Krylov tolerance (GMRES
  /// only; a direct back-end always converges).
  bool last_solve_converged() const;
  /// LinearSolverKind::krylov: the relative residual at which solves stop from now on (the
  /// forcing term; KrylovSettings::tolerance at construction). The direct back-ends ignore it.
  void set_krylov_tolerance(double tolerance);
  /// LinearSolverKind::krylov only: each column <- M^{-1} column, to the relative residual of
  /// its own tolerance (one per column); last_solve_converged() says if all reached it. Throws
  /// std::logic_error on another back-end.
  void solve_columns(std::span<double* const> columns, std::span<const double> tolerances) const;
  /// LinearSolverKind::krylov: solves take up to `count` right-hand sides together (ILU(0):
  /// one pass over the factors for all, 1.8 - 2.1x faster per vector; the same bits as one at
  /// a time), with a GMRES workspace for each (up to 4). The direct back-ends ignore it. Call
  /// at setup: it allocates.
  void reserve_columns(int count);
  /// After factor() returned a zero pivot: what the back-end knows beyond the pivot's index
  /// (LinearSolverKind::krylov: the preconditioner's row as the model's equation and what to
  /// change), for the run's message; empty otherwise.
  std::string failure_note() const;

 private:
  void solve_structured(MatrixRef B, bool transpose) const;

  LinearSolverKind kind_ = LinearSolverKind::dense;
  DenseLuSolver solver_;
  std::unique_ptr<internal::StructuredLu> structured_;
  int n_ = 0;
  double h_gamma_ = 0.0;
  long step_index_ = -1;
};

}  // namespace esdirk
