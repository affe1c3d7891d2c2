#include "esdirk/events/hybrid_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/sensitivity/stage_sensitivities.hpp"
#include "event_detector.hpp"
#include "event_jumps.hpp"
#include "event_rate_guard.hpp"
#include "internal/format_number.hpp"
#include "mode_problem.hpp"

namespace esdirk {
namespace {

using internal::format_number;

std::size_t size(int n) { return static_cast<std::size_t>(n); }

Status callback_status(int code) {
  if (code == 2) return Status::singular_algebraic_jacobian;
  return code < 0 ? Status::callback_fatal : Status::callback_failures;
}

void check_size(ConstVector v, int n, const char* what) {
  if (static_cast<int>(v.size()) != n)
    throw std::invalid_argument(std::string("HybridSolver: ") + what + " has size " +
                                std::to_string(v.size()) + ", expected " + std::to_string(n));
}

}  // namespace

HybridSolver::HybridSolver(HybridProblem& problem, HybridOptions options)
    : problem_(problem),
      options_(std::move(options)),
      nx_(problem.nx()),
      nz_(problem.nz()),
      np_(problem.np()),
      ne_(problem.event_count()),
      nm_(problem.memory_size()) {
  options_.validate(ne_, nx_, nz_);
  if (problem.has_parameter_reset() && np_ == 0)
    throw std::invalid_argument("HybridSolver: the problem declares parameter resets (has_parameter_reset()) "
                                "but has no parameters (np = 0)");
  mode_problem_ = std::make_unique<internal::ModeProblem>(problem_);
  integrator_ = std::make_unique<Integrator>(*mode_problem_, options_.integrator);
  detector_ = std::make_unique<internal::EventDetector>(*integrator_, *mode_problem_, options_, counters_);
  integrator_->add_listener(*detector_);
  jumps_ = std::make_unique<internal::EventJumps>(*mode_problem_, counters_);
  rate_guard_ = std::make_unique<internal::EventRateGuard>(options_);
  const int npe = np_ + nm_;
  x_.assign(size(nx_), 0.0);
  z_.assign(size(nz_), 0.0);
  memory_.assign(size(nm_), 0.0);
  saved_memory_.assign(size(nm_), 0.0);
  p_ext_.assign(size(npe), 0.0);
  saved_p_ext_.assign(size(npe), 0.0);
  f_minus_.assign(size(nx_), 0.0);
  f_plus_.assign(size(nx_), 0.0);
  x_plus_.assign(size(nx_), 0.0);
  zdot_minus_.assign(size(nz_), 0.0);
  zdot_plus_.assign(size(nz_), 0.0);
  row_.assign(size(jumps_->columns()), 0.0);
  h_.assign(size(ne_), 0.0);
  references_.assign(size(ne_), 0);
  no_fired_.assign(size(ne_), 0);
  reset_jacobian_.resize(nx_, jumps_->columns());
  p_plus_.assign(size(np_), 0.0);
  parameter_reset_jacobian_.resize(np_, jumps_->columns());
  initial_fired_.assign(size(ne_), 0);
  cascade_candidate_.assign(size(ne_), 0);
  cascade_fired_.assign(size(ne_), 0);
  auto size_record = [&](EventRecord& r) {
    r.fired.assign(size(ne_), 0);
    r.x_minus.assign(size(nx_), 0.0);
    r.x_plus.assign(size(nx_), 0.0);
    r.z_minus.assign(size(nz_), 0.0);
    r.z_plus.assign(size(nz_), 0.0);
    r.p_minus.assign(size(np_), 0.0);
    r.p_plus.assign(size(np_), 0.0);
  };
  // The first records are made here, so that the default log (256) never allocates at an
  // event; a larger capacity grows the log as events happen (next_record): made whole at
  // setup, 2^20 records took 423 MB for a run with one event.
  const int made = std::min(options_.event_log_capacity, HybridOptions::preallocated_event_records);
  for (int i = static_cast<int>(log_.size()); i < made; ++i) size_record(log_.emplace_back());
  size_record(scratch_);
}

HybridSolver::~HybridSolver() {
  sensitivity_.reset();  // removes itself from the integrator's listeners
  if (integrator_ && detector_) integrator_->remove_listener(*detector_);
}

const Statistics& HybridSolver::statistics() const {
  report_ = integrator_->statistics();  // the detector adds this module's counters
  return report_;
}

Status HybridSolver::initialize(double t0, int mode, ConstVector x0, ConstVector z_guess,
                                ConstVector p, ConstVector memory0) {
  check_size(x0, nx_, "x0");
  if (!(z_guess.empty() && nz_ == 0)) check_size(z_guess, nz_, "z0");
  check_size(p, np_, "p");
  if (static_cast<int>(memory0.size()) != nm_)
    throw std::invalid_argument(
        "HybridSolver::initialize: the initial memory has size " + std::to_string(memory0.size()) +
        " but the problem's memory has size " + std::to_string(nm_) +
        (nm_ == 0 ? " (the problem has no memory)" : " (nx + nz: x* then z*)"));
  for (double v : memory0)
    if (!std::isfinite(v)) throw std::invalid_argument("HybridSolver::initialize: the initial memory is not finite");
  if (!problem_.has_mode(mode))
    throw std::invalid_argument("HybridSolver::initialize: the problem does not know mode " + std::to_string(mode));
  sensitivity_.reset();
  directions_ = 0;
  initialized_ = false;
  failed_ = false;
  pending_ = false;
  initial_pending_ = false;
  cascade_next_ = false;
  cascade_depth_ = 0;
  message_.clear();
  mode_ = mode;
  mode_problem_->mode = mode;
  std::copy(p.begin(), p.end(), p_ext_.begin());
  std::copy(memory0.begin(), memory0.end(), memory_.begin());
  std::copy(memory0.begin(), memory0.end(), p_ext_.begin() + np_);
  const Status status = integrator_->initialize(t0, x0, z_guess, p_ext_);
  if (!ok(status)) {
    message_ = integrator_->message();
    return status;
  }
  t_ = t0;
  std::copy(integrator_->x().begin(), integrator_->x().end(), x_.begin());
  std::copy(integrator_->z().begin(), integrator_->z().end(), z_.begin());
  logged_ = 0;
  events_ = 0;
  rate_guard_->reset();
  next_time_event_ = 0;
  while (next_time_event_ < options_.time_events.size() && options_.time_events[next_time_event_] <= t0)
    ++next_time_event_;  // a time event at t0 is suppressed, as a state event there
  const Status armed = arm_detector(no_fired_, 0.0, false);
  if (!ok(armed)) return armed;
  const Status initial = find_initial_events();
  if (!ok(initial)) return initial;
  initialized_ = true;
  return Status::success;
}

Status HybridSolver::initialize_sensitivities(ConstMatrixRef seed, SensitivityOptions options) {
  if (!initialized_ || failed_ || pending_)
    throw std::logic_error("HybridSolver::initialize_sensitivities: call initialize() first (and not "
                           "after a failure or with a transition pending)");
  if (seed.data == nullptr || seed.rows != nx_ + np_ || seed.cols < 1 || seed.ld < seed.rows)
    throw std::invalid_argument("HybridSolver::initialize_sensitivities: the seed must be (nx + np) x ns = " +
                                std::to_string(nx_ + np_) + " x ns");
  const int ns = seed.cols, npe = np_ + nm_;
  if (!sensitivity_) sensitivity_ = std::make_unique<ForwardSensitivity>(*integrator_, std::move(options));
  // The size limits before the seed is copied or read (issue 27: a seed beyond them was read
  // to its end, and here also copied, before ForwardSensitivity refused it).
  sensitivity_->last_stages().check_directions(ns);
  directions_ = ns;
  seed_.resize(nx_ + npe, ns);
  for (int j = 0; j < ns; ++j)
    for (int i = 0; i < nx_ + np_; ++i) seed_(i, j) = seed(i, j);  // memory rows stay 0
  sx_.resize(nx_, ns);
  sz_.resize(nz_, ns);
  smem_.resize(nm_, ns);
  dx_total_.resize(nx_, ns);
  wstar_.resize(nz_, ns);
  pe_dirs_.resize(npe, ns);
  dp_total_.resize(np_, ns);
  left_dirs_.resize(jumps_->columns(), ns);
  tau_.assign(size(ns), 0.0);
  for (EventRecord& r : log_) {
    r.tau.assign(size(ns), 0.0);
    r.sx_minus.resize(nx_, ns);
    r.sx_plus.resize(nx_, ns);
    r.sz_minus.resize(nz_, ns);
    r.sz_plus.resize(nz_, ns);
  }
  scratch_.tau.assign(size(ns), 0.0);
  scratch_.sx_minus.resize(nx_, ns);
  scratch_.sx_plus.resize(nx_, ns);
  scratch_.sz_minus.resize(nz_, ns);
  scratch_.sz_plus.resize(nz_, ns);
  const Status status = sensitivity_->initialize(seed_.cref());
  if (!ok(status)) {
    message_ = sensitivity_->message();
    return status;
  }
  for (int j = 0; j < ns; ++j) {
    for (int i = 0; i < nx_; ++i) sx_(i, j) = seed(i, j);
    for (int i = 0; i < nz_; ++i) sz_(i, j) = sensitivity_->algebraic_sensitivity()(i, j);
  }
  return Status::success;
}

ConstMatrixRef HybridSolver::parameter_sensitivity() const {
  if (!sensitivity_) return {};
  const ConstMatrixRef Pe = sensitivity_->parameter_directions();
  return {Pe.data, np_, Pe.cols, Pe.ld};
}

// --- Output and failures --------------------------------------------------------------------

void HybridSolver::write_output(Vector x, Vector z, MatrixRef Sx, MatrixRef Sz) const {
  std::copy(x_.begin(), x_.end(), x.begin());
  if (!z.empty()) std::copy(z_.begin(), z_.end(), z.begin());
  if (Sx.data)
    for (int j = 0; j < directions_; ++j)
      for (int i = 0; i < nx_; ++i) Sx(i, j) = sx_(i, j);
  if (Sz.data)
    for (int j = 0; j < directions_; ++j)
      for (int i = 0; i < nz_; ++i) Sz(i, j) = sz_(i, j);
}

Outcome HybridSolver::finish(StopReason reason, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz) {
  write_output(x, z, Sx, Sz);
  return {Status::success, reason, t_};
}

Outcome HybridSolver::failed(Status status, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz) {
  failed_ = true;
  write_output(x, z, Sx, Sz);
  return {status, StopReason::none, t_};
}

// A transition that cannot be applied: the solver keeps the left limit at t* in the old mode.
Status HybridSolver::transition_failure(Status status, std::string message) {
  message_ = std::string(status_name(status)) + ": " + std::move(message);
  return status;
}

// --- The driver loop -------------------------------------------------------------------------

bool HybridSolver::set_stop_time_for(double tout) {
  if (next_time_event_ < options_.time_events.size() && options_.time_events[next_time_event_] <= tout) {
    integrator_->set_stop_time(options_.time_events[next_time_event_]);
    return true;
  }
  integrator_->clear_stop_time();
  return false;
}

Outcome HybridSolver::integrate_to(double tout, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz) {
  if (!initialized_) throw std::logic_error("HybridSolver::integrate_to: call initialize() first");
  if (failed_)
    throw std::logic_error("HybridSolver::integrate_to: the last call failed (" + message_ +
                           "); initialize the solver again");
  check_size(x, nx_, "x");
  if (!z.empty()) check_size(z, nz_, "z");
  if ((Sx.data || Sz.data) && !sensitivity_)
    throw std::invalid_argument("HybridSolver::integrate_to: sensitivities requested without initialize_sensitivities()");
  if ((Sx.data && (Sx.rows != nx_ || Sx.cols != directions_)) ||
      (Sz.data && (Sz.rows != nz_ || Sz.cols != directions_)))
    throw std::invalid_argument("HybridSolver::integrate_to: Sx must be nx x ns and Sz nz x ns");
  if (!std::isfinite(tout) || tout < t_)
    throw std::invalid_argument("HybridSolver::integrate_to: tout = " + format_number(tout) +
                                " is before t = " + format_number(t_) + " (hybrid runs go forward)");
  message_.clear();
  bool stopped = false;  // a terminal component of a cascade is due (its transition pending)
  if (initial_pending_) {
    // Initial events at t0: at tout = t0 the caller gets the left limit, as at any event.
    initial_pending_ = false;
    if (t_ == tout) write_output(x, z, Sx, Sz);
    const Status status = transition_with_cascade(TransitionKind::initial_event, stopped);
    if (!ok(status)) return failed(status, x, z, Sx, Sz);
    if (stopped) return finish(StopReason::listener_stop, x, z, Sx, Sz);
    if (t_ == tout) return {Status::success, StopReason::reached_output_time, t_};
  }
  if (pending_) {
    pending_ = false;
    const Status status = transition_with_cascade(pending_kind_, stopped);
    if (!ok(status)) return failed(status, x, z, Sx, Sz);
    if (stopped) return finish(StopReason::listener_stop, x, z, Sx, Sz);
  }
  for (;;) {
    if (tout == t_) return finish(StopReason::reached_output_time, x, z, Sx, Sz);
    const bool time_event_ahead = set_stop_time_for(tout);
    const Outcome o = sensitivity_ ? sensitivity_->integrate_to(tout, x_, z_, sx_.ref(), sz_.ref())
                                   : integrator_->integrate_to(tout, x_, z_);
    if (!ok(o)) {
      if (detector_->failed()) {  // the event functions failed: back to where they were good
        t_ = detector_->good_time();
        std::copy(detector_->good_x().begin(), detector_->good_x().end(), x_.begin());
        std::copy(detector_->good_z().begin(), detector_->good_z().end(), z_.begin());
      } else {
        t_ = o.t;
      }
      message_ = sensitivity_ && !sensitivity_->message().empty() ? sensitivity_->message()
                                                                   : integrator_->message();
      return failed(o.status, x, z, Sx, Sz);
    }
    t_ = o.t;
    bool time_event = false;
    if (o.reason == StopReason::listener_stop) {
      const Status refined = refine_event();
      if (!ok(refined)) return failed(refined, x, z, Sx, Sz);
      const Status rate = check_event_rate(t_);
      if (!ok(rate)) return failed(rate, x, z, Sx, Sz);
      bool terminal = false;
      for (int k = 0; k < ne_ && !options_.terminal.empty(); ++k)
        terminal = terminal || (detector_->fired()[size(k)] != 0 && options_.terminal[size(k)]);
      if (terminal) {
        pending_ = true;
        pending_kind_ = TransitionKind::state_event;
        return finish(StopReason::listener_stop, x, z, Sx, Sz);
      }
    } else if (time_event_ahead && t_ == options_.time_events[next_time_event_]) {
      time_event = true;
    } else {
      return finish(StopReason::reached_output_time, x, z, Sx, Sz);
    }
    // A state or time event before (or at) tout: at tout the caller gets the left limit.
    if (t_ == tout) write_output(x, z, Sx, Sz);
    const Status status =
        transition_with_cascade(time_event ? TransitionKind::time_event : TransitionKind::state_event, stopped);
    if (!ok(status)) return failed(status, x, z, Sx, Sz);
    if (stopped) return finish(StopReason::listener_stop, x, z, Sx, Sz);
    if (t_ == tout) return {Status::success, StopReason::reached_output_time, t_};
  }
}

bool HybridSolver::terminal_among(std::span<const int> fired) const {
  for (int k = 0; k < ne_ && !options_.terminal.empty(); ++k)
    if (fired[size(k)] != 0 && options_.terminal[size(k)]) return true;
  return false;
}

// A transition and the cascade it sets off at the same instant (doc/events-theory.md, D5):
// while the last transition made a component true (arm_detector found a candidate), that
// component fires next, alone, from the state the transition left; the lowest index first,
// everything re-evaluated after each. The rate guard counts the events at one instant
// (max_events_per_step ends a cascade that does not end). A terminal component of the cascade
// stops before its transition (left limit: the state the previous one left), which the next
// integrate_to applies.
Status HybridSolver::transition_with_cascade(TransitionKind kind, bool& stopped) {
  stopped = false;
  Status status = apply_transition(kind);
  while (ok(status) && cascade_next_) {
    status = check_event_rate(t_);
    if (!ok(status)) {
      message_ += " (the last of them " + event_name(TransitionCause{cascade_candidate_, -1}, false) +
                  ", made true by the transition before it at t = " + format_number(t_) + ")";
      return status;
    }
    if (terminal_among(cascade_candidate_)) {
      pending_ = true;
      pending_kind_ = TransitionKind::cascade;
      stopped = true;
      return Status::success;
    }
    status = apply_transition(TransitionKind::cascade);
  }
  return status;
}

// The located t* and the left limit there, refined on the step's cubic Hermite interpolant
// (O(h^4), as accurate as the step; the method's dense output, on which the event was found,
// is O(h^3)): Newton on h_k(t) = 0 with dh/dt = D_h, x(t) from the interpolant, z made
// consistent with it, then the sensitivities at t* interpolated the same way (Sx) and made
// consistent (Sz). Without a transversal crossing (D_h ~ 0) the located t* is kept.
Status HybridSolver::refine_event() {
  const int k = detector_->primary();
  const double lo = std::min(detector_->step_begin(), detector_->step_end());
  const double hi = std::max(detector_->step_begin(), detector_->step_end());
  const double tol = std::max(options_.location_tolerance,
                              4.0 * (std::nextafter(std::abs(t_), 1e300) - std::abs(t_)));
  double t = t_;
  int code = 0;
  for (int iteration = 0; iteration < 4; ++iteration) {
    detector_->hermite(t, x_);
    if (nz_ > 0) code = jumps_->correct_algebraic(t, x_, z_, p_ext_);
    if (code == 0) {
      code = detector_->evaluate(t, x_, z_, h_);
      if (code != 0)
        return transition_failure(callback_status(code), detector_->what_failed() + " while refining the event near t = " +
                                                             format_number(t));
    }
    if (code == 0) code = jumps_->rates(t, x_, z_, p_ext_, f_minus_, zdot_minus_);
    if (code == 0) code = jumps_->event_gradient(k, t, x_, z_, p_ext_, row_);
    if (code != 0) break;
    double dh = row_[0], scale = std::abs(row_[0]);
    for (int i = 0; i < nx_; ++i) {
      dh += row_[size(1 + i)] * f_minus_[size(i)];
      scale += std::abs(row_[size(1 + i)] * f_minus_[size(i)]);
    }
    for (int i = 0; i < nz_; ++i) {
      dh += row_[size(1 + nx_ + i)] * zdot_minus_[size(i)];
      scale += std::abs(row_[size(1 + nx_ + i)] * zdot_minus_[size(i)]);
    }
    if (!(std::abs(dh) > options_.grazing_tolerance * scale)) break;  // not transversal
    const double correction = -h_[size(k)] / dh;
    if (!(std::abs(correction) > tol)) break;
    const double next = std::clamp(t + correction, lo, hi);
    if (next == t) break;
    t = next;
  }
  if (code != 0)
    return transition_failure(callback_status(code), "the model or the event functions failed while "
                              "refining the event near t = " + format_number(t));
  t_ = t;
  if (!sensitivity_) return Status::success;
  double w[4];
  detector_->hermite_weights(t, w);
  const double h = detector_->step_size();
  const StageSensitivities& stages = sensitivity_->last_stages();
  const int s = integrator_->method().stages;
  const ConstMatrixRef S0 = stages.stage_states(0), F0 = stages.stage_derivatives(0);
  const ConstMatrixRef S1 = stages.stage_states(s - 1), F1 = stages.stage_derivatives(s - 1);
  for (int j = 0; j < directions_; ++j)
    for (int i = 0; i < nx_; ++i)
      sx_(i, j) = w[0] * S0(i, j) + w[1] * h * F0(i, j) + w[2] * S1(i, j) + w[3] * h * F1(i, j);
  if (nz_ > 0) {
    code = jumps_->rates(t, x_, z_, p_ext_, f_minus_, zdot_minus_);
    if (code == 0)
      code = jumps_->algebraic_sensitivity(t, x_, z_, p_ext_, sx_.cref(), sensitivity_->parameter_directions(), sz_.ref());
    if (code != 0)
      return transition_failure(callback_status(code), "the algebraic sensitivities failed at the event t = " +
                                                           format_number(t));
  }
  return Status::success;
}

// Chattering and Zeno behaviour, judged on the event times (event_rate_guard.hpp).
Status HybridSolver::check_event_rate(double t) {
  const Status status = rate_guard_->record(t);
  if (!ok(status)) message_ = rate_guard_->message();
  return status;
}

// The detector's reference signs at the integrator's current point (doc/events-theory.md, D1):
// the sign of each component's value h+ there, so that a reset or a new mode that moved h away
// from zero (to either side) is compared with where it really is and its next crossing is found
// in the first step already, however long. Only where h+ is zero to rounding -- within the band
// that locating t* (a few ulp of t, times the rates before and after) and evaluating h
// (machine epsilon times the size of h's terms) leave -- does the component take the sign of
// dh/dt in the current mode, the side it leaves zero to, so that a restart at h ~ 0 does not
// fire again; 0 (unknown, set by the first nonzero value) if that rate vanishes too. The band
// needs the gradient, which is formed only for the components that fired and those with
// |h+| <= 1e-7 (a cheap filter: the others are far from zero on any scale that matters).
//
// With `cascades` (after a transition), a component that did not fire in it and whose h+ is
// clearly on the other side of the reference it had before the transition, in a direction its
// filter allows, was made true by the transition: the lowest such component becomes the next
// event of the cascade (cascade_candidate_, D5), and every such component keeps its old
// reference until it fires or a later transition of the cascade moves it back.
Status HybridSolver::arm_detector(std::span<const int> fired, double left_rate, bool cascades) {
  cascade_next_ = false;
  std::fill(cascade_candidate_.begin(), cascade_candidate_.end(), 0);
  if (ne_ == 0) return detector_->arm(references_);
  const double t = integrator_->t();
  constexpr double eps = std::numeric_limits<double>::epsilon();
  const double t_band = std::max(options_.location_tolerance, 4.0 * (std::nextafter(std::abs(t), 1e300) - std::abs(t)));
  int code = detector_->evaluate(t, integrator_->x(), integrator_->z(), h_);
  if (code != 0)
    return transition_failure(callback_status(code), detector_->what_failed() + " at t = " + format_number(t) +
                                                         (events_ > 0 ? " (the restart after an event)" : ""));
  bool rates_known = false;
  for (int k = 0; k < ne_ && code == 0; ++k) {
    const double hk = h_[size(k)];
    references_[size(k)] = hk > 0.0 ? 1 : (hk < 0.0 ? -1 : 0);
    if (fired[size(k)] == 0 && !(std::abs(hk) <= 1e-7)) {
      if (cascades) cascade_test(k);
      continue;
    }
    if (!rates_known) {
      code = jumps_->rates(t, integrator_->x(), integrator_->z(), p_ext_, f_plus_, zdot_plus_);
      rates_known = true;
      if (code != 0) break;
    }
    code = jumps_->event_gradient(k, t, integrator_->x(), integrator_->z(), p_ext_, row_);
    if (code != 0) break;
    // dh/dt along the new mode, its scale, and the size of h's terms (rounding of h itself).
    double rate = row_[0], scale = std::abs(row_[0]), terms = std::abs(row_[0] * t);
    for (int i = 0; i < nx_; ++i) {
      rate += row_[size(1 + i)] * f_plus_[size(i)];
      scale += std::abs(row_[size(1 + i)] * f_plus_[size(i)]);
      terms += std::abs(row_[size(1 + i)] * integrator_->x()[size(i)]);
    }
    for (int i = 0; i < nz_; ++i) {
      rate += row_[size(1 + nx_ + i)] * zdot_plus_[size(i)];
      scale += std::abs(row_[size(1 + nx_ + i)] * zdot_plus_[size(i)]);
      terms += std::abs(row_[size(1 + nx_ + i)] * integrator_->z()[size(i)]);
    }
    for (int i = 0; i < np_ + nm_; ++i) terms += std::abs(row_[size(1 + nx_ + nz_ + i)] * p_ext_[size(i)]);
    const double left = fired[size(k)] != 0 ? std::abs(left_rate) : 0.0;
    const double band = 16.0 * (std::max(std::abs(rate), left) * t_band + eps * terms);
    if (!(std::abs(hk) <= band)) {  // clearly on one side: its own sign
      if (cascades && fired[size(k)] == 0) cascade_test(k);
      continue;
    }
    references_[size(k)] = std::abs(rate) > options_.grazing_tolerance * scale ? (rate > 0.0 ? 1 : -1) : 0;
  }
  if (code != 0)
    return transition_failure(callback_status(code), "the event functions, their gradient or the model "
                              "failed at the restart t = " + format_number(t));
  const Status status = detector_->arm(references_);
  if (!ok(status)) message_ = detector_->message();
  return status;
}

// Component k (not fired by the last transition, h+ clearly nonzero, references_[k] its sign):
// made true by the transition if that sign differs from the side it was on before and the
// filter allows the change (arm_detector, D5).
void HybridSolver::cascade_test(int k) {
  const int before = detector_->references()[size(k)], after = references_[size(k)];
  if (before == 0 || after == before || !detector_->allowed(k, before, after)) return;
  if (!cascade_next_) cascade_candidate_[size(k)] = after;  // the lowest index fires first
  cascade_next_ = true;
  references_[size(k)] = before;
}

EventRecord& HybridSolver::next_record() {
  if (logged_ >= options_.event_log_capacity) {
    last_record_ = &scratch_;
    return scratch_;
  }
  // Beyond the records made at setup the log grows with the events, up to its capacity; a
  // deque keeps the records already handed out in place.
  if (static_cast<std::size_t>(logged_) == log_.size()) log_.push_back(scratch_);
  EventRecord& r = log_[size(logged_++)];
  last_record_ = &r;
  return r;
}

const EventRecord& HybridSolver::last_event() const {
  if (last_record_ == nullptr || events_ == 0)
    throw std::logic_error("HybridSolver::last_event: no event has happened since initialize()");
  return *last_record_;
}

int HybridSolver::pending_event_component() const {
  if (!pending_) return -1;
  if (pending_kind_ == TransitionKind::cascade)
    for (int k = 0; k < ne_; ++k)
      if (cascade_candidate_[size(k)] != 0) return k;
  return detector_->primary();
}

// Which event a message is about: "event function k", "time event i" or "the initial event".
std::string HybridSolver::event_name(const TransitionCause& cause, bool initial) const {
  if (cause.time_event >= 0) return "time event " + std::to_string(cause.time_event);
  std::string components;
  for (int k = 0; k < ne_; ++k)
    if (cause.fired_component(k)) components += (components.empty() ? "" : ", ") + std::to_string(k);
  return std::string(initial ? "the initial event (event function " : "the event (event function ") +
         components + ")";
}

// Initial events: the flagged components whose trigger is true at t0 (h > 0 a rising, h < 0 a
// falling crossing from the "false just before t0", subject to the direction filters).
Status HybridSolver::find_initial_events() {
  initial_pending_ = false;
  if (options_.initial_events.empty()) return Status::success;
  const double t = integrator_->t();
  const int code = detector_->evaluate(t, integrator_->x(), integrator_->z(), h_);
  if (code != 0)
    return transition_failure(callback_status(code), "the event functions failed or were not finite at t0 = " +
                                                         format_number(t) + ", where the initial events are checked");
  for (int k = 0; k < ne_; ++k) {
    const auto kk = size(k);
    initial_fired_[kk] = 0;
    if (!options_.initial_events[kk]) continue;
    const EventDirection filter = options_.directions.empty() ? EventDirection::both : options_.directions[kk];
    if (h_[kk] > 0.0 && filter != EventDirection::falling) initial_fired_[kk] = 1;
    if (h_[kk] < 0.0 && filter != EventDirection::rising) initial_fired_[kk] = -1;
    initial_pending_ = initial_pending_ || initial_fired_[kk] != 0;
  }
  return Status::success;
}

// The transition at t_ (x_, z_ hold the left limit; sx_, sz_ its sensitivities): gradient and
// D_h of the event, reset of x (and of p), new mode and memory, restart of the integrator (z+
// consistent), sensitivity jumps, and the detector armed again. On failure nothing changes.
Status HybridSolver::apply_transition(TransitionKind kind) {
  const double t = t_;
  const bool time_event = kind == TransitionKind::time_event;
  const bool initial = kind == TransitionKind::initial_event;
  const bool cascade = kind == TransitionKind::cascade;
  const int time_index = time_event ? static_cast<int>(next_time_event_) : -1;
  // A cascaded event's component, kept apart from the candidate buffer that this transition's
  // arm_detector refills.
  if (cascade) std::copy(cascade_candidate_.begin(), cascade_candidate_.end(), cascade_fired_.begin());
  const std::span<const int> fired = time_event ? std::span<const int>(no_fired_)
                                     : initial  ? std::span<const int>(initial_fired_)
                                     : cascade  ? std::span<const int>(cascade_fired_)
                                                : detector_->fired();
  const TransitionCause cause{fired, time_index};
  const bool jumps = sensitivity_ != nullptr && options_.sensitivity_jumps;
  // An initial event happens at the fixed t0: its time does not move with the parameters. A
  // cascaded event happens when the first event of its cascade does (D5).
  const bool moving = cascade ? cascade_moving_
                              : kind == TransitionKind::state_event && options_.event_time_sensitivity;

  EventRecord& record = open_record(kind, fired, time_index);
  double dh_dt = 0.0;
  Status status = event_rate(kind, cause, jumps && moving, record, dh_dt);
  int next = mode_;
  if (ok(status)) status = reset_state(cause, initial, next);
  if (ok(status) && jumps) status = jump_sensitivities(cause, t, dh_dt, moving, initial, cascade);
  if (ok(status)) status = restart_in_mode(next);
  if (ok(status) && sensitivity_ != nullptr) status = restart_sensitivities(record, jumps);
  if (!ok(status)) return status;

  std::copy(x_plus_.begin(), x_plus_.end(), x_.begin());
  std::copy(integrator_->z().begin(), integrator_->z().end(), z_.begin());
  record.mode_after = mode_;
  std::copy(x_.begin(), x_.end(), record.x_plus.begin());
  std::copy(z_.begin(), z_.end(), record.z_plus.begin());
  std::copy(p_ext_.begin(), p_ext_.begin() + np_, record.p_plus.begin());
  if (time_event) ++next_time_event_;
  cascade_depth_ = record.cascade;
  if (!cascade) cascade_moving_ = moving;
  return arm_detector(fired, time_event ? 0.0 : dh_dt, true);
}

// The event record of the transition at t_ with what the left limit gives (time, mode, the
// detector's bracket, the fired components, x-, z-, p-); the rest is filled as it is computed.
EventRecord& HybridSolver::open_record(TransitionKind kind, std::span<const int> fired, int time_index) {
  const bool state_event = kind == TransitionKind::state_event;
  const bool cascade = kind == TransitionKind::cascade;
  EventRecord& record = next_record();
  record.t = t_;
  record.mode_before = mode_;
  record.time_event = time_index;
  record.initial = kind == TransitionKind::initial_event;
  record.bracket = state_event ? detector_->bracket() : 0.0;
  record.iterations = state_event ? detector_->iterations() : 0;
  record.primary = state_event ? detector_->primary() : -1;
  record.cascade = cascade ? cascade_depth_ + 1 : 0;
  if (record.initial || cascade)
    for (int k = 0; k < ne_ && record.primary < 0; ++k)
      if (fired[size(k)] != 0) record.primary = k;
  record.dh_dt = 0.0;
  std::copy(fired.begin(), fired.end(), record.fired.begin());
  std::copy(x_.begin(), x_.end(), record.x_minus.begin());
  std::copy(z_.begin(), z_.end(), record.z_minus.begin());
  std::copy(p_ext_.begin(), p_ext_.begin() + np_, record.p_minus.begin());
  ++events_;
  return record;
}

// dh/dt along the solution at t*- (transversality) of a state event, with the grazing test, and
// the rates f-, z'- that moving sensitivity jumps need (for a cascaded event: the left limit is
// the restart point of the transition before, f- and z'- in its mode). dh_dt stays 0 otherwise.
Status HybridSolver::event_rate(TransitionKind kind, const TransitionCause& cause, bool moving_jumps,
                                EventRecord& record, double& dh_dt) {
  const double t = t_;
  if (kind == TransitionKind::cascade && moving_jumps) {
    const int code = jumps_->rates(t, x_, z_, p_ext_, f_minus_, zdot_minus_);
    if (code != 0)
      return transition_failure(callback_status(code), "the model failed at the left limit of " +
                                                           event_name(cause, false) + " at t = " + format_number(t));
    return Status::success;
  }
  if (kind != TransitionKind::state_event) return Status::success;
  int code = jumps_->rates(t, x_, z_, p_ext_, f_minus_, zdot_minus_);
  if (code == 0) code = jumps_->event_gradient(record.primary, t, x_, z_, p_ext_, row_);
  if (code != 0)
    return transition_failure(callback_status(code), "the model or the event gradient failed at the event t = " +
                                                         format_number(t));
  double local = std::abs(row_[0]), mean = std::abs(row_[0]);
  dh_dt = row_[0];
  for (int i = 0; i < nx_; ++i) {
    dh_dt += row_[size(1 + i)] * f_minus_[size(i)];
    local += std::abs(row_[size(1 + i)] * f_minus_[size(i)]);
    mean += std::abs(row_[size(1 + i)] * detector_->mean_rate_x()[size(i)]);
  }
  for (int i = 0; i < nz_; ++i) {
    dh_dt += row_[size(1 + nx_ + i)] * zdot_minus_[size(i)];
    local += std::abs(row_[size(1 + nx_ + i)] * zdot_minus_[size(i)]);
    mean += std::abs(row_[size(1 + nx_ + i)] * detector_->mean_rate_z()[size(i)]);
  }
  record.dh_dt = dh_dt;
  if (std::abs(dh_dt) <= options_.grazing_tolerance * std::max(local, mean)) {
    ++counters_.event_grazing_warnings;
    if (moving_jumps)
      return transition_failure(Status::event_grazing,
                                "event function " + std::to_string(record.primary) + " has dh/dt = " +
                                    format_number(dh_dt) + " at t = " + format_number(t) +
                                    " (grazing): the event-time sensitivity is not defined");
  }
  return Status::success;
}

// The reset x+ (into x_plus_) and the successor mode `next`, then the new parameters p+ (into
// p_plus_), both from the left limit.
Status HybridSolver::reset_state(const TransitionCause& cause, bool initial, int& next) {
  const double t = t_;
  std::copy(x_.begin(), x_.end(), x_plus_.begin());
  int code = jumps_->reset(cause, t, x_, z_, p_ext_, next, x_plus_);
  if (code != 0)
    return transition_failure(callback_status(code), "the transition (reset) of " + event_name(cause, initial) +
                                                         " failed or returned non-finite values at t = " +
                                                         format_number(t));
  if (!problem_.has_mode(next))
    return transition_failure(Status::unknown_mode, "the transition at t = " + format_number(t) + " from mode " +
                                                        std::to_string(mode_) + " returned mode " +
                                                        std::to_string(next) + ", which the problem does not know");
  if (!problem_.has_parameter_reset()) return Status::success;
  std::copy(p_ext_.begin(), p_ext_.begin() + np_, p_plus_.begin());
  code = jumps_->parameter_reset(cause, t, x_, z_, p_ext_, p_plus_);
  if (code != 0)
    return transition_failure(callback_status(code), "the parameter reset of " + event_name(cause, initial) +
                                                         " failed or returned non-finite values at t = " +
                                                         format_number(t) + " (the state before the event is kept)");
  return Status::success;
}

// The new mode, parameters and memory (x*, z*) = (x+, z-), then a restart: z+ from g of the new
// mode. If the restart fails, mode, memory and parameters are those of before.
Status HybridSolver::restart_in_mode(int next) {
  const double t = t_;
  const int old_mode = mode_;
  std::copy(memory_.begin(), memory_.end(), saved_memory_.begin());
  std::copy(p_ext_.begin(), p_ext_.end(), saved_p_ext_.begin());
  mode_problem_->mode = next;
  if (problem_.has_parameter_reset()) std::copy(p_plus_.begin(), p_plus_.end(), p_ext_.begin());
  if (nm_ > 0) {
    std::copy(x_plus_.begin(), x_plus_.end(), memory_.begin());
    std::copy(z_.begin(), z_.end(), memory_.begin() + nx_);
    std::copy(memory_.begin(), memory_.end(), p_ext_.begin() + np_);
  }
  ++counters_.event_transitions;
  ++counters_.event_reinitializations;
  const Status restarted = integrator_->restart(t, x_plus_, z_, p_ext_);
  if (!ok(restarted)) {
    mode_problem_->mode = old_mode;
    std::copy(saved_memory_.begin(), saved_memory_.end(), memory_.begin());
    std::copy(saved_p_ext_.begin(), saved_p_ext_.end(), p_ext_.begin());
    return transition_failure(restarted, "the consistent re-initialization in mode " + std::to_string(next) +
                                             " after the event at t = " + format_number(t) + " failed (" +
                                             integrator_->message() + ")");
  }
  mode_ = next;
  return Status::success;
}

// The sensitivities after the transition: the seed [S_x+; P+; M+] (jumped, or carried over
// unchanged without jumps), recorded with S_x-, S_z- and tau, and the sensitivity integration
// restarted from it (S_z+ consistent).
Status HybridSolver::restart_sensitivities(EventRecord& record, bool jumps) {
  const int ns = directions_, npe = np_ + nm_;
  const bool resets_p = problem_.has_parameter_reset();
  const ConstVector f_plus = integrator_->current_derivative();
  if (jumps) {
    for (int j = 0; j < ns; ++j) {
      for (int i = 0; i < nx_; ++i) seed_(i, j) = dx_total_(i, j) - f_plus[size(i)] * tau_[size(j)];
      // p is constant within a mode: P+ = dP+ (no rate term, unlike x).
      for (int i = 0; i < np_; ++i) seed_(nx_ + i, j) = resets_p ? dp_total_(i, j) : pe_dirs_(i, j);
      // The memory's sensitivity is the total derivative of the latched values (erratum E7).
      for (int i = 0; i < nm_; ++i) seed_(nx_ + np_ + i, j) = i < nx_ ? dx_total_(i, j) : wstar_(i - nx_, j);
    }
  } else {
    const ConstMatrixRef Pe = sensitivity_->parameter_directions();
    for (int j = 0; j < ns; ++j) {
      for (int i = 0; i < nx_; ++i) seed_(i, j) = sx_(i, j);
      for (int i = 0; i < npe; ++i) seed_(nx_ + i, j) = Pe(i, j);
    }
  }
  for (int j = 0; j < ns; ++j) {
    record.tau[size(j)] = jumps ? tau_[size(j)] : 0.0;
    for (int i = 0; i < nx_; ++i) {
      record.sx_minus(i, j) = sx_(i, j);
      record.sx_plus(i, j) = seed_(i, j);
    }
    for (int i = 0; i < nz_; ++i) record.sz_minus(i, j) = sz_(i, j);
  }
  const Status status = sensitivity_->initialize(seed_.cref());
  if (!ok(status)) return transition_failure(status, sensitivity_->message());
  const ConstMatrixRef Sz = sensitivity_->algebraic_sensitivity();
  for (int j = 0; j < ns; ++j) {
    for (int i = 0; i < nx_; ++i) sx_(i, j) = seed_(i, j);
    for (int i = 0; i < nz_; ++i) sz_(i, j) = record.sz_plus(i, j) = Sz(i, j);
    for (int i = 0; i < nm_; ++i) smem_(i, j) = seed_(nx_ + np_ + i, j);
  }
  return Status::success;
}

// The total derivatives of the reset along the (moving) event (doc/events-theory.md, J3, J3p):
// with the left limit's total directions v = [tau; s- + f- tau; w- + z'- tau; P; M],
// dX+ = D v and, with a parameter reset, dP+ = E v. tau = -(h_x s- + h_z w- + h_pe [P; M]) / D_h
// for a moving event, 0 otherwise. Fills tau_, pe_dirs_, dx_total_, dp_total_ and wstar_.
Status HybridSolver::jump_sensitivities(const TransitionCause& cause, double t, double dh_dt, bool moving,
                                        bool initial, bool cascade) {
  const int ns = directions_, npe = np_ + nm_;
  const ConstMatrixRef Pe = sensitivity_->parameter_directions();
  for (int j = 0; j < ns; ++j)
    for (int i = 0; i < npe; ++i) pe_dirs_(i, j) = Pe(i, j);
  for (int j = 0; j < ns; ++j) {
    // A cascaded event keeps tau_ of the event before it (the first of its cascade, D5).
    double v = cascade && moving ? tau_[size(j)] : 0.0;
    if (moving && !cascade) {
      for (int i = 0; i < nx_; ++i) v += row_[size(1 + i)] * sx_(i, j);
      for (int i = 0; i < nz_; ++i) v += row_[size(1 + nx_ + i)] * sz_(i, j);
      for (int i = 0; i < npe; ++i) v += row_[size(1 + nx_ + nz_ + i)] * pe_dirs_(i, j);
      v = -v / dh_dt;
    }
    const double tau = tau_[size(j)] = v;
    left_dirs_(0, j) = tau;
    for (int i = 0; i < nx_; ++i) left_dirs_(1 + i, j) = sx_(i, j) + (moving ? f_minus_[size(i)] * tau : 0.0);
    for (int i = 0; i < nz_; ++i)
      left_dirs_(1 + nx_ + i, j) = wstar_(i, j) = sz_(i, j) + (moving ? zdot_minus_[size(i)] * tau : 0.0);
    for (int i = 0; i < npe; ++i) left_dirs_(1 + nx_ + nz_ + i, j) = pe_dirs_(i, j);
  }
  int code = jumps_->reset_jacobian(cause, t, x_, z_, p_ext_, reset_jacobian_.ref());
  if (code != 0)
    return transition_failure(callback_status(code), "the reset Jacobian of " + event_name(cause, initial) +
                                                         " failed or was not finite at t = " + format_number(t));
  if (problem_.has_parameter_reset()) {
    code = jumps_->parameter_reset_jacobian(cause, t, x_, z_, p_ext_, parameter_reset_jacobian_.ref());
    if (code != 0)
      return transition_failure(callback_status(code), "the Jacobian of the parameter reset of " +
                                                           event_name(cause, initial) +
                                                           " failed or was not finite at t = " + format_number(t));
  }
  const int columns = jumps_->columns();
  for (int j = 0; j < ns; ++j) {
    for (int r = 0; r < nx_; ++r) {
      double v = 0.0;
      for (int c = 0; c < columns; ++c) v += reset_jacobian_(r, c) * left_dirs_(c, j);
      dx_total_(r, j) = v;
    }
    if (!problem_.has_parameter_reset()) continue;
    for (int r = 0; r < np_; ++r) {
      double v = 0.0;
      for (int c = 0; c < columns; ++c) v += parameter_reset_jacobian_(r, c) * left_dirs_(c, j);
      dp_total_(r, j) = v;
    }
  }
  return Status::success;
}

}  // namespace esdirk
