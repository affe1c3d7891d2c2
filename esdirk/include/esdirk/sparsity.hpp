#pragma once
// The structure of a problem's Jacobian: dense (the default), banded, or a sparsity pattern in
// compressed sparse column (CSC) form, and the linear-solver back-end that follows from it
// (doc/linear-solvers-guide.md).
//
// A pattern lists, column by column, the rows where J = [f_x f_z; g_x g_z] may be nonzero.
// Entries that happen to be zero at a point may be listed; an entry that is not listed is
// taken to be zero everywhere (check_jacobian_pattern finds entries a pattern misses).

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "esdirk/export.hpp"

namespace esdirk {

/// The back-end that factors the iteration matrix M = E - h gamma J.
enum class LinearSolverKind {
  dense,   ///< LU with partial pivoting (plain loops up to n = 48, LAPACK dgetrf above)
  banded,  ///< LAPACK dgbtrf/dgbtrs with the pattern's bandwidths
  sparse,  ///< KLU (SuiteSparse): symbolic analysis once, numeric refactorization per step
  /// Restarted GMRES (Newton-Krylov) with a built-in preconditioner (KrylovPreconditioner) or
  /// the problem's own, for systems whose LU fill does not fit (3-D grids): no factorization of M, J kept on its pattern
  /// (doc/linear-solvers-guide.md, "Newton-Krylov"). Settings in JacobianStructure::krylov.
  krylov,
};

/// "dense", "banded", "sparse" or "krylov".
ESDIRK_API const char* linear_solver_name(LinearSolverKind kind);

/// An n x n CSC sparsity pattern: the rows of column j are row_indices()[column_pointers()[j]
/// .. column_pointers()[j+1]), sorted ascending. Immutable once built.
class ESDIRK_API SparsityPattern {
 public:
  /// Validates and keeps the pattern; the rows of each column may come in any order and are
  /// sorted. Throws std::invalid_argument naming the first bad entry: n < 1, column_pointers
  /// not of size n+1, not starting at 0 or decreasing, a row outside [0, n), or a row listed
  /// twice in one column.
  SparsityPattern(int n, std::vector<int> column_pointers, std::vector<int> row_indices);
  /// The full band: every (i, j) with -upper <= i - j <= lower. Throws std::invalid_argument
  /// unless 0 <= lower, upper < n.
  static SparsityPattern banded(int n, int lower, int upper);
  /// From (row, column) pairs in any order; duplicates and out-of-range entries are rejected
  /// as in the constructor.
  static SparsityPattern from_entries(int n, std::span<const int> rows, std::span<const int> cols);

  int size() const { return n_; }
  int nonzeros() const { return static_cast<int>(rows_.size()); }
  const std::vector<int>& column_pointers() const { return pointers_; }
  const std::vector<int>& row_indices() const { return rows_; }
  /// The position of entry (i, j) in the value array, or -1 if it is not in the pattern.
  int find(int i, int j) const;
  /// The largest i - j (lower) and j - i (upper) over the entries, each at least 0.
  int lower_bandwidth() const { return lower_; }
  int upper_bandwidth() const { return upper_; }
  /// The largest number of entries in one row.
  int max_row_count() const { return max_row_count_; }

 private:
  SparsityPattern() = default;
  void finish();  // sorts, checks, computes the bandwidths

  int n_ = 0;
  std::vector<int> pointers_, rows_;
  int lower_ = 0, upper_ = 0, max_row_count_ = 0;
};

/// The Krylov stage solver's built-in preconditioner P ~ M = E - h gamma J, used when the
/// problem has no preconditioner of its own (doc/linear-solvers-guide.md, "Preconditioners").
enum class KrylovPreconditioner {
  /// ILU(0): the incomplete LU of M on its pattern (J's declared pattern plus the diagonal), no
  /// fill, no pivoting. Keeps the couplings between grid points, so GMRES needs several times
  /// fewer iterations than block-Jacobi on diffusion-dominated grids; memory and one
  /// application cost O(nnz(J)). A zero pivot (e.g. an algebraic row whose diagonal of g_z is 0
  /// in the natural order) fails the setup like a singular M: use block_jacobi there.
  ilu0,
  /// Dense LUs (partial pivoting) of M's diagonal blocks of KrylovSettings::block_size: the
  /// unknowns of one grid point; cheaper per iteration, blind to the couplings between blocks.
  block_jacobi,
};

/// "ilu0" or "block_jacobi".
ESDIRK_API const char* krylov_preconditioner_name(KrylovPreconditioner preconditioner);

/// The largest KrylovSettings::dimension. The GMRES basis holds dimension + 1 vectors of n
/// values, allocated at setup: 500 keeps it at most 4 kB per unknown (memory linear in n, as
/// the rest of the Krylov back-end; a dimension near n would ask n^2 values), and a cycle of m
/// iterations costs about m^2 n for the orthogonalization alone, so a dimension beyond a few
/// hundred costs more than the restarts it saves (doc/linear-solvers-guide.md, "Settings").
inline constexpr int max_krylov_dimension = 500;
/// The largest KrylovSettings::max_restarts: a solve then runs at most (1000 + 1) x dimension
/// GMRES iterations, so a stage solve always ends (GMRES also stops a cycle that made no
/// progress, see KrylovSettings::max_restarts).
inline constexpr int max_krylov_restarts = 1000;

/// The settings of the Krylov stage solver (LinearSolverKind::krylov; theory section 8b).
struct KrylovSettings {
  /// Krylov dimension m of GMRES(m): the basis (n x (m + 1) values) is allocated at setup and
  /// GMRES restarts after m iterations. In [1, min(n, max_krylov_dimension)]. A declared
  /// structure (JacobianStructure::of_pattern, ::banded) starts from krylov_defaults(n), whose
  /// dimension is min(30, n).
  int dimension = 30;
  /// Restarts after the first cycle before a solve counts as failed (linear_solver_failures);
  /// in [0, max_krylov_restarts]. A cycle that reduces the residual by less than a relative
  /// sqrt(machine epsilon) (1.5e-8) ends the solve as failed at once: at that rate even
  /// max_krylov_restarts cycles would gain less than 2e-5, so GMRES has stagnated.
  int max_restarts = 4;
  /// The forcing term, a fixed fraction: a solve stops when ||b - M x||_2 <= tolerance ||b||_2.
  /// An inexact Newton correction with relative residual eta contracts at about eta, so 0.05
  /// leaves the Newton convergence test and the stage values as with an exact solve. In (0, 1).
  double tolerance = 0.05;
  /// The forcing term of the states' stage solves while a module that differentiates the run
  /// is attached (forward sensitivities, an adjoint; Integrator::require_step_jacobians or a
  /// listener that needs the step-start Jacobian), if smaller than `tolerance`. Those modules
  /// differentiate the converged stage equations, so the stage values must be as close to them
  /// as an LU leaves them: with 0.05 the Newton test stops on 5 %-off corrections and the
  /// sensitivities missed rtol by up to 7.8x on a 1-D grid at the same steps; 1e-3 gives the
  /// LU's errors and Newton counts for 0-13 % more time (doc/linear-solvers-guide.md). In (0, 1).
  double tolerance_with_derivatives = 1e-3;
  /// The built-in preconditioner (when the problem has none of its own).
  KrylovPreconditioner preconditioner = KrylovPreconditioner::ilu0;
  /// Size of the diagonal blocks of M that the block-Jacobi preconditioner factors (dense LU
  /// per block; the last block takes the remainder): the number of unknowns per grid point
  /// for interleaved grids; 1 is Jacobi. In [1, n]. Used by KrylovPreconditioner::block_jacobi
  /// only (still checked).
  int block_size = 1;
  /// Matrix-free products: GMRES multiplies by J through the problem's
  /// jacobian_vector_product() when it has one, else by the difference quotient
  /// (F(y + sigma v) - F(y)) / sigma of f and g at the point where J was formed (theory 8c), so
  /// J on the declared pattern only feeds the preconditioner: declare just the couplings it
  /// uses (e.g. a grid point's reaction block). False: products with J on its pattern.
  bool matrix_free = false;
  /// The relative residual of the forward sensitivities' stage solves (ForwardSensitivity with
  /// the Krylov back-end): their stage systems are linear and solved once, not corrected by a
  /// Newton iteration, so they are solved far below the forcing term (theory 8d). In (0, 1).
  double sensitivity_tolerance = 1e-10;
  /// The forward sensitivities' stage solves (M_i S_i = rhs, M_i = E - h gamma J at stage i) are
  /// preconditioned by the step's preconditioner, the one set up for the states' iteration
  /// matrix M = E - h gamma J_n, instead of a setup of their own per implicit stage: M_i differs
  /// from M by h gamma (J_i - J_n) only, so GMRES needs about as many iterations, and right
  /// preconditioning keeps the residual (and the accuracy) the one of M_i whatever the
  /// preconditioner. False: a setup with M_i per stage, as before (theory 8d).
  bool sensitivity_step_preconditioner = true;
  /// If > 0, the forward sensitivities' stage GMRES also stops at a relative residual of
  /// sensitivity_error_fraction x rtol (the integrator's smallest relative tolerance), when that
  /// is larger than sensitivity_tolerance: the stage sensitivities are then solved to a fraction
  /// of the error test's tolerance, as CVODES solves its sensitivity corrector, and are no longer
  /// the derivatives of the discrete scheme to rounding (theory 8d, with the numbers). 0 (the
  /// default): sensitivity_tolerance alone. In [0, 1).
  double sensitivity_error_fraction = 0.0;
};

/// Throws std::invalid_argument naming the setting of `settings` out of range for a system of
/// n unknowns (a Krylov dimension <= 0 or above min(n, max_krylov_dimension), a block size
/// outside [1, n], a tolerance outside (0, 1), a sensitivity_error_fraction outside [0, 1), restarts outside [0, max_krylov_restarts], a
/// preconditioner that is not one of KrylovPreconditioner). Problem::set_krylov_settings, the
/// hybrid problem's and the C API's setters call it, and the Krylov stage system before it
/// allocates anything.
ESDIRK_API void validate_krylov_settings(const KrylovSettings& settings, int n);

/// The default settings for a system of n unknowns: KrylovSettings{} with the dimension
/// min(30, n), so that the defaults are valid for every n >= 1.
ESDIRK_API KrylovSettings krylov_defaults(int n);

/// The Jacobian's structure as the problem declares it (Problem::set_jacobian_bandwidths,
/// Problem::set_jacobian_pattern). `pattern` is null for a dense Jacobian; a banded
/// structure without a pattern of its own carries the full band.
struct ESDIRK_API JacobianStructure {
  LinearSolverKind solver = LinearSolverKind::dense;
  std::shared_ptr<const SparsityPattern> pattern;
  int lower = 0;  ///< bandwidths (banded back-end)
  int upper = 0;
  KrylovSettings krylov;  ///< LinearSolverKind::krylov only

  /// A dense n x n Jacobian (dense LU), the Krylov settings at krylov_defaults(n).
  static JacobianStructure dense(int n);
  /// The full band of an n x n Jacobian, factored by band LU. Throws std::invalid_argument
  /// unless 0 <= lower, upper < n (the checks and messages of every set_jacobian_bandwidths).
  static JacobianStructure banded(int n, int lower, int upper);
  /// `pattern`, factored by `solver`, with the pattern's bandwidths. Throws
  /// std::invalid_argument unless the pattern is n x n.
  static JacobianStructure of_pattern(int n, SparsityPattern pattern, LinearSolverKind solver);
};

/// A greedy distance-2 colouring of the columns of `pattern`: two columns that share a row get
/// different colours, so all columns of one colour can be differenced with one evaluation of
/// f. Columns are coloured in their natural order, each with the smallest colour none of its
/// neighbours in the column-intersection graph (the graph of JᵀJ) has: at most (the largest
/// number of entries in a row of JᵀJ) colours, and exactly lower + upper + 1 on a full band.
/// Returns the colour of every column (0, 1, ...); the number of colours is 1 + the largest.
ESDIRK_API std::vector<int> colour_columns(const SparsityPattern& pattern);

}  // namespace esdirk
