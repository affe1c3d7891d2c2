// The readers of the SBML Test Suite's case files (sbml/tools/suite_files.hpp): the suite's
// real layouts, and hostile text, which must give a SuiteFormatError naming the line.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "suite_files.hpp"

using namespace esdirk::sbml_suite;

namespace {

// True when parse throws SuiteFormatError whose message contains `part`.
template <class Parse>
bool refused_with(Parse parse, const std::string& part) {
  try {
    parse();
  } catch (const SuiteFormatError& e) {
    const bool found = std::string(e.what()).find(part) != std::string::npos;
    if (!found) BOOST_TEST_MESSAGE("message was: " << e.what());
    return found;
  }
  return false;
}

const char* settings_00001 =
    "start: 0\n"
    "duration: 5\n"
    "steps: 50\n"
    "variables: S1, S2\n"
    "absolute: 1.000000e-007\n"
    "relative: 0.0001\n"
    "amount: S1, S2\n"
    "concentration:\n"
    "\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(settings)

BOOST_AUTO_TEST_CASE(reads_a_time_course) {
  const CaseSettings s = parse_settings(settings_00001);
  BOOST_TEST(*s.start == 0.0);
  BOOST_TEST(*s.duration == 5.0);
  BOOST_TEST(*s.steps == 50);
  BOOST_TEST(s.variables == (std::vector<std::string>{"S1", "S2"}),
             boost::test_tools::per_element());
  BOOST_TEST(s.amount.size() == 2u);
  BOOST_TEST(s.concentration.empty());
  BOOST_TEST(s.absolute == 1e-7);
  BOOST_TEST(s.relative == 1e-4);
  const std::vector<double> times = time_course_times(s);
  BOOST_TEST(times.size() == 51u);
  BOOST_TEST(times.front() == 0.0);
  BOOST_TEST(times.back() == 5.0);
  BOOST_TEST(times[1] == 0.1);
}

BOOST_AUTO_TEST_CASE(reads_crlf_and_a_flux_balance_case_without_times) {
  const CaseSettings s = parse_settings(
      "start:\r\nduration:\r\nsteps:\r\nvariables: J0, J1, OBJF\r\nabsolute: 0.001\r\n"
      "relative: 0.001\r\namount:\r\nconcentration:\r\n");
  BOOST_TEST(!s.start.has_value());
  BOOST_TEST(!s.steps.has_value());
  BOOST_TEST(s.variables.size() == 3u);
  BOOST_TEST(refused_with([&] { time_course_times(s); }, "needs start, duration and steps"));
}

BOOST_AUTO_TEST_CASE(a_nonzero_start_offsets_every_time) {
  CaseSettings s =
      parse_settings("start: 2\nduration: 1\nsteps: 4\nvariables: x\nabsolute: 0\nrelative: 0\n");
  const std::vector<double> times = time_course_times(s);
  BOOST_TEST(times.size() == 5u);
  BOOST_TEST(times[0] == 2.0);
  BOOST_TEST(times[2] == 2.5);
  BOOST_TEST(times[4] == 3.0);
}

BOOST_AUTO_TEST_CASE(hostile_settings_are_refused_with_the_line) {
  const std::string tail = "variables: x\nabsolute: 1e-3\nrelative: 1e-3\n";
  BOOST_TEST(
      refused_with([] { parse_settings("start 0\n"); }, "line 1: 'start 0' is not 'key: value'"));
  BOOST_TEST(
      refused_with([&] { parse_settings("start: zero\n" + tail); }, "line 1: start: 'zero'"));
  BOOST_TEST(refused_with([&] { parse_settings("start: inf\n" + tail); }, "not a finite number"));
  BOOST_TEST(refused_with([&] { parse_settings("duration: -1\n" + tail); }, "negative"));
  BOOST_TEST(refused_with([&] { parse_settings("steps: 2.5\n" + tail); }, "not a whole number"));
  BOOST_TEST(refused_with([&] { parse_settings("steps: 0\n" + tail); }, "not a whole number"));
  BOOST_TEST(refused_with([&] { parse_settings("steps: 99999999999999999999\n" + tail); },
                          "not a whole number"));
  BOOST_TEST(refused_with([&] { parse_settings("steps: 1000001\n" + tail); }, "1..1000000"));
  BOOST_TEST(refused_with([&] { parse_settings(tail + "relative: 1\n"); },
                          "line 4: 'relative' given twice"));
  BOOST_TEST(
      refused_with([&] { parse_settings(tail + "tolerance: 1\n"); }, "unknown key 'tolerance'"));
  BOOST_TEST(
      refused_with([] { parse_settings("variables: x\nabsolute: 1\n"); }, "no 'relative' line"));
  BOOST_TEST(refused_with([] { parse_settings(""); }, "no 'variables' line"));
  BOOST_TEST(refused_with([] { parse_settings("variables: x\nabsolute: -1\nrelative: 0\n"); },
                          "absolute: '-1' is not a finite number >= 0"));
  BOOST_TEST(refused_with([] { parse_settings("variables: x\nabsolute: nan\nrelative: 0\n"); },
                          "absolute: 'nan'"));
  BOOST_TEST(refused_with([] { parse_settings("variables: x, 2x\nabsolute: 0\nrelative: 0\n"); },
                          "'2x' is not an SBML id"));
  BOOST_TEST(refused_with([] { parse_settings("variables: x, x\nabsolute: 0\nrelative: 0\n"); },
                          "'x' listed twice"));
  BOOST_TEST(refused_with([] { parse_settings("variables: x,\nabsolute: 0\nrelative: 0\n"); },
                          "'' is not an SBML id"));
  BOOST_TEST(
      refused_with([&] { parse_settings(tail + "amount: y\n"); }, "amount: 'y' is not a variable"));
  BOOST_TEST(refused_with([&] { parse_settings(tail + "amount: x\nconcentration: x\n"); },
                          "'x' is listed as amount and as concentration"));
  // Binary junk is shown escaped and cut, never copied raw into the message.
  BOOST_TEST(refused_with([] { parse_settings(std::string("\x01\x02\xff: 1\n", 7)); },
                          "unknown key '\\x01\\x02\\xff'"));
  BOOST_TEST(refused_with([] { parse_settings(std::string(100, 'a') + "\n"); }, "aaaa...'"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(numbers)

BOOST_AUTO_TEST_CASE(the_suite_spellings) {
  BOOST_TEST(*parse_number("1.000000e-007") == 1e-7);
  BOOST_TEST(*parse_number(" -2.5E+3 ") == -2500.0);
  BOOST_TEST(*parse_number("+4") == 4.0);
  BOOST_TEST(*parse_number(".5") == 0.5);
  BOOST_TEST(std::isnan(*parse_number("NaN")));
  BOOST_TEST(std::isnan(*parse_number("nan")));
  BOOST_TEST(*parse_number("INF") == std::numeric_limits<double>::infinity());
  BOOST_TEST(*parse_number("-INF") == -std::numeric_limits<double>::infinity());
  BOOST_TEST(*parse_number("inf") == std::numeric_limits<double>::infinity());
}

BOOST_AUTO_TEST_CASE(anything_else_is_not_a_number) {
  for (const char* text : {"", " ", "x", "1x", "1,5", "0x10", "--1", "+-1", "1e", "e5", "nan(1)",
                           "1 2", "infinityx", "S1"})
    BOOST_TEST(!parse_number(text).has_value(), "'" << text << "'");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(results)

BOOST_AUTO_TEST_CASE(reads_the_header_and_the_rows) {
  const ExpectedResults r =
      parse_results("time,S1,S2\n0,0.00015,0\n0.1,1.35e-4,1.42e-005\n", {"ignored"});
  BOOST_TEST(r.columns == (std::vector<std::string>{"S1", "S2"}), boost::test_tools::per_element());
  BOOST_TEST(r.times.size() == 2u);
  BOOST_TEST(r.value(1, 1) == 1.42e-5);
}

BOOST_AUTO_TEST_CASE(header_spellings_spaces_and_nonfinite_values) {
  const ExpectedResults r = parse_results("Time, INF, NaN\r\n0, INF, NaN\r\n1,-INF, nan\r\n\r\n");
  BOOST_TEST(r.columns == (std::vector<std::string>{"INF", "NaN"}),
             boost::test_tools::per_element());
  BOOST_TEST(std::isinf(r.value(0, 0)));
  BOOST_TEST(r.value(1, 0) < 0);
  BOOST_TEST(std::isnan(r.value(1, 1)));
}

BOOST_AUTO_TEST_CASE(without_a_header_the_columns_are_the_variables) {
  const ExpectedResults r = parse_results("0,1,2\n1,3,4\n", {"a", "b"});
  BOOST_TEST(r.columns.size() == 2u);
  BOOST_TEST(r.value(1, 0) == 3.0);
}

BOOST_AUTO_TEST_CASE(hostile_results_are_refused_with_the_line) {
  BOOST_TEST(refused_with([] { parse_results(""); }, "no data rows"));
  BOOST_TEST(refused_with([] { parse_results("time,a\n"); }, "no data rows"));
  BOOST_TEST(refused_with([] { parse_results("R26,OBJF\n1,2\n"); },
                          "line 1: the first column is 'R26', not time"));
  BOOST_TEST(refused_with([] { parse_results("time,a,a\n0,1,2\n"); }, "column 'a' given twice"));
  BOOST_TEST(refused_with([] { parse_results("time,a b\n0,1\n"); }, "'a b' is not an SBML id"));
  BOOST_TEST(refused_with([] { parse_results("time,a\n0,1,2\n"); },
                          "line 2: 3 values where the header has 2"));
  BOOST_TEST(refused_with([] { parse_results("time,a\n0\n"); }, "1 values where the header has 2"));
  BOOST_TEST(
      refused_with([] { parse_results("time,a\n0,x\n"); }, "line 2: value 'x' of column 'a'"));
  BOOST_TEST(
      refused_with([] { parse_results("time,a\nnan,1\n"); }, "time 'nan' is not a finite number"));
  BOOST_TEST(refused_with([] { parse_results("time,a\n1,1\n1,2\n"); },
                          "line 3: time '1' does not increase"));
  BOOST_TEST(refused_with([] { parse_results("0,1\n", {}); }, "2 values where the header has 1"));
}

BOOST_AUTO_TEST_CASE(format_results_reads_back_bit_for_bit) {
  const std::vector<double> times{0, 0.1, 1.0 / 3};
  const std::vector<double> values{1e-300,       -2.5,
                                   std::nan(""), std::numeric_limits<double>::infinity(),
                                   0.1 + 0.2,    -std::numeric_limits<double>::infinity()};
  const ExpectedResults r = parse_results(format_results({"a", "b"}, times, values));
  BOOST_TEST(r.times == times, boost::test_tools::per_element());
  BOOST_TEST(r.values[0] == values[0]);
  BOOST_TEST(r.values[1] == values[1]);
  BOOST_TEST(std::isnan(r.values[2]));
  BOOST_TEST(r.values[3] == values[3]);
  BOOST_TEST(r.values[4] == values[4]);
  BOOST_TEST(r.values[5] == values[5]);
  BOOST_CHECK_THROW(format_results({"a"}, times, values), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(description)

BOOST_AUTO_TEST_CASE(reads_the_tags_of_the_leading_comment) {
  const CaseDescription d = parse_description(
      "(* \n\ncategory:      Test\nsynopsis:      Basic: two species\n"
      "componentTags: Compartment, Species, Reaction, Parameter \n"
      " testTags:        InitialAmount\ntestType:      TimeCourse\n"
      "levels:        1.2, 2.1\npackagesPresent: comp\n\nThe model contains: x\n*)\n"
      "componentTags: ignored, after the comment\n");
  BOOST_TEST(d.component_tags ==
                 (std::vector<std::string>{"Compartment", "Species", "Reaction", "Parameter"}),
             boost::test_tools::per_element());
  BOOST_TEST(d.test_tags == (std::vector<std::string>{"InitialAmount"}),
             boost::test_tools::per_element());
  BOOST_TEST(d.test_type == "TimeCourse");
  BOOST_TEST(d.packages == (std::vector<std::string>{"comp"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(missing_tags_are_empty_and_repeated_tags_refused) {
  const CaseDescription d = parse_description("no comment at all");
  BOOST_TEST(d.component_tags.empty());
  BOOST_TEST(d.test_type.empty());
  BOOST_TEST(refused_with([] { parse_description("testTags: A\ntestTags: B\n"); },
                          "description line 2: 'testTags' given twice"));
}

BOOST_AUTO_TEST_SUITE_END()
