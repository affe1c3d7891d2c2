#pragma once
// Outcomes of an integration. Numerical failures are returned as a Status, with the solution
// at the last accepted time kept; misuse (wrong sizes, invalid options, wrong call order)
// throws std::invalid_argument or std::logic_error.
//
// The enumerators, their values, names and messages come from esdirk/status_codes.def, the
// one table shared with the C API and the Fortran module: Status holds its `success` row and
// its `failure` rows, with the same values as the C constants (ESDIRK_TOO_MANY_STEPS is -1,
// Status::too_many_steps is -1 too). Normal stops are StopReason (outcome.hpp); misuse throws.

#include <string_view>

#include "esdirk/export.hpp"

namespace esdirk {

// One enumerator per `success` and `failure` row; the other kinds expand to nothing.
#define ESDIRK_STATUS_ENUMERATOR_success(name, value) name = value,
#define ESDIRK_STATUS_ENUMERATOR_failure(name, value) name = value,
#define ESDIRK_STATUS_ENUMERATOR_stop(name, value)
#define ESDIRK_STATUS_ENUMERATOR_analysis(name, value)
#define ESDIRK_STATUS_ENUMERATOR_misuse(name, value)
#define ESDIRK_STATUS(kind, name, c_name, value, message) \
  ESDIRK_STATUS_ENUMERATOR_##kind(name, value)
enum class Status {
#include "esdirk/status_codes.def"
};
#undef ESDIRK_STATUS

/// Every Status, in the order of the table (for code that reports or checks them all).
#define ESDIRK_STATUS(kind, name, c_name, value, message) \
  ESDIRK_STATUS_ENUMERATOR_##kind(Status::name, ignored)
#undef ESDIRK_STATUS_ENUMERATOR_success
#undef ESDIRK_STATUS_ENUMERATOR_failure
#define ESDIRK_STATUS_ENUMERATOR_success(qualified_name, value) qualified_name,
#define ESDIRK_STATUS_ENUMERATOR_failure(qualified_name, value) qualified_name,
inline constexpr Status all_statuses[] = {
#include "esdirk/status_codes.def"
};
#undef ESDIRK_STATUS
#undef ESDIRK_STATUS_ENUMERATOR_success
#undef ESDIRK_STATUS_ENUMERATOR_failure
#undef ESDIRK_STATUS_ENUMERATOR_stop
#undef ESDIRK_STATUS_ENUMERATOR_analysis
#undef ESDIRK_STATUS_ENUMERATOR_misuse

/// A stable, lower-case identifier of the status ("success", "too_many_steps", ...), the same
/// as esdirk_status_name of the C API; "unknown" for a value outside the enumeration.
ESDIRK_API std::string_view status_name(Status status);

/// One line that says what the status means (the table's message, as esdirk_status_message).
ESDIRK_API std::string_view status_message(Status status);

/// True for Status::success.
inline bool ok(Status status) { return status == Status::success; }

}  // namespace esdirk
