#pragma once
// Problems and helpers shared by the geometric tests.

#include <cmath>
#include <functional>
#include <ostream>
#include <random>
#include <vector>

#include "esdirk/geometric/diagnostics.hpp"
#include "esdirk/geometric/geometric_adjoint.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/status.hpp"
#include "pendulum_adjoint/pendulum_model.hpp"

namespace esdirk {
/// Lets Boost.Test print a Status in failed checks.
inline std::ostream& boost_test_print_type(std::ostream& os, Status status) {
  return os << status_name(status);
}
}  // namespace esdirk

namespace fixtures {

using esdirk::ConstVector;
using esdirk::MatrixRef;
using esdirk::Vector;
namespace g = esdirk::geometric;

// q' = -q^2 (test T5a of doc/geometric-adjoint-theory.md): q(T) = a / (1 + aT).
inline esdirk::FunctionProblem riccati() {
  esdirk::FunctionProblem p(1, 0, 0, [](double, ConstVector q, ConstVector, ConstVector, Vector f) {
    f[0] = -q[0] * q[0];
    return 0;
  });
  p.set_jacobian([](double, ConstVector q, ConstVector, ConstVector, MatrixRef J) {
    J(0, 0) = -2.0 * q[0];
    return 0;
  });
  return p;
}

// q' = -q^3: q(T) = a / sqrt(1 + 2 a^2 T). The closed forms of T5 use this problem rather than
// q' = -q^2, on which collocation methods superconverge at the end point (Gauss(2) shows
// order 6 there, Radau IIA(3) order 7: the Riccati flow is a Moebius map).
inline esdirk::FunctionProblem cubic() {
  esdirk::FunctionProblem p(1, 0, 0, [](double, ConstVector q, ConstVector, ConstVector, Vector f) {
    f[0] = -q[0] * q[0] * q[0];
    return 0;
  });
  p.set_jacobian([](double, ConstVector q, ConstVector, ConstVector, MatrixRef J) {
    J(0, 0) = -3.0 * q[0] * q[0];
    return 0;
  });
  return p;
}

// The index-1 DAE q' = -u q, 0 = u - q^2 (reduced: q' = -q^3), T7 with the cubic.
inline esdirk::FunctionProblem cubic_dae() {
  esdirk::FunctionProblem p(
      1, 1, 0,
      [](double, ConstVector q, ConstVector u, ConstVector, Vector f) {
        f[0] = -u[0] * q[0];
        return 0;
      },
      [](double, ConstVector q, ConstVector u, ConstVector, Vector g) {
        g[0] = u[0] - q[0] * q[0];
        return 0;
      });
  p.set_jacobian([](double, ConstVector q, ConstVector u, ConstVector, MatrixRef J) {
    J(0, 0) = -u[0], J(0, 1) = -q[0];
    J(1, 0) = -2.0 * q[0], J(1, 1) = 1.0;
    return 0;
  });
  return p;
}

// Closed forms for q' = -q^3, q(0) = 1, T = 1: terminal C = q(T) gives p(0) = 3^(-3/2);
// running L = q gives p(0) = d/da [(sqrt(1 + 2a^2) - 1)/a] = 1 - 1/sqrt(3).
inline double cubic_terminal_gradient() { return std::pow(3.0, -1.5); }
inline double cubic_running_gradient() { return 1.0 - 1.0 / std::sqrt(3.0); }

// Van der Pol with mu (test T2 of doc/geometric-adjoint-theory.md).
inline esdirk::FunctionProblem van_der_pol(double mu) {
  esdirk::FunctionProblem p(2, 0, 0,
                            [mu](double, ConstVector q, ConstVector, ConstVector, Vector f) {
                              f[0] = q[1];
                              f[1] = mu * (1 - q[0] * q[0]) * q[1] - q[0];
                              return 0;
                            });
  p.set_jacobian([mu](double, ConstVector q, ConstVector, ConstVector, MatrixRef J) {
    J(0, 0) = 0;
    J(0, 1) = 1;
    J(1, 0) = -2 * mu * q[0] * q[1] - 1;
    J(1, 1) = mu * (1 - q[0] * q[0]);
    return 0;
  });
  return p;
}

// Robertson's stiff kinetics as an ODE.
inline esdirk::FunctionProblem robertson() {
  esdirk::FunctionProblem p(3, 0, 0, [](double, ConstVector y, ConstVector, ConstVector, Vector f) {
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[2] = 3e7 * y[1] * y[1];
    f[1] = -f[0] - f[2];
    return 0;
  });
  p.set_jacobian([](double, ConstVector y, ConstVector, ConstVector, MatrixRef J) {
    J(0, 0) = -0.04, J(0, 1) = 1e4 * y[2], J(0, 2) = 1e4 * y[1];
    J(2, 0) = 0, J(2, 1) = 6e7 * y[1], J(2, 2) = 0;
    for (int c = 0; c < 3; ++c) J(1, c) = -J(0, c) - J(2, c);
    return 0;
  });
  return p;
}

// q' = M q with a fixed random 5 x 5 matrix (entries in [-1, 1]).
inline std::vector<double> random_matrix(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> m(static_cast<std::size_t>(n * n));
  for (double& v : m) v = u(rng);
  return m;
}
inline esdirk::FunctionProblem linear(std::vector<double> M, int n) {  // M column-major
  esdirk::FunctionProblem p(n, 0, 0,
                            [M, n](double, ConstVector q, ConstVector, ConstVector, Vector f) {
                              for (int r = 0; r < n; ++r) {
                                f[r] = 0;
                                for (int c = 0; c < n; ++c)
                                  f[r] += M[static_cast<std::size_t>(c * n + r)] * q[c];
                              }
                              return 0;
                            });
  p.set_jacobian([M, n](double, ConstVector, ConstVector, ConstVector, MatrixRef J) {
    for (int c = 0; c < n; ++c)
      for (int r = 0; r < n; ++r) J(r, c) = M[static_cast<std::size_t>(c * n + r)];
    return 0;
  });
  return p;
}

// The index-1 DAE of test T7 (doc/geometric-adjoint-theory.md): q' = -u q, 0 = u - q (reduced: q' = -q^2).
inline esdirk::FunctionProblem riccati_dae() {
  esdirk::FunctionProblem p(
      1, 1, 0,
      [](double, ConstVector q, ConstVector u, ConstVector, Vector f) {
        f[0] = -u[0] * q[0];
        return 0;
      },
      [](double, ConstVector q, ConstVector u, ConstVector, Vector g) {
        g[0] = u[0] - q[0];
        return 0;
      });
  p.set_jacobian([](double, ConstVector q, ConstVector u, ConstVector, MatrixRef J) {
    J(0, 0) = -u[0], J(0, 1) = -q[0];
    J(1, 0) = -1.0, J(1, 1) = 1.0;
    return 0;
  });
  return p;
}

// The planar pendulum of Tran & Leok §3.2.2 as an index-1 DAE (examples/pendulum_adjoint).
using pendulum_dae::pendulum;

inline std::vector<double> uniform_times(double T, int N) {
  std::vector<double> t(static_cast<std::size_t>(N + 1));
  for (int n = 0; n <= N; ++n) t[static_cast<std::size_t>(n)] = T * n / N;
  return t;
}

inline double dot(ConstVector a, ConstVector b) {
  double s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

// Least-squares slope of log(error) against log(h).
inline double slope(const std::vector<double>& h, const std::vector<double>& e) {
  double mx = 0, my = 0;
  for (std::size_t k = 0; k < h.size(); ++k) {
    mx += std::log(h[k]);
    my += std::log(e[k]);
  }
  mx /= h.size();
  my /= h.size();
  double sxy = 0, sxx = 0;
  for (std::size_t k = 0; k < h.size(); ++k) {
    sxy += (std::log(h[k]) - mx) * (std::log(e[k]) - my);
    sxx += (std::log(h[k]) - mx) * (std::log(h[k]) - mx);
  }
  return sxy / sxx;
}

}  // namespace fixtures
