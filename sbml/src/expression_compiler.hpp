#pragma once
// Flattens expression trees into register programs over one slot array. Names are resolved
// here, once; a name without a slot is an undefined id (ImportError).

#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "expression.hpp"
#include "program.hpp"

namespace esdirk::sbml::detail {

class ExpressionCompiler {
 public:
  /// Gives `name` its own slot (throws std::logic_error if it has one).
  int add_named_slot(const std::string& name);
  bool has_slot(const std::string& name) const { return named_.count(name) != 0; }
  /// The slot of `name`; `resolve` (if set) is asked first to make it on demand (derived
  /// values compiled in dependency order).
  int slot_of(const std::string& name);
  /// A slot holding the constant v (one per distinct value).
  int constant(double v);
  /// Appends the instructions of `e` to `program`; the result lands in `destination` (a new
  /// temporary when -1). Returns the result's slot.
  int compile(const Expr& e, Program& program, int destination = -1);

  int slot_count() const { return next_; }
  const std::vector<std::pair<int, double>>& constants() const { return constants_; }
  /// Called for a name without a slot before it is an undefined id: it may compile the name's
  /// definition (and give it a slot) and return true.
  std::function<bool(const std::string&)> resolve;
  /// The element the expressions being compiled belong to (for error messages).
  std::string context;

 private:
  int temporary() { return next_++; }
  int next_ = 0;
  std::unordered_map<std::string, int> named_;
  std::unordered_map<double, int> constant_slots_;
  std::vector<std::pair<int, double>> constants_;
  std::unordered_map<int, double> constant_value_;  // slot -> value of the constant slots
};

}  // namespace esdirk::sbml::detail
