// The adjoint's self-check: forward directional derivatives of the same objective on the same
// steps (exact-mode sensitivities with an LU per stage, so that both sides are the exact
// derivative of the discrete solution and agree to rounding).

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>

#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

using internal::format_number;

// After the forward sensitivities (added before it), adds each step's share of
// d(objective)/d(theta): the running cost's quadrature h sum_i b_i grad L . S_i and the point
// terms at output times and at the end.
class ObjectiveTangent final : public StepListener {
 public:
  ObjectiveTangent(const AdjointObjective& objective, const ForwardSensitivity& sens,
                   const Adjoint& adjoint, MatrixRef result)
      : objective_(objective),
        sens_(sens),
        adjoint_(adjoint),
        result_(result),
        nx_(adjoint.integrator().problem().nx()),
        nz_(adjoint.integrator().problem().nz()),
        np_(adjoint.integrator().problem().np()),
        gx_(nx_, objective.rows),
        gz_(std::max(nz_, 1), objective.rows),
        gp_(std::max(np_, 1), objective.rows) {}

  int code() const { return code_; }

  AcceptVerdict on_accept(const StepView& step, DenseOutput&) override {
    const Tableau& tab = adjoint_.integrator().method();
    const ConstVector p = sens_.integrator().parameters();
    if (objective_.running)
      for (int i = 0; i < step.stages; ++i) {
        const double w = step.h * tab.b[static_cast<std::size_t>(i)];
        if (w == 0.0) continue;
        if (!term(objective_.running, step.stage_times[i], step, i, p, w)) return failed();
      }
    const int last = step.stages - 1;
    for (std::size_t k = 0; k < objective_.output_times.size(); ++k)
      if (objective_.output_times[k] == step.t_end) {
        const int index = static_cast<int>(k);
        const ObjectiveGradient at = [&](double t, ConstVector x, ConstVector z, ConstVector q,
                                         MatrixRef dx, MatrixRef dz, MatrixRef dp) {
          return objective_.at_output(index, t, x, z, q, dx, dz, dp);
        };
        if (!term(at, step.t_end, step, last, p, 1.0)) return failed();
      }
    if (step.index == adjoint_.steps() - 1 && objective_.terminal &&
        !term(objective_.terminal, step.t_end, step, last, p, 1.0))
      return failed();
    return AcceptVerdict::proceed();
  }

 private:
  AcceptVerdict failed() { return AcceptVerdict::fail(code_ < 0 ? Status::callback_fatal : Status::callback_failures); }

  // result += w [grad_x; grad_z; grad_p]^T [SX_i; SZ_i; P] for the term at stage i.
  bool term(const ObjectiveGradient& gradient, double t, const StepView& step, int i, ConstVector p,
            double w) {
    gx_.fill(0.0);
    gz_.fill(0.0);
    gp_.fill(0.0);
    const int m = objective_.rows;
    const ConstVector x(step.X.column(i), static_cast<std::size_t>(nx_));
    const ConstVector z(step.Z.column(i), static_cast<std::size_t>(nz_));
    code_ = gradient(t, x, z, p, gx_.ref(), {gz_.data(), nz_, m, gz_.rows()}, {gp_.data(), np_, m, gp_.rows()});
    if (code_ != 0) return false;
    const ConstMatrixRef SX = sens_.last_stages().stage_states(i);
    const ConstMatrixRef SZ = sens_.last_stages().stage_algebraic(i);
    const ConstMatrixRef P = sens_.parameter_directions();
    for (int r = 0; r < m; ++r)
      for (int d = 0; d < result_.cols; ++d) {
        double sum = 0.0;
        for (int k = 0; k < nx_; ++k) sum += gx_(k, r) * SX(k, d);
        for (int k = 0; k < nz_; ++k) sum += gz_(k, r) * SZ(k, d);
        for (int k = 0; k < np_; ++k) sum += gp_(k, r) * P(k, d);
        if (!std::isfinite(sum)) {
          code_ = 1;
          return false;
        }
        result_(r, d) += w * sum;
      }
    return true;
  }

  const AdjointObjective& objective_;
  const ForwardSensitivity& sens_;
  const Adjoint& adjoint_;
  MatrixRef result_;
  int nx_, nz_, np_;
  DenseMatrix gx_, gz_, gp_;
  int code_ = 0;
};

}  // namespace

Status forward_directional_derivatives(const Adjoint& adjoint, const AdjointObjective& objective,
                                       ConstMatrixRef directions, MatrixRef result) {
  objective.validate();
  Integrator& recorded = adjoint.integrator();
  Problem& problem = recorded.problem();
  const int nx = problem.nx(), np = problem.np();
  if (adjoint.steps() == 0)
    throw std::logic_error("forward_directional_derivatives: the adjoint has no recorded run");
  if (directions.rows != nx + np || directions.cols < 1)
    throw std::invalid_argument("forward_directional_derivatives: directions must be (nx + np) x nd");
  if (result.rows != objective.rows || result.cols != directions.cols)
    throw std::invalid_argument("forward_directional_derivatives: result must be rows x nd");
  result.fill(0.0);
  Integrator solver(problem, recorded.options());
  solver.jacobians().use_increments_of(recorded.jacobians());
  SensitivityOptions options;
  options.mode = SensitivityMode::exact;
  options.stage_solve = StageSolve::factorization;  // no refinement error: exact to rounding
  options.error_control = false;                     // the steps are replayed, not tested
  ForwardSensitivity sens(solver, options);
  ObjectiveTangent tangent(objective, sens, adjoint, result);
  solver.add_listener(tangent);
  Status status = solver.initialize(adjoint.initial_time(), adjoint.initial_state(),
                                    adjoint.initial_algebraic(), recorded.parameters());
  if (ok(status)) status = sens.initialize(directions);
  for (int n = 0; n < adjoint.steps() && ok(status); ++n)
    status = solver.replay_step(adjoint.step_size(n), adjoint.step_end(n));
  solver.remove_listener(tangent);
  return status;
}

std::string GradientCheck::summary() const {
  std::ostringstream out;
  out << (ok ? "gradient check passed" : "gradient check FAILED") << ": worst relative error "
      << worst_error;
  if (!worst_component.empty()) out << " in " << worst_component;
  return out.str();
}

GradientCheck check_gradient(const Adjoint& adjoint, const AdjointObjective& objective,
                             ConstMatrixRef dx0, ConstMatrixRef dp, double tolerance,
                             bool all_components, unsigned seed) {
  Problem& problem = adjoint.integrator().problem();
  const int nx = problem.nx(), np = problem.np(), m = objective.rows;
  if (dx0.rows != nx || dx0.cols != m || (np > 0 && (dp.rows != np || dp.cols != m)))
    throw std::invalid_argument("check_gradient: dx0 must be nx x rows and dp np x rows");
  const int nd = all_components ? nx + np : 1;
  DenseMatrix directions(nx + np, nd);
  if (all_components) {
    for (int k = 0; k < nx + np; ++k) directions(k, k) = 1.0;
  } else {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (int k = 0; k < nx + np; ++k) directions(k, 0) = uniform(engine);
  }
  DenseMatrix forward(m, nd);
  GradientCheck check;
  const Status status = forward_directional_derivatives(adjoint, objective, directions.cref(), forward.ref());
  if (!ok(status)) {
    check.ok = false;
    check.worst_error = INFINITY;
    check.worst_component = std::string("(the forward run failed: ") + std::string(status_name(status)) + ")";
    return check;
  }
  for (int r = 0; r < m; ++r)
    for (int d = 0; d < nd; ++d) {
      double value = 0.0, scale = 0.0;
      for (int k = 0; k < nx + np; ++k) {
        const double g = k < nx ? dx0(k, r) : dp(k - nx, r);
        value += g * directions(k, d);
        scale += std::abs(g * directions(k, d));
      }
      scale = std::max(scale, std::abs(forward(r, d)));
      const double error = scale > 0.0 ? std::abs(value - forward(r, d)) / scale : 0.0;
      check.adjoint.push_back(value);
      check.forward.push_back(forward(r, d));
      if (!(error <= check.worst_error) || check.worst_component.empty()) {
        if (error >= check.worst_error || !std::isfinite(error)) {
          check.worst_error = std::isfinite(error) ? error : INFINITY;
          check.worst_component = "row " + std::to_string(r);
          if (all_components)
            check.worst_component += ", d/d" + (d < nx ? problem.state_name(d) : problem.parameter_name(d - nx));
          else
            check.worst_component += " (random direction, seed " + std::to_string(seed) + ")";
        }
      }
    }
  check.ok = check.worst_error <= tolerance;
  return check;
}

}  // namespace esdirk
