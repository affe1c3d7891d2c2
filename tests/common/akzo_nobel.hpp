#pragma once
// Chemical Akzo Nobel problem (CHEMAKZO of the Bari/CWI test set): 5 differential + 1 algebraic
// equation, t in [0, 180]. Jacobian by finite differences (the integrator's fallback).

#include <array>
#include <cmath>

#include "esdirk/problem.hpp"

namespace akzo_nobel {

inline constexpr double t_end = 180.0;
inline constexpr double Ks = 115.83;
inline constexpr std::array<double, 5> initial_states = {0.444, 0.00123, 0.0, 0.007, 0.0};
inline constexpr double initial_algebraic = Ks * 0.444 * 0.007;
inline constexpr std::array<double, 6> reference = {0.1150794920661702,    0.1203831471567715e-2,
                                                    0.1611562887407974,    0.3656156421249283e-3,
                                                    0.1708010885264404e-1, 0.4873531310307455e-2};

class Model : public esdirk::Problem {
 public:
  Model() : Problem(5, 1, 0) {}
  int evaluate(double, esdirk::ConstVector y, esdirk::ConstVector z, esdirk::ConstVector,
               esdirk::Vector f, esdirk::Vector g) override {
    const double k1 = 18.7, k2 = 0.58, k3 = 0.09, k4 = 0.42, K = 34.4, klA = 3.3, pCO2 = 0.9,
                 H = 737.0;
    if (y[1] < 0.0) return 1;  // sqrt(y2): outside the model's domain, retry with a smaller step
    const double y6 = z[0];
    const double r1 = k1 * std::pow(y[0], 4) * std::sqrt(y[1]);
    const double r2 = k2 * y[2] * y[3];
    const double r3 = k2 / K * y[0] * y[4];
    const double r4 = k3 * y[0] * y[3] * y[3];
    const double r5 = k4 * y6 * y6 * std::sqrt(y[1]);
    const double Fin = klA * (pCO2 / H - y[1]);
    f[0] = -2.0 * r1 + r2 - r3 - r4;
    f[1] = -0.5 * r1 - r4 - 0.5 * r5 + Fin;
    f[2] = r1 - r2 + r3;
    f[3] = -r2 + r3 - 2.0 * r4;
    f[4] = r2 - r3 + r5;
    g[0] = Ks * y[0] * y[3] - y6;
    return 0;
  }
};

}  // namespace akzo_nobel
