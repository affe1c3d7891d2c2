#include "esdirk/jacobian.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "internal/vector_clones.hpp"

namespace esdirk {
namespace {

// Whether every entry is finite, in one branch-free pass over the bits: a NaN or an infinity
// has all exponent bits set, and exactly then adding 2^52 to its exponent bits carries into
// the sign bit. Integer and, add, or: the compiler vectorizes the loop with the baseline's
// SSE2, where std::isfinite with an early exit took a compare and a branch per entry (about
// 3 k instructions for a 20 x 20 J, a tenth of the adjoint's sweep on the chain of
// bench_adjoint_parameters once the model's J itself is cheap).
constexpr std::uint64_t exponent_bits = 0x7ff0000000000000ULL, exponent_carry = 0x0010000000000000ULL;

ESDIRK_VECTOR_CLONES bool all_finite_clones(ConstMatrixRef m) {
  constexpr std::uint64_t exponent = exponent_bits, carry = exponent_carry;
  const bool contiguous = m.ld == m.rows;  // the columns one after another: one run
  const long rows = contiguous ? static_cast<long>(m.rows) * m.cols : m.rows;
  const int cols = contiguous ? std::min(m.cols, 1) : m.cols;
  std::uint64_t bad = 0;
  for (int j = 0; j < cols; ++j) {
    const double* column = m.column(j);
    for (long i = 0; i < rows; ++i) {
      std::uint64_t bits;
      std::memcpy(&bits, column + i, sizeof bits);
      bad |= (bits & exponent) + carry;
    }
  }
  return (bad >> 63) == 0;
}

const double sqrt_eps = std::sqrt(std::numeric_limits<double>::epsilon());

}  // namespace

JacobianEvaluator::JacobianEvaluator(Problem& problem, Statistics& stats)
    : problem_(problem),
      stats_(stats),
      typical_(static_cast<std::size_t>(problem.size()), 1.0),
      floors_(static_cast<std::size_t>(problem.size()), 0.0),
      v_(static_cast<std::size_t>(problem.size())),
      p_(static_cast<std::size_t>(problem.np())),
      f1_(static_cast<std::size_t>(problem.nx())),
      g1_(static_cast<std::size_t>(problem.nz())) {
  const JacobianStructure& structure = problem.jacobian_structure();
  pattern_ = structure.pattern;
  const bool dense_storage = structure.solver == LinearSolverKind::dense || pattern_ == nullptr;
  if (!dense_storage && problem.has_jacobian() && !problem.has_sparse_jacobian())
    throw std::invalid_argument(
        std::string("JacobianEvaluator: the problem declares a ") + linear_solver_name(structure.solver) +
        " Jacobian but supplies only the dense jacobian(); supply sparse_jacobian() or leave "
        "has_jacobian() false for coloured finite differences");
  if (problem.has_sparse_jacobian() && pattern_ == nullptr)
    throw std::invalid_argument(
        "JacobianEvaluator: the problem supplies sparse_jacobian() but declares no pattern or bandwidths");
  analytic_ = dense_storage ? (problem.has_jacobian() || problem.has_sparse_jacobian())
                            : problem.has_sparse_jacobian();
  colours_ = problem.size();
  if (pattern_ != nullptr) {
    const std::vector<int> colour = colour_columns(*pattern_);
    colours_ = 1 + *std::max_element(colour.begin(), colour.end());
    colour_pointers_.assign(static_cast<std::size_t>(colours_) + 1, 0);
    for (int c : colour) ++colour_pointers_[static_cast<std::size_t>(c) + 1];
    for (int c = 0; c < colours_; ++c) colour_pointers_[c + 1] += colour_pointers_[c];
    colour_columns_.resize(colour.size());
    std::vector<int> next(colour_pointers_.begin(), colour_pointers_.end() - 1);
    for (int j = 0; j < static_cast<int>(colour.size()); ++j) colour_columns_[next[colour[j]]++] = j;
    increments_.assign(colour.size(), 0.0);
    if (problem.has_sparse_jacobian() && !problem.has_jacobian())
      scratch_values_.assign(static_cast<std::size_t>(pattern_->nonzeros()), 0.0);
  }
}

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

void JacobianEvaluator::set_increment_floors(std::vector<double> floors) {
  if (floors.size() != v_.size())
    throw std::invalid_argument(
        "set_increment_floors: expected nx + nz = " + std::to_string(v_.size()) + " values, got " +
        std::to_string(floors.size()));
  for (double v : floors)
    if (!(v >= 0.0) || !std::isfinite(v))
      throw std::invalid_argument("set_increment_floors: values must be finite and >= 0");
  floors_ = std::move(floors);
}

void JacobianEvaluator::use_increments_of(const JacobianEvaluator& other) {
  if (other.typical_.size() != typical_.size())
    throw std::invalid_argument("use_increments_of: the evaluators belong to problems of different sizes");
  std::copy(other.typical_.begin(), other.typical_.end(), typical_.begin());
  std::copy(other.floors_.begin(), other.floors_.end(), floors_.begin());
}

// The increment of column j at value v: relative to |v| (MINPACK), never below sqrt(eps) times
// the floor (ErrorWeights::increment_floors under DifferenceIncrement::error_weighted, else 0)
// or the typical value, whichever is smaller. A state that is tiny but not zero in rows whose
// terms are large and cancel must move by more than the rounding of those terms, which
// sqrt(eps)|v| does not (doc/sensitivity-guide.md, "Difference Jacobians of tiny states"); the
// typical value keeps a large atol/rtol from moving a state of ordinary size by more than
// sqrt(eps) times its scale. The typical value alone serves where both |v| and the floor are
// zero. One rule for dense and coloured columns, so the two give the same columns.
double JacobianEvaluator::increment(int j, double v) const {
  const auto k = static_cast<std::size_t>(j);
  const double scale = std::max(std::abs(v), std::min(floors_[k], typical_[k]));
  return sqrt_eps * (scale != 0.0 ? scale : typical_[k]);
}

// The blocks finite_code does not check inline (over 16 entries, or not contiguous): there the
// call through the clones' resolver pays, and inline the baseline's SSE2 would run.
bool JacobianEvaluator::all_finite_large(ConstMatrixRef m) { return all_finite_clones(m); }

int JacobianEvaluator::other_state_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                            ConstVector f0, ConstVector g0, MatrixRef J) {
  ++stats_.jacobian_evaluations;
  if (problem_.has_sparse_jacobian()) return sparse_into_dense(t, x, z, p, J);
  if (pattern_ != nullptr) {
    J.fill(0.0);
    return coloured_differences(t, p, f0, g0, x.data(), z.data(), nullptr, J);
  }
  const int nx = problem_.nx();
  const int n = problem_.size();
  std::copy(x.begin(), x.end(), v_.begin());
  std::copy(z.begin(), z.end(), v_.begin() + nx);
  const ConstVector xv(v_.data(), static_cast<std::size_t>(nx));
  const ConstVector zv(v_.data() + nx, static_cast<std::size_t>(n - nx));
  for (int j = 0; j < n; ++j) {
    const double saved = v_[j];
    v_[j] = saved + increment(j, saved);
    const double actual = v_[j] - saved;  // the representable increment
    ++stats_.fd_function_evaluations;
    const int code = problem_.evaluate(t, xv, zv, p, f1_, g1_);
    v_[j] = saved;
    if (code != 0) return code;
    for (int i = 0; i < nx; ++i) J(i, j) = (f1_[i] - f0[i]) / actual;
    for (int i = nx; i < n; ++i) J(i, j) = (g1_[i - nx] - g0[i - nx]) / actual;
  }
  return finite_code(J);
}

int JacobianEvaluator::structured_state_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                                 ConstVector f0, ConstVector g0, JacobianMatrix& J) {
  J.record_point(problem_, t, x, z, p);  // Krylov storage only: products and setups there
  ++stats_.jacobian_evaluations;
  const int nnz = J.pattern().nonzeros();
  double* values = J.sparse().values;
  if (problem_.has_sparse_jacobian()) {
    std::fill(values, values + nnz, 0.0);
    const int code = problem_.sparse_jacobian(t, x, z, p, J.sparse());
    if (code != 0) return code;
    return finite_code(ConstMatrixRef(values, nnz, 1, nnz));
  }
  return coloured_differences(t, p, f0, g0, x.data(), z.data(), values, MatrixRef{});
}

// The analytic sparse J of a problem factored densely: its values, scattered.
int JacobianEvaluator::sparse_into_dense(double t, ConstVector x, ConstVector z, ConstVector p,
                                         MatrixRef J) {
  std::fill(scratch_values_.begin(), scratch_values_.end(), 0.0);
  const int code = problem_.sparse_jacobian(t, x, z, p, {pattern_.get(), scratch_values_.data()});
  if (code != 0) return code;
  J.fill(0.0);
  const int* ptr = pattern_->column_pointers().data();
  const int* rows = pattern_->row_indices().data();
  for (int j = 0; j < problem_.size(); ++j)
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) J(rows[k], j) = scratch_values_[static_cast<std::size_t>(k)];
  return finite_code(J);
}

// Forward differences, one evaluation per colour: every column of the colour is moved by its
// own increment (the rule of the dense differences), and since no two of them share a row,
// row i of the difference belongs to the one column of the colour that has an entry in row i.
// Each entry is the quotient the dense differences form, from the same arguments of f_i
// wherever f_i depends on the pattern's variables only. Writes the pattern's `values`, or the
// entries of `dense` (already zero elsewhere) when `values` is null.
int JacobianEvaluator::coloured_differences(double t, ConstVector p, ConstVector f0, ConstVector g0,
                                            const double* x, const double* z, double* values,
                                            MatrixRef dense) {
  const int nx = problem_.nx();
  const int n = problem_.size();
  std::copy(x, x + nx, v_.begin());
  std::copy(z, z + (n - nx), v_.begin() + nx);
  const ConstVector xv(v_.data(), static_cast<std::size_t>(nx));
  const ConstVector zv(v_.data() + nx, static_cast<std::size_t>(n - nx));
  const int* ptr = pattern_->column_pointers().data();
  const int* rows = pattern_->row_indices().data();
  for (int c = 0; c < colours_; ++c) {
    const int first = colour_pointers_[c], last = colour_pointers_[c + 1];
    for (int m = first; m < last; ++m) {
      const int j = colour_columns_[m];
      const double saved = v_[j];
      v_[j] = saved + increment(j, saved);
      increments_[j] = v_[j] - saved;
    }
    ++stats_.fd_function_evaluations;
    const int code = problem_.evaluate(t, xv, zv, p, f1_, g1_);
    for (int m = first; m < last; ++m) {
      const int j = colour_columns_[m];
      v_[j] = j < nx ? x[j] : z[j - nx];
    }
    if (code != 0) return code;
    for (int m = first; m < last; ++m) {
      const int j = colour_columns_[m];
      const double actual = increments_[j];
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) {
        const int i = rows[k];
        const double d = i < nx ? (f1_[i] - f0[i]) / actual : (g1_[i - nx] - g0[i - nx]) / actual;
        if (!std::isfinite(d)) return 1;
        if (values != nullptr)
          values[k] = d;
        else
          dense(i, j) = d;
      }
    }
  }
  return 0;
}

int JacobianEvaluator::parameter_differences(double t, ConstVector x, ConstVector z, ConstVector p,
                                             ConstVector f0, ConstVector g0, MatrixRef Jp) {
  ++stats_.parameter_jacobian_evaluations;
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
  return finite_code(Jp);
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

JacobianPatternCheck check_jacobian_pattern(Problem& problem, double t, ConstVector x,
                                            ConstVector z, ConstVector p,
                                            const JacobianCheckOptions& options) {
  const int nx = problem.nx(), n = problem.size();
  if (static_cast<int>(x.size()) != nx || static_cast<int>(z.size()) != problem.nz() ||
      static_cast<int>(p.size()) != problem.np())
    throw std::invalid_argument("check_jacobian_pattern: x, z, p must have sizes nx, nz, np");
  const auto pattern = problem.jacobian_structure().pattern;
  if (pattern == nullptr)
    throw std::invalid_argument("check_jacobian_pattern: the problem declares no pattern or bandwidths");
  const int* ptr = pattern->column_pointers().data();
  const int* rows = pattern->row_indices().data();
  JacobianPatternCheck report;
  std::vector<double> v(x.begin(), x.end()), plus(n), minus(n), column(n), row_scale(n, 0.0);
  v.insert(v.end(), z.begin(), z.end());
  std::vector<double> fd_values(static_cast<std::size_t>(pattern->nonzeros()), 0.0);
  std::vector<JacobianMismatch> outside;  // candidates; filtered by the row scales at the end
  std::vector<char> listed(static_cast<std::size_t>(n), 0);
  for (int j = 0; j < n; ++j) {
    if (central_column(problem, t, v, nx, p, j, plus, minus, column.data()) != 0)
      throw std::runtime_error("check_jacobian_pattern: evaluate() failed near the given point");
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) {
      listed[rows[k]] = 1;
      fd_values[k] = column[rows[k]];
    }
    for (int i = 0; i < n; ++i) {
      row_scale[i] = std::max(row_scale[i], std::abs(column[i]));
      if (!listed[i] && column[i] != 0.0)
        outside.push_back({i, j, "", "", 0.0, column[i], std::abs(column[i])});
    }
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) listed[rows[k]] = 0;
  }
  for (JacobianMismatch& m : outside) {
    const double allowed = options.absolute_tolerance * row_scale[m.row];
    if (!(m.error > allowed)) continue;
    m.error = allowed > 0.0 ? m.error / allowed : std::numeric_limits<double>::infinity();
    m.equation = problem.equation_name(m.row);
    m.variable = problem.state_name(m.col);
    report.missing.push_back(std::move(m));
  }
  report.missing_count = static_cast<int>(report.missing.size());
  auto worst_first = [](const JacobianMismatch& a, const JacobianMismatch& b) { return a.error > b.error; };
  std::sort(report.missing.begin(), report.missing.end(), worst_first);
  if (static_cast<int>(report.missing.size()) > options.max_reported)
    report.missing.resize(static_cast<std::size_t>(options.max_reported));

  if (problem.has_sparse_jacobian()) {
    std::vector<double> values(fd_values.size(), 0.0);
    try {
      if (problem.sparse_jacobian(t, x, z, p, {pattern.get(), values.data()}) != 0)
        report.callback_error = "sparse_jacobian() returned a failure code at the given point";
    } catch (const std::out_of_range& e) {
      report.callback_error = std::string("sparse_jacobian() wrote outside its pattern: ") + e.what();
    }
    if (report.callback_error.empty())
      for (int j = 0; j < n; ++j)
        for (int k = ptr[j]; k < ptr[j + 1]; ++k) {
          const int i = rows[k];
          const double a = values[k], b = fd_values[k];
          const double allowed = options.relative_tolerance * std::max(std::abs(a), std::abs(b)) +
                                  options.absolute_tolerance * std::max(row_scale[i], std::abs(a));
          double ratio = std::abs(a - b) / (allowed > 0.0 ? allowed : 1.0);
          if (!std::isfinite(a)) ratio = std::numeric_limits<double>::infinity();
          if (ratio <= 1.0) continue;
          report.wrong.push_back({i, j, problem.equation_name(i), problem.state_name(j), a, b, ratio});
        }
    std::sort(report.wrong.begin(), report.wrong.end(), worst_first);
    if (static_cast<int>(report.wrong.size()) > options.max_reported)
      report.wrong.resize(static_cast<std::size_t>(options.max_reported));
  }
  report.ok = report.missing_count == 0 && report.wrong.empty() && report.callback_error.empty();
  return report;
}

std::string JacobianPatternCheck::summary() const {
  if (ok) return "Jacobian pattern check passed: the pattern holds every nonzero of the difference Jacobian.\n";
  std::string out = "Jacobian pattern check FAILED.\n";
  char line[320];
  if (missing_count > 0) {
    out += std::to_string(missing_count) + " nonzero entries are missing from the pattern (d equation / d variable):\n";
    for (const JacobianMismatch& m : missing) {
      std::snprintf(line, sizeof line, "  d%s/d%s (row %d, column %d): finite difference %.6e\n",
                    m.equation.c_str(), m.variable.c_str(), m.row, m.col, m.finite_difference);
      out += line;
    }
  }
  if (!callback_error.empty()) out += "  " + callback_error + "\n";
  for (const JacobianMismatch& m : wrong) {
    std::snprintf(line, sizeof line,
                  "  d%s/d%s: supplied %.6e, finite difference %.6e (%.1fx the tolerance)\n",
                  m.equation.c_str(), m.variable.c_str(), m.supplied, m.finite_difference, m.error);
    out += line;
  }
  return out;
}

}  // namespace esdirk
