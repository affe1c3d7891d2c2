#include "esdirk/structural/numerical_check.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "esdirk/linear_solver.hpp"

namespace esdirk::structural {

JacobianCheck check_system_jacobian(const SigmaResult& result,
                                    const SystemJacobianCallback& jacobian,
                                    double relative_tolerance) {
  if (!result.succeeded() || !result.square) {
    throw std::invalid_argument(
        "check_system_jacobian: needs a successful Σ-method result of a square system");
  }
  if (!(relative_tolerance >= 0.0 && relative_tolerance < 1.0)) {
    throw std::invalid_argument("check_system_jacobian: relative_tolerance must be in [0, 1)");
  }
  if (!jacobian) throw std::invalid_argument("check_system_jacobian: empty callback");
  const BipartiteGraph& pattern = result.system_jacobian;
  const int n = pattern.equation_count();
  DenseMatrix J(n, n);
  jacobian(J.ref());
  JacobianCheck out;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      if (J(i, j) != 0.0 && pattern.edge_index(i, j) < 0) {
        out.entries_outside_pattern.push_back({i, j});
      }
    }
  }
  out.smallest_relative_pivot = n == 0 ? 1.0 : HUGE_VAL;
  const auto& blocks = result.jacobian_blocks.blocks;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const Block& block = blocks[b];
    const int m = static_cast<int>(block.equations.size());
    DenseMatrix A(m, m);
    double largest = 0.0;
    for (int r = 0; r < m; ++r) {
      for (int c = 0; c < m; ++c) {
        int f = block.equations[r];
        int x = block.variables[c];
        if (pattern.edge_index(f, x) >= 0) A(r, c) = J(f, x);
        largest = std::max(largest, std::abs(A(r, c)));
      }
    }
    std::vector<int> pivots(m);
    int info = lu_factor(A.ref(), pivots.data());
    double ratio = 0.0;
    if (info == 0 && largest > 0.0) {
      double smallest = HUGE_VAL;
      for (int k = 0; k < m; ++k) smallest = std::min(smallest, std::abs(A(k, k)));
      ratio = smallest / largest;
    }
    out.smallest_relative_pivot = std::min(out.smallest_relative_pivot, ratio);
    if (info != 0 || ratio <= relative_tolerance)
      out.singular_blocks.push_back(static_cast<int>(b));
  }
  out.nonsingular = out.singular_blocks.empty();
  return out;
}

}  // namespace esdirk::structural
