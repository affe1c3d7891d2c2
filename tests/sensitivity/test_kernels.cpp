// The small dense kernels of the sensitivity module against plain loops: the blocked product
// (vector lanes, two columns at a time, padded rows) gives the bits of the triple loop for every
// row count around the block sizes, leaves the rest of C untouched, and honours alpha and
// accumulate; the column max-norms and the finiteness test see every entry, tails included.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "matrix_kernels.hpp"

namespace {

std::vector<double> random_values(std::size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(size);
  for (double& x : v) x = u(rng);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sensitivity_kernels)

BOOST_AUTO_TEST_CASE(blocked_product_equals_the_triple_loop) {
  for (int rows : {1, 3, 4, 5, 8, 9, 12, 13, 16, 17, 20, 33})
    for (int inner : {1, 7, 10, 64, 65})
      for (int cols : {1, 2, 3, 15})
        for (bool accumulate : {false, true}) {
          BOOST_TEST_INFO("rows " << rows << " inner " << inner << " cols " << cols << " acc " << accumulate);
          const int row_begin = 2, a_rows = rows + 3, ldc = rows + 2;
          std::vector<double> a = random_values(static_cast<std::size_t>(a_rows) * inner, 1u + rows);
          std::vector<double> b = random_values(static_cast<std::size_t>(inner) * cols, 2u + inner);
          std::vector<double> c = random_values(static_cast<std::size_t>(ldc) * cols, 3u + cols);
          const std::vector<double> c0 = c;
          const double alpha = -0.75;
          esdirk::detail::multiply(esdirk::ConstMatrixRef{a.data(), a_rows, inner, a_rows}, row_begin,
                                   esdirk::ConstMatrixRef{b.data(), inner, cols, inner},
                                   esdirk::MatrixRef{c.data(), rows, cols, ldc}, alpha, accumulate);
          bool same = true, untouched = true;
          double worst = 0.0;
          for (int j = 0; j < cols; ++j) {
            for (int i = 0; i < rows; ++i) {
              double sum = 0.0;
              for (int k = 0; k < inner; ++k)
                sum += a[static_cast<std::size_t>(k) * a_rows + row_begin + i] * b[static_cast<std::size_t>(j) * inner + k];
              const std::size_t q = static_cast<std::size_t>(j) * ldc + i;
              const double expected = accumulate ? c0[q] + alpha * sum : alpha * sum;
              same = same && c[q] == expected;
              worst = std::max(worst, std::abs(c[q] - expected));
            }
            for (int i = rows; i < ldc; ++i) {
              const std::size_t q = static_cast<std::size_t>(j) * ldc + i;
              untouched = untouched && c[q] == c0[q];
            }
          }
          // Up to 64 inner columns the vectorized kernel runs (same bits); above, plain loops
          // that scale b first (rounding only).
          if (inner <= 64)
            BOOST_TEST(same);
          else
            BOOST_TEST(worst <= 1e-13);
          BOOST_TEST(untouched);
        }
}

BOOST_AUTO_TEST_CASE(column_max_norms_and_finiteness_see_every_entry) {
  for (int rows : {1, 3, 4, 5, 8, 10, 11}) {
    const int cols = 3;
    std::vector<double> m = random_values(static_cast<std::size_t>(rows) * cols, 7u + rows);
    const std::vector<double> w = random_values(static_cast<std::size_t>(rows), 9u);
    std::vector<double> out(cols);
    esdirk::detail::column_weighted_max(esdirk::ConstMatrixRef{m.data(), rows, cols, rows}, w.data(), out.data());
    for (int j = 0; j < cols; ++j) {
      double expected = 0.0;
      for (int i = 0; i < rows; ++i)
        expected = std::max(expected, std::abs(m[static_cast<std::size_t>(j) * rows + i]) * w[static_cast<std::size_t>(i)]);
      BOOST_TEST(out[static_cast<std::size_t>(j)] == expected, "rows " << rows << " column " << j);
    }
    BOOST_TEST(esdirk::detail::flat_all_finite(m.data(), m.size()));
    for (std::size_t q = 0; q < m.size(); ++q)
      for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity()}) {
        std::vector<double> v = m;
        v[q] = bad;
        BOOST_TEST(!esdirk::detail::flat_all_finite(v.data(), v.size()), "entry " << q);
      }
  }
}

BOOST_AUTO_TEST_SUITE_END()
