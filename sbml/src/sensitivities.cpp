// Forward sensitivities and adjoint gradients of SBML models (doc/sbml.md, "Sensitivities").
// Both integrate the model's hybrid problem with HybridSolver from the same start and the same
// seed S0 = d(x0, p0)/d(theta): the initial map (declared values -> initial assignments and
// rules -> conversions) differentiated exactly over dual numbers, then the events at t0.
// Outputs are differentiated exactly by dual numbers over the dynamics program.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "compiled_model.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/sbml/sbml.hpp"
#include "outputs.hpp"
#include "sbml_problem.hpp"
#include "time_limit.hpp"

namespace esdirk::sbml {
namespace {

using detail::CompiledModel;
using detail::SbmlProblem;

// True if the events at t0 changed nothing in (x, p) but their trigger latches: then the t0
// event map is the identity for the seed (a latch is piecewise constant).
bool only_latches_changed(const CompiledModel& m, const std::vector<double>& x0, const std::vector<double>& p0,
                          const std::vector<double>& x1, const std::vector<double>& p1) {
  if (x0 != x1) return false;
  std::vector<bool> latch(p0.size(), false);
  for (const detail::EventCode& e : m.events) latch[static_cast<std::size_t>(e.latch_parameter)] = true;
  for (std::size_t i = 0; i < p0.size(); ++i)
    if (!latch[i] && p0[i] != p1[i]) return false;
  return true;
}

// The seed (nx + np) x ns: the initial point's exact derivative (dual numbers over the initial
// assignments, rules and conversions), then through the events at t0. Where an event executes
// or is scheduled at t0, the seed goes through that event map exactly: the same execution over
// dual numbers whose directions are the seed's columns.
DenseMatrix seed_of(const Model& model, SbmlProblem& problem, const std::vector<std::string>& ids, double t0) {
  const CompiledModel& m = model.compiled();
  const int rows = m.nx + m.np;
  DenseMatrix seed(rows, static_cast<int>(ids.size()));
  const std::vector<double> exact = detail::initial_point_derivative(m, t0, ids);
  for (std::size_t k = 0; k < ids.size(); ++k)
    for (int i = 0; i < rows; ++i)
      seed(i, static_cast<int>(k)) = exact[k * static_cast<std::size_t>(rows) + static_cast<std::size_t>(i)];
  if (m.events.empty()) return seed;
  std::vector<double> x0, z0, p0;
  detail::initial_point(m, t0, x0, z0, p0);
  std::vector<double> x1 = x0, p1 = p0;
  if (problem.fire_initial_events(t0, x1, z0, p1) != 0) throw std::runtime_error("the events at t0 do not end");
  if (only_latches_changed(m, x0, p0, x1, p1)) return seed;
  if (problem.initial_events_derivative(t0, x0, z0, p0, seed.ref()) != 0)
    throw std::runtime_error("the events at t0 do not end");
  return seed;
}

void check_ids(const Model& model, const std::vector<std::string>& ids) {
  if (ids.empty()) throw std::invalid_argument("sensitivities: no id to differentiate with respect to");
  for (const std::string& id : ids) (void)model.value(id);
}

}  // namespace

Sensitivities simulate_sensitivities(const Model& model, const std::vector<double>& output_times,
                                     const std::vector<Output>& outputs,
                                     const std::vector<std::string>& with_respect_to,
                                     const SimulationOptions& options) {
  options.validate();
  const CompiledModel& m = model.compiled();
  detail::check_request(m, output_times, outputs);
  check_ids(model, with_respect_to);
  Sensitivities result;
  Simulation& run = result.simulation;
  result.with_respect_to = with_respect_to;
  run.times = output_times;
  run.outputs = outputs;
  const std::size_t no = outputs.size(), ns = with_respect_to.size();
  run.values.assign(output_times.size() * no, std::numeric_limits<double>::quiet_NaN());
  result.derivatives.assign(output_times.size() * no * ns, std::numeric_limits<double>::quiet_NaN());
  SbmlProblem problem(m);
  detail::TimeLimit limit(options.max_seconds);
  HybridSolver solver(problem, detail::hybrid_options(m, options, output_times));
  solver.integrator().add_listener(limit);
  std::vector<double> x0, z0, p0;
  const Status started = detail::start(m, problem, solver, output_times[0], x0, z0, p0, run.message);
  if (!ok(started)) {
    run.status = started;
    return result;
  }
  const DenseMatrix seed = seed_of(model, problem, with_respect_to, output_times[0]);
  SensitivityOptions sensitivity;
  sensitivity.error_control = options.sensitivity_error_control;
  const Status seeded = solver.initialize_sensitivities(seed.cref(), sensitivity);
  if (!ok(seeded)) {
    run.status = seeded;
    run.message = solver.message();
    return result;
  }
  const int n = static_cast<int>(ns);
  std::vector<double> x(static_cast<std::size_t>(m.nx)), z(static_cast<std::size_t>(m.nz));
  DenseMatrix Sx(m.nx, n), Sz(m.nz, n);
  for (std::size_t i = 0; i < output_times.size(); ++i) {
    if (limit.expired()) {
      run.status = detail::TimeLimit::status;
      run.message = limit.message(solver.t());
      return result;
    }
    const Outcome o = solver.integrate_to(output_times[i], x, z, Sx.ref(), m.nz > 0 ? Sz.ref() : MatrixRef{});
    if (!ok(o)) {
      run.status = o.status;
      run.message = solver.message().empty() ? std::string(status_message(o.status)) : solver.message();
      return result;
    }
    // After the events at this time: the right limit and its sensitivities.
    problem.load(solver.t(), solver.x(), solver.z(), solver.parameters());
    for (std::size_t j = 0; j < no; ++j) run.values[i * no + j] = detail::output_value(m, problem.slots(), outputs[j]);
    for (int first = 0; first < n; first += 8) {
      const int count = std::min(8, n - first);
      problem.load_directions(solver.t(), solver.x(), solver.z(), solver.parameters(), solver.state_sensitivity(),
                              m.nz > 0 ? Sz.cref() : ConstMatrixRef{}, solver.parameter_sensitivity(), first, count);
      for (std::size_t j = 0; j < no; ++j) {
        const ad::Dual<8> out = detail::output_value(m, problem.dual_slots(), outputs[j]);
        for (int k = 0; k < count; ++k)
          result.derivatives[(i * no + j) * ns + static_cast<std::size_t>(first + k)] = out.d[static_cast<std::size_t>(k)];
      }
    }
  }
  return result;
}

Gradient adjoint_gradient(const Model& model, const std::vector<double>& output_times, const std::vector<Output>& outputs,
                          const std::vector<double>& weights, const std::vector<std::string>& with_respect_to,
                          const SimulationOptions& options) {
  options.validate();
  const CompiledModel& m = model.compiled();
  detail::check_request(m, output_times, outputs);
  check_ids(model, with_respect_to);
  const std::size_t no = outputs.size();
  if (weights.size() != output_times.size() * no)
    throw std::invalid_argument("adjoint_gradient: weights must have times x outputs entries");
  Gradient g;
  g.with_respect_to = with_respect_to;
  g.gradient.assign(with_respect_to.size(), std::numeric_limits<double>::quiet_NaN());
  SbmlProblem problem(m);
  detail::TimeLimit limit(options.max_seconds);
  HybridSolver solver(problem, detail::hybrid_options(m, options, output_times));
  solver.integrator().add_listener(limit);
  HybridAdjoint adjoint(solver);
  std::vector<double> x0, z0, p0;
  const Status started = detail::start(m, problem, solver, output_times[0], x0, z0, p0, g.message);
  if (!ok(started)) {
    g.status = started;
    return g;
  }
  std::vector<double> x(static_cast<std::size_t>(m.nx)), z(static_cast<std::size_t>(m.nz));
  for (std::size_t i = 0; i < output_times.size(); ++i) {
    if (limit.expired()) {
      g.status = detail::TimeLimit::status;
      g.message = limit.message(solver.t());
      return g;
    }
    const Outcome o = adjoint.integrate_to(output_times[i], x, z);
    if (!ok(o)) {
      g.status = o.status;
      g.message = solver.message().empty() ? std::string(status_message(o.status)) : solver.message();
      return g;
    }
    // The adjoint's outputs are the values integrate_to returned (at an event time: the left
    // limit), and G sums the weighted outputs there.
    problem.load(output_times[i], x, z, solver.parameters());
    for (std::size_t j = 0; j < no; ++j) g.value += weights[i * no + j] * detail::output_value(m, problem.slots(), outputs[j]);
  }
  // dG/d(x, z, p) at output k: the weighted outputs' gradient by unit dual directions.
  HybridObjective objective;
  const int inputs = m.nx + m.nz + m.np;
  objective.at_output = [&](int k, double t, ConstVector xk, ConstVector zk, ConstVector pk, MatrixRef dx, MatrixRef dz,
                            MatrixRef dp) {
    for (int first = 0; first < inputs; first += 8) {
      const int count = std::min(8, inputs - first);
      problem.load_unit_directions(t, xk, zk, pk, first, count);
      ad::Dual<8> sum(0.0);
      for (std::size_t j = 0; j < no; ++j)
        sum = sum + weights[static_cast<std::size_t>(k) * no + j] * detail::output_value(m, problem.dual_slots(), outputs[j]);
      for (int c = 0; c < count; ++c) {
        const int input = first + c;
        const double d = sum.d[static_cast<std::size_t>(c)];
        if (input < m.nx) dx(input, 0) = d;
        else if (input < m.nx + m.nz) dz(input - m.nx, 0) = d;
        else if (dp.data) dp(input - m.nx - m.nz, 0) = d;
      }
    }
    return 0;
  };
  DenseMatrix dx0(m.nx, 1), dp(m.np, 1);
  const Status status = adjoint.gradient(objective, dx0.ref(), m.np > 0 ? dp.ref() : MatrixRef{});
  if (!ok(status)) {
    g.status = status;
    g.message = adjoint.message();
    return g;
  }
  // Through the initial map: dG/dtheta = S0^T [dx0; dp].
  const DenseMatrix seed = seed_of(model, problem, with_respect_to, output_times[0]);
  for (std::size_t k = 0; k < with_respect_to.size(); ++k) {
    double sum = 0.0;
    for (int i = 0; i < m.nx; ++i) sum += seed(i, static_cast<int>(k)) * dx0(i, 0);
    for (int i = 0; i < m.np; ++i) sum += seed(m.nx + i, static_cast<int>(k)) * dp(i, 0);
    g.gradient[k] = sum;
  }
  return g;
}

}  // namespace esdirk::sbml
