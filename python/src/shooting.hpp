#pragma once
// What the shooting interval and the multiple-shooting bindings share.

#include "esdirk/sensitivity/shooting_interval.hpp"
#include "problem.hpp"

namespace esdirk::python {

/// A RunningCost calling cost(t, x, z, u) -> (value, dh/dx, dh/dz, dh/du) (empty for None);
/// Python errors go to the problem's ErrorSlot.
RunningCost running_cost_from(const py::object& cost, ModelProblem& problem);
/// x, z, A, B, Az, Bz, H, q, r, statistics as NumPy arrays.
py::dict shooting_result_dict(const ShootingResult& result);

}  // namespace esdirk::python
