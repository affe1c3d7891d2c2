#include "esdirk/integrator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

using internal::format_number;

Options validated(Options options, const Problem& problem) {
  options.validate(problem.nx(), problem.nz());
  return options;
}

// " (<what the linear solver knows>)" after a singular iteration matrix (an ILU(0) or block-Jacobi
// zero pivot's row and what to change: Stepper::singular_note), or nothing.
std::string singular_note(const Stepper& stepper) {
  const std::string note = stepper.singular_note();
  return note.empty() ? std::string() : " (" + note + ")";
}

}  // namespace

// The user observer of set_step_observer(), as a listener owned by the integrator.
class Integrator::Observer final : public StepListener {
 public:
  std::function<void(const StepView&)> function;
  AcceptVerdict on_accept(const StepView& step, DenseOutput&) override {
    function(step);
    return AcceptVerdict::proceed();
  }
};

Integrator::Integrator(Problem& problem, Options options)
    : problem_(problem),
      options_(validated(std::move(options), problem)),
      method_(options_.resolved_method()),
      stepper_(problem_, options_, method_, stats_),
      controller_(options_, method_.controller_order()) {}

Integrator::~Integrator() = default;

// ----------------------------------------------------------------------------------------------
// Setup

void Integrator::check_size(ConstVector v, int n, const char* what) const {
  if (static_cast<int>(v.size()) != n)
    throw std::invalid_argument(std::string(what) + " has size " + std::to_string(v.size()) +
                                ", the problem needs " + std::to_string(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw std::invalid_argument(std::string(what) + "[" + std::to_string(i) + "] is not finite");
}

void Integrator::require_initialized(const char* who) const {
  if (!initialized_)
    throw std::logic_error(std::string(who) +
                           ": the integrator is not initialized (call initialize() first, and "
                           "check its status)");
}

Outcome Integrator::failed(Status status, std::string message) {
  message_ = std::string(status_name(status)) + ": " + std::move(message) + model_note(status);
  return {status, StopReason::none, stepper_.t()};
}

Status Integrator::initialize(double t0, ConstVector x0, ConstVector z_guess, ConstVector p) {
  if (!std::isfinite(t0)) throw std::invalid_argument("initialize: t0 is not finite");
  check_size(x0, problem_.nx(), "x0");
  check_size(z_guess, problem_.nz(), "z0");
  check_size(p, problem_.np(), "p");
  // The counters start afresh, but a rejected initialize() loses nothing: the previous state
  // (the stepper restores its own), counters, direction, step size and stop time come back.
  const Statistics previous_stats = stats_;
  stats_ = Statistics{};
  const Status status = start(t0, x0, z_guess, p, RestartKind::initialize);
  if (!ok(status)) {
    stats_ += previous_stats;
    return status;
  }
  direction_ = 0.0;
  h_ = 0.0;
  have_stop_ = false;
  return status;
}

Status Integrator::restart(double t, ConstVector x, ConstVector z_guess, ConstVector p) {
  if (!std::isfinite(t)) throw std::invalid_argument("restart: t is not finite");
  check_size(x, problem_.nx(), "x");
  check_size(z_guess, problem_.nz(), "z");
  check_size(p, problem_.np(), "p");
  return start(t, x, z_guess, p, RestartKind::restart);
}

// What initialize() and restart() share: a consistent start at (t, x), then the listeners.
Status Integrator::start(double t, ConstVector x, ConstVector z_guess, ConstVector p, RestartKind kind) {
  const Status status = stepper_.start(t, x, z_guess, p);
  if (!ok(status)) {
    // The stepper kept its state: the integrator stays as it was (initialized or not).
    message_ = stepper_.message() + model_note(status);
    return status;
  }
  message_.clear();
  have_listener_stop_ = false;
  t_output_ = t;
  controller_.reset();
  initialized_ = true;
  for (StepListener* listener : listeners_) listener->on_restart(t, kind);
  return status;
}

void Integrator::resume(const StepRecord& step, ConstVector p) {
  const auto column = [](const DenseMatrix& m) {
    return ConstVector(m.column(0), static_cast<std::size_t>(m.rows()));
  };
  resume(step.t, column(step.X), column(step.Z), column(step.F), column(step.G), p, step.index,
         step.h >= 0.0 ? 1.0 : -1.0, step.stage_start);
}

void Integrator::resume(double t, ConstVector x, ConstVector z, ConstVector f, ConstVector g,
                        ConstVector p, long index, double direction, ConstVector stage_start) {
  if (!std::isfinite(t)) throw std::invalid_argument("resume: t is not finite");
  check_size(x, problem_.nx(), "resume: x");
  check_size(z, problem_.nz(), "resume: z");
  check_size(f, problem_.nx(), "resume: f");
  check_size(g, problem_.nz(), "resume: g");
  check_size(p, problem_.np(), "resume: p");
  if (index < 0) throw std::invalid_argument("resume: the step index must be >= 0");
  if (!stage_start.empty()) check_size(stage_start, problem_.size(), "resume: stage_start (nx + nz, or empty)");
  message_.clear();
  have_listener_stop_ = false;
  controller_.reset();
  direction_ = direction >= 0.0 ? 1.0 : -1.0;
  stepper_.resume(t, x, z, f, g, p, index, stage_start);
  initialized_ = true;
  for (StepListener* listener : listeners_) listener->on_restart(t, RestartKind::restart);
}

void Integrator::require_step_jacobians(const char* who, bool accepts_krylov) const {
  const JacobianStructure& structure = problem_.jacobian_structure();
  if (structure.solver == LinearSolverKind::krylov && structure.krylov.matrix_free)
    throw std::invalid_argument(std::string(who) + ": matrix-free Krylov products are for states-only runs (the "
                                "derivatives multiply by J on the declared pattern, which then need not be all of J); "
                                "switch KrylovSettings::matrix_free off");
  if (structure.solver == LinearSolverKind::krylov && !accepts_krylov)
    throw std::invalid_argument(std::string(who) + ": the Krylov stage solver serves states-only runs, forward "
                                "sensitivities and the smooth adjoint (not this module); declare the pattern with "
                                "LinearSolverKind::sparse or banded");
  if (options_.reuse_jacobian)
    throw std::invalid_argument(std::string(who) + ": Options::reuse_jacobian is a states-only option (the "
                                "derivatives need the Jacobian at the start of every step); switch it off");
}

void Integrator::add_listener(StepListener& listener) {
  if (std::find(listeners_.begin(), listeners_.end(), &listener) != listeners_.end())
    throw std::invalid_argument("add_listener: the listener is already in the list");
  listeners_.push_back(&listener);
}

void Integrator::remove_listener(StepListener& listener) {
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), &listener), listeners_.end());
}

void Integrator::set_step_observer(std::function<void(const StepView&)> observer) {
  if (!observer) {
    if (observer_) remove_listener(*observer_);
    observer_.reset();
    return;
  }
  if (!observer_) {
    observer_ = std::make_unique<Observer>();
    add_listener(*observer_);
  }
  observer_->function = std::move(observer);
}

const Statistics& Integrator::statistics() const {
  report_ = stats_;
  for (const StepListener* listener : listeners_) listener->add_statistics(report_);
  return report_;
}

void Integrator::dense_output(double t, Vector x_out, Vector z_out) { stepper_.evaluate(t, x_out, z_out); }

StepView Integrator::last_step() const { return stepper_.last_step(); }

ConstMatrixRef Integrator::last_jacobian() const { return stepper_.last_step().jacobian; }

void Integrator::set_typical_values(std::vector<double> typical) {
  stepper_.jacobians().set_typical_values(std::move(typical));
}

void Integrator::set_increment_floors(std::vector<double> floors) {
  stepper_.jacobians().set_increment_floors(std::move(floors));
}

// The stepper keeps two factorizations of the same size and kind (trial and accepted).
std::size_t Integrator::linear_solver_bytes() const { return 2 * stepper_.accepted_matrix().bytes(); }

// ----------------------------------------------------------------------------------------------
// Output-time handling and the driver loop

void Integrator::set_stop_time(double tstop) {
  if (!std::isfinite(tstop)) throw std::invalid_argument("set_stop_time: tstop is not finite");
  if (initialized_ && direction_ != 0.0 && (tstop - t()) * direction_ < 0.0)
    throw std::invalid_argument("set_stop_time: tstop = " + format_number(tstop) + " is behind t = " + format_number(t()));
  have_stop_ = true;
  t_stop_ = tstop;
}

void Integrator::clear_stop_time() { have_stop_ = false; }

void Integrator::set_direction(double tout) {
  if (!std::isfinite(tout)) throw std::invalid_argument("output time is not finite");
  const double t_now = t();
  if (direction_ == 0.0) {
    if (tout == t_now)
      throw std::invalid_argument("output time " + format_number(tout) + " equals the initial time: nothing to integrate");
    direction_ = tout > t_now ? 1.0 : -1.0;
    if (have_stop_ && (t_stop_ - t_now) * direction_ < 0.0)
      throw std::invalid_argument("the stop time is on the other side of t0 than the output time");
  }
  if ((tout - t_now) * direction_ < 0.0) {
    const bool inside_last_step = has_step() && (tout - stepper_.t_begin()) * direction_ >= 0.0;
    if (!inside_last_step)
      throw std::invalid_argument("output time " + format_number(tout) + " is behind the current time " +
                                  format_number(t_now) + " in the direction of integration");
  }
  if (h_ == 0.0) {
    double bound = std::min(std::abs(tout - t_now), options_.max_step);
    if (have_stop_) bound = std::min(bound, std::abs(t_stop_ - t_now));
    h_ = direction_ * (options_.initial_step > 0.0 ? std::min(options_.initial_step, bound)
                                                   : stepper_.initial_step_size(direction_, bound));
  }
}

Outcome Integrator::integrate_to(double tout, Vector x_out, Vector z_out) {
  require_initialized("integrate_to");
  if (static_cast<int>(x_out.size()) != problem_.nx())
    throw std::invalid_argument("integrate_to: x_out has size " + std::to_string(x_out.size()) +
                                ", expected nx = " + std::to_string(problem_.nx()));
  if (!z_out.empty() && static_cast<int>(z_out.size()) != problem_.nz())
    throw std::invalid_argument("integrate_to: z_out has size " + std::to_string(z_out.size()) +
                                ", expected 0 or nz = " + std::to_string(problem_.nz()));
  set_direction(tout);
  message_.clear();
  steps_in_call_ = 0;
  double target = tout;
  StopReason reason = StopReason::reached_output_time;
  if (have_stop_ && (tout - t_stop_) * direction_ > 0.0) {
    target = t_stop_;
    reason = StopReason::reached_stop_time;
  }
  for (;;) {
    // A listener's stop inside the last step comes first when it is not beyond the target.
    if (have_listener_stop_ && (target - listener_stop_) * direction_ >= 0.0) {
      target = listener_stop_;
      reason = StopReason::listener_stop;
      have_listener_stop_ = false;
      break;
    }
    if ((target - t()) * direction_ <= 0.0) break;
    const Status status = take_step();
    if (!ok(status)) {
      std::copy(x().begin(), x().end(), x_out.begin());
      if (!z_out.empty()) std::copy(z().begin(), z().end(), z_out.begin());
      return {status, StopReason::none, t()};
    }
  }
  if (target == t() || !has_step()) {
    std::copy(x().begin(), x().end(), x_out.begin());
    if (!z_out.empty()) std::copy(z().begin(), z().end(), z_out.begin());
  } else {
    stepper_.evaluate(target, x_out, z_out);
  }
  return stopped(reason, target);
}

Outcome Integrator::step(double tout) {
  require_initialized("step");
  set_direction(tout);
  if ((tout - t()) * direction_ <= 0.0)
    throw std::invalid_argument("step: t = " + format_number(t()) + " has already reached tout = " + format_number(tout));
  if (have_stop_ && t() == t_stop_)
    throw std::invalid_argument("step: the integration is at the stop time " + format_number(t_stop_));
  message_.clear();
  steps_in_call_ = 0;
  have_listener_stop_ = false;  // one-step mode reports a stop with the step that asked for it
  const Status status = take_step();
  if (!ok(status)) return {status, StopReason::none, t()};
  if (have_listener_stop_) {
    have_listener_stop_ = false;
    return stopped(StopReason::listener_stop, listener_stop_);
  }
  if (have_stop_ && t() == t_stop_) return stopped(StopReason::reached_stop_time, t());
  return stopped(StopReason::took_one_step, t());
}

// A Newton failure whose last stage solve was ended by GMRES not reaching its tolerance is the
// linear solver's (LinearSolverKind::krylov), named as such.
Status Integrator::newton_failure(const std::string& what) {
  if (stepper_.linear_solver_failed())
    return failed(Status::linear_solver_failures,
                  what + ": GMRES did not reach its tolerance (KrylovSettings: raise dimension or "
                         "max_restarts, or a larger block_size for the preconditioner), or the problem's "
                         "preconditioner or J v failed");
  return failed(Status::newton_failures, what);
}

// Attempts steps from t() until one is accepted or a failure limit is hit.
Status Integrator::take_step() {
  int error_failures = 0, newton_failures = 0, callback_failures = 0, singular = 0, listener_solver_failures = 0;
  failed_listener_ = nullptr;
  for (;;) {
    const double t_now = t();
    if (steps_in_call_ >= options_.max_steps)
      return failed(Status::too_many_steps, std::to_string(options_.max_steps) +
                                                " steps taken in this call without reaching the output time (t = " + format_number(t_now) + ")");
    double h = direction_ * std::min(std::abs(h_), options_.max_step);
    // Near the end of the floating-point range (tout = DBL_MAX) t + h would overflow: the step
    // then ends at the largest finite time instead.
    if (!std::isfinite(t_now + h)) h = direction_ * std::numeric_limits<double>::max() - t_now;
    bool hits_stop = false;
    if (have_stop_) {
      const double remaining = t_stop_ - t_now;
      if (std::abs(h) >= std::abs(remaining)) {
        h = remaining;
        hits_stop = true;
      }
    }
    const double h_min = std::max(options_.min_step, 16.0 * eps * std::abs(t_now));
    if (std::abs(h) < h_min && !hits_stop) {
      // Name the cause: a step that keeps failing for the same reason all the way down to
      // h_min is that failure, not a step-size problem.
      if (error_failures + newton_failures + callback_failures + singular + listener_solver_failures == 0)
        return failed(Status::step_size_too_small,
                      "no step can be taken at t = " + format_number(t_now) + ": the step " +
                          format_number(std::abs(h)) + " is below the smallest step resolved there, " +
                          format_number(h_min) + " (max(min_step, 16 ulp(t))); no step was attempted");
      const std::string where = " while reducing the step to " + format_number(std::abs(h)) + " (< " +
                                format_number(h_min) + ") at t = " + format_number(t_now);
      if (callback_failures > 0 && callback_failures >= error_failures + newton_failures)
        return failed(Status::callback_failures, "f/g kept failing or returning non-finite values" + where + listener_note());
      if (listener_solver_failures > 0 && listener_solver_failures >= error_failures + newton_failures)
        return failed(Status::linear_solver_failures, "a step listener's linear solver kept failing" + where + listener_note());
      if (newton_failures > 0 && newton_failures >= error_failures)
        return newton_failure("the Newton iteration kept failing" + where);
      return failed(Status::step_size_too_small, "the error test kept failing" + where);
    }
    ++steps_in_call_;
    const double magnitude = std::abs(h);
    switch (attempt_step(h, hits_stop ? t_stop_ : t_now + h, false)) {
      case Attempt::accepted:
        return Status::success;
      case Attempt::error_rejected:
        h_ = direction_ * controller_.after_error_rejection(magnitude, last_error_);
        if (++error_failures >= options_.max_error_test_failures)
          return failed(Status::error_test_failures, std::to_string(error_failures) + " error-test failures in a row at t = " + format_number(t_now) + " (last error norm " + format_number(last_error_) + ")");
        break;
      case Attempt::newton_failed:
        h_ = direction_ * controller_.after_newton_failure(magnitude, stepper_.last_contraction());
        if (++newton_failures >= options_.max_newton_failures)
          return newton_failure(std::to_string(newton_failures) + " Newton convergence failures in a row at t = " + format_number(t_now) + " (step " + format_number(magnitude) + ")");
        break;
      case Attempt::callback_failed:
        h_ = direction_ * controller_.after_failure(magnitude);
        if (++callback_failures >= options_.max_callback_failures)
          return failed(Status::callback_failures, std::to_string(callback_failures) + " recoverable callback failures (or non-finite values) in a row at t = " + format_number(t_now) + listener_note());
        break;
      case Attempt::listener_solver_failed:
        h_ = direction_ * controller_.after_failure(magnitude);
        if (++listener_solver_failures >= options_.max_callback_failures)
          return failed(Status::linear_solver_failures, std::to_string(listener_solver_failures) + " linear-solver failures of a step listener in a row at t = " + format_number(t_now) + listener_note());
        break;
      case Attempt::singular:
        h_ = direction_ * controller_.after_failure(magnitude);
        if (++singular >= options_.max_newton_failures)
          return failed(Status::singular_iteration_matrix, "the iteration matrix stayed singular after " + std::to_string(singular) + " step reductions at t = " + format_number(t_now) + singular_note(stepper_));
        break;
      case Attempt::fatal:
        return failed(Status::callback_fatal, "a callback returned a fatal code near t = " + format_number(t_now) + listener_note());
      case Attempt::listener_failed:
        return last_status_;
    }
  }
}

// One attempt: the stepper's stages and error estimate, the listeners' trial verdicts, the
// error test, and on acceptance the controller and the listeners' on_accept.
Integrator::Attempt Integrator::attempt_step(double h, double t_end, bool force_accept) {
  const bool controller_step = std::abs(h) == std::abs(h_);  // not cut to a stop time or bound
  // FactorizationPolicy::automatic keeps J only while no attached module needs J at t_n of
  // each step.
  bool exact = false;
  for (const StepListener* listener : listeners_) exact = exact || listener->needs_jacobian_at_step_start();
  stepper_.set_exact_step_jacobians(exact);
  switch (stepper_.attempt(h)) {
    case Stepper::Attempt::converged: break;
    case Stepper::Attempt::newton_failed: return Attempt::newton_failed;
    case Stepper::Attempt::callback_failed: return Attempt::callback_failed;
    case Stepper::Attempt::singular: return Attempt::singular;
    case Stepper::Attempt::fatal: return Attempt::fatal;
  }
  last_error_ = stepper_.error_norm();
  if (!listeners_.empty()) {
    const StepView trial = stepper_.trial();
    for (StepListener* listener : listeners_) {
      const TrialVerdict verdict = listener->on_trial(trial);
      if (verdict.code != 0 || std::isnan(verdict.error_norm)) {
        failed_listener_ = listener;
        if (verdict.code < 0) return Attempt::fatal;
        if (verdict.code > 0 && verdict.failure == Status::linear_solver_failures)
          return Attempt::listener_solver_failed;
        ++stats_.callback_failures;
        return Attempt::callback_failed;
      }
      last_error_ = std::max(last_error_, verdict.error_norm);
    }
    if (!std::isfinite(last_error_)) {
      ++stats_.callback_failures;
      return Attempt::callback_failed;
    }
  }
  if (last_error_ > 1.0 && !force_accept) {
    ++stats_.rejected_steps;
    return Attempt::error_rejected;
  }
  ++stats_.accepted_steps;
  stepper_.accept(t_end);
  double next = controller_.after_accept(std::abs(h), last_error_, stepper_.max_contraction());
  // A small proposed change keeps h (and with reuse_jacobian the LU): RADAU5's quot1, quot2.
  const double ratio = next / std::abs(h);
  if (controller_step && next != std::abs(h) && ratio >= options_.keep_step_ratio_low &&
      ratio <= options_.keep_step_ratio_high) {
    next = std::abs(h);
    ++stats_.steps_kept;
  }
  h_ = direction_ * std::min(next, options_.max_step);
  last_status_ = notify_accept();
  return ok(last_status_) ? Attempt::accepted : Attempt::listener_failed;
}

// Every listener sees the accepted step once, in order. The earliest stop asked for wins.
Status Integrator::notify_accept() {
  if (listeners_.empty()) return Status::success;
  const StepView step = stepper_.last_step();
  bool stop = false;
  double t_stop = 0.0;
  for (StepListener* listener : listeners_) {
    const AcceptVerdict verdict = listener->on_accept(step, stepper_);
    if (verdict.action == AcceptVerdict::Action::fail) {
      failed_listener_ = listener;
      const std::string why = listener->failure_message();
      return failed(verdict.failure, "a step listener failed after the step from t = " + format_number(step.t) +
                                         " to " + format_number(step.t_end) + " was accepted: " +
                                         (why.empty() ? std::string("(no message)") : why));
    }
    if (verdict.action != AcceptVerdict::Action::stop) continue;
    const double ts = verdict.t_stop;
    if (!((ts - step.t) * direction_ >= 0.0 && (step.t_end - ts) * direction_ >= 0.0))
      throw std::logic_error("a step listener asked to stop at t = " + format_number(ts) +
                             ", outside the step [" + format_number(step.t) + ", " +
                             format_number(step.t_end) + "] it was shown");
    if (!stop || (ts - t_stop) * direction_ < 0.0) t_stop = ts;
    stop = true;
  }
  if (stop) {
    have_listener_stop_ = true;
    listener_stop_ = t_stop;
  }
  return Status::success;
}

// " (model: <Problem::failure_note()>)" after a callback failure, or a linear-solver failure
// (a failing preconditioner or J v callback), when the problem has a note.
std::string Integrator::model_note(Status status) const {
  if (status != Status::callback_failures && status != Status::callback_fatal &&
      status != Status::linear_solver_failures)
    return {};
  const std::string note = problem_.failure_note();
  return note.empty() ? std::string() : " (model: " + note + ")";
}

// " (<listener's message>)" for the listener that failed last, or nothing.
std::string Integrator::listener_note() const {
  if (failed_listener_ == nullptr) return {};
  const std::string why = failed_listener_->failure_message();
  return " (step listener: " + (why.empty() ? std::string("failed without a message") : why) + ")";
}

Status Integrator::step_exactly(double h) {
  require_initialized("step_exactly");
  if (!std::isfinite(h) || h == 0.0) throw std::invalid_argument("step_exactly: h must be finite and nonzero");
  return replay_step(h, t() + h);
}

Status Integrator::replay_step(double h, double t_end) {
  require_initialized("replay_step");
  if (!std::isfinite(h) || h == 0.0 || !std::isfinite(t_end))
    throw std::invalid_argument("replay_step: h and t_end must be finite and h nonzero");
  if (direction_ == 0.0) direction_ = h > 0.0 ? 1.0 : -1.0;
  if (h * direction_ < 0.0) throw std::invalid_argument("step_exactly: h points against the direction of integration");
  message_.clear();
  failed_listener_ = nullptr;
  const double t_now = t();
  switch (attempt_step(h, t_end, true)) {
    case Attempt::accepted: return Status::success;
    case Attempt::listener_failed: return last_status_;
    case Attempt::newton_failed: return newton_failure("Newton did not converge in the fixed step at t = " + format_number(t_now));
    case Attempt::singular: return failed(Status::singular_iteration_matrix, "singular iteration matrix in the fixed step at t = " + format_number(t_now) + singular_note(stepper_));
    case Attempt::fatal: return failed(Status::callback_fatal, "a callback returned a fatal code in the fixed step at t = " + format_number(t_now) + listener_note());
    case Attempt::listener_solver_failed: return failed(Status::linear_solver_failures, "a step listener's linear solver failed in the fixed step at t = " + format_number(t_now) + listener_note());
    case Attempt::callback_failed:
    case Attempt::error_rejected: break;
  }
  return failed(Status::callback_failures, "a callback failed or returned non-finite values in the fixed step at t = " + format_number(t_now) + listener_note());
}

}  // namespace esdirk
