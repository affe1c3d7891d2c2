// The LU kernels: the small-matrix loops and LAPACK give solutions with small residuals, in
// both orientations, and report the first zero pivot; the stage matrix's LU within its band
// gives the factors and solutions of the general kernel.

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <random>
#include <utility>
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

// A Jacobian with bandwidths (kl, ku), every entry in the band random (rows that need
// interchanges among them), plus the entries `extra` (row, column) outside it.
esdirk::DenseMatrix banded_jacobian(int n, int kl, int ku, std::mt19937& rng,
                                    std::initializer_list<std::pair<int, int>> extra = {}) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  esdirk::DenseMatrix J(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = std::max(0, j - ku); i <= std::min(n - 1, j + kl); ++i) J(i, j) = u(rng);
  for (const auto& [i, j] : extra) J(i, j) = u(rng);
  return J;
}

// DenseLuSolver (the band kernel from order 17 on, its band kept from one factorization to
// the next) against M formed by hand and factored by lu_factor, solved by lu_solve: the same
// factors and solutions, entry for entry (== : only the sign of a zero may differ).
void expect_the_general_kernel(esdirk::DenseLuSolver& solver, const esdirk::DenseMatrix& J, int nx, double hg,
                               std::mt19937& rng) {
  const int n = J.rows();
  esdirk::DenseMatrix M(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) M(i, j) = i < nx ? (i == j ? 1.0 : 0.0) - hg * J(i, j) : J(i, j);
  std::vector<int> pivots(static_cast<std::size_t>(n));
  const int info = esdirk::lu_factor(M.ref(), pivots.data());
  BOOST_TEST(solver.factor(J.cref(), hg) == info);
  int differ = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) differ += solver.factors()(i, j) != M(i, j);
  BOOST_TEST(differ == 0);
  if (info != 0) return;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (bool transpose : {false, true}) {
    esdirk::DenseMatrix B(n, 3), X(n, 3);
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < n; ++i) B(i, c) = X(i, c) = u(rng);
    esdirk::lu_solve(M.cref(), pivots.data(), X.ref(), transpose);
    if (transpose) solver.solve_transposed(B.ref());
    else solver.solve(B.ref());
    differ = 0;
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < n; ++i) differ += B(i, c) != X(i, c);
    BOOST_TEST_INFO((transpose ? "transposed" : "not transposed"));
    BOOST_TEST(differ == 0);
  }
}

BOOST_AUTO_TEST_CASE(a_banded_stage_matrix_is_factored_within_its_band_as_by_the_general_kernel) {
  std::mt19937 rng(29);
  for (int n : {16, 17, 20, 33, 48, 49}) {
    for (int nz : {0, 3}) {
      esdirk::DenseLuSolver solver;
      solver.resize(n - nz, nz);
      BOOST_TEST_CONTEXT("n = " << n << ", nz = " << nz) {
        // hg = 1: M is as random as J, so the pivots leave the diagonal (L's columns move).
        expect_the_general_kernel(solver, banded_jacobian(n, 1, 1, rng), n - nz, 1.0, rng);
        expect_the_general_kernel(solver, banded_jacobian(n, 1, 1, rng), n - nz, 0.01, rng);  // the band kept
        expect_the_general_kernel(solver, banded_jacobian(n, 2, 3, rng), n - nz, 1.0, rng);   // wider: found again
        expect_the_general_kernel(solver, banded_jacobian(n, 1, 0, rng), n - nz, 1.0, rng);   // narrower
        expect_the_general_kernel(solver, banded_jacobian(n, 0, 0, rng, {{n - 1, 0}, {0, n - 1}}), n - nz, 1.0, rng);
        expect_the_general_kernel(solver, banded_jacobian(n, 1, 1, rng, {{n - 2, 2}}), n - nz, 1.0, rng);
        expect_the_general_kernel(solver, banded_jacobian(n, n - 1, n - 1, rng), n - nz, 1.0, rng);  // dense
        expect_the_general_kernel(solver, banded_jacobian(n, 4, 2, rng), n - nz, 1.0, rng);
        // A zero column of M (J's diagonal entry 1 / hg): the same zero pivot reported.
        esdirk::DenseMatrix J = banded_jacobian(n, 2, 1, rng);
        for (int i = 0; i < n; ++i) J(i, n / 2) = i == n / 2 ? 1.0 : 0.0;
        expect_the_general_kernel(solver, J, n - nz, 1.0, rng);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
