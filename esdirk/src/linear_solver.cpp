#include "esdirk/linear_solver.hpp"

#include <algorithm>

extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, std::size_t trans_len);
}

namespace esdirk {

int lu_factor(MatrixRef A, int* pivots) {
  int info = 0;
  const int ld = std::max(1, A.ld);
  dgetrf_(&A.rows, &A.cols, A.data, &ld, pivots, &info);
  return info;  // < 0 cannot happen with these arguments; > 0 is the zero pivot
}

void lu_solve(ConstMatrixRef LU, const int* pivots, MatrixRef B, bool transpose) {
  if (B.cols == 0 || LU.rows == 0) return;
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
