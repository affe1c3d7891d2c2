// The model text format, the facade analyse(text) and the builder: accepted syntax, and every
// bad-input case with its file:line:column.

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>

#include "structural_test_support.hpp"

using namespace structural_test;

namespace {

// The located message of parsing `text` as "m.dae", or "" if it parses.
std::string error_of(const std::string& text) {
  try {
    parse_model(text, "m.dae");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

// The message of what `run` throws (any std::exception), or "" if it returns.
template <class Run>
std::string message_of(Run run) {
  try {
    run();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(model_format)

BOOST_AUTO_TEST_CASE(parses_the_clutch) {
  Model m = load("clutch.dae");
  BOOST_TEST(m.name == "clutch");
  BOOST_TEST((m.mode_variables == std::vector<std::string>{"gamma"}));
  BOOST_TEST(m.variables.size() == 4u);
  BOOST_TEST(m.equations.size() == 6u);
  // e1: omega1' omega1 tau1 -> omega1 at orders {0, 1} (all orders kept), tau1 at {0}.
  const Equation& e1 = m.equations[0];
  BOOST_TEST(e1.occurrences.size() == 2u);
  BOOST_TEST((e1.occurrences[0].orders == std::vector<int>{0, 1}));
  BOOST_TEST(e1.guard.always());
  BOOST_TEST(m.equations[2].guard.evaluate({true}));
  BOOST_TEST(!m.equations[2].guard.evaluate({false}));
  BOOST_TEST(m.equations[4].guard.to_string(m.mode_variables) == "!gamma");
}

BOOST_AUTO_TEST_CASE(syntax_variants) {
  Model m = parse_model(
      "model  v   # comment\n"
      "time discrete\r\n"
      "modes a b\n"
      "variables x, y\n"
      "free u\n"
      "existential w\n"
      "\n"
      "equation e1 if (a | b) & !a: x^3 x'' y u w\n"
      "equation e2 if true: y x\n"
      "equation e3 if false: y\n",
      "v.dae");
  BOOST_TEST((m.time == TimeDomain::discrete));
  BOOST_TEST((m.equations[0].occurrences[0].orders == std::vector<int>{2, 3}));
  BOOST_TEST((m.variables[2].role == VariableRole::free));
  BOOST_TEST((m.variables[3].role == VariableRole::existential));
  BOOST_TEST(m.equations[0].guard.evaluate({false, true}));
  BOOST_TEST(!m.equations[0].guard.evaluate({true, true}));
  BOOST_TEST(!m.equations[0].guard.evaluate({false, false}));
  BOOST_TEST(m.equations[0].guard.to_string(m.mode_variables) == "(a | b) & !a");
  BOOST_TEST(m.equations[1].guard.always());
  auto warnings = model_warnings(m);
  BOOST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0] == "v.dae:10:10: warning: equation 'e3' is never active");
}

BOOST_AUTO_TEST_CASE(bad_input_is_located) {
  // Unknown variable name.
  BOOST_TEST(error_of("variables x\nequation e: x zz\n") ==
             "m.dae:2:15: error: unknown variable 'zz' in equation 'e' (declare it with "
             "'variables', 'free' or 'existential')");
  // Malformed lines.
  BOOST_TEST(starts_with(error_of("variables x\nequation e x\n"),
                         "m.dae:2:12: error: expected 'if' or ':' after the equation name"));
  BOOST_TEST(starts_with(error_of("variables x\nequations e: x\n"),
                         "m.dae:2:1: error: unknown statement 'equations'"));
  BOOST_TEST(starts_with(error_of("variables 3x\n"),
                         "m.dae:1:11: error: expected a variable name, found '3'"));
  BOOST_TEST(starts_with(error_of("variables x\nequation e: x^\n"),
                         "m.dae:2:15: error: expected a derivative order"));
  BOOST_TEST(starts_with(error_of("variables x\nequation e: x'y\n"),
                         "m.dae:2:15: error: unexpected 'y' after variable 'x'"));
  BOOST_TEST(
      starts_with(error_of("variables x\nequation e if : x\n"), "m.dae:2:15: error: empty guard"));
  BOOST_TEST(starts_with(error_of("modes g\nvariables x\nequation e if g &: x\n"),
                         "m.dae:3:18: error: guard ends where a mode variable was expected"));
  BOOST_TEST(starts_with(error_of("modes g\nvariables x\nequation e if (g: x\n"),
                         "m.dae:3:17: error: missing ')' in guard"));
  BOOST_TEST(starts_with(error_of("variables x\nequation e if h: x\n"),
                         "m.dae:2:15: error: unknown mode variable 'h'"));
  BOOST_TEST(starts_with(error_of("time later\nvariables x\nequation e: x\n"),
                         "m.dae:1:1: error: time must be 'continuous' or 'discrete'"));
  BOOST_TEST(starts_with(error_of("model a b\nvariables x\nequation e: x\n"),
                         "m.dae:1:9: error: unexpected text after the statement"));
  // Duplicates.
  BOOST_TEST(
      starts_with(error_of("variables x x\nequation e: x\n"),
                  "m.dae:1:13: error: variable 'x' is declared twice (first at m.dae:1:11)"));
  BOOST_TEST(starts_with(error_of("variables x\nequation e: x\nequation e: x'\n"),
                         "m.dae:3:10: error: duplicate equation 'e' (m.dae:2:10)"));
  BOOST_TEST(starts_with(
      error_of("modes g\nvariables x\nequation e if g: x\nequation e if g | !g: x\n"),
      "m.dae:4:10: error: duplicate equation 'e' (m.dae:3:10): equations sharing a name"));
  BOOST_TEST(starts_with(error_of("modes g g\nvariables x\nequation e: x\n"),
                         "m.dae:1:9: error: mode variable 'g' is declared twice"));
  // Empty models.
  BOOST_TEST(error_of("") ==
             "m.dae:1:1: error: the model has no equations (an empty model "
             "cannot be analysed)");
  BOOST_TEST(starts_with(error_of("# nothing\nvariables x\n"), "m.dae:1:1: error: the model has"));
  // Alternatives with exclusive guards are fine.
  BOOST_TEST(error_of("modes g\nvariables x\nequation e if g: x\nequation e if !g: x'\n") == "");
}

BOOST_AUTO_TEST_CASE(missing_file) {
  BOOST_CHECK_THROW(read_model_file(models_dir() + "/does-not-exist.dae"), ParseError);
}

BOOST_AUTO_TEST_CASE(variable_that_occurs_nowhere) {
  Model m = load("unused_variable.dae");
  auto warnings = model_warnings(m);
  BOOST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0].find("unused_variable.dae:3:13: warning: variable 'q' occurs in no "
                              "equation") != std::string::npos);
  ModelAnalysis a = analyse_model(m);
  const ModeAnalysis& mode = a.modes.at(0);
  BOOST_TEST(!mode.result.succeeded());
  BOOST_TEST((mode.result.diagnostics.under_variables == std::vector<int>{1}));
}

BOOST_AUTO_TEST_CASE(analyse_is_parse_then_analyse_model) {
  // The facade gives what its steps give: the same reports and verdict from text or a file,
  // the model its indices refer to, and the same located errors (bad text, a missing file,
  // the analysis budget).
  for (const char* name : {"clutch.dae", "rldc2.dae", "existential.dae", "singular.dae",
                           "unused_variable.dae"}) {
    const std::string path = models_dir() + "/" + name;
    const Model model = read_model_file(path);
    const ModelAnalysis steps = analyse_model(model);
    const Analysis from_file = analyse_file(path);
    BOOST_TEST(text_report(from_file) == text_report(model, steps), name);
    BOOST_TEST(json_report(from_file) == json_report(model, steps), name);
    BOOST_TEST(from_file.well_posed() == steps.well_posed(), name);
    BOOST_TEST(from_file.warnings == steps.warnings, name);
    BOOST_TEST(from_file.model.name == model.name);
    BOOST_TEST(from_file.model.equations.size() == model.equations.size());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const Analysis from_text = analyse(text.str(), path);
    BOOST_TEST(text_report(from_text) == text_report(from_file), name);
    BOOST_TEST(json_report(from_text) == json_report(from_file), name);
  }
  const std::string bad = "variables x\nequation e: y\n";
  BOOST_TEST(message_of([&] { analyse(bad, "m.dae"); }) == error_of(bad));
  BOOST_TEST(starts_with(error_of(bad), "m.dae:2:13: error: unknown variable 'y'"));
  const std::string missing = models_dir() + "/does-not-exist.dae";
  BOOST_TEST(message_of([&] { analyse_file(missing); }) ==
             message_of([&] { read_model_file(missing); }));
  const std::string too_many = models_dir() + "/limit_mode_changes.dae";
  const std::string refused = message_of([&] { analyse_file(too_many); });
  BOOST_TEST(refused == message_of([&] { analyse_model(read_model_file(too_many)); }));
  BOOST_TEST(refused.find("mode changes needs at least") != std::string::npos);
  BOOST_CHECK_THROW(analyse_file(too_many), LimitExceeded);
}

BOOST_AUTO_TEST_CASE(builder_matches_file) {
  Model built = ModelBuilder("clutch")
                    .mode_variable("gamma")
                    .variables({"omega1", "omega2", "tau1", "tau2"})
                    .equation("e1", {{"omega1", 1}, {"omega1"}, {"tau1"}})
                    .equation("e2", {{"omega2", 1}, {"omega2"}, {"tau2"}})
                    .equation("e3", {{"omega1"}, {"omega2"}}, "gamma")
                    .equation("e4", {{"tau1"}, {"tau2"}}, "gamma")
                    .equation("e5", {{"tau1"}}, "!gamma")
                    .equation("e6", {{"tau2"}}, "!gamma")
                    .build();
  Model file = load("clutch.dae");
  BOOST_REQUIRE(built.equations.size() == file.equations.size());
  for (std::size_t i = 0; i < built.equations.size(); ++i) {
    BOOST_TEST(built.equations[i].name == file.equations[i].name);
    BOOST_REQUIRE(built.equations[i].occurrences.size() == file.equations[i].occurrences.size());
    for (std::size_t k = 0; k < built.equations[i].occurrences.size(); ++k) {
      BOOST_TEST(built.equations[i].occurrences[k].variable ==
                 file.equations[i].occurrences[k].variable);
      BOOST_TEST(built.equations[i].occurrences[k].orders ==
                 file.equations[i].occurrences[k].orders);
    }
  }
  ModelAnalysis a = analyse_model(built), b = analyse_model(file);
  BOOST_TEST(text_report(built, a) == text_report(file, b));
  BOOST_TEST(json_report(built, a) == json_report(file, b));
}

BOOST_AUTO_TEST_CASE(builder_misuse_throws) {
  BOOST_CHECK_THROW(ModelBuilder().variable("x").equation("e", {{"y"}}).build(),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ModelBuilder().variable("x").equation("e", {{"x", -1}}).build(),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ModelBuilder().variable("x").equation("e", {{"x"}}, "nomode").build(),
                    std::invalid_argument);
  BOOST_CHECK_THROW(ModelBuilder().variable("x").build(), std::invalid_argument);
  BOOST_CHECK_THROW(ModelBuilder().variable("x").variable("x").equation("e", {{"x"}}).build(),
                    std::invalid_argument);
  try {
    ModelBuilder().variable("x").equation("e7", {{"q"}}).build();
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()) == "equation 'e7' uses unknown variable 'q'");
  }
}

BOOST_AUTO_TEST_SUITE_END()
