#pragma once
// Outcomes of an integration. Numerical failures are returned as a Status, with the solution
// at the last accepted time kept; misuse (wrong sizes, invalid options, wrong call order)
// throws std::invalid_argument or std::logic_error.

#include <string_view>

namespace esdirk {

enum class Status {
  success = 0,
  too_many_steps,               ///< Options::max_steps taken in one call without reaching tout
  step_size_too_small,          ///< the step fell below Options::min_step or 16 ulp of t
  error_test_failures,          ///< Options::max_error_test_failures rejections in a row
  newton_failures,              ///< Options::max_newton_failures convergence failures in a row
  singular_iteration_matrix,    ///< M = E - h*gamma*J stayed singular after step reductions
  callback_failures,            ///< f/g (or a Jacobian) kept failing recoverably / returning NaN
  callback_fatal,               ///< a callback returned a negative code
  initialization_failed,        ///< Newton on g(t0, x0, z) = 0 did not converge
  singular_algebraic_jacobian,  ///< dg/dz is singular at the initial point
};

/// A stable, lower-case identifier of the status ("success", "too_many_steps", ...).
std::string_view status_name(Status status);

/// True for Status::success.
inline bool ok(Status status) { return status == Status::success; }

}  // namespace esdirk
