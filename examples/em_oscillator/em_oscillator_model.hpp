#pragma once
// Serban & Recuero, "Sensitivity Analysis for Hybrid Systems and Systems with Memory"
// (TR-2019-01), section 5.2: a one-degree-of-freedom oscillator whose internal stress follows the
// exponential hysteresis model (EM) of Vaiana et al., a hybrid index-1 DAE with memory:
//
//     u' = v,   m v' = -A z + f(t),   q' = u^2 (G = q(t_f) = int u^2 dt),   0 = z - sigma(u)
//     f(t) = 0.5 t sin(2 pi t),  m = A = 1,  p = (k_a, k_b, alpha, beta) = (32 pi^2, pi^2, 205, 0)
//
// The mode is xi = sign(v), +1 or -1 (the mode numbers are xi itself); a load reversal is a zero
// crossing of h = v, where xi flips and the memory (u*, v*, q*, z*) is latched (x+, z-). The
// constitutive law (Serban & Recuero 2019, eq. 46) with the derived memory variable u_i* substituted in closed form:
//
//     sigma = phi(u) - Q exp(-alpha xi (u - u*)) + xi c,       phi(u) = -2 beta u + 2 sinh(beta u)
//     + k_b u Q = phi(u*) + xi c - z*,   c = delta/alpha + fbar = (k_a - k_b + delta) / (2 alpha)
//
// This is the report's formula exactly (exp(-alpha(xi(u - u_i*) + 2 u0)) = xi alpha Q exp(-alpha xi
// (u - u*)) / (k_a - k_b) by the definition of u_i*), with the 2 sinh of erratum E10, the internal
// constants u0(p), fbar(p) differentiated through (E11: they drop out into c), and no logarithm
// of a quantity that has to stay positive. sigma(u*) = z* identically, so z is continuous at every
// reversal. The initial mode is xi = +1 with zero memory (E15: v(0) = 0).

#include <cmath>
#include <numbers>
#include <vector>

#include "esdirk/events/hybrid_problem.hpp"

namespace em_oscillator {

inline constexpr int loading = 1, unloading = -1;  // xi = sign(v)
inline constexpr double t_end = 10.0, delta = 1e-20, mass = 1.0, area = 1.0;
inline constexpr double k_a = 32.0 * std::numbers::pi * std::numbers::pi;
inline constexpr double k_b = std::numbers::pi * std::numbers::pi;
inline constexpr double alpha = 205.0, beta = 0.0;

inline double load(double t) { return 0.5 * t * std::sin(2.0 * std::numbers::pi * t); }

// States x = (u, v, q), z = (z), memory (u*, v*, q*, z*), parameters (k_a, k_b, alpha, beta).
struct Law {
  double sigma, sigma_u, sigma_ustar, sigma_zstar, sigma_p[4];
};

inline Law law(int xi, double u, double ustar, double zstar, const double* p) {
  const double ka = p[0], kb = p[1], al = p[2], be = p[3];
  const auto phi = [&](double w) { return -2.0 * be * w + 2.0 * std::sinh(be * w) + kb * w; };
  const auto phi_u = [&](double w) { return -2.0 * be + 2.0 * be * std::cosh(be * w) + kb; };
  const auto phi_beta = [&](double w) { return -2.0 * w + 2.0 * w * std::cosh(be * w); };
  const double c = (ka - kb + delta) / (2.0 * al);
  const double Q = phi(ustar) + xi * c - zstar;
  const double e = std::exp(-al * xi * (u - ustar));
  Law r{};
  r.sigma = phi(u) - Q * e + xi * c;
  r.sigma_u = phi_u(u) + al * xi * Q * e;
  r.sigma_ustar = -e * (phi_u(ustar) + al * xi * Q);
  r.sigma_zstar = e;
  r.sigma_p[0] = xi * (1.0 - e) / (2.0 * al);  // c_ka = 1/(2 alpha)
  r.sigma_p[1] =
      u - (ustar - xi / (2.0 * al)) * e - xi / (2.0 * al);  // phi_kb = u, c_kb = -1/(2 alpha)
  r.sigma_p[2] = xi * c / al * (e - 1.0) + Q * xi * (u - ustar) * e;  // c_alpha = -c/alpha
  r.sigma_p[3] = phi_beta(u) - phi_beta(ustar) * e;
  return r;
}

class Model : public esdirk::HybridProblem {
 public:
  Model() : HybridProblem(/*nx*/ 3, /*nz*/ 1, /*np*/ 4, /*events*/ 1, /*memory*/ true) {}

  bool has_mode(int mode) const override { return mode == loading || mode == unloading; }

  int evaluate(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z,
               esdirk::ConstVector p, esdirk::ConstVector mem, esdirk::Vector f,
               esdirk::Vector g) override {
    f[0] = x[1];
    f[1] = (-area * z[0] + load(t)) / mass;
    f[2] = x[0] * x[0];
    g[0] = z[0] - law(mode, x[0], mem[0], mem[3], p.data()).sigma;
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector mem, esdirk::MatrixRef J) override {
    J.fill(0.0);  // rows (u', v', q', g), columns (u, v, q, z)
    J(0, 1) = 1.0;
    J(1, 3) = -area / mass;
    J(2, 0) = 2.0 * x[0];
    J(3, 0) = -law(mode, x[0], mem[0], mem[3], p.data()).sigma_u;
    J(3, 3) = 1.0;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(int mode, double, esdirk::ConstVector x, esdirk::ConstVector,
                         esdirk::ConstVector p, esdirk::ConstVector mem,
                         esdirk::MatrixRef Jp) override {
    Jp.fill(0.0);  // columns (k_a, k_b, alpha, beta, u*, v*, q*, z*); f reads neither
    const Law s = law(mode, x[0], mem[0], mem[3], p.data());
    for (int k = 0; k < 4; ++k) Jp(3, k) = -s.sigma_p[k];
    Jp(3, 4) = -s.sigma_ustar;
    Jp(3, 7) = -s.sigma_zstar;
    return 0;
  }

  // h = v: a load reversal.
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[1];
    return 0;
  }
  bool has_event_jacobian() const override { return true; }
  int event_jacobian(int, int, double, esdirk::ConstVector, esdirk::ConstVector,
                     esdirk::ConstVector, esdirk::ConstVector, esdirk::Vector row) override {
    for (double& r : row) r = 0.0;
    row[2] = 1.0;  // [h_t, h_u, h_v, h_q, h_z, h_p (4), h_mem (4)]
    return 0;
  }

  // xi flips; u, v, q are continuous (z follows from sigma(u*) = z*).
  int transition(int mode, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next_mode,
                 esdirk::Vector) override {
    next_mode = -mode;
    return 0;
  }
  bool has_reset_jacobian() const override { return true; }
  int reset_jacobian(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                     esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                     esdirk::MatrixRef D) override {
    D.fill(0.0);  // identity in (u, v, q): columns [t, u, v, q, ...]
    for (int i = 0; i < 3; ++i) D(i, 1 + i) = 1.0;
    return 0;
  }
};

/// The nominal parameters (k_a, k_b, alpha, beta).
inline std::vector<double> nominal() { return {k_a, k_b, alpha, beta}; }

}  // namespace em_oscillator
