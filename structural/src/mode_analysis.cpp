#include "esdirk/structural/mode_analysis.hpp"

#include <algorithm>
#include <map>

namespace esdirk::structural {

namespace {

std::string instant(int time) {
  if (time == 0) return "[t]";
  return time > 0 ? "[t+" + std::to_string(time) + "]" : "[t" + std::to_string(time) + "]";
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

}  // namespace

std::string unfolded_name(const Model& model, const UnfoldedEquation& equation) {
  return model.equations.at(equation.equation).name + instant(equation.time);
}

std::string unfolded_name(const Model& model, const UnfoldedVariable& variable) {
  return model.variables.at(variable.variable).name + instant(variable.time);
}

ModeAnalysis analyse_mode(const Model& model, const Mode& mode) {
  ModeAnalysis a;
  a.mode = mode;
  a.name = mode_name(model, mode);
  a.equations = active_equations(model, mode);
  a.variables = unknown_variables(model);
  a.sigma = signature_matrix(model, a.equations, a.variables);
  a.result = sigma_method(a.sigma);
  for (const Variable& v : model.variables) {
    a.has_existential = a.has_existential || v.role == VariableRole::existential;
  }
  if (a.has_existential) {
    a.existential_system = existential_system(model, mode);
    a.existential = analyse_existential(a.existential_system);
  }
  return a;
}

ModeChangeAnalysis analyse_mode_change(const Model& model, const ModeAnalysis& previous,
                                       const ModeAnalysis& current) {
  ModeChangeAnalysis mc;
  mc.previous = previous.mode;
  mc.current = current.mode;
  mc.name = previous.name + " -> " + current.name;
  for (const ModeAnalysis* side : {&previous, &current}) {
    if (!side->result.succeeded()) {
      mc.skipped_reason = "mode " + side->name + " is not structurally well posed";
      return mc;
    }
  }
  mc.analysed = true;

  // Unknowns: the leading variables at both instants (deduplicated, in a stable order).
  std::map<std::pair<int, int>, int> column_of;  // (variable, time) -> column
  auto add_unknown = [&](int variable, int time) {
    if (column_of.emplace(std::make_pair(variable, time), 0).second) {
      mc.unknowns.push_back({variable, time});
    }
  };
  for (std::size_t j = 0; j < previous.variables.size(); ++j) {
    add_unknown(previous.variables[j], -1 + previous.result.variable_offsets()[j]);
  }
  for (std::size_t j = 0; j < current.variables.size(); ++j) {
    add_unknown(current.variables[j], current.result.variable_offsets()[j]);
  }
  std::stable_sort(mc.unknowns.begin(), mc.unknowns.end(),
                   [](const UnfoldedVariable& a, const UnfoldedVariable& b) {
                     return a.time != b.time ? a.time < b.time : a.variable < b.variable;
                   });
  for (std::size_t j = 0; j < mc.unknowns.size(); ++j) {
    column_of[{mc.unknowns[j].variable, mc.unknowns[j].time}] = static_cast<int>(j);
  }

  // Equations: f shifted s = 0..c_f times, at instant t-1 (previous mode) or t (current).
  std::vector<UnfoldedEquation> candidates;
  for (std::size_t i = 0; i < previous.equations.size(); ++i) {
    for (int s = 0; s <= previous.result.equation_offsets()[i]; ++s) {
      candidates.push_back({previous.equations[i], -1 + s, true});
    }
  }
  for (std::size_t i = 0; i < current.equations.size(); ++i) {
    for (int s = 0; s <= current.result.equation_offsets()[i]; ++s) {
      candidates.push_back({current.equations[i], s, false});
    }
  }
  std::vector<Edge> edges;
  for (const UnfoldedEquation& u : candidates) {
    std::vector<int> columns;
    for (const Occurrence& o : model.equations[u.equation].occurrences) {
      if (model.variables[o.variable].role == VariableRole::free) continue;
      // A derivative of order q becomes the forward difference over x[s..s+q]; a shift of
      // order q is exactly x[s+q].
      std::vector<int> times;
      if (model.time == TimeDomain::continuous) {
        for (int q = 0; q <= o.orders.back(); ++q) times.push_back(u.time + q);
      } else {
        for (int q : o.orders) times.push_back(u.time + q);
      }
      for (int t : times) {
        auto it = column_of.find({o.variable, t});
        if (it != column_of.end()) columns.push_back(it->second);
      }
    }
    if (columns.empty()) {
      mc.assumed.push_back(u);
      continue;
    }
    int row = static_cast<int>(mc.equations.size());
    mc.equations.push_back(u);
    for (int c : columns) edges.push_back({row, c});
  }
  mc.graph = BipartiteGraph(static_cast<int>(mc.equations.size()),
                            static_cast<int>(mc.unknowns.size()), edges);
  Matching matching = maximum_matching(mc.graph);
  mc.structural_rank = matching.size();
  mc.dm = dulmage_mendelsohn(mc.graph, matching);

  for (int f : mc.dm.over_equations) {
    if (!mc.equations[f].previous) mc.conflicts.push_back(f);
  }
  mc.set_by_previous_instant = mc.dm.over_variables;

  std::vector<std::string> problems;
  if (!mc.dm.under_variables.empty()) {
    std::vector<std::string> names;
    for (int x : mc.dm.under_variables) names.push_back(unfolded_name(model, mc.unknowns[x]));
    problems.push_back("under-determined unknowns: " + join_names(names));
  }
  // Causality: what remains of the over-determined part after dropping the conflicts must be
  // exactly the previous instant's equations for its variables.
  std::vector<int> previous_part;
  for (int f : mc.dm.over_equations) {
    if (mc.equations[f].previous) previous_part.push_back(f);
  }
  BipartiteGraph kept = mc.graph.subgraph(previous_part, mc.dm.over_variables);
  int kept_rank = structural_rank(kept);
  if (kept_rank != static_cast<int>(previous_part.size()) ||
      kept_rank != static_cast<int>(mc.dm.over_variables.size())) {
    std::vector<std::string> names;
    for (int f : previous_part) names.push_back(unfolded_name(model, mc.equations[f]));
    problems.push_back("the previous-instant equations {" + join_names(names) +
                       "} are not a well-determined system for the variables they share with the "
                       "conflict");
  }
  // Lemma 9: remove the over-determined part (equations and variables) and decompose again.
  std::vector<int> rest_equations, rest_unknowns;
  for (int f = 0; f < mc.graph.equation_count(); ++f) {
    if (!std::binary_search(mc.dm.over_equations.begin(), mc.dm.over_equations.end(), f)) {
      rest_equations.push_back(f);
    }
  }
  for (int x = 0; x < mc.graph.variable_count(); ++x) {
    if (!std::binary_search(mc.dm.over_variables.begin(), mc.dm.over_variables.end(), x)) {
      rest_unknowns.push_back(x);
    }
  }
  BipartiteGraph rest = mc.graph.subgraph(rest_equations, rest_unknowns);
  DmDecomposition rest_dm = dulmage_mendelsohn(rest);
  if (!rest_dm.over_equations.empty()) {
    problems.push_back("an over-determined part remains after removing the conflicts");
  }
  for (int f : rest_dm.well_equations) mc.restart_equations.push_back(rest_equations[f]);
  for (int x : rest_dm.well_variables) mc.restart_unknowns.push_back(rest_unknowns[x]);
  BipartiteGraph restart = mc.graph.subgraph(mc.restart_equations, mc.restart_unknowns);
  mc.restart_blocks = block_triangular_form(restart);
  mc.well_posed = problems.empty();
  for (const auto& p : problems) {
    if (!mc.problem.empty()) mc.problem += "; ";
    mc.problem += p;
  }
  return mc;
}

bool ModelAnalysis::well_posed() const {
  for (const auto& m : modes) {
    if (!m.result.succeeded()) return false;
    if (m.has_existential && !(m.existential.not_over_determined && m.existential.determined)) {
      return false;
    }
  }
  for (const auto& mc : mode_changes) {
    if (!mc.analysed || !mc.well_posed) return false;
  }
  return true;
}

ModelAnalysis analyse_model(const Model& model) {
  ModelAnalysis analysis;
  analysis.warnings = model_warnings(model);
  for (const Mode& m : enumerate_modes(model)) analysis.modes.push_back(analyse_mode(model, m));
  for (const auto& previous : analysis.modes) {
    for (const auto& current : analysis.modes) {
      if (&previous == &current) continue;
      analysis.mode_changes.push_back(analyse_mode_change(model, previous, current));
    }
  }
  return analysis;
}

}  // namespace esdirk::structural
