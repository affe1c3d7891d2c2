#include "esdirk/structural/model.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace esdirk::structural {

namespace {

std::vector<bool> mode_from_bits(std::size_t bits, std::size_t count) {
  std::vector<bool> mode(count);
  for (std::size_t i = 0; i < count; ++i) mode[i] = (bits >> i) & 1u;
  return mode;
}

std::string where(const SourceLocation& at) {
  std::string s = at.to_string();
  return s.empty() ? "" : " (" + s + ")";
}

}  // namespace

void validate_model(const Model& model) {
  if (model.equations.empty()) {
    SourceLocation at;
    if (!model.variables.empty()) at = model.variables.front().declared_at;
    if (at.line > 0) at = {at.file, 1, 1};
    throw ParseError(at, "the model '" + model.name + "' has no equations");
  }
  if (model.mode_variables.size() > static_cast<std::size_t>(max_mode_variables)) {
    throw LimitExceeded(model.modes_declared_at,
                        "too many mode variables (" + std::to_string(model.mode_variables.size()) +
                            ", at most " + std::to_string(max_mode_variables) +
                            " can be enumerated)");
  }
  // Every guard is evaluated in every mode (here, in the warnings and in the analysis); a model
  // of one mode is linear in its size anyway.
  std::int64_t guard_nodes = 1;
  for (const Equation& e : model.equations) {
    guard_nodes += 1 + static_cast<std::int64_t>(e.guard.size());
  }
  const std::int64_t mode_count = std::int64_t{1} << model.mode_variables.size();
  if (mode_count > 1 && mode_count * guard_nodes > max_analysis_work) {
    throw LimitExceeded(model.modes_declared_at,
                        std::to_string(mode_count) + " modes times " + std::to_string(guard_nodes) +
                            " equations and guard nodes exceed the work limit " +
                            std::to_string(max_analysis_work) + " (fewer mode variables needed)");
  }
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < model.variables.size(); ++i) {
    const Variable& v = model.variables[i];
    auto [it, fresh] = seen.emplace(v.name, static_cast<int>(i));
    if (!fresh) {
      throw ParseError(v.declared_at, "variable '" + v.name + "' is declared twice" +
                                          where(model.variables[it->second].declared_at));
    }
  }
  for (std::size_t i = 0; i < model.mode_variables.size(); ++i) {
    if (model.mode_variable_index(model.mode_variables[i]) != static_cast<int>(i)) {
      throw std::invalid_argument("mode variable '" + model.mode_variables[i] +
                                  "' is declared twice");
    }
  }
  for (const Equation& e : model.equations) {
    for (const Occurrence& o : e.occurrences) {
      if (o.variable < 0 || o.variable >= static_cast<int>(model.variables.size())) {
        throw ParseError(o.written_at, "equation '" + e.name + "' uses an unknown variable");
      }
      if (!o.orders.empty() && o.orders.back() > max_derivative_order) {
        throw LimitExceeded(o.written_at, "equation '" + e.name + "': order " +
                                              std::to_string(o.orders.back()) +
                                              " exceeds the limit " +
                                              std::to_string(max_derivative_order));
      }
      if (o.orders.empty() || o.orders.front() < 0 ||
          !std::is_sorted(o.orders.begin(), o.orders.end()) ||
          std::adjacent_find(o.orders.begin(), o.orders.end()) != o.orders.end()) {
        throw ParseError(o.written_at,
                         "equation '" + e.name + "': orders must be distinct, sorted and >= 0");
      }
    }
  }
  // Equations sharing a name are alternatives and must never be active together.
  const std::size_t modes = std::size_t{1} << model.mode_variables.size();
  std::map<std::string, std::vector<int>> by_name;
  for (std::size_t i = 0; i < model.equations.size(); ++i) {
    by_name[model.equations[i].name].push_back(static_cast<int>(i));
  }
  for (const auto& [name, list] : by_name) {
    if (list.size() < 2) continue;
    for (std::size_t bits = 0; bits < modes; ++bits) {
      auto mode = mode_from_bits(bits, model.mode_variables.size());
      int first = -1;
      for (int i : list) {
        if (!model.equations[i].guard.evaluate(mode)) continue;
        if (first >= 0) {
          throw ParseError(model.equations[i].defined_at,
                           "duplicate equation '" + name + "'" +
                               where(model.equations[first].defined_at) +
                               (model.mode_variables.empty()
                                    ? ""
                                    : ": equations sharing a name need mutually exclusive guards"));
        }
        first = i;
      }
    }
  }
}

std::vector<std::string> model_warnings(const Model& model) {
  std::vector<std::string> warnings;
  auto prefix = [](const SourceLocation& at) {
    std::string s = at.to_string();
    return s.empty() ? std::string("warning: ") : s + ": warning: ";
  };
  std::vector<char> used(model.variables.size(), 0);
  for (const Equation& e : model.equations) {
    for (const Occurrence& o : e.occurrences) used[o.variable] = 1;
  }
  for (std::size_t i = 0; i < model.variables.size(); ++i) {
    if (!used[i] && model.variables[i].role != VariableRole::free) {
      warnings.push_back(prefix(model.variables[i].declared_at) + "variable '" +
                         model.variables[i].name +
                         "' occurs in no equation; it is under-determined in every mode");
    }
  }
  const std::size_t modes = std::size_t{1} << model.mode_variables.size();
  for (const Equation& e : model.equations) {
    bool active = false;
    for (std::size_t bits = 0; bits < modes && !active; ++bits) {
      active = e.guard.evaluate(mode_from_bits(bits, model.mode_variables.size()));
    }
    if (!active) {
      warnings.push_back(prefix(e.defined_at) + "equation '" + e.name + "' is never active");
    }
  }
  return warnings;
}

}  // namespace esdirk::structural
