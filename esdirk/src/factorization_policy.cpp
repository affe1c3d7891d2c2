#include "esdirk/factorization_policy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace esdirk {

FactorizationCost structural_factorization_cost(const JacobianStructure& structure, int n) {
  if (n < 0) throw std::invalid_argument("structural_factorization_cost: n must be >= 0");
  const double size = n;
  const FactorizationCost dense{size * size, size * size, 2.0 / 3.0 * size * size * size};
  if (!structure.pattern) return dense;
  const double kl = structure.lower, ku = structure.upper;
  const FactorizationCost band{static_cast<double>(structure.pattern->nonzeros()),
                               size * (2.0 * kl + ku + 1.0), 2.0 * size * kl * (kl + ku)};
  return {band.matrix_entries, std::min(band.factor_entries, dense.factor_entries),
          std::min(band.factorization_flops, dense.factorization_flops)};
}

ReuseCosts reuse_costs(const FactorizationCost& factorization, double jacobian_entries, int n,
                       int difference_evaluations) {
  const bool valid = std::isfinite(jacobian_entries) && jacobian_entries >= 0.0 && n >= 0 &&
                     difference_evaluations >= 0 && factorization.matrix_entries >= 0.0 &&
                     factorization.factor_entries >= 0.0 &&
                     factorization.factorization_flops >= 0.0;
  if (!valid) throw std::invalid_argument("reuse_costs: sizes must be non-negative numbers");
  const double evaluation = std::max(jacobian_entries, static_cast<double>(n));
  ReuseCosts costs;
  costs.jacobian =
      difference_evaluations > 0 ? difference_evaluations * evaluation : jacobian_entries;
  // 0.75 per flop: the constant of the stage-solve rule (doc/linear-solvers-guide.md, KLU's flop
  // count counts the multiply and the add apart).
  costs.factorization = factorization.matrix_entries + 0.75 * factorization.factorization_flops;
  costs.iteration = evaluation + factorization.factor_entries;
  return costs;
}

// Strictly more: at equal modelled cost a step that forms its own J and LU wins (it depends only
// on its start, and no stale matrix slows or fails its Newton iteration). Dow by differences sits
// exactly at 5 iterations and ran 23 % more instructions with its J kept.
bool jacobian_reuse_pays(const ReuseCosts& costs, double ratio) {
  // With J kept but the LU formed every step only the Jacobian is saved.
  return costs.jacobian > ratio * costs.iteration;
}

bool lu_reuse_pays(const ReuseCosts& costs, double ratio) {
  return costs.factorization > ratio * costs.iteration;
}

}  // namespace esdirk
