#include "esdirk/structural/dulmage_mendelsohn.hpp"

#include <stdexcept>

namespace esdirk::structural {

namespace {

// Marks everything reachable by alternating paths from unmatched equations: equation -> any
// of its variables -> that variable's matched equation -> ... (β_O of Definition 7).
void reach_from_unmatched_equations(const BipartiteGraph& g, const Matching& m,
                                    std::vector<char>& eq_seen, std::vector<char>& var_seen) {
  std::vector<int> stack;
  for (int f = 0; f < g.equation_count(); ++f) {
    if (m.variable_of_equation[f] == Matching::unmatched) {
      eq_seen[f] = 1;
      stack.push_back(f);
    }
  }
  while (!stack.empty()) {
    int f = stack.back();
    stack.pop_back();
    for (int x : g.variables_of(f)) {
      if (var_seen[x]) continue;
      var_seen[x] = 1;
      int h = m.equation_of_variable[x];
      if (h != Matching::unmatched && !eq_seen[h]) {
        eq_seen[h] = 1;
        stack.push_back(h);
      }
    }
  }
}

// The mirror image from unmatched variables: variable -> any equation containing it -> that
// equation's matched variable -> ... (β_U).
void reach_from_unmatched_variables(const BipartiteGraph& g, const Matching& m,
                                    std::vector<char>& eq_seen, std::vector<char>& var_seen) {
  std::vector<int> stack;
  for (int x = 0; x < g.variable_count(); ++x) {
    if (m.equation_of_variable[x] == Matching::unmatched) {
      var_seen[x] = 1;
      stack.push_back(x);
    }
  }
  while (!stack.empty()) {
    int x = stack.back();
    stack.pop_back();
    for (int f : g.equations_of(x)) {
      if (eq_seen[f]) continue;
      eq_seen[f] = 1;
      int y = m.variable_of_equation[f];
      if (y != Matching::unmatched && !var_seen[y]) {
        var_seen[y] = 1;
        stack.push_back(y);
      }
    }
  }
}

}  // namespace

DmDecomposition dulmage_mendelsohn(const BipartiteGraph& graph, const Matching& matching) {
  if (!is_valid_matching(graph, matching)) {
    throw std::invalid_argument("dulmage_mendelsohn: the matching is not valid for the graph");
  }
  if (maximum_matching(graph, matching).size() != matching.size()) {
    throw std::invalid_argument("dulmage_mendelsohn: the matching is not maximum");
  }
  const int ne = graph.equation_count();
  const int nv = graph.variable_count();
  std::vector<char> over_eq(ne, 0), over_var(nv, 0), under_eq(ne, 0), under_var(nv, 0);
  reach_from_unmatched_equations(graph, matching, over_eq, over_var);
  reach_from_unmatched_variables(graph, matching, under_eq, under_var);
  DmDecomposition dm;
  // With a maximum matching the two searches never meet (an overlap would give an augmenting
  // path), so each vertex lands in exactly one part.
  for (int f = 0; f < ne; ++f) {
    if (over_eq[f]) {
      dm.over_equations.push_back(f);
    } else if (under_eq[f]) {
      dm.under_equations.push_back(f);
    } else {
      dm.well_equations.push_back(f);
    }
  }
  for (int x = 0; x < nv; ++x) {
    if (over_var[x]) {
      dm.over_variables.push_back(x);
    } else if (under_var[x]) {
      dm.under_variables.push_back(x);
    } else {
      dm.well_variables.push_back(x);
    }
  }
  return dm;
}

DmDecomposition dulmage_mendelsohn(const BipartiteGraph& graph) {
  return dulmage_mendelsohn(graph, maximum_matching(graph));
}

}  // namespace esdirk::structural
