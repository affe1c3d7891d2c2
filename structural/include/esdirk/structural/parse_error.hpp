#pragma once
// Errors in model input carry the place they were found (file:line:column, both 1-based;
// columns count bytes).

#include <stdexcept>
#include <string>

#include "esdirk/export.hpp"

namespace esdirk::structural {

/// A place in a model text. `line == 0` means "not from a file" (e.g. built in C++).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  /// "file:line:column", or "" when the location is unknown.
  std::string to_string() const {
    if (line <= 0) return "";
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
};

/// Malformed or inconsistent model input. what() reads "file:line:column: error: message"
/// (or just the message when the location is unknown).
class ESDIRK_API ParseError : public std::invalid_argument {
 public:
  ParseError(SourceLocation location, const std::string& message);
  const SourceLocation& location() const { return location_; }
  /// The message without the location prefix.
  const std::string& message() const { return message_; }

 private:
  SourceLocation location_;
  std::string message_;
};

/// Input that exceeds one of the limits of limits.hpp. The message names the size found and
/// the limit; the location is that of the offending text when there is one.
class ESDIRK_API LimitExceeded : public ParseError {
 public:
  using ParseError::ParseError;
};

}  // namespace esdirk::structural
