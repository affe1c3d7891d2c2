#include "esdirk/problem.hpp"

#include <memory>
#include <stdexcept>
#include <utility>

namespace esdirk {

Problem::Problem(int nx, int nz, int np) : nx_(nx), nz_(nz), np_(np) {
  if (nx < 1)
    throw std::invalid_argument("Problem: nx must be >= 1 (got " + std::to_string(nx) + ")");
  if (nz < 0)
    throw std::invalid_argument("Problem: nz must be >= 0 (got " + std::to_string(nz) + ")");
  if (np < 0)
    throw std::invalid_argument("Problem: np must be >= 0 (got " + std::to_string(np) + ")");
  // Sizes are ints, and n = nx + nz, nx + np (seed rows) and their products with the number of
  // stages or directions must not overflow anywhere: cap each sum well below INT_MAX.
  const long long n = static_cast<long long>(nx) + nz, rows = static_cast<long long>(nx) + np;
  if (n > max_size || rows > max_size)
    throw std::invalid_argument("Problem: nx + nz = " + std::to_string(n) + " and nx + np = " +
                                std::to_string(rows) + " must not exceed " +
                                std::to_string(max_size));
  structure_ = JacobianStructure::dense(nx + nz);
}

int Problem::jacobian(double, ConstVector, ConstVector, ConstVector, MatrixRef) {
  throw std::logic_error("Problem::jacobian called but has_jacobian() is false");
}

int Problem::parameter_jacobian(double, ConstVector, ConstVector, ConstVector, MatrixRef) {
  throw std::logic_error(
      "Problem::parameter_jacobian called but has_parameter_jacobian() is false");
}

int Problem::parameter_vjp(double, ConstVector, ConstVector, ConstVector, ConstVector, Vector) {
  throw std::logic_error("Problem::parameter_vjp called but has_parameter_vjp() is false");
}

int Problem::sparse_jacobian(double, ConstVector, ConstVector, ConstVector, SparseMatrixRef) {
  throw std::logic_error("Problem::sparse_jacobian called but has_sparse_jacobian() is false");
}

int Problem::jacobian_vector_product(double, ConstVector, ConstVector, ConstVector, ConstVector,
                                     Vector) {
  throw std::logic_error(
      "Problem::jacobian_vector_product called but has_jacobian_vector_product() is false");
}

int Problem::preconditioner_setup(double, ConstVector, ConstVector, ConstVector,
                                  const JacobianMatrix&, double) {
  throw std::logic_error("Problem::preconditioner_setup called but has_preconditioner() is false");
}

int Problem::preconditioner_solve(ConstVector, Vector, bool) {
  throw std::logic_error("Problem::preconditioner_solve called but has_preconditioner() is false");
}

const void*& internal::preconditioner_owner(Problem& problem) {
  return problem.preconditioner_owner_;
}

void Problem::set_jacobian_bandwidths(int lower, int upper) {
  structure_ = JacobianStructure::banded(size(), lower, upper);
}

void Problem::set_jacobian_pattern(SparsityPattern pattern, LinearSolverKind solver) {
  structure_ = JacobianStructure::of_pattern(size(), std::move(pattern), solver);
}

void Problem::set_krylov_settings(const KrylovSettings& settings) {
  validate_krylov_settings(settings, size());
  structure_.krylov = settings;
}

std::string Problem::state_name(int i) const {
  return i < nx_ ? "x[" + std::to_string(i) + "]" : "z[" + std::to_string(i - nx_) + "]";
}

std::string Problem::equation_name(int i) const {
  return i < nx_ ? "f[" + std::to_string(i) + "]" : "g[" + std::to_string(i - nx_) + "]";
}

std::string Problem::parameter_name(int i) const { return "p[" + std::to_string(i) + "]"; }

FunctionProblem::FunctionProblem(int nx, int nz, int np, Rhs f, Constraints g)
    : Problem(nx, nz, np), f_(std::move(f)), g_(std::move(g)) {
  if (!f_) throw std::invalid_argument("FunctionProblem: f is empty");
  if (nz > 0 && !g_) throw std::invalid_argument("FunctionProblem: nz > 0 but g is empty");
}

FunctionProblem& FunctionProblem::set_jacobian(JacobianFn jacobian) {
  jacobian_ = std::move(jacobian);
  return *this;
}

FunctionProblem& FunctionProblem::set_parameter_jacobian(JacobianFn parameter_jacobian) {
  parameter_jacobian_ = std::move(parameter_jacobian);
  return *this;
}

FunctionProblem& FunctionProblem::set_sparse_jacobian(SparseJacobianFn jacobian) {
  sparse_jacobian_ = std::move(jacobian);
  return *this;
}

FunctionProblem& FunctionProblem::set_jacobian_vector_product(JacobianVectorFn product) {
  product_ = std::move(product);
  return *this;
}

FunctionProblem& FunctionProblem::set_preconditioner(PreconditionerSetupFn setup,
                                                     PreconditionerSolveFn solve) {
  if (static_cast<bool>(setup) != static_cast<bool>(solve))
    throw std::invalid_argument("FunctionProblem::set_preconditioner: give both setup and solve, or neither");
  preconditioner_setup_ = std::move(setup);
  preconditioner_solve_ = std::move(solve);
  return *this;
}

int FunctionProblem::jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p,
                                             ConstVector v, Vector out) {
  if (!product_) return Problem::jacobian_vector_product(t, x, z, p, v, out);
  return product_(t, x, z, p, v, out);
}

int FunctionProblem::preconditioner_setup(double t, ConstVector x, ConstVector z, ConstVector p,
                                          const JacobianMatrix& J, double h_gamma) {
  if (!preconditioner_setup_) return Problem::preconditioner_setup(t, x, z, p, J, h_gamma);
  return preconditioner_setup_(t, x, z, p, J, h_gamma);
}

int FunctionProblem::preconditioner_solve(ConstVector r, Vector out, bool transpose) {
  if (!preconditioner_solve_) return Problem::preconditioner_solve(r, out, transpose);
  return preconditioner_solve_(r, out, transpose);
}

int FunctionProblem::sparse_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                     SparseMatrixRef J) {
  if (!sparse_jacobian_) return Problem::sparse_jacobian(t, x, z, p, J);
  return sparse_jacobian_(t, x, z, p, J);
}

int FunctionProblem::evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f,
                              Vector g) {
  const int code = f_(t, x, z, p, f);
  if (code != 0 || nz() == 0) return code;
  return g_(t, x, z, p, g);
}

int FunctionProblem::jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) {
  if (!jacobian_) return Problem::jacobian(t, x, z, p, J);
  return jacobian_(t, x, z, p, J);
}

int FunctionProblem::parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                        MatrixRef Jp) {
  if (!parameter_jacobian_) return Problem::parameter_jacobian(t, x, z, p, Jp);
  return parameter_jacobian_(t, x, z, p, Jp);
}

}  // namespace esdirk
