#pragma once
// Per-mode Σ-method and mode-change analysis of a multimode model (Benveniste et al. 2021 §2.3,
// §5.3, Principle 1).
//
// A mode change previous -> current is analysed on the index-reduced dAE unfolded over two
// instants: the previous mode's equations f shifted j = 0..c_f times at instant t-1, the current
// mode's at instant t; the unknowns are the leading variables of both instants,
// x[t-1+d_x(previous)] and x[t+d_x(current)]; everything else is given (the states before the
// event). The DM decomposition of this unfolded system (Benveniste et al. (20)) is reported. The
// causality principle is then applied in two steps: the previous instant's equations determine its
// leading variables ("set by the previous instant"); the current instant's equations are decomposed
// over the unknowns left open, their over-determined part are the conflicts that are dropped
// (matching-independent, Lemmas 8 and 9), and the well-determined rest is the restart system. On
// the clutch this is exactly the paper's (26) and (32).

#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/block_triangular.hpp"
#include "esdirk/structural/dulmage_mendelsohn.hpp"
#include "esdirk/structural/existential.hpp"
#include "esdirk/structural/model.hpp"
#include "esdirk/structural/modes.hpp"
#include "esdirk/structural/sigma_method.hpp"

namespace esdirk::structural {

/// The Σ-method on the equations active in one mode, over all unknowns of the model.
struct ModeAnalysis {
  Mode mode;
  std::string name;
  std::vector<int> equations;  ///< model indices of the rows of `sigma`
  std::vector<int> variables;  ///< model indices of the columns of `sigma`
  SignatureMatrix sigma;
  SigmaResult result;
  /// Only for models that declare existential variables: Algorithm 1 on the mode's equations
  /// as an algebraic system (each (variable, order) pair one unknown).
  bool has_existential = false;
  ExistentialSystem existential_system;
  ExistentialAnalysis existential;
  /// A mode is well posed when the Σ-method succeeds on a square system. A non-square success
  /// (fewer equations than unknowns, §4.2) still leaves unknowns undetermined.
  bool well_posed() const { return result.succeeded() && result.square; }
};

/// Runs the Σ-method in `mode` (and Algorithm 1 when the model has existential variables).
ESDIRK_API ModeAnalysis analyse_mode(const Model& model, const Mode& mode);

/// An equation of the unfolded system: model equation shifted to instant t + `time`.
struct UnfoldedEquation {
  int equation = 0;
  int time = 0;           ///< the instant the shifted equation speaks about (t + time)
  bool previous = false;  ///< it belongs to the previous instant's (previous mode's) system
};

/// An unknown of the unfolded system: model variable at instant t + `time`.
struct UnfoldedVariable {
  int variable = 0;
  int time = 0;
};

struct ModeChangeAnalysis {
  Mode previous;
  Mode current;
  std::string name;  ///< "previous -> current"
  /// False when one of the two modes failed its own analysis; `skipped_reason` says which.
  bool analysed = false;
  std::string skipped_reason;

  std::vector<UnfoldedEquation> equations;  ///< rows of `graph`
  std::vector<UnfoldedVariable> unknowns;   ///< columns of `graph`
  /// Equations without any unknown: conditions on the given values, assumed to hold (the
  /// previous mode's consistency constraints evaluated on the states before the event).
  std::vector<UnfoldedEquation> assumed;
  BipartiteGraph graph;
  int structural_rank = 0;
  DmDecomposition dm;  ///< of `graph`

  /// Current-instant equations in the over-determined part (indices into `equations`): the
  /// conflicts the causality principle removes.
  std::vector<int> conflicts;
  /// Unknowns fixed by the previous instant (its leading variables).
  std::vector<int> set_by_previous_instant;
  /// The restart system: the well-determined part of the current-instant equations over the
  /// open unknowns (indices into `equations` and `unknowns`), and its block triangular form
  /// (indices into `restart_equations` / `restart_unknowns`).
  std::vector<int> restart_equations;
  std::vector<int> restart_unknowns;
  BlockTriangularForm restart_blocks;
  /// True when the restart is structurally well posed: the previous instant determines its
  /// leading variables, the conflicts contain no current-instant unknown (so dropping them is
  /// deterministic), and no current-instant unknown is under-determined.
  bool well_posed = false;
  /// Why it is not well posed (empty when it is).
  std::string problem;
};

/// Analyses the change previous -> current given both modes' analyses.
ESDIRK_API ModeChangeAnalysis analyse_mode_change(const Model& model, const ModeAnalysis& previous,
                                       const ModeAnalysis& current);

/// The whole model: every mode, and every ordered pair of distinct modes (none for models with
/// existential variables).
struct ModelAnalysis {
  std::vector<ModeAnalysis> modes;
  std::vector<ModeChangeAnalysis> mode_changes;
  std::vector<std::string> warnings;  ///< from model_warnings
  /// True when every mode and every mode change succeeded. For a model with existential
  /// variables: when Algorithm 1 succeeds in every mode (b_O and b_U); the Σ-method is then
  /// reported for information and mode changes are not analysed.
  bool well_posed() const {
    for (const auto& m : modes) {
      // With existential variables the question is Algorithm 1's (is X a function of Y?);
      // the Σ-method result is then informational only.
      if (m.has_existential) {
        if (!(m.existential.not_over_determined && m.existential.determined)) return false;
      } else if (!m.well_posed()) {
        return false;
      }
    }
    for (const auto& mc : mode_changes) {
      if (!mc.analysed || !mc.well_posed) return false;
    }
    return true;
  }
};

/// Analyses every mode and every mode change within `work_limit` units (limits.hpp,
/// max_analysis_work): a mode costs about the size of its part of the report (names of its
/// unknowns, its active equations times 1 + c_f, its occurrences), a mode change the cost of
/// its two modes. The count is checked before any work that it would exceed (the mode changes
/// all at once, once the modes are known), so a model that asks for too much fails fast with
/// LimitExceeded (located at the `modes` statement when there is one), naming the work
/// needed, the number of modes and mode changes and the limit.
ESDIRK_API ModelAnalysis analyse_model(const Model& model,
                                       std::int64_t work_limit = max_analysis_work);

/// "e3[t+1]" / "omega1[t-1]" style names for unfolded equations and unknowns.
ESDIRK_API std::string unfolded_name(const Model& model, const UnfoldedEquation& equation);
ESDIRK_API std::string unfolded_name(const Model& model, const UnfoldedVariable& variable);

}  // namespace esdirk::structural
