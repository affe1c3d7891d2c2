#pragma once
// The offset iteration of the Σ-method (Benveniste et al. 2021 Algorithm 2, FindOffsets; the
// iteration is described in esdirk/structural/offsets.hpp), with the two exceptions it throws: a
// guard on the number of changing rounds turns divergence into OffsetIterationDiverged, and
// offsets past a limit of limits.hpp into OffsetLimitExceeded.
//
// Internal to the structural module (not installed, not exported): sigma_method() runs it and
// turns OffsetLimitExceeded into SigmaStatus::too_large; the tests reach it through the
// module's src/ folder.

#include <stdexcept>
#include <vector>

#include "esdirk/structural/matching.hpp"
#include "esdirk/structural/offsets.hpp"
#include "esdirk/structural/signature_matrix.hpp"

namespace esdirk::structural {

/// Thrown when the offset iteration does not reach a fixed point: the matching (or H) given
/// was not an optimal solution of the assignment problem.
class OffsetIterationDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown when the offsets would exceed the limits of limits.hpp: more than
/// max_latent_equations in Σ c_f, or more than max_offset_iteration_work. The offsets only
/// grow during the iteration, so the first round past the limit proves it.
class OffsetLimitExceeded : public std::length_error {
 public:
  using std::length_error::length_error;
};

/// Offsets from an optimal solution H of the assignment LP: `h_variables_of_equation[f]` lists
/// the variables x with (f, x) ∈ H (non-empty for every f; every pair must be an edge).
/// Throws OffsetIterationDiverged after more than (equations + 1) changing rounds,
/// OffsetLimitExceeded past a limit, and std::invalid_argument for malformed H.
Offsets canonical_offsets(const SignatureMatrix& sigma,
                          const std::vector<std::vector<int>>& h_variables_of_equation);

/// Square case: H is a perfect matching (every equation matched).
Offsets canonical_offsets(const SignatureMatrix& sigma, const Matching& matching);

}  // namespace esdirk::structural
