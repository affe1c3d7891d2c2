#pragma once
// Step listeners: how modules (sensitivities, quadratures, event detection, trajectories) and
// users see the steps of the one driver loop (Integrator). Listeners are called in the order
// they were added; each sees every trial step that converged (on_trial) and every accepted step
// (on_accept) exactly once. A listener must not call the integrator's stepping functions
// (integrate_to, step, step_exactly, initialize, restart) from inside its callbacks.

#include <string>

#include "esdirk/dense_output.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/status.hpp"
#include "esdirk/step_record.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// What a listener says of a trial step: an extra error norm that enters the error test
/// (accepted only if max(states' norm, every extra norm) <= 1), or a failure: code > 0 is
/// recoverable (the step is retried smaller), code < 0 fatal.
struct TrialVerdict {
  double error_norm = 0.0;
  int code = 0;
  /// What a recoverable failure was: Status::callback_failures (counted as such), or
  /// Status::linear_solver_failures (an iterative solve of the listener's own missed its
  /// tolerance; the listener's solver counts it): the status the run ends with when the
  /// failures go on.
  Status failure = Status::callback_failures;
};

/// What a listener says of an accepted step.
struct AcceptVerdict {
  enum class Action { proceed, stop, fail };
  Action action = Action::proceed;
  double t_stop = 0.0;              ///< stop: the time inside the step to stop at (an event)
  Status failure = Status::success;  ///< fail: the status the call returns

  static AcceptVerdict proceed() { return {}; }
  static AcceptVerdict stop_at(double t) { return {Action::stop, t, Status::success}; }
  static AcceptVerdict fail(Status status) { return {Action::fail, 0.0, status}; }
};

/// Why the integration (re)starts: initialize() resets every counter; restart() keeps them.
enum class RestartKind { initialize, restart };

class ESDIRK_API StepListener {
 public:
  virtual ~StepListener() = default;

  /// A trial step whose stages converged, before the error test; its LU is `step.matrix`.
  virtual TrialVerdict on_trial(const StepView& step) {
    (void)step;
    return {};
  }
  /// An accepted step, with the dense output over it.
  virtual AcceptVerdict on_accept(const StepView& step, DenseOutput& dense) = 0;
  /// initialize() or restart() at time t succeeded (the state there is consistent).
  virtual void on_restart(double t, RestartKind kind) {
    (void)t;
    (void)kind;
  }
  /// Adds this listener's own counters to the integrator's report.
  virtual void add_statistics(Statistics& report) const { (void)report; }
  /// Why the last on_trial / on_accept failed (read by the driver for its message).
  virtual std::string failure_message() const { return {}; }
  /// True if the listener needs the step's Jacobian to be J at (t_n, x_n, z_n): forward
  /// sensitivities and adjoints (their stage derivatives start from it), a recording
  /// Trajectory (a replay repeats each step from its own start). While such a listener is
  /// attached the integrator does not reuse J from an earlier step.
  virtual bool needs_jacobian_at_step_start() const { return false; }
};

}  // namespace esdirk
