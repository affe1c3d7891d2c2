// Sensitivities of SBML models: forward sensitivities against a closed form and against
// central differences of whole runs through events (three models of the SBML Test Suite), and
// adjoint gradients against the forward sensitivities of the same run.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include "esdirk/sbml/sbml.hpp"
#include "sbml_text.hpp"

namespace sb = esdirk::sbml;

namespace {

sb::SimulationOptions tight() {
  sb::SimulationOptions o;
  o.relative_tolerance = 1e-10;
  o.absolute_tolerance = 1e-12;
  return o;
}

// The model of a suite case, or "" when the suite is not beside the source tree.
std::string suite_case(const std::string& id) {
  const std::filesystem::path file = std::filesystem::path(ESDIRK_SBML_SUITE_DIR) / id / (id + "-sbml-l3v2.xml");
  return std::filesystem::exists(file) ? file.string() : std::string();
}

std::vector<sb::Output> amounts(const sb::Model& model) {
  std::vector<sb::Output> out;
  for (const std::string& s : model.species_ids()) out.push_back({s, sb::Quantity::amount});
  return out;
}

// Initial assignments that depend nonlinearly on a parameter and a compartment size: X (an
// amount) = k^2 V, Y (a concentration) = k^2 so its amount is k^2 V, Z a declared
// concentration (amount 0.3 V), q = sin(k) V + Z, a slow decay of X so that there is dynamics.
std::string initial_assignment_model() {
  return sbml_text::document(R"(
    <listOfCompartments><compartment id="V" size="2" constant="true"/></listOfCompartments>
    <listOfSpecies>
      <species id="X" compartment="V" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>
      <species id="Y" compartment="V" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
      <species id="Z" compartment="V" initialConcentration="0.3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
    </listOfSpecies>
    <listOfParameters>
      <parameter id="k" value="1.5" constant="true"/>
      <parameter id="q" constant="true"/>
    </listOfParameters>
    <listOfInitialAssignments>
      <initialAssignment symbol="X">)" + sbml_text::math("<apply><times/><apply><power/><ci>k</ci><cn>2</cn></apply><ci>V</ci></apply>") + R"(</initialAssignment>
      <initialAssignment symbol="Y">)" + sbml_text::math("<apply><times/><ci>k</ci><ci>k</ci></apply>") + R"(</initialAssignment>
      <initialAssignment symbol="q">)" + sbml_text::math("<apply><plus/><apply><times/><apply><sin/><ci>k</ci></apply><ci>V</ci></apply><ci>Z</ci></apply>") + R"(</initialAssignment>
    </listOfInitialAssignments>
    <listOfReactions><reaction id="r" reversible="false">
      <listOfReactants><speciesReference species="X" stoichiometry="1" constant="true"/></listOfReactants>
      <kineticLaw>)" + sbml_text::math("<apply><times/><ci>q</ci><ci>X</ci></apply>") + R"(</kineticLaw>
    </reaction></listOfReactions>)");
}

// An event that executes at t0 (initialValue false, its trigger true there), with assignments
// nonlinear in the state and a parameter: X+ = k X0^2, w+ = sin(k) X0 (X an amount, X0 = 1.5,
// k = 1.5), then a slow decay.
std::string event_at_t0_model() {
  return sbml_text::document(R"(
    <listOfCompartments><compartment id="V" size="2" constant="true"/></listOfCompartments>
    <listOfSpecies><species id="X" compartment="V" initialAmount="1.5" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/></listOfSpecies>
    <listOfParameters><parameter id="k" value="1.5" constant="true"/><parameter id="w" value="0" constant="false"/></listOfParameters>
    <listOfReactions><reaction id="decay" reversible="false">
      <listOfReactants><speciesReference species="X" stoichiometry="1" constant="true"/></listOfReactants>
      <kineticLaw>)" + sbml_text::math("<apply><times/><cn>0.1</cn><ci>X</ci></apply>") + R"(</kineticLaw>
    </reaction></listOfReactions>
    <listOfEvents><event id="at_start" useValuesFromTriggerTime="true">
      <trigger initialValue="false" persistent="true">)" +
                             sbml_text::math("<apply><gt/><ci>X</ci><apply><times/><cn>0.5</cn><ci>k</ci></apply></apply>") + R"(</trigger>
      <listOfEventAssignments>
        <eventAssignment variable="X">)" + sbml_text::math("<apply><times/><ci>k</ci><ci>X</ci><ci>X</ci></apply>") + R"(</eventAssignment>
        <eventAssignment variable="w">)" + sbml_text::math("<apply><times/><apply><sin/><ci>k</ci></apply><ci>X</ci></apply>") + R"(</eventAssignment>
      </listOfEventAssignments></event></listOfEvents>)");
}

// The derivatives at t0 (the seed: the initial map's derivative) against central differences of
// the initial map, evaluated by simulate() at t0 with perturbed declared values, within 1e-8.
void check_seed_against_differences(sb::Model& model, const std::vector<sb::Output>& outputs) {
  std::vector<std::string> wrt = model.parameter_ids();
  for (const std::string& id : model.initial_value_ids()) wrt.push_back(id);
  const std::vector<double> times = {0.0, 0.5};
  const auto forward = sb::simulate_sensitivities(model, times, outputs, wrt, tight());
  BOOST_REQUIRE_MESSAGE(forward.simulation.ok(), forward.simulation.message);
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    const double v = model.value(wrt[k]), h = 1e-5 * std::max(1.0, std::abs(v));
    model.set_value(wrt[k], v + h);
    const auto plus = sb::simulate(model, times, outputs, tight());
    model.set_value(wrt[k], v - h);
    const auto minus = sb::simulate(model, times, outputs, tight());
    model.set_value(wrt[k], v);
    BOOST_REQUIRE(plus.ok() && minus.ok());
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      const double difference = (plus.value(0, j) - minus.value(0, j)) / (2 * h);
      BOOST_CHECK_MESSAGE(std::abs(forward.derivative(0, j, k) - difference) <= 1e-8 * std::max(1.0, std::abs(difference)),
                          wrt[k] << " " << outputs[j].id << ": seed " << forward.derivative(0, j, k) << " differences "
                                 << difference);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sbml_sensitivities)

BOOST_AUTO_TEST_CASE(seed_of_a_nonlinear_initial_assignment_matches_the_closed_form) {
  const sb::Model model = sb::load_string(initial_assignment_model());
  const double k = 1.5, V = 2.0;
  const std::vector<sb::Output> outputs = {{"X", sb::Quantity::amount}, {"Y", sb::Quantity::amount},
                                           {"Y", sb::Quantity::concentration}, {"Z", sb::Quantity::amount},
                                           {"q", sb::Quantity::value}};
  const auto s = sb::simulate_sensitivities(model, {0.0, 1.0}, outputs, {"k", "V", "Z"}, tight());
  BOOST_REQUIRE_MESSAGE(s.simulation.ok(), s.simulation.message);
  // rows: outputs; columns: d/dk, d/dV, d/dZ (Z's declared concentration)
  const double expected[5][3] = {{2 * k * V, k * k, 0.0},
                                 {2 * k * V, k * k, 0.0},
                                 {2 * k, 0.0, 0.0},
                                 {0.0, 0.3, V},
                                 {std::cos(k) * V, std::sin(k), 1.0}};
  for (std::size_t j = 0; j < outputs.size(); ++j)
    for (std::size_t c = 0; c < 3; ++c)
      BOOST_CHECK_MESSAGE(std::abs(s.derivative(0, j, c) - expected[j][c]) <= 1e-14 * std::max(1.0, std::abs(expected[j][c])),
                          outputs[j].id << " column " << c << ": " << s.derivative(0, j, c) << " expected " << expected[j][c]);
}

BOOST_AUTO_TEST_CASE(seed_matches_central_differences_of_the_initial_map) {
  sb::Model model = sb::load_string(initial_assignment_model());
  check_seed_against_differences(model, {{"X", sb::Quantity::amount}, {"Y", sb::Quantity::amount},
                                         {"Y", sb::Quantity::concentration}, {"Z", sb::Quantity::amount},
                                         {"q", sb::Quantity::value}});
  // Suite models with initial assignments, rules and events (none executes at t0).
  for (const std::string id : {"00349", "00405", "00420"}) {
    const std::string file = suite_case(id);
    if (file.empty()) continue;
    BOOST_TEST_CONTEXT("case " << id) {
      sb::Model suite_model = sb::load(file);
      check_seed_against_differences(suite_model, amounts(suite_model));
    }
  }
}


// The seed through an event executed at t0 is exact (the execution over dual numbers).
BOOST_AUTO_TEST_CASE(seed_through_an_event_at_t0_matches_the_closed_form_and_differences) {
  sb::Model model = sb::load_string(event_at_t0_model());
  const double k = 1.5, X0 = 1.5;
  const std::vector<sb::Output> outputs = {{"X", sb::Quantity::amount}, {"w", sb::Quantity::value}};
  const auto s = sb::simulate_sensitivities(model, {0.0, 1.0}, outputs, {"k", "X"}, tight());
  BOOST_REQUIRE_MESSAGE(s.simulation.ok(), s.simulation.message);
  BOOST_REQUIRE_CLOSE(s.simulation.value(0, 0), k * X0 * X0, 1e-12);
  // rows: X+, w+; columns: d/dk, d/dX0
  const double expected[2][2] = {{X0 * X0, 2 * k * X0}, {std::cos(k) * X0, std::sin(k)}};
  for (std::size_t j = 0; j < 2; ++j)
    for (std::size_t c = 0; c < 2; ++c)
      BOOST_CHECK_MESSAGE(std::abs(s.derivative(0, j, c) - expected[j][c]) <= 1e-14 * std::max(1.0, std::abs(expected[j][c])),
                          outputs[j].id << " column " << c << ": " << s.derivative(0, j, c) << " expected " << expected[j][c]);
  check_seed_against_differences(model, outputs);
}

BOOST_AUTO_TEST_CASE(decay_sensitivities_match_the_closed_form) {
  // A' = -k A, A(0) = a: dA/dk = -t a e^{-kt}, dA/da = e^{-kt}
  const sb::Model model = sb::load_string(sbml_text::document(R"(
    <listOfCompartments><compartment id="c" size="1" constant="true"/></listOfCompartments>
    <listOfSpecies><species id="A" compartment="c" initialAmount="3" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/></listOfSpecies>
    <listOfParameters><parameter id="k" value="0.7" constant="true"/></listOfParameters>
    <listOfReactions><reaction id="r" reversible="false">
      <listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
      <kineticLaw>)" + sbml_text::math("<apply><times/><ci>k</ci><ci>A</ci></apply>") + R"(</kineticLaw>
    </reaction></listOfReactions>)"));
  const auto s = sb::simulate_sensitivities(model, {0.0, 1.0, 2.0}, {{"A", sb::Quantity::amount}}, {"k", "A"}, tight());
  BOOST_REQUIRE(s.simulation.ok());
  for (std::size_t i = 0; i < 3; ++i) {
    const double t = s.simulation.times[i], e = std::exp(-0.7 * t);
    BOOST_CHECK_SMALL(s.derivative(i, 0, 0) - (-t * 3.0 * e), 1e-7);
    BOOST_CHECK_SMALL(s.derivative(i, 0, 1) - e, 1e-7);
  }
}

BOOST_AUTO_TEST_CASE(sensitivities_through_events_match_central_differences_and_the_adjoint) {
  // 00349: two state events without delay; 00405 and 00420: events with delays.
  for (const std::string id : {"00349", "00405", "00420"}) {
    const std::string file = suite_case(id);
    if (file.empty()) {
      BOOST_TEST_MESSAGE("SBML Test Suite not found beside the source tree: case " << id << " skipped");
      continue;
    }
    BOOST_TEST_CONTEXT("case " << id) {
      sb::Model model = sb::load(file);
      const std::vector<sb::Output> outputs = amounts(model);
      const std::vector<double> times = {0.0, 0.37, 0.91, 1.63, 2.0};
      std::vector<std::string> wrt = model.parameter_ids();
      wrt.push_back(model.species_ids().front());
      const auto forward = sb::simulate_sensitivities(model, times, outputs, wrt, tight());
      BOOST_REQUIRE_MESSAGE(forward.simulation.ok(), forward.simulation.message);
      for (std::size_t k = 0; k < wrt.size(); ++k) {
        const double v = model.value(wrt[k]), h = 1e-5 * std::max(1.0, std::abs(v));
        model.set_value(wrt[k], v + h);
        const auto plus = sb::simulate(model, times, outputs, tight());
        model.set_value(wrt[k], v - h);
        const auto minus = sb::simulate(model, times, outputs, tight());
        model.set_value(wrt[k], v);
        BOOST_REQUIRE(plus.ok() && minus.ok());
        for (std::size_t i = 0; i < times.size(); ++i)
          for (std::size_t j = 0; j < outputs.size(); ++j) {
            const double difference = (plus.value(i, j) - minus.value(i, j)) / (2 * h);
            BOOST_CHECK_MESSAGE(std::abs(forward.derivative(i, j, k) - difference) <= 1e-6 * std::max(1.0, std::abs(difference)),
                                wrt[k] << " " << outputs[j].id << " t=" << times[i] << ": forward "
                                       << forward.derivative(i, j, k) << " differences " << difference);
          }
      }
      // G = sum of all outputs at all times, weights 1..n: the adjoint equals the forward.
      std::vector<double> weights(times.size() * outputs.size());
      for (std::size_t w = 0; w < weights.size(); ++w) weights[w] = 1.0 + 0.1 * static_cast<double>(w);
      sb::SimulationOptions same_steps = tight();
      same_steps.sensitivity_error_control = false;
      const auto on_the_adjoint_steps = sb::simulate_sensitivities(model, times, outputs, wrt, same_steps);
      BOOST_REQUIRE(on_the_adjoint_steps.simulation.ok());
      const auto adjoint = sb::adjoint_gradient(model, times, outputs, weights, wrt, tight());
      BOOST_REQUIRE_MESSAGE(adjoint.ok(), adjoint.message);
      for (std::size_t k = 0; k < wrt.size(); ++k) {
        double from_forward = 0.0;
        for (std::size_t i = 0; i < times.size(); ++i)
          for (std::size_t j = 0; j < outputs.size(); ++j)
            from_forward += weights[i * outputs.size() + j] * on_the_adjoint_steps.derivative(i, j, k);
        BOOST_CHECK_MESSAGE(std::abs(adjoint.gradient[k] - from_forward) <= 1e-12 * std::max(1.0, std::abs(from_forward)),
                            wrt[k] << ": adjoint " << adjoint.gradient[k] << " forward " << from_forward << " difference " << adjoint.gradient[k] - from_forward);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
