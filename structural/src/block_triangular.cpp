#include "esdirk/structural/block_triangular.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <stdexcept>

namespace esdirk::structural {

namespace {

// Tarjan's SCC algorithm on the equation graph: an arc f -> g when f uses the variable that g
// computes (g must be solved first). Iterative, so deep chains do not overflow the stack.
std::vector<int> strongly_connected_components(const BipartiteGraph& graph, const Matching& m,
                                               int& component_count) {
  const int n = graph.equation_count();
  std::vector<int> index(n, -1), low(n, 0), component(n, -1);
  std::vector<char> on_stack(n, 0);
  std::vector<int> stack;
  std::vector<std::pair<int, int>> call;  // (equation, next arc position)
  int counter = 0;
  component_count = 0;
  for (int root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    call.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!call.empty()) {
      auto& [f, pos] = call.back();
      auto vars = graph.variables_of(f);
      if (pos < static_cast<int>(vars.size())) {
        int g = m.equation_of_variable[vars[pos++]];
        if (g == f) continue;
        if (index[g] < 0) {
          index[g] = low[g] = counter++;
          stack.push_back(g);
          on_stack[g] = 1;
          call.push_back({g, 0});
        } else if (on_stack[g]) {
          low[f] = std::min(low[f], index[g]);
        }
        continue;
      }
      int done = f;
      call.pop_back();
      if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[done]);
      if (low[done] == index[done]) {
        int g;
        do {
          g = stack.back();
          stack.pop_back();
          on_stack[g] = 0;
          component[g] = component_count;
        } while (g != done);
        ++component_count;
      }
    }
  }
  return component;
}

}  // namespace

BlockTriangularForm block_triangular_form(const BipartiteGraph& graph, const Matching& matching) {
  if (graph.equation_count() != graph.variable_count()) {
    throw std::invalid_argument("block_triangular_form: the graph is not square");
  }
  if (!is_valid_matching(graph, matching) || matching.size() != graph.equation_count()) {
    throw std::invalid_argument("block_triangular_form: the matching is not perfect");
  }
  int count = 0;
  std::vector<int> component = strongly_connected_components(graph, matching, count);
  // Arcs of the condensation: component of g before component of f when f uses g's variable.
  std::vector<std::pair<int, int>> arcs;
  for (int f = 0; f < graph.equation_count(); ++f) {
    for (int x : graph.variables_of(f)) {
      int g = matching.equation_of_variable[x];
      if (component[g] != component[f]) arcs.push_back({component[g], component[f]});
    }
  }
  std::sort(arcs.begin(), arcs.end());
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  // Deterministic topological order (Kahn): ready blocks leave by smallest equation index.
  std::vector<int> smallest(count, graph.equation_count());
  for (int f = 0; f < graph.equation_count(); ++f) {
    smallest[component[f]] = std::min(smallest[component[f]], f);
  }
  std::vector<int> indegree(count, 0);
  std::vector<std::vector<int>> successors(count);
  for (auto [a, b] : arcs) {
    ++indegree[b];
    successors[a].push_back(b);
  }
  using Item = std::pair<int, int>;  // (smallest equation, component)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (int c = 0; c < count; ++c) {
    if (indegree[c] == 0) ready.push({smallest[c], c});
  }
  std::vector<int> position(count, -1);
  int next = 0;
  while (!ready.empty()) {
    int c = ready.top().second;
    ready.pop();
    position[c] = next++;
    for (int s : successors[c]) {
      if (--indegree[s] == 0) ready.push({smallest[s], s});
    }
  }
  BlockTriangularForm btf;
  btf.blocks.resize(count);
  btf.block_of_equation.resize(graph.equation_count());
  for (int f = 0; f < graph.equation_count(); ++f) {
    int b = position[component[f]];
    btf.block_of_equation[f] = b;
    btf.blocks[b].equations.push_back(f);
    btf.blocks[b].variables.push_back(matching.variable_of_equation[f]);
  }
  for (Block& b : btf.blocks) std::sort(b.variables.begin(), b.variables.end());
  for (auto [a, b] : arcs) btf.dependencies.push_back({position[a], position[b]});
  std::sort(btf.dependencies.begin(), btf.dependencies.end());
  return btf;
}

BlockTriangularForm block_triangular_form(const BipartiteGraph& graph) {
  Matching m = maximum_matching(graph);
  if (graph.equation_count() != graph.variable_count() || m.size() != graph.equation_count()) {
    throw std::invalid_argument(
        "block_triangular_form: the system is structurally singular (no perfect matching)");
  }
  return block_triangular_form(graph, m);
}

}  // namespace esdirk::structural
