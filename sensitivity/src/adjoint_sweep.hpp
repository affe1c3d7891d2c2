#pragma once
// Internal: the reverse sweep of recorded ESDIRK steps (doc/adjoint-theory.md, "The sweep").
// Its stage loop is the core's reverse_dirk_stages (internal/dirk_adjoint_stages.hpp), which the
// geometric module's Type II step runs too: the one implementation of the adjoint algebra. The smooth Adjoint sweeps one run with it; the
// hybrid adjoint of the events module sweeps each segment between two events with it, setting
// the segment's parameters (p and the latched memory) and seeding the interpolants the event
// left limits and the output points were taken from.
//
// State: lambda (n x rows), the adjoint of [x; z] at the current step boundary, and mu
// (np x rows), the adjoint accumulated for the parameters the problem sees.

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "esdirk/jacobian.hpp"
#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/linear_solver.hpp"
#include "esdirk/stage_linear_system.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/step_record.hpp"
#include "esdirk/tableau.hpp"

namespace esdirk::internal {

/// A terminal term of constant weights w ((nx + nz) x rows): C = w^T [x; z]. A state of
/// another size throws std::invalid_argument("<who>: the terminal weights have ...").
ObjectiveGradient terminal_weights(ConstMatrixRef weights, const char* who);

/// The gradient of a point term at given (x, z): dx, dz, dp arrive zeroed.
using PointGradient = std::function<int(ConstVector x, ConstVector z, MatrixRef dx, MatrixRef dz, MatrixRef dp)>;

class AdjointSweep {
 public:
  /// `increments`: the evaluator whose difference increments the forward run used (so the
  /// difference Jacobians are the same). Allocates every workspace.
  AdjointSweep(Problem& problem, const Tableau& method, const JacobianEvaluator& increments, int rows,
               AdjointReport& report);

  int rows() const { return rows_; }
  /// lambda = 0, mu = 0, no pending seeds, no cached Jacobian; asks the problem again whether
  /// it has parameter products.
  void start();
  /// The parameters the problem is evaluated with from here on (copied; size np). Forgets the
  /// cached Jacobian (the same point with other parameters is another Jacobian).
  void set_parameters(ConstVector p);
  ConstVector parameters() const { return p_; }

  ConstMatrixRef lambda_x() const { return {lambda_.data(), nx_, rows_, n_}; }
  ConstMatrixRef lambda_z() const { return {lambda_.data() + nx_, nz_, rows_, n_}; }
  MatrixRef lambda() { return lambda_.ref(); }
  ConstMatrixRef mu() const { return {mu_.data(), np_, rows_, mu_.rows()}; }
  MatrixRef mu_ref() { return {mu_.data(), np_, rows_, mu_.rows()}; }
  const std::string& message() const { return message_; }
  /// The last failure was a transposed stage solve by GMRES (the Krylov back-end) that did not
  /// reach KrylovSettings::sensitivity_tolerance: Status::linear_solver_failures.
  bool linear_solver_failed() const { return linear_solver_failed_; }

  /// A point term at the end of `r`: lambda += [dC/dx; dC/dz], mu += dC/dp.
  int add_point_term(const StepRecord& r, const PointGradient& term);

  /// Seeds the next step() with the adjoint `a` (nx x rows) of an interpolated value
  /// x(t) = start_weight x_n + sum_i derivative_weights[i] F_i + end_weight x_{n+1} of that step
  /// (derivative_weights include the factor h): the dense output (weights 1, h b_i(theta), 0)
  /// and the cubic Hermite interpolant of the event location (w0, (h w1, 0, .., h w3), w2).
  void seed_interpolant(double start_weight, std::span<const double> derivative_weights, double end_weight,
                        ConstMatrixRef a);

  /// One step backwards: lambda (the adjoint of [x_{n+1}; z_{n+1}]) becomes that of [x_n; z_n],
  /// mu collects the step's parameter terms. Returns 0, or a callback's code / 1 with message().
  int step(const StepRecord& r, const ObjectiveGradient& running);

  /// The consistent start z0 = z(t0, x0, p): with w = g_z^{-T} lambda_z, lambda_x -= g_x^T w,
  /// mu -= g_p^T w, lambda_z = 0. Uses the Jacobians of the last step's first stage (the last
  /// ones formed), or, with form_at, forms them at (t, x, z) (a segment without steps).
  /// Returns 0 or 1 (g_z singular, or a callback failed) with message().
  int consistent_start(const double* form_at_t = nullptr, ConstVector x = {}, ConstVector z = {});

  /// consistent_start(), then dx0 = lambda_x, dp = mu (dp may be empty).
  int finish(MatrixRef dx0, MatrixRef dp);

 private:
  struct Stages;  // the back-end of the stage recursion (internal/dirk_adjoint_stages.hpp)
  static ConstVector column(const DenseMatrix& M, int j, int rows) {
    return {M.data() + static_cast<std::size_t>(j) * M.rows(), static_cast<std::size_t>(rows)};
  }
  MatrixRef gz_ref() { return {gz_.data(), nz_, rows_, gz_.rows()}; }
  MatrixRef gp_ref() { return {gp_.data(), np_, rows_, gp_.rows()}; }
  void zero_gradients();
  bool gradients_finite() const;
  int jacobians_at(const StepRecord& r, int i);
  int form_jacobians(double t, ConstVector x, ConstVector z);
  int model_failure(int code, const char* what, double t);
  int krylov_failure(double t);
  // Parameter terms by the problem's products w^T [f_p; g_p] (Problem::parameter_vjp).
  void remember_point(double t, ConstVector x, ConstVector z);
  void stage_parameter_products(const StepRecord& r, int i, ConstMatrixRef kappa, ConstMatrixRef rho);
  int start_parameter_products();

  Problem& problem_;
  const Tableau& method_;
  Statistics counters_;
  JacobianEvaluator jacobians_;
  AdjointReport& report_;
  int nx_, nz_, n_, np_, s_, rows_;
  std::vector<double> p_;
  // The stage matrices M_i on the problem's back-end (dense, band or KLU: solve_transposed),
  // J_i in the problem's storage (dense, or the values of its pattern).
  // The Krylov back-end (LinearSolverKind::krylov): GMRES on M^T to the sensitivity tolerance;
  // probe_ and probe_out_ name a preconditioner without transpose in the failure message.
  bool structured_ = false;
  bool krylov_ = false;
  bool linear_solver_failed_ = false;
  std::vector<double> probe_, probe_out_;
  StageLinearSystem lu_;
  JacobianMatrix J_;
  DenseMatrix Jp_;
  // With Problem::has_parameter_vjp() the parameter terms are products w^T [f_p; g_p], one per
  // stage and adjoint column, and [f_p; g_p] is never formed: the sweep's cost does not grow
  // with np. point_ is (t, x, z) of the Jacobians formed last (consistent_start's point).
  bool parameter_products_ = false;
  int product_code_ = 0;  // the first failed product of a step, reported after its stages
  double product_time_ = 0.0;
  std::vector<double> weights_, product_, point_;
  std::vector<double> point_cache_;
  bool cache_valid_ = false;
  std::vector<double> f_, g_;
  DenseMatrix lambda_;         // n x rows: the adjoint of [x; z] at the current step boundary
  DenseMatrix stage_adjoint_;  // n x (rows * s): V_i, then rho_i
  DenseMatrix kappa_;          // nx x (rows * s): adjoints of the stage derivatives SF_i
  DenseMatrix seed_kappa_;     // nx x (rows * s): interpolant seeds for the next step's SF_i
  DenseMatrix seed_start_;     // nx x rows: interpolant seeds for the next step's x_n
  bool seeded_ = false;
  DenseMatrix mu_;             // np x rows: the parameter adjoint accumulated so far
  DenseMatrix gx_, gz_, gp_;   // an objective term's gradient
  DenseMatrix dgdz_;
  std::vector<int> pivots_;
  std::string message_;
};

}  // namespace esdirk::internal
