// The LU kernels: the small-matrix loops and LAPACK give solutions with small residuals, in
// both orientations, and report the first zero pivot.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "esdirk/linear_solver.hpp"

namespace {

double solve_residual(int n, bool transpose) {
  std::mt19937 rng(1234 + n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  esdirk::DenseMatrix A(n, n), LU(n, n), B(n, 3), X(n, 3);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A(i, j) = LU(i, j) = u(rng) + (i == j ? 0.5 : 0.0);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < n; ++i) B(i, j) = X(i, j) = u(rng);
  std::vector<int> pivots(static_cast<std::size_t>(n));
  BOOST_REQUIRE(esdirk::lu_factor(LU.ref(), pivots.data()) == 0);
  esdirk::lu_solve(LU.cref(), pivots.data(), X.ref(), transpose);
  double worst = 0.0;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < n; ++i) {
      double r = -B(i, c);
      for (int k = 0; k < n; ++k) r += (transpose ? A(k, i) : A(i, k)) * X(k, c);
      worst = std::max(worst, std::abs(r));
    }
  return worst;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(linear_solver)

BOOST_AUTO_TEST_CASE(small_and_lapack_paths_solve_both_orientations) {
  for (int n : {1, 5, 30, 48, 49, 80})
    for (bool transpose : {false, true}) {
      BOOST_TEST_INFO("n = " << n << (transpose ? " transposed" : ""));
      BOOST_TEST(solve_residual(n, transpose) <= 1e-12 * n);
    }
}

BOOST_AUTO_TEST_CASE(zero_pivot_is_reported_one_based) {
  for (int n : {4, 60}) {
    esdirk::DenseMatrix A(n, n);
    for (int i = 0; i < n; ++i) A(i, i) = 1.0;
    A(2, 2) = 0.0;  // column 3 is zero
    std::vector<int> pivots(static_cast<std::size_t>(n));
    BOOST_TEST_INFO("n = " << n);
    BOOST_TEST(esdirk::lu_factor(A.ref(), pivots.data()) == 3);
  }
}

BOOST_AUTO_TEST_CASE(iteration_matrix_is_formed_with_unscaled_algebraic_rows) {
  // nx = 1, nz = 1: M = [1 - hg*J00, -hg*J01; J10, J11].
  esdirk::DenseMatrix J(2, 2);
  J(0, 0) = -3.0; J(0, 1) = 2.0; J(1, 0) = 5.0; J(1, 1) = 7.0;
  esdirk::DenseLuSolver solver;
  solver.resize(1, 1);
  const double hg = 0.25;
  BOOST_REQUIRE(solver.factor(J.cref(), hg) == 0);
  BOOST_TEST(solver.h_gamma() == hg);
  const double M[2][2] = {{1.0 + 0.75, -0.5}, {5.0, 7.0}};
  esdirk::DenseMatrix B(2, 1);
  B(0, 0) = 1.0; B(1, 0) = 2.0;
  solver.solve(B.ref());
  BOOST_TEST(M[0][0] * B(0, 0) + M[0][1] * B(1, 0) == 1.0, boost::test_tools::tolerance(1e-14));
  BOOST_TEST(M[1][0] * B(0, 0) + M[1][1] * B(1, 0) == 2.0, boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_SUITE_END()
