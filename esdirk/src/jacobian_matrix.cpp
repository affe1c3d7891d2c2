#include "esdirk/jacobian_matrix.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace esdirk {

JacobianMatrix::JacobianMatrix(int n) : n_(n) { dense_.resize(n, n); }

JacobianMatrix::JacobianMatrix(int n, const JacobianStructure& structure)
    : n_(n) {
  if (structure.solver == LinearSolverKind::dense || structure.pattern == nullptr) {
    dense_.resize(n, n);
    return;
  }
  pattern_ = structure.pattern;
  if (pattern_->size() != n)
    throw std::invalid_argument("JacobianMatrix: the pattern is " + std::to_string(pattern_->size()) +
                                " x " + std::to_string(pattern_->size()) + ", the problem has n = " +
                                std::to_string(n));
  values_.assign(static_cast<std::size_t>(pattern_->nonzeros()), 0.0);
  if (structure.solver == LinearSolverKind::krylov) point_.y.assign(static_cast<std::size_t>(n), 0.0);
}

void JacobianMatrix::record_point(Problem& problem, double t, ConstVector x, ConstVector z,
                                  ConstVector p) {
  if (point_.y.empty()) return;
  point_.problem = &problem;
  point_.t = t;
  point_.p = p;
  std::copy(x.begin(), x.end(), point_.y.begin());
  std::copy(z.begin(), z.end(), point_.y.begin() + static_cast<std::ptrdiff_t>(x.size()));
}

double JacobianMatrix::operator()(int i, int j) const {
  if (is_dense()) return dense_(i, j);
  const int k = pattern_->find(i, j);
  return k < 0 ? 0.0 : values_[static_cast<std::size_t>(k)];
}

void JacobianMatrix::copy_block(int row0, int col0, MatrixRef out) const {
  if (is_dense()) {
    for (int j = 0; j < out.cols; ++j)
      for (int i = 0; i < out.rows; ++i) out(i, j) = dense_(row0 + i, col0 + j);
    return;
  }
  out.fill(0.0);
  const int* ptr = pattern_->column_pointers().data();
  const int* rows = pattern_->row_indices().data();
  for (int j = 0; j < out.cols; ++j)
    for (int k = ptr[col0 + j]; k < ptr[col0 + j + 1]; ++k) {
      const int i = rows[k] - row0;
      if (i >= 0 && i < out.rows) out(i, j) = values_[static_cast<std::size_t>(k)];
    }
}

void JacobianMatrix::multiply(int row0, int col0, ConstMatrixRef X, MatrixRef Y, double alpha,
                              double beta) const {
  for (int c = 0; c < Y.cols; ++c) {
    double* y = Y.column(c);
    if (beta == 0.0)
      std::fill(y, y + Y.rows, 0.0);
    else if (beta != 1.0)
      for (int i = 0; i < Y.rows; ++i) y[i] *= beta;
  }
  if (is_dense()) {
    for (int c = 0; c < Y.cols; ++c) {
      double* y = Y.column(c);
      const double* x = X.column(c);
      for (int j = 0; j < X.rows; ++j) {
        const double a = alpha * x[j];
        if (a == 0.0) continue;
        const double* column = dense_.column(col0 + j) + row0;
        for (int i = 0; i < Y.rows; ++i) y[i] += column[i] * a;
      }
    }
    return;
  }
  const int* ptr = pattern_->column_pointers().data();
  const int* rows = pattern_->row_indices().data();
  const double* v = values_.data();
  const bool all_rows = row0 == 0 && Y.rows == n_;
  for (int c = 0; c < Y.cols; ++c) {
    double* y = Y.column(c);
    const double* x = X.column(c);
    for (int j = 0; j < X.rows; ++j) {
      const double a = alpha * x[j];
      if (a == 0.0) continue;
      for (int k = ptr[col0 + j]; k < ptr[col0 + j + 1]; ++k) {
        const int i = rows[k] - row0;
        if (all_rows || (i >= 0 && i < Y.rows)) y[i] += v[k] * a;
      }
    }
  }
}

void JacobianMatrix::add_transposed_product(int row0, int rows, ConstMatrixRef X, MatrixRef Y,
                                            double alpha) const {
  if (is_dense()) {
    for (int c = 0; c < X.cols; ++c) {
      const double* x = X.column(c);
      double* y = Y.column(c);
      for (int j = 0; j < Y.rows; ++j) {
        const double* a = dense_.column(j) + row0;
        double sum = 0.0;
        for (int i = 0; i < rows; ++i) sum += a[i] * x[i];
        y[j] += alpha * sum;
      }
    }
    return;
  }
  const int* ptr = pattern_->column_pointers().data();
  const int* row_index = pattern_->row_indices().data();
  const double* v = values_.data();
  for (int c = 0; c < X.cols; ++c) {
    const double* x = X.column(c);
    double* y = Y.column(c);
    for (int j = 0; j < Y.rows; ++j) {
      double sum = 0.0;
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) {
        const int i = row_index[k] - row0;
        if (i >= 0 && i < rows) sum += v[k] * x[i];
      }
      y[j] += alpha * sum;
    }
  }
}

void JacobianMatrix::copy_values_from(const JacobianMatrix& other) {
  if (other.n_ != n_ || other.is_dense() != is_dense() ||
      (!is_dense() && other.values_.size() != values_.size()))
    throw std::invalid_argument("JacobianMatrix::copy_values_from: the matrices differ in size or storage");
  if (is_dense())
    std::copy(other.dense_.data(), other.dense_.data() + static_cast<std::size_t>(n_) * n_, dense_.data());
  else
    std::copy(other.values_.begin(), other.values_.end(), values_.begin());
  if (point_.y.size() == other.point_.y.size()) {
    point_.problem = other.point_.problem;
    point_.t = other.point_.t;
    point_.p = other.point_.p;
    std::copy(other.point_.y.begin(), other.point_.y.end(), point_.y.begin());
  } else {
    point_.problem = nullptr;  // `other` keeps no point: none is known for these values
  }
}

void JacobianMatrix::swap(JacobianMatrix& other) noexcept {
  std::swap(n_, other.n_);
  dense_.swap(other.dense_);
  pattern_.swap(other.pattern_);
  values_.swap(other.values_);
  std::swap(point_, other.point_);
}

}  // namespace esdirk
