// One SBML Test Suite case, run: read its settings, description and expected results, import
// the highest-level SBML file of its folder, simulate, compare with the suite's rule.
#pragma once

#include <string>
#include <vector>

namespace esdirk::sbml_suite {

enum class Outcome { pass, fail, unsupported };

struct CaseResult {
  std::string id;  // "00001"
  Outcome outcome = Outcome::fail;
  // fail: the largest violation and where, or what stopped the case; unsupported: the feature.
  std::string detail;
  double seconds = 0;  // wall time of import + simulation (0 when neither ran)
  std::vector<std::string> component_tags;
  std::vector<std::string> test_tags;
  // The computed table in the results file's format, when a simulation produced one.
  std::string computed_csv;
};

struct CaseOptions {
  // The solver's tolerances are the case's times these factors (tighter than the case needs,
  // since the rule is on the outputs and the solver controls a local error estimate), capped
  // at the library's defaults.
  double tolerance_factor = 1e-3;
  bool keep_csv = false;  // fill CaseResult::computed_csv
};

// "7" -> "00007"; "" for anything that is not 1-5 digits.
std::string normalize_case_id(const std::string& text);

// The SBML file to import: the highest Level/Version "NNNNN-sbml-lXvY.xml" in the folder;
// "" when there is none.
std::string highest_level_model(const std::string& case_folder, const std::string& id);

// Runs one case; never throws (every failure is a fail or unsupported result).
CaseResult run_case(const std::string& cases_dir, const std::string& id,
                    const CaseOptions& options);

}  // namespace esdirk::sbml_suite
