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
// order, so it gives the same bits (doc/linear-solvers-theory.md, "ILU(0)"). Solves and
// products take up to four vectors per pass (for_each_vector_group below; the forward
// sensitivities' directions and the adjoint's rows, doc/linear-solvers-guide.md, "All directions
// in one pass").
// Everything is allocated by the constructor; factor, solve and multiply allocate nothing.

#include <cmath>
#include <cstddef>
#include <vector>

#include "esdirk/sparsity.hpp"

namespace esdirk::internal {

// The most vectors one pass of a sparse kernel takes (more are taken in groups of this many).
inline constexpr int vector_group_width = 4;

// Calls group.template operator()<C>(first) for consecutive groups of C <= vector_group_width of
// the `count` vectors. Why groups of vectors: one vector's substitution is a chain of dependent
// rows, and a row's sum a chain of dependent multiply-adds, so a single vector runs at the
// latency of the floating-point unit and the loads of the indices and values are repeated for
// every vector. A pass that carries up to four vectors through each row loads each entry once
// and interleaves four independent chains: measured 1.8 - 2.1x faster per vector for three
// vectors (an ILU(0) solve and a product each on the 2-D Brusselator's M, 40 x 40 and
// 100 x 100: bench/krylov/bench_vector_groups). Each vector's operations and their order are those
// of the one-vector pass, so the results are the same bits whatever the grouping.
template <typename Group>
void for_each_vector_group(int count, Group&& group) {
  static_assert(vector_group_width == 4);
  for (int first = 0; first < count;) {
    const int left = count - first;
    if (left >= 4) group.template operator()<4>(first), first += 4;
    else if (left == 3) group.template operator()<3>(first), first += 3;
    else if (left == 2) group.template operator()<2>(first), first += 2;
    else group.template operator()<1>(first), first += 1;
  }
}

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

  /// out[c] <- M v[c] = E v[c] - h gamma J v[c] for the `count` vectors v[0 .. count - 1], with J
  /// as the last arrange_rows() left it: row i of J v summed over its columns in increasing order
  /// (as a scatter along J's columns sums it).
  void multiply(const double* const* v, double* const* out, int count, double h_gamma) const {
    for_each_vector_group(count, [&]<int C>(int first) { multiply_group<C>(v + first, out + first, h_gamma); });
  }

  /// out <- M v for one vector.
  void multiply(const double* v, double* out, double h_gamma) const { multiply(&v, &out, 1, h_gamma); }

  /// v[c] <- (L U)^{-1} v[c], or (L U)^{-T} v[c] if `transpose` (U^T then L^T, by columns of
  /// the rows), for the `count` vectors v[0 .. count - 1].
  void solve(double* const* v, int count, bool transpose) const {
    for_each_vector_group(count, [&]<int C>(int first) {
      if (transpose) solve_transposed_group<C>(v + first);
      else solve_group<C>(v + first);
    });
  }

  /// v <- (L U)^{-1} v, or (L U)^{-T} v, for one vector.
  void solve(double* v, bool transpose) const { solve(&v, 1, transpose); }

  /// Entries of M's pattern (and of the factors: ILU(0) has no fill).
  double nonzeros() const { return static_cast<double>(values_.size()); }
  /// Multiply-adds and divisions of one factorization.
  double factor_flops() const { return factor_flops_; }
  std::size_t bytes() const {
    return (values_.size() + product_values_.size() + inverse_pivots_.size()) * sizeof(double) +
           (row_start_.size() + columns_.size() + source_.size() + diagonal_.size() + marker_.size()) * sizeof(int);
  }

 private:
  template <int C>
  void multiply_group(const double* const* v, double* const* out, double h_gamma) const {
    const int* columns = columns_.data();
    const double* a = product_values_.data();
    for (int i = 0; i < n_; ++i) {
      double sum[C];
      for (int c = 0; c < C; ++c) sum[c] = 0.0;
      for (int e = row_start_[i]; e < row_start_[i + 1]; ++e) {
        const double entry = a[e];
        const int j = columns[e];
        for (int c = 0; c < C; ++c) sum[c] += entry * v[c][j];
      }
      for (int c = 0; c < C; ++c) out[c][i] = i < nx_ ? v[c][i] - h_gamma * sum[c] : sum[c];
    }
  }

  template <int C>
  void solve_group(double* const* v) const {
    const int* columns = columns_.data();
    const double* a = values_.data();
    for (int i = 0; i < n_; ++i) {
      double sum[C];
      for (int c = 0; c < C; ++c) sum[c] = v[c][i];
      for (int e = row_start_[i]; e < diagonal_[static_cast<std::size_t>(i)]; ++e) {
        const double entry = a[e];
        const int j = columns[e];
        for (int c = 0; c < C; ++c) sum[c] -= entry * v[c][j];
      }
      for (int c = 0; c < C; ++c) v[c][i] = sum[c];
    }
    for (int i = n_ - 1; i >= 0; --i) {
      double sum[C];
      for (int c = 0; c < C; ++c) sum[c] = v[c][i];
      for (int e = diagonal_[static_cast<std::size_t>(i)] + 1; e < row_start_[i + 1]; ++e) {
        const double entry = a[e];
        const int j = columns[e];
        for (int c = 0; c < C; ++c) sum[c] -= entry * v[c][j];
      }
      const double inverse_pivot = inverse_pivots_[static_cast<std::size_t>(i)];
      for (int c = 0; c < C; ++c) v[c][i] = sum[c] * inverse_pivot;
    }
  }

  template <int C>
  void solve_transposed_group(double* const* v) const {
    const int* columns = columns_.data();
    const double* a = values_.data();
    for (int i = 0; i < n_; ++i) {
      const double inverse_pivot = inverse_pivots_[static_cast<std::size_t>(i)];
      double w[C];
      for (int c = 0; c < C; ++c) w[c] = v[c][i] *= inverse_pivot;
      for (int e = diagonal_[static_cast<std::size_t>(i)] + 1; e < row_start_[i + 1]; ++e) {
        const double entry = a[e];
        const int j = columns[e];
        for (int c = 0; c < C; ++c) v[c][j] -= entry * w[c];
      }
    }
    for (int i = n_ - 1; i >= 0; --i) {
      double w[C];
      for (int c = 0; c < C; ++c) w[c] = v[c][i];
      for (int e = row_start_[i]; e < diagonal_[static_cast<std::size_t>(i)]; ++e) {
        const double entry = a[e];
        const int j = columns[e];
        for (int c = 0; c < C; ++c) v[c][j] -= entry * w[c];
      }
    }
  }

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
