#include "svd.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

extern "C" void dgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, double* a,
                        const int* lda, double* s, double* u, const int* ldu, double* vt,
                        const int* ldvt, double* work, const int* lwork, int* info);

namespace esdirk::multishoot {
namespace {
std::size_t sz(int n) { return static_cast<std::size_t>(n); }
}  // namespace

void SvdSolver::factor(const double* a, int m, int n) {
  m_ = m;
  n_ = n;
  k_ = std::min(m, n);
  a_.assign(a, a + sz(m) * sz(n));
  s_.assign(sz(k_), 0.0);
  u_.assign(sz(m) * sz(k_), 0.0);
  vt_.assign(sz(n) * sz(n), 0.0);  // jobvt = 'A': all n right singular vectors
  const char jobu = 'S', jobvt = 'A';
  const int lda = std::max(m, 1), ldvt = std::max(n, 1);
  int lwork = -1, info = 0;
  double query = 0.0;
  dgesvd_(&jobu, &jobvt, &m, &n, a_.data(), &lda, s_.data(), u_.data(), &lda, vt_.data(), &ldvt,
          &query, &lwork, &info);
  lwork = static_cast<int>(query);
  work_.assign(sz(std::max(lwork, 1)), 0.0);
  dgesvd_(&jobu, &jobvt, &m, &n, a_.data(), &lda, s_.data(), u_.data(), &lda, vt_.data(), &ldvt,
          work_.data(), &lwork, &info);
  if (info != 0)
    throw std::runtime_error("SVD of the reduced Gauss-Newton Jacobian failed (dgesvd info " +
                             std::to_string(info) + ")");
}

int SvdSolver::rank(double rcond) const {
  int r = 0;
  for (double s : s_)
    if (!s_.empty() && s > rcond * s_[0]) ++r;
  return r;
}

void SvdSolver::solve(const double* b, double rcond, double lambda, double* x) const {
  std::fill(x, x + n_, 0.0);
  const int r = rank(rcond);
  for (int i = 0; i < r; ++i) {
    double ub = 0.0;
    for (int row = 0; row < m_; ++row) ub += u_[sz(row + i * m_)] * b[row];
    const double w = ub * s_[sz(i)] / (s_[sz(i)] * s_[sz(i)] + lambda);
    for (int j = 0; j < n_; ++j) x[j] += w * vt_[sz(i + j * n_)];
  }
}

std::vector<double> SvdSolver::pseudo_inverse_gram(double rcond) const {
  std::vector<double> g(sz(n_) * sz(n_), 0.0);
  const int r = rank(rcond);
  for (int i = 0; i < r; ++i) {
    const double w = 1.0 / (s_[sz(i)] * s_[sz(i)]);
    for (int col = 0; col < n_; ++col)
      for (int row = 0; row < n_; ++row)
        g[sz(row + col * n_)] += w * vt_[sz(i + row * n_)] * vt_[sz(i + col * n_)];
  }
  return g;
}

std::vector<double> SvdSolver::truncated_weight(double rcond) const {
  std::vector<double> w(sz(n_), 0.0);
  for (int i = rank(rcond); i < n_; ++i)
    for (int j = 0; j < n_; ++j) w[sz(j)] += vt_[sz(i + j * n_)] * vt_[sz(i + j * n_)];
  return w;
}

}  // namespace esdirk::multishoot
