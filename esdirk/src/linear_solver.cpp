#include "esdirk/linear_solver.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, std::size_t trans_len);
}

namespace esdirk {
namespace {

// Below this order, LU and triangular solves run in plain loops: OpenBLAS's dgetrf/dgetrs
// spend more instructions on dispatch than on arithmetic for small matrices (measured with
// callgrind on the Dow problem, n = 10: about 24,000 instructions per dgetrs call against
// about 300 for the loops). Above it, LAPACK's blocked algorithms win.
constexpr int small_order = 48;

// Unblocked LU with partial pivoting (the algorithm of LAPACK's dgetf2), 1-based pivots.
int small_lu_factor(MatrixRef A, int* pivots) {
  const int n = A.rows;
  int info = 0;
  for (int k = 0; k < n; ++k) {
    int p = k;
    double largest = std::abs(A(k, k));
    for (int i = k + 1; i < n; ++i) {
      if (std::abs(A(i, k)) > largest) {
        largest = std::abs(A(i, k));
        p = i;
      }
    }
    pivots[k] = p + 1;
    if (largest == 0.0) {
      if (info == 0) info = k + 1;
      continue;
    }
    if (p != k)
      for (int j = 0; j < n; ++j) std::swap(A(k, j), A(p, j));
    const double inverse = 1.0 / A(k, k);
    for (int i = k + 1; i < n; ++i) A(i, k) *= inverse;
    for (int j = k + 1; j < n; ++j) {
      const double akj = A(k, j);
      if (akj == 0.0) continue;
      double* column = A.column(j);
      const double* lower = A.column(k);
      for (int i = k + 1; i < n; ++i) column[i] -= lower[i] * akj;
    }
  }
  return info;
}

void small_lu_solve(ConstMatrixRef LU, const int* pivots, MatrixRef B, bool transpose) {
  const int n = LU.rows;
  for (int c = 0; c < B.cols; ++c) {
    double* b = B.column(c);
    if (!transpose) {
      for (int k = 0; k < n; ++k) std::swap(b[k], b[pivots[k] - 1]);
      for (int j = 0; j < n; ++j) {  // L y = P b (unit lower), column-oriented
        const double bj = b[j];
        const double* l = LU.column(j);
        for (int i = j + 1; i < n; ++i) b[i] -= l[i] * bj;
      }
      for (int j = n - 1; j >= 0; --j) {  // U x = y
        const double* u = LU.column(j);
        b[j] /= u[j];
        const double bj = b[j];
        for (int i = 0; i < j; ++i) b[i] -= u[i] * bj;
      }
    } else {
      for (int j = 0; j < n; ++j) {  // U^T y = b
        const double* u = LU.column(j);
        double sum = b[j];
        for (int i = 0; i < j; ++i) sum -= u[i] * b[i];
        b[j] = sum / u[j];
      }
      for (int j = n - 1; j >= 0; --j) {  // L^T x = y
        const double* l = LU.column(j);
        double sum = b[j];
        for (int i = j + 1; i < n; ++i) sum -= l[i] * b[i];
        b[j] = sum;
      }
      for (int k = n - 1; k >= 0; --k) std::swap(b[k], b[pivots[k] - 1]);
    }
  }
}

}  // namespace

int lu_factor(MatrixRef A, int* pivots) {
  if (A.rows == A.cols && A.rows <= small_order) return small_lu_factor(A, pivots);
  int info = 0;
  const int ld = std::max(1, A.ld);
  dgetrf_(&A.rows, &A.cols, A.data, &ld, pivots, &info);
  return info;  // < 0 cannot happen with these arguments; > 0 is the zero pivot
}

void lu_solve(ConstMatrixRef LU, const int* pivots, MatrixRef B, bool transpose) {
  if (B.cols == 0 || LU.rows == 0) return;
  if (LU.rows <= small_order) return small_lu_solve(LU, pivots, B, transpose);
  int info = 0;
  const char trans = transpose ? 'T' : 'N';
  const int lda = std::max(1, LU.ld);
  const int ldb = std::max(1, B.ld);
  dgetrs_(&trans, &LU.rows, &B.cols, LU.data, &lda, pivots, B.data, &ldb, &info, 1);
}

void DenseLuSolver::resize(int nx, int nz) {
  nx_ = nx;
  n_ = nx + nz;
  lu_.resize(n_, n_);
  pivots_.assign(static_cast<std::size_t>(n_), 0);
}

int DenseLuSolver::factor(ConstMatrixRef J, double h_gamma) {
  h_gamma_ = h_gamma;
  for (int j = 0; j < n_; ++j) {
    const double* Jj = J.column(j);
    double* Mj = lu_.column(j);
    for (int i = 0; i < nx_; ++i) Mj[i] = -h_gamma * Jj[i];
    for (int i = nx_; i < n_; ++i) Mj[i] = Jj[i];
    if (j < nx_) Mj[j] += 1.0;
  }
  return lu_factor(lu_.ref(), pivots_.data());
}

void DenseLuSolver::solve(MatrixRef B) const { lu_solve(lu_.cref(), pivots_.data(), B, false); }

void DenseLuSolver::solve_transposed(MatrixRef B) const {
  lu_solve(lu_.cref(), pivots_.data(), B, true);
}

}  // namespace esdirk
