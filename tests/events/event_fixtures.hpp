#pragma once
// Shared pieces of the event tests: tight options, relative errors, and whole runs of a hybrid
// problem that return the final state, the sensitivities and the event log.

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "esdirk/events/hybrid_solver.hpp"

namespace event_tests {

inline esdirk::HybridOptions tight(double rtol) {
  esdirk::HybridOptions o;
  o.integrator.rtol = rtol;
  o.integrator.atol = rtol * 1e-2;
  return o;
}

inline double relative_error(double a, double b, double floor = 1e-300) {
  return std::abs(a - b) / std::max({std::abs(a), std::abs(b), floor});
}

struct Run {
  esdirk::Status status = esdirk::Status::success;
  std::vector<double> x, z;
  esdirk::DenseMatrix Sx, Sz;
  std::vector<esdirk::EventRecord> events;
  esdirk::Statistics stats;
  std::string message;
  std::vector<std::pair<double, double>> step_spans;  ///< [t_n, t_n + h] of every accepted step
};

/// Integrates to t_end from (t0, mode, x0, z0, p, memory0); with `seed` (nx + np) x ns, also
/// the sensitivities.
inline Run run(esdirk::HybridProblem& problem, const esdirk::HybridOptions& options, double t0,
               int mode, std::vector<double> x0, std::vector<double> z0, std::vector<double> p,
               double t_end, const esdirk::DenseMatrix* seed = nullptr,
               std::vector<double> memory0 = {}) {
  esdirk::HybridSolver solver(problem, options);
  Run r;
  r.x.assign(x0.size(), 0.0);
  r.z.assign(z0.size(), 0.0);
  solver.integrator().set_step_observer(
      [&r](const esdirk::StepView& step) { r.step_spans.emplace_back(step.t, step.t + step.h); });
  r.status = solver.initialize(t0, mode, x0, z0, p, memory0);
  if (!esdirk::ok(r.status)) return r;
  esdirk::MatrixRef Sx, Sz;
  if (seed) {
    r.status = solver.initialize_sensitivities(seed->cref());
    if (!esdirk::ok(r.status)) return r;
    r.Sx.resize(problem.nx(), seed->cols());
    r.Sz.resize(problem.nz(), seed->cols());
    Sx = r.Sx.ref();
    if (problem.nz() > 0) Sz = r.Sz.ref();
  }
  const esdirk::Outcome o = solver.integrate_to(t_end, r.x, r.z, Sx, Sz);
  r.status = o.status;
  r.message = solver.message();
  for (int i = 0; i < solver.logged_events(); ++i) r.events.push_back(solver.event(i));
  r.stats = solver.statistics();
  return r;
}

inline esdirk::DenseMatrix identity(int n) {
  esdirk::DenseMatrix m(n, n);
  for (int i = 0; i < n; ++i) m(i, i) = 1.0;
  return m;
}

}  // namespace event_tests
