#pragma once
// The Brusselator reaction-diffusion system on the unit cube, the 3-D sibling of
// examples/brusselator_mol/brusselator_2d_model.hpp: N x N x N interior grid points
// (i, j, k)/(N+1), 7-point Laplacian, the two species interleaved point by point, x fastest,
// n = 2 N^3 (N = 30: 54 000 unknowns):
//
//   u' = A + u^2 v - (B + 1) u + c (sum of the six neighbours' u - 6 u)
//   v' = B u - u^2 v            + c (sum of the six neighbours' v - 6 v),   c = alpha (N+1)^2
//
// u = 1, v = 3 on the boundary, u(x, y, z, 0) = 1 + sin(2 pi x) sin(pi y) sin(pi z), v = 3;
// (A, B, alpha) = (1, 3, 1/50). Each row of J has at most 8 entries, but the neighbours in z are
// 2 N^2 columns away: a band LU holds n (3 * 2 N^2 + 1) values (N = 30: 2.9e8, 2.3 GB) and even a
// fill-reducing sparse LU fills in far beyond J (nested dissection: O(n^(4/3)) entries, O(n^2)
// flops). The Krylov back-end needs J's 8 n entries and the GMRES basis.

#include <cmath>
#include <vector>

#include "esdirk/problem.hpp"

namespace reaction_diffusion_3d {

class Brusselator3d : public esdirk::Problem {
 public:
  explicit Brusselator3d(int side) : esdirk::Problem(2 * side * side * side, 0, 3), N_(side) {}

  int side() const { return N_; }
  int points() const { return N_ * N_ * N_; }
  std::vector<double> nominal_parameters() const { return {1.0, 3.0, 1.0 / 50.0}; }

  std::vector<double> initial_state() const {
    std::vector<double> y(static_cast<std::size_t>(size()));
    const double d = 1.0 / (N_ + 1.0);
    for (int k = 0; k < N_; ++k)
      for (int j = 0; j < N_; ++j)
        for (int i = 0; i < N_; ++i) {
          const int q = point(i, j, k);
          y[2 * q] = 1.0 + std::sin(2.0 * M_PI * (i + 1) * d) * std::sin(M_PI * (j + 1) * d) *
                               std::sin(M_PI * (k + 1) * d);
          y[2 * q + 1] = 3.0;
        }
    return y;
  }

  /// The other species at the same point and the same species at the six neighbours.
  esdirk::SparsityPattern pattern() const {
    std::vector<int> rows, cols;
    rows.reserve(static_cast<std::size_t>(8) * size());
    cols.reserve(static_cast<std::size_t>(8) * size());
    for (int col = 0; col < size(); ++col) {
      const int q = col / 2, i = q % N_, j = (q / N_) % N_, k = q / (N_ * N_);
      const auto add = [&](int row) {
        rows.push_back(row);
        cols.push_back(col);
      };
      add(2 * q);
      add(2 * q + 1);
      if (i > 0) add(col - 2);
      if (i + 1 < N_) add(col + 2);
      if (j > 0) add(col - 2 * N_);
      if (j + 1 < N_) add(col + 2 * N_);
      if (k > 0) add(col - 2 * N_ * N_);
      if (k + 1 < N_) add(col + 2 * N_ * N_);
    }
    return esdirk::SparsityPattern::from_entries(size(), rows, cols);
  }

  int evaluate(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector) override {
    const double A = p[0], B = p[1], c = p[2] * (N_ + 1.0) * (N_ + 1.0);
    for (int k = 0; k < N_; ++k)
      for (int j = 0; j < N_; ++j)
        for (int i = 0; i < N_; ++i) {
          const int q = point(i, j, k);
          for (int s = 0; s < 2; ++s) {
            const double b = s == 0 ? 1.0 : 3.0;
            const auto at = [&](bool inside, int neighbour) { return inside ? y[2 * neighbour + s] : b; };
            const double sum = at(i > 0, q - 1) + at(i + 1 < N_, q + 1) + at(j > 0, q - N_) +
                               at(j + 1 < N_, q + N_) + at(k > 0, q - N_ * N_) +
                               at(k + 1 < N_, q + N_ * N_);
            f[2 * q + s] = c * (sum - 6.0 * y[2 * q + s]);
          }
          const double u = y[2 * q], v = y[2 * q + 1], uuv = u * u * v;
          f[2 * q] += A + uuv - (B + 1.0) * u;
          f[2 * q + 1] += B * u - uuv;
        }
    return 0;
  }

  bool has_sparse_jacobian() const override { return true; }
  int sparse_jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector p,
                      esdirk::SparseMatrixRef J) override {
    const double B = p[1], c = p[2] * (N_ + 1.0) * (N_ + 1.0);
    const int* pointers = J.column_pointers();
    const int* rows = J.row_indices();
    for (int col = 0; col < size(); ++col)
      for (int e = pointers[col]; e < pointers[col + 1]; ++e) {
        const int row = rows[e];
        if (row / 2 != col / 2) {
          J.values[e] = c;  // a neighbour of the same species
          continue;
        }
        const int q = row / 2;
        const double u = y[2 * q], v = y[2 * q + 1];
        const bool u_row = row % 2 == 0, u_col = col % 2 == 0;
        J.values[e] = u_row ? (u_col ? 2.0 * u * v - (B + 1.0) - 6.0 * c : u * u)
                            : (u_col ? B - 2.0 * u * v : -u * u - 6.0 * c);
      }
    return 0;
  }

 private:
  int N_;
  int point(int i, int j, int k) const { return i + N_ * (j + N_ * k); }
};

}  // namespace reaction_diffusion_3d
