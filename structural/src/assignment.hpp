#pragma once
// The assignment problem of the Σ-method (Benveniste et al. 2021 (57)): a matching that covers
// every equation and has maximum total weight, where only edges of the graph may be used (non-edges
// are forbidden outright, never given a "big-M" weight). Sparse successive shortest augmenting
// paths (Dijkstra on reduced costs with dual potentials), so memory is linear in the number of
// edges and each augmentation stops at the first free variable it reaches.
//
// Internal to the structural module (not installed, not exported): sigma_method() is the public
// entry point; the tests reach this step through the module's src/ folder.

#include <cstdint>
#include <span>

#include "esdirk/structural/bipartite_graph.hpp"
#include "esdirk/structural/matching.hpp"

namespace esdirk::structural {

struct Assignment {
  /// False when no matching covers every equation (the problem is infeasible).
  bool complete = false;
  /// The matching (covering every equation when `complete`).
  Matching matching;
  /// Sum of the weights of the matched edges (valid when `complete`).
  std::int64_t weight = 0;
};

/// Maximum-weight equation-complete matching. `weights` holds one integer per edge in the
/// graph's row-major edge order (see BipartiteGraph::edge_index). Requires at most as many
/// equations as variables for a complete answer; when the graph is square the result is a
/// maximum-weight perfect matching. Deterministic. Throws std::invalid_argument when
/// `weights.size()` differs from the edge count.
Assignment maximum_weight_matching(const BipartiteGraph& graph,
                                   std::span<const std::int64_t> weights);

}  // namespace esdirk::structural
