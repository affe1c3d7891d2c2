#include "esdirk/multishoot/interval_evaluator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "thread_pool.hpp"

namespace esdirk::multishoot {
namespace {

std::size_t sz(int n) { return static_cast<std::size_t>(n); }

void require(bool condition, const std::string& what) {
  if (!condition) throw std::invalid_argument("IntervalEvaluator: " + what);
}

}  // namespace

IntervalInputs::IntervalInputs(int n, int nx_, int nz_, int nu_)
    : intervals(n), nx(nx_), nz(nz_), nu(nu_), t_begin(sz(n)), t_end(sz(n)), x(sz(n * nx_)),
      u(sz(n * nu_)), z_guess(sz(n * nz_)) {}

void check_inputs(const IntervalInputs& in, int intervals, int nx, int nz, int nu) {
  require(in.intervals == intervals, "inputs for " + std::to_string(in.intervals) +
                                         " intervals, the evaluator has " +
                                         std::to_string(intervals));
  require(in.nx == nx && in.nz == nz && in.nu == nu,
          "inputs of sizes nx, nz, nu = " + std::to_string(in.nx) + ", " + std::to_string(in.nz) +
              ", " + std::to_string(in.nu) + ", the problem has " + std::to_string(nx) + ", " +
              std::to_string(nz) + ", " + std::to_string(nu));
  require(in.t_begin.size() == sz(intervals) && in.t_end.size() == sz(intervals) &&
              in.x.size() == sz(intervals * nx) && in.u.size() == sz(intervals * nu) &&
              in.z_guess.size() == sz(intervals * nz),
          "input vectors do not match their declared sizes");
}

void IntervalOutputs::resize(int intervals, int nx, int nz, int nu) {
  intervals_ = intervals;
  nx_ = nx;
  nz_ = nz;
  nu_ = nu;
  // record: status, x_end, z_end, A, B, H, q, r, seconds, steps
  x_at_ = 1;
  z_at_ = x_at_ + nx;
  a_at_ = z_at_ + nz;
  b_at_ = a_at_ + nx * nx;
  h_at_ = b_at_ + nx * nu;
  q_at_ = h_at_ + 1;
  r_at_ = q_at_ + nx;
  seconds_at_ = r_at_ + nu;
  steps_at_ = seconds_at_ + 1;
  record_ = steps_at_ + 1;
  data_.assign(sz(intervals) * sz(record_), 0.0);
  messages_.assign(sz(intervals), std::string());
}

bool IntervalOutputs::all_ok() const { return first_failure() < 0; }

int IntervalOutputs::first_failure() const {
  for (int k = 0; k < intervals_; ++k)
    if (!ok(k)) return k;
  return -1;
}

double IntervalOutputs::integration_seconds() const {
  double sum = 0.0;
  for (int k = 0; k < intervals_; ++k) sum += seconds(k);
  return sum;
}

long IntervalOutputs::total_steps() const {
  long sum = 0;
  for (int k = 0; k < intervals_; ++k) sum += steps(k);
  return sum;
}

void IntervalOutputs::store(int k, const ShootingResult& r, double seconds) {
  double* rec = at(k);
  rec[0] = static_cast<double>(static_cast<int>(r.status));
  std::copy(r.x.begin(), r.x.end(), rec + x_at_);
  std::copy(r.z.begin(), r.z.end(), rec + z_at_);
  for (int j = 0; j < nx_; ++j)
    for (int i = 0; i < nx_; ++i) rec[a_at_ + i + j * nx_] = r.A(i, j);
  for (int j = 0; j < nu_; ++j)
    for (int i = 0; i < nx_; ++i) rec[b_at_ + i + j * nx_] = r.B(i, j);
  rec[h_at_] = r.H;
  std::copy(r.q.begin(), r.q.end(), rec + q_at_);
  std::copy(r.r.begin(), r.r.end(), rec + r_at_);
  rec[seconds_at_] = seconds;
  rec[steps_at_] = static_cast<double>(r.statistics.steps);
  messages_[sz(k)].clear();
}

void IntervalOutputs::store_failure(int k, Status status, const std::string& message,
                                    double seconds) {
  double* rec = at(k);
  std::fill(rec, rec + record_, 0.0);
  rec[0] = static_cast<double>(static_cast<int>(status));
  rec[seconds_at_] = seconds;
  messages_[sz(k)] = message;
}

IntervalEvaluator::IntervalEvaluator(const ProblemFactory& make_problem, int intervals,
                                     Options options, SensitivityOptions sensitivity,
                                     int threads, int first, int count)
    : intervals_(intervals), first_(first), count_(count < 0 ? intervals - first : count) {
  require(intervals >= 1, "needs at least one interval, got " + std::to_string(intervals));
  require(threads >= 1, "needs at least one thread, got " + std::to_string(threads));
  require(first >= 0 && count_ >= 1 && first + count_ <= intervals,
          "the block [" + std::to_string(first) + ", " + std::to_string(first + count_) +
              ") is not inside the " + std::to_string(intervals) + " intervals");
  require(static_cast<bool>(make_problem), "the problem factory is empty");
  problems_.reserve(sz(count_));
  slots_.reserve(sz(count_));
  for (int i = 0; i < count_; ++i) {
    std::unique_ptr<Problem> problem = make_problem();
    require(problem != nullptr, "the problem factory returned no problem");
    if (i == 0) {
      nx_ = problem->nx();
      nz_ = problem->nz();
      nu_ = problem->np();
    }
    require(problem->nx() == nx_ && problem->nz() == nz_ && problem->np() == nu_,
            "the problem factory returned problems of different sizes");
    slots_.push_back(std::make_unique<ShootingInterval>(*problem, options, sensitivity));
    problems_.push_back(std::move(problem));
  }
  // More workers than intervals would only wait; a system that refuses threads gives fewer.
  pool_ = std::make_unique<ThreadPool>(std::min(threads, count_));
}

IntervalEvaluator::~IntervalEvaluator() = default;

int IntervalEvaluator::threads() const { return pool_->size(); }

void IntervalEvaluator::set_running_cost(const RunningCost& cost) {
  for (auto& slot : slots_) slot->set_running_cost(cost);
}

void IntervalEvaluator::evaluate_one(int k, const IntervalInputs& in, IntervalOutputs& out) {
  ShootingInterval& slot = *slots_[sz(k - first_)];
  if (!warm_start_) slot.cold_start();
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const ConstVector x(in.x.data() + sz(k) * sz(nx_), sz(nx_));
  const ConstVector u(in.u.data() + sz(k) * sz(nu_), sz(nu_));
  const ConstVector z(in.z_guess.data() + sz(k) * sz(nz_), sz(nz_));
  try {
    const ShootingResult& r = slot.integrate(in.t_begin[sz(k)], in.t_end[sz(k)], x, u, z);
    if (r.status != Status::success) {
      out.store_failure(k, r.status, "interval " + std::to_string(k) + " failed: " + r.message,
                        elapsed());
      return;
    }
    out.store(k, r, elapsed());
  } catch (const std::invalid_argument& e) {
    // Non-finite node states or controls from the NLP, or a bad grid: a failure of this
    // interval that the NLP can react to (backtrack), not a crash.
    out.store_failure(k, Status::callback_failures,
                      "interval " + std::to_string(k) + " rejected its inputs: " + e.what(),
                      elapsed());
  }
}

void IntervalEvaluator::set_fixed_steps(int steps) {
  slots_.front()->set_fixed_steps(steps);  // the same options everywhere: throws before any change
  for (auto& slot : slots_) slot->set_fixed_steps(steps);
}

void IntervalEvaluator::freeze_meshes() {
  for (auto& slot : slots_) slot->freeze_mesh();
}

void IntervalEvaluator::refresh_meshes() {
  for (auto& slot : slots_) slot->refresh_mesh();
}

void IntervalEvaluator::use_adaptive_steps() {
  for (auto& slot : slots_) slot->use_adaptive_steps();
}

bool IntervalEvaluator::evaluate(const IntervalInputs& in, IntervalOutputs& out) {
  check_inputs(in, intervals_, nx_, nz_, nu_);
  if (out.intervals() != intervals_ || out.nx() != nx_ || out.nz() != nz_ || out.nu() != nu_)
    out.resize(intervals_, nx_, nz_, nu_);
  pool_->run(count_, [&](int i, int) { evaluate_one(first_ + i, in, out); });
  for (int k = first_; k < first_ + count_; ++k)
    if (!out.ok(k)) return false;
  return true;
}

}  // namespace esdirk::multishoot
