#include "esdirk/trajectory.hpp"

#include <stdexcept>
#include <string>

#include "internal/format_number.hpp"

namespace esdirk {

using internal::format_number;

void Trajectory::reserve(int steps, int nx, int nz, int stages) {
  if (steps < 0 || nx < 0 || nz < 0 || stages < 1)
    throw std::invalid_argument("Trajectory::reserve: sizes must be non-negative and stages >= 1");
  if (static_cast<std::size_t>(steps) <= records_.size()) return;
  records_.resize(static_cast<std::size_t>(steps));
  for (StepRecord& r : records_) {
    if (r.X.rows() == nx && r.X.cols() == stages) continue;
    r.X.resize(nx, stages);
    r.F.resize(nx, stages);
    r.Z.resize(nz, stages);
    r.G.resize(nz, stages);
    r.stage_times.assign(static_cast<std::size_t>(stages), 0.0);
  }
}

AcceptVerdict Trajectory::on_accept(const StepView& step, DenseOutput&) {
  if (static_cast<std::size_t>(count_) == records_.size()) records_.emplace_back();
  records_[static_cast<std::size_t>(count_)].assign(step);
  ++count_;
  return AcceptVerdict::proceed();
}

// A new initialize() starts a new trajectory; a restart (a discontinuity) continues it.
void Trajectory::on_restart(double, RestartKind kind) {
  if (kind == RestartKind::initialize) clear();
}

Status Trajectory::replay(Integrator& integrator, int first, int count) const {
  if (count < 0) count = count_ - first;
  if (first < 0 || first > count_ || count > count_ - first)
    throw std::invalid_argument("Trajectory::replay: steps [" + std::to_string(first) + ", " +
                                std::to_string(first + count) + ") are not all recorded (" +
                                std::to_string(count_) + " steps)");
  if (count == 0) return Status::success;
  const StepRecord& start = records_[static_cast<std::size_t>(first)];
  if (!integrator.initialized() || integrator.t() != start.t)
    throw std::logic_error("Trajectory::replay: the integrator is at t = " + format_number(integrator.t()) +
                           ", step " + std::to_string(first) + " starts at t = " + format_number(start.t));
  for (int k = first; k < first + count; ++k) {
    const StepRecord& r = records_[static_cast<std::size_t>(k)];
    const Status status = integrator.replay_step(r.h, r.t_end);
    if (!ok(status)) return status;
  }
  return Status::success;
}

}  // namespace esdirk
