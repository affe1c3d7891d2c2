// The C shim for the problem and the integrator: extern "C" definitions only (the shared
// handle types and helpers are in shim.hpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "handle_options.hpp"
#include "shim.hpp"

using esdirk_capi::guarded;
using esdirk_capi::in;
using esdirk_capi::out;
using esdirk_capi::vector_ok;

namespace esdirk_capi {

// Both mappings are generated from esdirk/status_codes.def, so a row added there needs no
// edit here.
int to_c_status(esdirk::Status status) {
#define ESDIRK_STATUS_CASE_success(name, c_name) \
  case esdirk::Status::name:                     \
    return ESDIRK_##c_name;
#define ESDIRK_STATUS_CASE_failure(name, c_name) ESDIRK_STATUS_CASE_success(name, c_name)
#define ESDIRK_STATUS_CASE_stop(name, c_name)
#define ESDIRK_STATUS_CASE_analysis(name, c_name)
#define ESDIRK_STATUS_CASE_misuse(name, c_name)
#define ESDIRK_STATUS(kind, name, c_name, value, message) ESDIRK_STATUS_CASE_##kind(name, c_name)
  switch (status) {
#include "esdirk/status_codes.def"
  }
#undef ESDIRK_STATUS
#undef ESDIRK_STATUS_CASE_success
#undef ESDIRK_STATUS_CASE_failure
#undef ESDIRK_STATUS_CASE_stop
#undef ESDIRK_STATUS_CASE_analysis
#undef ESDIRK_STATUS_CASE_misuse
  return ESDIRK_INTERNAL_ERROR;  // a value outside the enumeration
}

int to_c_stop(esdirk::StopReason reason) {
  switch (reason) {
    case esdirk::StopReason::reached_stop_time:
      return ESDIRK_STOP_TIME_REACHED;
    case esdirk::StopReason::listener_stop:
      return ESDIRK_LISTENER_STOP;
    case esdirk::StopReason::none:
    case esdirk::StopReason::reached_output_time:
    case esdirk::StopReason::took_one_step:
      break;
  }
  return ESDIRK_SUCCESS;
}

namespace {

// The fields of the C struct by counter name. The struct is the C ABI and only grows at its
// end; the names tie each field to its counter in the C++ table (statistics_counters()), so
// the C++ Statistics may gain, reorder or insert counters freely.
struct CField {
  const char* name;
  std::size_t offset;
};
constexpr CField c_fields[] = {
    {"steps", offsetof(esdirk_statistics, steps)},
    {"accepted_steps", offsetof(esdirk_statistics, accepted_steps)},
    {"rejected_steps", offsetof(esdirk_statistics, rejected_steps)},
    {"function_evaluations", offsetof(esdirk_statistics, function_evaluations)},
    {"fd_function_evaluations", offsetof(esdirk_statistics, fd_function_evaluations)},
    {"jacobian_evaluations", offsetof(esdirk_statistics, jacobian_evaluations)},
    {"lu_factorizations", offsetof(esdirk_statistics, lu_factorizations)},
    {"back_substitutions", offsetof(esdirk_statistics, back_substitutions)},
    {"newton_iterations", offsetof(esdirk_statistics, newton_iterations)},
    {"newton_failures", offsetof(esdirk_statistics, newton_failures)},
    {"callback_failures", offsetof(esdirk_statistics, callback_failures)},
    {"parameter_jacobian_evaluations", offsetof(esdirk_statistics, parameter_jacobian_evaluations)},
    {"sensitivity_solves", offsetof(esdirk_statistics, sensitivity_solves)},
    {"events", offsetof(esdirk_statistics, events)},
    {"adjoint_steps", offsetof(esdirk_statistics, adjoint_steps)},
    {"checkpoints", offsetof(esdirk_statistics, checkpoints)},
};

}  // namespace

bool counter_value(const esdirk::Statistics& st, const char* name, std::int64_t& value) {
  for (const esdirk::StatisticsCounter& counter : esdirk::statistics_counters()) {
    if (std::strcmp(counter.name, name) == 0) {
      value = st.*counter.counter;
      return true;
    }
  }
  return false;
}

int fill_statistics(const esdirk::Statistics& st, esdirk_statistics* out, Messages& messages) {
  const std::size_t size = out->struct_size;
  if (size < sizeof out->struct_size)
    return messages.fail(ESDIRK_INVALID_ARGUMENT,
                         "get_statistics: set statistics->struct_size to "
                         "sizeof(esdirk_statistics) (or start from ESDIRK_STATISTICS_INIT)");
  // A size beyond this library's struct is refused before anything is written: it is as
  // likely garbage from an uninitialized struct as a newer header, and filling it would write
  // past the caller's memory. Only whole counters inside the caller's struct are written.
  if (size > sizeof(esdirk_statistics))
    return messages.fail(ESDIRK_INVALID_ARGUMENT,
                         "get_statistics: statistics->struct_size = " + std::to_string(size) +
                             " is larger than the esdirk_statistics of this library (" +
                             std::to_string(sizeof(esdirk_statistics)) +
                             " bytes): an uninitialized struct? Start from ESDIRK_STATISTICS_INIT");
  auto* bytes = reinterpret_cast<unsigned char*>(out);
  for (const CField& field : c_fields) {
    if (field.offset + sizeof(std::int64_t) > size) continue;
    std::int64_t value = 0;
    if (!counter_value(st, field.name, value))
      return messages.fail(ESDIRK_INTERNAL_ERROR,
                           std::string("get_statistics: no counter named ") + field.name);
    std::memcpy(bytes + field.offset, &value, sizeof value);
  }
  return ESDIRK_SUCCESS;
}

int get_counter(const esdirk::Statistics& st, const char* name, std::int64_t* value,
                Messages& messages) {
  if (!name || !value)
    return messages.fail(ESDIRK_NULL_ARGUMENT, "get_counter: name or value is NULL");
  if (!counter_value(st, name, *value))
    return messages.fail(ESDIRK_INVALID_ARGUMENT, std::string("get_counter: no counter named \"") +
                                                      name + "\" (esdirk_counter_name lists them)");
  return ESDIRK_SUCCESS;
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

// Every row of status_codes.def, whatever its kind.
const char* esdirk_status_name(int status) {
#define ESDIRK_STATUS(kind, name, c_name, value, message) \
  case ESDIRK_##c_name:                                   \
    return #name;
  switch (status) {
#include "esdirk/status_codes.def"
  }
#undef ESDIRK_STATUS
  return "unknown";
}

const char* esdirk_status_message(int status) {
#define ESDIRK_STATUS(kind, name, c_name, value, message) \
  case ESDIRK_##c_name:                                   \
    return message;
  switch (status) {
#include "esdirk/status_codes.def"
  }
#undef ESDIRK_STATUS
  return "unknown status";
}

const char* esdirk_counter_name(int index) {
  const auto counters = esdirk::statistics_counters();
  if (index < 0 || static_cast<std::size_t>(index) >= counters.size()) return nullptr;
  return counters[static_cast<std::size_t>(index)].name;
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
    handle->structure.plain = handle->problem.get();
    *problem = handle.release();
    return ESDIRK_SUCCESS;
  } catch (const std::invalid_argument&) {
    return ESDIRK_INVALID_ARGUMENT;  // sizes beyond Problem::max_size
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
  return esdirk_capi::create_handle(problem, solver);
}

void esdirk_solver_free(esdirk_solver** solver) { esdirk_capi::free_handle(solver); }

const char* esdirk_solver_last_error(const esdirk_solver* solver) {
  if (!solver) return "null solver handle";
  return solver->text();
}

int esdirk_solver_set_tolerances(esdirk_solver* s, double rtol, double atol) {
  return esdirk_capi::through_options(s, esdirk_options_set_tolerances, rtol, atol);
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
  return esdirk_capi::algebraic_atol_through_options(s, atol, nz);
}

// Deprecated: unchecked here, checked by the next initialize as they always were.
int esdirk_solver_set_step_limits(esdirk_solver* s, double initial_step, double min_step,
                                  double max_step, long max_steps) {
  return esdirk_capi::unchecked_through_options(s, esdirk_capi::setter::step_limits, initial_step, min_step,
                                                max_step, max_steps);
}

int esdirk_solver_set_controller(esdirk_solver* s, int predictive, double k1, double k2,
                                 double safety, double min_step_ratio, double max_step_ratio) {
  return esdirk_capi::unchecked_through_options(s, esdirk_capi::setter::controller, predictive, k1, k2, safety,
                                                min_step_ratio, max_step_ratio);
}

int esdirk_solver_set_newton(esdirk_solver* s, int max_iterations, double tolerance,
                             double reference_contraction) {
  return esdirk_capi::unchecked_through_options(s, esdirk_capi::setter::newton, max_iterations, tolerance,
                                                reference_contraction);
}

int esdirk_solver_set_filter_error_estimate(esdirk_solver* s, int filter) {
  return esdirk_capi::unchecked_through_options(s, esdirk_capi::setter::filter_error_estimate, filter);
}

int esdirk_solver_set_failure_limits(esdirk_solver* s, int max_error_test_failures,
                                     int max_newton_failures, int max_callback_failures) {
  return esdirk_capi::unchecked_through_options(s, esdirk_capi::setter::failure_limits, max_error_test_failures,
                                                max_newton_failures, max_callback_failures);
}

int esdirk_solver_initialize(esdirk_solver* s, double t0, const double* x0, esdirk_int nx,
                             const double* z0_guess, esdirk_int nz, const double* p,
                             esdirk_int np) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x0 || !vector_ok(z0_guess, nz) || !vector_ok(p, np))
    return s->fail(ESDIRK_NULL_ARGUMENT, "initialize: x0, z0 or p is NULL");
  if (const int st = s->check_sizes(nx, nz, np, "initialize")) return st;
  return guarded(s, [&] {
    // A new integrator with the options of this moment (invalid ones throw
    // std::invalid_argument); it replaces the old one only if the initialization succeeds, so a
    // rejected call (bad input, no consistent z) loses nothing.
    auto fresh = std::make_unique<esdirk::Integrator>(*s->problem->problem, s->options);
    // The adjoint listens from the initialization on (declared after `fresh`: goes first).
    std::unique_ptr<esdirk::Adjoint> adjoint;
    if (s->record_adjoint) adjoint = std::make_unique<esdirk::Adjoint>(*fresh, s->adjoint_options);
    const esdirk::Status status = fresh->initialize(t0, in(x0, nx), in(z0_guess, nz), in(p, np));
    if (!esdirk::ok(status)) return s->from(status, fresh->message());
    s->sensitivity.reset();  // detach from the old integrator before it goes
    s->adjoint.reset();
    s->integrator = std::move(fresh);
    s->adjoint = std::move(adjoint);
    s->last_run_failed = false;
    s->restarted = false;
    s->initialized = true;
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
    // A failed restart keeps the previous state (Integrator::restart): the handle stays usable.
    const esdirk::Status status = s->integrator->restart(t, in(x, nx), in(z_guess, nz), in(p, np));
    if (esdirk::ok(status)) s->restarted = true;
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
    const auto outcome = s->integrator->integrate_to(tout, out(x, nx), out(z, nz));
    return s->from(outcome, s->integrator->message());
  });
}

int esdirk_solver_step(esdirk_solver* s, double tout) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = s->require_initialized("step")) return st;
  return guarded(s, [&] {
    const auto outcome = s->integrator->step(tout);
    return s->from(outcome, s->integrator->message());
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
  return esdirk_capi::fill_statistics(
      s->integrator ? s->integrator->statistics() : esdirk::Statistics{}, out_stats, *s);
}

int esdirk_solver_get_counter(const esdirk_solver* cs, const char* name, int64_t* value) {
  if (!cs) return ESDIRK_NULL_ARGUMENT;
  auto* s = const_cast<esdirk_solver*>(cs);  // only the message changes
  return esdirk_capi::get_counter(
      s->integrator ? s->integrator->statistics() : esdirk::Statistics{}, name, value, *s);
}

}  // extern "C"
