#pragma once
// An index-1 DAE with a mode switch where the algebraic state jumps: a tank drains through a
// valve whose flow law changes when the flow falls to a threshold,
//
//     x' = -z                     level x, outflow z
//     0  = z - a x     (mode 0)   laminar law
//     0  = z - b x^2   (mode 1)   the second law, after the flow fell to c
//
// event h = z - c (falling) in mode 0, identity reset: x is continuous, z jumps from c to
// b (c/a)^2 and is re-initialized from g of mode 1. Parameters p = (a, b, c). The event
// function depends on z, so D_h needs z' = -g_z^{-1}(g_x f + g_t).
//
// Closed form: mode 0 x = x0 e^{-a t} until t1 = ln(a x0 / c)/a (x1 = c/a); mode 1
// x = x1 / (1 + b x1 (t - t1)), z = b x^2.

#include <cmath>

#include "bouncing_ball/dual.hpp"
#include "esdirk/events/hybrid_problem.hpp"

namespace tank_switch {

inline constexpr double x0 = 4.0, a = 1.0, b = 0.5, c = 1.0, t_end = 4.0;

class Model : public esdirk::HybridProblem {
 public:
  Model() : HybridProblem(1, 1, 3, 1) {}
  bool has_mode(int mode) const override { return mode == 0 || mode == 1; }

  int evaluate(int mode, double, esdirk::ConstVector x, esdirk::ConstVector z,
               esdirk::ConstVector p, esdirk::ConstVector, esdirk::Vector f,
               esdirk::Vector g) override {
    f[0] = -z[0];
    g[0] = mode == 0 ? z[0] - p[0] * x[0] : z[0] - p[1] * x[0] * x[0];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(int mode, double, esdirk::ConstVector x, esdirk::ConstVector,
               esdirk::ConstVector p, esdirk::ConstVector, esdirk::MatrixRef J) override {
    J(0, 0) = 0.0;
    J(0, 1) = -1.0;
    J(1, 0) = mode == 0 ? -p[0] : -2.0 * p[1] * x[0];
    J(1, 1) = 1.0;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(int mode, double, esdirk::ConstVector x, esdirk::ConstVector,
                         esdirk::ConstVector, esdirk::ConstVector, esdirk::MatrixRef Jp) override {
    Jp.fill(0.0);
    if (mode == 0) Jp(1, 0) = -x[0];
    else Jp(1, 1) = -x[0] * x[0];
    return 0;
  }

  int events(int mode, double, esdirk::ConstVector, esdirk::ConstVector z, esdirk::ConstVector p,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = mode == 0 ? z[0] - p[2] : -1.0;  // no further event in mode 1
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next,
                 esdirk::Vector) override {
    next = 1;
    return 0;
  }
};

/// The exact solution at t (after the switch) for any number type.
template <class T>
struct Exact {
  T t1, x, z;
};

template <class T>
Exact<T> exact(const T& x_start, const T& pa, const T& pb, const T& pc, double t) {
  using std::log;
  Exact<T> out;
  out.t1 = log(pa * x_start / pc) / pa;
  const T x1 = pc / pa;
  out.x = x1 / (1.0 + pb * x1 * (t - out.t1));
  out.z = pb * out.x * out.x;
  return out;
}

}  // namespace tank_switch
