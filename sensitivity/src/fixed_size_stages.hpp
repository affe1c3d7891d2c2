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
#include "internal/vector_clones.hpp"

namespace esdirk::detail {

/// Largest order with fixed-size stage kernels, chosen by measurement (callgrind,
/// doc/sensitivity-guide.md "Cost"): the stage solves of a shooting interval cost 22-27 % fewer
/// instructions at n = 2, 3 and 6 (3 to 5 directions), but 23 % more on Dow (n = 10, 15
/// directions), where the general solve runs 4 to 8 columns at once in vector lanes and the
/// column-by-column solve here cannot keep up. Above this order (up to 16) only the stage LU
/// and its solve have a kernel of their own, fixed_stage_factor_and_solve_lanes, which solves
/// in lanes across the directions.
inline constexpr int fixed_stage_limit = 8;

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

/// fixed_stage_solve with the number of differential rows NX known at compile time (NX = N: an
/// ODE, whose row selections below are then no selections at all), or NX = -1 for the run-time
/// `nx` of a DAE. The same operations on every entry either way. Flattened: the LU is inlined,
/// which the compiler does not do by itself once the forming is apart (84 instructions of
/// call and spills per stage at N = 2).
template <int N, int NX>
[[gnu::flatten]] int fixed_stage_solve_rows(int runtime_nx, int ns, const double* J, int ldj, double hg, double inverse_hg,
                           const double* __restrict s0, const double* __restrict fp, int terms,
                           const double* coefficients, const double* const* blocks, double* lu,
                           int* pivots, double* __restrict rhs, double* __restrict S,
                           double* __restrict SF) {
  const int nx = NX >= 0 ? NX : runtime_nx;
  int info = 0;
  if constexpr (NX == N) {  // M = I - hg J, formed as fixed_size_form_and_factor forms it
    for (int j = 0; j < N; ++j) {
      const double* Jj = J + static_cast<long>(j) * ldj;
      double* Mj = lu + j * N;
      for (int i = 0; i < N; ++i) Mj[i] = -hg * Jj[i];
      Mj[j] += 1.0;
    }
    info = internal::fixed_size_lu_factor<N>(lu, N, pivots);
  } else {
    info = internal::fixed_size_form_and_factor<N>(J, ldj, hg, nx, lu, N, pivots);
  }
  int row_of[N];  // the row of the right-hand side that the interchanges bring to row i
  for (int i = 0; i < N; ++i) row_of[i] = i;
  for (int k = 0; k < N; ++k) std::swap(row_of[k], row_of[pivots[k] - 1]);
  for (int j = 0; j < ns; ++j) {
    const std::size_t column = static_cast<std::size_t>(j) * N;
    double r[N];
    for (int k = 0; k < N; ++k) {  // both values, then a select: no branch on the run-time nx
      const double differential = s0[column + k] + hg * fp[column + k], algebraic = -fp[column + k];
      r[k] = k < nx ? differential : algebraic;
    }
    for (int t = 0; t < terms; ++t) {
      const double c = coefficients[t];
      const double* __restrict sf = blocks[t] + column;
      for (int k = 0; k < N; ++k) r[k] += c * sf[k];
    }
    for (int k = 0; k < N; ++k) rhs[column + k] = r[k];
    if (info != 0) continue;
    double x[N];
    for (int i = 0; i < N; ++i) x[i] = r[row_of[i]];
    for (int q = 0; q < N; ++q) {  // L y = P b (unit lower), column-oriented
      const double xq = x[q];
      for (int i = q + 1; i < N; ++i) x[i] -= lu[q * N + i] * xq;
    }
    for (int q = N - 1; q >= 0; --q) {  // U x = y
      x[q] /= lu[q * N + q];
      const double xq = x[q];
      for (int i = 0; i < q; ++i) x[i] -= lu[q * N + i] * xq;
    }
    for (int k = 0; k < N; ++k) {
      S[column + k] = x[k];
      const double derivative = (x[k] - r[k]) * inverse_hg + fp[column + k];
      SF[column + k] = k < nx ? derivative : 0.0;
    }
  }
  return info;
}

/// One implicit stage in one call, column by column with the column in registers: the
/// right-hand side rhs = [s0_x + hg fp_x ; -fp_z] + sum_t coefficients[t] blocks[t] (the base,
/// then one scaled addition per earlier stage; stored: the refinement of a singular M_i starts
/// from it), the LU of M = [I - hg J_x-rows ; J_z-rows] (fixed_size_form_and_factor, the
/// factorization of DenseLuSolver) into lu and pivots, the solve of each direction (the
/// column-oriented substitutions of fixed_size_lu_solve) into S, and its stage derivatives (as
/// fixed_stage_derivatives) into SF. Returns 0, or the 1-based index of a zero pivot of M_i
/// (rhs formed; S and SF untouched then). An ODE (nx = N) takes a copy of the kernel without
/// the run-time row selections: about 15 % of its instructions at N = 2, 3 directions.
template <int N>
int fixed_stage_solve(int nx, int ns, const double* J, int ldj, double hg, double inverse_hg,
                      const double* __restrict s0, const double* __restrict fp, int terms,
                      const double* coefficients, const double* const* blocks, double* lu,
                      int* pivots, double* __restrict rhs, double* __restrict S,
                      double* __restrict SF) {
  if (nx == N)
    return fixed_stage_solve_rows<N, N>(nx, ns, J, ldj, hg, inverse_hg, s0, fp, terms, coefficients, blocks,
                                        lu, pivots, rhs, S, SF);
  return fixed_stage_solve_rows<N, -1>(nx, ns, J, ldj, hg, inverse_hg, s0, fp, terms, coefficients, blocks,
                                       lu, pivots, rhs, S, SF);
}

/// S = M^{-1} rhs for ns columns (contiguous blocks of N rows) from the factors of
/// fixed_size_lu_factor, W columns at a time: each block is copied (permuted) into a row-major
/// buffer, so that every update of the triangular solves is one row operation over W lanes
/// (the solve of the general path, small_lu_solve_block, with the order known). Zero entries of
/// L and U are skipped as there. Every entry sees the operations of the column-by-column solve
/// in the same order.
template <int N, int W>
ESDIRK_VECTOR_CLONES void fixed_stage_solve_block(const double* __restrict lu, const int* row_of,
                                                  const double* __restrict rhs, double* __restrict S,
                                                  int first, int width) {
  static_assert(W % 4 == 0);
  constexpr int L = W / 4;
  using Lanes = double __attribute__((vector_size(32)));  // lane by lane: the scalar rounding
  alignas(64) double t[N * W];
  for (int i = 0; i < N; ++i) {
    double* ti = t + i * W;
    int c = 0;
    for (; c < width; ++c) ti[c] = rhs[static_cast<std::size_t>(first + c) * N + row_of[i]];
    for (; c < W; ++c) ti[c] = 0.0;  // padding lanes: computed, never stored
  }
  Lanes x[N][L];
  for (int i = 0; i < N; ++i)
    for (int l = 0; l < L; ++l) __builtin_memcpy(&x[i][l], t + i * W + 4 * l, sizeof(Lanes));
  for (int j = 0; j < N; ++j) {  // L y = P b
    for (int i = j + 1; i < N; ++i) {
      const double lij = lu[j * N + i];
      if (lij == 0.0) continue;
      const Lanes v = {lij, lij, lij, lij};
      for (int l = 0; l < L; ++l) x[i][l] -= v * x[j][l];
    }
  }
  for (int j = N - 1; j >= 0; --j) {  // U x = y
    const double ujj = lu[j * N + j];
    const Lanes d = {ujj, ujj, ujj, ujj};
    for (int l = 0; l < L; ++l) x[j][l] /= d;
    for (int i = 0; i < j; ++i) {
      const double uij = lu[j * N + i];
      if (uij == 0.0) continue;
      const Lanes v = {uij, uij, uij, uij};
      for (int l = 0; l < L; ++l) x[i][l] -= v * x[j][l];
    }
  }
  for (int i = 0; i < N; ++i)
    for (int l = 0; l < L; ++l) __builtin_memcpy(t + i * W + 4 * l, &x[i][l], sizeof(Lanes));
  for (int c = 0; c < width; ++c) {
    double* s = S + static_cast<std::size_t>(first + c) * N;
    for (int i = 0; i < N; ++i) s[i] = t[i * W + c];
  }
}

/// The LU of M = [I - hg J_x-rows ; J_z-rows] (fixed_size_form_and_factor, the factorization of
/// DenseLuSolver) into lu and pivots, then S = M^{-1} rhs for ns columns in blocks of at most 16
/// lanes: the stage solve of the orders above fixed_stage_limit, where a solve in vector lanes
/// across the directions is what pays (Dow, n = 10). Returns 0, or the 1-based index of a zero
/// pivot (S untouched then).
template <int N>
int fixed_stage_factor_and_solve_lanes(const double* J, int ldj, double hg, int nx, double* lu,
                                       int* pivots, const double* __restrict rhs,
                                       double* __restrict S, int ns) {
  const int info = internal::fixed_size_form_and_factor<N>(J, ldj, hg, nx, lu, N, pivots);
  if (info != 0) return info;
  int row_of[N];  // the row of the right-hand side that the interchanges bring to row i
  for (int i = 0; i < N; ++i) row_of[i] = i;
  for (int k = 0; k < N; ++k) std::swap(row_of[k], row_of[pivots[k] - 1]);
  for (int c = 0; c < ns; c += 16) {
    const int width = ns - c < 16 ? ns - c : 16;
    if (width > 12)
      fixed_stage_solve_block<N, 16>(lu, row_of, rhs, S, c, width);
    else if (width > 8)
      fixed_stage_solve_block<N, 12>(lu, row_of, rhs, S, c, width);
    else if (width > 4)
      fixed_stage_solve_block<N, 8>(lu, row_of, rhs, S, c, width);
    else
      fixed_stage_solve_block<N, 4>(lu, row_of, rhs, S, c, width);
  }
  return 0;
}

using FixedStageFactorAndSolve = int (*)(const double*, int, double, int, double*, int*,
                                         const double*, double*, int);

/// Orders above fixed_stage_limit with a stage solve in lanes: up to internal::fixed_size_lu_limit.
inline FixedStageFactorAndSolve fixed_stage_lanes_solve(int n) {
  static constexpr FixedStageFactorAndSolve table[] = {
      &fixed_stage_factor_and_solve_lanes<9>,  &fixed_stage_factor_and_solve_lanes<10>,
      &fixed_stage_factor_and_solve_lanes<11>, &fixed_stage_factor_and_solve_lanes<12>,
      &fixed_stage_factor_and_solve_lanes<13>, &fixed_stage_factor_and_solve_lanes<14>,
      &fixed_stage_factor_and_solve_lanes<15>, &fixed_stage_factor_and_solve_lanes<16>};
  static_assert(fixed_stage_limit == 8 && internal::fixed_size_lu_limit == 16);
  return n > fixed_stage_limit && n <= internal::fixed_size_lu_limit
             ? table[n - fixed_stage_limit - 1]
             : nullptr;
}

/// The kernels of one order.
struct FixedStageKernels {
  void (*product)(const double*, int, int, const double*, int, double*, int);
  void (*add_product)(const double*, int, int, const double*, double*, int);
  void (*derivatives)(int, int, const double*, const double*, double, const double*, double*);
  int (*stage)(int, int, const double*, int, double, double, const double*, const double*, int,
               const double*, const double* const*, double*, int*, double*, double*, double*);
};

template <std::size_t... I>
constexpr std::array<FixedStageKernels, sizeof...(I)> fixed_stage_kernel_table(std::index_sequence<I...>) {
  return {FixedStageKernels{&fixed_stage_product<static_cast<int>(I) + 1>,
                            &fixed_stage_add_product<static_cast<int>(I) + 1>,
                            &fixed_stage_derivatives<static_cast<int>(I) + 1>,
                            &fixed_stage_solve<static_cast<int>(I) + 1>}...};
}

/// The kernels of order n, or nullptr above fixed_stage_limit.
inline const FixedStageKernels* fixed_stage_kernels(int n) {
  static constexpr auto table = fixed_stage_kernel_table(std::make_index_sequence<fixed_stage_limit>{});
  return n >= 1 && n <= fixed_stage_limit ? &table[static_cast<std::size_t>(n - 1)] : nullptr;
}

}  // namespace esdirk::detail
