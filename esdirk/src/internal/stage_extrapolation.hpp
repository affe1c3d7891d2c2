#pragma once
// Weights of the stage predictor that extrapolates the stage derivatives (and the algebraic
// stage values) of the same step to the next node (doc/integrator-theory.md section 2).

#include "esdirk/matrix.hpp"
#include "esdirk/tableau.hpp"

namespace esdirk::internal {

/// W(i, j), j < i: the Lagrange weight of stage j at node c_i of the polynomial of degree at most
/// `degree` through the nodes of the (at most degree + 1) earlier stages nearest to c_i, so that
/// sum_j W(i, j) v_j extrapolates values v_j at the nodes c_j to c_i. Nodes equal to one already
/// taken are skipped (a polynomial through two values at one node does not exist). Row 0 is zero.
DenseMatrix stage_extrapolation_weights(const Tableau& tableau, int degree);

}  // namespace esdirk::internal
