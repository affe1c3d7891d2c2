// check_jacobian_vector_product: the user's J v against central differences of f and g along a
// few fixed directions (esdirk/jacobian_vector_check.hpp; doc/linear-solvers-guide.md).

#include "esdirk/jacobian_vector_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

double norm2(const std::vector<double>& v) {
  double sum = 0.0;
  for (double a : v) sum += a * a;
  return std::sqrt(sum);
}

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double a) { return std::isfinite(a); });
}

// w in [-1, 1] from a fixed linear congruential sequence: every run checks the same directions.
double next_weight(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) * 0x1p-52 - 1.0;
}

int evaluate(Problem& problem, double t, const std::vector<double>& y, int nx, ConstVector p,
             std::vector<double>& out) {
  const auto unx = static_cast<std::size_t>(nx), unz = y.size() - unx;
  int code = problem.evaluate(t, ConstVector(y.data(), unx), ConstVector(y.data() + nx, unz), p,
                              Vector(out.data(), unx), Vector(out.data() + nx, unz));
  return code == 0 && !all_finite(out) ? 1 : code;
}

}  // namespace

JacobianVectorProductCheck check_jacobian_vector_product(Problem& problem, double t, ConstVector x, ConstVector z,
                                                         ConstVector p, const JacobianCheckOptions& options,
                                                         int directions) {
  const int nx = problem.nx(), n = problem.size();
  if (static_cast<int>(x.size()) != nx || static_cast<int>(z.size()) != problem.nz() ||
      static_cast<int>(p.size()) != problem.np())
    throw std::invalid_argument("check_jacobian_vector_product: x, z, p must have sizes nx, nz, np");
  if (!problem.has_jacobian_vector_product())
    throw std::invalid_argument("check_jacobian_vector_product: the problem has no jacobian_vector_product()");
  if (directions < 1) throw std::invalid_argument("check_jacobian_vector_product: directions must be >= 1");
  const auto un = static_cast<std::size_t>(n);
  std::vector<double> y(x.begin(), x.end()), v(un), supplied(un), plus(un), minus(un), shifted(un);
  y.insert(y.end(), z.begin(), z.end());
  const double y_norm = norm2(y);
  JacobianVectorProductCheck report;
  auto fail = [&](const std::string& message) {
    report.ok = false;
    report.message = message;
    return report;
  };
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int d = 0; d < directions; ++d) {
    for (int i = 0; i < n; ++i) v[i] = next_weight(state) * (1.0 + std::abs(y[i]));
    const std::string which = "direction " + std::to_string(d) + " at t = " + format_number(t);
    int code = problem.jacobian_vector_product(t, x, z, p, v, supplied);
    if (code == 0 && !all_finite(supplied)) code = 1;
    if (code != 0)
      return fail("jacobian_vector_product " + std::string(code < 0 ? "returned a fatal code" : "failed or was not finite") +
                  " (" + which + ")");
    const double s = std::cbrt(std::numeric_limits<double>::epsilon()) * (1.0 + y_norm) / norm2(v);
    for (int i = 0; i < n; ++i) shifted[i] = y[i] + s * v[i];
    code = evaluate(problem, t, shifted, nx, p, plus);
    for (int i = 0; i < n && code == 0; ++i) shifted[i] = y[i] - s * v[i];
    if (code == 0) code = evaluate(problem, t, shifted, nx, p, minus);
    if (code != 0)
      return fail("f/g failed or were not finite near the point, so J v could not be differenced (" + which + ")");
    double scale = 0.0;
    for (int i = 0; i < n; ++i) {
      plus[i] = (plus[i] - minus[i]) / (2.0 * s);  // the difference quotient
      scale = std::max(scale, std::abs(plus[i]));
    }
    for (int i = 0; i < n; ++i) {
      const double a = supplied[i], b = plus[i];
      const double allowed = options.relative_tolerance * std::max(std::abs(a), std::abs(b)) +
                             options.absolute_tolerance * scale;
      const double error = allowed > 0.0 ? std::abs(a - b) / allowed : (a == b ? 0.0 : std::numeric_limits<double>::infinity());
      if (error > report.worst_error) {
        report.worst_error = error;
        report.worst_direction = d;
        report.worst_row = i;
        report.supplied = a;
        report.finite_difference = b;
      }
    }
  }
  if (report.worst_error <= 1.0) return report;
  report.equation = problem.equation_name(report.worst_row);
  return fail("jacobian_vector_product disagrees with central differences of f and g: (J v)[" + report.equation +
              "] = " + format_number(report.supplied) + ", differences " + format_number(report.finite_difference) +
              " (direction " + std::to_string(report.worst_direction) + ", " + format_number(report.worst_error) +
              " times the tolerance)");
}

}  // namespace esdirk
