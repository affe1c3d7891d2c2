#include "canonical_offsets.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "esdirk/structural/limits.hpp"

namespace esdirk::structural {

Offsets canonical_offsets(const SignatureMatrix& sigma,
                          const std::vector<std::vector<int>>& h_variables_of_equation) {
  const BipartiteGraph& g = sigma.graph();
  const int ne = g.equation_count();
  const int nv = g.variable_count();
  if (static_cast<int>(h_variables_of_equation.size()) != ne) {
    throw std::invalid_argument("canonical_offsets: H needs one variable list per equation");
  }
  // H edges as (position of the edge) for fast access to σ.
  std::vector<std::vector<int>> h_edges(ne);
  for (int f = 0; f < ne; ++f) {
    if (h_variables_of_equation[f].empty()) {
      throw std::invalid_argument("canonical_offsets: equation " + std::to_string(f) +
                                  " has no edge in H");
    }
    for (int x : h_variables_of_equation[f]) {
      int k = (x >= 0 && x < nv) ? g.edge_index(f, x) : -1;
      if (k < 0) {
        throw std::invalid_argument("canonical_offsets: H pair (" + std::to_string(f) + ", " +
                                    std::to_string(x) + ") is not an edge");
      }
      h_edges[f].push_back(k);
    }
  }
  auto orders = sigma.orders();
  Offsets out;
  out.equation_offsets.assign(ne, 0);
  out.variable_offsets.assign(nv, 0);
  // Bellman–Ford argument: with an optimal H there is no positive cycle, so at most `ne`
  // rounds change anything; one more changing round proves divergence.
  const int max_changing_rounds = ne + 1;
  // Starting from c = 0 every round can only raise c (c_f >= 0 and H's edges give
  // d_x - σ_fx >= c_f), so Σc and the rounds are checked against their limits as they grow;
  // with Σc bounded, d <= max σ + Σc keeps every offset far inside an int.
  const std::int64_t round_work = std::int64_t{ne} + nv + g.edge_count();
  for (int changing = 0;; ++changing) {
    ++out.rounds;
    if (out.rounds * round_work > max_offset_iteration_work) {
      throw OffsetLimitExceeded("the offset iteration needs more than " +
                                std::to_string(out.rounds - 1) + " rounds over " +
                                std::to_string(round_work) +
                                " equations, variables and edges (work limit " +
                                std::to_string(max_offset_iteration_work) + ")");
    }
    // (a) Variable offsets. A variable that occurs nowhere keeps d = 0 (such systems are
    // rejected before the iteration is reached).
    std::fill(out.variable_offsets.begin(), out.variable_offsets.end(), 0);
    for (int f = 0; f < ne; ++f) {
      int k = g.first_edge_of(f);
      for (int x : g.variables_of(f)) {
        out.variable_offsets[x] =
            std::max(out.variable_offsets[x], orders[k++] + out.equation_offsets[f]);
      }
    }
    // (b) Equation offsets.
    bool changed = false;
    for (int f = 0; f < ne; ++f) {
      int c = std::numeric_limits<int>::min();
      for (int k : h_edges[f]) {
        int x = g.variables_of(f)[k - g.first_edge_of(f)];
        c = std::max(c, out.variable_offsets[x] - orders[k]);
      }
      if (c != out.equation_offsets[f]) {
        out.equation_offsets[f] = c;
        changed = true;
      }
    }
    if (!changed) return out;
    if (changing >= max_changing_rounds) {
      throw OffsetIterationDiverged(
          "the offset iteration did not converge after " + std::to_string(changing + 1) +
          " changing rounds: the matching is not an optimal solution of the assignment problem");
    }
    std::int64_t latent = 0;
    for (int c : out.equation_offsets) latent += c;
    if (latent > max_latent_equations) {
      throw OffsetLimitExceeded("the equation offsets sum to more than " +
                                std::to_string(max_latent_equations) +
                                " latent equations (" + std::to_string(latent) +
                                " after round " + std::to_string(out.rounds) + ")");
    }
  }
}

Offsets canonical_offsets(const SignatureMatrix& sigma, const Matching& matching) {
  const int ne = sigma.equation_count();
  if (static_cast<int>(matching.variable_of_equation.size()) != ne) {
    throw std::invalid_argument("canonical_offsets: matching size differs from the equations");
  }
  std::vector<std::vector<int>> h(ne);
  for (int f = 0; f < ne; ++f) {
    if (matching.variable_of_equation[f] == Matching::unmatched) {
      throw std::invalid_argument("canonical_offsets: equation " + std::to_string(f) +
                                  " is unmatched");
    }
    h[f].push_back(matching.variable_of_equation[f]);
  }
  return canonical_offsets(sigma, h);
}

}  // namespace esdirk::structural
