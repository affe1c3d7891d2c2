#include "esdirk/status.hpp"

namespace esdirk {

// Both functions switch over the rows of status_codes.def that are enumerators of Status
// (kinds success and failure), so a new row needs no edit here.
#define ESDIRK_STATUS_CASE_success(name, text) \
  case Status::name:                           \
    return text;
#define ESDIRK_STATUS_CASE_failure(name, text) ESDIRK_STATUS_CASE_success(name, text)
#define ESDIRK_STATUS_CASE_stop(name, text)
#define ESDIRK_STATUS_CASE_analysis(name, text)
#define ESDIRK_STATUS_CASE_misuse(name, text)

std::string_view status_name(Status status) {
#define ESDIRK_STATUS(kind, name, c_name, value, message) ESDIRK_STATUS_CASE_##kind(name, #name)
  switch (status) {
#include "esdirk/status_codes.def"
  }
#undef ESDIRK_STATUS
  return "unknown";
}

std::string_view status_message(Status status) {
#define ESDIRK_STATUS(kind, name, c_name, value, message) ESDIRK_STATUS_CASE_##kind(name, message)
  switch (status) {
#include "esdirk/status_codes.def"
  }
#undef ESDIRK_STATUS
  return "unknown status";
}

}  // namespace esdirk
