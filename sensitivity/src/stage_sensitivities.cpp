#include "esdirk/sensitivity/stage_sensitivities.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "matrix_kernels.hpp"

namespace esdirk {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

StageSensitivities::StageSensitivities(Integrator& integrator, SensitivityOptions options)
    : integrator_(integrator),
      options_(std::move(options)),
      nx_(integrator.problem().nx()),
      nz_(integrator.problem().nz()),
      n_(integrator.problem().size()),
      np_(integrator.problem().np()),
      s_(integrator.options().method.stages) {
  options_.validate(static_cast<int>(options_.error_atol.size()));
  stage_jacobian_.resize(n_, n_);
  jp_.resize(n_, np_);
  jp_cache_.resize(n_, np_);
  cache_point_.assign(static_cast<std::size_t>(n_ + 1), 0.0);
  weights_.assign(static_cast<std::size_t>(n_), 1.0);
  f_base_.assign(static_cast<std::size_t>(nx_), 0.0);
  g_base_.assign(static_cast<std::size_t>(nz_), 0.0);
  fallback_.resize(nx_, nz_);
}

void StageSensitivities::resize(int directions) {
  if (directions < 1) throw std::invalid_argument("StageSensitivities: at least one direction is needed");
  if (!options_.error_atol.empty() && static_cast<int>(options_.error_atol.size()) != directions)
    options_.validate(directions);  // throws with the explanation
  if (directions == directions_) return;
  directions_ = directions;
  jpP_.resize(n_, directions);
  SX_.resize(nx_, directions * s_);
  SZ_.resize(nz_, directions * s_);
  SF_.resize(nx_, directions * s_);
  rhs_.resize(n_, directions);
  S_.resize(n_, directions);
  correction_.resize(n_, directions);
  JS_.resize(n_, directions);
  error_.resize(nx_, directions);
}

ConstMatrixRef StageSensitivities::stage_states(int i) const {
  return detail::cols_of(SX_.cref(), i * directions_, directions_);
}
ConstMatrixRef StageSensitivities::stage_algebraic(int i) const {
  return detail::cols_of(SZ_.cref(), i * directions_, directions_);
}
ConstMatrixRef StageSensitivities::stage_derivatives(int i) const {
  return detail::cols_of(SF_.cref(), i * directions_, directions_);
}

bool StageSensitivities::cache_matches(const StepRecord& step, int stage) const {
  if (!cache_valid_ || cache_point_[0] != step.stage_times[stage]) return false;
  for (int k = 0; k < nx_; ++k)
    if (cache_point_[1 + k] != step.X(k, stage)) return false;
  for (int k = 0; k < nz_; ++k)
    if (cache_point_[1 + nx_ + k] != step.Z(k, stage)) return false;
  return true;
}

void StageSensitivities::store_cache(const StepRecord& step, int stage) {
  cache_point_[0] = step.stage_times[stage];
  for (int k = 0; k < nx_; ++k) cache_point_[1 + k] = step.X(k, stage);
  for (int k = 0; k < nz_; ++k) cache_point_[1 + nx_ + k] = step.Z(k, stage);
  detail::copy(jp_.cref(), jp_cache_.ref());
  cache_valid_ = true;
}

// [f_p; g_p] at stage `stage` (0-based), then jpP_ = [f_p; g_p] P. In exact mode the last
// stage of a step is the first of the next one, so it is kept and reused once.
int StageSensitivities::parameter_jacobian_at(const StepRecord& step, int stage, ConstMatrixRef P) {
  if (cache_matches(step, stage)) {
    detail::copy(jp_cache_.cref(), jp_.ref());
  } else {
    const ConstVector x(step.X.column(stage), static_cast<std::size_t>(nx_));
    const ConstVector z(step.Z.column(stage), static_cast<std::size_t>(nz_));
    const double t = step.stage_times[stage];
    if (!integrator_.problem().has_parameter_jacobian()) {
      const int code = difference_base(step, stage);
      if (code != 0) return code;
    }
    const int code = integrator_.jacobians().parameter_jacobian(t, x, z, integrator_.parameters(),
                                                                f_base_, g_base_, jp_.ref());
    if (code != 0) {
      message_ = std::string(code < 0 ? "the parameter Jacobian [f_p; g_p] returned a fatal code"
                                      : "the parameter Jacobian [f_p; g_p] failed or was not finite") +
                 " at t = " + number(t);
      return code;
    }
    if (stage == s_ - 1 && options_.mode == SensitivityMode::exact) store_cache(step, stage);
  }
  detail::multiply(jp_.cref(), 0, P, jpP_.ref(), 1.0, false);
  return 0;
}

// f and g at a stage, the base of forward differences. The step record's F_i is the stage
// derivative of the stage equation, (X_i - base)/(h gamma), which differs from f(T_i, X_i, Z_i)
// by the Newton error: too much for a difference quotient. Counted as a difference evaluation.
int StageSensitivities::difference_base(const StepRecord& step, int stage) {
  if (base_stage_ == stage) return 0;
  const ConstVector x(step.X.column(stage), static_cast<std::size_t>(nx_));
  const ConstVector z(step.Z.column(stage), static_cast<std::size_t>(nz_));
  const double t = step.stage_times[stage];
  ++integrator_.statistics().fd_function_evaluations;
  int code = integrator_.problem().evaluate(t, x, z, integrator_.parameters(), f_base_, g_base_);
  if (code == 0) {
    for (double v : f_base_) code = std::isfinite(v) ? code : 1;
    for (double v : g_base_) code = std::isfinite(v) ? code : 1;
  }
  if (code != 0) {
    message_ = "f/g failed at the stage t = " + number(t) + " (base of the difference Jacobians)";
    return code;
  }
  base_stage_ = stage;
  return 0;
}

int StageSensitivities::stage_jacobian_at(const StepRecord& step, int stage) {
  const ConstVector x(step.X.column(stage), static_cast<std::size_t>(nx_));
  const ConstVector z(step.Z.column(stage), static_cast<std::size_t>(nz_));
  const double t = step.stage_times[stage];
  if (!integrator_.problem().has_jacobian()) {
    const int code = difference_base(step, stage);
    if (code != 0) return code;
  }
  const int code = integrator_.jacobians().state_jacobian(t, x, z, integrator_.parameters(),
                                                          f_base_, g_base_, stage_jacobian_.ref());
  if (code != 0)
    message_ = std::string(code < 0 ? "the Jacobian returned a fatal code"
                                    : "the Jacobian failed or was not finite") +
               " at the stage t = " + number(t) + " (exact sensitivities)";
  return code;
}

// Weights of the refinement test: those of the error test at (x_n, z_n).
void StageSensitivities::weights_for(const StepRecord& step) {
  const ConstVector xn(step.X.column(0), static_cast<std::size_t>(nx_));
  integrator_.error_weights(xn, Vector(weights_.data(), static_cast<std::size_t>(nx_)));
  const Options& o = integrator_.options();
  for (int k = 0; k < nz_; ++k) {
    const double atol = o.algebraic_atol.empty() ? o.atol : o.algebraic_atol[static_cast<std::size_t>(k)];
    weights_[static_cast<std::size_t>(nx_ + k)] = 1.0 / (atol + o.rtol * std::abs(step.Z(k, 0)));
  }
}

double StageSensitivities::weighted_column_max(const double* column) const {
  double m = 0.0;
  for (int k = 0; k < n_; ++k) m = std::max(m, std::abs(column[k]) * weights_[static_cast<std::size_t>(k)]);
  return m;
}

// Exact mode: S holds M^{-1} rhs; refine towards the solution of M_i S = rhs, where M_i is the
// iteration matrix with the stage Jacobian J, by S += M^{-1}(rhs - M_i S). The sweep contracts
// like the simplified Newton iteration of the same stage did. Returns the sweeps used, or -1 if
// it did not converge (S is then solved with a factorization of M_i).
int StageSensitivities::refine_stage(ConstMatrixRef J, MatrixRef S, double h_gamma) {
  const LinearSolver& lu = integrator_.last_iteration_matrix();
  Statistics& stats = integrator_.statistics();
  const int ns = directions_;
  for (int sweep = 1; sweep <= options_.max_corrections; ++sweep) {
    // correction = rhs - M_i S = rhs - [S_x - h*gamma (J S)_x ; (J S)_z]
    detail::multiply(J, 0, S, JS_.ref(), 1.0, false);
    for (int j = 0; j < ns; ++j) {
      const double* r = rhs_.column(j);
      const double* s = S.column(j);
      const double* js = JS_.column(j);
      double* c = correction_.column(j);
      for (int k = 0; k < nx_; ++k) c[k] = r[k] - s[k] + h_gamma * js[k];
      for (int k = nx_; k < n_; ++k) c[k] = r[k] - js[k];
    }
    lu.solve(correction_.ref());
    stats.back_substitutions += ns;
    detail::add_scaled(correction_.cref(), S, 1.0);
    bool converged = true;
    for (int j = 0; j < ns && converged; ++j) {
      const double size = weighted_column_max(S.column(j));
      const double change = weighted_column_max(correction_.column(j));
      converged = change <= options_.correction_tolerance * size || change == 0.0;
    }
    if (converged) return sweep;
  }
  // Fallback: factor M_i itself (counted as an LU) and solve directly.
  ++fallbacks_;
  ++stats.lu_factorizations;
  if (fallback_.factor(J, h_gamma) != 0) return -2;
  detail::copy(rhs_.cref(), S);
  fallback_.solve(S);
  stats.back_substitutions += ns;
  return -1;
}

int StageSensitivities::solve(const StepRecord& step, ConstMatrixRef Sx, ConstMatrixRef Sz,
                              ConstMatrixRef P, bool uses_parameters) {
  if (directions_ < 1) throw std::logic_error("StageSensitivities::solve: resize() was not called");
  const int ns = directions_;
  const bool exact = options_.mode == SensitivityMode::exact;
  const Tableau& tab = integrator_.options().method;
  const LinearSolver& lu = integrator_.last_iteration_matrix();
  Statistics& stats = integrator_.statistics();
  const double h = step.h;
  const double hg = lu.h_gamma();
  const ConstMatrixRef Jn = integrator_.last_jacobian();
  last_max_corrections_ = 0;
  base_stage_ = -1;
  message_.clear();
  if (exact) weights_for(step);

  // Stage 1 (explicit): SX_1 = Sx_n, SZ_1 = Sz_n, SF_1 = f_x Sx_n + f_z Sz_n + f_p P at t_n.
  if (uses_parameters) {
    const int code = parameter_jacobian_at(step, 0, P);
    if (code != 0) return code;
  } else {
    jpP_.fill(0.0);
  }
  MatrixRef SX1 = detail::cols_of(SX_.ref(), 0, ns);
  MatrixRef SZ1 = detail::cols_of(SZ_.ref(), 0, ns);
  MatrixRef SF1 = detail::cols_of(SF_.ref(), 0, ns);
  detail::copy(Sx, SX1);
  detail::copy(Sz, SZ1);
  // The step's J_n is exact at (t_n, x_n, z_n) when analytic; a difference Jacobian of the
  // integrator is based on the stage-equation derivative F_s, so exact mode forms its own.
  ConstMatrixRef J1 = Jn;
  if (exact && !integrator_.problem().has_jacobian()) {
    const int code = stage_jacobian_at(step, 0);
    if (code != 0) return code;
    J1 = stage_jacobian_.cref();
  }
  detail::multiply(detail::cols_of(J1, 0, nx_), 0, Sx, SF1, 1.0, false);
  if (nz_ > 0) detail::multiply(detail::cols_of(J1, nx_, nz_), 0, SZ1, SF1, 1.0, true);
  detail::add_scaled(detail::rows_of(jpP_.cref(), 0, nx_), SF1, 1.0);

  for (int i = 1; i < s_; ++i) {
    // Stage i's derivatives: frozen at t_n (paper) or at the converged stage (exact).
    ConstMatrixRef J = Jn;
    if (exact) {
      int code = stage_jacobian_at(step, i);
      if (code != 0) return code;
      J = stage_jacobian_.cref();
      if (uses_parameters) {
        code = parameter_jacobian_at(step, i, P);
        if (code != 0) return code;
      }
    }
    // Right-hand side [Sx_n + h sum_{j<i} a_ij SF_j + h*gamma (f_p P); -(g_p P)].
    for (int j = 0; j < ns; ++j) {
      double* r = rhs_.column(j);
      const double* sx = Sx.column(j);
      const double* fp = jpP_.column(j);
      for (int k = 0; k < nx_; ++k) r[k] = sx[k] + hg * fp[k];
      for (int k = nx_; k < n_; ++k) r[k] = -fp[k];
    }
    for (int l = 0; l < i; ++l) {
      const double ha = h * tab.A(i, l);
      if (ha != 0.0)
        detail::add_scaled(detail::cols_of(SF_.cref(), l * ns, ns), detail::rows_of(rhs_.ref(), 0, nx_), ha);
    }
    detail::copy(rhs_.cref(), S_.ref());
    lu.solve(S_.ref());
    stats.back_substitutions += ns;
    if (exact) {
      const int sweeps = refine_stage(J, S_.ref(), hg);
      if (sweeps == -2) {
        message_ = "the stage iteration matrix is singular at t = " + number(step.stage_times[i]) +
                   " (exact sensitivities)";
        return 1;
      }
      last_max_corrections_ = std::max(last_max_corrections_, sweeps < 0 ? options_.max_corrections + 1 : sweeps);
    }
    // SF_i = (J S)_x + f_p P, and the stage values.
    MatrixRef SFi = detail::cols_of(SF_.ref(), i * ns, ns);
    detail::multiply(J, 0, S_.cref(), SFi, 1.0, false);
    detail::add_scaled(detail::rows_of(jpP_.cref(), 0, nx_), SFi, 1.0);
    detail::copy(detail::rows_of(S_.cref(), 0, nx_), detail::cols_of(SX_.ref(), i * ns, ns));
    if (nz_ > 0)
      detail::copy(detail::rows_of(S_.cref(), nx_, nz_), detail::cols_of(SZ_.ref(), i * ns, ns));
  }
  if (!detail::all_finite(SF_.cref()) || !detail::all_finite(SZ_.cref())) {
    message_ = "the stage sensitivities are not finite in the step from t = " + number(step.t);
    return 1;
  }

  // e_S = h sum_i d_i SF_i (seed eq. 20 applied to the sensitivities).
  error_.fill(0.0);
  for (int i = 0; i < s_; ++i)
    if (tab.d(i) != 0.0) detail::add_scaled(stage_derivatives(i), error_.ref(), h * tab.d(i));
  if (integrator_.options().filter_error_estimate) {
    // The integrator's filter, e_S <- M^{-1} [e_S; 0], damps stiff components as for x.
    correction_.fill(0.0);
    detail::copy(error_.cref(), detail::rows_of(correction_.ref(), 0, nx_));
    lu.solve(correction_.ref());
    stats.back_substitutions += ns;
    detail::copy(detail::rows_of(correction_.cref(), 0, nx_), error_.ref());
  }
  return 0;
}

}  // namespace esdirk
