#pragma once
// Internal: Newton on the algebraic equations g(t, x, z) = 0 for z with t and x fixed. One kernel
// for the stepper's consistent initialization, the algebraic correction after an event
// (EventJumps) and the geometric step's consistent algebraic state (TypeTwoStep), with one
// stopping rule (doc/integrator-theory.md section 7):
//
//   dz = (dg/dz)^{-1} g at the iterate (a fresh dg/dz at every iterate); converged when the
//   weighted RMS ||dz||_w <= tolerance, and then z is the iterate (dz, below the tolerance, is
//   not applied); else z - lambda dz with lambda = 1, 1/2, ... (at most 12 halvings) until
//   Deuflhard's natural monotonicity test accepts it: the simplified correction at the trial
//   point, with the same LU, is at most (1 - lambda/4) ||dz||_w, or below the tolerance. A
//   correction that no damping reduces but whose norm is at most `noise` is rounding: converged.
//
// The caller supplies the equations (g, dg/dz, the weights) and the workspace, sized once: the
// kernel allocates nothing. It says where it stopped; the caller words its own message and
// status (their names differ by module).

#include "esdirk/matrix.hpp"
#include "esdirk/statistics.hpp"

namespace esdirk::internal {

class AlgebraicEquations {
 public:
  enum class Point { current, trial };
  /// g at z into `g`; 0 on success, > 0 recoverable (outside the model's domain, or not finite),
  /// < 0 fatal. A trial point's values become the current ones only after accept_trial().
  virtual int evaluate(ConstVector z, Vector g, Point point) = 0;
  /// The trial point was accepted: what evaluate() kept alongside g there (f, say) is current.
  virtual void accept_trial() {}
  /// dg/dz at z (where g was last evaluated as current) into dgdz (nz x nz); codes as evaluate.
  virtual int jacobian(ConstVector z, ConstVector g, MatrixRef dgdz) = 0;
  /// The weights of the correction's norm at z.
  virtual void weights(ConstVector z, Vector w) = 0;
  /// Whether the factored dg/dz (lu_factor found no zero pivot) is still too close to singular
  /// to trust; by default only exact zero pivots count.
  virtual bool nearly_singular(ConstMatrixRef) const { return false; }

 protected:
  ~AlgebraicEquations() = default;
};

struct AlgebraicNewtonSettings {
  int max_iterations = 30;
  double tolerance = 1e-6;  ///< on the weighted RMS of the Newton correction
  double noise = 0.0;       ///< an unreducible correction at most this large is converged
};

/// The workspace of one kernel call (every buffer nz long, dgdz nz x nz).
struct AlgebraicNewtonWorkspace {
  MatrixRef dgdz;
  int* pivots;
  double* correction;        // dz
  double* trial;             // z - lambda dz
  double* trial_g;           // g there
  double* trial_correction;  // the simplified correction there
  double* weights;
};

struct AlgebraicNewtonResult {
  enum class Stop {
    converged,
    jacobian_failed,   // code: the Jacobian callback's
    singular,          // pivot: the zero pivot's column (1-based), 0 if nearly singular
    trial_fatal,       // a trial point's evaluation returned a fatal code
    no_descent,        // iteration: no damped step passed the monotonicity test
    max_iterations,
  };
  Stop stop = Stop::converged;
  int code = 0;
  int pivot = 0;
  int iteration = 0;
  bool ok() const { return stop == Stop::converged; }
};

/// Solves g(z) = 0 from z (in/out), with g at z given in `g` (in/out: g at the returned z).
/// Counts LU factorizations and back-substitutions in `stats`.
AlgebraicNewtonResult solve_algebraic(AlgebraicEquations& equations, Vector z, Vector g,
                                      const AlgebraicNewtonSettings& settings,
                                      const AlgebraicNewtonWorkspace& work, Statistics& stats);

}  // namespace esdirk::internal
