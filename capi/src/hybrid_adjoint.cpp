// The C shim for the hybrid adjoint (esdirk_hybrid_adjoint.h): extern "C" definitions and the
// objective handle. The recording itself is made by esdirk_hybrid_solver_initialize and the
// integrate calls (events.cpp), which go through the handle's HybridAdjoint when one is set.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "argument_checks.hpp"
#include "esdirk/esdirk_hybrid_adjoint.h"
#include "handle_options.hpp"
#include "hybrid_shim.hpp"
#include "objective_shim.hpp"

using esdirk_capi::check_report;
using esdirk_capi::check_terminal_weights;
using esdirk_capi::guarded;

namespace {

const double* or_null(esdirk::ConstVector v) { return v.empty() ? nullptr : v.data(); }
double* or_null(esdirk::MatrixRef m) { return m.rows > 0 ? m.data : nullptr; }

// The C++ objective of a C objective handle (its callbacks hold the handle's function pointers).
esdirk::HybridObjective make_objective(const esdirk_objective& o) {
  esdirk::HybridObjective objective;
  objective.rows = o.rows;
  if (o.terminal) {
    const esdirk_objective_gradient_fn fn = o.terminal;
    void* data = o.terminal_data;
    objective.terminal = [=](double t, esdirk::ConstVector x, esdirk::ConstVector z,
                             esdirk::ConstVector p, esdirk::MatrixRef dx, esdirk::MatrixRef dz,
                             esdirk::MatrixRef dp) {
      return fn(static_cast<esdirk_int>(x.size()), static_cast<esdirk_int>(z.size()),
                static_cast<esdirk_int>(p.size()), dx.cols, t, x.data(), or_null(z), or_null(p),
                dx.data, dx.ld, or_null(dz), dz.ld, or_null(dp), dp.ld, data);
    };
  } else if (!o.terminal_weights.empty()) {
    objective.set_terminal_weights(
        esdirk::ConstMatrixRef(o.terminal_weights.data(), o.weights_rows, o.rows, o.weights_rows));
  }
  if (o.every_output) {
    const esdirk_output_gradient_fn fn = o.every_output;
    void* data = o.every_output_data;
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

// A recording that the gradient functions can use: 0 or the failure status.
int require_recording(esdirk_hybrid_solver* s, const std::string& who) {
  if (!s->adjoint)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   who + ": no adjoint recording (call esdirk_hybrid_solver_set_adjoint before "
                         "esdirk_hybrid_solver_initialize, then integrate)");
  return ESDIRK_SUCCESS;
}

}  // namespace

extern "C" {

// ---- Objectives --------------------------------------------------------------------------------

// Deprecated: esdirk_hybrid_objective is esdirk_objective; the wrappers keep their messages.
int esdirk_hybrid_objective_create(esdirk_int rows, esdirk_hybrid_objective** objective) {
  return esdirk_objective_create(rows, objective);
}

void esdirk_hybrid_objective_free(esdirk_hybrid_objective** objective) { esdirk_objective_free(objective); }

const char* esdirk_hybrid_objective_last_error(const esdirk_hybrid_objective* objective) {
  return objective ? esdirk_objective_last_error(objective) : "null hybrid objective handle";
}

int esdirk_hybrid_objective_set_terminal(esdirk_hybrid_objective* o,
                                         esdirk_objective_gradient_fn gradient, void* user_data) {
  return esdirk_objective_set_terminal(o, gradient, user_data);
}

int esdirk_hybrid_objective_set_terminal_weights(esdirk_hybrid_objective* o, const double* W,
                                                 esdirk_int n, esdirk_int ldw) {
  return esdirk_capi::set_terminal_weights(o, "hybrid set_terminal_weights", W, n, ldw);
}

int esdirk_hybrid_objective_set_outputs(esdirk_hybrid_objective* o,
                                        esdirk_output_gradient_fn gradient, void* user_data) {
  return esdirk_objective_set_outputs(o, gradient, user_data);
}

// ---- The adjoint of a hybrid solver -------------------------------------------------------------

int esdirk_hybrid_solver_set_adjoint(esdirk_hybrid_solver* s, int record, long memory_budget) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (memory_budget < 0)  // its own words, as before the options object
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   "hybrid set_adjoint: memory_budget must be >= 0 (0 keeps every step)");
  return esdirk_capi::through_options(s, esdirk_options_set_adjoint, record, memory_budget);
}

int esdirk_hybrid_solver_adjoint_outputs(const esdirk_hybrid_solver* cs, esdirk_int* count) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);  // only the message changes
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = require_recording(s, "hybrid adjoint_outputs")) return st;
  if (count) *count = s->adjoint->outputs();
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_adjoint_output_time(const esdirk_hybrid_solver* cs, esdirk_int k,
                                             double* t) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!t) return s->fail(ESDIRK_NULL_ARGUMENT, "hybrid adjoint_output_time: t is NULL");
  if (const int st = require_recording(s, "hybrid adjoint_output_time")) return st;
  if (k < 0 || k >= s->adjoint->outputs())
    return s->fail(ESDIRK_INVALID_ARGUMENT, "hybrid adjoint_output_time: output " + std::to_string(k) +
                                                " is not recorded (0.." +
                                                std::to_string(s->adjoint->outputs()) + ")");
  *t = s->adjoint->output_time(k);
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_adjoint_gradient(esdirk_hybrid_solver* s,
                                          const esdirk_hybrid_objective* objective, double* dx0,
                                          esdirk_int nx, esdirk_int lddx0, double* dp,
                                          esdirk_int np, esdirk_int lddp) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  const std::string who = "hybrid adjoint_gradient";
  if (!objective || !dx0) return s->fail(ESDIRK_NULL_ARGUMENT, who + ": objective or dx0 is NULL");
  if (const int st = require_recording(s, who)) return st;
  // A recording exists only after a successful initialize; the handle is uninitialized again
  // only after an integrate call failed.
  if (!s->initialized)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   who + ": the last integrate call failed; the recorded run is incomplete "
                         "(initialize and integrate again)");
  if (s->adjoint->outputs() == 0)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   who + ": nothing recorded since initialize (integrate first)");
  const esdirk_capi::CHybridProblem& m = s->model();
  const esdirk_int rows = objective->rows;
  if (nx != m.nx() || lddx0 < nx || np != m.np() || (dp && np > 0 && lddp < np))
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   who + ": dx0 must be nx x rows = " + std::to_string(m.nx()) + " x " +
                       std::to_string(rows) + " with lddx0 >= nx and dp np x rows = " +
                       std::to_string(m.np()) + " x " + std::to_string(rows) +
                       " with lddp >= np; got nx = " + std::to_string(nx) + ", lddx0 = " +
                       std::to_string(lddx0) + ", np = " + std::to_string(np) + ", lddp = " +
                       std::to_string(lddp));
  const int n = m.nx() + m.nz();
  if (objective->weights_rows > 0 && objective->weights_rows != n)
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   who + ": the terminal weights have " + std::to_string(objective->weights_rows) +
                       " rows, the state has nx + nz = " + std::to_string(n));
  if (objective->running)
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   who + ": the objective has a running cost (esdirk_objective_set_running), which a "
                         "hybrid run does not offer (integrate it as a quadrature state of the "
                         "model and weight it in the terminal term)");
  if (!objective->output_times.empty())
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   who + ": the objective has output times (esdirk_objective_set_output_times); a "
                         "hybrid run's outputs are its integrate calls (esdirk_objective_set_outputs)");
  if (!objective->terminal && objective->terminal_weights.empty() && !objective->every_output)
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   who + ": the objective has no term (terminal, terminal weights or outputs)");
  return guarded(s, [&]() -> int {
    const esdirk::HybridObjective cpp = make_objective(*objective);
    // The sweep writes its own workspace; the caller's arrays only on success.
    esdirk::DenseMatrix gx(m.nx(), rows), gp(std::max(m.np(), 1), rows);
    const esdirk::MatrixRef gp_ref = m.np() > 0 ? gp.ref() : esdirk::MatrixRef{};
    const esdirk::Status status = s->adjoint->gradient(cpp, gx.ref(), gp_ref);
    if (!esdirk::ok(status)) return s->from(status, who + ": " + s->adjoint->message());
    for (esdirk_int j = 0; j < rows; ++j) {
      std::copy(gx.column(j), gx.column(j) + nx,
                dx0 + static_cast<std::size_t>(j) * static_cast<std::size_t>(lddx0));
      if (dp && np > 0)
        std::copy(gp.column(j), gp.column(j) + np,
                  dp + static_cast<std::size_t>(j) * static_cast<std::size_t>(lddp));
    }
    s->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_hybrid_solver_get_adjoint_report(const esdirk_hybrid_solver* cs,
                                            esdirk_hybrid_adjoint_report* report) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);  // only the message changes
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = check_report(*s, "hybrid get_adjoint_report", report,
                                  "ESDIRK_HYBRID_ADJOINT_REPORT_INIT", "esdirk_hybrid_adjoint_report"))
    return st;
  const esdirk::HybridAdjointReport r =
      s->adjoint ? s->adjoint->report() : esdirk::HybridAdjointReport{};
  const long steps = s->adjoint ? s->adjoint->steps() : 0;
  const long outputs = s->adjoint ? s->adjoint->outputs() : 0;
  const long values[] = {r.sweep.adjoint_steps,
                         r.sweep.transposed_solves,
                         r.sweep.stage_factorizations,
                         r.sweep.jacobian_evaluations,
                         r.sweep.parameter_jacobian_evaluations,
                         r.sweep.objective_evaluations,
                         r.segments,
                         r.jumps,
                         r.peak_stored_doubles,
                         steps,
                         outputs,
                         r.checkpoints,
                         r.recomputed_steps,
                         r.stored_records};
  // Fill what the caller's struct has room for.
  const std::size_t known = sizeof(values) / sizeof(values[0]);
  const std::size_t first = offsetof(esdirk_hybrid_adjoint_report, adjoint_steps);
  const std::size_t room = (report->struct_size - first) / sizeof(int64_t);
  auto* fields = reinterpret_cast<unsigned char*>(report) + first;
  for (std::size_t k = 0; k < room; ++k) {
    const int64_t v = k < known ? static_cast<int64_t>(values[k]) : 0;
    std::memcpy(fields + k * sizeof(int64_t), &v, sizeof v);
  }
  return ESDIRK_SUCCESS;
}

}  // extern "C"
