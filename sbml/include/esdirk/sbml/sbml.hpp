#pragma once
// SBML models as hybrid problems (doc/sbml.md): libSBML reads the file, the importer maps the
// model onto the semi-explicit DAE x' = f(t, x, z, p), 0 = g(t, x, z, p) with SBML's events as
// event functions and transitions, and compiles every MathML expression once into a flat
// program over a slot array (exact derivatives by forward-mode AD over the same program).
//
//     esdirk::sbml::Model model = esdirk::sbml::load("model.xml");
//     esdirk::sbml::Simulation run = esdirk::sbml::simulate(model, {0, 1, 2},
//                                        {{"S1", esdirk::sbml::Quantity::concentration}});
//     if (run.ok()) use(run.value(2, 0));   // S1's concentration at t = 2
//
// What the importer cannot map exactly it refuses at import with UnsupportedFeature (the SBML
// feature and the element id): a refusal, never a wrong number.

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "esdirk/events/hybrid_problem.hpp"
#include "esdirk/status.hpp"

namespace esdirk::sbml {

/// A model that cannot be imported: malformed XML, not SBML, an undefined id, a cyclic
/// initial assignment, a division by zero at initialization, an event without trigger, ...
/// element_id() names the SBML element ("" when the error is about the whole document) and
/// line() the line of the file where libSBML gives it (0 otherwise).
class ImportError : public std::runtime_error {
 public:
  ImportError(const std::string& message, std::string element_id = {}, unsigned line = 0)
      : std::runtime_error(message), element_id_(std::move(element_id)), line_(line) {}
  const std::string& element_id() const { return element_id_; }
  unsigned line() const { return line_; }

 private:
  std::string element_id_;
  unsigned line_;
};

/// A valid model that uses an SBML feature the importer does not support (the `delay`
/// csymbol, flux-balance objectives, fast reactions, ...). feature() names it in a few words
/// ("delay csymbol"), element_id() the element that uses it; what() says both.
class UnsupportedFeature : public ImportError {
 public:
  UnsupportedFeature(const std::string& feature, std::string element_id, unsigned line = 0)
      : ImportError("unsupported SBML feature: " + feature +
                        (element_id.empty() ? std::string() : " (element '" + element_id + "')"),
                    element_id, line),
        feature_(feature) {}
  const std::string& feature() const { return feature_; }

 private:
  std::string feature_;
};

struct ImportOptions {
  /// Flatten hierarchical models (the `comp` package) with libSBML's converter before import.
  /// Off: a model with submodels is refused.
  bool flatten_hierarchical = true;
  /// Run libSBML's consistency checks (identifiers, units left out) and refuse a model with
  /// errors. Off: only the reader's own errors (XML, not SBML) are refused.
  bool check_consistency = true;
};

/// What an output reports of a species: its amount or its concentration; `value` is the
/// value of the id in the model's math (a species' concentration unless hasOnlySubstanceUnits,
/// a compartment's size, a parameter's value, a species reference's stoichiometry).
enum class Quantity { amount, concentration, value };

struct Output {
  std::string id;
  Quantity quantity = Quantity::value;
};

namespace detail {
struct CompiledModel;
}

/// An imported model: the compiled expressions, the initial values and the hybrid problem.
/// Movable, not copyable; a const Model may be simulated from several threads at once (each
/// simulate() makes its own workspace).
class Model {
 public:
  explicit Model(std::unique_ptr<detail::CompiledModel> compiled);
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  const std::string& id() const;
  /// The ids of the model's species, compartments and global parameters, in document order.
  std::vector<std::string> species_ids() const;
  std::vector<std::string> compartment_ids() const;
  std::vector<std::string> global_parameter_ids() const;

  /// The ids a sensitivity or gradient may be taken with respect to (simulate_sensitivities):
  /// parameter_ids() are the constant parameters and compartments, and the local parameters
  /// of reactions as "reactionId.parameterId"; initial_value_ids() the ids whose initial
  /// values start a differential state (species, varying compartments and parameters).
  std::vector<std::string> parameter_ids() const;
  std::vector<std::string> initial_value_ids() const;

  /// The value used for a parameter id (parameter_ids()) or the initial value of an initial-
  /// value id (initial_value_ids(); a species' initial amount or concentration as declared).
  /// Throws std::invalid_argument for any other id. set_value() takes effect for the next
  /// simulate(); initial assignments and rules are re-evaluated from it.
  double value(const std::string& id) const;
  void set_value(const std::string& id, double value);

  /// The hybrid problem (x: differential states, z: algebraic, p: parameters and the event
  /// bookkeeping) with its initial point, for use with HybridSolver / HybridAdjoint directly.
  HybridProblem& problem();
  /// The sizes of the problem and what each state and parameter is (ids, "#..." for internal
  /// entries such as pending delayed executions).
  const std::vector<std::string>& state_names() const;
  const std::vector<std::string>& algebraic_names() const;
  const std::vector<std::string>& problem_parameter_names() const;

  const detail::CompiledModel& compiled() const { return *compiled_; }
  detail::CompiledModel& compiled() { return *compiled_; }

 private:
  std::unique_ptr<detail::CompiledModel> compiled_;
};

/// Reads an SBML file (Level 2 or 3). Throws ImportError (or UnsupportedFeature).
Model load(const std::string& path, const ImportOptions& options = {});
/// The same for a document in memory.
Model load_string(std::string_view xml, const ImportOptions& options = {});

struct SimulationOptions {
  double relative_tolerance = 1e-8;
  double absolute_tolerance = 1e-12;
  /// Largest step (0: none).
  double max_step = 0.0;
  /// Steps per call before too_many_steps.
  long max_steps = 1000000;
  /// Wall-clock seconds per call (0: no limit). A run that reaches the limit ends with
  /// too_many_steps (the work limit, as max_steps) and a message naming max_seconds; the rows
  /// reached before it are kept. Looked at after every accepted step and every output time.
  double max_seconds = 0.0;
  /// simulate_sensitivities: include the sensitivities in the error test (the default, the
  /// more accurate derivatives). Off, the steps are those of simulate() and adjoint_gradient(),
  /// and forward and adjoint derivatives of the same run agree to rounding.
  bool sensitivity_error_control = true;
  /// Throws std::invalid_argument naming the first invalid option.
  void validate() const;
};

/// The result of a run: status (success or the failure that stopped it, with a message that
/// names the cause), and the outputs' values at the output times (row-major: times.size() rows
/// of outputs.size() values). After a failure the rows reached before it are filled, the rest
/// NaN.
struct Simulation {
  Status status = Status::success;
  std::string message;
  std::vector<double> times;
  std::vector<Output> outputs;
  std::vector<double> values;

  bool ok() const { return status == Status::success; }
  double value(std::size_t time_index, std::size_t output_index) const {
    return values[time_index * outputs.size() + output_index];
  }
};

/// Integrates the model from its initial time (the first output time) through the output
/// times (non-decreasing) and reports the outputs at each; at an event time the values after
/// the event. Throws std::invalid_argument for an unknown output id, decreasing times or
/// invalid options; numerical failure is a status.
Simulation simulate(const Model& model, const std::vector<double>& output_times,
                    const std::vector<Output>& outputs, const SimulationOptions& options = {});

/// Forward sensitivities of the outputs with respect to `with_respect_to` (ids of
/// parameter_ids() and initial_value_ids()), through the events: derivatives[(i * no + j) * nw
/// + k] = d output j at time i / d with_respect_to[k].
struct Sensitivities {
  Simulation simulation;
  std::vector<std::string> with_respect_to;
  std::vector<double> derivatives;

  double derivative(std::size_t time_index, std::size_t output_index, std::size_t wrt_index) const {
    return derivatives[(time_index * simulation.outputs.size() + output_index) *
                           with_respect_to.size() + wrt_index];
  }
};
Sensitivities simulate_sensitivities(const Model& model, const std::vector<double>& output_times,
                                     const std::vector<Output>& outputs,
                                     const std::vector<std::string>& with_respect_to,
                                     const SimulationOptions& options = {});

/// The gradient of G = sum_ij weights[i * no + j] * output j at time i with respect to
/// `with_respect_to`, by the hybrid adjoint (one backward sweep). Status and message as for
/// Simulation.
struct Gradient {
  Status status = Status::success;
  std::string message;
  double value = 0.0;
  std::vector<std::string> with_respect_to;
  std::vector<double> gradient;
  bool ok() const { return status == Status::success; }
};
Gradient adjoint_gradient(const Model& model, const std::vector<double>& output_times,
                          const std::vector<Output>& outputs, const std::vector<double>& weights,
                          const std::vector<std::string>& with_respect_to,
                          const SimulationOptions& options = {});

}  // namespace esdirk::sbml
