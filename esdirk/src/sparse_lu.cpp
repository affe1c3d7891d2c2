// Sparse back-end of the stage linear system: KLU (SuiteSparse). The pattern of M (the
// Jacobian's pattern and the diagonal) never changes, so the symbolic analysis (block
// triangular form, AMD ordering) is done once by the constructor; the first factorization
// chooses the pivots, and every later one reuses them with klu_refactor, which allocates
// nothing. When the pivots chosen earlier have gone bad (KLU's cheap reciprocal condition
// estimate below eps^(2/3), SUNDIALS' rule) or hit an exact zero, the matrix is factored anew
// with fresh pivoting (doc/linear-solvers-theory.md).

#include <klu.h>
#include <btf.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "internal/structured_lu.hpp"

namespace esdirk::internal {
namespace {

std::string state_label(int j, int nx) {
  return j < nx ? "x[" + std::to_string(j) + "]" : "z[" + std::to_string(j - nx) + "]";
}

class SparseLu final : public StructuredLu {
 public:
  SparseLu(int nx, int nz, const JacobianStructure& s) : nx_(nx), n_(nx + nz) {
    if (s.pattern == nullptr || s.pattern->size() != n_)
      throw std::invalid_argument("sparse linear solver: the structure needs an n x n pattern");
    build_pattern(*s.pattern);
    check_structural_rank();
    klu_defaults(&common_);
    symbolic_ = klu_analyze(n_, pointers_.data(), rows_.data(), &common_);
    if (symbolic_ == nullptr)
      throw std::runtime_error("sparse linear solver: KLU's symbolic analysis failed (status " +
                               std::to_string(common_.status) + ")");
  }
  ~SparseLu() override {
    if (numeric_ != nullptr) klu_free_numeric(&numeric_, &common_);
    if (symbolic_ != nullptr) klu_free_symbolic(&symbolic_, &common_);
  }
  SparseLu(const SparseLu&) = delete;
  SparseLu& operator=(const SparseLu&) = delete;

  int factor(const JacobianMatrix& J, double h_gamma) override {
    std::fill(values_.begin(), values_.end(), 0.0);
    const int* rows = J.pattern().row_indices().data();
    const double* v = J.values();
    const int nnz = J.pattern().nonzeros();
    for (int k = 0; k < nnz; ++k) values_[from_j_[k]] = rows[k] < nx_ ? -h_gamma * v[k] : v[k];
    for (int i = 0; i < nx_; ++i) values_[diagonal_[i]] += 1.0;
    if (numeric_ != nullptr) {
      ++refactorizations_;
      if (klu_refactor(pointers_.data(), rows_.data(), values_.data(), symbolic_, numeric_, &common_) &&
          klu_rcond(symbolic_, numeric_, &common_) &&
          common_.rcond >= std::pow(std::numeric_limits<double>::epsilon(), 2.0 / 3.0))
        return 0;
      klu_free_numeric(&numeric_, &common_);  // pivots gone bad: pivot anew
    }
    ++factorizations_;
    numeric_ = klu_factor(pointers_.data(), rows_.data(), values_.data(), symbolic_, &common_);
    if (numeric_ != nullptr) return 0;
    if (common_.status == KLU_SINGULAR) return std::clamp(common_.singular_col, 0, n_ - 1) + 1;
    if (common_.status == KLU_OUT_OF_MEMORY) throw std::bad_alloc();
    throw std::runtime_error("sparse linear solver: klu_factor failed (status " +
                             std::to_string(common_.status) + ")");
  }

  void solve(MatrixRef B, bool transpose) const override {
    if (B.cols == 0) return;
    if (transpose)
      klu_tsolve(symbolic_, numeric_, std::max(1, B.ld), B.cols, B.data, &common_);
    else
      klu_solve(symbolic_, numeric_, std::max(1, B.ld), B.cols, B.data, &common_);
  }

  std::size_t bytes() const override {
    return static_cast<std::size_t>(common_.memusage) +
           (values_.size() + 0) * sizeof(double) +
           (pointers_.size() + rows_.size() + from_j_.size() + diagonal_.size()) * sizeof(int);
  }

  // The fill of the last factorization (L and U of the diagonal blocks of the block triangular
  // form, and the entries off those blocks, which the solves use as they are); klu_flops only
  // walks the factors' index arrays. Before any factorization: the symbolic estimates.
  FactorizationCost cost() const override {
    const double entries = static_cast<double>(rows_.size());
    if (numeric_ == nullptr)
      return {entries, symbolic_->lnz + symbolic_->unz + static_cast<double>(symbolic_->nzoff),
              symbolic_->est_flops};
    klu_flops(symbolic_, numeric_, &common_);
    return {entries, static_cast<double>(numeric_->lnz) + numeric_->unz + numeric_->nzoff,
            common_.flops};
  }

 private:
  // The pattern of M: J's entries and the whole diagonal, with the position of each of J's
  // entries and of each diagonal entry in M's value array.
  void build_pattern(const SparsityPattern& p) {
    const auto& ptr = p.column_pointers();
    const auto& rows = p.row_indices();
    pointers_.assign(static_cast<std::size_t>(n_) + 1, 0);
    rows_.clear();
    rows_.reserve(rows.size() + static_cast<std::size_t>(n_));
    from_j_.assign(rows.size(), 0);
    diagonal_.assign(static_cast<std::size_t>(n_), 0);
    for (int j = 0; j < n_; ++j) {
      bool diagonal_done = false;
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) {
        if (!diagonal_done && rows[k] >= j) {
          if (rows[k] > j) rows_.push_back(j);  // the diagonal is not in J's pattern
          diagonal_[j] = static_cast<int>(rows_.size()) - (rows[k] > j ? 1 : 0);
          diagonal_done = true;
        }
        from_j_[k] = static_cast<int>(rows_.size());
        rows_.push_back(rows[k]);
      }
      if (!diagonal_done) {
        diagonal_[j] = static_cast<int>(rows_.size());
        rows_.push_back(j);
      }
      pointers_[j + 1] = static_cast<int>(rows_.size());
    }
    values_.assign(rows_.size(), 0.0);
  }

  // A maximum matching of M's pattern (the diagonal of the algebraic block does not count:
  // its entries are g_z's, present only if the user's pattern lists them).
  void check_structural_rank() {
    std::vector<int> p(pointers_.size()), r;
    r.reserve(rows_.size());
    for (int j = 0; j < n_; ++j) {
      p[j] = static_cast<int>(r.size());
      for (int k = pointers_[j]; k < pointers_[j + 1]; ++k) {
        const bool structural = rows_[k] != j || j < nx_ || from_j_entry(j, k);
        if (structural) r.push_back(rows_[k]);
      }
    }
    p[n_] = static_cast<int>(r.size());
    std::vector<int> match(static_cast<std::size_t>(n_)), work(5 * static_cast<std::size_t>(n_));
    double effort = 0.0;
    const int matched = btf_maxtrans(n_, n_, p.data(), r.data(), 0.0, &effort, match.data(), work.data());
    if (matched == n_) return;
    std::vector<char> column_matched(static_cast<std::size_t>(n_), 0);
    for (int i = 0; i < n_; ++i)
      if (match[i] >= 0 && match[i] < n_) column_matched[match[i]] = 1;
    int column = 0;
    while (column < n_ && column_matched[column]) ++column;
    throw std::invalid_argument(
        "sparse linear solver: the iteration matrix is structurally singular (structural rank " +
        std::to_string(matched) + " of " + std::to_string(n_) + "): column " + std::to_string(column) +
        " (state " + state_label(column, nx_) +
        ") cannot be matched to an equation; the pattern misses entries of g_z, or the DAE is not of index 1");
  }

  // True if M's entry k in column j is one of J's entries (not only the added diagonal).
  bool from_j_entry(int j, int k) const {
    (void)j;
    return std::binary_search(sorted_from_j(), sorted_from_j() + from_j_.size(), k);
  }
  const int* sorted_from_j() const { return from_j_.data(); }  // increasing by construction

  int nx_, n_;
  std::vector<int> pointers_, rows_, from_j_, diagonal_;
  std::vector<double> values_;
  mutable klu_common common_{};
  klu_symbolic* symbolic_ = nullptr;
  klu_numeric* numeric_ = nullptr;
  long factorizations_ = 0, refactorizations_ = 0;
};

}  // namespace

std::unique_ptr<StructuredLu> make_sparse_lu(int nx, int nz, const JacobianStructure& structure) {
  return std::make_unique<SparseLu>(nx, nz, structure);
}

}  // namespace esdirk::internal
