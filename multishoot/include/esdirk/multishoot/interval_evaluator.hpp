#pragma once
// The N shooting intervals of one multiple-shooting NLP iteration (Kristensen et al. 2005 section
// 2, eqs. 6-10), evaluated serially or on a thread pool with bit-identical results:
//
//     x_{k+1} = F_k(s_k, u_k),  A_k = dF_k/ds_k,  B_k = dF_k/du_k,  H_k, q_k, r_k
//
//     esdirk::multishoot::IntervalEvaluator ev(make_problem, N, options, {}, threads);
//     esdirk::multishoot::IntervalInputs in(N, nx, nz, nu);     // fill t, s, u, z guesses
//     esdirk::multishoot::IntervalOutputs out;
//     ev.evaluate(in, out);                                     // out.A(k), out.B(k), ...
//
// Each interval's result is a function of its inputs alone: every interval object starts
// afresh on every call (ShootingInterval::cold_start: the initial step from f at t_k), so the
// result does not depend on which intervals an object ran before, on the thread schedule, on
// the MPI rank, or on the NLP's earlier trial points. An NLP solver needs that: its line
// search and its finite-difference checks compare values at nearby points, which a
// history-dependent step-size sequence would blur at the level of the tolerance. (The warm
// start of a ShootingInterval saves the initial-step heuristic, a few f evaluations per
// interval, and is off here; EvaluatorOptions::warm_start turns it on, with one object per
// interval so that the results stay independent of the schedule.)

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "esdirk/export.hpp"
#include "esdirk/matrix.hpp"
#include "esdirk/options.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/sensitivity/sensitivity_options.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"

namespace esdirk::multishoot {

class ThreadPool;

/// Makes one Problem for one interval object (called once per interval at construction). The
/// problem's parameters are the interval's controls u_k (nu = np).
using ProblemFactory = std::function<std::unique_ptr<Problem>()>;

/// The inputs of N intervals, flat and column-major: interval k integrates from s_k (x) over
/// [t_begin[k], t_end[k]] with control u_k; z_guess[k] starts the consistent initialization of
/// its algebraic states (ignored when nz = 0).
struct ESDIRK_API IntervalInputs {
  IntervalInputs() = default;
  IntervalInputs(int intervals, int nx, int nz, int nu);
  int intervals = 0, nx = 0, nz = 0, nu = 0;
  std::vector<double> t_begin, t_end;  ///< N each
  std::vector<double> x;               ///< N * nx: node states s_k
  std::vector<double> u;               ///< N * nu: controls (or parameters) u_k
  std::vector<double> z_guess;         ///< N * nz
  Vector x_of(int k) { return {x.data() + static_cast<std::size_t>(k) * nx, static_cast<std::size_t>(nx)}; }
  Vector u_of(int k) { return {u.data() + static_cast<std::size_t>(k) * nu, static_cast<std::size_t>(nu)}; }
  Vector z_guess_of(int k) {
    return {z_guess.data() + static_cast<std::size_t>(k) * nz, static_cast<std::size_t>(nz)};
  }
};

/// The results of N intervals. Each interval's numbers are one contiguous record of doubles
/// (the unit the MPI driver sends); the accessors give views into it.
class ESDIRK_API IntervalOutputs {
 public:
  /// Sizes the records; done by IntervalEvaluator::evaluate.
  void resize(int intervals, int nx, int nz, int nu);
  int intervals() const { return intervals_; }
  int nx() const { return nx_; }
  int nz() const { return nz_; }
  int nu() const { return nu_; }
  /// Doubles per interval record.
  int record_size() const { return record_; }

  Status status(int k) const { return static_cast<Status>(static_cast<int>(at(k)[0])); }
  bool ok(int k) const { return status(k) == Status::success; }
  /// True if every interval succeeded.
  bool all_ok() const;
  /// The first failed interval, or -1.
  int first_failure() const;
  const std::string& message(int k) const { return messages_[static_cast<std::size_t>(k)]; }
  ConstVector x_end(int k) const { return {at(k) + x_at_, static_cast<std::size_t>(nx_)}; }
  ConstVector z_end(int k) const { return {at(k) + z_at_, static_cast<std::size_t>(nz_)}; }
  ConstMatrixRef A(int k) const { return {at(k) + a_at_, nx_, nx_, nx_}; }
  ConstMatrixRef B(int k) const { return {at(k) + b_at_, nx_, nu_, nx_}; }
  double H(int k) const { return at(k)[h_at_]; }
  ConstVector q(int k) const { return {at(k) + q_at_, static_cast<std::size_t>(nx_)}; }
  ConstVector r(int k) const { return {at(k) + r_at_, static_cast<std::size_t>(nu_)}; }
  /// Wall time of the interval's integration (seconds) and its steps (accepted + rejected).
  double seconds(int k) const { return at(k)[seconds_at_]; }
  long steps(int k) const { return static_cast<long>(at(k)[steps_at_]); }

  /// Sum of seconds(k): the integration time as one thread would spend it.
  double integration_seconds() const;
  long total_steps() const;

  /// Raw records, for the MPI driver: record k starts at records() + k * record_size().
  double* records() { return data_.data(); }
  const double* records() const { return data_.data(); }
  std::vector<std::string>& messages() { return messages_; }
  /// Writes interval k's record from a ShootingResult (or a failure).
  void store(int k, const ShootingResult& result, double seconds);
  void store_failure(int k, Status status, const std::string& message, double seconds);

 private:
  const double* at(int k) const { return data_.data() + static_cast<std::size_t>(k) * record_; }
  double* at(int k) { return data_.data() + static_cast<std::size_t>(k) * record_; }

  int intervals_ = 0, nx_ = 0, nz_ = 0, nu_ = 0, record_ = 0;
  int x_at_ = 0, z_at_ = 0, a_at_ = 0, b_at_ = 0, h_at_ = 0, q_at_ = 0, r_at_ = 0,
      seconds_at_ = 0, steps_at_ = 0;
  std::vector<double> data_;
  std::vector<std::string> messages_;
};

/// Evaluates the intervals [first, first + count) of an N-interval grid (all of them by
/// default; an MPI rank owns a block) with one ShootingInterval per interval, on a pool of
/// `threads` workers. Bit-identical for any number of threads.
///
/// One object per interval (not per thread) so that the optional warm start stays a property
/// of the interval; with the default cold start one per worker would do, and the memory is
/// small either way (an integrator's workspace, kilobytes for small models).
class ESDIRK_API IntervalEvaluator {
 public:
  /// Throws std::invalid_argument for intervals < 1, threads < 1, a factory that returns null
  /// or problems of different sizes, invalid options, or a block outside [0, intervals).
  IntervalEvaluator(const ProblemFactory& make_problem, int intervals, Options options = {},
                    SensitivityOptions sensitivity = {}, int threads = 1, int first = 0,
                    int count = -1);
  ~IntervalEvaluator();
  IntervalEvaluator(const IntervalEvaluator&) = delete;
  IntervalEvaluator& operator=(const IntervalEvaluator&) = delete;

  int intervals() const { return intervals_; }
  int first() const { return first_; }
  int count() const { return count_; }
  int nx() const { return nx_; }
  int nz() const { return nz_; }
  int nu() const { return nu_; }
  /// The workers running: min(threads, count()), fewer if the system refused a thread start.
  int threads() const;

  /// The running cost of every interval (shared by all: it must be safe to call from several
  /// threads at once, e.g. a pure function). Empty: H = q = r = 0.
  void set_running_cost(const RunningCost& cost);

  /// false (default): every call starts each interval afresh, so a result depends on its
  /// inputs alone. true: each interval starts from the step size its previous call ended
  /// with (saves the initial-step heuristic; results then depend on the call history).
  void set_warm_start(bool warm) { warm_start_ = warm; }

  /// The mesh policy of every owned interval (ShootingInterval, MeshPolicy;
  /// doc/multiple-shooting-guide.md, "Fixed and frozen meshes"). set_fixed_steps: `steps`
  /// equal steps per interval (std::invalid_argument naming `steps` unless 1 <= steps <=
  /// Options::max_steps; the policy is then kept). freeze_meshes: each interval adapts at its
  /// next evaluation and reuses its own steps after it (while its length stays the same; a
  /// changed length fails that interval with a message naming t_end). refresh_meshes: the
  /// frozen intervals adapt again at the next evaluation.
  void set_fixed_steps(int steps);
  void freeze_meshes();
  void refresh_meshes();
  void use_adaptive_steps();

  /// Evaluates the owned intervals. `inputs` must cover all `intervals()` intervals with
  /// matching sizes (std::invalid_argument otherwise); `outputs` is resized to all of them and
  /// only the owned records are written. A failing interval (integration failure, non-finite
  /// inputs) is recorded with its status and a message naming the interval; the others are
  /// still evaluated. Returns true if every owned interval succeeded.
  bool evaluate(const IntervalInputs& inputs, IntervalOutputs& outputs);

 private:
  void evaluate_one(int k, const IntervalInputs& inputs, IntervalOutputs& outputs);

  int intervals_, first_, count_;
  int nx_ = 0, nz_ = 0, nu_ = 0;
  std::vector<std::unique_ptr<Problem>> problems_;
  std::vector<std::unique_ptr<ShootingInterval>> slots_;
  std::unique_ptr<ThreadPool> pool_;
  bool warm_start_ = false;
};

/// Checks that `inputs` describe `intervals` intervals of sizes nx, nz, nu; throws
/// std::invalid_argument naming what is wrong.
ESDIRK_API void check_inputs(const IntervalInputs& inputs, int intervals, int nx, int nz, int nu);

}  // namespace esdirk::multishoot
