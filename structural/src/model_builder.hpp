#pragma once
// Building a Model in C++ without a text file: the module's tests and fuzz drivers use it
// (internal, not installed, not exported; users write model text, analysis.hpp).
//
//   Model clutch = ModelBuilder("clutch")
//       .mode_variable("gamma")
//       .variables({"omega1", "omega2", "tau1", "tau2"})
//       .equation("e1", {{"omega1", 1}, {"omega1"}, {"tau1"}})        // ω1' = f1(ω1, τ1)
//       .equation("e3", {{"omega1"}, {"omega2"}}, "gamma")            // if γ: ω1 - ω2 = 0
//       .equation("e5", {{"tau1"}}, "!gamma")
//       ...
//       .build();

#include <initializer_list>
#include <string>
#include <vector>

#include "esdirk/structural/model.hpp"

namespace esdirk::structural {

/// One occurrence in an equation: `variable` differentiated `order` times.
struct Use {
  std::string variable;
  int order = 0;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string name = "model");
  /// Primes mean derivatives (default) or forward shifts.
  ModelBuilder& time_domain(TimeDomain time);
  /// Declares a Boolean mode variable for guards.
  ModelBuilder& mode_variable(const std::string& name);
  /// Declares one variable.
  ModelBuilder& variable(const std::string& name, VariableRole role = VariableRole::dependent);
  /// Declares several variables with the same role.
  ModelBuilder& variables(std::initializer_list<std::string> names,
                          VariableRole role = VariableRole::dependent);
  /// Adds an equation with its occurrences and an optional guard (see guard.hpp; "" = always).
  /// Names are resolved in build(), so variables may be declared later.
  ModelBuilder& equation(const std::string& name, const std::vector<Use>& uses,
                         const std::string& guard = "");
  /// The validated model. Throws std::invalid_argument naming the equation and the unknown
  /// variable or mode variable, or any problem found by validate_model.
  Model build() const;

 private:
  struct PendingEquation {
    std::string name;
    std::vector<Use> uses;
    std::string guard;
  };
  Model model_;
  std::vector<PendingEquation> equations_;
};

}  // namespace esdirk::structural
