#include "esdirk/stepper.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "esdirk/dense_basis.hpp"
#include "esdirk/factorization_policy.hpp"
#include "internal/algebraic_newton.hpp"
#include "internal/format_number.hpp"
#include "internal/newton_stopping_test.hpp"
#include "internal/stage_extrapolation.hpp"

namespace esdirk {
namespace {

using internal::format_number;

// The Newton iteration's vector loops with their length known at compile time for the orders a
// small system has (nx <= 8, the CSTR's 2): with run-time bounds the loops' setup and the
// vectorizer's prologue and epilogue cost more than the arithmetic of two entries (callgrind,
// bench_shooting --profile fixed). body(order) is called with order N = 1 ... 8 as an
// std::integral_constant, or 0 for "use the run-time length"; every loop keeps its operations
// and their order, so the results keep their bits.
inline constexpr int small_order_limit = 8;
template <class Body>
void with_order(int n, Body&& body) {
  switch (n) {
    case 1: return body(std::integral_constant<int, 1>{});
    case 2: return body(std::integral_constant<int, 2>{});
    case 3: return body(std::integral_constant<int, 3>{});
    case 4: return body(std::integral_constant<int, 4>{});
    case 5: return body(std::integral_constant<int, 5>{});
    case 6: return body(std::integral_constant<int, 6>{});
    case 7: return body(std::integral_constant<int, 7>{});
    case 8: return body(std::integral_constant<int, 8>{});
    default: return body(std::integral_constant<int, 0>{});
  }
}
static_assert(small_order_limit == 8);

// Root-mean-square of v_i * w_i (N > 0: n == N known at compile time).
template <int N = 0>
double weighted_rms(const double* v, const double* w, int n) {
  if constexpr (N > 0) n = N;
  if (n == 0) return 0.0;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double a = v[i] * w[i];
    sum += a * a;
  }
  return std::sqrt(sum / n);
}

// StagePredictor::stage_extrapolation: the degree of the polynomial through the earlier stages
// nodes (4: all of them for ESDIRK34 and ESDIRK436; theory section 2).
constexpr int stage_extrapolation_degree = 4;

// No NaN or infinity among v: the exponent bits of such an entry are all set, and exactly then
// adding 2^52 to them carries into the sign bit (as JacobianEvaluator's check); no branch per
// entry, where std::isfinite with an early exit took one.
bool all_finite(const double* v, int n) {
  std::uint64_t bad = 0;
  for (int i = 0; i < n; ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, v + i, sizeof bits);
    bad |= (bits & 0x7ff0000000000000ULL) + 0x0010000000000000ULL;
  }
  return (bad >> 63) == 0;
}

// StagePredictor::dense_output predicts the first implicit stage (i = 1), at T, from the last
// accepted step [ta, ta + ha]: when there is one and T is within three of its lengths beyond
// its end (theta <= 4); otherwise, and for the later stages, the stages are extrapolated.
bool first_stage_from_last_step(StagePredictor predictor, int i, bool has_step, double T, double ta, double ha) {
  return predictor == StagePredictor::dense_output && i == 1 && has_step && (T - ta) / ha <= 4.0;
}

}  // namespace

Stepper::Stepper(Problem& problem, const Options& options, const Tableau& method, Statistics& stats)
    : problem_(problem),
      options_(options),
      tab_(method),
      stats_(stats),
      nx_(problem.nx()),
      nz_(problem.nz()),
      n_(problem.size()),
      s_(method.stages),
      jacobians_(problem, stats),
      weights_(options, problem.nx(), problem.nz()),
      matrix_storage_{
          std::make_unique<StageLinearSystem>(problem.nx(), problem.nz(), problem.jacobian_structure()),
          std::make_unique<StageLinearSystem>(problem.nx(), problem.nz(), problem.jacobian_structure())},
      jacobian_(problem.size(), problem.jacobian_structure()),
      accepted_jacobian_(problem.size(), problem.jacobian_structure()),
      newton_jacobian_(problem.size(), problem.jacobian_structure()) {
  newton_test_ = std::make_unique<internal::NewtonStoppingTest>(options, nz_);
  trial_matrix_ = matrix_storage_[0].get();
  accepted_matrix_ = matrix_storage_[1].get();
  for (auto& matrix : matrix_storage_) matrix->set_statistics(&stats);  // GMRES's counters
  extrapolation_weights_ = internal::stage_extrapolation_weights(tab_, stage_extrapolation_degree);
  extrapolation_amplifies_.assign(static_cast<std::size_t>(s_), 0);
  for (int i = 1; i < s_; ++i) {
    double sum = 0.0;
    for (int j = 0; j < i; ++j) sum += std::abs(extrapolation_weights_(i, j));
    extrapolation_amplifies_[static_cast<std::size_t>(i)] = sum > 1.0 + 1e-12;
  }
  if (options.difference_increment == DifferenceIncrement::error_weighted)
    jacobians_.set_increment_floors(weights_.increment_floors());
  const auto ux = static_cast<std::size_t>(nx_), uz = static_cast<std::size_t>(nz_);
  const auto us = static_cast<std::size_t>(s_);
  x_.assign(ux, 0.0);
  z_.assign(uz, 0.0);
  f_.assign(ux, 0.0);
  g_.assign(uz, 0.0);
  p_.assign(static_cast<std::size_t>(problem.np()), 0.0);
  wx_.assign(ux, 1.0);
  wz_.assign(uz, 1.0);
  for (DenseMatrix* m : {&X_, &Xa_, &F_, &Fa_}) m->resize(nx_, s_);
  for (DenseMatrix* m : {&Z_, &Za_, &G_, &Ga_}) m->resize(nz_, s_);
  T_.assign(us, 0.0);
  Ta_.assign(us, 0.0);
  stage_start_.assign(static_cast<std::size_t>(n_), 0.0);
  stage_start_a_.assign(static_cast<std::size_t>(n_), 0.0);
  resumed_start_.assign(static_cast<std::size_t>(n_), 0.0);
  base_.assign(ux, 0.0);
  residual_.assign(static_cast<std::size_t>(n_), 0.0);
  error_.assign(ux, 0.0);
  dgdz_.resize(nz_, nz_);
  dgdz_pivots_.assign(uz, 0);
  dense_dgdz_.resize(nz_, nz_);
  dense_pivots_.assign(uz, 0);
  weights_b_.assign(us, 0.0);
  weights_l_.assign(us, 0.0);
  z_trial_.assign(uz, 0.0);
  z_correction_.assign(uz, 0.0);
  const auto un = static_cast<std::size_t>(n_);
  best_.assign(un, 0.0);
  good_.assign(un, 0.0);
  delta_.assign(un, 0.0);
  best_f_.assign(ux, 0.0);
  best_g_.assign(uz, 0.0);
  saved_.x = x_;
  saved_.z = z_;
  saved_.f = f_;
  saved_.g = g_;
  saved_.p = p_;
}

Stepper::~Stepper() = default;

Status Stepper::fail(Status status, std::string message) {
  message_ = std::string(status_name(status)) + ": " + std::move(message);
  return status;
}

Status Stepper::start(double t, ConstVector x, ConstVector z_guess, ConstVector p) {
  message_.clear();
  save_start();
  t_ = t;
  std::copy(x.begin(), x.end(), x_.begin());
  std::copy(z_guess.begin(), z_guess.end(), z_.begin());
  std::copy(p.begin(), p.end(), p_.begin());
  has_step_ = false;
  has_resumed_start_ = false;
  jacobian_current_ = false;
  jacobian_reused_ = false;
  index_ = 0;
  dense_lu_index_ = -1;
  const Status status = solve_consistent_z(t_, x_, z_);
  if (!ok(status)) restore_start();
  return status;
}

void Stepper::save_start() {
  saved_.t = t_;
  std::copy(x_.begin(), x_.end(), saved_.x.begin());
  std::copy(z_.begin(), z_.end(), saved_.z.begin());
  std::copy(f_.begin(), f_.end(), saved_.f.begin());
  std::copy(g_.begin(), g_.end(), saved_.g.begin());
  std::copy(p_.begin(), p_.end(), saved_.p.begin());
  saved_.has_step = has_step_;
  saved_.has_resumed_start = has_resumed_start_;
  saved_.index = index_;
  saved_.dense_lu_index = dense_lu_index_;
}

// Undoes a failed start(): the caller keeps the state (and last step) it had. The message of
// the failure stays.
void Stepper::restore_start() {
  t_ = saved_.t;
  std::copy(saved_.x.begin(), saved_.x.end(), x_.begin());
  std::copy(saved_.z.begin(), saved_.z.end(), z_.begin());
  std::copy(saved_.f.begin(), saved_.f.end(), f_.begin());
  std::copy(saved_.g.begin(), saved_.g.end(), g_.begin());
  std::copy(saved_.p.begin(), saved_.p.end(), p_.begin());
  has_step_ = saved_.has_step;
  has_resumed_start_ = saved_.has_resumed_start;  // resumed_start_ itself was not touched
  jacobian_current_ = false;  // the consistent initialization used jacobian_ as workspace
  jacobian_reused_ = false;
  index_ = saved_.index;
  dense_lu_index_ = saved_.dense_lu_index;
}

void Stepper::resume(double t, ConstVector x, ConstVector z, ConstVector f, ConstVector g,
                     ConstVector p, long index, ConstVector stage_start) {
  message_.clear();
  t_ = t;
  std::copy(x.begin(), x.end(), x_.begin());
  std::copy(z.begin(), z.end(), z_.begin());
  std::copy(f.begin(), f.end(), f_.begin());
  std::copy(g.begin(), g.end(), g_.begin());
  std::copy(p.begin(), p.end(), p_.begin());
  has_step_ = false;
  has_resumed_start_ = !stage_start.empty();
  std::copy(stage_start.begin(), stage_start.end(), resumed_start_.begin());
  jacobian_current_ = false;
  jacobian_reused_ = false;
  index_ = index;
  dense_lu_index_ = -1;
}

int Stepper::evaluate_model(double t, ConstVector x, ConstVector z, Vector f, Vector g) {
  ++stats_.function_evaluations;
  const int code = problem_.evaluate(t, x, z, p_, f, g);
  if (code != 0) return code;
  if (!all_finite(f.data(), nx_) || !all_finite(g.data(), nz_)) return 1;  // NaN/Inf: recoverable
  return 0;
}

// z consistent with (t, x): the algebraic Newton kernel (internal/algebraic_newton.hpp) with the
// error weights of z and initialization_tolerance; a correction no damping reduces is rounding
// when it is below the error tolerance (norm 1). f_ and g_ end at the returned z.
Status Stepper::solve_consistent_z(double t, ConstVector x, Vector z) {
  int code = evaluate_model(t, x, z, f_, g_);
  if (code < 0) return fail(Status::callback_fatal, "f/g returned a fatal code at the initial point t = " + format_number(t));
  if (code > 0) {
    ++stats_.callback_failures;
    return fail(Status::callback_failures, "f/g failed or returned a non-finite value at the initial point t = " + format_number(t));
  }
  if (nz_ == 0) return Status::success;
  // The stepper's buffers as the kernel's equations and workspace (no allocation).
  class Equations final : public internal::AlgebraicEquations {
   public:
    Equations(Stepper& s, double t, ConstVector x) : s_(s), t_(t), x_(x) {}
    int evaluate(ConstVector z, Vector g, Point point) override {
      return s_.evaluate_model(t_, x_, z, point == Point::trial ? Vector(s_.base_) : Vector(s_.f_), g);
    }
    void accept_trial() override { std::copy(s_.base_.begin(), s_.base_.end(), s_.f_.begin()); }
    int jacobian(ConstVector z, ConstVector g, MatrixRef dgdz) override {
      const int code = s_.jacobians_.state_jacobian(t_, x_, z, s_.p_, s_.f_, g, s_.jacobian_);
      if (code == 0) s_.jacobian_.copy_block(s_.nx_, s_.nx_, dgdz);
      return code;
    }
    void weights(ConstVector z, Vector w) override { s_.weights_.algebraic(z, w); }

   private:
    Stepper& s_;
    double t_;
    ConstVector x_;
  } equations(*this, t, x);
  const internal::AlgebraicNewtonSettings settings{options_.max_initialization_iterations,
                                                   options_.initialization_tolerance, 1.0};
  const internal::AlgebraicNewtonWorkspace work{dgdz_.ref(),        dgdz_pivots_.data(),
                                                residual_.data() + nx_, z_trial_.data(),
                                                G_.column(0),       z_correction_.data(),
                                                wz_.data()};
  const internal::AlgebraicNewtonResult r = internal::solve_algebraic(equations, z, g_, settings, work, stats_);
  using Stop = internal::AlgebraicNewtonResult::Stop;
  switch (r.stop) {
    case Stop::converged: return Status::success;
    case Stop::jacobian_failed:
      if (r.code < 0) return fail(Status::callback_fatal, "the Jacobian callback returned a fatal code at t = " + format_number(t));
      return fail(Status::callback_failures, "the Jacobian failed or was not finite at the initial point");
    case Stop::singular:
      return fail(Status::singular_algebraic_jacobian,
                  "dg/dz is singular at t = " + format_number(t) + " (zero pivot in column " +
                      std::to_string(r.pivot) + ", state " + problem_.state_name(nx_ + r.pivot - 1) +
                      "): the DAE is not of index 1 there, or the equations g do not determine z");
    case Stop::trial_fatal:
      return fail(Status::callback_fatal, "f/g returned a fatal code during the consistent initialization");
    case Stop::no_descent:
      return fail(Status::initialization_failed,
                  "no damped Newton step reduced the residual of g(t0, x0, z) = 0 at iteration " +
                      std::to_string(r.iteration) + "; give a better initial guess for z");
    case Stop::max_iterations: break;
  }
  return fail(Status::initialization_failed,
              "Newton on g(t0, x0, z) = 0 did not converge in " +
                  std::to_string(options_.max_initialization_iterations) + " iterations");
}

// Hairer & Wanner's starting-step heuristic (Solving ODEs I, II.4), with the error exponent of
// the method and z held at z0 for the explicit Euler probe.
double Stepper::initial_step_size(double direction, double bound) {
  weights_.differential(x_, wx_);
  const double d0 = weighted_rms(x_.data(), wx_.data(), nx_);
  const double d1 = weighted_rms(f_.data(), wx_.data(), nx_);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, bound);
  for (int i = 0; i < nx_; ++i) base_[i] = x_[i] + direction * h0 * f_[i];
  double h1 = 0.0;
  if (evaluate_model(t_ + direction * h0, base_, z_, error_, Vector(G_.column(0), static_cast<std::size_t>(nz_))) == 0) {
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

// ----------------------------------------------------------------------------------------------
// One step (Kristensen et al. 2005, Algorithm 1 without sensitivities)

Stepper::Attempt Stepper::attempt(double h) {
  ++stats_.steps;
  h_trial_ = h;
  if (!jacobian_current_) {
    // One Jacobian per step, at (t_n, x_n, z_n); a retried step reuses it. Differences need
    // f and g evaluated exactly at the point (F_s of the last step satisfies the stage
    // equation, not f itself, to the Newton tolerance).
    if (!jacobians_.analytic()) {
      --stats_.function_evaluations;  // counted as a difference evaluation below
      ++stats_.fd_function_evaluations;
      const int code = evaluate_model(t_, x_, z_, error_, Vector(G_.column(0), static_cast<std::size_t>(nz_)));
      if (code < 0) return Attempt::fatal;
      if (code > 0) {
        ++stats_.callback_failures;
        return Attempt::callback_failed;
      }
    }
    const ConstVector f_base = jacobians_.analytic() ? ConstVector(f_) : ConstVector(error_);
    const ConstVector g_base = jacobians_.analytic() ? ConstVector(g_) : ConstVector(G_.column(0), static_cast<std::size_t>(nz_));
    const int code = jacobians_.state_jacobian(t_, x_, z_, p_, f_base, g_base, jacobian_);
    if (code < 0) return Attempt::fatal;
    if (code > 0) {
      ++stats_.callback_failures;
      return Attempt::callback_failed;
    }
    jacobian_current_ = true;
    jacobian_reused_ = false;
  } else if (jacobian_reused_) {
    ++stats_.jacobian_reuses;
  }
  if (jacobian_reused_ && has_step_ &&
      std::abs(h * tab_.gamma / accepted_matrix_->h_gamma() - 1.0) <= lu_reuse_h_change()) {
    // The last step's J and the same h (the ratio is exactly 1: Options::keep_step_ratio_*) or
    // one close enough (Options::lu_reuse_h_change): its LU is this step's. The residual uses
    // this step's h, so the stages are this step's; the nearby M only slows the contraction.
    trial_matrix_ = accepted_matrix_;
    ++stats_.lu_reuses;
  } else {
    ++stats_.lu_factorizations;
    if (matrix_for_factoring().factor(jacobian_, h * tab_.gamma, index_) != 0) return Attempt::singular;
    if (automatic_reuse_ < 0) decide_automatic_reuse();
  }

  weights_.differential(x_, wx_);
  weights_.algebraic(z_, wz_);
  std::copy(x_.begin(), x_.end(), X_.column(0));
  std::copy(z_.begin(), z_.end(), Z_.column(0));
  std::copy(f_.begin(), f_.end(), F_.column(0));  // first stage explicit: F_1 = f(t_n, x_n, z_n)
  std::copy(g_.begin(), g_.end(), G_.column(0));
  T_[0] = t_;
  max_contraction_ = 0.0;
  last_contraction_ = 0.0;
  newton_test_->start_attempt(!jacobian_reused_);  // every attempt depends only on its start and h (replay_step)
  matrix_refreshed_ = false;
  for (int i = 1; i < s_; ++i) {
    const Attempt stage = solve_stage(i, h);
    if (stage == Attempt::newton_failed || stage == Attempt::singular) {
      // A kept Jacobian may be what failed: the retry forms J at t_n.
      if (jacobian_reused_) jacobian_current_ = jacobian_reused_ = false;
    }
    if (stage != Attempt::converged) return stage;
  }
  if (matrix_refreshed_) {
    // The stages converged with a refreshed Jacobian: the step's LU becomes that of J_n again,
    // so that StepView::matrix and StepView::jacobian belong together for the modules above.
    ++stats_.lu_factorizations;
    if (matrix_for_factoring().factor(jacobian_, h * tab_.gamma, index_) != 0) return Attempt::singular;
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
    trial_matrix_->solve(MatrixRef{residual_.data(), n_, 1, n_});
    for (int k = 0; k < nx_; ++k) error_[k] = residual_[k];
  }
  error_norm_ = weighted_rms(error_.data(), wx_.data(), nx_);
  if (!std::isfinite(error_norm_)) {
    ++stats_.callback_failures;
    return Attempt::callback_failed;
  }
  return Attempt::converged;
}

// Newton iteration for stage i (0-based, i >= 1) with the LU of the step (Kristensen et al. 2005,
// eqs. 17-19).
// What is measured and when it has converged is the stopping test chosen at setup
// (Options::newton_test, internal/newton_stopping_test.hpp); see the theory note for why the
// paper's raw test fails at large stiff steps (rounding in h*f exceeds tight tolerances).
//
// Recovery before the step is cut (theory section 3): an iterate where the model reports
// leaving its domain is pulled back along the last correction (halved up to
// max_newton_dampings times); an iteration that diverges or contracts too slowly to converge
// gets a Jacobian at its best iterate and a new LU, and starts again from there (at most
// max_jacobian_refreshes times per stage). Only then does the attempt fail.
Stepper::Attempt Stepper::solve_stage(int i, double h) {
  const double T = t_ + tab_.c[i] * h;
  const double hg = h * tab_.gamma;
  T_[i] = T;
  form_stage_base(i, h);
  predict_stage(i, h);
  refreshes_left_ = options_.max_jacobian_refreshes;
  newton_test_->start_stage();
  newton_ = StageNewton{};
  newton_.best_measure = std::numeric_limits<double>::infinity();
  newton_.from_dense_start = i == 1 && has_stage_start_;
  for (;;) {
    switch (newton_iteration(i, T, hg)) {
      case Iteration::again: continue;
      case Iteration::converged: return Attempt::converged;
      case Iteration::callback_failed: return Attempt::callback_failed;
      case Iteration::fatal: return Attempt::fatal;
      case Iteration::recover: break;
    }
    // Diverged, too slow, or out of iterations. Where no refresh is left (or no iterate was
    // ever evaluated), a start from the last step's dense output starts again from the
    // extrapolation before the attempt fails.
    if (newton_.best_in_good) {
      std::copy(good_.begin(), good_.end(), best_.begin());
      newton_.best_in_good = false;
    }
    if ((refreshes_left_ <= 0 || !std::isfinite(newton_.best_measure)) && fall_back_to_extrapolation(i, hg)) continue;
    const Attempt refreshed = refresh_jacobian(T, hg, newton_.best_measure);
    if (refreshed != Attempt::converged) return refreshed;
    std::copy(best_.begin(), best_.begin() + nx_, X_.column(i));
    std::copy(best_.begin() + nx_, best_.end(), Z_.column(i));
    newton_.best_measure = std::numeric_limits<double>::infinity();
    newton_.contraction = 0.0;
    newton_.previous = 0.0;
    newton_.iteration = 0;
    newton_test_->restart();
  }
}

// base_i = x_n + h sum_{j<i} a_ij F_j, the explicit part of stage i.
void Stepper::form_stage_base(int i, double h) {
  with_order(nx_, [&](auto order) {
    constexpr int N = decltype(order)::value;
    const int nx = N > 0 ? N : nx_;
    double* __restrict base = base_.data();
    const double* __restrict x = x_.data();
    for (int k = 0; k < nx; ++k) base[k] = x[k];
    for (int j = 0; j < i; ++j) {
      const double ha = h * tab_.A(i, j);
      const double* __restrict Fj = F_.column(j);
      for (int k = 0; k < nx; ++k) base[k] += ha * Fj[k];
    }
  });
}

// One evaluation of stage i at its current iterate: the model, the measure, the stopping test,
// and either the next iterate (again), the converged stage, or the signal to recover.
Stepper::Iteration Stepper::newton_iteration(int i, double T, double hg) {
  StageNewton& it = newton_;
  if (it.iteration >= options_.max_newton_iterations) return Iteration::recover;
  double* X = X_.column(i);
  double* Z = Z_.column(i);
  double* F = F_.column(i);
  double* G = G_.column(i);
  const int code = evaluate_model(T, ConstVector(X, static_cast<std::size_t>(nx_)),
                                  ConstVector(Z, static_cast<std::size_t>(nz_)),
                                  Vector(F, static_cast<std::size_t>(nx_)),
                                  Vector(G, static_cast<std::size_t>(nz_)));
  if (code < 0) return Iteration::fatal;
  if (code > 0) {
    // Outside the model's domain: step back towards the last good iterate.
    if (it.iteration > 0 && damp_iterate(X, Z)) return Iteration::again;
    if (fall_back_to_extrapolation(i, hg)) return Iteration::again;
    if (it.iteration == 0 && restart_from_previous_stage(i, hg)) return Iteration::again;
    ++stats_.callback_failures;
    return Iteration::callback_failed;
  }
  ++stats_.newton_iterations;
  const double measure = measure_iterate(X, F, G, hg);
  if (!std::isfinite(measure)) return Iteration::recover;
  bool recover = false;
  if (it.iteration > 0) {
    const double rate = measure / it.previous;
    // A full correction that increases the measure overshot (the Jacobian is a poor model this
    // far from where it was formed): try half of it, as a line search.
    if (rate >= 1.0 && damp_iterate(X, Z)) return Iteration::again;
    last_contraction_ = rate;
    it.contraction = std::max(it.contraction, last_contraction_);
    recover = newton_test_->hopeless(rate, measure, it.iteration);
  }
  if (!recover && newton_test_->converged(measure)) {
    finish_stage(i, hg);
    return Iteration::converged;
  }
  remember_best(measure, recover, i);
  if (recover) return Iteration::recover;
  if (!newton_test_->solves_before_test()) {
    ++stats_.back_substitutions;
    trial_matrix_->solve(MatrixRef{residual_.data(), n_, 1, n_});
  }
  residual_.swap(delta_);  // delta_ keeps the correction; residual_ is rewritten next
  it.lambda = 1.0;
  with_order(nx_, [&](auto order) {
    constexpr int N = decltype(order)::value;
    const int nx = N > 0 ? N : nx_;
    double* __restrict good = good_.data();
    const double* __restrict delta = delta_.data();
    for (int k = 0; k < nx; ++k) {
      good[k] = X[k];
      X[k] -= delta[k];
    }
  });
  std::copy(Z, Z + nz_, good_.begin() + nx_);
  for (int k = 0; k < nz_; ++k) Z[k] -= delta_[nx_ + k];
  it.previous = measure;
  ++it.iteration;
  return Iteration::again;
}

// The residual R = [X - base - h gamma F; G] of the iterate and its measure in the error weights:
// ||M^{-1} R||, or under the paper's test ||R|| on the differential rows; the algebraic rows are
// always measured through M^{-1}, since g has no natural scale. residual_ holds M^{-1} R when the
// test solved for it. NaN when a GMRES correction fell short of its tolerance: it is not trusted,
// and the stage recovers as from divergence (a J and preconditioner at the best iterate).
double Stepper::measure_iterate(const double* X, const double* F, const double* G, double hg) {
  double measure = 0.0;
  with_order(nx_, [&](auto order) {
    constexpr int N = decltype(order)::value;
    const int nx = N > 0 ? N : nx_;
    double* __restrict r = residual_.data();
    for (int k = 0; k < nx; ++k) r[k] = X[k] - base_[k] - hg * F[k];
    for (int k = 0; k < nz_; ++k) r[nx + k] = G[k];
    const bool raw = newton_test_->measures_raw_residual();
    if (raw) measure = weighted_rms<N>(r, wx_.data(), nx);
    if (!newton_test_->solves_before_test()) return;
    ++stats_.back_substitutions;
    trial_matrix_->solve(MatrixRef{r, n_, 1, n_});
    if (!raw) measure = weighted_rms<N>(r, wx_.data(), nx);
  });
  if (!newton_test_->solves_before_test()) return measure;
  measure = std::max(measure, weighted_rms(residual_.data() + nx_, wz_.data(), nz_));
  linear_solver_failed_ = !trial_matrix_->last_solve_converged();
  if (linear_solver_failed_) measure = std::numeric_limits<double>::quiet_NaN();
  return measure;
}

// The stage-extrapolation predictor where the model reports leaving its domain, at a stage whose
// weights amplify (sum_j |W(i, j)| > 1: an extrapolation, not an interpolation): the stage
// starts again, once, from the previous stage's values, X_i = base_i + h gamma F_{i-1} and
// Z_i = Z_{i-1}. The extrapolation amplifies the Newton errors the earlier stages keep within
// their tolerance (ESDIRK436's weights of its fifth stage sum to 45 in magnitude): on Dow with
// the default atol, [H+] ~ 1e-8 lies far below its error weight, and its extrapolation turned
// negative however small h became. Elsewhere a failure is handled as before (h is cut).
bool Stepper::restart_from_previous_stage(int i, double hg) {
  StageNewton& it = newton_;
  // (Under StagePredictor::dense_output the stages after the first are extrapolated too; the
  // first stage's weight is 1 and never amplifies: its start from the last step falls back to
  // the extrapolation instead, fall_back_to_extrapolation.)
  if (options_.stage_predictor == StagePredictor::previous_stage ||
      it.restarted_from_previous_stage || !extrapolation_amplifies(i))
    return false;
  it.restarted_from_previous_stage = true;
  double* X = X_.column(i);
  double* Z = Z_.column(i);
  const double* Fprev = F_.column(i - 1);
  const double* Zprev = Z_.column(i - 1);
  for (int k = 0; k < nx_; ++k) X[k] = base_[k] + hg * Fprev[k];
  for (int k = 0; k < nz_; ++k) Z[k] = Zprev[k];
  return true;
}

// StagePredictor::dense_output: where stage 2's start from the last step's extension fails (the
// model reports leaving its domain or a non-finite value and no damping is left; or the
// iteration diverges, contracts too slowly or runs out of iterations and no Jacobian refresh is
// left, or none can be formed because no iterate was ever evaluated), the stage starts again,
// once, from the stage extrapolation (F_2 = F_1, Z_2 = z_n) with the refreshes of a new stage,
// before the attempt fails and h is cut. The extension reaches beyond the last step (theta up to
// 4) and can leave the model's domain at very large steps, on graded meshes or at a folding
// root, where the extrapolation within the step does not. A divergence is first met by the
// refreshes, as for every start: they cost less than starting again (Dow, theory section 3).
// The retry is stage 2 of StagePredictor::stage_extrapolation: the step's LU (formed again if a
// refresh replaced it), the stopping test as at the attempt's start (stage 2 is the first
// implicit stage: nothing is carried into it). StepView::stage_start keeps the extension's
// start; a replay from it fails and falls back in the same way, since both depend only on the
// step's start, h and that value (theory section 3, "The fallback").
bool Stepper::fall_back_to_extrapolation(int i, double hg) {
  if (!newton_.from_dense_start) return false;
  if (matrix_refreshed_) {
    // The refreshes of the failed start factored J at its iterates: the retry gets the step's
    // own matrix back, the LU the attempt kept from the last step (the condition of attempt())
    // or that of J_n with this h (an LU more, counted).
    if (jacobian_reused_ && has_step_ && std::abs(hg / accepted_matrix_->h_gamma() - 1.0) <= lu_reuse_h_change()) {
      trial_matrix_ = accepted_matrix_;
    } else {
      ++stats_.lu_factorizations;
      if (matrix_for_factoring().factor(jacobian_, hg, index_) != 0) return false;
    }
    matrix_refreshed_ = false;
  }
  ++stats_.stage_start_fallbacks;
  extrapolate_stage(i, hg);
  newton_ = StageNewton{};
  newton_.best_measure = std::numeric_limits<double>::infinity();
  refreshes_left_ = options_.max_jacobian_refreshes;
  newton_test_->start_attempt(!jacobian_reused_);  // as the attempt began: stage 2 is its first implicit stage
  newton_test_->start_stage();
  last_contraction_ = 0.0;
  return true;
}

// Halves the last correction from the last good iterate, while dampings are left.
bool Stepper::damp_iterate(double* X, double* Z) {
  StageNewton& it = newton_;
  if (it.dampings >= options_.max_newton_dampings) return false;
  ++it.dampings;
  ++stats_.newton_dampings;
  it.lambda *= 0.5;
  for (int k = 0; k < nx_; ++k) X[k] = good_[k] - it.lambda * delta_[k];
  for (int k = 0; k < nz_; ++k) Z[k] = good_[nx_ + k] - it.lambda * delta_[nx_ + k];
  return true;
}

// Keeps the best evaluated iterate of stage i, where a refreshed Jacobian would be formed.
void Stepper::remember_best(double measure, bool recover, int i) {
  StageNewton& it = newton_;
  if (measure < it.best_measure) {
    it.best_measure = measure;
    if (!jacobians_.analytic()) {
      std::copy(F_.column(i), F_.column(i) + nx_, best_f_.begin());
      std::copy(G_.column(i), G_.column(i) + nz_, best_g_.begin());
    }
    it.best_in_good = !recover;  // good_ takes it next
    if (recover) {
      std::copy(X_.column(i), X_.column(i) + nx_, best_.begin());
      std::copy(Z_.column(i), Z_.column(i) + nz_, best_.begin() + nx_);
    }
  } else if (!recover && it.best_in_good) {
    std::copy(good_.begin(), good_.end(), best_.begin());
    it.best_in_good = false;
  }
}

// The converged stage i. Under the paper's raw test F_i = f(T_i, X_i, Z_i) at the tested point is
// kept. Otherwise the last correction is applied and the stage derivative taken from the stage
// equation, F_i = (X_i - base)/(h gamma): f(X_i) itself would carry the Newton error multiplied
// by the stiff part of the Jacobian into the error estimate h sum d_i F_i.
void Stepper::finish_stage(int i, double hg) {
  newton_test_->stage_converged();
  max_contraction_ = std::max(max_contraction_, newton_.contraction);
  if (newton_test_->measures_raw_residual()) return;
  double* X = X_.column(i);
  double* F = F_.column(i);
  double* Z = Z_.column(i);
  with_order(nx_, [&](auto order) {
    constexpr int N = decltype(order)::value;
    const int nx = N > 0 ? N : nx_;
    for (int k = 0; k < nx; ++k) {
      X[k] -= residual_[k];
      F[k] = (X[k] - base_[k]) / hg;
    }
  });
  for (int k = 0; k < nz_; ++k) Z[k] -= residual_[nx_ + k];
}

// The Newton recovery: J at the stage's best iterate (best_, with f and g there in best_f_,
// best_g_) and a new LU of M. `converged` when the stage may start again; newton_failed when
// no refresh is left or no iterate was ever evaluated; the callback outcomes of J.
Stepper::Attempt Stepper::refresh_jacobian(double T, double hg, double best_measure) {
  if (refreshes_left_ <= 0 || !std::isfinite(best_measure)) {
    ++stats_.newton_failures;
    return Attempt::newton_failed;
  }
  --refreshes_left_;
  ++stats_.jacobian_refreshes;
  // Into a buffer of its own: the step's J stays J at (t_n, x_n, z_n), which the modules above
  // rely on (exact stage-1 derivatives, paper-mode sensitivities) and which a retry reuses, so
  // every attempt depends only on the step's start and h (replay_step repeats it bit for bit).
  const ConstVector xb(best_.data(), static_cast<std::size_t>(nx_));
  const ConstVector zb(best_.data() + nx_, static_cast<std::size_t>(nz_));
  matrix_refreshed_ = true;
  const int code = jacobians_.state_jacobian(T, xb, zb, p_, best_f_, best_g_, newton_jacobian_);
  if (code < 0) return Attempt::fatal;
  if (code > 0) {
    ++stats_.callback_failures;
    return Attempt::callback_failed;
  }
  ++stats_.lu_factorizations;
  if (matrix_for_factoring().factor(newton_jacobian_, hg, index_) != 0) return Attempt::singular;
  return Attempt::converged;
}

// Stage starting values (theory section 2).
//  - StagePredictor::stage_extrapolation (default): F_i extrapolated from the stage derivatives
//    of the same step, X_i = base_i + h gamma F_i^pred, and Z_i from the algebraic stage values,
//    both by the polynomial through the (at most five) earlier nodes nearest to c_i. Only this
//    step's values enter, so a step still depends only on its start and h (replay_step).
//  - StagePredictor::previous_stage (Kristensen et al. 2005): X from the previous stage
//    derivative, Z as in the paper's section 3 (z_n for stage 2, then linear inter-/extrapolation
//    through the two previous stages).
//  - StagePredictor::dense_output: the first implicit stage from the continuous extension of the
//    last accepted step, extrapolated to T_2 (as RADAU5 extrapolates its collocation polynomial:
//    x from the Hermite extension, z from the polynomial through the stage values), the later
//    stages by stage extrapolation. Stage 2 is the one extrapolation predicts worst (one node:
//    F_2 = F_1, Z_2 = z_n); from stage 3 on the same step's stages do better than the last
//    step's extension (theory section 3, "Stage predictors"). Not without a last step, nor
//    beyond three last steps' lengths (then by extrapolation). The starting value is kept
//    (StepView::stage_start) and, after resume(), taken from there: a replay starts stage 2
//    where the recording run did. Where it fails, stage 2 starts again from the extrapolation
//    (fall_back_to_extrapolation).
void Stepper::predict_stage(int i, double h) {
  double* X = X_.column(i);
  double* Z = Z_.column(i);
  if (i == 1) {
    has_stage_start_ = false;
    if (options_.stage_predictor == StagePredictor::dense_output && !has_step_ && has_resumed_start_) {
      // The first step after resume(): where the recorded step started (StepView::stage_start).
      std::copy(resumed_start_.begin(), resumed_start_.begin() + nx_, X);
      std::copy(resumed_start_.begin() + nx_, resumed_start_.end(), Z);
      keep_stage_start(X, Z);
      return;
    }
  }
  if (first_stage_from_last_step(options_.stage_predictor, i, has_step_, t_ + tab_.c[i] * h, ta_, ha_)) {
    const double theta = (t_ + tab_.c[i] * h - ta_) / ha_;
    dense_weights(tab_, theta, weights_b_);
    const double* xn = Xa_.column(0);
    for (int k = 0; k < nx_; ++k) X[k] = xn[k];
    for (int j = 0; j < s_; ++j) {
      const double hb = ha_ * weights_b_[static_cast<std::size_t>(j)];
      const double* Fj = Fa_.column(j);
      for (int k = 0; k < nx_; ++k) X[k] += hb * Fj[k];
    }
    stage_interpolation_weights(tab_, theta, weights_l_);
    for (int k = 0; k < nz_; ++k) Z[k] = 0.0;
    for (int j = 0; j < s_; ++j) {
      const double li = weights_l_[static_cast<std::size_t>(j)];
      const double* Zj = Za_.column(j);
      for (int k = 0; k < nz_; ++k) Z[k] += li * Zj[k];
    }
    keep_stage_start(X, Z);
    return;
  }
  const double hg = h * tab_.gamma;
  if (options_.stage_predictor == StagePredictor::previous_stage) {
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
    return;
  }
  // Stage extrapolation: X accumulates F_i^pred first, then becomes base_i + h gamma F_i^pred.
  if (nx_ >= 1 && nx_ <= small_order_limit && nz_ == 0) {
    // An ODE of small order: the sum in registers (the same operations from +0.0 in the same order).
    with_order(nx_, [&](auto order) {
      constexpr int N = decltype(order)::value > 0 ? decltype(order)::value : 1;
      double sum[N] = {};
      for (int j = 0; j < i; ++j) {
        const double w = extrapolation_weights_(i, j);
        if (w == 0.0) continue;
        const double* __restrict Fj = F_.column(j);
        for (int k = 0; k < N; ++k) sum[k] += w * Fj[k];
      }
      for (int k = 0; k < N; ++k) X[k] = base_[k] + hg * sum[k];
    });
    return;
  }
  for (int k = 0; k < nx_; ++k) X[k] = 0.0;
  for (int k = 0; k < nz_; ++k) Z[k] = 0.0;
  for (int j = 0; j < i; ++j) {
    const double w = extrapolation_weights_(i, j);
    if (w == 0.0) continue;
    const double* Fj = F_.column(j);
    const double* Zj = Z_.column(j);
    for (int k = 0; k < nx_; ++k) X[k] += w * Fj[k];
    for (int k = 0; k < nz_; ++k) Z[k] += w * Zj[k];
  }
  for (int k = 0; k < nx_; ++k) X[k] = base_[k] + hg * X[k];
}

// StagePredictor::stage_extrapolation's start of stage i for fall_back_to_extrapolation: the
// start predict_stage takes without a last step, by predict_stage itself (the same operations,
// so the same bits as that predictor's; a second copy of its loops cost the hot path 0.8 % of
// Dow's instructions where the compiler laid predict_stage out otherwise, bench_dow_states).
// hg is h gamma of the attempt (h_trial_), which predict_stage forms again from h_trial_.
void Stepper::extrapolate_stage(int i, double hg) {
  (void)hg;
  const bool has_step = has_step_, has_resumed_start = has_resumed_start_, has_stage_start = has_stage_start_;
  has_step_ = has_resumed_start_ = false;
  predict_stage(i, h_trial_);
  has_step_ = has_step;
  has_resumed_start_ = has_resumed_start;
  has_stage_start_ = has_stage_start;  // StepView::stage_start keeps the extension's start
}

// The trial step's StepView::stage_start: a copy of the first implicit stage's predictor, which
// the Newton iteration overwrites (n values per attempt).
void Stepper::keep_stage_start(const double* X, const double* Z) {
  std::copy(X, X + nx_, stage_start_.begin());
  std::copy(Z, Z + nz_, stage_start_.begin() + nx_);
  has_stage_start_ = true;
}

StepView Stepper::trial() const {
  const ConstVector start = has_stage_start_ ? ConstVector(stage_start_) : ConstVector();
  return {index_,    t_,        h_trial_,  T_[s_ - 1], h_trial_ * tab_.gamma, s_,           X_.cref(),
          Z_.cref(), F_.cref(), G_.cref(), T_.data(),  jacobian_.dense(),     trial_matrix_, &jacobian_,
          start};
}

void Stepper::accept(double t_end) {
  X_.swap(Xa_);
  Z_.swap(Za_);
  F_.swap(Fa_);
  G_.swap(Ga_);
  T_.swap(Ta_);
  stage_start_.swap(stage_start_a_);
  has_stage_start_a_ = has_stage_start_;
  has_stage_start_ = false;
  if (trial_matrix_ != accepted_matrix_) std::swap(trial_matrix_, accepted_matrix_);
  jacobian_.swap(accepted_jacobian_);  // the next step forms its own J in the other buffer
  ta_ = t_;
  ha_ = h_trial_;
  t_ = t_end;
  Ta_[s_ - 1] = t_;
  std::copy(Xa_.column(s_ - 1), Xa_.column(s_ - 1) + nx_, x_.begin());
  std::copy(Za_.column(s_ - 1), Za_.column(s_ - 1) + nz_, z_.begin());
  std::copy(Fa_.column(s_ - 1), Fa_.column(s_ - 1) + nx_, f_.begin());
  std::copy(Ga_.column(s_ - 1), Ga_.column(s_ - 1) + nz_, g_.begin());
  // Options::reuse_jacobian: keep this step's J for the next while Newton contracted fast with
  // it and no stage needed a refreshed one (any back-end: dense entries or the pattern's values).
  const bool keep = reuse_allowed() && !matrix_refreshed_ &&
                    max_contraction_ <= options_.jacobian_reuse_contraction;
  if (keep) jacobian_.copy_values_from(accepted_jacobian_);
  jacobian_current_ = keep;
  jacobian_reused_ = keep;
  has_step_ = true;
  ++index_;
}

// FactorizationPolicy::automatic, once per run at the first factorization: keep J and the LU
// when a fresh pair costs at least reuse_cost_ratio Newton iterations (theory section 8a). The
// costs come from the problem's declared structure, never from the back-end's own sizes: the
// dense, band and KLU back-ends of one problem must decide alike (they give the same bits).
void Stepper::decide_automatic_reuse() {
  const JacobianStructure& structure = problem_.jacobian_structure();
  const double entries =
      structure.pattern ? structure.pattern->nonzeros() : static_cast<double>(n_) * n_;
  const ReuseCosts costs = reuse_costs(structural_factorization_cost(structure, n_), entries, n_,
                                       jacobians_.analytic() ? 0 : jacobians_.colours());
  // 1: keep J and its LU; 2: keep J only, a new LU every step; 0: neither.
  automatic_reuse_ = lu_reuse_pays(costs, options_.reuse_cost_ratio)         ? 1
                     : jacobian_reuse_pays(costs, options_.reuse_cost_ratio) ? 2
                                                                              : 0;
}

// Whether J (and within lu_reuse_h_change() its LU) may be kept for the next step.
bool Stepper::reuse_allowed() const {
  if (options_.reuse_jacobian) return true;
  return options_.factorization_policy == FactorizationPolicy::automatic && automatic_reuse_ > 0 &&
         !exact_step_jacobians_;
}

// The relative change of h gamma within which a kept LU still serves: the user's with
// reuse_jacobian; under the automatic policy 30 % where the LU pays (CVODES keeps its matrix
// while gamma changes by less than 30 %; measured in doc/linear-solvers-guide.md), else -1: a
// kept J gets a new LU every step, even for the same h.
double Stepper::lu_reuse_h_change() const {
  if (options_.reuse_jacobian) return options_.lu_reuse_h_change;
  return reuse_allowed() && automatic_reuse_ == 1 ? 0.3 : -1.0;
}

void Stepper::set_exact_step_jacobians(bool exact) {
  if (exact && !exact_step_jacobians_ && jacobian_reused_ && !options_.reuse_jacobian)
    jacobian_current_ = jacobian_reused_ = false;
  // The modules that need J at every step start differentiate the stage equations: with the
  // Krylov back-end the states' stages are then solved to the tighter forcing term.
  if (exact != exact_step_jacobians_ && problem_.jacobian_structure().solver == LinearSolverKind::krylov) {
    const KrylovSettings& krylov = problem_.jacobian_structure().krylov;
    const double tolerance = exact ? std::min(krylov.tolerance, krylov.tolerance_with_derivatives) : krylov.tolerance;
    for (auto& matrix : matrix_storage_) matrix->set_krylov_tolerance(tolerance);
  }
  exact_step_jacobians_ = exact;
}

// The matrix that failed is the one factored last: matrix_for_factoring() left trial_matrix_ on it.
std::string Stepper::singular_note() const {
  return trial_matrix_ != nullptr ? trial_matrix_->failure_note() : std::string();
}

// The LU a new factorization goes into: the trial one, unless the trial step shares the
// accepted step's LU (reuse), whose factors must stay the last step's.
StageLinearSystem& Stepper::matrix_for_factoring() {
  if (trial_matrix_ == accepted_matrix_)
    trial_matrix_ = accepted_matrix_ == matrix_storage_[0].get() ? matrix_storage_[1].get() : matrix_storage_[0].get();
  return *trial_matrix_;
}

StepView Stepper::last_step() const {
  if (!has_step_) throw std::logic_error("last_step: no step has been accepted yet");
  const ConstVector start = has_stage_start_a_ ? ConstVector(stage_start_a_) : ConstVector();
  return {index_ - 1, ta_, ha_, t_, accepted_matrix_->h_gamma(), s_, Xa_.cref(), Za_.cref(),
          Fa_.cref(), Ga_.cref(), Ta_.data(), accepted_jacobian_.dense(), accepted_matrix_,
          &accepted_jacobian_, start};
}

// ----------------------------------------------------------------------------------------------
// Dense output (doc/integrator-theory.md, section 6)

// dg/dz of the last step's Jacobian, factored at most once per accepted step.
void Stepper::factor_dense_correction() {
  if (dense_lu_index_ == index_) return;
  accepted_jacobian_.copy_block(nx_, nx_, dense_dgdz_.ref());
  ++stats_.dense_output_factorizations;
  dense_lu_singular_ = lu_factor(dense_dgdz_.ref(), dense_pivots_.data()) != 0;
  dense_lu_index_ = index_;
}

// x: the continuous extension of order 3 (dense_weights). z: the polynomial through the stage
// values Z_i at the nodes c_i, then simplified Newton on g(t, x(t), z) = 0 with dg/dz of the
// step's Jacobian: the stage values have stage order 2 only, and the correction makes z as
// accurate as x(t).
void Stepper::evaluate(double t, Vector x_out, Vector z_out) {
  if (static_cast<int>(x_out.size()) != nx_ || (!z_out.empty() && static_cast<int>(z_out.size()) != nz_))
    throw std::invalid_argument("dense_output: output vectors must have sizes nx and nz (or 0)");
  if (!has_step_) {
    if (t != t_) throw std::domain_error("dense_output: no step has been taken yet");
    std::copy(x_.begin(), x_.end(), x_out.begin());
    if (!z_out.empty()) std::copy(z_.begin(), z_.end(), z_out.begin());
    return;
  }
  const double theta = step_fraction(t, ta_, ha_, t_);
  if (std::isnan(theta))
    throw std::domain_error("dense_output: t = " + format_number(t) + " is outside the last step [" +
                            format_number(ta_) + ", " + format_number(t_) + "]");
  dense_weights(tab_, theta, weights_b_);
  const double* xn = Xa_.column(0);
  for (int k = 0; k < nx_; ++k) x_out[k] = xn[k];
  for (int i = 0; i < s_; ++i) {
    const double hb = ha_ * weights_b_[static_cast<std::size_t>(i)];
    const double* Fi = Fa_.column(i);
    for (int k = 0; k < nx_; ++k) x_out[k] += hb * Fi[k];
  }
  if (z_out.empty() || nz_ == 0) return;
  stage_interpolation_weights(tab_, theta, weights_l_);
  for (int k = 0; k < nz_; ++k) z_out[k] = 0.0;
  for (int i = 0; i < s_; ++i) {
    const double li = weights_l_[static_cast<std::size_t>(i)];
    const double* Zi = Za_.column(i);
    for (int k = 0; k < nz_; ++k) z_out[k] += li * Zi[k];
  }
  // At the ends the stage values themselves are consistent (and must stay continuous).
  if (theta <= 1e-12 || theta >= 1.0 - 1e-12) return;
  factor_dense_correction();
  if (dense_lu_singular_) return;  // keep the interpolant
  const MatrixRef correction{z_correction_.data(), nz_, 1, nz_};
  for (int iteration = 0; iteration < 2; ++iteration) {
    if (evaluate_model(t, x_out, z_out, base_, z_correction_) != 0) return;
    lu_solve(dense_dgdz_.cref(), dense_pivots_.data(), correction);
    for (int k = 0; k < nz_; ++k) z_out[k] -= z_correction_[k];
  }
}

}  // namespace esdirk
