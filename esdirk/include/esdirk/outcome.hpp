#pragma once
// What an integration call returns: whether it failed (Status) and, when it did not, why it
// stopped (StopReason) and where (t). A normal stop is never a failure: `ok(outcome)` is true
// for every stop reason, so `if (!ok(solver.integrate_to(...)))` catches failures only.

#include "esdirk/status.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// Why a successful integration call returned.
enum class StopReason {
  none,                 ///< the call failed (see Outcome::status)
  reached_output_time,  ///< integrate_to reached tout (the solution there is dense output)
  reached_stop_time,    ///< the stop time lies before tout and was reached exactly
  listener_stop,        ///< a step listener (e.g. an event detector) asked to stop at t
  took_one_step,        ///< step(): one step was accepted (and no other reason applies)
};

/// A stable, lower-case identifier of a stop reason ("reached_output_time", ...).
ESDIRK_API std::string_view stop_reason_name(StopReason reason);

struct Outcome {
  Status status = Status::success;
  StopReason reason = StopReason::none;
  double t = 0.0;  ///< the time the returned solution belongs to

  /// The status alone, so that code written against the Status of earlier versions
  /// (`if (solver.integrate_to(...) != Status::success)`) keeps its meaning.
  operator Status() const { return status; }  // NOLINT(google-explicit-constructor)
};

inline bool ok(const Outcome& outcome) { return ok(outcome.status); }

}  // namespace esdirk
