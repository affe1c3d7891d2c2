// The fixed-order LU kernels (orders 1..16, the small-system fast path of lu_factor/lu_solve)
// against the run-time kernels they replace: the same matrix as the leading block of a larger
// block-diagonal matrix (order 20, still the run-time loops; order 60, LAPACK) factors and solves
// through the other path. The trailing block never mixes in (its pivots stay below, its rows and
// columns of the leading block are zero), so the run-time loops must give the same bits and
// LAPACK the same solution to rounding. Random matrices, near-singular pivots (1e-13 of the
// column), singular ones (a zero column: the same first zero pivot reported), three columns.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "esdirk/linear_solver.hpp"
#include "internal/fixed_size_lu.hpp"

namespace {

enum class Kind { random, near_singular, singular };

esdirk::DenseMatrix test_matrix(int n, Kind kind, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  esdirk::DenseMatrix A(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A(i, j) = u(rng);
  if (n > 3) A(2, 1) = 0.0;  // an exact zero in the elimination
  if (n > 1 && kind == Kind::near_singular)  // column n-1 within 1e-13 of column 0 plus column 1
    for (int i = 0; i < n; ++i) A(i, n - 1) = A(i, 0) + (n > 2 ? A(i, 1) : 0.0) + 1e-13 * u(rng);
  if (n > 1 && kind == Kind::singular)  // a zero column: its pivot is exactly zero
    for (int i = 0; i < n; ++i) A(i, n / 2) = 0.0;
  return A;
}

// A as the leading block of diag(A, D) of order `big` (D well conditioned, small entries so its
// pivots never compete with A's columns, which have no entries in D's rows anyway).
esdirk::DenseMatrix embedded(const esdirk::DenseMatrix& A, int big) {
  const int n = A.rows();
  esdirk::DenseMatrix E(big, big);
  E.fill(0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) E(i, j) = A(i, j);
  for (int k = n; k < big; ++k) {
    E(k, k) = 2.0 + 0.01 * k;
    if (k + 1 < big) E(k, k + 1) = 0.1;
  }
  return E;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fixed_size_lu)

BOOST_AUTO_TEST_CASE(fixed_order_kernels_equal_the_run_time_loops_and_lapack) {
  for (int n = 1; n <= esdirk::internal::fixed_size_lu_limit; ++n)
    for (Kind kind : {Kind::random, Kind::near_singular, Kind::singular}) {
      if (n == 1 && kind != Kind::random) continue;
      const esdirk::DenseMatrix A = test_matrix(n, kind, 500u + static_cast<unsigned>(n) * 3u +
                                                             static_cast<unsigned>(kind));
      BOOST_TEST_INFO("n = " << n << ", kind " << static_cast<int>(kind));
      esdirk::DenseMatrix LU = A;
      std::vector<int> pivots(static_cast<std::size_t>(n));
      const int info = esdirk::lu_factor(LU.ref(), pivots.data());  // the fixed-order path
      const int cols = 3;
      std::mt19937 rng(9u + static_cast<unsigned>(n));
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      esdirk::DenseMatrix B(n, cols);
      for (int j = 0; j < cols; ++j)
        for (int i = 0; i < n; ++i) B(i, j) = u(rng);
      for (int big : {20, 60}) {
        BOOST_TEST_INFO("embedded in order " << big);
        esdirk::DenseMatrix E = embedded(A, big);
        std::vector<int> big_pivots(static_cast<std::size_t>(big));
        const int big_info = esdirk::lu_factor(E.ref(), big_pivots.data());
        BOOST_TEST(big_info == info);  // singular: the same first zero pivot
        if (big == 20) {
          for (int k = 0; k < n; ++k) BOOST_TEST(big_pivots[static_cast<std::size_t>(k)] == pivots[static_cast<std::size_t>(k)]);
          bool same = true;
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) same = same && E(i, j) == LU(i, j);
          BOOST_TEST(same, "factors of order " << n << " differ from the run-time loops");
        }
        if (info != 0) continue;
        // Solves: all columns at once and one column (both fixed-order paths for n <= 4; one
        // column for larger n), against the embedded solve.
        esdirk::DenseMatrix X = B, Y(big, cols), X1 = B;
        esdirk::lu_solve(LU.cref(), pivots.data(), X.ref());
        for (int j = 0; j < cols; ++j)
          esdirk::lu_solve(LU.cref(), pivots.data(), esdirk::MatrixRef{X1.column(j), n, 1, n});
        Y.fill(0.0);
        for (int j = 0; j < cols; ++j)
          for (int i = 0; i < n; ++i) Y(i, j) = B(i, j);
        for (int j = 0; j < cols; ++j)  // one column at a time: the run-time column loops
          esdirk::lu_solve(E.cref(), big_pivots.data(), esdirk::MatrixRef{Y.column(j), big, 1, big});
        double scale = 0.0, difference = 0.0;
        bool same = true, same_one = true;
        for (int j = 0; j < cols; ++j)
          for (int i = 0; i < n; ++i) {
            scale = std::max(scale, std::abs(Y(i, j)));
            difference = std::max(difference, std::abs(X(i, j) - Y(i, j)));
            same = same && X(i, j) == Y(i, j);
            same_one = same_one && X1(i, j) == Y(i, j);
          }
        if (big == 20) {
          BOOST_TEST(same, "solution of order " << n << " differs from the run-time loops");
          BOOST_TEST(same_one);
        } else if (kind == Kind::random) {
          // LAPACK orders its updates otherwise: the same solution to rounding.
          BOOST_TEST(difference <= 1e-12 * scale, "LAPACK differs by " << difference << " of " << scale);
        }
        // Both solve the system with a small backward error, |A x - b| <= c eps |A| |x| (a
        // near-singular matrix amplifies the rounding of x by its condition, ~1e13, but not
        // the residual): a check independent of either path.
        for (const esdirk::DenseMatrix* solution : {&X, &Y}) {
          double backward = 0.0;
          for (int j = 0; j < cols; ++j)
            for (int i = 0; i < n; ++i) {
              double r = -B(i, j), size = std::abs(B(i, j));
              for (int k = 0; k < n; ++k) {
                r += A(i, k) * (*solution)(k, j);
                size += std::abs(A(i, k) * (*solution)(k, j));
              }
              backward = std::max(backward, std::abs(r) / size);
            }
          BOOST_TEST(backward <= 1e-14 * n, "backward error " << backward);
        }
      }
    }
}

BOOST_AUTO_TEST_CASE(a_singular_small_matrix_reports_its_first_zero_pivot) {
  // Column 1 zero: pivot 2 is exactly zero; the factorization goes on (as dgetf2).
  esdirk::DenseMatrix A(3, 3);
  A.fill(0.0);
  A(0, 0) = 2.0;
  A(1, 0) = 1.0;
  A(2, 2) = 4.0;
  A(0, 2) = 1.0;
  std::vector<int> pivots(3);
  BOOST_TEST(esdirk::lu_factor(A.ref(), pivots.data()) == 2);
  BOOST_TEST(std::isfinite(A(2, 2)));
  // The stage iteration matrix of a problem whose Jacobian makes it singular: the dense
  // solver's factor() says so with the pivot's index.
  esdirk::DenseLuSolver solver;
  solver.resize(2, 0);
  esdirk::DenseMatrix J(2, 2);
  J(0, 0) = 1.0 / 0.5;  // I - h*gamma*J with h*gamma = 0.5: first row zero
  J(0, 1) = 0.0;
  J(1, 0) = 0.0;
  J(1, 1) = 1.0 / 0.5;
  BOOST_TEST(solver.factor(J.cref(), 0.5) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
