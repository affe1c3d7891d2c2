// Forward sensitivities and adjoint gradients of SBML models (doc/sbml.md, "Sensitivities").
#include <stdexcept>

#include "compiled_model.hpp"
#include "esdirk/sbml/sbml.hpp"

namespace esdirk::sbml {

Sensitivities simulate_sensitivities(const Model& model, const std::vector<double>& output_times,
                                     const std::vector<Output>& outputs,
                                     const std::vector<std::string>& with_respect_to,
                                     const SimulationOptions& options) {
  (void)model, (void)output_times, (void)outputs, (void)with_respect_to, (void)options;
  throw std::logic_error("sensitivities of SBML models are not available yet");
}

Gradient adjoint_gradient(const Model&, const std::vector<double>&, const std::vector<Output>&,
                          const std::vector<double>&, const std::vector<std::string>& with_respect_to,
                          const SimulationOptions&) {
  (void)with_respect_to;
  throw std::logic_error("adjoint gradients of SBML models are not available yet");
}

}  // namespace esdirk::sbml
