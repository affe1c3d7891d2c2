// The Krylov back-end of the stage linear system (LinearSolverKind::krylov): M = E - h gamma J
// is never factored. Each right-hand side is solved by restarted GMRES(m) with right
// preconditioning: the problem's own preconditioner (Problem::preconditioner_setup/solve) when
// it has one, else the built-in one of KrylovSettings::preconditioner: ILU(0) of M on its
// pattern (internal/incomplete_lu_preconditioner.hpp) or block-Jacobi (the dense LUs of M's
// diagonal blocks). M v is formed from J on its pattern (along the ILU(0)'s compressed rows
// where it has them), or matrix-free (KrylovSettings::matrix_free) from the problem's J v or a
// difference quotient of f and g at the point where J was formed, so the memory is the
// pattern's plus the basis, linear in n. Theory: doc/integrator-theory.md 8b, 8c.
// Everything is allocated by the constructor; factor and solve allocate nothing.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/problem.hpp"
#include "esdirk/statistics.hpp"
#include "internal/incomplete_lu_preconditioner.hpp"
#include "internal/structured_lu.hpp"
#include "internal/vector_clones.hpp"

namespace esdirk::internal {
namespace {

// GMRES's inner products. A plain `sum += a[r] * b[r]` is one dependency chain: the compiler
// may not reorder it, so it runs at one element per floating-point latency and is not
// vectorized (Gram-Schmidt took a third of an iteration on the 100 x 100 Brusselator). Four
// interleaved partial sums, lane l taking the elements r = l mod 4 in increasing order and
// added as (s0 + s1) + (s2 + s3), are four independent chains that vectorize as they stand:
// the same bits on every machine and in both clones (no FMA is enabled).
constexpr int sum_lanes = 4;

double combine(const double (&s)[sum_lanes]) { return (s[0] + s[1]) + (s[2] + s[3]); }

ESDIRK_VECTOR_CLONES double dot(const double* __restrict a, const double* __restrict b, int n) {
  double s[sum_lanes] = {0.0, 0.0, 0.0, 0.0};
  int r = 0;
  for (; r + sum_lanes <= n; r += sum_lanes)
    for (int l = 0; l < sum_lanes; ++l) s[l] += a[r + l] * b[r + l];
  for (int l = 0; r < n; ++r, ++l) s[l] += a[r] * b[r];
  return combine(s);
}

// w <- w - alpha x, and returns w . next for the updated w (w . w if next is null): the modified
// Gram-Schmidt step of basis vector i fused with the inner product of step i + 1 (or the norm
// of the new vector), one pass over w instead of two. The same bits as the update followed by
// dot(): the same operations on each element, summed in the same lanes and order.
ESDIRK_VECTOR_CLONES double subtract_then_dot(double alpha, const double* __restrict x, double* __restrict w,
                                              const double* __restrict next, int n) {
  double s[sum_lanes] = {0.0, 0.0, 0.0, 0.0};
  int r = 0;
  if (next == nullptr) {
    for (; r + sum_lanes <= n; r += sum_lanes)
      for (int l = 0; l < sum_lanes; ++l) {
        const double value = w[r + l] - alpha * x[r + l];
        w[r + l] = value;
        s[l] += value * value;
      }
    for (int l = 0; r < n; ++r, ++l) {
      const double value = w[r] - alpha * x[r];
      w[r] = value;
      s[l] += value * value;
    }
    return combine(s);
  }
  for (; r + sum_lanes <= n; r += sum_lanes)
    for (int l = 0; l < sum_lanes; ++l) {
      const double value = w[r + l] - alpha * x[r + l];
      w[r + l] = value;
      s[l] += value * next[r + l];
    }
  for (int l = 0; r < n; ++r, ++l) {
    const double value = w[r] - alpha * x[r];
    w[r] = value;
    s[l] += value * next[r];
  }
  return combine(s);
}

double norm2(const double* v, int n) { return std::sqrt(dot(v, v, n)); }

// The least relative reduction of the residual over one GMRES cycle that counts as progress:
// sqrt(eps) (see KrylovStageSystem::gmres).
const double stagnation_reduction = std::sqrt(std::numeric_limits<double>::epsilon());

class KrylovStageSystem final : public StructuredLu {
 public:
  KrylovStageSystem(int nx, int nz, const JacobianStructure& s)
      : nx_(nx), n_(nx + nz), settings_(s.krylov), kept_(nx + nz, s) {
    if (s.pattern == nullptr || s.pattern->size() != n_)
      throw std::invalid_argument("krylov linear solver: the structure needs an n x n pattern");
    validate_krylov_settings(settings_, n_);
    const int b = settings_.block_size;
    const auto un = static_cast<std::size_t>(n_);
    if (settings_.matrix_free) {
      base_.assign(un, 0.0);
      perturbed_.assign(un, 0.0);
      perturbed_values_.assign(un, 0.0);
    }
    preconditioner_input_.assign(un, 0.0);
    if (settings_.preconditioner == KrylovPreconditioner::ilu0) {
      ilu_ = std::make_unique<IncompleteLuPreconditioner>(nx_, *s.pattern);
    } else {
      blocks_.assign(un * static_cast<std::size_t>(b), 0.0);
      pivots_.assign(un, 0);
    }
    pattern_ = s.pattern;
    allocate_lanes(1);
  }

  void set_statistics(Statistics* stats) override { stats_ = stats; }
  // Several right-hand sides share one pass over the incomplete factors and M's rows (at most
  // vector_group_width, internal/incomplete_lu_preconditioner.hpp); block-Jacobi takes one vector
  // at a time, so for it a wider group would only hold more memory (the callers ask for one lane
  // where the problem's own preconditioner replaces ILU(0)).
  void reserve_columns(int count) override {
    if (ilu_ != nullptr) allocate_lanes(std::clamp(count, 1, vector_group_width));
  }
  bool last_solve_converged() const override { return converged_; }
  void set_tolerance(double tolerance) override { settings_.tolerance = tolerance; }

  // The preconditioner setup: keeps J's values, the point where J was formed and h gamma;
  // prepares the matrix-free products; sets up the problem's preconditioner, or factors M
  // incompletely (ILU(0)) or its diagonal blocks; a zero or non-finite pivot of these is
  // returned as a singular M (the step is retried smaller, where M is closer to E). A failure of the problem's setup or of f at the point does not stop
  // here: every solve until the next setup fails, so the step recovers as from a GMRES failure.
  int factor(const JacobianMatrix& J, double h_gamma) override {
    if (stats_ != nullptr) ++stats_->preconditioner_setups;
    lender_ = nullptr;
    h_gamma_ = h_gamma;
    kept_.copy_values_from(J);
    problem_ = kept_.point().problem;
    setup_failed_ = false;
    prepare_products();
    user_preconditioner_ = problem_ != nullptr && problem_->has_preconditioner();
    if (user_preconditioner_) {
      if (!setup_failed_) setup_user_preconditioner();
      return 0;
    }
    const double* values = kept_.values();
    failed_row_ = 0;
    if (ilu_ != nullptr) return failed_row_ = ilu_->factor(values, h_gamma);
    std::fill(blocks_.begin(), blocks_.end(), 0.0);
    const int b = settings_.block_size;
    const int* ptr = pattern_->column_pointers().data();
    const int* rows = pattern_->row_indices().data();
    for (int j = 0; j < n_; ++j) {
      const int start = j - j % b;
      const int size = std::min(b, n_ - start);
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) {
        const int i = rows[k];
        if (i < start || i >= start + size) continue;
        block(start, i - start, j - start) = i < nx_ ? -h_gamma * values[k] : values[k];
      }
      if (j < nx_) block(start, j - start, j - start) += 1.0;
    }
    for (int start = 0; start < n_; start += b) {
      const int info = factor_block(start, std::min(b, n_ - start));
      if (info != 0) return failed_row_ = start + info;
    }
    return 0;
  }

  // The operator M = E - h gamma J from J (its values and point kept, as factor() keeps them), the
  // preconditioner `other`'s as it stands: no setup, nothing counted in preconditioner_setups.
  // The forward sensitivities' stage systems M_i use the step's this way (theory 8d).
  int factor_preconditioned_by(const JacobianMatrix& J, double h_gamma, const StructuredLu& other) override {
    const auto* lender = dynamic_cast<const KrylovStageSystem*>(&other);
    if (lender == nullptr || lender == this || lender->n_ != n_ || lender->nx_ != nx_)
      throw std::logic_error("krylov linear solver: a preconditioner can only be borrowed from another Krylov "
                             "system of the same size");
    lender_ = lender;
    h_gamma_ = h_gamma;
    kept_.copy_values_from(J);
    problem_ = kept_.point().problem;
    setup_failed_ = false;
    failed_row_ = 0;
    user_preconditioner_ = false;  // the lender applies its own (the problem's, if it has one)
    prepare_products();
    return 0;
  }

  void solve(MatrixRef B, bool transpose) const override {
    if (transpose && settings_.matrix_free)
      throw std::logic_error("krylov linear solver: matrix-free products have no transpose (M^T solves need "
                             "KrylovSettings::matrix_free off)");
    if (!borrowed_preconditioner_usable()) return fail_solves(B.cols);
    converged_ = true;
    const int width = static_cast<int>(lanes_.size());
    double* columns[vector_group_width];
    double tolerances[vector_group_width];
    for (int first = 0; first < B.cols; first += width) {
      const int count = std::min(width, B.cols - first);
      for (int c = 0; c < count; ++c) {
        columns[c] = B.data + static_cast<std::size_t>(first + c) * B.ld;
        tolerances[c] = settings_.tolerance;
      }
      if (!gmres(columns, tolerances, count, transpose)) converged_ = false;
    }
  }

  void solve_columns(double* const* columns, const double* tolerances, int count) const override {
    if (!borrowed_preconditioner_usable()) return fail_solves(count);
    converged_ = true;
    const int width = static_cast<int>(lanes_.size());
    for (int first = 0; first < count; first += width)
      if (!gmres(columns + first, tolerances + first, std::min(width, count - first), false)) converged_ = false;
  }

  // The zero pivot of the last setup: its row as the model's equation, and what to change. An
  // ILU(0) pivot is structurally zero where an algebraic equation's own unknown is not on the
  // diagonal (no elimination in the natural order reaches it); a block-Jacobi pivot where a
  // block leaves out the unknowns that make it invertible.
  std::string failure_note() const override {
    if (failed_row_ == 0) return {};
    const int i = failed_row_ - 1;
    const std::string row = i < nx_ ? "x[" + std::to_string(i) + "]" : "g[" + std::to_string(i - nx_) + "]";
    if (ilu_ != nullptr)
      return "ILU(0) zero pivot in row " + std::to_string(i) + " (" + row +
             "); use KrylovPreconditioner::block_jacobi, a preconditioner of the problem's own, or order the "
             "unknowns so that each algebraic equation's own unknown is on the diagonal";
    return "block-Jacobi zero pivot in row " + std::to_string(i) + " (" + row +
           "); use a larger KrylovSettings::block_size that keeps the coupled unknowns in one block, "
           "KrylovPreconditioner::ilu0 or a preconditioner of the problem's own";
  }

  std::size_t bytes() const override {
    return (static_cast<std::size_t>(kept_.pattern().nonzeros()) + kept_.point().y.size() + base_.size() + perturbed_.size() +
            perturbed_values_.size() + preconditioner_input_.size() + basis_.size() + hessenberg_.size() + rotation_cos_.size() +
            rotation_sin_.size() + rhs_.size() + work_.size() + precond_.size() + x_.size() +
            blocks_.size()) * sizeof(double) + pivots_.size() * sizeof(int) +
           (ilu_ != nullptr ? ilu_->bytes() : 0);
  }

  // No factorization of M: its "factors" are the preconditioner's (the incomplete factors or
  // the blocks); one application of M touches the pattern's entries (the cost models of reuse
  // and of the sensitivities' stage solves read these).
  FactorizationCost cost() const override {
    const double n = n_, b = settings_.block_size, entries = kept_.pattern().nonzeros();
    if (ilu_ != nullptr) return {entries, ilu_->nonzeros(), ilu_->factor_flops()};
    return {entries, n * b, 2.0 / 3.0 * n * b * b};
  }

 private:
  // The products with the kept J: its values by rows where the ILU(0)'s rows are there to
  // gather along. Matrix-free: the norm of y for the increment and, without the problem's J v,
  // F(y) = [f; g] there (one evaluation, counted as a difference evaluation).
  void prepare_products() {
    if (!settings_.matrix_free) {
      if (ilu_ != nullptr) ilu_->arrange_rows(kept_.values());
      return;
    }
    if (problem_ == nullptr) {  // J was not formed by the library (no point): nothing to difference
      setup_failed_ = true;
      return;
    }
    const std::vector<double>& y = kept_.point().y;
    y_norm_ = norm2(y.data(), n_);
    if (problem_->has_jacobian_vector_product()) return;
    if (stats_ != nullptr) ++stats_->fd_function_evaluations;
    const int code = evaluate_at(y.data(), base_.data());
    setup_failed_ = code != 0 || !std::isfinite(norm2(base_.data(), n_));
  }

  // [f; g] at (t, y) of the kept point into out (n values).
  int evaluate_at(const double* y, double* out) const {
    const JacobianMatrix::Point& point = kept_.point();
    const auto unx = static_cast<std::size_t>(nx_), unz = static_cast<std::size_t>(n_ - nx_);
    return problem_->evaluate(point.t, ConstVector(y, unx), ConstVector(y + nx_, unz), point.p,
                              Vector(out, unx), Vector(out + nx_, unz));
  }

  // False if the solves must fail: our setup failed, or the lender's (a borrowed preconditioner),
  // each redone first if another stage system set the problem's preconditioner up since.
  bool borrowed_preconditioner_usable() const {
    if (user_preconditioner_ && !setup_failed_ && internal::preconditioner_owner(*problem_) != this)
      setup_user_preconditioner();
    return !setup_failed_ && (lender_ == nullptr || lender_->preconditioner_ready());
  }

  // `count` solves failed at once, as after a failed setup.
  void fail_solves(int count) const {
    if (stats_ != nullptr) stats_->linear_solver_failures += count;
    converged_ = false;
  }

  // The lender's side of a borrowed preconditioner: true if its last setup succeeded (the
  // problem's preconditioner set up again for it if another system set it up since).
  bool preconditioner_ready() const {
    if (user_preconditioner_ && !setup_failed_ && internal::preconditioner_owner(*problem_) != this)
      setup_user_preconditioner();
    return !setup_failed_ && failed_row_ == 0;
  }

  void setup_user_preconditioner() const {
    internal::preconditioner_owner(*problem_) = this;
    const JacobianMatrix::Point& point = kept_.point();
    const auto unx = static_cast<std::size_t>(nx_), unz = static_cast<std::size_t>(n_ - nx_);
    const int code = problem_->preconditioner_setup(point.t, ConstVector(point.y.data(), unx),
                                                    ConstVector(point.y.data() + nx_, unz), point.p,
                                                    kept_, h_gamma_);
    setup_failed_ = code != 0;
  }

  // out <- J v, matrix-free: the problem's product, or the forward difference quotient
  // (F(y + sigma v) - F(y)) / sigma with sigma = sqrt(eps) (1 + ||y||_2) / ||v||_2 (theory 8c):
  // a relative perturbation of about sqrt(eps) of y in the direction v. False if the
  // evaluation failed.
  bool matrix_free_product(const double* v, double* out) const {
    const JacobianMatrix::Point& point = kept_.point();
    const auto un = static_cast<std::size_t>(n_), unx = static_cast<std::size_t>(nx_),
               unz = static_cast<std::size_t>(n_ - nx_);
    if (problem_->has_jacobian_vector_product())
      return problem_->jacobian_vector_product(point.t, ConstVector(point.y.data(), unx),
                                               ConstVector(point.y.data() + nx_, unz), point.p,
                                               ConstVector(v, un), Vector(out, un)) == 0;
    const double v_norm = norm2(v, n_);
    if (v_norm == 0.0 || !std::isfinite(v_norm)) {
      std::fill(out, out + n_, v_norm == 0.0 ? 0.0 : std::numeric_limits<double>::quiet_NaN());
      return v_norm == 0.0;
    }
    const double sigma = std::sqrt(std::numeric_limits<double>::epsilon()) * (1.0 + y_norm_) / v_norm;
    const double* y = point.y.data();
    for (int i = 0; i < n_; ++i) perturbed_[i] = y[i] + sigma * v[i];
    if (stats_ != nullptr) ++stats_->fd_function_evaluations;
    if (evaluate_at(perturbed_.data(), perturbed_values_.data()) != 0) return false;
    for (int i = 0; i < n_; ++i) out[i] = (perturbed_values_[i] - base_[i]) / sigma;
    return true;
  }

  double& block(int start, int i, int j) const {
    return blocks_[static_cast<std::size_t>(start) * settings_.block_size +
                   static_cast<std::size_t>(j) * settings_.block_size + static_cast<std::size_t>(i)];
  }

  // LU with partial pivoting of the block at `start` (column-major, leading dimension b).
  // Returns 0, or the 1-based column of a zero or non-finite pivot.
  int factor_block(int start, int size) {
    for (int k = 0; k < size; ++k) {
      int p = k;
      for (int i = k + 1; i < size; ++i)
        if (std::abs(block(start, i, k)) > std::abs(block(start, p, k))) p = i;
      pivots_[static_cast<std::size_t>(start + k)] = p;
      if (p != k)
        for (int j = 0; j < size; ++j) std::swap(block(start, k, j), block(start, p, j));
      const double pivot = block(start, k, k);
      if (pivot == 0.0 || !std::isfinite(pivot)) return k + 1;
      for (int i = k + 1; i < size; ++i) {
        const double l = block(start, i, k) /= pivot;
        for (int j = k + 1; j < size; ++j) block(start, i, j) -= l * block(start, k, j);
      }
    }
    return 0;
  }

  // v[c] <- P^{-1} v[c] (or P^{-T} v[c]) for `count` vectors, counted here: our preconditioner
  // or the lender's.
  void apply_preconditioner(double* const* v, int count, bool transpose) const {
    if (stats_ != nullptr) stats_->preconditioner_solves += count;
    (lender_ != nullptr ? lender_ : this)->precondition(v, count, transpose);
  }

  // v[c] <- P^{-1} v[c] (or P^{-T} v[c]): the incomplete factors (all vectors in one pass), the
  // problem's preconditioner or the block LUs (one vector at a time). A failed user solve
  // leaves NaN, which ends GMRES as a failed solve.
  void precondition(double* const* v, int count, bool transpose) const {
    if (!user_preconditioner_ && ilu_ != nullptr) {
      ilu_->solve(v, count, transpose);
      return;
    }
    for (int c = 0; c < count; ++c) {
      if (user_preconditioner_) precondition_by_problem(v[c], transpose);
      else precondition_by_blocks(v[c], transpose);
    }
  }

  void precondition_by_problem(double* v, bool transpose) const {
    const auto un = static_cast<std::size_t>(n_);
    std::copy(v, v + n_, preconditioner_input_.begin());
    if (problem_->preconditioner_solve(ConstVector(preconditioner_input_.data(), un), Vector(v, un), transpose) != 0)
      std::fill(v, v + n_, std::numeric_limits<double>::quiet_NaN());
  }

  void precondition_by_blocks(double* v, bool transpose) const {
    const int b = settings_.block_size;
    for (int start = 0; start < n_; start += b) {
      const int size = std::min(b, n_ - start);
      double* w = v + start;
      const int* piv = pivots_.data() + start;
      // P A = L U with whole rows interchanged (as LAPACK): A^{-1} = U^{-1} L^{-1} P and
      // A^{-T} = P^T L^{-T} U^{-T}.
      if (!transpose) {
        for (int k = 0; k < size; ++k) std::swap(w[k], w[piv[k]]);
        for (int k = 0; k < size; ++k)
          for (int i = k + 1; i < size; ++i) w[i] -= block(start, i, k) * w[k];
        for (int k = size - 1; k >= 0; --k) {
          w[k] /= block(start, k, k);
          for (int i = 0; i < k; ++i) w[i] -= block(start, i, k) * w[k];
        }
      } else {
        for (int k = 0; k < size; ++k) {
          for (int i = 0; i < k; ++i) w[k] -= block(start, i, k) * w[i];
          w[k] /= block(start, k, k);
        }
        for (int k = size - 1; k >= 0; --k)
          for (int i = k + 1; i < size; ++i) w[k] -= block(start, i, k) * w[i];
        for (int k = size - 1; k >= 0; --k) std::swap(w[k], w[piv[k]]);
      }
    }
  }

  // out[c] <- M v[c] (or M^T v[c]), M = E - h gamma J with the kept values of J (along the
  // ILU(0)'s rows: all vectors in one pass) or matrix-free. A failed product leaves NaN, which
  // ends GMRES as a failed solve.
  void apply_matrix(const double* const* v, double* const* out, int count, bool transpose) const {
    if (stats_ != nullptr) stats_->jacobian_vector_products += count;
    if (!settings_.matrix_free && !transpose && ilu_ != nullptr) {
      ilu_->multiply(v, out, count, h_gamma_);
      return;
    }
    if (!settings_.matrix_free && transpose) {
      for_each_vector_group(count, [&]<int C>(int first) { transposed_product_group<C>(v + first, out + first); });
      return;
    }
    for (int c = 0; c < count; ++c) apply_matrix_to_one(v[c], out[c]);
  }

  // out[c] <- M^T v[c] = E v[c] - J^T (hg v[c] on the differential rows, v[c] on the algebraic
  // ones), C vectors in one pass along J's columns (for_each_vector_group: the same bits as one
  // vector at a time).
  template <int C>
  void transposed_product_group(const double* const* v, double* const* out) const {
    const int* ptr = pattern_->column_pointers().data();
    const int* rows = pattern_->row_indices().data();
    const double* a = kept_.values();
    for (int j = 0; j < n_; ++j) {
      double sum[C];
      for (int c = 0; c < C; ++c) sum[c] = 0.0;
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) {
        const int i = rows[k];
        const double entry = a[k];
        for (int c = 0; c < C; ++c) sum[c] += entry * (i < nx_ ? -h_gamma_ * v[c][i] : v[c][i]);
      }
      for (int c = 0; c < C; ++c) out[c][j] = sum[c] + (j < nx_ ? v[c][j] : 0.0);
    }
  }

  void apply_matrix_to_one(const double* v, double* out) const {
    const int* ptr = pattern_->column_pointers().data();
    const int* rows = pattern_->row_indices().data();
    const double* a = kept_.values();
    if (settings_.matrix_free) {
      if (!matrix_free_product(v, out)) {
        std::fill(out, out + n_, std::numeric_limits<double>::quiet_NaN());
        return;
      }
      for (int i = 0; i < nx_; ++i) out[i] = v[i] - h_gamma_ * out[i];
    } else {  // block-Jacobi's products: a scatter along J's columns
      std::fill(out, out + n_, 0.0);
      for (int j = 0; j < n_; ++j)
        for (int k = ptr[j]; k < ptr[j + 1]; ++k) out[rows[k]] += a[k] * v[j];
      for (int i = 0; i < nx_; ++i) out[i] = v[i] - h_gamma_ * out[i];
    }
  }

  // One right-hand side's GMRES: its slice of the workspace and where its cycle stands.
  struct Lane {
    double* b = nullptr;           // the right-hand side, overwritten by x at the end
    double* basis = nullptr;       // v_0 .. v_m (n each)
    double* hessenberg = nullptr;  // (m + 1) x m, column-major, rotated to R as it grows
    double* rotation_cos = nullptr;
    double* rotation_sin = nullptr;
    double* rhs = nullptr;          // beta e_1 rotated (m + 1)
    double* x = nullptr;            // the iterate (n)
    double* precond = nullptr;      // P^{-1} v_j, then P^{-1} V y (n)
    double* work = nullptr;         // M x (n)
    double target = 0.0;            // the residual norm that counts as converged
    double beta = 0.0;              // the residual norm at the start of the cycle
    int k = 0;                      // basis vectors used in this cycle
    bool expanding = false;         // still adding basis vectors in this cycle
    bool finite = true;             // no non-finite value in this cycle
    bool started = false;           // b was finite and not zero: GMRES ran (else b is kept)
    bool converged = false;
    bool done = false;              // converged, failed or stagnated
  };

  // The workspace of `width` lanes (the constructor and reserve_columns, never in a solve).
  void allocate_lanes(int width) {
    const int m = settings_.dimension;
    const auto un = static_cast<std::size_t>(n_), uw = static_cast<std::size_t>(width),
               um = static_cast<std::size_t>(m);
    basis_.assign(uw * un * (um + 1), 0.0);
    hessenberg_.assign(uw * (um + 1) * um, 0.0);
    rotation_cos_.assign(uw * um, 0.0);
    rotation_sin_.assign(uw * um, 0.0);
    rhs_.assign(uw * (um + 1), 0.0);
    x_.assign(uw * un, 0.0);
    precond_.assign(uw * un, 0.0);
    work_.assign(uw * un, 0.0);
    lanes_.assign(uw, Lane{});
    for (std::size_t c = 0; c < uw; ++c) {
      Lane& lane = lanes_[c];
      lane.basis = basis_.data() + c * un * (um + 1);
      lane.hessenberg = hessenberg_.data() + c * (um + 1) * um;
      lane.rotation_cos = rotation_cos_.data() + c * um;
      lane.rotation_sin = rotation_sin_.data() + c * um;
      lane.rhs = rhs_.data() + c * (um + 1);
      lane.x = x_.data() + c * un;
      lane.precond = precond_.data() + c * un;
      lane.work = work_.data() + c * un;
    }
  }

  // GMRES(m) on M x = b[c] (or M^T x = b[c]) for `count` (at most the lanes') right-hand sides
  // at once, each to its own relative residual tolerances[c]: x0 = 0, right preconditioned (the
  // residual it minimizes is the true one), modified Gram-Schmidt, Givens rotations. b[c] is
  // overwritten by x. The right-hand sides run in lockstep only so that the preconditioner and
  // the products take them in one pass (IncompleteLuPreconditioner, "Why groups of vectors");
  // each one's iteration, arithmetic and stopping are those of a GMRES of its own, so the
  // results are the same bits as one at a time. False when a relative residual did not reach
  // its tolerance within the restarts, a cycle stagnated, or a value became non-finite (x is
  // then the best iterate, or b unchanged).
  // Stagnation: a whole cycle that reduced the true residual by less than a relative
  // sqrt(eps) ends the solve at once. At that rate even max_krylov_restarts more cycles would
  // gain less than 2e-5, so running them only burns time (GMRES(1) on a stiff rotation, whose
  // residual falls by 1e-12 per cycle, ran for ever with max_restarts = INT_MAX).
  bool gmres(double* const* b, const double* tolerances, int count, bool transpose) const {
    const int m = settings_.dimension;
    const auto un = static_cast<std::size_t>(n_);
    const bool all_finite = start_lanes(b, tolerances, count);
    // The lanes a pass takes, and their vectors.
    Lane* in_pass[vector_group_width];
    double* inputs[vector_group_width];
    double* outputs[vector_group_width];
    const auto collect = [&](auto&& takes) {
      int taken = 0;
      for (int c = 0; c < count; ++c)
        if (takes(lanes_[static_cast<std::size_t>(c)])) in_pass[taken++] = &lanes_[static_cast<std::size_t>(c)];
      return taken;
    };
    for (int cycle = 0; cycle <= settings_.max_restarts; ++cycle) {
      const int cycling = collect([](const Lane& lane) { return !lane.done; });
      if (cycling == 0) break;
      for (int l = 0; l < cycling; ++l) {
        Lane& lane = *in_pass[l];
        // Vectors are normalized by multiplying with 1 / norm (a division per element costs
        // several multiplications).
        const double inverse_beta = 1.0 / lane.beta;
        for (int i = 0; i < n_; ++i) lane.basis[i] *= inverse_beta;
        std::fill(lane.rhs, lane.rhs + m + 1, 0.0);
        lane.rhs[0] = lane.beta;
        lane.k = 0;
        lane.finite = true;
        lane.expanding = true;
      }
      for (int j = 0; j < m; ++j) {
        const int expanding = collect([](const Lane& lane) { return !lane.done && lane.expanding; });
        if (expanding == 0) break;
        for (int l = 0; l < expanding; ++l) {
          Lane& lane = *in_pass[l];
          if (stats_ != nullptr) ++stats_->linear_iterations;
          const double* vj = lane.basis + static_cast<std::size_t>(j) * un;
          std::copy(vj, vj + n_, lane.precond);
          inputs[l] = lane.precond;
          outputs[l] = lane.basis + static_cast<std::size_t>(j + 1) * un;
        }
        apply_preconditioner(inputs, expanding, transpose);
        apply_matrix(inputs, outputs, expanding, transpose);
        for (int l = 0; l < expanding; ++l) arnoldi_step(*in_pass[l], j);
      }
      // x += P^{-1} V y for every lane that added a vector; the others failed.
      const int updating = collect([](const Lane& lane) { return !lane.done && lane.finite && lane.k > 0; });
      for (int c = 0; c < count; ++c) {
        Lane& lane = lanes_[static_cast<std::size_t>(c)];
        if (!lane.done && !(lane.finite && lane.k > 0)) lane.done = true;
      }
      if (updating == 0) break;
      for (int l = 0; l < updating; ++l) {
        combine_basis(*in_pass[l]);
        inputs[l] = in_pass[l]->precond;
      }
      apply_preconditioner(inputs, updating, transpose);
      for (int l = 0; l < updating; ++l) {
        Lane& lane = *in_pass[l];
        for (int r = 0; r < n_; ++r) lane.x[r] += lane.precond[r];
        inputs[l] = lane.x;
        outputs[l] = lane.work;
      }
      // The true residual b - M x starts the next cycle and decides convergence.
      apply_matrix(inputs, outputs, updating, transpose);
      for (int l = 0; l < updating; ++l) {
        Lane& lane = *in_pass[l];
        for (int r = 0; r < n_; ++r) lane.basis[r] = lane.b[r] - lane.work[r];
        const double beta_before = lane.beta;
        lane.beta = norm2(lane.basis, n_);
        if (!std::isfinite(lane.beta)) {
          lane.done = true;
          continue;
        }
        lane.converged = lane.beta <= lane.target || lane.beta == 0.0;
        // Converged, or stagnated.
        lane.done = lane.converged || lane.beta > (1.0 - stagnation_reduction) * beta_before;
      }
    }
    return finish_lanes(count) && all_finite;
  }

  // The lanes of b[0 .. count - 1]: x0 = 0, r0 = b and the target of each. A zero b is solved as
  // it stands (x = 0); a non-finite one fails at once and is left unchanged. False if one did.
  bool start_lanes(double* const* b, const double* tolerances, int count) const {
    bool all_finite = true;
    for (int c = 0; c < count; ++c) {
      Lane& lane = lanes_[static_cast<std::size_t>(c)];
      lane.b = b[c];
      lane.converged = false;
      lane.started = false;
      lane.done = true;
      const double b_norm = norm2(lane.b, n_);
      if (b_norm == 0.0) continue;  // x = 0 = b
      if (!std::isfinite(b_norm)) {
        if (stats_ != nullptr) ++stats_->linear_solver_failures;
        all_finite = false;
        continue;
      }
      lane.started = true;
      lane.done = false;
      lane.target = tolerances[c] * b_norm;
      std::fill(lane.x, lane.x + n_, 0.0);
      std::copy(lane.b, lane.b + n_, lane.basis);  // r0 = b
      lane.beta = b_norm;
    }
    return all_finite;
  }

  // x into b where it is finite; a lane that did not converge counts as a failed solve. True if
  // every started lane converged to a finite x.
  bool finish_lanes(int count) const {
    bool all_converged = true;
    for (int c = 0; c < count; ++c) {
      Lane& lane = lanes_[static_cast<std::size_t>(c)];
      if (!lane.started) continue;
      bool finite_x = true;
      for (int r = 0; r < n_; ++r) finite_x = finite_x && std::isfinite(lane.x[r]);
      if (finite_x) std::copy(lane.x, lane.x + n_, lane.b);
      if (!lane.converged && stats_ != nullptr) ++stats_->linear_solver_failures;
      all_converged = all_converged && lane.converged && finite_x;
    }
    return all_converged;
  }

  // Step j of the lane's Arnoldi process: v_{j+1} (the product already in the basis)
  // orthogonalized against v_0 .. v_j by modified Gram-Schmidt, each step fused with the next
  // one's inner product (and the last with |w|); the earlier rotations and a new one on the
  // Hessenberg column; the lane stops expanding when the rotated residual reaches its target,
  // the subdiagonal vanishes (exact) or a value is non-finite.
  void arnoldi_step(Lane& lane, int j) const {
    const int m = settings_.dimension;
    const auto un = static_cast<std::size_t>(n_);
    double* w = lane.basis + static_cast<std::size_t>(j + 1) * un;
    double* h = lane.hessenberg + static_cast<std::size_t>(j) * (m + 1);
    h[0] = dot(w, lane.basis, n_);
    for (int i = 0; i <= j; ++i) {
      const double* vi = lane.basis + static_cast<std::size_t>(i) * un;
      const double next = subtract_then_dot(h[i], vi, w, i < j ? vi + un : nullptr, n_);
      if (i < j) h[i + 1] = next;
      else h[j + 1] = std::sqrt(next);
    }
    for (int i = 0; i < j; ++i) {  // the earlier rotations on the new column
      const double a = h[i], c = h[i + 1];
      h[i] = lane.rotation_cos[i] * a + lane.rotation_sin[i] * c;
      h[i + 1] = -lane.rotation_sin[i] * a + lane.rotation_cos[i] * c;
    }
    const double r = std::hypot(h[j], h[j + 1]);
    if (!std::isfinite(r)) {
      lane.finite = false;
      lane.expanding = false;
      return;
    }
    const double subdiagonal = h[j + 1];
    lane.rotation_cos[j] = r == 0.0 ? 1.0 : h[j] / r;
    lane.rotation_sin[j] = r == 0.0 ? 0.0 : h[j + 1] / r;
    h[j] = r;
    h[j + 1] = 0.0;
    lane.rhs[j + 1] = -lane.rotation_sin[j] * lane.rhs[j];
    lane.rhs[j] *= lane.rotation_cos[j];
    lane.k = j + 1;
    if (std::abs(lane.rhs[j + 1]) <= lane.target || subdiagonal == 0.0) {  // converged, or exact
      lane.expanding = false;
      return;
    }
    const double inverse_subdiagonal = 1.0 / subdiagonal;
    for (int i = 0; i < n_; ++i) w[i] *= inverse_subdiagonal;
  }

  // precond <- V y with y = R^{-1} g (upper triangular k x k, solved in place of g).
  void combine_basis(Lane& lane) const {
    const int m = settings_.dimension, k = lane.k;
    for (int i = k - 1; i >= 0; --i) {
      double sum = lane.rhs[i];
      for (int j = i + 1; j < k; ++j) sum -= lane.hessenberg[static_cast<std::size_t>(j) * (m + 1) + i] * lane.rhs[j];
      lane.rhs[i] = sum / lane.hessenberg[static_cast<std::size_t>(i) * (m + 1) + i];
    }
    std::fill(lane.precond, lane.precond + n_, 0.0);
    for (int j = 0; j < k; ++j) {
      const double* vj = lane.basis + static_cast<std::size_t>(j) * static_cast<std::size_t>(n_);
      for (int r = 0; r < n_; ++r) lane.precond[r] += lane.rhs[j] * vj[r];
    }
  }

  int nx_, n_;
  KrylovSettings settings_;
  std::shared_ptr<const SparsityPattern> pattern_;
  double h_gamma_ = 0.0;
  JacobianMatrix kept_;  // J on its pattern and the point where it was formed, kept at setup
  Problem* problem_ = nullptr;         // the point's model (null if J came from elsewhere)
  const KrylovStageSystem* lender_ = nullptr;  // whose preconditioner the solves use (null: ours)
  bool user_preconditioner_ = false;   // the problem's preconditioner replaces block-Jacobi
  mutable bool setup_failed_ = false;  // the solves fail until the next setup
  double y_norm_ = 0.0;                // ||y||_2 of the point (matrix-free increments)
  std::vector<double> base_;           // F(y) at the point (difference products)
  mutable std::vector<double> perturbed_, perturbed_values_, preconditioner_input_;
  // The GMRES workspace of every lane (mutable: solve is const for the callers, as the LU
  // back-ends' solves).
  mutable std::vector<double> basis_, hessenberg_, rotation_cos_, rotation_sin_, rhs_, work_,
      precond_, x_;
  mutable std::vector<Lane> lanes_;  // one per right-hand side a pass can take (reserve_columns)
  std::unique_ptr<IncompleteLuPreconditioner> ilu_;  // KrylovPreconditioner::ilu0
  mutable std::vector<double> blocks_;  // block_jacobi: the block LUs (b x b per block, column-major)
  std::vector<int> pivots_;             // row interchanges within each block
  int failed_row_ = 0;                  // 1-based row of the last setup's zero pivot (0: none)
  Statistics* stats_ = nullptr;
  mutable bool converged_ = true;
};

}  // namespace

std::unique_ptr<StructuredLu> make_krylov(int nx, int nz, const JacobianStructure& structure) {
  return std::make_unique<KrylovStageSystem>(nx, nz, structure);
}

}  // namespace esdirk::internal
