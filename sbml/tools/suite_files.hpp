// The files of one SBML Test Suite semantic case, read into plain structs:
//   NNNNN-settings.txt  start, duration, steps, variables, tolerances, amount/concentration lists
//   NNNNN-results.csv   the expected values (time first, then one column per variable)
//   NNNNN-model.m       the description; only its tags (componentTags, testTags, testType,
//                       packagesPresent) are read.
// The formats are the suite's (semantic-README.md). Every reader takes the text, never a path,
// so it can be tested on hostile text; malformed text throws SuiteFormatError naming the line
// and what is wrong. Nothing here depends on libSBML or on the importer.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace esdirk::sbml_suite {

// Malformed settings, results or description text. what() is "<file kind> line N: <why>"
// ("<file kind>: <why>" when the fault is not on one line, line() then 0).
class SuiteFormatError : public std::runtime_error {
 public:
  SuiteFormatError(const std::string& what_file, std::size_t line, const std::string& why);
  std::size_t line() const noexcept { return line_; }

 private:
  std::size_t line_;
};

// NNNNN-settings.txt. start, duration and steps are empty in the flux-balance cases, hence
// optional; a time-course case needs all three (time_course_times checks it).
struct CaseSettings {
  std::optional<double> start;
  std::optional<double> duration;
  std::optional<long> steps;
  std::vector<std::string> variables;
  std::vector<std::string> amount;
  std::vector<std::string> concentration;
  double absolute = 0.0;
  double relative = 0.0;
};

// The largest step count a settings file may ask for: far above the suite's (at most a few
// thousand), low enough that a hostile file cannot make the runner allocate gigabytes.
inline constexpr long max_steps = 1'000'000;

CaseSettings parse_settings(std::string_view text);

// The output times start + i duration / steps, i = 0..steps. Throws SuiteFormatError when the
// settings lack start, duration or steps (flux-balance cases).
std::vector<double> time_course_times(const CaseSettings& settings);

// NNNNN-results.csv: the columns after time, in the file's order, and the values row-major
// (times.size() rows of columns.size() values). The header is optional in the suite's format:
// without one, the columns are the settings' variables (pass them as default_columns).
// Values may be NaN and +-INF (in any letter case).
struct ExpectedResults {
  std::vector<std::string> columns;
  std::vector<double> times;
  std::vector<double> values;

  double value(std::size_t row, std::size_t column) const {
    return values[row * columns.size() + column];
  }
};

ExpectedResults parse_results(std::string_view text,
                              const std::vector<std::string>& default_columns = {});

// The tags of NNNNN-model.m.
struct CaseDescription {
  std::vector<std::string> component_tags;
  std::vector<std::string> test_tags;
  std::string test_type;  // "TimeCourse", "FluxBalanceSteadyState"; empty when absent
  std::vector<std::string> packages;
};

CaseDescription parse_description(std::string_view text);

// Writes a result table in the results file's format (header "time,V1,V2", values with 17
// significant digits), e.g. for the runner's --csv-out.
std::string format_results(const std::vector<std::string>& columns,
                           const std::vector<double>& times, const std::vector<double>& values);

// Reads a whole file; throws std::runtime_error naming the path if it cannot be read or is
// larger than max_bytes (the suite's biggest file is well below a megabyte).
std::string read_text_file(const std::string& path, std::size_t max_bytes = std::size_t{64} << 20);

// A number as the suite writes it: decimal or exponent form with an optional sign, or
// NaN/INF/-INF in any letter case. Surrounding blanks are allowed; anything else is not.
std::optional<double> parse_number(std::string_view text);

}  // namespace esdirk::sbml_suite
