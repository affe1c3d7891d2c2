#include "esdirk/structural/bipartite_graph.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "esdirk/structural/limits.hpp"

namespace esdirk::structural {

BipartiteGraph::BipartiteGraph(int equation_count, int variable_count, std::span<const Edge> edges)
    : equation_count_(equation_count), variable_count_(variable_count) {
  if (equation_count < 0 || variable_count < 0) {
    throw std::invalid_argument("BipartiteGraph: negative number of equations or variables");
  }
  // Sizes + 1 and edge positions must fit an int.
  auto check_size = [](const char* what, std::size_t n) {
    if (n > static_cast<std::size_t>(max_graph_size)) {
      throw std::length_error("BipartiteGraph: " + std::to_string(n) + " " + what +
                              " exceed the limit " + std::to_string(max_graph_size));
    }
  };
  check_size("equations", static_cast<std::size_t>(equation_count));
  check_size("variables", static_cast<std::size_t>(variable_count));
  check_size("edges", edges.size());
  for (const Edge& e : edges) {
    if (e.equation < 0 || e.equation >= equation_count || e.variable < 0 ||
        e.variable >= variable_count) {
      throw std::invalid_argument("BipartiteGraph: edge (" + std::to_string(e.equation) + ", " +
                                  std::to_string(e.variable) + ") out of range");
    }
  }
  // Counting sort by equation, then sort and deduplicate each row.
  row_start_.assign(equation_count + 1, 0);
  for (const Edge& e : edges) ++row_start_[e.equation + 1];
  for (int i = 0; i < equation_count; ++i) row_start_[i + 1] += row_start_[i];
  std::vector<int> fill(row_start_.begin(), row_start_.end() - 1);
  std::vector<int> raw(edges.size());
  for (const Edge& e : edges) raw[fill[e.equation]++] = e.variable;
  row_variables_.clear();
  row_variables_.reserve(raw.size());
  std::vector<int> new_start(equation_count + 1, 0);
  for (int i = 0; i < equation_count; ++i) {
    auto first = raw.begin() + row_start_[i];
    auto last = raw.begin() + row_start_[i + 1];
    std::sort(first, last);
    last = std::unique(first, last);
    row_variables_.insert(row_variables_.end(), first, last);
    new_start[i + 1] = static_cast<int>(row_variables_.size());
  }
  row_start_.swap(new_start);
  // Transpose; rows are visited in ascending order so columns come out sorted.
  column_start_.assign(variable_count + 1, 0);
  for (int v : row_variables_) ++column_start_[v + 1];
  for (int j = 0; j < variable_count; ++j) column_start_[j + 1] += column_start_[j];
  column_equations_.resize(row_variables_.size());
  std::vector<int> cfill(column_start_.begin(), column_start_.end() - 1);
  for (int i = 0; i < equation_count; ++i) {
    for (int k = row_start_[i]; k < row_start_[i + 1]; ++k) {
      column_equations_[cfill[row_variables_[k]]++] = i;
    }
  }
}

std::span<const int> BipartiteGraph::variables_of(int equation) const {
  return {row_variables_.data() + row_start_[equation],
          static_cast<std::size_t>(row_start_[equation + 1] - row_start_[equation])};
}

std::span<const int> BipartiteGraph::equations_of(int variable) const {
  return {column_equations_.data() + column_start_[variable],
          static_cast<std::size_t>(column_start_[variable + 1] - column_start_[variable])};
}

int BipartiteGraph::edge_index(int equation, int variable) const {
  auto row = variables_of(equation);
  auto it = std::lower_bound(row.begin(), row.end(), variable);
  if (it == row.end() || *it != variable) return -1;
  return row_start_[equation] + static_cast<int>(it - row.begin());
}

BipartiteGraph BipartiteGraph::subgraph(std::span<const int> equations,
                                        std::span<const int> variables) const {
  std::vector<int> new_index(variable_count_, -1);
  for (std::size_t j = 0; j < variables.size(); ++j) new_index[variables[j]] = static_cast<int>(j);
  std::vector<Edge> edges;
  for (std::size_t i = 0; i < equations.size(); ++i) {
    for (int v : variables_of(equations[i])) {
      if (new_index[v] >= 0) edges.push_back({static_cast<int>(i), new_index[v]});
    }
  }
  return BipartiteGraph(static_cast<int>(equations.size()), static_cast<int>(variables.size()),
                        edges);
}

}  // namespace esdirk::structural
