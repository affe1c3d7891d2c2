#pragma once
// ILU(0) of the stage matrix M = E - h gamma J, the Krylov back-end's preconditioner for grids
// (KrylovPreconditioner::ilu0; doc/linear-solvers-theory.md, "ILU(0)"). M is factored as L U
// with unit lower L and upper U restricted to the pattern of M (J's declared pattern plus the
// diagonal): the fill of the exact LU is dropped, so the factors take exactly M's entries and
// memory and one application cost O(nnz(M)), linear in n. Unlike block-Jacobi it keeps the
// couplings between grid points (a 7-point Laplacian's neighbours), so GMRES needs fewer
// iterations on diffusion-dominated stages. No pivoting (the natural order of the unknowns):
// a zero or non-finite pivot ends the factorization and is reported to the caller.
// The same compressed rows also give the Krylov back-end's products M v (multiply): a gather
// along each row is about 1.4x faster than the scatter along J's columns and sums in the same
// order, so it gives the same bits (doc/linear-solvers-theory.md, "ILU(0)").
// Everything is allocated by the constructor; factor, solve and multiply allocate nothing.

#include <cmath>
#include <cstddef>
#include <vector>

#include "esdirk/sparsity.hpp"

namespace esdirk::internal {

class IncompleteLuPreconditioner {
 public:
  /// M's pattern in compressed rows from J's CSC pattern (n x n, nx differential rows), the
  /// diagonal added where J's pattern lacks it, and the cost of one factorization counted.
  IncompleteLuPreconditioner(int nx, const SparsityPattern& pattern) : n_(pattern.size()), nx_(nx) {
    const auto un = static_cast<std::size_t>(n_);
    const int* ptr = pattern.column_pointers().data();
    const int* rows = pattern.row_indices().data();
    std::vector<int> count(un, 0);
    for (int j = 0; j < n_; ++j) {
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) ++count[static_cast<std::size_t>(rows[k])];
      if (pattern.find(j, j) < 0) ++count[static_cast<std::size_t>(j)];
    }
    row_start_.assign(un + 1, 0);
    for (int i = 0; i < n_; ++i) row_start_[i + 1] = row_start_[i] + count[static_cast<std::size_t>(i)];
    const auto nnz = static_cast<std::size_t>(row_start_[un]);
    columns_.assign(nnz, 0);
    source_.assign(nnz, -1);
    diagonal_.assign(un, -1);
    // Columns in increasing order, so each row's entries come out sorted by column.
    std::vector<int> next(row_start_.begin(), row_start_.end() - 1);
    const auto place = [&](int i, int j, int source) {
      const int e = next[static_cast<std::size_t>(i)]++;
      columns_[static_cast<std::size_t>(e)] = j;
      source_[static_cast<std::size_t>(e)] = source;
      if (i == j) diagonal_[static_cast<std::size_t>(i)] = e;
    };
    for (int j = 0; j < n_; ++j) {
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) place(rows[k], j, k);
      if (diagonal_[static_cast<std::size_t>(j)] < 0) place(j, j, -1);
    }
    values_.assign(nnz, 0.0);
    product_values_.assign(nnz, 0.0);
    inverse_pivots_.assign(un, 0.0);
    marker_.assign(un, -1);
    // Multiply-adds of one factorization: row k's upper part once for every entry l_ik.
    for (int i = 0; i < n_; ++i)
      for (int e = row_start_[i]; e < diagonal_[static_cast<std::size_t>(i)]; ++e) {
        const auto k = static_cast<std::size_t>(columns_[static_cast<std::size_t>(e)]);
        factor_flops_ += 1.0 + 2.0 * (row_start_[k + 1] - diagonal_[k] - 1);
      }
  }

  /// Forms M from J's values (in the CSC order of the pattern) and factors it in place.
  /// Returns 0, or the 1-based row whose pivot is zero or not finite.
  int factor(const double* j_values, double h_gamma) {
    for (int i = 0; i < n_; ++i)
      for (int e = row_start_[i]; e < row_start_[i + 1]; ++e) {
        const auto ue = static_cast<std::size_t>(e);
        const double a = source_[ue] < 0 ? 0.0 : j_values[source_[ue]];
        values_[ue] = i < nx_ ? -h_gamma * a : a;
        if (i < nx_ && e == diagonal_[static_cast<std::size_t>(i)]) values_[ue] += 1.0;
      }
    // Row by row (the IKJ order): subtract l_ik times row k of U from row i, on row i's
    // pattern only (marker_ holds the positions of row i's columns).
    for (int i = 0; i < n_; ++i) {
      const int begin = row_start_[i], end = row_start_[i + 1], d = diagonal_[static_cast<std::size_t>(i)];
      for (int e = begin; e < end; ++e) marker_[static_cast<std::size_t>(columns_[static_cast<std::size_t>(e)])] = e;
      for (int e = begin; e < d; ++e) {
        const int k = columns_[static_cast<std::size_t>(e)];
        const int dk = diagonal_[static_cast<std::size_t>(k)];
        const double l = values_[static_cast<std::size_t>(e)] /= values_[static_cast<std::size_t>(dk)];
        for (int f = dk + 1; f < row_start_[k + 1]; ++f) {
          const int position = marker_[static_cast<std::size_t>(columns_[static_cast<std::size_t>(f)])];
          if (position >= 0) values_[static_cast<std::size_t>(position)] -= l * values_[static_cast<std::size_t>(f)];
        }
      }
      for (int e = begin; e < end; ++e) marker_[static_cast<std::size_t>(columns_[static_cast<std::size_t>(e)])] = -1;
      const double pivot = values_[static_cast<std::size_t>(d)];
      if (pivot == 0.0 || !std::isfinite(pivot)) return i + 1;
      // The solves multiply by 1 / pivot: a division on the back substitution's chain of
      // dependent rows costs three times a multiplication (the solve is 1.25x faster).
      inverse_pivots_[static_cast<std::size_t>(i)] = 1.0 / pivot;
    }
    return 0;
  }

  /// Arranges J's values (in the CSC order of the pattern) by the rows of M for multiply();
  /// a diagonal entry J's pattern lacks is 0.
  void arrange_rows(const double* j_values) {
    for (std::size_t e = 0; e < product_values_.size(); ++e)
      product_values_[e] = source_[e] < 0 ? 0.0 : j_values[source_[e]];
  }

  /// out <- M v = E v - h gamma J v with J as the last arrange_rows() left it: row i of J v
  /// summed over its columns in increasing order (as a scatter along J's columns sums it).
  void multiply(const double* v, double* out, double h_gamma) const {
    const int* columns = columns_.data();
    const double* a = product_values_.data();
    for (int i = 0; i < n_; ++i) {
      double sum = 0.0;
      for (int e = row_start_[i]; e < row_start_[i + 1]; ++e) sum += a[e] * v[columns[e]];
      out[i] = i < nx_ ? v[i] - h_gamma * sum : sum;
    }
  }

  /// v <- (L U)^{-1} v, or (L U)^{-T} v if `transpose` (U^T then L^T, by columns of the rows).
  void solve(double* v, bool transpose) const {
    const int* columns = columns_.data();
    const double* a = values_.data();
    if (!transpose) {
      for (int i = 0; i < n_; ++i) {
        double sum = v[i];
        for (int e = row_start_[i]; e < diagonal_[static_cast<std::size_t>(i)]; ++e) sum -= a[e] * v[columns[e]];
        v[i] = sum;
      }
      for (int i = n_ - 1; i >= 0; --i) {
        const int d = diagonal_[static_cast<std::size_t>(i)];
        double sum = v[i];
        for (int e = d + 1; e < row_start_[i + 1]; ++e) sum -= a[e] * v[columns[e]];
        v[i] = sum * inverse_pivots_[static_cast<std::size_t>(i)];
      }
      return;
    }
    for (int i = 0; i < n_; ++i) {
      const int d = diagonal_[static_cast<std::size_t>(i)];
      const double w = v[i] *= inverse_pivots_[static_cast<std::size_t>(i)];
      for (int e = d + 1; e < row_start_[i + 1]; ++e) v[columns[e]] -= a[e] * w;
    }
    for (int i = n_ - 1; i >= 0; --i) {
      const double w = v[i];
      for (int e = row_start_[i]; e < diagonal_[static_cast<std::size_t>(i)]; ++e) v[columns[e]] -= a[e] * w;
    }
  }

  /// Entries of M's pattern (and of the factors: ILU(0) has no fill).
  double nonzeros() const { return static_cast<double>(values_.size()); }
  /// Multiply-adds and divisions of one factorization.
  double factor_flops() const { return factor_flops_; }
  std::size_t bytes() const {
    return (values_.size() + product_values_.size() + inverse_pivots_.size()) * sizeof(double) +
           (row_start_.size() + columns_.size() + source_.size() + diagonal_.size() + marker_.size()) * sizeof(int);
  }

 private:
  int n_, nx_;
  std::vector<int> row_start_;  // compressed rows of M's pattern (n + 1)
  std::vector<int> columns_;    // sorted within each row
  std::vector<int> source_;     // each entry's position in J's CSC values, -1 for an added diagonal
  std::vector<int> diagonal_;   // the position of (i, i) in row i
  std::vector<double> values_;  // M, then L (strictly lower, unit diagonal implied) and U in place
  std::vector<double> inverse_pivots_;  // 1 / U's diagonal
  std::vector<double> product_values_;  // J by the rows of M's pattern (multiply)
  std::vector<int> marker_;     // factor's scratch: row i's position of each column, else -1
  double factor_flops_ = 0.0;
};

}  // namespace esdirk::internal
