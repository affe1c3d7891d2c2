#include "internal/stage_extrapolation.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace esdirk::internal {

DenseMatrix stage_extrapolation_weights(const Tableau& tableau, int degree) {
  const int s = tableau.stages;
  DenseMatrix weights;
  weights.resize(s, s);
  for (int i = 1; i < s; ++i) {
    // The earlier stages by distance of their node from c_i (the nearest first: the polynomial
    // is most accurate near its nodes), one stage per distinct node.
    std::vector<int> order(static_cast<std::size_t>(i));
    for (int j = 0; j < i; ++j) order[static_cast<std::size_t>(j)] = j;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return std::abs(tableau.c[a] - tableau.c[i]) < std::abs(tableau.c[b] - tableau.c[i]);
    });
    std::vector<int> nodes;
    for (int j : order) {
      if (static_cast<int>(nodes.size()) > degree) break;
      const bool repeated = std::any_of(nodes.begin(), nodes.end(), [&](int k) {
        return std::abs(tableau.c[k] - tableau.c[j]) < 1e-12;
      });
      if (!repeated) nodes.push_back(j);
    }
    for (int j : nodes) {
      double l = 1.0;
      for (int k : nodes)
        if (k != j) l *= (tableau.c[i] - tableau.c[k]) / (tableau.c[j] - tableau.c[k]);
      weights(i, j) = l;
    }
  }
  return weights;
}

}  // namespace esdirk::internal
