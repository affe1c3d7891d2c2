#pragma once
// What the importer reads from an SBML model, in its own terms (no libSBML types): symbols,
// rules, reactions and events with their math as expression trees. model_builder.cpp turns
// it into the compiled hybrid problem.

#include <string>
#include <unordered_map>
#include <vector>

#include "expression.hpp"

namespace esdirk::sbml::detail {

enum class SymbolKind { compartment, species, parameter, species_reference, local_parameter };
enum class RuleKind { none, assignment, rate, algebraic };

struct SymbolDesc {
  std::string id;
  SymbolKind kind = SymbolKind::parameter;
  bool constant = true;
  bool has_value = false;
  double value = 0.0;                   // as declared (a species: amount or concentration)
  bool value_is_concentration = false;  // a species declared with initialConcentration
  // species
  std::string compartment;
  bool only_substance = false;
  bool boundary = false;
  std::string conversion_factor;
  bool in_reactions = false;            // a non-boundary species some reaction changes
  bool sizeless = false;                // a zero-dimensional compartment (its size is NaN)
  // how the value is defined over time and at t0
  RuleKind rule = RuleKind::none;
  Expr rule_math;
  bool has_initial_assignment = false;
  Expr initial_math;
};

struct ReactionTerm {
  std::string species;
  Expr stoichiometry;  // a number, a species reference id or stoichiometryMath
  double sign = 1.0;   // -1 reactant, +1 product
};

struct ReactionDesc {
  std::string id;
  Expr rate;
  std::vector<ReactionTerm> terms;
};

struct EventAssignmentDesc {
  std::string target;
  Expr math;
};

struct EventDesc {
  std::string id;
  Expr trigger;
  bool initial_value = true;
  bool persistent = true;
  bool use_values_from_trigger_time = true;
  bool has_delay = false;
  Expr delay;
  bool has_priority = false;
  Expr priority;
  std::vector<EventAssignmentDesc> assignments;
};

struct AlgebraicRuleDesc {
  std::string id;  // the rule's metaid or "algebraic rule N"
  Expr math;
};

struct ModelDesc {
  std::string id;
  std::vector<SymbolDesc> symbols;
  std::unordered_map<std::string, int> index;  // symbol id -> position
  std::vector<ReactionDesc> reactions;
  std::vector<AlgebraicRuleDesc> algebraic_rules;
  std::vector<EventDesc> events;

  SymbolDesc* find(const std::string& id) {
    auto it = index.find(id);
    return it == index.end() ? nullptr : &symbols[static_cast<std::size_t>(it->second)];
  }
  const SymbolDesc* find(const std::string& id) const {
    auto it = index.find(id);
    return it == index.end() ? nullptr : &symbols[static_cast<std::size_t>(it->second)];
  }
};

}  // namespace esdirk::sbml::detail
