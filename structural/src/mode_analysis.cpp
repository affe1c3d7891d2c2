#include "esdirk/structural/mode_analysis.hpp"

#include <algorithm>
#include <map>
#include <set>

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
    if (!side->well_posed()) {
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
  // An instance that the previous instant already contains (same equation, same instant, e.g.
  // an unguarded equation shifted as a latent equation of the previous mode) is the same
  // equation and is kept once, as a previous-instant equation: it was enforced there.
  std::vector<UnfoldedEquation> candidates;
  std::set<std::pair<int, int>> previous_instances;
  for (std::size_t i = 0; i < previous.equations.size(); ++i) {
    for (int s = 0; s <= previous.result.equation_offsets()[i]; ++s) {
      candidates.push_back({previous.equations[i], -1 + s, true});
      previous_instances.insert({previous.equations[i], -1 + s});
    }
  }
  for (std::size_t i = 0; i < current.equations.size(); ++i) {
    for (int s = 0; s <= current.result.equation_offsets()[i]; ++s) {
      if (!previous_instances.count({current.equations[i], s})) {
        candidates.push_back({current.equations[i], s, false});
      }
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

  // Causality, step 1: the previous instant is solved first; its equations determine its
  // leading variables (the previous mode's System Jacobian, so this is square and regular).
  std::vector<int> previous_rows, current_rows;
  for (int f = 0; f < mc.graph.equation_count(); ++f) {
    (mc.equations[f].previous ? previous_rows : current_rows).push_back(f);
  }
  std::vector<char> known(mc.unknowns.size(), 0);
  for (std::size_t j = 0; j < previous.variables.size(); ++j) {
    int c = column_of.at({previous.variables[j], -1 + previous.result.variable_offsets()[j]});
    known[c] = 1;
    mc.set_by_previous_instant.push_back(c);
  }
  std::sort(mc.set_by_previous_instant.begin(), mc.set_by_previous_instant.end());
  std::vector<std::string> problems;
  BipartiteGraph previous_system = mc.graph.subgraph(previous_rows, mc.set_by_previous_instant);
  if (structural_rank(previous_system) != static_cast<int>(previous_rows.size()) ||
      previous_rows.size() != mc.set_by_previous_instant.size()) {
    problems.push_back("the previous instant's equations do not determine its leading variables");
  }
  // Step 2: the current-instant equations over the unknowns the previous instant left open.
  // Their over-determined part are the conflicts (matching-independent, Lemma 8); Lemma 9:
  // without it the rest has no over-determined part and its well-determined part is the
  // restart system.
  std::vector<int> open_unknowns;
  for (int x = 0; x < mc.graph.variable_count(); ++x) {
    if (!known[x]) open_unknowns.push_back(x);
  }
  BipartiteGraph now = mc.graph.subgraph(current_rows, open_unknowns);
  DmDecomposition now_dm = dulmage_mendelsohn(now);
  for (int f : now_dm.over_equations) mc.conflicts.push_back(current_rows[f]);
  if (!now_dm.over_variables.empty()) {
    std::vector<std::string> names;
    for (int x : now_dm.over_variables)
      names.push_back(unfolded_name(model, mc.unknowns[open_unknowns[x]]));
    problems.push_back("the conflicting equations also determine current-instant unknowns " +
                       join_names(names) +
                       ", so dropping them is not determined by the causality principle");
  }
  if (!now_dm.under_variables.empty()) {
    std::vector<std::string> names;
    for (int x : now_dm.under_variables) {
      names.push_back(unfolded_name(model, mc.unknowns[open_unknowns[x]]));
    }
    problems.push_back("under-determined unknowns: " + join_names(names));
  }
  for (int f : now_dm.well_equations) mc.restart_equations.push_back(current_rows[f]);
  for (int x : now_dm.well_variables) mc.restart_unknowns.push_back(open_unknowns[x]);
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
    // With existential variables the question is Algorithm 1's (is X a function of Y?);
    // the Σ-method result is then informational only.
    if (m.has_existential) {
      if (!(m.existential.not_over_determined && m.existential.determined)) return false;
    } else if (!m.well_posed()) {
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
  bool existential = !analysis.modes.empty() && analysis.modes.front().has_existential;
  for (const auto& previous : analysis.modes) {
    if (existential) break;  // mode changes need the Σ-method; not defined for ∃-systems
    for (const auto& current : analysis.modes) {
      if (&previous == &current) continue;
      analysis.mode_changes.push_back(analyse_mode_change(model, previous, current));
    }
  }
  return analysis;
}

}  // namespace esdirk::structural
