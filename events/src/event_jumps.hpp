#pragma once
// Internal: the local quantities of a transition (doc/events-theory.md): the time derivatives
// x' = f and z' = -g_z^{-1}(g_x f + g_t) along a mode, the gradient of an event component and
// D_h = dh/dt along the solution, the reset x+ = phi and its Jacobian. What the problem does not
// supply is formed by central differences (counted in event_fd_evaluations; g_t in
// fd_function_evaluations).

#include <vector>

#include "esdirk/events/hybrid_problem.hpp"
#include "esdirk/jacobian.hpp"
#include "mode_problem.hpp"

namespace esdirk::internal {

class EventJumps {
 public:
  EventJumps(ModeProblem& problem, Statistics& counters);

  /// f and z' at (t, x, z) in the current mode, with parameters pe = [p; mem]. Returns 0, the
  /// callback's code, 1 for non-finite values or 2 if g_z is singular.
  int rates(double t, ConstVector x, ConstVector z, ConstVector pe, Vector f, Vector zdot);

  /// Makes z consistent with x at t (the core's algebraic Newton kernel from the given z, to
  /// rounding). Returns 0, a callback code, 1 (not finite), 2 (singular g_z) or 3 (no
  /// convergence): the codes the hybrid solver's event refinement reads.
  int correct_algebraic(double t, ConstVector x, Vector z, ConstVector pe);
  /// The consistent algebraic sensitivities Sz = -g_z^{-1}(g_x Sx + g_pe Pe) at the point of
  /// the last rates() call (its Jacobian and LU of g_z).
  int algebraic_sensitivity(double t, ConstVector x, ConstVector z, ConstVector pe,
                            ConstMatrixRef Sx, ConstMatrixRef Pe, MatrixRef Sz);

  /// The transpose of algebraic_sensitivity() at (t, x, z, pe), for the hybrid adjoint: with
  /// w = g_z^{-T} a_sz, a_sx -= g_x^T w and a_pe -= g_pe^T w (a_sz: nz x m, a_sx: nx x m, a_pe:
  /// npe x m). Forms its own Jacobians and LU of g_z. Returns 0, a callback code, 1 (not finite)
  /// or 2 (singular g_z).
  int algebraic_adjoint(double t, ConstVector x, ConstVector z, ConstVector pe, ConstMatrixRef a_sz,
                        MatrixRef a_sx, MatrixRef a_pe);

  /// Row k of [h_t, h_x, h_z, h_pe] of the current mode (size columns()).
  int event_gradient(int k, double t, ConstVector x, ConstVector z, ConstVector pe, Vector row);

  /// The reset of the current mode: next mode and x+ (x_plus must hold x on entry).
  int reset(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector pe,
            int& next_mode, Vector x_plus);
  /// D = [phi_t | phi_x | phi_z | phi_pe], nx x columns().
  int reset_jacobian(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                     ConstVector pe, MatrixRef D);

  /// The parameter reset of the current mode, p+ = psi (p_plus must hold p- on entry), and
  /// its Jacobian E = [psi_t | psi_x | psi_z | psi_pe], np x columns(). Only for a problem with
  /// has_parameter_reset().
  int parameter_reset(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                      ConstVector pe, Vector p_plus);
  int parameter_reset_jacobian(const TransitionCause& cause, double t, ConstVector x,
                               ConstVector z, ConstVector pe, MatrixRef E);

  /// 1 + nx + nz + np + nm: the columns of a gradient [t, x, z, p, mem].
  int columns() const { return 1 + nx_ + nz_ + npe_; }

 private:
  // Writes the point (t, x, z, pe) into the flat vector point_ = [t, x, z, pe].
  void pack(double t, ConstVector x, ConstVector z, ConstVector pe);
  ConstVector part_x() const { return ConstVector(point_).subspan(1, static_cast<std::size_t>(nx_)); }
  ConstVector part_z() const {
    return ConstVector(point_).subspan(1 + static_cast<std::size_t>(nx_), static_cast<std::size_t>(nz_));
  }
  ConstVector part_pe() const {
    return ConstVector(point_).subspan(1 + static_cast<std::size_t>(nx_ + nz_), static_cast<std::size_t>(npe_));
  }
  double step_for(double v) const;
  int time_derivative(double t, ConstVector x, ConstVector z, ConstVector pe);

  ModeProblem& problem_;
  Statistics& counters_;
  JacobianEvaluator jacobians_;
  int nx_, nz_, npe_, ne_, np_;
  std::vector<double> p1_, p2_;
  std::vector<double> f0_, g0_, g1_, g2_, f1_, point_, h1_, h2_, x1_, x2_;
  DenseMatrix J_, Jp_, gz_, rhs_;
  std::vector<int> pivots_;
  std::vector<double> algebraic_work_;  // correct_algebraic's kernel: 4 nz
};

}  // namespace esdirk::internal
