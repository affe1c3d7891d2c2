#pragma once
// The Dow Chemical batch reactor (Caracotsios & Stewart 1985; Kristensen et al., IFAC 2005, section 5): 6
// differential and 4 algebraic equations, 9 kinetic parameters. Concentrations in mol/kg, time
// in hours. Equations, parameters and initial values as in the project's reference (dow.md).

#include <array>
#include <cmath>
#include <string>

#include "esdirk/options.hpp"
#include "esdirk/problem.hpp"

namespace dow {

// Parameter order: k1, k-1, k2, k3, k-3, K1, K2, K3, Q+.
inline constexpr std::array<double, 9> nominal_parameters = {21.893, 2.14e9, 32.318, 21.893, 1.07e9,
                                                             7.65e-18, 4.03e-11, 5.32e-18, 0.0131};
inline constexpr std::array<const char*, 9> parameter_names = {"k1", "km1", "k2", "k3", "km3",
                                                               "K1", "K2", "K3", "Qp"};
inline constexpr std::array<const char*, 10> state_names = {"u1 [HA]",   "u2 [BM]",  "u3 [HABM]",
                                                            "u4 [AB]",   "u5 [MBMH]", "u6 [M-]",
                                                            "u7 [H+]",   "u8 [A-]",   "u9 [ABM-]",
                                                            "u10 [MBM-]"};

inline constexpr std::array<double, 6> initial_states = {1.5776, 8.32, 0.0, 0.0, 0.0, 0.0131};
/// The consistent algebraic start of the reference: u9 = u10 = 0, u7 = u8 = 2 K2 u1 /
/// (K2 + sqrt(K2^2 + 4 K2 u1)).
inline std::array<double, 4> consistent_algebraic_start() {
  const double K2 = nominal_parameters[6], u1 = initial_states[0];
  const double h = 2.0 * K2 * u1 / (K2 + std::sqrt(K2 * K2 + 4.0 * K2 * u1));
  return {h, h, 0.0, 0.0};
}

/// Reference solution at t = 10 h (independent Radau IIA and ESDIRK34 runs, ~10 digits).
inline constexpr std::array<double, 10> reference_at_10h = {
    3.2064722102918803e-04, 5.7069094224017460,     5.4146936066416729e-01, 1.0358099921148016,
    1.0358112248192761,     1.3098767295526429e-02, 1.0363738546285758e-08, 1.2420256758938535e-06,
    2.7795153113806088e-10, 7.6458469389487263e-10};

/// Absolute tolerances of the algebraic states: [H+] ~ 1e-8 and u9, u10 ~ 1e-10, so these set
/// the accuracy of the Newton iteration on z.
inline constexpr std::array<double, 4> algebraic_atol = {1e-14, 1e-14, 1e-16, 1e-16};

/// The benchmark's options: atol = 1e-6 rtol for the O(1) concentrations (u3..u5 start at
/// zero), algebraic_atol for z.
inline esdirk::Options benchmark_options(double rtol) {
  esdirk::Options options;
  options.rtol = rtol;
  options.atol = 1e-6 * rtol;
  options.algebraic_atol.assign(algebraic_atol.begin(), algebraic_atol.end());
  return options;
}

class Model : public esdirk::Problem {
 public:
  Model() : Problem(6, 4, 9) {}

  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector g) override {
    const double u1 = x[0], u2 = x[1], u3 = x[2], u4 = x[3], u5 = x[4], u6 = x[5];
    const double u7 = z[0], u8 = z[1], u9 = z[2], u10 = z[3];
    const double k1 = p[0], km1 = p[1], k2 = p[2], k3 = p[3], km3 = p[4];
    const double K1 = p[5], K2 = p[6], K3 = p[7], Qp = p[8];
    // [H+] must stay positive: the algebraic equations have a second, non-physical root with
    // u7 ~ -Q+. Reporting a recoverable failure there makes the integrator retry the step
    // with a smaller h instead of following the wrong branch.
    if (!(u7 > 0.0)) return 1;
    f[0] = -k2 * u2 * u8;
    f[1] = -k1 * u2 * u6 + km1 * u10 - k2 * u2 * u8;
    f[2] = k2 * u2 * u8 + k3 * u4 * u6 - km3 * u9;
    f[3] = -k3 * u4 * u6 + km3 * u9;
    f[4] = k1 * u2 * u6 - km1 * u10;
    f[5] = -k1 * u2 * u6 - k3 * u4 * u6 + km1 * u10 + km3 * u9;
    g[0] = -Qp + u6 + u8 + u9 + u10 - u7;
    g[1] = u8 - K2 * u1 / (K2 + u7);
    g[2] = u9 - K3 * u3 / (K3 + u7);
    g[3] = u10 - K1 * u5 / (K1 + u7);
    return 0;
  }

  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::MatrixRef J) override {
    const double u1 = x[0], u2 = x[1], u3 = x[2], u4 = x[3], u5 = x[4], u6 = x[5];
    const double u7 = z[0], u8 = z[1];
    const double k1 = p[0], km1 = p[1], k2 = p[2], k3 = p[3], km3 = p[4];
    const double K1 = p[5], K2 = p[6], K3 = p[7];
    J.fill(0.0);
    // columns: 0..5 = u1..u6, 6..9 = u7..u10; rows: 0..5 = f1..f6, 6..9 = g1..g4
    J(0, 1) = -k2 * u8;
    J(0, 7) = -k2 * u2;
    J(1, 1) = -k1 * u6 - k2 * u8;
    J(1, 5) = -k1 * u2;
    J(1, 7) = -k2 * u2;
    J(1, 9) = km1;
    J(2, 1) = k2 * u8;
    J(2, 3) = k3 * u6;
    J(2, 5) = k3 * u4;
    J(2, 7) = k2 * u2;
    J(2, 8) = -km3;
    J(3, 3) = -k3 * u6;
    J(3, 5) = -k3 * u4;
    J(3, 8) = km3;
    J(4, 1) = k1 * u6;
    J(4, 5) = k1 * u2;
    J(4, 9) = -km1;
    J(5, 1) = -k1 * u6;
    J(5, 3) = -k3 * u6;
    J(5, 5) = -k1 * u2 - k3 * u4;
    J(5, 8) = km3;
    J(5, 9) = km1;
    J(6, 5) = 1.0;
    J(6, 6) = -1.0;
    J(6, 7) = 1.0;
    J(6, 8) = 1.0;
    J(6, 9) = 1.0;
    J(7, 0) = -K2 / (K2 + u7);
    J(7, 6) = K2 * u1 / ((K2 + u7) * (K2 + u7));
    J(7, 7) = 1.0;
    J(8, 2) = -K3 / (K3 + u7);
    J(8, 6) = K3 * u3 / ((K3 + u7) * (K3 + u7));
    J(8, 8) = 1.0;
    J(9, 4) = -K1 / (K1 + u7);
    J(9, 6) = K1 * u5 / ((K1 + u7) * (K1 + u7));
    J(9, 9) = 1.0;
    return 0;
  }

  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector x, esdirk::ConstVector z,
                         esdirk::ConstVector p, esdirk::MatrixRef Jp) override {
    const double u1 = x[0], u2 = x[1], u3 = x[2], u4 = x[3], u5 = x[4], u6 = x[5];
    const double u7 = z[0], u8 = z[1], u9 = z[2], u10 = z[3];
    const double K1 = p[5], K2 = p[6], K3 = p[7];
    Jp.fill(0.0);
    // columns: k1, km1, k2, k3, km3, K1, K2, K3, Qp
    Jp(0, 2) = -u2 * u8;
    Jp(1, 0) = -u2 * u6;
    Jp(1, 1) = u10;
    Jp(1, 2) = -u2 * u8;
    Jp(2, 2) = u2 * u8;
    Jp(2, 3) = u4 * u6;
    Jp(2, 4) = -u9;
    Jp(3, 3) = -u4 * u6;
    Jp(3, 4) = u9;
    Jp(4, 0) = u2 * u6;
    Jp(4, 1) = -u10;
    Jp(5, 0) = -u2 * u6;
    Jp(5, 1) = u10;
    Jp(5, 3) = -u4 * u6;
    Jp(5, 4) = u9;
    Jp(6, 8) = -1.0;
    Jp(7, 6) = -u1 * u7 / ((K2 + u7) * (K2 + u7));
    Jp(8, 7) = -u3 * u7 / ((K3 + u7) * (K3 + u7));
    Jp(9, 5) = -u5 * u7 / ((K1 + u7) * (K1 + u7));
    return 0;
  }

  std::string state_name(int i) const override { return state_names[static_cast<std::size_t>(i)]; }
  std::string equation_name(int i) const override {
    std::string name = i < 6 ? "du" : "g";
    name += std::to_string(i < 6 ? i + 1 : i - 5);
    if (i < 6) name += "/dt";
    return name;
  }
  std::string parameter_name(int i) const override { return parameter_names[static_cast<std::size_t>(i)]; }
};

/// The three linear invariants (exact for any Runge-Kutta method):
/// u1 + u3 + u4 = 1.5776, u2 + u3 + u4 + u5 = 8.32, u5 + u6 - u4 = 0.0131.
inline std::array<double, 3> invariants(esdirk::ConstVector x) {
  return {x[0] + x[2] + x[3], x[1] + x[2] + x[3] + x[4], x[4] + x[5] - x[3]};
}
inline constexpr std::array<double, 3> invariant_values = {1.5776, 8.32, 0.0131};

}  // namespace dow
