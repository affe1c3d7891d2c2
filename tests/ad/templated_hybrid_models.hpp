#pragma once
// Hybrid models written once as templates (esdirk::ad::HybridModelProblem): the twins of the
// hand-Jacobian examples bouncing_ball and em_oscillator, line by line, and a model whose event
// functions, reset and parameter reset read every argument (t, x, z, p, memory), for the
// comparison with central differences.

#include <cmath>
#include <numbers>
#include <span>

#include "esdirk/events/hybrid_problem.hpp"

namespace templated_hybrid {

template <class T>
using In = std::span<const T>;
template <class T>
using Out = std::span<T>;

/// examples/bouncing_ball: x = (z, v), p = (g, gamma); the impact z = 0, v+ = -gamma v-.
struct BouncingBall {
  template <class T>
  int f(int, double, In<T> x, In<T>, In<T> p, In<T>, Out<T> f) const {
    f[0] = x[1];
    f[1] = -p[0];
    return 0;
  }
  template <class T>
  int events(int, T, In<T> x, In<T>, In<T>, In<T>, Out<T> h) const {
    h[0] = x[0];
    return 0;
  }
  template <class T>
  int transition(int, const esdirk::TransitionCause&, T, In<T> x, In<T>, In<T> p, In<T>, int&,
                 Out<T> x_plus) const {
    x_plus[0] = x[0];
    x_plus[1] = -p[1] * x[1];
    return 0;
  }
};

/// examples/em_oscillator: x = (u, v, q), z = (z), memory (u*, v*, q*, z*), p = (k_a, k_b,
/// alpha, beta); the mode is xi = sign(v). sigma written once: AD gives sigma_u, sigma_u*,
/// sigma_z* and sigma_p that the hand model derives by hand.
struct EmOscillator {
  static constexpr double delta = 1e-20, mass = 1.0, area = 1.0;
  bool has_mode(int mode) const { return mode == 1 || mode == -1; }
  template <class T>
  static T sigma(int xi, const T& u, const T& ustar, const T& zstar, In<T> p) {
    using std::exp;
    using std::sinh;
    const T &ka = p[0], &kb = p[1], &al = p[2], &be = p[3];
    const auto phi = [&](const T& w) { return -2.0 * be * w + 2.0 * sinh(be * w) + kb * w; };
    const T c = (ka - kb + delta) / (2.0 * al);
    const T Q = phi(ustar) + xi * c - zstar;
    const T e = exp(-al * xi * (u - ustar));
    return phi(u) - Q * e + xi * c;
  }
  template <class T>
  int f(int, double t, In<T> x, In<T> z, In<T>, In<T>, Out<T> f) const {
    f[0] = x[1];
    f[1] = (-area * z[0] + 0.5 * t * std::sin(2.0 * std::numbers::pi * t)) / mass;
    f[2] = x[0] * x[0];
    return 0;
  }
  template <class T>
  int g(int mode, double, In<T> x, In<T> z, In<T> p, In<T> mem, Out<T> g) const {
    g[0] = z[0] - sigma(mode, x[0], mem[0], mem[3], p);
    return 0;
  }
  template <class T>
  int events(int, T, In<T> x, In<T>, In<T>, In<T>, Out<T> h) const {
    h[0] = x[1];
    return 0;
  }
  template <class T>
  int transition(int mode, const esdirk::TransitionCause&, T, In<T>, In<T>, In<T>, In<T>, int& next_mode,
                 Out<T>) const {
    next_mode = -mode;
    return 0;
  }
};

/// nx = 2, nz = 1, np = 2, two event functions, memory (3): every Jacobian has entries in every
/// column block [t | x | z | p | mem]; modes 0 and 1 alternate.
struct EveryArgument {
  template <class T>
  int f(int mode, double t, In<T> x, In<T> z, In<T> p, In<T> mem, Out<T> f) const {
    using std::sin;
    f[0] = -p[0] * x[0] + std::sin(t) * z[0] * mem[0] + mode;
    f[1] = x[0] * x[1] - p[1] * mem[1];
    return 0;
  }
  template <class T>
  int g(int, double, In<T> x, In<T> z, In<T> p, In<T> mem, Out<T> g) const {
    g[0] = z[0] - x[0] * x[0] - p[1] * mem[2];
    return 0;
  }
  template <class T>
  int events(int, T t, In<T> x, In<T> z, In<T> p, In<T> mem, Out<T> h) const {
    using std::exp;
    h[0] = x[0] - 0.5 - 0.1 * t + p[0] * z[0] * mem[1];
    h[1] = exp(x[1]) * p[1] - t * t * mem[0];
    return 0;
  }
  template <class T>
  int transition(int mode, const esdirk::TransitionCause&, T t, In<T> x, In<T> z, In<T> p, In<T> mem,
                 int& next_mode, Out<T> x_plus) const {
    using std::cos;
    next_mode = 1 - mode;
    x_plus[0] = x[0] * cos(t) + z[0] * p[0] + mem[2];  // x_plus[1] stays x1-
    return 0;
  }
  template <class T>
  int reset_parameters(int, const esdirk::TransitionCause&, T t, In<T> x, In<T>, In<T> p, In<T> mem,
                       Out<T> p_plus) const {
    p_plus[0] = p[0] * (1.0 + x[1] * x[1]) + t * mem[0];  // p_plus[1] stays p1-
    return 0;
  }
};

}  // namespace templated_hybrid
