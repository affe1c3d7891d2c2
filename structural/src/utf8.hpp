#pragma once
// Internal to the structural module: UTF-8 well-formedness (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF). Model text must be UTF-8; the JSON report must be too.

#include <cstddef>
#include <string_view>

namespace esdirk::structural::utf8 {

/// Length (1 to 4) of the well-formed sequence that starts at text[at], or 0 if there is none.
inline std::size_t sequence_length(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the allowed range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // overlong
    if (lead == 0xed) high = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // overlong
    if (lead == 0xf4) high = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xbf) return 0;
  }
  return length;
}

/// Position of the first byte that does not start a well-formed sequence, or npos.
inline std::size_t first_invalid(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t n = sequence_length(text, at);
    if (n == 0) return at;
    at += n;
  }
  return std::string_view::npos;
}

}  // namespace esdirk::structural::utf8
