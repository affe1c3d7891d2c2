#include "esdirk/geometric/rk_tableau.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "esdirk/partner_tableau.hpp"

namespace esdirk::geometric {

void RkTableau::validate() const {
  const std::string who = "RkTableau " + (name.empty() ? std::string("(unnamed)") : name) + ": ";
  if (stages < 1) throw std::invalid_argument(who + "the number of stages must be >= 1");
  const auto s = static_cast<std::size_t>(stages);
  if (a.size() != s * s || b.size() != s || c.size() != s)
    throw std::invalid_argument(who + std::to_string(stages) + " stages need " +
                                std::to_string(s * s) + " coefficients a, " + std::to_string(s) +
                                " weights b and " + std::to_string(s) + " nodes c; got " +
                                std::to_string(a.size()) + ", " + std::to_string(b.size()) +
                                " and " + std::to_string(c.size()));
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!std::isfinite(a[k]))
      throw std::invalid_argument(who + "a_" + std::to_string(k / s + 1) +
                                  std::to_string(k % s + 1) + " is not finite");
  for (std::size_t i = 0; i < s; ++i) {
    if (!std::isfinite(b[i]))
      throw std::invalid_argument(who + "b_" + std::to_string(i + 1) + " is not finite");
    if (!std::isfinite(c[i]))
      throw std::invalid_argument(who + "c_" + std::to_string(i + 1) + " is not finite");
  }
}

bool RkTableau::stiffly_accurate() const {
  if (std::abs(c.back() - 1.0) > 0.0) return false;
  for (int j = 0; j < stages; ++j)
    if (A(stages - 1, j) != b[static_cast<std::size_t>(j)]) return false;
  return true;
}

bool RkTableau::has_zero_weight() const {
  return std::any_of(b.begin(), b.end(), [](double v) { return v == 0.0; });
}

bool RkTableau::lower_triangular() const {
  for (int i = 0; i < stages; ++i)
    for (int j = i + 1; j < stages; ++j)
      if (A(i, j) != 0.0) return false;
  return true;
}

PrkPair symplectic_pair(const RkTableau& method) {
  method.validate();
  PrkPair pair;
  pair.name = method.name + " + symplectic partner";
  pair.method = method;
  try {
    pair.partner = partner_coefficients(method.stages, method.a, method.b);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) + " [" + method.name + "]");
  }
  pair.symplecticity_defect = symplecticity_defect(method.stages, method.a, method.b, pair.partner);
  return pair;
}

PrkPair prk_pair(const RkTableau& method, std::vector<double> partner, std::string name) {
  method.validate();
  for (double v : partner)
    if (!std::isfinite(v))
      throw std::invalid_argument("prk_pair: a partner coefficient is not finite");
  PrkPair pair;
  pair.name = std::move(name);
  pair.method = method;
  pair.symplecticity_defect = symplecticity_defect(method.stages, method.a, method.b, partner);
  pair.partner = std::move(partner);
  return pair;
}

PrkPair pghvi1() {
  PrkPair pair = symplectic_pair(backward_euler());
  pair.name = "PGHVI-1";
  return pair;
}

PrkPair backward_euler_both() { return prk_pair(backward_euler(), {1.0}, "BE-1"); }

}  // namespace esdirk::geometric
