#include "esdirk/linear_solver.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

#include "internal/fixed_size_lu.hpp"
#include "internal/vector_clones.hpp"

extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, std::size_t trans_len);
}

namespace esdirk {
namespace {

// Below this order, LU and triangular solves run in plain loops: OpenBLAS's dgetrf/dgetrs
// spend more instructions on dispatch than on arithmetic for small matrices (measured with
// callgrind on the Dow problem, n = 10: about 24,000 instructions per dgetrs call against
// about 300 for the loops). Above it, LAPACK's blocked algorithms win.
constexpr int small_order = 48;

// Unblocked LU with partial pivoting (the algorithm of LAPACK's dgetf2), 1-based pivots.
int small_lu_factor(MatrixRef A, int* pivots) {
  const int n = A.rows;
  int info = 0;
  for (int k = 0; k < n; ++k) {
    int p = k;
    double largest = std::abs(A(k, k));
    for (int i = k + 1; i < n; ++i) {
      if (std::abs(A(i, k)) > largest) {
        largest = std::abs(A(i, k));
        p = i;
      }
    }
    pivots[k] = p + 1;
    if (largest == 0.0) {
      if (info == 0) info = k + 1;
      continue;
    }
    if (p != k)
      for (int j = 0; j < n; ++j) std::swap(A(k, j), A(p, j));
    const double inverse = 1.0 / A(k, k);
    for (int i = k + 1; i < n; ++i) A(i, k) *= inverse;
    for (int j = k + 1; j < n; ++j) {
      const double akj = A(k, j);
      if (akj == 0.0) continue;
      double* column = A.column(j);
      const double* lower = A.column(k);
      for (int i = k + 1; i < n; ++i) column[i] -= lower[i] * akj;
    }
  }
  return info;
}

// The bandwidths (kl, ku) of A: every entry below the kl-th subdiagonal or above the ku-th
// superdiagonal is exactly zero (0 when A is diagonal).
void bandwidths(ConstMatrixRef A, int& kl, int& ku) {
  const int n = A.rows;
  kl = ku = 0;
  for (int j = 0; j < n; ++j) {
    const double* a = A.column(j);
    int last = n - 1;
    while (last > j + kl && a[last] == 0.0) --last;
    int first = 0;
    while (first < j - ku && a[first] == 0.0) ++first;
    kl = std::max(kl, last - j);
    ku = std::max(ku, j - first);
  }
}

// M = [I - h*gamma J_x-rows; J_z-rows] (DenseLuSolver::factor) within the band (kl, ku) and zero
// outside it, while checking that J is zero (either sign) outside it too: the bits of those
// magnitudes ORed together, without a branch per entry. False if not (M is then incomplete).
bool form_in_band(ConstMatrixRef J, double h_gamma, int nx, int kl, int ku, MatrixRef M) {
  const int n = M.rows;
  std::uint64_t outside = 0;
  for (int j = 0; j < n; ++j) {
    const double* Jj = J.column(j);
    double* Mj = M.column(j);
    const int top = std::max(0, j - ku), bottom = std::min(n, j + kl + 1);
    for (int i = 0; i < top; ++i) {
      outside |= std::bit_cast<std::uint64_t>(Jj[i]) << 1;
      Mj[i] = 0.0;
    }
    for (int i = top; i < bottom; ++i) Mj[i] = i < nx ? -h_gamma * Jj[i] : Jj[i];
    for (int i = bottom; i < n; ++i) {
      outside |= std::bit_cast<std::uint64_t>(Jj[i]) << 1;
      Mj[i] = 0.0;
    }
    if (j < nx) Mj[j] += 1.0;
  }
  return outside == 0;
}

// small_lu_factor for a matrix of bandwidths (kl, ku) stored densely (the stage matrix of a
// banded model declared dense, as most are): the same pivots and the same operations in the
// same order on every entry that can be nonzero, with each loop stopped where the rest is
// known to be exactly zero, as in LAPACK's dgbtf2: the pivot is looked for among the kl rows
// below the diagonal, and the rows it brings up widen U to kl + ku superdiagonals. Skipped are
// only products with an exact zero factor, so the factors and solutions are those of
// small_lu_factor except that an entry zero in both may carry the other sign of zero
// (tests/core/test_linear_solver.cpp compares them with ==).
// The interchanges of later steps move entries of the earlier columns of L (LAPACK's layout)
// beyond the band: l_last[j] is the last row of column j of L that may be nonzero (j: none).
int band_lu_factor(MatrixRef A, int kl, int ku, int* pivots, int* l_last) {
  const int n = A.rows;
  const int upper = std::min(n - 1, kl + ku);  // U's superdiagonals after the interchanges
  int info = 0;
  for (int k = 0; k < n; ++k) {
    double* ak = A.column(k);
    const int last = std::min(n - 1, k + kl);
    const int reach = std::min(n - 1, k + upper);
    int p = k;
    double largest = std::abs(ak[k]);
    for (int i = k + 1; i <= last; ++i) {
      if (std::abs(ak[i]) > largest) {
        largest = std::abs(ak[i]);
        p = i;
      }
    }
    pivots[k] = p + 1;
    l_last[k] = last;
    if (largest == 0.0) {
      if (info == 0) info = k + 1;
      continue;
    }
    if (p != k) {
      for (int j = 0; j < k; ++j) {  // the multipliers of L: rows k and p of its columns
        if (l_last[j] < k) continue;  // both rows below the column's last nonzero
        std::swap(A(k, j), A(p, j));
        l_last[j] = std::max(l_last[j], p);
      }
      for (int j = k; j <= reach; ++j) std::swap(A(k, j), A(p, j));
    }
    const double inverse = 1.0 / ak[k];
    for (int i = k + 1; i <= last; ++i) ak[i] *= inverse;
    for (int j = k + 1; j <= reach; ++j) {
      double* column = A.column(j);
      const double akj = column[k];
      if (akj == 0.0) continue;
      for (int i = k + 1; i <= last; ++i) column[i] -= ak[i] * akj;
    }
  }
  return info;
}

// The transposed solve of small_lu_solve_column on the factors of band_lu_factor, within the
// band: the same operations in the same order on every term that can be nonzero (column j of
// U starts at row j - kl - ku, column j of L ends at l_last[j]). Only the adjoint's sweep
// solves transposed, once per factorization; the Newton iterations' solves stay with the
// general kernel (see DenseLuSolver::solve).
void band_lu_solve_transposed(ConstMatrixRef LU, const int* pivots, const int* l_last, int upper, double* b) {
  const int n = LU.rows;
  for (int j = 0; j < n; ++j) {  // U^T y = b
    const double* u = LU.column(j);
    double sum = b[j];
    for (int i = std::max(0, j - upper); i < j; ++i) sum -= u[i] * b[i];
    b[j] = sum / u[j];
  }
  for (int j = n - 1; j >= 0; --j) {  // L^T x = y
    const double* l = LU.column(j);
    double sum = b[j];
    for (int i = j + 1; i <= l_last[j]; ++i) sum -= l[i] * b[i];
    b[j] = sum;
  }
  for (int k = n - 1; k >= 0; --k) std::swap(b[k], b[pivots[k] - 1]);
}

// The orders DenseLuSolver factors with band_lu_factor: above those of the fixed-size kernels
// (whose unrolled loops gain nothing from skipping), up to the small-matrix limit. The
// bandwidths of the last factorization are tried first by the next: the stage matrices of one
// problem share their structure.
bool uses_band(int n) { return n > internal::fixed_size_lu_limit && n <= small_order; }

// One right-hand side, column-oriented (the order of operations of LAPACK's dgetrs).
// `b` never aliases the factors; saying so spares the compiler a run-time overlap test in
// every inner loop (which costs more than the loop itself at n ~ 10).
void small_lu_solve_column(ConstMatrixRef LU, const int* pivots, double* __restrict b,
                           bool transpose) {
  const int n = LU.rows;
  if (!transpose) {
    for (int k = 0; k < n; ++k) std::swap(b[k], b[pivots[k] - 1]);
    for (int j = 0; j < n; ++j) {  // L y = P b (unit lower), column-oriented
      const double bj = b[j];
      const double* __restrict l = LU.column(j);
      for (int i = j + 1; i < n; ++i) b[i] -= l[i] * bj;
    }
    for (int j = n - 1; j >= 0; --j) {  // U x = y
      const double* __restrict u = LU.column(j);
      b[j] /= u[j];
      const double bj = b[j];
      for (int i = 0; i < j; ++i) b[i] -= u[i] * bj;
    }
  } else {
    for (int j = 0; j < n; ++j) {  // U^T y = b
      const double* u = LU.column(j);
      double sum = b[j];
      for (int i = 0; i < j; ++i) sum -= u[i] * b[i];
      b[j] = sum / u[j];
    }
    for (int j = n - 1; j >= 0; --j) {  // L^T x = y
      const double* l = LU.column(j);
      double sum = b[j];
      for (int i = j + 1; i < n; ++i) sum -= l[i] * b[i];
      b[j] = sum;
    }
    for (int k = n - 1; k >= 0; --k) std::swap(b[k], b[pivots[k] - 1]);
  }
}

// Several right-hand sides at once, W columns per block: the block is copied (permuted) into
// a row-major buffer, so that every update of the triangular solves is a contiguous row
// operation over the W columns, which the compiler vectorizes; one pass over L and U serves
// all of them. Each entry sees the same operations in the same order as in
// small_lu_solve_column, so the results are identical to solving column by column.
template <int W>
ESDIRK_VECTOR_CLONES void small_lu_solve_block(ConstMatrixRef LU, const int* row_of, MatrixRef B,
                                               int first, int width) {
  const int n = LU.rows;
  alignas(64) double t[small_order * W];
  for (int i = 0; i < n; ++i) {
    double* ti = t + i * W;
    const double* source = B.data + row_of[i];
    int c = 0;
    for (; c < width; ++c) ti[c] = source[static_cast<std::size_t>(first + c) * B.ld];
    for (; c < W; ++c) ti[c] = 0.0;  // padding lanes: computed, never stored
  }
  for (int j = 0; j < n; ++j) {  // L y = P b
    const double* tj = t + j * W;
    const double* l = LU.column(j);
    for (int i = j + 1; i < n; ++i) {
      const double lij = l[i];
      if (lij == 0.0) continue;
      double* ti = t + i * W;
      for (int c = 0; c < W; ++c) ti[c] -= lij * tj[c];
    }
  }
  for (int j = n - 1; j >= 0; --j) {  // U x = y
    const double* u = LU.column(j);
    double* tj = t + j * W;
    const double ujj = u[j];
    for (int c = 0; c < W; ++c) tj[c] /= ujj;
    for (int i = 0; i < j; ++i) {
      const double uij = u[i];
      if (uij == 0.0) continue;
      double* ti = t + i * W;
      for (int c = 0; c < W; ++c) ti[c] -= uij * tj[c];
    }
  }
  for (int c = 0; c < width; ++c) {
    double* b = B.column(first + c);
    for (int i = 0; i < n; ++i) b[i] = t[i * W + c];
  }
}

void small_lu_solve(ConstMatrixRef LU, const int* pivots, MatrixRef B, bool transpose) {
  const int n = LU.rows;
  if (transpose || B.cols < 2) {
    for (int c = 0; c < B.cols; ++c) small_lu_solve_column(LU, pivots, B.column(c), transpose);
    return;
  }
  // row_of[i]: the row of B that the sequence of pivot interchanges brings to row i.
  int row_of[small_order];
  for (int i = 0; i < n; ++i) row_of[i] = i;
  for (int k = 0; k < n; ++k) std::swap(row_of[k], row_of[pivots[k] - 1]);
  int c = 0;
  for (; B.cols - c >= 8; c += 8) small_lu_solve_block<8>(LU, row_of, B, c, 8);
  const int rest = B.cols - c;
  if (rest > 4)
    small_lu_solve_block<8>(LU, row_of, B, c, rest);
  else if (rest > 1)
    small_lu_solve_block<4>(LU, row_of, B, c, rest);
  else if (rest == 1)
    small_lu_solve_column(LU, pivots, B.column(c), false);
}

// A^{-1} from the factors for n <= MP: each column solves P L U w = e_c, column-oriented like
// small_lu_solve_column, with every update running over the full height MP of zero-padded
// copies of L and U: fixed-length vector operations instead of triangles of shrinking loops.
// The leading zeros of L^{-1} P e_c are skipped.
template <int MP>
ESDIRK_VECTOR_CLONES void small_lu_inverse(ConstMatrixRef LU, const int* pivots, MatrixRef W) {
  const int n = LU.rows;
  constexpr int mp = MP;
  alignas(64) double lower[MP * MP];
  alignas(64) double upper[MP * MP];
  alignas(64) double x[MP];
  for (int j = 0; j < n; ++j) {
    const double* a = LU.column(j);
    double* l = lower + j * mp;
    double* u = upper + j * mp;
    for (int i = 0; i < mp; ++i) {
      l[i] = i > j && i < n ? a[i] : 0.0;
      u[i] = i < j ? a[i] : 0.0;
    }
  }
  int row_of[MP];  // the row of the right-hand side that the interchanges bring to i
  for (int i = 0; i < n; ++i) row_of[i] = i;
  for (int k = 0; k < n; ++k) std::swap(row_of[k], row_of[pivots[k] - 1]);
  for (int c = 0; c < n; ++c) {
    int first = n;
    for (int i = 0; i < mp; ++i) x[i] = 0.0;
    for (int i = 0; i < n; ++i)
      if (row_of[i] == c) {
        x[i] = 1.0;
        first = i;
      }
    for (int j = first; j < n; ++j) {  // L y = P e_c
      const double xj = x[j];
      const double* __restrict l = lower + j * mp;
      for (int i = 0; i < mp; ++i) x[i] -= l[i] * xj;
    }
    for (int j = n - 1; j >= 0; --j) {  // U w = y
      x[j] /= LU(j, j);
      const double xj = x[j];
      const double* __restrict u = upper + j * mp;
      for (int i = 0; i < mp; ++i) x[i] -= u[i] * xj;
    }
    double* w = W.column(c);
    for (int i = 0; i < n; ++i) w[i] = x[i];
  }
}

}  // namespace

void DenseLuSolver::invert(MatrixRef W) const {
  if (n_ <= 8) return small_lu_inverse<8>(lu_.cref(), pivots_.data(), W);
  if (n_ <= 12) return small_lu_inverse<12>(lu_.cref(), pivots_.data(), W);
  if (n_ <= 16) return small_lu_inverse<16>(lu_.cref(), pivots_.data(), W);
  // Blocked back-substitutions on the identity are as fast from here on.
  W.fill(0.0);
  for (int k = 0; k < W.rows; ++k) W(k, k) = 1.0;
  solve(W);
}

int lu_factor(MatrixRef A, int* pivots) {
  if (A.rows == A.cols && A.rows >= 1 && A.rows <= internal::fixed_size_lu_limit)
    return internal::fixed_size_lu_factor_of[static_cast<std::size_t>(A.rows - 1)](A.data, A.ld, pivots);
  if (A.rows == A.cols && A.rows <= small_order) return small_lu_factor(A, pivots);
  int info = 0;
  const int ld = std::max(1, A.ld);
  dgetrf_(&A.rows, &A.cols, A.data, &ld, pivots, &info);
  return info;  // < 0 cannot happen with these arguments; > 0 is the zero pivot
}

void lu_solve(ConstMatrixRef LU, const int* pivots, MatrixRef B, bool transpose) {
  if (B.cols == 0 || LU.rows == 0) return;
  // Order known at compile time: one column of any small system (the Newton iteration), or
  // every column of a tiny one (below 5, the row-major blocks of small_lu_solve cost more than
  // they vectorize).
  if (!transpose && LU.rows <= internal::fixed_size_lu_limit && B.cols == 1)
    return internal::fixed_size_lu_solve_one_of[static_cast<std::size_t>(LU.rows - 1)](
        LU.data, LU.ld, pivots, B.data);
  if (!transpose && LU.rows <= 4)
    return internal::fixed_size_lu_solve_of[static_cast<std::size_t>(LU.rows - 1)](
        LU.data, LU.ld, pivots, B.data, B.ld, B.cols);
  if (LU.rows <= small_order) return small_lu_solve(LU, pivots, B, transpose);
  int info = 0;
  const char trans = transpose ? 'T' : 'N';
  const int lda = std::max(1, LU.ld);
  const int ldb = std::max(1, B.ld);
  dgetrs_(&trans, &LU.rows, &B.cols, LU.data, &lda, pivots, B.data, &ldb, &info, 1);
}

void DenseLuSolver::resize(int nx, int nz) {
  nx_ = nx;
  n_ = nx + nz;
  lu_.resize(n_, n_);
  pivots_.assign(static_cast<std::size_t>(n_), 0);
  l_last_.assign(static_cast<std::size_t>(uses_band(n_) ? n_ : 0), 0);
  band_kl_ = -1;
  band_ku_ = 0;
}

int DenseLuSolver::factor(ConstMatrixRef J, double h_gamma) {
  h_gamma_ = h_gamma;
  if (n_ >= 1 && n_ <= internal::fixed_size_lu_limit)
    return internal::fixed_size_form_and_factor_of[static_cast<std::size_t>(n_ - 1)](
        J.data, J.ld, h_gamma, nx_, lu_.data(), n_, pivots_.data());
  const bool band = uses_band(n_);
  if (band && band_kl_ >= 0 && form_in_band(J, h_gamma, nx_, band_kl_, band_ku_, lu_.ref()))
    return band_lu_factor(lu_.ref(), band_kl_, band_ku_, pivots_.data(), l_last_.data());
  for (int j = 0; j < n_; ++j) {
    const double* Jj = J.column(j);
    double* Mj = lu_.column(j);
    for (int i = 0; i < nx_; ++i) Mj[i] = -h_gamma * Jj[i];
    for (int i = nx_; i < n_; ++i) Mj[i] = Jj[i];
    if (j < nx_) Mj[j] += 1.0;
  }
  if (!band) return lu_factor(lu_.ref(), pivots_.data());
  bandwidths(lu_.cref(), band_kl_, band_ku_);  // the first time, or J left the band
  return band_lu_factor(lu_.ref(), band_kl_, band_ku_, pivots_.data(), l_last_.data());
}

// The Newton iterations' solves keep the general column kernel for now: the band would take
// 7 % off the chain's states-only run in bench_adjoint_parameters as well (same bits), a change
// of the forward integration's timings left to be measured on its own benchmarks.
void DenseLuSolver::solve(MatrixRef B) const { lu_solve(lu_.cref(), pivots_.data(), B, false); }

void DenseLuSolver::solve_transposed(MatrixRef B) const {
  if (!uses_band(n_)) return lu_solve(lu_.cref(), pivots_.data(), B, true);
  for (int c = 0; c < B.cols; ++c)
    band_lu_solve_transposed(lu_.cref(), pivots_.data(), l_last_.data(), band_kl_ + band_ku_, B.column(c));
}

}  // namespace esdirk
