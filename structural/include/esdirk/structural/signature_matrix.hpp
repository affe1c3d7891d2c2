#pragma once
// Pryce's signature matrix Σ (Benveniste et al. 2021 §4.1, the weights d_fx of the weighted
// bipartite graph): σ_fx is the highest derivative (or shift) order at which variable x occurs in
// equation f, and -∞ (no edge) when x does not occur in f. Stored sparsely on a BipartiteGraph.

#include <limits>
#include <span>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/structural/bipartite_graph.hpp"

namespace esdirk::structural {

/// One occurrence: `variable` appears in `equation` differentiated `order` times (order >= 0).
struct SignatureEntry {
  int equation = 0;
  int variable = 0;
  int order = 0;
};

class SignatureMatrix {
 public:
  /// Marks a non-edge (σ = -∞).
  static constexpr int absent = std::numeric_limits<int>::min();

  SignatureMatrix() = default;
  /// Builds Σ from occurrences; several occurrences of one pair keep the highest order.
  /// Throws std::invalid_argument for a negative order, an order above max_derivative_order
  /// (limits.hpp) or an out-of-range index; std::length_error for sizes above max_graph_size.
  SignatureMatrix(int equation_count, int variable_count, std::span<const SignatureEntry> entries);

  const BipartiteGraph& graph() const { return graph_; }
  int equation_count() const { return graph_.equation_count(); }
  int variable_count() const { return graph_.variable_count(); }
  /// σ_fx, or `absent`.
  int order(int equation, int variable) const;
  /// σ per edge in the graph's row-major edge order.
  std::span<const int> orders() const { return orders_; }
  /// d̂_x = max_f σ_fx, the highest order of x anywhere (Benveniste et al. (64)); `absent` if x
  /// occurs nowhere.
  int highest_order(int variable) const { return highest_[variable]; }
  /// The same matrix with every order multiplied by `factor` > 0 (Benveniste et al. Lemma 16).
  /// Throws std::invalid_argument when a product exceeds max_derivative_order.
  SignatureMatrix scaled(int factor) const;

 private:
  BipartiteGraph graph_;
  std::vector<int> orders_;
  std::vector<int> highest_;
};

}  // namespace esdirk::structural
