#pragma once
// The symplectic partner of a Runge-Kutta method (Tran & Leok §3.2; doc/adjoint-theory.md and
// doc/geometric-adjoint-theory.md): the coefficients a~_ij = b_j - b_j a_ji / b_i that, with
// the same weights b, make (A, b; A~, b) a symplectic partitioned Runge-Kutta pair,
//
//     b_i a~_ij + b_j a_ji - b_i b_j = 0     for all i, j.
//
// This is the one implementation in the library: the discrete adjoint (sensitivity/) and the
// geometric integrators (geometric/) both call it.

#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/matrix.hpp"
#include "esdirk/tableau.hpp"

namespace esdirk {

/// a~ (row-major, stages x stages) of the method with coefficients `a` (row-major, stages x
/// stages) and weights `b` (stages). Throws std::invalid_argument if the sizes do not match
/// `stages`, an entry is not finite, or a weight b_i is zero (no partner with the same weights
/// exists then; the zero-weight-safe adjoint recursion does not need one).
ESDIRK_API std::vector<double> partner_coefficients(int stages, ConstVector a, ConstVector b);

/// The largest |b_i a~_ij + b_j a_ji - b_i b_j| over all i, j: zero (to rounding) exactly when
/// (A, b; A~, b) is a symplectic pair. Throws std::invalid_argument for mismatched sizes.
ESDIRK_API double symplecticity_defect(int stages, ConstVector a, ConstVector b,
                                       ConstVector partner);

/// partner_coefficients of an ESDIRK tableau (the library's methods).
ESDIRK_API std::vector<double> adjoint_partner_coefficients(const Tableau& tableau);

}  // namespace esdirk
