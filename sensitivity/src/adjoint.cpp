#include "esdirk/sensitivity/adjoint.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "adjoint_sweep.hpp"

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

}  // namespace

// ----------------------------------------------------------------------------------------------
// Objective and options

void AdjointObjective::set_terminal_weights(ConstMatrixRef weights) {
  DenseMatrix w(weights.rows, weights.cols);
  for (int j = 0; j < weights.cols; ++j)
    for (int i = 0; i < weights.rows; ++i) w(i, j) = weights(i, j);
  rows = weights.cols;
  terminal = [w](double, ConstVector x, ConstVector z, ConstVector, MatrixRef dx, MatrixRef dz,
                 MatrixRef) {
    if (static_cast<int>(x.size() + z.size()) != w.rows())
      throw std::invalid_argument("AdjointObjective: the terminal weights have " +
                                  std::to_string(w.rows()) + " rows, the state has " +
                                  std::to_string(x.size() + z.size()));
    for (int j = 0; j < w.cols(); ++j) {
      for (int i = 0; i < dx.rows; ++i) dx(i, j) = w(i, j);
      for (int i = 0; i < dz.rows; ++i) dz(i, j) = w(dx.rows + i, j);
    }
    return 0;
  };
}

void AdjointObjective::validate() const {
  if (rows < 1) throw std::invalid_argument("AdjointObjective: rows must be >= 1");
  if (!output_times.empty() && !at_output)
    throw std::invalid_argument("AdjointObjective: output_times are given but at_output is not");
  if (!std::is_sorted(output_times.begin(), output_times.end()) &&
      !std::is_sorted(output_times.rbegin(), output_times.rend()))
    throw std::invalid_argument("AdjointObjective: output_times must be ordered in time");
  if (!terminal && !running && output_times.empty())
    throw std::invalid_argument("AdjointObjective: no term (terminal, running or output times)");
}

void AdjointOptions::validate() const {
  if (memory_budget < 0) throw std::invalid_argument("AdjointOptions: memory_budget must be >= 0");
}

// ----------------------------------------------------------------------------------------------
// The reverse sweep (adjoint_sweep.cpp), shared with the hybrid adjoint of the events module.

class Adjoint::Sweep : public internal::AdjointSweep {
 public:
  Sweep(Integrator& integrator, int rows, AdjointReport& report)
      : AdjointSweep(integrator.problem(), integrator.options().method, integrator.jacobians(), rows,
                     report) {
    set_parameters(integrator.parameters());
  }
};

// ----------------------------------------------------------------------------------------------
// Recomputing records that were not kept: resume a second integrator at the checkpoint of the
// segment (the state, f and g at its first step's start, exactly as the recording run had them:
// Integrator::resume) and replay the segment, recording steps [first, last) into the ring. The
// cost is linear: every step is recomputed once.

class Adjoint::Replayer final : public StepListener {
 public:
  explicit Replayer(const Adjoint& owner)
      : owner_(owner), integrator_(owner.integrator_.problem(), owner.integrator_.options()) {
    integrator_.jacobians().use_increments_of(owner.integrator_.jacobians());
    // The replayed steps must repeat the recorded ones bit for bit: J at t_n every step, as the
    // recording run did (FactorizationPolicy::automatic would otherwise keep J on a grid).
    integrator_.require_step_jacobians("Adjoint");
    integrator_.add_listener(*this);
  }
  ~Replayer() override { integrator_.remove_listener(*this); }

  // Replays steps first .. last-1 from the checkpoint at `first` (a segment start), copying
  // them into ring[n % ring.size()].
  Status run(int first, int last, std::vector<StepRecord>& ring, long& recomputed) {
    ring_ = &ring;
    first_ = first;
    const int nx = owner_.integrator_.problem().nx(), nz = owner_.integrator_.problem().nz();
    const double* c = owner_.checkpoint_states_.data() +
                      static_cast<std::size_t>(first / owner_.capacity_) * static_cast<std::size_t>(2 * (nx + nz));
    const auto part = [](const double* at, int n) { return ConstVector(at, static_cast<std::size_t>(n)); };
    integrator_.resume(owner_.step_start(first), part(c, nx), part(c + nx, nz), part(c + nx + nz, nx),
                       part(c + 2 * nx + nz, nz), owner_.p0_, first, owner_.step_size(first) >= 0.0 ? 1.0 : -1.0);
    Status status = Status::success;
    for (int n = first; n < last && ok(status); ++n) {
      status = integrator_.replay_step(owner_.step_size(n), owner_.step_end(n));
      ++recomputed;
    }
    return status;
  }
  const std::string& message() const { return integrator_.message(); }

  AcceptVerdict on_accept(const StepView& step, DenseOutput&) override {
    if (step.index >= first_)
      (*ring_)[static_cast<std::size_t>(step.index % owner_.capacity_)].assign(step);
    return AcceptVerdict::proceed();
  }

 private:
  const Adjoint& owner_;
  Integrator integrator_;
  std::vector<StepRecord>* ring_ = nullptr;
  long first_ = 0;
};

// ----------------------------------------------------------------------------------------------
// Adjoint

Adjoint::Adjoint(Integrator& integrator, AdjointOptions options)
    : integrator_(integrator), options_(std::move(options)) {
  integrator.require_step_jacobians("Adjoint");
  options_.validate();
  if (options_.memory_budget > 0) {
    capacity_ = options_.memory_budget / record_doubles();
    if (capacity_ < 1)
      throw std::invalid_argument("AdjointOptions: memory_budget = " + std::to_string(options_.memory_budget) +
                                  " doubles cannot hold one step record (" +
                                  std::to_string(record_doubles()) + " doubles)");
    // The ring grows with the run up to capacity_ records (on_accept): a budget is a bound,
    // not an allocation (1e7 doubles took 90 MB for a 14-step run, LONG_MAX threw).
  }
  integrator_.add_listener(*this);
}

Adjoint::~Adjoint() { integrator_.remove_listener(*this); }

// t, h, t_end, h_gamma, index, then X, F (nx x s), Z, G (nz x s) and the stage times.
long Adjoint::record_doubles() const {
  const long s = integrator_.options().method.stages;
  return 5 + s * (2L * integrator_.problem().nx() + 2L * integrator_.problem().nz() + 1);
}

double Adjoint::final_time() const {
  if (steps_ == 0) throw std::logic_error("Adjoint: no step was recorded");
  return step_end(steps_ - 1);
}

void Adjoint::on_restart(double t, RestartKind kind) {
  if (kind == RestartKind::restart) {
    restarted_ = true;  // a discontinuity: the event module's adjoint jumps are not here
    return;
  }
  recording_ = true;
  restarted_ = false;
  steps_ = 0;
  report_ = AdjointReport{};  // initialize() resets every counter, the listeners' too
  schedule_.clear();
  checkpoint_states_.clear();
  t0_ = t;
  x0_.assign(integrator_.x().begin(), integrator_.x().end());
  z0_.assign(integrator_.z().begin(), integrator_.z().end());
  p0_.assign(integrator_.parameters().begin(), integrator_.parameters().end());
}

AcceptVerdict Adjoint::on_accept(const StepView& step, DenseOutput&) {
  if (!recording_) return AcceptVerdict::proceed();
  schedule_.insert(schedule_.end(), {step.t, step.h, step.t_end});
  if (capacity_ == 0) {
    if (static_cast<std::size_t>(steps_) == ring_.size()) ring_.emplace_back();
    ring_[static_cast<std::size_t>(steps_)].assign(step);
  } else {
    const auto slot = static_cast<std::size_t>(steps_ % capacity_);
    if (slot == ring_.size()) ring_.emplace_back();  // still growing towards capacity_
    ring_[slot].assign(step);
    if (steps_ % capacity_ == 0) {  // a segment starts: its checkpoint (x, z, f, g there)
      for (int i = 0; i < step.X.rows; ++i) checkpoint_states_.push_back(step.X(i, 0));
      for (int i = 0; i < step.Z.rows; ++i) checkpoint_states_.push_back(step.Z(i, 0));
      for (int i = 0; i < step.F.rows; ++i) checkpoint_states_.push_back(step.F(i, 0));
      for (int i = 0; i < step.G.rows; ++i) checkpoint_states_.push_back(step.G(i, 0));
    }
  }
  ++steps_;
  return AcceptVerdict::proceed();
}

void Adjoint::add_statistics(Statistics& report) const {
  report.adjoint_steps += report_.adjoint_steps;
  report.checkpoints += report_.checkpoints;
  report.adjoint_transposed_solves += report_.transposed_solves;
  report.adjoint_factorizations += report_.stage_factorizations;
  report.adjoint_jacobian_evaluations += report_.jacobian_evaluations;
  report.adjoint_recomputed_steps += report_.recomputed_steps;
}

// A recomputed segment must start where the recording run's did, bit for bit; anything else
// is a defect of the replay (not a numerical failure), so it throws.
void Adjoint::check_replay(int first, const StepRecord& r) const {
  const int n = integrator_.problem().size(), nx = integrator_.problem().nx();
  const std::size_t at = static_cast<std::size_t>(first / capacity_) * static_cast<std::size_t>(2 * n);
  bool same = r.index == first;
  for (int i = 0; i < nx && same; ++i) same = r.X(i, 0) == checkpoint_states_[at + static_cast<std::size_t>(i)];
  for (int i = 0; i < n - nx && same; ++i)
    same = r.Z(i, 0) == checkpoint_states_[at + static_cast<std::size_t>(nx + i)];
  if (!same)
    throw std::logic_error("Adjoint: the replayed step " + std::to_string(first) +
                           " does not start at the recorded state bit for bit");
}

Status Adjoint::gradient(const AdjointObjective& objective, MatrixRef dx0, MatrixRef dp) {
  if (!recording_ || steps_ == 0)
    throw std::logic_error("Adjoint::gradient: no recorded run (initialize and integrate first)");
  if (restarted_)
    throw std::logic_error("Adjoint::gradient: the run was restarted; the smooth adjoint needs one "
                           "uninterrupted run (restarts and jumps are the event module's)");
  // The terminal term is taken, and the running cost integrated, up to the last step end. If
  // the last output time lies inside that step (integrate_to interpolated there), the
  // gradient would silently be that of the objective at the wrong time (issue: Akzo to 180
  // gave the gradient at the step end 181.49). Output terms are checked against step ends
  // in the sweep.
  const double t_out = integrator_.output_time();
  if ((objective.terminal || objective.running) && t_out != final_time())
    throw std::logic_error("Adjoint::gradient: the last output time t = " + format_number(t_out) +
                           " is not a step end (the last step ended at t = " + format_number(final_time()) +
                           ", where the terminal term and the running cost would be taken): make it a stop "
                           "time (set_stop_time(" + format_number(t_out) +
                           ") before integrating to it) and integrate again");
  return run_sweep(objective, dx0, dp, nullptr);
}

Status Adjoint::gradient(const Trajectory& trajectory, const AdjointObjective& objective,
                         MatrixRef dx0, MatrixRef dp) {
  if (trajectory.size() == 0)
    throw std::logic_error("Adjoint::gradient: the trajectory is empty (record a run first)");
  return run_sweep(objective, dx0, dp, &trajectory);
}

Status Adjoint::run_sweep(const AdjointObjective& objective, MatrixRef dx0, MatrixRef dp,
                          const Trajectory* external) {
  objective.validate();
  const Problem& problem = integrator_.problem();
  const int m = objective.rows, np = problem.np();
  if (dx0.rows != problem.nx() || dx0.cols != m)
    throw std::invalid_argument("Adjoint::gradient: dx0 must be nx x rows = " + std::to_string(problem.nx()) +
                                " x " + std::to_string(m));
  if (np > 0 && !(dp.rows == np && dp.cols == m) && !(dp.rows == 0 && dp.data == nullptr))
    throw std::invalid_argument("Adjoint::gradient: dp must be np x rows = " + std::to_string(np) + " x " +
                                std::to_string(m) + " (or empty)");
  const int N = external ? external->size() : steps_;
  auto record_end = [&](int n) { return external ? (*external)[n].t_end : step_end(n); };
  // Each output time must be a step end: find its step.
  std::vector<int> output_step(objective.output_times.size());
  for (std::size_t k = 0; k < output_step.size(); ++k) {
    const double t = objective.output_times[k];
    int found = -1;
    for (int n = 0; n < N && found < 0; ++n)
      if (record_end(n) == t) found = n;
    if (found < 0)
      throw std::invalid_argument("Adjoint::gradient: output time " + format_number(t) +
                                  " is not the end of a recorded step (make it a stop time)");
    output_step[k] = found;
  }
  if (!sweep_ || sweep_->rows() != m) sweep_ = std::make_unique<Sweep>(integrator_, m, report_);
  report_ = AdjointReport{};
  message_.clear();
  Sweep& sweep = *sweep_;
  sweep.start();
  sweep.set_parameters(integrator_.parameters());
  const ConstVector p = integrator_.parameters();
  auto fail = [&](int code) {
    message_ = sweep.message();
    return code < 0 ? Status::callback_fatal : Status::callback_failures;
  };

  // Where the records come from: the external trajectory, every kept record, or segments of
  // `capacity_` steps (the last one still in the ring, earlier ones replayed from t0).
  std::unique_ptr<Replayer> replayer;
  int segment_first = capacity_ > 0 ? static_cast<int>(((N - 1) / capacity_) * capacity_) : 0;
  auto record = [&](int n) -> const StepRecord& {
    if (external) return (*external)[n];
    return ring_[static_cast<std::size_t>(capacity_ > 0 ? n % capacity_ : n)];
  };
  if (!external) {
    report_.stored_records = capacity_ > 0 ? std::min<long>(capacity_, N) : N;
    // A checkpoint is x, z, f and g: 2 (nx + nz) doubles (counting nx + nz gave twice the segments).
    report_.checkpoints = capacity_ > 0 ? static_cast<long>(checkpoint_states_.size()) / (2L * problem.size()) : 0;
    report_.peak_stored_doubles = report_.stored_records * record_doubles() +
                                  static_cast<long>(schedule_.size() + checkpoint_states_.size());
  }

  for (int n = N - 1; n >= 0; --n) {
    // Replay first: the point terms below read record(n), which before the replay is still
    // the ring slot's previous occupant (step n + capacity).
    if (!external && capacity_ > 0 && n < segment_first) {
      // Recompute the segment [n - capacity + 1, n] (segments are aligned to the capacity).
      segment_first = static_cast<int>((n / capacity_) * capacity_);
      if (!replayer) replayer = std::make_unique<Replayer>(*this);
      const Status status = replayer->run(segment_first, n + 1, ring_, report_.recomputed_steps);
      if (!ok(status)) {
        message_ = "the replay of steps " + std::to_string(segment_first) + ".." + std::to_string(n) +
                   " failed: " + replayer->message();
        return status;
      }
      check_replay(segment_first, record(segment_first));
    }
    const StepRecord& end = record(n);
    if (n == N - 1 && objective.terminal) {
      const int code = sweep.add_point_term(end, [&](ConstVector x, ConstVector z, MatrixRef gx,
                                                     MatrixRef gz, MatrixRef gp) {
        return objective.terminal(end.t_end, x, z, p, gx, gz, gp);
      });
      if (code != 0) return fail(code);
    }
    for (std::size_t k = 0; k < output_step.size(); ++k) {
      if (output_step[k] != n) continue;
      const int index = static_cast<int>(k);
      const int code = sweep.add_point_term(end, [&](ConstVector x, ConstVector z, MatrixRef gx,
                                                     MatrixRef gz, MatrixRef gp) {
        return objective.at_output(index, end.t_end, x, z, p, gx, gz, gp);
      });
      if (code != 0) return fail(code);
    }
    if (n == N - 1 && options_.observer)
      options_.observer(N, end.t_end, sweep.lambda_x(), sweep.lambda_z(), sweep.mu());
    const int code = sweep.step(record(n), objective.running);
    if (code != 0) return fail(code);
    if (options_.observer) options_.observer(n, record(n).t, sweep.lambda_x(), sweep.lambda_z(), sweep.mu());
  }
  const int code = sweep.finish(dx0, np > 0 && dp.rows > 0 ? dp : MatrixRef{});
  if (code != 0) {
    message_ = sweep.message();
    return Status::singular_algebraic_jacobian;
  }
  return Status::success;
}

}  // namespace esdirk
