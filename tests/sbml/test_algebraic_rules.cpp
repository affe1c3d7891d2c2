// Algebraic rules as the algebraic equations of the semi-explicit DAE, checked by the
// structural module: index 1 integrates (against a closed form), index above 1 is refused
// with the rule's id, structurally singular rules are refused.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>

#include "esdirk/sbml/sbml.hpp"
#include "sbml_text.hpp"

namespace sb = esdirk::sbml;
using sbml_text::document;
using sbml_text::math;

namespace {

// The feature and element id of the UnsupportedFeature that loading `xml` throws.
std::pair<std::string, std::string> refusal(const std::string& xml) {
  try {
    (void)sb::load_string(xml);
  } catch (const sb::UnsupportedFeature& e) {
    return {e.feature(), e.element_id()};
  }
  return {"accepted", ""};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sbml_algebraic_rules)

BOOST_AUTO_TEST_CASE(an_index1_rule_whose_variable_drives_the_state_integrates_to_its_closed_form) {
  // x' = -z, 0 = z - 2x: x = 3 exp(-2t), z = 6 exp(-2t).
  sb::SimulationOptions options;
  options.relative_tolerance = 1e-10;
  options.absolute_tolerance = 1e-12;
  const sb::Model model = sb::load_string(document(R"(
    <listOfParameters><parameter id="x" value="3" constant="false"/><parameter id="z" constant="false"/></listOfParameters>
    <listOfRules>
      <rateRule variable="x">)" + math("<apply><minus/><ci>z</ci></apply>") + R"(</rateRule>
      <algebraicRule>)" + math("<apply><minus/><ci>z</ci><apply><times/><cn>2</cn><ci>x</ci></apply></apply>") + R"(</algebraicRule>
    </listOfRules>)"));
  BOOST_REQUIRE_EQUAL(model.algebraic_names().size(), 1u);
  BOOST_CHECK_EQUAL(model.algebraic_names()[0], "z");
  const auto run = sb::simulate(model, {0.0, 0.5, 1.0}, {{"x", sb::Quantity::value}, {"z", sb::Quantity::value}}, options);
  BOOST_REQUIRE(run.ok());
  for (int i = 0; i < 3; ++i) {
    const double t = 0.5 * i;
    BOOST_CHECK_CLOSE(run.value(i, 0), 3.0 * std::exp(-2.0 * t), 1e-6);
    BOOST_CHECK_CLOSE(run.value(i, 1), 6.0 * std::exp(-2.0 * t), 1e-6);
  }
}

BOOST_AUTO_TEST_CASE(a_rule_that_constrains_only_a_differential_state_is_refused_as_index_above_1) {
  // x' = -k x, 0 = x - 1 with k free: k would be determined only through x' (index 2).
  const auto [feature, id] = refusal(document(R"(
    <listOfParameters><parameter id="x" value="1" constant="false"/><parameter id="k" value="1" constant="false"/></listOfParameters>
    <listOfRules>
      <rateRule variable="x">)" + math("<apply><minus/><apply><times/><ci>k</ci><ci>x</ci></apply></apply>") + R"(</rateRule>
      <algebraicRule metaid="hold_x">)" + math("<apply><minus/><ci>x</ci><cn>1</cn></apply>") + R"(</algebraicRule>
    </listOfRules>)"));
  BOOST_CHECK_EQUAL(feature, "algebraic rule of index above 1");
  BOOST_CHECK_EQUAL(id, "hold_x");
}

BOOST_AUTO_TEST_CASE(an_index2_rule_through_an_assignment_rule_is_refused) {
  // x' = v with v = 2 k (an assignment rule), 0 = x - t: k is determined only through x'.
  const auto [feature, id] = refusal(document(R"(
    <listOfParameters><parameter id="x" value="0" constant="false"/><parameter id="k" value="1" constant="false"/>
      <parameter id="v" constant="false"/></listOfParameters>
    <listOfRules>
      <assignmentRule variable="v">)" + math("<apply><times/><cn>2</cn><ci>k</ci></apply>") + R"(</assignmentRule>
      <rateRule variable="x">)" + math("<ci>v</ci>") + R"(</rateRule>
      <algebraicRule metaid="follow_time">)" + math(R"(<apply><minus/><ci>x</ci><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol></apply>)") + R"(</algebraicRule>
    </listOfRules>)"));
  BOOST_CHECK_EQUAL(feature, "algebraic rule of index above 1");
  BOOST_CHECK_EQUAL(id, "follow_time");
}

BOOST_AUTO_TEST_CASE(structurally_singular_rules_are_an_import_error) {
  // 0 = z - 1 and 0 = z - 2: over-determined. libSBML's consistency check (the model's
  // equations matched to the symbols they mention) refuses such a model before the structural
  // check runs; every structurally singular set tried (two rules on one state, rules on
  // reacting species) is refused there. The importer's own "structurally singular algebraic
  // rules" refusal stays for what that check lets through.
  BOOST_CHECK_THROW(sb::load_string(document(R"(
    <listOfParameters><parameter id="z" constant="false"/></listOfParameters>
    <listOfRules>
      <algebraicRule>)" + math("<apply><minus/><ci>z</ci><cn>1</cn></apply>") + R"(</algebraicRule>
      <algebraicRule>)" + math("<apply><minus/><ci>z</ci><cn>2</cn></apply>") + R"(</algebraicRule>
    </listOfRules>)")), sb::ImportError);
}

BOOST_AUTO_TEST_CASE(structurally_singular_rules_are_refused_by_the_structural_check) {
  // The same model with libSBML's consistency check off (ImportOptions::check_consistency):
  // the importer's own check, on the structural module's matching, refuses it and names the
  // feature and a rule.
  sb::ImportOptions options;
  options.check_consistency = false;
  const std::string xml = document(R"(
    <listOfParameters><parameter id="z" constant="false"/></listOfParameters>
    <listOfRules>
      <algebraicRule metaid="first">)" + math("<apply><minus/><ci>z</ci><cn>1</cn></apply>") + R"(</algebraicRule>
      <algebraicRule metaid="second">)" + math("<apply><minus/><ci>z</ci><cn>2</cn></apply>") + R"(</algebraicRule>
    </listOfRules>)");
  try {
    (void)sb::load_string(xml, options);
    BOOST_FAIL("a structurally singular set of algebraic rules was imported");
  } catch (const sb::UnsupportedFeature& e) {
    BOOST_TEST(e.feature() == "structurally singular algebraic rules");
    BOOST_TEST((e.element_id() == "first" || e.element_id() == "second"), e.element_id());
  }
}

BOOST_AUTO_TEST_SUITE_END()
