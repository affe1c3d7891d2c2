#pragma once
// The reverse stage recursion of one step of a diagonally implicit Runge-Kutta method (A lower
// triangular: ESDIRK, SDIRK, explicit): the one implementation of the adjoint step's algebra.
// The ESDIRK reverse sweep (sensitivity/src/adjoint_sweep.cpp, behind Adjoint, HybridAdjoint
// and ReverseShootingInterval) and the Type II step of the geometric module (TypeTwoStep, any
// lower-triangular tableau) both call it (doc/adjoint-theory.md "The sweep",
// doc/geometric-adjoint-theory.md "One kernel for the stage recursion").
//
// Stage i (0-based) of a step of size h from (x_n, z_n), in stage values:
//
//     X_i = x_n + h sum_{j<i} a_ij F_j + h a_ii F_i,   0 = g(X_i, Z_i),   F_i = f(X_i, Z_i),
//
// linearized with the stage matrix M_i = [I - h a_ii f_x, -h a_ii f_z; g_x, g_z] at
// (X_i, Z_i) (linear_solver.hpp; a_ii = 0 gives [I, 0; g_x, g_z]). Backwards, stages last
// first, with V_i the adjoint seeds of [X_i; Z_i] (the step end of a stiffly accurate method,
// a running cost's h b_i dL) and kappa_i the adjoint of F_i (h b_i p_{n+1} when the step end
// is x_n + h sum b_i F_i, interpolant seeds, and the later stages' terms added here):
//
//     W_i    = V_i + J_i(f rows)^T kappa_i
//     rho_i  = M_i^{-T} W_i                              (the transposed stage solve)
//     lambda_x += rho_i,x,   kappa_l += h a_il rho_i,x   (l < i)
//
// rho_i,x is the adjoint that stage i passes to x_n (Tran & Leok's Lambda-hat^i), and
// kappa_i + h a_ii rho_i,x is the unnormalized stage adjoint kappa^i = h b_i P^i of the
// zero-weight-safe recursion: no weight b_i is ever divided by. A first stage that is the step
// start itself (explicit, X_1 = x_n and Z_1 = z_n carried over rather than solved, as in the
// library's ESDIRK integrator) has no solve: lambda += V_1, then lambda += J_1(f rows)^T kappa_1,
// over all n rows (the adjoint of z_n stays in lambda_z).
//
// The back-end supplies the matrices (the storage differs: the problem's dense, band or KLU
// back-end in the sweep, the dense stage LU the geometric step shares with its Newton
// iteration). It provides
//
//     int  prepare_stage(int i)                     J_i formed; 0, or a code with a message
//     void add_jf_transposed(int i, ConstMatrixRef kappa_i, MatrixRef Y)   Y += J_i(f rows)^T kappa_i
//     int  solve_transposed(int i, MatrixRef W)     W <- M_i^{-T} W; 0, or a code with a message
//     void stage_done(int i, ConstMatrixRef kappa_i, ConstMatrixRef rho_i)  (parameter terms)
//
// A template, inlined into its caller, so that these calls inline too: the sweep runs it for
// every stage of every step (callgrind on bench_adjoint: the sweep's instruction count is not
// above that of the loop it replaced).

#include "esdirk/matrix.hpp"

namespace esdirk::internal {

struct DirkAdjointStep {
  int nx = 0, n = 0;  ///< differential and all unknowns per stage
  int rows = 1;       ///< adjoint columns swept together
  int stages = 0;
  double h = 0.0;
  /// The first stage is the step start (explicit, carries [x_n; z_n]): no solve there.
  bool first_stage_is_step_start = false;
  MatrixRef seeds;   ///< n x (rows * stages): V_i in columns [i rows, (i + 1) rows); rho_i on return
  MatrixRef kappa;   ///< nx x (rows * stages): kappa_i, the later stages' terms added
  MatrixRef lambda;  ///< n x rows: rho_i,x (and the step-start stage's all n rows) added
};

/// One step backwards through the stages; `coefficients.A(i, j)` gives a_ij. Returns 0, or the
/// first nonzero code of the back-end (which holds the message).
template <class Coefficients, class BackEnd>
[[gnu::always_inline]] inline int reverse_dirk_stages(const Coefficients& coefficients, const DirkAdjointStep& step,
                        BackEnd& back_end) {
  const int rows = step.rows, nx = step.nx;
  auto block = [rows](MatrixRef M, int stage) {
    return MatrixRef{M.data + static_cast<std::size_t>(stage) * rows * M.ld, M.rows, rows, M.ld};
  };
  MatrixRef lambda = step.lambda;
  for (int i = step.stages - 1; i >= 0; --i) {
    if (const int code = back_end.prepare_stage(i); code != 0) return code;
    MatrixRef V = block(step.seeds, i);
    const ConstMatrixRef kappa = block(step.kappa, i);
    if (i == 0 && step.first_stage_is_step_start) {
      for (int j = 0; j < rows; ++j)
        for (int k = 0; k < step.n; ++k) lambda(k, j) += V(k, j);
      back_end.add_jf_transposed(0, kappa, lambda);
      back_end.stage_done(0, kappa, V);
      return 0;
    }
    back_end.add_jf_transposed(i, kappa, V);                                // W_i
    if (const int code = back_end.solve_transposed(i, V); code != 0) return code;  // rho_i
    for (int j = 0; j < rows; ++j)
      for (int k = 0; k < nx; ++k) lambda(k, j) += V(k, j);
    for (int l = 0; l < i; ++l) {
      const double a = step.h * coefficients.A(i, l);
      if (a == 0.0) continue;
      MatrixRef K = block(step.kappa, l);
      for (int j = 0; j < rows; ++j)
        for (int k = 0; k < nx; ++k) K(k, j) += a * V(k, j);
    }
    back_end.stage_done(i, kappa, V);
  }
  return 0;
}

}  // namespace esdirk::internal
