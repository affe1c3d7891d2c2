#pragma once
// Serban & Recuero, "Sensitivity Analysis for Hybrid Systems and Systems with Memory"
// (TR-2019-01), section 5.1: x' = 4 - x while x^3 - 5x^2 + 7x <= p (mode A = 0), x' = 10 - 2x
// otherwise (mode B = 1), x(0) = 0, p = 2.9; the event function h = x^3 - 5x^2 + 7x - p, the
// identity reset. A second state q' = x carries the output G = q(5) = int_0^5 x dt, so that its
// sensitivity (with the Leibniz term of a jumping integrand, zero here) comes with the jumps.

#include "esdirk/events/hybrid_problem.hpp"

namespace hybrid_ode {

inline constexpr int mode_a = 0, mode_b = 1;
inline constexpr double nominal_p = 2.9, t_end = 5.0;

inline double cubic(double x) { return ((x - 5.0) * x + 7.0) * x; }
inline double cubic_slope(double x) { return (3.0 * x - 10.0) * x + 7.0; }

class Model : public esdirk::HybridProblem {
 public:
  Model() : HybridProblem(2, 0, 1, 1) {}

  bool has_mode(int mode) const override { return mode == mode_a || mode == mode_b; }

  int evaluate(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = mode == mode_a ? 4.0 - x[0] : 10.0 - 2.0 * x[0];
    f[1] = x[0];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(int mode, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector, esdirk::MatrixRef J) override {
    J.fill(0.0);
    J(0, 0) = mode == mode_a ? -1.0 : -2.0;
    J(1, 0) = 1.0;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(int, double, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::ConstVector, esdirk::ConstVector, esdirk::MatrixRef Jp) override {
    Jp.fill(0.0);  // f does not depend on p: without the jumps s stays 0 (the report's footnote)
    return 0;
  }

  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = cubic(x[0]) - p[0];
    return 0;
  }
  bool has_event_jacobian() const override { return true; }
  int event_jacobian(int, int, double, esdirk::ConstVector x, esdirk::ConstVector,
                     esdirk::ConstVector, esdirk::ConstVector, esdirk::Vector row) override {
    // [h_t, h_x, h_q, h_p]
    row[0] = 0.0;
    row[1] = cubic_slope(x[0]);
    row[2] = 0.0;
    row[3] = -1.0;
    return 0;
  }

  // Rising through h = 0 enters B, falling enters A; x is continuous.
  int transition(int, const esdirk::TransitionCause& cause, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next_mode,
                 esdirk::Vector) override {
    next_mode = cause.fired[0] > 0 ? mode_b : mode_a;
    return 0;
  }
  bool has_reset_jacobian() const override { return true; }
  int reset_jacobian(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                     esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                     esdirk::MatrixRef D) override {
    D.fill(0.0);  // identity in (x, q)
    D(0, 1) = 1.0;
    D(1, 2) = 1.0;
    return 0;
  }
};

}  // namespace hybrid_ode
