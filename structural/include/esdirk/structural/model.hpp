#pragma once
// A (multimode) DAE or dAE model for structural analysis: named equations over named variables,
// each occurrence with every derivative (or shift) order at which the variable appears, variable
// roles, and a guard per equation (Benveniste et al. 2021 (33), (41), (46), (84)).

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/guard.hpp"
#include "esdirk/structural/limits.hpp"
#include "esdirk/structural/parse_error.hpp"

namespace esdirk::structural {

/// Role of a variable (Benveniste et al. (33) and (41)).
enum class VariableRole {
  dependent,    ///< X: an unknown to be determined
  free,         ///< Y: given (an input); never an unknown of the Σ-method
  existential,  ///< W: an auxiliary unknown eliminated by ∃ (Algorithm 1); an unknown otherwise
};

/// Whether primes mean derivatives (DAE) or forward shifts x^•k (dAE, Benveniste et al. §5.3). The
/// structural analysis is the same; only the mode-change unfolding reads orders differently.
enum class TimeDomain { continuous, discrete };

struct Variable {
  std::string name;
  VariableRole role = VariableRole::dependent;
  SourceLocation declared_at;
};

/// `variable` occurs at each of `orders` (sorted, distinct, >= 0).
struct Occurrence {
  int variable = 0;
  std::vector<int> orders;
  SourceLocation written_at;
};

struct Equation {
  std::string name;
  Guard guard;  ///< active when true; default: always
  std::vector<Occurrence> occurrences;
  SourceLocation defined_at;
};

struct Model {
  std::string name = "model";
  TimeDomain time = TimeDomain::continuous;
  std::vector<std::string> mode_variables;
  /// Where the first `modes` statement is (line 0 when the model was not read from text);
  /// errors about the number of modes point there.
  SourceLocation modes_declared_at;
  std::vector<Variable> variables;
  std::vector<Equation> equations;

  /// Index of the variable called `name`, or -1.
  int variable_index(std::string_view name) const {
    for (std::size_t i = 0; i < variables.size(); ++i) {
      if (variables[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }
  /// Index of the mode variable called `name`, or -1.
  int mode_variable_index(std::string_view name) const {
    for (std::size_t i = 0; i < mode_variables.size(); ++i) {
      if (mode_variables[i] == name) return static_cast<int>(i);
    }
    return -1;
  }
  /// Highest order at which `variable` occurs in `equation` (σ), or -1 if it does not.
  int highest_order(int equation, int variable) const {
    int best = -1;
    for (const Occurrence& o : equations.at(static_cast<std::size_t>(equation)).occurrences) {
      if (o.variable == variable && !o.orders.empty()) best = std::max(best, o.orders.back());
    }
    return best;
  }
};

/// Checks a model: at least one equation; distinct names for variables and mode variables;
/// valid indices and orders; no two equations with the same name active in the same mode
/// (equations sharing a name must have mutually exclusive guards, the way "if γ then a else
/// b" is written); at most max_mode_variables mode variables, derivative orders at most
/// max_derivative_order, and 2^k × (equations + guard nodes) within max_analysis_work (each
/// guard is evaluated in every mode). Throws ParseError (located when the model came from a
/// file; LimitExceeded for a limit of limits.hpp) or std::invalid_argument.
ESDIRK_API void validate_model(const Model& model);

/// Problems that do not stop the analysis, as "file:line:column: warning: ..." lines: a
/// variable that occurs in no equation, an equation that is never active.
ESDIRK_API std::vector<std::string> model_warnings(const Model& model);

}  // namespace esdirk::structural
