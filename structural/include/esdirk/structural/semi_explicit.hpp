#pragma once
// Structural index check for the integrator's problem class (DESIGN.md "The problem"):
//     x' = f(t, x, z, p)      nx differential states
//     0  = g(t, x, z, p)      nz algebraic states
// ESDIRK34 needs index 1, i.e. g_z nonsingular. The pattern of [f_x f_z; g_x g_z] is turned
// into a DAE (f_i uses x_i' plus its row's pattern; g_k its row's pattern) and analysed by the
// Σ-method: index 1 exactly when every equation offset is 0 (Lemma 18: the leading pattern,
// here g_z, has a complete matching). Otherwise the offsets say which algebraic equations
// must be differentiated, and how often, before the problem fits the integrator.

#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/sigma_method.hpp"

namespace esdirk::structural {

/// Sparsity of a semi-explicit DAE: `nonzero(row, column)` of the n x n matrix
/// [f_x f_z; g_x g_z], n = nx + nz; rows 0..nx-1 are f, rows nx.. are g; columns 0..nx-1 are
/// x, columns nx.. are z.
struct SemiExplicitPattern {
  int nx = 0;
  int nz = 0;
  std::vector<std::pair<int, int>> nonzeros;  ///< (row, column) pairs
};

/// One algebraic equation to differentiate: g_index (0-based, among the nz) and how often.
struct RequiredDifferentiation {
  int g_index = 0;
  int times = 0;
};

struct SemiExplicitCheck {
  /// True when g_z is structurally nonsingular: index 1 (or an ODE), so ESDIRK34 applies.
  bool index1 = false;
  /// False when the DAE is structurally singular (no index reduction helps).
  bool structurally_regular = false;
  /// Algebraic equations with a positive offset (empty when index1).
  std::vector<RequiredDifferentiation> differentiate;
  /// Differential equations with a positive offset (possible when the DAE has index >= 2).
  std::vector<RequiredDifferentiation> differentiate_f;
  int max_offset_index = 0;        ///< Benveniste et al. index max c
  int pryce_structural_index = 0;  ///< ν_S
  /// Human-readable verdict naming equations f1..fnx, g1..gnz and variables x1.., z1...
  std::string message;
};

/// Throws std::invalid_argument for negative sizes or out-of-range pattern entries.
ESDIRK_API SemiExplicitCheck check_semi_explicit_index1(const SemiExplicitPattern& pattern);

}  // namespace esdirk::structural
