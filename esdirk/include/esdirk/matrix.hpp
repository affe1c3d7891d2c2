#pragma once
// Dense column-major matrices: the layout LAPACK and Fortran expect.

#include <cstddef>
#include <span>
#include <vector>

namespace esdirk {

using ConstVector = std::span<const double>;
using Vector = std::span<double>;

/// A non-owning view of a column-major matrix with leading dimension `ld` (ld >= rows).
struct MatrixRef {
  double* data = nullptr;
  int rows = 0;
  int cols = 0;
  int ld = 0;

  double& operator()(int i, int j) const { return data[i + static_cast<std::size_t>(j) * ld]; }
  double* column(int j) const { return data + static_cast<std::size_t>(j) * ld; }
  /// Sets every entry to `value`.
  void fill(double value) const {
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) (*this)(i, j) = value;
  }
};

/// Read-only counterpart of MatrixRef.
struct ConstMatrixRef {
  const double* data = nullptr;
  int rows = 0;
  int cols = 0;
  int ld = 0;

  ConstMatrixRef() = default;
  ConstMatrixRef(const double* d, int r, int c, int l) : data(d), rows(r), cols(c), ld(l) {}
  ConstMatrixRef(const MatrixRef& m) : data(m.data), rows(m.rows), cols(m.cols), ld(m.ld) {}
  double operator()(int i, int j) const { return data[i + static_cast<std::size_t>(j) * ld]; }
  const double* column(int j) const { return data + static_cast<std::size_t>(j) * ld; }
};

/// An owning column-major matrix. Resizing allocates; everything else does not.
class DenseMatrix {
 public:
  DenseMatrix() = default;
  DenseMatrix(int rows, int cols) { resize(rows, cols); }

  void resize(int rows, int cols) {
    rows_ = rows;
    cols_ = cols;
    data_.assign(static_cast<std::size_t>(rows) * cols, 0.0);
  }
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  double* data() { return data_.data(); }
  const double* data() const { return data_.data(); }
  double& operator()(int i, int j) { return data_[i + static_cast<std::size_t>(j) * rows_]; }
  double operator()(int i, int j) const { return data_[i + static_cast<std::size_t>(j) * rows_]; }
  double* column(int j) { return data_.data() + static_cast<std::size_t>(j) * rows_; }
  const double* column(int j) const { return data_.data() + static_cast<std::size_t>(j) * rows_; }
  MatrixRef ref() { return {data_.data(), rows_, cols_, rows_}; }
  ConstMatrixRef cref() const { return {data_.data(), rows_, cols_, rows_}; }
  void fill(double value) { data_.assign(data_.size(), value); }
  void swap(DenseMatrix& other) noexcept {
    data_.swap(other.data_);
    std::swap(rows_, other.rows_);
    std::swap(cols_, other.cols_);
  }

 private:
  int rows_ = 0;
  int cols_ = 0;
  std::vector<double> data_;
};

}  // namespace esdirk
