// The compiled programs' exact derivatives (forward mode over the same instructions) against
// central differences of the compiled values: J, the parameter Jacobian and the event rows.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "esdirk/matrix.hpp"
#include "esdirk/sbml/sbml.hpp"
#include "sbml_text.hpp"

namespace sb = esdirk::sbml;
using sbml_text::document;
using sbml_text::math;

namespace {

// Michaelis-Menten with a piecewise, a function definition, an assignment rule, a compartment
// with a rate rule and an event on a state.
std::string nonlinear_model() {
  return document(R"(
    <listOfFunctionDefinitions><functionDefinition id="mm">)" +
                  math("<lambda><bvar><ci>s</ci></bvar><bvar><ci>v</ci></bvar><bvar><ci>k</ci></bvar>"
                       "<apply><divide/><apply><times/><ci>v</ci><ci>s</ci></apply><apply><plus/><ci>k</ci><ci>s</ci></apply></apply></lambda>") +
                  R"(</functionDefinition></listOfFunctionDefinitions>
    <listOfCompartments><compartment id="c" size="1.5" constant="false"/></listOfCompartments>
    <listOfSpecies>
      <species id="S" compartment="c" initialConcentration="2" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
      <species id="P" compartment="c" initialConcentration="0.5" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
    </listOfSpecies>
    <listOfParameters>
      <parameter id="vmax" value="1.3" constant="true"/>
      <parameter id="km" value="0.4" constant="true"/>
      <parameter id="g" constant="false"/>
    </listOfParameters>
    <listOfRules>
      <rateRule variable="c">)" + math("<apply><times/><cn>0.1</cn><apply><sin/><ci>P</ci></apply></apply>") + R"(</rateRule>
      <assignmentRule variable="g">)" + math("<piecewise><piece><apply><exp/><ci>S</ci></apply><apply><gt/><ci>S</ci><cn>1</cn></apply></piece><otherwise><apply><power/><ci>S</ci><cn>3</cn></apply></otherwise></piecewise>") + R"(</assignmentRule>
    </listOfRules>
    <listOfReactions><reaction id="r" reversible="false">
      <listOfReactants><speciesReference species="S" stoichiometry="1" constant="true"/></listOfReactants>
      <listOfProducts><speciesReference species="P" stoichiometry="2" constant="true"/></listOfProducts>
      <kineticLaw>)" + math("<apply><times/><ci>c</ci><apply><ci>mm</ci><ci>S</ci><ci>vmax</ci><ci>km</ci></apply><apply><ln/><ci>g</ci></apply></apply>") + R"(</kineticLaw>
    </reaction></listOfReactions>
    <listOfEvents><event id="e" useValuesFromTriggerTime="true">
      <trigger initialValue="true" persistent="true">)" + math("<apply><lt/><apply><times/><ci>S</ci><ci>vmax</ci></apply><ci>P</ci></apply>") + R"(</trigger>
      <listOfEventAssignments><eventAssignment variable="S">)" + math("<cn>2</cn>") + R"(</eventAssignment></listOfEventAssignments>
    </event></listOfEvents>)");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sbml_derivatives)

BOOST_AUTO_TEST_CASE(exact_jacobians_match_central_differences) {
  sb::Model model = sb::load_string(nonlinear_model());
  esdirk::HybridProblem& problem = model.problem();
  const int nx = problem.nx(), np = problem.np(), n = nx + problem.nz();
  BOOST_REQUIRE(problem.has_jacobian() && problem.has_parameter_jacobian() && problem.has_event_jacobian());
  std::vector<double> x(static_cast<std::size_t>(nx)), p(static_cast<std::size_t>(np));
  for (int i = 0; i < nx; ++i) x[static_cast<std::size_t>(i)] = 0.7 + 0.3 * i;
  for (int i = 0; i < np; ++i) p[static_cast<std::size_t>(i)] = 0.9 + 0.2 * i;
  const double t = 0.3;
  esdirk::DenseMatrix J(n, n), Jp(n, np);
  BOOST_REQUIRE_EQUAL(problem.jacobian(0, t, x, {}, p, {}, J.ref()), 0);
  BOOST_REQUIRE_EQUAL(problem.parameter_jacobian(0, t, x, {}, p, {}, Jp.ref()), 0);
  std::vector<double> fp(static_cast<std::size_t>(nx)), fm(fp);
  auto column = [&](std::vector<double>& v, int j, auto&& check) {
    const double keep = v[static_cast<std::size_t>(j)], h = 1e-6 * std::max(1.0, std::abs(keep));
    v[static_cast<std::size_t>(j)] = keep + h;
    problem.evaluate(0, t, x, {}, p, {}, fp, {});
    v[static_cast<std::size_t>(j)] = keep - h;
    problem.evaluate(0, t, x, {}, p, {}, fm, {});
    v[static_cast<std::size_t>(j)] = keep;
    for (int i = 0; i < nx; ++i) check(i, (fp[static_cast<std::size_t>(i)] - fm[static_cast<std::size_t>(i)]) / (2 * h));
  };
  for (int j = 0; j < nx; ++j)
    column(x, j, [&](int i, double d) { BOOST_CHECK_SMALL(J(i, j) - d, 1e-7 * std::max(1.0, std::abs(d))); });
  for (int j = 0; j < np; ++j)
    column(p, j, [&](int i, double d) { BOOST_CHECK_SMALL(Jp(i, j) - d, 1e-7 * std::max(1.0, std::abs(d))); });
  // The event's row [h_t, h_x, h_p].
  std::vector<double> row(static_cast<std::size_t>(1 + n + np)), hp(static_cast<std::size_t>(problem.event_count())), hm(hp);
  BOOST_REQUIRE_EQUAL(problem.event_jacobian(0, 0, t, x, {}, p, {}, row), 0);
  for (int j = 0; j < nx; ++j) {
    const double keep = x[static_cast<std::size_t>(j)], h = 1e-6;
    x[static_cast<std::size_t>(j)] = keep + h;
    problem.events(0, t, x, {}, p, {}, hp);
    x[static_cast<std::size_t>(j)] = keep - h;
    problem.events(0, t, x, {}, p, {}, hm);
    x[static_cast<std::size_t>(j)] = keep;
    BOOST_CHECK_SMALL(row[static_cast<std::size_t>(1 + j)] - (hp[0] - hm[0]) / (2 * h), 1e-7);
  }
}

BOOST_AUTO_TEST_SUITE_END()
