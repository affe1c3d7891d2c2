#include "matrix_kernels.hpp"

#include <cmath>

namespace esdirk::detail {

void multiply(ConstMatrixRef A, int row_begin, ConstMatrixRef B, MatrixRef C, double alpha,
              bool accumulate) {
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
