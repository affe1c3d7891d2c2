#include "esdirk/geometric/index2_reduction.hpp"

#include <stdexcept>

namespace esdirk::geometric {

Index2Reduction::Index2Reduction(int nx, int nu, Rhs f, ConstraintJacobian gq,
                                 RhsJacobian rhs_jacobian, Curvature curvature)
    : Problem(nx, nu, 0),
      f_(std::move(f)),
      gq_(std::move(gq)),
      rhs_jacobian_(std::move(rhs_jacobian)),
      curvature_(std::move(curvature)) {
  if (nu < 1) throw std::invalid_argument("Index2Reduction: at least one constraint is needed");
  if (!f_ || !gq_) throw std::invalid_argument("Index2Reduction: f and g_q are required");
  gq_buffer_.resize(nu, nx);
  fq_.resize(nx, nx);
  fu_.resize(nx, nu);
  curvature_buffer_.resize(nu, nx);
  f_buffer_.assign(static_cast<std::size_t>(nx), 0.0);
}

int Index2Reduction::evaluate(double t, ConstVector x, ConstVector z, ConstVector, Vector f,
                              Vector g) {
  int code = f_(t, x, z, f);
  if (code == 0) code = gq_(t, x, gq_buffer_.ref());
  if (code != 0) return code;
  for (int r = 0; r < nz(); ++r) {
    double sum = 0.0;
    for (int k = 0; k < nx(); ++k) sum += gq_buffer_(r, k) * f[static_cast<std::size_t>(k)];
    g[static_cast<std::size_t>(r)] = sum;
  }
  return 0;
}

int Index2Reduction::jacobian(double t, ConstVector x, ConstVector z, ConstVector, MatrixRef J) {
  int code = f_(t, x, z, f_buffer_);
  if (code == 0) code = rhs_jacobian_(t, x, z, fq_.ref(), fu_.ref());
  if (code == 0) code = gq_(t, x, gq_buffer_.ref());
  if (code == 0) code = curvature_(t, x, f_buffer_, curvature_buffer_.ref());
  if (code != 0) return code;
  const int n = nx(), m = nz();
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < n; ++r) J(r, c) = fq_(r, c);
  for (int c = 0; c < m; ++c)
    for (int r = 0; r < n; ++r) J(r, n + c) = fu_(r, c);
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < n; ++c) {
      double sum = curvature_buffer_(r, c);
      for (int k = 0; k < n; ++k) sum += gq_buffer_(r, k) * fq_(k, c);
      J(n + r, c) = sum;
    }
    for (int c = 0; c < m; ++c) {
      double sum = 0.0;
      for (int k = 0; k < n; ++k) sum += gq_buffer_(r, k) * fu_(k, c);
      J(n + r, n + c) = sum;
    }
  }
  return 0;
}

}  // namespace esdirk::geometric
