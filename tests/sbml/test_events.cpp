// SBML events against hand-worked results: delays with values from trigger or execution
// time, priorities, persistence, firing at t0.
#include <boost/test/unit_test.hpp>

#include "esdirk/sbml/sbml.hpp"
#include "sbml_text.hpp"

namespace sb = esdirk::sbml;
using sbml_text::document;
using sbml_text::math;

namespace {

const std::string time_symbol = R"(<csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol>)";

// x' = 1 from 0; y and a are changed by the events only.
std::string clock_model(const std::string& events) {
  return document(R"(
    <listOfParameters>
      <parameter id="x" value="0" constant="false"/>
      <parameter id="y" value="0" constant="false"/>
      <parameter id="a" value="0" constant="false"/>
    </listOfParameters>
    <listOfRules><rateRule variable="x">)" + math("<cn>1</cn>") + R"(</rateRule></listOfRules>
    <listOfEvents>)" + events + R"(</listOfEvents>)");
}

std::string event(const std::string& id, const std::string& trigger, const std::string& extra,
                  const std::string& assignments, bool trigger_time_values = true, bool persistent = true,
                  bool initial_value = true) {
  return R"(<event id=")" + id + R"(" useValuesFromTriggerTime=")" + (trigger_time_values ? "true" : "false") + R"(">
      <trigger initialValue=")" + (initial_value ? "true" : "false") + R"(" persistent=")" + (persistent ? "true" : "false") + R"(">)" +
         math(trigger) + "</trigger>" + extra + "<listOfEventAssignments>" + assignments + "</listOfEventAssignments></event>";
}

std::string assign(const std::string& variable, const std::string& content) {
  return R"(<eventAssignment variable=")" + variable + R"(">)" + math(content) + "</eventAssignment>";
}

std::string at_least(double t) { return "<apply><geq/>" + time_symbol + "<cn>" + std::to_string(t) + "</cn></apply>"; }

double final_value(const std::string& xml, const std::string& id, double t_end = 2.0) {
  const sb::Model model = sb::load_string(xml);
  sb::SimulationOptions o;
  o.relative_tolerance = 1e-10;
  o.absolute_tolerance = 1e-12;
  const auto run = sb::simulate(model, {0.0, 0.5, 1.0, 1.5, t_end}, {{id, sb::Quantity::value}}, o);
  BOOST_REQUIRE_MESSAGE(run.ok(), run.message);
  return run.value(4, 0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sbml_events)

BOOST_AUTO_TEST_CASE(a_delayed_event_assigns_values_from_trigger_or_execution_time) {
  // trigger at t = 1 (x = 1), executed at 1.5 (x = 1.5)
  const std::string delay = "<delay>" + math("<cn>0.5</cn>") + "</delay>";
  BOOST_CHECK_CLOSE(final_value(clock_model(event("e", at_least(1.0), delay, assign("y", "<ci>x</ci>"), true)), "y"), 1.0, 1e-7);
  BOOST_CHECK_CLOSE(final_value(clock_model(event("e", at_least(1.0), delay, assign("y", "<ci>x</ci>"), false)), "y"), 1.5, 1e-7);
}

BOOST_AUTO_TEST_CASE(simultaneous_events_run_in_priority_order) {
  // hi: a = 1, lo: a = 10 a + 2; both at t = 1. hi first: a = 12; lo first: a = 1.
  auto model = [](double hi, double lo) {
    return clock_model(event("hi", at_least(1.0), "<priority>" + math("<cn>" + std::to_string(hi) + "</cn>") + "</priority>",
                             assign("a", "<cn>1</cn>")) +
                       event("lo", at_least(1.0), "<priority>" + math("<cn>" + std::to_string(lo) + "</cn>") + "</priority>",
                             assign("a", "<apply><plus/><apply><times/><cn>10</cn><ci>a</ci></apply><cn>2</cn></apply>"), false));
  };
  BOOST_CHECK_EQUAL(final_value(model(2.0, 1.0), "a"), 12.0);
  BOOST_CHECK_EQUAL(final_value(model(1.0, 2.0), "a"), 1.0);
}

BOOST_AUTO_TEST_CASE(a_non_persistent_delayed_event_is_cancelled_when_its_trigger_falls) {
  // trigger true on [1, 1.2), delay 0.5: persistent executes at 1.5, non-persistent never
  const std::string window = "<apply><and/>" + at_least(1.0) + "<apply><lt/>" + time_symbol + "<cn>1.2</cn></apply></apply>";
  const std::string delay = "<delay>" + math("<cn>0.5</cn>") + "</delay>";
  BOOST_CHECK_EQUAL(final_value(clock_model(event("e", window, delay, assign("a", "<cn>7</cn>"), true, true)), "a"), 7.0);
  BOOST_CHECK_EQUAL(final_value(clock_model(event("e", window, delay, assign("a", "<cn>7</cn>"), true, false)), "a"), 0.0);
}

BOOST_AUTO_TEST_CASE(an_event_true_at_t0_fires_there_when_its_initial_value_is_false) {
  // time >= 0 is true at t0 = 0 (its event function is exactly zero there)
  for (const bool initial_value : {false, true}) {
    const sb::Model model = sb::load_string(clock_model(event("e", at_least(0.0), "", assign("a", "<cn>5</cn>"), true, true, initial_value)));
    const auto run = sb::simulate(model, {0.0, 1.0}, {{"a", sb::Quantity::value}});
    BOOST_REQUIRE(run.ok());
    BOOST_CHECK_EQUAL(run.value(0, 0), initial_value ? 0.0 : 5.0);
  }
}

BOOST_AUTO_TEST_CASE(an_event_re_fires_each_time_its_trigger_rises_again) {
  // x' = 1, event x >= 0.5: x = 0 (a sawtooth): fires at 0.5, 1.0, 1.5, 2.0
  const std::string xml = clock_model(event("e", "<apply><geq/><ci>x</ci><cn>0.5</cn></apply>", "",
                                            assign("x", "<cn>0</cn>") + assign("a", "<apply><plus/><ci>a</ci><cn>1</cn></apply>")));
  BOOST_CHECK_EQUAL(final_value(xml, "a", 1.9), 3.0);
}

BOOST_AUTO_TEST_SUITE_END()
