#include "esdirk/sensitivity/reverse_shooting_interval.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

void check_vector(ConstVector v, int n, const char* what) {
  if (static_cast<int>(v.size()) != n)
    throw std::invalid_argument(std::string("ReverseShootingInterval::integrate: ") + what +
                                " has size " + std::to_string(v.size()) + ", the problem needs " +
                                std::to_string(n));
  for (double value : v)
    if (!std::isfinite(value))
      throw std::invalid_argument(std::string("ReverseShootingInterval::integrate: ") + what +
                                  " has non-finite entries");
}

bool finite(ConstMatrixRef A) {
  for (int j = 0; j < A.cols; ++j)
    for (int i = 0; i < A.rows; ++i)
      if (!std::isfinite(A(i, j))) return false;
  return true;
}

std::string shape(int rows, int cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

}  // namespace

// H += h sum_i b_i h(T_i, X_i, Z_i, u) over every accepted step: the value of the quadrature
// whose gradient the sweep forms (the same sum as ShootingInterval's).
class ReverseShootingInterval::CostQuadrature final : public StepListener {
 public:
  explicit CostQuadrature(ReverseShootingInterval& interval) : interval_(interval) {}
  AcceptVerdict on_accept(const StepView& step, DenseOutput&) override {
    ReverseShootingInterval& s = interval_;
    if (!s.cost_) return AcceptVerdict::proceed();
    const Tableau& tab = s.integrator_->method();
    const ConstVector u = s.integrator_->parameters();
    for (int i = 0; i < step.stages; ++i) {
      const double w = step.h * tab.b[static_cast<std::size_t>(i)];
      if (w == 0.0) continue;
      const ConstVector x(step.X.column(i), static_cast<std::size_t>(s.nx_));
      const ConstVector z(step.Z.column(i), static_cast<std::size_t>(s.nz_));
      double value = 0.0;
      const int code = s.cost_(step.stage_times[i], x, z, u, value, s.hx_, s.hz_, s.hu_);
      if (code != 0 || !std::isfinite(value)) {
        message_ = "the running cost " +
                   std::string(code < 0 ? "returned a fatal code" : "failed or was not finite") +
                   " at t = " + format_number(step.stage_times[i]);
        return AcceptVerdict::fail(code < 0 ? Status::callback_fatal : Status::callback_failures);
      }
      s.result_.H += w * value;
    }
    return AcceptVerdict::proceed();
  }
  std::string failure_message() const override { return message_; }

 private:
  ReverseShootingInterval& interval_;
  std::string message_;
};

ReverseShootingInterval::ReverseShootingInterval(Problem& problem, Options options)
    : nx_(problem.nx()),
      nz_(problem.nz()),
      nu_(problem.np()),
      integrator_(std::make_unique<Integrator>(problem, options)),
      quadrature_(std::make_unique<CostQuadrature>(*this)),
      host_(std::make_unique<Integrator>(problem, std::move(options))),
      adjoint_(std::make_unique<Adjoint>(*host_)) {
  integrator_->add_listener(trajectory_);
  integrator_->add_listener(*quadrature_);
  host_->jacobians().use_increments_of(integrator_->jacobians());
  result_.x.assign(static_cast<std::size_t>(nx_), 0.0);
  result_.z.assign(static_cast<std::size_t>(nz_), 0.0);
  z_guess_.assign(static_cast<std::size_t>(nz_), 0.0);
  hx_.assign(static_cast<std::size_t>(nx_), 0.0);
  hz_.assign(static_cast<std::size_t>(nz_), 0.0);
  hu_.assign(static_cast<std::size_t>(nu_), 0.0);

  // The objective of a sweep: C = <lambda_x, x_{k+1}> + <lambda_z, z_{k+1}> per column, and the
  // running cost weighted per column. The callbacks read the current call's arguments.
  objective_.terminal = [this](double, ConstVector, ConstVector, ConstVector, MatrixRef dx,
                               MatrixRef dz, MatrixRef) {
    for (int j = 0; j < dx.cols; ++j) {
      for (int i = 0; i < nx_; ++i) dx(i, j) = lambda_x_(i, j);
      if (lambda_z_.data)
        for (int i = 0; i < nz_; ++i) dz(i, j) = lambda_z_(i, j);
    }
    return 0;
  };
}

ReverseShootingInterval::~ReverseShootingInterval() {
  integrator_->remove_listener(*quadrature_);
  integrator_->remove_listener(trajectory_);
}

void ReverseShootingInterval::set_running_cost(RunningCost cost) { cost_ = std::move(cost); }

const ReverseShootingResult& ReverseShootingInterval::result() const {
  if (!valid_)
    throw std::logic_error(result_.message.empty()
                               ? "ReverseShootingInterval::result: no interval has been integrated yet"
                               : "ReverseShootingInterval::result: the last interval failed (" +
                                     result_.message + ")");
  return result_;
}

ReverseShootingResult& ReverseShootingInterval::fail(Status status, std::string message) {
  result_.status = status;
  result_.message = std::move(message);
  result_.statistics = integrator_->statistics();
  result_.statistics -= before_;
  total_ += result_.statistics;
  valid_ = false;
  started_ = false;  // the next call initializes afresh
  trajectory_.clear();
  return result_;
}

const ReverseShootingResult& ReverseShootingInterval::integrate(double t_k, double t_end,
                                                                ConstVector x_k, ConstVector u_k,
                                                                ConstVector z_guess) {
  if (!std::isfinite(t_k) || !std::isfinite(t_end))
    throw std::invalid_argument("ReverseShootingInterval::integrate: the interval ends must be finite");
  if (!(t_end > t_k))
    throw std::invalid_argument("ReverseShootingInterval::integrate: the interval [" +
                                format_number(t_k) + ", " + format_number(t_end) +
                                "] has zero or negative length");
  check_vector(x_k, nx_, "x_k");
  check_vector(u_k, nu_, "the control vector u_k");
  if (!z_guess.empty()) {
    check_vector(z_guess, nz_, "z_guess");
    std::copy(z_guess.begin(), z_guess.end(), z_guess_.begin());
  }
  result_.status = Status::success;
  result_.message.clear();
  result_.t_end = t_end;
  result_.H = 0.0;
  result_.steps = 0;
  valid_ = false;
  trajectory_.clear();

  // The same start as ShootingInterval's: initialize on the first call (which resets the
  // counters), a restart after it (which keeps the step-size guess).
  Integrator& solver = *integrator_;
  before_ = started_ ? solver.statistics() : Statistics{};
  Status status = started_ ? solver.restart(t_k, x_k, z_guess_, u_k)
                           : solver.initialize(t_k, x_k, z_guess_, u_k);
  if (!ok(status))
    return fail(status, "consistent initialization at t_k = " + format_number(t_k) + ": " +
                            solver.message());
  started_ = true;
  trajectory_.clear();  // a restart continues a trajectory: this interval is a new one
  solver.set_stop_time(t_end);
  const Outcome outcome = solver.integrate_to(t_end, result_.x, result_.z);
  if (!ok(outcome)) return fail(outcome.status, solver.message());
  std::copy(solver.z().begin(), solver.z().end(), z_guess_.begin());
  result_.steps = trajectory_.size();
  result_.statistics = solver.statistics();
  result_.statistics -= before_;
  total_ += result_.statistics;
  valid_ = true;
  return result_;
}

void ReverseShootingInterval::check_transpose_sizes(ConstMatrixRef lambda_x, ConstMatrixRef lambda_z,
                                                    ConstVector cost_weights, MatrixRef gx,
                                                    MatrixRef gu) const {
  const std::string who = "ReverseShootingInterval::transpose_products: ";
  const int m = lambda_x.cols;
  if (lambda_x.rows != nx_ || m < 1 || !lambda_x.data)
    throw std::invalid_argument(who + "lambda_x must be nx x m = " + std::to_string(nx_) +
                                " x m with m >= 1, got " + shape(lambda_x.rows, lambda_x.cols));
  if (lambda_z.data && (lambda_z.rows != nz_ || lambda_z.cols != m))
    throw std::invalid_argument(who + "lambda_z must be nz x m = " + shape(nz_, m) + " (or empty), got " +
                                shape(lambda_z.rows, lambda_z.cols));
  if (!cost_weights.empty() && static_cast<int>(cost_weights.size()) != m)
    throw std::invalid_argument(who + "cost_weights must have m = " + std::to_string(m) +
                                " entries (or none), got " + std::to_string(cost_weights.size()));
  if (gx.rows != nx_ || gx.cols != m || !gx.data)
    throw std::invalid_argument(who + "gx must be nx x m = " + shape(nx_, m) + ", got " +
                                shape(gx.rows, gx.cols));
  if (nu_ > 0 && gu.data && (gu.rows != nu_ || gu.cols != m))
    throw std::invalid_argument(who + "gu must be nu x m = " + shape(nu_, m) + " (or empty), got " +
                                shape(gu.rows, gu.cols));
  if (!finite(lambda_x) || (lambda_z.data && !finite(lambda_z)))
    throw std::invalid_argument(who + "lambda has non-finite entries");
  for (double w : cost_weights)
    if (!std::isfinite(w)) throw std::invalid_argument(who + "cost_weights has non-finite entries");
}

Status ReverseShootingInterval::transpose_products(ConstMatrixRef lambda_x, ConstMatrixRef lambda_z,
                                                   ConstVector cost_weights, MatrixRef gx,
                                                   MatrixRef gu) {
  if (!valid_)
    throw std::logic_error(
        "ReverseShootingInterval::transpose_products: no recorded interval (integrate one "
        "successfully first)");
  check_transpose_sizes(lambda_x, lambda_z, cost_weights, gx, gu);
  const int m = lambda_x.cols;
  lambda_x_ = lambda_x;
  lambda_z_ = nz_ > 0 ? lambda_z : ConstMatrixRef{};
  weights_ = cost_weights;
  objective_.rows = m;
  const bool weighted = std::any_of(cost_weights.begin(), cost_weights.end(),
                                    [](double w) { return w != 0.0; });
  if (cost_ && weighted) {
    if (!objective_.running)
      objective_.running = [this](double t, ConstVector x, ConstVector z, ConstVector u,
                                  MatrixRef dx, MatrixRef dz, MatrixRef du) {
        double value = 0.0;
        const int code = cost_(t, x, z, u, value, hx_, hz_, hu_);
        if (code != 0) return code;
        for (int j = 0; j < dx.cols; ++j) {
          const double w = weights_[static_cast<std::size_t>(j)];
          for (int i = 0; i < nx_; ++i) dx(i, j) = w * hx_[static_cast<std::size_t>(i)];
          for (int i = 0; i < nz_; ++i) dz(i, j) = w * hz_[static_cast<std::size_t>(i)];
          for (int i = 0; i < nu_; ++i) du(i, j) = w * hu_[static_cast<std::size_t>(i)];
        }
        return 0;
      };
  } else {
    objective_.running = nullptr;
  }

  // The sweep's integrator stands at the interval's start with the interval's controls.
  host_->resume(trajectory_[0], integrator_->parameters());
  const MatrixRef du = nu_ > 0 && gu.data ? gu : MatrixRef{};
  const Status status = adjoint_->gradient(trajectory_, objective_, gx, du);
  // The sweep's counters (the host never steps: its statistics are the adjoint's).
  const Statistics& sweep = host_->statistics();
  result_.statistics += sweep;
  total_ += sweep;
  message_ = ok(status) ? std::string() : adjoint_->message();
  return status;
}

}  // namespace esdirk
