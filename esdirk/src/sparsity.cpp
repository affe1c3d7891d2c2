#include "esdirk/sparsity.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

namespace esdirk {

const char* linear_solver_name(LinearSolverKind kind) {
  switch (kind) {
    case LinearSolverKind::dense: return "dense";
    case LinearSolverKind::banded: return "banded";
    case LinearSolverKind::sparse: return "sparse";
    case LinearSolverKind::krylov: return "krylov";
  }
  return "unknown";
}

const char* krylov_preconditioner_name(KrylovPreconditioner preconditioner) {
  switch (preconditioner) {
    case KrylovPreconditioner::ilu0: return "ilu0";
    case KrylovPreconditioner::block_jacobi: return "block_jacobi";
  }
  return "unknown";
}

KrylovSettings krylov_defaults(int n) {
  KrylovSettings settings;
  // A basis of 30 vectors cannot exist for fewer unknowns, and GMRES reaches the exact solution
  // within n iterations anyway: the default must run on any declared structure, while a
  // dimension the caller chose above n is still refused.
  settings.dimension = std::min(settings.dimension, n);
  return settings;
}

void validate_krylov_settings(const KrylovSettings& settings, int n) {
  const auto bad = [n](const std::string& what, const std::string& value) {
    throw std::invalid_argument("Krylov settings: " + what + " (got " + value + ", n = " + std::to_string(n) + ")");
  };
  // The caps on dimension and restarts are checked before the stage system allocates its basis
  // (a dimension near n would ask n^2 values) and bound the work of one GMRES solve.
  if (settings.dimension < 1 || settings.dimension > n)
    bad("the Krylov dimension must be in [1, n]", std::to_string(settings.dimension));
  if (settings.dimension > max_krylov_dimension)
    bad("the Krylov dimension must be <= " + std::to_string(max_krylov_dimension) +
            " (the GMRES basis holds dimension + 1 vectors of n values)",
        std::to_string(settings.dimension));
  if (settings.max_restarts < 0) bad("max_restarts must be >= 0", std::to_string(settings.max_restarts));
  if (settings.max_restarts > max_krylov_restarts)
    bad("max_restarts must be <= " + std::to_string(max_krylov_restarts), std::to_string(settings.max_restarts));
  if (!(settings.tolerance > 0.0 && settings.tolerance < 1.0))
    bad("the tolerance must be in (0, 1)", std::to_string(settings.tolerance));
  if (!(settings.tolerance_with_derivatives > 0.0 && settings.tolerance_with_derivatives < 1.0))
    bad("the tolerance_with_derivatives must be in (0, 1)", std::to_string(settings.tolerance_with_derivatives));
  if (!(settings.sensitivity_tolerance > 0.0 && settings.sensitivity_tolerance < 1.0))
    bad("the sensitivity_tolerance must be in (0, 1)", std::to_string(settings.sensitivity_tolerance));
  if (!(settings.sensitivity_error_fraction >= 0.0 && settings.sensitivity_error_fraction < 1.0))
    bad("the sensitivity_error_fraction must be in [0, 1)", std::to_string(settings.sensitivity_error_fraction));
  if (settings.block_size < 1 || settings.block_size > n)
    bad("the preconditioner's block size must be in [1, n]", std::to_string(settings.block_size));
  if (settings.preconditioner != KrylovPreconditioner::ilu0 &&
      settings.preconditioner != KrylovPreconditioner::block_jacobi)
    bad("the preconditioner must be ilu0 or block_jacobi", std::to_string(static_cast<int>(settings.preconditioner)));
}

SparsityPattern::SparsityPattern(int n, std::vector<int> column_pointers,
                                 std::vector<int> row_indices)
    : n_(n), pointers_(std::move(column_pointers)), rows_(std::move(row_indices)) {
  finish();
}

void SparsityPattern::finish() {
  const std::string where = "SparsityPattern: ";
  if (n_ < 1) throw std::invalid_argument(where + "the size must be >= 1 (got " + std::to_string(n_) + ")");
  if (static_cast<long long>(pointers_.size()) != static_cast<long long>(n_) + 1)
    throw std::invalid_argument(where + "expected n + 1 = " + std::to_string(n_ + 1) +
                                " column pointers, got " + std::to_string(pointers_.size()));
  if (pointers_[0] != 0)
    throw std::invalid_argument(where + "the first column pointer must be 0 (got " +
                                std::to_string(pointers_[0]) + ")");
  for (int j = 0; j < n_; ++j)
    if (pointers_[j + 1] < pointers_[j])
      throw std::invalid_argument(where + "column pointers decrease at column " + std::to_string(j));
  if (static_cast<std::size_t>(pointers_[n_]) != rows_.size())
    throw std::invalid_argument(where + "the last column pointer (" + std::to_string(pointers_[n_]) +
                                ") must equal the number of row indices (" +
                                std::to_string(rows_.size()) + ")");
  std::vector<int> row_count(static_cast<std::size_t>(n_), 0);
  for (int j = 0; j < n_; ++j) {
    const auto first = rows_.begin() + pointers_[j], last = rows_.begin() + pointers_[j + 1];
    for (auto it = first; it != last; ++it)
      if (*it < 0 || *it >= n_)
        throw std::invalid_argument(where + "row index " + std::to_string(*it) + " in column " +
                                    std::to_string(j) + " is outside [0, " + std::to_string(n_) + ")");
    std::sort(first, last);
    const auto duplicate = std::adjacent_find(first, last);
    if (duplicate != last)
      throw std::invalid_argument(where + "entry (" + std::to_string(*duplicate) + ", " +
                                  std::to_string(j) + ") is listed twice");
    for (auto it = first; it != last; ++it) {
      lower_ = std::max(lower_, *it - j);
      upper_ = std::max(upper_, j - *it);
      ++row_count[static_cast<std::size_t>(*it)];
    }
  }
  max_row_count_ = *std::max_element(row_count.begin(), row_count.end());
}

SparsityPattern SparsityPattern::banded(int n, int lower, int upper) {
  if (n < 1) throw std::invalid_argument("SparsityPattern::banded: n must be >= 1");
  if (lower < 0 || upper < 0 || lower >= n || upper >= n)
    throw std::invalid_argument("SparsityPattern::banded: bandwidths must satisfy 0 <= lower, upper < n = " +
                                std::to_string(n) + " (got lower " + std::to_string(lower) +
                                ", upper " + std::to_string(upper) + ")");
  SparsityPattern p;
  p.n_ = n;
  p.pointers_.reserve(static_cast<std::size_t>(n) + 1);
  p.pointers_.push_back(0);
  for (int j = 0; j < n; ++j) {
    for (int i = std::max(0, j - upper); i <= std::min(n - 1, j + lower); ++i) p.rows_.push_back(i);
    p.pointers_.push_back(static_cast<int>(p.rows_.size()));
  }
  p.finish();
  return p;
}

SparsityPattern SparsityPattern::from_entries(int n, std::span<const int> rows,
                                              std::span<const int> cols) {
  if (rows.size() != cols.size())
    throw std::invalid_argument("SparsityPattern::from_entries: rows and cols differ in length");
  if (n < 1) throw std::invalid_argument("SparsityPattern::from_entries: n must be >= 1");
  std::vector<int> pointers(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t k = 0; k < cols.size(); ++k) {
    if (cols[k] < 0 || cols[k] >= n)
      throw std::invalid_argument("SparsityPattern::from_entries: column index " +
                                  std::to_string(cols[k]) + " of entry " + std::to_string(k) +
                                  " is outside [0, " + std::to_string(n) + ")");
    ++pointers[static_cast<std::size_t>(cols[k]) + 1];
  }
  for (int j = 0; j < n; ++j) pointers[j + 1] += pointers[j];
  std::vector<int> next(pointers.begin(), pointers.end() - 1), row_indices(rows.size());
  for (std::size_t k = 0; k < cols.size(); ++k) row_indices[next[cols[k]]++] = rows[k];
  return SparsityPattern(n, std::move(pointers), std::move(row_indices));
}

int SparsityPattern::find(int i, int j) const {
  if (j < 0 || j >= n_) return -1;
  const auto first = rows_.begin() + pointers_[j], last = rows_.begin() + pointers_[j + 1];
  const auto it = std::lower_bound(first, last, i);
  return it != last && *it == i ? static_cast<int>(it - rows_.begin()) : -1;
}

std::vector<int> colour_columns(const SparsityPattern& pattern) {
  const int n = pattern.size();
  const auto& ptr = pattern.column_pointers();
  const auto& rows = pattern.row_indices();
  // The transpose (columns of each row), to find the columns that share a row with column j.
  std::vector<int> row_ptr(static_cast<std::size_t>(n) + 1, 0), row_cols(rows.size());
  for (int r : rows) ++row_ptr[static_cast<std::size_t>(r) + 1];
  for (int i = 0; i < n; ++i) row_ptr[i + 1] += row_ptr[i];
  {
    std::vector<int> next(row_ptr.begin(), row_ptr.end() - 1);
    for (int j = 0; j < n; ++j)
      for (int k = ptr[j]; k < ptr[j + 1]; ++k) row_cols[next[rows[k]]++] = j;
  }
  std::vector<int> colour(static_cast<std::size_t>(n), -1);
  std::vector<int> used_by(static_cast<std::size_t>(n) + 1, -1);  // used_by[c] == j: taken
  for (int j = 0; j < n; ++j) {
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) {
      const int r = rows[k];
      for (int m = row_ptr[r]; m < row_ptr[r + 1]; ++m) {
        const int c = colour[row_cols[m]];
        if (c >= 0) used_by[c] = j;
      }
    }
    int c = 0;
    while (used_by[c] == j) ++c;
    colour[j] = c;
  }
  return colour;
}

JacobianStructure JacobianStructure::dense(int n) {
  JacobianStructure s;
  s.krylov = krylov_defaults(n);
  return s;
}

JacobianStructure JacobianStructure::banded(int n, int lower, int upper) {
  if (lower < 0 || upper < 0 || lower >= n || upper >= n)
    throw std::invalid_argument("set_jacobian_bandwidths: bandwidths must satisfy 0 <= lower, upper < n = " +
                                std::to_string(n) + " (got lower " + std::to_string(lower) +
                                ", upper " + std::to_string(upper) + ")");
  JacobianStructure s;
  s.solver = LinearSolverKind::banded;
  s.pattern = std::make_shared<const SparsityPattern>(SparsityPattern::banded(n, lower, upper));
  s.lower = lower;
  s.upper = upper;
  s.krylov = krylov_defaults(n);
  return s;
}

JacobianStructure JacobianStructure::of_pattern(int n, SparsityPattern pattern, LinearSolverKind solver) {
  if (pattern.size() != n)
    throw std::invalid_argument("set_jacobian_pattern: the pattern is " + std::to_string(pattern.size()) +
                                " x " + std::to_string(pattern.size()) + ", the problem has nx + nz = " +
                                std::to_string(n));
  JacobianStructure s;
  s.solver = solver;
  s.lower = pattern.lower_bandwidth();
  s.upper = pattern.upper_bandwidth();
  s.pattern = std::make_shared<const SparsityPattern>(std::move(pattern));
  s.krylov = krylov_defaults(n);
  return s;
}

}  // namespace esdirk
