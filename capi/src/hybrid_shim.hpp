#pragma once
// Internal to the C shim: the hybrid problem adapter and the hybrid solver handle, shared by
// the events entry points (events.cpp) and the hybrid adjoint's (hybrid_adjoint.cpp). Not
// installed.

#include <memory>
#include <string>

#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "shim.hpp"

namespace esdirk_capi {

// A HybridProblem whose callbacks are C function pointers (NULL for an empty vector).
class CHybridProblem final : public esdirk::HybridProblem {
 public:
  CHybridProblem(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int ne, bool memory,
                 esdirk_hybrid_residual_fn residual, void* user_data)
      : HybridProblem(nx, nz, np, ne, memory), residual_(residual), user_data_(user_data) {}

  bool has_mode(int mode) const override {
    return !has_mode_fn || has_mode_fn(mode, user_data_) != 0;
  }

  int evaluate(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z,
               esdirk::ConstVector p, esdirk::ConstVector mem, esdirk::Vector f,
               esdirk::Vector g) override {
    return residual_(mode, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p), ptr(mem), f.data(),
                     nz() ? g.data() : nullptr, user_data_);
  }
  bool has_jacobian() const override { return jacobian_fn != nullptr; }
  int jacobian(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z,
               esdirk::ConstVector p, esdirk::ConstVector mem, esdirk::MatrixRef J) override {
    return jacobian_fn(mode, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p), ptr(mem), J.data,
                       J.ld, user_data_);
  }
  bool has_parameter_jacobian() const override { return parameter_jacobian_fn != nullptr; }
  int parameter_jacobian(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z,
                         esdirk::ConstVector p, esdirk::ConstVector mem,
                         esdirk::MatrixRef Jp) override {
    return parameter_jacobian_fn(mode, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p),
                                 ptr(mem), Jp.data, Jp.ld, user_data_);
  }
  // The analytic Jacobian on a declared pattern or band (esdirk_sparse.h).
  bool has_sparse_jacobian() const override { return sparse_jacobian_fn != nullptr; }
  int sparse_jacobian(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z,
                      esdirk::ConstVector p, esdirk::ConstVector mem,
                      esdirk::SparseMatrixRef J) override {
    return sparse_jacobian_fn(mode, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p), ptr(mem),
                              J.nonzeros(), J.column_pointers(), J.row_indices(), J.values,
                              user_data_);
  }
  int events(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z,
             esdirk::ConstVector p, esdirk::ConstVector mem, esdirk::Vector h) override {
    if (!events_fn) return HybridProblem::events(mode, t, x, z, p, mem, h);
    return events_fn(mode, nx(), nz(), np(), nm(), event_count(), t, x.data(), ptr(z), ptr(p),
                     ptr(mem), h.data(), user_data_);
  }
  bool has_event_jacobian() const override { return event_jacobian_fn != nullptr; }
  int event_jacobian(int mode, int k, double t, esdirk::ConstVector x, esdirk::ConstVector z,
                     esdirk::ConstVector p, esdirk::ConstVector mem, esdirk::Vector row) override {
    return event_jacobian_fn(mode, k, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p), ptr(mem),
                             row.data(), user_data_);
  }
  int transition(int mode, const esdirk::TransitionCause& cause, double t, esdirk::ConstVector x,
                 esdirk::ConstVector z, esdirk::ConstVector p, esdirk::ConstVector mem,
                 int& next_mode, esdirk::Vector x_plus) override {
    if (!transition_fn)
      return HybridProblem::transition(mode, cause, t, x, z, p, mem, next_mode, x_plus);
    return transition_fn(mode, event_count(), event_count() ? cause.fired.data() : nullptr,
                         cause.time_event, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p),
                         ptr(mem), &next_mode, x_plus.data(), user_data_);
  }
  bool has_reset_jacobian() const override { return reset_jacobian_fn != nullptr; }
  int reset_jacobian(int mode, const esdirk::TransitionCause& cause, double t,
                     esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
                     esdirk::ConstVector mem, esdirk::MatrixRef D) override {
    return reset_jacobian_fn(mode, event_count(), event_count() ? cause.fired.data() : nullptr,
                             cause.time_event, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p),
                             ptr(mem), D.data, D.ld, user_data_);
  }

  bool has_parameter_reset() const override { return parameter_reset_fn != nullptr; }
  int reset_parameters(int mode, const esdirk::TransitionCause& cause, double t,
                       esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
                       esdirk::ConstVector mem, esdirk::Vector p_plus) override {
    return parameter_reset_fn(mode, event_count(), event_count() ? cause.fired.data() : nullptr,
                              cause.time_event, nx(), nz(), np(), nm(), t, x.data(), ptr(z),
                              ptr(p), ptr(mem), p_plus.data(), user_data_);
  }
  bool has_parameter_reset_jacobian() const override {
    return parameter_reset_jacobian_fn != nullptr;
  }
  int parameter_reset_jacobian(int mode, const esdirk::TransitionCause& cause, double t,
                               esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
                               esdirk::ConstVector mem, esdirk::MatrixRef E) override {
    return parameter_reset_jacobian_fn(
        mode, event_count(), event_count() ? cause.fired.data() : nullptr, cause.time_event, nx(),
        nz(), np(), nm(), t, x.data(), ptr(z), ptr(p), ptr(mem), E.data, E.ld, user_data_);
  }

  // The Newton-Krylov callbacks (esdirk_hybrid_problem_set_krylov_callbacks), checked as the
  // plain problem's (CProblem).
  bool has_jacobian_vector_product() const override { return jacobian_vector_fn != nullptr; }
  int jacobian_vector_product(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z,
                              esdirk::ConstVector p, esdirk::ConstVector mem, esdirk::ConstVector v,
                              esdirk::Vector out) override {
    const int code = jacobian_vector_fn(mode, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p), ptr(mem),
                                        v.data(), out.data(), user_data_);
    return krylov_failure_.check("the J v callback", code, t, out);
  }
  bool has_preconditioner() const override { return preconditioner_solve_fn != nullptr; }
  int preconditioner_setup(int mode, double t, esdirk::ConstVector x, esdirk::ConstVector z,
                           esdirk::ConstVector p, esdirk::ConstVector mem, const esdirk::JacobianMatrix& J,
                           double h_gamma) override {
    if (J.is_dense()) throw std::logic_error("preconditioner_setup: J has no pattern");
    const esdirk::SparsityPattern& pattern = J.pattern();
    setup_t_ = t;
    const int code = preconditioner_setup_fn(mode, nx(), nz(), np(), nm(), t, x.data(), ptr(z), ptr(p), ptr(mem),
                                             h_gamma, pattern.nonzeros(), pattern.column_pointers().data(),
                                             pattern.row_indices().data(), J.values(), user_data_);
    return krylov_failure_.check("the preconditioner setup callback", code, t, {});
  }
  int preconditioner_solve(esdirk::ConstVector r, esdirk::Vector out, bool transpose) override {
    const int code = preconditioner_solve_fn(nx(), nz(), r.data(), out.data(), transpose ? 1 : 0, user_data_);
    return krylov_failure_.check("the preconditioner solve callback", code, setup_t_, out);
  }
  std::string failure_note() const override { return krylov_failure_.describe(); }

  esdirk_hybrid_jacobian_fn jacobian_fn = nullptr, parameter_jacobian_fn = nullptr;
  esdirk_parameter_reset_fn parameter_reset_fn = nullptr;
  esdirk_parameter_reset_jacobian_fn parameter_reset_jacobian_fn = nullptr;
  esdirk_event_fn events_fn = nullptr;
  esdirk_event_jacobian_fn event_jacobian_fn = nullptr;
  esdirk_transition_fn transition_fn = nullptr;
  esdirk_reset_jacobian_fn reset_jacobian_fn = nullptr;
  esdirk_has_mode_fn has_mode_fn = nullptr;
  esdirk_hybrid_sparse_jacobian_fn sparse_jacobian_fn = nullptr;
  esdirk_hybrid_jacobian_vector_fn jacobian_vector_fn = nullptr;
  esdirk_hybrid_preconditioner_setup_fn preconditioner_setup_fn = nullptr;
  esdirk_preconditioner_solve_fn preconditioner_solve_fn = nullptr;

 private:
  int nm() const { return memory_size(); }
  static const double* ptr(esdirk::ConstVector v) { return v.empty() ? nullptr : v.data(); }
  esdirk_hybrid_residual_fn residual_;
  void* user_data_;
  double setup_t_ = 0.0;  // t of the last preconditioner setup (the solves' messages)
  KrylovFailure krylov_failure_;
};

}  // namespace esdirk_capi

struct esdirk_hybrid_problem {
  std::unique_ptr<esdirk_capi::CHybridProblem> problem;
  esdirk_jacobian_structure structure;  // structure.hybrid is problem.get()
};

struct esdirk_hybrid_solver : esdirk_capi::Messages {
  esdirk_hybrid_problem* problem = nullptr;
  esdirk::HybridOptions options;
  std::unique_ptr<esdirk::HybridSolver> solver;  // made by initialize with that moment's options
  bool initialized = false;
  bool sensitivities = false;
  // The hybrid adjoint (esdirk_hybrid_adjoint.h, capi/src/hybrid_adjoint.cpp): made with each
  // new solver, before its initialize, when record_adjoint is set, so that it records from t0.
  // Declared after `solver`, so it is destroyed first (it listens to the solver's integrator).
  bool record_adjoint = false;
  esdirk::HybridAdjointOptions adjoint_options;
  std::unique_ptr<esdirk::HybridAdjoint> adjoint;

  const esdirk_capi::CHybridProblem& model() const { return *problem->problem; }

  int from(esdirk::Status status, const std::string& why) {
    if (esdirk::ok(status)) {
      message.clear();
      return ESDIRK_SUCCESS;
    }
    message = why;
    return esdirk_capi::to_c_status(status);
  }
  int require_initialized(const char* who) {
    if (initialized) return ESDIRK_SUCCESS;
    return fail(
        ESDIRK_WRONG_CALL_ORDER,
        std::string(who) + ": call esdirk_hybrid_solver_initialize first (and check its status)");
  }
  int require_event(esdirk_int index, const char* who) {
    if (const int st = require_initialized(who)) return st;
    if (index < 0 || index >= solver->logged_events())
      return fail(ESDIRK_INVALID_ARGUMENT, std::string(who) + ": event index " +
                                               std::to_string(index) + " is outside the log (0.." +
                                               std::to_string(solver->logged_events()) + ")");
    return ESDIRK_SUCCESS;
  }
  int size_error(const char* who, const char* what, esdirk_int given, int expected) {
    return fail(ESDIRK_INVALID_ARGUMENT, std::string(who) + ": " + what + " is " +
                                             std::to_string(given) + ", the problem's is " +
                                             std::to_string(expected));
  }
};
