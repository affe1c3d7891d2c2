#pragma once
// Checks shared by the fuzz targets (independent of the library's own code).

#include <cstddef>
#include <string_view>

namespace fuzz_support {

/// True when `s` is well-formed UTF-8 (RFC 3629).
inline bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const std::size_t n = b(0) < 0x80                    ? 1
                          : b(0) >= 0xc2 && b(0) <= 0xdf ? 2
                          : b(0) >= 0xe0 && b(0) <= 0xef ? 3
                          : b(0) >= 0xf0 && b(0) <= 0xf4 ? 4
                                                         : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((b(k) & 0xc0) != 0x80) return false;
    }
    if ((b(0) == 0xe0 && b(1) < 0xa0) || (b(0) == 0xed && b(1) > 0x9f) ||
        (b(0) == 0xf0 && b(1) < 0x90) || (b(0) == 0xf4 && b(1) > 0x8f)) {
      return false;
    }
    i += n;
  }
  return true;
}

}  // namespace fuzz_support
