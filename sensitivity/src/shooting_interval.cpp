#include "esdirk/sensitivity/shooting_interval.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "matrix_kernels.hpp"

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

void check_vector(ConstVector v, int n, const char* what) {
  if (static_cast<int>(v.size()) != n)
    throw std::invalid_argument(std::string("ShootingInterval::integrate: ") + what + " has size " +
                                std::to_string(v.size()) + ", the problem needs " +
                                std::to_string(n));
  for (double value : v)
    if (!std::isfinite(value))
      throw std::invalid_argument(std::string("ShootingInterval::integrate: ") + what +
                                  " has non-finite entries");
}

// A shooting interval is short: its sensitivities' error test takes rtol as requested unless
// the caller chose (SensitivityTolerance).
SensitivityOptions shooting_defaults(SensitivityOptions options) {
  if (!options.error_tolerance) options.error_tolerance = SensitivityTolerance::requested;
  return options;
}

}  // namespace

// The interval's own listener, after the sensitivities: every accepted step raises the error
// estimate to its error-test norm, adds its steps to the mesh being frozen, and adds its
// quadrature of the running cost (and its derivatives, from that step's stage sensitivities).
class ShootingInterval::StepWatcher final : public StepListener {
 public:
  explicit StepWatcher(ShootingInterval& interval) : interval_(interval) {}
  AcceptVerdict on_accept(const StepView& step, DenseOutput&) override {
    ShootingInterval& s = interval_;
    s.result_.error_estimate = std::max(s.result_.error_estimate, s.integrator_->last_error_norm());
    if (s.recording_) s.recorded_.push_back(step.t_end - s.interval_start_);  // capacity reserved
    if (!s.cost_) return AcceptVerdict::proceed();
    const Status status = s.accumulate_cost(step);
    if (ok(status)) return AcceptVerdict::proceed();
    message_ = "the running cost failed or was not finite in the step from t = " + format_number(step.t);
    return AcceptVerdict::fail(status);
  }
  std::string failure_message() const override { return message_; }

 private:
  ShootingInterval& interval_;
  std::string message_;
};

ShootingInterval::ShootingInterval(Problem& problem, Options options,
                                   SensitivityOptions sensitivity)
    : nx_(problem.nx()),
      nz_(problem.nz()),
      nu_(problem.np()),
      integrator_(std::make_unique<Integrator>(problem, std::move(options))),
      sensitivity_(std::make_unique<ForwardSensitivity>(*integrator_, shooting_defaults(std::move(sensitivity)))),
      watcher_(std::make_unique<StepWatcher>(*this)) {
  integrator_->add_listener(*watcher_);
  result_.x.assign(static_cast<std::size_t>(nx_), 0.0);
  result_.z.assign(static_cast<std::size_t>(nz_), 0.0);
  result_.A.resize(nx_, nx_);
  result_.B.resize(nx_, nu_);
  result_.Az.resize(nz_, nx_);
  result_.Bz.resize(nz_, nu_);
  result_.q.assign(static_cast<std::size_t>(nx_), 0.0);
  result_.r.assign(static_cast<std::size_t>(nu_), 0.0);
  z_guess_.assign(static_cast<std::size_t>(nz_), 0.0);
  hx_.assign(static_cast<std::size_t>(nx_), 0.0);
  identity_.resize(nx_ + nu_, nx_ + nu_);
  for (int k = 0; k < nx_ + nu_; ++k) identity_(k, k) = 1.0;
  hz_.assign(static_cast<std::size_t>(nz_), 0.0);
  hu_.assign(static_cast<std::size_t>(nu_), 0.0);
}

void ShootingInterval::set_running_cost(RunningCost cost) { cost_ = std::move(cost); }

const ShootingResult& ShootingInterval::result() const {
  if (!valid_)
    throw std::logic_error(result_.message.empty()
                               ? "ShootingInterval::result: no interval has been integrated yet"
                               : "ShootingInterval::result: the last interval failed (" +
                                     result_.message + ")");
  return result_;
}

ShootingInterval::~ShootingInterval() { integrator_->remove_listener(*watcher_); }

void ShootingInterval::set_fixed_steps(int steps) {
  const long limit = integrator_->options().max_steps;
  if (steps < 1 || steps > limit)
    throw std::invalid_argument("ShootingInterval::set_fixed_steps: steps = " + std::to_string(steps) +
                                " must be in [1, Options::max_steps = " + std::to_string(limit) +
                                "] (the previous mesh is kept)");
  std::vector<double> fraction(static_cast<std::size_t>(steps) + 1);
  for (int i = 0; i <= steps; ++i) fraction[static_cast<std::size_t>(i)] = static_cast<double>(i) / steps;
  fraction.back() = 1.0;
  fixed_fraction_.swap(fraction);
  fixed_by_count_ = true;
  policy_ = MeshPolicy::fixed;
}

void ShootingInterval::set_mesh(ConstVector points) {
  const std::string who = "ShootingInterval::set_mesh: the mesh ";
  const std::string kept = " (the previous mesh is kept)";
  const long limit = integrator_->options().max_steps;
  if (points.size() < 2)
    throw std::invalid_argument(who + "has " + std::to_string(points.size()) +
                                " points; it needs at least 2 (0 and the interval's length)" + kept);
  if (static_cast<long>(points.size()) - 1 > limit)
    throw std::invalid_argument(who + "has " + std::to_string(points.size() - 1) +
                                " steps, above Options::max_steps = " + std::to_string(limit) + kept);
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!std::isfinite(points[i]))
      throw std::invalid_argument(who + "point " + std::to_string(i) + " is not finite" + kept);
  if (points[0] != 0.0)
    throw std::invalid_argument(who + "must start at 0 (points are measured from t_k), not at " +
                                format_number(points[0]) + kept);
  for (std::size_t i = 1; i < points.size(); ++i)
    if (!(points[i] > points[i - 1]))
      throw std::invalid_argument(who + "is not increasing: step " + std::to_string(i) + " from " +
                                  format_number(points[i - 1]) + " to " + format_number(points[i]) +
                                  (points[i] == points[i - 1] ? " is zero" : " is negative") + kept);
  fixed_points_.assign(points.begin(), points.end());
  fixed_by_count_ = false;
  policy_ = MeshPolicy::fixed;
}

void ShootingInterval::freeze_mesh() {
  if (policy_ == MeshPolicy::frozen) return;
  policy_ = MeshPolicy::frozen;
  have_frozen_mesh_ = false;
  // The adapting call records its steps here; a call of more steps than this grows it once.
  recorded_.reserve(256);
}

bool ShootingInterval::takes_mesh() const {
  return policy_ == MeshPolicy::fixed || (policy_ == MeshPolicy::frozen && have_frozen_mesh_);
}

// The absolute mesh of [t_k, t_end] from the fixed or frozen one; throws std::invalid_argument
// (nothing changed) when a mesh of points does not span the interval.
void ShootingInterval::prepare_mesh(double t_k, double t_end) {
  const double length = t_end - t_k;
  const bool by_count = policy_ == MeshPolicy::fixed && fixed_by_count_;
  const std::vector<double>& points =
      by_count ? fixed_fraction_ : (policy_ == MeshPolicy::fixed ? fixed_points_ : frozen_points_);
  // A mesh of points fits an interval of its own length only (to rounding of the ends' times).
  if (!by_count && std::abs(points.back() - length) > 1e-10 * std::max(length, points.back()))
    throw std::invalid_argument(
        "ShootingInterval::integrate: t_end: the interval [" + format_number(t_k) + ", " + format_number(t_end) +
        "] has length " + format_number(length) + " but the " +
        (policy_ == MeshPolicy::fixed ? std::string("mesh of set_mesh") : std::string("frozen mesh")) + " spans " +
        format_number(points.back()) +
        (policy_ == MeshPolicy::fixed ? std::string(" (set a mesh for this length)")
                                      : std::string(" (call refresh_mesh() to adapt again)")) +
        "; the mesh is kept");
  mesh_times_.resize(points.size());  // allocates only when the mesh grows
  for (std::size_t i = 0; i < points.size(); ++i) mesh_times_[i] = t_k + (by_count ? points[i] * length : points[i]);
  mesh_times_.back() = t_end;
  for (std::size_t i = 1; i < mesh_times_.size(); ++i)
    if (!(mesh_times_[i] > mesh_times_[i - 1]))
      throw std::invalid_argument("ShootingInterval::integrate: step " + std::to_string(i) +
                                  " of the mesh is below the resolution of t at t_k = " + format_number(t_k) +
                                  "; the mesh is kept");
}

// The fixed or frozen mesh: one step of each, without the error test (Integrator::replay_step,
// which ends each step exactly on its mesh point).
Outcome ShootingInterval::integrate_on_mesh(double, double t_end) {
  Integrator& solver = *integrator_;
  for (std::size_t i = 1; i < mesh_times_.size(); ++i) {
    const Status status = solver.replay_step(mesh_times_[i] - mesh_times_[i - 1], mesh_times_[i]);
    if (!ok(status)) return {status, StopReason::none, solver.t()};
  }
  std::copy(solver.x().begin(), solver.x().end(), result_.x.begin());
  std::copy(solver.z().begin(), solver.z().end(), result_.z.begin());
  return {Status::success, StopReason::reached_stop_time, t_end};
}

ShootingResult& ShootingInterval::fail(Status status, std::string message) {
  result_.status = status;
  result_.message = std::move(message);
  result_.statistics = integrator_->statistics();
  result_.statistics -= before_;
  total_ += result_.statistics;
  valid_ = false;
  started_ = false;  // the next call initializes afresh
  recording_ = false;  // a frozen mesh is only taken from a call that succeeded
  return result_;
}

// H += h sum_i b_i h(T_i, X_i, Z_i, u), and along every seed direction its derivative with the
// stage sensitivities: the quadrature that augmenting the DAE by y' = h gives for a stiffly
// accurate Runge-Kutta method (Kristensen et al. 2005, eq. 8), so q and r are derivatives of the discrete H.
// The seed is the identity over (x_k, u_k), so the control part of direction j is e_{j - nx}
// and dh/du enters r alone. The sums run in the order of the general product [h_x h_z h_u] S
// (the results are the same to the bit); the loops read local pointers, since through the
// members the compiler reloads every operand after each store into q and r (~400 instructions
// per stage of a CSTR interval, 14 % of the NMPC example's integration).
Status ShootingInterval::accumulate_cost(const StepView& step) {
  const Tableau& tab = integrator_->method();
  const StageSensitivities& stages = sensitivity_->last_stages();
  const ConstVector u = integrator_->parameters();
  const int nx = nx_, nz = nz_, nu = nu_;
  const double* hx = hx_.data();
  const double* hz = hz_.data();
  const double* hu = hu_.data();
  double* q = result_.q.data();
  double* r = result_.r.data();
  for (int i = 0; i < step.stages; ++i) {
    const double w = step.h * tab.b[static_cast<std::size_t>(i)];
    if (w == 0.0) continue;
    const ConstVector x(step.X.column(i), static_cast<std::size_t>(nx));
    const ConstVector z(step.Z.column(i), static_cast<std::size_t>(nz));
    double value = 0.0;
    const int code = cost_(step.stage_times[i], x, z, u, value, hx_, hz_, hu_);
    if (code < 0) return Status::callback_fatal;
    // 0 v is 0 for finite v and NaN otherwise: one test for the value and every gradient.
    double probe = 0.0 * value;
    for (int k = 0; k < nx; ++k) probe += 0.0 * hx[k];
    for (int k = 0; k < nz; ++k) probe += 0.0 * hz[k];
    for (int k = 0; k < nu; ++k) probe += 0.0 * hu[k];
    if (code > 0 || probe != 0.0) return Status::callback_failures;
    result_.H += w * value;
    const ConstMatrixRef SX = stages.stage_states(i), SZ = stages.stage_algebraic(i);
    for (int j = 0; j < nx + nu; ++j) {
      const double* sx = SX.column(j);
      double d = 0.0;
      for (int k = 0; k < nx; ++k) d += hx[k] * sx[k];
      if (nz > 0) {
        const double* sz = SZ.column(j);
        for (int k = 0; k < nz; ++k) d += hz[k] * sz[k];
      }
      if (j < nx) {
        q[j] += w * d;
      } else {
        d += hu[j - nx];
        r[j - nx] += w * d;
      }
    }
  }
  return Status::success;
}

const ShootingResult& ShootingInterval::integrate(double t_k, double t_end, ConstVector x_k,
                                                  ConstVector u_k, ConstVector z_guess) {
  if (!std::isfinite(t_k) || !std::isfinite(t_end))
    throw std::invalid_argument("ShootingInterval::integrate: the interval ends must be finite");
  if (!(t_end > t_k))
    throw std::invalid_argument("ShootingInterval::integrate: the interval [" + format_number(t_k) + ", " +
                                format_number(t_end) + "] has zero or negative length");
  check_vector(x_k, nx_, "x_k");
  check_vector(u_k, nu_, "the control vector u_k");
  if (!z_guess.empty()) {
    check_vector(z_guess, nz_, "z_guess");
    std::copy(z_guess.begin(), z_guess.end(), z_guess_.begin());
  }
  const bool on_mesh = takes_mesh();
  if (on_mesh) prepare_mesh(t_k, t_end);  // throws before anything changes
  result_.status = Status::success;
  result_.message.clear();
  result_.t_end = t_end;
  result_.H = 0.0;
  result_.error_estimate = 0.0;
  interval_start_ = t_k;
  recording_ = policy_ == MeshPolicy::frozen && !on_mesh;
  if (recording_) recorded_.assign(1, 0.0);
  std::fill(result_.q.begin(), result_.q.end(), 0.0);
  std::fill(result_.r.begin(), result_.r.end(), 0.0);
  valid_ = false;

  Integrator& solver = *integrator_;
  // First call: a full initialization (which resets the counters); later calls a restart, which
  // keeps the step-size guess. The interval's counters are the difference.
  before_ = started_ ? solver.statistics() : Statistics{};
  Status status = started_ ? solver.restart(t_k, x_k, z_guess_, u_k)
                           : solver.initialize(t_k, x_k, z_guess_, u_k);
  if (!ok(status))
    return fail(status,
                "consistent initialization at t_k = " + format_number(t_k) + ": " + solver.message());
  started_ = true;
  solver.set_stop_time(t_end);
  status = sensitivity_->initialize(identity_.cref());  // built once: no allocation per call
  if (!ok(status)) return fail(status, sensitivity_->message());

  const Outcome outcome = on_mesh ? integrate_on_mesh(t_k, t_end) : solver.integrate_to(t_end, result_.x, result_.z);
  if (!ok(sensitivity_->status())) return fail(sensitivity_->status(), sensitivity_->message());
  if (!ok(outcome)) return fail(outcome.status, solver.message());
  std::copy(solver.z().begin(), solver.z().end(), z_guess_.begin());  // guess for the next call
  const ConstMatrixRef Sx = sensitivity_->state_sensitivity();
  const ConstMatrixRef Sz = sensitivity_->algebraic_sensitivity();
  detail::copy(detail::cols_of(Sx, 0, nx_), result_.A.ref());
  detail::copy(detail::cols_of(Sx, nx_, nu_), result_.B.ref());
  if (nz_ > 0) {
    detail::copy(detail::cols_of(Sz, 0, nx_), result_.Az.ref());
    detail::copy(detail::cols_of(Sz, nx_, nu_), result_.Bz.ref());
  }
  if (recording_) {  // the adapting call of a frozen mesh: keep its steps
    recorded_.back() = t_end - t_k;
    frozen_points_.assign(recorded_.begin(), recorded_.end());
    have_frozen_mesh_ = true;
    recording_ = false;
    used_mesh_.assign(frozen_points_.begin(), frozen_points_.end());
  } else if (on_mesh) {
    if (policy_ == MeshPolicy::fixed && fixed_by_count_) {
      used_mesh_.resize(fixed_fraction_.size());  // allocates only when the mesh grows
      for (std::size_t i = 0; i < fixed_fraction_.size(); ++i) used_mesh_[i] = fixed_fraction_[i] * (t_end - t_k);
      used_mesh_.back() = t_end - t_k;
    } else {
      const std::vector<double>& points = policy_ == MeshPolicy::fixed ? fixed_points_ : frozen_points_;
      used_mesh_.assign(points.begin(), points.end());
    }
  } else {
    used_mesh_.clear();
  }
  result_.statistics = solver.statistics();
  result_.statistics -= before_;
  total_ += result_.statistics;
  valid_ = true;
  return result_;
}

}  // namespace esdirk
