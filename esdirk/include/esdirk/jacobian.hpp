#pragma once
// Jacobians: the user's, or finite differences (counted apart from the model's own
// evaluations), and a checker that compares the two.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// Forms J = [f_x f_z; g_x g_z] and [f_p; g_p] at a point, analytically when the problem has
/// them and by forward differences otherwise. With a declared sparsity pattern (or band) the
/// differences are coloured: the columns of one colour of a greedy distance-2 colouring share
/// no row and are differenced with one evaluation of f and g (colours() evaluations per J).
/// Owns its workspace (sized once).
class JacobianEvaluator {
 public:
  /// Throws std::invalid_argument for a banded or sparse problem that supplies only the dense
  /// jacobian() (it writes an n x n matrix; supply sparse_jacobian() or use differences).
  JacobianEvaluator(Problem& problem, Statistics& stats);

  /// True if J comes from the problem (jacobian() or sparse_jacobian()), not differences.
  bool analytic() const { return analytic_; }
  /// The number of colours of the difference Jacobian: f evaluations per difference J
  /// (n without a pattern).
  int colours() const { return colours_; }

  /// Difference increments are delta_j = sqrt(eps) max(|v_j|, min(floor_j, typical_j)) (the
  /// increment floors below), and sqrt(eps) typical_j where that is zero (nx + nz values, each
  /// > 0; default 1).
  void set_typical_values(std::vector<double> typical);
  const std::vector<double>& typical_values() const { return typical_; }
  /// The floors of the increments in units of the states (nx + nz values, each finite and
  /// >= 0). Default 0: MINPACK's relative rule. The integrator sets
  /// ErrorWeights::increment_floors() (Options::difference_increment,
  /// DifferenceIncrement::error_weighted).
  void set_increment_floors(std::vector<double> floors);
  const std::vector<double>& increment_floors() const { return floors_; }
  /// Takes the typical values and increment floors of `other` (an evaluator of the same
  /// problem), so both form the same difference Jacobians. Does not allocate.
  void use_increments_of(const JacobianEvaluator& other);

  /// `f0`, `g0` must hold f and g at the point (the forward-difference base).
  /// Returns the callback's code (0 ok, > 0 recoverable, < 0 fatal); 1 if a value is not finite.
  int state_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector f0,
                     ConstVector g0, MatrixRef J) {
    if (problem_.has_jacobian()) return analytic_state_jacobian(t, x, z, p, J);
    return other_state_jacobian(t, x, z, p, f0, g0, J);
  }
  /// The same into J's own storage (dense, or the values of its pattern).
  int state_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector f0,
                     ConstVector g0, JacobianMatrix& J) {
    if (J.is_dense()) return state_jacobian(t, x, z, p, f0, g0, J.dense());
    return structured_state_jacobian(t, x, z, p, f0, g0, J);
  }
  int parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector f0,
                         ConstVector g0, MatrixRef Jp) {
    if (problem_.has_parameter_jacobian()) return analytic_parameter_jacobian(t, x, z, p, Jp);
    return parameter_differences(t, x, z, p, f0, g0, Jp);
  }

  // The problem's own jacobian() and parameter_jacobian() (the caller has asked has_jacobian()
  // or has_parameter_jacobian(): once per step, not per stage), counted and checked as above.
  // Inline, with the check of a small J inline too: a shooting interval of a small model
  // (2 x 2 J, 2 x 1 [f_p; g_p]) calls them at every stage, and the call, its arguments' copies,
  // the check through the vector clones and the question to the problem cost about 100
  // instructions each, more than the model's own J.
  int analytic_state_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) {
    ++stats_.jacobian_evaluations;
    const int code = problem_.jacobian(t, x, z, p, J);
    return code != 0 ? code : finite_code(J);
  }
  int analytic_parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                  MatrixRef Jp) {
    ++stats_.parameter_jacobian_evaluations;
    const int code = problem_.parameter_jacobian(t, x, z, p, Jp);
    return code != 0 ? code : finite_code(Jp);
  }

 private:
  // 0 if every entry is finite, else 1, in one branch-free pass over the bits: a NaN or an
  // infinity has all exponent bits set, and exactly then adding 2^52 to its exponent bits
  // carries into the sign bit. Up to 16 contiguous entries here, others through the
  // vectorized clones of jacobian.cpp.
  static int finite_code(ConstMatrixRef m) {
    constexpr long small = 16;
    const long entries = static_cast<long>(m.rows) * m.cols;
    if (m.ld != m.rows || entries > small) return all_finite_large(m) ? 0 : 1;
    constexpr std::uint64_t exponent_bits = 0x7ff0000000000000ULL, exponent_carry = 0x0010000000000000ULL;
    std::uint64_t bad = 0;
    for (long i = 0; i < entries; ++i) {
      std::uint64_t bits;
      std::memcpy(&bits, m.data + i, sizeof bits);
      bad |= (bits & exponent_bits) + exponent_carry;
    }
    return static_cast<int>(bad >> 63);
  }
  static bool all_finite_large(ConstMatrixRef m);
  // J without the problem's jacobian(): its sparse_jacobian() scattered, or differences.
  int other_state_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector f0,
                           ConstVector g0, MatrixRef J);
  int structured_state_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                ConstVector f0, ConstVector g0, JacobianMatrix& J);
  int parameter_differences(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector f0,
                            ConstVector g0, MatrixRef Jp);

  Problem& problem_;
  Statistics& stats_;
  std::vector<double> typical_, floors_;
  double increment(int j, double v) const;  // the increment of column j at value v
  int coloured_differences(double t, ConstVector p, ConstVector f0, ConstVector g0,
                           const double* x, const double* z, double* values, MatrixRef dense);
  int sparse_into_dense(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J);

  std::vector<double> v_, p_, f1_, g1_;
  bool analytic_ = false;
  int colours_ = 0;
  std::shared_ptr<const SparsityPattern> pattern_;  // null: dense differences
  std::vector<int> colour_pointers_, colour_columns_;  // the columns of each colour
  std::vector<double> increments_;                     // per column, of the current colour
  std::vector<double> scratch_values_;  // sparse_jacobian() values for a dense back-end
};

/// One entry of a Jacobian comparison.
struct JacobianMismatch {
  int row = 0;
  int col = 0;
  std::string equation;  ///< the row's name
  std::string variable;  ///< the column's name
  double supplied = 0.0;
  double finite_difference = 0.0;
  double error = 0.0;  ///< |supplied - fd| / (abs_tol + rel_tol-scale), see check_jacobian
};

struct JacobianCheckOptions {
  double relative_tolerance = 1e-5;  ///< entries agree if |a-b| <= rel*max(|a|,|b|) + abs
  double absolute_tolerance = 1e-8;  ///< scaled by the row's largest entry
  int max_reported = 10;
};

struct ESDIRK_API JacobianCheck {
  bool ok = true;
  double worst_error = 0.0;             ///< the largest error / allowed ratio
  std::vector<JacobianMismatch> worst;  ///< the worst entries, worst first (ratio > 1 only)
  std::string summary() const;          ///< a readable report naming the worst entries
};

/// Compares the problem's jacobian() (and parameter_jacobian(), if supplied) with central
/// differences at (t, x, z, p). Throws std::invalid_argument if the problem supplies neither.
ESDIRK_API JacobianCheck check_jacobian(Problem& problem, double t, ConstVector x, ConstVector z,
                             ConstVector p, const JacobianCheckOptions& options = {});

/// The result of check_jacobian_pattern.
struct ESDIRK_API JacobianPatternCheck {
  bool ok = true;
  /// Entries where the difference Jacobian is nonzero (beyond absolute_tolerance times the
  /// row's largest entry) but the pattern has none, largest first (at most max_reported).
  std::vector<JacobianMismatch> missing;
  int missing_count = 0;  ///< all of them, reported or not
  /// Entries of sparse_jacobian() that disagree with the differences (as check_jacobian).
  std::vector<JacobianMismatch> wrong;
  /// Set if sparse_jacobian() wrote outside its pattern (SparseMatrixRef::at threw) or failed.
  std::string callback_error;
  std::string summary() const;  ///< a readable report naming the entries
};

/// Compares the problem's declared pattern (and its sparse_jacobian(), if supplied) with
/// central differences at (t, x, z, p), one column at a time (2n evaluations, O(n) memory
/// plus the pattern). Throws std::invalid_argument if the problem declares no pattern.
ESDIRK_API JacobianPatternCheck check_jacobian_pattern(Problem& problem, double t, ConstVector x,
                                                       ConstVector z, ConstVector p,
                                                       const JacobianCheckOptions& options = {});

}  // namespace esdirk
