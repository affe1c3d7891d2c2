#pragma once
// Block triangular form (Benveniste et al. 2021 §3.2.2, Lemma 6): orient the graph by a perfect
// matching (f -> x when matched, x -> f when f merely uses x); its strongly connected components
// are the irreducible diagonal blocks, independent of the matching. Blocks are returned in a
// deterministic topological order: a block comes after every block it needs.

#include <utility>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/bipartite_graph.hpp"
#include "esdirk/structural/matching.hpp"

namespace esdirk::structural {

/// One irreducible diagonal block: equations and the variables they compute (sorted).
struct Block {
  std::vector<int> equations;
  std::vector<int> variables;
};

struct BlockTriangularForm {
  /// Blocks in solving order: every block appears after all blocks it depends on. Among blocks
  /// whose dependencies are all solved, the one with the smallest equation index goes first.
  std::vector<Block> blocks;
  /// The partial order ⪯_F as edges (a, b) of the block DAG: block a must be solved before
  /// block b because an equation of b uses a variable of a. Sorted, no duplicates.
  std::vector<std::pair<int, int>> dependencies;
  /// Block index of each equation.
  std::vector<int> block_of_equation;
};

/// BTF of a square graph with the perfect matching `matching` (Tarjan's SCC algorithm,
/// iterative, linear time). Throws std::invalid_argument if the graph is not square or the
/// matching is not perfect.
ESDIRK_API BlockTriangularForm block_triangular_form(const BipartiteGraph& graph,
                                                     const Matching& matching);

/// BTF of a square structurally nonsingular graph, with a maximum matching computed internally.
/// Throws std::invalid_argument if the graph is structurally singular.
ESDIRK_API BlockTriangularForm block_triangular_form(const BipartiteGraph& graph);

}  // namespace esdirk::structural
