#pragma once
// Forward sensitivities by the staggered direct method (seed 002 section 3.1, Algorithms 1-2).
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
// cost nothing (unless the sensitivities are under error control). The object attaches itself to
// the integrator as its step observer (and trial-step hook for the error control), so it also
// follows steps taken by Integrator::integrate_to / step / step_exactly directly.

#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/sensitivity_options.hpp"
#include "esdirk/sensitivity/stage_sensitivities.hpp"

namespace esdirk {

class ForwardSensitivity {
 public:
  /// Attaches to `integrator` (which must outlive this object; the destructor detaches).
  /// Throws std::invalid_argument for invalid options.
  explicit ForwardSensitivity(Integrator& integrator, SensitivityOptions options = {});
  ~ForwardSensitivity();
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

  /// Integrates states and sensitivities to `tout` (one-step mode of the integrator; dense
  /// output at tout) and writes x, z (may be empty) and Sx (nx x ns), Sz (nz x ns, or an empty
  /// MatrixRef). On failure returns the status (integrator's or the sensitivities' own, e.g. a
  /// failing parameter Jacobian) with message(); the object must then be initialized again.
  Status integrate_to(double tout, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz = {});

  /// Sensitivities at t(), or interpolated inside the last accepted step (dense output that is
  /// the exact derivative of the integrator's dense output). Throw std::logic_error after a
  /// failed integration and std::domain_error outside the last step.
  void dense_output(double t, MatrixRef Sx, MatrixRef Sz = {}) const;
  ConstMatrixRef state_sensitivity() const;      ///< dx(t())/d(theta), nx x ns
  ConstMatrixRef algebraic_sensitivity() const;  ///< dz(t())/d(theta), nz x ns

  int directions() const { return directions_; }
  double t() const { return t_; }
  /// The seed's parameter part P (np x ns).
  ConstMatrixRef parameter_directions() const { return P_.cref(); }
  /// The stage sensitivities of the last accepted step (for quadratures such as running costs).
  const StageSensitivities& last_stages() const { return stages_; }
  /// success, or the failure that stopped the sensitivities (with message()).
  Status status() const { return status_; }
  const std::string& message() const { return message_; }
  const SensitivityOptions& options() const { return stages_.options(); }
  Integrator& integrator() const { return integrator_; }

 private:
  void on_accepted_step(const StepRecord& step);
  double on_trial_step(const StepRecord& step);
  void commit(const StepRecord& step);
  Status fail(Status status, std::string message);
  void require_usable(const char* who) const;
  double sensitivity_error_norm(const StepRecord& step) const;
  void set_direction_scales(ConstMatrixRef seed);

  Integrator& integrator_;
  StageSensitivities stages_;
  int nx_, nz_, np_;
  int directions_ = 0;
  bool initialized_ = false;
  bool uses_parameters_ = false;
  bool trial_solved_ = false;  // the stages hold the trial step about to be accepted
  int trial_code_ = 0;         // the last trial's failure code (error control), 0 if none
  std::string trial_message_;
  Status status_ = Status::success;
  std::string message_;
  double t_ = 0.0;
  DenseMatrix P_;              // np x ns
  DenseMatrix Sx_, Sz_;        // at t_
  double step_t_ = 0.0, step_h_ = 0.0;
  bool has_step_ = false;
  DenseMatrix jacobian_, jp_, dgdz_, rhs_;  // consistent initialization of Sz
  std::vector<int> pivots_;
  std::vector<double> rtol_, atol_;  // error control weights per state
  std::vector<double> direction_scale_;  // sigma_j of the default error_atol (per direction)
};

}  // namespace esdirk
