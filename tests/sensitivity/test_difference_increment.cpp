// Difference Jacobians of tiny states (Options::difference_increment): on Dow, u4 is 1e-20 ...
// 1e-9 in the first steps and enters rows whose terms are O(1) and cancel. With MINPACK's
// increment sqrt(eps)|u4| its column was wrong by O(1), and the exact-mode sensitivity
// d x(t)/d u4(0) with it; the error-weighted increment puts both right.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <vector>

#include "sensitivity_fixtures.hpp"
#include "without_jacobians.hpp"

using namespace sens_test;

namespace {

using DowWithoutJacobians = test_helpers::WithoutJacobiansOf<dow::Model>;

// max_i |a_ij - b_ij| / max_i |b_ij| over the differential rows, per column j.
std::vector<double> column_errors(ConstMatrixRef a, ConstMatrixRef b, int rows) {
  std::vector<double> e(static_cast<std::size_t>(b.cols), 0.0);
  for (int j = 0; j < b.cols; ++j) {
    double scale = 0.0, diff = 0.0;
    for (int i = 0; i < rows; ++i) {
      scale = std::max(scale, std::abs(b(i, j)));
      diff = std::max(diff, std::abs(a(i, j) - b(i, j)));
    }
    e[static_cast<std::size_t>(j)] = diff / scale;
  }
  return e;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(difference_increments)

// The same steps (those of an analytic states-only run to 2 h at rtol 1e-8), replayed with
// fifteen directions: analytic Jacobians against differences. On the same steps the schemes
// are the same, so the difference is the Jacobians' alone. Measured (bench_difference_increment):
// d/du4(0) 9.8e-7 (1.8e-4 with the relative increment), the other fourteen <= 4.7e-9 (4.8e-7).
BOOST_AUTO_TEST_CASE(difference_jacobian_columns_of_tiny_states_are_right) {
  const Setup s = dow_setup(2.0);
  dow::Model analytic;
  DowWithoutJacobians differences;
  const esdirk::Options options = replay_options(dow_options(1e-8));
  const std::vector<double> steps = record_steps(analytic, dow_options(1e-8), s);
  BOOST_REQUIRE(steps.size() > 100u);
  const DenseMatrix seed = dow_scaled_seed();
  const DenseMatrix reference = replay_sensitivities(analytic, options, {}, s, steps, seed.cref());
  const DenseMatrix weighted =
      replay_sensitivities(differences, options, {}, s, steps, seed.cref());
  esdirk::Options relative_options = options;
  relative_options.difference_increment = esdirk::DifferenceIncrement::relative;
  const DenseMatrix relative =
      replay_sensitivities(differences, relative_options, {}, s, steps, seed.cref());
  BOOST_REQUIRE(reference.rows() == 10);
  BOOST_REQUIRE(weighted.rows() == 10);
  BOOST_REQUIRE(relative.rows() == 10);
  const std::vector<double> e = column_errors(weighted.cref(), reference.cref(), 6);
  const std::vector<double> old = column_errors(relative.cref(), reference.cref(), 6);
  const int u4 = 3;
  BOOST_TEST_MESSAGE("d/du4(0): " << e[u4] << " (relative increment " << old[u4] << ")");
  BOOST_TEST(e[u4] <= 1e-5);
  BOOST_TEST(old[u4] > 1e-5);  // where it broke
  double others = 0.0, old_others = 0.0;
  for (int j = 0; j < 15; ++j)
    if (j != u4) {
      others = std::max(others, e[static_cast<std::size_t>(j)]);
      old_others = std::max(old_others, old[static_cast<std::size_t>(j)]);
    }
  BOOST_TEST_MESSAGE("other directions: " << others << " (relative increment " << old_others
                                          << ")");
  BOOST_TEST(others <= 5e-8);
  BOOST_TEST(old_others > 5e-8);  // the relative increment spoils u3(0) as well (through u9)
}

BOOST_AUTO_TEST_SUITE_END()
