// The multi-column triangular solves of the small-matrix path (blocks of columns through a
// row-major buffer) against one-column solves: identical results for every block width and
// remainder, inside a larger matrix (leading dimension > rows, columns around untouched); small
// residuals on both sides of the LAPACK threshold.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <random>
#include <vector>

#include "esdirk/linear_solver.hpp"

namespace {

struct Factored {
  esdirk::DenseMatrix A, LU;
  std::vector<int> pivots;
};

Factored random_factored(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Factored f;
  f.A.resize(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) f.A(i, j) = u(rng) + (i == j ? 0.3 : 0.0);
  if (n > 3) f.A(2, 1) = f.A(1, 3) = 0.0;  // zero entries of L and U are skipped
  f.LU = f.A;
  f.pivots.assign(static_cast<std::size_t>(n), 0);
  BOOST_REQUIRE(esdirk::lu_factor(f.LU.ref(), f.pivots.data()) == 0);
  return f;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(linear_solver_blocked)

BOOST_AUTO_TEST_CASE(blocks_of_columns_equal_single_column_solves) {
  for (int n : {1, 2, 7, 10, 31, 48, 49}) {
    const Factored f = random_factored(n, 77u + static_cast<unsigned>(n));
    for (int cols : {1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 40}) {
      BOOST_TEST_INFO("n = " << n << ", columns = " << cols);
      // B lives in rows 2..n+1, columns 1..cols of a bigger matrix (ld = n + 5).
      const int ld = n + 5;
      std::mt19937 rng(static_cast<unsigned>(n * 100 + cols));
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      std::vector<double> big(static_cast<std::size_t>(ld) * (cols + 2));
      for (double& v : big) v = u(rng);
      if (cols > 2) big[static_cast<std::size_t>(ld) * 2 + 2] = 0.0;
      const std::vector<double> original = big;
      esdirk::MatrixRef B{big.data() + ld + 2, n, cols, ld};
      esdirk::lu_solve(f.LU.cref(), f.pivots.data(), B);
      for (int c = 0; c < cols; ++c) {
        std::vector<double> column(original.begin() + ld * (c + 1) + 2,
                                   original.begin() + ld * (c + 1) + 2 + n);
        esdirk::lu_solve(f.LU.cref(), f.pivots.data(), esdirk::MatrixRef{column.data(), n, 1, n});
        bool same = true;
        double residual = 0.0;
        for (int i = 0; i < n; ++i) {
          same = same && B(i, c) == column[static_cast<std::size_t>(i)];
          double r = -original[static_cast<std::size_t>(ld * (c + 1) + 2 + i)];
          for (int k = 0; k < n; ++k) r += f.A(i, k) * B(k, c);
          residual = std::max(residual, std::abs(r));
        }
        // LAPACK (n > 48) may order a multi-column solve differently: residuals only there.
        if (n <= 48) BOOST_TEST(same, "column " << c);
        BOOST_TEST(residual <= 1e-12 * n, "column " << c);
      }
      // Nothing outside B changed.
      bool untouched = true;
      for (int j = 0; j < cols + 2; ++j)
        for (int i = 0; i < ld; ++i) {
          const bool inside = j >= 1 && j <= cols && i >= 2 && i < n + 2;
          const std::size_t k = static_cast<std::size_t>(j) * ld + i;
          if (!inside) untouched = untouched && big[k] == original[k];
        }
      BOOST_TEST(untouched);
    }
  }
}

BOOST_AUTO_TEST_CASE(iteration_matrix_solves_blocks_like_columns) {
  // Through DenseLuSolver: M = [I - hg f_x, -hg f_z; g_x, g_z], 15 columns at once.
  const int nx = 6, nz = 4, n = nx + nz;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  esdirk::DenseMatrix J(n, n), B(n, 15);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) J(i, j) = u(rng) + (i == j && i >= nx ? 4.0 : 0.0);
  for (int j = 0; j < 15; ++j)
    for (int i = 0; i < n; ++i) B(i, j) = u(rng);
  esdirk::DenseLuSolver solver;
  solver.resize(nx, nz);
  BOOST_REQUIRE(solver.factor(J.cref(), 0.3) == 0);
  esdirk::DenseMatrix X = B;
  solver.solve(X.ref());
  for (int c = 0; c < 15; ++c) {
    esdirk::DenseMatrix column(n, 1);
    for (int i = 0; i < n; ++i) column(i, 0) = B(i, c);
    solver.solve(column.ref());
    bool same = true;
    for (int i = 0; i < n; ++i) same = same && X(i, c) == column(i, 0);
    BOOST_TEST(same, "column " << c);
  }
}

BOOST_AUTO_TEST_CASE(inverse_from_the_factors_matches_solving_the_identity) {
  // DenseLuSolver::invert has its own kernel up to n = 16 (padded to 8, 12, 16) and solves the
  // identity above; both must give M^{-1} to rounding, with pivoting.
  for (int n : {1, 3, 8, 9, 10, 12, 13, 16, 17, 30}) {
    BOOST_TEST_INFO("n = " << n);
    std::mt19937 rng(900u + static_cast<unsigned>(n));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const int nx = n > 2 ? n - 2 : n;  // two algebraic rows where possible
    esdirk::DenseMatrix J(n, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) J(i, j) = u(rng) + (i >= nx && i == j ? 2.0 : 0.0);
    esdirk::DenseLuSolver lu;
    lu.resize(nx, n - nx);
    BOOST_REQUIRE(lu.factor(J.cref(), 0.7) == 0);
    esdirk::DenseMatrix W(n, n), reference(n, n);
    lu.invert(W.ref());
    for (int k = 0; k < n; ++k) reference(k, k) = 1.0;
    lu.solve(reference.ref());
    double worst = 0.0, scale = 0.0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        worst = std::max(worst, std::abs(W(i, j) - reference(i, j)));
        scale = std::max(scale, std::abs(reference(i, j)));
      }
    BOOST_TEST(worst <= 1e-13 * scale);
  }
}

BOOST_AUTO_TEST_SUITE_END()
