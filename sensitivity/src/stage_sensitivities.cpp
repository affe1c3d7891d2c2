#include "esdirk/sensitivity/stage_sensitivities.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "matrix_kernels.hpp"

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

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
  inverse_weights_.assign(static_cast<std::size_t>(n_), 1.0);
  f_base_.assign(static_cast<std::size_t>(nx_), 0.0);
  g_base_.assign(static_cast<std::size_t>(nz_), 0.0);
  fallback_.resize(nx_, nz_);
  power_.resize(n_, n_);
  power_next_.resize(n_, n_);
  stage_scale_.assign(static_cast<std::size_t>(s_), 0.0);
}

void StageSensitivities::resize(int directions) {
  if (directions < 1)
    throw std::invalid_argument("StageSensitivities: at least one direction is needed");
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
      message_ =
          std::string(code < 0 ? "the parameter Jacobian [f_p; g_p] returned a fatal code"
                               : "the parameter Jacobian [f_p; g_p] failed or was not finite") +
          " at t = " + format_number(t);
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
    message_ = "f/g failed at the stage t = " + format_number(t) + " (base of the difference Jacobians)";
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
               " at the stage t = " + format_number(t) + " (exact sensitivities)";
  return code;
}

// Weights of the refinement test: those of the error test at (x_n, z_n).
void StageSensitivities::weights_for(const StepRecord& step) {
  const ConstVector xn(step.X.column(0), static_cast<std::size_t>(nx_));
  integrator_.error_weights(xn, Vector(weights_.data(), static_cast<std::size_t>(nx_)));
  const Options& o = integrator_.options();
  for (int k = 0; k < nz_; ++k) {
    const double atol =
        o.algebraic_atol.empty() ? o.atol : o.algebraic_atol[static_cast<std::size_t>(k)];
    weights_[static_cast<std::size_t>(nx_ + k)] = 1.0 / (atol + o.rtol * std::abs(step.Z(k, 0)));
  }
  for (int k = 0; k < n_; ++k)
    inverse_weights_[static_cast<std::size_t>(k)] = 1.0 / weights_[static_cast<std::size_t>(k)];
}

double StageSensitivities::weighted_column_max(const double* column) const {
  double m = 0.0;
  for (int k = 0; k < n_; ++k)
    m = std::max(m, std::abs(column[k]) * weights_[static_cast<std::size_t>(k)]);
  return m;
}

// Weighted max-norm of a matrix, max_i w_i sum_j |A_ij| / w_j: the operator norm that belongs
// to the weighted max-norm of the refinement test.
double StageSensitivities::weighted_matrix_norm(ConstMatrixRef A) const {
  double norm = 0.0;
  for (int i = 0; i < n_; ++i) {
    double row = 0.0;
    for (int j = 0; j < n_; ++j)
      row += std::abs(A(i, j)) * inverse_weights_[static_cast<std::size_t>(j)];
    norm = std::max(norm, row * weights_[static_cast<std::size_t>(i)]);
  }
  return norm;
}

// Exact mode: S holds M^{-1} rhs; refine towards the solution of M_i S = rhs, where M_i is the
// iteration matrix with the stage Jacobian J, by S += M^{-1}(rhs - M_i S). The sweep contracts
// like the simplified Newton iteration of the same stage did. Returns the sweeps used, or -1 if
// it did not converge (S is then solved with a factorization of M_i), -2 if M_i is singular.
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
  return fall_back(J, S, h_gamma);
}

// The refinement above, S_k = sum_{j<=k} E^j S_0 with E = I - M^{-1} M_i = -M^{-1}(M_i - M),
// summed by doubling: S_{2m+1} = S_m + E^(m+1) S_m, so k doublings give the iterate of 2^k - 1
// sweeps at the cost of k products with E's powers (squared as we go) instead of 2^k - 1
// products and triangular solves. E costs n back-substitutions of the columns of M_i - M.
// The stopping test bounds the error that is left, not just the last correction c = P S_m
// (P = E^(m+1)): the remainder after the sum is P (c + remainder), so it is at most
// |P| |c| / (1 - |P|) in the weighted max-norm; stop when that is below the tolerance times S.
int StageSensitivities::refine_stage_by_doubling(ConstMatrixRef J, ConstMatrixRef Jn, MatrixRef S,
                                                 double h_gamma) {
  const LinearSolver& lu = integrator_.last_iteration_matrix();
  Statistics& stats = integrator_.statistics();
  const int ns = directions_;
  // power_ = E = -M^{-1} (M_i - M), M_i - M = [-h*gamma (J_i - J_n)_x ; (J_i - J_n)_z].
  for (int j = 0; j < n_; ++j) {
    const double* a = J.column(j);
    const double* b = Jn.column(j);
    double* e = power_.column(j);
    for (int k = 0; k < nx_; ++k) e[k] = h_gamma * (a[k] - b[k]);
    for (int k = nx_; k < n_; ++k) e[k] = b[k] - a[k];
  }
  lu.solve(power_.ref());
  stats.back_substitutions += n_;
  int sweeps = 0;
  for (;;) {
    detail::multiply(power_.cref(), 0, S, correction_.ref(), 1.0, false);
    sweeps = 2 * sweeps + 1;
    const double p = weighted_matrix_norm(power_.cref());
    bool converged = p < 1.0;
    for (int j = 0; j < ns; ++j) {  // S += c, and the test, in one pass
      double* s = S.column(j);
      const double* c = correction_.column(j);
      double size = 0.0, change = 0.0;
      for (int k = 0; k < n_; ++k) {
        s[k] += c[k];
        const double w = weights_[static_cast<std::size_t>(k)];
        size = std::max(size, std::abs(s[k]) * w);
        change = std::max(change, std::abs(c[k]) * w);
      }
      converged = converged &&
                  (change == 0.0 || p * change <= (1.0 - p) * options_.correction_tolerance * size);
    }
    if (converged) return sweeps;
    if (sweeps >= options_.max_corrections || !std::isfinite(p)) break;
    detail::multiply(power_.cref(), 0, power_.cref(), power_next_.ref(), 1.0, false);
    power_.swap(power_next_);
  }
  detail::copy(rhs_.cref(), S);
  return fall_back(J, S, h_gamma);
}

// Refinement did not converge: factor M_i itself (counted as an LU) and solve directly.
int StageSensitivities::fall_back(ConstMatrixRef J, MatrixRef S, double h_gamma) {
  Statistics& stats = integrator_.statistics();
  ++fallbacks_;
  ++stats.lu_factorizations;
  if (fallback_.factor(J, h_gamma) != 0) return -2;
  detail::copy(rhs_.cref(), S);
  fallback_.solve(S);
  stats.back_substitutions += directions_;
  return -1;
}

// Doubling costs about 4 n^3 + 5 n^2 ns flops per stage (E, three squarings, four products
// with S), plain sweeps about 3 n^2 ns each (J S, solve) and ~10 of them on a stiff problem:
// doubling pays from ns >= n / 6 or so; the margin keeps plain sweeps for one or two
// directions of a large system.
bool StageSensitivities::doubling_pays() const { return n_ <= 4 * directions_; }

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
  // S_ = [Sx_n; Sz_n] (stage 1), SF_1 = fpP_x + J_1(0:nx, :) S_ in one product.
  MatrixRef SF1 = detail::cols_of(SF_.ref(), 0, ns);
  for (int j = 0; j < ns; ++j) {
    const double* sx = Sx.column(j);
    const double* sz = Sz.column(j);
    const double* fp = jpP_.column(j);
    double* sX = SX_.column(j);
    double* sZ = SZ_.column(j);
    double* s1 = S_.column(j);
    double* f1 = SF1.column(j);
    for (int k = 0; k < nx_; ++k) {
      sX[k] = s1[k] = sx[k];
      f1[k] = fp[k];
    }
    for (int k = 0; k < nz_; ++k) sZ[k] = s1[nx_ + k] = sz[k];
  }
  // The step's J_n is exact at (t_n, x_n, z_n) when analytic; a difference Jacobian of the
  // integrator is based on the stage-equation derivative F_s, so exact mode forms its own.
  ConstMatrixRef J1 = Jn;
  if (exact && !integrator_.problem().has_jacobian()) {
    const int code = stage_jacobian_at(step, 0);
    if (code != 0) return code;
    J1 = stage_jacobian_.cref();
  }
  detail::multiply(detail::rows_of(J1, 0, nx_), 0, S_.cref(), SF1, 1.0, true);

  // The sum of every stage value is not finite iff some entry is not (one cheap pass).
  double finite_check = 0.0;
  for (int j = 0; j < ns; ++j)
    for (int k = 0; k < nx_; ++k) finite_check += SF1(k, j);
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
    // Right-hand side [Sx_n + h sum_{j<i} a_ij SF_j + h*gamma (f_p P); -(g_p P)], also the
    // start of the solve.
    double* ha = stage_scale_.data();
    for (int l = 0; l < i; ++l) ha[l] = h * tab.A(i, l);
    for (int j = 0; j < ns; ++j) {
      double* r = rhs_.column(j);
      double* sj = S_.column(j);
      const double* sx = Sx.column(j);
      const double* fp = jpP_.column(j);
      for (int k = 0; k < nx_; ++k) r[k] = sx[k] + hg * fp[k];
      for (int l = 0; l < i; ++l) {
        if (ha[l] == 0.0) continue;
        const double* sf = SF_.column(l * ns + j);
        for (int k = 0; k < nx_; ++k) r[k] += ha[l] * sf[k];
      }
      for (int k = nx_; k < n_; ++k) r[k] = -fp[k];
      for (int k = 0; k < n_; ++k) sj[k] = r[k];
    }
    lu.solve(S_.ref());
    stats.back_substitutions += ns;
    if (exact) {
      const int sweeps = doubling_pays() ? refine_stage_by_doubling(J, Jn, S_.ref(), hg)
                                         : refine_stage(J, S_.ref(), hg);
      if (sweeps == -2) {
        message_ = "the stage iteration matrix is singular at t = " + format_number(step.stage_times[i]) +
                   " (exact sensitivities)";
        return 1;
      }
      last_max_corrections_ =
          std::max(last_max_corrections_, sweeps < 0 ? options_.max_corrections + 1 : sweeps);
    }
    // The stage values, and SF_i from the differentiated stage equation,
    // SF_i = (SX_i - Sx_n - h sum_{j<i} a_ij SF_j)/(h*gamma) = (SX_i - r_x)/(h*gamma) + (f_p P)_x,
    // which is (J_i S_i)_x + (f_p P)_x without the product (as the integrator's F_i).
    const double inverse_hg = 1.0 / hg;
    for (int j = 0; j < ns; ++j) {
      const double* sj = S_.column(j);
      const double* r = rhs_.column(j);
      const double* fp = jpP_.column(j);
      double* sX = SX_.column(i * ns + j);
      double* sZ = SZ_.column(i * ns + j);
      double* sF = SF_.column(i * ns + j);
      for (int k = 0; k < nx_; ++k) {
        sX[k] = sj[k];
        sF[k] = (sj[k] - r[k]) * inverse_hg + fp[k];
        finite_check += sF[k];
      }
      for (int k = 0; k < nz_; ++k) {
        sZ[k] = sj[nx_ + k];
        finite_check += sZ[k];
      }
    }
  }
  if (!std::isfinite(finite_check)) {
    message_ = "the stage sensitivities are not finite in the step from t = " + format_number(step.t);
    return 1;
  }

  // e_S = h sum_i d_i SF_i (seed eq. 20 applied to the sensitivities).
  double* hd = stage_scale_.data();
  for (int i = 0; i < s_; ++i) hd[i] = h * tab.d(i);
  for (int j = 0; j < ns; ++j) {
    double* e = error_.column(j);
    for (int k = 0; k < nx_; ++k) e[k] = 0.0;
    for (int i = 0; i < s_; ++i) {
      if (hd[i] == 0.0) continue;
      const double* sf = SF_.column(i * ns + j);
      for (int k = 0; k < nx_; ++k) e[k] += hd[i] * sf[k];
    }
  }
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
