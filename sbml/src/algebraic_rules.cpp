// Algebraic rules as the algebraic equations of the semi-explicit DAE, checked by the
// structural module (structural/semi_explicit.hpp, matching.hpp): a maximum matching of rules
// to the free variables they depend on chooses z; the pattern [f_x f_z; g_x g_z] then goes
// through the Σ-method, which tells index 1 from index above 1 and from structural
// singularity.
#include "algebraic_rules.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "esdirk/sbml/sbml.hpp"
#include "esdirk/structural/matching.hpp"
#include "esdirk/structural/semi_explicit.hpp"

namespace esdirk::sbml::detail {
namespace {

namespace st = esdirk::structural;

// The symbols an expression depends on, through assignment rules and reaction rates (an
// algebraic rule that reads an assigned value depends on what that value reads).
class Dependencies {
 public:
  explicit Dependencies(const ModelDesc& d) : d_(d) {
    for (const ReactionDesc& r : d.reactions) rate_of_reaction_[r.id] = &r.rate;
  }

  // Symbol indices, each once, in the order met.
  std::vector<int> of(const Expr& e) const {
    std::vector<int> out;
    std::unordered_set<std::string> seen;
    walk(e, out, seen);
    return out;
  }

  // d(value)/dt of a differential state: its rate rule, or its reactions' terms.
  std::vector<int> of_derivative(const SymbolDesc& s) const {
    std::vector<int> out;
    std::unordered_set<std::string> seen;
    if (s.rule == RuleKind::rate) {
      walk(s.rule_math, out, seen);
    } else if (!s.boundary && !s.constant) {
      for (const ReactionDesc& r : d_.reactions)
        for (const ReactionTerm& t : r.terms)
          if (t.species == s.id) {
            walk(t.stoichiometry, out, seen);
            walk(r.rate, out, seen);
          }
      if (!s.conversion_factor.empty()) add(s.conversion_factor, out, seen);
    }
    // a species kept as an amount: its value n / V reads its own amount
    add(s.id, out, seen);
    return out;
  }

 private:
  void walk(const Expr& e, std::vector<int>& out, std::unordered_set<std::string>& seen) const {
    std::vector<std::string> names;
    collect_symbols(e, names);
    for (const std::string& n : names) add(n, out, seen);
  }

  void add(const std::string& name, std::vector<int>& out, std::unordered_set<std::string>& seen) const {
    if (!seen.insert(name).second) return;
    if (auto it = rate_of_reaction_.find(name); it != rate_of_reaction_.end()) {
      walk(*it->second, out, seen);
      return;
    }
    const auto it = d_.index.find(name);
    if (it == d_.index.end()) return;  // time, csymbols, names the compiler resolves
    const SymbolDesc& s = d_.symbols[static_cast<std::size_t>(it->second)];
    if (s.rule == RuleKind::assignment) {
      walk(s.rule_math, out, seen);
      return;
    }
    out.push_back(it->second);
  }

  const ModelDesc& d_;
  std::unordered_map<std::string, const Expr*> rate_of_reaction_;
};

// The candidates as the columns of the rules' matching, ordered so that what is least likely
// meant to be fixed comes first (not a boundary species, then one without a declared value): the
// matching takes the first free column of a rule (suite case 01787).
struct RuleColumns {
  std::vector<int> symbols;              // column -> symbol
  std::unordered_map<int, int> column_of;  // symbol -> column
  int size() const { return static_cast<int>(symbols.size()); }
};

RuleColumns order_candidates(const ModelDesc& d, const std::vector<int>& candidates) {
  RuleColumns columns{candidates, {}};
  auto fixedness = [&](int v) {
    const SymbolDesc& s = d.symbols[static_cast<std::size_t>(v)];
    return (s.boundary ? 2 : 0) + (s.has_value ? 1 : 0);
  };
  std::stable_sort(columns.symbols.begin(), columns.symbols.end(),
                   [&](int a, int b) { return fixedness(a) < fixedness(b); });
  for (std::size_t c = 0; c < columns.symbols.size(); ++c)
    columns.column_of[columns.symbols[c]] = static_cast<int>(c);
  return columns;
}

// Rules x candidates they depend on: a greedy start in preference order, grown to a maximum
// matching by the structural module.
st::Matching match_rules(const ModelDesc& d, const Dependencies& dependencies, const RuleColumns& columns) {
  const auto& rules = d.algebraic_rules;
  const int nrules = static_cast<int>(rules.size());
  std::vector<st::Edge> edges;
  for (int r = 0; r < nrules; ++r)
    for (int v : dependencies.of(rules[static_cast<std::size_t>(r)].math))
      if (auto it = columns.column_of.find(v); it != columns.column_of.end()) edges.push_back({r, it->second});
  const st::BipartiteGraph rule_graph(nrules, columns.size(), edges);
  st::Matching start = st::Matching::empty(nrules, columns.size());
  for (int r = 0; r < nrules; ++r)
    for (int c : rule_graph.variables_of(r))
      if (start.equation_of_variable[static_cast<std::size_t>(c)] == st::Matching::unmatched) {
        start.variable_of_equation[static_cast<std::size_t>(r)] = c;
        start.equation_of_variable[static_cast<std::size_t>(c)] = r;
        break;
      }
  return st::maximum_matching(rule_graph, std::move(start));
}

// A rule left without a variable of its own: 0 = g(x) with x' = f(x, z) is the index-2 case,
// where z is a free variable only the derivatives read. The whole DAE's graph (equations f then
// g; unknowns the states no rule can take, then the candidates), from x_k <-> f_k and the rules'
// matching, grown to a maximum matching, gives the square system for the Σ-method; a rule still
// unmatched means the rules are structurally singular. Gives each unmatched rule a column.
void pair_unmatched_rules(const ModelDesc& d, const Dependencies& dependencies, const std::vector<int>& states,
                          const RuleColumns& columns, const std::vector<int>& unmatched_rules,
                          std::vector<int>& variable_of_rule) {
  const auto& rules = d.algebraic_rules;
  const int nrules = static_cast<int>(rules.size());
  const int ncolumns = columns.size();
  // Derivatives of the states a rule cannot take (a species without reactions or rules is a
  // state with x' = 0 unless a rule determines it: here a candidate).
  std::vector<int> fixed_states;
  for (int v : states)
    if (!columns.column_of.count(v)) fixed_states.push_back(v);
  const int nx = static_cast<int>(fixed_states.size());
  std::unordered_map<int, int> state_column;
  for (int k = 0; k < nx; ++k) state_column[fixed_states[static_cast<std::size_t>(k)]] = k;
  auto column = [&](int v) {
    if (auto it = state_column.find(v); it != state_column.end()) return it->second;
    if (auto it = columns.column_of.find(v); it != columns.column_of.end()) return nx + it->second;
    return -1;
  };
  std::vector<st::Edge> dae_edges;
  for (int k = 0; k < nx; ++k) {
    dae_edges.push_back({k, k});  // f_k holds x_k'
    for (int v : dependencies.of_derivative(d.symbols[static_cast<std::size_t>(fixed_states[static_cast<std::size_t>(k)])]))
      if (const int c = column(v); c >= 0) dae_edges.push_back({k, c});
  }
  for (int r = 0; r < nrules; ++r)
    for (int v : dependencies.of(rules[static_cast<std::size_t>(r)].math))
      if (const int c = column(v); c >= 0) dae_edges.push_back({nx + r, c});
  const st::BipartiteGraph dae(nx + nrules, nx + ncolumns, dae_edges);
  st::Matching seed = st::Matching::empty(nx + nrules, nx + ncolumns);
  auto pair = [&](int e, int v) {
    seed.variable_of_equation[static_cast<std::size_t>(e)] = v;
    seed.equation_of_variable[static_cast<std::size_t>(v)] = e;
  };
  for (int k = 0; k < nx; ++k) pair(k, k);
  for (int r = 0; r < nrules; ++r)
    if (variable_of_rule[static_cast<std::size_t>(r)] != st::Matching::unmatched)
      pair(nx + r, nx + variable_of_rule[static_cast<std::size_t>(r)]);
  const st::Matching full = st::maximum_matching(dae, std::move(seed));
  if (full.size() < nx + nrules) {
    int first = unmatched_rules[0];
    for (int r : unmatched_rules)
      if (full.variable_of_equation[static_cast<std::size_t>(nx + r)] == st::Matching::unmatched) {
        first = r;
        break;
      }
    throw UnsupportedFeature("structurally singular algebraic rules", rules[static_cast<std::size_t>(first)].id);
  }
  // z: the candidates the full matching uses, one per rule (any one-to-one pairing of rules and
  // z is the same DAE).
  std::vector<int> used;
  for (int c = 0; c < ncolumns; ++c)
    if (full.equation_of_variable[static_cast<std::size_t>(nx + c)] != st::Matching::unmatched) used.push_back(c);
  std::vector<bool> taken(static_cast<std::size_t>(ncolumns), false);
  for (int r = 0; r < nrules; ++r)
    if (variable_of_rule[static_cast<std::size_t>(r)] != st::Matching::unmatched)
      taken[static_cast<std::size_t>(variable_of_rule[static_cast<std::size_t>(r)])] = true;
  std::size_t next = 0;
  for (int r : unmatched_rules) {
    while (taken[static_cast<std::size_t>(used[next])]) ++next;
    variable_of_rule[static_cast<std::size_t>(r)] = used[next];
    taken[static_cast<std::size_t>(used[next])] = true;
  }
}

// The semi-explicit DAE's pattern (x = the states no rule determines, candidate species left to
// their x' = 0 included; z = the rules' variables, z_r for rule r) through the Σ-method: throws
// unless it is structurally regular and of index 1.
void check_index_one(const ModelDesc& d, const Dependencies& dependencies, const std::vector<int>& states,
                     const std::vector<int>& determined, const std::vector<int>& unmatched_rules) {
  const auto& rules = d.algebraic_rules;
  const int nrules = static_cast<int>(rules.size());
  std::vector<int> x_symbols;
  for (int v : states)
    if (std::find(determined.begin(), determined.end(), v) == determined.end()) x_symbols.push_back(v);
  std::unordered_map<int, int> unknown_of;  // symbol -> column of [x z]
  const int nx = static_cast<int>(x_symbols.size());
  for (int k = 0; k < nx; ++k) unknown_of[x_symbols[static_cast<std::size_t>(k)]] = k;
  for (int r = 0; r < nrules; ++r) unknown_of[determined[static_cast<std::size_t>(r)]] = nx + r;
  st::SemiExplicitPattern pattern;
  pattern.nx = nx;
  pattern.nz = nrules;
  auto add_row = [&](int row, const std::vector<int>& reads) {
    for (int v : reads)
      if (auto it = unknown_of.find(v); it != unknown_of.end()) pattern.nonzeros.emplace_back(row, it->second);
  };
  for (int k = 0; k < nx; ++k)
    add_row(k, dependencies.of_derivative(d.symbols[static_cast<std::size_t>(x_symbols[static_cast<std::size_t>(k)])]));
  for (int r = 0; r < nrules; ++r) add_row(nx + r, dependencies.of(rules[static_cast<std::size_t>(r)].math));
  const st::SemiExplicitCheck check = st::check_semi_explicit_index1(pattern);
  if (!check.structurally_regular)
    throw UnsupportedFeature("structurally singular algebraic rules",
                             rules[static_cast<std::size_t>(unmatched_rules.empty() ? 0 : unmatched_rules[0])].id);
  if (!check.index1) {
    const int rule = check.differentiate.empty() ? (unmatched_rules.empty() ? 0 : unmatched_rules[0])
                                                 : check.differentiate[0].g_index;
    throw UnsupportedFeature("algebraic rule of index above 1", rules[static_cast<std::size_t>(rule)].id);
  }
}

}  // namespace

std::vector<int> determine_algebraic_variables(const ModelDesc& d, const std::vector<int>& states,
                                               const std::vector<int>& candidates) {
  const auto& rules = d.algebraic_rules;
  if (rules.empty()) return {};
  const Dependencies dependencies(d);
  const int nrules = static_cast<int>(rules.size());
  const RuleColumns columns = order_candidates(d, candidates);
  const st::Matching matching = match_rules(d, dependencies, columns);

  std::vector<int> variable_of_rule(rules.size());
  std::vector<int> unmatched_rules;
  for (int r = 0; r < nrules; ++r) {
    variable_of_rule[static_cast<std::size_t>(r)] = matching.variable_of_equation[static_cast<std::size_t>(r)];
    if (variable_of_rule[static_cast<std::size_t>(r)] == st::Matching::unmatched) unmatched_rules.push_back(r);
  }
  if (!unmatched_rules.empty())
    pair_unmatched_rules(d, dependencies, states, columns, unmatched_rules, variable_of_rule);

  std::vector<int> determined(rules.size());
  for (int r = 0; r < nrules; ++r)
    determined[static_cast<std::size_t>(r)] = columns.symbols[static_cast<std::size_t>(variable_of_rule[static_cast<std::size_t>(r)])];
  check_index_one(d, dependencies, states, determined, unmatched_rules);
  return determined;
}

}  // namespace esdirk::sbml::detail
