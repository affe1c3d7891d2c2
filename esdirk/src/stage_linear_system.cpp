#include "esdirk/stage_linear_system.hpp"

#include <stdexcept>

#include "internal/structured_lu.hpp"

namespace esdirk {

StageLinearSystem::StageLinearSystem(int nx, int nz) : n_(nx + nz) { solver_.resize(nx, nz); }

StageLinearSystem::StageLinearSystem(int nx, int nz, const JacobianStructure& structure)
    : kind_(structure.solver), n_(nx + nz) {
  switch (kind_) {
    case LinearSolverKind::dense: solver_.resize(nx, nz); break;
    case LinearSolverKind::banded: structured_ = internal::make_banded_lu(nx, nz, structure); break;
    case LinearSolverKind::sparse: structured_ = internal::make_sparse_lu(nx, nz, structure); break;
    case LinearSolverKind::krylov: structured_ = internal::make_krylov(nx, nz, structure); break;
  }
}

StageLinearSystem::~StageLinearSystem() = default;

int internal::StructuredLu::factor_preconditioned_by(const JacobianMatrix&, double, const StructuredLu&) {
  throw std::logic_error("factor_preconditioned_by: a direct back-end has no preconditioner to borrow");
}

void internal::StructuredLu::solve_columns(double* const*, const double*, int) const {
  throw std::logic_error("solve_columns: a direct back-end solves exactly, without tolerances");
}

int StageLinearSystem::factor(const JacobianMatrix& J, double h_gamma, long step_index) {
  if (kind_ == LinearSolverKind::dense) return factor(J.dense(), h_gamma, step_index);
  if (J.is_dense())
    throw std::logic_error("StageLinearSystem::factor: a banded or sparse back-end needs J in sparse storage");
  step_index_ = step_index;
  h_gamma_ = h_gamma;
  return structured_->factor(J, h_gamma);
}

int StageLinearSystem::factor_preconditioned_by(const JacobianMatrix& J, double h_gamma,
                                                const StageLinearSystem& other) {
  if (kind_ != LinearSolverKind::krylov || other.kind_ != LinearSolverKind::krylov || other.n_ != n_ ||
      &other == this)
    throw std::logic_error("StageLinearSystem::factor_preconditioned_by: needs two Krylov systems of one size");
  h_gamma_ = h_gamma;
  step_index_ = other.step_index_;
  return structured_->factor_preconditioned_by(J, h_gamma, *other.structured_);
}

int StageLinearSystem::factor(ConstMatrixRef J, double h_gamma, long step_index) {
  if (kind_ != LinearSolverKind::dense)
    throw std::logic_error("StageLinearSystem::factor: a dense J for a banded or sparse back-end");
  step_index_ = step_index;
  h_gamma_ = h_gamma;
  return solver_.factor(J, h_gamma);
}

void StageLinearSystem::set_statistics(Statistics* stats) {
  if (structured_) structured_->set_statistics(stats);
}

void StageLinearSystem::set_krylov_tolerance(double tolerance) {
  if (structured_) structured_->set_tolerance(tolerance);
}

void StageLinearSystem::solve_columns(std::span<double* const> columns, std::span<const double> tolerances) const {
  if (kind_ != LinearSolverKind::krylov || tolerances.size() != columns.size())
    throw std::logic_error("StageLinearSystem::solve_columns: needs the Krylov back-end and one tolerance per column");
  structured_->solve_columns(columns.data(), tolerances.data(), static_cast<int>(columns.size()));
}

void StageLinearSystem::reserve_columns(int count) {
  if (structured_) structured_->reserve_columns(count);
}

bool StageLinearSystem::last_solve_converged() const {
  return !structured_ || structured_->last_solve_converged();
}

std::string StageLinearSystem::failure_note() const {
  return structured_ ? structured_->failure_note() : std::string();
}

void StageLinearSystem::solve_structured(MatrixRef B, bool transpose) const {
  structured_->solve(B, transpose);
}

void StageLinearSystem::invert(MatrixRef W) const {
  if (kind_ == LinearSolverKind::dense) return solver_.invert(W);
  W.fill(0.0);
  for (int k = 0; k < W.rows; ++k) W(k, k) = 1.0;
  solve_structured(W, false);
}

std::size_t StageLinearSystem::bytes() const {
  if (kind_ != LinearSolverKind::dense) return structured_->bytes();
  return static_cast<std::size_t>(n_) * n_ * sizeof(double) + static_cast<std::size_t>(n_) * sizeof(int);
}

FactorizationCost StageLinearSystem::factorization_cost() const {
  if (kind_ != LinearSolverKind::dense) return structured_->cost();
  const double n = n_;
  return {n * n, n * n, 2.0 / 3.0 * n * n * n};
}

}  // namespace esdirk
