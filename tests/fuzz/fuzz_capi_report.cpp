// libFuzzer target: esdirk_structural_report, the C API's analysis of model text. The first
// byte picks text or JSON output; the rest is the model. Every call must return one of the
// documented statuses with a NUL-terminated text of the reported length; the JSON must be
// UTF-8. ESDIRK_INTERNAL_ERROR (an unexpected exception inside) is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "esdirk/esdirk.h"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int json = data[0] & 1;
  // The C API takes a NUL-terminated string: the text ends at the first NUL.
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  size_t length = 0;
  int well_posed = -1;
  char small[16];
  const int first = esdirk_structural_report(text.c_str(), json, small, sizeof small, &length,
                                             &well_posed);
  if (first == ESDIRK_SUCCESS || first == ESDIRK_BUFFER_TOO_SMALL) {
    std::string buffer(length + 1, '\x7f');
    const int second = esdirk_structural_report(text.c_str(), json, buffer.data(),
                                                buffer.size(), &length, &well_posed);
    if (second != ESDIRK_SUCCESS || buffer[length] != '\0' || std::strlen(buffer.c_str()) != length)
      std::abort();
    if (well_posed != 0 && well_posed != 1) std::abort();
    if (json && !fuzz_support::is_utf8(buffer.c_str())) std::abort();
  } else if (first != ESDIRK_INVALID_ARGUMENT) {
    std::abort();  // OUT_OF_MEMORY or INTERNAL_ERROR: not expected of any input within limits
  }
  return 0;
}
