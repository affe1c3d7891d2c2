// Bad input: a clear ImportError, nothing integrated, no crash.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "esdirk/sbml/sbml.hpp"

namespace sb = esdirk::sbml;

BOOST_AUTO_TEST_SUITE(sbml_bad_input)

BOOST_AUTO_TEST_CASE(malformed_xml_is_an_import_error) {
  BOOST_CHECK_THROW(sb::load_string("<sbml><model id='m'></sbml"), sb::ImportError);
}

BOOST_AUTO_TEST_CASE(a_document_that_is_not_sbml_is_an_import_error) {
  BOOST_CHECK_THROW(sb::load_string("<?xml version='1.0'?><html><body/></html>"), sb::ImportError);
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_an_import_error) {
  BOOST_CHECK_THROW(sb::load("no-such-file.xml"), sb::ImportError);
}

// libSBML threw SBMLConstructorException (not an ImportError) out of load_string, and leaked
// the half-built document, when the namespace said L3V2 and the attributes level 2 (found by
// fuzz_sbml_import; the stoichiometryMath below is what made libSBML construct and throw).
BOOST_AUTO_TEST_CASE(a_namespace_that_disagrees_with_level_and_version_is_an_import_error) {
  const std::string xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="2" version="5">
  <model id="m"><listOfReactions><reaction id="r"><listOfReactants><speciesReference species="s">
    <stoichiometryMath><math xmlns="http://www.w3.org/1998/Math/MathML"><cn> 2 </cn></math></stoichiometryMath>
  </speciesReference></listOfReactants></reaction></listOfReactions></model>
</sbml>)";
  BOOST_CHECK_EXCEPTION(sb::load_string(xml), sb::ImportError, [](const sb::ImportError& e) {
    return std::string(e.what()).find("namespace") != std::string::npos;
  });
  BOOST_CHECK_THROW(sb::load_string(R"(<sbml xmlns="http://www.sbml.org/sbml/level3/version5" level="2" version="5"/>)"),
                    sb::ImportError);
  BOOST_CHECK_THROW(sb::load_string(R"(<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="9" version="1"/>)"),
                    sb::ImportError);
}

BOOST_AUTO_TEST_SUITE_END()

#include "sbml_text.hpp"

BOOST_AUTO_TEST_SUITE(sbml_bad_models)

using sbml_text::document;
using sbml_text::math;

namespace {
// The error's element id, or "" if the import did not throw ImportError.
std::string element_of_import_error(const std::string& xml) {
  try {
    (void)sb::load_string(xml);
  } catch (const sb::ImportError& e) {
    return e.element_id().empty() ? std::string("(document)") : e.element_id();
  }
  return {};
}
}  // namespace

BOOST_AUTO_TEST_CASE(an_undefined_id_names_the_element_that_uses_it) {
  const std::string xml = document(R"(
    <listOfParameters><parameter id="x" value="1" constant="false"/></listOfParameters>
    <listOfRules><rateRule variable="x">)" + math("<ci>nowhere</ci>") + R"(</rateRule></listOfRules>)");
  BOOST_CHECK(!element_of_import_error(xml).empty());
  // libSBML's message for it (10215) speaks of "L3 package objects": it was reported as an
  // unsupported SBML package because the importer read the message's words.
  try {
    (void)sb::load_string(xml);
  } catch (const sb::UnsupportedFeature& e) {
    BOOST_ERROR("an undefined id reported as an unsupported feature: " << e.what());
  } catch (const sb::ImportError&) {
  }
}

BOOST_AUTO_TEST_CASE(cyclic_initial_assignments_are_refused_with_the_id) {
  const std::string xml = document(R"(
    <listOfParameters><parameter id="a" constant="true"/><parameter id="b" constant="true"/></listOfParameters>
    <listOfInitialAssignments>
      <initialAssignment symbol="a">)" + math("<ci>b</ci>") + R"(</initialAssignment>
      <initialAssignment symbol="b">)" + math("<apply><plus/><ci>a</ci><cn>1</cn></apply>") + R"(</initialAssignment>
    </listOfInitialAssignments>)");
  const std::string element = element_of_import_error(xml);
  BOOST_CHECK(element == "a" || element == "b" || element == "(document)");
}

BOOST_AUTO_TEST_CASE(division_by_zero_at_initialization_names_the_initial_assignment) {
  const std::string xml = document(R"(
    <listOfParameters><parameter id="zero" value="0" constant="true"/><parameter id="x" constant="false"/></listOfParameters>
    <listOfInitialAssignments><initialAssignment symbol="x">)" + math("<apply><divide/><cn>1</cn><ci>zero</ci></apply>") + R"(</initialAssignment></listOfInitialAssignments>
    <listOfRules><rateRule variable="x">)" + math("<cn>1</cn>") + R"(</rateRule></listOfRules>)");
  BOOST_CHECK_EQUAL(element_of_import_error(xml), "x");
}

BOOST_AUTO_TEST_CASE(an_event_without_trigger_is_an_import_error) {
  const std::string xml = document(R"(
    <listOfParameters><parameter id="x" value="1" constant="false"/></listOfParameters>
    <listOfEvents><event id="e" useValuesFromTriggerTime="true">
      <listOfEventAssignments><eventAssignment variable="x">)" + math("<cn>2</cn>") + R"(</eventAssignment></listOfEventAssignments>
    </event></listOfEvents>)");
  BOOST_CHECK(!element_of_import_error(xml).empty());
}

BOOST_AUTO_TEST_CASE(the_delay_csymbol_is_an_unsupported_feature) {
  const std::string xml = document(R"(
    <listOfParameters><parameter id="x" value="1" constant="false"/></listOfParameters>
    <listOfRules><rateRule variable="x">)" + math(R"(<apply><csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/delay">delay</csymbol><ci>x</ci><cn>1</cn></apply>)") + R"(</rateRule></listOfRules>)");
  try {
    (void)sb::load_string(xml);
    BOOST_ERROR("the delay csymbol was accepted");
  } catch (const sb::UnsupportedFeature& e) {
    BOOST_CHECK_EQUAL(e.feature(), "delay csymbol");
    BOOST_CHECK_EQUAL(e.element_id(), "x");
  }
}

// A hostile run: a timer that fires every 1e-6 time units over [0, 1000] (1e9 events, hours of
// work). max_seconds ends it with the work limit's status and a message naming the option; the
// rows reached before it are kept.
BOOST_AUTO_TEST_CASE(max_seconds_ends_a_run_that_would_not_end_with_a_status) {
  const std::string xml = document(R"(
    <listOfParameters>
      <parameter id="reset" value="0" constant="false"/>
      <parameter id="n" value="0" constant="false"/>
    </listOfParameters>
    <listOfEvents><event id="tick" useValuesFromTriggerTime="true">
      <trigger initialValue="true" persistent="true">)" +
                                   math("<apply><geq/><apply><minus/><csymbol encoding=\"text\" "
                                        "definitionURL=\"http://www.sbml.org/sbml/symbols/time\">t</csymbol>"
                                        "<ci>reset</ci></apply><cn>1e-6</cn></apply>") + R"(</trigger>
      <listOfEventAssignments>
        <eventAssignment variable="reset">)" + math("<csymbol encoding=\"text\" definitionURL=\"http://www.sbml.org/sbml/symbols/time\">t</csymbol>") + R"(</eventAssignment>
        <eventAssignment variable="n">)" + math("<apply><plus/><ci>n</ci><cn>1</cn></apply>") + R"(</eventAssignment>
      </listOfEventAssignments></event></listOfEvents>)");
  const sb::Model model = sb::load_string(xml);
  sb::SimulationOptions options;
  options.max_seconds = 0.2;
  const sb::Simulation run = sb::simulate(model, {0.0, 1000.0}, {{"n", sb::Quantity::value}}, options);
  BOOST_TEST((run.status == esdirk::Status::too_many_steps), run.message);
  BOOST_TEST(run.message.find("max_seconds = 0.2") != std::string::npos, run.message);
  BOOST_TEST(run.value(0, 0) == 0.0);         // the row at t0, reached before the limit
  BOOST_TEST(std::isnan(run.value(1, 0)));    // the one after it, not
  options.max_seconds = -1.0;
  BOOST_CHECK_THROW(options.validate(), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
