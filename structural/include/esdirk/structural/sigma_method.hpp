#pragma once
// Pryce's Σ-method (Benveniste et al. 2021 §4.1, Problem 1, Algorithm 2, Definition 15) and its
// non-square extension (§4.2, Lemma 17), on a signature matrix with indexed equations and
// variables.

#include <cstdint>
#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/bipartite_graph.hpp"
#include "esdirk/structural/block_triangular.hpp"
#include "esdirk/structural/dulmage_mendelsohn.hpp"
#include "esdirk/structural/matching.hpp"
#include "esdirk/structural/offsets.hpp"
#include "esdirk/structural/signature_matrix.hpp"

namespace esdirk::structural {

/// An equation differentiated (or shifted) `order` times: f^(order).
struct DifferentiatedEquation {
  int equation = 0;
  int order = 0;
  friend bool operator==(const DifferentiatedEquation&, const DifferentiatedEquation&) = default;
};

/// A variable's derivative of a given order: x^(order).
struct DerivativeOfVariable {
  int variable = 0;
  int order = 0;
  friend bool operator==(const DerivativeOfVariable&, const DerivativeOfVariable&) = default;
};

enum class SigmaStatus {
  success,
  /// No matching covers every equation (square: structurally singular; more equations than
  /// variables: over-determined). `diagnostics` names the parts.
  structurally_singular,
  /// Non-square with a variable that occurs in no equation (the LP is infeasible).
  variable_occurs_nowhere,
  /// The offsets exceed a limit of limits.hpp (more than max_latent_equations latent
  /// equations, or an offset iteration beyond max_offset_iteration_work); `failure_reason`
  /// names the size.
  too_large,
};

struct SigmaResult {
  SigmaStatus status = SigmaStatus::structurally_singular;
  /// One sentence saying what failed (empty on success).
  std::string failure_reason;
  bool square = true;
  /// DM decomposition of the system's own bipartite graph (all orders merged). On failure the
  /// over-determined equations and under-determined variables are the diagnosis.
  DmDecomposition diagnostics;

  // ---- Valid when status == success ----
  /// Optimal assignment: per equation its matched variable (square: a maximum-weight perfect
  /// matching; non-square: the equation-complete matching inside H).
  Matching matching;
  /// The optimal primal solution H, per equation (equals the matching when square).
  std::vector<std::vector<int>> optimal_solution;
  /// w(H) = Σ σ over H, equal to Σd - Σc by strong duality.
  std::int64_t optimal_weight = 0;
  Offsets offsets;
  std::vector<int>& equation_offsets() { return offsets.equation_offsets; }
  const std::vector<int>& equation_offsets() const { return offsets.equation_offsets; }
  const std::vector<int>& variable_offsets() const { return offsets.variable_offsets; }
  /// Their index k = max_f c_f (Benveniste et al. §4.1, footnote 6). Not Pryce's index.
  int max_offset_index = 0;
  /// Pryce's structural index ν_S = max c + (1 if some d_x = 0). Reported separately because
  /// the two differ whenever a variable is purely algebraic.
  int pryce_structural_index = 0;
  /// Σd - Σc (the number of degrees of freedom, square case).
  std::int64_t degrees_of_freedom = 0;
  /// Leading variables x^(d_x).
  std::vector<DerivativeOfVariable> leading_variables;
  /// Latent equations f^(j), 1 <= j <= c_f, in equation order then j.
  std::vector<DifferentiatedEquation> latent_equations;
  /// F_Σ = { f^(c_f) }.
  std::vector<DifferentiatedEquation> solved_equations;
  /// F̄_Σ = { f^(j), 0 <= j < c_f }: consistency constraints (Definition 15).
  std::vector<DifferentiatedEquation> consistency_constraints;
  /// Sparsity of the System Jacobian J_fx = ∂f/∂x^(d_x - c_f) where d_x - c_f = σ_fx
  /// (the Jacobian of F_Σ with respect to the leading variables).
  BipartiteGraph system_jacobian;
  /// Square: its block triangular form (one entry per irreducible block).
  BlockTriangularForm jacobian_blocks;
  /// Non-square: DM of F_Σ over the leading variables (β_O is empty by Lemma 17).
  DmDecomposition jacobian_dm;

  bool succeeded() const { return status == SigmaStatus::success; }
};

/// Runs the Σ-method. Square systems use the maximum-weight perfect matching; systems with
/// fewer equations than variables use the non-square extension (optimal H built from a
/// maximum-weight equation-complete matching under weights σ_fx - d̂_x, every other variable
/// attached to the first equation where it reaches d̂_x). Failures are returned, not thrown.
ESDIRK_API SigmaResult sigma_method(const SignatureMatrix& sigma);

/// The post-conditions of the offsets (c >= 0; d_x - c_f >= σ_fx on every edge with equality on
/// H; Σd - Σc = w(H) when square; the Jacobian pattern as defined). Returns a description of
/// each violation, empty when all hold.
ESDIRK_API std::vector<std::string> check_sigma_postconditions(const SignatureMatrix& sigma,
                                                    const SigmaResult& result);

}  // namespace esdirk::structural
