// The SBML Test Suite's acceptance rule: a computed value U passes against the expected C when
// |C - U| <= absolute + relative |C|, at every output time and for every reported variable.
// Non-finite expectations (a few cases expect NaN or +-INF) pass only against the same value.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "suite_files.hpp"

namespace esdirk::sbml_suite {

// The worst point of a comparison: where |C - U| exceeds the allowed difference by the largest
// factor (infinite when nothing is allowed there, or when a non-finite value does not match).
struct Violation {
  std::string variable;
  double time = 0;
  double expected = 0;
  double got = 0;
  double allowed = 0;  // absolute + relative |C|
  double ratio = 0;    // |C - U| / allowed
};

struct Comparison {
  bool pass = true;
  std::size_t failing_points = 0;  // values outside the rule
  Violation worst;                 // meaningful when !pass
};

// Compares computed values (expected.times.size() rows of expected.columns.size() values,
// row-major, in the order of expected.columns) with the expected ones. Throws
// std::invalid_argument when the sizes disagree.
Comparison compare(const ExpectedResults& expected, const std::vector<double>& computed,
                   double absolute, double relative);

// "S1 at t = 2.5: expected 0.1234, got 0.1301 (|diff| 6.7e-03 > allowed 1.2e-05)"
std::string describe(const Violation& violation);

}  // namespace esdirk::sbml_suite
