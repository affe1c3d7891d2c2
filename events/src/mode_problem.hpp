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

  bool has_jacobian_vector_product() const override { return hybrid_.has_jacobian_vector_product(); }
  int jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p, ConstVector v,
                              Vector out) override {
    return hybrid_.jacobian_vector_product(mode, t, x, z, parameters_of(p), memory_of(p), v, out);
  }
  bool has_preconditioner() const override { return hybrid_.has_preconditioner(); }
  int preconditioner_setup(double t, ConstVector x, ConstVector z, ConstVector p, const JacobianMatrix& J,
                           double h_gamma) override {
    setup_ = {mode, t, x, z, p, &J, h_gamma};
    return set_up_hybrid();
  }
  int preconditioner_solve(ConstVector r, Vector out, bool transpose) override {
    // The problem's one P serves every view: if another view (the adjoint's replay) set it up
    // since this one did, set it up again for this view's last setup. (The stage systems of one
    // view track each other through Problem's own owner.) The arguments' storage is the stage
    // system's kept point, which lives as long as the stage system that solves with it.
    if (hybrid_.preconditioner_owner_ != this && setup_.J != nullptr) {
      const int code = set_up_hybrid();
      if (code != 0) return code;
    }
    return hybrid_.preconditioner_solve(r, out, transpose);
  }
  std::string failure_note() const override { return hybrid_.failure_note(); }

 private:
  struct Setup {
    int mode = 0;
    double t = 0.0;
    ConstVector x, z, p;
    const JacobianMatrix* J = nullptr;
    double h_gamma = 0.0;
  };
  int set_up_hybrid() {
    hybrid_.preconditioner_owner_ = this;
    return hybrid_.preconditioner_setup(setup_.mode, setup_.t, setup_.x, setup_.z, parameters_of(setup_.p),
                                        memory_of(setup_.p), *setup_.J, setup_.h_gamma);
  }

  HybridProblem& hybrid_;
  Setup setup_;
};

}  // namespace esdirk::internal
