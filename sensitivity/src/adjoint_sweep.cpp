#include "adjoint_sweep.hpp"

#include <algorithm>
#include <cmath>

#include "internal/dirk_adjoint_stages.hpp"
#include "internal/format_number.hpp"
#include "matrix_kernels.hpp"

namespace esdirk::internal {
namespace {

// Whether every entry is finite: the vectorized bit test of matrix_kernels, over all of A at
// once when its columns are contiguous. The sweep tests every stage adjoint, objective
// gradient and parameter product (a branch per entry cost the chain of
// bench_adjoint_parameters 1-2 % of its sweep).
bool all_finite(ConstMatrixRef A) {
  if (A.ld == A.rows) return detail::flat_all_finite(A.data, static_cast<std::size_t>(A.rows) * A.cols);
  for (int j = 0; j < A.cols; ++j)
    if (!detail::flat_all_finite(A.column(j), static_cast<std::size_t>(A.rows))) return false;
  return true;
}
bool all_finite(std::span<const double> v) { return detail::flat_all_finite(v.data(), v.size()); }

// C += alpha * A(rows r0.., all cols)^T B, A's row block of `rows` rows: the transposed
// products J^T kappa and [f_p; g_p]^T rho of the sweep. Each entry is one sum in the order of
// the rows (that of JacobianMatrix::add_transposed_product, the same bits); four columns of A
// are summed side by side, so that four independent chains of additions overlap where one
// chain at a time waited on each addition's latency (n = 20: a tenth of the sweep's time went
// to these sums).
void add_transposed_product(double alpha, ConstMatrixRef A, int r0, int rows, ConstMatrixRef B,
                            MatrixRef C) {
  for (int c = 0; c < B.cols; ++c) {
    const double* b = B.column(c);
    double* out = C.column(c);
    int j = 0;
    for (; j + 4 <= A.cols; j += 4) {
      const double* a0 = A.column(j) + r0;
      const double* a1 = A.column(j + 1) + r0;
      const double* a2 = A.column(j + 2) + r0;
      const double* a3 = A.column(j + 3) + r0;
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (int i = 0; i < rows; ++i) {
        const double bi = b[i];
        s0 += a0[i] * bi;
        s1 += a1[i] * bi;
        s2 += a2[i] * bi;
        s3 += a3[i] * bi;
      }
      out[j] += alpha * s0;
      out[j + 1] += alpha * s1;
      out[j + 2] += alpha * s2;
      out[j + 3] += alpha * s3;
    }
    for (; j < A.cols; ++j) {
      const double* a = A.column(j) + r0;
      double sum = 0.0;
      for (int i = 0; i < rows; ++i) sum += a[i] * b[i];
      out[j] += alpha * sum;
    }
  }
}

MatrixRef block(DenseMatrix& M, int col0, int cols) {
  return {M.data() + static_cast<std::size_t>(col0) * M.rows(), M.rows(), cols, M.rows()};
}
MatrixRef rows_of(MatrixRef M, int r0, int rows) { return {M.data + r0, rows, M.cols, M.ld}; }

// The stage systems of the sweep on the problem's back-end. With the Krylov back-end the
// transposed stage solves M^T rho = w run GMRES on M^T (J^T from J on the declared pattern, the
// preconditioner's transpose) to KrylovSettings::sensitivity_tolerance, as the forward
// sensitivities' stage solves: the Newton forcing term would leave the gradient only as
// accurate as one Newton correction (doc/adjoint-theory.md "Krylov").
JacobianStructure sweep_structure(JacobianStructure structure) {
  structure.krylov.tolerance = structure.krylov.sensitivity_tolerance;
  return structure;
}

}  // namespace

AdjointSweep::AdjointSweep(Problem& problem, const Tableau& method, const JacobianEvaluator& increments,
                           int rows, AdjointReport& report)
    : problem_(problem),
      method_(method),
      jacobians_(problem, counters_),
      report_(report),
      nx_(problem.nx()),
      nz_(problem.nz()),
      n_(problem.size()),
      np_(problem.np()),
      s_(method.stages),
      rows_(rows),
      structured_(problem.jacobian_structure().solver != LinearSolverKind::dense),
      krylov_(problem.jacobian_structure().solver == LinearSolverKind::krylov),
      lu_(nx_, nz_, sweep_structure(problem.jacobian_structure())),
      J_(n_, problem.jacobian_structure()) {
  jacobians_.use_increments_of(increments);
  weights_.assign(static_cast<std::size_t>(n_), 0.0);
  product_.assign(static_cast<std::size_t>(np_), 0.0);
  point_.assign(static_cast<std::size_t>(n_ + 1), 0.0);
  p_.assign(static_cast<std::size_t>(np_), 0.0);
  Jp_.resize(n_, std::max(np_, 1));
  point_cache_.assign(static_cast<std::size_t>(n_ + 1), 0.0);
  f_.assign(static_cast<std::size_t>(nx_), 0.0);
  g_.assign(static_cast<std::size_t>(nz_), 0.0);
  lambda_.resize(n_, rows);
  stage_adjoint_.resize(n_, rows * s_);
  kappa_.resize(nx_, rows * s_);
  seed_kappa_.resize(nx_, rows * s_);
  seed_start_.resize(nx_, rows);
  mu_.resize(std::max(np_, 1), rows);
  gx_.resize(nx_, rows);
  gz_.resize(std::max(nz_, 1), rows);
  gp_.resize(std::max(np_, 1), rows);
  dgdz_.resize(std::max(nz_, 1), std::max(nz_, 1));
  pivots_.assign(static_cast<std::size_t>(std::max(nz_, 1)), 0);
  if (krylov_) {
    lu_.set_statistics(&counters_);
    // The rows' transposed GMRES share the passes of the built-in ILU(0); the problem's own
    // preconditioner takes one vector per call.
    lu_.reserve_columns(problem.has_preconditioner() ? 1 : rows);
    if (problem.has_preconditioner()) {
      probe_.assign(static_cast<std::size_t>(n_), 1.0);
      probe_out_.assign(static_cast<std::size_t>(n_), 0.0);
    }
  }
}

void AdjointSweep::start() {
  linear_solver_failed_ = false;
  // Asked at every sweep, not once: a problem's choice may change between gradients (an AD
  // model's set_parameter_terms, or the structure it found in a later run).
  parameter_products_ = np_ > 0 && problem_.has_parameter_vjp();
  lambda_.fill(0.0);
  mu_.fill(0.0);
  seed_kappa_.fill(0.0);
  seed_start_.fill(0.0);
  seeded_ = false;
  cache_valid_ = false;
}

void AdjointSweep::set_parameters(ConstVector p) {
  std::copy(p.begin(), p.end(), p_.begin());
  cache_valid_ = false;
}

void AdjointSweep::zero_gradients() {
  gx_.fill(0.0);
  gz_.fill(0.0);
  gp_.fill(0.0);
}

bool AdjointSweep::gradients_finite() const {
  return all_finite(gx_.cref()) && all_finite(ConstMatrixRef{gz_.data(), nz_, rows_, gz_.rows()}) &&
         all_finite(ConstMatrixRef{gp_.data(), np_, rows_, gp_.rows()});
}

int AdjointSweep::add_point_term(const StepRecord& r, const PointGradient& term) {
  const int last = s_ - 1;
  zero_gradients();
  ++report_.objective_evaluations;
  const int code = term(column(r.X, last, nx_), column(r.Z, last, nz_), gx_.ref(), gz_ref(), gp_ref());
  if (code != 0 || !gradients_finite()) {
    message_ = "the objective's gradient " +
               std::string(code < 0 ? "returned a fatal code" : code > 0 ? "failed" : "is not finite") +
               " at t = " + format_number(r.t_end);
    return code < 0 ? code : 1;
  }
  for (int j = 0; j < rows_; ++j) {
    for (int i = 0; i < nx_; ++i) lambda_(i, j) += gx_(i, j);
    for (int i = 0; i < nz_; ++i) lambda_(nx_ + i, j) += gz_(i, j);
    for (int i = 0; i < np_; ++i) mu_(i, j) += gp_(i, j);
  }
  return 0;
}

void AdjointSweep::seed_interpolant(double start_weight, std::span<const double> derivative_weights,
                                    double end_weight, ConstMatrixRef a) {
  for (int j = 0; j < rows_; ++j)
    for (int k = 0; k < nx_; ++k) {
      const double v = a(k, j);
      lambda_(k, j) += end_weight * v;
      seed_start_(k, j) += start_weight * v;
      for (int i = 0; i < s_; ++i) seed_kappa_(k, i * rows_ + j) += derivative_weights[static_cast<std::size_t>(i)] * v;
    }
  seeded_ = true;
}

// The sweep's back-end of the stage recursion: J and [f_p; g_p] at the recorded stages, the
// stage matrix on the problem's back-end (dense, band or KLU), and the parameter terms.
struct AdjointSweep::Stages {
  AdjointSweep& sweep;
  const StepRecord& r;

  int prepare_stage(int i) { return sweep.jacobians_at(r, i); }
  void add_jf_transposed(int, ConstMatrixRef kappa, MatrixRef Y) {
    if (sweep.J_.is_dense())
      add_transposed_product(1.0, sweep.J_.dense(), 0, sweep.nx_, kappa, Y);
    else
      sweep.J_.add_transposed_product(0, sweep.nx_, kappa, Y, 1.0);
  }
  int solve_transposed(int i, MatrixRef V) {
    ++sweep.report_.stage_factorizations;
    if (sweep.lu_.factor(sweep.J_, r.h_gamma, -1) != 0)
      return failure(sweep.message_, "the stage matrix is singular at t = ", stage_time(i), " (adjoint)");
    sweep.lu_.solve_transposed(V);  // V <- rho_i
    sweep.report_.transposed_solves += sweep.rows_;
    if (sweep.krylov_ && !sweep.lu_.last_solve_converged()) return sweep.krylov_failure(stage_time(i));
    if (!all_finite(V))
      return failure(sweep.message_, "the stage adjoint is not finite at t = ", stage_time(i), "");
    return 0;
  }
  double stage_time(int i) const { return r.stage_times[static_cast<std::size_t>(i)]; }
  // Out of line, so that the hot path above stays small enough to be inlined.
  [[gnu::noinline, gnu::cold]] static int failure(std::string& message, const char* what, double t,
                                                   const char* suffix) {
    message = what + format_number(t) + suffix;
    return 1;
  }
  // Parameters: the stage derivative's f_p P (kappa_i) and, for a solved stage, the
  // right-hand side's h gamma f_p P (rho_x) and -g_p P (rho_z).
  void stage_done(int i, ConstMatrixRef kappa, ConstMatrixRef rho) {
    const int nx = sweep.nx_, nz = sweep.nz_;
    if (sweep.np_ == 0) return;
    if (sweep.parameter_products_) return sweep.stage_parameter_products(r, i, kappa, rho);
    MatrixRef M = sweep.mu_.ref();
    add_transposed_product(1.0, sweep.Jp_.cref(), 0, nx, kappa, M);
    if (i == 0) return;  // the step start: no stage equation of its own
    add_transposed_product(r.h_gamma, sweep.Jp_.cref(), 0, nx, {rho.data, nx, rho.cols, rho.ld}, M);
    if (nz > 0)
      add_transposed_product(-1.0, sweep.Jp_.cref(), nx, nz, {rho.data + nx, nz, rho.cols, rho.ld}, M);
  }
};

// One step backwards (the transpose of the forward stage recursion of stage_sensitivities.cpp,
// stages in reverse order).
int AdjointSweep::step(const StepRecord& r, const ObjectiveGradient& running) {
  const Tableau& tab = method_;
  const double h = r.h;
  stage_adjoint_.fill(0.0);
  // Interpolant seeds of this step (an event's left limit, an output point inside it).
  if (seeded_) std::copy(seed_kappa_.data(), seed_kappa_.data() + static_cast<std::size_t>(nx_) * rows_ * s_, kappa_.data());
  else kappa_.fill(0.0);
  // The last stage is [x_{n+1}; z_{n+1}] (stiffly accurate): its adjoint is lambda.
  MatrixRef Vs = block(stage_adjoint_, (s_ - 1) * rows_, rows_);
  for (int j = 0; j < rows_; ++j)
    for (int i = 0; i < n_; ++i) Vs(i, j) = lambda_(i, j);
  // Running cost h sum_i b_i L(stage i): its gradient enters every stage with weight h b_i.
  if (running) {
    for (int i = 0; i < s_; ++i) {
      const double w = h * tab.b[static_cast<std::size_t>(i)];
      if (w == 0.0) continue;
      zero_gradients();
      ++report_.objective_evaluations;
      const int code = running(r.stage_times[static_cast<std::size_t>(i)], column(r.X, i, nx_),
                               column(r.Z, i, nz_), p_, gx_.ref(), gz_ref(), gp_ref());
      if (code != 0 || !gradients_finite()) {
        message_ = "the running cost's gradient " +
                   std::string(code < 0 ? "returned a fatal code" : code > 0 ? "failed" : "is not finite") +
                   " at t = " + format_number(r.stage_times[static_cast<std::size_t>(i)]);
        return code < 0 ? code : 1;
      }
      MatrixRef V = block(stage_adjoint_, i * rows_, rows_);
      for (int j = 0; j < rows_; ++j) {
        for (int k = 0; k < nx_; ++k) V(k, j) += w * gx_(k, j);
        for (int k = 0; k < nz_; ++k) V(nx_ + k, j) += w * gz_(k, j);
        for (int k = 0; k < np_; ++k) mu_(k, j) += w * gp_(k, j);
      }
    }
  }
  lambda_.fill(0.0);
  // The stage recursion (internal/dirk_adjoint_stages.hpp): implicit stages last first,
  // M_i^T rho_i = V_i + J_i(f rows)^T kappa_i with kappa_i the adjoint of the stage derivative
  // SF_i (h a_ki rho_k of the later stages); the explicit first stage is [x_n; z_n] itself.
  Stages stages{*this, r};
  DirkAdjointStep recursion;
  recursion.nx = nx_;
  recursion.n = n_;
  recursion.rows = rows_;
  recursion.stages = s_;
  recursion.h = h;
  recursion.first_stage_is_step_start = true;
  recursion.seeds = stage_adjoint_.ref();
  recursion.kappa = kappa_.ref();
  recursion.lambda = lambda_.ref();
  product_code_ = 0;
  if (const int code = reverse_dirk_stages(tab, recursion, stages); code != 0) return code;
  if (product_code_ != 0) return model_failure(product_code_, "the parameter vector-Jacobian product", product_time_);
  if (seeded_) {
    for (int j = 0; j < rows_; ++j)
      for (int k = 0; k < nx_; ++k) lambda_(k, j) += seed_start_(k, j);
    seed_kappa_.fill(0.0);
    seed_start_.fill(0.0);
    seeded_ = false;
  }
  ++report_.adjoint_steps;
  if (!all_finite(lambda_.cref())) {
    message_ = "the adjoint is not finite at t = " + format_number(r.t);
    return 1;
  }
  return 0;
}

// J and [f_p; g_p] at stage i of r. The first stage of a step is the last of the one before,
// which the sweep visits next: that pair is formed once (a bitwise match of the point). It is
// formed last in its step and needed first in the next, and nothing forms J in between, so J_
// and Jp_ simply keep it (no copy).
int AdjointSweep::jacobians_at(const StepRecord& r, int i) {
  const double t = r.stage_times[static_cast<std::size_t>(i)];
  const ConstVector x = column(r.X, i, nx_), z = column(r.Z, i, nz_);
  if (parameter_products_) remember_point(t, x, z);
  if (cache_valid_ && point_cache_[0] == t &&
      std::equal(x.begin(), x.end(), point_cache_.begin() + 1) &&
      std::equal(z.begin(), z.end(), point_cache_.begin() + 1 + nx_)) {
    cache_valid_ = false;
    return 0;
  }
  cache_valid_ = false;  // J_ and Jp_ are formed anew
  // Difference Jacobians need f and g at the point itself (the record's F_i is the
  // stage-equation derivative): the base the forward exact mode uses too.
  const bool analytic_state = structured_ ? jacobians_.analytic() : problem_.has_jacobian();
  const bool parameter_differences = np_ > 0 && !parameter_products_ && !problem_.has_parameter_jacobian();
  if (!analytic_state || parameter_differences) {
    ++counters_.fd_function_evaluations;
    int code = problem_.evaluate(t, x, z, p_, f_, g_);
    if (code == 0 && !(all_finite(f_) && all_finite(g_))) code = 1;
    if (code != 0) return model_failure(code, "f/g", t);
  }
  ++report_.jacobian_evaluations;
  int code = jacobians_.state_jacobian(t, x, z, p_, f_, g_, J_);
  if (code != 0) return model_failure(code, "the Jacobian", t);
  if (np_ > 0 && !parameter_products_) {
    ++report_.parameter_jacobian_evaluations;
    code = jacobians_.parameter_jacobian(t, x, z, p_, f_, g_,
                                         {Jp_.data(), n_, np_, n_});
    if (code != 0) return model_failure(code, "the parameter Jacobian", t);
  }
  if (i == 0) {  // keep it for the previous step's last stage
    point_cache_[0] = t;
    std::copy(x.begin(), x.end(), point_cache_.begin() + 1);
    std::copy(z.begin(), z.end(), point_cache_.begin() + 1 + nx_);
    cache_valid_ = true;
  }
  return 0;
}

int AdjointSweep::form_jacobians(double t, ConstVector x, ConstVector z) {
  cache_valid_ = false;
  if (parameter_products_) remember_point(t, x, z);
  ++counters_.fd_function_evaluations;
  int code = problem_.evaluate(t, x, z, p_, f_, g_);
  if (code == 0 && !(all_finite(f_) && all_finite(g_))) code = 1;
  if (code != 0) return model_failure(code, "f/g", t);
  ++report_.jacobian_evaluations;
  code = jacobians_.state_jacobian(t, x, z, p_, f_, g_, J_);
  if (code != 0) return model_failure(code, "the Jacobian", t);
  if (np_ > 0 && !parameter_products_) {
    ++report_.parameter_jacobian_evaluations;
    code = jacobians_.parameter_jacobian(t, x, z, p_, f_, g_, {Jp_.data(), n_, np_, n_});
    if (code != 0) return model_failure(code, "the parameter Jacobian", t);
  }
  return 0;
}

// GMRES did not solve a transposed stage system to KrylovSettings::sensitivity_tolerance. With
// the problem's preconditioner the usual cause is a preconditioner_solve without its transpose
// (a failure code or non-finite values for transpose = true): probed once here, off the hot
// path, so that the message names it.
int AdjointSweep::krylov_failure(double t) {
  linear_solver_failed_ = true;
  const std::string where = " at the stage t = " + format_number(t) + " (adjoint)";
  if (!probe_.empty()) {
    std::fill(probe_.begin(), probe_.end(), 1.0);
    int code = problem_.preconditioner_solve(probe_, probe_out_, true);
    for (double v : probe_out_) code = (code == 0 && !std::isfinite(v)) ? 1 : code;
    if (code != 0) {
      message_ = "the problem's preconditioner_solve failed for transpose = true" + where +
                 ": the adjoint's transposed stage solves need P^{-T} r from the preconditioner (implement "
                 "the transpose, or use LinearSolverKind::sparse or banded for the adjoint)";
      return 1;
    }
  }
  message_ = "GMRES did not solve the transposed stage system to KrylovSettings::sensitivity_tolerance" + where +
             " (raise KrylovSettings::dimension or max_restarts, or improve the preconditioner)";
  return 1;
}

// The problem's note on its failure (an ad::ModelProblem names the model function, equation
// and argument) is appended as the integrator appends it to a failed step's message.
int AdjointSweep::model_failure(int code, const char* what, double t) {
  message_ = std::string(what) + (code < 0 ? " returned a fatal code" : " failed or was not finite") +
             " at the stage t = " + format_number(t) + " (adjoint)";
  if (const std::string note = problem_.failure_note(); !note.empty()) message_ += " (model: " + note + ")";
  return code < 0 ? code : 1;
}

// The consistent z0 = z(x0, p): Sz_0 = -g_z^{-1}(g_x Sx_0 + g_p P) at t0, so with
// w = g_z^{-T} lambda_z: d/dx0 = lambda_x - g_x^T w, d/dp = mu - g_p^T w.
int AdjointSweep::consistent_start(const double* form_at_t, ConstVector x, ConstVector z) {
  if (nz_ == 0) return 0;
  if (form_at_t) {
    const int code = form_jacobians(*form_at_t, x, z);
    if (code != 0) return code;
  }
  J_.copy_block(nx_, nx_, dgdz_.ref());
  if (lu_factor(dgdz_.ref(), pivots_.data()) != 0) {
    message_ = "dg/dz is singular at the initial point (adjoint)";
    return 1;
  }
  for (int j = 0; j < rows_; ++j)
    for (int i = 0; i < nz_; ++i) gz_(i, j) = lambda_(nx_ + i, j);
  lu_solve(dgdz_.cref(), pivots_.data(), gz_.ref(), true);  // w
  J_.add_transposed_product(nx_, nz_, gz_.cref(), rows_of(lambda_.ref(), 0, nx_), -1.0);
  if (parameter_products_) {
    if (const int code = start_parameter_products(); code != 0) return code;
  } else if (np_ > 0) {
    add_transposed_product(-1.0, Jp_.cref(), nx_, nz_, gz_.cref(), mu_.ref());
  }
  for (int j = 0; j < rows_; ++j)
    for (int i = 0; i < nz_; ++i) lambda_(nx_ + i, j) = 0.0;
  return 0;
}

void AdjointSweep::remember_point(double t, ConstVector x, ConstVector z) {
  point_[0] = t;
  std::copy(x.begin(), x.end(), point_.begin() + 1);
  std::copy(z.begin(), z.end(), point_.begin() + 1 + nx_);
}

// The parameter terms of stage i (as stage_done forms them with [f_p; g_p]) by products:
// w = kappa_i + h gamma rho_i,x on the f rows and -rho_i,z on the g rows; kappa_i alone at the
// step start. A failure is kept and reported after the stage recursion (step()).
void AdjointSweep::stage_parameter_products(const StepRecord& r, int i, ConstMatrixRef kappa,
                                            ConstMatrixRef rho) {
  if (product_code_ != 0) return;
  const double t = r.stage_times[static_cast<std::size_t>(i)];
  const ConstVector x = column(r.X, i, nx_), z = column(r.Z, i, nz_);
  const double h_gamma = i > 0 ? r.h_gamma : 0.0, g_weight = i > 0 ? -1.0 : 0.0;
  for (int j = 0; j < rows_; ++j) {
    for (int k = 0; k < nx_; ++k) weights_[static_cast<std::size_t>(k)] = kappa(k, j) + h_gamma * rho(k, j);
    for (int k = 0; k < nz_; ++k) weights_[static_cast<std::size_t>(nx_ + k)] = g_weight * rho(nx_ + k, j);
    int code = problem_.parameter_vjp(t, x, z, p_, weights_, product_);
    if (code == 0 && !all_finite(product_)) code = 1;
    if (code != 0) {
      product_code_ = code;
      product_time_ = t;
      return;
    }
    for (int k = 0; k < np_; ++k) mu_(k, j) += product_[static_cast<std::size_t>(k)];
  }
}

// consistent_start's mu -= g_p^T w by products at the point of the last Jacobians.
int AdjointSweep::start_parameter_products() {
  const ConstVector x(point_.data() + 1, static_cast<std::size_t>(nx_)),
      z(point_.data() + 1 + nx_, static_cast<std::size_t>(nz_));
  for (int j = 0; j < rows_; ++j) {
    std::fill(weights_.begin(), weights_.begin() + nx_, 0.0);
    for (int k = 0; k < nz_; ++k) weights_[static_cast<std::size_t>(nx_ + k)] = gz_(k, j);
    int code = problem_.parameter_vjp(point_[0], x, z, p_, weights_, product_);
    if (code == 0 && !all_finite(product_)) code = 1;
    if (code != 0) return model_failure(code, "the parameter vector-Jacobian product", point_[0]);
    for (int k = 0; k < np_; ++k) mu_(k, j) -= product_[static_cast<std::size_t>(k)];
  }
  return 0;
}

int AdjointSweep::finish(MatrixRef dx0, MatrixRef dp) {
  const int code = consistent_start();
  if (code != 0) return code;
  for (int j = 0; j < rows_; ++j) {
    for (int i = 0; i < nx_; ++i) dx0(i, j) = lambda_(i, j);
    for (int i = 0; i < np_ && dp.rows > 0; ++i) dp(i, j) = mu_(i, j);
  }
  return 0;
}

}  // namespace esdirk::internal
