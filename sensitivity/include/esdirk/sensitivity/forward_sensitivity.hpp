#pragma once
// Forward sensitivities by the staggered direct method (Kristensen et al. 2005 section 3.1,
// Algorithms 1-2).
//
//     esdirk::Integrator solver(problem, options);
//     solver.initialize(t0, x0, z0_guess, p);
//     esdirk::ForwardSensitivity sens(solver);           // exact mode by default
//     sens.initialize(seed);                             // (nx + np) x ns directions
//     sens.integrate_to(t1, x, z, Sx, Sz);               // states and sensitivities at t1
//
// A seed column (dx0; dp) is a direction in the space of initial states and parameters; the
// result column is d(x(t), z(t)) along it (the identity seed gives all nx + np of them). After
// every accepted step the stage sensitivities are solved with the step's own LU; rejected steps
// cost nothing (unless the sensitivities are under error control). The object is a step
// listener that adds itself to the integrator's list (and removes itself when destroyed), so it
// follows every step the integrator takes (integrate_to / step / step_exactly / replay_step),
// next to any other listener. Its counters (stage and parameter Jacobians, their
// back-substitutions, NSENS) are its own and appear in Integrator::statistics().

#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/sensitivity_options.hpp"
#include "esdirk/sensitivity/stage_sensitivities.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

class ESDIRK_API ForwardSensitivity final : public StepListener {
 public:
  /// Adds itself to `integrator`'s listeners (the integrator must outlive this object; the
  /// destructor removes it).
  /// Throws std::invalid_argument for invalid options.
  explicit ForwardSensitivity(Integrator& integrator, SensitivityOptions options = {});
  ~ForwardSensitivity() override;
  ForwardSensitivity(const ForwardSensitivity&) = delete;
  ForwardSensitivity& operator=(const ForwardSensitivity&) = delete;

  /// Starts the sensitivities at the integrator's current point (call after
  /// Integrator::initialize() or restart()). `seed` is (nx + np) x ns: rows 0..nx-1 are the
  /// initial-state part dx(t)/d(theta), rows nx.. the parameter part dp/d(theta). The algebraic
  /// part is made consistent, Sz = -g_z^{-1}(g_x Sx + g_p P) (one Jacobian, one LU of g_z).
  /// Throws std::invalid_argument for a seed of the wrong shape or non-finite entries and
  /// std::logic_error if the integrator is not initialized. Returns callback_failures /
  /// callback_fatal / singular_algebraic_jacobian with message() on failure. Allocates only
  /// when the number of directions changes.
  Status initialize(ConstMatrixRef seed);
  /// initialize() with the identity seed: all nx initial states and np parameters.
  Status initialize_all();

  /// Integrates states and sensitivities towards `tout` with Integrator::integrate_to and
  /// writes x, z (may be empty) and Sx (nx x ns), Sz (nz x ns, or an empty MatrixRef) where it
  /// stopped (outcome.t: tout, a stop time before it, or a listener's stop). On failure returns
  /// the status (the integrator's or the sensitivities' own, e.g. a failing parameter Jacobian)
  /// with message(); the object must then be initialized again.
  Outcome integrate_to(double tout, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz = {});

  /// Sensitivities at t(), or inside the last accepted step: Sx is the derivative of the
  /// integrator's dense output x(t); Sz the derivative of the consistent z(t) at (t, x(t)),
  /// -g_z^{-1}(g_x Sx + g_p P), which the integrator's corrected z(t) approximates to its
  /// Newton residual (costs one Jacobian, one parameter Jacobian if the seed has a parameter
  /// part, one LU of g_z counted in dense_output_factorizations, and one model evaluation as
  /// the base of difference Jacobians if they are used). Throws std::logic_error after a failed
  /// integration and std::domain_error outside the last step; returns a failing callback's
  /// status (with message()) and success otherwise.
  Status dense_output(double t, MatrixRef Sx, MatrixRef Sz = {});
  ConstMatrixRef state_sensitivity() const;      ///< dx(t())/d(theta), nx x ns
  ConstMatrixRef algebraic_sensitivity() const;  ///< dz(t())/d(theta), nz x ns

  int directions() const { return directions_; }
  double t() const { return t_; }
  /// This module's counters (also gathered into the integrator's statistics()).
  const Statistics& counters() const { return counters_; }
  /// The paper's parameter part P (np x ns).
  ConstMatrixRef parameter_directions() const { return P_.cref(); }
  /// The stage sensitivities of the last accepted step (for quadratures such as running costs).
  const StageSensitivities& last_stages() const { return stages_; }
  /// success, or the failure that stopped the sensitivities (with message()).
  Status status() const { return status_; }
  const std::string& message() const { return message_; }
  const SensitivityOptions& options() const { return stages_.options(); }
  Integrator& integrator() const { return integrator_; }

  // StepListener
  TrialVerdict on_trial(const StepView& step) override;
  AcceptVerdict on_accept(const StepView& step, DenseOutput& dense) override;
  void on_restart(double t, RestartKind kind) override;
  void add_statistics(Statistics& report) const override { report += counters_; }
  std::string failure_message() const override;
  bool needs_jacobian_at_step_start() const override { return true; }

 private:
  void commit(const StepView& step);
  Status dense_output_at(double t, MatrixRef Sx, MatrixRef Sz);
  Status fail(Status status, std::string message);
  void require_usable(const char* who) const;
  double sensitivity_error_norm() const;
  Status failure_status(int code) const;
  void set_direction_scales(ConstMatrixRef seed);
  Status algebraic_from_states(double t, ConstVector x, ConstVector z, ConstVector f, ConstVector g,
                               ConstMatrixRef Sx, MatrixRef Sz, long& lu_counter);

  Integrator& integrator_;
  Statistics counters_;
  JacobianEvaluator jacobians_;  // counts into counters_, with the integrator's increments
  StageSensitivities stages_;
  int nx_, nz_, np_;
  int directions_ = 0;
  bool initialized_ = false;
  bool uses_parameters_ = false;
  bool uses_differences_ = false;  // J or f_p of the stages by differences (difference_rtol_floor)
  bool trial_solved_ = false;  // the stages hold the trial step about to be accepted
  std::string trial_message_;
  Status status_ = Status::success;
  std::string message_;
  double t_ = 0.0;
  DenseMatrix P_;              // np x ns
  DenseMatrix Sx_, Sz_;        // at t_
  double step_t_ = 0.0, step_h_ = 0.0;
  bool has_step_ = false;
  // Consistent Sz (initialization, dense output): J in the problem's storage (dense, or the
  // values of its pattern), [f_p; g_p], dg/dz and its right-hand sides.
  JacobianMatrix jacobian_;
  DenseMatrix jp_, dgdz_, rhs_;
  std::vector<int> pivots_;
  std::vector<double> point_x_, point_z_, point_f_, point_g_;  // a dense-output point
  std::vector<double> dense_b_;  // dense-output weights b_i(theta)
  std::vector<double> direction_scale_;  // sigma_j of the default error_atol (per direction)
  int active_directions_ = 0;  // seed columns that are not zero (the error norm's RMS count)
};

}  // namespace esdirk
