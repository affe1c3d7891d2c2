#pragma once
// The bouncing ball of Schaefer, "Sensitivity Analysis of Hybrid Differential Equations" (a GSoC
// 2021 post): z' = v, v' = -g, an impact where z falls through 0, and the
// reset v+ = -gamma v-. States x = (z, v), parameters p = (g, gamma). One mode (0).

#include "esdirk/events/hybrid_problem.hpp"

namespace bouncing_ball {

inline constexpr double z0 = 5.0, v0 = -0.1, gravity = 10.0, restitution = 0.8, t_end = 1.9;

class Model : public esdirk::HybridProblem {
 public:
  Model() : HybridProblem(2, 0, 2, 1) {}

  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = x[1];
    f[1] = -p[0];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector, esdirk::MatrixRef J) override {
    J.fill(0.0);
    J(0, 1) = 1.0;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(int, double, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::ConstVector, esdirk::ConstVector, esdirk::MatrixRef Jp) override {
    Jp.fill(0.0);
    Jp(1, 0) = -1.0;
    return 0;
  }

  // h = z: the ground.
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0];
    return 0;
  }
  bool has_event_jacobian() const override { return analytic_; }
  int event_jacobian(int, int, double, esdirk::ConstVector, esdirk::ConstVector,
                     esdirk::ConstVector, esdirk::ConstVector, esdirk::Vector row) override {
    for (double& r : row) r = 0.0;
    row[1] = 1.0;  // [h_t, h_z, h_v, h_g, h_gamma]
    return 0;
  }

  // The impact: z+ = z-, v+ = -gamma v-.
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector x,
                 esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector, int&,
                 esdirk::Vector x_plus) override {
    x_plus[0] = x[0];
    x_plus[1] = -p[1] * x[1];
    return 0;
  }
  bool has_reset_jacobian() const override { return analytic_; }
  int reset_jacobian(int, const esdirk::TransitionCause&, double, esdirk::ConstVector x,
                     esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector,
                     esdirk::MatrixRef D) override {
    D.fill(0.0);  // columns [t, z, v, g, gamma]
    D(0, 1) = 1.0;
    D(1, 2) = -p[1];
    D(1, 4) = -x[1];
    return 0;
  }

  /// false: the event and reset Jacobians are formed by differences (to test that path).
  void use_analytic_event_jacobians(bool analytic) { analytic_ = analytic; }

 private:
  bool analytic_ = true;
};

}  // namespace bouncing_ball
