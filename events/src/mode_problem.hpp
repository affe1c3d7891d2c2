#pragma once
// Internal: the Problem the integrator sees in one mode of a HybridProblem. Its parameter
// vector is [p; x*; z*]: the memory values are constant within a mode, so they travel as
// parameters, and their sensitivities enter the forward sensitivities through the parameter
// directions of the seed (doc/events-guide.md, "Memory").

#include "esdirk/events/hybrid_problem.hpp"
#include "esdirk/problem.hpp"

namespace esdirk::internal {

class ModeProblem final : public Problem {
 public:
  // The hybrid problem's Jacobian structure (one for every mode) chooses the back-end.
  explicit ModeProblem(HybridProblem& hybrid) : ModeProblem(hybrid, hybrid.jacobian_structure()) {}
  // Another view of the same problem with the structure `forward` was made with (the adjoint's
  // replay and sweep share the forward run's Jacobian evaluator: a structure declared on the
  // hybrid problem after the run must not reach them).
  ModeProblem(HybridProblem& hybrid, const JacobianStructure& structure)
      : Problem(hybrid.nx(), hybrid.nz(), hybrid.np() + hybrid.memory_size()), hybrid_(hybrid) {
    if (structure.pattern != nullptr) {
      set_jacobian_pattern(*structure.pattern, structure.solver);
      // HybridProblem::set_krylov_settings (set_jacobian_pattern started from the defaults).
      if (structure.solver == LinearSolverKind::krylov) set_krylov_settings(structure.krylov);
    }
  }

  int mode = 0;

  HybridProblem& hybrid() const { return hybrid_; }
  ConstVector parameters_of(ConstVector extended) const {
    return extended.first(static_cast<std::size_t>(hybrid_.np()));
  }
  ConstVector memory_of(ConstVector extended) const {
    return extended.subspan(static_cast<std::size_t>(hybrid_.np()));
  }

  int evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f, Vector g) override {
    return hybrid_.evaluate(mode, t, x, z, parameters_of(p), memory_of(p), f, g);
  }
  bool has_jacobian() const override { return hybrid_.has_jacobian(); }
  int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) override {
    return hybrid_.jacobian(mode, t, x, z, parameters_of(p), memory_of(p), J);
  }
  bool has_sparse_jacobian() const override { return hybrid_.has_sparse_jacobian(); }
  int sparse_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                      SparseMatrixRef J) override {
    return hybrid_.sparse_jacobian(mode, t, x, z, parameters_of(p), memory_of(p), J);
  }
  bool has_parameter_jacobian() const override { return hybrid_.has_parameter_jacobian(); }
  int parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                         MatrixRef Jp) override {
    return hybrid_.parameter_jacobian(mode, t, x, z, parameters_of(p), memory_of(p), Jp);
  }

 private:
  HybridProblem& hybrid_;
};

}  // namespace esdirk::internal
