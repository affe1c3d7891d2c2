// Small models against closed forms: first-order decay in amount and in concentration, a
// compartment that grows (concentrations dilute, amounts stay), an assignment rule, an
// algebraic rule, events with delay and with priority.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "esdirk/sbml/sbml.hpp"
#include "sbml_text.hpp"

namespace sb = esdirk::sbml;
using sbml_text::document;
using sbml_text::math;

namespace {

// A -> (k) in compartment c of size 2; A starts at 3 (amount or concentration).
std::string decay(const std::string& species_attributes) {
  return document(R"(
    <listOfCompartments><compartment id="c" size="2" constant="true"/></listOfCompartments>
    <listOfSpecies><species id="A" compartment="c" )" + species_attributes + R"( boundaryCondition="false" constant="false"/></listOfSpecies>
    <listOfParameters><parameter id="k" value="0.7" constant="true"/></listOfParameters>
    <listOfReactions><reaction id="r" reversible="false">
      <listOfReactants><speciesReference species="A" stoichiometry="1" constant="true"/></listOfReactants>
      <kineticLaw>)" + math("<apply><times/><ci>k</ci><ci>A</ci><ci>c</ci></apply>") + R"(</kineticLaw>
    </reaction></listOfReactions>)");
}

sb::SimulationOptions tight() {
  sb::SimulationOptions o;
  o.relative_tolerance = 1e-10;
  o.absolute_tolerance = 1e-12;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sbml_closed_forms)

BOOST_AUTO_TEST_CASE(decay_of_a_concentration_is_exponential_in_amount_and_concentration) {
  // rate = k [A] c: d[A]/dt = -k [A], amount = 2 [A]
  const sb::Model model = sb::load_string(decay(R"(initialConcentration="3" hasOnlySubstanceUnits="false")"));
  const auto run = sb::simulate(model, {0.0, 1.0, 2.5},
                                {{"A", sb::Quantity::concentration}, {"A", sb::Quantity::amount}}, tight());
  BOOST_REQUIRE(run.ok());
  for (std::size_t i = 0; i < run.times.size(); ++i) {
    const double exact = 3.0 * std::exp(-0.7 * run.times[i]);
    BOOST_CHECK_CLOSE(run.value(i, 0), exact, 1e-6);
    BOOST_CHECK_CLOSE(run.value(i, 1), 2.0 * exact, 1e-6);
  }
}

BOOST_AUTO_TEST_CASE(decay_of_an_amount_with_only_substance_units) {
  // hasOnlySubstanceUnits: A in math is the amount, rate = k A c: dA/dt = -2 k A
  const sb::Model model = sb::load_string(decay(R"(initialAmount="3" hasOnlySubstanceUnits="true")"));
  const auto run = sb::simulate(model, {0.0, 1.0}, {{"A", sb::Quantity::amount}, {"A", sb::Quantity::value}}, tight());
  BOOST_REQUIRE(run.ok());
  BOOST_CHECK_CLOSE(run.value(1, 0), 3.0 * std::exp(-1.4), 1e-6);
  BOOST_CHECK_CLOSE(run.value(1, 1), 3.0 * std::exp(-1.4), 1e-6);
}

BOOST_AUTO_TEST_CASE(a_growing_compartment_dilutes_concentrations_and_keeps_amounts) {
  // dc/dt = 1 from c = 1; A (amount 4) in c without reactions: [A] = 4 / (1 + t).
  const sb::Model model = sb::load_string(document(R"(
    <listOfCompartments><compartment id="c" size="1" constant="false"/></listOfCompartments>
    <listOfSpecies><species id="A" compartment="c" initialAmount="4" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
    <listOfRules><rateRule variable="c">)" + math("<cn>1</cn>") + R"(</rateRule></listOfRules>)"));
  const auto run = sb::simulate(model, {0.0, 3.0},
                                {{"A", sb::Quantity::concentration}, {"A", sb::Quantity::amount}, {"c", sb::Quantity::value}},
                                tight());
  BOOST_REQUIRE(run.ok());
  BOOST_CHECK_CLOSE(run.value(1, 0), 1.0, 1e-8);
  BOOST_CHECK_CLOSE(run.value(1, 1), 4.0, 1e-8);
  BOOST_CHECK_CLOSE(run.value(1, 2), 4.0, 1e-8);
}

BOOST_AUTO_TEST_CASE(an_assignment_rule_follows_the_state) {
  // dx/dt = -x, y = 2 x + t
  const sb::Model model = sb::load_string(document(R"(
    <listOfParameters><parameter id="x" value="1" constant="false"/><parameter id="y" constant="false"/></listOfParameters>
    <listOfRules>
      <rateRule variable="x">)" + math("<apply><minus/><ci>x</ci></apply>") + R"(</rateRule>
      <assignmentRule variable="y">)" + math(R"(<apply><plus/><apply><times/><cn>2</cn><ci>x</ci></apply><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol></apply>)") + R"(</assignmentRule>
    </listOfRules>)"));
  const auto run = sb::simulate(model, {0.0, 2.0}, {{"y", sb::Quantity::value}}, tight());
  BOOST_REQUIRE(run.ok());
  BOOST_CHECK_CLOSE(run.value(0, 0), 2.0, 1e-10);
  BOOST_CHECK_CLOSE(run.value(1, 0), 2.0 * std::exp(-2.0) + 2.0, 1e-7);
}

BOOST_AUTO_TEST_CASE(an_algebraic_rule_is_an_algebraic_equation) {
  // dx/dt = -x, 0 = y - x^2 (y determined by the algebraic rule)
  const sb::Model model = sb::load_string(document(R"(
    <listOfParameters><parameter id="x" value="2" constant="false"/><parameter id="y" value="0" constant="false"/></listOfParameters>
    <listOfRules>
      <rateRule variable="x">)" + math("<apply><minus/><ci>x</ci></apply>") + R"(</rateRule>
      <algebraicRule>)" + math("<apply><minus/><ci>y</ci><apply><power/><ci>x</ci><cn>2</cn></apply></apply>") + R"(</algebraicRule>
    </listOfRules>)"));
  const auto run = sb::simulate(model, {0.0, 1.0}, {{"y", sb::Quantity::value}}, tight());
  BOOST_REQUIRE(run.ok());
  BOOST_CHECK_CLOSE(run.value(0, 0), 4.0, 1e-8);
  BOOST_CHECK_CLOSE(run.value(1, 0), 4.0 * std::exp(-2.0), 1e-7);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sbml_level3_version2)

BOOST_AUTO_TEST_CASE(a_rule_or_initial_assignment_without_math_is_ignored) {
  // L3V2: elements without math have no effect (they used to be refused: 14 suite cases).
  const sb::Model model = sb::load_string(document(R"(
    <listOfParameters><parameter id="p" value="3" constant="false"/><parameter id="q" value="4" constant="true"/></listOfParameters>
    <listOfInitialAssignments><initialAssignment symbol="q"/></listOfInitialAssignments>
    <listOfRules><assignmentRule variable="p"/></listOfRules>)"));
  const auto run = sb::simulate(model, {0.0, 1.0}, {{"p", sb::Quantity::value}, {"q", sb::Quantity::value}});
  BOOST_REQUIRE(run.ok());
  BOOST_CHECK_EQUAL(run.value(1, 0), 3.0);
  BOOST_CHECK_EQUAL(run.value(1, 1), 4.0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sbml_rate_of)

BOOST_AUTO_TEST_CASE(rate_of_in_an_initial_assignment_is_the_rate_at_t0) {
  // p1' = 1 + p1 from 2: rateOf(p1) at t0 = 3 (was refused: suite cases 01248-01252)
  const sb::Model model = sb::load_string(document(R"(
    <listOfParameters><parameter id="p1" value="2" constant="false"/><parameter id="p2" constant="true"/></listOfParameters>
    <listOfInitialAssignments><initialAssignment symbol="p2">)" +
                                                   math(R"(<apply><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/rateOf">rateOf</csymbol><ci>p1</ci></apply>)") +
                                                   R"(</initialAssignment></listOfInitialAssignments>
    <listOfRules><rateRule variable="p1">)" + math("<apply><plus/><cn>1</cn><ci>p1</ci></apply>") + R"(</rateRule></listOfRules>)"));
  const auto run = sb::simulate(model, {0.0, 1.0}, {{"p2", sb::Quantity::value}});
  BOOST_REQUIRE(run.ok());
  BOOST_CHECK_EQUAL(run.value(1, 0), 3.0);
}

BOOST_AUTO_TEST_SUITE_END()
