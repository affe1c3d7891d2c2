#pragma once
// Whether the Σ-method really succeeded at a point: the System Jacobian J_fx = ∂f/∂x^(d_x - c_f)
// (zero where d_x - c_f > σ_fx) must be numerically nonsingular. A structurally nonsingular pattern
// can still be singular for particular values (Benveniste et al. 2021 §3.3.1: structural analysis
// is necessary, not sufficient), e.g. the engaged clutch with det J = a + b at a point where a =
// -b.

#include <functional>
#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/matrix.hpp"
#include "esdirk/structural/sigma_method.hpp"

namespace esdirk::structural {

/// Fills `jacobian` (rows: equations, columns: variables of the analysed system, column-major,
/// set to zero beforehand) with the System Jacobian at the point of interest.
using SystemJacobianCallback = std::function<void(MatrixRef jacobian)>;

struct JacobianCheck {
  /// True when every diagonal block of the block triangular form is numerically nonsingular.
  bool nonsingular = false;
  /// Indices (into SigmaResult::jacobian_blocks.blocks) of the blocks found singular.
  std::vector<int> singular_blocks;
  /// Smallest |pivot| / largest |entry| over the block LU factorizations (0 for an exact zero
  /// pivot); a rough measure of how close to singular the Jacobian is.
  double smallest_relative_pivot = 0.0;
  /// Entries the callback set outside the structural pattern (equation, variable); they are
  /// ignored and usually mean the callback and the model disagree.
  std::vector<std::pair<int, int>> entries_outside_pattern;
};

/// Evaluates the callback once and factors each diagonal block with LAPACK LU (partial
/// pivoting). A block is singular when a pivot is zero or smaller than `relative_tolerance`
/// times the block's largest entry. Throws std::invalid_argument when `result` is not a
/// successful square analysis or `relative_tolerance` is not in [0, 1).
ESDIRK_API JacobianCheck check_system_jacobian(const SigmaResult& result,
                                    const SystemJacobianCallback& jacobian,
                                    double relative_tolerance = 1e-12);

}  // namespace esdirk::structural
