#include "esdirk/structural/parse_error.hpp"

namespace esdirk::structural {

namespace {
std::string full_message(const SourceLocation& where, const std::string& message) {
  std::string place = where.to_string();
  return place.empty() ? message : place + ": error: " + message;
}
}  // namespace

ParseError::ParseError(SourceLocation location, const std::string& message)
    : std::invalid_argument(full_message(location, message)),
      location_(std::move(location)),
      message_(message) {}

}  // namespace esdirk::structural
