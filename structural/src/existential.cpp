#include "esdirk/structural/existential.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "esdirk/structural/block_triangular.hpp"
#include "esdirk/structural/report.hpp"

namespace esdirk::structural {

namespace {

std::string list(const std::vector<std::string>& names, const std::vector<int>& indices) {
  std::string s;
  for (int i : indices) {
    if (!s.empty()) s += ", ";
    s += names[i];
  }
  return "{" + s + "}";
}

struct Verdict {
  bool determined = true;
  std::vector<int> determining, consistency;
};

// Conditions 2 and 3 on one decomposition. `columns` maps the decomposed graph's variables to
// the full system's variables; `graph` is the decomposed graph.
Verdict check_blocks(const ExistentialSystem& sys, const BipartiteGraph& graph,
                     const std::vector<int>& columns, const DmDecomposition& dm,
                     std::vector<std::string>& reasons) {
  Verdict v;
  auto role = [&](int local) { return sys.roles[columns[local]]; };
  std::vector<int> under_x;
  for (int x : dm.under_variables) {
    if (role(x) == VariableRole::dependent) under_x.push_back(columns[x]);
  }
  if (!under_x.empty()) {
    v.determined = false;
    reasons.push_back("under-determined X variables " + list(sys.variable_names, under_x));
  }
  // Condition 3 on a group of equations with the variables they compute.
  auto examine = [&](const std::vector<int>& equations, const std::vector<int>& computed) {
    bool has_x = std::any_of(computed.begin(), computed.end(),
                             [&](int x) { return role(x) == VariableRole::dependent; });
    if (!has_x) {
      v.consistency.insert(v.consistency.end(), equations.begin(), equations.end());
      return;
    }
    v.determining.insert(v.determining.end(), equations.begin(), equations.end());
    std::vector<int> used_w;
    for (int f : equations) {
      for (int x : graph.variables_of(f)) {
        if (role(x) == VariableRole::existential) used_w.push_back(columns[x]);
      }
    }
    std::sort(used_w.begin(), used_w.end());
    used_w.erase(std::unique(used_w.begin(), used_w.end()), used_w.end());
    if (!used_w.empty()) {
      v.determined = false;
      reasons.push_back("the block " + list(sys.equation_names, equations) +
                        " determines X variables but depends on existential variables " +
                        list(sys.variable_names, used_w));
    }
  };
  if (!dm.well_equations.empty()) {
    BipartiteGraph well = graph.subgraph(dm.well_equations, dm.well_variables);
    BlockTriangularForm btf = block_triangular_form(well);
    for (const Block& b : btf.blocks) {
      std::vector<int> eqs, vars;
      for (int f : b.equations) eqs.push_back(dm.well_equations[f]);
      for (int x : b.variables) vars.push_back(dm.well_variables[x]);
      examine(eqs, vars);
    }
  }
  if (!dm.over_equations.empty()) examine(dm.over_equations, dm.over_variables);
  std::sort(v.determining.begin(), v.determining.end());
  std::sort(v.consistency.begin(), v.consistency.end());
  return v;
}

}  // namespace

ExistentialAnalysis analyse_existential(const ExistentialSystem& system,
                                        ExistentialSemantics semantics) {
  const BipartiteGraph& g = system.graph;
  if (static_cast<int>(system.equation_names.size()) != g.equation_count() ||
      static_cast<int>(system.variable_names.size()) != g.variable_count() ||
      static_cast<int>(system.roles.size()) != g.variable_count()) {
    throw std::invalid_argument("analyse_existential: names and roles must match the graph");
  }
  ExistentialAnalysis out;
  out.full_dm = dulmage_mendelsohn(g);
  out.not_over_determined = out.full_dm.over_equations.empty();
  if (!out.not_over_determined) {
    out.reasons.push_back("over-determined equations " +
                          list(system.equation_names, out.full_dm.over_equations) +
                          ": no consistent values of the free variables exist generically");
  }
  std::vector<int> all_equations(g.equation_count());
  for (int f = 0; f < g.equation_count(); ++f) all_equations[f] = f;
  Verdict verdict;
  if (semantics == ExistentialSemantics::literal) {
    std::vector<int> identity(g.variable_count());
    for (int x = 0; x < g.variable_count(); ++x) identity[x] = x;
    out.given_dm = out.full_dm;
    verdict = check_blocks(system, g, identity, out.full_dm, out.reasons);
  } else {
    std::vector<int> unknowns;
    for (int x = 0; x < g.variable_count(); ++x) {
      if (system.roles[x] != VariableRole::free) unknowns.push_back(x);
    }
    BipartiteGraph given = g.subgraph(all_equations, unknowns);
    DmDecomposition local = dulmage_mendelsohn(given);
    verdict = check_blocks(system, given, unknowns, local, out.reasons);
    out.given_dm = local;
    for (auto* part : {&out.given_dm.under_variables, &out.given_dm.well_variables,
                       &out.given_dm.over_variables}) {
      for (int& x : *part) x = unknowns[x];
    }
  }
  out.determined = verdict.determined;
  if (out.determined) {
    out.determining_equations = verdict.determining;
    out.consistency_equations = verdict.consistency;
  }
  return out;
}

ExistentialSystem existential_system(const Model& model, const Mode& mode) {
  ExistentialSystem sys;
  std::map<std::pair<int, int>, int> column;  // (variable, order) -> column, in model order
  std::vector<int> equations = active_equations(model, mode);
  for (int e : equations) {
    for (const Occurrence& o : model.equations[e].occurrences) {
      for (int q : o.orders) column.emplace(std::make_pair(o.variable, q), 0);
    }
  }
  for (auto& [key, index] : column) {
    index = static_cast<int>(sys.variable_names.size());
    // x, x', x'', x''', x^(4): a name never grows with the order beyond a few digits.
    sys.variable_names.push_back(with_order(model.variables[key.first].name, key.second));
    sys.roles.push_back(model.variables[key.first].role);
  }
  std::vector<Edge> edges;
  for (std::size_t i = 0; i < equations.size(); ++i) {
    sys.equation_names.push_back(model.equations[equations[i]].name);
    for (const Occurrence& o : model.equations[equations[i]].occurrences) {
      for (int q : o.orders) edges.push_back({static_cast<int>(i), column[{o.variable, q}]});
    }
  }
  sys.graph = BipartiteGraph(static_cast<int>(equations.size()),
                             static_cast<int>(sys.variable_names.size()), edges);
  return sys;
}

}  // namespace esdirk::structural
