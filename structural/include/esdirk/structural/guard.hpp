#pragma once
// Guards of multimode equations (Benveniste et al. 2021 §5.1, (84)): a Boolean formula over the
// model's mode variables. An equation is active in a mode when its guard evaluates to true there.
//
// Grammar:  guard := term ('|' term)* ;  term := factor ('&' factor)* ;
//           factor := '!' factor | '(' guard ')' | 'true' | 'false' | NAME
// A guard is at most max_guard_length bytes and nests '(' and '!' at most max_guard_depth
// deep (limits.hpp); evaluation and printing use no recursion, so a long flat guard such as
// `a & a & ... & a` needs no stack either.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/parse_error.hpp"

namespace esdirk::structural {

class Guard {
 public:
  /// The guard `true` (the equation is always active).
  Guard() = default;
  /// Parses `text`. `mode_index` maps a mode-variable name to its index or -1 if unknown.
  /// Errors throw ParseError located at `where` advanced by the offending column (LimitExceeded
  /// for a guard that is too long or nested too deeply).
  static Guard parse(std::string_view text, const std::function<int(std::string_view)>& mode_index,
                     const SourceLocation& where = {});
  /// Value of the guard for the mode `mode` (one Boolean per mode variable).
  bool evaluate(const std::vector<bool>& mode) const;
  /// True for the constant guard `true`.
  bool always() const { return nodes_.empty(); }
  /// The guard as text, with the given names for the mode variables.
  std::string to_string(const std::vector<std::string>& mode_names) const;
  /// Number of nodes (the cost of one evaluation).
  std::size_t size() const { return nodes_.size(); }

 private:
  enum class Kind { constant, variable, negation, conjunction, disjunction };
  struct Node {
    Kind kind = Kind::constant;
    bool value = true;  // constant
    int variable = -1;  // variable
    int left = -1;      // negation, conjunction, disjunction
    int right = -1;     // conjunction, disjunction
  };
  // Children are always stored before their parent (the parser builds bottom-up), so one
  // forward pass over nodes_ evaluates or prints the whole tree without recursion.
  std::vector<Node> nodes_;  // root is the last node
  friend class GuardParser;
};

}  // namespace esdirk::structural
