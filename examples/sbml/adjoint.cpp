// Adjoint gradients of an SBML model with many parameters (doc/sbml.md, doc/adjoint-guide.md):
// a signalling cascade of N species S0 -> S1 -> ... -> S(N-1) -> (degradation), each step
// saturable (v_i = k_i S_i / (K_i + S_i)), fed by a constant input and a pulse that an event
// switches on at t = 2 and off at t = 4: 2N + 1 parameters (k_i, K_i and the pulse height).
// The objective is G = sum over 21 output times of the last species' concentration (its
// area, roughly); its gradient with respect to every parameter comes from one hybrid adjoint
// sweep, and is checked against the forward sensitivities of all 2N + 1 parameters contracted
// with the same weights: from an independent run under the sensitivities' own error control
// (agreement to the tolerance), and on the adjoint's steps (agreement to rounding).
//
//     sbml_adjoint [--species N]         (default N = 40: 81 parameters)
//
// Prints the gradients' largest entries, their largest relative differences and the run times
// (information only); "CHECK PASSED" (exit 0) when the independent forward run agrees within
// 1e-6 and the one on the adjoint's steps within 1e-12 of the gradient's size (rtol 1e-10).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/example_support.hpp"
#include "esdirk/sbml/sbml.hpp"

namespace sbml = esdirk::sbml;

const char* const usage =
    "usage: sbml_adjoint [--species N]\n"
    "\n"
    "Gradient of a cascade of N species (2N + 1 parameters, default N = 40) with a pulse event:\n"
    "hybrid adjoint against forward sensitivities.\n"
    "\n"
    "  --species N  species in the cascade (2..500)\n"
    "  --help       this text\n";

namespace {

std::string mathml(const std::string& body) {
  return "<math xmlns=\"http://www.w3.org/1998/Math/MathML\">" + body + "</math>";
}

std::string ci(const std::string& id) { return "<ci> " + id + " </ci>"; }

// The SBML Level 3 Version 2 document of the cascade.
std::string cascade_model(int n) {
  std::string species, parameters, reactions;
  for (int i = 0; i < n; ++i) {
    const std::string s = "S" + std::to_string(i), k = "k" + std::to_string(i),
                      K = "K" + std::to_string(i);
    species +=
        "<species id=\"" + s + "\" compartment=\"cell\" initialConcentration=\"" +
        (i == 0 ? "1" : "0") +
        "\" hasOnlySubstanceUnits=\"false\" boundaryCondition=\"false\" constant=\"false\"/>\n";
    // Rates spread over a decade, so the parameters matter unequally.
    parameters += "<parameter id=\"" + k + "\" value=\"" + std::to_string(1.0 + 0.5 * std::sin(i)) +
                  "\" constant=\"true\"/>\n<parameter id=\"" + K + "\" value=\"" +
                  std::to_string(0.5 + 0.25 * std::cos(i)) + "\" constant=\"true\"/>\n";
    const std::string product =
        i + 1 < n ? "<listOfProducts><speciesReference species=\"S" + std::to_string(i + 1) +
                        "\" stoichiometry=\"1\" constant=\"true\"/></listOfProducts>"
                  : "";
    reactions += "<reaction id=\"v" + std::to_string(i) +
                 "\" reversible=\"false\"><listOfReactants><speciesReference species=\"" + s +
                 "\" stoichiometry=\"1\" constant=\"true\"/></listOfReactants>" + product +
                 "<kineticLaw>" +
                 mathml("<apply><divide/><apply><times/>" + ci("cell") + ci(k) + ci(s) +
                        "</apply><apply><plus/>" + ci(K) + ci(s) + "</apply></apply>") +
                 "</kineticLaw></reaction>\n";
  }
  // The input: 0.2 always, plus `pulse` while `on` is 1 (switched by two events).
  reactions +=
      "<reaction id=\"input\" reversible=\"false\"><listOfProducts><speciesReference "
      "species=\"S0\" stoichiometry=\"1\" constant=\"true\"/></listOfProducts><kineticLaw>" +
      mathml("<apply><times/>" + ci("cell") + "<apply><plus/><cn> 0.2 </cn><apply><times/>" +
             ci("pulse") + ci("on") + "</apply></apply></apply>") +
      "</kineticLaw></reaction>\n";
  const auto time_event = [](const std::string& id, double at, double value) {
    return "<event id=\"" + id +
           "\" useValuesFromTriggerTime=\"true\"><trigger initialValue=\"false\" "
           "persistent=\"true\">" +
           mathml(
               "<apply><geq/><csymbol encoding=\"text\" "
               "definitionURL=\"http://www.sbml.org/sbml/symbols/time\"> t </csymbol><cn> " +
               std::to_string(at) + " </cn></apply>") +
           "</trigger><listOfEventAssignments><eventAssignment variable=\"on\">" +
           mathml("<cn> " + std::to_string(value) + " </cn>") +
           "</eventAssignment></listOfEventAssignments></event>\n";
  };
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<sbml xmlns=\"http://www.sbml.org/sbml/level3/version2/core\" level=\"3\" "
         "version=\"2\">\n"
         "<model id=\"cascade\">\n"
         "<listOfCompartments><compartment id=\"cell\" spatialDimensions=\"3\" size=\"1\" "
         "constant=\"true\"/></listOfCompartments>\n<listOfSpecies>\n" +
         species + "</listOfSpecies>\n<listOfParameters>\n" + parameters +
         "<parameter id=\"pulse\" value=\"1.5\" constant=\"true\"/>\n"
         "<parameter id=\"on\" value=\"0\" constant=\"false\"/>\n</listOfParameters>\n"
         "<listOfReactions>\n" +
         reactions + "</listOfReactions>\n<listOfEvents>\n" + time_event("pulse_on", 2.0, 1.0) +
         time_event("pulse_off", 4.0, 0.0) + "</listOfEvents>\n</model>\n</sbml>\n";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  int n = 40;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--species") && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n%s", argv[i], usage);
      return 2;
    }
  }
  if (n < 2 || n > 500) {
    std::fprintf(stderr, "--species takes 2..500\n");
    return 2;
  }
  bool passed = true;
  try {
    const sbml::Model model = sbml::load_string(cascade_model(n));
    std::vector<std::string> parameters;
    for (const std::string& id : model.parameter_ids())
      if (id != "cell") parameters.push_back(id);  // the compartment's size is a parameter too
    std::vector<double> times;
    for (int i = 0; i <= 20; ++i) times.push_back(0.5 * i);
    const std::vector<sbml::Output> outputs{
        {"S" + std::to_string(n - 1), sbml::Quantity::concentration}};
    const std::vector<double> weights(times.size(), 1.0);
    sbml::SimulationOptions options;
    options.relative_tolerance = 1e-10;
    options.absolute_tolerance = 1e-12;

    auto start = std::chrono::steady_clock::now();
    const sbml::Gradient adjoint =
        sbml::adjoint_gradient(model, times, outputs, weights, parameters, options);
    const double adjoint_seconds = seconds_since(start);
    if (!adjoint.ok()) throw std::runtime_error("adjoint: " + adjoint.message);

    // The forward sensitivities twice: under their own error control (an independent run, to
    // the tolerance) and on the steps the states take alone, which are the adjoint's steps
    // (the same discrete scheme differentiated both ways: agreement to rounding).
    struct Forward {
      const char* name;
      bool error_control;
      std::vector<double> gradient;
      double value = 0, seconds = 0;
    };
    Forward forwards[2] = {{"forward (own error control)", true, {}},
                           {"forward (adjoint's steps)", false, {}}};
    for (Forward& f : forwards) {
      sbml::SimulationOptions o = options;
      o.sensitivity_error_control = f.error_control;
      start = std::chrono::steady_clock::now();
      const sbml::Sensitivities run =
          sbml::simulate_sensitivities(model, times, outputs, parameters, o);
      f.seconds = seconds_since(start);
      if (!run.simulation.ok()) throw std::runtime_error("forward: " + run.simulation.message);
      // dG/dp_k = sum_i w_i dS_last(t_i)/dp_k.
      f.gradient.assign(parameters.size(), 0.0);
      for (std::size_t i = 0; i < times.size(); ++i) {
        f.value += weights[i] * run.simulation.value(i, 0);
        for (std::size_t k = 0; k < parameters.size(); ++k)
          f.gradient[k] += weights[i] * run.derivative(i, 0, k);
      }
    }
    std::printf("cascade of %d species, %zu parameters, %zu output times, 2 events, rtol %g\n", n,
                parameters.size(), times.size(), options.relative_tolerance);
    std::printf("G = %.12g (adjoint run) / %.12g (forward run)\n", adjoint.value,
                forwards[1].value);
    const std::vector<double>& reference = forwards[0].gradient;
    std::size_t largest = 0;
    for (std::size_t k = 0; k < parameters.size(); ++k)
      if (std::fabs(reference[k]) > std::fabs(reference[largest])) largest = k;
    for (const std::string& id : {parameters[largest], std::string("pulse"), std::string("k0")}) {
      const auto k = static_cast<std::size_t>(std::find(parameters.begin(), parameters.end(), id) -
                                              parameters.begin());
      std::printf(
          "dG/d%-6s = %.12g (adjoint) / %.12g / %.12g (forward: own control / adjoint's steps)\n",
          id.c_str(), adjoint.gradient[k], forwards[0].gradient[k], forwards[1].gradient[k]);
    }
    double scale = 0;
    for (double g : reference) scale = std::max(scale, std::fabs(g));
    double relative[2] = {0, 0};
    for (int f = 0; f < 2; ++f) {
      for (std::size_t k = 0; k < parameters.size(); ++k)
        relative[f] =
            std::max(relative[f], std::fabs(adjoint.gradient[k] - forwards[f].gradient[k]) / scale);
      std::printf("max |adjoint - %s| / max |gradient| = %.2e\n", forwards[f].name, relative[f]);
    }
    std::printf("time: adjoint %.3f s, forward sensitivities %.3f s (%zu directions)\n",
                adjoint_seconds, forwards[0].seconds, parameters.size());
    // The independent run agrees to the integration tolerance, the same steps to rounding.
    if (!(relative[0] < 1e-6) || !(relative[1] < 1e-12) ||
        !(std::fabs(adjoint.value - forwards[1].value) <= 1e-12 * std::fabs(forwards[1].value)))
      passed = false;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    passed = false;
  }
  std::printf("%s\n", passed ? "CHECK PASSED" : "CHECK FAILED");
  return passed ? 0 : 1;
}
