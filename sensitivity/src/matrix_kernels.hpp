#pragma once
// Small dense kernels of the sensitivity module (column-major, no allocation). The matrices
// are small (n <= a few hundred, a few dozen columns), where plain loops beat a BLAS call.

#include <cstddef>

#include "esdirk/matrix.hpp"

namespace esdirk::detail {

/// C = alpha * A(row_begin : row_begin + C.rows, :) * B, or C += ... if `accumulate`.
/// Vectorized for A.cols <= 64 (any rows), plain loops above.
void multiply(ConstMatrixRef A, int row_begin, ConstMatrixRef B, MatrixRef C, double alpha,
              bool accumulate);
/// The nonzero pattern of B (column by column) for multiply_by_sparse: rows[starts[j] ..
/// starts[j + 1]) are the rows k with B(k, j) != 0, in increasing order. `starts` has B.cols + 1
/// entries and `rows` room for every entry of B. Returns the number of nonzeros.
int sparse_columns(ConstMatrixRef B, int* starts, int* rows);
/// C = A B over the nonzero pattern of B (sparse_columns): each entry is the sum over the
/// nonzero B(k, j) in increasing k, from +0. For a finite A these are the bits of
/// multiply(A, 0, B, C, 1.0, false): every product it adds besides these is a zero, and a sum
/// that starts at +0 never becomes -0, so adding a zero leaves it as it is. The product of a
/// stage's [f_p; g_p] with the seed's parameter part, which is a few scaled unit columns.
void multiply_by_sparse(ConstMatrixRef A, ConstMatrixRef B, const int* starts, const int* rows,
                        MatrixRef C);
/// Y += alpha * X (same shape).
void add_scaled(ConstMatrixRef X, MatrixRef Y, double alpha);
/// Y = X (same shape).
void copy(ConstMatrixRef X, MatrixRef Y);
// The views are inline: they are taken per stage and direction block, where a call across
// translation units cost more than the copy it describes (callgrind, CSTR interval).
/// A view of rows [row_begin, row_begin + rows) of M.
inline ConstMatrixRef rows_of(ConstMatrixRef M, int row_begin, int rows) {
  return {M.data + row_begin, rows, M.cols, M.ld};
}
inline MatrixRef rows_of(MatrixRef M, int row_begin, int rows) {
  return {M.data + row_begin, rows, M.cols, M.ld};
}
/// A view of columns [col_begin, col_begin + cols) of M.
inline MatrixRef cols_of(MatrixRef M, int col_begin, int cols) {
  return {M.column(col_begin), M.rows, cols, M.ld};
}
inline ConstMatrixRef cols_of(ConstMatrixRef M, int col_begin, int cols) {
  return {M.column(col_begin), M.rows, cols, M.ld};
}
/// True if every entry is finite.
bool all_finite(ConstMatrixRef M);

// Kernels on contiguous arrays of `size` doubles (blocks with leading dimension = rows).
/// y += alpha * x.
void flat_add_scaled(double alpha, const double* x, double* y, std::size_t size);
/// The right-hand side of a stage's sensitivities over ns column blocks of n rows:
/// rhs = [s0_x + hg fp_x ; -fp_z] + sum_t coefficients[t] blocks[t], each entry formed from
/// the base and then one scaled addition per term in order (the bits of separate passes).
void stage_right_hand_side(int nx, int n, int ns, const double* s0, const double* fp, double hg,
                           int terms, const double* coefficients, const double* const* blocks,
                           double* rhs);
/// d = (s - r) * scale + f.
void flat_difference_quotient(const double* s, const double* r, double scale, const double* f,
                              double* d, std::size_t size);
/// out[j] = max_i |M(i, j)| w[i] for every column j (weighted max-norms of the columns).
void column_weighted_max(ConstMatrixRef M, const double* w, double* out);
/// True if every entry is finite (exponent bits, so it vectorizes).
bool flat_all_finite(const double* v, std::size_t size);

}  // namespace esdirk::detail
