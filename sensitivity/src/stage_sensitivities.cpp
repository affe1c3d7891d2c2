#include "esdirk/sensitivity/stage_sensitivities.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "fixed_size_stages.hpp"
#include "matrix_kernels.hpp"

#include "internal/format_number.hpp"
#include "internal/stage_extrapolation.hpp"

namespace esdirk {
namespace {

using internal::format_number;

// The Krylov back-end's stage systems of the sensitivities: GMRES to the sensitivity tolerance.
JacobianStructure sensitivity_structure(JacobianStructure structure) {
  structure.krylov.tolerance = structure.krylov.sensitivity_tolerance;
  return structure;
}

}  // namespace

StageSensitivities::StageSensitivities(Integrator& integrator, SensitivityOptions options,
                                       JacobianEvaluator& jacobians, Statistics& counters)
    : integrator_(integrator),
      jacobians_(jacobians),
      stats_(counters),
      options_(std::move(options)),
      nx_(integrator.problem().nx()),
      nz_(integrator.problem().nz()),
      n_(integrator.problem().size()),
      np_(integrator.problem().np()),
      s_(integrator.method().stages) {
  options_.validate(static_cast<int>(options_.error_atol.size()));
  const JacobianStructure& structure = integrator.problem().jacobian_structure();
  structured_ = structure.solver != LinearSolverKind::dense;
  if (structured_) {
    structured_jacobian_ = JacobianMatrix(n_, structure);
    structured_stage_lu_ = std::make_unique<StageLinearSystem>(nx_, nz_, sensitivity_structure(structure));
    structured_stage_lu_->set_statistics(&stats_);  // GMRES's counters (Krylov back-end only)
    guess_weights_ = internal::stage_extrapolation_weights(integrator.method(), guess_degree);
  } else {
    stage_jacobian_.resize(n_, n_);
    stage_lu_.resize(nx_, nz_);
    power_.resize(n_, n_);
    power_next_.resize(n_, n_);
  }
  jp_.resize(n_, np_);
  jp_cache_.resize(n_, np_);
  cache_point_.assign(static_cast<std::size_t>(n_ + 1), 0.0);
  weights_.assign(static_cast<std::size_t>(n_), 1.0);
  inverse_weights_.assign(static_cast<std::size_t>(n_), 1.0);
  f_base_.assign(static_cast<std::size_t>(nx_), 0.0);
  g_base_.assign(static_cast<std::size_t>(nz_), 0.0);
  const Tableau& tab = integrator.method();
  term_start_.assign(static_cast<std::size_t>(s_) + 1, 0);
  for (int i = 0; i < s_; ++i) {
    term_start_[static_cast<std::size_t>(i)] = static_cast<int>(term_stage_.size());
    for (int l = 0; l < i; ++l)
      if (tab.A(i, l) != 0.0) {
        term_stage_.push_back(l);
        term_a_.push_back(tab.A(i, l));
      }
    if (tab.d(i) != 0.0) {
      error_stage_.push_back(i);
      error_d_.push_back(tab.d(i));
    }
  }
  term_start_[static_cast<std::size_t>(s_)] = static_cast<int>(term_stage_.size());
  term_coefficients_.assign(term_a_.size(), 0.0);
  error_coefficients_.assign(error_d_.size(), 0.0);
  term_blocks_.assign(term_a_.size(), nullptr);
  error_blocks_.assign(error_d_.size(), nullptr);
}

void StageSensitivities::check_directions(int directions) const {
  // The stage blocks hold n x (directions * stages) values.
  if (static_cast<long long>(directions) * s_ > Problem::max_size ||
      static_cast<unsigned long long>(directions) * static_cast<unsigned long long>(s_) *
              static_cast<unsigned long long>(n_) > (1ull << 40))
    throw std::length_error("StageSensitivities: " + std::to_string(directions) + " directions x " +
                            std::to_string(s_) + " stages x " + std::to_string(n_) +
                            " states of stage sensitivities");
}

void StageSensitivities::resize(int directions) {
  if (directions < 1)
    throw std::invalid_argument("StageSensitivities: at least one direction is needed");
  if (!options_.error_atol.empty() && static_cast<int>(options_.error_atol.size()) != directions)
    options_.validate(directions);  // throws with the explanation
  if (directions == directions_) return;
  check_directions(directions);
  directions_ = directions;
  jpP_.resize(n_, directions);
  values_.resize(n_, directions * s_);
  derivatives_.resize(n_, directions * s_);
  base_.resize(n_, directions);
  rhs_.resize(n_, directions);
  correction_.resize(n_, directions);
  gmres_columns_.assign(static_cast<std::size_t>(directions), nullptr);
  gmres_tolerances_.assign(static_cast<std::size_t>(directions), 0.0);
  // The directions' GMRES in lockstep pay with the built-in ILU(0) only: the problem's own
  // preconditioner takes one vector per call, so one lane keeps its memory.
  if (structured_stage_lu_)
    structured_stage_lu_->reserve_columns(integrator_.problem().has_preconditioner() ? 1 : directions);
  JS_.resize(n_, directions);
  error_.resize(n_, directions);
  // The stage blocks of the right-hand sides and the error estimate (derivatives_ is sized).
  const std::size_t block = static_cast<std::size_t>(n_) * static_cast<std::size_t>(directions);
  for (std::size_t t = 0; t < term_stage_.size(); ++t)
    term_blocks_[t] = derivatives_.data() + static_cast<std::size_t>(term_stage_[t]) * block;
  for (std::size_t t = 0; t < error_stage_.size(); ++t)
    error_blocks_[t] = derivatives_.data() + static_cast<std::size_t>(error_stage_[t]) * block;
  column_size_.assign(static_cast<std::size_t>(std::max(n_, directions)), 0.0);
  column_change_.assign(static_cast<std::size_t>(directions), 0.0);
  // M^{-1} costs n back-substitutions and then makes every stage solve a product; worth it for
  // small systems when the stages have at least n columns in all, and always in exact mode
  // (whose refinement matrix E = -M^{-1}(M_i - M) needs n back-substitutions per stage).
  use_inverse_ = !structured_ && n_ <= inverse_limit &&
                 (options_.mode == SensitivityMode::exact || (s_ - 1) * directions >= n_);
  inverse_.resize(use_inverse_ ? n_ : 0, use_inverse_ ? n_ : 0);
  factor_stages_ = options_.mode == SensitivityMode::exact &&
                   (options_.stage_solve == StageSolve::factorization ||
                    (options_.stage_solve == StageSolve::automatic && !structured_ && factorization_pays()));
  // Banded and sparse problems: the rule needs the fill of the factors, known once the step's
  // iteration matrix has been factored (the first solve).
  decide_at_solve_ = options_.mode == SensitivityMode::exact && structured_ &&
                     options_.stage_solve == StageSolve::automatic && !krylov();
  // Krylov: the step's M is solved only to the Newton forcing term, so every stage system (M_i,
  // or M itself in paper mode) is solved by its own GMRES to the sensitivity tolerance.
  if (krylov()) factor_stages_ = true;
  // The small-system fast path: a dense problem whose stages are factored, of an order with
  // fixed-size stage kernels (fixed_size_stages.hpp; the same bits as the general kernels).
  fixed_ = !structured_ && factor_stages_ ? detail::fixed_stage_kernels(n_) : nullptr;
  parameter_starts_.assign(static_cast<std::size_t>(directions) + 1, 0);
  parameter_rows_.assign(static_cast<std::size_t>(np_) * static_cast<std::size_t>(directions), 0);
  // Above it, up to order 16: the stage LU with the order known and the solve in vector lanes
  // across the directions.
  lanes_solve_ = !structured_ && factor_stages_ && fixed_ == nullptr ? detail::fixed_stage_lanes_solve(n_)
                                                                     : nullptr;
  const bool own_lu = fixed_ != nullptr || lanes_solve_ != nullptr;
  fixed_lu_.assign(own_lu ? static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_) : 0, 0.0);
  fixed_pivots_.assign(own_lu ? static_cast<std::size_t>(n_) : 0, 0);
  product_basis_.assign(fixed_ != nullptr ? static_cast<std::size_t>(n_) * static_cast<std::size_t>(np_) : 0, 0.0);
  product_seed_.assign(fixed_ != nullptr ? static_cast<std::size_t>(np_) * static_cast<std::size_t>(directions) : 0,
                       0.0);
  product_columns_.assign(fixed_ != nullptr ? static_cast<std::size_t>(directions) : 0, 0);
  product_columns_.clear();  // capacity kept: filled per seed without allocating
  product_valid_ = false;
}

// Per stage, in multiply-adds: a stage LU forms M_i, factors it and does ns back-substitutions;
// refinement does ns back-substitutions and then, per sweep and direction, J S and one more.
// The first ns back-substitutions are common, so the LU pays when forming and factoring M_i
// cost less than the sweeps. Two constants, measured with bench_sparse_cvodes --run (2-D
// Brusselator, KLU, 3 directions, rtol 1e-5; doc/linear-solvers-guide.md):
//  - expected_sweeps: the refinement took 4.2 sweeps per stage on the 1-D and the 2-D grids;
//  - flop_cost: a factorization's flop costs 0.75 of a back-substitution's multiply-add (KLU's
//    refactorization scatters and gathers through the index arrays; its flop count counts the
//    multiply and the add): with these the rule's crossover is at the measured one, the
//    16 x 16 grid (both ways equally fast; stage LUs faster at 12 x 12, refinement at 20 x 20).
bool stage_factorization_pays(const FactorizationCost& cost, double jacobian_entries, int directions) {
  if (directions < 1)
    throw std::invalid_argument("stage_factorization_pays: at least one direction is needed");
  if (!(cost.matrix_entries >= 0.0) || !(cost.factor_entries >= 0.0) ||
      !(cost.factorization_flops >= 0.0) || !(jacobian_entries >= 0.0))
    throw std::invalid_argument("stage_factorization_pays: sizes must be non-negative numbers");
  constexpr double expected_sweeps = 4.0;
  constexpr double flop_cost = 0.75;
  const double factorization = cost.matrix_entries + flop_cost * cost.factorization_flops;
  const double sweeps = expected_sweeps * directions * (cost.factor_entries + jacobian_entries);
  return factorization < sweeps;
}

ConstMatrixRef StageSensitivities::stage_states(int i) const {
  return detail::rows_of(detail::cols_of(values_.cref(), i * directions_, directions_), 0, nx_);
}
ConstMatrixRef StageSensitivities::stage_algebraic(int i) const {
  return detail::rows_of(detail::cols_of(values_.cref(), i * directions_, directions_), nx_, nz_);
}
ConstMatrixRef StageSensitivities::stage_derivatives(int i) const {
  return detail::rows_of(detail::cols_of(derivatives_.cref(), i * directions_, directions_), 0, nx_);
}
ConstMatrixRef StageSensitivities::error_estimate() const {
  return detail::rows_of(error_.cref(), 0, nx_);
}

inline std::size_t StageSensitivities::block_size() const {
  return static_cast<std::size_t>(n_) * static_cast<std::size_t>(directions_);
}

inline MatrixRef StageSensitivities::stage_block(DenseMatrix& M, int i) {
  return detail::cols_of(M.ref(), i * directions_, directions_);
}

// The small-system fast path: true if P is the seed of jpP_ (bit for bit). Otherwise P becomes
// it: its nonzero columns are found, jpP_ is zeroed (its other columns stay zero) and formed
// again at the next parameter_jacobian_at.
bool StageSensitivities::same_seed(ConstMatrixRef P) {
  bool same = product_valid_;
  if (same && P.ld == np_) {  // contiguous: one comparison
    if (std::equal(P.data, P.data + static_cast<std::size_t>(np_) * static_cast<std::size_t>(directions_),
                   product_seed_.data()))
      return true;
    same = false;
  }
  for (int j = 0; j < directions_ && same; ++j)
    same = std::equal(P.column(j), P.column(j) + np_,
                      product_seed_.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(np_));
  if (same) return true;
  product_columns_.clear();
  for (int j = 0; j < directions_; ++j) {
    const double* column = P.column(j);
    std::copy(column, column + np_, product_seed_.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(np_));
    if (std::any_of(column, column + np_, [](double v) { return v != 0.0; })) product_columns_.push_back(j);
  }
  jpP_.fill(0.0);
  product_valid_ = false;
  return false;
}

bool StageSensitivities::cache_matches(const StepView& step, int stage) const {
  if (!cache_valid_ || cache_point_[0] != step.stage_times[stage]) return false;
  for (int k = 0; k < nx_; ++k)
    if (cache_point_[1 + k] != step.X(k, stage)) return false;
  for (int k = 0; k < nz_; ++k)
    if (cache_point_[1 + nx_ + k] != step.Z(k, stage)) return false;
  return true;
}

void StageSensitivities::store_cache(const StepView& step, int stage) {
  cache_point_[0] = step.stage_times[stage];
  for (int k = 0; k < nx_; ++k) cache_point_[1 + k] = step.X(k, stage);
  for (int k = 0; k < nz_; ++k) cache_point_[1 + nx_ + k] = step.Z(k, stage);
  jp_.swap(jp_cache_);  // jp_cache_ holds it now; jp_ is written before it is read again
  cache_valid_ = true;
}

// The small-system fast path's jpP_ = [f_p; g_p] P from the [f_p; g_p] at `a` (n x np,
// contiguous). Formed again only when [f_p; g_p] changed (P is the one of the last product:
// same_seed() at the start of the solve), and only over P's nonzero columns: the others are
// zero for a finite [f_p; g_p] (each entry a sum from +0 of products with zeros, which is +0),
// and the evaluator has checked that it is finite (or the cache, when it was stored). A model
// whose [f_p; g_p] is constant (controls entering as B u with a constant B, the CSTR) forms it
// once per seed.
inline void StageSensitivities::update_product(const double* a, ConstMatrixRef P) {
  const std::size_t entries = static_cast<std::size_t>(n_) * static_cast<std::size_t>(np_);
  if (product_valid_ && std::equal(a, a + entries, product_basis_.data())) return;
  for (int j : product_columns_) fixed_->product(a, n_, np_, P.column(j), P.ld, jpP_.column(j), 1);
  std::copy(a, a + entries, product_basis_.data());
  product_valid_ = true;
}

void StageSensitivities::parameter_jacobian_failed(int code, double t) {
  message_ = std::string(code < 0 ? "the parameter Jacobian [f_p; g_p] returned a fatal code"
                                  : "the parameter Jacobian [f_p; g_p] failed or was not finite") +
             " at t = " + format_number(t);
}

// [f_p; g_p] at stage `stage` (0-based), then jpP_ = [f_p; g_p] P. In exact mode the last
// stage of a step is the first of the next one, so it is kept and reused once.
int StageSensitivities::parameter_jacobian_at(const StepView& step, int stage, ConstMatrixRef P) {
  const DenseMatrix* jp = &jp_;
  // Only a step's first stage can be the last one of the step before (its start).
  if (stage == 0 && cache_matches(step, stage)) {
    jp = &jp_cache_;  // the product reads the cache itself: jp_ is read nowhere else
  } else {
    const ConstVector x(step.X.column(stage), static_cast<std::size_t>(nx_));
    const ConstVector z(step.Z.column(stage), static_cast<std::size_t>(nz_));
    const double t = step.stage_times[stage];
    if (!analytic_parameters_) {
      const int code = difference_base(step, stage);
      if (code != 0) return code;
    }
    const int code =
        analytic_parameters_
            ? jacobians_.analytic_parameter_jacobian(t, x, z, integrator_.parameters(), jp_.ref())
            : jacobians_.parameter_jacobian(t, x, z, integrator_.parameters(), f_base_, g_base_, jp_.ref());
    if (code != 0) {
      parameter_jacobian_failed(code, t);
      return code;
    }
    if (stage == s_ - 1 && options_.mode == SensitivityMode::exact) {
      store_cache(step, stage);
      jp = &jp_cache_;
    }
  }
  if (fixed_ != nullptr)
    update_product(jp->data(), P);
  else if (sparse_parameters_)
    detail::multiply_by_sparse(jp->cref(), P, parameter_starts_.data(), parameter_rows_.data(), jpP_.ref());
  else
    detail::multiply(jp->cref(), 0, P, jpP_.ref(), 1.0, false);
  return 0;
}

// parameter_jacobian_at at a stage after the first of the small-system fast path with the
// problem's own [f_p; g_p] (no cache lookup, no difference base), inline in the stage loop.
inline int StageSensitivities::fixed_parameter_jacobian_at(const StepView& step, int stage, ConstMatrixRef P) {
  const ConstVector x(step.X.column(stage), static_cast<std::size_t>(nx_));
  const ConstVector z(step.Z.column(stage), static_cast<std::size_t>(nz_));
  const double t = step.stage_times[stage];
  const int code = jacobians_.analytic_parameter_jacobian(t, x, z, integrator_.parameters(), jp_.ref());
  if (code != 0) {
    parameter_jacobian_failed(code, t);
    return code;
  }
  const double* a = jp_.data();
  if (stage == s_ - 1) {  // exact mode (the fast path's): kept for the next step's first stage
    store_cache(step, stage);
    a = jp_cache_.data();
  }
  update_product(a, P);
  return 0;
}

// f and g at a stage, the base of forward differences. The step record's F_i is the stage
// derivative of the stage equation, (X_i - base)/(h gamma), which differs from f(T_i, X_i, Z_i)
// by the Newton error: too much for a difference quotient. Counted as a difference evaluation.
int StageSensitivities::difference_base(const StepView& step, int stage) {
  if (base_stage_ == stage) return 0;
  const ConstVector x(step.X.column(stage), static_cast<std::size_t>(nx_));
  const ConstVector z(step.Z.column(stage), static_cast<std::size_t>(nz_));
  const double t = step.stage_times[stage];
  ++stats_.fd_function_evaluations;
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

// The problem's own dense J at a stage (analytic_jacobian_), inline in the stage loop.
inline int StageSensitivities::analytic_stage_jacobian_at(const StepView& step, int stage) {
  const ConstVector x(step.X.column(stage), static_cast<std::size_t>(nx_));
  const ConstVector z(step.Z.column(stage), static_cast<std::size_t>(nz_));
  const double t = step.stage_times[stage];
  const int code = jacobians_.analytic_state_jacobian(t, x, z, integrator_.parameters(), stage_jacobian_.ref());
  if (code != 0) stage_jacobian_failed(code, t);
  return code;
}

int StageSensitivities::stage_jacobian_at(const StepView& step, int stage) {
  if (analytic_jacobian_) return analytic_stage_jacobian_at(step, stage);
  const ConstVector x(step.X.column(stage), static_cast<std::size_t>(nx_));
  const ConstVector z(step.Z.column(stage), static_cast<std::size_t>(nz_));
  const double t = step.stage_times[stage];
  if (!structured_ || !jacobians_.analytic()) {
    const int code = difference_base(step, stage);
    if (code != 0) return code;
  }
  const int code =
      structured_ ? jacobians_.state_jacobian(t, x, z, integrator_.parameters(), f_base_, g_base_,
                                              structured_jacobian_)
                  : jacobians_.state_jacobian(t, x, z, integrator_.parameters(), f_base_, g_base_,
                                              stage_jacobian_.ref());
  if (code != 0) stage_jacobian_failed(code, t);
  return code;
}

void StageSensitivities::stage_jacobian_failed(int code, double t) {
  message_ = std::string(code < 0 ? "the Jacobian returned a fatal code"
                                  : "the Jacobian failed or was not finite") +
             " at the stage t = " + format_number(t) + " (exact sensitivities)";
}

// Weights of the refinement test: those of the error test at (x_n, z_n).
void StageSensitivities::weights_for(const StepView& step) {
  const ErrorWeights& w = integrator_.error_weights();
  w.differential(ConstVector(step.X.column(0), static_cast<std::size_t>(nx_)),
                 Vector(weights_.data(), static_cast<std::size_t>(nx_)));
  w.algebraic(ConstVector(step.Z.column(0), static_cast<std::size_t>(nz_)),
              Vector(weights_.data() + nx_, static_cast<std::size_t>(nz_)));
  for (int k = 0; k < n_; ++k)
    inverse_weights_[static_cast<std::size_t>(k)] = 1.0 / weights_[static_cast<std::size_t>(k)];
  weights_ready_ = true;
}

// Weighted max-norm of a matrix, max_i w_i sum_j |A_ij| / w_j: the operator norm that belongs
// to the weighted max-norm of the refinement test.
double StageSensitivities::weighted_matrix_norm(ConstMatrixRef A) {
  double* row = column_size_.data();  // scratch of n entries (resize() sizes it >= n)
  for (int i = 0; i < n_; ++i) row[i] = 0.0;
  for (int j = 0; j < n_; ++j) {
    const double* __restrict a = A.column(j);
    const double iw = inverse_weights_[static_cast<std::size_t>(j)];
    for (int i = 0; i < n_; ++i) row[i] += std::abs(a[i]) * iw;
  }
  double norm = 0.0;
  for (int i = 0; i < n_; ++i) norm = std::max(norm, row[i] * weights_[static_cast<std::size_t>(i)]);
  return norm;
}

// Exact mode: S holds M^{-1} rhs; refine towards the solution of M_i S = rhs, where M_i is the
// iteration matrix with the stage Jacobian J, by S += M^{-1}(rhs - M_i S). The sweep contracts
// like the simplified Newton iteration of the same stage did. Returns the sweeps used, or -1 if
// it did not converge (S is then solved with a factorization of M_i), -2 if M_i is singular.
int StageSensitivities::refine_stage(const StageJacobian& J, MatrixRef S, double h_gamma) {
  const int ns = directions_;
  for (int sweep = 1; sweep <= options_.max_corrections; ++sweep) {
    // correction = rhs - M_i S = rhs - [S_x - h*gamma (J S)_x ; (J S)_z]
    multiply(J, 0, S, JS_.ref(), 1.0, false);
    for (int j = 0; j < ns; ++j) {
      const double* r = rhs_.column(j);
      const double* s = S.column(j);
      const double* js = JS_.column(j);
      double* c = correction_.column(j);
      for (int k = 0; k < nx_; ++k) c[k] = r[k] - s[k] + h_gamma * js[k];
      for (int k = nx_; k < n_; ++k) c[k] = r[k] - js[k];
    }
    apply_inverse(correction_.ref(), JS_.ref());
    detail::flat_add_scaled(1.0, correction_.data(), S.data, block_size());
    detail::column_weighted_max(S, weights_.data(), column_size_.data());
    detail::column_weighted_max(correction_.cref(), weights_.data(), column_change_.data());
    bool converged = true;
    for (int j = 0; j < ns && converged; ++j) {
      const double change = column_change_[static_cast<std::size_t>(j)];
      converged = change == 0.0 || change <= options_.correction_tolerance * column_size_[static_cast<std::size_t>(j)];
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
  const int ns = directions_;
  // power_ = E = -M^{-1} (M_i - M), M_i - M = [-h*gamma (J_i - J_n)_x ; (J_i - J_n)_z].
  for (int j = 0; j < n_; ++j) {
    const double* a = J.column(j);
    const double* b = Jn.column(j);
    double* e = power_.column(j);
    for (int k = 0; k < nx_; ++k) e[k] = h_gamma * (a[k] - b[k]);
    for (int k = nx_; k < n_; ++k) e[k] = b[k] - a[k];
  }
  apply_inverse(power_.ref(), power_next_.ref());
  int sweeps = 0;
  for (;;) {
    detail::multiply(power_.cref(), 0, S, correction_.ref(), 1.0, false);
    sweeps = 2 * sweeps + 1;
    const double p = weighted_matrix_norm(power_.cref());
    detail::flat_add_scaled(1.0, correction_.data(), S.data, block_size());
    detail::column_weighted_max(S, weights_.data(), column_size_.data());
    detail::column_weighted_max(correction_.cref(), weights_.data(), column_change_.data());
    bool converged = p < 1.0;
    for (int j = 0; j < ns && converged; ++j) {
      const double change = column_change_[static_cast<std::size_t>(j)];
      converged = change == 0.0 || p * change <= (1.0 - p) * options_.correction_tolerance *
                                                     column_size_[static_cast<std::size_t>(j)];
    }
    if (converged) return sweeps;
    if (sweeps >= options_.max_corrections || !std::isfinite(p)) break;
    detail::multiply(power_.cref(), 0, power_.cref(), power_next_.ref(), 1.0, false);
    power_.swap(power_next_);
  }
  detail::copy(rhs_.cref(), S);
  return fall_back({J, nullptr}, S, h_gamma);
}

// M_i S = rhs with an LU of the stage matrix M_i itself (counted in stage_factorizations, not
// in NLU), or on the Krylov back-end by GMRES with M_i, from the stage values extrapolated from
// the earlier stages when `stage` (> 0) says which stage S is. False, with S untouched, if M_i is
// singular.
bool StageSensitivities::solve_with_stage_matrix(const StageJacobian& J, MatrixRef S,
                                                 double h_gamma, int stage) {
  if (J.structured != nullptr && krylov() && stage > 0 &&
      integrator_.problem().jacobian_structure().krylov.sensitivity_step_preconditioner) {
    // M_i for the products, the step's preconditioner (of M with J_n): no setup per stage.
    structured_stage_lu_->factor_preconditioned_by(*J.structured, h_gamma, *matrix_);
    return solve_by_gmres_from_guess(J, S, h_gamma, stage);
  }
  ++stats_.stage_factorizations;
  if (J.structured != nullptr) {
    if (structured_stage_lu_->factor(*J.structured, h_gamma, -1) != 0) return false;
    if (krylov() && stage > 0) return solve_by_gmres_from_guess(J, S, h_gamma, stage);
    detail::copy(rhs_.cref(), S);
    structured_stage_lu_->solve(S);
    stats_.back_substitutions += directions_;
    return structured_stage_lu_->last_solve_converged();  // GMRES may miss its tolerance
  }
  if (stage_lu_.factor(J.dense, h_gamma) != 0) return false;
  detail::copy(rhs_.cref(), S);
  stage_lu_.solve(S);
  stats_.back_substitutions += directions_;
  return true;
}

// The start of stage `stage`'s solve (GMRES, or refinement with the step's LU): the earlier
// stages (stage 0 is the explicit one at t_n) extrapolated to c_stage by the polynomial through
// the (at most guess_degree + 1) nearest nodes, with the weights W(stage, j):
//  - differential rows: the stage derivative, as the states' stage predictor does. The stage
//    equation is S_i,x = rhs_x + h gamma (SF_i,x - (f_p P)_x) with SF_i = [f_x f_z] S_i + f_p P,
//    so X0_x = rhs_x + h gamma (sum_j W(stage, j) SF_j,x - (f_p P)_x): the extrapolation's error
//    enters times h gamma;
//  - algebraic rows (no derivative): the stage values, sum_j W(stage, j) S_j,z.
// Needs rhs_ and jpP_ of this stage; uses JS_ as scratch.
void StageSensitivities::extrapolate_stage(MatrixRef S, double h_gamma, int stage) {
  const int ns = directions_;
  const std::size_t block = block_size();
  std::fill(JS_.data(), JS_.data() + block, 0.0);
  if (nz_ > 0) std::fill(S.data, S.data + block, 0.0);
  for (int j = 0; j < stage; ++j) {
    const double w = guess_weights_(stage, j);
    if (w == 0.0) continue;
    detail::flat_add_scaled(w, derivatives_.column(j * ns), JS_.data(), block);
    if (nz_ > 0) detail::flat_add_scaled(w, values_.column(j * ns), S.data, block);
  }
  for (int c = 0; c < ns; ++c) {
    const double* r = rhs_.column(c);
    const double* sf = JS_.column(c);
    const double* fp = jpP_.column(c);
    double* x = S.data + static_cast<std::size_t>(c) * S.ld;
    for (int k = 0; k < nx_; ++k) x[k] = r[k] + h_gamma * (sf[k] - fp[k]);
  }
}

// Krylov back-end: GMRES on M_i S = rhs started from X0 = extrapolate_stage(). Each column
// solves M_i D = rhs - M_i X0 to a residual of sensitivity_tolerance times |rhs| (the target of
// a zero start, so the accuracy is the same), and S = X0 + D. Against a zero start the
// extrapolated values saved a quarter of the GMRES work on the 2-D Brusselator and the
// derivatives another quarter (doc/linear-solvers-guide.md, "Forward sensitivities with Krylov").
bool StageSensitivities::solve_by_gmres_from_guess(const StageJacobian& J, MatrixRef S, double h_gamma,
                                                   int stage) {
  const int ns = directions_;
  extrapolate_stage(S, h_gamma, stage);
  // correction = rhs - M_i X0 = rhs - [X0_x - h*gamma (J X0)_x ; (J X0)_z]
  multiply(J, 0, S, JS_.ref(), 1.0, false);
  const double tolerance = gmres_tolerance();
  bool converged = true;
  std::size_t solves = 0;  // the columns whose guess leaves a correction to solve for
  for (int j = 0; j < ns; ++j) {
    const double* r = rhs_.column(j);
    const double* js = JS_.column(j);
    double* x = S.data + static_cast<std::size_t>(j) * S.ld;
    double* c = correction_.column(j);
    for (int k = 0; k < nx_; ++k) c[k] = r[k] - x[k] + h_gamma * js[k];
    for (int k = nx_; k < n_; ++k) c[k] = r[k] - js[k];
    double rhs_norm = 0.0, correction_norm = 0.0;
    for (int k = 0; k < n_; ++k) rhs_norm += r[k] * r[k], correction_norm += c[k] * c[k];
    rhs_norm = std::sqrt(rhs_norm), correction_norm = std::sqrt(correction_norm);
    if (rhs_norm == 0.0 || !(correction_norm > tolerance * rhs_norm)) {
      // S = 0, as GMRES from a zero start returns it; or the guess solves it (or is not
      // finite): no correction.
      if (rhs_norm == 0.0) std::fill(x, x + n_, 0.0);
      else converged = converged && std::isfinite(correction_norm);
      std::fill(c, c + n_, 0.0);
      continue;
    }
    gmres_columns_[solves] = c;
    gmres_tolerances_[solves++] = std::min(0.5, tolerance * rhs_norm / correction_norm);
  }
  if (solves > 0) {  // all together: one pass of the preconditioner takes several columns
    structured_stage_lu_->solve_columns({gmres_columns_.data(), solves}, {gmres_tolerances_.data(), solves});
    converged = converged && structured_stage_lu_->last_solve_converged();
    for (int j = 0; j < ns; ++j) {  // the others' corrections are 0
      const double* c = correction_.column(j);
      double* x = S.data + static_cast<std::size_t>(j) * S.ld;
      for (int r = 0; r < n_; ++r) x[r] += c[r];
    }
  }
  stats_.back_substitutions += ns;
  return converged;
}

// The relative residual of the stage GMRES: KrylovSettings::sensitivity_tolerance, or
// sensitivity_error_fraction x the smallest relative tolerance of the error weights if that is
// larger (theory 8d).
double StageSensitivities::gmres_tolerance() const {
  const KrylovSettings& settings = integrator_.problem().jacobian_structure().krylov;
  if (settings.sensitivity_error_fraction == 0.0) return settings.sensitivity_tolerance;
  const ErrorWeights& w = integrator_.error_weights();
  double rtol = nz_ > 0 ? w.algebraic_rtol() : 1.0;
  for (int k = 0; k < nx_; ++k) rtol = std::min(rtol, w.rtol(k));
  return std::min(0.5, std::max(settings.sensitivity_tolerance, settings.sensitivity_error_fraction * rtol));
}

// solve_with_stage_matrix with the fixed-size kernels of order n (the LU in fixed_lu_): the same
// bits, without the copies and the dispatch of the general LU on its shape.
bool StageSensitivities::solve_with_fixed_kernels(ConstMatrixRef J, MatrixRef S, double h_gamma) {
  ++stats_.stage_factorizations;
  if (lanes_solve_(J.data, J.ld, h_gamma, nx_, fixed_lu_.data(), fixed_pivots_.data(), rhs_.data(), S.data,
                   directions_) != 0)
    return false;
  stats_.back_substitutions += directions_;
  return true;
}

// Refinement did not converge: solve with an LU of M_i itself. -1, or -2 if M_i is singular.
int StageSensitivities::fall_back(const StageJacobian& J, MatrixRef S, double h_gamma) {
  ++fallbacks_;
  return solve_with_stage_matrix(J, S, h_gamma) ? -1 : -2;
}

// Flops per stage (n states, ns directions): an LU of M_i and its solves, 2/3 n^3 + 2 n^2 ns;
// refinement by doubling, E = -M^{-1}(M_i - M) (2 n^3), two to three squarings (2 n^3 each) and
// three to four products with S (2 n^2 ns each), about 8 n^3 + 8 n^2 ns; plain sweeps (when
// doubling does not pay, n > 4 ns), about ten of 4 n^2 ns. So the stage LU is cheaper than
// doubling always and than plain sweeps unless n > 50 ns or so (a large system with one or two
// directions), where refinement with the step's single LU stays. Measured in
// bench/sensitivity (doc/sensitivity-guide.md, "Cost").
bool StageSensitivities::factorization_pays() const { return n_ <= 50 * directions_; }

// Doubling costs about 4 n^3 + 5 n^2 ns flops per stage (E, three squarings, four products
// with S), plain sweeps about 3 n^2 ns each (J S, solve) and ~10 of them on a stiff problem:
// doubling pays from ns >= n / 6 or so; the margin keeps plain sweeps for one or two
// directions of a large system.
bool StageSensitivities::doubling_pays() const { return !structured_ && n_ <= 4 * directions_; }

void StageSensitivities::multiply(const StageJacobian& J, int row_begin, ConstMatrixRef X,
                                  MatrixRef C, double alpha, bool accumulate) {
  if (J.structured != nullptr)
    J.structured->multiply(row_begin, 0, X, C, alpha, accumulate ? 1.0 : 0.0);
  else
    detail::multiply(J.dense, row_begin, X, C, alpha, accumulate);
}

// B <- M^{-1} B with the step's LU: a product with M^{-1} when it is formed, back-substitutions
// otherwise. `work` is scratch of B's shape.
void StageSensitivities::apply_inverse(MatrixRef B, MatrixRef work) {
  if (use_inverse_) {
    if (!inverse_ready_) form_inverse();
    detail::multiply(inverse_.cref(), 0, B, work, 1.0, false);
    detail::copy(work, B);
  } else {
    matrix_->solve(B);
    stats_.back_substitutions += B.cols;
  }
}

// M^{-1} from the step's LU (counted as the n back-substitutions it amounts to).
void StageSensitivities::form_inverse() {
  matrix_->invert(inverse_.ref());
  stats_.back_substitutions += n_;
  inverse_ready_ = true;
}

// base_ = [Sx_n + h*gamma (f_p P)_x ; -(g_p P)_z]: the part of stage i's right-hand side that
// does not depend on the earlier stages (jpP_ of the stage; fixed over the step in paper mode).
void StageSensitivities::form_base(double h_gamma) {
  const ConstMatrixRef S0 = stage_block(values_, 0);
  for (int j = 0; j < directions_; ++j) {
    const double* __restrict s = S0.column(j);
    const double* __restrict fp = jpP_.column(j);
    double* __restrict b = base_.column(j);
    const int nx = nx_, n = n_;
    for (int k = 0; k < nx; ++k) b[k] = s[k] + h_gamma * fp[k];
    for (int k = nx; k < n; ++k) b[k] = -fp[k];
  }
}

// The coefficients h a_il of every stage's terms and h d_i of the error estimate, for the step
// size h (formed again only when h changes: a fixed mesh of equal steps forms them once).
void StageSensitivities::form_coefficients(double h) {
  if (coefficients_ready_ && h == coefficients_h_) return;
  for (std::size_t t = 0; t < term_a_.size(); ++t) term_coefficients_[t] = h * term_a_[t];
  for (std::size_t t = 0; t < error_d_.size(); ++t) error_coefficients_[t] = h * error_d_[t];
  coefficients_h_ = h;
  coefficients_ready_ = true;
}

// The terms of stage i's right-hand side: h a_il and SF_l for the nonzero a_il, l < i (arrays of
// their number, which is returned).
inline int StageSensitivities::rhs_terms(int i, double h, const double*& coefficients,
                                         const double* const*& blocks) {
  form_coefficients(h);
  const int first = term_start_[static_cast<std::size_t>(i)];
  coefficients = term_coefficients_.data() + first;
  blocks = term_blocks_.data() + first;
  return term_start_[static_cast<std::size_t>(i) + 1] - first;
}

// rhs_ = base + h sum_{l<i} a_il SF_l (the stage sensitivities' right-hand side, Kristensen et al. 2005, eq. 17)
// in one call with plain loops over the contiguous block. The base is [Sx_n + h*gamma (f_p P)_x ;
// -(g_p P)_z], formed straight into rhs_ from jpP_ if `fresh_base` (exact mode: jpP_ belongs to
// the stage), else copied from base_ (paper mode: fixed over the step). Every entry sees the
// operations of form_base, the copy and one scaled addition per stage in that order, so the
// bits are those of the separate kernel calls this replaces.
void StageSensitivities::form_rhs(int i, double h, double h_gamma, bool fresh_base) {
  const double* coefficients = nullptr;
  const double* const* blocks = nullptr;
  const int terms = rhs_terms(i, h, coefficients, blocks);
  double* __restrict rhs = rhs_.data();
  if (fresh_base) {  // values_'s first block is stage 1's: [Sx_n; Sz_n]
    detail::stage_right_hand_side(nx_, n_, directions_, values_.data(), jpP_.data(), h_gamma, terms,
                                  coefficients, blocks, rhs);
    return;
  }
  const std::size_t size = block_size();
  std::copy(base_.data(), base_.data() + size, rhs);
  for (int t = 0; t < terms; ++t) {
    const double c = coefficients[t];
    const double* __restrict sf = blocks[t];
    for (std::size_t q = 0; q < size; ++q) rhs[q] += c * sf[q];
  }
}

// The step's own factored iteration matrix and Jacobian J_n (trial or accepted step alike), and
// the per-step decisions; returns J_n.
[[gnu::always_inline]] inline StageSensitivities::StageJacobian StageSensitivities::start_step(const StepView& step, bool uses_parameters) {
  if (directions_ < 1) throw std::logic_error("StageSensitivities::solve: resize() was not called");
  if (step.matrix == nullptr)
    throw std::logic_error("StageSensitivities::solve: the step has no iteration matrix (a recorded "
                           "step must be replayed through the integrator)");
  matrix_ = step.matrix;
  if (decide_at_solve_) {
    factor_stages_ = stage_factorization_pays(matrix_->factorization_cost(),
                                              structured_jacobian_.pattern().nonzeros(), directions_);
    decide_at_solve_ = false;
  }
  if (structured_ && step.jacobian_matrix == nullptr)
    throw std::logic_error("StageSensitivities::solve: the step of a banded or sparse problem has "
                           "no Jacobian (a recorded step must be replayed through the integrator)");
  last_max_corrections_ = 0;
  base_stage_ = -1;
  message_.clear();
  linear_solver_failed_ = false;
  analytic_jacobian_ = !structured_ && integrator_.problem().has_jacobian();
  analytic_parameters_ = uses_parameters && integrator_.problem().has_parameter_jacobian();
  weights_ready_ = false;  // formed for the first stage that needs refinement
  inverse_ready_ = false;  // M^{-1} of this step is formed when first needed
  return StageJacobian{step.jacobian, structured_ ? step.jacobian_matrix : nullptr};
}

// Stage 1 (explicit): [SX_1; SZ_1] = [Sx_n; Sz_n], SF_1 = f_x Sx_n + f_z Sz_n + f_p P at t_n.
[[gnu::always_inline]] inline int StageSensitivities::first_stage(const StepView& step, const StageJacobian& Jn, ConstMatrixRef Sx,
                                    ConstMatrixRef Sz, ConstMatrixRef P, bool uses_parameters, bool exact) {
  const int ns = directions_;
  const std::size_t block = block_size();
  const double hg = matrix_->h_gamma();
  // The seed's parameter part is mostly a few scaled unit columns: its pattern, once per step,
  // makes [f_p; g_p] P a few column updates (the same bits as the dense product).
  if (uses_parameters && fixed_ == nullptr)
    sparse_parameters_ = 2 * detail::sparse_columns({P.data, np_, ns, P.ld}, parameter_starts_.data(),
                                                    parameter_rows_.data()) <= np_ * ns;
  if (uses_parameters && fixed_ != nullptr) same_seed(P);
  if (uses_parameters) {
    const int code = parameter_jacobian_at(step, 0, P);
    if (code != 0) return code;
  } else {
    jpP_.fill(0.0);
    product_valid_ = false;
  }
  const MatrixRef S1 = stage_block(values_, 0), SF1 = stage_block(derivatives_, 0);
  if (nz_ == 0 && Sx.ld == nx_) {  // an ODE with contiguous Sx: the blocks in one copy each
    std::copy(Sx.data, Sx.data + block, S1.data);
    std::copy(jpP_.data(), jpP_.data() + block, SF1.data);
  } else {
    for (int j = 0; j < ns; ++j) {
      double* s1 = S1.column(j);
      double* f1 = SF1.column(j);
      const double* fp = jpP_.column(j);
      for (int k = 0; k < nx_; ++k) {
        s1[k] = Sx(k, j);
        f1[k] = fp[k];
      }
      for (int k = 0; k < nz_; ++k) {
        s1[nx_ + k] = Sz(k, j);
        f1[nx_ + k] = 0.0;  // derivative blocks keep zero algebraic rows (see below)
      }
    }
  }
  // The step's J_n is exact at (t_n, x_n, z_n) when analytic; a difference Jacobian of the
  // integrator is based on the stage-equation derivative F_s, so exact mode forms its own.
  StageJacobian J1 = Jn;
  if (exact && (structured_ ? !jacobians_.analytic() : !analytic_jacobian_)) {
    const int code = stage_jacobian_at(step, 0);
    if (code != 0) return code;
    J1 = current_stage_jacobian();
  }
  if (fixed_ != nullptr && J1.structured == nullptr)
    fixed_->add_product(J1.dense.data, J1.dense.ld, nx_, S1.data, SF1.data, ns);
  else
    multiply(J1, 0, S1, detail::rows_of(SF1, 0, nx_), 1.0, true);
  if (!exact) form_base(hg);

  return 0;
}

// Stage i >= 2: its Jacobians (exact mode), the right-hand side, the solve and SF_i.
[[gnu::always_inline]] inline int StageSensitivities::later_stage(const StepView& step, int i, const StageJacobian& Jn, ConstMatrixRef P,
                                    bool uses_parameters, bool exact) {
  const int ns = directions_;
  const std::size_t block = block_size();
  const double h = step.h;
  const double hg = matrix_->h_gamma();
  const double inverse_hg = 1.0 / hg;
  // Stage i's derivatives: frozen at t_n (paper) or at the converged stage (exact).
  StageJacobian J = Jn;
  if (exact) {
    int code = analytic_jacobian_ ? analytic_stage_jacobian_at(step, i) : stage_jacobian_at(step, i);
    if (code != 0) return code;
    J = current_stage_jacobian();
    if (uses_parameters) {
      code = fixed_ != nullptr && analytic_parameters_ ? fixed_parameter_jacobian_at(step, i, P)
                                                       : parameter_jacobian_at(step, i, P);
      if (code != 0) return code;
    }
  }
  // rhs = [Sx_n + h sum_{j<i} a_ij SF_j + h*gamma (f_p P)_x ; -(g_p P)_z]   (the paper's eq. 17)
  const MatrixRef Si = stage_block(values_, i);
  if (fixed_ != nullptr) {
    // The small-system fast path (exact mode, stages factored): the right-hand side, the LU
    // of M_i, the solve and the stage derivatives in one kernel, column by column in
    // registers. A singular M_i leaves rhs_ formed for the refinement below.
    const double* coefficients = nullptr;
    const double* const* blocks = nullptr;
    const int terms = rhs_terms(i, h, coefficients, blocks);
    ++stats_.stage_factorizations;
    if (fixed_->stage(nx_, ns, J.dense.data, J.dense.ld, hg, inverse_hg, values_.data(), jpP_.data(),
                      terms, coefficients, blocks, fixed_lu_.data(),
                      fixed_pivots_.data(), rhs_.data(), Si.data, stage_block(derivatives_, i).data) == 0) {
      stats_.back_substitutions += ns;
      return 0;
    }
  } else {
    form_rhs(i, h, hg, exact);
  }
  // Exact mode solves M_i S_i = rhs with an LU of the stage matrix M_i when that is cheaper
  // (factor_stages_), or refines M^{-1} rhs with the step's LU; a singular M_i falls back to
  // the refinement.
  const bool factored = fixed_ == nullptr && (exact || krylov()) && factor_stages_ &&
                        (lanes_solve_ != nullptr ? solve_with_fixed_kernels(J.dense, Si, hg)
                                                 : solve_with_stage_matrix(J, Si, hg, i));
  if (!factored && krylov()) {
    message_ = "GMRES did not solve the stage sensitivities to KrylovSettings::sensitivity_tolerance at t = " +
               format_number(step.stage_times[i]) + " (raise dimension or max_restarts, or the preconditioner "
               "failed)";
    linear_solver_failed_ = true;
    return 1;
  }
  if (!factored && use_inverse_) {
    if (!inverse_ready_) form_inverse();
    detail::multiply(inverse_.cref(), 0, rhs_.cref(), Si, 1.0, false);  // Si = M^{-1} rhs
  } else if (!factored && exact && structured_) {
    // The refinement below starts from the extrapolated stage instead of M^{-1} rhs: its error
    // is h gamma times the derivative's extrapolation error, so fewer sweeps reach the
    // correction tolerance (2-D Brusselator 40 x 40, KLU, rtol 1e-6, 3 directions: 10365 ->
    // 6810 back-substitutions, the same 149 steps).
    extrapolate_stage(Si, hg, i);
  } else if (!factored) {
    detail::copy(rhs_.cref(), Si);
    matrix_->solve(Si);
    stats_.back_substitutions += ns;
  }
  if (exact && !factored) {
    if (!weights_ready_) weights_for(step);
    const int sweeps = doubling_pays() ? refine_stage_by_doubling(J.dense, Jn.dense, Si, hg)
                                       : refine_stage(J, Si, hg);
    if (sweeps == -2) {
      message_ = "the stage iteration matrix is singular at t = " + format_number(step.stage_times[i]) +
                 " (exact sensitivities)";
      return 1;
    }
    last_max_corrections_ =
        std::max(last_max_corrections_, sweeps < 0 ? options_.max_corrections + 1 : sweeps);
  }
  // SF_i from the differentiated stage equation,
  // SF_i = (SX_i - Sx_n - h sum_{j<i} a_ij SF_j)/(h*gamma) = (SX_i - rhs_x)/(h*gamma) + (f_p P)_x,
  // which is (J_i S_i)_x + (f_p P)_x without the product (as the integrator's F_i).
  double* sf = stage_block(derivatives_, i).data;
  if (fixed_ != nullptr) {
    fixed_->derivatives(nx_, ns, Si.data, rhs_.data(), inverse_hg, jpP_.data(), sf);
    return 0;
  }
  detail::flat_difference_quotient(Si.data, rhs_.data(), inverse_hg, jpP_.data(), sf, block);
  if (nz_ > 0)
    for (int j = 0; j < ns; ++j)
      std::fill(sf + static_cast<std::size_t>(j) * n_ + nx_, sf + static_cast<std::size_t>(j + 1) * n_, 0.0);
  return 0;
}

// After the stages: their finiteness, once, and the error estimate e_S.
[[gnu::always_inline]] inline int StageSensitivities::finish_step(const StepView& step) {
  const std::size_t block = block_size();
  const double h = step.h;
  // Finite once per step, over all stages (the stage blocks are contiguous): a NaN or an
  // infinity of a stage reaches the later stages and the error estimate anyway; checking each
  // block as it was formed cost more than the stage combinations themselves at n = 2.
  const std::size_t all_stages = block * static_cast<std::size_t>(s_);
  if (!detail::flat_all_finite(values_.data(), all_stages) ||
      !detail::flat_all_finite(derivatives_.data(), all_stages)) {
    message_ = "the stage sensitivities are not finite in the step from t = " + format_number(step.t);
    return 1;
  }

  // e_S = h sum_i d_i SF_i (the paper's eq. 20 applied to the sensitivities): every entry from
  // +0, then one scaled addition per stage with d_i != 0 in order, as flat passes over the
  // contiguous blocks. Small blocks inline (the calls cost more than the passes at n = 2), larger
  // ones through flat_add_scaled and its AVX2 clones (inline passes in the baseline's SSE2 cost
  // the Dow main job 0.26 M instructions of 30.4 M); the same bits either way.
  form_coefficients(h);
  double* __restrict e = error_.data();
  const std::size_t error_terms = error_d_.size();
  constexpr std::size_t inline_limit = 32;
  if (error_terms == 0 || block > inline_limit) error_.fill(0.0);
  for (std::size_t t = 0; t < error_terms; ++t) {
    const double c = error_coefficients_[t];
    const double* __restrict sf = error_blocks_[t];
    if (block > inline_limit)
      detail::flat_add_scaled(c, sf, e, block);
    else if (t == 0)
      for (std::size_t q = 0; q < block; ++q) e[q] = 0.0 + c * sf[q];
    else
      for (std::size_t q = 0; q < block; ++q) e[q] += c * sf[q];
  }
  if (integrator_.options().filter_error_estimate)
    apply_inverse(error_.ref(), JS_.ref());  // e_S <- M^{-1} [e_S; 0], as the integrator does for x
  return 0;
}

// The pieces above are inlined: split by what they do, one function as before for the
// compiler (out of line they cost the CSTR step 0.3 k instructions, 2.6 %).
int StageSensitivities::solve(const StepView& step, ConstMatrixRef Sx, ConstMatrixRef Sz,
                              ConstMatrixRef P, bool uses_parameters) {
  const StageJacobian Jn = start_step(step, uses_parameters);
  const bool exact = options_.mode == SensitivityMode::exact;
  if (const int code = first_stage(step, Jn, Sx, Sz, P, uses_parameters, exact); code != 0) return code;
  // Every n x ns block below is contiguous (leading dimension n), so the stage combinations
  // run as flat loops over n*ns entries. The derivative blocks have zero algebraic rows, so
  // adding them leaves the algebraic rows of base_ as they are.
  for (int i = 1; i < s_; ++i)
    if (const int code = later_stage(step, i, Jn, P, uses_parameters, exact); code != 0) return code;
  return finish_step(step);
}

}  // namespace esdirk
