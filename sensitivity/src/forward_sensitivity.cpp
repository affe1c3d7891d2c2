#include "esdirk/sensitivity/forward_sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "esdirk/dense_basis.hpp"
#include "matrix_kernels.hpp"

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

}  // namespace

ForwardSensitivity::ForwardSensitivity(Integrator& integrator, SensitivityOptions options)
    : integrator_(integrator),
      jacobians_(integrator.problem(), counters_),
      stages_(integrator, std::move(options), jacobians_, counters_),
      nx_(integrator.problem().nx()),
      nz_(integrator.problem().nz()),
      np_(integrator.problem().np()) {
  integrator.require_step_jacobians("ForwardSensitivity", true);
  const int n = nx_ + nz_;
  jacobian_ = JacobianMatrix(n, integrator.problem().jacobian_structure());
  jp_.resize(n, np_);
  dgdz_.resize(nz_, nz_);
  pivots_.assign(static_cast<std::size_t>(nz_), 0);
  point_x_.assign(static_cast<std::size_t>(nx_), 0.0);
  point_z_.assign(static_cast<std::size_t>(nz_), 0.0);
  point_f_.assign(static_cast<std::size_t>(nx_), 0.0);
  point_g_.assign(static_cast<std::size_t>(nz_), 0.0);
  dense_b_.assign(static_cast<std::size_t>(integrator.method().stages), 0.0);
  integrator_.add_listener(*this);
}

ForwardSensitivity::~ForwardSensitivity() { integrator_.remove_listener(*this); }

void ForwardSensitivity::on_restart(double, RestartKind kind) {
  if (kind == RestartKind::initialize) counters_ = Statistics{};
}

std::string ForwardSensitivity::failure_message() const {
  return !trial_message_.empty() ? "sensitivities: " + trial_message_ : message_;
}

Status ForwardSensitivity::fail(Status status, std::string message) {
  status_ = status;
  message_ = std::string(status_name(status)) + ": " + std::move(message);
  return status;
}

Status ForwardSensitivity::initialize_all() {
  DenseMatrix identity(nx_ + np_, nx_ + np_);
  for (int k = 0; k < nx_ + np_; ++k) identity(k, k) = 1.0;
  return initialize(identity.cref());
}

Status ForwardSensitivity::initialize(ConstMatrixRef seed) {
  if (!integrator_.initialized())
    throw std::logic_error("ForwardSensitivity::initialize: the integrator is not initialized "
                           "(call Integrator::initialize() first and check its status)");
  if (seed.data == nullptr || seed.rows != nx_ + np_ || seed.cols < 1 || seed.ld < seed.rows)
    throw std::invalid_argument("ForwardSensitivity::initialize: the seed matrix is " +
                                std::to_string(seed.rows) + " x " + std::to_string(seed.cols) +
                                " (leading dimension " + std::to_string(seed.ld) +
                                "); it must have nx + np = " + std::to_string(nx_ + np_) +
                                " rows (initial states, then parameters) and at least one column");
  // Sizes first: a seed beyond the limits was read to the end (28 s for a 4 GB one) before
  // its size was refused.
  stages_.check_directions(seed.cols);
  if (!detail::all_finite(seed))
    throw std::invalid_argument("ForwardSensitivity::initialize: the seed matrix has non-finite entries");
  const int ns = seed.cols;
  stages_.resize(ns);  // validates error_atol against ns
  if (ns != directions_) {
    directions_ = ns;
    P_.resize(np_, ns);
    Sx_.resize(nx_, ns);
    Sz_.resize(nz_, ns);
    rhs_.resize(nz_, ns);
  }
  detail::copy(detail::rows_of(seed, 0, nx_), Sx_.ref());
  detail::copy(detail::rows_of(seed, nx_, np_), P_.ref());
  direction_scale_.resize(static_cast<std::size_t>(ns));
  set_direction_scales(seed);
  uses_parameters_ = false;
  for (int j = 0; j < ns; ++j)
    for (int k = 0; k < np_; ++k) uses_parameters_ = uses_parameters_ || P_(k, j) != 0.0;
  initialized_ = false;
  has_step_ = false;
  trial_solved_ = false;
  status_ = Status::success;
  message_.clear();
  stages_.invalidate_cache();
  t_ = integrator_.t();

  jacobians_.use_increments_of(integrator_.jacobians());
  uses_differences_ = !jacobians_.analytic() ||
                      (uses_parameters_ && !integrator_.problem().has_parameter_jacobian());
  if (nz_ > 0) {
    const Status status = algebraic_from_states(
        integrator_.t(), integrator_.x(), integrator_.z(), integrator_.current_derivative(),
        integrator_.current_algebraic_residual(), Sx_.cref(), Sz_.ref(), counters_.lu_factorizations);
    if (!ok(status)) return fail(status, message_ + " (the initial point)");
  }
  initialized_ = true;
  return Status::success;
}

// Consistent algebraic sensitivities at a point (t, x, z) with f, g there: g_x Sx + g_z Sz +
// g_p P = 0, so Sz = -g_z^{-1}(g_x Sx + g_p P) (one Jacobian, one parameter Jacobian if the seed
// has a parameter part, one LU of g_z, counted in `lu_counter`). On failure returns the status with message_ naming the
// cause (without the status name).
Status ForwardSensitivity::algebraic_from_states(double t, ConstVector x, ConstVector z, ConstVector f,
                                                 ConstVector g, ConstMatrixRef Sx, MatrixRef Sz,
                                                 long& lu_counter) {
  const ConstVector p = integrator_.parameters();
  int code = jacobians_.state_jacobian(t, x, z, p, f, g, jacobian_);
  if (code != 0) {
    message_ = "the Jacobian failed at t = " + format_number(t);
    return code < 0 ? Status::callback_fatal : Status::callback_failures;
  }
  if (jacobian_.is_dense())
    detail::multiply(detail::cols_of(jacobian_.dense(), 0, nx_), nx_, Sx, rhs_.ref(), -1.0, false);
  else
    jacobian_.multiply(nx_, 0, Sx, rhs_.ref(), -1.0, 0.0);  // -g_x Sx in the pattern's storage
  if (uses_parameters_) {
    code = jacobians_.parameter_jacobian(t, x, z, p, f, g, jp_.ref());
    if (code != 0) {
      message_ = std::string(code < 0 ? "the parameter Jacobian [f_p; g_p] returned a fatal code"
                                      : "the parameter Jacobian [f_p; g_p] failed or was not finite") +
                 " at t = " + format_number(t);
      return code < 0 ? Status::callback_fatal : Status::callback_failures;
    }
    detail::multiply(jp_.cref(), nx_, P_.cref(), rhs_.ref(), -1.0, true);
  }
  jacobian_.copy_block(nx_, nx_, dgdz_.ref());
  ++lu_counter;
  if (lu_factor(dgdz_.ref(), pivots_.data()) != 0) {
    message_ = "dg/dz is singular at t = " + format_number(t) +
               ": the algebraic sensitivities are not determined";
    return Status::singular_algebraic_jacobian;
  }
  lu_solve(dgdz_.cref(), pivots_.data(), rhs_.ref());
  counters_.back_substitutions += directions_;
  detail::copy(rhs_.cref(), Sz);
  return Status::success;
}

// The default absolute tolerance of direction j (error control without error_atol) is
// atol_i / sigma_j, the convention of CVODES's pbar generalized to any seed: sigma_j is the size
// of the seed column measured in units of the typical magnitudes of the variables it moves,
// sigma_j = 1 / max_i |seed_ij| / typical_i, typical = max(|x_k(t0)|, atol_k / rtol_k) for a
// state and |p_l| (1 if p_l = 0) for a parameter. A scaled parameter column p_l e_l has
// sigma = 1 (its sensitivities have the units of x), a unit state column e_k has sigma = typical_k
// (dx_i/dx_k(t0) ~ x_i / x_k). With the states' own atol an unscaled column is measured against
// tolerances many orders too small for it, and the error test cannot be passed.
void ForwardSensitivity::set_direction_scales(ConstMatrixRef seed) {
  const ConstVector x = integrator_.x();
  const ConstVector p = integrator_.parameters();
  const ErrorWeights& weights = integrator_.error_weights();
  active_directions_ = 0;
  for (int j = 0; j < seed.cols; ++j) {
    double largest = 0.0;
    for (int k = 0; k < nx_; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      const double typical = std::max(std::abs(x[kk]), weights.atol(k) / weights.rtol(k));
      largest = std::max(largest, std::abs(seed(k, j)) / typical);
    }
    for (int l = 0; l < np_; ++l) {
      const double pl = std::abs(p[static_cast<std::size_t>(l)]);
      largest = std::max(largest, std::abs(seed(nx_ + l, j)) / (pl > 0.0 ? pl : 1.0));
    }
    direction_scale_[static_cast<std::size_t>(j)] = largest > 0.0 ? 1.0 / largest : 1.0;
    if (largest > 0.0) ++active_directions_;
  }
}

void ForwardSensitivity::require_usable(const char* who) const {
  if (!initialized_)
    throw std::logic_error(std::string(who) + ": the sensitivities are not initialized (call "
                           "ForwardSensitivity::initialize() and check its status)");
  if (!ok(status_))
    throw std::logic_error(std::string(who) + ": the last integration of the sensitivities failed (" +
                           message_ + "); call ForwardSensitivity::initialize() again");
  if (!integrator_.message().empty())
    throw std::logic_error(std::string(who) + ": the last integration failed (" +
                           integrator_.message() + "); initialize the integrator and the sensitivities again");
  if (integrator_.t() != t_)
    throw std::logic_error(std::string(who) + ": the integrator is at t = " + format_number(integrator_.t()) +
                           " but the sensitivities at t = " + format_number(t_) +
                           " (restarted without ForwardSensitivity::initialize()?)");
}

// Error control: solve the trial step's sensitivities and measure e_S = h sum d_i SF_i. A
// failure is reported as a failed trial (recoverable: the integrator retries with a smaller
// step; fatal: the call ends).
TrialVerdict ForwardSensitivity::on_trial(const StepView& step) {
  trial_solved_ = false;
  if (!stages_.options().error_controlled() || !initialized_ || !ok(status_) || step.t != t_) return {};
  const int code = stages_.solve(step, Sx_.cref(), Sz_.cref(), P_.cref(), uses_parameters_);
  if (code != 0) {
    trial_message_ = stages_.message();
    return {0.0, code, failure_status(code)};
  }
  trial_message_.clear();
  trial_solved_ = true;
  return {sensitivity_error_norm(), 0};
}

// The status of a failed stage solve: fatal for a negative callback code; GMRES missing the
// sensitivity tolerance is the linear solver's (it was reported as a callback failure).
Status ForwardSensitivity::failure_status(int code) const {
  if (code < 0) return Status::callback_fatal;
  return stages_.linear_solver_failed() ? Status::linear_solver_failures : Status::callback_failures;
}

double ForwardSensitivity::sensitivity_error_norm() const {
  const ConstMatrixRef e = stages_.error_estimate();
  const auto& atol_dir = stages_.options().error_atol;
  const ErrorWeights& weights = integrator_.error_weights();
  const double floor = uses_differences_ ? stages_.options().difference_rtol_floor : 0.0;
  // SensitivityTolerance::requested: rtol (and atol alike) as the user gave them, the tolerance
  // rule's calibration undone.
  const bool requested =
      stages_.options().error_tolerance_or(SensitivityTolerance::states) == SensitivityTolerance::requested;
  const Options& o = integrator_.options();
  // The widening of row k does not depend on the direction: up to hoisted_rows rows it is
  // formed once per row, and without a floor or the requested rule not at all (it is then
  // max(1, 0/rtol_k, 0/rtol_k) = 1): the same bits as forming it per entry, without its two
  // divisions there. Above, per entry.
  const auto widen_of = [&](int k) {
    // Below the floor the differences' noise would set the step (difference_rtol_floor).
    const double asked = requested ? (o.rtol_vector.empty() ? o.rtol : o.rtol_vector[static_cast<std::size_t>(k)]) : 0.0;
    return std::max({1.0, floor / weights.rtol(k), asked / weights.rtol(k)});
  };
  constexpr int hoisted_rows = 32;
  double widen[hoisted_rows];
  const bool hoisted = nx_ <= hoisted_rows;
  if (hoisted) {
    const bool widened = floor != 0.0 || requested;
    for (int k = 0; k < nx_; ++k) widen[k] = widened ? widen_of(k) : 1.0;
  }
  const bool own_atol = !atol_dir.empty();
  double sum = 0.0;
  for (int j = 0; j < directions_; ++j) {
    const double* ej = e.column(j);
    const double* sj = Sx_.column(j);
    const double atol_j = own_atol ? atol_dir[static_cast<std::size_t>(j)] : 0.0;
    const double scale = direction_scale_[static_cast<std::size_t>(j)];
    const auto add = [&](int k, double widen_k) {
      const double atol = own_atol ? atol_j : weights.atol(k) / scale;
      const double w = 1.0 / (widen_k * (atol + weights.rtol(k) * std::abs(sj[k])));
      const double a = ej[k] * w;
      sum += a * a;
    };
    if (hoisted)
      for (int k = 0; k < nx_; ++k) add(k, widen[k]);
    else
      for (int k = 0; k < nx_; ++k) add(k, widen_of(k));
  }
  // RMS over the directions that move anything: a zero seed column has zero sensitivities and
  // zero error, and counting it would dilute the norm (and change the steps).
  if (active_directions_ == 0) return 0.0;
  return std::sqrt(sum / (static_cast<double>(nx_) * active_directions_));
}

AcceptVerdict ForwardSensitivity::on_accept(const StepView& step, DenseOutput&) {
  if (!initialized_ || !ok(status_)) return AcceptVerdict::proceed();
  if (step.t != t_) {
    fail(Status::initialization_failed,
         "the integrator stepped from t = " + format_number(step.t) + " but the sensitivities are at t = " +
             format_number(t_) + " (restarted without ForwardSensitivity::initialize()?)");
    return AcceptVerdict::fail(status_);
  }
  if (!trial_solved_) {
    const int code = stages_.solve(step, Sx_.cref(), Sz_.cref(), P_.cref(), uses_parameters_);
    if (code != 0) {
      fail(failure_status(code), stages_.message());
      return AcceptVerdict::fail(status_);
    }
  }
  commit(step);
  return AcceptVerdict::proceed();
}

void ForwardSensitivity::commit(const StepView& step) {
  const int s = step.stages;
  detail::copy(stages_.stage_states(s - 1), Sx_.ref());
  if (nz_ > 0) detail::copy(stages_.stage_algebraic(s - 1), Sz_.ref());
  step_t_ = step.t;
  step_h_ = step.h;
  t_ = step.t_end;
  has_step_ = true;
  trial_solved_ = false;
  trial_message_.clear();
  ++counters_.sensitivity_solves;
}

Outcome ForwardSensitivity::integrate_to(double tout, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz) {
  require_usable("ForwardSensitivity::integrate_to");
  if (static_cast<int>(x.size()) != nx_ || (!z.empty() && static_cast<int>(z.size()) != nz_))
    throw std::invalid_argument("ForwardSensitivity::integrate_to: x must have size nx = " +
                                std::to_string(nx_) + " and z size nz = " + std::to_string(nz_) + " or 0");
  if (Sx.data == nullptr || Sx.rows != nx_ || Sx.cols != directions_ || Sx.ld < Sx.rows)
    throw std::invalid_argument("ForwardSensitivity::integrate_to: Sx must be nx x ns = " +
                                std::to_string(nx_) + " x " + std::to_string(directions_));
  if (Sz.data != nullptr && (Sz.rows != nz_ || Sz.cols != directions_ || Sz.ld < Sz.rows))
    throw std::invalid_argument("ForwardSensitivity::integrate_to: Sz must be nz x ns = " +
                                std::to_string(nz_) + " x " + std::to_string(directions_) + " or empty");
  // The solution where the call stops is also the point of the algebraic dense sensitivities.
  const Outcome outcome = integrator_.integrate_to(tout, point_x_, point_z_);
  std::copy(point_x_.begin(), point_x_.end(), x.begin());
  if (!z.empty()) std::copy(point_z_.begin(), point_z_.end(), z.begin());
  if (!ok(outcome)) {
    initialized_ = false;
    if (ok(status_)) {  // the integrator's own failure: its message names the cause
      status_ = outcome.status;
      message_ = integrator_.message();
    }
    return {status_, StopReason::none, outcome.t};
  }
  const Status status = dense_output_at(outcome.t, Sx, Sz);
  if (!ok(status)) return {status, StopReason::none, outcome.t};
  return outcome;
}

ConstMatrixRef ForwardSensitivity::state_sensitivity() const {
  require_usable("ForwardSensitivity::state_sensitivity");
  return Sx_.cref();
}

ConstMatrixRef ForwardSensitivity::algebraic_sensitivity() const {
  require_usable("ForwardSensitivity::algebraic_sensitivity");
  return Sz_.cref();
}

// Sx: the derivative of the integrator's dense output x(t) = x_n + h sum_i b_i(theta) F_i,
// with the same weights (dense_weights). Sz: the derivative of the consistent z(t) at (t, x(t)).
// At the ends of the step the integrator returns the stage values themselves, so Sz is the
// stage sensitivity there.
Status ForwardSensitivity::dense_output(double t, MatrixRef Sx, MatrixRef Sz) {
  require_usable("ForwardSensitivity::dense_output");
  if (has_step_ && t != t_ && Sz.data && nz_ > 0) integrator_.dense_output(t, point_x_, point_z_);
  return dense_output_at(t, Sx, Sz);
}

// dense_output() with (x(t), z(t)) already in point_x_, point_z_ (when Sz is wanted inside the
// step).
Status ForwardSensitivity::dense_output_at(double t, MatrixRef Sx, MatrixRef Sz) {
  if (Sx.rows != nx_ || Sx.cols != directions_ || (Sz.data && (Sz.rows != nz_ || Sz.cols != directions_)))
    throw std::invalid_argument("ForwardSensitivity::dense_output: Sx must be nx x ns, Sz nz x ns or empty");
  if (t == t_ || !has_step_) {
    if (t != t_) throw std::domain_error("ForwardSensitivity::dense_output: no step has been taken yet");
    detail::copy(Sx_.cref(), Sx);
    if (Sz.data && nz_ > 0) detail::copy(Sz_.cref(), Sz);
    return Status::success;
  }
  const double theta = step_fraction(t, step_t_, step_h_, t_);
  if (std::isnan(theta))
    throw std::domain_error("ForwardSensitivity::dense_output: t = " + format_number(t) +
                            " is outside the last step [" + format_number(step_t_) + ", " + format_number(t_) + "]");
  const Tableau& tab = integrator_.method();
  const int s = tab.stages;
  dense_weights(tab, theta, dense_b_);
  detail::copy(stages_.stage_states(0), Sx);
  for (int i = 0; i < s; ++i)
    detail::add_scaled(stages_.stage_derivatives(i), Sx, step_h_ * dense_b_[static_cast<std::size_t>(i)]);
  if (!Sz.data || nz_ == 0) return Status::success;
  if (theta <= 1e-12) {
    detail::copy(stages_.stage_algebraic(0), Sz);
    return Status::success;
  }
  if (theta >= 1.0 - 1e-12) {
    detail::copy(stages_.stage_algebraic(s - 1), Sz);
    return Status::success;
  }
  // f and g at the point are needed only as the base of difference Jacobians.
  const Problem& problem = integrator_.problem();
  if (!problem.has_jacobian() || (uses_parameters_ && !problem.has_parameter_jacobian())) {
    ++counters_.fd_function_evaluations;
    int code = integrator_.problem().evaluate(t, point_x_, point_z_, integrator_.parameters(),
                                              point_f_, point_g_);
    for (double v : point_f_) code = (code == 0 && !std::isfinite(v)) ? 1 : code;
    for (double v : point_g_) code = (code == 0 && !std::isfinite(v)) ? 1 : code;
    if (code != 0) {
      const Status status = code < 0 ? Status::callback_fatal : Status::callback_failures;
      message_ = std::string(status_name(status)) + ": f/g failed at the dense-output point t = " +
                 format_number(t);
      return status;
    }
  }
  const Status status = algebraic_from_states(t, point_x_, point_z_, point_f_, point_g_, Sx, Sz,
                                              counters_.dense_output_factorizations);
  if (!ok(status)) message_ = std::string(status_name(status)) + ": " + message_ + " (dense output)";
  return status;
}

}  // namespace esdirk
