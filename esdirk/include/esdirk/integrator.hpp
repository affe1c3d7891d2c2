#pragma once
// The driver: the one step loop of the library (Kristensen et al. 2005, Algorithm 1 without the
// sensitivities, which live in the sensitivity module and plug in as a step listener).
//
//     esdirk::Integrator solver(problem, options);
//     solver.initialize(t0, x0, z0_guess, p);      // makes z consistent: g(t0, x0, z0) = 0
//     solver.integrate_to(t1, x, z);               // dense output at t1
//
// The Integrator owns a Stepper (one ESDIRK step: stages, Newton, LU, error estimate, dense
// output) and decides everything around it: direction, output and stop times, the step-size
// controller, retries after failures, and why a call returns (Outcome). Modules and users see
// the steps through an ordered list of StepListeners (doc/architecture.md). Every workspace is
// sized by the constructor; the step loop does not allocate, whatever the listeners.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "esdirk/controller.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/options.hpp"
#include "esdirk/outcome.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/status.hpp"
#include "esdirk/step_listener.hpp"
#include "esdirk/step_record.hpp"
#include "esdirk/stepper.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

class ESDIRK_API Integrator {
 public:
  /// Validates the options (std::invalid_argument) and sizes every workspace. The problem
  /// must outlive the integrator.
  Integrator(Problem& problem, Options options = {});
  ~Integrator();
  Integrator(const Integrator&) = delete;
  Integrator& operator=(const Integrator&) = delete;

  /// Sets t0, x0 and p and solves g(t0, x0, z) = 0 for z by damped Newton from `z_guess`.
  /// Resets the statistics (the listeners' too) and the controller, clears the stop time.
  /// Throws std::invalid_argument on wrong sizes or non-finite input; returns
  /// initialization_failed / singular_algebraic_jacobian / callback_* when z cannot be made
  /// consistent. A call that fails leaves the integrator as it was (state, last step, stop
  /// time; the counters keep the failed attempt's work), so nothing is lost.
  Status initialize(double t0, ConstVector x0, ConstVector z_guess, ConstVector p);

  /// Restart after a discontinuity: new t, x, p (and z guess), consistent z again. Forgets the
  /// controller history, the last step and a pending listener stop, but keeps the step-size
  /// guess, the stop time and the statistics. Listeners are told (on_restart). A restart that
  /// fails (no consistent z, a failing callback) leaves the integrator as it was before the
  /// call, still able to continue from its previous state.
  Status restart(double t, ConstVector x, ConstVector z_guess, ConstVector p);

  /// Puts the integrator at the start of recorded step `step` exactly as the recording run
  /// stood there (t, x, z, and f, g from the record's first stage; no consistent
  /// initialization, no new evaluation), with parameters p: replay_step then continues the
  /// recorded sequence bit for bit from a checkpoint instead of from t0 (restart() is not
  /// bit-exact there: it evaluates f(t, x, z), while the recording run carried the previous
  /// step's stage derivative F_s). The direction is that of the step. Listeners hear of it as a
  /// restart. Under StagePredictor::dense_output the recorded step's first implicit stage
  /// started from the step before it, which a resumed integrator does not have: the record's
  /// stage_start (StepView::stage_start, empty when there was no step before) is handed to the
  /// first step after the resume instead. Throws std::invalid_argument on wrong sizes or
  /// non-finite values.
  void resume(const StepRecord& step, ConstVector p);
  void resume(double t, ConstVector x, ConstVector z, ConstVector f, ConstVector g, ConstVector p,
              long index, double direction, ConstVector stage_start = {});

  /// Integrates towards `tout` and writes the solution where it stopped into x_out, z_out
  /// (z_out may be empty). Returns why it stopped: reached_output_time (solution at tout, by
  /// dense output), reached_stop_time (a stop time before tout), listener_stop (a listener
  /// asked to stop at outcome.t inside a step; solution there by dense output), or a failure
  /// status with the solution at t(). The direction is fixed by the first call (tout < t0
  /// integrates backwards). Throws std::invalid_argument for tout == t0 on the first call or a
  /// tout behind the last step.
  Outcome integrate_to(double tout, Vector x_out, Vector z_out = {});

  /// One-step mode: takes one accepted step towards `tout` (never past a stop time) and
  /// returns took_one_step, reached_stop_time (the step ended on it) or listener_stop (a
  /// listener asked to stop at outcome.t inside the step: dense_output(outcome.t) gives the
  /// solution there); the new state is x(), z() at t(). Direction as for integrate_to.
  Outcome step(double tout);

  /// Takes one step of exactly `h` (signed) without the error test: for order studies and for
  /// finite differences on a frozen step sequence. Listeners see it as any step. The first
  /// call fixes the direction like integrate_to. Newton or callback failures return their
  /// status with nothing changed.
  Status step_exactly(double h);
  /// step_exactly(h) that ends at exactly `t_end` (t + h up to rounding, or the stop time a
  /// recorded step was cut to): replays a StepRecord bit for bit (Trajectory::replay).
  Status replay_step(double h, double t_end);

  /// Integration never steps past this time (discontinuities, ends of shooting intervals).
  void set_stop_time(double tstop);
  void clear_stop_time();

  /// For modules whose derivatives need the Jacobian at the start of every step (forward
  /// sensitivities, adjoints), called when they attach: throws std::invalid_argument naming
  /// `who` when Options::reuse_jacobian is on. The Krylov back-end is refused unless
  /// `accepts_krylov` (forward sensitivities and Adjoint, which solve their own stage systems to
  /// KrylovSettings::sensitivity_tolerance), and with KrylovSettings::matrix_free always. Such a
  /// module is a listener whose needs_jacobian_at_step_start() is true: while it is attached,
  /// FactorizationPolicy::automatic forms J and the LU every step; after it is removed the
  /// policy decides again.
  void require_step_jacobians(const char* who, bool accepts_krylov = false) const;
  /// Adds a listener at the end of the ordered list (it must outlive its membership; remove it
  /// before destroying it). Adding the same listener twice throws std::invalid_argument.
  /// Allocates: call at setup, not from a listener.
  void add_listener(StepListener& listener);
  /// Removes a listener (no-op if it is not in the list).
  void remove_listener(StepListener& listener);
  /// A user observer called after every accepted step: a listener owned by the integrator,
  /// added at the end of the list when first set (an empty function removes it). Coexists with
  /// every other listener.
  void set_step_observer(std::function<void(const StepView&)> observer);

  /// Dense output over the last accepted step: x(t), z(t) for t between its ends
  /// (continuous extension of order 3). z is interpolated from the stage values and then
  /// corrected by simplified Newton on g(t, x(t), z) = 0, which costs up to two evaluations
  /// of the model (counted in function_evaluations) and one LU of dg/dz per step
  /// (dense_output_factorizations). Throws std::domain_error outside.
  void dense_output(double t, Vector x_out, Vector z_out = {});

  // --- State --------------------------------------------------------------------------------
  double t() const { return stepper_.t(); }       ///< the last accepted time
  /// The time of the solution the last integrate_to() or step() returned: t() after
  /// initialize(), restart() and step(), but tout when integrate_to() interpolated inside a
  /// step that went past it (no stop time there). The adjoints compare it with the last step
  /// end, where their terminal term is taken.
  double output_time() const { return t_output_; }
  ConstVector x() const { return stepper_.x(); }  ///< x(t())
  ConstVector z() const { return stepper_.z(); }  ///< z(t())
  ConstVector parameters() const { return stepper_.parameters(); }
  double next_step() const { return h_; }  ///< the step size the next step will try
  /// The counters of the integration and of every listener, gathered into one read-only
  /// report (valid until the next call of statistics()).
  const Statistics& statistics() const;
  const std::string& message() const { return message_; }  ///< why the last call failed
  /// The options as given: Options::method may be "auto" (MethodChoice::automatic()).
  const Options& options() const { return options_; }
  /// The method this integrator runs: options().method, or the member "auto" resolved to by
  /// the tolerance (Options::resolved_method()). Size storage by its stage count.
  const Tableau& method() const { return method_; }
  Problem& problem() const { return problem_; }
  bool initialized() const { return initialized_; }

  // --- Difference Jacobians and storage ---------------------------------------------------
  /// The difference increments of a Jacobian formed without jacobian() (DifferenceIncrement):
  /// delta_j = sqrt(eps) max(|v_j|, min(floor_j, typical_j)), and sqrt(eps) typical_j where
  /// that is zero. Typical values: nx + nz values, each finite and > 0 (default 1). Floors:
  /// nx + nz values in units of the states, each finite and >= 0 (default: 0, MINPACK's
  /// relative rule, or atol_j/rtol_j under DifferenceIncrement::error_weighted). Forward
  /// sensitivities and adjoints form their difference Jacobians with the integrator's
  /// increments. Throws std::invalid_argument for a wrong size or value.
  void set_typical_values(std::vector<double> typical);
  void set_increment_floors(std::vector<double> floors);
  /// Bytes held by the stage linear systems: the factorizations of the trial and of the last
  /// accepted step with their workspace (an n x n LU each on the dense back-end).
  std::size_t linear_solver_bytes() const;

  // --- The last step ------------------------------------------------------------------------
  /// True once a step has been accepted since initialize()/restart().
  bool has_step() const { return stepper_.has_step(); }
  /// The last accepted step (a view, valid until the next step is attempted). Throws
  /// std::logic_error if there is none.
  StepView last_step() const;
  /// The Jacobian J at (t_n, x_n, z_n) of the last accepted step (dense problems; 0 x 0 for a
  /// banded or sparse one).
  ConstMatrixRef last_jacobian() const;
  /// f and g at (t(), x(), z()).
  ConstVector current_derivative() const { return stepper_.f(); }
  ConstVector current_algebraic_residual() const { return stepper_.g(); }
  /// The error norm (21) of the last converged attempt (the largest of the states' and the
  /// listeners' norms).
  double last_error_norm() const { return last_error_; }
  /// The dense output over the last accepted step, as listeners see it.
  DenseOutput& dense() { return stepper_; }

  // --- For the modules built into the library ------------------------------------------------
  // These hand out the core's internal types. They are installed because the integrator holds
  // them, but not exported: code linked against the shared library cannot call their
  // out-of-line members (doc/architecture.md, "The public API").
  /// The factored iteration matrix of the last accepted step (with that step's h*gamma),
  /// whatever was attempted after it.
  const StageLinearSystem& last_iteration_matrix() const { return stepper_.accepted_matrix(); }
  /// The Jacobian evaluator (analytic or finite differences) and its increments.
  JacobianEvaluator& jacobians() { return stepper_.jacobians(); }
  /// The error weights 1/(atol + rtol |.|) of the error test.
  const ErrorWeights& error_weights() const { return stepper_.weights(); }

 private:
  class Observer;
  // listener_solver_failed: a listener's trial verdict names its linear solver (TrialVerdict::failure).
  enum class Attempt { accepted, error_rejected, newton_failed, callback_failed, listener_solver_failed, singular, fatal, listener_failed };

  void require_initialized(const char* who) const;
  void check_size(ConstVector v, int n, const char* what) const;
  Status start(double t, ConstVector x, ConstVector z_guess, ConstVector p, RestartKind kind);
  void set_direction(double tout);
  Outcome stopped(StopReason reason, double t) {
    t_output_ = t;
    return {Status::success, reason, t};
  }
  Outcome failed(Status status, std::string message);
  Status newton_failure(const std::string& what);
  Status take_step();
  Attempt attempt_step(double h, double t_end, bool force_accept);
  Status notify_accept();
  std::string listener_note() const;
  std::string model_note(Status status) const;  // the problem's failure_note() after a callback failure

  double t_output_ = 0.0;  // output_time()
  Problem& problem_;
  Options options_;
  Tableau method_;  // options_.method resolved; the stepper refers to it
  Statistics stats_;
  Stepper stepper_;
  StepController controller_;
  std::vector<StepListener*> listeners_;
  std::unique_ptr<Observer> observer_;
  mutable Statistics report_;

  bool initialized_ = false;
  double direction_ = 0.0;  // +1 / -1 once fixed by the first output time
  double h_ = 0.0;          // signed size of the next step
  bool have_stop_ = false;
  double t_stop_ = 0.0;
  bool have_listener_stop_ = false;  // a listener asked to stop inside the last step
  double listener_stop_ = 0.0;
  std::string message_;
  long steps_in_call_ = 0;
  double last_error_ = 0.0;
  StepListener* failed_listener_ = nullptr;  // the listener whose failure ended an attempt
  Status last_status_ = Status::success;     // what a listener's on_accept failure returned
};

}  // namespace esdirk
