#include "event_rate_guard.hpp"

#include <algorithm>
#include <cmath>

#include "internal/format_number.hpp"

namespace esdirk::internal {

EventRateGuard::EventRateGuard(const HybridOptions& options) : options_(options) {
  times_.assign(static_cast<std::size_t>(std::max(options.event_window, options.zeno_intervals + 1)), 0.0);
}

void EventRateGuard::reset() {
  count_ = 0;
  same_instant_ = 0;
  message_.clear();
}

int EventRateGuard::stored() const {
  return static_cast<int>(std::min<long>(count_, static_cast<long>(times_.size())));
}

double EventRateGuard::back(int i) const {
  const long n = static_cast<long>(times_.size());
  return times_[static_cast<std::size_t>(((count_ - 1 - i) % n + n) % n)];
}

// Intervals d_1 > d_2 > ... > d_K > 0 (oldest to newest) shrink like a geometric series with a
// ratio of at most r = max d_{i+1} / d_i < 1, whose remaining sum d_K r / (1 - r) bounds the
// time left to the accumulation point while the ratios stay below r. Periodic sequences have
// ratios near 1 (no accumulation in sight); an accumulation far ahead is not yet in the
// vanishing window, and the run goes on.
double EventRateGuard::shrink_ratio() const {
  const int k = options_.zeno_intervals;
  if (stored() < k + 1) return 1.0;
  double ratio = 0.0;
  for (int i = 0; i + 1 < k; ++i) {
    const double newer = back(i) - back(i + 1), older = back(i + 1) - back(i + 2);
    if (!(newer > 0.0) || !(newer < older)) return 1.0;
    ratio = std::max(ratio, newer / older);
  }
  return ratio;
}

bool EventRateGuard::accumulating(double t) {
  const double ratio = shrink_ratio();
  if (!(ratio < 1.0)) return false;
  const int k = options_.zeno_intervals;
  const double last = back(0) - back(1);
  const double remaining = last * ratio / (1.0 - ratio);
  if (!(remaining <= options_.zeno_time_tolerance * std::max(1.0, std::abs(t)))) return false;
  accumulation_time_ = t + remaining;
  message_ = std::string(status_name(Status::zeno_accumulation)) + ": the last " + std::to_string(k) +
             " intervals between events shrink geometrically (ratio <= " + format_number(ratio) +
             ", last " + format_number(last) + "): the event times accumulate at t = " +
             format_number(accumulation_time_) + "; last event at t = " + format_number(t);
  return true;
}

Status EventRateGuard::record(double t) {
  same_instant_ = (count_ > 0 && t == back(0)) ? same_instant_ + 1 : 0;
  times_[static_cast<std::size_t>(count_ % static_cast<long>(times_.size()))] = t;
  ++count_;
  if (same_instant_ >= options_.max_events_per_step) {
    message_ = std::string(status_name(Status::too_many_events)) + ": " + std::to_string(same_instant_ + 1) +
               " events in a row at the one instant t = " + format_number(t) +
               " (a cascade of transitions that does not end; max_events_per_step = " +
               std::to_string(options_.max_events_per_step) + ")";
    return Status::too_many_events;
  }
  if (accumulating(t)) return Status::zeno_accumulation;
  // A geometric accumulation in progress is left to the Zeno test, which stops it closer to
  // the accumulation time than the rate limit would (and with the status that names it).
  const int window = options_.event_window;
  if (stored() >= window && !(shrink_ratio() < 1.0)) {
    const double span = t - back(window - 1);
    if (span > 0.0 && (window - 1) / span > options_.max_events_per_unit_time) {
      message_ = std::string(status_name(Status::too_many_events)) + ": " + std::to_string(window) +
                 " events within " + format_number(span) + " time units (chattering; max_events_per_unit_time = " +
                 format_number(options_.max_events_per_unit_time) + "), last at t = " + format_number(t);
      return Status::too_many_events;
    }
  }
  return Status::success;
}

}  // namespace esdirk::internal
