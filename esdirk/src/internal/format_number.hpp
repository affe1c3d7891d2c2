#pragma once
// Internal to the library (not installed): numbers in failure messages, "%.10g".

#include <cstdio>
#include <string>

namespace esdirk::internal {

inline std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

}  // namespace esdirk::internal
