#pragma once
// The Dow reactor with log-scaled parameters theta = log p: the nine kinetic constants span
// 27 orders of magnitude (K1 = 7.65e-18 ... km1 = 2.14e9), so an estimator works in log p,
// where "50 % off" and a standard deviation mean the same for every parameter. The parameter
// Jacobian is the model's times p (d/dtheta = p d/dp).

#include <cmath>
#include <memory>

#include "../dow/dow_model.hpp"

namespace dow {

class LogModel : public esdirk::Problem {
 public:
  LogModel() : Problem(6, 4, 9) {}
  int evaluate(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector theta,
               esdirk::Vector f, esdirk::Vector g) override {
    return model_.evaluate(t, x, z, to_p(theta), f, g);
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector theta,
               esdirk::MatrixRef J) override {
    return model_.jacobian(t, x, z, to_p(theta), J);
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z,
                         esdirk::ConstVector theta, esdirk::MatrixRef Jp) override {
    const esdirk::ConstVector p = to_p(theta);
    const int code = model_.parameter_jacobian(t, x, z, p, Jp);
    for (int j = 0; j < 9; ++j)
      for (int i = 0; i < 10; ++i) Jp(i, j) *= p[static_cast<std::size_t>(j)];
    return code;
  }

 private:
  esdirk::ConstVector to_p(esdirk::ConstVector theta) {
    for (std::size_t j = 0; j < 9; ++j) p_[j] = std::exp(theta[j]);
    return p_;
  }
  Model model_;
  std::array<double, 9> p_{};
};

/// The consistent algebraic states for differential states x and parameters p: [H+] = u7 is
/// the positive root of the electroneutrality equation with u8, u9, u10 eliminated (bisection
/// in log u7: the residual is decreasing in u7), then u8, u9, u10 from their equilibria.
inline std::array<double, 4> consistent_algebraic(const double* x, const double* p) {
  const double K1 = p[5], K2 = p[6], K3 = p[7], Qp = p[8];
  auto residual = [&](double u7) {
    return -Qp + x[5] + K2 * x[0] / (K2 + u7) + K3 * x[2] / (K3 + u7) + K1 * x[4] / (K1 + u7) - u7;
  };
  double lo = -60.0, hi = 2.0;  // log(u7)
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (residual(std::exp(mid)) > 0.0 ? lo : hi) = mid;
  }
  const double u7 = std::exp(0.5 * (lo + hi));
  return {u7, K2 * x[0] / (K2 + u7), K3 * x[2] / (K3 + u7), K1 * x[4] / (K1 + u7)};
}

}  // namespace dow
