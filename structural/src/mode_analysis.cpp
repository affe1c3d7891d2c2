#include "esdirk/structural/mode_analysis.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
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

namespace {

using ColumnOf = std::map<std::pair<int, int>, int>;  // (variable, time) -> column

// Unknowns: the leading variables at both instants (deduplicated, in a stable order).
ColumnOf unfold_unknowns(const ModeAnalysis& previous, const ModeAnalysis& current,
                         ModeChangeAnalysis& mc) {
  ColumnOf column_of;
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
  return column_of;
}

// Equations: f shifted s = 0..c_f times, at instant t-1 (previous mode) or t (current), and the
// bipartite graph of the unfolded equations and unknowns with its matching and DM decomposition.
void unfold_equations(const Model& model, const ModeAnalysis& previous, const ModeAnalysis& current,
                      ModeChangeAnalysis& mc) {
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
  // Each variable is an unknown at no more than two instants; an occurrence is tested against
  // those, so its cost does not grow with its order.
  std::vector<std::vector<std::pair<int, int>>> unknown_at(model.variables.size());
  for (std::size_t j = 0; j < mc.unknowns.size(); ++j) {
    unknown_at[mc.unknowns[j].variable].push_back({mc.unknowns[j].time, static_cast<int>(j)});
  }
  std::vector<Edge> edges;
  for (const UnfoldedEquation& u : candidates) {
    std::vector<int> columns;
    for (const Occurrence& o : model.equations[u.equation].occurrences) {
      for (auto [time, column] : unknown_at[o.variable]) {
        // A derivative of order q becomes the forward difference over x[s..s+q]; a shift of
        // order q is exactly x[s+q].
        const int q = time - u.time;
        const bool occurs = model.time == TimeDomain::continuous
                                ? q >= 0 && q <= o.orders.back()
                                : std::binary_search(o.orders.begin(), o.orders.end(), q);
        if (occurs) columns.push_back(column);
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
}

// The causality principle over the unfolded graph: the previous instant first, then the current
// instant's equations over what it left open (conflicts, under-determined unknowns, the restart
// system). Returns what makes the change ill posed.
std::vector<std::string> apply_causality(const Model& model, const ModeAnalysis& previous,
                                         const ColumnOf& column_of, ModeChangeAnalysis& mc) {
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
  return problems;
}

}  // namespace

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
  const ColumnOf column_of = unfold_unknowns(previous, current, mc);
  unfold_equations(model, previous, current, mc);
  const std::vector<std::string> problems = apply_causality(model, previous, column_of, mc);
  mc.well_posed = problems.empty();
  for (const auto& p : problems) {
    if (!mc.problem.empty()) mc.problem += "; ";
    mc.problem += p;
  }
  return mc;
}

namespace {

// a * b for non-negative counts, saturated instead of overflowing.
std::int64_t times(std::int64_t a, std::int64_t b) {
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  return (b != 0 && a > most / b) ? most : a * b;
}

// The work accounting of analyse_model (see its comment in mode_analysis.hpp).
class WorkBudget {
 public:
  WorkBudget(const Model& model, std::int64_t limit) : model_(model) {
    for (int x : unknown_variables(model)) unknown_names_ += name_cost(model.variables[x].name);
    // The model's own size: analysing a model of one mode is linear in it and always fits.
    std::int64_t size = 0;
    for (const Variable& v : model.variables) size += name_cost(v.name);
    for (const Equation& e : model.equations) {
      size += name_cost(e.name);
      for (const Occurrence& o : e.occurrences) {
        size += static_cast<std::int64_t>(o.orders.size()) * name_cost(model.variables[o.variable].name);
      }
    }
    limit_ = limit + times(linear_allowance, size);
  }

  /// A lower bound of a mode's cost (and of half a mode change's), known before it is analysed.
  std::int64_t least_mode_cost() const { return fixed_cost + unknown_names_; }

  /// The cost of an analysed mode.
  std::int64_t mode_cost(const ModeAnalysis& mode) const {
    std::int64_t cost = least_mode_cost();
    for (std::size_t i = 0; i < mode.equations.size(); ++i) {
      const Equation& e = model_.equations[mode.equations[i]];
      std::int64_t uses = 0;
      for (const Occurrence& o : e.occurrences) {
        const auto orders = static_cast<std::int64_t>(o.orders.size());
        uses += orders;
        cost += orders * name_cost(model_.variables[o.variable].name);
      }
      const std::int64_t shifts =
          1 + (mode.result.succeeded() ? mode.result.equation_offsets()[i] : 0);
      cost += shifts * (name_cost(e.name) + 2 * uses);
    }
    return cost;
  }

  /// Adds `cost`, or throws LimitExceeded describing `what` if the total would pass the limit.
  void spend(std::int64_t cost, std::int64_t modes, std::int64_t mode_changes) {
    if (cost <= limit_ - used_) {
      used_ += cost;
      return;
    }
    constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
    const std::int64_t total = cost > most - used_ ? most : used_ + cost;
    throw LimitExceeded(model_.modes_declared_at,
                        "the analysis of " + std::to_string(modes) + " modes and " +
                            std::to_string(mode_changes) + " mode changes needs at least " +
                            (total == most ? std::string("2^63") : std::to_string(total)) +
                            " work units; the limit is " +
                            std::to_string(limit_) + " (doc/structural-guide.md, Limits)");
  }

 private:
  static std::int64_t name_cost(const std::string& name) {
    return 8 + static_cast<std::int64_t>(name.size());
  }
  // Measured: a mode or a mode change of a tiny model takes ~3 KB and ~14 µs; the units are
  // about one byte of report each. A model may use 16 times its own size on top of the limit.
  static constexpr std::int64_t fixed_cost = 256;
  static constexpr std::int64_t linear_allowance = 16;

  const Model& model_;
  std::int64_t limit_ = 0;
  std::int64_t unknown_names_ = 0;
  std::int64_t used_ = 0;
};

bool has_existential_variables(const Model& model) {
  return std::any_of(model.variables.begin(), model.variables.end(),
                     [](const Variable& v) { return v.role == VariableRole::existential; });
}

}  // namespace

ModelAnalysis analyse_model(const Model& model, std::int64_t work_limit) {
  ModelAnalysis analysis;
  analysis.warnings = model_warnings(model);
  const std::vector<Mode> modes = enumerate_modes(model);
  const auto mode_count = static_cast<std::int64_t>(modes.size());
  // Mode changes need the Σ-method; they are not defined for systems with ∃.
  const std::int64_t change_count =
      has_existential_variables(model) ? 0 : mode_count * (mode_count - 1);
  WorkBudget budget(model, work_limit);
  // Fail before any work when even the cheapest modes and mode changes would not fit.
  {
    WorkBudget estimate = budget;
    estimate.spend(times(mode_count + 2 * change_count, budget.least_mode_cost()), mode_count,
                   change_count);
  }
  std::vector<std::int64_t> mode_costs;
  for (const Mode& m : modes) {
    analysis.modes.push_back(analyse_mode(model, m));
    mode_costs.push_back(budget.mode_cost(analysis.modes.back()));
    budget.spend(mode_costs.back(), mode_count, change_count);
  }
  if (change_count == 0) return analysis;
  // Each mode takes part in (modes - 1) changes as the previous and as the current mode.
  std::int64_t all_modes = 0;
  for (std::int64_t c : mode_costs) all_modes += c;
  budget.spend(times(2 * (mode_count - 1), all_modes), mode_count, change_count);
  for (const auto& previous : analysis.modes) {
    for (const auto& current : analysis.modes) {
      if (&previous == &current) continue;
      analysis.mode_changes.push_back(analyse_mode_change(model, previous, current));
    }
  }
  return analysis;
}

}  // namespace esdirk::structural
