// The C shim: the only place with extern "C" definitions. Every entry point checks its
// arguments, catches every exception and turns it into a status plus the handle's message.

#include <cmath>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/esdirk.h"
#include "esdirk/integrator.hpp"

namespace {

// A Problem whose callbacks are C function pointers.
class CProblem final : public esdirk::Problem {
 public:
  CProblem(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_residual_fn residual, void* user_data)
      : Problem(nx, nz, np), residual_(residual), user_data_(user_data) {}

  int evaluate(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector g) override {
    return residual_(nx(), nz(), np(), t, x.data(), nz() ? z.data() : nullptr, np() ? p.data() : nullptr,
                     f.data(), nz() ? g.data() : nullptr, user_data_);
  }
  bool has_jacobian() const override { return jacobian_ != nullptr; }
  int jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::MatrixRef J) override {
    return jacobian_(nx(), nz(), np(), t, x.data(), nz() ? z.data() : nullptr, np() ? p.data() : nullptr,
                     J.data, J.ld, user_data_);
  }
  bool has_parameter_jacobian() const override { return parameter_jacobian_ != nullptr; }
  int parameter_jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
                         esdirk::MatrixRef Jp) override {
    return parameter_jacobian_(nx(), nz(), np(), t, x.data(), nz() ? z.data() : nullptr,
                               np() ? p.data() : nullptr, Jp.data, Jp.ld, user_data_);
  }

  esdirk_jacobian_fn jacobian_ = nullptr;
  esdirk_parameter_jacobian_fn parameter_jacobian_ = nullptr;

 private:
  esdirk_residual_fn residual_;
  void* user_data_;
};

int to_c_status(esdirk::Status status) {
  switch (status) {
    case esdirk::Status::success: return ESDIRK_SUCCESS;
    case esdirk::Status::too_many_steps: return ESDIRK_TOO_MANY_STEPS;
    case esdirk::Status::step_size_too_small: return ESDIRK_STEP_SIZE_TOO_SMALL;
    case esdirk::Status::error_test_failures: return ESDIRK_ERROR_TEST_FAILURES;
    case esdirk::Status::newton_failures: return ESDIRK_NEWTON_FAILURES;
    case esdirk::Status::singular_iteration_matrix: return ESDIRK_SINGULAR_ITERATION_MATRIX;
    case esdirk::Status::callback_failures: return ESDIRK_CALLBACK_FAILURES;
    case esdirk::Status::callback_fatal: return ESDIRK_CALLBACK_FATAL;
    case esdirk::Status::initialization_failed: return ESDIRK_INITIALIZATION_FAILED;
    case esdirk::Status::singular_algebraic_jacobian: return ESDIRK_SINGULAR_ALGEBRAIC_JACOBIAN;
  }
  return ESDIRK_INTERNAL_ERROR;
}

}  // namespace

struct esdirk_problem {
  std::unique_ptr<CProblem> problem;
};

struct esdirk_solver {
  esdirk_problem* problem = nullptr;
  esdirk::Options options;
  std::unique_ptr<esdirk::Integrator> integrator;  // made by initialize with the options then
  bool initialized = false;
  std::string message;

  int fail(int status, std::string why) {
    message = std::move(why);
    return status;
  }
  int from(esdirk::Status status) {
    if (status == esdirk::Status::success) {
      message.clear();
      return ESDIRK_SUCCESS;
    }
    message = integrator->message();
    return to_c_status(status);
  }
};

namespace {

// Runs `body`, mapping exceptions to statuses and messages on the handle.
template <class Body>
int guarded(esdirk_solver* solver, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::invalid_argument& e) {
    return solver->fail(ESDIRK_INVALID_ARGUMENT, e.what());
  } catch (const std::domain_error& e) {
    return solver->fail(ESDIRK_INVALID_ARGUMENT, e.what());
  } catch (const std::logic_error& e) {
    return solver->fail(ESDIRK_WRONG_CALL_ORDER, e.what());
  } catch (const std::bad_alloc&) {
    return solver->fail(ESDIRK_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return solver->fail(ESDIRK_INTERNAL_ERROR, std::string("internal error: ") + e.what());
  } catch (...) {
    return solver->fail(ESDIRK_INTERNAL_ERROR, "internal error: unknown exception");
  }
}

// A vector argument: NULL is allowed only for length 0.
bool vector_ok(const void* data, esdirk_int n) { return n == 0 || data != nullptr; }

int check_sizes(esdirk_solver* s, esdirk_int nx, esdirk_int nz, esdirk_int np, const char* who) {
  const esdirk::Problem& p = *s->problem->problem;
  if (nx != p.nx() || nz != p.nz() || (np >= 0 && np != p.np()))
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   std::string(who) + ": sizes (nx, nz" + (np >= 0 ? ", np" : "") + ") = (" +
                       std::to_string(nx) + ", " + std::to_string(nz) +
                       (np >= 0 ? ", " + std::to_string(np) : std::string()) + ") do not match the problem (" +
                       std::to_string(p.nx()) + ", " + std::to_string(p.nz()) +
                       (np >= 0 ? ", " + std::to_string(p.np()) : std::string()) + ")");
  return ESDIRK_SUCCESS;
}

int require_initialized(esdirk_solver* s, const char* who) {
  if (!s->initialized)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   std::string(who) + ": call esdirk_solver_initialize first (and check its status)");
  return ESDIRK_SUCCESS;
}

std::span<const double> in(const double* data, esdirk_int n) {
  return {data, static_cast<std::size_t>(n)};
}
std::span<double> out(double* data, esdirk_int n) { return {data, static_cast<std::size_t>(n)}; }

}  // namespace

extern "C" {

const char* esdirk_status_name(int status) {
  switch (status) {
    case ESDIRK_SUCCESS: return "success";
    case ESDIRK_TOO_MANY_STEPS: return "too_many_steps";
    case ESDIRK_STEP_SIZE_TOO_SMALL: return "step_size_too_small";
    case ESDIRK_ERROR_TEST_FAILURES: return "error_test_failures";
    case ESDIRK_NEWTON_FAILURES: return "newton_failures";
    case ESDIRK_SINGULAR_ITERATION_MATRIX: return "singular_iteration_matrix";
    case ESDIRK_CALLBACK_FAILURES: return "callback_failures";
    case ESDIRK_CALLBACK_FATAL: return "callback_fatal";
    case ESDIRK_INITIALIZATION_FAILED: return "initialization_failed";
    case ESDIRK_SINGULAR_ALGEBRAIC_JACOBIAN: return "singular_algebraic_jacobian";
    case ESDIRK_NULL_ARGUMENT: return "null_argument";
    case ESDIRK_INVALID_ARGUMENT: return "invalid_argument";
    case ESDIRK_WRONG_CALL_ORDER: return "wrong_call_order";
    case ESDIRK_OUT_OF_MEMORY: return "out_of_memory";
    case ESDIRK_INTERNAL_ERROR: return "internal_error";
    default: return "unknown";
  }
}

int esdirk_problem_create(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_residual_fn residual,
                          void* user_data, esdirk_problem** problem) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  *problem = nullptr;
  if (!residual) return ESDIRK_NULL_ARGUMENT;
  if (nx < 1 || nz < 0 || np < 0) return ESDIRK_INVALID_ARGUMENT;
  try {
    auto handle = std::make_unique<esdirk_problem>();
    handle->problem = std::make_unique<CProblem>(nx, nz, np, residual, user_data);
    *problem = handle.release();
    return ESDIRK_SUCCESS;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

int esdirk_problem_set_jacobian(esdirk_problem* problem, esdirk_jacobian_fn jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->jacobian_ = jacobian;
  return ESDIRK_SUCCESS;
}

int esdirk_problem_set_parameter_jacobian(esdirk_problem* problem,
                                          esdirk_parameter_jacobian_fn parameter_jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->parameter_jacobian_ = parameter_jacobian;
  return ESDIRK_SUCCESS;
}

void esdirk_problem_free(esdirk_problem** problem) {
  if (!problem) return;
  delete *problem;
  *problem = nullptr;
}

int esdirk_solver_create(esdirk_problem* problem, esdirk_solver** solver) {
  if (!solver) return ESDIRK_NULL_ARGUMENT;
  *solver = nullptr;
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  try {
    auto handle = std::make_unique<esdirk_solver>();
    handle->problem = problem;
    *solver = handle.release();
    return ESDIRK_SUCCESS;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

void esdirk_solver_free(esdirk_solver** solver) {
  if (!solver) return;
  delete *solver;
  *solver = nullptr;
}

const char* esdirk_solver_last_error(const esdirk_solver* solver) {
  if (!solver) return "null solver handle";
  return solver->message.c_str();
}

int esdirk_solver_set_tolerances(esdirk_solver* s, double rtol, double atol) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!(rtol >= 0.0) || !(atol >= 0.0) || !std::isfinite(rtol) || !std::isfinite(atol))
    return s->fail(ESDIRK_INVALID_ARGUMENT, "set_tolerances: rtol and atol must be finite and >= 0");
  s->options.rtol = rtol;
  s->options.atol = atol;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_tolerance_vectors(esdirk_solver* s, const double* rtol, const double* atol, esdirk_int nx) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!rtol || !atol) return s->fail(ESDIRK_NULL_ARGUMENT, "set_tolerance_vectors: rtol and atol must not be NULL");
  if (nx != s->problem->problem->nx())
    return s->fail(ESDIRK_INVALID_ARGUMENT, "set_tolerance_vectors: length must be nx = " +
                                                std::to_string(s->problem->problem->nx()));
  return guarded(s, [&] {
    s->options.rtol_vector.assign(rtol, rtol + nx);
    s->options.atol_vector.assign(atol, atol + nx);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_set_algebraic_atol(esdirk_solver* s, const double* atol, esdirk_int nz) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!vector_ok(atol, nz)) return s->fail(ESDIRK_NULL_ARGUMENT, "set_algebraic_atol: atol is NULL");
  if (nz != s->problem->problem->nz())
    return s->fail(ESDIRK_INVALID_ARGUMENT, "set_algebraic_atol: length must be nz = " +
                                                std::to_string(s->problem->problem->nz()));
  return guarded(s, [&] {
    s->options.algebraic_atol.assign(atol, atol + nz);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_set_step_limits(esdirk_solver* s, double initial_step, double min_step, double max_step,
                                  long max_steps) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.initial_step = initial_step;
  s->options.min_step = min_step;
  s->options.max_step = max_step;
  s->options.max_steps = max_steps;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_controller(esdirk_solver* s, int predictive, double k1, double k2, double safety,
                                 double min_step_ratio, double max_step_ratio) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.predictive_controller = predictive != 0;
  s->options.controller_k1 = k1;
  s->options.controller_k2 = k2;
  s->options.safety = safety;
  s->options.min_step_ratio = min_step_ratio;
  s->options.max_step_ratio = max_step_ratio;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_newton(esdirk_solver* s, int max_iterations, double tolerance, double reference_contraction) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.max_newton_iterations = max_iterations;
  s->options.newton_tolerance = tolerance;
  s->options.reference_contraction = reference_contraction;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_filter_error_estimate(esdirk_solver* s, int filter) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.filter_error_estimate = filter != 0;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_failure_limits(esdirk_solver* s, int max_error_test_failures, int max_newton_failures,
                                     int max_callback_failures) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.max_error_test_failures = max_error_test_failures;
  s->options.max_newton_failures = max_newton_failures;
  s->options.max_callback_failures = max_callback_failures;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_initialize(esdirk_solver* s, double t0, const double* x0, esdirk_int nx,
                             const double* z0_guess, esdirk_int nz, const double* p, esdirk_int np) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x0 || !vector_ok(z0_guess, nz) || !vector_ok(p, np))
    return s->fail(ESDIRK_NULL_ARGUMENT, "initialize: x0, z0 or p is NULL");
  if (const int st = check_sizes(s, nx, nz, np, "initialize")) return st;
  return guarded(s, [&] {
    s->initialized = false;
    // Options are validated here (invalid ones throw std::invalid_argument).
    s->integrator = std::make_unique<esdirk::Integrator>(*s->problem->problem, s->options);
    const esdirk::Status status = s->integrator->initialize(t0, in(x0, nx), in(z0_guess, nz), in(p, np));
    s->initialized = esdirk::ok(status);
    return s->from(status);
  });
}

int esdirk_solver_restart(esdirk_solver* s, double t, const double* x, esdirk_int nx, const double* z_guess,
                          esdirk_int nz, const double* p, esdirk_int np) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->integrator) return require_initialized(s, "restart");
  if (!x || !vector_ok(z_guess, nz) || !vector_ok(p, np))
    return s->fail(ESDIRK_NULL_ARGUMENT, "restart: x, z or p is NULL");
  if (const int st = check_sizes(s, nx, nz, np, "restart")) return st;
  return guarded(s, [&] {
    const esdirk::Status status = s->integrator->restart(t, in(x, nx), in(z_guess, nz), in(p, np));
    s->initialized = esdirk::ok(status);
    return s->from(status);
  });
}

int esdirk_solver_integrate_to(esdirk_solver* s, double tout, double* x, esdirk_int nx, double* z, esdirk_int nz) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x || !vector_ok(z, nz)) return s->fail(ESDIRK_NULL_ARGUMENT, "integrate_to: x or z is NULL");
  if (const int st = check_sizes(s, nx, nz, -1, "integrate_to")) return st;
  if (const int st = require_initialized(s, "integrate_to")) return st;
  return guarded(s, [&] { return s->from(s->integrator->integrate_to(tout, out(x, nx), out(z, nz))); });
}

int esdirk_solver_step(esdirk_solver* s, double tout) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = require_initialized(s, "step")) return st;
  return guarded(s, [&] { return s->from(s->integrator->step(tout)); });
}

int esdirk_solver_set_stop_time(esdirk_solver* s, double tstop) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = require_initialized(s, "set_stop_time")) return st;
  return guarded(s, [&] {
    s->integrator->set_stop_time(tstop);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_clear_stop_time(esdirk_solver* s) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = require_initialized(s, "clear_stop_time")) return st;
  s->integrator->clear_stop_time();
  return ESDIRK_SUCCESS;
}

int esdirk_solver_dense_output(esdirk_solver* s, double t, double* x, esdirk_int nx, double* z, esdirk_int nz) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x || !vector_ok(z, nz)) return s->fail(ESDIRK_NULL_ARGUMENT, "dense_output: x or z is NULL");
  if (const int st = check_sizes(s, nx, nz, -1, "dense_output")) return st;
  if (const int st = require_initialized(s, "dense_output")) return st;
  return guarded(s, [&] {
    s->integrator->dense_output(t, out(x, nx), out(z, nz));
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_get_state(const esdirk_solver* cs, double* t, double* x, esdirk_int nx, double* z, esdirk_int nz) {
  if (!cs) return ESDIRK_NULL_ARGUMENT;
  auto* s = const_cast<esdirk_solver*>(cs);
  if (!t || !x || !vector_ok(z, nz)) return s->fail(ESDIRK_NULL_ARGUMENT, "get_state: t, x or z is NULL");
  if (const int st = check_sizes(s, nx, nz, -1, "get_state")) return st;
  if (!s->integrator) return require_initialized(s, "get_state");
  *t = s->integrator->t();
  std::memcpy(x, s->integrator->x().data(), sizeof(double) * static_cast<std::size_t>(nx));
  if (nz) std::memcpy(z, s->integrator->z().data(), sizeof(double) * static_cast<std::size_t>(nz));
  return ESDIRK_SUCCESS;
}

int esdirk_solver_get_statistics(const esdirk_solver* cs, esdirk_statistics* out_stats) {
  if (!cs) return ESDIRK_NULL_ARGUMENT;
  auto* s = const_cast<esdirk_solver*>(cs);
  if (!out_stats) return s->fail(ESDIRK_NULL_ARGUMENT, "get_statistics: statistics is NULL");
  esdirk::Statistics st;
  if (s->integrator) st = s->integrator->statistics();
  *out_stats = {st.steps, st.accepted_steps, st.rejected_steps, st.function_evaluations,
                st.fd_function_evaluations, st.jacobian_evaluations, st.lu_factorizations,
                st.back_substitutions, st.newton_iterations, st.newton_failures, st.callback_failures,
                st.parameter_jacobian_evaluations, st.sensitivity_solves, st.events, st.adjoint_steps,
                st.checkpoints};
  return ESDIRK_SUCCESS;
}

}  // extern "C"
