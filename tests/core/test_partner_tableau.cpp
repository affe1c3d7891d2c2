// The symplectic partner a~_ij = b_j - b_j a_ji / b_i (esdirk/partner_tableau.hpp): a known
// pair in closed form, the symplecticity condition for the library's methods, bad input.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "esdirk/partner_tableau.hpp"

BOOST_AUTO_TEST_SUITE(partner_tableau)

// Alexander's SDIRK2: A = [[g, 0], [1-g, g]], b = (1-g, g); its partner is
// [[1-2g, 0], [1-g, 0]] (Tran & Leok §3.2, checked by hand).
BOOST_AUTO_TEST_CASE(sdirk2_partner_in_closed_form) {
  const double g = 1.0 - 1.0 / std::sqrt(2.0);
  const std::vector<double> a{g, 0.0, 1.0 - g, g}, b{1.0 - g, g};
  const std::vector<double> partner = esdirk::partner_coefficients(2, a, b);
  const std::vector<double> expected{1.0 - 2.0 * g, 0.0, 1.0 - g, 0.0};
  for (std::size_t k = 0; k < 4; ++k) BOOST_TEST(std::abs(partner[k] - expected[k]) <= 4e-16);
  BOOST_TEST(esdirk::symplecticity_defect(2, a, b, partner) <= 4e-16);
  // The method paired with itself is not symplectic: b_i a_ij + b_j a_ji != b_i b_j.
  BOOST_TEST(esdirk::symplecticity_defect(2, a, b, a) > 0.05);
}

BOOST_AUTO_TEST_CASE(library_methods_have_symplectic_partners) {
  for (const esdirk::Tableau& tab : {esdirk::Tableau::esdirk34(), esdirk::Tableau::esdirk23()}) {
    const std::vector<double> partner = esdirk::adjoint_partner_coefficients(tab);
    BOOST_TEST(esdirk::symplecticity_defect(tab.stages, tab.a, tab.b, partner) <= 4e-16);
  }
}

BOOST_AUTO_TEST_CASE(bad_tableaus_are_refused) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Sizes that do not match the stage count.
  BOOST_CHECK_THROW(
      esdirk::partner_coefficients(2, std::vector<double>{1, 0, 0}, std::vector<double>{0.5, 0.5}),
      std::invalid_argument);
  BOOST_CHECK_THROW(
      esdirk::partner_coefficients(2, std::vector<double>{1, 0, 0, 1}, std::vector<double>{1}),
      std::invalid_argument);
  BOOST_CHECK_THROW(esdirk::partner_coefficients(0, {}, {}), std::invalid_argument);
  // Non-finite entries.
  BOOST_CHECK_THROW(
      esdirk::partner_coefficients(1, std::vector<double>{nan}, std::vector<double>{1}),
      std::invalid_argument);
  BOOST_CHECK_THROW(
      esdirk::partner_coefficients(1, std::vector<double>{1}, std::vector<double>{nan}),
      std::invalid_argument);
  // A zero weight: explicit midpoint b = (0, 1); ESDIRK12 has b_1 = 0.
  BOOST_CHECK_THROW(
      esdirk::partner_coefficients(2, std::vector<double>{0, 0, 0.5, 0}, std::vector<double>{0, 1}),
      std::invalid_argument);
  BOOST_CHECK_THROW(esdirk::adjoint_partner_coefficients(esdirk::Tableau::esdirk12()),
                    std::invalid_argument);
  BOOST_CHECK_THROW(
      esdirk::symplecticity_defect(1, std::vector<double>{1}, std::vector<double>{1}, {}),
      std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
