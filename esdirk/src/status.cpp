#include "esdirk/status.hpp"

namespace esdirk {

std::string_view status_name(Status status) {
  switch (status) {
    case Status::success:
      return "success";
    case Status::too_many_steps:
      return "too_many_steps";
    case Status::step_size_too_small:
      return "step_size_too_small";
    case Status::error_test_failures:
      return "error_test_failures";
    case Status::newton_failures:
      return "newton_failures";
    case Status::singular_iteration_matrix:
      return "singular_iteration_matrix";
    case Status::callback_failures:
      return "callback_failures";
    case Status::callback_fatal:
      return "callback_fatal";
    case Status::initialization_failed:
      return "initialization_failed";
    case Status::singular_algebraic_jacobian:
      return "singular_algebraic_jacobian";
  }
  return "unknown";
}

}  // namespace esdirk
