#include "esdirk/structural/modes.hpp"

namespace esdirk::structural {

std::vector<Mode> enumerate_modes(const Model& model) {
  const std::size_t k = model.mode_variables.size();
  std::vector<Mode> modes;
  for (std::size_t bits = 0; bits < (std::size_t{1} << k); ++bits) {
    Mode m;
    m.values.resize(k);
    for (std::size_t i = 0; i < k; ++i) m.values[i] = (bits >> (k - 1 - i)) & 1u;
    modes.push_back(std::move(m));
  }
  return modes;
}

std::string mode_name(const Model& model, const Mode& mode) {
  if (model.mode_variables.empty()) return "single mode";
  std::string s;
  for (std::size_t i = 0; i < model.mode_variables.size(); ++i) {
    if (i > 0) s += ", ";
    s += model.mode_variables[i] + (mode.values.at(i) ? "=true" : "=false");
  }
  return s;
}

std::vector<int> active_equations(const Model& model, const Mode& mode) {
  std::vector<int> active;
  for (std::size_t i = 0; i < model.equations.size(); ++i) {
    if (model.equations[i].guard.evaluate(mode.values)) active.push_back(static_cast<int>(i));
  }
  return active;
}

std::vector<int> unknown_variables(const Model& model) {
  std::vector<int> unknowns;
  for (std::size_t i = 0; i < model.variables.size(); ++i) {
    if (model.variables[i].role != VariableRole::free) unknowns.push_back(static_cast<int>(i));
  }
  return unknowns;
}

SignatureMatrix signature_matrix(const Model& model, const std::vector<int>& equations,
                                 const std::vector<int>& variables) {
  std::vector<int> column(model.variables.size(), -1);
  for (std::size_t j = 0; j < variables.size(); ++j) column.at(variables[j]) = static_cast<int>(j);
  std::vector<SignatureEntry> entries;
  for (std::size_t i = 0; i < equations.size(); ++i) {
    for (const Occurrence& o : model.equations.at(equations[i]).occurrences) {
      if (column[o.variable] >= 0) {
        entries.push_back({static_cast<int>(i), column[o.variable], o.orders.back()});
      }
    }
  }
  return SignatureMatrix(static_cast<int>(equations.size()), static_cast<int>(variables.size()),
                         entries);
}

}  // namespace esdirk::structural
