#pragma once
// Shooting intervals distributed over MPI ranks. Every rank owns a contiguous block of the N
// intervals (whole experiments when groups are given and there are at least as many groups as
// ranks) with one ShootingInterval per interval, like IntervalEvaluator, so the results are
// bit-identical to a serial or threaded evaluation. The solver runs on rank 0:
//
//     esdirk::multishoot::MpiIntervalEvaluator ev(MPI_COMM_WORLD, make_problem, N, options);
//     if (ev.is_root()) {
//       ... solver calling ev.evaluate(inputs, outputs) per iteration ...
//       ev.stop();                 // releases the other ranks
//     } else {
//       ev.serve();                // answers evaluate() until stop()
//     }
//
// Per evaluation, rank 0 broadcasts the inputs (N (2 + nx + nu + nz) doubles) and gathers
// each rank's output records (N (nx + nz + nx^2 + nx nu + nx + nu + 5) doubles in all) and
// 256 characters of message per interval.
//
// Part of the optional library esdirk_multishoot_mpi (built when MPI is found), not of
// libesdirk.

#include <mpi.h>

#include <memory>
#include <vector>

#include "esdirk/multishoot/interval_evaluator.hpp"

namespace esdirk::multishoot {

class MpiIntervalEvaluator {
 public:
  /// Collective over `comm`. `group_starts` (optional, increasing, starting with 0) marks the
  /// first interval of each experiment. Throws std::invalid_argument on every rank if there are
  /// more ranks than intervals (or than groups, when groups are given and fewer than ranks
  /// would leave a rank without work): the message says how many ranks to use.
  MpiIntervalEvaluator(MPI_Comm comm, const ProblemFactory& make_problem, int intervals,
                       Options options = {}, SensitivityOptions sensitivity = {}, int threads = 1,
                       std::vector<int> group_starts = {});
  ~MpiIntervalEvaluator();

  bool is_root() const { return rank_ == 0; }
  int rank() const { return rank_; }
  int ranks() const { return size_; }
  /// The first interval of each rank's block, and the end (size ranks() + 1).
  const std::vector<int>& block_starts() const { return starts_; }
  int nx() const { return local_->nx(); }
  int nz() const { return local_->nz(); }
  int nu() const { return local_->nu(); }

  /// Rank 0: evaluates all intervals over the ranks; the others must be in serve(). Returns
  /// true if every interval succeeded. Throws std::logic_error on another rank.
  bool evaluate(const IntervalInputs& inputs, IntervalOutputs& outputs);
  /// Sets the running cost on this rank's intervals (call on every rank).
  void set_running_cost(const RunningCost& cost) { local_->set_running_cost(cost); }
  /// Ranks other than 0: answer evaluate() calls until rank 0 calls stop().
  void serve();
  /// Rank 0: ends the other ranks' serve().
  void stop();
  /// Doubles sent per evaluation (broadcast + gather), for the guide's cost model.
  long doubles_per_evaluation() const;

 private:
  bool run_block(IntervalOutputs& outputs);

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, intervals_ = 0;
  std::vector<int> starts_;
  std::unique_ptr<IntervalEvaluator> local_;
  IntervalInputs inputs_;  // the broadcast copy on every rank
  bool stopped_ = false;
};

}  // namespace esdirk::multishoot
