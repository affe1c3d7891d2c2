// The C shim for the discrete adjoint and the reverse-mode shooting interval (esdirk_adjoint.h):
// extern "C" definitions, the objective and reverse-shooting handles.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "argument_checks.hpp"
#include "handle_options.hpp"
#include "objective_shim.hpp"
#include "esdirk/esdirk_adjoint.h"
#include "shim.hpp"

using esdirk_capi::check_max_steps;
using esdirk_capi::check_report;
using esdirk_capi::check_terminal_weights;
using esdirk_capi::guarded;
using esdirk_capi::in;
using esdirk_capi::out;
using esdirk_capi::vector_ok;

namespace {

const double* or_null(esdirk::ConstVector v) { return v.empty() ? nullptr : v.data(); }
double* or_null(esdirk::MatrixRef m) { return m.rows > 0 ? m.data : nullptr; }

// The C callback as an ObjectiveGradient (NULL pointers for empty blocks).
esdirk::ObjectiveGradient c_gradient(esdirk_objective_gradient_fn fn, void* data) {
  return [=](double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
             esdirk::MatrixRef dx, esdirk::MatrixRef dz, esdirk::MatrixRef dp) {
    return fn(static_cast<esdirk_int>(x.size()), static_cast<esdirk_int>(z.size()),
              static_cast<esdirk_int>(p.size()), dx.cols, t, x.data(), or_null(z), or_null(p), dx.data,
              dx.ld, or_null(dz), dz.ld, or_null(dp), dp.ld, data);
  };
}

// The C++ objective of a C objective handle (its callbacks hold the handle's function pointers).
esdirk::AdjointObjective make_objective(const esdirk_objective& o) {
  esdirk::AdjointObjective objective;
  objective.rows = o.rows;
  if (o.terminal) {
    objective.terminal = c_gradient(o.terminal, o.terminal_data);
  } else if (!o.terminal_weights.empty()) {
    objective.set_terminal_weights(
        esdirk::ConstMatrixRef(o.terminal_weights.data(), o.weights_rows, o.rows, o.weights_rows));
  }
  if (o.running) objective.running = c_gradient(o.running, o.running_data);
  if (!o.output_times.empty()) {
    objective.output_times = o.output_times;
    const esdirk_output_gradient_fn fn = o.at_output;
    void* data = o.output_data;
    objective.at_output = [=](int k, double t, esdirk::ConstVector x, esdirk::ConstVector z,
                              esdirk::ConstVector p, esdirk::MatrixRef dx, esdirk::MatrixRef dz,
                              esdirk::MatrixRef dp) {
      return fn(k, static_cast<esdirk_int>(x.size()), static_cast<esdirk_int>(z.size()),
                static_cast<esdirk_int>(p.size()), dx.cols, t, x.data(), or_null(z), or_null(p),
                dx.data, dx.ld, or_null(dz), dz.ld, or_null(dp), dp.ld, data);
    };
  }
  return objective;
}

esdirk::RunningCost c_running_cost(esdirk_running_cost_fn cost, void* user_data, int nx, int nz, int nu) {
  return [=](double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector u,
             double& value, esdirk::Vector dh_dx, esdirk::Vector dh_dz, esdirk::Vector dh_du) {
    return cost(nx, nz, nu, t, x.data(), nz ? z.data() : nullptr, nu ? u.data() : nullptr, &value,
                dh_dx.data(), nz ? dh_dz.data() : nullptr, nu ? dh_du.data() : nullptr, user_data);
  };
}

// The checks shared by esdirk_solver_adjoint_gradient and esdirk_solver_check_gradient: a
// recording of a run that succeeded, sizes, an objective with a term. 0 or the failure status.
int check_gradient_call(esdirk_solver* s, const esdirk_objective* objective, const void* dx0, esdirk_int nx,
                        esdirk_int lddx0, const void* dp, esdirk_int np, esdirk_int lddp, const char* who) {
  const std::string name = who;
  if (!objective || !dx0) return s->fail(ESDIRK_NULL_ARGUMENT, name + ": objective or dx0 is NULL");
  if (!s->adjoint)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   name + ": no adjoint recording (call esdirk_solver_set_adjoint before "
                          "esdirk_solver_initialize, then integrate)");
  if (s->restarted)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   name + ": the run was restarted; the smooth adjoint needs one uninterrupted run "
                          "(initialize and integrate again)");
  if (s->last_run_failed)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   name + ": the last integration failed; its steps do not reach the "
                          "terminal time (initialize and integrate again)");
  const esdirk::Problem& p = *s->problem->problem;
  const esdirk_int rows = objective->rows;
  if (nx != p.nx() || lddx0 < nx || np != p.np() || (dp && lddp < np))
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   name + ": dx0 must be nx x rows = " + std::to_string(p.nx()) + " x " +
                       std::to_string(rows) + " with lddx0 >= nx and dp np x rows = " +
                       std::to_string(p.np()) + " x " + std::to_string(rows) +
                       " with lddp >= np; got nx = " + std::to_string(nx) + ", np = " + std::to_string(np));
  if (objective->every_output)
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   name + ": the objective has a term at every output (esdirk_objective_set_outputs), "
                          "which only a hybrid run has; a smooth run's outputs are given by "
                          "esdirk_objective_set_output_times");
  if (objective->weights_rows > 0 && objective->weights_rows != p.size())
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   name + ": the terminal weights have " + std::to_string(objective->weights_rows) +
                       " rows, the state has nx + nz = " + std::to_string(p.size()));
  if (!objective->terminal && objective->terminal_weights.empty() && !objective->running &&
      objective->output_times.empty())
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   name + ": the objective has no term (terminal, running or output times)");
  return ESDIRK_SUCCESS;
}

}  // namespace

extern "C" {

// ---- Objectives ------------------------------------------------------------------------------

int esdirk_objective_create(esdirk_int rows, esdirk_objective** objective) {
  if (!objective) return ESDIRK_NULL_ARGUMENT;
  *objective = nullptr;
  if (rows < 1) return ESDIRK_INVALID_ARGUMENT;
  try {
    auto made = std::make_unique<esdirk_objective>();
    made->rows = rows;
    *objective = made.release();
    return ESDIRK_SUCCESS;
  } catch (...) {
    return ESDIRK_OUT_OF_MEMORY;
  }
}

void esdirk_objective_free(esdirk_objective** objective) { esdirk_capi::free_handle(objective); }

const char* esdirk_objective_last_error(const esdirk_objective* objective) {
  return objective ? objective->text() : "null objective handle";
}

int esdirk_objective_set_terminal(esdirk_objective* o, esdirk_objective_gradient_fn gradient,
                                  void* user_data) {
  if (!o) return ESDIRK_NULL_ARGUMENT;
  return guarded(o, [&] {
    o->terminal = gradient;
    o->terminal_data = user_data;
    o->terminal_weights.clear();
    o->weights_rows = 0;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_objective_set_terminal_weights(esdirk_objective* o, const double* W, esdirk_int n,
                                          esdirk_int ldw) {
  return esdirk_capi::set_terminal_weights(o, "set_terminal_weights", W, n, ldw);
}

int esdirk_objective_set_running(esdirk_objective* o, esdirk_objective_gradient_fn gradient,
                                 void* user_data) {
  if (!o) return ESDIRK_NULL_ARGUMENT;
  return guarded(o, [&] {
    o->running = gradient;
    o->running_data = user_data;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_objective_set_outputs(esdirk_objective* o, esdirk_output_gradient_fn gradient, void* user_data) {
  if (!o) return ESDIRK_NULL_ARGUMENT;
  return guarded(o, [&] {
    o->every_output = gradient;
    o->every_output_data = gradient ? user_data : nullptr;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_objective_set_output_times(esdirk_objective* o, const double* times, esdirk_int count,
                                      esdirk_output_gradient_fn gradient, void* user_data) {
  if (!o) return ESDIRK_NULL_ARGUMENT;
  if (count < 0) return o->fail(ESDIRK_INVALID_ARGUMENT, "set_output_times: count must be >= 0");
  if (count > 0 && (!times || !gradient))
    return o->fail(ESDIRK_NULL_ARGUMENT, "set_output_times: times or gradient is NULL");
  for (esdirk_int k = 0; k < count; ++k)
    if (!std::isfinite(times[k]))
      return o->fail(ESDIRK_INVALID_ARGUMENT, "set_output_times: the times must be finite");
  const bool increasing = std::is_sorted(times, times + count);
  const bool decreasing = std::is_sorted(times, times + count, std::greater<double>());
  if (count > 0 && !increasing && !decreasing)
    return o->fail(ESDIRK_INVALID_ARGUMENT, "set_output_times: the times must be ordered in time");
  return guarded(o, [&] {
    o->output_times.assign(times, times + count);
    o->at_output = count > 0 ? gradient : nullptr;
    o->output_data = count > 0 ? user_data : nullptr;
    return ESDIRK_SUCCESS;
  });
}

// ---- The adjoint of a solver ------------------------------------------------------------------

int esdirk_solver_set_adjoint(esdirk_solver* s, int record, long memory_budget) {
  return esdirk_capi::through_options(s, esdirk_options_set_adjoint, record, memory_budget);
}

int esdirk_solver_adjoint_gradient(esdirk_solver* s, const esdirk_objective* objective, double* dx0,
                                   esdirk_int nx, esdirk_int lddx0, double* dp, esdirk_int np,
                                   esdirk_int lddp) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = check_gradient_call(s, objective, dx0, nx, lddx0, dp, np, lddp, "adjoint_gradient")) return st;
  const esdirk::Problem& p = *s->problem->problem;
  const esdirk_int rows = objective->rows;
  return guarded(s, [&]() -> int {
    const esdirk::AdjointObjective cpp = make_objective(*objective);
    // The sweep writes its own workspace; the caller's arrays only on success.
    esdirk::DenseMatrix gx(p.nx(), rows), gp(std::max(p.np(), 1), rows);
    const esdirk::MatrixRef gp_ref = p.np() > 0 ? gp.ref() : esdirk::MatrixRef{};
    const esdirk::Status status = s->adjoint->gradient(cpp, gx.ref(), gp_ref);
    if (!esdirk::ok(status)) return s->from(status, s->adjoint->message());
    for (esdirk_int j = 0; j < rows; ++j) {
      std::copy(gx.column(j), gx.column(j) + nx, dx0 + static_cast<std::size_t>(j) * lddx0);
      if (dp && np > 0) std::copy(gp.column(j), gp.column(j) + np, dp + static_cast<std::size_t>(j) * lddp);
    }
    s->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_check_gradient(esdirk_solver* s, const esdirk_objective* objective, const double* dx0,
                                 esdirk_int nx, esdirk_int lddx0, const double* dp, esdirk_int np,
                                 esdirk_int lddp, double tolerance, int all_components, unsigned seed,
                                 double* worst_error, int* passed, char* summary, size_t capacity) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = check_gradient_call(s, objective, dx0, nx, lddx0, dp, np, lddp, "check_gradient")) return st;
  if (np > 0 && !dp) return s->fail(ESDIRK_NULL_ARGUMENT, "check_gradient: dp is NULL with np > 0");
  if (!(tolerance >= 0.0)) return s->fail(ESDIRK_INVALID_ARGUMENT, "check_gradient: tolerance must be >= 0");
  return guarded(s, [&]() -> int {
    const esdirk::AdjointObjective cpp = make_objective(*objective);
    const esdirk_int rows = objective->rows;
    const esdirk::GradientCheck check = esdirk::check_gradient(
        *s->adjoint, cpp, esdirk::ConstMatrixRef(dx0, nx, rows, lddx0),
        np > 0 ? esdirk::ConstMatrixRef(dp, np, rows, lddp) : esdirk::ConstMatrixRef{}, tolerance,
        all_components != 0, seed);
    if (worst_error) *worst_error = check.worst_error;
    if (passed) *passed = check.ok ? 1 : 0;
    s->message.clear();
    if (!summary || capacity == 0) return ESDIRK_SUCCESS;
    const std::string text = check.summary();
    const std::size_t n = std::min(text.size(), capacity - 1);
    std::memcpy(summary, text.data(), n);
    summary[n] = '\0';
    if (n < text.size())
      return s->fail(ESDIRK_BUFFER_TOO_SMALL, "check_gradient: the summary needs " +
                                                  std::to_string(text.size() + 1) + " bytes");
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_get_adjoint_report(const esdirk_solver* cs, esdirk_adjoint_report* report) {
  if (!cs) return ESDIRK_NULL_ARGUMENT;
  auto* s = const_cast<esdirk_solver*>(cs);  // only the message changes
  if (const int st = check_report(*s, "get_adjoint_report", report, "ESDIRK_ADJOINT_REPORT_INIT",
                                  "esdirk_adjoint_report"))
    return st;
  const esdirk::AdjointReport r = s->adjoint ? s->adjoint->report() : esdirk::AdjointReport{};
  const long values[] = {r.adjoint_steps,          r.transposed_solves,
                         r.stage_factorizations,   r.jacobian_evaluations,
                         r.parameter_jacobian_evaluations, r.objective_evaluations,
                         r.recomputed_steps,       r.checkpoints,
                         r.peak_stored_doubles,    r.stored_records};
  // Fill what the caller's struct has room for.
  const std::size_t known = sizeof(values) / sizeof(values[0]);
  const std::size_t room = (report->struct_size - offsetof(esdirk_adjoint_report, adjoint_steps)) / sizeof(int64_t);
  auto* fields = reinterpret_cast<unsigned char*>(report) + offsetof(esdirk_adjoint_report, adjoint_steps);
  for (std::size_t k = 0; k < room; ++k) {
    const int64_t v = k < known ? static_cast<int64_t>(values[k]) : 0;
    std::memcpy(fields + k * sizeof(int64_t), &v, sizeof v);
  }
  return ESDIRK_SUCCESS;
}

// ---- The reverse-mode shooting interval ---------------------------------------------------------

int esdirk_reverse_shooting_create(esdirk_problem* problem, esdirk_reverse_shooting** shooting) {
  return esdirk_capi::create_handle(problem, shooting);
}

void esdirk_reverse_shooting_free(esdirk_reverse_shooting** shooting) {
  esdirk_capi::free_handle(shooting);
}

const char* esdirk_reverse_shooting_last_error(const esdirk_reverse_shooting* shooting) {
  return shooting ? shooting->text() : "null reverse shooting handle";
}

int esdirk_reverse_shooting_set_tolerances(esdirk_reverse_shooting* sh, double rtol, double atol) {
  return esdirk_capi::through_options(sh, esdirk_options_set_tolerances, rtol, atol);
}

int esdirk_reverse_shooting_set_algebraic_atol(esdirk_reverse_shooting* sh, const double* atol, esdirk_int nz) {
  return esdirk_capi::algebraic_atol_through_options(sh, atol, nz);
}

int esdirk_reverse_shooting_set_max_steps(esdirk_reverse_shooting* sh, long max_steps) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  if (const int st = check_max_steps(*sh, max_steps)) return st;
  const esdirk::Options& o = sh->options;
  return esdirk_capi::through_options(sh, esdirk_options_set_step_limits, o.initial_step, o.min_step, o.max_step,
                                      max_steps);
}

int esdirk_reverse_shooting_set_running_cost(esdirk_reverse_shooting* sh, esdirk_running_cost_fn cost,
                                             void* user_data) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  return guarded(sh, [&] {
    sh->cost = cost;
    sh->cost_user_data = user_data;
    if (sh->interval) {
      const esdirk::Problem& p = *sh->problem->problem;
      sh->interval->set_running_cost(cost ? c_running_cost(cost, user_data, p.nx(), p.nz(), p.np())
                                          : esdirk::RunningCost{});
    }
    return ESDIRK_SUCCESS;
  });
}

int esdirk_reverse_shooting_integrate(esdirk_reverse_shooting* sh, double t_k, double t_end,
                                      const double* x_k, esdirk_int nx, const double* u_k,
                                      esdirk_int nu, const double* z_guess, esdirk_int nz,
                                      double* x_next, double* z_next, double* H) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  if (!x_k || !x_next || !vector_ok(u_k, nu))
    return sh->fail(ESDIRK_NULL_ARGUMENT, "reverse_shooting_integrate: x_k, u_k or x_next is NULL");
  const esdirk::Problem& p = *sh->problem->problem;
  if (nx != p.nx() || nu != p.np() || nz != p.nz())
    return sh->fail(ESDIRK_INVALID_ARGUMENT,
                    "reverse_shooting_integrate: sizes (nx, nu, nz) = (" + std::to_string(nx) + ", " +
                        std::to_string(nu) + ", " + std::to_string(nz) +
                        ") do not match the problem (" + std::to_string(p.nx()) + ", " +
                        std::to_string(p.np()) + ", " + std::to_string(p.nz()) + ")");
  return guarded(sh, [&]() -> int {
    if (!sh->interval || sh->options_changed) {
      sh->interval = std::make_unique<esdirk::ReverseShootingInterval>(*sh->problem->problem, sh->options);
      if (sh->cost) sh->interval->set_running_cost(c_running_cost(sh->cost, sh->cost_user_data, nx, nz, nu));
      sh->options_changed = false;
    }
    sh->has_result = false;
    const esdirk::ReverseShootingResult& res = sh->interval->integrate(
        t_k, t_end, in(x_k, nx), in(u_k, nu), z_guess ? in(z_guess, nz) : esdirk::ConstVector{});
    if (res.status != esdirk::Status::success)
      return sh->fail(esdirk_capi::to_c_status(res.status), res.message);
    std::copy(res.x.begin(), res.x.end(), x_next);
    if (z_next) std::copy(res.z.begin(), res.z.end(), z_next);
    if (H) *H = res.H;
    sh->has_result = true;
    sh->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_reverse_shooting_transpose_products(esdirk_reverse_shooting* sh, const double* lambda_x,
                                               esdirk_int nx, esdirk_int ldlx, const double* lambda_z,
                                               esdirk_int nz, esdirk_int ldlz, const double* w,
                                               esdirk_int m, double* gx, esdirk_int ldgx, double* gu,
                                               esdirk_int nu, esdirk_int ldgu) {
  if (!sh) return ESDIRK_NULL_ARGUMENT;
  if (!lambda_x || !gx)
    return sh->fail(ESDIRK_NULL_ARGUMENT, "transpose_products: lambda_x or gx is NULL");
  if (!sh->has_result)
    return sh->fail(ESDIRK_WRONG_CALL_ORDER,
                    "transpose_products: no recorded interval (call esdirk_reverse_shooting_integrate "
                    "and check its status first)");
  const esdirk::Problem& p = *sh->problem->problem;
  if (nx != p.nx() || nz != p.nz() || nu != p.np() || m < 1 || ldlx < nx || ldgx < nx ||
      (lambda_z && ldlz < nz) || (gu && ldgu < nu))
    return sh->fail(ESDIRK_INVALID_ARGUMENT,
                    "transpose_products: sizes (nx, nz, nu) = (" + std::to_string(nx) + ", " +
                        std::to_string(nz) + ", " + std::to_string(nu) + ") must be the problem's (" +
                        std::to_string(p.nx()) + ", " + std::to_string(p.nz()) + ", " +
                        std::to_string(p.np()) + "), m >= 1 and every leading dimension at least its rows");
  return guarded(sh, [&]() -> int {
    const esdirk::ConstMatrixRef lx(lambda_x, nx, m, ldlx);
    const esdirk::ConstMatrixRef lz = lambda_z && nz > 0 ? esdirk::ConstMatrixRef(lambda_z, nz, m, ldlz)
                                                         : esdirk::ConstMatrixRef{};
    const esdirk::ConstVector weights = w ? in(w, m) : esdirk::ConstVector{};
    // The sweep writes into workspaces; the caller's arrays only on success.
    esdirk::DenseMatrix ox(nx, m), ou(std::max(nu, 1), m);
    const esdirk::Status status = sh->interval->transpose_products(
        lx, lz, weights, ox.ref(), nu > 0 ? ou.ref() : esdirk::MatrixRef{});
    if (!esdirk::ok(status)) return sh->fail(esdirk_capi::to_c_status(status), sh->interval->message());
    for (esdirk_int j = 0; j < m; ++j) {
      std::copy(ox.column(j), ox.column(j) + nx, gx + static_cast<std::size_t>(j) * ldgx);
      if (gu && nu > 0) std::copy(ou.column(j), ou.column(j) + nu, gu + static_cast<std::size_t>(j) * ldgu);
    }
    sh->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_reverse_shooting_get_statistics(const esdirk_reverse_shooting* csh, int total,
                                           esdirk_statistics* statistics) {
  if (!csh) return ESDIRK_NULL_ARGUMENT;
  auto* sh = const_cast<esdirk_reverse_shooting*>(csh);  // only the message changes
  if (!statistics) return sh->fail(ESDIRK_NULL_ARGUMENT, "get_statistics: statistics is NULL");
  esdirk::Statistics st;
  if (sh->interval)
    st = total ? sh->interval->total_statistics() : (sh->has_result ? sh->interval->result().statistics : st);
  return esdirk_capi::fill_statistics(st, statistics, *sh);
}

int esdirk_reverse_shooting_get_counter(const esdirk_reverse_shooting* csh, int total, const char* name,
                                        int64_t* value) {
  if (!csh) return ESDIRK_NULL_ARGUMENT;
  auto* sh = const_cast<esdirk_reverse_shooting*>(csh);  // only the message changes
  esdirk::Statistics st;
  if (sh->interval)
    st = total ? sh->interval->total_statistics() : (sh->has_result ? sh->interval->result().statistics : st);
  return esdirk_capi::get_counter(st, name, value, *sh);
}

}  // extern "C"
