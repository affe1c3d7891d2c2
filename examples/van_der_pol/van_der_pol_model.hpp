#pragma once
// Van der Pol's oscillator in the stiff scaling of the Bari/CWI test set (VDPOL):
// y1' = y2, y2' = ((1 - y1^2) y2 - y1) / eps, y(0) = (2, 0), t in [0, 2].

#include <array>

#include "esdirk/problem.hpp"

namespace van_der_pol {

inline constexpr double t_end = 2.0;
/// Published reference values at t = 2 for eps = 1e-6.
inline constexpr std::array<double, 2> reference = {1.706167732170483, -0.8928097010247975};

class Model : public esdirk::Problem {
 public:
  explicit Model(double eps = 1e-6) : Problem(2, 0, 0), eps_(eps) {}
  int evaluate(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::Vector f, esdirk::Vector) override {
    f[0] = y[1];
    f[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / eps_;
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::MatrixRef J) override {
    J(0, 0) = 0.0;
    J(0, 1) = 1.0;
    J(1, 0) = (-2.0 * y[0] * y[1] - 1.0) / eps_;
    J(1, 1) = (1.0 - y[0] * y[0]) / eps_;
    return 0;
  }

 private:
  double eps_;
};

}  // namespace van_der_pol
