#include "esdirk/outcome.hpp"

namespace esdirk {

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::none:
      return "none";
    case StopReason::reached_output_time:
      return "reached_output_time";
    case StopReason::reached_stop_time:
      return "reached_stop_time";
    case StopReason::listener_stop:
      return "listener_stop";
    case StopReason::took_one_step:
      return "took_one_step";
  }
  return "unknown";
}

}  // namespace esdirk
