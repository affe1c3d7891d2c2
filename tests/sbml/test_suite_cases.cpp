// A handful of cases of the SBML Test Suite (read from ../shared/sbml-test-suite beside the
// source tree; skipped when it is not there), judged by the suite's rule |C - U| <= abs +
// rel |C| at every output: plain kinetics, a conversion factor, an algebraic rule, a function
// definition, events with delay and priority, a hierarchical (comp) model.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "esdirk/sbml/sbml.hpp"

namespace sb = esdirk::sbml;
namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!trim(item).empty()) out.push_back(trim(item));
  return out;
}

// Runs case `id`; returns "" when it passes, else what went wrong.
std::string run_case(const std::string& id) {
  const fs::path dir = fs::path(ESDIRK_SBML_SUITE_DIR) / id;
  std::map<std::string, std::string> settings;
  std::ifstream in(dir / (id + "-settings.txt"));
  for (std::string line; std::getline(in, line);)
    if (const auto colon = line.find(':'); colon != std::string::npos) settings[trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
  const double start = std::stod(settings["start"]), duration = std::stod(settings["duration"]);
  const int steps = std::stoi(settings["steps"]);
  const double absolute = std::stod(settings["absolute"]), relative = std::stod(settings["relative"]);
  const auto variables = split(settings["variables"]);
  const auto amount_list = split(settings["amount"]), concentration_list = split(settings["concentration"]);
  const std::set<std::string> amounts(amount_list.begin(), amount_list.end()),
      concentrations(concentration_list.begin(), concentration_list.end());
  std::vector<double> times;
  for (int i = 0; i <= steps; ++i) times.push_back(start + duration * i / steps);
  const sb::Model model = sb::load((dir / (id + "-sbml-l3v2.xml")).string());
  const auto species = model.species_ids();
  std::vector<sb::Output> outputs;
  for (const std::string& v : variables) {
    const bool is_species = std::find(species.begin(), species.end(), v) != species.end();
    outputs.push_back({v, !is_species ? sb::Quantity::value
                          : amounts.count(v) ? sb::Quantity::amount
                          : concentrations.count(v) ? sb::Quantity::concentration
                                                    : sb::Quantity::value});
  }
  sb::SimulationOptions options;
  options.relative_tolerance = 1e-10;
  options.absolute_tolerance = std::min(1e-10, 1e-4 * absolute);
  const auto run = sb::simulate(model, times, outputs, options);
  if (!run.ok()) return "simulation failed: " + run.message;
  std::ifstream results(dir / (id + "-results.csv"));
  std::string line;
  std::getline(results, line);
  const auto columns = split(line);
  for (std::size_t i = 0; i < times.size() && std::getline(results, line); ++i) {
    const auto fields = split(line);
    for (std::size_t j = 0; j < variables.size(); ++j) {
      const auto column = std::find(columns.begin(), columns.end(), variables[j]) - columns.begin();
      const double expected = std::stod(fields[static_cast<std::size_t>(column)]), value = run.value(i, j);
      if (!(std::abs(expected - value) <= absolute + relative * std::abs(expected)))
        return variables[j] + " at t = " + std::to_string(times[i]) + ": " + std::to_string(value) + " instead of " +
               std::to_string(expected);
    }
  }
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sbml_suite_cases)

BOOST_AUTO_TEST_CASE(a_handful_of_suite_cases_pass) {
  // 00001 kinetics, 00078 function definition, 00349 state events, 00405 delayed events,
  // 00978 priorities and cascades, 00953 equal priorities (random order), 01117 a constant species
  // in a growing compartment, 01505 a compartment resized by an event, 01578 an algebraic rule
  // with a t0 event, 01101 assigned stoichiometry, 00975 conversion factors, 01124 a hierarchical model (comp).
  for (const std::string id : {"00001", "00078", "00349", "00405", "00978", "00953", "01117", "01505", "01578", "01101", "00975", "01124"}) {
    if (!fs::exists(fs::path(ESDIRK_SBML_SUITE_DIR) / id)) {
      BOOST_TEST_MESSAGE("SBML Test Suite case " << id << " not found beside the source tree: skipped");
      continue;
    }
    const std::string verdict = run_case(id);
    BOOST_CHECK_MESSAGE(verdict.empty(), "case " << id << ": " << verdict);
  }
}

BOOST_AUTO_TEST_SUITE_END()
