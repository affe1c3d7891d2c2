// The C shim for forward sensitivities and the shooting interval: extern "C" definitions
// only (handles and helpers in shim.hpp).

#include <algorithm>
#include <cstring>
#include <string>

#include <optional>

#include "argument_checks.hpp"
#include "handle_options.hpp"
#include "shim.hpp"

using esdirk_capi::check_max_steps;
using esdirk_capi::guarded;
using esdirk_capi::in;
using esdirk_capi::out;
using esdirk_capi::vector_ok;

namespace {

bool mode_ok(int mode) { return mode == ESDIRK_SENSITIVITY_EXACT || mode == ESDIRK_SENSITIVITY_PAPER; }

// The C codes of a handle's sensitivity settings, for the deprecated setters that change one of
// the two settings esdirk_options_set_sensitivity takes together.
int mode_code(const esdirk::SensitivityOptions& o) {
  return o.mode == esdirk::SensitivityMode::paper ? ESDIRK_SENSITIVITY_PAPER : ESDIRK_SENSITIVITY_EXACT;
}
int error_control_code(const esdirk::SensitivityOptions& o) {
  if (!o.error_control) return ESDIRK_ERROR_CONTROL_DEFAULT;
  return *o.error_control ? ESDIRK_ERROR_CONTROL_ON : ESDIRK_ERROR_CONTROL_OFF;
}

// Copies a column-major rows x cols matrix into a caller's buffer with leading dimension ld.
void copy_matrix(esdirk::ConstMatrixRef from, double* to, esdirk_int ld) {
  for (int j = 0; j < from.cols; ++j)
    std::copy(from.column(j), from.column(j) + from.rows, to + static_cast<std::size_t>(j) * ld);
}

// A ShootingInterval running cost that calls the C callback.
esdirk::RunningCost c_running_cost(esdirk_running_cost_fn cost, void* user_data, int nx, int nz,
                                   int nu) {
  return [=](double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector u,
             double& value, esdirk::Vector dh_dx, esdirk::Vector dh_dz, esdirk::Vector dh_du) {
    return cost(nx, nz, nu, t, x.data(), nz ? z.data() : nullptr, nu ? u.data() : nullptr, &value,
                dh_dx.data(), nz ? dh_dz.data() : nullptr, nu ? dh_du.data() : nullptr, user_data);
  };
}

}  // namespace

extern "C" {

int esdirk_solver_set_sensitivity_options(esdirk_solver* s, int mode, int error_control) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!mode_ok(mode))
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   "set_sensitivity_options: mode must be ESDIRK_SENSITIVITY_EXACT or _PAPER");
  return esdirk_capi::through_options(s, esdirk_options_set_sensitivity, mode, error_control);
}

int esdirk_solver_start_sensitivities(esdirk_solver* s, const double* seed, esdirk_int rows,
                                      esdirk_int ns, esdirk_int ld) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = s->require_initialized("start_sensitivities")) return st;
  const esdirk::Problem& p = *s->problem->problem;
  const int expected_rows = p.nx() + p.np();
  if (rows != expected_rows || ns < 1 || (seed && ld < rows) || (!seed && ns != expected_rows))
    return s->fail(
        ESDIRK_INVALID_ARGUMENT,
        "start_sensitivities: the seed must be (nx + np) x ns = " + std::to_string(expected_rows) +
            " x ns with ns >= 1 and ld >= nx + np (ns = nx + np for the identity seed); got " +
            std::to_string(rows) + " x " + std::to_string(ns) + ", ld " + std::to_string(ld));
  return guarded(s, [&] {
    if (!s->sensitivity)
      s->sensitivity =
          std::make_unique<esdirk::ForwardSensitivity>(*s->integrator, s->sensitivity_options);
    const esdirk::Status status =
        seed ? s->sensitivity->initialize(esdirk::ConstMatrixRef(seed, rows, ns, ld))
             : s->sensitivity->initialize_all();
    return s->from(status, s->sensitivity->message());
  });
}

int esdirk_solver_integrate_sensitivities_to(esdirk_solver* s, double tout, double* x,
                                             esdirk_int nx, double* z, esdirk_int nz, double* Sx,
                                             esdirk_int ldsx, double* Sz, esdirk_int ldsz,
                                             esdirk_int ns) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x || !vector_ok(z, nz) || !Sx)
    return s->fail(ESDIRK_NULL_ARGUMENT, "integrate_sensitivities_to: x, z or Sx is NULL");
  if (const int st = s->check_sizes(nx, nz, -1, "integrate_sensitivities_to")) return st;
  if (const int st = s->require_initialized("integrate_sensitivities_to")) return st;
  if (!s->sensitivity)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   "integrate_sensitivities_to: call esdirk_solver_start_sensitivities first");
  if (ns != s->sensitivity->directions() || ldsx < nx || (Sz && ldsz < nz))
    return s->fail(ESDIRK_INVALID_ARGUMENT, "integrate_sensitivities_to: ns must be the seed's " +
                                                std::to_string(s->sensitivity->directions()) +
                                                " columns and the leading dimensions >= nx, nz");
  return guarded(s, [&] {
    const esdirk::MatrixRef sx{Sx, nx, ns, ldsx};
    const esdirk::MatrixRef sz = Sz ? esdirk::MatrixRef{Sz, nz, ns, ldsz} : esdirk::MatrixRef{};
    const auto outcome = s->sensitivity->integrate_to(tout, out(x, nx), out(z, nz), sx, sz);
    return s->from(outcome, s->sensitivity->message());
  });
}

}  // extern "C"

namespace {

void apply_mesh_setting(esdirk_shooting* sh) {
  esdirk::ShootingInterval& interval = *sh->interval;
  switch (sh->mesh_setting) {
    case 1: interval.set_fixed_steps(sh->fixed_steps); break;
    case 2: interval.set_mesh(sh->mesh_points); break;
    case 3: interval.freeze_mesh(); break;
    default: interval.use_adaptive_steps(); break;
  }
}

// The interval object, built (again) with the handle's options, running cost and mesh setting
// when there is none or the options changed.
void ensure_interval(esdirk_shooting* sh) {
  if (sh->interval && !sh->options_changed) return;
  const esdirk::Problem& p = *sh->problem->problem;
  sh->interval = std::make_unique<esdirk::ShootingInterval>(*sh->problem->problem, sh->options,
                                                            sh->sensitivity_options);
  if (sh->cost) sh->interval->set_running_cost(c_running_cost(sh->cost, sh->cost_user_data, p.nx(), p.nz(), p.np()));
  sh->options_changed = false;
  sh->has_result = false;
  apply_mesh_setting(sh);
}

}  // namespace

extern "C" {

int esdirk_shooting_create(esdirk_problem* problem, esdirk_shooting** shooting) {
  return esdirk_capi::create_handle(problem, shooting);
}

void esdirk_shooting_free(esdirk_shooting** shooting) { esdirk_capi::free_handle(shooting); }

const char* esdirk_shooting_last_error(const esdirk_shooting* shooting) {
  return shooting ? shooting->text() : "null shooting handle";
}

int esdirk_shooting_set_tolerances(esdirk_shooting* sh, double rtol, double atol) {
  return esdirk_capi::through_options(sh, esdirk_options_set_tolerances, rtol, atol);
}

int esdirk_shooting_set_algebraic_atol(esdirk_shooting* sh, const double* atol, esdirk_int nz) {
  return esdirk_capi::algebraic_atol_through_options(sh, atol, nz);
}

int esdirk_shooting_set_sensitivity_mode(esdirk_shooting* sh, int mode) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  if (!mode_ok(mode))
    return sh->fail(ESDIRK_INVALID_ARGUMENT,
                    "set_sensitivity_mode: mode must be ESDIRK_SENSITIVITY_EXACT or _PAPER");
  return esdirk_capi::through_options(sh, esdirk_options_set_sensitivity, mode,
                                      error_control_code(sh->sensitivity_options));
}

int esdirk_shooting_set_max_steps(esdirk_shooting* sh, long max_steps) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  if (const int st = check_max_steps(*sh, max_steps)) return st;
  const esdirk::Options& o = sh->options;
  return esdirk_capi::through_options(sh, esdirk_options_set_step_limits, o.initial_step, o.min_step, o.max_step,
                                      max_steps);
}

int esdirk_shooting_set_sensitivity_error_control(esdirk_shooting* sh, int error_control) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  return esdirk_capi::through_options(sh, esdirk_options_set_sensitivity,
                                      mode_code(sh->sensitivity_options), error_control);
}

int esdirk_shooting_set_running_cost(esdirk_shooting* sh, esdirk_running_cost_fn cost,
                                     void* user_data) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  sh->cost = cost;
  sh->cost_user_data = user_data;
  if (sh->interval) {
    const esdirk::Problem& p = *sh->problem->problem;
    sh->interval->set_running_cost(cost ? c_running_cost(cost, user_data, p.nx(), p.nz(), p.np())
                                        : esdirk::RunningCost{});
  }
  return ESDIRK_SUCCESS;
}

int esdirk_shooting_integrate(esdirk_shooting* sh, double t_k, double t_end, const double* x_k,
                              esdirk_int nx, const double* u_k, esdirk_int nu,
                              const double* z_guess, esdirk_int nz, double* x_next, double* z_next,
                              double* A, esdirk_int lda, double* B, esdirk_int ldb, double* H,
                              double* q, double* r) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  if (!x_k || !x_next || !vector_ok(u_k, nu))
    return sh->fail(ESDIRK_NULL_ARGUMENT, "shooting_integrate: x_k, u_k or x_next is NULL");
  const esdirk::Problem& p = *sh->problem->problem;
  if (nx != p.nx() || nu != p.np() || nz != p.nz())
    return sh->fail(ESDIRK_INVALID_ARGUMENT,
                    "shooting_integrate: sizes (nx, nu, nz) = (" + std::to_string(nx) + ", " +
                        std::to_string(nu) + ", " + std::to_string(nz) +
                        ") do not match the problem (" + std::to_string(p.nx()) + ", " +
                        std::to_string(p.np()) + ", " + std::to_string(p.nz()) + ")");
  if ((A && lda < nx) || (B && ldb < nx))
    return sh->fail(ESDIRK_INVALID_ARGUMENT,
                    "shooting_integrate: leading dimensions must be >= nx");
  return guarded(sh, [&]() -> int {
    ensure_interval(sh);
    sh->has_result = false;
    const esdirk::ShootingResult& res = sh->interval->integrate(
        t_k, t_end, in(x_k, nx), in(u_k, nu), z_guess ? in(z_guess, nz) : esdirk::ConstVector{});
    if (res.status != esdirk::Status::success)
      return sh->fail(esdirk_capi::to_c_status(res.status), res.message);
    std::copy(res.x.begin(), res.x.end(), x_next);
    if (z_next) std::copy(res.z.begin(), res.z.end(), z_next);
    if (A) copy_matrix(res.A.cref(), A, lda);
    if (B) copy_matrix(res.B.cref(), B, ldb);
    if (H) *H = res.H;
    if (q) std::copy(res.q.begin(), res.q.end(), q);
    if (r) std::copy(res.r.begin(), res.r.end(), r);
    sh->has_result = true;
    sh->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_shooting_get_algebraic_sensitivities(const esdirk_shooting* csh, double* Az,
                                                esdirk_int ldaz, double* Bz, esdirk_int ldbz) {
  if (!csh) return ESDIRK_NULL_ARGUMENT;
  auto* sh = const_cast<esdirk_shooting*>(csh);  // only the message changes
  if (!sh->has_result)
    return sh->fail(ESDIRK_WRONG_CALL_ORDER,
                    "get_algebraic_sensitivities: no successful interval yet");
  const esdirk::ShootingResult& res = sh->interval->result();
  if ((Az && ldaz < res.Az.rows()) || (Bz && ldbz < res.Bz.rows()))
    return sh->fail(ESDIRK_INVALID_ARGUMENT,
                    "get_algebraic_sensitivities: leading dimensions must be >= nz");
  if (Az) copy_matrix(res.Az.cref(), Az, ldaz);
  if (Bz) copy_matrix(res.Bz.cref(), Bz, ldbz);
  return ESDIRK_SUCCESS;
}

int esdirk_shooting_get_statistics(const esdirk_shooting* csh, int total,
                                   esdirk_statistics* statistics) {
  if (!csh) return ESDIRK_NULL_ARGUMENT;
  auto* sh = const_cast<esdirk_shooting*>(csh);
  if (!statistics) return sh->fail(ESDIRK_NULL_ARGUMENT, "get_statistics: statistics is NULL");
  esdirk::Statistics st;
  if (sh->interval)
    st = total ? sh->interval->total_statistics()
               : (sh->has_result ? sh->interval->result().statistics : st);
  return esdirk_capi::fill_statistics(st, statistics, *sh);
}

int esdirk_shooting_get_counter(const esdirk_shooting* csh, int total, const char* name,
                                int64_t* value) {
  if (!csh) return ESDIRK_NULL_ARGUMENT;
  auto* sh = const_cast<esdirk_shooting*>(csh);  // only the message changes
  esdirk::Statistics st;
  if (sh->interval)
    st = total ? sh->interval->total_statistics()
               : (sh->has_result ? sh->interval->result().statistics : st);
  return esdirk_capi::get_counter(st, name, value, *sh);
}

int esdirk_shooting_set_fixed_steps(esdirk_shooting* sh, esdirk_int steps) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  return guarded(sh, [&] {
    ensure_interval(sh);
    sh->interval->set_fixed_steps(static_cast<int>(steps));  // throws naming steps: nothing changed
    sh->mesh_setting = 1;
    sh->fixed_steps = static_cast<int>(steps);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_shooting_set_mesh(esdirk_shooting* sh, const double* points, esdirk_int n_points) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  if (!points && n_points > 0) return sh->fail(ESDIRK_NULL_ARGUMENT, "set_mesh: points is NULL");
  if (n_points < 0)
    return sh->fail(ESDIRK_INVALID_ARGUMENT, "set_mesh: n_points = " + std::to_string(n_points) + " is negative");
  return guarded(sh, [&] {
    ensure_interval(sh);
    const esdirk::ConstVector mesh(points, static_cast<std::size_t>(n_points));
    sh->interval->set_mesh(mesh);  // throws naming the mesh: nothing changed
    sh->mesh_setting = 2;
    sh->mesh_points.assign(mesh.begin(), mesh.end());
    return ESDIRK_SUCCESS;
  });
}

int esdirk_shooting_freeze_mesh(esdirk_shooting* sh) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  return guarded(sh, [&] {
    ensure_interval(sh);
    sh->interval->freeze_mesh();
    sh->mesh_setting = 3;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_shooting_refresh_mesh(esdirk_shooting* sh) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  return guarded(sh, [&] {
    ensure_interval(sh);
    sh->interval->refresh_mesh();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_shooting_use_adaptive_steps(esdirk_shooting* sh) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  return guarded(sh, [&] {
    ensure_interval(sh);
    sh->interval->use_adaptive_steps();
    sh->mesh_setting = 0;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_shooting_get_error_estimate(const esdirk_shooting* csh, double* estimate) {
  if (!csh) return ESDIRK_NULL_ARGUMENT;
  auto* sh = const_cast<esdirk_shooting*>(csh);  // only the message changes
  if (!estimate) return sh->fail(ESDIRK_NULL_ARGUMENT, "get_error_estimate: estimate is NULL");
  if (!sh->has_result) return sh->fail(ESDIRK_WRONG_CALL_ORDER, "get_error_estimate: no successful interval yet");
  *estimate = sh->interval->result().error_estimate;
  return ESDIRK_SUCCESS;
}

int esdirk_shooting_get_mesh(const esdirk_shooting* csh, double* points, esdirk_int capacity,
                             esdirk_int* n_points) {
  if (!csh) return ESDIRK_NULL_ARGUMENT;
  auto* sh = const_cast<esdirk_shooting*>(csh);  // only the message changes
  if (!n_points || (!points && capacity > 0))
    return sh->fail(ESDIRK_NULL_ARGUMENT, "get_mesh: n_points or points is NULL");
  if (!sh->has_result) return sh->fail(ESDIRK_WRONG_CALL_ORDER, "get_mesh: no successful interval yet");
  const esdirk::ConstVector mesh = sh->interval->mesh();
  *n_points = static_cast<esdirk_int>(mesh.size());
  if (capacity < *n_points)
    return sh->fail(ESDIRK_BUFFER_TOO_SMALL, "get_mesh: the mesh has " + std::to_string(mesh.size()) +
                                                 " points, capacity is " + std::to_string(capacity));
  std::copy(mesh.begin(), mesh.end(), points);
  return ESDIRK_SUCCESS;
}

}  // extern "C"
