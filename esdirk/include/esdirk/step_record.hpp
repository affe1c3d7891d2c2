#pragma once
// The record of one accepted step: what dense output, sensitivities and adjoints need.

#include "esdirk/matrix.hpp"

namespace esdirk {

struct StepRecord {
  double t = 0.0;  ///< t_n, the start of the step
  double h = 0.0;  ///< the step (negative when integrating backwards)
  int stages = 0;
  ConstMatrixRef X;  ///< nx x stages: stage values X_i (X_1 = x_n, X_s = x_{n+1})
  ConstMatrixRef Z;  ///< nz x stages: algebraic stage values Z_i
  ConstMatrixRef F;  ///< nx x stages: stage derivatives f(T_i, X_i, Z_i)
  ConstMatrixRef G;  ///< nz x stages: g(T_i, X_i, Z_i) at the converged stages (small)
  const double* stage_times = nullptr;  ///< T_i = t_n + c_i h
};

}  // namespace esdirk
