#pragma once
// The bipartite graph of a system of equations: one side the equations, the other side the
// unknowns, an edge (f, x) when x occurs in f (Benveniste et al. 2021 §3.2.1, the graph 𝒢_F).
// Stored in compressed rows (equation -> variables) and compressed columns (variable -> equations),
// both sorted, so every traversal is deterministic and memory is linear in the number of edges.

#include <span>
#include <vector>

#include "esdirk/export.hpp"

namespace esdirk::structural {

/// One edge of the bipartite graph: `variable` occurs in `equation`.
struct Edge {
  int equation = 0;
  int variable = 0;
};

class ESDIRK_API BipartiteGraph {
 public:
  BipartiteGraph() = default;
  /// Builds the graph from an edge list. Duplicate edges are merged.
  /// Throws std::invalid_argument for negative sizes or out-of-range indices, std::length_error
  /// for more than max_graph_size (limits.hpp) equations, variables or edges.
  BipartiteGraph(int equation_count, int variable_count, std::span<const Edge> edges);

  int equation_count() const { return equation_count_; }
  int variable_count() const { return variable_count_; }
  int edge_count() const { return static_cast<int>(row_variables_.size()); }

  /// The variables of `equation`, sorted ascending.
  std::span<const int> variables_of(int equation) const;
  /// The equations containing `variable`, sorted ascending.
  std::span<const int> equations_of(int variable) const;
  /// Position of the edge (equation, variable) in row-major order, or -1 if absent. Row-major
  /// positions index per-edge data such as the weights of a signature matrix.
  int edge_index(int equation, int variable) const;
  /// Row-major position of the first edge of `equation` (edges of an equation are contiguous).
  int first_edge_of(int equation) const { return row_start_[equation]; }

  /// The subgraph on the given equations and variables, renumbered in the order given.
  BipartiteGraph subgraph(std::span<const int> equations, std::span<const int> variables) const;

 private:
  int equation_count_ = 0;
  int variable_count_ = 0;
  std::vector<int> row_start_{0};
  std::vector<int> row_variables_;
  std::vector<int> column_start_{0};
  std::vector<int> column_equations_;
};

}  // namespace esdirk::structural
