#pragma once
// The basis of the dense output over one step, shared by the states and their sensitivities
// (the sensitivity dense output is the derivative of the state's, so both must use exactly
// these weights).

#include <span>

#include "esdirk/tableau.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// b_i(theta), i = 1..s, of the continuous extension of order 3,
/// x(t_n + theta h) = x_n + h sum_i b_i(theta) F_i: the cubic Hermite interpolant of (x_n, F_1)
/// and (x_{n+1}, F_s) written with the method's weights, b_i(theta) = H01(theta) b_i plus
/// H10(theta) for i = 1 and H11(theta) for i = s. It is a Runge-Kutta continuous extension, so
/// it keeps every linear invariant of f.
ESDIRK_API void dense_weights(const Tableau& tableau, double theta, std::span<double> b);

/// theta = (t - t_n)/h for t in the step from t_n to t_end = t_n + h (rounded, or a stop time),
/// NaN outside it. The ends map to exactly 0 and 1: for a step that is short against t,
/// (t_end - t_n)/h misses 1 by up to ulp(t)/h (1.8e-4 for h = 2e-12 at t = 7.2), which put the
/// dense output at t_end off its own end value. Within 1e-12 of the ends in theta the value is
/// returned as computed; beyond that, t within 4 ulps of an end counts as that end.
ESDIRK_API double step_fraction(double t, double t_n, double h, double t_end);

/// l_i(theta): the Lagrange polynomials through the nodes c_i, for the algebraic stage values.
ESDIRK_API void stage_interpolation_weights(const Tableau& tableau, double theta, std::span<double> l);

}  // namespace esdirk
