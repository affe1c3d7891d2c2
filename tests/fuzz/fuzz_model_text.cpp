// libFuzzer target: the model-text parser and everything behind it (analysis, both reports).
// Input errors (ParseError, LimitExceeded) are expected; a crash, a sanitizer report, any
// other exception, a JSON report that is not UTF-8, or time or memory beyond the fuzzer's
// limits is a finding. See doc/hardening.md.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "esdirk/structural/structural.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace esdirk::structural;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Model model;
  try {
    model = parse_model(text, "fuzz");
  } catch (const ParseError&) {
    return 0;
  }
  try {
    // A budget below the default keeps each input fast, so the fuzzer spends its time on many
    // inputs (the default budget is exercised by fuzz_capi_report, which cannot change it).
    const ModelAnalysis analysis = analyse_model(model, std::int64_t{1} << 16);
    (void)text_report(model, analysis);
    if (!fuzz_support::is_utf8(json_report(model, analysis))) std::abort();
  } catch (const LimitExceeded&) {
    return 0;
  }
  return 0;
}
