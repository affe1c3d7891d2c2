#pragma once
// Maximum-cardinality matching of a bipartite graph (Hopcroft–Karp) and the structural rank.
// Benveniste et al. 2021 §3.2.1 (matchings) and Definition 4 (structural nonsingularity = complete
// matching).

#include <cstddef>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/bipartite_graph.hpp"

namespace esdirk::structural {

/// A matching: each equation is matched to at most one variable and vice versa.
struct Matching {
  static constexpr int unmatched = -1;
  std::vector<int> variable_of_equation;  ///< per equation: its variable or `unmatched`
  std::vector<int> equation_of_variable;  ///< per variable: its equation or `unmatched`
  /// Number of matched pairs.
  int size() const {
    int n = 0;
    for (int v : variable_of_equation) n += (v != unmatched);
    return n;
  }
  /// An empty matching for a graph of the given sizes.
  static Matching empty(int equation_count, int variable_count) {
    Matching m;
    m.variable_of_equation.assign(static_cast<std::size_t>(equation_count), unmatched);
    m.equation_of_variable.assign(static_cast<std::size_t>(variable_count), unmatched);
    return m;
  }
};

/// A maximum-cardinality matching (Hopcroft–Karp, O(E sqrt(V))). Deterministic: the result
/// depends only on the graph, never on addresses or hashing.
ESDIRK_API Matching maximum_matching(const BipartiteGraph& graph);

/// Grows `start` (any valid matching of `graph`) into a maximum one. Used to test that results
/// do not depend on the matching chosen. Throws std::invalid_argument if `start` is not a
/// matching of `graph`.
ESDIRK_API Matching maximum_matching(const BipartiteGraph& graph, Matching start);

/// The size of a maximum matching: the structural rank of the Jacobian pattern.
ESDIRK_API int structural_rank(const BipartiteGraph& graph);

/// True if `matching` is a valid matching of `graph` (every pair is an edge, both index arrays
/// agree).
ESDIRK_API bool is_valid_matching(const BipartiteGraph& graph, const Matching& matching);

}  // namespace esdirk::structural
