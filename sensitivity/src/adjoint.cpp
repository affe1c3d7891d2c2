#include "esdirk/sensitivity/adjoint.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "adjoint_sweep.hpp"
#include "internal/recorded_run.hpp"

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

}  // namespace

// ----------------------------------------------------------------------------------------------
// Objective and options

ObjectiveGradient internal::terminal_weights(ConstMatrixRef weights, const char* who) {
  DenseMatrix w(weights.rows, weights.cols);
  for (int j = 0; j < weights.cols; ++j)
    for (int i = 0; i < weights.rows; ++i) w(i, j) = weights(i, j);
  return [w, who](double, ConstVector x, ConstVector z, ConstVector, MatrixRef dx, MatrixRef dz, MatrixRef) {
    if (static_cast<int>(x.size() + z.size()) != w.rows())
      throw std::invalid_argument(std::string(who) + ": the terminal weights have " + std::to_string(w.rows()) +
                                  " rows, the state has " + std::to_string(x.size() + z.size()));
    for (int j = 0; j < w.cols(); ++j) {
      for (int i = 0; i < dx.rows; ++i) dx(i, j) = w(i, j);
      for (int i = 0; i < dz.rows; ++i) dz(i, j) = w(dx.rows + i, j);
    }
    return 0;
  };
}

void AdjointObjective::set_terminal_weights(ConstMatrixRef weights) {
  rows = weights.cols;
  terminal = internal::terminal_weights(weights, "AdjointObjective");
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

// ----------------------------------------------------------------------------------------------
// The reverse sweep (adjoint_sweep.cpp), shared with the hybrid adjoint of the events module.

class Adjoint::Sweep : public internal::AdjointSweep {
 public:
  Sweep(Integrator& integrator, int rows, AdjointReport& report)
      : AdjointSweep(integrator.problem(), integrator.method(), integrator.jacobians(), rows,
                     report) {
    set_parameters(integrator.parameters());
  }
};

// ----------------------------------------------------------------------------------------------
// Adjoint

Adjoint::Adjoint(Integrator& integrator, AdjointOptions options)
    : integrator_(integrator), options_(std::move(options)), run_(std::make_unique<internal::RecordedRun>()) {
  integrator.require_step_jacobians("Adjoint", true);
  options_.validate();
  // Records not kept are recomputed on a second integrator over the same problem, resumed at
  // a checkpoint with the parameters of the run (one segment).
  run_->set_budget(
      options_.memory_budget, integrator_, "Adjoint", [this]() -> Problem& { return integrator_.problem(); },
      [this](int) { return ConstVector(p0_); });
  run_->clear();
  integrator_.add_listener(*this);
}

Adjoint::~Adjoint() { integrator_.remove_listener(*this); }

int Adjoint::steps() const { return run_->size(); }
double Adjoint::step_start(int n) const { return run_->step_start(n); }
double Adjoint::step_size(int n) const { return run_->step_size(n); }
double Adjoint::step_end(int n) const { return run_->step_end(n); }

double Adjoint::final_time() const {
  if (run_->size() == 0) throw std::logic_error("Adjoint: no step was recorded");
  return step_end(run_->size() - 1);
}

void Adjoint::on_restart(double t, RestartKind kind) {
  if (kind == RestartKind::restart) {
    restarted_ = true;  // a discontinuity: the event module's adjoint jumps are not here
    return;
  }
  recording_ = true;
  restarted_ = false;
  run_->clear();
  report_ = AdjointReport{};  // initialize() resets every counter, the listeners' too
  t0_ = t;
  x0_.assign(integrator_.x().begin(), integrator_.x().end());
  z0_.assign(integrator_.z().begin(), integrator_.z().end());
  p0_.assign(integrator_.parameters().begin(), integrator_.parameters().end());
}

AcceptVerdict Adjoint::on_accept(const StepView& step, DenseOutput&) {
  if (recording_) run_->add(step);
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

Status Adjoint::gradient(const AdjointObjective& objective, MatrixRef dx0, MatrixRef dp) {
  if (!recording_ || run_->size() == 0)
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
  return run_sweep(objective, dx0, dp, *run_, true);
}

Status Adjoint::gradient(const Trajectory& trajectory, const AdjointObjective& objective,
                         MatrixRef dx0, MatrixRef dp) {
  if (trajectory.size() == 0)
    throw std::logic_error("Adjoint::gradient: the trajectory is empty (record a run first)");
  return run_sweep(objective, dx0, dp, trajectory.recorded_run(), false);
}

// The visitor of the reverse driver (RecordedRun::sweep_backwards) over the one segment of a
// smooth run: the point terms at each step end, then the step's transpose.
class Adjoint::Backward {
 public:
  Backward(Adjoint& owner, const AdjointObjective& objective, const std::vector<int>& output_step, int steps)
      : owner_(owner), objective_(objective), output_step_(output_step), steps_(steps), sweep_(*owner.sweep_),
        p_(owner.integrator_.parameters()) {}

  Status enter(int) { return Status::success; }
  Status leave(int, bool) { return Status::success; }
  Status step(int, int n, const StepRecord& end) {
    const int N = steps_;
    if (n == N - 1 && objective_.terminal) {
      const int code = sweep_.add_point_term(end, [&](ConstVector x, ConstVector z, MatrixRef gx,
                                                      MatrixRef gz, MatrixRef gp) {
        return objective_.terminal(end.t_end, x, z, p_, gx, gz, gp);
      });
      if (code != 0) return fail(code);
    }
    for (std::size_t k = 0; k < output_step_.size(); ++k) {
      if (output_step_[k] != n) continue;
      const int index = static_cast<int>(k);
      const int code = sweep_.add_point_term(end, [&](ConstVector x, ConstVector z, MatrixRef gx,
                                                      MatrixRef gz, MatrixRef gp) {
        return objective_.at_output(index, end.t_end, x, z, p_, gx, gz, gp);
      });
      if (code != 0) return fail(code);
    }
    const AdjointOptions& options = owner_.options_;
    if (n == N - 1 && options.observer)
      options.observer(N, end.t_end, sweep_.lambda_x(), sweep_.lambda_z(), sweep_.mu());
    const int code = sweep_.step(end, objective_.running);
    if (code != 0) return fail(code);
    if (options.observer) options.observer(n, end.t, sweep_.lambda_x(), sweep_.lambda_z(), sweep_.mu());
    return Status::success;
  }

 private:
  Status fail(int code) {
    owner_.message_ = sweep_.message();
    if (sweep_.linear_solver_failed()) return Status::linear_solver_failures;
    return code < 0 ? Status::callback_fatal : Status::callback_failures;
  }

  Adjoint& owner_;
  const AdjointObjective& objective_;
  const std::vector<int>& output_step_;
  const int steps_;
  Sweep& sweep_;
  const ConstVector p_;
};

Status Adjoint::run_sweep(const AdjointObjective& objective, MatrixRef dx0, MatrixRef dp,
                          internal::RecordedRun& run, bool own_run) {
  objective.validate();
  const Problem& problem = integrator_.problem();
  const int m = objective.rows, np = problem.np();
  if (dx0.rows != problem.nx() || dx0.cols != m)
    throw std::invalid_argument("Adjoint::gradient: dx0 must be nx x rows = " + std::to_string(problem.nx()) +
                                " x " + std::to_string(m));
  if (np > 0 && !(dp.rows == np && dp.cols == m) && !(dp.rows == 0 && dp.data == nullptr))
    throw std::invalid_argument("Adjoint::gradient: dp must be np x rows = " + std::to_string(np) + " x " +
                                std::to_string(m) + " (or empty)");
  const int N = run.size();
  // Each output time must be a step end: find its step.
  std::vector<int> output_step(objective.output_times.size());
  for (std::size_t k = 0; k < output_step.size(); ++k) {
    const double t = objective.output_times[k];
    int found = -1;
    for (int n = 0; n < N && found < 0; ++n)
      if (run.step_end(n) == t) found = n;
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
  if (own_run) {
    report_.stored_records = run.stored_records();
    report_.checkpoints = run.checkpoints();
    report_.peak_stored_doubles =
        report_.stored_records *
            internal::RecordedRun::record_doubles(integrator_) +
        run.schedule_doubles() + run.checkpoint_doubles();
  }

  // The records: the external trajectory's, every kept record, or the last ones kept and
  // earlier blocks recomputed from their checkpoints (RecordedRun::record).
  run.start_sweep();
  Backward backward(*this, objective, output_step, N);
  Status status = run.sweep_backwards(0, N, backward);
  report_.recomputed_steps = run.recomputed_steps();
  if (!ok(status)) {
    if (!ok(run.replay_status())) message_ = run.replay_message();
    return status;
  }
  const int code = sweep.finish(dx0, np > 0 && dp.rows > 0 ? dp : MatrixRef{});
  if (code != 0) {
    message_ = sweep.message();
    return Status::singular_algebraic_jacobian;
  }
  return Status::success;
}

}  // namespace esdirk
