#pragma once
// Robertson's chemical kinetics (ROBER of the Bari/CWI test set), as a stiff ODE and as an
// index-1 DAE (the y3 equation replaced by the mass balance y1 + y2 + y3 = 1).

#include <array>

#include "esdirk/problem.hpp"

namespace robertson {

inline constexpr double t_end = 1e11;
/// Published reference values at t = 1e11.
inline constexpr std::array<double, 3> reference = {0.2083340149701255e-07, 0.8333360770334713e-13,
                                                    0.9999999791665050};

class Ode : public esdirk::Problem {
 public:
  Ode() : Problem(3, 0, 0) {}
  int evaluate(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::Vector f, esdirk::Vector) override {
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[2] = 3e7 * y[1] * y[1];
    f[1] = -f[0] - f[2];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector y, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::MatrixRef J) override {
    J(0, 0) = -0.04;
    J(0, 1) = 1e4 * y[2];
    J(0, 2) = 1e4 * y[1];
    J(2, 0) = 0.0;
    J(2, 1) = 6e7 * y[1];
    J(2, 2) = 0.0;
    for (int j = 0; j < 3; ++j) J(1, j) = -J(0, j) - J(2, j);
    return 0;
  }
};

/// x = (y1, y2), z = (y3).
class Dae : public esdirk::Problem {
 public:
  Dae() : Problem(2, 1, 0) {}
  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector,
               esdirk::Vector f, esdirk::Vector g) override {
    f[0] = -0.04 * x[0] + 1e4 * x[1] * z[0];
    f[1] = 0.04 * x[0] - 1e4 * x[1] * z[0] - 3e7 * x[1] * x[1];
    g[0] = x[0] + x[1] + z[0] - 1.0;
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector,
               esdirk::MatrixRef J) override {
    J(0, 0) = -0.04;
    J(0, 1) = 1e4 * z[0];
    J(0, 2) = 1e4 * x[1];
    J(1, 0) = 0.04;
    J(1, 1) = -1e4 * z[0] - 6e7 * x[1];
    J(1, 2) = -1e4 * x[1];
    J(2, 0) = 1.0;
    J(2, 1) = 1.0;
    J(2, 2) = 1.0;
    return 0;
  }
};

}  // namespace robertson
