#pragma once
// Algebraic systems with existential quantifiers, ∃W : F(X, W, Y) = 0 (Benveniste et al. 2021 §3.4,
// Definition 13, Lemma 14, Algorithm 1 ExistQuantifEqn).
//
// Lemma 14 read literally decomposes F with X, W and Y all as unknowns; its condition 2 ("β_U
// contains no X") then rejects x - y = 0, where x is plainly a function of y.
// The default semantics here (`given_free_variables`) therefore checks:
//   1. over X ∪ W ∪ Y: the over-determined part is empty   (b_O: consistent Y exist);
//   2. over X ∪ W with Y given: no X variable is under-determined;
//   3. in that Y-given system, every irreducible block (and the over-determined part) holding
//      an X variable holds no W variable, and none of its equations uses a W variable of
//      another block (no direct W -> X edge).
// 2 and 3 give b_U. The literal reading is available for comparison.
// b_U is computed even when b_O is false (Algorithm 1 leaves it unset), so both problems can
// be reported at once.

#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/bipartite_graph.hpp"
#include "esdirk/structural/dulmage_mendelsohn.hpp"
#include "esdirk/structural/model.hpp"
#include "esdirk/structural/modes.hpp"

namespace esdirk::structural {

enum class ExistentialSemantics {
  given_free_variables,  ///< the default (Flag A resolved as described above)
  literal,               ///< Lemma 14 as printed, on the DM over X ∪ W ∪ Y
};

/// An algebraic system: equations × variables with a role per variable.
struct ExistentialSystem {
  std::vector<std::string> equation_names;
  std::vector<std::string> variable_names;
  std::vector<VariableRole> roles;  ///< dependent = X, existential = W, free = Y
  BipartiteGraph graph;
};

struct ExistentialAnalysis {
  bool not_over_determined = false;  ///< b_O
  bool determined = false;           ///< b_U
  /// F_Σ of Algorithm 1: equations of the blocks that determine X (sorted indices).
  std::vector<int> determining_equations;
  /// F̄_Σ of Algorithm 1: consistency conditions whose unknowns lie in W ∪ Y.
  std::vector<int> consistency_equations;
  DmDecomposition full_dm;   ///< over X ∪ W ∪ Y
  DmDecomposition given_dm;  ///< over X ∪ W with Y given (indices into the full variables)
  /// Why b_O or b_U is false, one sentence each, naming equations and variables.
  std::vector<std::string> reasons;
};

/// Runs Algorithm 1 with the chosen semantics. Throws std::invalid_argument when the names
/// or roles do not match the graph's sizes.
ESDIRK_API ExistentialAnalysis analyse_existential(
    const ExistentialSystem& system,
    ExistentialSemantics semantics = ExistentialSemantics::given_free_variables);

/// The algebraic system of a model's equations active in `mode`: every distinct (variable,
/// order) pair that occurs is one unknown named x, x', x'', x''', x^(4), ..., with the
/// variable's role.
ESDIRK_API ExistentialSystem existential_system(const Model& model, const Mode& mode);

}  // namespace esdirk::structural
