#include "suite_compare.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace esdirk::sbml_suite {

namespace {

// |C - U| / allowed for one point, 0 when it passes (also for equal non-finite values).
double violation_ratio(double expected, double got, double allowed) {
  if (std::isnan(expected) || std::isnan(got)) {
    return std::isnan(expected) && std::isnan(got) ? 0.0 : std::numeric_limits<double>::infinity();
  }
  if (std::isinf(expected) || std::isinf(got))
    return expected == got ? 0.0 : std::numeric_limits<double>::infinity();
  const double difference = std::fabs(expected - got);
  if (difference <= allowed) return 0.0;
  return allowed > 0 ? difference / allowed : std::numeric_limits<double>::infinity();
}

}  // namespace

Comparison compare(const ExpectedResults& expected, const std::vector<double>& computed,
                   double absolute, double relative) {
  const std::size_t columns = expected.columns.size();
  if (computed.size() != expected.times.size() * columns ||
      expected.values.size() != computed.size())
    throw std::invalid_argument("compare: computed values are not times x columns");
  Comparison result;
  for (std::size_t row = 0; row < expected.times.size(); ++row) {
    for (std::size_t column = 0; column < columns; ++column) {
      const double c = expected.value(row, column);
      const double u = computed[row * columns + column];
      const double allowed = absolute + relative * std::fabs(c);
      const double ratio = violation_ratio(c, u, allowed);
      if (ratio == 0.0) continue;
      ++result.failing_points;
      if (result.pass || ratio > result.worst.ratio) {
        result.pass = false;
        result.worst = {expected.columns[column], expected.times[row], c, u, allowed, ratio};
      }
    }
  }
  return result;
}

std::string describe(const Violation& v) {
  char buf[256];
  std::snprintf(
      buf, sizeof buf, "%s at t = %.10g: expected %.10g, got %.10g (|diff| %.3g > allowed %.3g)",
      v.variable.c_str(), v.time, v.expected, v.got, std::fabs(v.expected - v.got), v.allowed);
  return buf;
}

}  // namespace esdirk::sbml_suite
