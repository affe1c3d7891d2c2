// One Type II step of an adjoint system (doc/geometric-adjoint-theory.md, "The step").

#include "esdirk/geometric/type_two_step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "esdirk/linear_solver.hpp"
#include "internal/algebraic_newton.hpp"
#include "internal/dirk_adjoint_stages.hpp"

namespace esdirk::geometric {
namespace {

double max_abs(ConstVector v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// A factorization counts as singular when a pivot is exactly zero or negligible against the
// largest (the index-1 test of phi_u must not pass on a pivot of rounding size).
bool negligible_pivot(ConstMatrixRef lu) {
  double largest = 0.0, smallest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < lu.rows; ++k) {
    largest = std::max(largest, std::abs(lu(k, k)));
    smallest = std::min(smallest, std::abs(lu(k, k)));
  }
  return !(smallest > 64 * std::numeric_limits<double>::epsilon() * largest);
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

}  // namespace

TypeTwoStep::TypeTwoStep(Problem& problem, PrkPair pair, StepOptions options)
    : problem_(problem),
      pair_(std::move(pair)),
      options_(options),
      jacobians_(problem, stats_),
      nx_(problem.nx()),
      nz_(problem.nz()),
      n_(problem.size()),
      s_(pair_.method.stages) {
  options_.validate();
  pair_.method.validate();
  const auto s = static_cast<std::size_t>(s_);
  if (pair_.partner.size() != s * s)
    throw std::invalid_argument("TypeTwoStep: the pair " + pair_.name + " has " +
                                std::to_string(pair_.partner.size()) +
                                " partner coefficients for " + std::to_string(s_) + " stages");
  if (options_.form == AdjointForm::partner && pair_.method.has_zero_weight())
    throw std::invalid_argument(
        "TypeTwoStep: the partner (normalized) form needs every weight b_i != 0; " +
        pair_.method.name + " has a zero weight (use AdjointForm::unnormalized)");
  // Stage blocks: one per stage for a lower-triangular A, one for all stages otherwise.
  if (pair_.method.lower_triangular()) {
    for (int i = 0; i < s_; ++i) {
      Block b;
      b.first = i;
      b.count = 1;
      b.identity = (nz_ == 0 && pair_.method.A(i, i) == 0.0);
      b.explicit_dae = (nz_ > 0 && pair_.method.A(i, i) == 0.0);
      b.stage_value = pair_.method.A(i, i) != 0.0;
      blocks_.push_back(std::move(b));
    }
  } else {
    Block b;
    b.first = 0;
    b.count = s_;
    blocks_.push_back(std::move(b));
  }
  for (Block& b : blocks_) {
    if (b.stage_value) b.stage_lu.resize(nx_, nz_);
    if (b.identity || b.stage_value) continue;
    const int size = b.explicit_dae ? nz_ : b.count * n_;  // explicit DAE stage: phi_u only
    b.lu.resize(size, size);
    b.pivots.assign(static_cast<std::size_t>(size), 0);
  }
  const auto sn = s * static_cast<std::size_t>(n_);
  params_.assign(static_cast<std::size_t>(problem.np()), 0.0);
  q0_.assign(static_cast<std::size_t>(nx_), 0.0);
  q1_ = q0_;
  u1_.assign(static_cast<std::size_t>(nz_), 0.0);
  y_.assign(sn, 0.0);
  dy_.assign(sn, 0.0);
  Q_.resize(nx_, s_);
  residual_.assign(sn, 0.0);
  fval_.assign(static_cast<std::size_t>(nx_), 0.0);
  gval_.assign(static_cast<std::size_t>(nz_), 0.0);
  J_.assign(s, JacobianMatrix(n_));
  lambda_step_.assign(static_cast<std::size_t>(n_), 0.0);
  for (auto* v : {&kappa_, &lambda_hat_, &P_, &dLq_}) v->assign(s * nx_, 0.0);
  for (auto* v : {&mu_, &Lam_, &dLu_}) v->assign(s * nz_, 0.0);
  rhs_.assign(sn, 0.0);
  if (options_.form == AdjointForm::partner) {
    partner_matrix_.resize(static_cast<int>(sn), static_cast<int>(sn));
    partner_pivots_.assign(sn, 0);
  }
  phi_u_.resize(std::max(nz_, 1), std::max(nz_, 1));
  phi_u_pivots_.assign(static_cast<std::size_t>(std::max(nz_, 1)), 0);
  algebraic_work_.assign(5 * static_cast<std::size_t>(nz_) + static_cast<std::size_t>(nx_), 0.0);
  dQ_.assign(static_cast<std::size_t>(nx_), 0.0);
  J_point_.resize(n_, n_);
  cache_J_.resize(n_, n_);
  cache_point_.assign(static_cast<std::size_t>(n_ + 1), 0.0);
}

void TypeTwoStep::set_parameters(ConstVector p) {
  if (p.size() != params_.size())
    throw std::invalid_argument("TypeTwoStep::set_parameters: " + std::to_string(params_.size()) +
                                " parameters expected, got " + std::to_string(p.size()));
  std::copy(p.begin(), p.end(), params_.begin());
  cache_valid_ = false;  // the cached Jacobian belongs to the old parameters
}

Status TypeTwoStep::fail(Status status, std::string message) {
  message_ = std::move(message);
  linearized_ = false;
  return status;
}

ConstVector TypeTwoStep::stage_state(int i) const {
  return {Q_.column(i), static_cast<std::size_t>(nx_)};
}
ConstVector TypeTwoStep::stage_algebraic(int i) const {
  return {y_.data() + static_cast<std::size_t>(i) * n_ + nx_, static_cast<std::size_t>(nz_)};
}
ConstVector TypeTwoStep::stage_adjoint(int i) const {
  return {P_.data() + static_cast<std::size_t>(i) * nx_, static_cast<std::size_t>(nx_)};
}
ConstVector TypeTwoStep::stage_multiplier(int i) const {
  return {Lam_.data() + static_cast<std::size_t>(i) * nz_, static_cast<std::size_t>(nz_)};
}

// Q^i = q0 + h sum_j a_ij K^j for the stages of `block` (later stages have a_ij = 0).
void TypeTwoStep::stage_states(const Block& block) {
  const int last = block.first + block.count;
  for (int i = block.first; i < last; ++i) {
    double* Qi = Q_.column(i);
    std::copy(q0_.begin(), q0_.end(), Qi);
    for (int j = 0; j < last; ++j) {
      const double w = h_ * pair_.method.A(i, j);
      if (w == 0.0) continue;
      const double* Kj = y_.data() + static_cast<std::size_t>(j) * n_;
      for (int k = 0; k < nx_; ++k) Qi[k] += w * Kj[k];
    }
  }
}

// f and phi at stage i into the residual [K^i - f; phi], and the stage Jacobian if asked.
Status TypeTwoStep::evaluate_stage(int i, bool with_jacobian) {
  const double t = t_ + pair_.method.c[static_cast<std::size_t>(i)] * h_;
  const ConstVector q(Q_.column(i), static_cast<std::size_t>(nx_));
  const ConstVector u(y_.data() + static_cast<std::size_t>(i) * n_ + nx_,
                      static_cast<std::size_t>(nz_));
  ++stats_.function_evaluations;
  int code = problem_.evaluate(t, q, u, params_, fval_, gval_);
  if (code == 0 &&
      (max_abs(fval_) > std::numeric_limits<double>::max() || std::isnan(max_abs(fval_)) ||
       std::isnan(max_abs(gval_)) || max_abs(gval_) > std::numeric_limits<double>::max()))
    code = 1;
  if (code != 0)
    return fail(code < 0 ? Status::callback_fatal : Status::callback_failures,
                "f/phi " +
                    std::string(code < 0 ? "returned a fatal code" : "failed or is not finite") +
                    " at stage " + std::to_string(i + 1) + ", t = " + number(t));
  double* r = residual_.data() + static_cast<std::size_t>(i) * n_;
  const double* K = y_.data() + static_cast<std::size_t>(i) * n_;
  for (int k = 0; k < nx_; ++k) r[k] = K[k] - fval_[static_cast<std::size_t>(k)];
  for (int k = 0; k < nz_; ++k) r[nx_ + k] = gval_[static_cast<std::size_t>(k)];
  if (!with_jacobian) return Status::success;
  code = jacobians_.state_jacobian(t, q, u, params_, fval_, gval_,
                                   J_[static_cast<std::size_t>(i)].dense());
  if (code != 0)
    return fail(code < 0 ? Status::callback_fatal : Status::callback_failures,
                "the Jacobian " +
                    std::string(code < 0 ? "returned a fatal code" : "failed or is not finite") +
                    " at stage " + std::to_string(i + 1) + ", t = " + number(t));
  return Status::success;
}

// Only the stage Jacobian at stage i (the backward and tangent sweeps over kept stages need no
// residual). f and phi are evaluated only as the base of difference Jacobians. A backward
// sweep visits step n-1 after step n, and the last stage of step n-1 is the first of step n
// (explicit first stage, stiffly accurate: ESDIRK, Lobatto IIIA): that Jacobian is formed once
// (a bitwise match of the point).
Status TypeTwoStep::jacobian_only(int i) {
  const double t = t_ + pair_.method.c[static_cast<std::size_t>(i)] * h_;
  const ConstVector q(Q_.column(i), static_cast<std::size_t>(nx_));
  const ConstVector u(y_.data() + static_cast<std::size_t>(i) * n_ + nx_,
                      static_cast<std::size_t>(nz_));
  const MatrixRef J = J_[static_cast<std::size_t>(i)].dense();
  if (cache_valid_ && cache_point_[0] == t &&
      std::equal(q.begin(), q.end(), cache_point_.begin() + 1) &&
      std::equal(u.begin(), u.end(), cache_point_.begin() + 1 + nx_)) {
    std::copy(cache_J_.data(), cache_J_.data() + static_cast<std::size_t>(n_) * n_, J.data);
  } else {
    int code = 0;
    if (!problem_.has_jacobian()) {
      ++stats_.fd_function_evaluations;
      code = problem_.evaluate(t, q, u, params_, fval_, gval_);
    }
    if (code == 0) code = jacobians_.state_jacobian(t, q, u, params_, fval_, gval_, J);
    if (code != 0)
      return fail(code < 0 ? Status::callback_fatal : Status::callback_failures,
                  "the Jacobian " +
                      std::string(code < 0 ? "returned a fatal code" : "failed or is not finite") +
                      " at stage " + std::to_string(i + 1) + ", t = " + number(t));
  }
  if (i == 0) {
    cache_point_[0] = t;
    std::copy(q.begin(), q.end(), cache_point_.begin() + 1);
    std::copy(u.begin(), u.end(), cache_point_.begin() + 1 + nx_);
    std::copy(J.data, J.data + static_cast<std::size_t>(n_) * n_, cache_J_.data());
    cache_valid_ = true;
  }
  return Status::success;
}

// The block's stage matrix in (K, U), rows [K^i - f; phi] of its stages:
//   [ delta_ij I - h a_ij f_q^i   -delta_ij f_u^i ]
//   [ h a_ij phi_q^i               delta_ij phi_u^i ]
Status TypeTwoStep::factor_block(Block& block) {
  if (block.identity) return Status::success;
  DenseMatrix& M = block.lu;
  if (block.explicit_dae) {  // [I, -f_u; 0, phi_u]: only phi_u is factored
    const ConstMatrixRef J = J_[static_cast<std::size_t>(block.first)].dense();
    for (int c = 0; c < nz_; ++c)
      for (int r = 0; r < nz_; ++r) M(r, c) = J(nx_ + r, nx_ + c);
    ++stats_.lu_factorizations;
    if (lu_factor(M.ref(), block.pivots.data()) == 0 && !negligible_pivot(M.cref()))
      return Status::success;
    return fail(Status::singular_constraint_jacobian,
                "dphi/du is singular at stage " + std::to_string(block.first + 1) + ", t = " +
                    number(t_ + pair_.method.c[static_cast<std::size_t>(block.first)] * h_) +
                    ": the DAE is not of index 1 there");
  }
  int info = 0;
  if (block.stage_value) {  // M_i = [I - h a_ii f_x, -h a_ii f_z; phi_x, phi_z] (stage values)
    ++stats_.lu_factorizations;
    info = block.stage_lu.factor(J_[static_cast<std::size_t>(block.first)].dense(),
                                 h_ * pair_.method.A(block.first, block.first));
    if (info == 0 && !negligible_pivot(block.stage_lu.factors())) return Status::success;
    return singular_block(block);
  }
  M.fill(0.0);
  for (int bi = 0; bi < block.count; ++bi) {
    const int i = block.first + bi;
    const ConstMatrixRef J = J_[static_cast<std::size_t>(i)].dense();
    for (int bj = 0; bj < block.count; ++bj) {
      const int j = block.first + bj;
      const double ha = h_ * pair_.method.A(i, j);
      const int r0 = bi * n_, c0 = bj * n_;
      for (int c = 0; c < nx_; ++c)
        for (int r = 0; r < n_; ++r) M(r0 + r, c0 + c) = (r < nx_ ? -ha : ha) * J(r, c);
      if (i == j) {
        for (int k = 0; k < nx_; ++k) M(r0 + k, c0 + k) += 1.0;
        for (int c = nx_; c < n_; ++c)
          for (int r = 0; r < n_; ++r) M(r0 + r, c0 + c) = (r < nx_ ? -1.0 : 1.0) * J(r, c);
      }
    }
  }
  ++stats_.lu_factorizations;
  info = lu_factor(M.ref(), block.pivots.data());
  if (info == 0 && !negligible_pivot(M.cref())) return Status::success;
  return singular_block(block);
}

Status TypeTwoStep::singular_block(const Block& block) {
  // Name the cause: a singular phi_u (not index 1) or a step too large for the stage matrix.
  for (int bi = 0; bi < block.count && nz_ > 0; ++bi) {
    const int i = block.first + bi;
    for (int c = 0; c < nz_; ++c)
      for (int r = 0; r < nz_; ++r)
        phi_u_(r, c) = J_[static_cast<std::size_t>(i)].dense()(nx_ + r, nx_ + c);
    if (lu_factor(phi_u_.ref(), phi_u_pivots_.data()) != 0 || negligible_pivot(phi_u_.cref()))
      return fail(Status::singular_constraint_jacobian,
                  "dphi/du is singular at stage " + std::to_string(i + 1) +
                      ", t = " + number(t_ + pair_.method.c[static_cast<std::size_t>(i)] * h_) +
                      ": the DAE is not of index 1 there");
  }
  return fail(Status::singular_iteration_matrix,
              "the stage matrix of stages " + std::to_string(block.first + 1) + ".." +
                  std::to_string(block.first + block.count) + " is singular at t = " + number(t_));
}

// x <- M^{-1} x or M^{-T} x with the block's stage matrix M.
void TypeTwoStep::block_solve(const Block& block, double* x, bool transpose) {
  if (block.identity) return;
  ++stats_.back_substitutions;
  if (block.stage_value) {
    // The stage-derivative unknowns (K, U) of the Newton iteration and the tangent relate to
    // the stage values by X = base + h a_ii K: M_K = D^{-1} M_X D with D = diag(h a_ii I, I),
    // so M_K^{-1} = D^{-1} M_X^{-1} D and M_K^{-T} = D M_X^{-T} D^{-1}.
    const double ha = h_ * pair_.method.A(block.first, block.first);
    const MatrixRef B{x, n_, 1, n_};
    if (!transpose) {
      for (int k = 0; k < nx_; ++k) x[k] *= ha;
      block.stage_lu.solve(B);
      for (int k = 0; k < nx_; ++k) x[k] /= ha;
    } else {
      for (int k = 0; k < nx_; ++k) x[k] /= ha;
      block.stage_lu.solve_transposed(B);
      for (int k = 0; k < nx_; ++k) x[k] *= ha;
    }
    return;
  }
  if (!block.explicit_dae) {
    MatrixRef B{x, block.count * n_, 1, block.count * n_};
    lu_solve(block.lu.cref(), block.pivots.data(), B, transpose);
    return;
  }
  // M = [I, -f_u; 0, phi_u] (a_ii = 0): M^{-1} [r1; r2] = [r1 + f_u v; v], v = phi_u^{-1} r2;
  // M^{-T} [r1; r2] = [r1; phi_u^{-T} (r2 + f_u^T r1)].
  const ConstMatrixRef J = J_[static_cast<std::size_t>(block.first)].dense();
  MatrixRef v{x + nx_, nz_, 1, nz_};
  if (!transpose) {
    lu_solve(block.lu.cref(), block.pivots.data(), v);
    for (int r = 0; r < nx_; ++r) {
      double sum = 0.0;
      for (int c = 0; c < nz_; ++c) sum += J(r, nx_ + c) * x[nx_ + c];
      x[r] += sum;
    }
  } else {
    for (int c = 0; c < nz_; ++c) {
      double sum = 0.0;
      for (int r = 0; r < nx_; ++r) sum += J(r, nx_ + c) * x[r];
      x[nx_ + c] += sum;
    }
    lu_solve(block.lu.cref(), block.pivots.data(), v, true);
  }
}

Status TypeTwoStep::linearize_block(Block& block) {
  stage_states(block);
  for (int i = block.first; i < block.first + block.count; ++i)
    if (Status st = evaluate_stage(i, true); st != Status::success) return st;
  return factor_block(block);
}

// Newton's method on the block's stage equations. The last pass evaluates and factors at the
// converged stages: that linearization is what adjoint() and tangent() use.
Status TypeTwoStep::solve_block(Block& block) {
  const std::size_t first = static_cast<std::size_t>(block.first) * n_;
  const std::size_t size = static_cast<std::size_t>(block.count) * n_;
  if (block.identity) {  // explicit ODE stage: K = f(Q), Q known
    stage_states(block);
    if (Status st = evaluate_stage(block.first, true); st != Status::success) return st;
    for (std::size_t k = 0; k < size; ++k) y_[first + k] -= residual_[first + k];
    return Status::success;
  }
  if (options_.iteration == StageIteration::simplified_newton) return solve_block_simplified(block);
  bool converged = false;
  for (int iteration = 0;; ++iteration) {
    if (Status st = linearize_block(block); st != Status::success) return st;
    if (converged) break;
    if (iteration == options_.max_iterations)
      return fail(Status::constraint_solve_failed,
                  "the stage equations of stages " + std::to_string(block.first + 1) + ".." +
                      std::to_string(block.first + block.count) + " did not converge in " +
                      std::to_string(options_.max_iterations) + " Newton iterations at t = " +
                      number(t_) + " (tolerance " + number(options_.tolerance) + ")");
    ++stats_.newton_iterations;
    for (std::size_t k = 0; k < size; ++k) dy_[first + k] = -residual_[first + k];
    block_solve(block, dy_.data() + first, false);
    double step = 0.0, scale = 0.0;
    for (std::size_t k = 0; k < size; ++k) {
      y_[first + k] += dy_[first + k];
      step = std::max(step, std::abs(dy_[first + k]));
      scale = std::max(scale, std::abs(y_[first + k]));
    }
    if (!std::isfinite(step))
      return fail(Status::constraint_solve_failed,
                  "the Newton iteration of the stage equations diverged at t = " + number(t_));
    converged = step <= options_.tolerance * (1.0 + scale);
  }
  return Status::success;
}

// Simplified Newton (StageIteration::simplified_newton): the block's matrix at the starting
// guess throughout; the correction that meets the tolerance is not applied, so the stages
// carry an error of the order of the tolerance. Then the Jacobians and the matrix are formed
// at the stages reached (the linearization adjoint() and tangent() use; the residual there is
// the forward defect).
Status TypeTwoStep::solve_block_simplified(Block& block) {
  const std::size_t first = static_cast<std::size_t>(block.first) * n_;
  const std::size_t size = static_cast<std::size_t>(block.count) * n_;
  const int last = block.first + block.count;
  if (Status st = linearize_block(block); st != Status::success) return st;
  double previous = std::numeric_limits<double>::infinity();
  for (int iteration = 0;; ++iteration) {
    if (iteration == options_.max_iterations)
      return fail(Status::constraint_solve_failed,
                  "the stage equations of stages " + std::to_string(block.first + 1) + ".." +
                      std::to_string(last) + " did not converge in " +
                      std::to_string(options_.max_iterations) +
                      " simplified Newton iterations at t = " + number(t_) + " (tolerance " +
                      number(options_.tolerance) + ")");
    ++stats_.newton_iterations;
    for (std::size_t k = 0; k < size; ++k) dy_[first + k] = -residual_[first + k];
    block_solve(block, dy_.data() + first, false);
    double step = 0.0, scale = 0.0;
    for (std::size_t k = 0; k < size; ++k) {
      step = std::max(step, std::abs(dy_[first + k]));
      scale = std::max(scale, std::abs(y_[first + k]));
    }
    if (step <= options_.tolerance * (1.0 + scale)) break;
    // A frozen matrix converges linearly or not at all: a correction that does not shrink
    // means divergence (going on would end in an overflow of f, reported as the model's).
    if (!(step < previous))
      return fail(Status::constraint_solve_failed,
                  "the simplified Newton iteration of the stage equations diverged at t = " +
                      number(t_) + " (correction " + number(step) + " after " + number(previous) +
                      ")");
    previous = step;
    for (std::size_t k = 0; k < size; ++k) y_[first + k] += dy_[first + k];
    stage_states(block);
    for (int i = block.first; i < last; ++i)
      if (Status st = evaluate_stage(i, false); st != Status::success) return st;
  }
  return linearize_block(block);
}

// The algebraic Newton kernel of the core (internal/algebraic_newton.hpp) with the step's own
// tolerance, relative to the size of u: ||du||_w <= tolerance with w = 1/(1 + max|u|).
Status TypeTwoStep::consistent_algebraic(double t, ConstVector q, Vector u) {
  if (q.size() != static_cast<std::size_t>(nx_) || u.size() != static_cast<std::size_t>(nz_))
    throw std::invalid_argument("TypeTwoStep::consistent_algebraic: q needs nx and u nz values");
  if (nz_ == 0) return Status::success;
  class Equations final : public internal::AlgebraicEquations {
   public:
    Equations(TypeTwoStep& s, double t, ConstVector q) : s_(s), t_(t), q_(q) {}
    int evaluate(ConstVector u, Vector g, Point point) override {
      ++s_.stats_.function_evaluations;
      const Vector f = point == Point::trial ? s_.algebraic_trial_f() : Vector(s_.fval_);
      int code = s_.problem_.evaluate(t_, q_, u, s_.params_, f, g);
      if (code == 0 && std::isnan(max_abs(g))) code = 1;
      return code;
    }
    void accept_trial() override {
      const Vector f = s_.algebraic_trial_f();
      std::copy(f.begin(), f.end(), s_.fval_.begin());
    }
    int jacobian(ConstVector u, ConstVector g, MatrixRef dgdu) override {
      const int code = s_.jacobians_.state_jacobian(t_, q_, u, s_.params_, s_.fval_, g, s_.J_point_.ref());
      for (int c = 0; c < s_.nz_ && code == 0; ++c)
        for (int r = 0; r < s_.nz_; ++r) dgdu(r, c) = s_.J_point_(s_.nx_ + r, s_.nx_ + c);
      return code;
    }
    void weights(ConstVector u, Vector w) override {
      std::fill(w.begin(), w.end(), 1.0 / (1.0 + max_abs(u)));
    }
    bool nearly_singular(ConstMatrixRef lu) const override { return negligible_pivot(lu); }

   private:
    TypeTwoStep& s_;
    double t_;
    ConstVector q_;
  } equations(*this, t, q);
  const int code = equations.evaluate(u, gval_, internal::AlgebraicEquations::Point::current);
  if (code != 0)
    return fail(code < 0 ? Status::callback_fatal : Status::callback_failures,
                "f/phi failed at t = " + number(t) + " (consistent algebraic state)");
  const auto nz = static_cast<std::size_t>(nz_);
  double* work = algebraic_work_.data();
  const internal::AlgebraicNewtonWorkspace workspace{
      phi_u_.ref(), phi_u_pivots_.data(), work, work + nz, work + 2 * nz, work + 3 * nz, work + 4 * nz};
  const internal::AlgebraicNewtonSettings settings{options_.max_iterations + 1, options_.tolerance, 0.0};
  const internal::AlgebraicNewtonResult r =
      internal::solve_algebraic(equations, u, gval_, settings, workspace, stats_);
  using Stop = internal::AlgebraicNewtonResult::Stop;
  switch (r.stop) {
    case Stop::converged: return Status::success;
    case Stop::jacobian_failed:
    case Stop::trial_fatal:
      return fail(r.code < 0 ? Status::callback_fatal : Status::callback_failures,
                  "f/phi failed at t = " + number(t) + " (consistent algebraic state)");
    case Stop::singular:
      return fail(Status::singular_constraint_jacobian,
                  "dphi/du is singular at t = " + number(t) + ": the DAE is not of index 1 there");
    case Stop::no_descent:
    case Stop::max_iterations: break;
  }
  return fail(Status::constraint_solve_failed, "phi(q, u) = 0 did not converge at t = " + number(t));
}

Status TypeTwoStep::forward(double t, double h, ConstVector q0, ConstVector u_guess) {
  if (q0.size() != static_cast<std::size_t>(nx_) || u_guess.size() != static_cast<std::size_t>(nz_))
    throw std::invalid_argument("TypeTwoStep::forward: q0 needs " + std::to_string(nx_) +
                                " and u_guess " + std::to_string(nz_) + " values");
  if (!std::isfinite(t) || !std::isfinite(h) || h == 0.0)
    throw std::invalid_argument("TypeTwoStep::forward: t and h must be finite and h nonzero");
  t_ = t;
  h_ = h;
  linearized_ = false;
  std::copy(q0.begin(), q0.end(), q0_.begin());
  // Starting guess: K^i = f(q0, u_guess), U^i = u_guess.
  for (int k = 0; k < nx_; ++k) Q_(k, 0) = q0[static_cast<std::size_t>(k)];
  std::copy(u_guess.begin(), u_guess.end(), y_.begin() + nx_);
  ++stats_.function_evaluations;
  const int code = problem_.evaluate(t, q0, u_guess, params_, fval_, gval_);
  if (code != 0 || std::isnan(max_abs(fval_)))
    return fail(code < 0 ? Status::callback_fatal : Status::callback_failures,
                "f/phi failed at the step start t = " + number(t));
  for (int i = 0; i < s_; ++i) {
    double* yi = y_.data() + static_cast<std::size_t>(i) * n_;
    std::copy(fval_.begin(), fval_.end(), yi);
    std::copy(u_guess.begin(), u_guess.end(), yi + nx_);
  }
  for (Block& block : blocks_)
    if (Status st = solve_block(block); st != Status::success) return st;
  // The defect at the converged stages (the residual of the last linearization).
  double worst = 0.0;
  for (double r : residual_) worst = std::max(worst, std::abs(r));
  forward_defect_ = worst / (1.0 + max_abs(y_));
  // q1 = q0 + h sum_i b_i K^i (3.9a).
  std::copy(q0.begin(), q0.end(), q1_.begin());
  for (int i = 0; i < s_; ++i) {
    const double w = h_ * pair_.method.b[static_cast<std::size_t>(i)];
    const double* K = y_.data() + static_cast<std::size_t>(i) * n_;
    for (int k = 0; k < nx_; ++k) q1_[static_cast<std::size_t>(k)] += w * K[k];
  }
  if (nz_ > 0) {
    if (pair_.method.stiffly_accurate()) {
      const ConstVector last = stage_algebraic(s_ - 1);
      std::copy(last.begin(), last.end(), u1_.begin());
    } else {
      const ConstVector last = stage_algebraic(s_ - 1);
      std::copy(last.begin(), last.end(), u1_.begin());
      if (Status st = consistent_algebraic(t_ + h_, q1_, u1_); st != Status::success) return st;
    }
  }
  linearized_ = true;
  return Status::success;
}

Status TypeTwoStep::set_stages(double t, double h, ConstVector q0, ConstMatrixRef Q,
                               ConstMatrixRef U) {
  if (q0.size() != static_cast<std::size_t>(nx_) || Q.rows != nx_ || Q.cols != s_ || U.cols != s_ ||
      (nz_ > 0 && U.rows != nz_))
    throw std::invalid_argument(
        "TypeTwoStep::set_stages: sizes do not match the problem and the tableau");
  t_ = t;
  h_ = h;
  std::copy(q0.begin(), q0.end(), q0_.begin());
  for (int i = 0; i < s_; ++i) {
    for (int k = 0; k < nx_; ++k) Q_(k, i) = Q(k, i);
    for (int k = 0; k < nz_; ++k) y_[static_cast<std::size_t>(i) * n_ + nx_ + k] = U(k, i);
  }
  for (int i = s_ - 1; i >= 0; --i)
    if (Status st = jacobian_only(i); st != Status::success) return st;
  for (Block& block : blocks_)
    if (Status st = factor_block(block); st != Status::success) return st;
  for (int k = 0; k < nx_; ++k) q1_[static_cast<std::size_t>(k)] = Q(k, s_ - 1);
  for (int k = 0; k < nz_; ++k) u1_[static_cast<std::size_t>(k)] = U(k, s_ - 1);
  forward_defect_ = 0.0;
  linearized_ = true;
  return Status::success;
}

Status TypeTwoStep::restore(double t, double h, ConstVector q0, ConstVector unknowns) {
  if (unknowns.size() != y_.size() || q0.size() != static_cast<std::size_t>(nx_))
    throw std::invalid_argument(
        "TypeTwoStep::restore: sizes do not match the problem and the tableau");
  t_ = t;
  h_ = h;
  std::copy(q0.begin(), q0.end(), q0_.begin());
  std::copy(unknowns.begin(), unknowns.end(), y_.begin());
  for (Block& block : blocks_) stage_states(block);
  for (int i = s_ - 1; i >= 0; --i)
    if (Status st = jacobian_only(i); st != Status::success) return st;
  for (Block& block : blocks_)
    if (Status st = factor_block(block); st != Status::success) return st;
  linearized_ = true;
  return Status::success;
}

Status TypeTwoStep::running_gradients(const RunningCost& running) {
  std::fill(dLq_.begin(), dLq_.end(), 0.0);
  std::fill(dLu_.begin(), dLu_.end(), 0.0);
  running_quadrature_ = 0.0;
  for (int i = 0; i < s_; ++i) {
    const double t = t_ + pair_.method.c[static_cast<std::size_t>(i)] * h_;
    const Vector dq(dLq_.data() + static_cast<std::size_t>(i) * nx_, static_cast<std::size_t>(nx_));
    const Vector du(dLu_.data() + static_cast<std::size_t>(i) * nz_, static_cast<std::size_t>(nz_));
    int code =
        running.gradient ? running.gradient(t, stage_state(i), stage_algebraic(i), dq, du) : 0;
    if (code == 0 && running.value) {
      double L = 0.0;
      code = running.value(t, stage_state(i), stage_algebraic(i), L);
      if (code == 0 && !std::isfinite(L)) code = 1;
      running_quadrature_ += h_ * pair_.method.b[static_cast<std::size_t>(i)] * L;
    }
    if (code == 0 && (std::isnan(max_abs(dq)) || std::isnan(max_abs(du)) ||
                      !std::isfinite(max_abs(dq)) || !std::isfinite(max_abs(du))))
      code = 1;
    if (code != 0)
      return fail(code < 0 ? Status::callback_fatal : Status::callback_failures,
                  "the running cost failed or is not finite at stage " + std::to_string(i + 1) +
                      ", t = " + number(t));
  }
  return Status::success;
}

Status TypeTwoStep::adjoint(ConstVector p1, const RunningCost* running, Vector p0) {
  if (!linearized_)
    throw std::logic_error("TypeTwoStep::adjoint: no converged step (call forward first)");
  if (p1.size() != static_cast<std::size_t>(nx_) || p0.size() != static_cast<std::size_t>(nx_))
    throw std::invalid_argument("TypeTwoStep::adjoint: p1 and p0 need " + std::to_string(nx_) +
                                " values");
  has_running_ = running != nullptr;
  if (running) {
    if (Status st = running_gradients(*running); st != Status::success) return st;
  } else {
    std::fill(dLq_.begin(), dLq_.end(), 0.0);
    std::fill(dLu_.begin(), dLu_.end(), 0.0);
    running_quadrature_ = 0.0;
  }
  ++stats_.adjoint_steps;
  return options_.form == AdjointForm::partner ? adjoint_partner(p1, p0)
                                               : adjoint_unnormalized(p1, p0);
}

// The back-end of the shared stage recursion (esdirk/src/internal/dirk_adjoint_stages.hpp):
// the Jacobians and stage matrices formed by forward(), set_stages() or restore().
struct TypeTwoStep::Stages {
  TypeTwoStep& step;
  int prepare_stage(int) { return 0; }
  void add_jf_transposed(int i, ConstMatrixRef kappa, MatrixRef Y) {
    step.J_[static_cast<std::size_t>(i)].add_transposed_product(0, step.nx_, kappa, Y, 1.0);
  }
  int solve_transposed(int i, MatrixRef W) {
    step.stage_solve_transposed(i, W);
    return 0;
  }
  void stage_done(int, ConstMatrixRef, ConstMatrixRef) {}
};

// W <- M_i^{-T} W with stage i's matrix in stage values (one block per stage here).
void TypeTwoStep::stage_solve_transposed(int i, MatrixRef W) {
  const Block& block = blocks_[static_cast<std::size_t>(i)];
  if (block.identity) return;  // explicit ODE stage: M = I
  ++stats_.back_substitutions;
  if (block.stage_value) {
    block.stage_lu.solve_transposed(W);
    return;
  }
  // Explicit DAE stage (a_ii = 0, U solved from phi(Q, U) = 0): M = [I, 0; phi_q, phi_u], so
  // rho_z = phi_u^{-T} W_z and rho_x = W_x - phi_q^T rho_z.
  MatrixRef Wz{W.data + nx_, nz_, 1, W.ld};
  lu_solve(block.lu.cref(), block.pivots.data(), Wz, true);
  J_[static_cast<std::size_t>(i)].add_transposed_product(nx_, nz_, Wz, {W.data, nx_, 1, W.ld}, -1.0);
}

// The unnormalized adjoint of a lower-triangular tableau by the stage recursion the library's
// reverse sweep runs (dirk_adjoint_stages.hpp), with seeds from the Type II step: p1 enters
// the last stage when the method is stiffly accurate (q1 = Q^s, as in the integrator) and
// otherwise every stage derivative with h b_i (q1 = q0 + h sum b_i K^i) and q0 directly; the
// running cost enters stage i with h b_i. From rho_i = M_i^{-T} W_i and kappa_i (the adjoint of
// K^i from the outputs and the later stages) the PRK quantities follow:
//   kappa^i = kappa_i + h a_ii rho_i,x (= h b_i P^i),   mu^i = -rho_i,z (= h b_i Lambda^i),
// and rho_i,x is Lambda-hat^i; p0 = the sum of what reaches q0.
Status TypeTwoStep::adjoint_stages(ConstVector p1, Vector p0) {
  const auto& A = pair_.method;
  const bool end_is_last_stage = A.stiffly_accurate();
  std::fill(rhs_.begin(), rhs_.end(), 0.0);
  std::fill(kappa_.begin(), kappa_.end(), 0.0);
  std::fill(lambda_step_.begin(), lambda_step_.end(), 0.0);
  if (end_is_last_stage) {
    double* Vs = rhs_.data() + static_cast<std::size_t>(s_ - 1) * n_;
    for (int k = 0; k < nx_; ++k) Vs[k] = p1[static_cast<std::size_t>(k)];
  } else {
    for (int k = 0; k < nx_; ++k) lambda_step_[static_cast<std::size_t>(k)] = p1[static_cast<std::size_t>(k)];
    for (int i = 0; i < s_; ++i) {
      const double hb = h_ * A.b[static_cast<std::size_t>(i)];
      for (int k = 0; k < nx_; ++k)
        kappa_[static_cast<std::size_t>(i) * nx_ + k] = hb * p1[static_cast<std::size_t>(k)];
    }
  }
  if (has_running_) {
    for (int i = 0; i < s_; ++i) {
      const double hb = h_ * A.b[static_cast<std::size_t>(i)];
      if (hb == 0.0) continue;
      double* V = rhs_.data() + static_cast<std::size_t>(i) * n_;
      for (int k = 0; k < nx_; ++k) V[k] += hb * dLq_[static_cast<std::size_t>(i) * nx_ + k];
      for (int k = 0; k < nz_; ++k) V[nx_ + k] += hb * dLu_[static_cast<std::size_t>(i) * nz_ + k];
    }
  }
  esdirk::internal::DirkAdjointStep recursion;
  recursion.nx = nx_;
  recursion.n = n_;
  recursion.rows = 1;
  recursion.stages = s_;
  recursion.h = h_;
  // An ODE's explicit first stage is q0 itself (the integrator's step start); a DAE's solves
  // phi(q0, U^1) = 0, which the stage solve reduces to the differential variables.
  recursion.first_stage_is_step_start = nz_ == 0 && A.A(0, 0) == 0.0;
  recursion.seeds = {rhs_.data(), n_, s_, n_};
  recursion.kappa = {kappa_.data(), nx_, s_, nx_};
  recursion.lambda = {lambda_step_.data(), n_, 1, n_};
  Stages stages{*this};
  esdirk::internal::reverse_dirk_stages(A, recursion, stages);
  for (int k = 0; k < nx_; ++k) p0[static_cast<std::size_t>(k)] = lambda_step_[static_cast<std::size_t>(k)];
  // The PRK's stage adjoints and the residual of (3.9f).
  double worst_residual = 0.0, scale = 0.0;
  for (int i = 0; i < s_; ++i) {
    const double* rho = rhs_.data() + static_cast<std::size_t>(i) * n_;
    double* kappa = kappa_.data() + static_cast<std::size_t>(i) * nx_;
    double* mu = mu_.data() + static_cast<std::size_t>(i) * nz_;
    const double ha = h_ * A.A(i, i), hb = h_ * A.b[static_cast<std::size_t>(i)];
    for (int k = 0; k < nx_; ++k) {
      kappa[k] += ha * rho[k];
      lambda_hat_[static_cast<std::size_t>(i) * nx_ + k] = rho[k];
    }
    for (int k = 0; k < nz_; ++k) mu[k] = -rho[nx_ + k];
    const ConstMatrixRef J = J_[static_cast<std::size_t>(i)].dense();
    for (int c = nx_; c < n_; ++c) {
      double sum = hb * dLu_[static_cast<std::size_t>(i) * nz_ + c - nx_];
      for (int r = 0; r < nx_; ++r) sum += J(r, c) * kappa[r];
      for (int r = 0; r < nz_; ++r) sum += J(nx_ + r, c) * mu[r];
      worst_residual = std::max(worst_residual, std::abs(sum));
    }
    scale = std::max({scale, max_abs({kappa, static_cast<std::size_t>(nx_)}),
                      max_abs({mu, static_cast<std::size_t>(nz_)})});
    const double inv = hb != 0.0 ? 1.0 / hb : 1.0;
    for (int k = 0; k < nx_; ++k) P_[static_cast<std::size_t>(i) * nx_ + k] = inv * kappa[k];
    for (int k = 0; k < nz_; ++k) Lam_[static_cast<std::size_t>(i) * nz_ + k] = inv * mu[k];
  }
  adjoint_defect_ = scale > 0.0 ? worst_residual / scale : worst_residual;
  if (std::isnan(max_abs(p0)) || !std::isfinite(max_abs(p0)))
    return fail(Status::callback_failures, "the adjoint is not finite at t = " + number(t_));
  return Status::success;
}

// The zero-weight-safe ("unnormalized") recursion (doc/geometric-adjoint-theory.md), blocks last
// first. For the stages j of a block, with Lambda^i = f_q^T kappa^i + phi_q^T mu^i + h b_i dL/dq_i:
//   kappa^j - h sum_i a_ij (f_q^T kappa^i + phi_q^T mu^i)
//       = h b_j p1 + h sum_{i later} a_ij Lambda^i + h sum_{i in block} a_ij h b_i dL/dq_i
//   f_u^T kappa^j + phi_u^T mu^j = -h b_j dL/du_j
// which is M^T [kappa; -mu] = [...; h b_j dL/du_j] with the block's forward stage matrix M.
Status TypeTwoStep::adjoint_unnormalized(ConstVector p1, Vector p0) {
  const auto& A = pair_.method;
  if (A.lower_triangular()) return adjoint_stages(p1, p0);
  for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
    const Block& block = *it;
    const int last = block.first + block.count;
    const std::size_t first = static_cast<std::size_t>(block.first) * n_;
    for (int j = block.first; j < last; ++j) {
      double* r = rhs_.data() + static_cast<std::size_t>(j) * n_;
      const double hb = h_ * A.b[static_cast<std::size_t>(j)];
      for (int k = 0; k < nx_; ++k) r[k] = hb * p1[static_cast<std::size_t>(k)];
      for (int k = 0; k < nz_; ++k) r[nx_ + k] = hb * dLu_[static_cast<std::size_t>(j) * nz_ + k];
      for (int i = block.first; i < s_; ++i) {
        const double ha = h_ * A.A(i, j);
        if (ha == 0.0) continue;
        const bool later = i >= last;
        const double* Li = later ? lambda_hat_.data() + static_cast<std::size_t>(i) * nx_
                                 : dLq_.data() + static_cast<std::size_t>(i) * nx_;
        const double w = later ? ha : ha * h_ * A.b[static_cast<std::size_t>(i)];
        if (w == 0.0 || (!later && !has_running_)) continue;
        for (int k = 0; k < nx_; ++k) r[k] += w * Li[k];
      }
    }
    block_solve(block, rhs_.data() + first, true);
    double worst_residual = 0.0, scale = 0.0;
    for (int i = block.first; i < last; ++i) {
      const double* x = rhs_.data() + static_cast<std::size_t>(i) * n_;
      double* kappa = kappa_.data() + static_cast<std::size_t>(i) * nx_;
      double* mu = mu_.data() + static_cast<std::size_t>(i) * nz_;
      for (int k = 0; k < nx_; ++k) kappa[k] = x[k];
      for (int k = 0; k < nz_; ++k) mu[k] = -x[nx_ + k];
      const ConstMatrixRef J = J_[static_cast<std::size_t>(i)].dense();
      const double hb = h_ * A.b[static_cast<std::size_t>(i)];
      double* L = lambda_hat_.data() + static_cast<std::size_t>(i) * nx_;
      for (int c = 0; c < n_; ++c) {
        double sum = 0.0;
        for (int r = 0; r < nx_; ++r) sum += J(r, c) * kappa[r];
        for (int r = 0; r < nz_; ++r) sum += J(nx_ + r, c) * mu[r];
        if (c < nx_) {
          L[c] = sum + hb * dLq_[static_cast<std::size_t>(i) * nx_ + c];
        } else {  // (3.9f) residual
          worst_residual =
              std::max(worst_residual,
                       std::abs(sum + hb * dLu_[static_cast<std::size_t>(i) * nz_ + c - nx_]));
        }
      }
      scale = std::max({scale, max_abs({kappa, static_cast<std::size_t>(nx_)}),
                        max_abs({mu, static_cast<std::size_t>(nz_)})});
      // Normalized stage adjoints where they exist.
      const double inv = hb != 0.0 ? 1.0 / hb : 1.0;
      for (int k = 0; k < nx_; ++k) P_[static_cast<std::size_t>(i) * nx_ + k] = inv * kappa[k];
      for (int k = 0; k < nz_; ++k) Lam_[static_cast<std::size_t>(i) * nz_ + k] = inv * mu[k];
    }
    adjoint_defect_ = std::max(it == blocks_.rbegin() ? 0.0 : adjoint_defect_,
                               scale > 0.0 ? worst_residual / scale : worst_residual);
  }
  for (int k = 0; k < nx_; ++k) {
    double sum = p1[static_cast<std::size_t>(k)];
    for (int i = 0; i < s_; ++i) sum += lambda_hat_[static_cast<std::size_t>(i) * nx_ + k];
    p0[static_cast<std::size_t>(k)] = sum;
  }
  if (std::isnan(max_abs(p0)) || !std::isfinite(max_abs(p0)))
    return fail(Status::callback_failures, "the adjoint is not finite at t = " + number(t_));
  return Status::success;
}

// The PRK as written (3.9c, d, f), p1 given: with g_j = f_q^T P^j + phi_q^T Lambda^j + dL/dq_j,
//   P^i - h sum_j (b_j - a~_ij) g_j = p1,   f_u^T P^i + phi_u^T Lambda^i = -dL/du_i,
//   p0 = p1 + h sum_j b_j g_j.
Status TypeTwoStep::adjoint_partner(ConstVector p1, Vector p0) {
  const auto& A = pair_.method;
  DenseMatrix& G = partner_matrix_;
  G.fill(0.0);
  for (int i = 0; i < s_; ++i) {
    const int r0 = i * n_;
    double* r = rhs_.data() + r0;
    for (int k = 0; k < nx_; ++k) r[k] = p1[static_cast<std::size_t>(k)];
    for (int k = 0; k < nz_; ++k) r[nx_ + k] = -dLu_[static_cast<std::size_t>(i) * nz_ + k];
    for (int j = 0; j < s_; ++j) {
      const double w = h_ * (A.b[static_cast<std::size_t>(j)] -
                             pair_.partner[static_cast<std::size_t>(i) * s_ + j]);
      const ConstMatrixRef J = J_[static_cast<std::size_t>(j)].dense();
      const int c0 = j * n_;
      // P rows: -w [f_q^T  phi_q^T] in the (P^j, Lambda^j) columns.
      for (int c = 0; c < n_; ++c)
        for (int k = 0; k < nx_; ++k) G(r0 + k, c0 + c) = -w * J(c, k);
      for (int k = 0; k < nx_; ++k) r[k] += w * dLq_[static_cast<std::size_t>(j) * nx_ + k];
    }
    for (int k = 0; k < nx_; ++k) G(r0 + k, r0 + k) += 1.0;
    // (3.9f) rows: [f_u^T  phi_u^T] in the (P^i, Lambda^i) columns.
    const ConstMatrixRef J = J_[static_cast<std::size_t>(i)].dense();
    for (int k = 0; k < nz_; ++k)
      for (int c = 0; c < n_; ++c) G(r0 + nx_ + k, r0 + c) = J(c, nx_ + k);
  }
  ++stats_.lu_factorizations;
  if (lu_factor(G.ref(), partner_pivots_.data()) != 0 || negligible_pivot(G.cref()))
    return fail(Status::singular_iteration_matrix,
                "the partner form's adjoint system is singular at t = " + number(t_));
  MatrixRef B{rhs_.data(), s_ * n_, 1, s_ * n_};
  lu_solve(G.cref(), partner_pivots_.data(), B);
  ++stats_.back_substitutions;
  for (int k = 0; k < nx_; ++k) p0[static_cast<std::size_t>(k)] = p1[static_cast<std::size_t>(k)];
  for (int j = 0; j < s_; ++j) {
    const double* x = rhs_.data() + static_cast<std::size_t>(j) * n_;
    const ConstMatrixRef J = J_[static_cast<std::size_t>(j)].dense();
    const double hb = h_ * A.b[static_cast<std::size_t>(j)];
    for (int k = 0; k < nx_; ++k) {
      P_[static_cast<std::size_t>(j) * nx_ + k] = x[k];
      double g = dLq_[static_cast<std::size_t>(j) * nx_ + k];
      for (int c = 0; c < n_; ++c) g += J(c, k) * x[c];
      p0[static_cast<std::size_t>(k)] += hb * g;
    }
    for (int k = 0; k < nz_; ++k) Lam_[static_cast<std::size_t>(j) * nz_ + k] = x[nx_ + k];
  }
  adjoint_defect_ = 0.0;
  if (std::isnan(max_abs(p0)) || !std::isfinite(max_abs(p0)))
    return fail(Status::callback_failures, "the adjoint is not finite at t = " + number(t_));
  return Status::success;
}

// (3.8): blocks in order, M [dK; dU] = [f_q; -phi_q] (dq0 + h sum_{j earlier} a_ij dK^j).
void TypeTwoStep::tangent(ConstVector dq0, Vector dq1, Vector du1) {
  if (!linearized_)
    throw std::logic_error("TypeTwoStep::tangent: no converged step (call forward first)");
  if (dq0.size() != static_cast<std::size_t>(nx_) || dq1.size() != static_cast<std::size_t>(nx_) ||
      (!du1.empty() && du1.size() != static_cast<std::size_t>(nz_)))
    throw std::invalid_argument("TypeTwoStep::tangent: dq0, dq1 need nx and du1 nz (or no) values");
  const auto& A = pair_.method;
  std::vector<double>& d = dy_;  // dK^i, dU^i per stage
  std::vector<double>& dQ = dQ_;
  for (const Block& block : blocks_) {
    const int last = block.first + block.count;
    for (int i = block.first; i < last; ++i) {
      for (int k = 0; k < nx_; ++k)
        dQ[static_cast<std::size_t>(k)] = dq0[static_cast<std::size_t>(k)];
      for (int j = 0; j < block.first; ++j) {
        const double ha = h_ * A.A(i, j);
        if (ha == 0.0) continue;
        for (int k = 0; k < nx_; ++k)
          dQ[static_cast<std::size_t>(k)] += ha * d[static_cast<std::size_t>(j) * n_ + k];
      }
      const ConstMatrixRef J = J_[static_cast<std::size_t>(i)].dense();
      double* r = d.data() + static_cast<std::size_t>(i) * n_;
      for (int row = 0; row < n_; ++row) {
        double sum = 0.0;
        for (int k = 0; k < nx_; ++k) sum += J(row, k) * dQ[static_cast<std::size_t>(k)];
        r[row] = row < nx_ ? sum : -sum;
      }
    }
    block_solve(block, d.data() + static_cast<std::size_t>(block.first) * n_, false);
  }
  for (int k = 0; k < nx_; ++k) {
    double sum = dq0[static_cast<std::size_t>(k)];
    for (int i = 0; i < s_; ++i)
      sum += h_ * A.b[static_cast<std::size_t>(i)] * d[static_cast<std::size_t>(i) * n_ + k];
    dq1[static_cast<std::size_t>(k)] = sum;
  }
  if (du1.empty() || nz_ == 0) return;
  if (A.stiffly_accurate()) {
    for (int k = 0; k < nz_; ++k)
      du1[static_cast<std::size_t>(k)] = d[static_cast<std::size_t>(s_ - 1) * n_ + nx_ + k];
  } else {
    // The consistent du at (q1, u1): phi_u du = -phi_q dq1, with the Jacobian of the last
    // stage as the nearest available (exact only for stiffly accurate methods).
    const ConstMatrixRef J = J_[static_cast<std::size_t>(s_ - 1)].dense();
    for (int c = 0; c < nz_; ++c)
      for (int r = 0; r < nz_; ++r) phi_u_(r, c) = J(nx_ + r, nx_ + c);
    lu_factor(phi_u_.ref(), phi_u_pivots_.data());
    for (int r = 0; r < nz_; ++r) {
      double sum = 0.0;
      for (int k = 0; k < nx_; ++k) sum += J(nx_ + r, k) * dq1[static_cast<std::size_t>(k)];
      du1[static_cast<std::size_t>(r)] = -sum;
    }
    MatrixRef B{du1.data(), nz_, 1, nz_};
    lu_solve(phi_u_.cref(), phi_u_pivots_.data(), B);
  }
}

}  // namespace esdirk::geometric
