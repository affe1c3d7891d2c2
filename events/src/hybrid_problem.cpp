#include "esdirk/events/hybrid_problem.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/problem.hpp"
#include "mode_problem.hpp"

namespace esdirk {

HybridProblem::HybridProblem(int nx, int nz, int np, int n_events, bool memory)
    : nx_(nx), nz_(nz), np_(np), ne_(n_events), memory_(memory) {
  if (nx < 1 || nz < 0 || np < 0)
    throw std::invalid_argument("HybridProblem: need nx >= 1, nz >= 0, np >= 0 (got nx = " +
                                std::to_string(nx) + ", nz = " + std::to_string(nz) +
                                ", np = " + std::to_string(np) + ")");
  if (n_events < 0)
    throw std::invalid_argument("HybridProblem: the number of event functions is " +
                                std::to_string(n_events) + "; it must be >= 0");
  // The sizes the modes and event Jacobians are made of, summed in 64 bits: nx + nz and
  // 1 + nx + nz + np + memory overflowed an int (INT_MAX states were accepted and a later
  // call reported np = -2147483648). The caps are Problem::max_size, as for a Problem.
  const long long n = static_cast<long long>(nx) + nz;
  const long long columns = 1 + n + np + (memory ? n : 0);
  if (n > Problem::max_size || columns > Problem::max_size || n_events > Problem::max_size)
    throw std::invalid_argument("HybridProblem: nx + nz = " + std::to_string(n) +
                                ", 1 + nx + nz + np + memory = " + std::to_string(columns) +
                                " and the event functions (" + std::to_string(n_events) +
                                ") must not exceed " + std::to_string(Problem::max_size));
  structure_ = JacobianStructure::dense(nx + nz);
}

int HybridProblem::jacobian(int, double, ConstVector, ConstVector, ConstVector, ConstVector,
                            MatrixRef) {
  throw std::logic_error("HybridProblem::jacobian called but has_jacobian() is false");
}

int HybridProblem::sparse_jacobian(int, double, ConstVector, ConstVector, ConstVector, ConstVector,
                                   SparseMatrixRef) {
  throw std::logic_error("HybridProblem::sparse_jacobian called but has_sparse_jacobian() is false");
}

int HybridProblem::jacobian_vector_product(int, double, ConstVector, ConstVector, ConstVector, ConstVector,
                                           ConstVector, Vector) {
  throw std::logic_error(
      "HybridProblem::jacobian_vector_product called but has_jacobian_vector_product() is false");
}

int HybridProblem::preconditioner_setup(int, double, ConstVector, ConstVector, ConstVector, ConstVector,
                                        const JacobianMatrix&, double) {
  throw std::logic_error("HybridProblem::preconditioner_setup called but has_preconditioner() is false");
}

int HybridProblem::preconditioner_solve(ConstVector, Vector, bool) {
  throw std::logic_error("HybridProblem::preconditioner_solve called but has_preconditioner() is false");
}

int HybridProblem::parameter_jacobian(int, double, ConstVector, ConstVector, ConstVector,
                                      ConstVector, MatrixRef) {
  throw std::logic_error(
      "HybridProblem::parameter_jacobian called but has_parameter_jacobian() is false");
}

int HybridProblem::constraint_time_derivative(int, double, ConstVector, ConstVector, ConstVector,
                                              ConstVector, Vector) {
  throw std::logic_error(
      "HybridProblem::constraint_time_derivative called but has_constraint_time_derivative() is false");
}

int HybridProblem::events(int, double, ConstVector, ConstVector, ConstVector, ConstVector,
                          Vector h) {
  if (!h.empty())
    throw std::logic_error("HybridProblem::events is not implemented but the problem declares " +
                           std::to_string(h.size()) + " event functions");
  return 0;
}

int HybridProblem::event_jacobian(int, int, double, ConstVector, ConstVector, ConstVector,
                                  ConstVector, Vector) {
  throw std::logic_error("HybridProblem::event_jacobian called but has_event_jacobian() is false");
}

// The identity reset in the same mode: next_mode and x_plus already hold the current values.
int HybridProblem::transition(int, const TransitionCause&, double, ConstVector, ConstVector,
                              ConstVector, ConstVector, int&, Vector) {
  return 0;
}

int HybridProblem::reset_jacobian(int, const TransitionCause&, double, ConstVector, ConstVector,
                                  ConstVector, ConstVector, MatrixRef) {
  throw std::logic_error("HybridProblem::reset_jacobian called but has_reset_jacobian() is false");
}

// Without a parameter reset p_plus already holds p-.
int HybridProblem::reset_parameters(int, const TransitionCause&, double, ConstVector, ConstVector,
                                    ConstVector, ConstVector, Vector) {
  return 0;
}

int HybridProblem::parameter_reset_jacobian(int, const TransitionCause&, double, ConstVector,
                                            ConstVector, ConstVector, ConstVector, MatrixRef) {
  throw std::logic_error(
      "HybridProblem::parameter_reset_jacobian called but has_parameter_reset_jacobian() is false");
}

JacobianPatternCheck check_jacobian_pattern(HybridProblem& problem, int mode, double t,
                                            ConstVector x, ConstVector z, ConstVector p,
                                            ConstVector memory, const JacobianCheckOptions& options) {
  if (static_cast<int>(p.size()) != problem.np() ||
      static_cast<int>(memory.size()) != problem.memory_size())
    throw std::invalid_argument("check_jacobian_pattern: p and memory must have sizes np = " +
                                std::to_string(problem.np()) + " and " +
                                std::to_string(problem.memory_size()));
  // The mode's view of the problem, as the solver sees it: parameters [p; memory].
  internal::ModeProblem view(problem);
  view.mode = mode;
  std::vector<double> extended(p.begin(), p.end());
  extended.insert(extended.end(), memory.begin(), memory.end());
  return check_jacobian_pattern(view, t, x, z, extended, options);
}

}  // namespace esdirk
