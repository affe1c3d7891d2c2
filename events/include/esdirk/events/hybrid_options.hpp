#pragma once
// Options of the hybrid solver: a plain struct with defaults and validate().

#include <vector>

#include "esdirk/events/hybrid_problem.hpp"
#include "esdirk/options.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

struct ESDIRK_API HybridOptions {
  /// The integrator's options (tolerances, step sizes), used in every mode.
  Options integrator;

  // --- Event functions ----------------------------------------------------------------------
  /// One direction filter per event component (size event_count()); empty: all `both`.
  std::vector<EventDirection> directions;
  /// Terminal components (size event_count()); empty: none. At a terminal event integrate_to
  /// returns the left limit at t* (StopReason::listener_stop); the transition is applied when
  /// the integration continues.
  std::vector<bool> terminal;
  /// Initial events (size event_count()); empty: none. A flagged component whose trigger is
  /// already true at t0 fires there, as if it had been false just before t0 (SBML's
  /// initialValue = false): h(t0) > 0 counts as a rising crossing, h(t0) < 0 as a falling one,
  /// subject to `directions`; h(t0) = 0 does not fire. The transition is applied at the start
  /// of the first integrate_to (doc/events-guide.md, "Initial events"). Unflagged components
  /// (the default) never fire at t0.
  std::vector<bool> initial_events;

  // --- Location -----------------------------------------------------------------------------
  /// Width of the final bracket around t* (absolute, in t). 0: 4 ulp of the larger end of the
  /// root finder's first bracket (inside the step that contains t*, so at most 4 ulp of its end).
  double location_tolerance = 0.0;
  /// Root-finder iterations per bracket before giving up with event_location_failed. The
  /// safeguarded root finder halves the bracket at least every third iteration, so it needs
  /// at most about 165 on any sign change (doc/events-theory.md, D4).
  int max_location_iterations = 200;
  /// Interior points of each accepted step where h is sampled (on the dense x, z interpolated
  /// linearly) to catch two crossings inside one step (doc/events-guide.md).
  int detection_samples = 3;

  // --- Known event times --------------------------------------------------------------------
  /// Times of time events (increasing): the integration stops exactly there and applies the
  /// transition with TransitionCause::time_event = index; the event time does not depend on
  /// the parameters (no event-time sensitivity).
  std::vector<double> time_events;

  // --- Protection (doc/events-theory.md, D3: judged on event times, never on steps) --------
  /// Events in a row at one instant (a cascade of transitions, each making another trigger
  /// true) before too_many_events.
  int max_events_per_step = 100;
  /// Largest mean event rate over the last `event_window` events before too_many_events
  /// (chattering), unless the events accumulate geometrically (Zeno, below).
  double max_events_per_unit_time = 1e6;
  /// In [2, max_event_window]: the solver keeps the last event_window event times.
  int event_window = 16;
  static constexpr int max_event_window = 1 << 16;
  /// Zeno behaviour: the last `zeno_intervals` intervals between events each shorter than the
  /// one before, with the accumulation time of their geometric series (ratio: the largest of
  /// the last ones) within zeno_time_tolerance * max(1, |t|) of the last event, ends the run
  /// with zeno_accumulation, the left limit at that last event kept. zeno_intervals in
  /// [3, max_event_window] (the solver keeps that many event times).
  int zeno_intervals = 8;
  double zeno_time_tolerance = 1e-9;
  /// Transversality: |D_h| <= grazing_tolerance * scale (D_h = dh/dt along the solution,
  /// scale = the same sum in absolute values with the step's mean rates) is grazing. With
  /// sensitivities it ends the call with event_grazing (tau is not defined there); without
  /// it is counted in grazing_warnings.
  double grazing_tolerance = 1e-8;

  /// Events kept in the solver's log (later events are counted, not kept). The first
  /// preallocated_event_records records are made at setup (no allocation at those events);
  /// beyond, records are made as events happen, so a large capacity costs nothing until used.
  int event_log_capacity = 256;
  static constexpr int preallocated_event_records = 256;

  // --- Sensitivities ------------------------------------------------------------------------
  /// Apply the sensitivity jumps at events (false only to show what ignoring them gives).
  bool sensitivity_jumps = true;
  /// Include the event-time sensitivity tau = dt*/dtheta in the jumps (false: every event is
  /// treated as if its time were fixed, the "explicit event" of Schäfer 2021).
  bool event_time_sensitivity = true;

  /// Throws std::invalid_argument naming the first invalid option. `events` is the problem's
  /// event_count(), nx and nz its sizes (for the integrator's options).
  void validate(int events, int nx, int nz) const;
};

}  // namespace esdirk
