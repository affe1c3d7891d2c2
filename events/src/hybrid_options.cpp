#include "esdirk/events/hybrid_options.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace esdirk {
namespace {

void require(bool condition, const std::string& what) {
  if (!condition) throw std::invalid_argument("HybridOptions: " + what);
}

}  // namespace

void HybridOptions::validate(int events, int nx, int nz) const {
  integrator.validate(nx, nz);
  if (events == 0) {
    require(directions.empty() && terminal.empty(),
            "direction filters or terminal flags are set, but the problem has no event functions");
    require(initial_events.empty(),
            "initial_events is set (" + std::to_string(initial_events.size()) +
                " entries), but the problem has no event functions");
  }
  require(directions.empty() || static_cast<int>(directions.size()) == events,
          "directions has " + std::to_string(directions.size()) +
              " entries; it must be empty or have one per event function (" +
              std::to_string(events) + ")");
  require(terminal.empty() || static_cast<int>(terminal.size()) == events,
          "terminal has " + std::to_string(terminal.size()) +
              " entries; it must be empty or have one per event function (" +
              std::to_string(events) + ")");
  require(initial_events.empty() || static_cast<int>(initial_events.size()) == events,
          "initial_events has " + std::to_string(initial_events.size()) +
              " entries; it must be empty or have one per event function (" +
              std::to_string(events) + ")");
  require(std::isfinite(location_tolerance) && location_tolerance >= 0.0,
          "location_tolerance must be finite and >= 0");
  require(max_location_iterations >= 1, "max_location_iterations must be >= 1");
  require(detection_samples >= 0 && detection_samples <= 64, "detection_samples must be in [0, 64]");
  for (std::size_t i = 0; i < time_events.size(); ++i) {
    require(std::isfinite(time_events[i]), "time_events must be finite");
    require(i == 0 || time_events[i] > time_events[i - 1], "time_events must be strictly increasing");
  }
  require(max_events_per_step >= 1, "max_events_per_step must be >= 1");
  require(max_events_per_unit_time > 0.0, "max_events_per_unit_time must be > 0");
  require(event_window >= 2 && event_window <= max_event_window,
          "event_window must be in [2, " + std::to_string(max_event_window) + "] (got " +
              std::to_string(event_window) + ")");
  require(zeno_intervals >= 3 && zeno_intervals <= max_event_window,
          "zeno_intervals must be in [3, " + std::to_string(max_event_window) + "] (got " +
              std::to_string(zeno_intervals) + ")");
  require(std::isfinite(zeno_time_tolerance) && zeno_time_tolerance >= 0.0,
          "zeno_time_tolerance must be finite and >= 0");
  require(std::isfinite(grazing_tolerance) && grazing_tolerance >= 0.0,
          "grazing_tolerance must be finite and >= 0");
  require(event_log_capacity >= 0, "event_log_capacity must be >= 0");
}

}  // namespace esdirk
