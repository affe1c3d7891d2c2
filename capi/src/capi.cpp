// The C shim for the problem and the integrator: extern "C" definitions only (the shared
// handle types and helpers are in shim.hpp).

#include <cstring>
#include <string>

#include "shim.hpp"

using esdirk_capi::guarded;
using esdirk_capi::in;
using esdirk_capi::out;
using esdirk_capi::vector_ok;

namespace esdirk_capi {

int to_c_status(esdirk::Status status) {
  switch (status) {
    case esdirk::Status::success:
      return ESDIRK_SUCCESS;
    case esdirk::Status::too_many_steps:
      return ESDIRK_TOO_MANY_STEPS;
    case esdirk::Status::step_size_too_small:
      return ESDIRK_STEP_SIZE_TOO_SMALL;
    case esdirk::Status::error_test_failures:
      return ESDIRK_ERROR_TEST_FAILURES;
    case esdirk::Status::newton_failures:
      return ESDIRK_NEWTON_FAILURES;
    case esdirk::Status::singular_iteration_matrix:
      return ESDIRK_SINGULAR_ITERATION_MATRIX;
    case esdirk::Status::callback_failures:
      return ESDIRK_CALLBACK_FAILURES;
    case esdirk::Status::callback_fatal:
      return ESDIRK_CALLBACK_FATAL;
    case esdirk::Status::initialization_failed:
      return ESDIRK_INITIALIZATION_FAILED;
    case esdirk::Status::singular_algebraic_jacobian:
      return ESDIRK_SINGULAR_ALGEBRAIC_JACOBIAN;
  }
  return ESDIRK_INTERNAL_ERROR;
}

esdirk_statistics to_c_statistics(const esdirk::Statistics& st) {
  return {st.steps,
          st.accepted_steps,
          st.rejected_steps,
          st.function_evaluations,
          st.fd_function_evaluations,
          st.jacobian_evaluations,
          st.lu_factorizations,
          st.back_substitutions,
          st.newton_iterations,
          st.newton_failures,
          st.callback_failures,
          st.parameter_jacobian_evaluations,
          st.sensitivity_solves,
          st.events,
          st.adjoint_steps,
          st.checkpoints};
}

}  // namespace esdirk_capi

int esdirk_solver::check_sizes(esdirk_int nx, esdirk_int nz, esdirk_int np, const char* who) {
  const esdirk::Problem& p = *problem->problem;
  if (nx == p.nx() && nz == p.nz() && (np < 0 || np == p.np())) return ESDIRK_SUCCESS;
  std::string given = "(" + std::to_string(nx) + ", " + std::to_string(nz);
  std::string needed = "(" + std::to_string(p.nx()) + ", " + std::to_string(p.nz());
  if (np >= 0) {
    given += ", " + std::to_string(np);
    needed += ", " + std::to_string(p.np());
  }
  return fail(ESDIRK_INVALID_ARGUMENT,
              std::string(who) + ": sizes " + given + ") do not match the problem " + needed + ")");
}

int esdirk_solver::require_initialized(const char* who) {
  if (initialized) return ESDIRK_SUCCESS;
  return fail(ESDIRK_WRONG_CALL_ORDER,
              std::string(who) + ": call esdirk_solver_initialize first (and check its status)");
}

extern "C" {

const char* esdirk_status_name(int status) {
  switch (status) {
    case ESDIRK_SUCCESS:
      return "success";
    case ESDIRK_TOO_MANY_STEPS:
      return "too_many_steps";
    case ESDIRK_STEP_SIZE_TOO_SMALL:
      return "step_size_too_small";
    case ESDIRK_ERROR_TEST_FAILURES:
      return "error_test_failures";
    case ESDIRK_NEWTON_FAILURES:
      return "newton_failures";
    case ESDIRK_SINGULAR_ITERATION_MATRIX:
      return "singular_iteration_matrix";
    case ESDIRK_CALLBACK_FAILURES:
      return "callback_failures";
    case ESDIRK_CALLBACK_FATAL:
      return "callback_fatal";
    case ESDIRK_INITIALIZATION_FAILED:
      return "initialization_failed";
    case ESDIRK_SINGULAR_ALGEBRAIC_JACOBIAN:
      return "singular_algebraic_jacobian";
    case ESDIRK_STRUCTURALLY_SINGULAR:
      return "structurally_singular";
    case ESDIRK_NULL_ARGUMENT:
      return "null_argument";
    case ESDIRK_INVALID_ARGUMENT:
      return "invalid_argument";
    case ESDIRK_WRONG_CALL_ORDER:
      return "wrong_call_order";
    case ESDIRK_OUT_OF_MEMORY:
      return "out_of_memory";
    case ESDIRK_INTERNAL_ERROR:
      return "internal_error";
    case ESDIRK_BUFFER_TOO_SMALL:
      return "buffer_too_small";
    default:
      return "unknown";
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
    handle->problem = std::make_unique<esdirk_capi::CProblem>(nx, nz, np, residual, user_data);
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
  problem->problem->jacobian_fn = jacobian;
  return ESDIRK_SUCCESS;
}

int esdirk_problem_set_parameter_jacobian(esdirk_problem* problem,
                                          esdirk_parameter_jacobian_fn parameter_jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->parameter_jacobian_fn = parameter_jacobian;
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
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   "set_tolerances: rtol and atol must be finite and >= 0");
  s->options.rtol = rtol;
  s->options.atol = atol;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_tolerance_vectors(esdirk_solver* s, const double* rtol, const double* atol,
                                        esdirk_int nx) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!rtol || !atol)
    return s->fail(ESDIRK_NULL_ARGUMENT, "set_tolerance_vectors: rtol and atol must not be NULL");
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
  if (!vector_ok(atol, nz))
    return s->fail(ESDIRK_NULL_ARGUMENT, "set_algebraic_atol: atol is NULL");
  if (nz != s->problem->problem->nz())
    return s->fail(ESDIRK_INVALID_ARGUMENT, "set_algebraic_atol: length must be nz = " +
                                                std::to_string(s->problem->problem->nz()));
  return guarded(s, [&] {
    s->options.algebraic_atol.assign(atol, atol + nz);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_set_step_limits(esdirk_solver* s, double initial_step, double min_step,
                                  double max_step, long max_steps) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.initial_step = initial_step;
  s->options.min_step = min_step;
  s->options.max_step = max_step;
  s->options.max_steps = max_steps;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_controller(esdirk_solver* s, int predictive, double k1, double k2,
                                 double safety, double min_step_ratio, double max_step_ratio) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.predictive_controller = predictive != 0;
  s->options.controller_k1 = k1;
  s->options.controller_k2 = k2;
  s->options.safety = safety;
  s->options.min_step_ratio = min_step_ratio;
  s->options.max_step_ratio = max_step_ratio;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_newton(esdirk_solver* s, int max_iterations, double tolerance,
                             double reference_contraction) {
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

int esdirk_solver_set_failure_limits(esdirk_solver* s, int max_error_test_failures,
                                     int max_newton_failures, int max_callback_failures) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.max_error_test_failures = max_error_test_failures;
  s->options.max_newton_failures = max_newton_failures;
  s->options.max_callback_failures = max_callback_failures;
  return ESDIRK_SUCCESS;
}

int esdirk_solver_initialize(esdirk_solver* s, double t0, const double* x0, esdirk_int nx,
                             const double* z0_guess, esdirk_int nz, const double* p,
                             esdirk_int np) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x0 || !vector_ok(z0_guess, nz) || !vector_ok(p, np))
    return s->fail(ESDIRK_NULL_ARGUMENT, "initialize: x0, z0 or p is NULL");
  if (const int st = s->check_sizes(nx, nz, np, "initialize")) return st;
  return guarded(s, [&] {
    s->initialized = false;
    s->sensitivity.reset();  // detaches from the old integrator before it goes
    // Options are validated here (invalid ones throw std::invalid_argument).
    s->integrator = std::make_unique<esdirk::Integrator>(*s->problem->problem, s->options);
    const esdirk::Status status =
        s->integrator->initialize(t0, in(x0, nx), in(z0_guess, nz), in(p, np));
    s->initialized = esdirk::ok(status);
    return s->from(status, s->integrator->message());
  });
}

int esdirk_solver_restart(esdirk_solver* s, double t, const double* x, esdirk_int nx,
                          const double* z_guess, esdirk_int nz, const double* p, esdirk_int np) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->integrator) return s->require_initialized("restart");
  if (!x || !vector_ok(z_guess, nz) || !vector_ok(p, np))
    return s->fail(ESDIRK_NULL_ARGUMENT, "restart: x, z or p is NULL");
  if (const int st = s->check_sizes(nx, nz, np, "restart")) return st;
  return guarded(s, [&] {
    const esdirk::Status status = s->integrator->restart(t, in(x, nx), in(z_guess, nz), in(p, np));
    s->initialized = esdirk::ok(status);
    return s->from(status, s->integrator->message());
  });
}

int esdirk_solver_integrate_to(esdirk_solver* s, double tout, double* x, esdirk_int nx, double* z,
                               esdirk_int nz) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x || !vector_ok(z, nz)) return s->fail(ESDIRK_NULL_ARGUMENT, "integrate_to: x or z is NULL");
  if (const int st = s->check_sizes(nx, nz, -1, "integrate_to")) return st;
  if (const int st = s->require_initialized("integrate_to")) return st;
  return guarded(s, [&] {
    const esdirk::Status status = s->integrator->integrate_to(tout, out(x, nx), out(z, nz));
    return s->from(status, s->integrator->message());
  });
}

int esdirk_solver_step(esdirk_solver* s, double tout) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = s->require_initialized("step")) return st;
  return guarded(s, [&] {
    const esdirk::Status status = s->integrator->step(tout);
    return s->from(status, s->integrator->message());
  });
}

int esdirk_solver_set_stop_time(esdirk_solver* s, double tstop) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = s->require_initialized("set_stop_time")) return st;
  return guarded(s, [&] {
    s->integrator->set_stop_time(tstop);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_clear_stop_time(esdirk_solver* s) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = s->require_initialized("clear_stop_time")) return st;
  s->integrator->clear_stop_time();
  return ESDIRK_SUCCESS;
}

int esdirk_solver_dense_output(esdirk_solver* s, double t, double* x, esdirk_int nx, double* z,
                               esdirk_int nz) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x || !vector_ok(z, nz)) return s->fail(ESDIRK_NULL_ARGUMENT, "dense_output: x or z is NULL");
  if (const int st = s->check_sizes(nx, nz, -1, "dense_output")) return st;
  if (const int st = s->require_initialized("dense_output")) return st;
  return guarded(s, [&] {
    s->integrator->dense_output(t, out(x, nx), out(z, nz));
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_get_state(const esdirk_solver* cs, double* t, double* x, esdirk_int nx, double* z,
                            esdirk_int nz) {
  if (!cs) return ESDIRK_NULL_ARGUMENT;
  auto* s = const_cast<esdirk_solver*>(cs);
  if (!t || !x || !vector_ok(z, nz))
    return s->fail(ESDIRK_NULL_ARGUMENT, "get_state: t, x or z is NULL");
  if (const int st = s->check_sizes(nx, nz, -1, "get_state")) return st;
  if (!s->integrator) return s->require_initialized("get_state");
  *t = s->integrator->t();
  std::memcpy(x, s->integrator->x().data(), sizeof(double) * static_cast<std::size_t>(nx));
  if (nz) std::memcpy(z, s->integrator->z().data(), sizeof(double) * static_cast<std::size_t>(nz));
  return ESDIRK_SUCCESS;
}

int esdirk_solver_get_statistics(const esdirk_solver* cs, esdirk_statistics* out_stats) {
  if (!cs) return ESDIRK_NULL_ARGUMENT;
  auto* s = const_cast<esdirk_solver*>(cs);
  if (!out_stats) return s->fail(ESDIRK_NULL_ARGUMENT, "get_statistics: statistics is NULL");
  *out_stats = esdirk_capi::to_c_statistics(s->integrator ? s->integrator->statistics()
                                                          : esdirk::Statistics{});
  return ESDIRK_SUCCESS;
}

}  // extern "C"
