#include "esdirk/trajectory.hpp"

#include <stdexcept>
#include <string>

#include "internal/format_number.hpp"
#include "internal/recorded_run.hpp"

namespace esdirk {

using internal::format_number;

Trajectory::Trajectory() : run_(std::make_unique<internal::RecordedRun>()) { run_->clear(); }
Trajectory::~Trajectory() = default;
Trajectory::Trajectory(const Trajectory& other) : Trajectory() {
  run_->assign_records(*other.run_);
}
Trajectory& Trajectory::operator=(const Trajectory& other) {
  if (this != &other) run_->assign_records(*other.run_);
  return *this;
}

void Trajectory::reserve(int steps, int nx, int nz, int stages) {
  if (steps < 0 || nx < 0 || nz < 0 || stages < 1)
    throw std::invalid_argument("Trajectory::reserve: sizes must be non-negative and stages >= 1");
  run_->reserve(steps, nx, nz, stages);
}

void Trajectory::clear() { run_->clear(); }
int Trajectory::size() const { return run_->size(); }
const StepRecord& Trajectory::operator[](int k) const { return run_->kept(k); }

AcceptVerdict Trajectory::on_accept(const StepView& step, DenseOutput&) {
  run_->add(step);
  return AcceptVerdict::proceed();
}

// A new initialize() starts a new trajectory; a restart (a discontinuity) continues it.
void Trajectory::on_restart(double, RestartKind kind) {
  if (kind == RestartKind::initialize) clear();
}

Status Trajectory::replay(Integrator& integrator, int first, int count) const {
  const int recorded = run_->size();
  if (count < 0) count = recorded - first;
  if (first < 0 || first > recorded || count > recorded - first)
    throw std::invalid_argument("Trajectory::replay: steps [" + std::to_string(first) + ", " +
                                std::to_string(first + count) + ") are not all recorded (" +
                                std::to_string(recorded) + " steps)");
  if (count == 0) return Status::success;
  if (!integrator.initialized() || integrator.t() != run_->step_start(first))
    throw std::logic_error("Trajectory::replay: the integrator is at t = " +
                           format_number(integrator.t()) + ", step " + std::to_string(first) +
                           " starts at t = " + format_number(run_->step_start(first)));
  return run_->replay(integrator, first, first + count);
}

}  // namespace esdirk
