#include "esdirk/sensitivity/forward_sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "matrix_kernels.hpp"

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

}  // namespace

ForwardSensitivity::ForwardSensitivity(Integrator& integrator, SensitivityOptions options)
    : integrator_(integrator),
      stages_(integrator, std::move(options)),
      nx_(integrator.problem().nx()),
      nz_(integrator.problem().nz()),
      np_(integrator.problem().np()) {
  const int n = nx_ + nz_;
  jacobian_.resize(n, n);
  jp_.resize(n, np_);
  dgdz_.resize(nz_, nz_);
  pivots_.assign(static_cast<std::size_t>(nz_), 0);
  const Options& o = integrator.options();
  rtol_.resize(static_cast<std::size_t>(nx_));
  atol_.resize(static_cast<std::size_t>(nx_));
  for (std::size_t k = 0; k < rtol_.size(); ++k) {
    rtol_[k] = o.rtol_vector.empty() ? o.rtol : o.rtol_vector[k];
    atol_[k] = o.atol_vector.empty() ? o.atol : o.atol_vector[k];
  }
  integrator_.set_step_observer([this](const StepRecord& step) { on_accepted_step(step); });
  if (stages_.options().error_control)
    integrator_.set_trial_step_hook([this](const StepRecord& step) { return on_trial_step(step); });
}

ForwardSensitivity::~ForwardSensitivity() {
  integrator_.set_step_observer({});
  integrator_.set_trial_step_hook({});
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

  if (nz_ > 0) {
    // Consistent algebraic sensitivities: g_x Sx + g_z Sz + g_p P = 0 at the initial point.
    Statistics& stats = integrator_.statistics();
    const double t = integrator_.t();
    int code = integrator_.jacobians().state_jacobian(
        t, integrator_.x(), integrator_.z(), integrator_.parameters(),
        integrator_.current_derivative(), integrator_.current_algebraic_residual(), jacobian_.ref());
    if (code != 0)
      return fail(code < 0 ? Status::callback_fatal : Status::callback_failures,
                  "the Jacobian failed at the initial point t = " + format_number(t));
    detail::multiply(detail::cols_of(jacobian_.cref(), 0, nx_), nx_, Sx_.cref(), rhs_.ref(), -1.0, false);
    if (uses_parameters_) {
      code = integrator_.jacobians().parameter_jacobian(
          t, integrator_.x(), integrator_.z(), integrator_.parameters(),
          integrator_.current_derivative(), integrator_.current_algebraic_residual(), jp_.ref());
      if (code != 0)
        return fail(code < 0 ? Status::callback_fatal : Status::callback_failures,
                    std::string(code < 0 ? "the parameter Jacobian [f_p; g_p] returned a fatal code"
                                         : "the parameter Jacobian [f_p; g_p] failed or was not finite") +
                        " at the initial point t = " + format_number(t));
      detail::multiply(jp_.cref(), nx_, P_.cref(), rhs_.ref(), -1.0, true);
    }
    for (int j = 0; j < nz_; ++j)
      for (int i = 0; i < nz_; ++i) dgdz_(i, j) = jacobian_(nx_ + i, nx_ + j);
    ++stats.lu_factorizations;
    if (lu_factor(dgdz_.ref(), pivots_.data()) != 0)
      return fail(Status::singular_algebraic_jacobian,
                  "dg/dz is singular at t = " + format_number(t) + ": the algebraic sensitivities are not determined");
    lu_solve(dgdz_.cref(), pivots_.data(), rhs_.ref());
    stats.back_substitutions += ns;
    detail::copy(rhs_.cref(), Sz_.ref());
  }
  initialized_ = true;
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
  for (int j = 0; j < seed.cols; ++j) {
    double largest = 0.0;
    for (int k = 0; k < nx_; ++k) {
      const std::size_t kk = static_cast<std::size_t>(k);
      const double typical = std::max(std::abs(x[kk]), atol_[kk] / rtol_[kk]);
      largest = std::max(largest, std::abs(seed(k, j)) / typical);
    }
    for (int l = 0; l < np_; ++l) {
      const double pl = std::abs(p[static_cast<std::size_t>(l)]);
      largest = std::max(largest, std::abs(seed(nx_ + l, j)) / (pl > 0.0 ? pl : 1.0));
    }
    direction_scale_[static_cast<std::size_t>(j)] = largest > 0.0 ? 1.0 / largest : 1.0;
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

// Error control: solve the trial step's sensitivities and measure e_S = h sum d_i SF_i.
double ForwardSensitivity::on_trial_step(const StepRecord& step) {
  trial_solved_ = false;
  if (!initialized_ || !ok(status_) || step.t != t_) return 0.0;
  const int code = stages_.solve(step, Sx_.cref(), Sz_.cref(), P_.cref(), uses_parameters_);
  if (code != 0) {
    // Reported to the integrator as a failed trial (it retries with a smaller step).
    trial_code_ = code;
    trial_message_ = stages_.message();
    return std::numeric_limits<double>::quiet_NaN();
  }
  trial_solved_ = true;
  return sensitivity_error_norm(step);
}

double ForwardSensitivity::sensitivity_error_norm(const StepRecord&) const {
  const ConstMatrixRef e = stages_.error_estimate();
  const auto& atol_dir = stages_.options().error_atol;
  double sum = 0.0;
  for (int j = 0; j < directions_; ++j)
    for (int k = 0; k < nx_; ++k) {
      const double atol = atol_dir.empty()
                              ? atol_[static_cast<std::size_t>(k)] / direction_scale_[static_cast<std::size_t>(j)]
                              : atol_dir[static_cast<std::size_t>(j)];
      const double w = 1.0 / (atol + rtol_[static_cast<std::size_t>(k)] * std::abs(Sx_(k, j)));
      const double a = e(k, j) * w;
      sum += a * a;
    }
  return std::sqrt(sum / (static_cast<double>(nx_) * directions_));
}

void ForwardSensitivity::on_accepted_step(const StepRecord& step) {
  if (!initialized_ || !ok(status_)) return;
  if (step.t != t_) {
    fail(Status::initialization_failed,
         "the integrator stepped from t = " + format_number(step.t) + " but the sensitivities are at t = " +
             format_number(t_) + " (restarted without ForwardSensitivity::initialize()?)");
    return;
  }
  if (!trial_solved_) {
    const int code = stages_.solve(step, Sx_.cref(), Sz_.cref(), P_.cref(), uses_parameters_);
    if (code != 0) {
      fail(code < 0 ? Status::callback_fatal : Status::callback_failures, stages_.message());
      return;
    }
  }
  commit(step);
}

void ForwardSensitivity::commit(const StepRecord& step) {
  const int s = step.stages;
  detail::copy(stages_.stage_states(s - 1), Sx_.ref());
  if (nz_ > 0) detail::copy(stages_.stage_algebraic(s - 1), Sz_.ref());
  step_t_ = step.t;
  step_h_ = step.h;
  t_ = integrator_.t();
  has_step_ = true;
  trial_solved_ = false;
  trial_code_ = 0;
  trial_message_.clear();
  ++integrator_.statistics().sensitivity_solves;
}

Status ForwardSensitivity::integrate_to(double tout, Vector x, Vector z, MatrixRef Sx, MatrixRef Sz) {
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
  // The integrator's max_steps bounds one call of step(); bound the whole call here, as
  // Integrator::integrate_to does.
  const long first_step = integrator_.statistics().steps;
  for (;;) {
    if (integrator_.t() == tout) break;
    if (integrator_.statistics().steps - first_step >= integrator_.options().max_steps) {
      initialized_ = false;
      return fail(Status::too_many_steps, std::to_string(integrator_.options().max_steps) +
                                              " steps taken in this call without reaching the output time (t = " +
                                              format_number(integrator_.t()) + ")");
    }
    if (has_step_ && (tout - step_t_) * step_h_ >= 0.0 && (tout - integrator_.t()) * step_h_ <= 0.0)
      break;  // tout lies inside the last step: dense output
    const Status status = integrator_.step(tout);
    if (!ok(status)) {
      std::string why = integrator_.message();
      if (!trial_message_.empty()) why += " (sensitivities: " + trial_message_ + ")";
      const Status reported = trial_code_ < 0 ? Status::callback_fatal : status;
      initialized_ = false;
      return fail(reported, why);
    }
    if (!ok(status_)) {
      initialized_ = false;
      return status_;
    }
  }
  if (integrator_.t() == tout) {
    std::copy(integrator_.x().begin(), integrator_.x().end(), x.begin());
    if (!z.empty()) std::copy(integrator_.z().begin(), integrator_.z().end(), z.begin());
  } else {
    integrator_.dense_output(tout, x, z);
  }
  dense_output(tout, Sx, Sz);
  return Status::success;
}

ConstMatrixRef ForwardSensitivity::state_sensitivity() const {
  require_usable("ForwardSensitivity::state_sensitivity");
  return Sx_.cref();
}

ConstMatrixRef ForwardSensitivity::algebraic_sensitivity() const {
  require_usable("ForwardSensitivity::algebraic_sensitivity");
  return Sz_.cref();
}

// The derivative of the integrator's dense output (doc/integrator-*.md): x(t) = x_n +
// h sum_i b_i(theta) F_i with the cubic Hermite weights, z(t) = the polynomial through the Z_i.
void ForwardSensitivity::dense_output(double t, MatrixRef Sx, MatrixRef Sz) const {
  require_usable("ForwardSensitivity::dense_output");
  if (Sx.rows != nx_ || Sx.cols != directions_ || (Sz.data && (Sz.rows != nz_ || Sz.cols != directions_)))
    throw std::invalid_argument("ForwardSensitivity::dense_output: Sx must be nx x ns, Sz nz x ns or empty");
  if (t == t_ || !has_step_) {
    if (t != t_) throw std::domain_error("ForwardSensitivity::dense_output: no step has been taken yet");
    detail::copy(Sx_.cref(), Sx);
    if (Sz.data && nz_ > 0) detail::copy(Sz_.cref(), Sz);
    return;
  }
  const double theta = (t - step_t_) / step_h_;
  if (!(theta >= -1e-12 && theta <= 1.0 + 1e-12))
    throw std::domain_error("ForwardSensitivity::dense_output: t = " + format_number(t) +
                            " is outside the last step [" + format_number(step_t_) + ", " + format_number(t_) + "]");
  const Tableau& tab = integrator_.options().method;
  const int s = tab.stages;
  const double h01 = theta * theta * (3.0 - 2.0 * theta);
  const double h10 = theta * (1.0 - theta) * (1.0 - theta);
  const double h11 = theta * theta * (theta - 1.0);
  detail::copy(stages_.stage_states(0), Sx);
  for (int i = 0; i < s; ++i) {
    double bi = h01 * tab.b[static_cast<std::size_t>(i)];
    if (i == 0) bi += h10;
    if (i == s - 1) bi += h11;
    detail::add_scaled(stages_.stage_derivatives(i), Sx, step_h_ * bi);
  }
  if (!Sz.data || nz_ == 0) return;
  Sz.fill(0.0);
  for (int i = 0; i < s; ++i) {
    double li = 1.0;
    for (int j = 0; j < s; ++j)
      if (j != i) li *= (theta - tab.c[static_cast<std::size_t>(j)]) / (tab.c[static_cast<std::size_t>(i)] - tab.c[static_cast<std::size_t>(j)]);
    detail::add_scaled(stages_.stage_algebraic(i), Sz, li);
  }
}

}  // namespace esdirk
