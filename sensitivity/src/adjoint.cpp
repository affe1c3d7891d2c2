#include "esdirk/sensitivity/adjoint.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "esdirk/linear_solver.hpp"

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

bool all_finite(ConstMatrixRef A) {
  for (int j = 0; j < A.cols; ++j)
    for (int i = 0; i < A.rows; ++i)
      if (!std::isfinite(A(i, j))) return false;
  return true;
}

// C += alpha * A(rows r0.., all cols)^T B, A's row block of `rows` rows: the transposed
// products J^T kappa of the sweep (n and the objective rows are small, plain loops suffice).
void add_transposed_product(double alpha, ConstMatrixRef A, int r0, int rows, ConstMatrixRef B,
                            MatrixRef C) {
  for (int c = 0; c < B.cols; ++c) {
    const double* b = B.column(c);
    double* out = C.column(c);
    for (int j = 0; j < A.cols; ++j) {
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

}  // namespace

// ----------------------------------------------------------------------------------------------
// Objective and options

void AdjointObjective::set_terminal_weights(ConstMatrixRef weights) {
  DenseMatrix w(weights.rows, weights.cols);
  for (int j = 0; j < weights.cols; ++j)
    for (int i = 0; i < weights.rows; ++i) w(i, j) = weights(i, j);
  rows = weights.cols;
  terminal = [w](double, ConstVector x, ConstVector z, ConstVector, MatrixRef dx, MatrixRef dz,
                 MatrixRef) {
    if (static_cast<int>(x.size() + z.size()) != w.rows())
      throw std::invalid_argument("AdjointObjective: the terminal weights have " +
                                  std::to_string(w.rows()) + " rows, the state has " +
                                  std::to_string(x.size() + z.size()));
    for (int j = 0; j < w.cols(); ++j) {
      for (int i = 0; i < dx.rows; ++i) dx(i, j) = w(i, j);
      for (int i = 0; i < dz.rows; ++i) dz(i, j) = w(dx.rows + i, j);
    }
    return 0;
  };
}

void AdjointObjective::validate() const {
  if (rows < 1) throw std::invalid_argument("AdjointObjective: rows must be >= 1");
  if (!output_times.empty() && !at_output)
    throw std::invalid_argument("AdjointObjective: output_times are given but at_output is not");
  if (!std::is_sorted(output_times.begin(), output_times.end()) &&
      !std::is_sorted(output_times.rbegin(), output_times.rend()))
    throw std::invalid_argument("AdjointObjective: output_times must be ordered in time");
  if (!terminal && !running && output_times.empty())
    throw std::invalid_argument("AdjointObjective: no term (terminal, running or output times)");
}

void AdjointOptions::validate() const {
  if (memory_budget < 0) throw std::invalid_argument("AdjointOptions: memory_budget must be >= 0");
}

// ----------------------------------------------------------------------------------------------
// The reverse sweep of one step (doc/adjoint-theory.md, "The sweep"): the transpose of the
// forward stage recursion of stage_sensitivities.cpp, stages in reverse order.

class Adjoint::Sweep {
 public:
  Sweep(Integrator& integrator, int rows, AdjointReport& report)
      : problem_(integrator.problem()),
        integrator_(integrator),
        jacobians_(integrator.problem(), counters_),
        report_(report),
        nx_(problem_.nx()),
        nz_(problem_.nz()),
        n_(problem_.size()),
        np_(problem_.np()),
        s_(integrator.options().method.stages),
        rows_(rows) {
    jacobians_.use_increments_of(integrator.jacobians());
    lu_.resize(nx_, nz_);
    for (DenseMatrix* J : {&J_, &J_cache_}) J->resize(n_, n_);
    for (DenseMatrix* Jp : {&Jp_, &Jp_cache_}) Jp->resize(n_, std::max(np_, 1));
    point_cache_.assign(static_cast<std::size_t>(n_ + 1), 0.0);
    f_.assign(static_cast<std::size_t>(nx_), 0.0);
    g_.assign(static_cast<std::size_t>(nz_), 0.0);
    lambda_.resize(n_, rows);
    stage_adjoint_.resize(n_, rows * s_);
    kappa_.resize(nx_, rows * s_);
    mu_.resize(std::max(np_, 1), rows);
    gx_.resize(nx_, rows);
    gz_.resize(std::max(nz_, 1), rows);
    gp_.resize(std::max(np_, 1), rows);
    dgdz_.resize(std::max(nz_, 1), std::max(nz_, 1));
    pivots_.assign(static_cast<std::size_t>(std::max(nz_, 1)), 0);
  }

  int rows() const { return rows_; }
  void start() {
    lambda_.fill(0.0);
    mu_.fill(0.0);
    cache_valid_ = false;
  }
  ConstMatrixRef lambda_x() const { return {lambda_.data(), nx_, rows_, n_}; }
  ConstMatrixRef lambda_z() const { return {lambda_.data() + nx_, nz_, rows_, n_}; }
  ConstMatrixRef mu() const { return {mu_.data(), np_, rows_, mu_.rows()}; }
  const std::string& message() const { return message_; }
  const Statistics& counters() const { return counters_; }

  // A point term (terminal or output) at the end of `r`: lambda += [dC/dx; dC/dz], mu += dC/dp.
  int add_point_term(const StepRecord& r, const std::function<int(ConstVector, ConstVector, MatrixRef,
                                                                  MatrixRef, MatrixRef)>& term) {
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

  // One step backwards: lambda (the adjoint of [x_{n+1}; z_{n+1}]) becomes that of [x_n; z_n],
  // mu collects the step's parameter terms. Returns 0, or a callback's code / 1 with message().
  int step(const StepRecord& r, const ObjectiveGradient& running) {
    const Tableau& tab = integrator_.options().method;
    const double h = r.h, hg = r.h_gamma;
    stage_adjoint_.fill(0.0);
    kappa_.fill(0.0);
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
                                 column(r.Z, i, nz_), integrator_.parameters(), gx_.ref(), gz_ref(), gp_ref());
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
    // Implicit stages, last first: M_i^T rho_i = V_i + J_i(f rows)^T kappa_i, where kappa_i is
    // the adjoint of the stage derivative SF_i (h a_ki rho_k of the later stages).
    for (int i = s_ - 1; i >= 1; --i) {
      int code = jacobians_at(r, i);
      if (code != 0) return code;
      MatrixRef V = block(stage_adjoint_, i * rows_, rows_);
      const ConstMatrixRef kappa = block(kappa_, i * rows_, rows_);
      add_transposed_product(1.0, J_.cref(), 0, nx_, kappa, V);
      ++report_.stage_factorizations;
      if (lu_.factor(J_.cref(), hg) != 0) {
        message_ = "the stage matrix is singular at t = " +
                   format_number(r.stage_times[static_cast<std::size_t>(i)]) + " (adjoint)";
        return 1;
      }
      lu_.solve_transposed(V);  // V <- rho_i
      report_.transposed_solves += rows_;
      if (!all_finite(V)) {
        message_ = "the stage adjoint is not finite at t = " +
                   format_number(r.stage_times[static_cast<std::size_t>(i)]);
        return 1;
      }
      // rho_x enters x_n directly and every earlier stage derivative with h a_ij.
      for (int j = 0; j < rows_; ++j)
        for (int k = 0; k < nx_; ++k) lambda_(k, j) += V(k, j);
      for (int l = 0; l < i; ++l) {
        const double a = h * tab.A(i, l);
        if (a == 0.0) continue;
        MatrixRef K = block(kappa_, l * rows_, rows_);
        for (int j = 0; j < rows_; ++j)
          for (int k = 0; k < nx_; ++k) K(k, j) += a * V(k, j);
      }
      // Parameters: the stage derivative's f_p P (kappa_i), the right-hand side's
      // h gamma f_p P (rho_x) and -g_p P (rho_z).
      if (np_ > 0) {
        MatrixRef M = mu_.ref();
        add_transposed_product(1.0, Jp_.cref(), 0, nx_, kappa, M);
        add_transposed_product(hg, Jp_.cref(), 0, nx_, rows_of(V, 0, nx_), M);
        if (nz_ > 0) add_transposed_product(-1.0, Jp_.cref(), nx_, nz_, rows_of(V, nx_, nz_), M);
      }
    }
    // The explicit first stage: [SX_1; SZ_1] = [Sx_n; Sz_n], SF_1 = J_1(f rows) S_n + f_p P.
    const int code = jacobians_at(r, 0);
    if (code != 0) return code;
    const ConstMatrixRef V1 = block(stage_adjoint_, 0, rows_);
    const ConstMatrixRef kappa1 = block(kappa_, 0, rows_);
    for (int j = 0; j < rows_; ++j)
      for (int k = 0; k < n_; ++k) lambda_(k, j) += V1(k, j);
    add_transposed_product(1.0, J_.cref(), 0, nx_, kappa1, lambda_.ref());
    if (np_ > 0) add_transposed_product(1.0, Jp_.cref(), 0, nx_, kappa1, mu_.ref());
    ++report_.adjoint_steps;
    if (!all_finite(lambda_.cref())) {
      message_ = "the adjoint is not finite at t = " + format_number(r.t);
      return 1;
    }
    return 0;
  }

  // The consistent z0 = z(x0, p): Sz_0 = -g_z^{-1}(g_x Sx_0 + g_p P) at t0, so with
  // w = g_z^{-T} lambda_z: d/dx0 = lambda_x - g_x^T w, d/dp = mu - g_p^T w. Uses the Jacobians
  // of the first step's stage 1 (the last ones formed).
  int finish(MatrixRef dx0, MatrixRef dp) {
    if (nz_ > 0) {
      for (int j = 0; j < nz_; ++j)
        for (int i = 0; i < nz_; ++i) dgdz_(i, j) = J_(nx_ + i, nx_ + j);
      if (lu_factor(dgdz_.ref(), pivots_.data()) != 0) {
        message_ = "dg/dz is singular at the initial point (adjoint)";
        return 1;
      }
      for (int j = 0; j < rows_; ++j)
        for (int i = 0; i < nz_; ++i) gz_(i, j) = lambda_(nx_ + i, j);
      lu_solve(dgdz_.cref(), pivots_.data(), gz_.ref(), true);  // w
      add_transposed_product(-1.0, {J_.data() + nx_, nz_, nx_, n_}, 0, nz_, gz_.cref(), lambda_.ref());
      if (np_ > 0) add_transposed_product(-1.0, Jp_.cref(), nx_, nz_, gz_.cref(), mu_.ref());
    }
    for (int j = 0; j < rows_; ++j) {
      for (int i = 0; i < nx_; ++i) dx0(i, j) = lambda_(i, j);
      for (int i = 0; i < np_ && dp.rows > 0; ++i) dp(i, j) = mu_(i, j);
    }
    return 0;
  }

 private:
  static ConstVector column(const DenseMatrix& M, int j, int rows) {
    return {M.data() + static_cast<std::size_t>(j) * M.rows(), static_cast<std::size_t>(rows)};
  }
  MatrixRef gz_ref() { return {gz_.data(), nz_, rows_, gz_.rows()}; }
  MatrixRef gp_ref() { return {gp_.data(), np_, rows_, gp_.rows()}; }
  void zero_gradients() {
    gx_.fill(0.0);
    gz_.fill(0.0);
    gp_.fill(0.0);
  }
  bool gradients_finite() const {
    return all_finite(gx_.cref()) && all_finite(ConstMatrixRef{gz_.data(), nz_, rows_, gz_.rows()}) &&
           all_finite(ConstMatrixRef{gp_.data(), np_, rows_, gp_.rows()});
  }

  // J and [f_p; g_p] at stage i of r. The first stage of a step is the last of the one before,
  // which the sweep visits next: that pair is formed once (a bitwise match of the point).
  int jacobians_at(const StepRecord& r, int i) {
    const double t = r.stage_times[static_cast<std::size_t>(i)];
    const ConstVector x = column(r.X, i, nx_), z = column(r.Z, i, nz_);
    if (cache_valid_ && point_cache_[0] == t &&
        std::equal(x.begin(), x.end(), point_cache_.begin() + 1) &&
        std::equal(z.begin(), z.end(), point_cache_.begin() + 1 + nx_)) {
      J_.swap(J_cache_);
      Jp_.swap(Jp_cache_);
      cache_valid_ = false;
      return 0;
    }
    // Difference Jacobians need f and g at the point itself (the record's F_i is the
    // stage-equation derivative): the base the forward exact mode uses too.
    if (!problem_.has_jacobian() || (np_ > 0 && !problem_.has_parameter_jacobian())) {
      ++counters_.fd_function_evaluations;
      int code = problem_.evaluate(t, x, z, integrator_.parameters(), f_, g_);
      for (double v : f_) code = (code == 0 && !std::isfinite(v)) ? 1 : code;
      for (double v : g_) code = (code == 0 && !std::isfinite(v)) ? 1 : code;
      if (code != 0) return model_failure(code, "f/g", t);
    }
    ++report_.jacobian_evaluations;
    int code = jacobians_.state_jacobian(t, x, z, integrator_.parameters(), f_, g_, J_.ref());
    if (code != 0) return model_failure(code, "the Jacobian", t);
    if (np_ > 0) {
      ++report_.parameter_jacobian_evaluations;
      code = jacobians_.parameter_jacobian(t, x, z, integrator_.parameters(), f_, g_,
                                           {Jp_.data(), n_, np_, n_});
      if (code != 0) return model_failure(code, "the parameter Jacobian", t);
    }
    if (i == 0) {  // keep it for the previous step's last stage
      point_cache_[0] = t;
      std::copy(x.begin(), x.end(), point_cache_.begin() + 1);
      std::copy(z.begin(), z.end(), point_cache_.begin() + 1 + nx_);
      std::copy(J_.data(), J_.data() + static_cast<std::size_t>(n_) * n_, J_cache_.data());
      std::copy(Jp_.data(), Jp_.data() + static_cast<std::size_t>(Jp_.rows()) * Jp_.cols(), Jp_cache_.data());
      cache_valid_ = true;
    }
    return 0;
  }

  int model_failure(int code, const char* what, double t) {
    message_ = std::string(what) + (code < 0 ? " returned a fatal code" : " failed or was not finite") +
               " at the stage t = " + format_number(t) + " (adjoint)";
    return code < 0 ? code : 1;
  }

  Problem& problem_;
  Integrator& integrator_;
  Statistics counters_;
  JacobianEvaluator jacobians_;
  AdjointReport& report_;
  int nx_, nz_, n_, np_, s_, rows_;
  DenseLuSolver lu_;
  DenseMatrix J_, Jp_, J_cache_, Jp_cache_;
  std::vector<double> point_cache_;
  bool cache_valid_ = false;
  std::vector<double> f_, g_;
  DenseMatrix lambda_;         // n x rows: the adjoint of [x; z] at the current step boundary
  DenseMatrix stage_adjoint_;  // n x (rows * s): V_i, then rho_i
  DenseMatrix kappa_;          // nx x (rows * s): adjoints of the stage derivatives SF_i
  DenseMatrix mu_;             // np x rows: the parameter adjoint accumulated so far
  DenseMatrix gx_, gz_, gp_;   // an objective term's gradient
  DenseMatrix dgdz_;
  std::vector<int> pivots_;
  std::string message_;
};

// ----------------------------------------------------------------------------------------------
// Recomputing records that were not kept: resume a second integrator at the checkpoint of the
// segment (the state, f and g at its first step's start, exactly as the recording run had them:
// Integrator::resume) and replay the segment, recording steps [first, last) into the ring. The
// cost is linear: every step is recomputed once.

class Adjoint::Replayer final : public StepListener {
 public:
  explicit Replayer(const Adjoint& owner)
      : owner_(owner), integrator_(owner.integrator_.problem(), owner.integrator_.options()) {
    integrator_.jacobians().use_increments_of(owner.integrator_.jacobians());
    integrator_.add_listener(*this);
  }
  ~Replayer() override { integrator_.remove_listener(*this); }

  // Replays steps first .. last-1 from the checkpoint at `first` (a segment start), copying
  // them into ring[n % ring.size()].
  Status run(int first, int last, std::vector<StepRecord>& ring, long& recomputed) {
    ring_ = &ring;
    first_ = first;
    const int nx = owner_.integrator_.problem().nx(), nz = owner_.integrator_.problem().nz();
    const double* c = owner_.checkpoint_states_.data() +
                      static_cast<std::size_t>(first / owner_.capacity_) * static_cast<std::size_t>(2 * (nx + nz));
    const auto part = [](const double* at, int n) { return ConstVector(at, static_cast<std::size_t>(n)); };
    integrator_.resume(owner_.step_start(first), part(c, nx), part(c + nx, nz), part(c + nx + nz, nx),
                       part(c + 2 * nx + nz, nz), owner_.p0_, first, owner_.step_size(first) >= 0.0 ? 1.0 : -1.0);
    Status status = Status::success;
    for (int n = first; n < last && ok(status); ++n) {
      status = integrator_.replay_step(owner_.step_size(n), owner_.step_end(n));
      ++recomputed;
    }
    return status;
  }
  const std::string& message() const { return integrator_.message(); }

  AcceptVerdict on_accept(const StepView& step, DenseOutput&) override {
    if (step.index >= first_)
      (*ring_)[static_cast<std::size_t>(step.index) % ring_->size()].assign(step);
    return AcceptVerdict::proceed();
  }

 private:
  const Adjoint& owner_;
  Integrator integrator_;
  std::vector<StepRecord>* ring_ = nullptr;
  long first_ = 0;
};

// ----------------------------------------------------------------------------------------------
// Adjoint

Adjoint::Adjoint(Integrator& integrator, AdjointOptions options)
    : integrator_(integrator), options_(std::move(options)) {
  options_.validate();
  if (options_.memory_budget > 0) {
    capacity_ = options_.memory_budget / record_doubles();
    if (capacity_ < 1)
      throw std::invalid_argument("AdjointOptions: memory_budget = " + std::to_string(options_.memory_budget) +
                                  " doubles cannot hold one step record (" +
                                  std::to_string(record_doubles()) + " doubles)");
    ring_.resize(static_cast<std::size_t>(capacity_));
  }
  integrator_.add_listener(*this);
}

Adjoint::~Adjoint() { integrator_.remove_listener(*this); }

// t, h, t_end, h_gamma, index, then X, F (nx x s), Z, G (nz x s) and the stage times.
long Adjoint::record_doubles() const {
  const long s = integrator_.options().method.stages;
  return 5 + s * (2L * integrator_.problem().nx() + 2L * integrator_.problem().nz() + 1);
}

double Adjoint::final_time() const {
  if (steps_ == 0) throw std::logic_error("Adjoint: no step was recorded");
  return step_end(steps_ - 1);
}

void Adjoint::on_restart(double t, RestartKind kind) {
  if (kind == RestartKind::restart) {
    restarted_ = true;  // a discontinuity: the event module's adjoint jumps are not here
    return;
  }
  recording_ = true;
  restarted_ = false;
  steps_ = 0;
  report_ = AdjointReport{};  // initialize() resets every counter, the listeners' too
  schedule_.clear();
  checkpoint_states_.clear();
  t0_ = t;
  x0_.assign(integrator_.x().begin(), integrator_.x().end());
  z0_.assign(integrator_.z().begin(), integrator_.z().end());
  p0_.assign(integrator_.parameters().begin(), integrator_.parameters().end());
}

AcceptVerdict Adjoint::on_accept(const StepView& step, DenseOutput&) {
  if (!recording_) return AcceptVerdict::proceed();
  schedule_.insert(schedule_.end(), {step.t, step.h, step.t_end});
  if (capacity_ == 0) {
    if (static_cast<std::size_t>(steps_) == ring_.size()) ring_.emplace_back();
    ring_[static_cast<std::size_t>(steps_)].assign(step);
  } else {
    ring_[static_cast<std::size_t>(steps_ % capacity_)].assign(step);
    if (steps_ % capacity_ == 0) {  // a segment starts: its checkpoint (x, z, f, g there)
      for (int i = 0; i < step.X.rows; ++i) checkpoint_states_.push_back(step.X(i, 0));
      for (int i = 0; i < step.Z.rows; ++i) checkpoint_states_.push_back(step.Z(i, 0));
      for (int i = 0; i < step.F.rows; ++i) checkpoint_states_.push_back(step.F(i, 0));
      for (int i = 0; i < step.G.rows; ++i) checkpoint_states_.push_back(step.G(i, 0));
    }
  }
  ++steps_;
  return AcceptVerdict::proceed();
}

void Adjoint::add_statistics(Statistics& report) const {
  report.adjoint_steps += report_.adjoint_steps;
  report.checkpoints += report_.checkpoints;
  report.adjoint_transposed_solves += report_.transposed_solves;
  report.adjoint_factorizations += report_.stage_factorizations;
  report.adjoint_jacobian_evaluations += report_.jacobian_evaluations;
  report.adjoint_recomputed_steps += report_.recomputed_steps;
}

// A recomputed segment must start where the recording run's did, bit for bit; anything else
// is a defect of the replay (not a numerical failure), so it throws.
void Adjoint::check_replay(int first, const StepRecord& r) const {
  const int n = integrator_.problem().size(), nx = integrator_.problem().nx();
  const std::size_t at = static_cast<std::size_t>(first / capacity_) * static_cast<std::size_t>(2 * n);
  bool same = r.index == first;
  for (int i = 0; i < nx && same; ++i) same = r.X(i, 0) == checkpoint_states_[at + static_cast<std::size_t>(i)];
  for (int i = 0; i < n - nx && same; ++i)
    same = r.Z(i, 0) == checkpoint_states_[at + static_cast<std::size_t>(nx + i)];
  if (!same)
    throw std::logic_error("Adjoint: the replayed step " + std::to_string(first) +
                           " does not start at the recorded state bit for bit");
}

Status Adjoint::gradient(const AdjointObjective& objective, MatrixRef dx0, MatrixRef dp) {
  if (!recording_ || steps_ == 0)
    throw std::logic_error("Adjoint::gradient: no recorded run (initialize and integrate first)");
  if (restarted_)
    throw std::logic_error("Adjoint::gradient: the run was restarted; the smooth adjoint needs one "
                           "uninterrupted run (restarts and jumps are the event module's)");
  return run_sweep(objective, dx0, dp, nullptr);
}

Status Adjoint::gradient(const Trajectory& trajectory, const AdjointObjective& objective,
                         MatrixRef dx0, MatrixRef dp) {
  if (trajectory.size() == 0)
    throw std::logic_error("Adjoint::gradient: the trajectory is empty (record a run first)");
  return run_sweep(objective, dx0, dp, &trajectory);
}

Status Adjoint::run_sweep(const AdjointObjective& objective, MatrixRef dx0, MatrixRef dp,
                          const Trajectory* external) {
  objective.validate();
  const Problem& problem = integrator_.problem();
  const int m = objective.rows, np = problem.np();
  if (dx0.rows != problem.nx() || dx0.cols != m)
    throw std::invalid_argument("Adjoint::gradient: dx0 must be nx x rows = " + std::to_string(problem.nx()) +
                                " x " + std::to_string(m));
  if (np > 0 && !(dp.rows == np && dp.cols == m) && !(dp.rows == 0 && dp.data == nullptr))
    throw std::invalid_argument("Adjoint::gradient: dp must be np x rows = " + std::to_string(np) + " x " +
                                std::to_string(m) + " (or empty)");
  const int N = external ? external->size() : steps_;
  auto record_end = [&](int n) { return external ? (*external)[n].t_end : step_end(n); };
  // Each output time must be a step end: find its step.
  std::vector<int> output_step(objective.output_times.size());
  for (std::size_t k = 0; k < output_step.size(); ++k) {
    const double t = objective.output_times[k];
    int found = -1;
    for (int n = 0; n < N && found < 0; ++n)
      if (record_end(n) == t) found = n;
    if (found < 0)
      throw std::invalid_argument("Adjoint::gradient: output time " + format_number(t) +
                                  " is not the end of a recorded step (make it a stop time)");
    output_step[k] = found;
  }
  if (!sweep_ || sweep_->rows() != m) sweep_ = std::make_unique<Sweep>(integrator_, m, report_);
  report_ = AdjointReport{};
  message_.clear();
  Sweep& sweep = *sweep_;
  sweep.start();
  const ConstVector p = integrator_.parameters();
  auto fail = [&](int code) {
    message_ = sweep.message();
    return code < 0 ? Status::callback_fatal : Status::callback_failures;
  };

  // Where the records come from: the external trajectory, every kept record, or segments of
  // `capacity_` steps (the last one still in the ring, earlier ones replayed from t0).
  std::unique_ptr<Replayer> replayer;
  int segment_first = capacity_ > 0 ? static_cast<int>(((N - 1) / capacity_) * capacity_) : 0;
  auto record = [&](int n) -> const StepRecord& {
    if (external) return (*external)[n];
    return ring_[static_cast<std::size_t>(capacity_ > 0 ? n % capacity_ : n)];
  };
  if (!external) {
    report_.stored_records = capacity_ > 0 ? std::min<long>(capacity_, N) : N;
    report_.checkpoints = capacity_ > 0 ? static_cast<long>(checkpoint_states_.size()) / problem.size() : 0;
    report_.peak_stored_doubles = report_.stored_records * record_doubles() +
                                  static_cast<long>(schedule_.size() + checkpoint_states_.size());
  }

  for (int n = N - 1; n >= 0; --n) {
    const StepRecord& end = record(n);
    if (n == N - 1 && objective.terminal) {
      const int code = sweep.add_point_term(end, [&](ConstVector x, ConstVector z, MatrixRef gx,
                                                     MatrixRef gz, MatrixRef gp) {
        return objective.terminal(end.t_end, x, z, p, gx, gz, gp);
      });
      if (code != 0) return fail(code);
    }
    for (std::size_t k = 0; k < output_step.size(); ++k) {
      if (output_step[k] != n) continue;
      const int index = static_cast<int>(k);
      const int code = sweep.add_point_term(end, [&](ConstVector x, ConstVector z, MatrixRef gx,
                                                     MatrixRef gz, MatrixRef gp) {
        return objective.at_output(index, end.t_end, x, z, p, gx, gz, gp);
      });
      if (code != 0) return fail(code);
    }
    if (n == N - 1 && options_.observer)
      options_.observer(N, end.t_end, sweep.lambda_x(), sweep.lambda_z(), sweep.mu());
    if (!external && capacity_ > 0 && n < segment_first) {
      // Recompute the segment [n - capacity + 1, n] (segments are aligned to the capacity).
      segment_first = static_cast<int>((n / capacity_) * capacity_);
      if (!replayer) replayer = std::make_unique<Replayer>(*this);
      const Status status = replayer->run(segment_first, n + 1, ring_, report_.recomputed_steps);
      if (!ok(status)) {
        message_ = "the replay of steps " + std::to_string(segment_first) + ".." + std::to_string(n) +
                   " failed: " + replayer->message();
        return status;
      }
      check_replay(segment_first, record(segment_first));
    }
    const int code = sweep.step(record(n), objective.running);
    if (code != 0) return fail(code);
    if (options_.observer) options_.observer(n, record(n).t, sweep.lambda_x(), sweep.lambda_z(), sweep.mu());
  }
  const int code = sweep.finish(dx0, np > 0 && dp.rows > 0 ? dp : MatrixRef{});
  if (code != 0) {
    message_ = sweep.message();
    return Status::singular_algebraic_jacobian;
  }
  return Status::success;
}

}  // namespace esdirk
