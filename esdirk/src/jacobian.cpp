#include "esdirk/jacobian.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace esdirk {
namespace {

bool all_finite(ConstMatrixRef m) {
  for (int j = 0; j < m.cols; ++j)
    for (int i = 0; i < m.rows; ++i)
      if (!std::isfinite(m(i, j))) return false;
  return true;
}

const double sqrt_eps = std::sqrt(std::numeric_limits<double>::epsilon());

}  // namespace

JacobianEvaluator::JacobianEvaluator(Problem& problem, Statistics& stats)
    : problem_(problem),
      stats_(stats),
      typical_(static_cast<std::size_t>(problem.size()), 1.0),
      v_(static_cast<std::size_t>(problem.size())),
      p_(static_cast<std::size_t>(problem.np())),
      f1_(static_cast<std::size_t>(problem.nx())),
      g1_(static_cast<std::size_t>(problem.nz())) {}

void JacobianEvaluator::set_typical_values(std::vector<double> typical) {
  if (typical.size() != v_.size())
    throw std::invalid_argument(
        "set_typical_values: expected nx + nz = " + std::to_string(v_.size()) + " values, got " +
        std::to_string(typical.size()));
  for (double v : typical)
    if (!(v > 0.0) || !std::isfinite(v))
      throw std::invalid_argument("set_typical_values: values must be finite and > 0");
  typical_ = std::move(typical);
}

void JacobianEvaluator::use_increments_of(const JacobianEvaluator& other) {
  if (other.typical_.size() != typical_.size())
    throw std::invalid_argument("use_increments_of: the evaluators belong to problems of different sizes");
  std::copy(other.typical_.begin(), other.typical_.end(), typical_.begin());
}

int JacobianEvaluator::state_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                      ConstVector f0, ConstVector g0, MatrixRef J) {
  ++stats_.jacobian_evaluations;
  if (problem_.has_jacobian()) {
    const int code = problem_.jacobian(t, x, z, p, J);
    if (code != 0) return code;
    return all_finite(ConstMatrixRef(J)) ? 0 : 1;
  }
  const int nx = problem_.nx();
  const int n = problem_.size();
  std::copy(x.begin(), x.end(), v_.begin());
  std::copy(z.begin(), z.end(), v_.begin() + nx);
  const ConstVector xv(v_.data(), static_cast<std::size_t>(nx));
  const ConstVector zv(v_.data() + nx, static_cast<std::size_t>(n - nx));
  for (int j = 0; j < n; ++j) {
    const double saved = v_[j];
    // Relative increments (MINPACK's rule): a state's own size is its scale; only a state that
    // is exactly zero falls back to its typical value.
    v_[j] = saved + sqrt_eps * (saved != 0.0 ? std::abs(saved) : typical_[j]);
    const double actual = v_[j] - saved;  // the representable increment
    ++stats_.fd_function_evaluations;
    const int code = problem_.evaluate(t, xv, zv, p, f1_, g1_);
    v_[j] = saved;
    if (code != 0) return code;
    for (int i = 0; i < nx; ++i) J(i, j) = (f1_[i] - f0[i]) / actual;
    for (int i = nx; i < n; ++i) J(i, j) = (g1_[i - nx] - g0[i - nx]) / actual;
  }
  return all_finite(ConstMatrixRef(J)) ? 0 : 1;
}

int JacobianEvaluator::parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                          ConstVector f0, ConstVector g0, MatrixRef Jp) {
  ++stats_.parameter_jacobian_evaluations;
  if (problem_.has_parameter_jacobian()) {
    const int code = problem_.parameter_jacobian(t, x, z, p, Jp);
    if (code != 0) return code;
    return all_finite(ConstMatrixRef(Jp)) ? 0 : 1;
  }
  const int nx = problem_.nx();
  std::copy(p.begin(), p.end(), p_.begin());
  for (int k = 0; k < problem_.np(); ++k) {
    const double saved = p_[k];
    const double delta = sqrt_eps * (saved != 0.0 ? std::abs(saved) : 1.0);
    p_[k] = saved + delta;
    const double actual = p_[k] - saved;
    ++stats_.fd_function_evaluations;
    const int code = problem_.evaluate(t, x, z, p_, f1_, g1_);
    p_[k] = saved;
    if (code != 0) return code;
    for (int i = 0; i < nx; ++i) Jp(i, k) = (f1_[i] - f0[i]) / actual;
    for (int i = nx; i < problem_.size(); ++i) Jp(i, k) = (g1_[i - nx] - g0[i - nx]) / actual;
  }
  return all_finite(ConstMatrixRef(Jp)) ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------

namespace {

// Central differences of [f; g] along column `j` of the stacked vector `v`, written to `out`.
int central_column(Problem& problem, double t, std::vector<double>& v, int nx, ConstVector p, int j,
                   std::vector<double>& plus, std::vector<double>& minus, double* out) {
  const double h =
      std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(std::abs(v[j]), 1e-8);
  const int n = problem.size();
  const double saved = v[j];
  auto eval = [&](double value, std::vector<double>& res) {
    v[j] = value;
    const ConstVector xv(v.data(), static_cast<std::size_t>(nx));
    const ConstVector zv(v.data() + nx, v.size() - static_cast<std::size_t>(nx));
    const Vector f(res.data(), static_cast<std::size_t>(nx));
    const Vector g(res.data() + nx, static_cast<std::size_t>(n - nx));
    return problem.evaluate(t, xv, zv, p, f, g);
  };
  int code = eval(saved + h, plus);
  if (code == 0) code = eval(saved - h, minus);
  v[j] = saved;
  for (int i = 0; i < n; ++i) out[i] = (plus[i] - minus[i]) / (2.0 * h);
  return code;
}

void compare(const DenseMatrix& supplied, const DenseMatrix& fd, bool parameters, Problem& problem,
             const JacobianCheckOptions& options, JacobianCheck& report) {
  for (int i = 0; i < supplied.rows(); ++i) {
    double row_scale = 0.0;
    for (int j = 0; j < supplied.cols(); ++j)
      row_scale = std::max({row_scale, std::abs(fd(i, j)), std::abs(supplied(i, j))});
    for (int j = 0; j < supplied.cols(); ++j) {
      const double a = supplied(i, j), b = fd(i, j);
      const double allowed = options.relative_tolerance * std::max(std::abs(a), std::abs(b)) +
                             options.absolute_tolerance * row_scale;
      double ratio = std::abs(a - b) / (allowed > 0.0 ? allowed : 1.0);
      if (!std::isfinite(a)) ratio = std::numeric_limits<double>::infinity();
      if (ratio <= 1.0) continue;
      report.ok = false;
      report.worst_error = std::max(report.worst_error, ratio);
      report.worst.push_back({i, j, problem.equation_name(i),
                              parameters ? problem.parameter_name(j) : problem.state_name(j), a, b,
                              ratio});
    }
  }
}

}  // namespace

JacobianCheck check_jacobian(Problem& problem, double t, ConstVector x, ConstVector z,
                             ConstVector p, const JacobianCheckOptions& options) {
  const int nx = problem.nx(), n = problem.size(), np = problem.np();
  if (static_cast<int>(x.size()) != nx || static_cast<int>(z.size()) != problem.nz() ||
      static_cast<int>(p.size()) != np)
    throw std::invalid_argument("check_jacobian: x, z, p must have sizes nx, nz, np");
  if (!problem.has_jacobian() && !problem.has_parameter_jacobian())
    throw std::invalid_argument("check_jacobian: the problem supplies no Jacobian to check");
  JacobianCheck report;
  std::vector<double> v(x.begin(), x.end()), plus(n), minus(n);
  v.insert(v.end(), z.begin(), z.end());
  if (problem.has_jacobian()) {
    DenseMatrix supplied(n, n), fd(n, n);
    if (problem.jacobian(t, x, z, p, supplied.ref()) != 0)
      throw std::runtime_error("check_jacobian: jacobian() failed at the given point");
    for (int j = 0; j < n; ++j)
      if (central_column(problem, t, v, nx, p, j, plus, minus, fd.column(j)) != 0)
        throw std::runtime_error("check_jacobian: evaluate() failed near the given point");
    compare(supplied, fd, false, problem, options, report);
  }
  if (problem.has_parameter_jacobian() && np > 0) {
    DenseMatrix supplied(n, np), fd(n, np);
    if (problem.parameter_jacobian(t, x, z, p, supplied.ref()) != 0)
      throw std::runtime_error("check_jacobian: parameter_jacobian() failed at the given point");
    std::vector<double> pv(p.begin(), p.end());
    for (int k = 0; k < np; ++k) {
      const double h = std::cbrt(std::numeric_limits<double>::epsilon()) *
                       (pv[k] != 0.0 ? std::abs(pv[k]) : 1.0);
      const double saved = pv[k];
      const ConstVector xv(x), zv(z);
      pv[k] = saved + h;
      int code = problem.evaluate(t, xv, zv, pv, Vector(plus.data(), nx),
                                  Vector(plus.data() + nx, n - nx));
      pv[k] = saved - h;
      if (code == 0)
        code = problem.evaluate(t, xv, zv, pv, Vector(minus.data(), nx),
                                Vector(minus.data() + nx, n - nx));
      pv[k] = saved;
      if (code != 0)
        throw std::runtime_error("check_jacobian: evaluate() failed near the given point");
      for (int i = 0; i < n; ++i) fd(i, k) = (plus[i] - minus[i]) / (2.0 * h);
    }
    compare(supplied, fd, true, problem, options, report);
  }
  std::sort(report.worst.begin(), report.worst.end(),
            [](const JacobianMismatch& a, const JacobianMismatch& b) { return a.error > b.error; });
  if (static_cast<int>(report.worst.size()) > options.max_reported)
    report.worst.resize(static_cast<std::size_t>(options.max_reported));
  return report;
}

std::string JacobianCheck::summary() const {
  if (ok) return "Jacobian check passed: every entry agrees with central differences.\n";
  std::string out = "Jacobian check FAILED; worst entries (d equation / d variable):\n";
  char line[256];
  for (const JacobianMismatch& m : worst) {
    std::snprintf(line, sizeof line,
                  "  d%s/d%s: supplied %.6e, finite difference %.6e (%.1fx the tolerance)\n",
                  m.equation.c_str(), m.variable.c_str(), m.supplied, m.finite_difference, m.error);
    out += line;
  }
  return out;
}

}  // namespace esdirk
