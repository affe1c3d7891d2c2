#include "event_jumps.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "esdirk/linear_solver.hpp"
#include "internal/algebraic_newton.hpp"

namespace esdirk::internal {
namespace {

int finite_or(int code, ConstVector v) {
  for (double x : v) code = (code == 0 && !std::isfinite(x)) ? 1 : code;
  return code;
}

}  // namespace

EventJumps::EventJumps(ModeProblem& problem, Statistics& counters)
    : problem_(problem),
      counters_(counters),
      jacobians_(problem, counters),
      nx_(problem.nx()),
      nz_(problem.nz()),
      npe_(problem.np()),
      ne_(problem.hybrid().event_count()),
      np_(problem.hybrid().np()) {
  p1_.assign(static_cast<std::size_t>(np_), 0.0);
  p2_.assign(static_cast<std::size_t>(np_), 0.0);
  const auto nx = static_cast<std::size_t>(nx_), nz = static_cast<std::size_t>(nz_);
  f0_.assign(nx, 0.0);
  f1_.assign(nx, 0.0);
  x1_.assign(nx, 0.0);
  x2_.assign(nx, 0.0);
  g0_.assign(nz, 0.0);
  g1_.assign(nz, 0.0);
  g2_.assign(nz, 0.0);
  point_.assign(static_cast<std::size_t>(columns()), 0.0);
  h1_.assign(static_cast<std::size_t>(ne_), 0.0);
  h2_.assign(static_cast<std::size_t>(ne_), 0.0);
  J_.resize(nx_ + nz_, nx_ + nz_);
  Jp_.resize(nx_ + nz_, npe_);
  gz_.resize(nz_, nz_);
  rhs_.resize(nz_, 1);
  pivots_.assign(nz, 0);
  algebraic_work_.assign(4 * nz, 0.0);
}

// Central differences: the increment balances truncation (h^2) and rounding (eps/h).
double EventJumps::step_for(double v) const {
  return std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(std::abs(v), 1.0);
}

void EventJumps::pack(double t, ConstVector x, ConstVector z, ConstVector pe) {
  point_[0] = t;
  std::copy(x.begin(), x.end(), point_.begin() + 1);
  std::copy(z.begin(), z.end(), point_.begin() + 1 + nx_);
  std::copy(pe.begin(), pe.end(), point_.begin() + 1 + nx_ + nz_);
}

int EventJumps::rates(double t, ConstVector x, ConstVector z, ConstVector pe, Vector f, Vector zdot) {
  ++counters_.function_evaluations;
  int code = finite_or(problem_.evaluate(t, x, z, pe, f, g0_), f);
  if (code != 0 || nz_ == 0) return code;
  std::copy(f.begin(), f.end(), f0_.begin());
  code = jacobians_.state_jacobian(t, x, z, pe, f0_, g0_, J_.ref());
  if (code != 0) return code;
  code = time_derivative(t, x, z, pe);  // into g1_
  if (code != 0) return code;
  // g_z z' = -(g_x f + g_t)
  for (int i = 0; i < nz_; ++i) {
    double v = g1_[static_cast<std::size_t>(i)];
    for (int j = 0; j < nx_; ++j) v += J_(nx_ + i, j) * f0_[static_cast<std::size_t>(j)];
    rhs_(i, 0) = -v;
    for (int j = 0; j < nz_; ++j) gz_(i, j) = J_(nx_ + i, nx_ + j);
  }
  ++counters_.lu_factorizations;
  if (lu_factor(gz_.ref(), pivots_.data()) != 0) return 2;
  lu_solve(gz_.cref(), pivots_.data(), rhs_.ref());
  ++counters_.back_substitutions;
  for (int i = 0; i < nz_; ++i) zdot[static_cast<std::size_t>(i)] = rhs_(i, 0);
  return 0;
}

// g_t into g1_: the problem's own (exact for an AD model) or a central difference in t.
int EventJumps::time_derivative(double t, ConstVector x, ConstVector z, ConstVector pe) {
  HybridProblem& hybrid = problem_.hybrid();
  if (hybrid.has_constraint_time_derivative())
    return finite_or(hybrid.constraint_time_derivative(problem_.mode, t, x, z, problem_.parameters_of(pe),
                                                       problem_.memory_of(pe), g1_),
                     g1_);
  const double dt = step_for(t);
  counters_.fd_function_evaluations += 2;
  int code = problem_.evaluate(t + dt, x, z, pe, f1_, g1_);
  if (code == 0) code = problem_.evaluate(t - dt, x, z, pe, f1_, g2_);
  code = finite_or(finite_or(code, g1_), g2_);
  if (code != 0) return code;
  for (std::size_t i = 0; i < g1_.size(); ++i) g1_[i] = (g1_[i] - g2_[i]) / (2.0 * dt);
  return 0;
}

// The algebraic Newton kernel of the core (internal/algebraic_newton.hpp) to rounding:
// ||dz||_w <= 4 eps with w = 1/(1 + max|z|), at most 8 iterations.
int EventJumps::correct_algebraic(double t, ConstVector x, Vector z, ConstVector pe) {
  if (nz_ == 0) return 0;
  class Equations final : public AlgebraicEquations {
   public:
    Equations(EventJumps& j, double t, ConstVector x, ConstVector pe) : j_(j), t_(t), x_(x), pe_(pe) {}
    int evaluate(ConstVector z, Vector g, Point point) override {
      ++j_.counters_.function_evaluations;
      const Vector f = point == Point::trial ? Vector(j_.f1_) : Vector(j_.f0_);
      return finite_or(finite_or(j_.problem_.evaluate(t_, x_, z, pe_, f, g), f), g);
    }
    void accept_trial() override { std::copy(j_.f1_.begin(), j_.f1_.end(), j_.f0_.begin()); }
    int jacobian(ConstVector z, ConstVector g, MatrixRef gz) override {
      const int code = j_.jacobians_.state_jacobian(t_, x_, z, pe_, j_.f0_, g, j_.J_.ref());
      for (int i = 0; i < j_.nz_ && code == 0; ++i)
        for (int k = 0; k < j_.nz_; ++k) gz(i, k) = j_.J_(j_.nx_ + i, j_.nx_ + k);
      return code;
    }
    void weights(ConstVector z, Vector w) override {
      double size = 0.0;
      for (double v : z) size = std::max(size, std::abs(v));
      std::fill(w.begin(), w.end(), 1.0 / (1.0 + size));
    }

   private:
    EventJumps& j_;
    double t_;
    ConstVector x_, pe_;
  } equations(*this, t, x, pe);
  const int code = equations.evaluate(z, g0_, AlgebraicEquations::Point::current);
  if (code != 0) return code;
  const auto nz = static_cast<std::size_t>(nz_);
  double* work = algebraic_work_.data();
  const AlgebraicNewtonWorkspace workspace{gz_.ref(), pivots_.data(), rhs_.data(), work, work + nz,
                                           work + 2 * nz, work + 3 * nz};
  const AlgebraicNewtonSettings settings{8, 4.0 * std::numeric_limits<double>::epsilon(), 0.0};
  const AlgebraicNewtonResult r = solve_algebraic(equations, z, g0_, settings, workspace, counters_);
  using Stop = AlgebraicNewtonResult::Stop;
  switch (r.stop) {
    case Stop::converged: return 0;
    case Stop::jacobian_failed:
    case Stop::trial_fatal: return r.code;
    case Stop::singular: return 2;
    case Stop::no_descent:
    case Stop::max_iterations: break;
  }
  return 3;
}

int EventJumps::algebraic_sensitivity(double t, ConstVector x, ConstVector z, ConstVector pe,
                                      ConstMatrixRef Sx, ConstMatrixRef Pe, MatrixRef Sz) {
  if (nz_ == 0) return 0;
  if (npe_ > 0) {
    const int code = jacobians_.parameter_jacobian(t, x, z, pe, f0_, g0_, Jp_.ref());
    if (code != 0) return code;
  }
  for (int j = 0; j < Sx.cols; ++j) {
    for (int i = 0; i < nz_; ++i) {
      double v = 0.0;
      for (int k = 0; k < nx_; ++k) v += J_(nx_ + i, k) * Sx(k, j);
      for (int k = 0; k < npe_; ++k) v += Jp_(nx_ + i, k) * Pe(k, j);
      rhs_(i, 0) = -v;
    }
    lu_solve(gz_.cref(), pivots_.data(), rhs_.ref());
    ++counters_.back_substitutions;
    for (int i = 0; i < nz_; ++i) Sz(i, j) = rhs_(i, 0);
  }
  return 0;
}

int EventJumps::algebraic_adjoint(double t, ConstVector x, ConstVector z, ConstVector pe,
                                  ConstMatrixRef a_sz, MatrixRef a_sx, MatrixRef a_pe) {
  if (nz_ == 0) return 0;
  ++counters_.function_evaluations;
  int code = finite_or(finite_or(problem_.evaluate(t, x, z, pe, f0_, g0_), f0_), g0_);
  if (code == 0) code = jacobians_.state_jacobian(t, x, z, pe, f0_, g0_, J_.ref());
  if (code == 0 && npe_ > 0) code = jacobians_.parameter_jacobian(t, x, z, pe, f0_, g0_, Jp_.ref());
  if (code != 0) return code;
  for (int i = 0; i < nz_; ++i)
    for (int j = 0; j < nz_; ++j) gz_(i, j) = J_(nx_ + i, nx_ + j);
  ++counters_.lu_factorizations;
  if (lu_factor(gz_.ref(), pivots_.data()) != 0) return 2;
  for (int c = 0; c < a_sz.cols; ++c) {
    for (int i = 0; i < nz_; ++i) rhs_(i, 0) = a_sz(i, c);
    lu_solve(gz_.cref(), pivots_.data(), rhs_.ref(), true);  // w = g_z^{-T} a_sz
    ++counters_.back_substitutions;
    for (int k = 0; k < nx_; ++k) {
      double v = 0.0;
      for (int i = 0; i < nz_; ++i) v += J_(nx_ + i, k) * rhs_(i, 0);
      a_sx(k, c) -= v;
    }
    for (int k = 0; k < npe_; ++k) {
      double v = 0.0;
      for (int i = 0; i < nz_; ++i) v += Jp_(nx_ + i, k) * rhs_(i, 0);
      a_pe(k, c) -= v;
    }
  }
  return 0;
}

int EventJumps::event_gradient(int k, double t, ConstVector x, ConstVector z, ConstVector pe,
                               Vector row) {
  HybridProblem& hybrid = problem_.hybrid();
  const int mode = problem_.mode;
  if (hybrid.has_event_jacobian())
    return finite_or(hybrid.event_jacobian(mode, k, t, x, z, problem_.parameters_of(pe),
                                           problem_.memory_of(pe), row),
                     row);
  pack(t, x, z, pe);
  const auto kk = static_cast<std::size_t>(k);
  for (int c = 0; c < columns(); ++c) {
    const auto cc = static_cast<std::size_t>(c);
    const double v = point_[cc], d = step_for(v);
    point_[cc] = v + d;
    counters_.event_fd_evaluations += 2;
    int code = hybrid.events(mode, point_[0], part_x(), part_z(),
                             problem_.parameters_of(part_pe()), problem_.memory_of(part_pe()), h1_);
    point_[cc] = v - d;
    if (code == 0)
      code = hybrid.events(mode, point_[0], part_x(), part_z(), problem_.parameters_of(part_pe()),
                           problem_.memory_of(part_pe()), h2_);
    point_[cc] = v;
    code = finite_or(finite_or(code, h1_), h2_);
    if (code != 0) return code;
    row[cc] = (h1_[kk] - h2_[kk]) / (2.0 * d);
  }
  return 0;
}

int EventJumps::reset(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                      ConstVector pe, int& next_mode, Vector x_plus) {
  next_mode = problem_.mode;
  const int code = problem_.hybrid().transition(problem_.mode, cause, t, x, z,
                                                problem_.parameters_of(pe), problem_.memory_of(pe),
                                                next_mode, x_plus);
  return finite_or(code, x_plus);
}

int EventJumps::reset_jacobian(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                               ConstVector pe, MatrixRef D) {
  HybridProblem& hybrid = problem_.hybrid();
  const int mode = problem_.mode;
  if (hybrid.has_reset_jacobian()) {
    const int code = hybrid.reset_jacobian(mode, cause, t, x, z, problem_.parameters_of(pe),
                                           problem_.memory_of(pe), D);
    if (code != 0) return code;
    for (int j = 0; j < D.cols; ++j)
      for (int i = 0; i < D.rows; ++i)
        if (!std::isfinite(D(i, j))) return 1;
    return 0;
  }
  pack(t, x, z, pe);
  for (int c = 0; c < columns(); ++c) {
    const auto cc = static_cast<std::size_t>(c);
    const double v = point_[cc], d = step_for(v);
    int next = mode;
    point_[cc] = v + d;
    std::copy(part_x().begin(), part_x().end(), x1_.begin());
    counters_.event_fd_evaluations += 2;
    int code = hybrid.transition(mode, cause, point_[0], part_x(), part_z(),
                                 problem_.parameters_of(part_pe()), problem_.memory_of(part_pe()),
                                 next, x1_);
    point_[cc] = v - d;
    std::copy(part_x().begin(), part_x().end(), x2_.begin());
    if (code == 0)
      code = hybrid.transition(mode, cause, point_[0], part_x(), part_z(),
                               problem_.parameters_of(part_pe()), problem_.memory_of(part_pe()),
                               next, x2_);
    point_[cc] = v;
    code = finite_or(finite_or(code, x1_), x2_);
    if (code != 0) return code;
    for (int i = 0; i < nx_; ++i)
      D(i, c) = (x1_[static_cast<std::size_t>(i)] - x2_[static_cast<std::size_t>(i)]) / (2.0 * d);
  }
  return 0;
}

int EventJumps::parameter_reset(const TransitionCause& cause, double t, ConstVector x, ConstVector z,
                                ConstVector pe, Vector p_plus) {
  const int code = problem_.hybrid().reset_parameters(problem_.mode, cause, t, x, z, problem_.parameters_of(pe),
                                                      problem_.memory_of(pe), p_plus);
  return finite_or(code, p_plus);
}

// As reset_jacobian: the user's E, or central differences of psi in every argument.
int EventJumps::parameter_reset_jacobian(const TransitionCause& cause, double t, ConstVector x,
                                         ConstVector z, ConstVector pe, MatrixRef E) {
  HybridProblem& hybrid = problem_.hybrid();
  const int mode = problem_.mode;
  if (hybrid.has_parameter_reset_jacobian()) {
    const int code = hybrid.parameter_reset_jacobian(mode, cause, t, x, z, problem_.parameters_of(pe),
                                                     problem_.memory_of(pe), E);
    if (code != 0) return code;
    for (int j = 0; j < E.cols; ++j)
      for (int i = 0; i < E.rows; ++i)
        if (!std::isfinite(E(i, j))) return 1;
    return 0;
  }
  pack(t, x, z, pe);
  for (int c = 0; c < columns(); ++c) {
    const auto cc = static_cast<std::size_t>(c);
    const double v = point_[cc], d = step_for(v);
    point_[cc] = v + d;
    const ConstVector p_now = problem_.parameters_of(part_pe());
    std::copy(p_now.begin(), p_now.end(), p1_.begin());
    counters_.event_fd_evaluations += 2;
    int code = hybrid.reset_parameters(mode, cause, point_[0], part_x(), part_z(), p_now,
                                       problem_.memory_of(part_pe()), p1_);
    point_[cc] = v - d;
    std::copy(p_now.begin(), p_now.end(), p2_.begin());
    if (code == 0)
      code = hybrid.reset_parameters(mode, cause, point_[0], part_x(), part_z(), p_now,
                                     problem_.memory_of(part_pe()), p2_);
    point_[cc] = v;
    code = finite_or(finite_or(code, p1_), p2_);
    if (code != 0) return code;
    for (int i = 0; i < np_; ++i)
      E(i, c) = (p1_[static_cast<std::size_t>(i)] - p2_[static_cast<std::size_t>(i)]) / (2.0 * d);
  }
  return 0;
}

}  // namespace esdirk::internal
