// The classic one-call driver (esdirk_classic.h): extern "C" definitions over the same
// Integrator and ForwardSensitivity as the handle API. Each call builds the options, runs one
// integration from t to tend with tend as the stop time and fills the work arrays; nothing is
// kept between calls but the thread's last message.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "esdirk/esdirk_classic.h"
#include "shim.hpp"

namespace {

thread_local std::string last_message;

// The thread's message store for one call (guarded() needs a handle-like object).
struct Call : esdirk_capi::Messages {
  ~Call() {
    try {
      last_message = message;
    } catch (...) {
      // a message that cannot be stored is dropped; the status still is returned
    }
  }
};

int finish(int status, int* idid) {
  if (idid) *idid = status;
  return status;
}

esdirk_int saturate(long value) {
  return value > INT32_MAX ? INT32_MAX : static_cast<esdirk_int>(value);
}

// The checks shared by both drivers; ESDIRK_SUCCESS when the arguments are usable.
int check_arguments(Call& call, esdirk_int nx, esdirk_int nz, esdirk_int np,
                    esdirk_residual_fn residual, const double* t, const double* y,
                    const double* p, double tend, const double* h, const double* rtol,
                    const double* atol, int itol, const esdirk_int* iwork, esdirk_int liwork,
                    const double* rwork, esdirk_int lrwork) {
  if (!residual) return call.fail(ESDIRK_NULL_ARGUMENT, "classic: the residual callback is NULL");
  if (!t || !y || !h || !rtol || !atol || !iwork || !rwork)
    return call.fail(ESDIRK_NULL_ARGUMENT,
                     "classic: t, y, h, rtol, atol, iwork and rwork must not be NULL");
  if (nx < 1 || nz < 0 || np < 0)
    return call.fail(ESDIRK_INVALID_ARGUMENT, "classic: sizes must be nx >= 1, nz >= 0, np >= 0; got (" +
                                                  std::to_string(nx) + ", " + std::to_string(nz) +
                                                  ", " + std::to_string(np) + ")");
  constexpr esdirk_int max_size = esdirk::Problem::max_size;
  if (nx > max_size || nz > max_size || np > max_size)
    return call.fail(ESDIRK_INVALID_ARGUMENT, "classic: sizes are limited to " +
                                                  std::to_string(max_size) + " each");
  if (!esdirk_capi::vector_ok(p, np))
    return call.fail(ESDIRK_NULL_ARGUMENT, "classic: p is NULL with np = " + std::to_string(np));
  if (liwork < ESDIRK_CLASSIC_LIWORK)
    return call.fail(ESDIRK_BUFFER_TOO_SMALL,
                     "classic: liwork = " + std::to_string(liwork) + " is too short; iwork needs " +
                         std::to_string(ESDIRK_CLASSIC_LIWORK) + " entries (ESDIRK_CLASSIC_LIWORK)");
  if (lrwork < ESDIRK_CLASSIC_LRWORK)
    return call.fail(ESDIRK_BUFFER_TOO_SMALL,
                     "classic: lrwork = " + std::to_string(lrwork) + " is too short; rwork needs " +
                         std::to_string(ESDIRK_CLASSIC_LRWORK) + " entries (ESDIRK_CLASSIC_LRWORK)");
  if (itol != 0 && itol != 1)
    return call.fail(ESDIRK_INVALID_ARGUMENT,
                     "classic: itol must be 0 (scalar tolerances) or 1 (vectors); got " +
                         std::to_string(itol));
  if (!std::isfinite(*t) || !std::isfinite(tend) || !std::isfinite(*h))
    return call.fail(ESDIRK_INVALID_ARGUMENT, "classic: t, tend and h must be finite");
  for (int i = 0; i < 10; ++i)
    if (iwork[i] < 0)
      return call.fail(ESDIRK_INVALID_ARGUMENT, "classic: iwork[" + std::to_string(i) +
                                                    "] = " + std::to_string(iwork[i]) +
                                                    " is negative (0 chooses the default)");
  for (int i = 0; i < 10; ++i)
    if (!(rwork[i] >= 0.0) || std::isnan(rwork[i]))
      return call.fail(ESDIRK_INVALID_ARGUMENT, "classic: rwork[" + std::to_string(i) +
                                                    "] must be >= 0 (0 chooses the default)");
  if (iwork[9] != 0 || rwork[9] != 0.0)
    return call.fail(ESDIRK_INVALID_ARGUMENT, "classic: iwork[9] and rwork[9] are reserved and must be 0");
  if (iwork[ESDIRK_IWORK_CONTROLLER] > 1 || iwork[ESDIRK_IWORK_FILTER] > 1 ||
      iwork[ESDIRK_IWORK_SENSITIVITY_MODE] > 1 || iwork[ESDIRK_IWORK_SENSITIVITY_ERROR_CONTROL] > 2)
    return call.fail(ESDIRK_INVALID_ARGUMENT,
                     "classic: iwork[2], iwork[3], iwork[7] must be 0 or 1 and iwork[8] 0, 1 or 2");
  if (itol == 1 && nz > 1)
    for (esdirk_int i = nx + 1; i < nx + nz; ++i)
      if (rtol[i] != rtol[nx])
        return call.fail(ESDIRK_INVALID_ARGUMENT,
                         "classic: itol = 1: the algebraic states share one relative tolerance, "
                         "so rtol[nx..nx+nz-1] must be equal (rtol[" +
                             std::to_string(i) + "] differs from rtol[" + std::to_string(nx) + "])");
  return ESDIRK_SUCCESS;
}

// The integrator options of a call (invalid values are left for Options::validate, which the
// Integrator runs and which throws std::invalid_argument naming the option).
esdirk::Options make_options(esdirk_int nx, esdirk_int nz, const double* h, const double* rtol,
                             const double* atol, int itol, const esdirk_int* iwork,
                             const double* rwork) {
  esdirk::Options o;
  if (itol == 0) {
    o.rtol = rtol[0];
    o.atol = atol[0];
  } else {
    o.rtol = rtol[nz > 0 ? nx : 0];  // the algebraic states' relative tolerance
    o.atol = atol[0];                // unused: both vectors are set
    o.rtol_vector.assign(rtol, rtol + nx);
    o.atol_vector.assign(atol, atol + nx);
    o.algebraic_atol.assign(atol + nx, atol + nx + nz);
  }
  o.initial_step = std::abs(*h);
  if (iwork[ESDIRK_IWORK_MAX_STEPS] > 0) o.max_steps = iwork[ESDIRK_IWORK_MAX_STEPS];
  if (iwork[ESDIRK_IWORK_NEWTON_ITERATIONS] > 0)
    o.max_newton_iterations = iwork[ESDIRK_IWORK_NEWTON_ITERATIONS];
  o.predictive_controller = iwork[ESDIRK_IWORK_CONTROLLER] == 0;
  o.filter_error_estimate = iwork[ESDIRK_IWORK_FILTER] == 1;
  if (iwork[ESDIRK_IWORK_MAX_ERROR_TEST_FAILURES] > 0)
    o.max_error_test_failures = iwork[ESDIRK_IWORK_MAX_ERROR_TEST_FAILURES];
  if (iwork[ESDIRK_IWORK_MAX_NEWTON_FAILURES] > 0)
    o.max_newton_failures = iwork[ESDIRK_IWORK_MAX_NEWTON_FAILURES];
  if (iwork[ESDIRK_IWORK_MAX_CALLBACK_FAILURES] > 0)
    o.max_callback_failures = iwork[ESDIRK_IWORK_MAX_CALLBACK_FAILURES];
  if (rwork[ESDIRK_RWORK_MAX_STEP] > 0.0) o.max_step = rwork[ESDIRK_RWORK_MAX_STEP];
  o.min_step = rwork[ESDIRK_RWORK_MIN_STEP];
  if (rwork[ESDIRK_RWORK_SAFETY] > 0.0) o.safety = rwork[ESDIRK_RWORK_SAFETY];
  if (rwork[ESDIRK_RWORK_MIN_STEP_RATIO] > 0.0)
    o.min_step_ratio = rwork[ESDIRK_RWORK_MIN_STEP_RATIO];
  if (rwork[ESDIRK_RWORK_MAX_STEP_RATIO] > 0.0)
    o.max_step_ratio = rwork[ESDIRK_RWORK_MAX_STEP_RATIO];
  if (rwork[ESDIRK_RWORK_NEWTON_TOLERANCE] > 0.0)
    o.newton_tolerance = rwork[ESDIRK_RWORK_NEWTON_TOLERANCE];
  if (rwork[ESDIRK_RWORK_REFERENCE_CONTRACTION] > 0.0)
    o.reference_contraction = rwork[ESDIRK_RWORK_REFERENCE_CONTRACTION];
  if (rwork[ESDIRK_RWORK_CONTROLLER_K1] > 0.0) o.controller_k1 = rwork[ESDIRK_RWORK_CONTROLLER_K1];
  if (rwork[ESDIRK_RWORK_CONTROLLER_K2] > 0.0) o.controller_k2 = rwork[ESDIRK_RWORK_CONTROLLER_K2];
  return o;
}

esdirk::SensitivityOptions make_sensitivity_options(const esdirk_int* iwork) {
  esdirk::SensitivityOptions o;
  o.mode = iwork[ESDIRK_IWORK_SENSITIVITY_MODE] == 1 ? esdirk::SensitivityMode::paper
                                                    : esdirk::SensitivityMode::exact;
  if (iwork[ESDIRK_IWORK_SENSITIVITY_ERROR_CONTROL] == 1) o.error_control = true;
  if (iwork[ESDIRK_IWORK_SENSITIVITY_ERROR_CONTROL] == 2) o.error_control = false;
  return o;
}

void write_outputs(const esdirk::Integrator& integrator, esdirk_int* iwork, double* rwork) {
  const esdirk::Statistics& s = integrator.statistics();
  iwork[ESDIRK_IWORK_NSTEP] = saturate(s.steps);
  iwork[ESDIRK_IWORK_NACCEPT] = saturate(s.accepted_steps);
  iwork[ESDIRK_IWORK_NREJECT] = saturate(s.rejected_steps);
  iwork[ESDIRK_IWORK_NFUN] = saturate(s.function_evaluations);
  iwork[ESDIRK_IWORK_NJAC] = saturate(s.jacobian_evaluations);
  iwork[ESDIRK_IWORK_NLU] = saturate(s.lu_factorizations);
  iwork[ESDIRK_IWORK_NBACK] = saturate(s.back_substitutions);
  iwork[ESDIRK_IWORK_NSENS] = saturate(s.sensitivity_solves);
  iwork[ESDIRK_IWORK_NNEWT] = saturate(s.newton_iterations);
  iwork[ESDIRK_IWORK_NFDFUN] = saturate(s.fd_function_evaluations);
  std::fill(rwork + ESDIRK_RWORK_HLAST, rwork + ESDIRK_CLASSIC_LRWORK, 0.0);
  if (integrator.initialized() && integrator.has_step())
    rwork[ESDIRK_RWORK_HLAST] = integrator.last_step().h;
}

void zero_outputs(esdirk_int* iwork, double* rwork) {
  std::fill(iwork + ESDIRK_IWORK_NSTEP, iwork + ESDIRK_CLASSIC_LIWORK, 0);
  std::fill(rwork + ESDIRK_RWORK_HLAST, rwork + ESDIRK_CLASSIC_LRWORK, 0.0);
}

// The state of the integrator into t, y (x then z).
void write_state(const esdirk::Integrator& integrator, double* t, double* y, esdirk_int nx,
                 esdirk_int nz) {
  *t = integrator.t();
  std::copy(integrator.x().begin(), integrator.x().end(), y);
  if (nz) std::copy(integrator.z().begin(), integrator.z().end(), y + nx);
}

// IDID of an integration outcome: tend reached (any normal stop: tend is the stop time), or the
// failure's status.
int idid_of(Call& call, const esdirk::Outcome& outcome, const std::string& message) {
  if (esdirk::ok(outcome.status)) {
    call.message.clear();
    return ESDIRK_CLASSIC_TEND_REACHED;
  }
  return call.fail(esdirk_capi::to_c_status(outcome.status), message);
}

// The body of both drivers; S == nullptr for the states-only driver.
int run(Call& call, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_residual_fn residual,
        esdirk_jacobian_fn jacobian, esdirk_parameter_jacobian_fn parameter_jacobian,
        void* user_data, double* t, double* y, const double* p, double tend, double* h,
        const double* rtol, const double* atol, int itol, esdirk_int ns, double* S, esdirk_int lds,
        const double* sp, esdirk_int ldsp, esdirk_int* iwork, double* rwork) {
  using esdirk_capi::in;
  using esdirk_capi::out;
  esdirk_capi::CProblem problem(nx, nz, np, residual, user_data);
  problem.jacobian_fn = jacobian;
  problem.parameter_jacobian_fn = parameter_jacobian;
  esdirk::Integrator integrator(problem, make_options(nx, nz, h, rtol, atol, itol, iwork, rwork));
  const esdirk::Status init = integrator.initialize(*t, in(y, nx), in(y + nx, nz), in(p, np));
  if (!esdirk::ok(init)) {
    write_outputs(integrator, iwork, rwork);
    return call.fail(esdirk_capi::to_c_status(init), integrator.message());
  }
  const bool same_time = tend == *t;
  if (!same_time) integrator.set_stop_time(tend);
  int idid = ESDIRK_CLASSIC_INITIALIZED;
  if (!S) {
    if (!same_time) {
      const auto outcome = integrator.integrate_to(tend, out(y, nx), out(y + nx, nz));
      idid = idid_of(call, outcome, integrator.message());
    }
    write_state(integrator, t, y, nx, nz);
  } else {
    // The seed of the handle API: column j is (S(0..nx-1, j); sp(:, j)).
    esdirk::DenseMatrix seed(nx + np, ns);
    for (esdirk_int j = 0; j < ns; ++j) {
      const double* sx = S + static_cast<std::ptrdiff_t>(j) * lds;
      std::copy(sx, sx + nx, seed.column(j));
      if (np) {
        const double* spj = sp + static_cast<std::ptrdiff_t>(j) * ldsp;
        std::copy(spj, spj + np, seed.column(j) + nx);
      }
    }
    esdirk::ForwardSensitivity sensitivity(integrator, make_sensitivity_options(iwork));
    const esdirk::Status start = sensitivity.initialize(seed.cref());
    if (!esdirk::ok(start)) {
      write_outputs(integrator, iwork, rwork);
      return call.fail(esdirk_capi::to_c_status(start), sensitivity.message());
    }
    if (!same_time) {
      const esdirk::MatrixRef sx{S, nx, ns, lds};
      const esdirk::MatrixRef sz{S + nx, nz, ns, lds};
      const auto outcome = sensitivity.integrate_to(tend, out(y, nx), out(y + nx, nz), sx,
                                                    nz ? sz : esdirk::MatrixRef{});
      idid = idid_of(call, outcome, sensitivity.message());
    }
    write_state(integrator, t, y, nx, nz);
    if (same_time) {  // the consistent algebraic sensitivities at t (integrate_to writes S)
      const esdirk::ConstMatrixRef fx = sensitivity.state_sensitivity();
      const esdirk::ConstMatrixRef fz = sensitivity.algebraic_sensitivity();
      for (esdirk_int j = 0; j < ns; ++j) {
        double* col = S + static_cast<std::ptrdiff_t>(j) * lds;
        std::copy(fx.column(j), fx.column(j) + nx, col);
        if (nz) std::copy(fz.column(j), fz.column(j) + nz, col + nx);
      }
    }
    write_outputs(integrator, iwork, rwork);
    *h = integrator.next_step() != 0.0 ? integrator.next_step() : *h;
    return idid;
  }
  write_outputs(integrator, iwork, rwork);
  *h = integrator.next_step() != 0.0 ? integrator.next_step() : *h;
  return idid;
}

}  // namespace

extern "C" {

int esdirk_classic_integrate(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_residual_fn residual,
                   esdirk_jacobian_fn jacobian, void* user_data, double* t, double* y,
                   const double* p, double tend, double* h, const double* rtol,
                   const double* atol, int itol, esdirk_int* iwork, esdirk_int liwork,
                   double* rwork, esdirk_int lrwork, int* idid) {
  Call call;
  if (!idid) return call.fail(ESDIRK_NULL_ARGUMENT, "classic: idid is NULL");
  return finish(esdirk_capi::guarded(&call,
                                     [&] {
                                       if (const int st = check_arguments(
                                               call, nx, nz, np, residual, t, y, p, tend, h, rtol,
                                               atol, itol, iwork, liwork, rwork, lrwork))
                                         return st;
                                       zero_outputs(iwork, rwork);
                                       return run(call, nx, nz, np, residual, jacobian, nullptr,
                                                  user_data, t, y, p, tend, h, rtol, atol, itol,
                                                  0, nullptr, 0, nullptr, 0, iwork, rwork);
                                     }),
                idid);
}

int esdirk_classic_sensitivities(esdirk_int nx, esdirk_int nz, esdirk_int np,
                                 esdirk_residual_fn residual, esdirk_jacobian_fn jacobian,
                                 esdirk_parameter_jacobian_fn parameter_jacobian, void* user_data,
                                 double* t, double* y, const double* p, double tend, double* h,
                                 const double* rtol, const double* atol, int itol, esdirk_int ns,
                                 double* S, esdirk_int lds, const double* sp, esdirk_int ldsp,
                                 esdirk_int* iwork, esdirk_int liwork, double* rwork,
                                 esdirk_int lrwork, int* idid) {
  Call call;
  if (!idid) return call.fail(ESDIRK_NULL_ARGUMENT, "classic: idid is NULL");
  return finish(esdirk_capi::guarded(&call, [&] {
    if (const int st = check_arguments(call, nx, nz, np, residual, t, y, p, tend, h, rtol, atol,
                                       itol, iwork, liwork, rwork, lrwork))
      return st;
    if (!S || (np > 0 && !sp))
      return call.fail(ESDIRK_NULL_ARGUMENT,
                       "classic_sensitivities: S (and sp when np > 0) must not be NULL");
    if (ns < 1 || lds < nx + nz || (np > 0 && ldsp < np))
      return call.fail(ESDIRK_INVALID_ARGUMENT,
                       "classic_sensitivities: need ns >= 1, lds >= nx + nz = " +
                           std::to_string(nx + nz) + " and ldsp >= np = " + std::to_string(np) +
                           "; got ns " + std::to_string(ns) + ", lds " + std::to_string(lds) +
                           ", ldsp " + std::to_string(ldsp));
    zero_outputs(iwork, rwork);
    return run(call, nx, nz, np, residual, jacobian, parameter_jacobian, user_data, t, y, p, tend,
               h, rtol, atol, itol, ns, S, lds, sp, ldsp, iwork, rwork);
  }), idid);
}

const char* esdirk_classic_last_error(void) { return last_message.c_str(); }

}  // extern "C"
