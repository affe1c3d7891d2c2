// The built-in tableaus against the order conditions (B, C, D simplifying assumptions, which
// with Butcher's theorem give the classical order) and against a second, printed copy
// (Hairer & Wanner, Solving ODEs II, Tables IV.5.1-5.6), and their partners (test T1).

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "esdirk/geometric/rk_tableau.hpp"
#include "esdirk/options.hpp"

namespace g = esdirk::geometric;

namespace {

constexpr double tight = 4e-16;

// max_k max_i |B/C/D residual| for k = 1..q.
double B_residual(const g::RkTableau& t, int q) {
  double worst = 0.0;
  for (int k = 1; k <= q; ++k) {
    long double sum = 0.0L;
    for (int i = 0; i < t.stages; ++i)
      sum += (long double)t.b[i] * std::pow((long double)t.c[i], k - 1);
    worst = std::max(worst, (double)std::fabs(sum - 1.0L / k));
  }
  return worst;
}
double C_residual(const g::RkTableau& t, int q) {
  double worst = 0.0;
  for (int k = 1; k <= q; ++k)
    for (int i = 0; i < t.stages; ++i) {
      long double sum = 0.0L;
      for (int j = 0; j < t.stages; ++j)
        sum += (long double)t.A(i, j) * std::pow((long double)t.c[j], k - 1);
      worst = std::max(worst, (double)std::fabs(sum - std::pow((long double)t.c[i], k) / k));
    }
  return worst;
}
double D_residual(const g::RkTableau& t, int q) {
  double worst = 0.0;
  for (int k = 1; k <= q; ++k)
    for (int j = 0; j < t.stages; ++j) {
      long double sum = 0.0L;
      for (int i = 0; i < t.stages; ++i)
        sum += (long double)t.b[i] * std::pow((long double)t.c[i], k - 1) * (long double)t.A(i, j);
      worst = std::max(worst,
                       (double)std::fabs(sum - (long double)t.b[j] *
                                                   (1.0L - std::pow((long double)t.c[j], k)) / k));
    }
  return worst;
}

// The order conditions of the trees up to order 4 written out (independent of B, C, D).
double tree_residual(const g::RkTableau& t) {
  const int s = t.stages;
  std::vector<long double> Ac(s, 0.0L), Ac2(s, 0.0L), AAc(s, 0.0L);
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < s; ++j) {
      Ac[i] += (long double)t.A(i, j) * t.c[j];
      Ac2[i] += (long double)t.A(i, j) * t.c[j] * t.c[j];
    }
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < s; ++j) AAc[i] += (long double)t.A(i, j) * Ac[j];
  long double sums[8] = {};
  for (int i = 0; i < s; ++i) {
    const long double b = t.b[i], c = t.c[i];
    sums[0] += b;
    sums[1] += b * c;
    sums[2] += b * c * c;
    sums[3] += b * Ac[i];
    sums[4] += b * c * c * c;
    sums[5] += b * c * Ac[i];
    sums[6] += b * Ac2[i];
    sums[7] += b * AAc[i];
  }
  const long double exact[8] = {1.0L,  0.5L,   1.0L / 3,  1.0L / 6,
                                0.25L, 0.125L, 1.0L / 12, 1.0L / 24};
  const int conditions[5] = {0, 1, 2, 4, 8};  // trees of order <= 1, 2, 3, 4
  double worst = 0.0;
  for (int k = 0; k < conditions[std::min(t.order, 4)]; ++k)
    worst = std::max(worst, (double)std::fabs(sums[k] - exact[k]));
  return worst;
}

void check_tableau(const g::RkTableau& t, const std::vector<double>& a,
                   const std::vector<double>& b, const std::vector<double>& c) {
  BOOST_TEST_CONTEXT(t.name) {
    for (std::size_t k = 0; k < a.size(); ++k) BOOST_TEST(std::abs(t.a[k] - a[k]) <= tight);
    for (std::size_t k = 0; k < b.size(); ++k) BOOST_TEST(std::abs(t.b[k] - b[k]) <= tight);
    for (std::size_t k = 0; k < c.size(); ++k) BOOST_TEST(std::abs(t.c[k] - c[k]) <= tight);
  }
}

double partner_scale(const g::RkTableau& t) {
  double m = 1.0;
  for (double bi : t.b)
    for (double bj : t.b) m = std::max(m, std::abs(bi * bj));
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tableaus)

// Collocation methods: B(2s), C(s), D(s) for Gauss; B(2s-1), C(s), D(s-1) for Radau IIA;
// B(2s-2), C(s), D(s-2) for Lobatto IIIA; B(2s-2), C(s-2), D(s) for Lobatto IIIB.
BOOST_AUTO_TEST_CASE(families_satisfy_their_simplifying_assumptions) {
  for (int s = 1; s <= 4; ++s) {
    const g::RkTableau t = g::gauss_legendre(s);
    BOOST_TEST_CONTEXT(t.name) {
      BOOST_TEST(t.order == 2 * s);
      BOOST_TEST(B_residual(t, 2 * s) <= 2e-16);
      BOOST_TEST(C_residual(t, s) <= 2e-16);
      BOOST_TEST(D_residual(t, s) <= 2e-16);
      BOOST_TEST(B_residual(t, 2 * s + 1) > 1e-6);  // and not order 2s + 1
      BOOST_TEST(tree_residual(t) <= 2e-16);
    }
  }
  for (int s = 1; s <= 3; ++s) {
    const g::RkTableau t = g::radau_iia(s);
    BOOST_TEST_CONTEXT(t.name) {
      BOOST_TEST(B_residual(t, 2 * s - 1) <= 2e-16);
      BOOST_TEST(C_residual(t, s) <= 2e-16);
      BOOST_TEST(D_residual(t, s - 1) <= 2e-16);
      BOOST_TEST(B_residual(t, 2 * s) > 1e-6);
      BOOST_TEST(tree_residual(t) <= 2e-16);
      BOOST_TEST(t.stiffly_accurate());
    }
  }
  for (int s = 2; s <= 4; ++s) {
    const g::RkTableau A = g::lobatto_iiia(s), B = g::lobatto_iiib(s);
    BOOST_TEST_CONTEXT(A.name) {
      BOOST_TEST(B_residual(A, 2 * s - 2) <= 2e-16);
      BOOST_TEST(C_residual(A, s) <= 2e-16);
      BOOST_TEST(D_residual(A, s - 2) <= 2e-16);
      BOOST_TEST(tree_residual(A) <= 2e-16);
      BOOST_TEST(A.stiffly_accurate());
    }
    BOOST_TEST_CONTEXT(B.name) {
      BOOST_TEST(B_residual(B, 2 * s - 2) <= 2e-16);
      BOOST_TEST(C_residual(B, s - 2) <= 2e-16);
      BOOST_TEST(D_residual(B, s) <= 2e-16);
      BOOST_TEST(tree_residual(B) <= 2e-16);
    }
  }
  for (const char* name :
       {"esdirk23", "esdirk34", "rk4", "sdirk2", "explicit_midpoint", "backward_euler"}) {
    const g::RkTableau t = g::tableau_by_name(name);
    BOOST_TEST_CONTEXT(t.name) { BOOST_TEST(tree_residual(t) <= 1e-15); }
  }
}

// A second copy of the coefficients, as printed by Hairer & Wanner (Tables IV.5.1-5.6).
BOOST_AUTO_TEST_CASE(families_match_the_printed_tables) {
  const double r3 = std::sqrt(3.0), r15 = std::sqrt(15.0), r6 = std::sqrt(6.0);
  check_tableau(g::gauss_legendre(1), {0.5}, {1.0}, {0.5});
  check_tableau(g::gauss_legendre(2), {0.25, 0.25 - r3 / 6, 0.25 + r3 / 6, 0.25}, {0.5, 0.5},
                {0.5 - r3 / 6, 0.5 + r3 / 6});
  check_tableau(g::gauss_legendre(3),
                {5.0 / 36, 2.0 / 9 - r15 / 15, 5.0 / 36 - r15 / 30, 5.0 / 36 + r15 / 24, 2.0 / 9,
                 5.0 / 36 - r15 / 24, 5.0 / 36 + r15 / 30, 2.0 / 9 + r15 / 15, 5.0 / 36},
                {5.0 / 18, 4.0 / 9, 5.0 / 18}, {0.5 - r15 / 10, 0.5, 0.5 + r15 / 10});
  check_tableau(g::radau_iia(1), {1.0}, {1.0}, {1.0});
  check_tableau(g::radau_iia(2), {5.0 / 12, -1.0 / 12, 0.75, 0.25}, {0.75, 0.25}, {1.0 / 3, 1.0});
  check_tableau(
      g::radau_iia(3),
      {(88 - 7 * r6) / 360, (296 - 169 * r6) / 1800, (-2 + 3 * r6) / 225, (296 + 169 * r6) / 1800,
       (88 + 7 * r6) / 360, (-2 - 3 * r6) / 225, (16 - r6) / 36, (16 + r6) / 36, 1.0 / 9},
      {(16 - r6) / 36, (16 + r6) / 36, 1.0 / 9}, {(4 - r6) / 10, (4 + r6) / 10, 1.0});
  check_tableau(g::lobatto_iiia(2), {0, 0, 0.5, 0.5}, {0.5, 0.5}, {0, 1});
  check_tableau(g::lobatto_iiia(3),
                {0, 0, 0, 5.0 / 24, 1.0 / 3, -1.0 / 24, 1.0 / 6, 2.0 / 3, 1.0 / 6},
                {1.0 / 6, 2.0 / 3, 1.0 / 6}, {0, 0.5, 1});
  check_tableau(g::lobatto_iiib(2), {0.5, 0, 0.5, 0}, {0.5, 0.5}, {0, 1});
  check_tableau(g::lobatto_iiib(3),
                {1.0 / 6, -1.0 / 6, 0, 1.0 / 6, 1.0 / 3, 0, 1.0 / 6, 5.0 / 6, 0},
                {1.0 / 6, 2.0 / 3, 1.0 / 6}, {0, 0.5, 1});
  // Lobatto IIIA(4), first and last rows (Hairer-Wanner Table IV.5.7).
  const double r5 = std::sqrt(5.0);
  const g::RkTableau l4 = g::lobatto_iiia(4);
  BOOST_TEST(std::abs(l4.A(1, 0) - (11 + r5) / 120) <= tight);
  BOOST_TEST(std::abs(l4.A(1, 1) - (25 - r5) / 120) <= tight);
  BOOST_TEST(std::abs(l4.A(1, 2) - (25 - 13 * r5) / 120) <= tight);
  BOOST_TEST(std::abs(l4.A(1, 3) - (-1 + r5) / 120) <= tight);
  BOOST_TEST(std::abs(l4.b[1] - 5.0 / 12) <= tight);
}

// T1: the partner satisfies b_i a~_ij + b_j a_ji - b_i b_j = 0 to 1 ulp for every family.
BOOST_AUTO_TEST_CASE(partners_are_symplectic_to_one_ulp) {
  for (const std::string& name : g::tableau_names()) {
    const g::RkTableau t = g::tableau_by_name(name);
    BOOST_TEST_CONTEXT(name) {
      if (t.has_zero_weight()) {
        BOOST_CHECK_THROW(g::symplectic_pair(t), std::invalid_argument);
        continue;
      }
      const g::PrkPair pair = g::symplectic_pair(t);
      BOOST_TEST(pair.symplecticity_defect <= tight * partner_scale(t));
      BOOST_TEST(pair.symplectic());
    }
  }
}

BOOST_AUTO_TEST_CASE(known_partners) {
  // Gauss is its own partner.
  for (int s = 1; s <= 4; ++s) {
    const g::PrkPair pair = g::symplectic_pair(g::gauss_legendre(s));
    for (std::size_t k = 0; k < pair.partner.size(); ++k)
      BOOST_TEST(std::abs(pair.partner[k] - pair.method.a[k]) <= 1e-15);
  }
  // Lobatto IIIA's partner is Lobatto IIIB (computed independently from D(s)).
  for (int s = 2; s <= 4; ++s) {
    const g::PrkPair pair = g::symplectic_pair(g::lobatto_iiia(s));
    const g::RkTableau iiib = g::lobatto_iiib(s);
    for (std::size_t k = 0; k < pair.partner.size(); ++k)
      BOOST_TEST(std::abs(pair.partner[k] - iiib.a[k]) <= 1e-15);
  }
  // PGHVI-1: backward Euler with the partner 0; BE-1 pairs it with itself (defect 1).
  BOOST_TEST(g::pghvi1().partner[0] == 0.0);
  BOOST_TEST(g::pghvi1().symplectic());
  BOOST_TEST(g::backward_euler_both().symplecticity_defect == 1.0);
  BOOST_TEST(!g::backward_euler_both().symplectic());
  // Alexander's SDIRK2: [[1-2g, 0], [1-g, 0]].
  const double gm = 1.0 - 1.0 / std::sqrt(2.0);
  const g::PrkPair sd = g::symplectic_pair(g::sdirk2());
  BOOST_TEST(std::abs(sd.partner[0] - (1 - 2 * gm)) <= tight);
  BOOST_TEST(sd.partner[1] == 0.0);
  BOOST_TEST(std::abs(sd.partner[2] - (1 - gm)) <= tight);
  BOOST_TEST(std::abs(sd.partner[3]) <= tight);
}

BOOST_AUTO_TEST_CASE(structure_flags) {
  BOOST_TEST(g::radau_iia(3).stiffly_accurate());
  BOOST_TEST(!g::gauss_legendre(2).stiffly_accurate());
  BOOST_TEST(g::from_esdirk(esdirk::Tableau::esdirk34()).stiffly_accurate());
  BOOST_TEST(g::from_esdirk(esdirk::Tableau::esdirk34()).lower_triangular());
  BOOST_TEST(!g::gauss_legendre(2).lower_triangular());
  BOOST_TEST(g::explicit_midpoint().has_zero_weight());
  BOOST_TEST(g::from_esdirk(esdirk::Tableau::esdirk12()).has_zero_weight());
}

// Regression: the default Options::method is "auto" (no stages until an Integrator resolves
// it); from_esdirk(options.method) failed with a message about the number of stages. "auto" is
// now a MethodChoice, never a tableau: from_esdirk(options.method) does not compile, and asking
// the choice for its tableau names where the resolved method is.
BOOST_AUTO_TEST_CASE(from_esdirk_names_the_unresolved_auto_method) {
  static_assert(!std::is_convertible_v<esdirk::MethodChoice, esdirk::Tableau>);
  try {
    (void)g::from_esdirk(esdirk::Options{}.method.tableau());
    BOOST_FAIL("from_esdirk accepted \"auto\"");
  } catch (const std::logic_error& e) {
    BOOST_TEST(std::string(e.what()).find("resolved_method") != std::string::npos);
  }
  esdirk::Options tight;
  tight.rtol = 1e-8;
  BOOST_TEST(g::from_esdirk(tight.resolved_method()).name == "ESDIRK436");
}

BOOST_AUTO_TEST_SUITE_END()
