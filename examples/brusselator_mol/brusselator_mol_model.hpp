#pragma once
// The 1-D Brusselator reaction-diffusion system (Hairer & Wanner, Solving ODEs II, IV.1, the
// "BRUSS" problem), discretized by the method of lines on N interior points x_i = i/(N+1) with
// the unknowns interleaved, y = (u_1, v_1, u_2, v_2, ...), n = 2N:
//
//   u_i' = A + u_i^2 v_i - (B + 1) u_i + c (u_{i-1} - 2 u_i + u_{i+1})
//   v_i' = B u_i - u_i^2 v_i            + c (v_{i-1} - 2 v_i + v_{i+1}),   c = alpha (N+1)^2
//
// u = 1, v = 3 on the boundary, u(x, 0) = 1 + sin(2 pi x), v(x, 0) = 3. The parameters are
// p = (A, B, alpha), nominally (1, 3, 1/50). The Jacobian has at most 4 entries per row and lies
// in the band lower = upper = 2: the same model runs on the banded and the sparse (KLU)
// back-ends, and the benchmark against CVODES (bench/sundials/bench_sparse_cvodes.cpp) uses its
// entry() for CVODES's band and sparse matrices.

#include <cmath>
#include <vector>

#include "esdirk/problem.hpp"

namespace brusselator_mol {

constexpr double nominal_A = 1.0, nominal_B = 3.0, nominal_alpha = 1.0 / 50.0;
constexpr double boundary_u = 1.0, boundary_v = 3.0;

class Model : public esdirk::Problem {
 public:
  explicit Model(int points) : esdirk::Problem(2 * points, 0, 3), N_(points) {}

  int points() const { return N_; }
  /// The bandwidth (lower = upper) of J in this ordering.
  int bandwidth() const { return 2; }
  std::vector<double> nominal_parameters() const { return {nominal_A, nominal_B, nominal_alpha}; }

  std::vector<double> initial_state() const {
    std::vector<double> y(static_cast<std::size_t>(2 * N_));
    for (int i = 0; i < N_; ++i) {
      y[2 * i] = 1.0 + std::sin(2.0 * M_PI * (i + 1.0) / (N_ + 1.0));
      y[2 * i + 1] = 3.0;
    }
    return y;
  }

  /// The exact pattern: each species couples to the other species at its point and to itself
  /// at the neighbouring points.
  esdirk::SparsityPattern pattern() const {
    std::vector<int> rows, cols;
    for (int j = 0; j < 2 * N_; ++j)
      for (int i = std::max(0, j - 2); i <= std::min(2 * N_ - 1, j + 2); ++i)
        if (couples(i, j)) {
          rows.push_back(i);
          cols.push_back(j);
        }
    return esdirk::SparsityPattern::from_entries(2 * N_, rows, cols);
  }

  /// Whether J(i, j) is structurally nonzero.
  static bool couples(int i, int j) {
    return i / 2 == j / 2 || (std::abs(i - j) == 2);
  }

  /// J(i, j) at state y with parameters p (0 outside the pattern).
  double entry(const double* y, const double* p, int i, int j) const {
    const double c = p[2] * (N_ + 1.0) * (N_ + 1.0);
    if (i / 2 != j / 2) return std::abs(i - j) == 2 ? c : 0.0;
    const double u = y[i / 2 * 2], v = y[i / 2 * 2 + 1], B = p[1];
    const int s = i % 2, r = j % 2;
    if (s == 0) return r == 0 ? 2.0 * u * v - (B + 1.0) - 2.0 * c : u * u;
    return r == 0 ? B - 2.0 * u * v : -u * u - 2.0 * c;
  }

  int evaluate(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector) override {
    rhs(y.data(), p.data(), f.data());
    return 0;
  }

  void rhs(const double* y, const double* p, double* f) const {
    const double A = p[0], B = p[1], c = p[2] * (N_ + 1.0) * (N_ + 1.0);
    for (int i = 0; i < N_; ++i) {
      const double u = y[2 * i], v = y[2 * i + 1];
      const double ul = i > 0 ? y[2 * i - 2] : boundary_u, ur = i + 1 < N_ ? y[2 * i + 2] : boundary_u;
      const double vl = i > 0 ? y[2 * i - 1] : boundary_v, vr = i + 1 < N_ ? y[2 * i + 3] : boundary_v;
      const double uuv = u * u * v;
      f[2 * i] = A + uuv - (B + 1.0) * u + c * (ul - 2.0 * u + ur);
      f[2 * i + 1] = B * u - uuv + c * (vl - 2.0 * v + vr);
    }
  }

  /// The Laplacian part of f divided by alpha: d f / d alpha.
  void diffusion_per_alpha(const double* y, double* out) const {
    const double scale = (N_ + 1.0) * (N_ + 1.0);
    for (int i = 0; i < N_; ++i) {
      const double u = y[2 * i], v = y[2 * i + 1];
      const double ul = i > 0 ? y[2 * i - 2] : boundary_u, ur = i + 1 < N_ ? y[2 * i + 2] : boundary_u;
      const double vl = i > 0 ? y[2 * i - 1] : boundary_v, vr = i + 1 < N_ ? y[2 * i + 3] : boundary_v;
      out[2 * i] = scale * (ul - 2.0 * u + ur);
      out[2 * i + 1] = scale * (vl - 2.0 * v + vr);
    }
  }

  /// out = J(y) v (the stencil, without forming J): for sensitivity right-hand sides.
  void jacobian_product(const double* y, const double* p, const double* v, double* out) const {
    const double B = p[1], c = p[2] * (N_ + 1.0) * (N_ + 1.0);
    for (int i = 0; i < N_; ++i) {
      const double u = y[2 * i], w = y[2 * i + 1], du = v[2 * i], dv = v[2 * i + 1];
      const double ul = i > 0 ? v[2 * i - 2] : 0.0, ur = i + 1 < N_ ? v[2 * i + 2] : 0.0;
      const double vl = i > 0 ? v[2 * i - 1] : 0.0, vr = i + 1 < N_ ? v[2 * i + 3] : 0.0;
      out[2 * i] = (2.0 * u * w - (B + 1.0)) * du + u * u * dv + c * (ul - 2.0 * du + ur);
      out[2 * i + 1] = (B - 2.0 * u * w) * du - u * u * dv + c * (vl - 2.0 * dv + vr);
    }
  }

  bool has_sparse_jacobian() const override { return true; }
  int sparse_jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector p,
                      esdirk::SparseMatrixRef J) override {
    // Walk the declared pattern (CSC) and write each value in place.
    const int* pointers = J.column_pointers();
    const int* rows = J.row_indices();
    for (int j = 0; j < 2 * N_; ++j)
      for (int k = pointers[j]; k < pointers[j + 1]; ++k)
        J.values[k] = entry(y.data(), p.data(), rows[k], j);
    return 0;
  }

  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    for (int i = 0; i < N_; ++i) {
      Jp(2 * i, 0) = 1.0;  // d/dA
      Jp(2 * i + 1, 0) = 0.0;
      Jp(2 * i, 1) = -y[2 * i];  // d/dB
      Jp(2 * i + 1, 1) = y[2 * i];
    }
    diffusion_per_alpha(y.data(), Jp.column(2));
    return 0;
  }

 private:
  int N_;
};

}  // namespace brusselator_mol
