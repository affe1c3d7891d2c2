#pragma once
// The discrete adjoint of ESDIRK34: the exact transpose of the forward stage sensitivities
// (the symplectic partitioned Runge-Kutta partner of the method, doc/adjoint-theory.md).
//
//     esdirk::Integrator solver(problem, options);
//     esdirk::Adjoint adjoint(solver);                // records every accepted step
//     solver.initialize(t0, x0, z0_guess, p);
//     solver.set_stop_time(tf);                       // the terminal time must be a step end
//     solver.integrate_to(tf, x, z);
//     esdirk::AdjointObjective objective;             // terminal, running and output terms
//     objective.terminal = ...;
//     adjoint.gradient(objective, dx0, dp);           // d(objective)/d(x0), d/d(p)
//
// The steps are frozen: the gradient is that of the discrete solution on the recorded step
// sequence (the step-size controller is not differentiated). z0 is the consistent algebraic
// state, so the gradient with respect to x0 includes dz0/dx0. With a memory budget only the
// last steps' records are kept and earlier ones are recomputed bit for bit from checkpoints at
// segment starts (Integrator::resume; doc/adjoint-guide.md, "Checkpointing").

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/partner_tableau.hpp"  // adjoint_partner_coefficients (moved to the core)
#include "esdirk/trajectory.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// The gradient of a point term of the objective at (t, x, z, p): writes dC/dx (nx x m),
/// dC/dz (nz x m, empty when nz = 0) and dC/dp (np x m, empty when np = 0), one column per
/// objective row; all three arrive filled with zeros. Returns 0, > 0 for a failure, < 0 fatal.
using ObjectiveGradient = std::function<int(double t, ConstVector x, ConstVector z, ConstVector p,
                                            MatrixRef dx, MatrixRef dz, MatrixRef dp)>;

/// A (vector) objective with `rows` rows:
///     Phi = C(x(tf), z(tf), p) + sum_k C_k(x(t_k), z(t_k), p) + Q,
///     Q   = sum_n h_n sum_i b_i L(T_ni, X_ni, Z_ni, p)     (the method's own quadrature of L)
/// tf is the end of the recorded run, t_k are output times that must be step ends (stop times
/// of the forward run). Every term is optional.
struct ESDIRK_API AdjointObjective {
  int rows = 1;
  ObjectiveGradient terminal;  ///< gradient of C at tf
  ObjectiveGradient running;   ///< gradient of the running cost L at a stage
  std::vector<double> output_times;
  /// gradient of C_k at output_times[k]
  std::function<int(int k, double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef dx,
                    MatrixRef dz, MatrixRef dp)>
      at_output;
  /// A terminal term given as constant weights: C = w^T [x(tf); z(tf)], w (nx+nz) x rows.
  void set_terminal_weights(ConstMatrixRef weights);
  /// Throws std::invalid_argument for rows < 1, output times without at_output, unsorted
  /// output times, or no term at all.
  void validate() const;
};

struct AdjointOptions {
  /// Doubles the step records may occupy (0: keep every step). With a budget, the records of
  /// the last k steps are kept (k = budget / doubles per record, at least 1) and every earlier
  /// segment of k steps is recomputed once, from its checkpoint. Throws in the Adjoint's
  /// constructor if the budget cannot hold one record.
  long memory_budget = 0;
  /// Called at every step start t_n of the sweep, last first, with the adjoint of the state
  /// (lambda_x: nx x rows, lambda_z: nz x rows) and the parameter adjoint accumulated so far
  /// (mu_p: np x rows): for a tangent (dx_n, dz_n, dp) of the forward map, <lambda_x, dx_n> +
  /// <lambda_z, dz_n> + <mu_p, dp> is the same at every n (between output times).
  std::function<void(int step, double t, ConstMatrixRef lambda_x, ConstMatrixRef lambda_z,
                     ConstMatrixRef mu_p)>
      observer;
  /// Throws std::invalid_argument for a negative memory budget (inline: a plain aggregate).
  void validate() const {
    if (memory_budget < 0) throw std::invalid_argument("AdjointOptions: memory_budget must be >= 0");
  }
};

/// What a sweep did (the adjoint's own counters; adjoint_steps and checkpoints also go into the
/// integrator's Statistics).
struct AdjointReport {
  long adjoint_steps = 0;        ///< steps swept backwards
  long transposed_solves = 0;    ///< solves with a transposed stage matrix M_i^T (per column)
  long stage_factorizations = 0; ///< LUs of stage matrices M_i (one per implicit stage and step)
  long jacobian_evaluations = 0; ///< stage Jacobians J_i formed (analytic or by differences)
  long parameter_jacobian_evaluations = 0;  ///< [f_p; g_p] formed at stages
  long objective_evaluations = 0;  ///< calls of the objective's gradient callbacks
  long recomputed_steps = 0;     ///< steps replayed to recompute records that were not kept
  long checkpoints = 0;          ///< segment starts whose state is stored and checked on replay
  long peak_stored_doubles = 0;  ///< most doubles held by step records, schedule and checkpoints
  long stored_records = 0;       ///< records kept (the segment length under a budget)
};

class ESDIRK_API Adjoint final : public StepListener {
 public:
  /// Adds itself to `integrator`'s listeners (removed by the destructor); the integrator and
  /// its problem must outlive this object. Throws std::invalid_argument for invalid options or
  /// a budget smaller than one step record.
  explicit Adjoint(Integrator& integrator, AdjointOptions options = {});
  ~Adjoint() override;
  Adjoint(const Adjoint&) = delete;
  Adjoint& operator=(const Adjoint&) = delete;

  /// The gradient of every objective row with respect to x0 (dx0: nx x rows) and p (dp: np x
  /// rows, may be empty when np = 0) on the recorded steps. Throws std::logic_error before a
  /// recorded run (or after a restart, which this module does not handle) and
  /// std::invalid_argument for wrong sizes or output times that are not step ends. Returns
  /// callback_failures / callback_fatal (a model or objective callback failed or was not
  /// finite) or singular_iteration_matrix with message().
  Status gradient(const AdjointObjective& objective, MatrixRef dx0, MatrixRef dp);
  /// The same sweep over an external Trajectory recorded from initialize() on an integrator
  /// with this one's problem, options and parameters (every step kept; no budget).
  Status gradient(const Trajectory& trajectory, const AdjointObjective& objective, MatrixRef dx0,
                  MatrixRef dp);

  int steps() const;  ///< steps recorded by the last run
  double final_time() const;
  double initial_time() const { return t0_; }
  const std::vector<double>& initial_state() const { return x0_; }
  const std::vector<double>& initial_algebraic() const { return z0_; }
  /// The recorded steps' sizes and end times (what a replay needs).
  double step_start(int n) const;
  double step_size(int n) const;
  double step_end(int n) const;
  const AdjointReport& report() const { return report_; }
  const std::string& message() const { return message_; }
  Integrator& integrator() const { return integrator_; }
  const AdjointOptions& options() const { return options_; }

  // StepListener
  AcceptVerdict on_accept(const StepView& step, DenseOutput& dense) override;
  void on_restart(double t, RestartKind kind) override;
  void add_statistics(Statistics& report) const override;
  bool needs_jacobian_at_step_start() const override { return true; }

 private:
  class Sweep;
  class Backward;
  Status run_sweep(const AdjointObjective& objective, MatrixRef dx0, MatrixRef dp,
                   internal::RecordedRun& run, bool own_run);

  Integrator& integrator_;
  AdjointOptions options_;
  std::unique_ptr<Sweep> sweep_;
  // The recorded steps (all of them, or the last ones and checkpoints under a memory budget).
  std::unique_ptr<internal::RecordedRun> run_;
  bool recording_ = false;         // initialize() seen, no restart since
  bool restarted_ = false;
  double t0_ = 0.0;
  std::vector<double> x0_, z0_, p0_;
  AdjointReport report_;
  std::string message_;
};

/// The result of check_gradient: the adjoint gradient against a forward directional derivative
/// (exact-mode sensitivities with an LU per stage, on the same steps).
struct ESDIRK_API GradientCheck {
  bool ok = true;
  double worst_error = 0.0;     ///< the largest relative error |adjoint - forward| / scale
  std::string worst_component;  ///< the row (and, with all components, the variable) of it
  std::vector<double> adjoint;  ///< <gradient, direction> per objective row (or per component)
  std::vector<double> forward;  ///< the forward directional derivatives, the same layout
  std::string summary() const;
};

/// Checks the gradient (dx0, dp) of `objective` (computed by `adjoint`) against forward
/// sensitivities on the steps the adjoint recorded: along one random direction of (x0, p) with
/// the given seed, or along every unit direction (all_components, nx + np forward directions),
/// which names the worst variable. Relative errors are scaled by max(|forward|, sum over the
/// direction of |gradient_j d_j|). Throws like Adjoint::gradient.
ESDIRK_API GradientCheck check_gradient(const Adjoint& adjoint, const AdjointObjective& objective,
                                        ConstMatrixRef dx0, ConstMatrixRef dp,
                                        double tolerance = 1e-8, bool all_components = false,
                                        unsigned seed = 12345);

/// The forward directional derivatives d(objective)/d(theta) along the columns of `directions`
/// ((nx + np) x nd): exact-mode forward sensitivities (StageSolve::factorization) replayed on
/// the adjoint's recorded steps, the running cost by the same quadrature. Writes rows x nd into
/// `result`. Returns the forward run's status.
ESDIRK_API Status forward_directional_derivatives(const Adjoint& adjoint,
                                                  const AdjointObjective& objective,
                                                  ConstMatrixRef directions, MatrixRef result);

}  // namespace esdirk
