#include "esdirk/structural/matching.hpp"

#include <limits>
#include <stdexcept>

namespace esdirk::structural {

bool is_valid_matching(const BipartiteGraph& graph, const Matching& matching) {
  if (static_cast<int>(matching.variable_of_equation.size()) != graph.equation_count() ||
      static_cast<int>(matching.equation_of_variable.size()) != graph.variable_count()) {
    return false;
  }
  for (int f = 0; f < graph.equation_count(); ++f) {
    int x = matching.variable_of_equation[f];
    if (x == Matching::unmatched) continue;
    if (x < 0 || x >= graph.variable_count() || matching.equation_of_variable[x] != f ||
        graph.edge_index(f, x) < 0) {
      return false;
    }
  }
  for (int x = 0; x < graph.variable_count(); ++x) {
    int f = matching.equation_of_variable[x];
    if (f == Matching::unmatched) continue;
    if (f < 0 || f >= graph.equation_count() || matching.variable_of_equation[f] != x) return false;
  }
  return true;
}

namespace {

constexpr int infinity = std::numeric_limits<int>::max();

// Hopcroft–Karp phases: a BFS from all free equations builds layers, then vertex-disjoint
// shortest augmenting paths are found by an explicit-stack DFS (no recursion, so long chains
// such as the chained pendulum cannot overflow the call stack).
class HopcroftKarp {
 public:
  HopcroftKarp(const BipartiteGraph& g, Matching& m)
      : graph_(g), m_(m), layer_(g.equation_count()), next_edge_(g.equation_count()) {}

  void run() {
    while (build_layers()) {
      for (int f = 0; f < graph_.equation_count(); ++f) next_edge_[f] = 0;
      for (int f = 0; f < graph_.equation_count(); ++f) {
        if (m_.variable_of_equation[f] == Matching::unmatched) augment_from(f);
      }
    }
  }

 private:
  bool build_layers() {
    std::vector<int> queue;
    queue.reserve(graph_.equation_count());
    for (int f = 0; f < graph_.equation_count(); ++f) {
      if (m_.variable_of_equation[f] == Matching::unmatched) {
        layer_[f] = 0;
        queue.push_back(f);
      } else {
        layer_[f] = infinity;
      }
    }
    bool found = false;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      int f = queue[head];
      for (int x : graph_.variables_of(f)) {
        int g = m_.equation_of_variable[x];
        if (g == Matching::unmatched) {
          found = true;
        } else if (layer_[g] == infinity) {
          layer_[g] = layer_[f] + 1;
          queue.push_back(g);
        }
      }
    }
    return found;
  }

  void augment_from(int root) {
    std::vector<int> path{root};  // equations on the current path
    while (!path.empty()) {
      int f = path.back();
      auto vars = graph_.variables_of(f);
      bool advanced = false;
      while (next_edge_[f] < static_cast<int>(vars.size())) {
        int x = vars[next_edge_[f]++];
        int g = m_.equation_of_variable[x];
        if (g == Matching::unmatched) {
          // Flip the path: each equation takes the variable it reached.
          int take = x;
          for (auto it = path.rbegin(); it != path.rend(); ++it) {
            int e = *it;
            int previous = m_.variable_of_equation[e];
            m_.variable_of_equation[e] = take;
            m_.equation_of_variable[take] = e;
            take = previous;
          }
          return;
        }
        if (layer_[g] == layer_[f] + 1) {
          path.push_back(g);
          advanced = true;
          break;
        }
      }
      if (!advanced) {
        layer_[f] = infinity;  // dead end for this phase
        path.pop_back();
      }
    }
  }

  const BipartiteGraph& graph_;
  Matching& m_;
  std::vector<int> layer_;
  std::vector<int> next_edge_;
};

}  // namespace

Matching maximum_matching(const BipartiteGraph& graph, Matching start) {
  if (!is_valid_matching(graph, start)) {
    throw std::invalid_argument("maximum_matching: the starting matching is not valid");
  }
  HopcroftKarp(graph, start).run();
  return start;
}

Matching maximum_matching(const BipartiteGraph& graph) {
  Matching m = Matching::empty(graph.equation_count(), graph.variable_count());
  // Greedy start: cheap and deterministic; Hopcroft–Karp then completes it.
  for (int f = 0; f < graph.equation_count(); ++f) {
    for (int x : graph.variables_of(f)) {
      if (m.equation_of_variable[x] == Matching::unmatched) {
        m.variable_of_equation[f] = x;
        m.equation_of_variable[x] = f;
        break;
      }
    }
  }
  HopcroftKarp(graph, m).run();
  return m;
}

int structural_rank(const BipartiteGraph& graph) { return maximum_matching(graph).size(); }

}  // namespace esdirk::structural
