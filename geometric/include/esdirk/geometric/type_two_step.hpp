#pragma once
// One step of an adjoint system integrated as a (pre)symplectic partitioned Runge-Kutta method
// (Tran & Leok §3.3-3.6, eqs. 3.7a-f and 3.9a-f; doc/geometric-adjoint-theory.md):
//
//     forward  (3.9a, b, e):  Q^i = q0 + h sum_j a_ij f(Q^j, U^j),  0 = phi(Q^i, U^i),
//                             q1 = q0 + h sum_i b_i f(Q^i, U^i)
//     adjoint  (3.9c, d, f):  the Type II step (q0, p1) -> (q1, p0), with P^i, Lambda^i
//     tangent  (3.8):         dq0 -> dq1 with the same stages
//
// The model is an esdirk::Problem read as q' = f(t, q, u), 0 = phi(t, q, u): x = q, z = u,
// g = phi (nz = 0 is an ODE). The stage equations are solved by Newton's method with the
// exact stage Jacobian, to StepOptions::tolerance; the adjoint and the tangent are linear and
// use that Jacobian re-formed at the converged stages, so <p1, dq1> = <p0, dq0> holds to
// rounding (Props. 3.1-3.3). Stages are solved one after the other when A is lower
// triangular (explicit, DIRK, ESDIRK) and all together otherwise.

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/geometric/rk_tableau.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/linear_solver.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/status.hpp"

namespace esdirk::geometric {

/// How the adjoint stages are solved.
enum class AdjointForm {
  /// The zero-weight-safe recursion (Tran & Leok): multipliers
  /// kappa^i = h b_i P^i and mu^i = h b_i Lambda^i, one transposed solve with the forward stage
  /// matrix, never a division by b_i. The exact discrete adjoint for any tableau (the default).
  unnormalized,
  /// The partitioned RK with the pair's A~ as written in (3.9c, d, f). Needs every b_i != 0
  /// (the constructor throws otherwise). Equal to `unnormalized` when the pair is symplectic;
  /// with another A~ (backward_euler_both) it is the non-symplectic contrast method.
  partner,
};

/// How the stage equations (3.9b, e) are iterated to StepOptions::tolerance.
enum class StageIteration {
  /// Newton's method with the stage matrix re-formed at every iterate; the last correction
  /// (<= tolerance) is applied, so the stage residual left is of order tolerance^2 (default).
  newton,
  /// Simplified Newton: the stage matrix is formed and factored once, at the starting guess,
  /// and the iteration stops as soon as a correction is <= tolerance * (1 + |stage unknowns|)
  /// without applying that correction. The stages are then solved only to the order of the
  /// tolerance (Remark 3.4's "constraints solved to eps"; the conservation laws hold to
  /// O(tolerance), test T10), as when an outer solver stops at its own tolerance. The adjoint
  /// and the tangent still use the Jacobian formed at the stages reached.
  simplified_newton,
};

struct StepOptions {
  /// The stage equations (3.9b, e) are solved until the max-norm of the Newton correction is
  /// <= tolerance * (1 + max-norm of the stage unknowns) (Remark 3.4: the conservation laws of
  /// the step map then hold to O(s tolerance)).
  double tolerance = 1e-13;
  int max_iterations = 25;  ///< Newton iterations per stage block before constraint_solve_failed
  AdjointForm form = AdjointForm::unnormalized;
  StageIteration iteration = StageIteration::newton;
  /// Throws std::invalid_argument naming the first invalid option (inline: a plain aggregate).
  void validate() const {
    if (!(tolerance > 0.0) || !std::isfinite(tolerance))
      throw std::invalid_argument("StepOptions: tolerance must be positive and finite");
    if (max_iterations < 1) throw std::invalid_argument("StepOptions: max_iterations must be >= 1");
    if (iteration != StageIteration::newton && iteration != StageIteration::simplified_newton)
      throw std::invalid_argument("StepOptions: iteration must be newton or simplified_newton");
  }
};

/// A running cost L(t, q, u) of the augmented adjoint (3.9). `gradient`
/// writes dL/dq (nx) and dL/du (nz; empty for an ODE), which arrive filled with zeros; `value`
/// (optional) gives L for the quadrature h sum_i b_i L(Q^i, U^i). Both return 0, > 0 for a
/// failure, < 0 fatal.
struct RunningCost {
  std::function<int(double t, ConstVector q, ConstVector u, double& value)> value;
  std::function<int(double t, ConstVector q, ConstVector u, Vector dq, Vector du)> gradient;
};

class ESDIRK_API TypeTwoStep {
 public:
  /// `problem` must outlive the step. Throws std::invalid_argument for invalid options, an
  /// invalid pair, or the partner form with a zero weight.
  TypeTwoStep(Problem& problem, PrkPair pair, StepOptions options = {});

  /// The parameters p passed to the model (size np; zeros until set).
  void set_parameters(ConstVector p);

  /// Solves the stages from q0 at time t with step h; u_guess (nz) starts every U^i. Then
  /// forms the stage Jacobians at the converged stages for adjoint() and tangent(). Returns
  /// success, constraint_solve_failed, singular_constraint_jacobian (phi_u singular: not index
  /// 1), singular_iteration_matrix, callback_failures or callback_fatal, with message().
  Status forward(double t, double h, ConstVector q0, ConstVector u_guess);
  /// Takes the stage values of a recorded step instead of solving for them (Q: nx x s, U:
  /// nz x s; e.g. an esdirk::StepRecord's X and Z) and forms the stage Jacobians there.
  Status set_stages(double t, double h, ConstVector q0, ConstMatrixRef Q, ConstMatrixRef U);
  /// Restores the stage unknowns saved by stage_unknowns() (s * (nx + nz): K^i then U^i per
  /// stage) and forms the stage Jacobians there (the reverse sweep of a stored run).
  Status restore(double t, double h, ConstVector q0, ConstVector unknowns);

  /// The Type II adjoint step: p0 from p1 (nx each); with `running`, the augmented step whose
  /// p0 is also the gradient of h sum_i b_i L(Q^i, U^i). Returns callback_failures /
  /// callback_fatal if the cost's gradient fails, singular_iteration_matrix if the partner
  /// form's system is singular.
  Status adjoint(ConstVector p1, const RunningCost* running, Vector p0);
  /// The tangent (3.8): dq1 (nx) from dq0 (nx), and du1 (nz: dU^s, or the consistent du at q1
  /// when the method is not stiffly accurate; may be empty).
  void tangent(ConstVector dq0, Vector dq1, Vector du1 = {});

  double t() const { return t_; }
  double h() const { return h_; }
  ConstVector q1() const { return q1_; }
  /// u1: U^s for a stiffly accurate method, otherwise the solution of phi(q1, u1) = 0 near U^s.
  ConstVector u1() const { return u1_; }
  ConstVector stage_state(int i) const;      ///< Q^i (nx)
  ConstVector stage_algebraic(int i) const;  ///< U^i (nz)
  /// P^i (nx) after adjoint(): kappa^i / (h b_i) in the unnormalized form; kappa^i itself
  /// where b_i = 0 (no normalized stage adjoint exists there).
  ConstVector stage_adjoint(int i) const;
  /// Lambda^i (nz) after adjoint(), normalized like stage_adjoint.
  ConstVector stage_multiplier(int i) const;
  /// The stage unknowns (K^i, U^i per stage), s * (nx + nz) values, for restore().
  ConstVector stage_unknowns() const { return y_; }

  /// Solves phi(t, q, u) = 0 for u by Newton's method from the value in `u` (to the step's
  /// tolerance): consistent algebraic states for output and diagnostics. Returns success,
  /// constraint_solve_failed, singular_constraint_jacobian or a callback failure.
  Status consistent_algebraic(double t, ConstVector q, Vector u);

  /// The largest stage-equation residual at the converged stages (max-norm of
  /// [K^i - f; phi] relative to 1 + max-norm of the unknowns): the constraint defect.
  double forward_defect() const { return forward_defect_; }
  /// The residual of (3.9f), max_i |f_u^T kappa^i + phi_u^T mu^i + h b_i dL/du| relative to
  /// the multipliers' size, after adjoint().
  double adjoint_defect() const { return adjoint_defect_; }
  /// h sum_i b_i L(Q^i, U^i) of the last adjoint() with a running cost that has `value`.
  double running_quadrature() const { return running_quadrature_; }
  const std::string& message() const { return message_; }
  const Statistics& statistics() const { return stats_; }
  const PrkPair& pair() const { return pair_; }
  ConstVector parameters() const { return params_; }  ///< p passed to the model
  const StepOptions& options() const { return options_; }
  Problem& problem() const { return problem_; }

 private:
  struct Block {
    int first = 0, count = 0;   // stages first .. first+count-1
    bool identity = false;      // explicit ODE stage: the matrix is I
    bool explicit_dae = false;  // explicit DAE stage (a_ii = 0): [I, -f_u; 0, phi_u], phi_u's LU
    // An implicit stage of a lower-triangular tableau: its matrix in stage values,
    // M_X = [I - h a_ii f_x, -h a_ii f_z; phi_x, phi_z], factored like the integrator's
    // (DenseLuSolver), for the shared stage recursion; the Newton iteration and the tangent
    // use it through the diagonal similarity to the stage-derivative form.
    bool stage_value = false;
    DenseLuSolver stage_lu;
    DenseMatrix lu;
    std::vector<int> pivots;
  };
  Status solve_block(Block& block);
  Status solve_block_simplified(Block& block);
  Status evaluate_stage(int i, bool with_jacobian);
  Status jacobian_only(int i);
  Status linearize_block(Block& block);
  Status factor_block(Block& block);
  Status singular_block(const Block& block);
  void block_solve(const Block& block, double* x, bool transpose);
  void stage_states(const Block& block);
  struct Stages;  // the back-end of the shared stage recursion (lower-triangular tableaus)
  Status adjoint_unnormalized(ConstVector p1, Vector p0);
  Status adjoint_stages(ConstVector p1, Vector p0);
  void stage_solve_transposed(int i, MatrixRef W);
  Status adjoint_partner(ConstVector p1, Vector p0);
  Status running_gradients(const RunningCost& running);
  Status fail(Status status, std::string message);
  int callback_code(int code) const;

  Problem& problem_;
  PrkPair pair_;
  StepOptions options_;
  Statistics stats_;
  JacobianEvaluator jacobians_;
  int nx_, nz_, n_, s_;
  std::vector<Block> blocks_;
  std::vector<double> params_;
  double t_ = 0.0, h_ = 0.0;
  std::vector<double> q0_, q1_, u1_;
  std::vector<double> y_;         // K^i, U^i per stage
  std::vector<double> dy_;        // Newton correction / tangent unknowns
  DenseMatrix Q_;                 // nx x s stage states
  std::vector<double> residual_;  // n per stage: [K - f; phi]
  std::vector<double> fval_, gval_;
  std::vector<JacobianMatrix> J_;                          // stage Jacobians [f_q f_u; phi_q phi_u]
  std::vector<double> lambda_step_;                        // n: the stage recursion's lambda
  std::vector<double> kappa_, mu_, lambda_hat_, P_, Lam_;  // adjoint multipliers per stage
  std::vector<double> dLq_, dLu_;                          // running-cost gradients per stage
  bool has_running_ = false;
  DenseMatrix partner_matrix_;  // the partner form's dense system
  std::vector<int> partner_pivots_;
  std::vector<double> rhs_;
  DenseMatrix phi_u_;  // for naming a singular phi_u
  std::vector<int> phi_u_pivots_;
  std::vector<double> algebraic_work_;  // consistent_algebraic's kernel: 5 nz, then f at a trial
  Vector algebraic_trial_f() { return Vector(algebraic_work_).subspan(5 * static_cast<std::size_t>(nz_)); }
  std::vector<double> dQ_;           // tangent workspace
  DenseMatrix J_point_;              // Jacobian at a single point (consistent_algebraic)
  DenseMatrix cache_J_;              // the Jacobian at the last linearized step's first stage
  std::vector<double> cache_point_;  // its (t, q, u)
  bool cache_valid_ = false;
  double forward_defect_ = 0.0, adjoint_defect_ = 0.0, running_quadrature_ = 0.0;
  bool linearized_ = false;
  std::string message_;
};

}  // namespace esdirk::geometric
