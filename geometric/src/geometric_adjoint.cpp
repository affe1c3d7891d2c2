#include "esdirk/geometric/geometric_adjoint.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace esdirk::geometric {

GeometricAdjoint::GeometricAdjoint(Problem& problem, PrkPair pair, StepOptions options)
    : step_(problem, std::move(pair), options),
      nx_(problem.nx()),
      nz_(problem.nz()),
      stages_(step_.pair().method.stages),
      unknowns_per_step_(static_cast<int>(step_.stage_unknowns().size())) {}

void GeometricAdjoint::set_parameters(ConstVector p) { step_.set_parameters(p); }

Status GeometricAdjoint::forward(ConstVector times, ConstVector q0, ConstVector u0_guess) {
  if (times.size() < 2)
    throw std::invalid_argument("GeometricAdjoint::forward: at least two times are needed");
  if (q0.size() != static_cast<std::size_t>(nx_) ||
      u0_guess.size() != static_cast<std::size_t>(nz_))
    throw std::invalid_argument("GeometricAdjoint::forward: q0 needs nx and u0_guess nz values");
  const double direction = times[1] - times[0];
  for (std::size_t n = 0; n + 1 < times.size(); ++n)
    if (!std::isfinite(times[n + 1]) || !((times[n + 1] - times[n]) * direction > 0.0))
      throw std::invalid_argument(
          "GeometricAdjoint::forward: the times must be finite and strictly monotone");
  const int N = static_cast<int>(times.size()) - 1;
  // Every buffer is sized here, once per run; the step loop does not allocate.
  times_.assign(times.begin(), times.end());
  q_.assign(static_cast<std::size_t>(N + 1) * nx_, 0.0);
  u_.assign(static_cast<std::size_t>(N + 1) * nz_, 0.0);
  p_.assign(static_cast<std::size_t>(N + 1) * nx_, 0.0);
  dq_.assign(static_cast<std::size_t>(N + 1) * nx_, 0.0);
  unknowns_.assign(static_cast<std::size_t>(N) * unknowns_per_step_, 0.0);
  stage_p_.assign(static_cast<std::size_t>(N) * stages_ * nx_, 0.0);
  stage_lambda_.assign(static_cast<std::size_t>(N) * stages_ * nz_, 0.0);
  std::copy(q0.begin(), q0.end(), q_.begin());
  std::copy(u0_guess.begin(), u0_guess.end(), u_.begin());
  steps_ = 0;
  complete_ = false;
  max_forward_defect_ = 0.0;
  if (nz_ > 0) {
    const Status st =
        step_.consistent_algebraic(times[0], q0, {u_.data(), static_cast<std::size_t>(nz_)});
    if (st != Status::success) return st;
  }
  for (int n = 0; n < N; ++n) {
    const Status st =
        step_.forward(times_[static_cast<std::size_t>(n)],
                      times_[static_cast<std::size_t>(n) + 1] - times_[static_cast<std::size_t>(n)],
                      state(n), algebraic(n));
    if (st != Status::success) return st;
    std::copy(step_.q1().begin(), step_.q1().end(),
              q_.begin() + static_cast<std::ptrdiff_t>(n + 1) * nx_);
    std::copy(step_.u1().begin(), step_.u1().end(),
              u_.begin() + static_cast<std::ptrdiff_t>(n + 1) * nz_);
    std::copy(step_.stage_unknowns().begin(), step_.stage_unknowns().end(),
              unknowns_.begin() + static_cast<std::ptrdiff_t>(n) * unknowns_per_step_);
    max_forward_defect_ = std::max(max_forward_defect_, step_.forward_defect());
    steps_ = n + 1;
  }
  complete_ = true;
  return Status::success;
}

Status GeometricAdjoint::backward(ConstVector pN, const RunningCost* running) {
  if (!complete_) throw std::logic_error("GeometricAdjoint::backward: no complete forward run");
  if (pN.size() != static_cast<std::size_t>(nx_))
    throw std::invalid_argument("GeometricAdjoint::backward: p_N needs nx values");
  std::copy(pN.begin(), pN.end(), p_.begin() + static_cast<std::ptrdiff_t>(steps_) * nx_);
  running_quadrature_ = 0.0;
  max_adjoint_defect_ = 0.0;
  for (int n = steps_ - 1; n >= 0; --n) {
    const double t = times_[static_cast<std::size_t>(n)],
                 h = times_[static_cast<std::size_t>(n) + 1] - t;
    Status st = step_.restore(t, h, state(n),
                              {unknowns_.data() + static_cast<std::size_t>(n) * unknowns_per_step_,
                               static_cast<std::size_t>(unknowns_per_step_)});
    if (st != Status::success) return st;
    st = step_.adjoint(
        adjoint_state(n + 1), running,
        {p_.data() + static_cast<std::size_t>(n) * nx_, static_cast<std::size_t>(nx_)});
    if (st != Status::success) return st;
    running_quadrature_ += step_.running_quadrature();
    for (int i = 0; i < stages_; ++i) {
      const ConstVector P = step_.stage_adjoint(i), L = step_.stage_multiplier(i);
      std::copy(P.begin(), P.end(),
                stage_p_.begin() +
                    static_cast<std::ptrdiff_t>((static_cast<std::size_t>(n) * stages_ + i) * nx_));
      std::copy(L.begin(), L.end(),
                stage_lambda_.begin() +
                    static_cast<std::ptrdiff_t>((static_cast<std::size_t>(n) * stages_ + i) * nz_));
    }
    max_adjoint_defect_ = std::max(max_adjoint_defect_, step_.adjoint_defect());
  }
  return Status::success;
}

void GeometricAdjoint::tangent(ConstVector dq0) {
  if (!complete_) throw std::logic_error("GeometricAdjoint::tangent: no complete forward run");
  if (dq0.size() != static_cast<std::size_t>(nx_))
    throw std::invalid_argument("GeometricAdjoint::tangent: dq_0 needs nx values");
  std::copy(dq0.begin(), dq0.end(), dq_.begin());
  for (int n = 0; n < steps_; ++n) {
    const double t = times_[static_cast<std::size_t>(n)],
                 h = times_[static_cast<std::size_t>(n) + 1] - t;
    // The stored stages were linearized without failure in forward(): restore cannot fail.
    const Status st =
        step_.restore(t, h, state(n),
                      {unknowns_.data() + static_cast<std::size_t>(n) * unknowns_per_step_,
                       static_cast<std::size_t>(unknowns_per_step_)});
    if (st != Status::success)
      throw std::logic_error("GeometricAdjoint::tangent: " + step_.message());
    step_.tangent(tangent_state(n), {dq_.data() + static_cast<std::size_t>(n + 1) * nx_,
                                     static_cast<std::size_t>(nx_)});
  }
}

}  // namespace esdirk::geometric
