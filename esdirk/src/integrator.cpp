#include "esdirk/integrator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <stdexcept>

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

// Root-mean-square of v_i * w_i.
double weighted_rms(const double* v, const double* w, int n) {
  if (n == 0) return 0.0;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double a = v[i] * w[i];
    sum += a * a;
  }
  return std::sqrt(sum / n);
}

bool all_finite(const double* v, int n) {
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

Options validated(Options options, const Problem& problem) {
  options.validate(problem.nx(), problem.nz());
  return options;
}

using internal::format_number;

}  // namespace

Integrator::Integrator(Problem& problem, Options options)
    : problem_(problem),
      options_(validated(std::move(options), problem)),
      tab_(options_.method),
      nx_(problem.nx()),
      nz_(problem.nz()),
      n_(problem.size()),
      s_(options_.method.stages),
      jacobians_(problem_, stats_),
      solver_(std::make_unique<DenseLuSolver>()),
      controller_(options_, options_.method.controller_order()) {
  const auto ux = static_cast<std::size_t>(nx_), uz = static_cast<std::size_t>(nz_);
  solver_->resize(nx_, nz_);
  x_.assign(ux, 0.0);
  z_.assign(uz, 0.0);
  f_.assign(ux, 0.0);
  g_.assign(uz, 0.0);
  p_.assign(static_cast<std::size_t>(problem.np()), 0.0);
  wx_.assign(ux, 1.0);
  wz_.assign(uz, 1.0);
  rtol_.resize(ux);
  atol_.resize(ux);
  atolz_.resize(uz);
  for (std::size_t i = 0; i < ux; ++i) {
    rtol_[i] = options_.rtol_vector.empty() ? options_.rtol : options_.rtol_vector[i];
    atol_[i] = options_.atol_vector.empty() ? options_.atol : options_.atol_vector[i];
  }
  for (std::size_t i = 0; i < uz; ++i)
    atolz_[i] = options_.algebraic_atol.empty() ? options_.atol : options_.algebraic_atol[i];
  jacobian_.resize(n_, n_);
  for (DenseMatrix* m : {&X_, &Xa_, &F_, &Fa_}) m->resize(nx_, s_);
  for (DenseMatrix* m : {&Z_, &Za_, &G_, &Ga_}) m->resize(nz_, s_);
  T_.assign(static_cast<std::size_t>(s_), 0.0);
  Ta_.assign(static_cast<std::size_t>(s_), 0.0);
  base_.assign(ux, 0.0);
  residual_.assign(static_cast<std::size_t>(n_), 0.0);
  error_.assign(ux, 0.0);
  dgdz_.resize(nz_, nz_);
  dgdz_pivots_.assign(uz, 0);
  z_trial_.assign(uz, 0.0);
  z_correction_.assign(uz, 0.0);
}

// ----------------------------------------------------------------------------------------------
// Setup

void Integrator::check_size(ConstVector v, int n, const char* what) const {
  if (static_cast<int>(v.size()) != n)
    throw std::invalid_argument(std::string(what) + " has size " + std::to_string(v.size()) +
                                ", the problem needs " + std::to_string(n));
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw std::invalid_argument(std::string(what) + "[" + std::to_string(i) + "] is not finite");
}

void Integrator::require_initialized(const char* who) const {
  if (!initialized_)
    throw std::logic_error(std::string(who) +
                           ": the integrator is not initialized (call initialize() first, and "
                           "check its status)");
}

Status Integrator::fail(Status status, std::string message) {
  message_ = std::string(status_name(status)) + ": " + std::move(message);
  return status;
}

Status Integrator::initialize(double t0, ConstVector x0, ConstVector z_guess, ConstVector p) {
  if (!std::isfinite(t0)) throw std::invalid_argument("initialize: t0 is not finite");
  check_size(x0, nx_, "x0");
  check_size(z_guess, nz_, "z0");
  check_size(p, problem_.np(), "p");
  initialized_ = false;
  stats_ = Statistics{};
  direction_ = 0.0;
  h_ = 0.0;
  have_stop_ = false;
  return restart(t0, x0, z_guess, p);
}

Status Integrator::restart(double t, ConstVector x, ConstVector z_guess, ConstVector p) {
  if (!std::isfinite(t)) throw std::invalid_argument("restart: t is not finite");
  check_size(x, nx_, "x");
  check_size(z_guess, nz_, "z");
  check_size(p, problem_.np(), "p");
  message_.clear();
  t_ = t;
  std::copy(x.begin(), x.end(), x_.begin());
  std::copy(z_guess.begin(), z_guess.end(), z_.begin());
  std::copy(p.begin(), p.end(), p_.begin());
  has_step_ = false;
  jacobian_current_ = false;
  controller_.reset();
  const Status status = solve_consistent_z(t_, x_, z_);
  initialized_ = ok(status);
  return status;
}

int Integrator::evaluate(double t, ConstVector x, ConstVector z, Vector f, Vector g) {
  ++stats_.function_evaluations;
  const int code = problem_.evaluate(t, x, z, p_, f, g);
  if (code != 0) return code;
  if (!all_finite(f.data(), nx_) || !all_finite(g.data(), nz_)) return 1;  // NaN/Inf: recoverable
  return 0;
}

void Integrator::error_weights(ConstVector x, Vector w) const {
  for (int i = 0; i < nx_; ++i) w[i] = 1.0 / (atol_[i] + rtol_[i] * std::abs(x[i]));
}

// Damped Newton on g(t, x, z) = 0 for z, with a fresh dg/dz at every iterate and the natural
// monotonicity test of Deuflhard on the step length.
Status Integrator::solve_consistent_z(double t, ConstVector x, Vector z) {
  int code = evaluate(t, x, z, f_, g_);
  if (code < 0) return fail(Status::callback_fatal, "f/g returned a fatal code at the initial point t = " + format_number(t));
  if (code > 0) {
    ++stats_.callback_failures;
    return fail(Status::callback_failures, "f/g failed or returned a non-finite value at the initial point t = " + format_number(t));
  }
  if (nz_ == 0) return Status::success;
  const ConstVector xc(x);
  const MatrixRef dz{residual_.data() + nx_, nz_, 1, nz_};
  for (int iteration = 0; iteration < options_.max_initialization_iterations; ++iteration) {
    code = jacobians_.state_jacobian(t, xc, z, p_, f_, g_, jacobian_.ref());
    if (code < 0) return fail(Status::callback_fatal, "the Jacobian callback returned a fatal code at t = " + format_number(t));
    if (code > 0) return fail(Status::callback_failures, "the Jacobian failed or was not finite at the initial point");
    for (int j = 0; j < nz_; ++j)
      for (int i = 0; i < nz_; ++i) dgdz_(i, j) = jacobian_(nx_ + i, nx_ + j);
    ++stats_.lu_factorizations;
    const int pivot = lu_factor(dgdz_.ref(), dgdz_pivots_.data());
    if (pivot > 0)
      return fail(Status::singular_algebraic_jacobian,
                  "dg/dz is singular at t = " + format_number(t) + " (zero pivot in column " +
                      std::to_string(pivot) + ", state " + problem_.state_name(nx_ + pivot - 1) +
                      "): the DAE is not of index 1 there, or the equations g do not determine z");
    for (int i = 0; i < nz_; ++i) {
      dz(i, 0) = g_[i];
      wz_[i] = 1.0 / (atolz_[i] + options_.rtol * std::abs(z[i]));
    }
    ++stats_.back_substitutions;
    lu_solve(dgdz_.cref(), dgdz_pivots_.data(), dz);  // dz = (dg/dz)^{-1} g; the step is -dz
    const double step_norm = weighted_rms(dz.data, wz_.data(), nz_);
    if (step_norm <= options_.initialization_tolerance) return Status::success;
    double lambda = 1.0;
    bool accepted = false;
    for (int halving = 0; halving < 12 && !accepted; ++halving, lambda *= 0.5) {
      for (int i = 0; i < nz_; ++i) z_trial_[i] = z[i] - lambda * dz(i, 0);
      const Vector g_trial(G_.column(0), static_cast<std::size_t>(nz_));
      code = evaluate(t, xc, z_trial_, base_, g_trial);
      if (code < 0) return fail(Status::callback_fatal, "f/g returned a fatal code during the consistent initialization");
      if (code > 0) continue;  // outside the model's domain: shorten the step
      // Natural monotonicity: the simplified Newton correction at the trial point must be
      // smaller than the current one.
      std::copy(g_trial.begin(), g_trial.end(), z_correction_.begin());
      const MatrixRef trial{z_correction_.data(), nz_, 1, nz_};
      ++stats_.back_substitutions;
      lu_solve(dgdz_.cref(), dgdz_pivots_.data(), trial);
      const double trial_norm = weighted_rms(trial.data, wz_.data(), nz_);
      if (trial_norm <= (1.0 - lambda / 4.0) * step_norm || trial_norm <= options_.initialization_tolerance)
        accepted = true;
      if (!accepted) continue;
      std::copy(z_trial_.begin(), z_trial_.end(), z.begin());
      std::copy(base_.begin(), base_.end(), f_.begin());
      std::copy(g_trial.begin(), g_trial.end(), g_.begin());
    }
    // A Newton correction that no damping can reduce and that is already below the error
    // tolerance is rounding noise: z is as consistent as the arithmetic allows.
    if (!accepted && step_norm <= 1.0) return Status::success;
    if (!accepted)
      return fail(Status::initialization_failed,
                  "no damped Newton step reduced the residual of g(t0, x0, z) = 0 at iteration " +
                      std::to_string(iteration) + "; give a better initial guess for z");
  }
  return fail(Status::initialization_failed,
              "Newton on g(t0, x0, z) = 0 did not converge in " +
                  std::to_string(options_.max_initialization_iterations) + " iterations");
}

// ----------------------------------------------------------------------------------------------
// Output-time handling and the driver loops

void Integrator::set_stop_time(double tstop) {
  if (!std::isfinite(tstop)) throw std::invalid_argument("set_stop_time: tstop is not finite");
  if (initialized_ && direction_ != 0.0 && (tstop - t_) * direction_ < 0.0)
    throw std::invalid_argument("set_stop_time: tstop = " + format_number(tstop) + " is behind t = " + format_number(t_));
  have_stop_ = true;
  t_stop_ = tstop;
}

void Integrator::clear_stop_time() { have_stop_ = false; }

void Integrator::set_step_observer(std::function<void(const StepRecord&)> observer) {
  observer_ = std::move(observer);
}

Status Integrator::set_direction(double tout) {
  if (!std::isfinite(tout)) throw std::invalid_argument("output time is not finite");
  if (direction_ == 0.0) {
    if (tout == t_)
      throw std::invalid_argument("output time " + format_number(tout) + " equals the initial time: nothing to integrate");
    direction_ = tout > t_ ? 1.0 : -1.0;
    if (have_stop_ && (t_stop_ - t_) * direction_ < 0.0)
      throw std::invalid_argument("the stop time is on the other side of t0 than the output time");
  }
  if ((tout - t_) * direction_ < 0.0) {
    const bool inside_last_step = has_step_ && (tout - ta_) * direction_ >= 0.0;
    if (!inside_last_step)
      throw std::invalid_argument("output time " + format_number(tout) + " is behind the current time " +
                                  format_number(t_) + " in the direction of integration");
  }
  if (h_ == 0.0) h_ = direction_ * initial_step_size(tout);
  return Status::success;
}

// Hairer & Wanner's starting-step heuristic (Solving ODEs I, II.4), with the error exponent of
// the method and z held at z0 for the explicit Euler probe.
double Integrator::initial_step_size(double tout) {
  const double span = std::abs(tout - t_);
  double bound = std::min(span, options_.max_step);
  if (have_stop_) bound = std::min(bound, std::abs(t_stop_ - t_));
  if (options_.initial_step > 0.0) return std::min(options_.initial_step, bound);
  error_weights(x_, wx_);
  const double d0 = weighted_rms(x_.data(), wx_.data(), nx_);
  const double d1 = weighted_rms(f_.data(), wx_.data(), nx_);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, bound);
  for (int i = 0; i < nx_; ++i) base_[i] = x_[i] + direction_ * h0 * f_[i];
  double h1 = 0.0;
  if (evaluate(t_ + direction_ * h0, base_, z_, error_, Vector(G_.column(0), static_cast<std::size_t>(nz_))) == 0) {
    for (int i = 0; i < nx_; ++i) error_[i] -= f_[i];
    const double d2 = weighted_rms(error_.data(), wx_.data(), nx_) / h0;
    const double dmax = std::max(d1, d2);
    h1 = dmax <= 1e-15 ? std::max(1e-6, h0 * 1e-3)
                       : std::pow(0.01 / dmax, 1.0 / tab_.controller_order());
  } else {
    h1 = h0 * 1e-2;  // f failed at the probe: start cautiously
  }
  return std::min({100.0 * h0, h1, bound});
}

Status Integrator::integrate_to(double tout, Vector x_out, Vector z_out) {
  require_initialized("integrate_to");
  if (static_cast<int>(x_out.size()) != nx_)
    throw std::invalid_argument("integrate_to: x_out has size " + std::to_string(x_out.size()) +
                                ", expected nx = " + std::to_string(nx_));
  if (!z_out.empty() && static_cast<int>(z_out.size()) != nz_)
    throw std::invalid_argument("integrate_to: z_out has size " + std::to_string(z_out.size()) +
                                ", expected 0 or nz = " + std::to_string(nz_));
  set_direction(tout);
  message_.clear();
  steps_in_call_ = 0;
  double target = tout;
  if (have_stop_ && (tout - t_stop_) * direction_ > 0.0) target = t_stop_;
  while ((target - t_) * direction_ > 0.0) {
    const Status status = take_step();
    if (!ok(status)) {
      std::copy(x_.begin(), x_.end(), x_out.begin());
      if (!z_out.empty()) std::copy(z_.begin(), z_.end(), z_out.begin());
      return status;
    }
  }
  if (target == t_ || !has_step_) {
    std::copy(x_.begin(), x_.end(), x_out.begin());
    if (!z_out.empty()) std::copy(z_.begin(), z_.end(), z_out.begin());
  } else {
    dense_output(target, x_out, z_out);
  }
  return Status::success;
}

Status Integrator::step(double tout) {
  require_initialized("step");
  set_direction(tout);
  if ((tout - t_) * direction_ <= 0.0)
    throw std::invalid_argument("step: t = " + format_number(t_) + " has already reached tout = " + format_number(tout));
  if (have_stop_ && t_ == t_stop_)
    throw std::invalid_argument("step: the integration is at the stop time " + format_number(t_stop_));
  message_.clear();
  steps_in_call_ = 0;
  return take_step();
}

// Attempts steps from t_ until one is accepted or a failure limit is hit.
Status Integrator::take_step() {
  int error_failures = 0, newton_failures = 0, callback_failures = 0, singular = 0;
  for (;;) {
    if (steps_in_call_ >= options_.max_steps)
      return fail(Status::too_many_steps, std::to_string(options_.max_steps) +
                                              " steps taken in this call without reaching the output time (t = " + format_number(t_) + ")");
    double h = direction_ * std::min(std::abs(h_), options_.max_step);
    bool hits_stop = false;
    if (have_stop_) {
      const double remaining = t_stop_ - t_;
      if (std::abs(h) >= std::abs(remaining)) {
        h = remaining;
        hits_stop = true;
      }
    }
    const double h_min = std::max(options_.min_step, 16.0 * eps * std::abs(t_));
    if (std::abs(h) < h_min && !hits_stop) {
      // Name the cause: a step that keeps failing for the same reason all the way down to
      // h_min is that failure, not a step-size problem.
      const std::string where = " while reducing the step to " + format_number(std::abs(h)) + " (< " +
                                format_number(h_min) + ") at t = " + format_number(t_);
      if (callback_failures > 0 && callback_failures >= error_failures + newton_failures)
        return fail(Status::callback_failures, "f/g kept failing or returning non-finite values" + where);
      if (newton_failures > 0 && newton_failures >= error_failures)
        return fail(Status::newton_failures, "the Newton iteration kept failing" + where);
      return fail(Status::step_size_too_small, "the error test kept failing" + where);
    }
    ++steps_in_call_;
    const Attempt attempt = attempt_step(h, hits_stop);
    const double magnitude = std::abs(h);
    switch (attempt) {
      case Attempt::accepted:
        return Status::success;
      case Attempt::error_rejected:
        h_ = direction_ * controller_.after_error_rejection(magnitude, last_error_);
        if (++error_failures >= options_.max_error_test_failures)
          return fail(Status::error_test_failures, std::to_string(error_failures) + " error-test failures in a row at t = " + format_number(t_) + " (last error norm " + format_number(last_error_) + ")");
        break;
      case Attempt::newton_failed:
        h_ = direction_ * controller_.after_newton_failure(magnitude, last_contraction_);
        if (++newton_failures >= options_.max_newton_failures)
          return fail(Status::newton_failures, std::to_string(newton_failures) + " Newton convergence failures in a row at t = " + format_number(t_) + " (step " + format_number(magnitude) + ")");
        break;
      case Attempt::callback_failed:
        h_ = direction_ * controller_.after_failure(magnitude);
        if (++callback_failures >= options_.max_callback_failures)
          return fail(Status::callback_failures, std::to_string(callback_failures) + " recoverable callback failures (or non-finite values) in a row at t = " + format_number(t_));
        break;
      case Attempt::singular:
        h_ = direction_ * controller_.after_failure(magnitude);
        if (++singular >= options_.max_newton_failures)
          return fail(Status::singular_iteration_matrix, "the iteration matrix stayed singular after " + std::to_string(singular) + " step reductions at t = " + format_number(t_));
        break;
      case Attempt::fatal:
        return fail(Status::callback_fatal, "a callback returned a fatal code near t = " + format_number(t_));
    }
  }
}

// ----------------------------------------------------------------------------------------------
// One step (seed 002, Algorithm 1 without sensitivities)

Integrator::Attempt Integrator::attempt_step(double h, bool hits_stop, bool force_accept) {
  ++stats_.steps;
  if (!jacobian_current_) {
    // One Jacobian per step, at (t_n, x_n, z_n); a retried step reuses it. Differences need
    // f and g evaluated exactly at the point (F_s of the last step satisfies the stage
    // equation, not f itself, to the Newton tolerance).
    if (!problem_.has_jacobian()) {
      --stats_.function_evaluations;  // counted as a difference evaluation below
      ++stats_.fd_function_evaluations;
      const int code = evaluate(t_, x_, z_, error_, Vector(G_.column(0), static_cast<std::size_t>(nz_)));
      if (code < 0) return Attempt::fatal;
      if (code > 0) {
        ++stats_.callback_failures;
        return Attempt::callback_failed;
      }
    }
    const ConstVector f_base = problem_.has_jacobian() ? ConstVector(f_) : ConstVector(error_);
    const ConstVector g_base = problem_.has_jacobian() ? ConstVector(g_) : ConstVector(G_.column(0), static_cast<std::size_t>(nz_));
    const int code = jacobians_.state_jacobian(t_, x_, z_, p_, f_base, g_base, jacobian_.ref());
    if (code < 0) return Attempt::fatal;
    if (code > 0) {
      ++stats_.callback_failures;
      return Attempt::callback_failed;
    }
    jacobian_current_ = true;
  }
  ++stats_.lu_factorizations;
  if (solver_->factor(jacobian_.cref(), h * tab_.gamma) != 0) return Attempt::singular;

  error_weights(x_, wx_);
  for (int i = 0; i < nz_; ++i) wz_[i] = 1.0 / (atolz_[i] + options_.rtol * std::abs(z_[i]));
  std::copy(x_.begin(), x_.end(), X_.column(0));
  std::copy(z_.begin(), z_.end(), Z_.column(0));
  std::copy(f_.begin(), f_.end(), F_.column(0));  // first stage explicit: F_1 = f(t_n, x_n, z_n)
  std::copy(g_.begin(), g_.end(), G_.column(0));
  T_[0] = t_;
  max_contraction_ = 0.0;
  last_contraction_ = 0.0;
  for (int i = 1; i < s_; ++i) {
    const Attempt stage = solve_stage(i, h);
    if (stage != Attempt::accepted) return stage;
  }

  // Error estimate e = h sum d_i F_i (20) and its norm (21) over the differential states.
  for (int k = 0; k < nx_; ++k) error_[k] = 0.0;
  for (int i = 0; i < s_; ++i) {
    const double hd = h * tab_.d(i);
    const double* Fi = F_.column(i);
    for (int k = 0; k < nx_; ++k) error_[k] += hd * Fi[k];
  }
  if (options_.filter_error_estimate) {
    // Shampine's filter (as RADAU5): M^{-1} [e; 0] damps the stiff components of e, which
    // the raw estimate overstates when h is far beyond their time scale.
    for (int k = 0; k < nx_; ++k) residual_[k] = error_[k];
    for (int k = nx_; k < n_; ++k) residual_[k] = 0.0;
    ++stats_.back_substitutions;
    solver_->solve(MatrixRef{residual_.data(), n_, 1, n_});
    for (int k = 0; k < nx_; ++k) error_[k] = residual_[k];
  }
  last_error_ = weighted_rms(error_.data(), wx_.data(), nx_);
  if (!std::isfinite(last_error_)) {
    ++stats_.callback_failures;
    return Attempt::callback_failed;
  }
  if (trial_hook_) {
    const double extra = trial_hook_(trial_step());
    last_error_ = std::isnan(extra) ? extra : std::max(last_error_, extra);
    if (!std::isfinite(last_error_)) {
      ++stats_.callback_failures;
      return Attempt::callback_failed;
    }
  }
  if (last_error_ > 1.0 && !force_accept) {
    ++stats_.rejected_steps;
    return Attempt::error_rejected;
  }
  accept_step(h, hits_stop);
  const double next = controller_.after_accept(std::abs(h), last_error_, max_contraction_);
  h_ = direction_ * std::min(next, options_.max_step);
  return Attempt::accepted;
}

// Newton iteration for stage i (0-based, i >= 1) with the LU of the step (seed 002 eqs. 17-19).
// The residual R of the current iterate is measured either through the iteration matrix,
// ||M^{-1} R|| in the weighted norm of each state (NewtonTest::preconditioned_residual: the
// default), or raw on the differential rows as in the seed (NewtonTest::residual), with the
// algebraic rows always through M^{-1} since g has no natural scale. See the theory note for
// why the raw test fails at large stiff steps (rounding in h*f exceeds tight tolerances).
Integrator::Attempt Integrator::solve_stage(int i, double h) {
  const double T = t_ + tab_.c[i] * h;
  const double hg = h * tab_.gamma;
  double* X = X_.column(i);
  double* Z = Z_.column(i);
  double* F = F_.column(i);
  double* G = G_.column(i);
  T_[i] = T;
  for (int k = 0; k < nx_; ++k) base_[k] = x_[k];
  for (int j = 0; j < i; ++j) {
    const double ha = h * tab_.A(i, j);
    const double* Fj = F_.column(j);
    for (int k = 0; k < nx_; ++k) base_[k] += ha * Fj[k];
  }
  // Predictors: X from the previous stage derivative; Z as in seed 002 section 3 (z_n for
  // stage 2, then linear inter-/extrapolation through the two previous stages).
  // (Tried: X_{i-1}, and the same inter-/extrapolation as for Z; both cost 10-50% more
  // evaluations on the test problems.)
  const double* Fprev = F_.column(i - 1);
  for (int k = 0; k < nx_; ++k) X[k] = base_[k] + hg * Fprev[k];
  if (i == 1) {
    for (int k = 0; k < nz_; ++k) Z[k] = z_[k];
  } else {
    const double c1 = tab_.c[i - 2], c2 = tab_.c[i - 1];
    const double w = (tab_.c[i] - c2) / (c2 - c1);
    const double* Z1 = Z_.column(i - 2);
    const double* Z2 = Z_.column(i - 1);
    for (int k = 0; k < nz_; ++k) Z[k] = Z2[k] + w * (Z2[k] - Z1[k]);
  }

  const ConstVector Xv(X, static_cast<std::size_t>(nx_));
  const ConstVector Zv(Z, static_cast<std::size_t>(nz_));
  const MatrixRef correction{residual_.data(), n_, 1, n_};
  double previous = 0.0;
  for (int iteration = 0; iteration < options_.max_newton_iterations; ++iteration) {
    const int code = evaluate(T, Xv, Zv, Vector(F, static_cast<std::size_t>(nx_)),
                              Vector(G, static_cast<std::size_t>(nz_)));
    if (code < 0) return Attempt::fatal;
    if (code > 0) {
      ++stats_.callback_failures;
      return Attempt::callback_failed;
    }
    ++stats_.newton_iterations;
    for (int k = 0; k < nx_; ++k) residual_[k] = X[k] - base_[k] - hg * F[k];
    for (int k = 0; k < nz_; ++k) residual_[nx_ + k] = G[k];
    double measure = 0.0;
    const bool raw = options_.newton_test == NewtonTest::residual;
    if (raw) measure = weighted_rms(residual_.data(), wx_.data(), nx_);
    const bool solve_now = !raw || nz_ > 0;
    if (solve_now) {
      ++stats_.back_substitutions;
      solver_->solve(correction);
      if (!raw) measure = weighted_rms(residual_.data(), wx_.data(), nx_);
      measure = std::max(measure, weighted_rms(residual_.data() + nx_, wz_.data(), nz_));
    }
    if (!std::isfinite(measure)) break;
    if (iteration > 0) {
      last_contraction_ = measure / previous;
      max_contraction_ = std::max(max_contraction_, last_contraction_);
      if (last_contraction_ >= 1.0) break;  // diverging
      // Give up early when even the observed rate cannot reach the tolerance within the
      // remaining iterations (Hairer & Wanner, Solving ODEs II, IV.8).
      const int remaining = options_.max_newton_iterations - 1 - iteration;
      if (measure > options_.newton_tolerance &&
          measure * std::pow(last_contraction_, remaining) > options_.newton_tolerance)
        break;
    }
    if (measure <= options_.newton_tolerance) {
      if (raw) return Attempt::accepted;  // keep F_i = f(T_i, X_i, Z_i) at the tested point
      // Apply the last correction and take the stage derivative from the stage equation,
      // F_i = (X_i - base)/(h gamma): f(X_i) itself would carry the Newton error multiplied
      // by the stiff part of the Jacobian into the error estimate h sum d_i F_i.
      for (int k = 0; k < nx_; ++k) {
        X[k] -= residual_[k];
        F[k] = (X[k] - base_[k]) / hg;
      }
      for (int k = 0; k < nz_; ++k) Z[k] -= residual_[nx_ + k];
      return Attempt::accepted;
    }
    if (!solve_now) {
      ++stats_.back_substitutions;
      solver_->solve(correction);
    }
    for (int k = 0; k < nx_; ++k) X[k] -= residual_[k];
    for (int k = 0; k < nz_; ++k) Z[k] -= residual_[nx_ + k];
    previous = measure;
  }
  ++stats_.newton_failures;
  return Attempt::newton_failed;
}

void Integrator::accept_step(double h, bool hits_stop) {
  ++stats_.accepted_steps;
  X_.swap(Xa_);
  Z_.swap(Za_);
  F_.swap(Fa_);
  G_.swap(Ga_);
  T_.swap(Ta_);
  ta_ = t_;
  ha_ = h;
  t_ = hits_stop ? t_stop_ : t_ + h;
  Ta_[s_ - 1] = t_;
  std::copy(Xa_.column(s_ - 1), Xa_.column(s_ - 1) + nx_, x_.begin());
  std::copy(Za_.column(s_ - 1), Za_.column(s_ - 1) + nz_, z_.begin());
  std::copy(Fa_.column(s_ - 1), Fa_.column(s_ - 1) + nx_, f_.begin());
  std::copy(Ga_.column(s_ - 1), Ga_.column(s_ - 1) + nz_, g_.begin());
  jacobian_current_ = false;
  has_step_ = true;
  if (observer_) observer_(last_step());
}

StepRecord Integrator::last_step() const {
  if (!has_step_) throw std::logic_error("last_step: no step has been accepted yet");
  return {ta_, ha_, s_, Xa_.cref(), Za_.cref(), Fa_.cref(), Ga_.cref(), Ta_.data()};
}

StepRecord Integrator::trial_step() const {
  return {t_, T_[s_ - 1] - t_, s_, X_.cref(), Z_.cref(), F_.cref(), G_.cref(), T_.data()};
}

void Integrator::set_trial_step_hook(std::function<double(const StepRecord&)> hook) {
  trial_hook_ = std::move(hook);
}

Status Integrator::step_exactly(double h) {
  require_initialized("step_exactly");
  if (!std::isfinite(h) || h == 0.0) throw std::invalid_argument("step_exactly: h must be finite and nonzero");
  if (direction_ == 0.0) direction_ = h > 0.0 ? 1.0 : -1.0;
  if (h * direction_ < 0.0) throw std::invalid_argument("step_exactly: h points against the direction of integration");
  message_.clear();
  switch (attempt_step(h, false, true)) {
    case Attempt::accepted: return Status::success;
    case Attempt::newton_failed: return fail(Status::newton_failures, "Newton did not converge in the fixed step at t = " + format_number(t_));
    case Attempt::singular: return fail(Status::singular_iteration_matrix, "singular iteration matrix in the fixed step at t = " + format_number(t_));
    case Attempt::fatal: return fail(Status::callback_fatal, "a callback returned a fatal code in the fixed step at t = " + format_number(t_));
    case Attempt::callback_failed:
    case Attempt::error_rejected: break;
  }
  return fail(Status::callback_failures, "a callback failed or returned non-finite values in the fixed step at t = " + format_number(t_));
}

// Continuous extension of order 3: the cubic Hermite interpolant of (x_n, F_1) and
// (x_{n+1}, F_s), written as x_n + h sum_i b_i(theta) F_i so that it is a Runge-Kutta continuous
// extension (it keeps every linear invariant of f). z: the polynomial through the stage values
// Z_i at the nodes c_i, then simplified Newton on g(t, x(t), z) = 0 with dg/dz of the step's
// Jacobian: the stage values have stage order 2 only, and the correction makes z as accurate
// as x(t) (see doc/integrator-theory.md, section 6).
void Integrator::dense_output(double t, Vector x_out, Vector z_out) {
  if (static_cast<int>(x_out.size()) != nx_ || (!z_out.empty() && static_cast<int>(z_out.size()) != nz_))
    throw std::invalid_argument("dense_output: output vectors must have sizes nx and nz (or 0)");
  if (!has_step_) {
    if (t != t_) throw std::domain_error("dense_output: no step has been taken yet");
    std::copy(x_.begin(), x_.end(), x_out.begin());
    if (!z_out.empty()) std::copy(z_.begin(), z_.end(), z_out.begin());
    return;
  }
  const double theta = (t - ta_) / ha_;
  if (!(theta >= -1e-12 && theta <= 1.0 + 1e-12))
    throw std::domain_error("dense_output: t = " + format_number(t) + " is outside the last step [" +
                            format_number(ta_) + ", " + format_number(ta_ + ha_) + "]");
  const double h01 = theta * theta * (3.0 - 2.0 * theta);
  const double h10 = theta * (1.0 - theta) * (1.0 - theta);
  const double h11 = theta * theta * (theta - 1.0);
  const double* xn = Xa_.column(0);
  for (int k = 0; k < nx_; ++k) x_out[k] = xn[k];
  for (int i = 0; i < s_; ++i) {
    double bi = h01 * tab_.b[i];
    if (i == 0) bi += h10;
    if (i == s_ - 1) bi += h11;
    const double hb = ha_ * bi;
    const double* Fi = Fa_.column(i);
    for (int k = 0; k < nx_; ++k) x_out[k] += hb * Fi[k];
  }
  if (z_out.empty() || nz_ == 0) return;
  for (int k = 0; k < nz_; ++k) z_out[k] = 0.0;
  for (int i = 0; i < s_; ++i) {
    double li = 1.0;
    for (int j = 0; j < s_; ++j)
      if (j != i) li *= (theta - tab_.c[j]) / (tab_.c[i] - tab_.c[j]);
    const double* Zi = Za_.column(i);
    for (int k = 0; k < nz_; ++k) z_out[k] += li * Zi[k];
  }
  // At the ends the stage values themselves are consistent (and must stay continuous).
  if (theta <= 1e-12 || theta >= 1.0 - 1e-12) return;
  for (int j = 0; j < nz_; ++j)
    for (int i = 0; i < nz_; ++i) dgdz_(i, j) = jacobian_(nx_ + i, nx_ + j);
  if (lu_factor(dgdz_.ref(), dgdz_pivots_.data()) != 0) return;  // keep the interpolant
  const MatrixRef correction{z_correction_.data(), nz_, 1, nz_};
  for (int iteration = 0; iteration < 2; ++iteration) {
    if (evaluate(t, x_out, z_out, base_, z_correction_) != 0) return;
    lu_solve(dgdz_.cref(), dgdz_pivots_.data(), correction);
    for (int k = 0; k < nz_; ++k) z_out[k] -= z_correction_[k];
  }
}

}  // namespace esdirk
