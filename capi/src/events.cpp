// The C shim for the events module: hybrid problems (modes, event functions, transitions,
// memory) and the hybrid solver with sensitivity jumps and its event log. extern "C"
// definitions only; the adapter class and the handles are in hybrid_shim.hpp, the pieces shared
// with the other shim files in shim.hpp.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "handle_options.hpp"
#include "hybrid_shim.hpp"
#include "internal/format_number.hpp"

using esdirk_capi::guarded;
using esdirk_capi::in;
using esdirk_capi::out;
using esdirk_capi::vector_ok;

namespace {

// The integrate calls: x and z sizes, then the run; the hybrid solver's stops map to
// ESDIRK_SUCCESS (tout) and ESDIRK_LISTENER_STOP (a terminal event).
int integrate(esdirk_hybrid_solver* s, const char* who, double tout, double* x, esdirk_int nx,
              double* z, esdirk_int nz, esdirk::MatrixRef Sx, esdirk::MatrixRef Sz,
              double* t_reached) {
  return guarded(s, [&] {
    // With an adjoint the call goes through it, so that it records the output it returns.
    const esdirk::Outcome o =
        s->adjoint ? s->adjoint->integrate_to(tout, out(x, nx), out(z, nz), Sx, Sz)
                   : s->solver->integrate_to(tout, out(x, nx), out(z, nz), Sx, Sz);
    if (t_reached) *t_reached = s->solver->t();
    if (!esdirk::ok(o.status)) {
      s->initialized = false;  // the C++ solver refuses to continue until initialized again
      return s->from(o.status, std::string(who) + ": " + s->solver->message());
    }
    s->message.clear();
    return esdirk_capi::to_c_stop(o.reason);
  });
}

}  // namespace

extern "C" {

int esdirk_hybrid_problem_create(esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int ne,
                                 int memory, esdirk_hybrid_residual_fn residual, void* user_data,
                                 esdirk_hybrid_problem** problem) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  *problem = nullptr;
  if (!residual) return ESDIRK_NULL_ARGUMENT;
  if (nx < 1 || nz < 0 || np < 0 || ne < 0 || (memory != 0 && memory != 1))
    return ESDIRK_INVALID_ARGUMENT;
  try {
    auto handle = std::make_unique<esdirk_hybrid_problem>();
    handle->problem = std::make_unique<esdirk_capi::CHybridProblem>(nx, nz, np, ne, memory == 1,
                                                                    residual, user_data);
    handle->structure.hybrid = handle->problem.get();
    *problem = handle.release();
    return ESDIRK_SUCCESS;
  } catch (const std::invalid_argument&) {
    return ESDIRK_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

int esdirk_hybrid_problem_set_events(esdirk_hybrid_problem* problem, esdirk_event_fn events,
                                     esdirk_event_jacobian_fn event_jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->events_fn = events;
  problem->problem->event_jacobian_fn = event_jacobian;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_problem_set_transition(esdirk_hybrid_problem* problem,
                                         esdirk_transition_fn transition,
                                         esdirk_reset_jacobian_fn reset_jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->transition_fn = transition;
  problem->problem->reset_jacobian_fn = reset_jacobian;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_problem_set_parameter_reset(
    esdirk_hybrid_problem* problem, esdirk_int np, esdirk_parameter_reset_fn reset,
    esdirk_parameter_reset_jacobian_fn parameter_reset_jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  esdirk_capi::CHybridProblem& m = *problem->problem;
  // A reset of the wrong length would write past p+: refused here, where the sizes meet.
  if (reset && (np != m.np() || m.np() == 0)) return ESDIRK_INVALID_ARGUMENT;
  m.parameter_reset_fn = reset;
  m.parameter_reset_jacobian_fn = reset ? parameter_reset_jacobian : nullptr;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_problem_set_jacobians(esdirk_hybrid_problem* problem,
                                        esdirk_hybrid_jacobian_fn jacobian,
                                        esdirk_hybrid_jacobian_fn parameter_jacobian) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->jacobian_fn = jacobian;
  problem->problem->parameter_jacobian_fn = parameter_jacobian;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_problem_set_has_mode(esdirk_hybrid_problem* problem,
                                       esdirk_has_mode_fn has_mode) {
  if (!problem) return ESDIRK_NULL_ARGUMENT;
  problem->problem->has_mode_fn = has_mode;
  return ESDIRK_SUCCESS;
}

void esdirk_hybrid_problem_free(esdirk_hybrid_problem** problem) {
  if (!problem) return;
  delete *problem;
  *problem = nullptr;
}

int esdirk_hybrid_solver_create(esdirk_hybrid_problem* problem, esdirk_hybrid_solver** solver) {
  return esdirk_capi::create_handle(problem, solver);
}

void esdirk_hybrid_solver_free(esdirk_hybrid_solver** solver) { esdirk_capi::free_handle(solver); }

const char* esdirk_hybrid_solver_last_error(const esdirk_hybrid_solver* solver) {
  if (!solver) return "null hybrid solver handle";
  return solver->text();
}

// --- Options (validated by the C++ options at the next initialize) ---------------------------

int esdirk_hybrid_solver_set_tolerances(esdirk_hybrid_solver* s, double rtol, double atol) {
  return esdirk_capi::through_options(s, esdirk_options_set_tolerances, rtol, atol);
}

int esdirk_hybrid_solver_set_step_limits(esdirk_hybrid_solver* s, double initial_step,
                                         double min_step, double max_step, long max_steps) {
  return esdirk_capi::unchecked_through_options(s, esdirk_capi::setter::step_limits, initial_step, min_step,
                                                max_step, max_steps);
}

int esdirk_hybrid_solver_set_event_directions(esdirk_hybrid_solver* s, const int* directions,
                                              esdirk_int n) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!vector_ok(directions, n))
    return s->fail(ESDIRK_NULL_ARGUMENT, "set_event_directions: directions is NULL");
  if (n != s->model().event_count())
    return s->size_error("set_event_directions", "n", n, s->model().event_count());
  std::vector<esdirk::EventDirection> filters;
  for (esdirk_int k = 0; k < n; ++k) {
    switch (directions[k]) {
      case ESDIRK_EVENT_BOTH:
        filters.push_back(esdirk::EventDirection::both);
        break;
      case ESDIRK_EVENT_RISING:
        filters.push_back(esdirk::EventDirection::rising);
        break;
      case ESDIRK_EVENT_FALLING:
        filters.push_back(esdirk::EventDirection::falling);
        break;
      default:
        return s->fail(ESDIRK_INVALID_ARGUMENT, "set_event_directions: direction " +
                                                    std::to_string(k) + " is " +
                                                    std::to_string(directions[k]) +
                                                    " (ESDIRK_EVENT_BOTH, _RISING or _FALLING)");
    }
  }
  return guarded(s, [&] {
    s->options.directions = std::move(filters);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_hybrid_solver_set_terminal(esdirk_hybrid_solver* s, const int* terminal, esdirk_int n) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!vector_ok(terminal, n))
    return s->fail(ESDIRK_NULL_ARGUMENT, "set_terminal: terminal is NULL");
  if (n != s->model().event_count())
    return s->size_error("set_terminal", "n", n, s->model().event_count());
  return guarded(s, [&] {
    s->options.terminal.assign(static_cast<std::size_t>(n), false);
    for (esdirk_int k = 0; k < n; ++k)
      s->options.terminal[static_cast<std::size_t>(k)] = terminal[k] != 0;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_hybrid_solver_set_initial_events(esdirk_hybrid_solver* s, const int* initial,
                                            esdirk_int n) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  const char* who = "set_initial_events";
  if (!vector_ok(initial, n))
    return s->fail(ESDIRK_NULL_ARGUMENT, std::string(who) + ": initial is NULL");
  const int ne = s->model().event_count();
  if (n != 0 && ne == 0)
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   std::string(who) + ": the problem has no event functions (n = " +
                       std::to_string(n) + ")");
  if (n != 0 && n != ne) return s->size_error(who, "n", n, ne);
  return guarded(s, [&] {
    s->options.initial_events.assign(static_cast<std::size_t>(n), false);
    for (esdirk_int k = 0; k < n; ++k)
      s->options.initial_events[static_cast<std::size_t>(k)] = initial[k] != 0;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_hybrid_solver_set_time_events(esdirk_hybrid_solver* s, const double* times,
                                         esdirk_int n) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!vector_ok(times, n)) return s->fail(ESDIRK_NULL_ARGUMENT, "set_time_events: times is NULL");
  if (n < 0) return s->fail(ESDIRK_INVALID_ARGUMENT, "set_time_events: n is negative");
  return guarded(s, [&] {
    s->options.time_events.assign(times, times + n);
    return ESDIRK_SUCCESS;
  });
}

int esdirk_hybrid_solver_set_event_location(esdirk_hybrid_solver* s, double location_tolerance,
                                            int max_location_iterations, int detection_samples) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.location_tolerance = location_tolerance;
  s->options.max_location_iterations = max_location_iterations;
  s->options.detection_samples = detection_samples;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_set_event_limits(esdirk_hybrid_solver* s, int max_events_per_step,
                                          double max_events_per_unit_time, int event_window,
                                          double grazing_tolerance, int event_log_capacity) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.max_events_per_step = max_events_per_step;
  s->options.max_events_per_unit_time = max_events_per_unit_time;
  s->options.event_window = event_window;
  s->options.grazing_tolerance = grazing_tolerance;
  s->options.event_log_capacity = event_log_capacity;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_set_zeno(esdirk_hybrid_solver* s, int zeno_intervals, double zeno_time_tolerance) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (zeno_intervals < 3 || zeno_intervals > esdirk::HybridOptions::max_event_window)
    return s->fail(ESDIRK_INVALID_ARGUMENT, "hybrid set_zeno: zeno_intervals = " + std::to_string(zeno_intervals) +
                                                " must be in [3, " +
                                                std::to_string(esdirk::HybridOptions::max_event_window) + "]");
  if (!std::isfinite(zeno_time_tolerance) || zeno_time_tolerance < 0.0)
    return s->fail(ESDIRK_INVALID_ARGUMENT, "hybrid set_zeno: zeno_time_tolerance = " +
                                                esdirk::internal::format_number(zeno_time_tolerance) +
                                                " must be finite and >= 0");
  s->options.zeno_intervals = zeno_intervals;
  s->options.zeno_time_tolerance = zeno_time_tolerance;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_set_sensitivity_jumps(esdirk_hybrid_solver* s, int jumps,
                                               int event_time_sensitivity) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  s->options.sensitivity_jumps = jumps != 0;
  s->options.event_time_sensitivity = event_time_sensitivity != 0;
  return ESDIRK_SUCCESS;
}

// --- Running ---------------------------------------------------------------------------------

int esdirk_hybrid_solver_initialize(esdirk_hybrid_solver* s, double t0, int mode, const double* x0,
                                    esdirk_int nx, const double* z0_guess, esdirk_int nz,
                                    const double* p, esdirk_int np, const double* mem0,
                                    esdirk_int nm) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x0 || !vector_ok(z0_guess, nz) || !vector_ok(p, np) || !vector_ok(mem0, nm))
    return s->fail(ESDIRK_NULL_ARGUMENT, "hybrid initialize: x0, z0, p or mem0 is NULL");
  const esdirk_capi::CHybridProblem& m = s->model();
  if (nx != m.nx() || nz != m.nz() || np != m.np() || nm != m.memory_size())
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   "hybrid initialize: sizes (" + std::to_string(nx) + ", " + std::to_string(nz) +
                       ", " + std::to_string(np) + ", " + std::to_string(nm) +
                       ") do not match the problem's (nx, nz, np, nm) = (" +
                       std::to_string(m.nx()) + ", " + std::to_string(m.nz()) + ", " +
                       std::to_string(m.np()) + ", " + std::to_string(m.memory_size()) + ")");
  if (m.event_count() > 0 && !m.events_fn)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   "hybrid initialize: the problem has " + std::to_string(m.event_count()) +
                       " event functions: set them first (esdirk_hybrid_problem_set_events)");
  return guarded(s, [&] {
    // A new solver with the options of this moment (invalid ones throw std::invalid_argument);
    // it replaces the old one only if it starts, so a rejected call loses nothing.
    auto fresh = std::make_unique<esdirk::HybridSolver>(*s->problem->problem, s->options);
    // The adjoint listens from the initialization on (it is destroyed before its solver).
    std::unique_ptr<esdirk::HybridAdjoint> adjoint;
    if (s->record_adjoint) adjoint = std::make_unique<esdirk::HybridAdjoint>(*fresh, s->adjoint_options);
    const esdirk::Status status =
        fresh->initialize(t0, mode, in(x0, nx), in(z0_guess, nz), in(p, np), in(mem0, nm));
    if (!esdirk::ok(status)) return s->from(status, "hybrid initialize: " + fresh->message());
    s->adjoint.reset();
    s->solver = std::move(fresh);
    s->adjoint = std::move(adjoint);
    s->initialized = true;
    s->sensitivities = false;
    return s->from(status, "");
  });
}

int esdirk_hybrid_solver_start_sensitivities(esdirk_hybrid_solver* s, const double* seed,
                                             esdirk_int rows, esdirk_int ns, esdirk_int ld) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (const int st = s->require_initialized("hybrid start_sensitivities")) return st;
  const int expected = s->model().nx() + s->model().np();
  if (rows != expected || ns < 1 || (seed && ld < rows) || (!seed && ns != expected))
    return s->fail(
        ESDIRK_INVALID_ARGUMENT,
        "hybrid start_sensitivities: the seed must be (nx + np) x ns = " +
            std::to_string(expected) +
            " x ns with ns >= 1 and ld >= nx + np (ns = nx + np for the identity seed); got " +
            std::to_string(rows) + " x " + std::to_string(ns) + ", ld " + std::to_string(ld));
  return guarded(s, [&] {
    std::vector<double> identity;
    if (!seed) {
      identity.assign(static_cast<std::size_t>(expected) * static_cast<std::size_t>(expected), 0.0);
      for (int i = 0; i < expected; ++i)
        identity[static_cast<std::size_t>(i) * (static_cast<std::size_t>(expected) + 1)] = 1.0;
    }
    const esdirk::ConstMatrixRef S =
        seed ? esdirk::ConstMatrixRef(seed, rows, ns, ld)
             : esdirk::ConstMatrixRef(identity.data(), expected, expected, expected);
    const esdirk::Status status = s->solver->initialize_sensitivities(S);
    s->sensitivities = esdirk::ok(status);
    return s->from(status, "hybrid start_sensitivities: " + s->solver->message());
  });
}

int esdirk_hybrid_solver_integrate_to(esdirk_hybrid_solver* s, double tout, double* x,
                                      esdirk_int nx, double* z, esdirk_int nz, double* t_reached) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x || !vector_ok(z, nz))
    return s->fail(ESDIRK_NULL_ARGUMENT, "hybrid integrate_to: x or z is NULL");
  if (nx != s->model().nx()) return s->size_error("hybrid integrate_to", "nx", nx, s->model().nx());
  if (nz != s->model().nz()) return s->size_error("hybrid integrate_to", "nz", nz, s->model().nz());
  if (const int st = s->require_initialized("hybrid integrate_to")) return st;
  return integrate(s, "hybrid integrate_to", tout, x, nx, z, nz, {}, {}, t_reached);
}

int esdirk_hybrid_solver_integrate_sensitivities_to(esdirk_hybrid_solver* s, double tout, double* x,
                                                    esdirk_int nx, double* z, esdirk_int nz,
                                                    double* Sx, esdirk_int ldsx, double* Sz,
                                                    esdirk_int ldsz, esdirk_int ns,
                                                    double* t_reached) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!x || !vector_ok(z, nz) || !Sx)
    return s->fail(ESDIRK_NULL_ARGUMENT, "hybrid integrate_sensitivities_to: x, z or Sx is NULL");
  if (nx != s->model().nx())
    return s->size_error("hybrid integrate_sensitivities_to", "nx", nx, s->model().nx());
  if (nz != s->model().nz())
    return s->size_error("hybrid integrate_sensitivities_to", "nz", nz, s->model().nz());
  if (const int st = s->require_initialized("hybrid integrate_sensitivities_to")) return st;
  if (!s->sensitivities)
    return s->fail(
        ESDIRK_WRONG_CALL_ORDER,
        "hybrid integrate_sensitivities_to: call esdirk_hybrid_solver_start_sensitivities first");
  if (ns != s->solver->directions() || ldsx < std::max(nx, 1) || (Sz && nz > 0 && ldsz < nz))
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   "hybrid integrate_sensitivities_to: ns must be the seed's " +
                       std::to_string(s->solver->directions()) +
                       " columns and the leading dimensions >= nx, nz");
  const esdirk::MatrixRef sx{Sx, nx, ns, ldsx};
  const esdirk::MatrixRef sz =
      Sz && nz > 0 ? esdirk::MatrixRef{Sz, nz, ns, ldsz} : esdirk::MatrixRef{};
  return integrate(s, "hybrid integrate_sensitivities_to", tout, x, nx, z, nz, sx, sz, t_reached);
}

// --- Reading the state and the log -------------------------------------------------------------

int esdirk_hybrid_solver_get_state(const esdirk_hybrid_solver* cs, double* t, int* mode, double* x,
                                   esdirk_int nx, double* z, esdirk_int nz) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);  // only the message changes
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->solver) return s->require_initialized("hybrid get_state");
  if (x && nx != s->model().nx())
    return s->size_error("hybrid get_state", "nx", nx, s->model().nx());
  if (z && nz != s->model().nz())
    return s->size_error("hybrid get_state", "nz", nz, s->model().nz());
  if (t) *t = s->solver->t();
  if (mode) *mode = s->solver->mode();
  if (x) std::copy(s->solver->x().begin(), s->solver->x().end(), x);
  if (z) std::copy(s->solver->z().begin(), s->solver->z().end(), z);
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_get_parameters(const esdirk_hybrid_solver* cs, double* p, esdirk_int np,
                                        double* Sp, esdirk_int ld, esdirk_int ns) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->solver) return s->require_initialized("hybrid get_parameters");
  const int n = s->model().np();
  if (np != n) return s->size_error("hybrid get_parameters", "np", np, n);
  if (p) std::copy(s->solver->parameters().begin(), s->solver->parameters().end(), p);
  if (Sp && ns == 0) Sp = nullptr;  // not asked for (a Fortran caller cannot pass NULL)
  if (Sp) {
    if (!s->sensitivities)
      return s->fail(ESDIRK_WRONG_CALL_ORDER, "hybrid get_parameters: no sensitivities were started");
    if (ns != s->solver->directions() || ld < std::max(n, 1))
      return s->fail(ESDIRK_INVALID_ARGUMENT, "hybrid get_parameters: ns must be " +
                                                  std::to_string(s->solver->directions()) +
                                                  " and ld >= np");
    const esdirk::ConstMatrixRef S = s->solver->parameter_sensitivity();
    for (int j = 0; j < ns; ++j)
      for (int i = 0; i < n; ++i)
        Sp[static_cast<std::size_t>(j) * static_cast<std::size_t>(ld) +
           static_cast<std::size_t>(i)] = S(i, j);
  }
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_get_memory(const esdirk_hybrid_solver* cs, double* mem, esdirk_int nm,
                                    double* Smem, esdirk_int ld, esdirk_int ns) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->solver) return s->require_initialized("hybrid get_memory");
  const int m = s->model().memory_size();
  if (nm != m) return s->size_error("hybrid get_memory", "nm", nm, m);
  if (mem) std::copy(s->solver->memory().begin(), s->solver->memory().end(), mem);
  if (Smem) {
    if (!s->sensitivities)
      return s->fail(ESDIRK_WRONG_CALL_ORDER, "hybrid get_memory: no sensitivities were started");
    if (ns != s->solver->directions() || ld < std::max(m, 1))
      return s->fail(ESDIRK_INVALID_ARGUMENT, "hybrid get_memory: ns must be " +
                                                  std::to_string(s->solver->directions()) +
                                                  " and ld >= nm");
    const esdirk::ConstMatrixRef S = s->solver->memory_sensitivity();
    for (int j = 0; j < ns; ++j)
      for (int i = 0; i < m; ++i)
        Smem[static_cast<std::size_t>(j) * static_cast<std::size_t>(ld) +
             static_cast<std::size_t>(i)] = S(i, j);
  }
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_get_event_count(const esdirk_hybrid_solver* cs, int64_t* located,
                                         esdirk_int* logged) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->solver) return s->require_initialized("hybrid get_event_count");
  if (located) *located = s->solver->event_count();
  if (logged) *logged = s->solver->logged_events();
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_get_event(const esdirk_hybrid_solver* cs, esdirk_int index,
                                   esdirk_event* event) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!event) return s->fail(ESDIRK_NULL_ARGUMENT, "hybrid get_event: event is NULL");
  if (!s->solver) return s->require_initialized("hybrid get_event");
  if (const int st = s->require_event(index, "hybrid get_event")) return st;
  // The first version ended with `iterations`: a struct_size below it is not one of ours, one
  // above this library's struct is garbage (or a newer header): nothing is written for either.
  // Later fields are written only where the caller's struct_size covers them.
  if (event->struct_size < offsetof(esdirk_event, initial) || event->struct_size > sizeof(esdirk_event))
    return s->fail(ESDIRK_INVALID_ARGUMENT,
                   "hybrid get_event: event->struct_size = " + std::to_string(event->struct_size) +
                       " is not the size of an esdirk_event: set it to sizeof(esdirk_event) "
                       "(or start from ESDIRK_EVENT_INIT)");
  const esdirk::EventRecord& r = s->solver->event(index);
  event->t = r.t;
  event->bracket = r.bracket;
  event->dh_dt = r.dh_dt;
  event->mode_before = r.mode_before;
  event->mode_after = r.mode_after;
  event->time_event = r.time_event;
  event->primary = r.primary;
  event->iterations = r.iterations;
  if (event->struct_size >= offsetof(esdirk_event, initial) + sizeof(int)) event->initial = r.initial ? 1 : 0;
  if (event->struct_size >= offsetof(esdirk_event, cascade) + sizeof(int)) event->cascade = r.cascade;
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_get_event_parameters(const esdirk_hybrid_solver* cs, esdirk_int index, double* p_minus,
                                              double* p_plus, esdirk_int np) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  const char* who = "hybrid get_event_parameters";
  if (!s->solver) return s->require_initialized(who);
  if (const int st = s->require_event(index, who)) return st;
  if ((p_minus || p_plus) && np != s->model().np()) return s->size_error(who, "np", np, s->model().np());
  const esdirk::EventRecord& r = s->solver->event(static_cast<int>(index));
  if (p_minus) std::copy(r.p_minus.begin(), r.p_minus.end(), p_minus);
  if (p_plus) std::copy(r.p_plus.begin(), r.p_plus.end(), p_plus);
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_get_event_vectors(const esdirk_hybrid_solver* cs, esdirk_int index,
                                           int* fired, esdirk_int ne, double* tau, esdirk_int ns,
                                           double* x_minus, double* x_plus, esdirk_int nx,
                                           double* z_minus, double* z_plus, esdirk_int nz) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->solver) return s->require_initialized("hybrid get_event_vectors");
  if (const int st = s->require_event(index, "hybrid get_event_vectors")) return st;
  const char* who = "hybrid get_event_vectors";
  if (fired && ne != s->model().event_count())
    return s->size_error(who, "ne", ne, s->model().event_count());
  if ((x_minus || x_plus) && nx != s->model().nx())
    return s->size_error(who, "nx", nx, s->model().nx());
  if ((z_minus || z_plus) && nz != s->model().nz())
    return s->size_error(who, "nz", nz, s->model().nz());
  if (tau && ns == 0) tau = nullptr;  // not asked for (a Fortran caller cannot pass NULL)
  if (tau && (!s->sensitivities || ns != s->solver->directions()))
    return s->fail(s->sensitivities ? ESDIRK_INVALID_ARGUMENT : ESDIRK_WRONG_CALL_ORDER,
                   std::string(who) + ": tau needs sensitivities and ns = their directions");
  const esdirk::EventRecord& r = s->solver->event(index);
  if (fired) std::copy(r.fired.begin(), r.fired.end(), fired);
  if (tau) std::copy(r.tau.begin(), r.tau.end(), tau);
  if (x_minus) std::copy(r.x_minus.begin(), r.x_minus.end(), x_minus);
  if (x_plus) std::copy(r.x_plus.begin(), r.x_plus.end(), x_plus);
  if (z_minus) std::copy(r.z_minus.begin(), r.z_minus.end(), z_minus);
  if (z_plus) std::copy(r.z_plus.begin(), r.z_plus.end(), z_plus);
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_get_event_sensitivities(const esdirk_hybrid_solver* cs, esdirk_int index,
                                                 double* sx_minus, double* sx_plus, esdirk_int ld,
                                                 esdirk_int ns) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->solver) return s->require_initialized("hybrid get_event_sensitivities");
  if (const int st = s->require_event(index, "hybrid get_event_sensitivities")) return st;
  if (!s->sensitivities)
    return s->fail(ESDIRK_WRONG_CALL_ORDER,
                   "hybrid get_event_sensitivities: no sensitivities were started");
  const int nx = s->model().nx();
  if (ns != s->solver->directions() || ld < nx)
    return s->fail(ESDIRK_INVALID_ARGUMENT, "hybrid get_event_sensitivities: ns must be " +
                                                std::to_string(s->solver->directions()) +
                                                " and ld >= nx");
  const esdirk::EventRecord& r = s->solver->event(index);
  for (int j = 0; j < ns; ++j)
    for (int i = 0; i < nx; ++i) {
      const std::size_t at =
          static_cast<std::size_t>(j) * static_cast<std::size_t>(ld) + static_cast<std::size_t>(i);
      if (sx_minus) sx_minus[at] = r.sx_minus(i, j);
      if (sx_plus) sx_plus[at] = r.sx_plus(i, j);
    }
  return ESDIRK_SUCCESS;
}

int esdirk_hybrid_solver_get_statistics(const esdirk_hybrid_solver* cs,
                                        esdirk_statistics* statistics) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!statistics)
    return s->fail(ESDIRK_NULL_ARGUMENT, "hybrid get_statistics: statistics is NULL");
  if (!s->solver) return s->require_initialized("hybrid get_statistics");
  return esdirk_capi::fill_statistics(s->solver->statistics(), statistics, *s);
}

int esdirk_hybrid_solver_get_counter(const esdirk_hybrid_solver* cs, const char* name,
                                     int64_t* value) {
  auto* s = const_cast<esdirk_hybrid_solver*>(cs);
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!s->solver) return s->require_initialized("hybrid get_counter");
  return esdirk_capi::get_counter(s->solver->statistics(), name, value, *s);
}

}  // extern "C"
