#pragma once
// Options of the forward sensitivities: a plain struct with defaults and validate().

#include <optional>
#include <vector>
#include "esdirk/export.hpp"

namespace esdirk {

/// How the stage sensitivities of one accepted step are computed (see
/// doc/sensitivity-theory.md). Both reuse the single LU of the step's iteration matrix.
enum class SensitivityMode {
  /// Kristensen et al. 2005, Algorithm 2: the Jacobian and [f_p; g_p] frozen at (t_n, x_n, z_n),
  /// one back-substitution per stage. First order in h as an approximation of the derivative of the
  /// discrete solution; converges to the true sensitivities as the tolerance tightens.
  paper,
  /// The derivative of the discrete solution: Jacobians and [f_p; g_p] at the converged
  /// stages, the stage equations solved by iterative refinement with the same LU.
  exact,
};

/// How exact mode solves the stage equations M_i S_i = rhs, M_i = E - h gamma J(stage i).
enum class StageSolve {
  /// A cost model: an LU of M_i per stage when it is cheaper than refinement. Dense problems:
  /// always except for large systems with few directions (n > 50 ns). Banded and sparse
  /// problems: decided at the first solve from the fill of the step's factors
  /// (stage_factorization_pays): stage LUs on a 1-D grid, refinement on a 2-D grid whose
  /// factors fill in.
  automatic,
  /// Iterative refinement with the step's single LU of M (the paper's one-LU-per-step rule for
  /// the sensitivities too); an LU of M_i only if the refinement does not converge.
  refinement,
  /// An LU of each stage matrix M_i (counted in stage_factorizations, not in NLU).
  factorization,
};

/// Which tolerances the sensitivities' error test uses (doc/sensitivity-guide.md, "Error
/// control": the measured achieved errors).
enum class SensitivityTolerance {
  /// The states' tolerances of the error test (Options::internal_rtol: under the calibrated
  /// rule kappa rtol^(q/(q-1)), 2-4 orders tighter than rtol), made for long runs whose error
  /// accumulates over hundreds of steps. On a short shooting interval it leaves A and B 100 to
  /// 10000 times more accurate than rtol (steps nobody asked for). ForwardSensitivity's default.
  states,
  /// rtol and atol as requested (the calibration undone: the absolute tolerances scale alike).
  /// On shooting intervals the achieved errors of A and B then come out at 0.1-0.8 x rtol
  /// (Dow, 0.2 h and 0.5 h intervals, rtol 1e-3 .. 1e-10); on a long run they would grow like
  /// the raw rule's 4 rtol^(3/4). ShootingInterval's default.
  requested,
};

struct ESDIRK_API SensitivityOptions {
  SensitivityMode mode = SensitivityMode::exact;

  /// Include the sensitivities in the error test. Unset (the default): on in exact mode, off in
  /// paper mode; error_controlled() tells which applies. The error estimate
  /// e_S = h sum_i d_i SF_i of every trial step is measured with weights
  /// 1/(atol_kj + rtol_k |S_kj|) and the step is accepted only if both norms are <= 1. Without
  /// it, derivatives with respect to states whose perturbation starts a fast transient that the
  /// states do not have (the d/du6 column of a Dow shooting interval) come out wrong by a
  /// factor, whatever rtol (doc/sensitivity-guide.md, "Error control"). Paper mode is left out
  /// by default because its frozen-Jacobian stage sensitivities are not the derivative of the
  /// solution the error estimate measures: under error control its steps collapse (Dow at
  /// rtol 1e-8: over 2 million steps); set true to force it. The seed leaves the
  /// sensitivities out of the error test (seed002()).
  std::optional<bool> error_control;
  /// Whether the sensitivities enter the error test with these options.
  bool error_controlled() const { return error_control.value_or(mode == SensitivityMode::exact); }
  /// The tolerances of the sensitivities' error test. Unset (the default): `states` for
  /// ForwardSensitivity, `requested` for ShootingInterval (error_tolerance_or()).
  std::optional<SensitivityTolerance> error_tolerance;
  /// error_tolerance, or `fallback` where it is unset.
  SensitivityTolerance error_tolerance_or(SensitivityTolerance fallback) const {
    return error_tolerance.value_or(fallback);
  }
  /// Absolute tolerance per direction (seed column) for the error control. Empty: atol_k /
  /// sigma_j with the states' atol_k and sigma_j the size of seed column j in units of the
  /// typical magnitudes of its variables (max(|x_k(t0)|, atol_k/rtol_k) for a state, |p_l| for
  /// a parameter), the pbar convention of CVODES: 1 for a scaled parameter column p_l e_l,
  /// typical_k for a unit state column e_k.
  std::vector<double> error_atol;
  /// When the stage sensitivities use forward differences (the problem supplies no Jacobian,
  /// or parameter directions without parameter_jacobian()), the error test of the
  /// sensitivities never asks for a relative accuracy below this (their absolute tolerances
  /// scale alike): a difference quotient carries noise of ~sqrt(eps) per entry, which the
  /// estimate h sum_i d_i SF_i of stages differenced at different points sees, so a tighter
  /// test chases that noise with ever smaller steps (Dow at rtol 1e-8: the step limit, not an
  /// answer). 1e-6 is the measured smallest value at which the steps on Dow (1 and 15
  /// directions) and on a linear estimation problem at rtol 1e-10 are those of analytic
  /// derivatives (doc/sensitivity-guide.md, "Error control"). Analytic derivatives are never
  /// floored. 0: no floor. In [0, 1).
  double difference_rtol_floor = 1e-6;

  /// Exact mode: how the stage equations are solved.
  StageSolve stage_solve = StageSolve::automatic;
  /// Exact mode: the refinement stops when a bound on its remaining error is below this
  /// fraction of the stage sensitivity (weighted max-norm of the error test, per direction).
  double correction_tolerance = 1e-10;
  /// Exact mode: refinement sweeps per stage before the stage matrix is factored on its own
  /// (a fallback counted in the LU statistics). The sweep contracts like the stage's simplified
  /// Newton iteration (rate ~0.1-0.2 on Dow); summed by doubling (ns >= n/4), k doublings
  /// count as the 2^k - 1 sweeps they stand for (3-4 doublings on Dow).
  int max_corrections = 30;

  /// The configuration of Kristensen et al. 2005 (Algorithms 1 and 2): Jacobians frozen at t_n
  /// (paper mode) and the sensitivities left out of the error test. What the reproduction of the
  /// seed's Table 1 runs; its derivatives are first order in h and not error controlled.
  static SensitivityOptions seed002();

  /// Throws std::invalid_argument naming the first invalid option. `directions` is the number
  /// of seed columns (for error_atol).
  void validate(int directions) const;
};

}  // namespace esdirk
