#pragma once
// The structural analysis in one call (doc/structural-guide.md): model text in, one result out
// (the model as read, every mode and mode change, the warnings), printed by the two reports.
//
//   using namespace esdirk::structural;
//   const Analysis clutch = analyse(text);          // or analyse_file("clutch.dae")
//   std::cout << text_report(clutch);               // or json_report(clutch)
//   const SigmaResult& engaged = clutch.modes[1].result;
//   return clutch.well_posed() ? 0 : 3;
//
// Every type reached from here is a plain aggregate (or holds one of the module's value types,
// SignatureMatrix, BipartiteGraph, Guard, read through their inline members); the model's
// errors are ParseError / LimitExceeded (parse_error.hpp), located "source:line:column".

#include <cstdint>
#include <string>
#include <string_view>

#include "esdirk/export.hpp"
#include "esdirk/structural/limits.hpp"
#include "esdirk/structural/mode_analysis.hpp"
#include "esdirk/structural/model.hpp"
#include "esdirk/structural/report.hpp"

namespace esdirk::structural {

/// The analysis of one model: every mode (`modes`), every mode change (`mode_changes`), the
/// warnings and `well_posed()` of ModelAnalysis, and the model they speak about (its names,
/// guards and source locations; indices in the analysis are indices into it).
struct Analysis : ModelAnalysis {
  Model model;
};

/// Parses model text (the format of model_parser.hpp; `source_name` in error locations) and
/// analyses every mode and mode change within `work_limit` (analyse_model). Throws ParseError
/// ("source:line:column: error: ...") for malformed text and LimitExceeded past a limit.
ESDIRK_API Analysis analyse(std::string_view text, const std::string& source_name = "<model>",
                            std::int64_t work_limit = max_analysis_work);

/// The same for a model file (ParseError also when it cannot be read).
ESDIRK_API Analysis analyse_file(const std::string& path,
                                 std::int64_t work_limit = max_analysis_work);

/// The text report of report.hpp (per mode the offsets, indices, blocks; per mode change the
/// conflicts and the restart system).
inline std::string text_report(const Analysis& analysis) {
  return text_report(analysis.model, analysis);
}

/// The same content as one JSON object.
inline std::string json_report(const Analysis& analysis) {
  return json_report(analysis.model, analysis);
}

}  // namespace esdirk::structural
