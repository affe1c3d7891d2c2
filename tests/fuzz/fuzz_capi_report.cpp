// libFuzzer target: esdirk_structural_report, the C API's analysis of model text. The first
// byte picks text or JSON output; the rest is the model. Every call must return one of the
// documented statuses with a NUL-terminated text of the reported length; the JSON must be
// UTF-8. ESDIRK_INTERNAL_ERROR (an unexpected exception inside) is a finding.
// Work per input is bounded: models with more than 3 mode variables (8 modes, 56 mode
// changes) are skipped (issue 27: with up to 7, at the default budget, the target ran at
// 42-124 inputs per second); fuzz_model_text covers larger ones with a smaller budget.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "esdirk/esdirk.h"
#include "esdirk/structural/structural.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int json = data[0] & 1;
  // The C API takes a NUL-terminated string: the text ends at the first NUL.
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    // The mode variables are counted by the parser (linear) before the analysis runs.
    if (esdirk::structural::parse_model(text.c_str(), "fuzz").mode_variables.size() > 3) return 0;
  } catch (const esdirk::structural::ParseError&) {
    // The C API must refuse it as well: checked below.
  }
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
