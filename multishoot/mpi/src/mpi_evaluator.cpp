#include "esdirk/multishoot/mpi_evaluator.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace esdirk::multishoot {
namespace {

constexpr int message_chars = 256;
enum Command : int { command_stop = 0, command_evaluate = 1 };

// Contiguous blocks: whole groups when there are at least as many groups as ranks (balanced
// by interval count), otherwise intervals split as evenly as possible.
std::vector<int> partition(int intervals, int ranks, const std::vector<int>& groups) {
  std::vector<int> starts(static_cast<std::size_t>(ranks) + 1, intervals);
  starts[0] = 0;
  if (static_cast<int>(groups.size()) >= ranks) {
    for (int r = 1; r < ranks; ++r) {
      const double target = static_cast<double>(intervals) * r / ranks;
      // the group start closest to the target that keeps every block non-empty
      int best = -1;
      for (std::size_t g = 1; g < groups.size(); ++g) {
        const int s = groups[g];
        if (s <= starts[static_cast<std::size_t>(r - 1)]) continue;
        if (static_cast<int>(groups.size() - g) < ranks - r) break;
        if (best < 0 || std::abs(s - target) < std::abs(best - target)) best = s;
      }
      starts[static_cast<std::size_t>(r)] = best;
    }
  } else {
    for (int r = 0; r <= ranks; ++r)
      starts[static_cast<std::size_t>(r)] = static_cast<int>(static_cast<long>(intervals) * r / ranks);
  }
  return starts;
}

}  // namespace

MpiIntervalEvaluator::MpiIntervalEvaluator(MPI_Comm comm, const ProblemFactory& make_problem,
                                           int intervals, Options options,
                                           SensitivityOptions sensitivity, int threads,
                                           std::vector<int> group_starts)
    : comm_(comm), intervals_(intervals) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  if (intervals < 1)
    throw std::invalid_argument("MpiIntervalEvaluator: needs at least one interval");
  if (size_ > intervals)
    throw std::invalid_argument(
        "MpiIntervalEvaluator: the MPI run has " + std::to_string(size_) +
        " ranks but only " + std::to_string(intervals) +
        " shooting intervals (more ranks than intervals would leave ranks without work); run "
        "with at most " + std::to_string(intervals) + " ranks");
  if (!group_starts.empty()) {
    bool valid = group_starts.front() == 0;
    for (std::size_t g = 1; g < group_starts.size(); ++g)
      valid = valid && group_starts[g] > group_starts[g - 1] && group_starts[g] < intervals;
    if (!valid)
      throw std::invalid_argument(
          "MpiIntervalEvaluator: group_starts must increase from 0 and stay below the number "
          "of intervals");
  }
  starts_ = partition(intervals, size_, group_starts);
  const int first = starts_[static_cast<std::size_t>(rank_)];
  const int count = starts_[static_cast<std::size_t>(rank_) + 1] - first;
  local_ = std::make_unique<IntervalEvaluator>(make_problem, intervals, std::move(options),
                                               std::move(sensitivity), threads, first, count);
  inputs_ = IntervalInputs(intervals, local_->nx(), local_->nz(), local_->nu());
}

MpiIntervalEvaluator::~MpiIntervalEvaluator() = default;

long MpiIntervalEvaluator::doubles_per_evaluation() const {
  const long n = intervals_, nx = local_->nx(), nz = local_->nz(), nu = local_->nu();
  IntervalOutputs probe;
  probe.resize(1, local_->nx(), local_->nz(), local_->nu());
  return n * (2 + nx + nu + nz) + n * probe.record_size();
}

// Every rank: evaluate the own block of the broadcast inputs, then gather records and
// messages on rank 0.
bool MpiIntervalEvaluator::run_block(IntervalOutputs& outputs) {
  MPI_Bcast(inputs_.t_begin.data(), intervals_, MPI_DOUBLE, 0, comm_);
  MPI_Bcast(inputs_.t_end.data(), intervals_, MPI_DOUBLE, 0, comm_);
  MPI_Bcast(inputs_.x.data(), static_cast<int>(inputs_.x.size()), MPI_DOUBLE, 0, comm_);
  MPI_Bcast(inputs_.u.data(), static_cast<int>(inputs_.u.size()), MPI_DOUBLE, 0, comm_);
  if (!inputs_.z_guess.empty())
    MPI_Bcast(inputs_.z_guess.data(), static_cast<int>(inputs_.z_guess.size()), MPI_DOUBLE, 0, comm_);
  outputs.resize(intervals_, local_->nx(), local_->nz(), local_->nu());
  local_->evaluate(inputs_, outputs);

  const int record = outputs.record_size();
  const int first = starts_[static_cast<std::size_t>(rank_)];
  const int count = starts_[static_cast<std::size_t>(rank_) + 1] - first;
  std::vector<int> counts(static_cast<std::size_t>(size_)), displs(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    counts[static_cast<std::size_t>(r)] = (starts_[static_cast<std::size_t>(r) + 1] - starts_[static_cast<std::size_t>(r)]) * record;
    displs[static_cast<std::size_t>(r)] = starts_[static_cast<std::size_t>(r)] * record;
  }
  double* records = outputs.records();
  if (rank_ == 0)
    MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, records, counts.data(), displs.data(), MPI_DOUBLE, 0, comm_);
  else
    MPI_Gatherv(records + static_cast<std::size_t>(first) * record, count * record, MPI_DOUBLE,
                nullptr, nullptr, nullptr, MPI_DOUBLE, 0, comm_);

  // Messages: fixed 256 characters per interval.
  std::vector<char> text(static_cast<std::size_t>(count) * message_chars, '\0');
  for (int i = 0; i < count; ++i) {
    const std::string& m = outputs.messages()[static_cast<std::size_t>(first + i)];
    std::memcpy(text.data() + static_cast<std::size_t>(i) * message_chars, m.data(),
                std::min<std::size_t>(m.size(), message_chars - 1));
  }
  std::vector<char> all;
  for (int r = 0; r < size_; ++r) {
    counts[static_cast<std::size_t>(r)] = counts[static_cast<std::size_t>(r)] / record * message_chars;
    displs[static_cast<std::size_t>(r)] = displs[static_cast<std::size_t>(r)] / record * message_chars;
  }
  if (rank_ == 0) all.assign(static_cast<std::size_t>(intervals_) * message_chars, '\0');
  MPI_Gatherv(text.data(), count * message_chars, MPI_CHAR, rank_ == 0 ? all.data() : nullptr,
              counts.data(), displs.data(), MPI_CHAR, 0, comm_);
  if (rank_ != 0) return true;
  for (int k = 0; k < intervals_; ++k)
    outputs.messages()[static_cast<std::size_t>(k)] = std::string(all.data() + static_cast<std::size_t>(k) * message_chars);
  return outputs.all_ok();
}

bool MpiIntervalEvaluator::evaluate(const IntervalInputs& in, IntervalOutputs& outputs) {
  if (rank_ != 0) throw std::logic_error("MpiIntervalEvaluator::evaluate: only rank 0 evaluates; the other ranks serve()");
  if (stopped_) throw std::logic_error("MpiIntervalEvaluator::evaluate: called after stop()");
  check_inputs(in, intervals_, local_->nx(), local_->nz(), local_->nu());
  int command = command_evaluate;
  MPI_Bcast(&command, 1, MPI_INT, 0, comm_);
  inputs_ = in;
  return run_block(outputs);
}

void MpiIntervalEvaluator::serve() {
  if (rank_ == 0) throw std::logic_error("MpiIntervalEvaluator::serve: rank 0 runs the solver");
  IntervalOutputs outputs;
  for (;;) {
    int command = command_stop;
    MPI_Bcast(&command, 1, MPI_INT, 0, comm_);
    if (command == command_stop) return;
    run_block(outputs);
  }
}

void MpiIntervalEvaluator::stop() {
  if (rank_ != 0 || stopped_) return;
  int command = command_stop;
  MPI_Bcast(&command, 1, MPI_INT, 0, comm_);
  stopped_ = true;
}

}  // namespace esdirk::multishoot
