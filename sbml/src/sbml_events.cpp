// SBML's event execution at one instant (doc/sbml.md, "Events"), as the transition of the
// hybrid problem. A fired trigger either schedules a delayed execution (its time, and the
// assignment values when they are taken at trigger time, kept in extra parameters that the
// parameter reset writes, so sensitivities flow through them) or joins the executions due now;
// a timer of a pending execution that reaches zero adds that execution. The executions due
// now run one at a time in priority order (highest first, document order on ties), each on the
// state the one before left; after each, an execution of a non-persistent event whose trigger
// the assignments made false is dropped. Events that an execution makes true fire as the
// solver's cascade at the same instant (doc/events-theory.md, D5). The transition is a
// function of its arguments: transition() and reset_parameters() run the same execution and
// return its x and p.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sbml_problem.hpp"

namespace esdirk::sbml::detail {

double SbmlProblem::run_scalar(const Program& program, int slot) {
  run(program, slots_.data());
  return slots_[static_cast<std::size_t>(slot)];
}

void SbmlProblem::reload() { load(t_work_, x_work_, z_work_, p_work_); }

// After an execution: true unless the trigger is false now and the assignments moved its
// event function (a trigger evaluated at the located left limit may read false by rounding
// though it fired; untouched, it keeps the truth it fired with).
bool SbmlProblem::still_triggered(const EventCode& e) {
  if (run_scalar(e.trigger, e.trigger_slot) != 0.0) return true;
  run(model_.event_functions, slots_.data());
  const double h = slots_[static_cast<std::size_t>(model_.h_slots[static_cast<std::size_t>(e.component)])];
  return h == h_start_[static_cast<std::size_t>(e.component)];
}

int SbmlProblem::execute_events(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                ConstVector p) {
  t_work_ = t;
  std::copy(x.begin(), x.end(), x_work_.begin());
  std::copy(z.begin(), z.end(), z_work_.begin());
  std::copy(p.begin(), p.end(), p_work_.begin());
  reload();
  run(model_.event_functions, slots_.data());
  for (std::size_t e = 0; e < model_.events.size(); ++e)
    h_start_[e] = slots_[static_cast<std::size_t>(model_.h_slots[e])];
  queue_.clear();
  const std::size_t stride = static_cast<std::size_t>(std::max(1, model_.max_assignments));
  auto take_values = [&](const EventCode& e, double* out) {
    run(e.values, slots_.data());
    for (std::size_t k = 0; k < e.value_slots.size(); ++k) out[k] = slots_[static_cast<std::size_t>(e.value_slots[k])];
  };
  // 1. What fired: triggers (schedule or run now), falling triggers (cancel), timers.
  const bool time_event = cause.time_event >= 0;
  for (std::size_t ei = 0; ei < model_.events.size(); ++ei) {
    const EventCode& e = model_.events[ei];
    const int fired = time_event ? 0 : cause.fired[static_cast<std::size_t>(e.component)];
    const int stride_p = e.pending_stride();
    if (fired > 0) {
      double delay = 0.0;
      if (e.has_delay) {
        delay = run_scalar(e.delay, e.delay_slot);
        if (!(delay >= 0.0)) return -1;  // a negative or undefined delay: the model is wrong
      }
      if (delay > 0.0) {
        int free = -1;
        for (int s = 0; s < e.pending_slots && free < 0; ++s)
          if (p_work_[static_cast<std::size_t>(e.first_pending_parameter + s * stride_p)] >= inactive_time) free = s;
        if (free < 0) return -1;  // more pending executions than slots
        double* slot = &p_work_[static_cast<std::size_t>(e.first_pending_parameter + free * stride_p)];
        slot[0] = t + delay;
        if (e.use_trigger_time_values) take_values(e, slot + 1);
      } else {
        Entry entry{static_cast<int>(ei), -1, -1};
        if (e.use_trigger_time_values) {
          entry.values_at = static_cast<int>(queue_.size() * stride);
          take_values(e, &entry_values_[static_cast<std::size_t>(entry.values_at)]);
        }
        queue_.push_back(entry);
      }
    } else if (fired < 0) {
      for (int s = 0; s < e.pending_slots; ++s)
        p_work_[static_cast<std::size_t>(e.first_pending_parameter + s * stride_p)] = inactive_time;
    }
    for (int s = 0; s < e.pending_slots && !time_event; ++s)
      if (cause.fired[static_cast<std::size_t>(e.first_pending_component + s)] != 0 &&
          p_work_[static_cast<std::size_t>(e.first_pending_parameter + s * stride_p)] < inactive_time)
        queue_.push_back(Entry{static_cast<int>(ei), s, -1});
  }
  // 2. Run them in priority order.
  while (!queue_.empty()) {
    std::size_t best = 0;
    double best_priority = -std::numeric_limits<double>::infinity();
    for (std::size_t q = 0; q < queue_.size(); ++q) {
      const EventCode& e = model_.events[static_cast<std::size_t>(queue_[q].event)];
      const double priority = e.has_priority ? run_scalar(e.priority, e.priority_slot)
                                             : -std::numeric_limits<double>::infinity();
      if (q == 0 || priority > best_priority) {
        best = q;
        best_priority = priority;
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
      else take_values(e, values_.data());
    } else if (entry.values_at >= 0) {
      std::copy_n(entry_values_.begin() + entry.values_at, na, values_.begin());
    } else {
      take_values(e, values_.data());
    }
    bool concentrations = false;
    for (std::size_t k = 0; k < na; ++k) {
      const AssignmentTarget& target = e.targets[k];
      if (!target.to_state) {
        p_work_[static_cast<std::size_t>(target.index)] = values_[k];
      } else if (target.compartment_slot < 0) {
        x_work_[static_cast<std::size_t>(target.index)] = values_[k];
      } else {
        concentrations = true;
      }
    }
    reload();
    // A concentration assigned to a species kept as an amount: amount = value * size, with
    // the size after this execution's own assignments.
    if (concentrations) {
      for (std::size_t k = 0; k < na; ++k) {
        const AssignmentTarget& target = e.targets[k];
        if (target.to_state && target.compartment_slot >= 0)
          x_work_[static_cast<std::size_t>(target.index)] = values_[k] * slots_[static_cast<std::size_t>(target.compartment_slot)];
      }
      reload();
    }
    for (std::size_t q = 0; q < queue_.size();) {
      const EventCode& other = model_.events[static_cast<std::size_t>(queue_[q].event)];
      if (!other.persistent && !still_triggered(other)) queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(q));
      else ++q;
    }
  }
  return 0;
}

int SbmlProblem::transition(int, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                            ConstVector p, ConstVector, int&, Vector x_plus) {
  const int status = execute_events(cause, t, x, z, p);
  if (status != 0) return status;
  std::copy(x_work_.begin(), x_work_.end(), x_plus.begin());
  return 0;
}

int SbmlProblem::reset_parameters(int, const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                  ConstVector p, ConstVector, Vector p_plus) {
  const int status = execute_events(cause, t, x, z, p);
  if (status != 0) return status;
  std::copy(p_work_.begin(), p_work_.end(), p_plus.begin());
  return 0;
}

}  // namespace esdirk::sbml::detail

namespace esdirk::sbml::detail {

int SbmlProblem::fire_initial_events(double t0, std::vector<double>& x0, const std::vector<double>& z0,
                                     std::vector<double>& p0) {
  const std::size_t n = model_.events.size();
  if (n == 0) return 0;
  std::vector<int> fired(static_cast<std::size_t>(model_.ne), 0);
  std::vector<char> before(n), now(n);
  for (std::size_t e = 0; e < n; ++e) before[e] = model_.events[e].initial_value;
  for (int round = 0; round < 1000; ++round) {
    load(t0, x0, z0, p0);
    bool any = false;
    std::fill(fired.begin(), fired.end(), 0);
    for (std::size_t e = 0; e < n; ++e) {
      const EventCode& code = model_.events[e];
      now[e] = run_scalar(code.trigger, code.trigger_slot) != 0.0;
      if (!before[e] && now[e]) fired[static_cast<std::size_t>(code.component)] = 1, any = true;
    }
    if (!any) return 0;
    const TransitionCause cause{fired, -1};
    const int status = execute_events(cause, t0, x0, z0, p0);
    if (status != 0) return status;
    std::copy(x_work_.begin(), x_work_.end(), x0.begin());
    std::copy(p_work_.begin(), p_work_.end(), p0.begin());
    before = now;
  }
  return -1;
}

}  // namespace esdirk::sbml::detail
