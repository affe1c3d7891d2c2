#include "matrix_kernels.hpp"

#include <algorithm>
#include <cmath>

namespace esdirk::detail {

namespace {

// Products up to this many rows and inner dimension go through the blocked kernel below.
constexpr int blocked_limit = 64;
constexpr int block_width = 8;

// C(:, first:first+width) (op)= alpha A B(:, first:first+width) for width <= block_width: B's
// columns are copied into a row-major buffer, so that every row of C is accumulated in
// block_width registers over the whole inner dimension, one scalar of A times one contiguous
// row of the buffer at a time (vectorized, no loads or stores of C inside the loop).
void multiply_block(ConstMatrixRef A, int row_begin, ConstMatrixRef B, MatrixRef C, double alpha,
                    bool accumulate, int first, int width) {
  const int inner = A.cols;
  alignas(64) double bt[blocked_limit * block_width];
  for (int k = 0; k < inner; ++k) {
    double* row = bt + k * block_width;
    int c = 0;
    for (; c < width; ++c) row[c] = B(k, first + c);
    for (; c < block_width; ++c) row[c] = 0.0;
  }
  for (int i = 0; i < C.rows; ++i) {
    double acc[block_width] = {};
    const double* a = A.data + row_begin + i;
    for (int k = 0; k < inner; ++k) {
      const double aik = a[static_cast<std::size_t>(k) * A.ld];
      if (aik == 0.0) continue;  // model Jacobians are sparse
      const double* row = bt + k * block_width;
      for (int c = 0; c < block_width; ++c) acc[c] += aik * row[c];
    }
    for (int c = 0; c < width; ++c) {
      double& cij = C(i, first + c);
      cij = accumulate ? cij + alpha * acc[c] : alpha * acc[c];
    }
  }
}

}  // namespace

void multiply(ConstMatrixRef A, int row_begin, ConstMatrixRef B, MatrixRef C, double alpha,
              bool accumulate) {
  if (C.rows <= blocked_limit && A.cols <= blocked_limit) {
    for (int first = 0; first < C.cols; first += block_width)
      multiply_block(A, row_begin, B, C, alpha, accumulate, first, std::min(block_width, C.cols - first));
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
