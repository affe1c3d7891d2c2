#pragma once
// The 1-D Brusselator reaction-diffusion system of Hairer & Wanner (Solving ODEs II, IV.1),
// discretized on N interior points with the unknowns interleaved (u_1, v_1, u_2, v_2, ...):
//
//   u_i' = A + u_i^2 v_i - (B + 1) u_i + c (u_{i-1} - 2 u_i + u_{i+1})
//   v_i' = B u_i - u_i^2 v_i            + c (v_{i-1} - 2 v_i + v_{i+1}),   c = alpha (N+1)^2
//
// with u = 1, v = 3 on the boundary, A = 1, B = 3, alpha = 1/50. The Jacobian is banded with
// lower = upper = 2 and has at most 4 entries per row (its pattern is a subset of the band).
// Optionally with one algebraic state w (nz = 1): 0 = w - sum_i u_i / N (a DAE of index 1).

#include <cmath>
#include <vector>

#include "esdirk/problem.hpp"

namespace test_problems {

class Brusselator1d : public esdirk::Problem {
 public:
  explicit Brusselator1d(int points, bool algebraic = false, bool analytic = true)
      : esdirk::Problem(2 * points, algebraic ? 1 : 0, 0),
        N_(points),
        c_(alpha_ * (points + 1.0) * (points + 1.0)),
        analytic_(analytic) {}

  int points() const { return N_; }

  std::vector<double> initial_state() const {
    std::vector<double> x(static_cast<std::size_t>(2 * N_));
    for (int i = 0; i < N_; ++i) {
      const double s = (i + 1.0) / (N_ + 1.0);
      x[2 * i] = 1.0 + std::sin(2.0 * M_PI * s);
      x[2 * i + 1] = 3.0;
    }
    return x;
  }
  std::vector<double> initial_algebraic() const {
    if (nz() == 0) return {};
    const auto x = initial_state();
    double sum = 0.0;
    for (int i = 0; i < N_; ++i) sum += x[2 * i];
    return {sum / N_};
  }

  /// The exact pattern: the coupling of each species to its neighbours and to the other
  /// species at the same point (and the algebraic row and column if present).
  esdirk::SparsityPattern pattern() const {
    std::vector<int> rows, cols;
    const int n = size();
    auto add = [&](int i, int j) { rows.push_back(i); cols.push_back(j); };
    for (int i = 0; i < N_; ++i)
      for (int s = 0; s < 2; ++s) {
        const int r = 2 * i + s;
        add(r, 2 * i);
        add(r, 2 * i + 1);
        if (i > 0) add(r, r - 2);
        if (i + 1 < N_) add(r, r + 2);
      }
    if (nz() == 1) {
      for (int i = 0; i < N_; ++i) add(n - 1, 2 * i);
      add(n - 1, n - 1);
    }
    return esdirk::SparsityPattern::from_entries(n, rows, cols);
  }

  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector,
               esdirk::Vector f, esdirk::Vector g) override {
    for (int i = 0; i < N_; ++i) {
      const double u = x[2 * i], v = x[2 * i + 1];
      const double ul = i > 0 ? x[2 * i - 2] : 1.0, ur = i + 1 < N_ ? x[2 * i + 2] : 1.0;
      const double vl = i > 0 ? x[2 * i - 1] : 3.0, vr = i + 1 < N_ ? x[2 * i + 3] : 3.0;
      f[2 * i] = A_ + u * u * v - (B_ + 1.0) * u + c_ * (ul - 2.0 * u + ur);
      f[2 * i + 1] = B_ * u - u * u * v + c_ * (vl - 2.0 * v + vr);
    }
    if (nz() == 1) {
      double sum = 0.0;
      for (int i = 0; i < N_; ++i) sum += x[2 * i];
      g[0] = z[0] - sum / N_;
    }
    return 0;
  }

  bool has_sparse_jacobian() const override { return analytic_; }
  int sparse_jacobian(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
                      esdirk::SparseMatrixRef J) override {
    for (int i = 0; i < N_; ++i) {
      const double u = x[2 * i], v = x[2 * i + 1];
      const int ru = 2 * i, rv = 2 * i + 1;
      J.at(ru, ru) = 2.0 * u * v - (B_ + 1.0) - 2.0 * c_;
      J.at(ru, rv) = u * u;
      J.at(rv, ru) = B_ - 2.0 * u * v;
      J.at(rv, rv) = -u * u - 2.0 * c_;
      if (i > 0) {
        J.at(ru, ru - 2) = c_;
        J.at(rv, rv - 2) = c_;
      }
      if (i + 1 < N_) {
        J.at(ru, ru + 2) = c_;
        J.at(rv, rv + 2) = c_;
      }
    }
    if (nz() == 1) {
      const int n = size();
      for (int i = 0; i < N_; ++i) J.at(n - 1, 2 * i) = -1.0 / N_;
      J.at(n - 1, n - 1) = 1.0;
    }
    return 0;
  }

 private:
  static constexpr double A_ = 1.0, B_ = 3.0, alpha_ = 1.0 / 50.0;
  int N_;
  double c_;
  bool analytic_;
};

}  // namespace test_problems
