#pragma once
// Internal to the library (not installed): LU with partial pivoting and its solves for square
// matrices whose order N is a compile-time constant (N <= 16), the small-system fast path of
// lu_factor/lu_solve. At these sizes the loop bounds, not the arithmetic, were the cost: with N
// known the compiler unrolls the triangles and keeps a right-hand side in registers (callgrind,
// CSTR shooting interval, n = 2: ~180 instructions per factorization and ~120 per one-column
// solve with the run-time order, doc/sensitivity-guide.md "Cost").
//
// The operations and their order are those of the run-time kernels of linear_solver.cpp
// (LAPACK's dgetf2, and dgetrs column by column), so the factors and solutions have the same
// bits; tests/core/test_fixed_size_lu.cpp compares them on random and near-singular matrices.

#include <array>
#include <cmath>
#include <utility>

namespace esdirk::internal {

inline constexpr int fixed_size_lu_limit = 16;

/// LU of the N x N matrix at `a` (leading dimension ld) in place; 1-based pivots. Returns 0 or
/// the 1-based index of the first exactly zero pivot (the factorization then goes on, as
/// dgetf2).
template <int N>
int fixed_size_lu_factor(double* a, int ld, int* pivots) {
  int info = 0;
  for (int k = 0; k < N; ++k) {
    double* ak = a + static_cast<long>(k) * ld;
    int p = k;
    double largest = std::abs(ak[k]);
    for (int i = k + 1; i < N; ++i) {
      if (std::abs(ak[i]) > largest) {
        largest = std::abs(ak[i]);
        p = i;
      }
    }
    pivots[k] = p + 1;
    if (largest == 0.0) {
      if (info == 0) info = k + 1;
      continue;
    }
    if (p != k)
      for (int j = 0; j < N; ++j) std::swap(a[k + static_cast<long>(j) * ld], a[p + static_cast<long>(j) * ld]);
    const double inverse = 1.0 / ak[k];
    for (int i = k + 1; i < N; ++i) ak[i] *= inverse;
    for (int j = k + 1; j < N; ++j) {
      double* column = a + static_cast<long>(j) * ld;
      const double akj = column[k];
      if (akj == 0.0) continue;
      for (int i = k + 1; i < N; ++i) column[i] -= ak[i] * akj;
    }
  }
  return info;
}

/// One column b <- A^{-1} b from the factors of fixed_size_lu_factor, in a local array
/// (registers for small N). The loops are unrolled completely (GCC unrolls a nest of this size
/// only partly by itself: at N = 10, Dow's order, the rolled loops cost 796 instructions per
/// solve, unrolled 548; callgrind of bench_dow_states).
template <int N>
[[gnu::always_inline]] inline void fixed_size_lu_solve_column(const double* lu, int ld,
                                                              const int* pivots, double* column) {
  for (int k = 0; k < N; ++k) std::swap(column[k], column[pivots[k] - 1]);
  double x[N];
#pragma GCC unroll 16
  for (int i = 0; i < N; ++i) x[i] = column[i];
#pragma GCC unroll 16
  for (int j = 0; j < N; ++j) {  // L y = P b (unit lower), column-oriented
    const double xj = x[j];
    const double* l = lu + static_cast<long>(j) * ld;
#pragma GCC unroll 16
    for (int i = j + 1; i < N; ++i) x[i] -= l[i] * xj;
  }
#pragma GCC unroll 16
  for (int j = N - 1; j >= 0; --j) {  // U x = y
    const double* u = lu + static_cast<long>(j) * ld;
    x[j] /= u[j];
    const double xj = x[j];
#pragma GCC unroll 16
    for (int i = 0; i < j; ++i) x[i] -= u[i] * xj;
  }
#pragma GCC unroll 16
  for (int i = 0; i < N; ++i) column[i] = x[i];
}

/// One right-hand side (every Newton iteration) as a function of its own: inside the loop over
/// columns of fixed_size_lu_solve the compiler computes the addresses of all factor columns
/// before the loop and spills them, which a single column pays for in full (548 -> 393
/// instructions per solve at N = 10). The factorization stays rolled: unrolled it saved 40 % of
/// its instructions on Dow but made the library 600 kB larger (it is inlined into every
/// fixed-order stage kernel of the sensitivities).
template <int N>
void fixed_size_lu_solve_one(const double* lu, int ld, const int* pivots, double* b) {
  fixed_size_lu_solve_column<N>(lu, ld, pivots, b);
}

/// B <- A^{-1} B for `cols` columns of B (leading dimension ldb), column by column.
template <int N>
void fixed_size_lu_solve(const double* lu, int ld, const int* pivots, double* b, int ldb, int cols) {
  for (int c = 0; c < cols; ++c)
    fixed_size_lu_solve_column<N>(lu, ld, pivots, b + static_cast<long>(c) * ldb);
}

/// M = [I - h*gamma J_x-rows ; J_z-rows] (the iteration matrix of linear_solver.hpp) of the
/// N x N Jacobian J into m, then its LU: DenseLuSolver::factor with the order known.
template <int N>
int fixed_size_form_and_factor(const double* J, int ldj, double h_gamma, int nx, double* m,
                               int ldm, int* pivots) {
  for (int j = 0; j < N; ++j) {
    const double* Jj = J + static_cast<long>(j) * ldj;
    double* Mj = m + static_cast<long>(j) * ldm;
    for (int i = 0; i < N; ++i) Mj[i] = i < nx ? -h_gamma * Jj[i] : Jj[i];
    if (j < nx) Mj[j] += 1.0;
  }
  return fixed_size_lu_factor<N>(m, ldm, pivots);
}

using FixedSizeFormAndFactor = int (*)(const double* J, int ldj, double h_gamma, int nx, double* m,
                                       int ldm, int* pivots);
template <std::size_t... I>
constexpr std::array<FixedSizeFormAndFactor, sizeof...(I)> fixed_size_form_and_factors(std::index_sequence<I...>) {
  return {&fixed_size_form_and_factor<static_cast<int>(I) + 1>...};
}
inline constexpr auto fixed_size_form_and_factor_of =
    fixed_size_form_and_factors(std::make_index_sequence<fixed_size_lu_limit>{});

using FixedSizeLuFactor = int (*)(double* a, int ld, int* pivots);
using FixedSizeLuSolve = void (*)(const double* lu, int ld, const int* pivots, double* b, int ldb, int cols);
using FixedSizeLuSolveOne = void (*)(const double* lu, int ld, const int* pivots, double* b);

template <std::size_t... I>
constexpr std::array<FixedSizeLuFactor, sizeof...(I)> fixed_size_lu_factors(std::index_sequence<I...>) {
  return {&fixed_size_lu_factor<static_cast<int>(I) + 1>...};
}
template <std::size_t... I>
constexpr std::array<FixedSizeLuSolve, sizeof...(I)> fixed_size_lu_solves(std::index_sequence<I...>) {
  return {&fixed_size_lu_solve<static_cast<int>(I) + 1>...};
}
template <std::size_t... I>
constexpr std::array<FixedSizeLuSolveOne, sizeof...(I)> fixed_size_lu_solve_ones(std::index_sequence<I...>) {
  return {&fixed_size_lu_solve_one<static_cast<int>(I) + 1>...};
}

/// The kernels of order n = 1 .. fixed_size_lu_limit, at index n - 1.
inline constexpr auto fixed_size_lu_factor_of =
    fixed_size_lu_factors(std::make_index_sequence<fixed_size_lu_limit>{});
inline constexpr auto fixed_size_lu_solve_of =
    fixed_size_lu_solves(std::make_index_sequence<fixed_size_lu_limit>{});
inline constexpr auto fixed_size_lu_solve_one_of =
    fixed_size_lu_solve_ones(std::make_index_sequence<fixed_size_lu_limit>{});

}  // namespace esdirk::internal
