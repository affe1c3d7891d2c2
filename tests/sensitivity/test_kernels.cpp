// The small dense kernels of the sensitivity module against plain loops: the blocked product
// (vector lanes, two columns at a time, padded rows) gives the bits of the triple loop for every
// row count around the block sizes, leaves the rest of C untouched, and honours alpha and
// accumulate; the column max-norms and the finiteness test see every entry, tails included; the
// product over the nonzeros of a seed, the stage right-hand side and the stage LU solved in lanes
// across the directions (orders 9..16) give the bits of the general code they replace.
#include <boost/test/unit_test.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "esdirk/linear_solver.hpp"
#include "fixed_size_stages.hpp"
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

// Equal to the bit (signed zeros included).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t q = 0; q < a.size(); ++q)
    if (std::bit_cast<std::uint64_t>(a[q]) != std::bit_cast<std::uint64_t>(b[q])) return false;
  return true;
}

BOOST_AUTO_TEST_CASE(product_over_the_nonzeros_of_a_seed_has_the_bits_of_the_dense_product) {
  for (int rows : {1, 2, 5, 10, 17})
    for (int inner : {1, 3, 9, 15})
      for (int cols : {1, 4, 9, 16}) {
        BOOST_TEST_INFO("rows " << rows << " inner " << inner << " cols " << cols);
        std::vector<double> a = random_values(static_cast<std::size_t>(rows) * inner, 11u + rows);
        a[0] = -0.0;  // signed zeros in A and B: skipped products must not change a sign
        std::vector<double> b(static_cast<std::size_t>(inner) * cols, 0.0);
        const std::vector<double> r = random_values(b.size(), 13u + cols);
        for (int j = 0; j < cols; ++j) {  // a scaled unit column, sometimes a second entry
          b[static_cast<std::size_t>(j) * inner + static_cast<std::size_t>(j % inner)] = 2.0 + r[static_cast<std::size_t>(j)];
          if (j % 3 == 1 && inner > 1) b[static_cast<std::size_t>(j) * inner + static_cast<std::size_t>((j + 1) % inner)] = r[1];
          if (j % 3 == 2 && inner > 1) b[static_cast<std::size_t>(j) * inner + static_cast<std::size_t>((j + 1) % inner)] = -0.0;
        }
        const esdirk::ConstMatrixRef A{a.data(), rows, inner, rows}, B{b.data(), inner, cols, inner};
        std::vector<double> dense(static_cast<std::size_t>(rows) * cols, 7.0), sparse = dense;
        esdirk::detail::multiply(A, 0, B, esdirk::MatrixRef{dense.data(), rows, cols, rows}, 1.0, false);
        std::vector<int> starts(static_cast<std::size_t>(cols) + 1), nonzero_rows(b.size());
        const int count = esdirk::detail::sparse_columns(B, starts.data(), nonzero_rows.data());
        int expected = 0;
        for (double v : b) expected += v != 0.0 ? 1 : 0;
        BOOST_TEST(count == expected);
        esdirk::detail::multiply_by_sparse(A, B, starts.data(), nonzero_rows.data(),
                                           esdirk::MatrixRef{sparse.data(), rows, cols, rows});
        BOOST_TEST(same_bits(sparse, dense));
      }
}

BOOST_AUTO_TEST_CASE(stage_right_hand_side_has_the_bits_of_separate_passes) {
  for (int n : {1, 2, 7, 10})
    for (int nx : {n, n / 2})
      for (int ns : {1, 3, 9}) {
        const std::size_t size = static_cast<std::size_t>(n) * ns;
        const std::vector<double> s0 = random_values(size, 21u), fp = random_values(size, 22u);
        const std::vector<double> sf1 = random_values(size, 23u), sf2 = random_values(size, 24u);
        const double coefficients[] = {0.3, -1.7};
        const double* blocks[] = {sf1.data(), sf2.data()};
        const double hg = 0.0123;
        std::vector<double> expected(size), rhs(size);
        for (int j = 0; j < ns; ++j)
          for (int k = 0; k < n; ++k) {
            const std::size_t q = static_cast<std::size_t>(j) * n + k;
            expected[q] = k < nx ? s0[q] + hg * fp[q] : -fp[q];
          }
        for (int t = 0; t < 2; ++t)
          for (std::size_t q = 0; q < size; ++q) expected[q] += coefficients[t] * blocks[t][q];
        esdirk::detail::stage_right_hand_side(nx, n, ns, s0.data(), fp.data(), hg, 2, coefficients, blocks,
                                              rhs.data());
        BOOST_TEST(same_bits(rhs, expected), "n " << n << " nx " << nx << " ns " << ns);
      }
}

// Orders 9..16: the stage LU with the order known and the solve in lanes across the directions
// against DenseLuSolver's form, lu_factor and lu_solve (blocks of 8 columns and single columns).
BOOST_AUTO_TEST_CASE(stage_solve_in_lanes_has_the_bits_of_the_general_lu) {
  for (int n = 9; n <= 16; ++n)
    for (int ns : {1, 3, 4, 5, 8, 9, 12, 13, 15, 16, 17, 33}) {
      BOOST_TEST_INFO("n " << n << " ns " << ns);
      const int nx = n - 3;
      std::vector<double> J = random_values(static_cast<std::size_t>(n) * n, 31u + n);
      J[2 + static_cast<std::size_t>(n)] = 0.0;  // an exact zero in the elimination
      const std::vector<double> rhs = random_values(static_cast<std::size_t>(n) * ns, 37u + ns);
      const double hg = 0.37;
      std::vector<double> m(J.size());
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const double v = J[static_cast<std::size_t>(j) * n + i];
          m[static_cast<std::size_t>(j) * n + i] = i < nx ? -hg * v + (i == j ? 1.0 : 0.0) : v;
        }
      std::vector<int> pivots(static_cast<std::size_t>(n));
      BOOST_TEST(esdirk::lu_factor(esdirk::MatrixRef{m.data(), n, n, n}, pivots.data()) == 0);
      std::vector<double> expected = rhs;
      esdirk::lu_solve(esdirk::ConstMatrixRef{m.data(), n, n, n}, pivots.data(),
                       esdirk::MatrixRef{expected.data(), n, ns, n});
      std::vector<double> lu(m.size()), S(rhs.size());
      std::vector<int> lanes_pivots(static_cast<std::size_t>(n));
      const auto solve = esdirk::detail::fixed_stage_lanes_solve(n);
      BOOST_REQUIRE(solve != nullptr);
      BOOST_TEST(solve(J.data(), n, hg, nx, lu.data(), lanes_pivots.data(), rhs.data(), S.data(), ns) == 0);
      BOOST_TEST(same_bits(lu, m));
      BOOST_TEST(lanes_pivots == pivots);
      BOOST_TEST(same_bits(S, expected));
      // A singular stage matrix: the first zero pivot, as lu_factor reports it; S untouched.
      for (int i = 0; i < n; ++i) J[static_cast<std::size_t>(n - 1) * n + i] = 0.0;  // M's last column: 1 or 0
      for (int i = 0; i < n; ++i) J[static_cast<std::size_t>(1) * n + i] = i == 1 && 1 < nx ? 1.0 / hg : 0.0;
      std::vector<double> S2(rhs.size(), 5.0);
      BOOST_TEST(solve(J.data(), n, hg, nx, lu.data(), lanes_pivots.data(), rhs.data(), S2.data(), ns) == 2);
      BOOST_TEST(S2 == std::vector<double>(rhs.size(), 5.0));
    }
  BOOST_TEST(esdirk::detail::fixed_stage_lanes_solve(8) == nullptr);
  BOOST_TEST(esdirk::detail::fixed_stage_lanes_solve(17) == nullptr);
}

// Orders 1..8: one implicit stage in one kernel call (the small-system fast path), for an ODE
// (nx = n: the copy of the kernel without run-time row selections) and a DAE (nx < n), against
// the general pieces it replaces: the right-hand side of stage_right_hand_side, DenseLuSolver's
// form of M with lu_factor and lu_solve, and the stage derivatives of flat_difference_quotient
// with zero algebraic rows; a singular M_i returns its first zero pivot with rhs formed.
BOOST_AUTO_TEST_CASE(one_stage_kernel_has_the_bits_of_the_general_stage_for_odes_and_daes) {
  for (int n = 1; n <= 8; ++n)
    for (int nx : {n, n - 1, n / 2})
      for (int ns : {1, 3, 4})
        for (int terms : {0, 1, 4}) {
          if (nx < 1) continue;
          BOOST_TEST_INFO("n " << n << " nx " << nx << " ns " << ns << " terms " << terms);
          const std::size_t size = static_cast<std::size_t>(n) * ns;
          std::vector<double> J = random_values(static_cast<std::size_t>(n) * n, 41u + n);
          if (n > 2) J[2 + static_cast<std::size_t>(n)] = 0.0;  // an exact zero in the elimination
          for (int i = 0; i < n; ++i) J[static_cast<std::size_t>(i) * n + i] += i < nx ? -3.0 : 2.0;
          const std::vector<double> s0 = random_values(size, 43u), fp = random_values(size, 44u);
          std::vector<std::vector<double>> sf;
          std::vector<const double*> blocks;
          for (int t = 0; t < 4; ++t) {
            sf.push_back(random_values(size, 45u + t));
            for (int j = 0; j < ns; ++j)  // derivative blocks have zero algebraic rows
              for (int k = nx; k < n; ++k) sf.back()[static_cast<std::size_t>(j) * n + k] = 0.0;
          }
          for (int t = 0; t < 4; ++t) blocks.push_back(sf[static_cast<std::size_t>(t)].data());
          const double coefficients[] = {0.21, -0.6, 1.3, 0.05};
          const double hg = 0.0371, inverse_hg = 1.0 / hg;
          std::vector<double> expected_rhs(size);
          esdirk::detail::stage_right_hand_side(nx, n, ns, s0.data(), fp.data(), hg, terms, coefficients,
                                                blocks.data(), expected_rhs.data());
          std::vector<double> m(J.size());
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
              const double v = J[static_cast<std::size_t>(j) * n + i];
              m[static_cast<std::size_t>(j) * n + i] = i < nx ? -hg * v : v;
              if (i == j && j < nx) m[static_cast<std::size_t>(j) * n + i] += 1.0;
            }
          std::vector<int> pivots(static_cast<std::size_t>(n));
          BOOST_TEST(esdirk::lu_factor(esdirk::MatrixRef{m.data(), n, n, n}, pivots.data()) == 0);
          std::vector<double> expected_S = expected_rhs;
          esdirk::lu_solve(esdirk::ConstMatrixRef{m.data(), n, n, n}, pivots.data(),
                           esdirk::MatrixRef{expected_S.data(), n, ns, n});
          std::vector<double> expected_SF(size);
          esdirk::detail::flat_difference_quotient(expected_S.data(), expected_rhs.data(), inverse_hg, fp.data(),
                                                   expected_SF.data(), size);
          for (int j = 0; j < ns; ++j)
            for (int k = nx; k < n; ++k) expected_SF[static_cast<std::size_t>(j) * n + k] = 0.0;
          const esdirk::detail::FixedStageKernels* kernels = esdirk::detail::fixed_stage_kernels(n);
          BOOST_REQUIRE(kernels != nullptr);
          std::vector<double> lu(m.size()), rhs(size), S(size), SF(size);
          std::vector<int> kernel_pivots(static_cast<std::size_t>(n));
          BOOST_TEST(kernels->stage(nx, ns, J.data(), n, hg, inverse_hg, s0.data(), fp.data(), terms, coefficients,
                                    blocks.data(), lu.data(), kernel_pivots.data(), rhs.data(), S.data(),
                                    SF.data()) == 0);
          BOOST_TEST(same_bits(rhs, expected_rhs));
          BOOST_TEST(same_bits(lu, m));
          BOOST_TEST(kernel_pivots == pivots);
          BOOST_TEST(same_bits(S, expected_S));
          BOOST_TEST(same_bits(SF, expected_SF));
          // A singular stage matrix (M's first column zero: J_00 = 1/hg exactly, row 0 is
          // differential): pivot 1, rhs formed, S and SF untouched.
          const double hg2 = 0.0625;
          for (int i = 0; i < n; ++i) J[static_cast<std::size_t>(i)] = i == 0 ? 1.0 / hg2 : 0.0;
          esdirk::detail::stage_right_hand_side(nx, n, ns, s0.data(), fp.data(), hg2, terms, coefficients,
                                                blocks.data(), expected_rhs.data());
          std::vector<double> rhs2(size, 0.0), S2(size, 5.0), SF2(size, 5.0);
          BOOST_TEST(kernels->stage(nx, ns, J.data(), n, hg2, 1.0 / hg2, s0.data(), fp.data(), terms, coefficients,
                                    blocks.data(), lu.data(), kernel_pivots.data(), rhs2.data(), S2.data(),
                                    SF2.data()) == 1);
          BOOST_TEST(same_bits(rhs2, expected_rhs));
          BOOST_TEST(S2 == std::vector<double>(size, 5.0));
          BOOST_TEST(SF2 == std::vector<double>(size, 5.0));
        }
}

BOOST_AUTO_TEST_SUITE_END()
