#pragma once
// The Jacobian J = [f_x f_z; g_x g_z] of one point in the storage its structure asks for:
// a dense n x n matrix, or the values of a CSC sparsity pattern (banded and sparse problems).
// The step keeps J in this form; the stage linear system factors M = E - h gamma J from it and
// the sensitivities form their J S products with it, so a sparse problem never holds an
// n x n array.

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/matrix.hpp"
#include "esdirk/sparsity.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

class Problem;

/// The values of a matrix with a CSC pattern, as a sparse Jacobian callback fills them:
/// values[k] belongs to row pattern->row_indices()[k] of the column k lies in.
struct SparseMatrixRef {
  const SparsityPattern* pattern = nullptr;
  double* values = nullptr;

  int nonzeros() const { return pattern->nonzeros(); }
  const int* column_pointers() const { return pattern->column_pointers().data(); }
  const int* row_indices() const { return pattern->row_indices().data(); }
  /// The value of entry (i, j) (a binary search in column j). Throws std::out_of_range if the
  /// entry is not in the pattern: a callback that writes outside its pattern fails loudly.
  double& at(int i, int j) const {
    const int k = pattern->find(i, j);
    if (k < 0)
      throw std::out_of_range("sparse Jacobian: entry (" + std::to_string(i) + ", " +
                              std::to_string(j) + ") is not in the sparsity pattern");
    return values[k];
  }
  /// Sets every value to `value`.
  void fill(double value) const { std::fill(values, values + pattern->nonzeros(), value); }
};

class ESDIRK_API JacobianMatrix {
 public:
  /// Dense n x n.
  explicit JacobianMatrix(int n = 0);
  /// Dense for the dense back-end, else the values of the structure's pattern (all zero).
  JacobianMatrix(int n, const JacobianStructure& structure);

  int size() const { return n_; }
  bool is_dense() const { return pattern_ == nullptr; }
  /// The dense matrix (0 x 0 when sparse).
  MatrixRef dense() { return dense_.ref(); }
  ConstMatrixRef dense() const { return dense_.cref(); }
  /// The pattern (sparse storage only) and its values.
  const SparsityPattern& pattern() const { return *pattern_; }
  const std::shared_ptr<const SparsityPattern>& shared_pattern() const { return pattern_; }
  SparseMatrixRef sparse() { return {pattern_.get(), values_.data()}; }
  const double* values() const { return values_.data(); }

  /// J(i, j) in either storage (a search when sparse: for setup and diagnostics).
  double operator()(int i, int j) const;
  /// Copies the block of rows [row0, row0 + out.rows) and columns [col0, col0 + out.cols)
  /// into `out` (zeros where the pattern has no entry).
  void copy_block(int row0, int col0, MatrixRef out) const;
  /// Y = alpha * J(rows [row0, row0 + Y.rows), cols [col0, col0 + X.rows)) * X + beta * Y.
  /// Sparse storage costs O(nonzeros of the block x X.cols); no allocation.
  void multiply(int row0, int col0, ConstMatrixRef X, MatrixRef Y, double alpha,
                double beta) const;
  /// Y += alpha * J(rows [row0, row0 + rows), cols [0, Y.rows))^T * X, X of `rows` rows: the
  /// adjoint's products. Sparse storage costs O(nonzeros of the block x X.cols); no allocation.
  void add_transposed_product(int row0, int rows, ConstMatrixRef X, MatrixRef Y,
                              double alpha) const;

  /// Copies the values of `other`, which must have the same size and storage (the same
  /// pattern when sparse): O(n^2) dense, O(nonzeros) sparse; no allocation. Throws
  /// std::invalid_argument otherwise.
  void copy_values_from(const JacobianMatrix& other);

  void swap(JacobianMatrix& other) noexcept;

  /// Where J was formed, kept for LinearSolverKind::krylov only (empty otherwise): the model,
  /// t, the parameters and y = [x; z]. The Krylov stage solver takes its matrix-free products
  /// J v and the user preconditioner's setup there.
  struct Point {
    Problem* problem = nullptr;
    double t = 0.0;
    ConstVector p;          ///< the caller's parameters (kept by the caller while J is used)
    std::vector<double> y;  ///< [x; z]: n values, allocated by the constructor
  };
  const Point& point() const { return point_; }
  /// Records the point (no allocation); does nothing unless the storage keeps one.
  void record_point(Problem& problem, double t, ConstVector x, ConstVector z, ConstVector p);

 private:
  int n_ = 0;
  DenseMatrix dense_;
  std::shared_ptr<const SparsityPattern> pattern_;
  std::vector<double> values_;
  Point point_;
};

}  // namespace esdirk
