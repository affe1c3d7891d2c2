#pragma once
// A thin SVD least-squares solver on LAPACK's dgesvd for the reduced Gauss-Newton problem
// (small and dense: unknowns = parameters + free initial states).

#include <vector>

namespace esdirk::multishoot {

class SvdSolver {
 public:
  /// Factors the m x n column-major matrix a (copied).
  void factor(const double* a, int m, int n);
  /// x = sum over singular values > rcond * s_max of v_i (u_i . b) / s_i: the minimum-norm
  /// least-squares solution with directions of no information left at zero.
  void solve(const double* b, double rcond, double* x) const { solve(b, rcond, 0.0, x); }
  /// The same with Levenberg-Marquardt damping lambda >= 0: filter s_i / (s_i^2 + lambda).
  void solve(const double* b, double rcond, double lambda, double* x) const;
  const std::vector<double>& singular_values() const { return s_; }
  int rank(double rcond) const;
  /// (J^T J)^+ over the kept directions, n x n column-major.
  std::vector<double> pseudo_inverse_gram(double rcond) const;
  /// For each unknown j, the sum of squares of its components in the dropped directions
  /// (those below the cutoff and, when m < n, the null space): 0 = fully determined, 1 = no
  /// information at all.
  std::vector<double> truncated_weight(double rcond) const;

 private:
  int m_ = 0, n_ = 0, k_ = 0;
  std::vector<double> u_, s_, vt_, work_, a_;
};

}  // namespace esdirk::multishoot
