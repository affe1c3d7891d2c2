#pragma once
// The exothermic CSTR of Seborg et al. (Process Dynamics and Control; Henson & Seborg,
// Nonlinear Process Control): A -> B, first order, in a cooled tank. States x = (C_A
// [mol/L], T [K]), control u = T_c, the coolant temperature [K]; time in minutes.
//
//     C_A' = q/V (C_Af - C_A) - k0 exp(-E/(R T)) C_A
//     T'   = q/V (T_f - T) + (-dH)/(rho C_p) k0 exp(-E/(R T)) C_A + UA/(V rho C_p) (T_c - T)
//
// At T_c = 300 K there are three steady states; the middle one, C_A = 0.5, T = 350 K, is
// open-loop unstable and is the classic set point.

#include <cmath>

#include "esdirk/problem.hpp"

namespace cstr {

inline constexpr double q = 100.0, V = 100.0, CAf = 1.0, Tf = 350.0, k0 = 7.2e10, EoR = 8750.0;
inline constexpr double heat = 5e4 / (1000.0 * 0.239);       // (-dH) / (rho C_p)
inline constexpr double cooling = 5e4 / (V * 1000.0 * 0.239);  // UA / (V rho C_p)

class Model : public esdirk::Problem {
 public:
  Model() : Problem(2, 0, 1) {}
  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector u,
               esdirk::Vector f, esdirk::Vector) override {
    if (!(x[1] > 0.0)) return 1;
    const double k = k0 * std::exp(-EoR / x[1]);
    f[0] = q / V * (CAf - x[0]) - k * x[0];
    f[1] = q / V * (Tf - x[1]) + heat * k * x[0] + cooling * (u[0] - x[1]);
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::MatrixRef J) override {
    const double k = k0 * std::exp(-EoR / x[1]), dk = k * EoR / (x[1] * x[1]);
    J(0, 0) = -q / V - k;
    J(0, 1) = -dk * x[0];
    J(1, 0) = heat * k;
    J(1, 1) = -q / V + heat * dk * x[0] - cooling;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    Jp(0, 0) = 0.0;
    Jp(1, 0) = cooling;
    return 0;
  }
};

}  // namespace cstr
