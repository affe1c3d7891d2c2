#pragma once
// One shooting interval in reverse mode (Kristensen et al. 2005 section 2 with the discrete adjoint
// of doc/adjoint-theory.md): integrate x' = f(t,x,z,u), 0 = g(t,x,z,u) over [t_k, t_{k+1}] from x_k
// with the control u_k held constant, recording the steps, and then return for given adjoints
// lambda of (x_{k+1}, z_{k+1}) and weights w of the running cost H_k
//
//     gx = A_k^T lambda_x + Az_k^T lambda_z + q_k w^T        (nx x m)
//     gu = B_k^T lambda_x + Bz_k^T lambda_z + r_k w^T        (nu x m)
//
// with one reverse sweep over the interval's steps, without forming A_k = dx_{k+1}/dx_k,
// B_k = dx_{k+1}/du_k (the forward ShootingInterval forms them with nx + nu sensitivity
// directions). q_k = dH_k/dx_k and r_k = dH_k/du_k are the gradients of the same discrete
// quadrature H_k = sum_n h_n sum_i b_i h(T_ni, X_ni, Z_ni, u_k) as ShootingInterval's.
//
//     esdirk::ReverseShootingInterval interval(problem, options);
//     interval.set_running_cost(cost);                            // optional
//     const auto& r = interval.integrate(t[k], t[k+1], x[k], u[k]); // x_{k+1}, z_{k+1}, H_k
//     interval.transpose_products(lambda_x, lambda_z, w, gx, gu);  // any number of times
//
// This pays when the number m of adjoint columns is small against nx + nu (the multiplier of a
// multiple-shooting continuity constraint, the gradient of one objective along a horizon):
// bench/sensitivity/bench_reverse_shooting measures where (doc/adjoint-guide.md, "Shooting
// intervals in reverse mode"). Repeated calls reuse every workspace and start from the last
// step size (warm start), exactly as ShootingInterval does, so with its sensitivities kept out
// of the error test (SensitivityOptions::error_control = false) both take the same steps.
// Objects are independent: intervals may run in parallel, one object per thread.

#include <memory>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"
#include "esdirk/trajectory.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// The forward part of one interval in reverse mode.
struct ReverseShootingResult {
  Status status = Status::success;
  std::string message;    ///< why the interval or the last sweep failed (empty on success)
  double t_end = 0.0;     ///< t_{k+1}
  std::vector<double> x;  ///< x_{k+1}
  std::vector<double> z;  ///< z_{k+1}, consistent
  double H = 0.0;         ///< running cost over the interval (0 without a cost)
  int steps = 0;          ///< accepted steps recorded over the interval
  /// Counters of this interval: its forward run plus every sweep on it so far (adjoint_steps,
  /// adjoint_transposed_solves, adjoint_factorizations, ... of doc/integrator-guide.md).
  Statistics statistics;
};

class ESDIRK_API ReverseShootingInterval {
 public:
  /// Builds the integrator, the step recording and the adjoint for `problem` (np = nu controls),
  /// which must outlive this object. Throws std::invalid_argument for invalid options.
  explicit ReverseShootingInterval(Problem& problem, Options options = {});
  ~ReverseShootingInterval();
  ReverseShootingInterval(const ReverseShootingInterval&) = delete;
  ReverseShootingInterval& operator=(const ReverseShootingInterval&) = delete;

  /// The running cost (the same callback as ShootingInterval's); an empty function: H = 0.
  void set_running_cost(RunningCost cost);

  /// Integrates one interval from (x_k, u_k) over [t_k, t_end] and records its steps (every
  /// step is kept: an interval is short). `z_guess` (size nz) starts the consistent
  /// initialization of z_k; empty: the z of the previous call (zeros on the first). Throws
  /// std::invalid_argument for t_end <= t_k, non-finite times or wrong sizes of x_k, u_k,
  /// z_guess. A numerical failure is reported in the result's status and message; the interval
  /// then has no recording (transpose_products throws until a call succeeds).
  const ReverseShootingResult& integrate(double t_k, double t_end, ConstVector x_k, ConstVector u_k,
                                         ConstVector z_guess = {});

  /// For the last successful interval, with m = lambda_x.cols adjoint columns: writes
  /// gx = A^T lambda_x + Az^T lambda_z + q w^T (nx x m) and gu = B^T lambda_x + Bz^T lambda_z +
  /// r w^T (nu x m; may be empty when nu = 0). lambda_z (nz x m) may be empty (zero), and so
  /// may `cost_weights` (m entries; empty means zero weights). With lambda = 0 and w = 1 the
  /// result is (q, r). One reverse sweep over the recorded steps whatever m is.
  /// Throws std::logic_error before a successful integrate() and std::invalid_argument for
  /// wrong sizes or non-finite lambda or weights. Returns callback_failures / callback_fatal
  /// (the model, its Jacobians or the running cost failed in the sweep or gave non-finite
  /// values) or singular_* with message(); the outputs are then not valid.
  Status transpose_products(ConstMatrixRef lambda_x, ConstMatrixRef lambda_z,
                            ConstVector cost_weights, MatrixRef gx, MatrixRef gu);

  /// The last result; throws std::logic_error if the last integrate() failed or there was none.
  const ReverseShootingResult& result() const;
  /// The recorded steps of the last successful interval.
  const Trajectory& trajectory() const { return trajectory_; }
  /// The counters of the last sweep (stage factorizations, transposed solves, ...).
  const AdjointReport& adjoint_report() const { return adjoint_->report(); }
  /// Why the last transpose_products failed ("" after a success).
  const std::string& message() const { return message_; }
  /// Counters summed over every interval and sweep.
  const Statistics& total_statistics() const { return total_; }
  Integrator& integrator() { return *integrator_; }

 private:
  class CostQuadrature;
  ReverseShootingResult& fail(Status status, std::string message);
  void check_transpose_sizes(ConstMatrixRef lambda_x, ConstMatrixRef lambda_z,
                             ConstVector cost_weights, MatrixRef gx, MatrixRef gu) const;

  int nx_, nz_, nu_;
  std::unique_ptr<Integrator> integrator_;  // the forward run (warm-started)
  Trajectory trajectory_;                   // its steps
  std::unique_ptr<CostQuadrature> quadrature_;
  // The sweep's integrator: never steps; resumed at the interval's start so that its
  // parameters are u_k (the adjoint reads the model's parameters from it).
  std::unique_ptr<Integrator> host_;
  std::unique_ptr<Adjoint> adjoint_;
  AdjointObjective objective_;
  RunningCost cost_;
  // What the objective's callbacks read during a sweep.
  ConstMatrixRef lambda_x_{}, lambda_z_{};
  ConstVector weights_{};
  std::vector<double> hx_, hz_, hu_;
  Statistics before_;
  ReverseShootingResult result_;
  Statistics total_;
  std::string message_;
  bool started_ = false;
  bool valid_ = false;
  std::vector<double> z_guess_;
};

}  // namespace esdirk
