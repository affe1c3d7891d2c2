#include "assignment.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace esdirk::structural {

namespace {

using Cost = std::int64_t;
constexpr Cost unreached = std::numeric_limits<Cost>::max();

// Minimum-cost formulation: cost = W - weight >= 0 with W the largest weight. Row potentials
// u and column potentials v keep every reduced cost cost - u - v non-negative and zero on
// matched edges. Columns start at v = 0 and only ever decrease, and a free column keeps v = 0;
// these are the dual conditions of the rectangular problem, so the result is optimal even
// when variables remain unmatched.
class ShortestAugmentingPath {
 public:
  ShortestAugmentingPath(const BipartiteGraph& g, std::span<const Cost> cost)
      : g_(g),
        cost_(cost),
        m_(Matching::empty(g.equation_count(), g.variable_count())),
        u_(g.equation_count(), 0),
        v_(g.variable_count(), 0),
        row_distance_(g.equation_count(), unreached),
        column_distance_(g.variable_count(), unreached),
        column_parent_(g.variable_count(), -1),
        column_done_(g.variable_count(), 0) {}

  bool run() {
    // Row reduction and a greedy matching on tight edges.
    for (int f = 0; f < g_.equation_count(); ++f) {
      Cost best = unreached;
      for (int k = g_.first_edge_of(f), e = 0; e < static_cast<int>(g_.variables_of(f).size());
           ++e, ++k) {
        best = std::min(best, cost_[k]);
      }
      if (best == unreached) return false;  // an equation without variables
      u_[f] = best;
      int k = g_.first_edge_of(f);
      for (int x : g_.variables_of(f)) {
        if (cost_[k++] == best && m_.equation_of_variable[x] == Matching::unmatched) {
          m_.variable_of_equation[f] = x;
          m_.equation_of_variable[x] = f;
          break;
        }
      }
    }
    for (int f = 0; f < g_.equation_count(); ++f) {
      if (m_.variable_of_equation[f] == Matching::unmatched && !augment(f)) return false;
    }
    return true;
  }

  Matching& matching() { return m_; }

 private:
  using Item = std::tuple<Cost, int, int>;  // (distance, variable is matched, variable)

  Cost reduced(int k, int f, int x) const { return cost_[k] - u_[f] - v_[x]; }

  // Dijkstra from the free equation `root` over alternating paths; stops at the first free
  // variable popped, updates the potentials of the settled vertices and flips the path.
  bool augment(int root) {
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    touched_rows_.assign(1, root);
    touched_columns_.clear();
    row_distance_[root] = 0;
    scan(root, heap);
    int target = -1;
    Cost total = 0;
    while (!heap.empty()) {
      auto [d, busy, x] = heap.top();
      heap.pop();
      (void)busy;
      if (column_done_[x] || d != column_distance_[x]) continue;
      column_done_[x] = 1;
      int f = m_.equation_of_variable[x];
      if (f == Matching::unmatched) {
        target = x;
        total = d;
        break;
      }
      row_distance_[f] = d;  // the matched edge has reduced cost zero
      touched_rows_.push_back(f);
      scan(f, heap);
    }
    if (target >= 0) {
      for (int f : touched_rows_) {
        if (row_distance_[f] < total) u_[f] += total - row_distance_[f];
      }
      for (int x : touched_columns_) {
        if (column_done_[x] && column_distance_[x] < total) v_[x] -= total - column_distance_[x];
      }
      for (int x = target;;) {
        int f = column_parent_[x];
        int previous = m_.variable_of_equation[f];
        m_.variable_of_equation[f] = x;
        m_.equation_of_variable[x] = f;
        if (f == root) break;
        x = previous;
      }
    }
    for (int f : touched_rows_) row_distance_[f] = unreached;
    for (int x : touched_columns_) {
      column_distance_[x] = unreached;
      column_done_[x] = 0;
      column_parent_[x] = -1;
    }
    return target >= 0;
  }

  template <class Heap>
  void scan(int f, Heap& heap) {
    int k = g_.first_edge_of(f);
    for (int x : g_.variables_of(f)) {
      Cost d = row_distance_[f] + reduced(k++, f, x);
      if (!column_done_[x] && d < column_distance_[x]) {
        if (column_distance_[x] == unreached) touched_columns_.push_back(x);
        column_distance_[x] = d;
        column_parent_[x] = f;
        // Among equally distant variables a free one leaves first: the search then stops at
        // once instead of settling the whole tie (this keeps augmentations local).
        int busy = m_.equation_of_variable[x] == Matching::unmatched ? 0 : 1;
        heap.push({d, busy, x});
      }
    }
  }

  const BipartiteGraph& g_;
  std::span<const Cost> cost_;
  Matching m_;
  std::vector<Cost> u_, v_;
  std::vector<Cost> row_distance_, column_distance_;
  std::vector<int> column_parent_;
  std::vector<char> column_done_;
  std::vector<int> touched_rows_, touched_columns_;
};

}  // namespace

Assignment maximum_weight_matching(const BipartiteGraph& graph,
                                   std::span<const std::int64_t> weights) {
  if (static_cast<int>(weights.size()) != graph.edge_count()) {
    throw std::invalid_argument("maximum_weight_matching: one weight per edge is required");
  }
  Assignment result;
  result.matching = Matching::empty(graph.equation_count(), graph.variable_count());
  if (graph.equation_count() > graph.variable_count()) return result;
  Cost largest = 0;
  for (Cost w : weights) largest = std::max(largest, w);
  std::vector<Cost> cost(weights.size());
  for (std::size_t k = 0; k < weights.size(); ++k) cost[k] = largest - weights[k];
  ShortestAugmentingPath solver(graph, cost);
  if (!solver.run()) return result;
  result.complete = true;
  result.matching = std::move(solver.matching());
  for (int f = 0; f < graph.equation_count(); ++f) {
    result.weight += weights[graph.edge_index(f, result.matching.variable_of_equation[f])];
  }
  return result;
}

}  // namespace esdirk::structural
