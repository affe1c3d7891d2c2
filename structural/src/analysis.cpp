#include "esdirk/structural/analysis.hpp"

#include <utility>

#include "esdirk/structural/model_parser.hpp"

namespace esdirk::structural {

namespace {

Analysis analysed(Model model, std::int64_t work_limit) {
  Analysis analysis;
  static_cast<ModelAnalysis&>(analysis) = analyse_model(model, work_limit);
  analysis.model = std::move(model);
  return analysis;
}

}  // namespace

Analysis analyse(std::string_view text, const std::string& source_name, std::int64_t work_limit) {
  return analysed(parse_model(text, source_name), work_limit);
}

Analysis analyse_file(const std::string& path, std::int64_t work_limit) {
  return analysed(read_model_file(path), work_limit);
}

}  // namespace esdirk::structural
