#pragma once
// The stage sensitivities of one step of the ESDIRK method (Kristensen et al. 2005 section 3.1 and
// Algorithm 2): given the sensitivities S_n = d(x_n, z_n)/d(theta) at the start of the step and
// the parameter directions P = dp/d(theta), solve the linear stage equations
//
//     [ I - h*gamma*f_x,i   -h*gamma*f_z,i ] [SX_i]   [ Sx_n + h sum_{j<i} a_ij SF_j + h*gamma
//     f_p,i P ] [       g_x,i              g_z,i     ] [SZ_i] = [               -g_p,i P ]
//
//     SF_i = f_x,i SX_i + f_z,i SZ_i + f_p,i P
//
// for i = 2..s with the step's single LU of the iteration matrix M (the Newton matrix, J at
// t_n). `paper` mode freezes J and [f_p; g_p] at (t_n, x_n, z_n) so M is the exact matrix;
// `exact` mode uses them at the stages and refines with M. The derivation and the equation of
// the seed behind each line are in doc/sensitivity-theory.md.

#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include <memory>

#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/sensitivity/sensitivity_options.hpp"
#include "esdirk/stage_linear_system.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

namespace detail {
struct FixedStageKernels;
}

/// The automatic stage solve's rule on a banded or sparse problem (StageSolve::automatic; the
/// cost model in doc/linear-solvers-guide.md, "Sensitivities on grids whose factors fill in"):
/// true when an LU of each stage matrix M_i is expected to cost less than refining the stage
/// with the step's LU, given the size of the step's factored M (`cost`), the entries of the
/// Jacobian's pattern and the number of sensitivity directions. Per stage and in entry visits,
/// an LU costs forming M_i, the factorization's flops / 2 and one back-substitution per
/// direction; refinement one back-substitution per direction and then, per sweep and
/// direction, a product with J and a back-substitution. The factors' fill decides: without
/// fill (a 1-D grid) the factorization costs a few back-substitutions, with the fill of a 2-D
/// grid many sweeps' worth. Throws std::invalid_argument for directions < 1 or negative sizes.
ESDIRK_API bool stage_factorization_pays(const FactorizationCost& cost, double jacobian_entries,
                                         int directions);

class StageSensitivities {
 public:
  /// Sizes the Jacobian workspaces for the integrator's problem. The integrator, `jacobians`
  /// (the owner's evaluator, with the integrator's difference increments) and `counters` (the
  /// owner's statistics, where Jacobians, back-substitutions and fallback LUs are counted) must
  /// outlive this object. Throws std::invalid_argument if the options are invalid.
  StageSensitivities(Integrator& integrator, SensitivityOptions options,
                     JacobianEvaluator& jacobians, Statistics& counters);

  /// Sizes the stage workspaces for `directions` seed columns (allocates; call at setup).
  void resize(int directions);
  /// Throws std::length_error (as resize does) if `directions` is beyond the workspace limits;
  /// allocates and reads nothing, so that a caller can refuse a huge seed before reading it.
  void check_directions(int directions) const;
  int directions() const { return directions_; }
  const SensitivityOptions& options() const { return options_; }

  /// Solves the stage sensitivities of `step` (a trial or accepted step of the integrator, with
  /// its own factored iteration matrix step.matrix and Jacobian step.jacobian). Sx (nx x ns), Sz (nz x ns): the
  /// sensitivities at the start of the step; P (np x ns): the parameter directions;
  /// `uses_parameters`: false when P = 0 (no [f_p; g_p] is evaluated then). Returns 0, or the
  /// code of a failing Jacobian callback (> 0 also for non-finite values, < 0 fatal) with
  /// message() telling which. Does not allocate. Counts back-substitutions (one per column),
  /// stage Jacobians and parameter Jacobians in the owner's counters.
  int solve(const StepView& step, ConstMatrixRef Sx, ConstMatrixRef Sz, ConstMatrixRef P,
            bool uses_parameters);

  /// Stage i (0-based) of the last solve: SX_i (nx x ns), SZ_i (nz x ns), SF_i (nx x ns).
  ConstMatrixRef stage_states(int i) const;
  ConstMatrixRef stage_algebraic(int i) const;
  ConstMatrixRef stage_derivatives(int i) const;
  /// Error estimate of the sensitivities, e_S = h sum_i d_i SF_i (nx x ns), of the last solve.
  ConstMatrixRef error_estimate() const;

  /// True when exact mode solves each stage with an LU of its own matrix M_i (counted in
  /// stage_factorizations), false when it refines with the step's LU. On a banded or sparse
  /// problem `automatic` decides at the first solve, once the step's LU shows the factors'
  /// fill (stage_factorization_pays); false until then.
  bool factors_stages() const { return factor_stages_; }
  /// The problem's stage systems are solved by GMRES (LinearSolverKind::krylov).
  bool krylov() const {
    return structured_stage_lu_ != nullptr && structured_stage_lu_->kind() == LinearSolverKind::krylov;
  }
  /// Exact mode: the largest number of refinement sweeps a stage needed in the last solve
  /// (with the doubling, the sweeps its partial sum stands for: 2^k - 1 after k doublings; 0
  /// when the stages are solved with their own LU), and how many stages ever needed the
  /// fallback factorization after a refinement that did not converge.
  int last_max_corrections() const { return last_max_corrections_; }
  long fallback_factorizations() const { return fallbacks_; }

  /// Forgets the cached [f_p; g_p] (after a restart or new parameters).
  void invalidate_cache() {
    cache_valid_ = false;
    product_valid_ = false;
  }
  const std::string& message() const { return message_; }
  /// The last solve failed because GMRES missed KrylovSettings::sensitivity_tolerance (the
  /// Krylov back-end), not because of a callback.
  bool linear_solver_failed() const { return linear_solver_failed_; }

 private:
  // A stage's J: dense (a view) or in the storage of a banded or sparse problem.
  struct StageJacobian {
    ConstMatrixRef dense;
    const JacobianMatrix* structured = nullptr;
  };
  // C = alpha * J(rows row_begin ..) X, or C += ... if `accumulate` (either storage).
  static void multiply(const StageJacobian& J, int row_begin, ConstMatrixRef X, MatrixRef C,
                       double alpha, bool accumulate);
  StageJacobian current_stage_jacobian() const {
    return structured_ ? StageJacobian{{}, &structured_jacobian_}
                       : StageJacobian{stage_jacobian_.cref(), nullptr};
  }
  // The pieces of solve(), in order.
  StageJacobian start_step(const StepView& step, bool uses_parameters);
  int first_stage(const StepView& step, const StageJacobian& Jn, ConstMatrixRef Sx, ConstMatrixRef Sz,
                  ConstMatrixRef P, bool uses_parameters, bool exact);
  int later_stage(const StepView& step, int i, const StageJacobian& Jn, ConstMatrixRef P, bool uses_parameters,
                  bool exact);
  int finish_step(const StepView& step);
  int difference_base(const StepView& step, int stage);
  int parameter_jacobian_at(const StepView& step, int stage, ConstMatrixRef P);
  int stage_jacobian_at(const StepView& step, int stage);
  int analytic_stage_jacobian_at(const StepView& step, int stage);
  int fixed_parameter_jacobian_at(const StepView& step, int stage, ConstMatrixRef P);
  void update_product(const double* a, ConstMatrixRef P);
  void stage_jacobian_failed(int code, double t);      // message_ for a failed J
  void parameter_jacobian_failed(int code, double t);  // message_ for a failed [f_p; g_p]
  // Stage i's columns of values_ or derivatives_: contiguous n x ns (block_size() entries).
  MatrixRef stage_block(DenseMatrix& M, int i);
  std::size_t block_size() const;
  void form_inverse();
  void form_base(double h_gamma);
  int rhs_terms(int i, double h, const double*& coefficients, const double* const*& blocks);
  void form_rhs(int i, double h, double h_gamma, bool fresh_base);
  void apply_inverse(MatrixRef B, MatrixRef work);
  int refine_stage(const StageJacobian& J, MatrixRef S, double h_gamma);
  int refine_stage_by_doubling(ConstMatrixRef J, ConstMatrixRef Jn, MatrixRef S, double h_gamma);
  int fall_back(const StageJacobian& J, MatrixRef S, double h_gamma);
  bool solve_with_stage_matrix(const StageJacobian& J, MatrixRef S, double h_gamma, int stage = 0);
  bool solve_by_gmres_from_guess(const StageJacobian& J, MatrixRef S, double h_gamma, int stage);
  void extrapolate_stage(MatrixRef S, double h_gamma, int stage);
  double gmres_tolerance() const;
  bool solve_with_fixed_kernels(ConstMatrixRef J, MatrixRef S, double h_gamma);
  bool doubling_pays() const;
  bool factorization_pays() const;
  double weighted_matrix_norm(ConstMatrixRef A);
  void weights_for(const StepView& step);
  bool cache_matches(const StepView& step, int stage) const;
  void store_cache(const StepView& step, int stage);

  Integrator& integrator_;
  JacobianEvaluator& jacobians_;
  Statistics& stats_;
  const StageLinearSystem* matrix_ = nullptr;  // the LU of the step being solved
  SensitivityOptions options_;
  int nx_, nz_, n_, np_, s_;
  int directions_ = 0;
  // A banded or sparse problem (its Jacobian's structure): J in the pattern's storage, the
  // stage LU on the problem's back-end, no n x n workspace (no M^{-1}, no doubling).
  bool structured_ = false;
  DenseMatrix stage_jacobian_;       // J at the current stage (exact mode; dense problems)
  JacobianMatrix structured_jacobian_;  // J at the current stage (banded or sparse problems)
  std::unique_ptr<StageLinearSystem> structured_stage_lu_;  // LU of M_i (banded or sparse)
  // The tableau's stage combinations, found once: stage i's terms are the l < i with a_il != 0,
  // term_stage_[term_start_[i] ..) with a_il in term_a_, and the error estimate's the i with
  // d_i = b_i - b^_i != 0, error_stage_ with d_i in error_d_. Their blocks SF_l (resize()) and
  // their coefficients h a_il and h d_i, formed again when h changes (coefficients_h_).
  std::vector<int> term_start_, term_stage_, error_stage_;
  std::vector<double> term_a_, error_d_;
  std::vector<const double*> term_blocks_, error_blocks_;
  std::vector<double> term_coefficients_, error_coefficients_;
  double coefficients_h_ = 0.0;
  bool coefficients_ready_ = false;
  void form_coefficients(double h);
  DenseMatrix jp_;                   // [f_p; g_p] at the current stage (or t_n in paper mode)
  DenseMatrix jp_cache_;             // [f_p; g_p] at the last stage of the previous solve
  std::vector<double> cache_point_;  // (t, x, z) of jp_cache_
  bool cache_valid_ = false;
  bool linear_solver_failed_ = false;  // see linear_solver_failed()
  // Systems up to this order form M^{-1} once per step (see resize()).
  static constexpr int inverse_limit = 48;
  bool use_inverse_ = false;
  DenseMatrix inverse_;                    // M^{-1} of the step (n x n), if use_inverse_
  DenseMatrix jpP_;                        // [f_p; g_p] P (n x ns)
  // The nonzero pattern of P (detail::sparse_columns), formed per solve; used for the product
  // when at most half of P's entries are nonzero (a seed's parameter part: unit columns).
  std::vector<int> parameter_starts_, parameter_rows_;
  bool sparse_parameters_ = false;
  // The small-system fast path forms jpP_ again only when [f_p; g_p] or P changed, bit for
  // bit: the [f_p; g_p] (n x np) and the P (np x ns) it was formed from, and the nonzero
  // columns of P (jpP_'s other columns are zero).
  std::vector<double> product_basis_, product_seed_;
  std::vector<int> product_columns_;
  bool product_valid_ = false;
  bool same_seed(ConstMatrixRef P);
  // Stage i occupies columns [i*ns, (i+1)*ns): values [SX_i; SZ_i], derivatives [SF_i; 0].
  DenseMatrix values_, derivatives_;
  DenseMatrix base_, rhs_, correction_, JS_;  // n x ns
  std::vector<double*> gmres_columns_;     // the columns of correction_ a stage GMRES solves
  std::vector<double> gmres_tolerances_;   // and the relative residual of each
  DenseMatrix power_, power_next_;         // n x n: E^(2^k), E = I - M^{-1} M_i (doubling)
  DenseMatrix error_;                      // [e_S; 0], n x ns
  std::vector<double> weights_;            // 1/(atol + rtol |.|) of (x_n, z_n): refinement test
  std::vector<double> inverse_weights_;    // atol + rtol |.|
  std::vector<double> column_size_, column_change_;  // refinement test, per direction
  std::vector<double> f_base_, g_base_;    // f, g at a stage: the base of forward differences
  int base_stage_ = -1;                    // the stage f_base_, g_base_ belong to (this solve)
  // The problem's own dense J (jacobian(), not structured) and its own [f_p; g_p], asked once
  // per solve(): the stages then call the evaluator's analytic path without asking again.
  bool analytic_jacobian_ = false, analytic_parameters_ = false;
  DenseLuSolver stage_lu_;                 // LU of a stage matrix M_i (exact mode)
  // Small dense systems whose stages are factored (n <= detail::fixed_stage_limit): the stage
  // kernels of order n (resize()), and the LU of M_i they write; null otherwise.
  const detail::FixedStageKernels* fixed_ = nullptr;
  // Dense orders above them up to 16 whose stages are factored: the stage LU of order n and the
  // solve in vector lanes across the directions (fixed_size_stages.hpp), into fixed_lu_; null
  // otherwise.
  int (*lanes_solve_)(const double*, int, double, int, double*, int*, const double*, double*, int) = nullptr;
  std::vector<double> fixed_lu_;
  std::vector<int> fixed_pivots_;
  bool weights_ready_ = false;             // weights_ belong to the step being solved
  bool factor_stages_ = false;             // exact mode solves with stage_lu_ (resize())
  bool decide_at_solve_ = false;           // automatic on a banded/sparse problem: decided by
                                           // the first solve from the fill of the step's LU
  bool inverse_ready_ = false;             // inverse_ belongs to the step being solved
  int last_max_corrections_ = 0;
  long fallbacks_ = 0;
  std::string message_;
  // Banded and sparse problems: the weights of the extrapolation that starts each stage's GMRES
  // or refinement (extrapolate_stage; empty otherwise). Degree 2: the 2-D Brusselator (40 x 40,
  // rtol 1e-6, 3 directions, Krylov, the stage values extrapolated) took 16.0 G instructions from
  // a zero start, 14.3 G from S_{i-1}, 12.5 G with degree 1, 11.85 G with 2 and about 11.9 G
  // with 3.
  static constexpr int guess_degree = 2;
  DenseMatrix guess_weights_;
};

}  // namespace esdirk
