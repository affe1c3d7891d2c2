#pragma once
// The canonical (elementwise smallest) offsets of the Σ-method by the fixed-point iteration of
// Benveniste et al. 2021 Algorithm 2 (FindOffsets), in the form that also covers the non-square
// extension (§4.2): starting from equation offsets 0, repeat
//   (a) variable_offset[x]  = max over edges (f, x) of σ_fx + equation_offset[f]
//   (b) equation_offset[f]  = max over the optimal-solution edges (f, x) ∈ H of
//                             variable_offset[x] - σ_fx
// until nothing changes. For a square system H is the optimal perfect matching and (b) is the
// paper's original step. The iteration converges if and only if H is optimal (Lemma 17).
// The iteration itself (canonical_offsets) is internal (structural/src/canonical_offsets.hpp):
// sigma_method runs it; its result is this plain aggregate, a part of SigmaResult.

#include <vector>

namespace esdirk::structural {

struct Offsets {
  std::vector<int> equation_offsets;  ///< c_f: how many times equation f is differentiated
  std::vector<int> variable_offsets;  ///< d_x: the order of x's leading derivative
  int rounds = 0;                     ///< iterations until the fixed point (for the benchmark)
};

}  // namespace esdirk::structural
