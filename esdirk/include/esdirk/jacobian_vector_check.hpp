#pragma once
// The self-test of a problem's own Jacobian-vector product (Problem::jacobian_vector_product,
// which the Krylov stage solver uses with KrylovSettings::matrix_free) against central
// differences of f and g along the same directions: an inconsistent product makes GMRES solve
// the wrong linear system, which shows only as slow or failing Newton iterations. Call it once
// on a representative point before a run, as check_jacobian for jacobian().

#include <string>

#include "esdirk/export.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/problem.hpp"

namespace esdirk {

struct JacobianVectorProductCheck {
  bool ok = true;
  /// The largest |supplied - difference| / allowed over the directions and rows (ok: <= 1).
  double worst_error = 0.0;
  int worst_direction = -1;  ///< where worst_error was found (-1 if ok with no difference)
  int worst_row = -1;
  std::string equation;      ///< the name of worst_row (Problem::equation_name)
  double supplied = 0.0;     ///< (J v)[worst_row] from jacobian_vector_product()
  double finite_difference = 0.0;
  /// "" if ok; otherwise names jacobian_vector_product, the direction, the equation and both
  /// values, or the callback that failed.
  std::string message;
};

/// Compares Problem::jacobian_vector_product at y = (x, z) with the central difference
/// (F(y + s v) - F(y - s v)) / (2 s), F = [f; g], s = cbrt(eps) (1 + ||y||_2) / ||v||_2, along
/// `directions` fixed directions (v_i = w_i (1 + |y_i|) with w_i in [-1, 1] from a fixed
/// sequence, so the check is reproducible). Row i agrees when |a - b| <= rel max(|a|, |b|) +
/// abs max_k |b_k| (JacobianCheckOptions). Throws std::invalid_argument for wrong sizes, a
/// problem without jacobian_vector_product(), or directions < 1. A product or evaluation that
/// fails (nonzero code or non-finite values) gives ok = false with a message naming it.
ESDIRK_API JacobianVectorProductCheck check_jacobian_vector_product(Problem& problem, double t, ConstVector x,
                                                                    ConstVector z, ConstVector p,
                                                                    const JacobianCheckOptions& options = {},
                                                                    int directions = 3);

}  // namespace esdirk
