// The compiled model's callbacks allocate nothing: f and g, the Jacobians, the event functions
// and their rows, and SBML's event execution (transition, parameter reset and their exact
// Jacobians) with a delayed event and priorities.
#define BOOST_TEST_MODULE esdirk sbml allocation
#include <boost/test/unit_test.hpp>

#include "counting_new.hpp"
#include "esdirk/matrix.hpp"
#include "esdirk/sbml/sbml.hpp"
#include "sbml_text.hpp"

namespace sb = esdirk::sbml;
using sbml_text::math;

BOOST_AUTO_TEST_CASE(model_callbacks_and_event_execution_do_not_allocate) {
  const std::string delay = "<delay>" + math("<cn>0.5</cn>") + "</delay>";
  const std::string xml = sbml_text::document(R"(
    <listOfCompartments><compartment id="c" size="2" constant="true"/></listOfCompartments>
    <listOfSpecies><species id="A" compartment="c" initialConcentration="3" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
    <listOfParameters><parameter id="k" value="0.7" constant="true"/><parameter id="y" value="0" constant="false"/></listOfParameters>
    <listOfReactions><reaction id="r" reversible="false">
      <listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
      <kineticLaw>)" + math("<apply><times/><ci>k</ci><ci>A</ci><ci>c</ci></apply>") + R"(</kineticLaw>
    </reaction></listOfReactions>
    <listOfEvents>
      <event id="e1" useValuesFromTriggerTime="true"><trigger initialValue="true" persistent="true">)" +
                                              math("<apply><lt/><ci>A</ci><cn>1</cn></apply>") + "</trigger>" + delay +
                                              "<priority>" + math("<cn>2</cn>") + R"(</priority>
        <listOfEventAssignments><eventAssignment variable="y">)" + math("<ci>A</ci>") + R"(</eventAssignment></listOfEventAssignments></event>
      <event id="e2" useValuesFromTriggerTime="false"><trigger initialValue="true" persistent="false">)" +
                                              math("<apply><lt/><ci>A</ci><cn>1</cn></apply>") + "</trigger><priority>" + math("<cn>1</cn>") + R"(</priority>
        <listOfEventAssignments><eventAssignment variable="A">)" + math("<cn>3</cn>") + R"(</eventAssignment></listOfEventAssignments></event>
    </listOfEvents>)");
  sb::Model model = sb::load_string(xml);
  esdirk::HybridProblem& problem = model.problem();
  const int nx = problem.nx(), np = problem.np(), ne = problem.event_count();
  std::vector<double> x(static_cast<std::size_t>(nx), 0.9), p(static_cast<std::size_t>(np), 0.0), f(x), h(static_cast<std::size_t>(ne));
  for (int i = 0; i < np; ++i) {
    const std::string& name = model.problem_parameter_names()[static_cast<std::size_t>(i)];
    if (name == "c") p[static_cast<std::size_t>(i)] = 2.0;
    if (name == "k") p[static_cast<std::size_t>(i)] = 0.7;
    if (name.find(":time") != std::string::npos) p[static_cast<std::size_t>(i)] = 1e300;  // free slots
  }
  std::vector<double> row(static_cast<std::size_t>(1 + nx + np)), x_plus(x), p_plus(p);
  std::vector<int> fired(static_cast<std::size_t>(ne), 0);
  fired[0] = fired[1] = 1;
  const esdirk::TransitionCause cause{fired, -1};
  esdirk::DenseMatrix J(nx, nx), Jp(nx, np), D(nx, 1 + nx + np), E(np, 1 + nx + np);
  int mode = 0;
  counting_new::allocations = 0;
  counting_new::enabled = true;
  problem.evaluate(0, 0.1, x, {}, p, {}, f, {});
  problem.jacobian(0, 0.1, x, {}, p, {}, J.ref());
  problem.parameter_jacobian(0, 0.1, x, {}, p, {}, Jp.ref());
  problem.events(0, 0.1, x, {}, p, {}, h);
  problem.event_jacobian(0, 0, 0.1, x, {}, p, {}, row);
  const int transition = problem.transition(0, cause, 0.1, x, {}, p, {}, mode, x_plus);
  const int reset = problem.reset_parameters(0, cause, 0.1, x, {}, p, {}, p_plus);
  const int reset_jacobian = problem.reset_jacobian(0, cause, 0.1, x, {}, p, {}, D.ref());
  const int parameter_reset_jacobian = problem.parameter_reset_jacobian(0, cause, 0.1, x, {}, p, {}, E.ref());
  counting_new::enabled = false;
  BOOST_CHECK_EQUAL(transition, 0);
  BOOST_CHECK_EQUAL(reset, 0);
  BOOST_CHECK_EQUAL(reset_jacobian, 0);
  BOOST_CHECK_EQUAL(parameter_reset_jacobian, 0);
  BOOST_CHECK_EQUAL(counting_new::allocations, 0);
  BOOST_CHECK_EQUAL(x_plus[0], 3.0 * 2.0);  // e2 ran: A = 3 (concentration) in c = 2
}
