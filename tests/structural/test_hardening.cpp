// Regressions of issue 17 (hardening): inputs that crashed the parser, exhausted time or memory,
// overflowed an int or produced invalid output. Each case is named after what broke; the
// limits themselves are in esdirk/structural/limits.hpp.

#include <boost/test/unit_test.hpp>
#include <climits>
#include <random>
#include <string>
#include <vector>

#include "../fuzz/fuzz_support.hpp"  // is_utf8: a reference independent of the module's check
#include "esdirk/esdirk.h"
#include "structural_test_support.hpp"

using namespace structural_test;

namespace {

// The message of the exception of type E thrown by parsing `text` as "m.dae" ("" if none).
template <class E = ParseError>
std::string error_of(const std::string& text) {
  try {
    parse_model(text, "m.dae");
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// esdirk_structural_report's status and text (the report or the message).
std::pair<int, std::string> c_report(const std::string& text, int json = 0) {
  size_t length = 0;
  int status = esdirk_structural_report(text.c_str(), json, nullptr, 0, &length, nullptr);
  if (status != ESDIRK_BUFFER_TOO_SMALL && status != ESDIRK_SUCCESS && length == 0) {
    return {status, ""};
  }
  std::string buffer(length + 1, '\0');
  status = esdirk_structural_report(text.c_str(), json, buffer.data(), buffer.size(), &length,
                                    nullptr);
  buffer.resize(length);
  return {status, buffer};
}

// A chain x_k' = f(x_{k+1}), 0 = g(x_0) of n equations: the constraint is differentiated
// n - 1 times, so Σc = n (n - 1) / 2 (with the given order per link: times that order).
std::string high_index_chain(int n, const std::string& order = "'") {
  std::string text = "variables";
  for (int i = 0; i < n; ++i) text += " x" + std::to_string(i);
  text += "\n";
  for (int i = 0; i + 1 < n; ++i) {
    text += "equation e" + std::to_string(i) + ": x" + std::to_string(i) + order + " x" +
            std::to_string(i + 1) + "\n";
  }
  return text + "equation e" + std::to_string(n - 1) + ": x0\n";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hardening)

// ---- 1. Guards were parsed and evaluated recursively without a depth limit ----------------

BOOST_AUTO_TEST_CASE(deeply_nested_guard_overflowed_the_stack) {
  const std::string head = "modes m\nvariables x\nequation e if ";
  // The reproducers: 30 000 parentheses, 100 000 '!', a flat '&' of 1e6 terms.
  for (const std::string& guard :
       {repeat("(", 30000) + "m" + repeat(")", 30000), repeat("!", 100000) + "m",
        "m" + repeat(" & m", 999999)}) {
    std::string message = error_of<LimitExceeded>(head + guard + ": x\n");
    BOOST_TEST(message.rfind("m.dae:3:15: error: the guard has ", 0) == 0, message);
    BOOST_TEST(contains(message, "bytes; the limit is 4096"));
  }
  // Within the length, the nesting is limited on its own.
  std::string message = error_of<LimitExceeded>(head + repeat("(", 65) + "m" + repeat(")", 65) +
                                                ": x\n");
  BOOST_TEST(message == "m.dae:3:79: error: the guard nests '(' and '!' more than 64 deep");
  BOOST_TEST(error_of<LimitExceeded>(head + repeat("!", 65) + "m: x\n") ==
             "m.dae:3:79: error: the guard nests '(' and '!' more than 64 deep");
  // Exactly at the limits the guard is accepted.
  Model deep = parse_model(head + repeat("(!", 32) + "m" + repeat(")", 32) + ": x\n");
  BOOST_TEST(deep.equations[0].guard.evaluate({true}));  // an even number of '!'
  // Through the C API: a status and the located message, no crash.
  auto [status, text] = c_report(head + repeat("(", 30000) + "m" + repeat(")", 30000) + ": x\n");
  BOOST_TEST(status == ESDIRK_INVALID_ARGUMENT);
  BOOST_TEST(text.rfind("model:3:15: error: the guard has 60001 bytes", 0) == 0, text);
}

BOOST_AUTO_TEST_CASE(long_flat_guard_is_evaluated_and_printed_without_recursion) {
  // 1000 terms alternating two variables: a left-deep tree 1000 nodes deep.
  std::string guard = "a";
  for (int i = 1; i < 1000; ++i) guard += i % 2 ? " & b" : " & a";
  Model m = parse_model("modes a b\nvariables x\nequation e if " + guard + ": x\n");
  const Guard& g = m.equations[0].guard;
  BOOST_TEST(g.evaluate({true, true}));
  BOOST_TEST(!g.evaluate({true, false}));
  BOOST_TEST(g.to_string(m.mode_variables) == guard);
}

BOOST_AUTO_TEST_CASE(guard_printing_round_trips_after_the_iterative_rewrite) {
  // Random guards: the printed text parses to a guard with the same truth table, and printing
  // is a fixed point (parentheses only where precedence needs them).
  std::mt19937 rng(17);
  const std::vector<std::string> names{"a", "b", "c"};
  auto index = [&](std::string_view n) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == n) return static_cast<int>(i);
    }
    return -1;
  };
  std::function<std::string(int)> random_guard = [&](int depth) -> std::string {
    int pick = static_cast<int>(rng() % (depth > 4 ? 3 : 7));
    if (pick < 3) return names[pick];
    std::string l = random_guard(depth + 1);
    if (pick == 3) return "!" + l;
    if (pick == 4) return "(" + l + ")";
    return "(" + l + (pick == 5 ? " & " : " | ") + random_guard(depth + 1) + ")";
  };
  for (int trial = 0; trial < 300; ++trial) {
    std::string text = random_guard(0);
    Guard g = Guard::parse(text, index);
    std::string printed = g.to_string(names);
    Guard again = Guard::parse(printed, index);
    BOOST_TEST(again.to_string(names) == printed);
    for (unsigned bits = 0; bits < 8; ++bits) {
      std::vector<bool> mode{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
      BOOST_TEST(g.evaluate(mode) == again.evaluate(mode), text << " vs " << printed);
    }
  }
}

// ---- 2. Tiny inputs that exhausted time or memory ------------------------------------------

BOOST_AUTO_TEST_CASE(every_mode_pair_of_ten_mode_variables_exhausted_memory) {
  // 1024 modes, 1 047 552 mode changes: refused before any analysis, located at 'modes'.
  Model m = parse_model("variables x\nmodes a b c d e f g h i j\nequation e: x\n", "m.dae");
  try {
    analyse_model(m);
    BOOST_FAIL("no LimitExceeded");
  } catch (const LimitExceeded& e) {
    BOOST_TEST(std::string(e.what()).rfind(
                   "m.dae:2:1: error: the analysis of 1024 modes and 1047552 mode changes needs "
                   "at least ",
                   0) == 0,
               e.what());
  }
  auto [status, text] = c_report("modes a b c d e f g h i j\nvariables x\nequation e: x\n");
  BOOST_TEST(status == ESDIRK_INVALID_ARGUMENT);
  BOOST_TEST(contains(text, "model:1:1: error: the analysis of 1024 modes"), text);
  // Seven mode variables (128 modes, 16 256 mode changes) of a small model still fit.
  ModelAnalysis seven =
      analyse_model(parse_model("modes a b c d e f g\nvariables x\nequation e: x\n"));
  BOOST_TEST(seven.mode_changes.size() == 16256u);
  BOOST_TEST(seven.well_posed());
  // A caller may lower the budget.
  BOOST_CHECK_THROW(analyse_model(parse_model("modes a b c d e f g\nvariables x\nequation e: x\n"),
                                  1000),
                    LimitExceeded);
}

BOOST_AUTO_TEST_CASE(order_999999_chain_took_a_gigabyte) {
  // The chain had orders 999999; orders are now at most max_derivative_order.
  BOOST_TEST(error_of<LimitExceeded>("variables x\nequation e: x^999999\n") ==
             "m.dae:2:15: error: derivative order 999999 exceeds the limit 10000");
  BOOST_TEST(error_of<LimitExceeded>("variables x\nequation e: x^" + repeat("9", 60) + "\n") ==
             "m.dae:2:15: error: derivative order " + repeat("9", 40) +
                 "... exceeds the limit 10000");
  BOOST_TEST(error_of<LimitExceeded>("variables x\nequation e: x" + repeat("'", 10001) + "\n") ==
             "m.dae:2:14: error: derivative order 10001 exceeds the limit 10000");
  BOOST_TEST(parse_model("variables x\nequation e: x^0010000\n").equations[0].occurrences[0].orders ==
             std::vector<int>{10000});
  BOOST_CHECK_THROW(ModelBuilder().variable("x").equation("e", {{"x", 10001}}).build(),
                    LimitExceeded);
  // At the limit, the same chain is analysed in linear memory: c = 10000 (k + 1) per link.
  ModelAnalysis a = analyse_model(parse_model(high_index_chain(6, "^10000")));
  BOOST_REQUIRE(a.modes[0].result.succeeded());
  BOOST_TEST(a.modes[0].result.max_offset_index == 50000);
}

BOOST_AUTO_TEST_CASE(order_2_to_the_30_through_the_c_api_ran_out_of_memory) {
  const esdirk_int eq[] = {0}, var[] = {0}, order[] = {1 << 30};
  esdirk_int c = -1, d = -1;
  BOOST_TEST(esdirk_structural_sigma(1, 1, 1, eq, var, order, &c, &d, nullptr, nullptr,
                                     nullptr) == ESDIRK_INVALID_ARGUMENT);
  const esdirk_int at_limit[] = {10000};
  BOOST_TEST(esdirk_structural_sigma(1, 1, 1, eq, var, at_limit, &c, &d, nullptr, nullptr,
                                     nullptr) == ESDIRK_SUCCESS);
  BOOST_TEST(c == 0);
  BOOST_TEST(d == 10000);
}

BOOST_AUTO_TEST_CASE(high_index_chain_latent_equations_are_capped) {
  // Σc grows as n^2 / 2: 1000 links list 499 500 latent equations; 2000 links would list
  // about 2e6, beyond max_latent_equations, and the mode fails with `too_large`.
  ModelAnalysis fits = analyse_model(parse_model(high_index_chain(1000)));
  BOOST_REQUIRE(fits.modes[0].result.succeeded());
  BOOST_TEST(fits.modes[0].result.latent_equations.size() == 499500u);
  ModelAnalysis big = analyse_model(parse_model(high_index_chain(2000)));
  const SigmaResult& r = big.modes[0].result;
  BOOST_TEST((r.status == SigmaStatus::too_large));
  BOOST_TEST(contains(r.failure_reason, "more than 1048576 latent equations"), r.failure_reason);
  BOOST_TEST(!big.well_posed());
  BOOST_TEST(contains(text_report(parse_model(high_index_chain(2000)), big),
                      "status: FAILED: the equation offsets sum to more than 1048576"));
}

BOOST_AUTO_TEST_CASE(endless_model_file_filled_the_memory) {
  // read_model_file read the whole file before any check; an endless one never ended.
  try {
    read_model_file("/dev/zero");
    BOOST_FAIL("no LimitExceeded");
  } catch (const LimitExceeded& e) {
    BOOST_TEST(std::string(e.what()) ==
               "/dev/zero:1:1: error: the model text is longer than the limit of 268435456 bytes");
  }
}

BOOST_AUTO_TEST_CASE(declaring_100000_variables_was_quadratic) {
  // Hashed lookups: declaring and using n names is linear (the old linear search took 14 s).
  std::string text = "variables";
  for (int i = 0; i < 100000; ++i) text += " v" + std::to_string(i);
  text += "\nequation e:";
  for (int i = 99999; i >= 0; i -= 7) text += " v" + std::to_string(i) + " v" + std::to_string(i);
  Model m = parse_model(text + "\n");
  BOOST_TEST(m.variables.size() == 100000u);
  BOOST_TEST(m.equations[0].occurrences.size() == 14286u);
  BOOST_TEST(m.equations[0].occurrences[0].variable == 99999);
  BOOST_TEST((m.equations[0].occurrences[0].orders == std::vector<int>{0}));
  BOOST_TEST(error_of("variables a b a\nequation e: a\n") ==
             "m.dae:1:15: error: variable 'a' is declared twice (first at m.dae:1:11)");
}

BOOST_AUTO_TEST_CASE(high_order_in_a_mode_change_was_unfolded_order_by_order) {
  // A derivative of order q became q + 1 instants of the unfolded system; now each occurrence
  // is checked against the variable's two unknown instants. Same result as the clutch's shape.
  Model m = parse_model(
      "modes g\nvariables x y\n"
      "equation a: x^10000 y\n"
      "equation b if g: y x\n"
      "equation c if !g: y\n");
  ModelAnalysis a = analyse_model(m);
  BOOST_REQUIRE(a.mode_changes.size() == 2u);
  for (const auto& mc : a.mode_changes) BOOST_TEST(mc.analysed);
}

// ---- 3. Signed overflow and sizes ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(int_max_equations_overflowed_the_graph_size) {
  BOOST_CHECK_THROW(BipartiteGraph(INT_MAX, 1, {}), std::length_error);
  BOOST_CHECK_THROW(BipartiteGraph(1, INT_MAX, {}), std::length_error);
  try {
    BipartiteGraph(INT_MAX, 1, {});
  } catch (const std::length_error& e) {
    BOOST_TEST(std::string(e.what()) ==
               "BipartiteGraph: 2147483647 equations exceed the limit 67108864");
  }
  const esdirk_int eq[] = {0}, var[] = {0}, order[] = {1};
  BOOST_TEST(esdirk_structural_sigma(INT_MAX, 1, 1, eq, var, order, nullptr, nullptr, nullptr,
                                     nullptr, nullptr) == ESDIRK_INVALID_ARGUMENT);
  BOOST_TEST(esdirk_structural_sigma(1, INT_MAX, 1, eq, var, order, nullptr, nullptr, nullptr,
                                     nullptr, nullptr) == ESDIRK_INVALID_ARGUMENT);
  // Within the size limit but with fewer entries than equations: singular, nothing allocated.
  BOOST_TEST(esdirk_structural_sigma(1 << 26, 1, 1, eq, var, order, nullptr, nullptr, nullptr,
                                     nullptr, nullptr) == ESDIRK_STRUCTURALLY_SINGULAR);
}

BOOST_AUTO_TEST_CASE(large_orders_overflowed_the_offsets) {
  // Orders near INT_MAX made σ + c overflow in the offset iteration; they are refused now, and
  // a scaled matrix is checked in 64 bits.
  std::vector<SignatureEntry> huge{{0, 0, INT_MAX}};
  BOOST_CHECK_THROW(SignatureMatrix(1, 1, huge), std::invalid_argument);
  SignatureMatrix one = to_sigma({{1, 0}, {0, 1}});
  BOOST_CHECK_THROW(one.scaled(INT_MAX), std::invalid_argument);
  BOOST_TEST(one.scaled(10000).order(0, 0) == 10000);
  // The offset iteration of a long chain stops at its work limit instead of running
  // quadratically long; the C API reports it as a size problem.
  std::vector<esdirk_int> e, v, o;
  const int n = 2000;
  for (int i = 0; i + 1 < n; ++i) {
    e.insert(e.end(), {i, i});
    v.insert(v.end(), {i, i + 1});
    o.insert(o.end(), {1, 0});
  }
  e.push_back(n - 1);
  v.push_back(0);
  o.push_back(0);
  BOOST_TEST(esdirk_structural_sigma(n, n, static_cast<esdirk_int>(e.size()), e.data(), v.data(),
                                     o.data(), nullptr, nullptr, nullptr, nullptr,
                                     nullptr) == ESDIRK_INVALID_ARGUMENT);
}

// ---- 6. Messages and output encoding --------------------------------------------------------

BOOST_AUTO_TEST_CASE(too_many_mode_variables_had_no_location) {
  std::string modes = "modes";
  for (int i = 0; i < 17; ++i) modes += " m" + std::to_string(i);
  BOOST_TEST(error_of<LimitExceeded>(modes + "\nvariables x\nequation e: x\n") ==
             "m.dae:1:61: error: too many mode variables (more than 16 cannot be enumerated)");
  auto [status, text] = c_report(modes + "\nvariables x\nequation e: x\n");
  BOOST_TEST(status == ESDIRK_INVALID_ARGUMENT);
  BOOST_TEST(text == "model:1:61: error: too many mode variables (more than 16 cannot be "
                     "enumerated)");
  // A model built in C++ has no location: the plain message.
  ModelBuilder b;
  for (int i = 0; i < 17; ++i) {
    // Not `"m" + std::to_string(i)`: GCC 12 at -O3 warns falsely about it (-Wstringop-overflow).
    std::string name = "m";
    b.mode_variable(name.append(std::to_string(i)));
  }
  b.variable("x").equation("e", {{"x"}});
  BOOST_CHECK_THROW(b.build(), LimitExceeded);
}

BOOST_AUTO_TEST_CASE(json_report_was_not_utf8) {
  // Decision: model text must be UTF-8 (the first bad byte is located); UTF-8 names pass to the
  // JSON unchanged; a C++-built model with other bytes gets U+FFFD escapes in JSON.
  BOOST_TEST(error_of("variables x\xe9\nequation e: x\xe9\n") ==
             "m.dae:1:12: error: the text is not valid UTF-8 (byte 0xe9)");
  BOOST_TEST(error_of("variables x\nequation e: x # \xed\xa0\x80 (a surrogate)\n") ==
             "m.dae:2:17: error: the text is not valid UTF-8 (byte 0xed)");
  Model greek = parse_model("variables \xcf\x89\nequation e: \xcf\x89'\n");
  std::string json = json_report(greek, analyse_model(greek));
  BOOST_TEST(contains(json, "\"\xcf\x89\""));
  BOOST_TEST(fuzz_support::is_utf8(json));
  Model raw = ModelBuilder("m\xff").variable("x\xe9").equation("e\x80", {{"x\xe9"}}).build();
  json = json_report(raw, analyse_model(raw));
  BOOST_TEST(fuzz_support::is_utf8(json));
  BOOST_TEST(contains(json, "\"model\":\"m\\ufffd\""), json);
  BOOST_TEST(contains(json, "\"x\\ufffd\""));
}

BOOST_AUTO_TEST_CASE(names_and_texts_have_limits) {
  BOOST_TEST(error_of<LimitExceeded>("variables " + repeat("x", 1025) + "\nequation e: x\n") ==
             "m.dae:1:11: error: a name of 1025 bytes; the limit is 1024");
  // Existential unknowns are named x^(k) beyond the third derivative (the name used to hold k
  // primes, so an order multiplied the memory of every name).
  Model m = parse_model("variables x\nexistential w\nequation e: x^7 w\nequation f: x w\n");
  ModeAnalysis a = analyse_model(m).modes[0];
  BOOST_TEST((a.existential_system.variable_names == std::vector<std::string>{"x", "x^(7)", "w"}));
}

BOOST_AUTO_TEST_SUITE_END()
