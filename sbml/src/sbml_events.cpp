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
}

double SbmlProblem::run_scalar(const Program& program, int slot) {
  run(program, slots_.data());
  return slots_[static_cast<std::size_t>(slot)];
}

void SbmlProblem::reload() { load(t_work_, x_work_, z_work_, p_work_); }

double& SbmlProblem::latch(const EventCode& e) { return p_work_[static_cast<std::size_t>(e.latch_parameter)]; }

// The trigger's value on the current state. A trigger whose event function the executions so
// far left exactly as it was keeps the value it had at the start of the transition (read at the
// located left limit, a trigger that just fired may evaluate false by rounding).
bool SbmlProblem::trigger_value(std::size_t e) {
  const EventCode& code = model_.events[e];
  const double h = slots_[static_cast<std::size_t>(model_.h_slots[static_cast<std::size_t>(code.component)])];
  if (h == h_start_[e]) return truth_start_[e] != 0;
  return run_scalar(code.trigger, code.trigger_slot) != 0.0;
}

int SbmlProblem::fire(std::size_t ei) {
  const EventCode& e = model_.events[ei];
  const std::size_t stride = static_cast<std::size_t>(std::max(1, model_.max_assignments));
  auto take_values = [&](double* out) {
    run(e.values, slots_.data());
    for (std::size_t k = 0; k < e.value_slots.size(); ++k) out[k] = slots_[static_cast<std::size_t>(e.value_slots[k])];
  };
  double delay = 0.0;
  if (e.has_delay) {
    delay = run_scalar(e.delay, e.delay_slot);
    if (!(delay >= 0.0)) return -1;  // a negative or undefined delay
  }
  if (delay > 0.0) {
    const int stride_p = e.pending_stride();
    int free = -1;
    for (int s = 0; s < e.pending_slots && free < 0; ++s)
      if (p_work_[static_cast<std::size_t>(e.first_pending_parameter + s * stride_p)] >= inactive_time) free = s;
    if (free < 0) return -1;  // more pending executions than slots
    double* slot = &p_work_[static_cast<std::size_t>(e.first_pending_parameter + free * stride_p)];
    slot[0] = t_work_ + delay;
    if (e.use_trigger_time_values) take_values(slot + 1);
    return 0;
  }
  if (queue_.size() == queue_.capacity()) return -1;
  Entry entry{static_cast<int>(ei), -1, -1};
  if (e.use_trigger_time_values) {
    // a free block of values: the queue's own index may be reused, take the next unused one
    entry.values_at = static_cast<int>((values_used_ % (entry_values_.size() / stride)) * stride);
    ++values_used_;
    take_values(&entry_values_[static_cast<std::size_t>(entry.values_at)]);
  }
  queue_.push_back(entry);
  return 0;
}

void SbmlProblem::drop_non_persistent(std::size_t ei) {
  const EventCode& e = model_.events[ei];
  if (e.persistent) return;
  for (int s = 0; s < e.pending_slots; ++s)
    p_work_[static_cast<std::size_t>(e.first_pending_parameter + s * e.pending_stride())] = inactive_time;
  for (std::size_t q = 0; q < queue_.size();) {
    if (queue_[q].event == static_cast<int>(ei)) queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(q));
    else ++q;
  }
}

// Every trigger against its latch: false -> true fires, true -> false re-arms (and drops
// the event's non-persistent executions).
int SbmlProblem::scan_triggers() {
  // The event functions once per scan: firing (delays, values) writes only temporaries and
  // pending times, never what a trigger reads.
  run(model_.event_functions, slots_.data());
  for (std::size_t e = 0; e < model_.events.size(); ++e) {
    const bool now = trigger_value(e);
    double& l = latch(model_.events[e]);
    if (now && l == 0.0) {
      l = 1.0;
      const int status = fire(e);
      if (status != 0) return status;
    } else if (!now && l != 0.0) {
      l = 0.0;
      drop_non_persistent(e);
    }
  }
  return 0;
}

int SbmlProblem::execute_events(const TransitionCause* cause, double t, ConstVector x, ConstVector z, ConstVector p) {
  t_work_ = t;
  std::copy(x.begin(), x.end(), x_work_.begin());
  std::copy(z.begin(), z.end(), z_work_.begin());
  std::copy(p.begin(), p.end(), p_work_.begin());
  reload();
  run(model_.event_functions, slots_.data());
  queue_.clear();
  values_used_ = 0;
  const std::size_t n = model_.events.size();
  for (std::size_t e = 0; e < n; ++e) {
    const EventCode& code = model_.events[e];
    h_start_[e] = slots_[static_cast<std::size_t>(model_.h_slots[static_cast<std::size_t>(code.component)])];
    // At t0 (no cause) the triggers are read; at a transition the crossing says it.
    if (cause == nullptr) {
      truth_start_[e] = run_scalar(code.trigger, code.trigger_slot) != 0.0;
      run(model_.event_functions, slots_.data());
    } else {
      const int fired = cause->time_event >= 0 ? 0 : cause->fired[static_cast<std::size_t>(code.component)];
      truth_start_[e] = fired > 0 ? 1 : fired < 0 ? 0 : (latch(code) != 0.0);
    }
  }
  // Timers of pending executions that reached zero: due now.
  if (cause != nullptr && cause->time_event < 0)
    for (std::size_t e = 0; e < n; ++e) {
      const EventCode& code = model_.events[e];
      for (int s = 0; s < code.pending_slots; ++s)
        if (cause->fired[static_cast<std::size_t>(code.first_pending_component + s)] != 0 &&
            p_work_[static_cast<std::size_t>(code.first_pending_parameter + s * code.pending_stride())] < inactive_time) {
          if (queue_.size() == queue_.capacity()) return -1;
          queue_.push_back(Entry{static_cast<int>(e), s, -1});
        }
    }
  int status = scan_triggers();
  if (status != 0) return status;
  for (int executions = 0; !queue_.empty(); ++executions) {
    if (executions == max_executions_per_instant) return -1;
    std::size_t best = 0, ties = 1;
    double best_priority = -std::numeric_limits<double>::infinity();
    for (std::size_t q = 0; q < queue_.size(); ++q) {
      const EventCode& e = model_.events[static_cast<std::size_t>(queue_[q].event)];
      const double priority = e.has_priority ? run_scalar(e.priority, e.priority_slot)
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
    const Entry entry = queue_[best];
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(best));
    const EventCode& e = model_.events[static_cast<std::size_t>(entry.event)];
    const std::size_t na = e.targets.size();
    if (entry.slot >= 0) {
      double* slot = &p_work_[static_cast<std::size_t>(e.first_pending_parameter + entry.slot * e.pending_stride())];
      slot[0] = inactive_time;
      if (e.use_trigger_time_values) std::copy(slot + 1, slot + 1 + na, values_.begin());
    } else if (entry.values_at >= 0) {
      std::copy_n(entry_values_.begin() + entry.values_at, na, values_.begin());
    }
    if (!e.use_trigger_time_values) {
      run(e.values, slots_.data());
      for (std::size_t k = 0; k < na; ++k) values_[k] = slots_[static_cast<std::size_t>(e.value_slots[k])];
    }
    // A concentration assigned to a species kept as an amount: amount = value * size, the
    // size before this execution (its assignments are computed on the state before it). A
    // compartment that changes size keeps its species' amounts.
    bool rescale = false;
    for (std::size_t k = 0; k < na; ++k) {
      const AssignmentTarget& target = e.targets[k];
      if (target.compartment_slot >= 0) values_[k] *= slots_[static_cast<std::size_t>(target.compartment_slot)];
      if (!target.rescaled.empty()) {
        old_size_[k] = slots_[static_cast<std::size_t>(target.size_slot)];
        rescale = true;
      }
    }
    for (std::size_t k = 0; k < na; ++k) {
      const AssignmentTarget& target = e.targets[k];
      (target.to_state ? x_work_ : p_work_)[static_cast<std::size_t>(target.index)] = values_[k];
    }
    reload();
    if (rescale) {
      for (std::size_t k = 0; k < na; ++k) {
        const AssignmentTarget& target = e.targets[k];
        const double ratio = target.rescaled.empty() ? 1.0 : old_size_[k] / slots_[static_cast<std::size_t>(target.size_slot)];
        for (int i : target.rescaled) x_work_[static_cast<std::size_t>(i)] *= ratio;
      }
      reload();
    }
    status = scan_triggers();
    if (status != 0) return status;
  }
  return 0;
}

// The solver asks for the transition and the parameter reset of one event with the same
// arguments, one after the other: the execution is a function of them, so the second call
// takes the first one's result (compared bit for bit) instead of executing the events again.
bool SbmlProblem::same_execution(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                 ConstVector p) const {
  auto same_bits = [](const double* a, const double* b, std::size_t n) { return n == 0 || std::memcmp(a, b, n * sizeof(double)) == 0; };
  return executed_valid_ && executed_time_event_ == cause.time_event &&
         std::equal(cause.fired.begin(), cause.fired.end(), executed_fired_.begin()) &&
         same_bits(&t, &executed_inputs_[0], 1) && same_bits(x.data(), &executed_inputs_[1], x.size()) &&
         same_bits(z.data(), &executed_inputs_[1 + x.size()], z.size()) &&
         same_bits(p.data(), &executed_inputs_[1 + x.size() + z.size()], p.size());
}

int SbmlProblem::execute_once(const TransitionCause& cause, double t, ConstVector x, ConstVector z, ConstVector p) {
  if (same_execution(cause, t, x, z, p)) return 0;
  executed_valid_ = false;
  const int status = execute_events(&cause, t, x, z, p);
  if (status != 0) return status;
  executed_time_event_ = cause.time_event;
  std::copy(cause.fired.begin(), cause.fired.end(), executed_fired_.begin());
  executed_inputs_[0] = t;
  std::copy(x.begin(), x.end(), executed_inputs_.begin() + 1);
  std::copy(z.begin(), z.end(), executed_inputs_.begin() + 1 + static_cast<std::ptrdiff_t>(x.size()));
  std::copy(p.begin(), p.end(), executed_inputs_.begin() + 1 + static_cast<std::ptrdiff_t>(x.size() + z.size()));
  executed_valid_ = true;
  return 0;
}

int SbmlProblem::transition(int, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                            ConstVector p, ConstVector, int&, Vector x_plus) {
  const int status = execute_once(cause, t, x, z, p);
  if (status != 0) return status;
  std::copy(x_work_.begin(), x_work_.end(), x_plus.begin());
  return 0;
}

int SbmlProblem::reset_parameters(int, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                  ConstVector p, ConstVector, Vector p_plus) {
  const int status = execute_once(cause, t, x, z, p);
  if (status != 0) return status;
  std::copy(p_work_.begin(), p_work_.end(), p_plus.begin());
  return 0;
}

int SbmlProblem::fire_initial_events(double t0, std::vector<double>& x0, const std::vector<double>& z0,
                                     std::vector<double>& p0) {
  if (model_.events.empty()) return 0;
  executed_valid_ = false;
  const int status = execute_events(nullptr, t0, x0, z0, p0);
  if (status != 0) return status;
  std::copy(x_work_.begin(), x_work_.end(), x0.begin());
  std::copy(p_work_.begin(), p_work_.end(), p0.begin());
  return 0;
}

}  // namespace esdirk::sbml::detail
