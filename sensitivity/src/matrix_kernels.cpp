#include "matrix_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "internal/vector_clones.hpp"

namespace esdirk::detail {

namespace {

// Products up to this many rows and inner dimension go through the blocked kernel below.
constexpr int blocked_limit = 64;

// Four doubles in one vector register (GCC/Clang vector extension; two SSE2 registers in the
// baseline build). Vector arithmetic is lane by lane with the scalar rounding.
using Lanes = double __attribute__((vector_size(32)));

// c(0 : rows) = alpha * acc, or += if `accumulate`.
template <int L>
inline void store_column(const Lanes (&acc)[L], double* c, int rows, double alpha, bool accumulate) {
  alignas(32) double out[4 * L];
  for (int l = 0; l < L; ++l) __builtin_memcpy(out + 4 * l, &acc[l], sizeof(Lanes));
  // rows > 4(L - 1): a fixed-length head (unrolled) and a short tail.
  constexpr int head = 4 * (L - 1);
  if (accumulate) {
    for (int i = 0; i < head; ++i) c[i] += alpha * out[i];
    for (int i = head; i < rows; ++i) c[i] += alpha * out[i];
  } else {
    for (int i = 0; i < head; ++i) c[i] = alpha * out[i];
    for (int i = head; i < rows; ++i) c[i] = alpha * out[i];
  }
}

// C(r0 : r0 + rows, :) (op)= alpha A(row_begin + r0 : ..., :) B for rows <= 4L. The rows of A
// are copied once into a zero-padded buffer of 4L rows per column, so that each column of C is
// accumulated in L vector registers over the whole inner dimension, with no loads or stores of
// C inside the loop; two columns of C share each load of A. The sum over k runs in the same
// order as the plain triple loop, with a separate multiply and add, so every entry has its
// bits (no zero skipping: a test per entry costs more than the products at these sizes).
template <int L>
ESDIRK_VECTOR_CLONES void multiply_rows(ConstMatrixRef A, int row_begin, int r0, int rows,
                                        ConstMatrixRef B, MatrixRef C, double alpha,
                                        bool accumulate) {
  constexpr int MP = 4 * L;
  const int inner = A.cols;
  alignas(64) double ap[blocked_limit * MP];
  for (int k = 0; k < inner; ++k) {
    const double* a = A.column(k) + row_begin + r0;
    double* p = ap + k * MP;
    for (int i = 0; i < MP - 4; ++i) p[i] = a[i];  // rows > MP - 4 (see multiply())
    for (int i = MP - 4; i < MP; ++i) p[i] = 0.0;
    for (int i = MP - 4; i < rows; ++i) p[i] = a[i];
  }
  const Lanes* packed = reinterpret_cast<const Lanes*>(ap);
  int j = 0;
  for (; j + 1 < C.cols; j += 2) {
    Lanes acc0[L] = {}, acc1[L] = {};
    const double* b0 = B.column(j);
    const double* b1 = B.column(j + 1);
    for (int k = 0; k < inner; ++k) {
      const double x0 = b0[k], x1 = b1[k];
      const Lanes* p = packed + k * L;
      const Lanes v0 = {x0, x0, x0, x0}, v1 = {x1, x1, x1, x1};
      for (int l = 0; l < L; ++l) {
        acc0[l] += p[l] * v0;
        acc1[l] += p[l] * v1;
      }
    }
    store_column(acc0, C.column(j) + r0, rows, alpha, accumulate);
    store_column(acc1, C.column(j + 1) + r0, rows, alpha, accumulate);
  }
  if (j < C.cols) {
    Lanes acc[L] = {};
    const double* b = B.column(j);
    for (int k = 0; k < inner; ++k) {
      const double x = b[k];
      const Lanes* p = packed + k * L;
      const Lanes v = {x, x, x, x};
      for (int l = 0; l < L; ++l) acc[l] += p[l] * v;
    }
    store_column(acc, C.column(j) + r0, rows, alpha, accumulate);
  }
}

// Tiny products (f_p P of a few states and controls): the packed buffer of multiply_rows costs
// more than the products. Each entry is the sum over k in the same order, from +0, then scaled
// and stored as store_column does, so the bits are those of the blocked kernel.
template <int K>
void multiply_tiny(ConstMatrixRef A, int row_begin, ConstMatrixRef B, MatrixRef C, double alpha,
                   bool accumulate) {
  const double* a[K];
  for (int k = 0; k < K; ++k) a[k] = A.column(k) + row_begin;
  for (int j = 0; j < C.cols; ++j) {
    const double* b = B.column(j);
    double* c = C.column(j);
    for (int i = 0; i < C.rows; ++i) {
      double sum = 0.0;
      for (int k = 0; k < K; ++k) sum += a[k][i] * b[k];
      c[i] = accumulate ? c[i] + alpha * sum : alpha * sum;
    }
  }
}

}  // namespace

void multiply(ConstMatrixRef A, int row_begin, ConstMatrixRef B, MatrixRef C, double alpha,
              bool accumulate) {
  if (C.rows <= 4) switch (A.cols) {
      case 1: return multiply_tiny<1>(A, row_begin, B, C, alpha, accumulate);
      case 2: return multiply_tiny<2>(A, row_begin, B, C, alpha, accumulate);
      case 3: return multiply_tiny<3>(A, row_begin, B, C, alpha, accumulate);
      case 4: return multiply_tiny<4>(A, row_begin, B, C, alpha, accumulate);
      default: break;
    }
  if (A.cols <= blocked_limit) {
    for (int r0 = 0; r0 < C.rows; r0 += 16) {
      const int rows = std::min(16, C.rows - r0);
      if (rows > 12)
        multiply_rows<4>(A, row_begin, r0, rows, B, C, alpha, accumulate);
      else if (rows > 8)
        multiply_rows<3>(A, row_begin, r0, rows, B, C, alpha, accumulate);
      else if (rows > 4)
        multiply_rows<2>(A, row_begin, r0, rows, B, C, alpha, accumulate);
      else
        multiply_rows<1>(A, row_begin, r0, rows, B, C, alpha, accumulate);
    }
    return;
  }
  for (int j = 0; j < C.cols; ++j) {
    double* c = C.column(j);
    if (!accumulate)
      for (int i = 0; i < C.rows; ++i) c[i] = 0.0;
    const double* b = B.column(j);
    for (int k = 0; k < A.cols; ++k) {
      const double bk = alpha * b[k];
      if (bk == 0.0) continue;
      const double* a = A.column(k) + row_begin;
      for (int i = 0; i < C.rows; ++i) c[i] += a[i] * bk;
    }
  }
}

int sparse_columns(ConstMatrixRef B, int* starts, int* rows) {
  int count = 0;
  for (int j = 0; j < B.cols; ++j) {
    starts[j] = count;
    const double* b = B.column(j);
    for (int k = 0; k < B.rows; ++k)
      if (b[k] != 0.0) rows[count++] = k;
  }
  starts[B.cols] = count;
  return count;
}

ESDIRK_VECTOR_CLONES void multiply_by_sparse(ConstMatrixRef A, ConstMatrixRef B, const int* starts,
                                             const int* rows, MatrixRef C) {
  const int m = C.rows;
  for (int j = 0; j < C.cols; ++j) {
    double* __restrict c = C.column(j);
    const double* b = B.column(j);
    for (int i = 0; i < m; ++i) c[i] = 0.0;
    for (int q = starts[j]; q < starts[j + 1]; ++q) {
      const double bk = b[rows[q]];
      const double* __restrict a = A.column(rows[q]);
      for (int i = 0; i < m; ++i) c[i] += a[i] * bk;
    }
  }
}

void add_scaled(ConstMatrixRef X, MatrixRef Y, double alpha) {
  for (int j = 0; j < Y.cols; ++j) {
    const double* x = X.column(j);
    double* y = Y.column(j);
    for (int i = 0; i < Y.rows; ++i) y[i] += alpha * x[i];
  }
}

void copy(ConstMatrixRef X, MatrixRef Y) {
  if (X.ld == Y.rows && Y.ld == Y.rows) {  // both contiguous: one copy (the small blocks of a
    std::copy_n(X.data, static_cast<std::size_t>(Y.rows) * static_cast<std::size_t>(Y.cols), Y.data);
    return;  // shooting interval cost ~100 instructions column by column)
  }
  for (int j = 0; j < Y.cols; ++j) {
    const double* x = X.column(j);
    double* y = Y.column(j);
    for (int i = 0; i < Y.rows; ++i) y[i] = x[i];
  }
}

ESDIRK_VECTOR_CLONES void flat_add_scaled(double alpha, const double* __restrict x,
                                          double* __restrict y, std::size_t size) {
  for (std::size_t q = 0; q < size; ++q) y[q] += alpha * x[q];
}

// The base column by column, then each term as one flat pass over the contiguous block (ld = n),
// which keeps the vector lanes full where a column of a few rows would not.
ESDIRK_VECTOR_CLONES void stage_right_hand_side(int nx, int n, int ns, const double* __restrict s0,
                                                const double* __restrict fp, double hg, int terms,
                                                const double* coefficients,
                                                const double* const* blocks, double* __restrict rhs) {
  for (int j = 0; j < ns; ++j) {
    const std::size_t column = static_cast<std::size_t>(j) * static_cast<std::size_t>(n);
    for (int k = 0; k < nx; ++k) rhs[column + k] = s0[column + k] + hg * fp[column + k];
    for (int k = nx; k < n; ++k) rhs[column + k] = -fp[column + k];
  }
  const std::size_t size = static_cast<std::size_t>(n) * static_cast<std::size_t>(ns);
  for (int t = 0; t < terms; ++t) {
    const double c = coefficients[t];
    const double* __restrict sf = blocks[t];
    for (std::size_t q = 0; q < size; ++q) rhs[q] += c * sf[q];
  }
}

ESDIRK_VECTOR_CLONES void flat_difference_quotient(const double* __restrict s,
                                                   const double* __restrict r, double scale,
                                                   const double* __restrict f, double* __restrict d,
                                                   std::size_t size) {
  for (std::size_t q = 0; q < size; ++q) d[q] = (s[q] - r[q]) * scale + f[q];
}

// Four rows at a time in vector lanes (the max of non-negative numbers is exact in any order).
ESDIRK_VECTOR_CLONES void column_weighted_max(ConstMatrixRef M, const double* w, double* out) {
  const int head = M.rows / 4 * 4;
  for (int j = 0; j < M.cols; ++j) {
    const double* v = M.column(j);
    Lanes largest = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < head; i += 4) {
      Lanes a, weight;
      __builtin_memcpy(&a, v + i, sizeof a);
      __builtin_memcpy(&weight, w + i, sizeof weight);
      a = (a < 0.0 ? -a : a) * weight;
      largest = a > largest ? a : largest;
    }
    double m = std::max(std::max(largest[0], largest[1]), std::max(largest[2], largest[3]));
    for (int i = head; i < M.rows; ++i) m = std::max(m, std::abs(v[i]) * w[i]);
    out[j] = m;
  }
}

ESDIRK_VECTOR_CLONES bool flat_all_finite(const double* v, std::size_t size) {
  constexpr std::uint64_t exponent = 0x7ff0000000000000ULL;
  std::uint64_t bad = 0;
  for (std::size_t q = 0; q < size; ++q) {
    std::uint64_t bits;
    std::memcpy(&bits, v + q, sizeof bits);
    bad |= static_cast<std::uint64_t>((bits & exponent) == exponent);
  }
  return bad == 0;
}

bool all_finite(ConstMatrixRef M) {
  for (int j = 0; j < M.cols; ++j)
    for (int i = 0; i < M.rows; ++i)
      if (!std::isfinite(M(i, j))) return false;
  return true;
}

}  // namespace esdirk::detail
