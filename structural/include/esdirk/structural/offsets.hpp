#pragma once
// The canonical (elementwise smallest) offsets of the Σ-method by the fixed-point iteration of
// Benveniste et al. 2021 Algorithm 2 (FindOffsets), in the form that also covers the non-square
// extension (§4.2): starting from equation offsets 0, repeat
//   (a) variable_offset[x]  = max over edges (f, x) of σ_fx + equation_offset[f]
//   (b) equation_offset[f]  = max over the optimal-solution edges (f, x) ∈ H of
//                             variable_offset[x] - σ_fx
// until nothing changes. For a square system H is the optimal perfect matching and (b) is the
// paper's original step. The iteration converges if and only if H is optimal (Lemma 17); a
// guard on the number of changing rounds turns divergence into an exception.

#include <stdexcept>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/matching.hpp"
#include "esdirk/structural/signature_matrix.hpp"

namespace esdirk::structural {

/// Thrown when the offset iteration does not reach a fixed point: the matching (or H) given
/// was not an optimal solution of the assignment problem.
class ESDIRK_API OffsetIterationDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown when the offsets would exceed the limits of limits.hpp: more than
/// max_latent_equations in Σ c_f, or more than max_offset_iteration_work. The offsets only
/// grow during the iteration, so the first round past the limit proves it.
class ESDIRK_API OffsetLimitExceeded : public std::length_error {
 public:
  using std::length_error::length_error;
};

struct Offsets {
  std::vector<int> equation_offsets;  ///< c_f: how many times equation f is differentiated
  std::vector<int> variable_offsets;  ///< d_x: the order of x's leading derivative
  int rounds = 0;                     ///< iterations until the fixed point (for the benchmark)
};

/// Offsets from an optimal solution H of the assignment LP: `h_variables_of_equation[f]` lists
/// the variables x with (f, x) ∈ H (non-empty for every f; every pair must be an edge).
/// Throws OffsetIterationDiverged after more than (equations + 1) changing rounds,
/// OffsetLimitExceeded past a limit, and std::invalid_argument for malformed H.
ESDIRK_API Offsets canonical_offsets(const SignatureMatrix& sigma,
                          const std::vector<std::vector<int>>& h_variables_of_equation);

/// Square case: H is a perfect matching (every equation matched).
ESDIRK_API Offsets canonical_offsets(const SignatureMatrix& sigma, const Matching& matching);

}  // namespace esdirk::structural
