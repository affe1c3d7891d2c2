#pragma once
// Internal: what stops a run whose events no longer advance time (doc/events-theory.md, D3).
// It looks at the event times only, never at steps, so periodic and long event sequences run
// to the end:
//  - Zeno behaviour (zeno_accumulation): the last zeno_intervals intervals between events each
//    shorter than the one before, and the accumulation time that their geometric series
//    predicts within zeno_time_tolerance * max(1, |t|) of the last event;
//  - chattering (too_many_events): a mean rate over the last event_window events above
//    max_events_per_unit_time while the intervals do not shrink monotonically, or more than
//    max_events_per_step events at one instant (a cascade of resets that does not end).

#include <string>
#include <vector>

#include "esdirk/events/hybrid_options.hpp"
#include "esdirk/status.hpp"

namespace esdirk::internal {

class EventRateGuard {
 public:
  explicit EventRateGuard(const HybridOptions& options);

  /// Forgets the event times (at initialize).
  void reset();
  /// Takes the event at t (nondecreasing): success, or too_many_events / zeno_accumulation
  /// with message().
  Status record(double t);
  const std::string& message() const { return message_; }
  /// The accumulation time predicted at the last zeno_accumulation.
  double accumulation_time() const { return accumulation_time_; }

 private:
  // The i-th most recent event time (0: the last one); i < stored().
  double back(int i) const;
  int stored() const;
  // The largest ratio of consecutive intervals among the last zeno_intervals if each is
  // shorter than the one before (all > 0), else 1.
  double shrink_ratio() const;
  // Zeno test on the last zeno_intervals intervals: true with accumulation_time_ set.
  bool accumulating(double t);

  const HybridOptions& options_;
  std::vector<double> times_;  // ring of the most recent event times
  long count_ = 0;             // events recorded since reset()
  int same_instant_ = 0;       // events in a row at the time of the last one
  double accumulation_time_ = 0.0;
  std::string message_;
};

}  // namespace esdirk::internal
