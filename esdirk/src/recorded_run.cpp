#include "internal/recorded_run.hpp"

#include <stdexcept>

namespace esdirk::internal {
namespace {

std::size_t at(long n) { return static_cast<std::size_t>(n); }

}  // namespace

// Recomputing a block that was not kept: a second integrator on the replay problem (with the
// segment's parameters) is resumed at the block's checkpoint and replays the block's steps;
// their records go into the ring. It must repeat the recorded steps bit for bit: J at t_n
// every step, as the recording run did (FactorizationPolicy::automatic would otherwise keep J
// on a grid), with the recording run's difference increments.
class RecordedRun::Replayer final : public StepListener {
 public:
  Replayer(RecordedRun& run, Problem& problem, Integrator& recording, const char* who)
      : run_(run), integrator_(problem, recording.options()) {
    integrator_.jacobians().use_increments_of(recording.jacobians());
    integrator_.require_step_jacobians(who, true);  // the recording run checked the back-end
    integrator_.add_listener(*this);
  }
  ~Replayer() override { integrator_.remove_listener(*this); }
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  Integrator& integrator() { return integrator_; }
  void set_first(int first) { first_ = first; }
  bool needs_jacobian_at_step_start() const override { return true; }

  AcceptVerdict on_accept(const StepView& step, DenseOutput&) override {
    if (step.index >= first_)
      run_.keep(step, static_cast<int>(step.index));  // resume numbered them
    return AcceptVerdict::proceed();
  }

 private:
  RecordedRun& run_;
  Integrator integrator_;
  long first_ = 0;
};

RecordedRun::RecordedRun() = default;
RecordedRun::~RecordedRun() = default;

long RecordedRun::record_doubles(int nx, int nz, int stages, bool stage_start) {
  const long s = stages;
  return 5 + s * (2L * nx + 2L * nz + 1) + (stage_start ? static_cast<long>(nx) + nz : 0L);
}

long RecordedRun::record_doubles(const Integrator& recording) {
  return record_doubles(recording.problem().nx(), recording.problem().nz(), recording.method().stages,
                        records_stage_start(recording.options()));
}

void RecordedRun::set_budget(long memory_budget, Integrator& recording, const char* who,
                             ReplayProblem problem, EnterSegment enter_segment) {
  recording_ = &recording;
  who_ = who;
  replay_problem_ = std::move(problem);
  enter_segment_ = std::move(enter_segment);
  capacity_ = 0;
  const long n = static_cast<long>(recording.problem().nx()) + recording.problem().nz();
  stage_start_doubles_ = records_stage_start(recording.options()) ? n : 0;
  checkpoint_stride_ = 2 * n + stage_start_doubles_;
  if (memory_budget <= 0) return;
  const long record = record_doubles(recording);
  capacity_ = memory_budget / record;
  if (capacity_ < 1)
    throw std::invalid_argument(
        std::string(who) + "Options: memory_budget = " + std::to_string(memory_budget) +
        " doubles cannot hold one step record (" + std::to_string(record) + " doubles)");
  // The ring grows with the run up to capacity_ records (keep): a budget is a bound, not an
  // allocation (1e7 doubles took 90 MB for a 14-step run, LONG_MAX threw, a long budget cut
  // to an int gave a 2-record ring that was run past).
}

void RecordedRun::reserve(int steps, int nx, int nz, int stages) {
  schedule_.reserve(3 * at(steps));
  if (at(steps) > records_.size()) records_.resize(at(steps));
  for (StepRecord& r : records_) {
    r.stage_start.reserve(at(nx) + at(nz));  // StepRecord::assign then fits without allocating
    if (r.X.rows() == nx && r.X.cols() == stages) continue;
    r.X.resize(nx, stages);
    r.F.resize(nx, stages);
    r.Z.resize(nz, stages);
    r.G.resize(nz, stages);
    r.stage_times.assign(at(stages), 0.0);
  }
}

void RecordedRun::clear() {
  count_ = 0;
  schedule_.clear();
  segment_first_.assign(1, 0);
  block_first_.clear();
  block_segment_.clear();
  checkpoints_.clear();
  block_has_start_.clear();
  std::fill(slot_step_.begin(), slot_step_.end(), -1);
}

void RecordedRun::start_segment() {
  if (segment_first_.empty()) segment_first_.push_back(0);
  segment_first_.push_back(count_);
}

void RecordedRun::add(const StepView& step) {
  if (segment_first_.empty()) segment_first_.push_back(0);
  schedule_.insert(schedule_.end(), {step.t, step.h, step.t_end});
  if (capacity_ == 0) {
    if (at(count_) == records_.size()) records_.emplace_back();
    records_[at(count_)].assign(step);
  } else {
    // Blocks of capacity_ steps within each segment; a block's checkpoint is the state, f and g
    // at its first step's start (as Integrator::resume needs them).
    if ((count_ - segment_first_.back()) % capacity_ == 0) {
      block_first_.push_back(count_);
      block_segment_.push_back(segments() - 1);
      for (int i = 0; i < step.X.rows; ++i) checkpoints_.push_back(step.X(i, 0));
      for (int i = 0; i < step.Z.rows; ++i) checkpoints_.push_back(step.Z(i, 0));
      for (int i = 0; i < step.F.rows; ++i) checkpoints_.push_back(step.F(i, 0));
      for (int i = 0; i < step.G.rows; ++i) checkpoints_.push_back(step.G(i, 0));
      // The first implicit stage's start when it came from the step before (a block in the
      // middle of a segment); zeros, unused, where the step had none (a segment's first).
      const bool has_start = stage_start_doubles_ > 0 && !step.stage_start.empty();
      block_has_start_.push_back(has_start ? 1 : 0);
      for (long i = 0; i < stage_start_doubles_; ++i)
        checkpoints_.push_back(has_start ? step.stage_start[at(i)] : 0.0);
    }
    keep(step,
         count_);  // the last capacity_ steps stay in the ring (step.index restarts at events)
  }
  ++count_;
}

void RecordedRun::keep(const StepView& step, int n) {
  const auto slot = at(n % capacity_);
  if (slot >= records_.size()) {  // still growing towards capacity_
    records_.resize(slot + 1);
    slot_step_.resize(slot + 1, -1);
  }
  records_[slot].assign(step);
  slot_step_[slot] = n;
}

void RecordedRun::assign_records(const RecordedRun& other) {
  capacity_ = other.capacity_;
  count_ = other.count_;
  records_ = other.records_;
  slot_step_ = other.slot_step_;
  schedule_ = other.schedule_;
  segment_first_ = other.segment_first_;
  block_first_ = other.block_first_;
  block_segment_ = other.block_segment_;
  checkpoints_ = other.checkpoints_;
  block_has_start_ = other.block_has_start_;
  checkpoint_stride_ = other.checkpoint_stride_;
  stage_start_doubles_ = other.stage_start_doubles_;
}

const StepRecord& RecordedRun::kept(int n) const {
  return records_[capacity_ > 0 ? at(n % capacity_) : at(n)];
}

const StepRecord* RecordedRun::record(int n) {
  if (capacity_ == 0) return &records_[at(n)];
  const auto slot = at(n % capacity_);
  if (slot < slot_step_.size() && slot_step_[slot] == n) return &records_[slot];
  // Not in the ring (any more): replay its block, which puts the block's steps there.
  const int block = static_cast<int>(std::upper_bound(block_first_.begin(), block_first_.end(), n) -
                                     block_first_.begin()) -
                    1;
  const Status status = replay_block(block);
  if (!ok(status)) return nullptr;
  // The replay starts at the checkpoint by construction; it must also give the records the
  // recording run had. The schedule is the cheap witness: the replayed step starts and ends
  // where the recorded one did. Anything else is a defect of the replay, not a numerical
  // failure, so it throws.
  if (slot >= slot_step_.size() || slot_step_[slot] != n)
    throw std::logic_error(std::string(who_) + ": the replay did not record step " +
                           std::to_string(n));
  const StepRecord& r = records_[slot];
  if (r.t != step_start(n) || r.t_end != step_end(n))
    throw std::logic_error(std::string(who_) + ": the replayed step " + std::to_string(n) +
                           " does not repeat the recorded one bit for bit");
  return &r;
}

Status RecordedRun::replay_block(int block) {
  const int first = block_first_[at(block)], segment = block_segment_[at(block)];
  const int last = static_cast<int>(std::min<long>(first + capacity_, segment_end(segment)));
  if (!replayer_)
    replayer_ = std::make_unique<Replayer>(*this, replay_problem_(), *recording_, who_);
  Integrator& integrator = replayer_->integrator();
  const int nx = integrator.problem().nx(), nz = integrator.problem().nz();
  const double* c = checkpoints_.data() + at(block) * at(checkpoint_stride_);
  const auto part = [](const double* from, long n) { return ConstVector(from, at(n)); };
  const ConstVector p = enter_segment_(segment);
  const ConstVector stage_start =
      block_has_start_[at(block)] != 0 ? part(c + 2 * (nx + nz), stage_start_doubles_) : ConstVector();
  replayer_->set_first(first);
  integrator.resume(step_start(first), part(c, nx), part(c + nx, nz), part(c + nx + nz, nx),
                    part(c + 2 * nx + nz, nz), p, first, step_size(first) >= 0.0 ? 1.0 : -1.0,
                    stage_start);
  replay_status_ = replay(integrator, first, last, &recomputed_);
  if (!ok(replay_status_))
    replay_message_ = "the replay of steps " + std::to_string(first) + ".." +
                      std::to_string(last - 1) + " failed: " + integrator.message();
  return replay_status_;
}

Status RecordedRun::replay(Integrator& integrator, int first, int last, long* taken) const {
  for (int n = first; n < last; ++n) {
    const Status status = integrator.replay_step(step_size(n), step_end(n));
    if (taken) ++*taken;
    if (!ok(status)) return status;
  }
  return Status::success;
}

}  // namespace esdirk::internal
