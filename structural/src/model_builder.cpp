#include "model_builder.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace esdirk::structural {

ModelBuilder::ModelBuilder(std::string name) { model_.name = std::move(name); }

ModelBuilder& ModelBuilder::time_domain(TimeDomain time) {
  model_.time = time;
  return *this;
}

ModelBuilder& ModelBuilder::mode_variable(const std::string& name) {
  model_.mode_variables.push_back(name);
  return *this;
}

ModelBuilder& ModelBuilder::variable(const std::string& name, VariableRole role) {
  model_.variables.push_back({name, role, {}});
  return *this;
}

ModelBuilder& ModelBuilder::variables(std::initializer_list<std::string> names, VariableRole role) {
  for (const auto& n : names) variable(n, role);
  return *this;
}

ModelBuilder& ModelBuilder::equation(const std::string& name, const std::vector<Use>& uses,
                                     const std::string& guard) {
  equations_.push_back({name, uses, guard});
  return *this;
}

Model ModelBuilder::build() const {
  Model model = model_;
  // Hashed lookups, so that building is linear in the number of names and uses.
  std::unordered_map<std::string, int> variable_index, mode_variable_index;
  for (std::size_t i = 0; i < model.variables.size(); ++i) {
    variable_index.emplace(model.variables[i].name, static_cast<int>(i));
  }
  for (std::size_t i = 0; i < model.mode_variables.size(); ++i) {
    mode_variable_index.emplace(model.mode_variables[i], static_cast<int>(i));
  }
  auto mode_index = [&](std::string_view n) {
    auto it = mode_variable_index.find(std::string(n));
    return it == mode_variable_index.end() ? -1 : it->second;
  };
  std::vector<int> slot(model.variables.size(), -1);  // see model_parser.cpp
  for (const PendingEquation& pending : equations_) {
    Equation e;
    e.name = pending.name;
    try {
      if (!pending.guard.empty()) e.guard = Guard::parse(pending.guard, mode_index);
    } catch (const ParseError& error) {
      throw std::invalid_argument("equation '" + pending.name + "': " + error.message());
    }
    for (const Use& use : pending.uses) {
      auto found = variable_index.find(use.variable);
      int v = found == variable_index.end() ? -1 : found->second;
      if (v < 0) {
        throw std::invalid_argument("equation '" + pending.name + "' uses unknown variable '" +
                                    use.variable + "'");
      }
      if (use.order < 0) {
        throw std::invalid_argument("equation '" + pending.name + "': negative order for '" +
                                    use.variable + "'");
      }
      if (slot[v] < 0) {
        slot[v] = static_cast<int>(e.occurrences.size());
        e.occurrences.push_back({v, {use.order}, {}});
      } else {
        e.occurrences[slot[v]].orders.push_back(use.order);
      }
    }
    for (Occurrence& o : e.occurrences) {
      slot[o.variable] = -1;
      std::sort(o.orders.begin(), o.orders.end());
      o.orders.erase(std::unique(o.orders.begin(), o.orders.end()), o.orders.end());
    }
    model.equations.push_back(std::move(e));
  }
  validate_model(model);
  return model;
}

}  // namespace esdirk::structural
