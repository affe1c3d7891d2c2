#pragma once
// Internal: the one store of a recorded run (doc/architecture.md, "One recorded run").
//
// A run is a sequence of accepted steps, numbered from initialize(), cut into segments (a new
// segment starts where the hybrid solver restarts in another mode; the smooth adjoint and a
// Trajectory have one). Without a memory budget every step's record is kept (Trajectory is that
// case). With a budget of k records only the last k stay; each segment is cut into blocks of at
// most k steps, and a block's checkpoint (x, z, f, g at its first step's start, exactly as the
// recording run had them, and under StagePredictor::dense_output where the first step's first
// implicit stage started, StepView::stage_start) lets record(n) recompute the block bit for bit
// (Integrator::resume, then replay_step with the recorded h and end time), once per block and
// sweep.
//
// The reverse driver, sweep_backwards, visits the segments last to first and the steps of each
// last to first; what happens between two segments (the jumps of an event) is the visitor's.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/status.hpp"
#include "esdirk/step_record.hpp"

namespace esdirk::internal {

class RecordedRun {
 public:
  /// The problem a replay integrates (created on first use; it must outlive this store's
  /// replays), and a hook that prepares it for segment j (e.g. its mode) and returns the
  /// parameters the steps of segment j were taken with.
  using ReplayProblem = std::function<Problem&()>;
  using EnterSegment = std::function<ConstVector(int segment)>;

  RecordedRun();
  RecordedRun(const RecordedRun&) = delete;
  RecordedRun& operator=(const RecordedRun&) = delete;
  ~RecordedRun();

  /// Doubles one step record holds: t, h, t_end, h_gamma, index, then X, F (nx x s), Z, G
  /// (nz x s), the stage times, and with `stage_start` the first implicit stage's starting
  /// value (nx + nz: StepView::stage_start).
  static long record_doubles(int nx, int nz, int stages, bool stage_start);
  /// record_doubles of the runs of `recording` (its problem, resolved method and predictor).
  static long record_doubles(const Integrator& recording);
  /// Whether the steps of a run with these options carry StepView::stage_start.
  static bool records_stage_start(const Options& options) {
    return options.stage_predictor == StagePredictor::dense_output;
  }

  /// Keeps at most memory_budget / record_doubles records (memory_budget > 0) and recomputes
  /// the others from checkpoints on a second integrator set up like `recording` (the forward
  /// run's, whose problem sizes and resolved method size the records). Throws
  /// std::invalid_argument("<who>Options: memory_budget = ... cannot hold one step record")
  /// for a budget below one record. memory_budget = 0 keeps every step.
  void set_budget(long memory_budget, Integrator& recording, const char* who, ReplayProblem problem,
                  EnterSegment enter_segment);
  long capacity() const { return capacity_; }  ///< records kept at most; 0: every step

  /// Pre-shapes records for a run of `steps` steps (keep-everything case) and reserves the
  /// schedule, so that such a run records without allocating.
  void reserve(int steps, int nx, int nz, int stages);
  /// A new run: no steps, one segment starting at step 0. Records stay allocated for reuse.
  void clear();
  /// The next step starts a new segment (a restart in another mode): blocks never cross it.
  void start_segment();
  /// Records `step` as step size().
  void add(const StepView& step);
  /// Copies every step, segment and checkpoint of `other` (not its replay set-up).
  void assign_records(const RecordedRun& other);

  int size() const { return count_; }
  int segments() const { return static_cast<int>(segment_first_.size()); }
  int segment_first(int j) const { return segment_first_[static_cast<std::size_t>(j)]; }
  int segment_end(int j) const { return j + 1 < segments() ? segment_first(j + 1) : count_; }
  double step_start(int n) const { return schedule_[3 * static_cast<std::size_t>(n)]; }
  double step_size(int n) const { return schedule_[3 * static_cast<std::size_t>(n) + 1]; }
  double step_end(int n) const { return schedule_[3 * static_cast<std::size_t>(n) + 2]; }

  /// Checkpoints stored (block starts; 0 without a budget), records held (the whole run, or
  /// the budget's k), the doubles of the schedule (t, h, t_end per step) and of the checkpoints.
  long checkpoints() const { return static_cast<long>(block_first_.size()); }
  long stored_records() const { return capacity_ > 0 ? std::min<long>(capacity_, count_) : count_; }
  long schedule_doubles() const { return static_cast<long>(schedule_.size()); }
  long checkpoint_doubles() const { return static_cast<long>(checkpoints_.size()); }

  /// Step n's record: a kept one, or recomputed with its block (which then stays until a
  /// record of another block is asked for). A failed replay returns nullptr with
  /// replay_status() and replay_message().
  const StepRecord* record(int n);
  /// The kept record of step n (no replay: every step kept, or n known to be in the ring).
  const StepRecord& kept(int n) const;
  Status replay_status() const { return replay_status_; }
  const std::string& replay_message() const { return replay_message_; }
  /// A sweep starts: no step recomputed, no failed replay yet.
  void start_sweep() {
    recomputed_ = 0;
    replay_status_ = Status::success;
    replay_message_.clear();
  }
  /// Steps recomputed since start_sweep().
  long recomputed_steps() const { return recomputed_; }

  /// Takes steps [first, last) with their recorded h and end times on `integrator`, which
  /// stands at the start of step first exactly as the recording run did: the one replay loop
  /// (Trajectory::replay and the recomputation of blocks). Counts each step taken in
  /// `taken`. Returns the first failure (the integrator has the message).
  Status replay(Integrator& integrator, int first, int last, long* taken = nullptr) const;

  /// The one reverse driver: segments last_segment .. 0, and within each its steps from the
  /// last (for last_segment: from end_step - 1) down to its first. The visitor's
  /// enter(j), step(j, n, record) and leave(j, steps_swept) return a Status; the first
  /// failure ends the sweep (a failed replay returns replay_status()).
  template <class Visitor>
  Status sweep_backwards(int last_segment, int end_step, Visitor& visitor) {
    for (int j = last_segment; j >= 0; --j) {
      Status status = visitor.enter(j);
      if (!ok(status)) return status;
      const int first = segment_first(j), end = j == last_segment ? end_step : segment_end(j);
      for (int n = end - 1; n >= first; --n) {
        const StepRecord* r = record(n);
        if (!r) return replay_status_;
        status = visitor.step(j, n, *r);
        if (!ok(status)) return status;
      }
      status = visitor.leave(j, end > first);
      if (!ok(status)) return status;
    }
    return Status::success;
  }

 private:
  class Replayer;
  void keep(const StepView& step, int n);
  Status replay_block(int block);

  long capacity_ = 0;
  int count_ = 0;
  // Every step's record (capacity_ = 0; records_ may hold more, reused), or a ring of
  // capacity_ records: step n in records_[n % capacity_] while slot_step_ says so.
  std::vector<StepRecord> records_;
  std::vector<int> slot_step_;
  std::vector<double> schedule_;     // t, h, t_end of every step
  std::vector<int> segment_first_;   // the first step of each segment
  std::vector<int> block_first_;     // with a budget: the first step of each block,
  std::vector<int> block_segment_;   // its segment,
  std::vector<double> checkpoints_;  // and x, z, f, g at its first step's start, then its
                                     // stage_start (stage_start_doubles_ values, 0 or nx + nz)
  std::vector<char> block_has_start_;  // whether that stage_start was recorded (not zeros)
  long checkpoint_stride_ = 0;         // doubles per checkpoint
  long stage_start_doubles_ = 0;
  // The replay set-up (with a budget).
  Integrator* recording_ = nullptr;
  const char* who_ = "";
  ReplayProblem replay_problem_;
  EnterSegment enter_segment_;
  std::unique_ptr<Replayer> replayer_;
  long recomputed_ = 0;
  Status replay_status_ = Status::success;
  std::string replay_message_;
};

}  // namespace esdirk::internal
