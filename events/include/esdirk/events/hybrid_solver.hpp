#pragma once
// The hybrid driver: integrates a HybridProblem mode by mode with one Integrator, locates the
// events on the dense output of every accepted step, applies the transitions (new mode,
// reset, memory, consistent z) and, with sensitivities, their jumps (doc/events-theory.md).
//
//     esdirk::HybridSolver solver(problem, options);
//     solver.initialize(t0, mode0, x0, z0_guess, p);          // memory0 if the problem has one
//     solver.initialize_sensitivities(seed);                   // optional: (nx + np) x ns
//     solver.integrate_to(t1, x, z, Sx, Sz);                   // across any number of events
//
// Transitions are restarts of the integrator (controller history forgotten, step-size guess
// kept); the memory values and their sensitivities travel as extra parameters of the mode
// (doc/events-guide.md, "Memory"). Setup allocates; integrate_to does not.

#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "esdirk/events/event_record.hpp"
#include "esdirk/events/hybrid_options.hpp"
#include "esdirk/events/hybrid_problem.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/outcome.hpp"
#include "esdirk/sensitivity/sensitivity_options.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

class ForwardSensitivity;

namespace internal {
class ModeProblem;
class EventDetector;
class EventJumps;
class EventRateGuard;
}  // namespace internal

class ESDIRK_API HybridSolver {
 public:
  /// Validates the options against the problem (std::invalid_argument) and sizes every
  /// workspace. The problem must outlive the solver.
  HybridSolver(HybridProblem& problem, HybridOptions options = {});
  ~HybridSolver();
  HybridSolver(const HybridSolver&) = delete;
  HybridSolver& operator=(const HybridSolver&) = delete;

  /// Starts in `mode` at t0: z made consistent from `z_guess`, the memory set to `memory0`
  /// (size memory_size(); required with memory, must be empty without), the parameters to p
  /// (the first mode's; parameter resets change them at events). An event whose function is
  /// zero at t0 does not fire there; a component flagged in HybridOptions::initial_events whose
  /// trigger is true at t0 fires at the start of the first integrate_to (x() is the state
  /// before it until then). Returns the event functions' failure at t0 as a status. Throws std::invalid_argument for wrong sizes,
  /// non-finite input or a mode the problem does not know; returns the integrator's status if
  /// z cannot be made consistent. Clears any sensitivities (initialize_sensitivities again).
  Status initialize(double t0, int mode, ConstVector x0, ConstVector z_guess, ConstVector p,
                    ConstVector memory0 = {});

  /// Forward sensitivities from here on: `seed` is (nx + np) x ns (rows: initial states, then
  /// parameter directions), as ForwardSensitivity::initialize. The initial memory's
  /// sensitivity is zero. Allocates (call at setup).
  Status initialize_sensitivities(ConstMatrixRef seed, SensitivityOptions options = {});

  /// Integrates to `tout` across events. Returns reached_output_time (x, z at tout; if tout is
  /// an event time: the left limit, the transition is already applied and x(), z() hold the
  /// right limit) or listener_stop at a terminal event (left limit at outcome.t; the transition
  /// is applied by the next call), or a failure with x, z the last good state (t(), mode()).
  /// Sx (nx x ns) and Sz (nz x ns) may be empty; they need initialize_sensitivities().
  Outcome integrate_to(double tout, Vector x, Vector z = {}, MatrixRef Sx = {}, MatrixRef Sz = {});

  // --- State (after integrate_to: where the solver stands) --------------------------------
  double t() const { return t_; }
  int mode() const { return mode_; }
  ConstVector x() const { return x_; }
  ConstVector z() const { return z_; }
  ConstVector memory() const { return memory_; }
  /// The parameters of the current mode (np): the p of initialize until a parameter reset.
  ConstVector parameters() const { return ConstVector(p_ext_).first(static_cast<std::size_t>(np_)); }
  /// An initial event found by initialize that the next integrate_to applies first.
  bool initial_event_pending() const { return initial_pending_; }
  /// The state sensitivities at t() (nx x ns) and the memory's ((nx + nz) x ns).
  ConstMatrixRef state_sensitivity() const { return sx_.cref(); }
  ConstMatrixRef memory_sensitivity() const { return smem_.cref(); }
  int directions() const { return directions_; }
  /// With sensitivities: dp/dtheta of the current mode's parameters (np x ns), the paper's
  /// parameter rows until a parameter reset, then their jumps (doc/events-theory.md, J3p).
  ConstMatrixRef parameter_sensitivity() const;

  /// The events so far (the first event_log_capacity of them), and how many there were.
  const EventRecord& event(int i) const { return log_[static_cast<std::size_t>(i)]; }
  int logged_events() const { return logged_; }
  long event_count() const { return events_; }
  /// The record of the most recent event, also beyond event_log_capacity (where event() does
  /// not reach). During a transition (a listener's on_restart) it already holds t, the modes
  /// before, the cause and the left limit. Throws std::logic_error before the first event.
  const EventRecord& last_event() const;
  /// After integrate_to stopped at a terminal event (listener_stop, transition pending): the
  /// state-event component whose root is t() (or, for a cascaded event, the component the
  /// transition before it made true); -1 when no transition is pending.
  int pending_event_component() const;
  /// True when the pending terminal event is a cascaded one (its trigger was made true by the
  /// transition before it at the same instant: doc/events-theory.md, D5).
  bool pending_event_is_cascade() const { return pending_ && pending_kind_ == TransitionKind::cascade; }

  /// The counters of the integration, the sensitivities and the event module together.
  const Statistics& statistics() const;
  const std::string& message() const { return message_; }
  const HybridOptions& options() const { return options_; }
  Integrator& integrator() { return *integrator_; }

 private:
  Outcome finish(StopReason reason, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz);
  Outcome failed(Status status, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz);
  enum class TransitionKind { state_event, time_event, initial_event, cascade };
  Status apply_transition(TransitionKind kind);
  EventRecord& open_record(TransitionKind kind, std::span<const int> fired, int time_index);
  Status event_rate(TransitionKind kind, const TransitionCause& cause, bool moving_jumps, EventRecord& record,
                    double& dh_dt);
  Status reset_state(const TransitionCause& cause, bool initial, int& next);
  Status restart_in_mode(int next);
  Status restart_sensitivities(EventRecord& record, bool jumps);
  Status transition_with_cascade(TransitionKind kind, bool& stopped);
  bool terminal_among(std::span<const int> fired) const;
  Status find_initial_events();
  std::string event_name(const TransitionCause& cause, bool initial) const;
  Status jump_sensitivities(const TransitionCause& cause, double t, double dh_dt, bool moving, bool initial,
                            bool cascade);
  Status refine_event();
  Status arm_detector(std::span<const int> fired, double left_rate, bool cascades);
  void cascade_test(int k);
  Status transition_failure(Status status, std::string message);
  Status check_event_rate(double t);
  void write_output(Vector x, Vector z, MatrixRef Sx, MatrixRef Sz) const;
  bool set_stop_time_for(double tout);
  EventRecord& next_record();

  HybridProblem& problem_;
  HybridOptions options_;
  int nx_, nz_, np_, ne_, nm_;
  std::unique_ptr<internal::ModeProblem> mode_problem_;
  std::unique_ptr<Integrator> integrator_;
  std::unique_ptr<internal::EventDetector> detector_;
  std::unique_ptr<internal::EventJumps> jumps_;
  std::unique_ptr<ForwardSensitivity> sensitivity_;
  Statistics counters_;  // this module's own
  mutable Statistics report_;

  bool initialized_ = false;
  bool failed_ = false;
  int directions_ = 0;
  double t_ = 0.0;
  int mode_ = 0;
  std::vector<double> x_, z_, memory_, p_ext_;
  DenseMatrix sx_, sz_, smem_, seed_;
  bool pending_ = false;  // a located event (terminal, or at tout) whose transition is due
  TransitionKind pending_kind_ = TransitionKind::state_event;  // ... and its kind
  // Cascades (doc/events-theory.md, D5): the next component a transition made true (set by
  // arm_detector: +1 / -1 at its index), the one being applied, the position in the cascade
  // of the last transition, and whether the cascade's time moves with the parameters (that of
  // its first event).
  bool cascade_next_ = false;
  std::vector<int> cascade_candidate_, cascade_fired_;
  int cascade_depth_ = 0;
  bool cascade_moving_ = false;
  bool initial_pending_ = false;     // initial events fire at the start of the next integrate_to
  std::vector<int> initial_fired_;   // their components (+1 / -1 / 0)
  std::size_t next_time_event_ = 0;
  std::deque<EventRecord> log_;  // grows with the events up to event_log_capacity
  int logged_ = 0;
  long events_ = 0;
  std::unique_ptr<internal::EventRateGuard> rate_guard_;  // chattering and Zeno
  EventRecord scratch_;            // the record of an event beyond the log's capacity
  const EventRecord* last_record_ = nullptr;
  std::string message_;
  // Transition workspace (sized at setup).
  std::vector<double> f_minus_, zdot_minus_, f_plus_, zdot_plus_, row_, x_plus_, h_;
  std::vector<double> saved_memory_, saved_p_ext_, tau_;
  std::vector<int> references_, no_fired_;
  DenseMatrix reset_jacobian_, dx_total_, wstar_, pe_dirs_;
  // Parameter resets: p+, its Jacobian E, the total derivative dP+ and the left limit's total
  // directions [tau; s- + f- tau; w- + z'- tau; P; M] that D and E act on.
  std::vector<double> p_plus_;
  DenseMatrix parameter_reset_jacobian_, dp_total_, left_dirs_;
};

}  // namespace esdirk
