#include "suite_case.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "esdirk/sbml/sbml.hpp"
#include "suite_compare.hpp"
#include "suite_files.hpp"

namespace esdirk::sbml_suite {

namespace fs = std::filesystem;

namespace {

// libSBML keeps global registries (SBML namespaces, package extensions) that its reader
// consults; its documentation promises nothing for concurrent readers, so imports take turns.
// Simulations of distinct models share nothing and run in parallel.
std::mutex import_mutex;

// The rows of the results file must be the settings' output times.
void check_times(const ExpectedResults& expected, const std::vector<double>& times) {
  if (expected.times.size() != times.size())
    throw SuiteFormatError("results", 0,
                           std::to_string(expected.times.size()) +
                               " rows where the settings ask for " + std::to_string(times.size()));
  for (std::size_t i = 0; i < times.size(); ++i)
    if (std::fabs(expected.times[i] - times[i]) > 1e-9 * (1 + std::fabs(times[i]))) {
      char what[128];
      std::snprintf(what, sizeof what, "row %zu: time %.10g is not the settings' %.10g", i + 1,
                    expected.times[i], times[i]);
      throw SuiteFormatError("results", 0, what);
    }
}

// The quantity a column reports. The settings' amount and concentration lists apply to species
// only: a few cases list a compartment among the amounts (00051: its size is meant).
esdirk::sbml::Quantity quantity_of(const CaseSettings& settings, const std::string& id,
                                   const std::vector<std::string>& species) {
  const auto listed = [&id](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), id) != list.end();
  };
  if (!listed(species)) return esdirk::sbml::Quantity::value;
  if (listed(settings.amount)) return esdirk::sbml::Quantity::amount;
  if (listed(settings.concentration)) return esdirk::sbml::Quantity::concentration;
  return esdirk::sbml::Quantity::value;
}

}  // namespace

std::string normalize_case_id(const std::string& text) {
  if (text.empty() || text.size() > 5 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return {};
  return std::string(5 - text.size(), '0') + text;
}

std::string highest_level_model(const std::string& case_folder, const std::string& id) {
  std::string best;
  int best_rank = -1;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(case_folder, error)) {
    const std::string name = entry.path().filename().string();
    // NNNNN-sbml-lXvY.xml (the SED-ML files are NNNNN-sbml-lXvY-sedml.xml).
    const std::string prefix = id + "-sbml-l";
    if (name.size() != prefix.size() + 7 || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - 4, 4, ".xml") != 0)
      continue;
    const char level = name[prefix.size()], v = name[prefix.size() + 1],
               version = name[prefix.size() + 2];
    if (level < '1' || level > '9' || v != 'v' || version < '1' || version > '9') continue;
    const int rank = 10 * (level - '0') + (version - '0');
    if (rank > best_rank) {
      best_rank = rank;
      best = entry.path().string();
    }
  }
  return best;
}

CaseResult run_case(const std::string& cases_dir, const std::string& id,
                    const CaseOptions& options) {
  namespace sbml = esdirk::sbml;
  CaseResult result;
  result.id = id;
  const auto fail = [&result](std::string why) {
    result.outcome = Outcome::fail;
    result.detail = std::move(why);
    return result;
  };
  const fs::path folder = fs::path(cases_dir) / id;
  const std::string base = (folder / id).string();
  CaseSettings settings;
  ExpectedResults expected;
  std::vector<double> times;
  try {
    if (!fs::is_directory(folder)) return fail("no case folder " + folder.string());
    const CaseDescription description = parse_description(read_text_file(base + "-model.m"));
    result.component_tags = description.component_tags;
    result.test_tags = description.test_tags;
    if (description.test_type != "TimeCourse") {
      result.outcome = Outcome::unsupported;
      result.detail =
          "test type " +
          (description.test_type.empty() ? std::string("(none)") : description.test_type) +
          " (only TimeCourse cases are simulated)";
      return result;
    }
    settings = parse_settings(read_text_file(base + "-settings.txt"));
    times = time_course_times(settings);
    expected = parse_results(read_text_file(base + "-results.csv"), settings.variables);
    check_times(expected, times);
  } catch (const std::exception& e) {
    return fail(std::string("case files: ") + e.what());
  }

  const std::string model_path = highest_level_model(folder.string(), id);
  if (model_path.empty()) return fail("no " + id + "-sbml-lXvY.xml in " + folder.string());

  sbml::SimulationOptions solver;
  solver.relative_tolerance =
      std::clamp(settings.relative * options.tolerance_factor, 1e-13, solver.relative_tolerance);
  solver.absolute_tolerance =
      std::clamp(settings.absolute * options.tolerance_factor, 1e-25, solver.absolute_tolerance);

  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  sbml::Simulation run;
  try {
    std::unique_lock lock(import_mutex);
    sbml::Model model = sbml::load(model_path);
    lock.unlock();
    const std::vector<std::string> species = model.species_ids();
    std::vector<sbml::Output> outputs;
    for (const std::string& column : expected.columns)
      outputs.push_back({column, quantity_of(settings, column, species)});
    run = sbml::simulate(model, times, outputs, solver);
  } catch (const sbml::UnsupportedFeature& e) {
    result.seconds = elapsed();
    result.outcome = Outcome::unsupported;
    result.detail = e.feature();
    return result;
  } catch (const sbml::ImportError& e) {
    result.seconds = elapsed();
    // The element and line, unless the message names them already.
    const std::string message = e.what();
    std::string where;
    if (!e.element_id().empty() && message.find("'" + e.element_id() + "'") == std::string::npos)
      where += " (element '" + e.element_id() + "')";
    if (e.line() != 0 && message.find("line " + std::to_string(e.line())) == std::string::npos)
      where += " (line " + std::to_string(e.line()) + ")";
    return fail(std::string("import error: ") + e.what() + where);
  } catch (const std::exception& e) {
    result.seconds = elapsed();
    return fail(std::string("exception: ") + e.what());
  } catch (...) {
    result.seconds = elapsed();
    return fail("unknown exception");
  }
  result.seconds = elapsed();
  if (options.keep_csv) result.computed_csv = format_results(expected.columns, times, run.values);
  if (!run.ok())
    return fail("simulation stopped (" + std::string(esdirk::status_name(run.status)) +
                "): " + run.message);
  try {
    const Comparison comparison =
        compare(expected, run.values, settings.absolute, settings.relative);
    if (!comparison.pass)
      return fail(describe(comparison.worst) + "; " + std::to_string(comparison.failing_points) +
                  " of " + std::to_string(run.values.size()) + " values outside");
  } catch (const std::exception& e) {
    return fail(std::string("comparison: ") + e.what());
  }
  result.outcome = Outcome::pass;
  return result;
}

}  // namespace esdirk::sbml_suite
