#include "esdirk/structural/parse_error.hpp"

namespace esdirk::structural {

std::string SourceLocation::to_string() const {
  if (line <= 0) return "";
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

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
