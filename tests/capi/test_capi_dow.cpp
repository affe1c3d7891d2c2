// The C API and the C++ API give the same numbers: the Dow run with the nine scaled parameter
// sensitivities through esdirk.h (with the C callbacks of examples/dow_c) and through the C++
// classes (with examples/dow's model) agree to the last bit in the states, the sensitivities
// and every counter. Both take the same code path, so any difference is a wiring bug.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "dow/dow_model.hpp"
#include "dow_c/dow_model.h"
#include "esdirk/esdirk.h"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"

namespace {

constexpr int nx = 6, nz = 4, np = 9;

std::vector<double> output_times() {
  std::vector<double> times;
  for (int k = -6; k < -1; ++k)
    for (double m : {1.0, 2.0, 5.0}) times.push_back(m * std::pow(10.0, k));
  for (int k = 1; k <= 100; ++k) times.push_back(0.1 * k);
  return times;
}

// Every counter by name: the C++ table, and through C the by-name getter (which also covers
// counters newer than the C struct).
using Counters = std::vector<std::pair<std::string, std::int64_t>>;

struct Result {
  std::vector<double> x, z, Sx, Sz;
  Counters counters;
  esdirk_statistics stats = ESDIRK_STATISTICS_INIT;
};

Result run_cpp(esdirk::SensitivityMode mode) {
  dow::Model model;
  esdirk::Integrator solver(model, dow::benchmark_options(1e-6));
  const auto zs = dow::consistent_algebraic_start();
  CHECK(esdirk::ok(solver.initialize(
      0.0, {dow::initial_states.begin(), dow::initial_states.end()}, {zs.begin(), zs.end()},
      {dow::nominal_parameters.begin(), dow::nominal_parameters.end()})));
  solver.set_stop_time(10.0);
  esdirk::SensitivityOptions sensitivity_options;
  sensitivity_options.mode = mode;
  esdirk::ForwardSensitivity sens(solver, sensitivity_options);
  esdirk::DenseMatrix seed(nx + np, np);
  for (int j = 0; j < np; ++j)
    seed(nx + j, j) = dow::nominal_parameters[static_cast<std::size_t>(j)];
  CHECK(esdirk::ok(sens.initialize(seed.cref())));
  Result r;
  r.x.resize(nx);
  r.z.resize(nz);
  r.Sx.resize(nx * np);
  r.Sz.resize(nz * np);
  for (double t : output_times())
    CHECK(esdirk::ok(
        sens.integrate_to(t, r.x, r.z, {r.Sx.data(), nx, np, nx}, {r.Sz.data(), nz, np, nz})));
  const esdirk::Statistics& s = solver.statistics();
  for (const esdirk::StatisticsCounter& counter : esdirk::statistics_counters())
    r.counters.emplace_back(counter.name, s.*counter.counter);
  return r;
}

Result run_c(int mode) {
  esdirk_problem* problem = nullptr;
  esdirk_solver* solver = nullptr;
  CHECK_STATUS(esdirk_problem_create(nx, nz, np, dow_residual, nullptr, &problem), ESDIRK_SUCCESS);
  esdirk_problem_set_jacobian(problem, dow_jacobian);
  esdirk_problem_set_parameter_jacobian(problem, dow_parameter_jacobian);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  esdirk_solver_set_tolerances(solver, 1e-6, 1e-12);
  esdirk_solver_set_algebraic_atol(solver, dow::algebraic_atol.data(), nz);
  esdirk_solver_set_sensitivity_options(solver, mode, ESDIRK_ERROR_CONTROL_DEFAULT);
  double z0[nz];
  dow_algebraic_start(z0);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, dow_x0, nx, z0, nz, dow_parameters, np),
               ESDIRK_SUCCESS);
  esdirk_solver_set_stop_time(solver, 10.0);
  std::vector<double> seed((nx + np) * np, 0.0);
  for (int j = 0; j < np; ++j) seed[(nx + j) + j * (nx + np)] = dow_parameters[j];
  CHECK_STATUS(esdirk_solver_start_sensitivities(solver, seed.data(), nx + np, np, nx + np),
               ESDIRK_SUCCESS);
  Result r;
  r.x.resize(nx);
  r.z.resize(nz);
  r.Sx.resize(nx * np);
  r.Sz.resize(nz * np);
  // The last output time is the stop time: a normal stop (>= 0), whichever code it gets.
  for (double t : output_times())
    CHECK(esdirk_solver_integrate_sensitivities_to(solver, t, r.x.data(), nx, r.z.data(), nz,
                                                   r.Sx.data(), nx, r.Sz.data(), nz, np) >= 0);
  CHECK_STATUS(esdirk_solver_get_statistics(solver, &r.stats), ESDIRK_SUCCESS);
  for (int i = 0; const char* name = esdirk_counter_name(i); ++i) {
    std::int64_t value = -1;
    CHECK_STATUS(esdirk_solver_get_counter(solver, name, &value), ESDIRK_SUCCESS);
    r.counters.emplace_back(name, value);
  }
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  return r;
}

}  // namespace

int main() {
  const struct {
    esdirk::SensitivityMode cpp;
    int c;
  } modes[] = {{esdirk::SensitivityMode::exact, ESDIRK_SENSITIVITY_EXACT},
               {esdirk::SensitivityMode::paper, ESDIRK_SENSITIVITY_PAPER}};
  for (const auto& mode : modes) {
    const Result a = run_cpp(mode.cpp), b = run_c(mode.c);
    CHECK(a.x == b.x);  // bit for bit
    CHECK(a.z == b.z);
    CHECK(a.Sx == b.Sx);
    CHECK(a.Sz == b.Sz);
    CHECK(a.counters == b.counters);  // every counter, in the same order, same values
    CHECK(b.stats.steps == a.counters.front().second);
    CHECK(b.stats.sensitivity_solves == b.stats.accepted_steps);
  }
  return report();
}
