#include "esdirk/partner_tableau.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace esdirk {
namespace {

void check_sizes(const char* who, int stages, ConstVector a, ConstVector b) {
  if (stages < 1)
    throw std::invalid_argument(std::string(who) + ": the number of stages must be >= 1");
  if (a.size() != static_cast<std::size_t>(stages) * stages ||
      b.size() != static_cast<std::size_t>(stages))
    throw std::invalid_argument(std::string(who) + ": a tableau of " + std::to_string(stages) +
                                " stages needs " + std::to_string(stages * stages) +
                                " coefficients and " + std::to_string(stages) + " weights, got " +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()));
}

}  // namespace

std::vector<double> partner_coefficients(int stages, ConstVector a, ConstVector b) {
  check_sizes("partner_coefficients", stages, a, b);
  for (double v : a)
    if (!std::isfinite(v))
      throw std::invalid_argument("partner_coefficients: a coefficient a_ij is not finite");
  for (double v : b)
    if (!std::isfinite(v))
      throw std::invalid_argument("partner_coefficients: a weight b_i is not finite");
  const auto s = static_cast<std::size_t>(stages);
  std::vector<double> partner(s * s);
  for (std::size_t i = 0; i < s; ++i) {
    if (b[i] == 0.0)
      throw std::invalid_argument("partner_coefficients: weight b_" + std::to_string(i + 1) +
                                  " is zero, so no symplectic partner with the same weights exists "
                                  "(the zero-weight-safe adjoint recursion does not need one)");
    for (std::size_t j = 0; j < s; ++j) partner[i * s + j] = b[j] - b[j] * a[j * s + i] / b[i];
  }
  return partner;
}

double symplecticity_defect(int stages, ConstVector a, ConstVector b, ConstVector partner) {
  check_sizes("symplecticity_defect", stages, a, b);
  const auto s = static_cast<std::size_t>(stages);
  if (partner.size() != s * s)
    throw std::invalid_argument("symplecticity_defect: the partner needs " + std::to_string(s * s) +
                                " coefficients, got " + std::to_string(partner.size()));
  double worst = 0.0;
  for (std::size_t i = 0; i < s; ++i)
    for (std::size_t j = 0; j < s; ++j)
      worst =
          std::max(worst, std::abs(b[i] * partner[i * s + j] + b[j] * a[j * s + i] - b[i] * b[j]));
  return worst;
}

std::vector<double> adjoint_partner_coefficients(const Tableau& tableau) {
  try {
    return partner_coefficients(tableau.stages, tableau.a, tableau.b);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) + " [" + tableau.name + "]");
  }
}

}  // namespace esdirk
