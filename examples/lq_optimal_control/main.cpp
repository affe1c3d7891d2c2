// Linear-quadratic optimal control (Tran & Leok, "Geometric Methods for Adjoint Systems", §3.3): minimize
//     J = int_0^T (q^2 + u^2) / 2 dt,   q' = u,   q(0) = q0,   free end,
// whose optimum is q(t) = q0 cosh(T - t) / cosh T, u = -p = -q0 sinh(T - t) / cosh T and
// J* = q0^2 tanh(T) / 2 (the Riccati solution).
//
// Discretized with a Runge-Kutta method whose stage controls U_n^i are the unknowns and whose
// cost is the method's own quadrature h sum_i b_i L(Q^i, U^i) (§5.3). The reduced gradient
// dJ_d/dU_n^i = h b_i (U_n^i + P_n^i) (§5.4) comes from one backward sweep of the augmented
// adjoint (running cost L = q^2/2) with the partner tableau; J_d is quadratic in U, so
// conjugate gradients with exact Hessian products (differences of gradients) find the discrete
// optimum, where U_n^i = -P_n^i: the partitioned-RK discretization of Pontryagin's system.
// Checks J_d* -> J* at the method's order.
//
//     lq_optimal_control

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "esdirk/geometric/geometric_adjoint.hpp"
#include "esdirk/problem.hpp"
#include "common/example_support.hpp"

namespace {

using esdirk::ConstVector;
using esdirk::MatrixRef;
using esdirk::Vector;
namespace g = esdirk::geometric;

struct Discrete {
  double cost = 0.0;
  double gradient_norm = 0.0;
  double pontryagin_residual = 0.0;  // max |U + P| at the optimum
  int iterations = 0;
  bool ok = false;
};

// The discrete problem on N uniform steps of [0, T] with `method` (all b_i > 0).
Discrete solve(const g::RkTableau& method, int N, double T, double q0) {
  const int s = method.stages;
  const double h = T / N;
  std::vector<double> times(static_cast<std::size_t>(N + 1));
  for (int n = 0; n <= N; ++n) times[static_cast<std::size_t>(n)] = n * h;
  // Stage controls, looked up by the stage time t_n + c_i h (the nodes of Gauss and Radau IIA
  // never coincide across steps). The step evaluates its stages at times[n] + c_i (times[n+1] -
  // times[n]); the keys are computed the same way.
  std::vector<double> U(static_cast<std::size_t>(N * s), 0.0);
  std::map<double, std::size_t> index;
  for (int n = 0; n < N; ++n)
    for (int i = 0; i < s; ++i)
      index[times[n] + method.c[i] * (times[n + 1] - times[n])] =
          static_cast<std::size_t>(n * s + i);
  esdirk::FunctionProblem problem(1, 0, 0,
                                  [&](double t, ConstVector, ConstVector, ConstVector, Vector f) {
                                    // At a stage time the stage's control; elsewhere (the step
                                    // start, where the stage solver takes its starting guess) the
                                    // next stage's.
                                    auto it = index.lower_bound(t);
                                    if (it == index.end()) --it;
                                    f[0] = U[it->second];
                                    return 0;
                                  });
  problem.set_jacobian([](double, ConstVector, ConstVector, ConstVector, MatrixRef J) {
    J(0, 0) = 0.0;
    return 0;
  });
  g::RunningCost L;
  double control_cost = 0.0;  // h sum b_i U^2 / 2, added to the state part below
  L.value = [](double, ConstVector q, ConstVector, double& v) {
    v = 0.5 * q[0] * q[0];
    return 0;
  };
  L.gradient = [](double, ConstVector q, ConstVector, Vector dq, Vector) {
    dq[0] = q[0];
    return 0;
  };
  g::GeometricAdjoint run(problem, g::symplectic_pair(method));
  const std::vector<double> none, zero{0.0};
  std::vector<double> x0{q0};
  // J_d(U) and its gradient h b_i (U + P) over all stages, from the initial state x0.
  auto evaluate = [&](std::vector<double>& grad, double& cost) {
    if (run.forward(times, x0, none) != esdirk::Status::success) return false;
    if (run.backward(zero, &L) != esdirk::Status::success) return false;
    control_cost = 0.0;
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < s; ++i) {
        const std::size_t k = static_cast<std::size_t>(n * s + i);
        const double w = h * method.b[i];
        control_cost += w * 0.5 * U[k] * U[k];
        grad[k] = w * (U[k] + run.stage_adjoint(n, i)[0]);
      }
    cost = run.running_quadrature() + control_cost;
    return true;
  };
  Discrete out;
  const std::size_t m = U.size();
  std::vector<double> g0(m), g1(m), r(m), d(m), Hd(m), U0(m);
  double cost = 0.0;
  if (!evaluate(g0, cost)) return out;
  for (std::size_t k = 0; k < m; ++k) r[k] = -g0[k], d[k] = r[k];
  double rr = 0.0;
  for (double v : r) rr += v * v;
  // Conjugate gradients on the quadratic J_d(U) = J_0 + g_0^T U + U^T H U / 2. H d is the
  // gradient at U = d from q0 = 0 (the homogeneous problem): exact, without the cancellation
  // of a difference of gradients.
  const double rr0 = rr;
  for (out.iterations = 0; out.iterations < static_cast<int>(2 * m) && rr > 1e-30 * rr0;
       ++out.iterations) {
    U0 = U;
    U = d;
    x0[0] = 0.0;
    if (!evaluate(g1, cost)) return out;
    x0[0] = q0;
    U = U0;
    double dHd = 0.0;
    for (std::size_t k = 0; k < m; ++k) {
      Hd[k] = g1[k];
      dHd += d[k] * Hd[k];
    }
    const double alpha = rr / dHd;
    double rr_new = 0.0;
    for (std::size_t k = 0; k < m; ++k) {
      U[k] += alpha * d[k];
      g0[k] += alpha * Hd[k];
      r[k] = -g0[k];
      rr_new += r[k] * r[k];
    }
    for (std::size_t k = 0; k < m; ++k) d[k] = r[k] + rr_new / rr * d[k];
    rr = rr_new;
  }
  if (!evaluate(g0, cost)) return out;
  out.cost = cost;
  for (double v : g0) out.gradient_norm = std::max(out.gradient_norm, std::abs(v));
  for (int n = 0; n < N; ++n)
    for (int i = 0; i < s; ++i)
      out.pontryagin_residual =
          std::max(out.pontryagin_residual,
                   std::abs(U[static_cast<std::size_t>(n * s + i)] + run.stage_adjoint(n, i)[0]));
  out.ok = true;
  return out;
}

}  // namespace

const char* const usage =
    "usage: lq_optimal_control\n"
    "\n"
    "Linear-quadratic optimal control discretized by Runge-Kutta methods with their partner\n"
    "tableaus (Tran and Leok, \"Geometric Methods for Adjoint Systems\"): the discrete optimum\n"
    "converges to the Riccati solution at the method's order.\n"
    "\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  const double T = 1.0, q0 = 1.0, exact = 0.5 * q0 * q0 * std::tanh(T);
  bool all_ok = true;
  std::printf(
      "LQ optimal control: min int_0^1 (q^2 + u^2)/2, q' = u, q(0) = 1; J* = tanh(1)/2 = %.15f\n\n",
      exact);
  struct Case {
    g::RkTableau method;
    int expected;  // the order J_d* must show
  };
  const std::vector<Case> cases{
      {g::gauss_legendre(1), 2}, {g::gauss_legendre(2), 4}, {g::radau_iia(2), 3}};
  for (const Case& c : cases) {
    std::printf("%s (order %d):\n  %5s  %22s  %12s  %8s  %12s  %12s\n", c.method.name.c_str(),
                c.method.order, "N", "J_d*", "|J_d* - J*|", "order", "max|grad|", "max|U + P|");
    double previous = 0.0, last_order = 0.0;
    bool ok = true;
    for (int N = 2; N <= 32; N *= 2) {
      const Discrete d = solve(c.method, N, T, q0);
      ok = ok && d.ok && d.gradient_norm <= 1e-12 && d.pontryagin_residual <= 1e-10;
      const double error = std::abs(d.cost - exact);
      const double order = previous > 0.0 ? std::log2(previous / error) : 0.0;
      if (previous > 0.0 && error > 1e-13) last_order = order;
      std::printf("  %5d  %22.16f  %12.3e  %8.3f  %12.2e  %12.2e\n", N, d.cost, error, order,
                  d.gradient_norm, d.pontryagin_residual);
      previous = error;
    }
    const bool order_ok = std::abs(last_order - c.expected) <= 0.2;
    std::printf("  observed order %.2f, expected %d: %s\n\n", last_order, c.expected,
                ok && order_ok ? "ok" : "FAILED");
    all_ok = all_ok && ok && order_ok;
  }
  std::printf("%s\n", all_ok ? "CHECK PASSED" : "CHECK FAILED");
  return all_ok ? 0 : 1;
}
