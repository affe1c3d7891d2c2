// The exact reset Jacobians (SBML's event execution over dual numbers: D = dx+/d(t, x, p) and
// E = dp+/d(t, x, p)) against central differences of the transition and the parameter reset
// themselves, at a firing (priorities, assignments depending on x and p, a delayed event that
// stores its values at trigger time) and when that delayed execution falls due.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "esdirk/matrix.hpp"
#include "esdirk/sbml/sbml.hpp"
#include "sbml_text.hpp"

namespace sb = esdirk::sbml;
using sbml_text::math;

namespace {

std::string assignment(const std::string& variable, const std::string& content) {
  return "<eventAssignment variable=\"" + variable + "\">" + math(content) + "</eventAssignment>";
}

// Three events on one trigger A < 1: e3 (priority 5) and e2 (priority 1) execute at once, e1
// (priority 2) after a delay k with the values of the trigger time.
std::string model_text() {
  const std::string trigger = "<trigger initialValue=\"true\" persistent=\"true\">" +
                              math("<apply><lt/><ci>A</ci><cn>1</cn></apply>") + "</trigger>";
  auto priority = [](const char* value) { return "<priority>" + math(std::string("<cn>") + value + "</cn>") + "</priority>"; };
  return sbml_text::document(R"(
    <listOfCompartments><compartment id="c" size="2" constant="true"/></listOfCompartments>
    <listOfSpecies>
      <species id="A" compartment="c" initialConcentration="3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
      <species id="B" compartment="c" initialAmount="0.5" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>
    </listOfSpecies>
    <listOfParameters>
      <parameter id="k" value="0.7" constant="true"/><parameter id="q" value="0.4" constant="true"/>
      <parameter id="y" value="0.2" constant="false"/>
    </listOfParameters>
    <listOfReactions><reaction id="r" reversible="false">
      <listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
      <kineticLaw>)" + math("<apply><times/><ci>k</ci><ci>A</ci><ci>c</ci></apply>") + R"(</kineticLaw>
    </reaction></listOfReactions>
    <listOfEvents>
      <event id="e1" useValuesFromTriggerTime="true">)" + trigger + "<delay>" + math("<ci>k</ci>") + "</delay>" + priority("2") +
                              "<listOfEventAssignments>" +
                              assignment("y", "<apply><times/><ci>A</ci><ci>k</ci><ci>q</ci></apply>") +
                              assignment("B", "<apply><times/><ci>q</ci><ci>A</ci><ci>A</ci></apply>") +
                              R"(</listOfEventAssignments></event>
      <event id="e2" useValuesFromTriggerTime="false">)" + trigger + priority("1") + "<listOfEventAssignments>" +
                              assignment("A", "<apply><plus/><apply><times/><cn>3</cn><ci>q</ci></apply><ci>y</ci></apply>") +
                              R"(</listOfEventAssignments></event>
      <event id="e3" useValuesFromTriggerTime="false">)" + trigger + priority("5") + "<listOfEventAssignments>" +
                              assignment("B", "<apply><plus/><apply><times/><ci>B</ci><ci>k</ci></apply><ci>A</ci></apply>") +
                              assignment("y", "<apply><plus/><ci>y</ci><apply><times/><ci>q</ci><ci>B</ci></apply></apply>") +
                              R"(</listOfEventAssignments></event>
    </listOfEvents>)");
}

// D and E at (t, x, p) against central differences of transition() and reset_parameters() along
// t, every x and every parameter but the latches and the free pending slots (piecewise constant
// flags: the execution does not differ there). Returns the number of columns compared.
int check_against_differences(esdirk::HybridProblem& problem, const std::vector<std::string>& p_names,
                              const esdirk::TransitionCause& cause, double t, std::vector<double> x,
                              std::vector<double> p) {
  const int nx = problem.nx(), np = problem.np(), n = 1 + nx + np;
  esdirk::DenseMatrix D(nx, n), E(np, n);
  BOOST_REQUIRE_EQUAL(problem.reset_jacobian(0, cause, t, x, {}, p, {}, D.ref()), 0);
  BOOST_REQUIRE_EQUAL(problem.parameter_reset_jacobian(0, cause, t, x, {}, p, {}, E.ref()), 0);
  std::vector<double> xp(x), xm(x), pp(p), pm(p);
  int mode = 0, compared = 0;
  for (int j = 0; j < n; ++j) {
    double* input = j == 0 ? &t : j <= nx ? &x[static_cast<std::size_t>(j - 1)] : &p[static_cast<std::size_t>(j - 1 - nx)];
    if (j > nx) {
      const std::string& name = p_names[static_cast<std::size_t>(j - 1 - nx)];
      if (name.rfind("#latch:", 0) == 0 || *input >= 1e299) continue;
    }
    const double keep = *input, h = 1e-6 * std::max(1.0, std::abs(keep));
    *input = keep + h;
    xp = x, pp = p;
    BOOST_REQUIRE_EQUAL(problem.transition(0, cause, t, x, {}, p, {}, mode, xp), 0);
    BOOST_REQUIRE_EQUAL(problem.reset_parameters(0, cause, t, x, {}, p, {}, pp), 0);
    *input = keep - h;
    xm = x, pm = p;
    BOOST_REQUIRE_EQUAL(problem.transition(0, cause, t, x, {}, p, {}, mode, xm), 0);
    BOOST_REQUIRE_EQUAL(problem.reset_parameters(0, cause, t, x, {}, p, {}, pm), 0);
    *input = keep;
    BOOST_TEST_CONTEXT("input " << j) {
      for (int i = 0; i < nx; ++i) {
        const double d = (xp[static_cast<std::size_t>(i)] - xm[static_cast<std::size_t>(i)]) / (2 * h);
        BOOST_CHECK_SMALL(D(i, j) - d, 1e-8 * std::max(1.0, std::abs(d)));
      }
      for (int i = 0; i < np; ++i) {
        const double d = (pp[static_cast<std::size_t>(i)] - pm[static_cast<std::size_t>(i)]) / (2 * h);
        BOOST_CHECK_SMALL(E(i, j) - d, 1e-8 * std::max(1.0, std::abs(d)));
      }
    }
    ++compared;
  }
  return compared;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sbml_reset_jacobians)

BOOST_AUTO_TEST_CASE(exact_reset_jacobians_match_central_differences_of_the_transition) {
  sb::Model model = sb::load_string(model_text());
  esdirk::HybridProblem& problem = model.problem();
  BOOST_REQUIRE(problem.has_reset_jacobian() && problem.has_parameter_reset_jacobian());
  const std::vector<std::string>& names = model.problem_parameter_names();
  const int nx = problem.nx(), np = problem.np(), ne = problem.event_count();
  std::vector<double> x(static_cast<std::size_t>(nx)), p(static_cast<std::size_t>(np), 0.0);
  for (int i = 0; i < nx; ++i) x[static_cast<std::size_t>(i)] = model.state_names()[static_cast<std::size_t>(i)] == "A" ? 1.98 : 0.6;
  for (int i = 0; i < np; ++i) {
    const std::string& name = names[static_cast<std::size_t>(i)];
    double& v = p[static_cast<std::size_t>(i)];
    v = name == "c" ? 2.0 : name == "k" ? 0.7 : name == "q" ? 0.4 : name == "y" ? 0.2 : 0.0;
    if (name.find(":time") != std::string::npos) v = 1e300;  // free slots; latches off
  }
  // The trigger crosses at t = 0.3 (the timers of the free slots are near -1e300).
  const double t = 0.3;
  std::vector<double> h(static_cast<std::size_t>(ne));
  problem.events(0, t, x, {}, p, {}, h);
  std::vector<int> fired(static_cast<std::size_t>(ne), 0);
  for (int k = 0; k < ne; ++k) fired[static_cast<std::size_t>(k)] = std::abs(h[static_cast<std::size_t>(k)]) < 1e200 ? 1 : 0;
  const esdirk::TransitionCause firing{fired, -1};
  const int at_firing = check_against_differences(problem, names, firing, t, x, p);
  BOOST_CHECK_GE(at_firing, 1 + nx + 4);  // t, x, c k q y and the values of the free slots

  // The state after the firing: e3 then e2 ran, e1 is pending at t + k with its values.
  std::vector<double> x1(x), p1(p);
  int mode = 0;
  BOOST_REQUIRE_EQUAL(problem.transition(0, firing, t, x, {}, p, {}, mode, x1), 0);
  BOOST_REQUIRE_EQUAL(problem.reset_parameters(0, firing, t, x, {}, p, {}, p1), 0);
  const double due = t + 0.7;
  problem.events(0, due, x1, {}, p1, {}, h);
  std::vector<int> timer(static_cast<std::size_t>(ne), 0);
  int timers = 0;
  for (int k = 0; k < ne; ++k)
    if (std::abs(h[static_cast<std::size_t>(k)]) < 1e-9) timer[static_cast<std::size_t>(k)] = 1, ++timers;
  BOOST_REQUIRE_EQUAL(timers, 1);
  const esdirk::TransitionCause falls_due{timer, -1};
  check_against_differences(problem, names, falls_due, due, x1, p1);
  // There, B is the value e1 stored: dB+/d(stored B) = 1.
  esdirk::DenseMatrix D(nx, 1 + nx + np);
  BOOST_REQUIRE_EQUAL(problem.reset_jacobian(0, falls_due, due, x1, {}, p1, {}, D.ref()), 0);
  int b = 0, stored = -1;
  while (model.state_names()[static_cast<std::size_t>(b)] != "B") ++b;
  for (int i = 0; i < np; ++i)
    if (names[static_cast<std::size_t>(i)] == "#pending:e1:0:value1") stored = i;
  BOOST_REQUIRE_GE(stored, 0);
  BOOST_CHECK_EQUAL(D(b, 1 + nx + stored), 1.0);
}

BOOST_AUTO_TEST_SUITE_END()
