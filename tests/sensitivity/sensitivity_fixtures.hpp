#pragma once
// Shared helpers of the sensitivity tests: test problems, the Dow setup, recording a step
// sequence and replaying it (finite differences on a frozen step sequence).

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"

namespace esdirk {
/// Lets Boost.Test print a Status in failed checks.
inline std::ostream& boost_test_print_type(std::ostream& os, Status status) {
  return os << status_name(status);
}
}  // namespace esdirk

namespace sens_test {

using esdirk::ConstMatrixRef;
using esdirk::ConstVector;
using esdirk::DenseMatrix;
using esdirk::MatrixRef;
using esdirk::Vector;

/// A nonlinear, moderately stiff ODE with two parameters (Van der Pol with a spring constant):
///     x0' = x1,   x1' = p0 (1 - x0^2) x1 - p1 x0.
/// Analytic Jacobians unless `analytic` is false (then both are finite differences).
class Oscillator : public esdirk::Problem {
 public:
  explicit Oscillator(bool analytic = true) : Problem(2, 0, 2), analytic_(analytic) {}
  int evaluate(double, ConstVector x, ConstVector, ConstVector p, Vector f, Vector) override {
    f[0] = x[1];
    f[1] = p[0] * (1.0 - x[0] * x[0]) * x[1] - p[1] * x[0];
    return 0;
  }
  bool has_jacobian() const override { return analytic_; }
  int jacobian(double, ConstVector x, ConstVector, ConstVector p, MatrixRef J) override {
    J(0, 0) = 0.0;
    J(0, 1) = 1.0;
    J(1, 0) = -2.0 * p[0] * x[0] * x[1] - p[1];
    J(1, 1) = p[0] * (1.0 - x[0] * x[0]);
    return 0;
  }
  bool has_parameter_jacobian() const override { return analytic_; }
  int parameter_jacobian(double, ConstVector x, ConstVector, ConstVector, MatrixRef Jp) override {
    Jp(0, 0) = 0.0;
    Jp(0, 1) = 0.0;
    Jp(1, 0) = (1.0 - x[0] * x[0]) * x[1];
    Jp(1, 1) = -x[0];
    return 0;
  }

 private:
  bool analytic_;
};

/// One full problem setup: the initial point and parameters.
struct Setup {
  double t0 = 0.0;
  double t_end = 1.0;
  std::vector<double> x0, z0, p;
};

inline Setup dow_setup(double t_end = 10.0) {
  Setup s;
  s.t_end = t_end;
  s.x0.assign(dow::initial_states.begin(), dow::initial_states.end());
  const auto z = dow::consistent_algebraic_start();
  s.z0.assign(z.begin(), z.end());
  s.p.assign(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  return s;
}

/// The Dow options of the example: rtol as given, atol = 1e-6 rtol, tiny algebraic atol.
inline esdirk::Options dow_options(double rtol) { return dow::benchmark_options(rtol); }

inline Setup oscillator_setup() {
  Setup s;
  s.t_end = 3.0;
  s.x0 = {2.0, 0.0};
  s.p = {5.0, 1.0};
  return s;
}

/// Options for replaying a frozen step sequence: the same method, with the Newton iteration
/// converged far below the error tolerance so that the replay is the discrete solution itself.
inline esdirk::Options replay_options(esdirk::Options base) {
  const char* env = std::getenv("REPLAY_NEWTON");
  base.newton_tolerance = env ? std::atof(env) : 1e-4;
  base.max_newton_iterations = 40;
  base.initialization_tolerance = 1e-10;
  base.max_initialization_iterations = 100;
  return base;
}

/// The accepted step sizes of a plain adaptive run over [t0, t_end].
inline std::vector<double> record_steps(esdirk::Problem& problem, const esdirk::Options& options,
                                        const Setup& s) {
  esdirk::Integrator solver(problem, options);
  std::vector<double> steps;
  solver.set_step_observer([&](const esdirk::StepView& r) { steps.push_back(r.h); });
  if (!esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p))) return {};
  std::vector<double> x(s.x0.size()), z(s.z0.size());
  solver.set_stop_time(s.t_end);
  if (!esdirk::ok(solver.integrate_to(s.t_end, x, z))) return {};
  return steps;
}

/// Replays `steps` with step_exactly from (x0, p); writes [x; z] at the end into `out`.
inline bool replay(esdirk::Problem& problem, const esdirk::Options& options, const Setup& s,
                   const std::vector<double>& x0, const std::vector<double>& p,
                   const std::vector<double>& steps, std::vector<double>& out) {
  esdirk::Integrator solver(problem, options);
  if (!esdirk::ok(solver.initialize(s.t0, x0, s.z0, p))) return false;
  for (double h : steps)
    if (!esdirk::ok(solver.step_exactly(h))) return false;
  out.assign(solver.x().begin(), solver.x().end());
  out.insert(out.end(), solver.z().begin(), solver.z().end());
  return true;
}

/// Central differences of the replayed [x; z](t_end) along each seed column (dx0; dp), with
/// step `delta` times the seed column (the seed should already carry the scaling).
inline DenseMatrix frozen_finite_differences(esdirk::Problem& problem, const esdirk::Options& options,
                                             const Setup& s, const std::vector<double>& steps,
                                             ConstMatrixRef seed, double delta) {
  const int nx = problem.nx(), np = problem.np(), n = problem.size();
  DenseMatrix fd(n, seed.cols);
  std::vector<double> plus, minus;
  for (int j = 0; j < seed.cols; ++j) {
    std::vector<double> xp = s.x0, xm = s.x0, pp = s.p, pm = s.p;
    for (int k = 0; k < nx; ++k) {
      xp[k] += delta * seed(k, j);
      xm[k] -= delta * seed(k, j);
    }
    for (int k = 0; k < np; ++k) {
      pp[k] += delta * seed(nx + k, j);
      pm[k] -= delta * seed(nx + k, j);
    }
    const bool good = replay(problem, options, s, xp, pp, steps, plus) &&
                      replay(problem, options, s, xm, pm, steps, minus);
    for (int i = 0; i < n; ++i) fd(i, j) = good ? (plus[i] - minus[i]) / (2.0 * delta) : NAN;
  }
  return fd;
}

/// Every entry of a and b has the same bits (and the sizes agree).
inline bool same_bits(const DenseMatrix& a, const DenseMatrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (int j = 0; j < a.cols(); ++j)
    for (int i = 0; i < a.rows(); ++i)
      if (std::bit_cast<std::uint64_t>(a(i, j)) != std::bit_cast<std::uint64_t>(b(i, j))) return false;
  return true;
}

/// The Dow seed: unit directions of the six initial states, then p_j e_j for the nine
/// parameters, so the parameter columns are the scaled sensitivities p_j du/dp_j.
inline DenseMatrix dow_scaled_seed() {
  DenseMatrix seed(15, 15);
  for (int k = 0; k < 6; ++k) seed(k, k) = 1.0;
  for (int k = 0; k < 9; ++k) seed(6 + k, 6 + k) = dow::nominal_parameters[static_cast<std::size_t>(k)];
  return seed;
}

/// The largest |a_ij - b_ij| / max_j |b_ij| over rows i (relative to each row's maximum) for
/// the rows [row_begin, row_end).
inline double row_scaled_error(ConstMatrixRef a, ConstMatrixRef b, int row_begin, int row_end) {
  double worst = 0.0;
  for (int i = row_begin; i < row_end; ++i) {
    double scale = 0.0;
    for (int j = 0; j < b.cols; ++j) scale = std::max(scale, std::abs(b(i, j)));
    if (scale == 0.0) continue;
    for (int j = 0; j < b.cols; ++j) worst = std::max(worst, std::abs(a(i, j) - b(i, j)) / scale);
  }
  return worst;
}

/// [Sx; Sz] stacked (n x ns) from a ForwardSensitivity at its current time.
inline DenseMatrix stacked(const esdirk::ForwardSensitivity& sens) {
  const ConstMatrixRef Sx = sens.state_sensitivity(), Sz = sens.algebraic_sensitivity();
  DenseMatrix out(Sx.rows + Sz.rows, Sx.cols);
  for (int j = 0; j < Sx.cols; ++j) {
    for (int i = 0; i < Sx.rows; ++i) out(i, j) = Sx(i, j);
    for (int i = 0; i < Sz.rows; ++i) out(Sx.rows + i, j) = Sz(i, j);
  }
  return out;
}

/// Replays `steps` with sensitivities seeded by `seed` and returns [Sx; Sz] at the end.
inline DenseMatrix replay_sensitivities(esdirk::Problem& problem, const esdirk::Options& options,
                                        const esdirk::SensitivityOptions& sens_options,
                                        const Setup& s, const std::vector<double>& steps,
                                        ConstMatrixRef seed, std::vector<double> typical = {}) {
  esdirk::Integrator solver(problem, options);
  if (!typical.empty()) solver.jacobians().set_typical_values(typical);
  esdirk::ForwardSensitivity sens(solver, sens_options);
  if (!esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p))) {
    std::fprintf(stderr, "replay_sensitivities: %s\n", solver.message().c_str());
    return {};
  }
  if (!esdirk::ok(sens.initialize(seed))) {
    std::fprintf(stderr, "replay_sensitivities: %s\n", sens.message().c_str());
    return {};
  }
  for (double h : steps)
    if (!esdirk::ok(solver.step_exactly(h))) {
      std::fprintf(stderr, "replay_sensitivities: %s\n", solver.message().c_str());
      return {};
    }
  return stacked(sens);
}

}  // namespace sens_test
