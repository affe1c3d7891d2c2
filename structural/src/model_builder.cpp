#include "esdirk/structural/model_builder.hpp"

#include <algorithm>
#include <stdexcept>

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
  auto mode_index = [&model](std::string_view n) { return model.mode_variable_index(n); };
  for (const PendingEquation& pending : equations_) {
    Equation e;
    e.name = pending.name;
    try {
      if (!pending.guard.empty()) e.guard = Guard::parse(pending.guard, mode_index);
    } catch (const ParseError& error) {
      throw std::invalid_argument("equation '" + pending.name + "': " + error.message());
    }
    for (const Use& use : pending.uses) {
      int v = model.variable_index(use.variable);
      if (v < 0) {
        throw std::invalid_argument("equation '" + pending.name + "' uses unknown variable '" +
                                    use.variable + "'");
      }
      if (use.order < 0) {
        throw std::invalid_argument("equation '" + pending.name + "': negative order for '" +
                                    use.variable + "'");
      }
      auto it = std::find_if(e.occurrences.begin(), e.occurrences.end(),
                             [v](const Occurrence& o) { return o.variable == v; });
      if (it == e.occurrences.end()) {
        e.occurrences.push_back({v, {use.order}, {}});
      } else {
        it->orders.push_back(use.order);
        std::sort(it->orders.begin(), it->orders.end());
        it->orders.erase(std::unique(it->orders.begin(), it->orders.end()), it->orders.end());
      }
    }
    model.equations.push_back(std::move(e));
  }
  validate_model(model);
  return model;
}

}  // namespace esdirk::structural
