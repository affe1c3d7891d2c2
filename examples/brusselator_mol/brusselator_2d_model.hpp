#pragma once
// The 2-D Brusselator reaction-diffusion system on the unit square (Hairer & Wanner, Solving
// ODEs II, IV.10, with the boundary conditions of the 1-D model in brusselator_mol_model.hpp),
// discretized by the method of lines on an N x N grid of interior points (x_i, y_j) =
// (i, j)/(N+1), 5-point Laplacian, the unknowns interleaved point by point, x fastest:
// y = (u_00, v_00, u_10, v_10, ..., u_{N-1,N-1}, v_{N-1,N-1}), n = 2 N^2:
//
//   u' = A + u^2 v - (B + 1) u + c (u_W + u_E + u_S + u_N - 4 u)
//   v' = B u - u^2 v            + c (v_W + v_E + v_S + v_N - 4 v),   c = alpha (N+1)^2
//
// u = 1, v = 3 on the boundary, u(x, y, 0) = 1 + sin(2 pi x) sin(pi y), v(x, y, 0) = 3, p =
// (A, B, alpha), nominally (1, 3, 1/50) as in 1-D. Each row of J has at most 6 entries (the
// other species at the point and the four neighbours); the neighbours in y are 2N columns
// away, so J lies in the band lower = upper = 2N: a band LU costs O(n N^2) = O(n^2) flops and
// O(n N) memory, a sparse LU with a fill-reducing ordering far less (doc/benchmarks.md).
//
// The interface is that of the 1-D model (rhs, entry, jacobian_product, diffusion_per_alpha,
// points() = the number of grid points), so bench_sparse_cvodes runs both with one code.

#include <algorithm>
#include <cmath>
#include <vector>

#include "esdirk/problem.hpp"

namespace brusselator_mol {

class Model2d : public esdirk::Problem {
 public:
  /// An N x N grid (`side` = N).
  explicit Model2d(int side) : esdirk::Problem(2 * side * side, 0, 3), N_(side) {}

  int side() const { return N_; }
  /// Grid points N^2 (n = 2 points()).
  int points() const { return N_ * N_; }
  /// The bandwidth (lower = upper) of J in this ordering.
  int bandwidth() const { return 2 * N_; }
  std::vector<double> nominal_parameters() const { return {1.0, 3.0, 1.0 / 50.0}; }

  std::vector<double> initial_state() const {
    std::vector<double> y(static_cast<std::size_t>(size()));
    for (int j = 0; j < N_; ++j)
      for (int i = 0; i < N_; ++i) {
        const double x = (i + 1.0) / (N_ + 1.0), yy = (j + 1.0) / (N_ + 1.0);
        y[2 * point(i, j)] = 1.0 + std::sin(2.0 * M_PI * x) * std::sin(M_PI * yy);
        y[2 * point(i, j) + 1] = 3.0;
      }
    return y;
  }

  /// The exact pattern: the other species at the same point and the same species at the four
  /// neighbours inside the grid.
  esdirk::SparsityPattern pattern() const {
    std::vector<int> rows, cols;
    const int n = size();
    rows.reserve(static_cast<std::size_t>(6 * n));
    cols.reserve(static_cast<std::size_t>(6 * n));
    for (int col = 0; col < n; ++col) {
      const int k = col / 2, i = k % N_, j = k / N_;
      auto add = [&](int row) {
        rows.push_back(row);
        cols.push_back(col);
      };
      add(2 * k);
      add(2 * k + 1);
      if (i > 0) add(col - 2);
      if (i + 1 < N_) add(col + 2);
      if (j > 0) add(col - 2 * N_);
      if (j + 1 < N_) add(col + 2 * N_);
    }
    return esdirk::SparsityPattern::from_entries(n, rows, cols);
  }

  /// J(i, j) at state y with parameters p, for (i, j) in the pattern (0 elsewhere).
  double entry(const double* y, const double* p, int row, int col) const {
    const double c = p[2] * (N_ + 1.0) * (N_ + 1.0);
    if (row / 2 != col / 2) return row % 2 == col % 2 ? c : 0.0;
    const int k = row / 2;
    const double u = y[2 * k], v = y[2 * k + 1], B = p[1];
    const int s = row % 2, r = col % 2;
    if (s == 0) return r == 0 ? 2.0 * u * v - (B + 1.0) - 4.0 * c : u * u;
    return r == 0 ? B - 2.0 * u * v : -u * u - 4.0 * c;
  }

  int evaluate(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector) override {
    rhs(y.data(), p.data(), f.data());
    return 0;
  }

  void rhs(const double* y, const double* p, double* f) const {
    const double A = p[0], B = p[1], c = p[2] * (N_ + 1.0) * (N_ + 1.0);
    laplacian(y, boundary_u, boundary_v, c, f);
    for (int k = 0; k < points(); ++k) {
      const double u = y[2 * k], v = y[2 * k + 1], uuv = u * u * v;
      f[2 * k] += A + uuv - (B + 1.0) * u;
      f[2 * k + 1] += B * u - uuv;
    }
  }

  /// The Laplacian part of f divided by alpha: d f / d alpha.
  void diffusion_per_alpha(const double* y, double* out) const {
    laplacian(y, boundary_u, boundary_v, (N_ + 1.0) * (N_ + 1.0), out);
  }

  /// out = J(y) v (the stencil, without forming J): for sensitivity right-hand sides.
  void jacobian_product(const double* y, const double* p, const double* v, double* out) const {
    const double B = p[1], c = p[2] * (N_ + 1.0) * (N_ + 1.0);
    laplacian(v, 0.0, 0.0, c, out);  // the directions vanish on the boundary
    for (int k = 0; k < points(); ++k) {
      const double u = y[2 * k], w = y[2 * k + 1], du = v[2 * k], dv = v[2 * k + 1];
      out[2 * k] += (2.0 * u * w - (B + 1.0)) * du + u * u * dv;
      out[2 * k + 1] += (B - 2.0 * u * w) * du - u * u * dv;
    }
  }

  bool has_sparse_jacobian() const override { return true; }
  int sparse_jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector p,
                      esdirk::SparseMatrixRef J) override {
    const int* pointers = J.column_pointers();
    const int* rows = J.row_indices();
    for (int col = 0; col < size(); ++col)
      for (int k = pointers[col]; k < pointers[col + 1]; ++k)
        J.values[k] = entry(y.data(), p.data(), rows[k], col);
    return 0;
  }

  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    for (int k = 0; k < points(); ++k) {
      Jp(2 * k, 0) = 1.0;  // d/dA
      Jp(2 * k + 1, 0) = 0.0;
      Jp(2 * k, 1) = -y[2 * k];  // d/dB
      Jp(2 * k + 1, 1) = y[2 * k];
    }
    diffusion_per_alpha(y.data(), Jp.column(2));
    return 0;
  }

 private:
  static constexpr double boundary_u = 1.0, boundary_v = 3.0;
  int N_;

  int point(int i, int j) const { return i + N_ * j; }

  // out = c * (5-point Laplacian of each species of y), with the boundary values bu, bv.
  void laplacian(const double* y, double bu, double bv, double c, double* out) const {
    for (int j = 0; j < N_; ++j)
      for (int i = 0; i < N_; ++i) {
        const int k = point(i, j);
        for (int s = 0; s < 2; ++s) {
          const double b = s == 0 ? bu : bv;
          const double centre = y[2 * k + s];
          const double west = i > 0 ? y[2 * (k - 1) + s] : b;
          const double east = i + 1 < N_ ? y[2 * (k + 1) + s] : b;
          const double south = j > 0 ? y[2 * (k - N_) + s] : b;
          const double north = j + 1 < N_ ? y[2 * (k + N_) + s] : b;
          out[2 * k + s] = c * (west + east + south + north - 4.0 * centre);
        }
      }
  }
};

}  // namespace brusselator_mol
