// The built-in tableaus. Collocation methods are computed from their nodes in long double
// (64-bit mantissa), so every coefficient is the double nearest to the exact value or next to
// it; tests/geometric checks them against the order conditions and a second, printed copy.

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

#include "esdirk/geometric/rk_tableau.hpp"

namespace esdirk::geometric {
namespace {

using Real = long double;

// Solves M x = r (n <= 4) by Gaussian elimination with partial pivoting.
std::vector<Real> solve(std::vector<std::vector<Real>> M, std::vector<Real> r) {
  const std::size_t n = r.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::fabs(M[i][k]) > std::fabs(M[p][k])) p = i;
    std::swap(M[k], M[p]);
    std::swap(r[k], r[p]);
    for (std::size_t i = k + 1; i < n; ++i) {
      const Real m = M[i][k] / M[k][k];
      for (std::size_t j = k; j < n; ++j) M[i][j] -= m * M[k][j];
      r[i] -= m * r[k];
    }
  }
  std::vector<Real> x(n);
  for (std::size_t k = n; k-- > 0;) {
    Real sum = r[k];
    for (std::size_t j = k + 1; j < n; ++j) sum -= M[k][j] * x[j];
    x[k] = sum / M[k][k];
  }
  return x;
}

// Weights from B(s): sum_j b_j c_j^(k-1) = 1/k, k = 1..s.
std::vector<Real> quadrature_weights(const std::vector<Real>& c) {
  const std::size_t s = c.size();
  std::vector<std::vector<Real>> M(s, std::vector<Real>(s));
  std::vector<Real> r(s);
  for (std::size_t k = 0; k < s; ++k) {
    for (std::size_t j = 0; j < s; ++j) M[k][j] = std::pow(c[j], static_cast<Real>(k));
    r[k] = 1.0L / static_cast<Real>(k + 1);
  }
  return solve(M, r);
}

RkTableau make(const std::string& name, int order, const std::vector<Real>& c,
               const std::vector<std::vector<Real>>& A, const std::vector<Real>& b) {
  RkTableau t;
  t.name = name;
  t.order = order;
  t.stages = static_cast<int>(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    t.c.push_back(static_cast<double>(c[i]));
    t.b.push_back(static_cast<double>(b[i]));
    for (std::size_t j = 0; j < c.size(); ++j) t.a.push_back(static_cast<double>(A[i][j]));
  }
  // Rows that must sum exactly to c (explicit first stages, stiffly accurate last rows) do so
  // already; for the others the long-double rounding keeps |sum - c| within a few ulp.
  t.validate();
  return t;
}

// Collocation: C(s), sum_j a_ij c_j^(k-1) = c_i^k / k, and B(s).
RkTableau collocation(const std::string& name, int order, const std::vector<Real>& c) {
  const std::size_t s = c.size();
  std::vector<std::vector<Real>> M(s, std::vector<Real>(s)), A(s, std::vector<Real>(s));
  for (std::size_t k = 0; k < s; ++k)
    for (std::size_t j = 0; j < s; ++j) M[k][j] = std::pow(c[j], static_cast<Real>(k));
  for (std::size_t i = 0; i < s; ++i) {
    std::vector<Real> r(s);
    for (std::size_t k = 0; k < s; ++k)
      r[k] = std::pow(c[i], static_cast<Real>(k + 1)) / static_cast<Real>(k + 1);
    A[i] = solve(M, r);
  }
  return make(name, order, c, A, quadrature_weights(c));
}

std::vector<Real> lobatto_nodes(int s) {
  switch (s) {
    case 2:
      return {0.0L, 1.0L};
    case 3:
      return {0.0L, 0.5L, 1.0L};
    case 4: {
      const Real r = std::sqrt(5.0L) / 10.0L;
      return {0.0L, 0.5L - r, 0.5L + r, 1.0L};
    }
    default:
      throw std::invalid_argument("Lobatto: 2 to 4 stages are built in, not " + std::to_string(s));
  }
}

}  // namespace

RkTableau gauss_legendre(int s) {
  std::vector<Real> c;
  switch (s) {
    case 1:
      c = {0.5L};
      break;
    case 2:
      c = {0.5L - std::sqrt(3.0L) / 6.0L, 0.5L + std::sqrt(3.0L) / 6.0L};
      break;
    case 3:
      c = {0.5L - std::sqrt(15.0L) / 10.0L, 0.5L, 0.5L + std::sqrt(15.0L) / 10.0L};
      break;
    case 4: {
      // Roots of the Legendre polynomial P_4 on [-1, 1]: +-sqrt(3/7 -+ 2/7 sqrt(6/5)).
      const Real inner = std::sqrt(3.0L / 7.0L - 2.0L / 7.0L * std::sqrt(6.0L / 5.0L));
      const Real outer = std::sqrt(3.0L / 7.0L + 2.0L / 7.0L * std::sqrt(6.0L / 5.0L));
      c = {(1 - outer) / 2, (1 - inner) / 2, (1 + inner) / 2, (1 + outer) / 2};
      break;
    }
    default:
      throw std::invalid_argument("gauss_legendre: 1 to 4 stages are built in, not " +
                                  std::to_string(s));
  }
  return collocation("Gauss-Legendre " + std::to_string(s), 2 * s, c);
}

RkTableau radau_iia(int s) {
  std::vector<Real> c;
  switch (s) {
    case 1:
      c = {1.0L};
      break;
    case 2:
      c = {1.0L / 3.0L, 1.0L};
      break;
    case 3:
      c = {(4.0L - std::sqrt(6.0L)) / 10.0L, (4.0L + std::sqrt(6.0L)) / 10.0L, 1.0L};
      break;
    default:
      throw std::invalid_argument("radau_iia: 1 to 3 stages are built in, not " +
                                  std::to_string(s));
  }
  return collocation("Radau IIA " + std::to_string(s), 2 * s - 1, c);
}

RkTableau lobatto_iiia(int s) {
  return collocation("Lobatto IIIA " + std::to_string(s), 2 * s - 2, lobatto_nodes(s));
}

RkTableau lobatto_iiib(int s) {
  // D(s): sum_i b_i c_i^(k-1) a_ij = b_j (1 - c_j^k) / k, k = 1..s, one system per column j.
  const std::vector<Real> c = lobatto_nodes(s);
  const std::vector<Real> b = quadrature_weights(c);
  const auto n = c.size();
  std::vector<std::vector<Real>> M(n, std::vector<Real>(n)), A(n, std::vector<Real>(n));
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t i = 0; i < n; ++i) M[k][i] = b[i] * std::pow(c[i], static_cast<Real>(k));
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<Real> r(n);
    for (std::size_t k = 0; k < n; ++k)
      r[k] = b[j] * (1.0L - std::pow(c[j], static_cast<Real>(k + 1))) / static_cast<Real>(k + 1);
    const std::vector<Real> column = solve(M, r);
    for (std::size_t i = 0; i < n; ++i) A[i][j] = column[i];
  }
  // The last column is zero in exact arithmetic; rounding leaves ~1e-20: make it exact.
  for (std::size_t i = 0; i < n; ++i) A[i][n - 1] = 0.0L;
  return make("Lobatto IIIB " + std::to_string(s), 2 * s - 2, c, A, b);
}

RkTableau backward_euler() {
  RkTableau t = radau_iia(1);
  t.name = "backward Euler";
  return t;
}

RkTableau from_esdirk(const Tableau& tableau) {
  RkTableau t;
  t.name = tableau.name;
  t.stages = tableau.stages;
  t.order = tableau.order;
  t.a = tableau.a;
  t.b = tableau.b;
  t.c = tableau.c;
  t.validate();
  return t;
}

RkTableau explicit_midpoint() {
  RkTableau t{"explicit midpoint", 2, 2, {0.0, 0.0, 0.5, 0.0}, {0.0, 1.0}, {0.0, 0.5}};
  t.validate();
  return t;
}

RkTableau classical_rk4() {
  RkTableau t{"classical RK4",
              4,
              4,
              {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0},
              {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6},
              {0, 0.5, 0.5, 1}};
  t.validate();
  return t;
}

RkTableau sdirk2() {
  const double g = 1.0 - 1.0 / std::sqrt(2.0);
  RkTableau t{"SDIRK2 (Alexander)", 2, 2, {g, 0.0, 1.0 - g, g}, {1.0 - g, g}, {g, 1.0}};
  t.validate();
  return t;
}

namespace {
const std::map<std::string, std::function<RkTableau()>>& registry() {
  static const std::map<std::string, std::function<RkTableau()>> table{
      {"gauss1", [] { return gauss_legendre(1); }},
      {"gauss2", [] { return gauss_legendre(2); }},
      {"gauss3", [] { return gauss_legendre(3); }},
      {"gauss4", [] { return gauss_legendre(4); }},
      {"radau1", [] { return radau_iia(1); }},
      {"radau2", [] { return radau_iia(2); }},
      {"radau3", [] { return radau_iia(3); }},
      {"lobatto_iiia2", [] { return lobatto_iiia(2); }},
      {"lobatto_iiia3", [] { return lobatto_iiia(3); }},
      {"lobatto_iiia4", [] { return lobatto_iiia(4); }},
      {"lobatto_iiib2", [] { return lobatto_iiib(2); }},
      {"lobatto_iiib3", [] { return lobatto_iiib(3); }},
      {"lobatto_iiib4", [] { return lobatto_iiib(4); }},
      {"backward_euler", [] { return backward_euler(); }},
      {"esdirk12", [] { return from_esdirk(Tableau::esdirk12()); }},
      {"esdirk23", [] { return from_esdirk(Tableau::esdirk23()); }},
      {"esdirk34", [] { return from_esdirk(Tableau::esdirk34()); }},
      {"explicit_midpoint", [] { return explicit_midpoint(); }},
      {"rk4", [] { return classical_rk4(); }},
      {"sdirk2", [] { return sdirk2(); }}};
  return table;
}
}  // namespace

RkTableau tableau_by_name(const std::string& name) {
  const auto it = registry().find(name);
  if (it == registry().end())
    throw std::invalid_argument("tableau_by_name: unknown tableau '" + name + "'");
  return it->second();
}

std::vector<std::string> tableau_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  return names;
}

}  // namespace esdirk::geometric
