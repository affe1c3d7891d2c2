// SBML's event execution at one instant (doc/sbml.md, "Events"), as the transition of the
// hybrid problem. The transition is a function of its arguments only: everything SBML's
// semantics remember lives in extra parameters that the parameter reset writes (so
// sensitivities flow through them):
//
//  * a latch per event: its trigger's value as of the last transition. The event functions
//    report both crossings, so a falling trigger re-arms its latch; a rising one with the latch
//    off fires, with the latch on (a crossing the solver reports again as a cascade of the
//    transition that already handled it) it does nothing;
//  * per delayed event, slots of pending executions: the execution time (its timer t - T is an
//    event function) and, with useValuesFromTriggerTime, the values taken at trigger time.
//
// The executions due now (fired triggers without delay, timers that reached zero) run one at a
// time, highest priority first (document order on ties); after each, every trigger is looked at
// again: one that went from false to true fires (it joins the executions due now, or is
// scheduled), one that went false drops its non-persistent executions. transition() and
// reset_parameters() run the same execution and return its x and p.
//
// The execution is a template over the scalar. Over double it gives x+ and p+; over
// ad::Dual<8>, with directions on the arguments, the same execution gives their exact
// derivatives (the reset Jacobians, and the chain through the events at t0). Every discrete
// choice (which triggers hold, delays, free slots, priorities and their tie-break) reads values
// only, so both scalars take the same branches.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "sbml_problem.hpp"

namespace esdirk::sbml::detail {

namespace {
constexpr int max_executions_per_instant = 10000;

// Reservoir choice among `ties` equal candidates: 0 with probability 1 / ties, from a hash
// (splitmix64) of the time's bits and the execution's position at that instant.
std::uint64_t tie_break(double t, int execution, std::size_t ties) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &t, sizeof bits);
  std::uint64_t z = bits ^ (static_cast<std::uint64_t>(execution) * 0x9E3779B97F4A7C15ull) ^ (ties << 32);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return z % ties;
}

double value_of(double v) { return v; }
double value_of(const ad::Dual<8>& v) { return v.v; }
}  // namespace

template <class T>
void SbmlProblem::size_execution(Execution<T>& w) const {
  w.slots.assign(static_cast<std::size_t>(model_.slot_count), T(0.0));
  for (const auto& [slot, value] : model_.constants) w.slots[static_cast<std::size_t>(slot)] = T(value);
  w.x.assign(static_cast<std::size_t>(model_.nx), T(0.0));
  w.z.assign(static_cast<std::size_t>(model_.nz), T(0.0));
  w.p.assign(static_cast<std::size_t>(model_.np), T(0.0));
  // Executions due at one instant: every event several times over (a cascade can fire an
  // event again after its trigger fell and rose), the pending slots once each.
  const std::size_t n = 16 * model_.events.size() + static_cast<std::size_t>(model_.ne);
  const std::size_t stride = static_cast<std::size_t>(std::max(1, model_.max_assignments));
  w.queue.reserve(n);
  w.entry_values.assign(n * stride, T(0.0));
  w.values.assign(stride, T(0.0));
  w.old_size.assign(stride, T(0.0));
  w.h_start.assign(model_.events.size(), 0.0);
  w.truth_start.assign(model_.events.size(), 0);
}
template void SbmlProblem::size_execution(Execution<double>&) const;
template void SbmlProblem::size_execution(Execution<ad::Dual<8>>&) const;

template <class T>
T SbmlProblem::run_scalar(Execution<T>& w, const Program& program, int slot) const {
  run(program, w.slots.data());
  return w.slots[static_cast<std::size_t>(slot)];
}

template <class T>
void SbmlProblem::reload(Execution<T>& w) const {
  T* s = w.slots.data();
  s[0] = w.t;
  std::copy(w.x.begin(), w.x.end(), s + model_.x_offset);
  std::copy(w.z.begin(), w.z.end(), s + model_.z_offset);
  std::copy(w.p.begin(), w.p.end(), s + model_.p_offset);
  run(model_.dynamics, s);
}

template <class T>
T& SbmlProblem::latch(Execution<T>& w, const EventCode& e) const {
  return w.p[static_cast<std::size_t>(e.latch_parameter)];
}

// The trigger's value on the current state. A trigger whose event function the executions so
// far left exactly as it was keeps the value it had at the start of the transition (read at the
// located left limit, a trigger that just fired may evaluate false by rounding).
template <class T>
bool SbmlProblem::trigger_value(Execution<T>& w, std::size_t e) const {
  const EventCode& code = model_.events[e];
  const double h = value_of(w.slots[static_cast<std::size_t>(model_.h_slots[static_cast<std::size_t>(code.component)])]);
  if (h == w.h_start[e]) return w.truth_start[e] != 0;
  return value_of(run_scalar(w, code.trigger, code.trigger_slot)) != 0.0;
}

template <class T>
int SbmlProblem::fire(Execution<T>& w, std::size_t ei) const {
  const EventCode& e = model_.events[ei];
  const std::size_t stride = static_cast<std::size_t>(std::max(1, model_.max_assignments));
  auto take_values = [&](T* out) {
    run(e.values, w.slots.data());
    for (std::size_t k = 0; k < e.value_slots.size(); ++k) out[k] = w.slots[static_cast<std::size_t>(e.value_slots[k])];
  };
  T delay = T(0.0);
  if (e.has_delay) {
    delay = run_scalar(w, e.delay, e.delay_slot);
    if (!(value_of(delay) >= 0.0)) return -1;  // a negative or undefined delay
  }
  if (value_of(delay) > 0.0) {
    const int stride_p = e.pending_stride();
    int free = -1;
    for (int s = 0; s < e.pending_slots && free < 0; ++s)
      if (value_of(w.p[static_cast<std::size_t>(e.first_pending_parameter + s * stride_p)]) >= inactive_time) free = s;
    if (free < 0) return -1;  // more pending executions than slots
    T* slot = &w.p[static_cast<std::size_t>(e.first_pending_parameter + free * stride_p)];
    slot[0] = w.t + delay;
    if (e.use_trigger_time_values) take_values(slot + 1);
    return 0;
  }
  if (w.queue.size() == w.queue.capacity()) return -1;
  Entry entry{static_cast<int>(ei), -1, -1};
  if (e.use_trigger_time_values) {
    // a free block of values: the queue's own index may be reused, take the next unused one
    entry.values_at = static_cast<int>((w.values_used % (w.entry_values.size() / stride)) * stride);
    ++w.values_used;
    take_values(&w.entry_values[static_cast<std::size_t>(entry.values_at)]);
  }
  w.queue.push_back(entry);
  return 0;
}

template <class T>
void SbmlProblem::drop_non_persistent(Execution<T>& w, std::size_t ei) const {
  const EventCode& e = model_.events[ei];
  if (e.persistent) return;
  for (int s = 0; s < e.pending_slots; ++s)
    w.p[static_cast<std::size_t>(e.first_pending_parameter + s * e.pending_stride())] = T(inactive_time);
  for (std::size_t q = 0; q < w.queue.size();) {
    if (w.queue[q].event == static_cast<int>(ei)) w.queue.erase(w.queue.begin() + static_cast<std::ptrdiff_t>(q));
    else ++q;
  }
}

// Every trigger against its latch: false -> true fires, true -> false re-arms (and drops
// the event's non-persistent executions).
template <class T>
int SbmlProblem::scan_triggers(Execution<T>& w) const {
  // The event functions once per scan: firing (delays, values) writes only temporaries and
  // pending times, never what a trigger reads.
  run(model_.event_functions, w.slots.data());
  for (std::size_t e = 0; e < model_.events.size(); ++e) {
    const bool now = trigger_value(w, e);
    T& l = latch(w, model_.events[e]);
    if (now && value_of(l) == 0.0) {
      l = T(1.0);
      const int status = fire(w, e);
      if (status != 0) return status;
    } else if (!now && value_of(l) != 0.0) {
      l = T(0.0);
      drop_non_persistent(w, e);
    }
  }
  return 0;
}

// The execution on w's arguments (w.t, w.x, w.z, w.p; t is w.t's value), which it updates.
template <class T>
int SbmlProblem::execute(Execution<T>& w, const TransitionCause* cause, double t) const {
  reload(w);
  run(model_.event_functions, w.slots.data());
  w.queue.clear();
  w.values_used = 0;
  const std::size_t n = model_.events.size();
  for (std::size_t e = 0; e < n; ++e) {
    const EventCode& code = model_.events[e];
    w.h_start[e] = value_of(w.slots[static_cast<std::size_t>(model_.h_slots[static_cast<std::size_t>(code.component)])]);
    // At t0 (no cause) the triggers are read; at a transition the crossing says it.
    if (cause == nullptr) {
      w.truth_start[e] = value_of(run_scalar(w, code.trigger, code.trigger_slot)) != 0.0;
      run(model_.event_functions, w.slots.data());
    } else {
      const int fired = cause->time_event >= 0 ? 0 : cause->fired[static_cast<std::size_t>(code.component)];
      w.truth_start[e] = fired > 0 ? 1 : fired < 0 ? 0 : (value_of(latch(w, code)) != 0.0);
    }
  }
  // Timers of pending executions that reached zero: due now.
  if (cause != nullptr && cause->time_event < 0)
    for (std::size_t e = 0; e < n; ++e) {
      const EventCode& code = model_.events[e];
      for (int s = 0; s < code.pending_slots; ++s)
        if (cause->fired[static_cast<std::size_t>(code.first_pending_component + s)] != 0 &&
            value_of(w.p[static_cast<std::size_t>(code.first_pending_parameter + s * code.pending_stride())]) < inactive_time) {
          if (w.queue.size() == w.queue.capacity()) return -1;
          w.queue.push_back(Entry{static_cast<int>(e), s, -1});
        }
    }
  int status = scan_triggers(w);
  if (status != 0) return status;
  for (int executions = 0; !w.queue.empty(); ++executions) {
    if (executions == max_executions_per_instant) return -1;
    std::size_t best = 0, ties = 1;
    double best_priority = -std::numeric_limits<double>::infinity();
    for (std::size_t q = 0; q < w.queue.size(); ++q) {
      const EventCode& e = model_.events[static_cast<std::size_t>(w.queue[q].event)];
      const double priority = e.has_priority ? value_of(run_scalar(w, e.priority, e.priority_slot))
                                             : -std::numeric_limits<double>::infinity();
      if (q == 0 || priority > best_priority) {
        best = q;
        best_priority = priority;
        ties = 1;
      } else if (priority == best_priority && e.has_priority) {
        // Equal priorities: SBML leaves the order to chance. The choice is pseudo-random but
        // a function of the instant and the position in it, so that the transition stays a
        // function of its arguments (reproducible runs, differentiable by differences).
        ++ties;
        if (tie_break(t, executions, ties) == 0) best = q;
      }
    }
    const Entry entry = w.queue[best];
    w.queue.erase(w.queue.begin() + static_cast<std::ptrdiff_t>(best));
    const EventCode& e = model_.events[static_cast<std::size_t>(entry.event)];
    const std::size_t na = e.targets.size();
    if (entry.slot >= 0) {
      T* slot = &w.p[static_cast<std::size_t>(e.first_pending_parameter + entry.slot * e.pending_stride())];
      slot[0] = T(inactive_time);
      if (e.use_trigger_time_values) std::copy(slot + 1, slot + 1 + na, w.values.begin());
    } else if (entry.values_at >= 0) {
      std::copy_n(w.entry_values.begin() + entry.values_at, na, w.values.begin());
    }
    if (!e.use_trigger_time_values) {
      run(e.values, w.slots.data());
      for (std::size_t k = 0; k < na; ++k) w.values[k] = w.slots[static_cast<std::size_t>(e.value_slots[k])];
    }
    // A concentration assigned to a species kept as an amount: amount = value * size, the
    // size before this execution (its assignments are computed on the state before it). A
    // compartment that changes size keeps its species' amounts.
    bool rescale = false;
    for (std::size_t k = 0; k < na; ++k) {
      const AssignmentTarget& target = e.targets[k];
      if (target.compartment_slot >= 0) w.values[k] = w.values[k] * w.slots[static_cast<std::size_t>(target.compartment_slot)];
      if (!target.rescaled.empty()) {
        w.old_size[k] = w.slots[static_cast<std::size_t>(target.size_slot)];
        rescale = true;
      }
    }
    for (std::size_t k = 0; k < na; ++k) {
      const AssignmentTarget& target = e.targets[k];
      (target.to_state ? w.x : w.p)[static_cast<std::size_t>(target.index)] = w.values[k];
    }
    reload(w);
    if (rescale) {
      for (std::size_t k = 0; k < na; ++k) {
        const AssignmentTarget& target = e.targets[k];
        if (target.rescaled.empty()) continue;
        const T ratio = w.old_size[k] / w.slots[static_cast<std::size_t>(target.size_slot)];
        for (int i : target.rescaled) w.x[static_cast<std::size_t>(i)] = w.x[static_cast<std::size_t>(i)] * ratio;
      }
      reload(w);
    }
    status = scan_triggers(w);
    if (status != 0) return status;
  }
  return 0;
}

int SbmlProblem::execute_events(const TransitionCause* cause, double t, ConstVector x, ConstVector z, ConstVector p) {
  exec_.t = t;
  std::copy(x.begin(), x.end(), exec_.x.begin());
  std::copy(z.begin(), z.end(), exec_.z.begin());
  std::copy(p.begin(), p.end(), exec_.p.begin());
  return execute(exec_, cause, t);
}

// The solver asks for the transition and the parameter reset of one event with the same
// arguments, one after the other (and for their Jacobians): the execution is a function of
// them, so a second call takes the first one's result (compared bit for bit) instead of
// executing the events again.
bool SbmlProblem::ExecutionKey::matches(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                        ConstVector p) const {
  auto same_bits = [](const double* a, const double* b, std::size_t n) { return n == 0 || std::memcmp(a, b, n * sizeof(double)) == 0; };
  return valid && time_event == cause.time_event && std::equal(cause.fired.begin(), cause.fired.end(), fired.begin()) &&
         same_bits(&t, &inputs[0], 1) && same_bits(x.data(), &inputs[1], x.size()) &&
         same_bits(z.data(), &inputs[1 + x.size()], z.size()) &&
         same_bits(p.data(), &inputs[1 + x.size() + z.size()], p.size());
}

void SbmlProblem::ExecutionKey::store(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p) {
  time_event = cause.time_event;
  std::copy(cause.fired.begin(), cause.fired.end(), fired.begin());
  inputs[0] = t;
  std::copy(x.begin(), x.end(), inputs.begin() + 1);
  std::copy(z.begin(), z.end(), inputs.begin() + 1 + static_cast<std::ptrdiff_t>(x.size()));
  std::copy(p.begin(), p.end(), inputs.begin() + 1 + static_cast<std::ptrdiff_t>(x.size() + z.size()));
  valid = true;
}

int SbmlProblem::execute_once(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p) {
  if (executed_.matches(cause, t, x, z, p)) return 0;
  executed_.valid = false;
  const int status = execute_events(&cause, t, x, z, p);
  if (status != 0) return status;
  executed_.store(cause, t, x, z, p);
  return 0;
}

// Both reset Jacobians from one set of sweeps: the execution over duals with unit directions
// on the inputs (t, x, z, p in this order), 8 per sweep.
int SbmlProblem::reset_jacobians_once(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                      ConstVector p) {
  if (differentiated_.matches(cause, t, x, z, p)) return 0;
  differentiated_.valid = false;
  Execution<Dual>& w = exec_dual_;
  const int nxi = nx(), nzi = nz(), npi = np();
  const int n = 1 + nxi + nzi + npi;
  auto input = [&](int i) -> Dual& {
    if (i == 0) return w.t;
    if (i <= nxi) return w.x[static_cast<std::size_t>(i - 1)];
    if (i <= nxi + nzi) return w.z[static_cast<std::size_t>(i - 1 - nxi)];
    return w.p[static_cast<std::size_t>(i - 1 - nxi - nzi)];
  };
  for (int first = 0; first < n; first += 8) {
    const int count = std::min(8, n - first);
    w.t = Dual(t);
    for (int i = 0; i < nxi; ++i) w.x[static_cast<std::size_t>(i)] = Dual(x[static_cast<std::size_t>(i)]);
    for (int i = 0; i < nzi; ++i) w.z[static_cast<std::size_t>(i)] = Dual(z[static_cast<std::size_t>(i)]);
    for (int i = 0; i < npi; ++i) w.p[static_cast<std::size_t>(i)] = Dual(p[static_cast<std::size_t>(i)]);
    for (int k = 0; k < count; ++k) input(first + k).d[static_cast<std::size_t>(k)] = 1.0;
    const int status = execute(w, &cause, t);
    if (status != 0) return status;
    for (int k = 0; k < count; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      const auto column = static_cast<std::size_t>(first + k);
      for (int i = 0; i < nxi; ++i)
        reset_dx_[column * static_cast<std::size_t>(nxi) + static_cast<std::size_t>(i)] = w.x[static_cast<std::size_t>(i)].d[kk];
      for (int i = 0; i < npi; ++i)
        reset_dp_[column * static_cast<std::size_t>(npi) + static_cast<std::size_t>(i)] = w.p[static_cast<std::size_t>(i)].d[kk];
    }
  }
  differentiated_.store(cause, t, x, z, p);
  return 0;
}

int SbmlProblem::transition(int, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                            ConstVector p, ConstVector, int&, Vector x_plus) {
  const int status = execute_once(cause, t, x, z, p);
  if (status != 0) return status;
  std::copy(exec_.x.begin(), exec_.x.end(), x_plus.begin());
  return 0;
}

int SbmlProblem::reset_parameters(int, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                  ConstVector p, ConstVector, Vector p_plus) {
  const int status = execute_once(cause, t, x, z, p);
  if (status != 0) return status;
  std::copy(exec_.p.begin(), exec_.p.end(), p_plus.begin());
  return 0;
}

int SbmlProblem::reset_jacobian(int, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                ConstVector p, ConstVector, MatrixRef D) {
  const int status = reset_jacobians_once(cause, t, x, z, p);
  if (status != 0) return status;
  const int n = 1 + nx() + nz() + np();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < nx(); ++i) D(i, j) = reset_dx_[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx()) + static_cast<std::size_t>(i)];
  return 0;
}

int SbmlProblem::parameter_reset_jacobian(int, const TransitionCause& cause, double t, ConstVector x,
                                          ConstVector z, ConstVector p, ConstVector, MatrixRef E) {
  const int status = reset_jacobians_once(cause, t, x, z, p);
  if (status != 0) return status;
  const int n = 1 + nx() + nz() + np();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < np(); ++i) E(i, j) = reset_dp_[static_cast<std::size_t>(j) * static_cast<std::size_t>(np()) + static_cast<std::size_t>(i)];
  return 0;
}

int SbmlProblem::fire_initial_events(double t0, std::vector<double>& x0, const std::vector<double>& z0,
                                     std::vector<double>& p0) {
  if (model_.events.empty()) return 0;
  executed_.valid = false;
  const int status = execute_events(nullptr, t0, x0, z0, p0);
  if (status != 0) return status;
  std::copy(exec_.x.begin(), exec_.x.end(), x0.begin());
  std::copy(exec_.p.begin(), exec_.p.end(), p0.begin());
  return 0;
}

int SbmlProblem::initial_events_derivative(double t0, const std::vector<double>& x0, const std::vector<double>& z0,
                                           const std::vector<double>& p0, MatrixRef seed) {
  if (model_.events.empty()) return 0;
  Execution<Dual>& w = exec_dual_;
  const int nxi = nx(), npi = np();
  for (int first = 0; first < seed.cols; first += 8) {
    const int count = std::min(8, seed.cols - first);
    w.t = Dual(t0);
    for (int i = 0; i < nxi; ++i) w.x[static_cast<std::size_t>(i)] = Dual(x0[static_cast<std::size_t>(i)]);
    for (std::size_t i = 0; i < z0.size(); ++i) w.z[i] = Dual(z0[i]);
    for (int i = 0; i < npi; ++i) w.p[static_cast<std::size_t>(i)] = Dual(p0[static_cast<std::size_t>(i)]);
    for (int k = 0; k < count; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      for (int i = 0; i < nxi; ++i) w.x[static_cast<std::size_t>(i)].d[kk] = seed(i, first + k);
      for (int i = 0; i < npi; ++i) w.p[static_cast<std::size_t>(i)].d[kk] = seed(nxi + i, first + k);
    }
    const int status = execute(w, nullptr, t0);
    if (status != 0) return status;
    for (int k = 0; k < count; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      for (int i = 0; i < nxi; ++i) seed(i, first + k) = w.x[static_cast<std::size_t>(i)].d[kk];
      for (int i = 0; i < npi; ++i) seed(nxi + i, first + k) = w.p[static_cast<std::size_t>(i)].d[kk];
    }
  }
  return 0;
}

}  // namespace esdirk::sbml::detail
