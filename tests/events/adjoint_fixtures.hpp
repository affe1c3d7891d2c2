#pragma once
// The hybrid adjoint against the forward sensitivities on the same run: one HybridSolver run
// with exact-mode forward sensitivities (an LU per stage, so the stage equations are solved to
// rounding) along every direction of (x0, p), recorded by a HybridAdjoint at the same time, so
// both see the same steps and events. The objective is linear in the outputs,
// Phi = sum_k W_k^T [x(t_k); z(t_k)], so its forward gradient is sum_k W_k^T [Sx(t_k); Sz(t_k)].

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "esdirk/events/hybrid_adjoint.hpp"
#include "event_fixtures.hpp"

namespace event_tests {

struct AdjointComparison {
  esdirk::Status status = esdirk::Status::success;
  std::string message;
  esdirk::DenseMatrix adjoint;  // (nx + np) x rows: [dx0; dp]
  esdirk::DenseMatrix forward;  // the same from the forward sensitivities
  std::vector<double> x, z;     // the last output
  long events = 0;
  int steps = 0;
  esdirk::HybridAdjointReport report;

  /// max over the entries of |adjoint - forward|, relative to the largest forward entry of the row.
  double worst_relative_error() const {
    double worst = 0.0;
    for (int c = 0; c < forward.cols(); ++c) {
      double scale = 0.0;
      for (int i = 0; i < forward.rows(); ++i) scale = std::max(scale, std::abs(forward(i, c)));
      for (int i = 0; i < forward.rows(); ++i)
        worst = std::max(worst, std::abs(adjoint(i, c) - forward(i, c)) / std::max(scale, 1e-300));
    }
    return worst;
  }
};

/// `weights[k]`: W_k, (nx + nz) x rows, for output k at times[k] (an empty matrix: no term).
inline AdjointComparison compare_adjoint(esdirk::HybridProblem& problem, esdirk::HybridOptions options,
                                         double t0, int mode, std::vector<double> x0, std::vector<double> z0,
                                         std::vector<double> p, const std::vector<double>& times,
                                         const std::vector<esdirk::DenseMatrix>& weights,
                                         std::vector<double> memory0 = {},
                                         esdirk::HybridAdjointOptions adjoint_options = {},
                                         bool forward_sensitivities = true) {
  const int nx = problem.nx(), nz = problem.nz(), np = problem.np(), n = nx + nz;
  int rows = 0;
  for (const auto& w : weights) rows = std::max(rows, w.cols());
  AdjointComparison r;
  r.x.assign(static_cast<std::size_t>(nx), 0.0);
  r.z.assign(static_cast<std::size_t>(nz), 0.0);
  r.adjoint.resize(nx + np, rows);
  r.forward.resize(nx + np, rows);
  esdirk::HybridSolver solver(problem, options);
  esdirk::HybridAdjoint adjoint(solver, adjoint_options);
  r.status = solver.initialize(t0, mode, x0, z0, p, memory0);
  if (!esdirk::ok(r.status)) return r;
  esdirk::DenseMatrix Sx(nx, nx + np), Sz(nz, nx + np);
  if (forward_sensitivities) {
    esdirk::SensitivityOptions so;
    so.stage_solve = esdirk::StageSolve::factorization;
    r.status = solver.initialize_sensitivities(identity(nx + np).cref(), so);
    if (!esdirk::ok(r.status)) return r;
  }
  for (std::size_t k = 0; k < times.size(); ++k) {
    const esdirk::Outcome o = forward_sensitivities
                                  ? adjoint.integrate_to(times[k], r.x, r.z, Sx.ref(), nz > 0 ? Sz.ref() : esdirk::MatrixRef{})
                                  : adjoint.integrate_to(times[k], r.x, r.z);
    r.status = o.status;
    if (!esdirk::ok(o)) {
      r.message = solver.message();
      return r;
    }
    const esdirk::DenseMatrix& W = weights[k];
    for (int c = 0; c < W.cols() && forward_sensitivities; ++c)
      for (int d = 0; d < nx + np; ++d) {
        double v = 0.0;
        for (int i = 0; i < nx; ++i) v += W(i, c) * Sx(i, d);
        for (int i = 0; i < nz; ++i) v += W(nx + i, c) * Sz(i, d);
        r.forward(d, c) += v;
      }
  }
  r.events = solver.event_count();
  r.steps = adjoint.steps();
  esdirk::HybridObjective objective;
  objective.rows = rows;
  objective.at_output = [&](int k, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                            esdirk::MatrixRef dx, esdirk::MatrixRef dz, esdirk::MatrixRef) {
    const esdirk::DenseMatrix& W = weights[static_cast<std::size_t>(k)];
    for (int c = 0; c < W.cols(); ++c) {
      for (int i = 0; i < nx; ++i) dx(i, c) = W(i, c);
      for (int i = 0; i < nz; ++i) dz(i, c) = W(nx + i, c);
    }
    return 0;
  };
  (void)n;
  esdirk::MatrixRef dx0{r.adjoint.data(), nx, rows, r.adjoint.rows()};
  esdirk::MatrixRef dp = np > 0 ? esdirk::MatrixRef{r.adjoint.data() + nx, np, rows, r.adjoint.rows()}
                                : esdirk::MatrixRef{};
  r.status = adjoint.gradient(objective, dx0, dp);
  r.message = adjoint.message();
  r.report = adjoint.report();
  return r;
}

/// One weight matrix W = e_i (a single row picking component i of [x; z]).
inline esdirk::DenseMatrix pick(int n, int i) {
  esdirk::DenseMatrix w(n, 1);
  w(i, 0) = 1.0;
  return w;
}

}  // namespace event_tests
