#pragma once
// The stage kernels of the sensitivities for systems of order n = nx + nz <= fixed_stage_limit,
// with n a compile-time constant: the small-system fast path of StageSensitivities (a CSTR
// shooting interval, n = 2 and 3 directions). At these sizes the calls, the dispatch of the
// general kernels on their shapes and the loop bounds cost more than the arithmetic, so each
// kernel does one job of a stage on whole n x ns blocks (leading dimension n), with the column
// loop the only run-time loop of the order n.
//
// Every entry sees the operations of the general code it replaces, in the same order (the
// right-hand side: base, then one scaled addition per earlier stage; products: the sum over k
// from +0 as detail::multiply; the LU and its solve: internal::fixed_size_lu_factor and
// fixed_size_lu_solve, whose bits are those of lu_factor/lu_solve), so results keep their bits.
// No FMA is enabled in the library, so the compiler cannot fuse them differently either.

#include <array>
#include <cstddef>
#include <utility>

#include "internal/fixed_size_lu.hpp"

namespace esdirk::detail {

/// Largest order with fixed-size stage kernels, chosen by measurement (callgrind,
/// doc/sensitivity-guide.md "Cost"): the stage solves of a shooting interval cost 22-27 % fewer
/// instructions at n = 2, 3 and 6 (3 to 5 directions), but 23 % more on Dow (n = 10, 15
/// directions), where the general solve runs 4 to 8 columns at once in vector lanes and the
/// column-by-column solve here cannot keep up.
inline constexpr int fixed_stage_limit = 8;

/// rhs = [S0_x + hg fp_x ; -fp_z] + sum_t coefficients[t] blocks[t] over ns columns of N rows.
template <int N>
void fixed_stage_rhs(int nx, int ns, const double* __restrict s0, const double* __restrict fp,
                     double hg, int terms, const double* coefficients,
                     const double* const* blocks, double* __restrict rhs) {
  for (int j = 0; j < ns; ++j) {
    const std::size_t column = static_cast<std::size_t>(j) * N;
    double r[N];
    for (int k = 0; k < N; ++k)
      r[k] = k < nx ? s0[column + k] + hg * fp[column + k] : -fp[column + k];
    for (int t = 0; t < terms; ++t) {
      const double c = coefficients[t];
      const double* __restrict sf = blocks[t] + column;
      for (int k = 0; k < N; ++k) r[k] += c * sf[k];
    }
    for (int k = 0; k < N; ++k) rhs[column + k] = r[k];
  }
}

/// The LU of M = [I - hg J_x-rows ; J_z-rows] into lu (N x N) and pivots, then S = M^{-1} rhs
/// for ns columns. Returns 0, or the 1-based index of a zero pivot (S untouched then).
template <int N>
int fixed_stage_factor_and_solve(const double* J, int ldj, double hg, int nx, double* lu,
                                 int* pivots, const double* __restrict rhs, double* __restrict S,
                                 int ns) {
  const int info = internal::fixed_size_form_and_factor<N>(J, ldj, hg, nx, lu, N, pivots);
  if (info != 0) return info;
  for (int c = 0; c < ns; ++c) {
    double x[N];
    for (int i = 0; i < N; ++i) x[i] = rhs[static_cast<std::size_t>(c) * N + i];
    for (int k = 0; k < N; ++k) std::swap(x[k], x[pivots[k] - 1]);
    for (int j = 0; j < N; ++j) {  // L y = P b (unit lower), column-oriented
      const double xj = x[j];
      for (int i = j + 1; i < N; ++i) x[i] -= lu[j * N + i] * xj;
    }
    for (int j = N - 1; j >= 0; --j) {  // U x = y
      x[j] /= lu[j * N + j];
      const double xj = x[j];
      for (int i = 0; i < j; ++i) x[i] -= lu[j * N + i] * xj;
    }
    for (int i = 0; i < N; ++i) S[static_cast<std::size_t>(c) * N + i] = x[i];
  }
  return 0;
}

/// C = A B: A has N rows (leading dimension lda) and `inner` columns, B is inner x ns (leading
/// dimension ldb), C is N x ns (contiguous). The [f_p; g_p] P of a stage.
template <int N>
void fixed_stage_product(const double* A, int lda, int inner, const double* B, int ldb,
                         double* __restrict C, int ns) {
  for (int j = 0; j < ns; ++j) {
    const double* b = B + static_cast<std::size_t>(j) * ldb;
    double sum[N] = {};
    for (int k = 0; k < inner; ++k) {
      const double bk = b[k];
      const double* a = A + static_cast<std::size_t>(k) * lda;
      for (int i = 0; i < N; ++i) sum[i] += a[i] * bk;
    }
    for (int i = 0; i < N; ++i) C[static_cast<std::size_t>(j) * N + i] = sum[i];
  }
}

/// C(0 : rows, :) += A(0 : rows, 0 : N) B for ns columns; B and C are contiguous N x ns blocks,
/// A has leading dimension lda. The J_1 S_1 of the explicit first stage (rows = nx).
template <int N>
void fixed_stage_add_product(const double* A, int lda, int rows, const double* __restrict B,
                             double* __restrict C, int ns) {
  for (int j = 0; j < ns; ++j) {
    const double* b = B + static_cast<std::size_t>(j) * N;
    double* c = C + static_cast<std::size_t>(j) * N;
    for (int i = 0; i < rows; ++i) {
      double sum = 0.0;
      for (int k = 0; k < N; ++k) sum += A[static_cast<std::size_t>(k) * lda + i] * b[k];
      c[i] += sum;
    }
  }
}

/// SF = (S - rhs)/(h gamma) + fp in the N x ns blocks, with zero algebraic rows (the stage
/// derivatives of the differentiated stage equation, as flat_difference_quotient).
template <int N>
void fixed_stage_derivatives(int nx, int ns, const double* __restrict S, const double* __restrict rhs,
                             double inverse_hg, const double* __restrict fp, double* __restrict sf) {
  for (int j = 0; j < ns; ++j) {
    const std::size_t column = static_cast<std::size_t>(j) * N;
    for (int k = 0; k < N; ++k)
      sf[column + k] = k < nx ? (S[column + k] - rhs[column + k]) * inverse_hg + fp[column + k] : 0.0;
  }
}

/// The kernels of one order.
struct FixedStageKernels {
  void (*rhs)(int, int, const double*, const double*, double, int, const double*,
              const double* const*, double*);
  int (*factor_and_solve)(const double*, int, double, int, double*, int*, const double*, double*, int);
  void (*product)(const double*, int, int, const double*, int, double*, int);
  void (*add_product)(const double*, int, int, const double*, double*, int);
  void (*derivatives)(int, int, const double*, const double*, double, const double*, double*);
};

template <std::size_t... I>
constexpr std::array<FixedStageKernels, sizeof...(I)> fixed_stage_kernel_table(std::index_sequence<I...>) {
  return {FixedStageKernels{&fixed_stage_rhs<static_cast<int>(I) + 1>,
                            &fixed_stage_factor_and_solve<static_cast<int>(I) + 1>,
                            &fixed_stage_product<static_cast<int>(I) + 1>,
                            &fixed_stage_add_product<static_cast<int>(I) + 1>,
                            &fixed_stage_derivatives<static_cast<int>(I) + 1>}...};
}

/// The kernels of order n, or nullptr above fixed_stage_limit.
inline const FixedStageKernels* fixed_stage_kernels(int n) {
  static constexpr auto table = fixed_stage_kernel_table(std::make_index_sequence<fixed_stage_limit>{});
  return n >= 1 && n <= fixed_stage_limit ? &table[static_cast<std::size_t>(n - 1)] : nullptr;
}

}  // namespace esdirk::detail
