#pragma once
// A stiff reaction-diffusion chain with nx states and np distributed parameters (controls), for
// the benchmarks whose cost depends on nx and np:
//     x_i' = D (n+1)^2 (x_{i-1} - 2 x_i + x_{i+1}) - x_i^2 + u_{j(i)},   D = 0.1, x_0 = x_{n+1} = 0,
// node i driven by parameter j(i) = i * np / n; analytic Jacobian and parameter Jacobian. The
// running cost h = |x|^2 / n + |u|^2 (chain_cost, a RunningCost).

#include <cstddef>
#include <span>

#include "esdirk/problem.hpp"

namespace bench {

class Chain final : public esdirk::Problem {
 public:
  Chain(int n, int nu) : Problem(n, 0, nu), n_(n), nu_(nu), d_(0.1 * (n + 1.0) * (n + 1.0)) {}
  int control_of(int i) const { return i * nu_ / n_; }
  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector u,
               esdirk::Vector f, esdirk::Vector) override {
    for (int i = 0; i < n_; ++i) {
      const double left = i > 0 ? x[i - 1] : 0.0, right = i + 1 < n_ ? x[i + 1] : 0.0;
      f[i] = d_ * (left - 2.0 * x[i] + right) - x[i] * x[i] + u[control_of(i)];
    }
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::MatrixRef J) override {
    J.fill(0.0);
    for (int i = 0; i < n_; ++i) {
      J(i, i) = -2.0 * d_ - 2.0 * x[i];
      if (i > 0) J(i, i - 1) = d_;
      if (i + 1 < n_) J(i, i + 1) = d_;
    }
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    Jp.fill(0.0);
    for (int i = 0; i < n_; ++i) Jp(i, control_of(i)) = 1.0;
    return 0;
  }

 private:
  int n_, nu_;
  double d_;
};

/// The same chain written once as a template (doc/ad-guide.md): esdirk::ad::ModelProblem
/// derives J exactly by forward mode and the adjoint's parameter terms w^T f_p by reverse mode,
/// whatever np.
struct ChainModel {
  int n = 1, nu = 1;
  double d = 0.1 * 4.0;
  ChainModel() = default;
  ChainModel(int states, int controls) : n(states), nu(controls), d(0.1 * (states + 1.0) * (states + 1.0)) {}
  template <class T>
  int f(double, std::span<const T> x, std::span<const T>, std::span<const T> u, std::span<T> f) const {
    for (int i = 0; i < n; ++i) {
      const T left = i > 0 ? x[i - 1] : T(0.0), right = i + 1 < n ? x[i + 1] : T(0.0);
      f[i] = d * (left - 2.0 * x[i] + right) - x[i] * x[i] + u[i * nu / n];
    }
    return 0;
  }
};

inline int chain_cost(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector u, double& h,
         esdirk::Vector hx, esdirk::Vector, esdirk::Vector hu) {
  const double n = static_cast<double>(x.size());
  h = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    h += x[i] * x[i] / n;
    hx[i] = 2.0 * x[i] / n;
  }
  for (std::size_t j = 0; j < u.size(); ++j) {
    h += u[j] * u[j];
    hu[j] = 2.0 * u[j];
  }
  return 0;
}

}  // namespace bench
