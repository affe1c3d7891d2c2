#include "internal/algebraic_newton.hpp"

#include <algorithm>
#include <cmath>

#include "esdirk/linear_solver.hpp"

namespace esdirk::internal {
namespace {

// Root-mean-square of v_i * w_i.
double weighted_rms(const double* v, const double* w, int n) {
  if (n == 0) return 0.0;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double a = v[i] * w[i];
    sum += a * a;
  }
  return std::sqrt(sum / n);
}

}  // namespace

AlgebraicNewtonResult solve_algebraic(AlgebraicEquations& equations, Vector z, Vector g,
                                      const AlgebraicNewtonSettings& settings,
                                      const AlgebraicNewtonWorkspace& work, Statistics& stats) {
  using Stop = AlgebraicNewtonResult::Stop;
  AlgebraicNewtonResult result;
  const int nz = static_cast<int>(z.size());
  if (nz == 0) return result;
  const auto unz = static_cast<std::size_t>(nz);
  const MatrixRef dz{work.correction, nz, 1, nz};
  const MatrixRef trial_dz{work.trial_correction, nz, 1, nz};
  for (int iteration = 0; iteration < settings.max_iterations; ++iteration) {
    result.iteration = iteration;
    result.code = equations.jacobian(z, g, work.dgdz);
    if (result.code != 0) {
      result.stop = Stop::jacobian_failed;
      return result;
    }
    ++stats.lu_factorizations;
    result.pivot = lu_factor(work.dgdz, work.pivots);
    if (result.pivot > 0 || equations.nearly_singular(work.dgdz)) {
      result.stop = Stop::singular;
      return result;
    }
    equations.weights(z, Vector(work.weights, unz));
    std::copy(g.begin(), g.end(), work.correction);
    ++stats.back_substitutions;
    lu_solve(work.dgdz, work.pivots, dz);  // dz = (dg/dz)^{-1} g; the step is -dz
    const double step_norm = weighted_rms(work.correction, work.weights, nz);
    if (step_norm <= settings.tolerance) return result;
    double lambda = 1.0;
    bool accepted = false;
    for (int halving = 0; halving < 12 && !accepted; ++halving, lambda *= 0.5) {
      for (int i = 0; i < nz; ++i) work.trial[i] = z[i] - lambda * work.correction[i];
      const Vector trial_g(work.trial_g, unz);
      const int code = equations.evaluate(ConstVector(work.trial, unz), trial_g,
                                          AlgebraicEquations::Point::trial);
      if (code < 0) {
        result.stop = Stop::trial_fatal;
        result.code = code;
        return result;
      }
      if (code > 0) continue;  // outside the model's domain: shorten the step
      // Natural monotonicity: the simplified Newton correction at the trial point must be
      // smaller than the current one.
      std::copy(trial_g.begin(), trial_g.end(), work.trial_correction);
      ++stats.back_substitutions;
      lu_solve(work.dgdz, work.pivots, trial_dz);
      const double trial_norm = weighted_rms(work.trial_correction, work.weights, nz);
      accepted = trial_norm <= (1.0 - lambda / 4.0) * step_norm || trial_norm <= settings.tolerance;
      if (!accepted) continue;
      std::copy(work.trial, work.trial + nz, z.begin());
      std::copy(trial_g.begin(), trial_g.end(), g.begin());
      equations.accept_trial();
    }
    // A Newton correction that no damping can reduce and that is already below the noise level
    // is rounding: z is as consistent as the arithmetic allows.
    if (!accepted && step_norm <= settings.noise) return result;
    if (!accepted) {
      result.stop = Stop::no_descent;
      return result;
    }
  }
  result.stop = Stop::max_iterations;
  return result;
}

}  // namespace esdirk::internal
