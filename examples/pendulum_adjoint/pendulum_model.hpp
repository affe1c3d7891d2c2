#pragma once
// The planar pendulum of Tran & Leok, "Geometric Methods for Adjoint Systems", §3.2.2, as an
// index-1 DAE with m = g = L = 1: q = (x, v_x), u = (y, v_y, rho); f = (v_x, rho x);
// phi = (x^2 + y^2 - 1, v_x x + v_y y, v_x^2 + v_y^2 - y + rho). det phi_u = 2 y^2, so the DAE
// is index 1 away from y = 0. Used by the example, the geometric tests and bench_geometric.

#include "esdirk/problem.hpp"

namespace pendulum_dae {

inline esdirk::FunctionProblem pendulum() {
  using esdirk::ConstVector;
  using esdirk::MatrixRef;
  using esdirk::Vector;
  esdirk::FunctionProblem p(
      2, 3, 0,
      [](double, ConstVector q, ConstVector u, ConstVector, Vector f) {
        f[0] = q[1];
        f[1] = u[2] * q[0];
        return 0;
      },
      [](double, ConstVector q, ConstVector u, ConstVector, Vector phi) {
        phi[0] = q[0] * q[0] + u[0] * u[0] - 1.0;
        phi[1] = q[1] * q[0] + u[1] * u[0];
        phi[2] = q[1] * q[1] + u[1] * u[1] - u[0] + u[2];
        return 0;
      });
  p.set_jacobian([](double, ConstVector q, ConstVector u, ConstVector, MatrixRef J) {
    for (int c = 0; c < 5; ++c)
      for (int r = 0; r < 5; ++r) J(r, c) = 0.0;
    J(0, 1) = 1.0;
    J(1, 0) = u[2], J(1, 4) = q[0];
    J(2, 0) = 2 * q[0], J(2, 2) = 2 * u[0];
    J(3, 0) = q[1], J(3, 1) = q[0], J(3, 2) = u[1], J(3, 3) = u[0];
    J(4, 1) = 2 * q[1], J(4, 2) = -1.0, J(4, 3) = 2 * u[1], J(4, 4) = 1.0;
    return 0;
  });
  return p;
}

}  // namespace pendulum_dae
