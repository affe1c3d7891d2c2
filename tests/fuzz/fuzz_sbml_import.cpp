// libFuzzer target: the SBML importer, libSBML's own XML reader included. The bytes are an SBML
// document for esdirk::sbml::load_string; a model that imports is simulated briefly (few steps,
// loose tolerances, a short horizon), with every species, compartment and parameter as an
// output. ImportError (UnsupportedFeature included) is the expected answer to bad input, and a
// simulation may stop with a failure status or refuse an output (std::invalid_argument); a
// crash, a sanitizer report, any other exception, time or memory beyond the fuzzer's limits is
// a finding. See doc/hardening.md.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "esdirk/sbml/sbml.hpp"

namespace sbml = esdirk::sbml;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  std::optional<sbml::Model> model;
  try {
    model.emplace(sbml::load_string(xml));
  } catch (const sbml::ImportError&) {
    return 0;
  }
  std::vector<sbml::Output> outputs;
  for (const auto& id : model->species_ids()) {
    outputs.push_back({id, sbml::Quantity::amount});
    outputs.push_back({id, sbml::Quantity::concentration});
  }
  for (const auto& id : model->compartment_ids()) outputs.push_back({id, sbml::Quantity::value});
  for (const auto& id : model->global_parameter_ids())
    outputs.push_back({id, sbml::Quantity::value});
  sbml::SimulationOptions options;
  options.relative_tolerance = 1e-6;
  options.absolute_tolerance = 1e-9;
  options.max_steps = 500;
  // The run's status may be any failure (a fuzzed model can be stiff beyond any budget or
  // blow up); only a crash or an unexpected exception is a finding.
  try {
    const sbml::Simulation run = sbml::simulate(*model, {0.0, 0.5, 1.0}, outputs, options);
    if (run.values.size() != run.times.size() * run.outputs.size()) __builtin_trap();
  } catch (const std::invalid_argument&) {
    // An output the model cannot report (a concentration in a compartment of size zero).
  }
  return 0;
}
