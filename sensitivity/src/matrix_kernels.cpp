#include "matrix_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "internal/vector_clones.hpp"

namespace esdirk::detail {

namespace {

// Products up to this many rows and inner dimension go through the blocked kernel below.
constexpr int blocked_limit = 64;

// C(r0 : r0 + rows, :) (op)= alpha A(row_begin + r0 : ..., :) B for rows <= MP (a multiple of
// 4). The rows of A are copied once into a zero-padded buffer of MP rows per column, so that
// each column of C is accumulated in MP registers over the whole inner dimension with
// fixed-length (vectorized, unrolled) updates and no loads or stores of C inside the loop.
// Zero entries of B are skipped (seed directions are sparse). The sum over k runs in the same
// order as the column-by-column loop.
template <int MP>
ESDIRK_VECTOR_CLONES void multiply_rows(ConstMatrixRef A, int row_begin, int r0, int rows,
                                        ConstMatrixRef B, MatrixRef C, double alpha,
                                        bool accumulate) {
  const int inner = A.cols;
  alignas(64) double ap[blocked_limit * MP];
  for (int k = 0; k < inner; ++k) {
    const double* a = A.column(k) + row_begin + r0;
    double* p = ap + k * MP;
    int i = 0;
    for (; i < rows; ++i) p[i] = a[i];
    for (; i < MP; ++i) p[i] = 0.0;
  }
  for (int j = 0; j < C.cols; ++j) {
    double acc[MP] = {};
    const double* b = B.column(j);
    for (int k = 0; k < inner; ++k) {
      const double bk = b[k];
      if (bk == 0.0) continue;
      const double* p = ap + k * MP;
      for (int i = 0; i < MP; ++i) acc[i] += p[i] * bk;
    }
    double* c = C.column(j) + r0;
    if (accumulate)
      for (int i = 0; i < rows; ++i) c[i] += alpha * acc[i];
    else
      for (int i = 0; i < rows; ++i) c[i] = alpha * acc[i];
  }
}

}  // namespace

void multiply(ConstMatrixRef A, int row_begin, ConstMatrixRef B, MatrixRef C, double alpha,
              bool accumulate) {
  if (A.cols <= blocked_limit) {
    for (int r0 = 0; r0 < C.rows; r0 += 16) {
      const int rows = std::min(16, C.rows - r0);
      if (rows > 12)
        multiply_rows<16>(A, row_begin, r0, rows, B, C, alpha, accumulate);
      else if (rows > 8)
        multiply_rows<12>(A, row_begin, r0, rows, B, C, alpha, accumulate);
      else if (rows > 4)
        multiply_rows<8>(A, row_begin, r0, rows, B, C, alpha, accumulate);
      else
        multiply_rows<4>(A, row_begin, r0, rows, B, C, alpha, accumulate);
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

void add_scaled(ConstMatrixRef X, MatrixRef Y, double alpha) {
  for (int j = 0; j < Y.cols; ++j) {
    const double* x = X.column(j);
    double* y = Y.column(j);
    for (int i = 0; i < Y.rows; ++i) y[i] += alpha * x[i];
  }
}

void copy(ConstMatrixRef X, MatrixRef Y) {
  for (int j = 0; j < Y.cols; ++j) {
    const double* x = X.column(j);
    double* y = Y.column(j);
    for (int i = 0; i < Y.rows; ++i) y[i] = x[i];
  }
}

ConstMatrixRef rows_of(ConstMatrixRef M, int row_begin, int rows) {
  return {M.data + row_begin, rows, M.cols, M.ld};
}

MatrixRef rows_of(MatrixRef M, int row_begin, int rows) {
  return {M.data + row_begin, rows, M.cols, M.ld};
}

MatrixRef cols_of(MatrixRef M, int col_begin, int cols) {
  return {M.column(col_begin), M.rows, cols, M.ld};
}

ConstMatrixRef cols_of(ConstMatrixRef M, int col_begin, int cols) {
  return {M.column(col_begin), M.rows, cols, M.ld};
}

bool all_finite(ConstMatrixRef M) {
  for (int j = 0; j < M.cols; ++j)
    for (int i = 0; i < M.rows; ++i)
      if (!std::isfinite(M(i, j))) return false;
  return true;
}

}  // namespace esdirk::detail
