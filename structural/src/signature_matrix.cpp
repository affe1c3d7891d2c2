#include "esdirk/structural/signature_matrix.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "esdirk/structural/limits.hpp"

namespace esdirk::structural {

SignatureMatrix::SignatureMatrix(int equation_count, int variable_count,
                                 std::span<const SignatureEntry> entries) {
  std::vector<Edge> edges;
  edges.reserve(entries.size());
  for (const SignatureEntry& e : entries) {
    if (e.order < 0) throw std::invalid_argument("SignatureMatrix: negative derivative order");
    if (e.order > max_derivative_order) {
      throw std::invalid_argument("SignatureMatrix: derivative order " + std::to_string(e.order) +
                                  " exceeds the limit " + std::to_string(max_derivative_order));
    }
    edges.push_back({e.equation, e.variable});
  }
  graph_ = BipartiteGraph(equation_count, variable_count, edges);
  orders_.assign(graph_.edge_count(), absent);
  for (const SignatureEntry& e : entries) {
    int k = graph_.edge_index(e.equation, e.variable);
    orders_[k] = std::max(orders_[k], e.order);
  }
  highest_.assign(variable_count, absent);
  for (int f = 0; f < equation_count; ++f) {
    int k = graph_.first_edge_of(f);
    for (int x : graph_.variables_of(f)) highest_[x] = std::max(highest_[x], orders_[k++]);
  }
}

int SignatureMatrix::order(int equation, int variable) const {
  int k = graph_.edge_index(equation, variable);
  return k < 0 ? absent : orders_[k];
}

SignatureMatrix SignatureMatrix::scaled(int factor) const {
  if (factor <= 0) throw std::invalid_argument("SignatureMatrix::scaled: factor must be > 0");
  std::vector<SignatureEntry> entries;
  for (int f = 0; f < equation_count(); ++f) {
    int k = graph_.first_edge_of(f);
    for (int x : graph_.variables_of(f)) {
      // Checked in 64 bits: the product may not fit an int (the constructor rejects it then).
      std::int64_t order = std::int64_t{orders_[k++]} * factor;
      if (order > max_derivative_order) {
        throw std::invalid_argument("SignatureMatrix::scaled: order " + std::to_string(order) +
                                    " exceeds the limit " + std::to_string(max_derivative_order));
      }
      entries.push_back({f, x, static_cast<int>(order)});
    }
  }
  return SignatureMatrix(equation_count(), variable_count(), entries);
}

}  // namespace esdirk::structural
