#pragma once
// Hessenberg index 2, q' = f(t, q, u), 0 = g(t, q) with g_q f_u invertible, reduced to index 1
// by differentiating the constraint once: phi(q, u) = g_q(q) f(q, u) (Tran & Leok Example
// 2.1). The reduced problem is an esdirk::Problem for TypeTwoStep and GeometricAdjoint. What this
// gives, and what not (doc/geometric-adjoint-theory.md):
// - only the tangential part of p_0 is meaningful (pairings <p_0, dq_0> with g_q dq_0 = 0);
// - g(q_n) = 0 is a first integral of the reduced system, kept by the Runge-Kutta map exactly
//   only when g is linear, or quadratic with a symplectic method (Gauss); otherwise it drifts
//   like O(h^p). No projection is done.

#include <functional>

#include "esdirk/export.hpp"
#include "esdirk/problem.hpp"

namespace esdirk::geometric {

class ESDIRK_API Index2Reduction final : public Problem {
 public:
  /// f (nx values).
  using Rhs = std::function<int(double t, ConstVector q, ConstVector u, Vector f)>;
  /// f_q (nx x nx) and f_u (nx x nu).
  using RhsJacobian =
      std::function<int(double t, ConstVector q, ConstVector u, MatrixRef fq, MatrixRef fu)>;
  /// g_q (nu x nx): the constraint's Jacobian (g itself is not needed by the reduction).
  using ConstraintJacobian = std::function<int(double t, ConstVector q, MatrixRef gq)>;
  /// d/dq (g_q(q) v) for a fixed vector v (nu x nx): the second derivatives g_qq[v].
  using Curvature = std::function<int(double t, ConstVector q, ConstVector v, MatrixRef out)>;

  /// nu algebraic variables (as many as constraints). Without `rhs_jacobian` and `curvature`
  /// the Jacobian of the reduced problem is formed by finite differences. Throws
  /// std::invalid_argument for nx < 1, nu < 1 or a missing f / g_q.
  Index2Reduction(int nx, int nu, Rhs f, ConstraintJacobian gq, RhsJacobian rhs_jacobian = {},
                  Curvature curvature = {});

  int evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f, Vector g) override;
  bool has_jacobian() const override { return rhs_jacobian_ && curvature_; }
  /// [f_q, f_u; g_qq[f] + g_q f_q, g_q f_u].
  int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) override;

 private:
  Rhs f_;
  ConstraintJacobian gq_;
  RhsJacobian rhs_jacobian_;
  Curvature curvature_;
  DenseMatrix gq_buffer_, fq_, fu_, curvature_buffer_;
  std::vector<double> f_buffer_;
};

}  // namespace esdirk::geometric
