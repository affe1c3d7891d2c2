#include "esdirk/geometric/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "esdirk/linear_solver.hpp"

namespace esdirk::geometric {
namespace {

double dot(ConstVector a, ConstVector b) {
  double sum = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) sum += a[k] * b[k];
  return sum;
}
double max_abs(ConstVector v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

Drift drift_of(const std::vector<double>& values, double scale) {
  Drift d;
  for (std::size_t n = 0; n < values.size(); ++n) {
    const double dev = std::abs(values[n] - values[0]);
    if (dev > d.absolute) {
      d.absolute = dev;
      d.worst_step = static_cast<int>(n);
    }
  }
  d.relative = scale > 0.0 ? d.absolute / scale : d.absolute;
  return d;
}

}  // namespace

Drift pairing_drift(const GeometricAdjoint& run) {
  std::vector<double> values;
  double pmax = 0.0, dqmax = 0.0;
  for (int n = 0; n <= run.steps(); ++n) {
    values.push_back(dot(run.adjoint_state(n), run.tangent_state(n)));
    pmax = std::max(pmax, max_abs(run.adjoint_state(n)));
    dqmax = std::max(dqmax, max_abs(run.tangent_state(n)));
  }
  return drift_of(values, pmax * dqmax * static_cast<double>(run.problem().nx()));
}

Drift hamiltonian_drift(const GeometricAdjoint& run) {
  Problem& problem = run.problem();
  std::vector<double> f(static_cast<std::size_t>(problem.nx())),
      g(static_cast<std::size_t>(problem.nz())), values;
  const ConstVector p = run.step().parameters();
  double scale = 0.0;
  for (int n = 0; n <= run.steps(); ++n) {
    if (problem.evaluate(run.time(n), run.state(n), run.algebraic(n), p, f, g) != 0)
      throw std::runtime_error("hamiltonian_drift: f failed at t = " + std::to_string(run.time(n)));
    values.push_back(dot(run.adjoint_state(n), f));
    scale = std::max(scale, std::abs(values.back()));
  }
  return drift_of(values, scale);
}

Drift momentum_drift(const GeometricAdjoint& run,
                     const std::function<void(ConstVector, Vector)>& generator) {
  std::vector<double> g(static_cast<std::size_t>(run.problem().nx())), values;
  double scale = 0.0;
  for (int n = 0; n <= run.steps(); ++n) {
    generator(run.state(n), g);
    values.push_back(dot(run.adjoint_state(n), g));
    scale =
        std::max(scale, max_abs(run.adjoint_state(n)) * max_abs(g) * static_cast<double>(g.size()));
  }
  return drift_of(values, scale);
}

OneStepMap one_step_map(TypeTwoStep& step, double t, double h, ConstVector q0, ConstVector u_guess,
                        ConstVector p1, double increment) {
  const int nx = step.problem().nx();
  if (q0.size() != static_cast<std::size_t>(nx) || p1.size() != static_cast<std::size_t>(nx))
    throw std::invalid_argument("one_step_map: q0 and p1 need nx values");
  if (!(increment > 0.0))
    throw std::invalid_argument("one_step_map: the increment must be positive");
  OneStepMap out;
  // D = d(q1, p0) / d(q0, p1), 2nx x 2nx, by the five-point stencil.
  std::vector<double> D(static_cast<std::size_t>(4 * nx * nx), 0.0), x(q0.begin(), q0.end()),
      p(p1.begin(), p1.end()), p0(static_cast<std::size_t>(nx));
  x.insert(x.end(), p.begin(), p.end());
  const double weights[4] = {1.0, -8.0, 8.0, -1.0};
  const double offsets[4] = {-2.0, -1.0, 1.0, 2.0};
  for (int c = 0; c < 2 * nx; ++c) {
    const double delta = increment * (1.0 + std::abs(x[static_cast<std::size_t>(c)]));
    for (int k = 0; k < 4; ++k) {
      std::vector<double> y = x;
      y[static_cast<std::size_t>(c)] += offsets[k] * delta;
      const ConstVector yq(y.data(), static_cast<std::size_t>(nx)),
          yp(y.data() + nx, static_cast<std::size_t>(nx));
      out.status = step.forward(t, h, yq, u_guess);
      if (out.status == Status::success) out.status = step.adjoint(yp, nullptr, p0);
      if (out.status != Status::success) return out;
      for (int r = 0; r < nx; ++r) {
        D[static_cast<std::size_t>(c) * 2 * nx + r] +=
            weights[k] * step.q1()[static_cast<std::size_t>(r)] / (12.0 * delta);
        D[static_cast<std::size_t>(c) * 2 * nx + nx + r] +=
            weights[k] * p0[static_cast<std::size_t>(r)] / (12.0 * delta);
      }
    }
  }
  // Blocks of D: A = dq1/dq0, S = dp0/dq0, B = dp0/dp1 (dq1/dp1 = 0: q does not see p).
  // The evolution map: dq1 = A dq0, dp1 = B^{-1} (dp0 - S dq0).
  auto Dat = [&](int r, int c) { return D[static_cast<std::size_t>(c) * 2 * nx + r]; };
  DenseMatrix B(nx, nx), rhs(nx, 2 * nx);
  for (int c = 0; c < nx; ++c)
    for (int r = 0; r < nx; ++r) B(r, c) = Dat(nx + r, nx + c);
  for (int r = 0; r < nx; ++r) {
    for (int c = 0; c < nx; ++c) rhs(r, c) = -Dat(nx + r, c);
    rhs(r, nx + r) = 1.0;
  }
  std::vector<int> pivots(static_cast<std::size_t>(nx));
  if (lu_factor(B.ref(), pivots.data()) != 0) {
    out.status = Status::singular_iteration_matrix;
    return out;
  }
  lu_solve(B.cref(), pivots.data(), rhs.ref());
  const int m = 2 * nx;
  out.M.assign(static_cast<std::size_t>(m * m), 0.0);
  auto M = [&](int r, int c) -> double& { return out.M[static_cast<std::size_t>(c) * m + r]; };
  for (int c = 0; c < nx; ++c)
    for (int r = 0; r < nx; ++r) M(r, c) = Dat(r, c);
  for (int c = 0; c < m; ++c)
    for (int r = 0; r < nx; ++r) M(nx + r, c) = rhs(r, c);
  // M^T J M - J with J = [[0, I], [-I, 0]]: (M^T J M)_ab = sum_k M_ka (J M)_kb.
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) {
      double sum = 0.0;
      for (int k = 0; k < nx; ++k) sum += M(k, a) * M(nx + k, b) - M(nx + k, a) * M(k, b);
      const double J = (a < nx && b == a + nx) ? 1.0 : (a >= nx && b == a - nx) ? -1.0 : 0.0;
      out.defect = std::max(out.defect, std::abs(sum - J));
    }
  return out;
}

}  // namespace esdirk::geometric
