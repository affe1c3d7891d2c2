// The setters of esdirk_method.h set the options they name: the Dow run (states only, to 10 h)
// configured through C (the C callbacks of examples/dow_c) and through esdirk::Options (the C++
// model of examples/dow) agree to the last bit in the states and in every counter, for each
// setter, and each configuration takes other steps than the defaults (so the setter acted).
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "dow/dow_model.hpp"
#include "dow_c/dow_model.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/integrator.hpp"

namespace {

constexpr int nx = 6, nz = 4, np = 9;
constexpr double t_end = 10.0;

using Counters = std::vector<std::pair<std::string, std::int64_t>>;

struct Result {
  std::vector<double> x, z;
  Counters counters;
  std::string method;
};

struct Configuration {
  const char* what;
  double rtol;
  std::function<void(esdirk::Options&)> cpp;
  std::function<void(esdirk_solver*)> c;
};

Result run_cpp(const Configuration& configuration) {
  dow::Model model;
  esdirk::Options options = dow::benchmark_options(configuration.rtol);
  configuration.cpp(options);
  esdirk::Integrator solver(model, options);
  const auto zs = dow::consistent_algebraic_start();
  CHECK(esdirk::ok(solver.initialize(
      0.0, {dow::initial_states.begin(), dow::initial_states.end()}, {zs.begin(), zs.end()},
      {dow::nominal_parameters.begin(), dow::nominal_parameters.end()})));
  solver.set_stop_time(t_end);
  Result r;
  r.x.resize(nx);
  r.z.resize(nz);
  CHECK(esdirk::ok(solver.integrate_to(t_end, r.x, r.z).status));
  const esdirk::Statistics& s = solver.statistics();
  for (const esdirk::StatisticsCounter& counter : esdirk::statistics_counters())
    r.counters.emplace_back(counter.name, s.*counter.counter);
  r.method = solver.method().name;
  return r;
}

Result run_c(const Configuration& configuration) {
  esdirk_problem* problem = nullptr;
  esdirk_solver* solver = nullptr;
  CHECK_STATUS(esdirk_problem_create(nx, nz, np, dow_residual, nullptr, &problem), ESDIRK_SUCCESS);
  esdirk_problem_set_jacobian(problem, dow_jacobian);
  CHECK_STATUS(esdirk_solver_create(problem, &solver), ESDIRK_SUCCESS);
  esdirk_solver_set_tolerances(solver, configuration.rtol, 1e-6 * configuration.rtol);
  esdirk_solver_set_algebraic_atol(solver, dow::algebraic_atol.data(), nz);
  configuration.c(solver);
  double z0[nz];
  dow_algebraic_start(z0);
  CHECK_STATUS(esdirk_solver_initialize(solver, 0.0, dow_x0, nx, z0, nz, dow_parameters, np),
               ESDIRK_SUCCESS);
  esdirk_solver_set_stop_time(solver, t_end);
  Result r;
  r.x.resize(nx);
  r.z.resize(nz);
  CHECK(esdirk_solver_integrate_to(solver, t_end, r.x.data(), nx, r.z.data(), nz) >= 0);
  for (int i = 0; const char* name = esdirk_counter_name(i); ++i) {
    std::int64_t value = -1;
    CHECK_STATUS(esdirk_solver_get_counter(solver, name, &value), ESDIRK_SUCCESS);
    r.counters.emplace_back(name, value);
  }
  r.method = esdirk_solver_method_name(solver);
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  return r;
}

std::int64_t counter(const Result& r, const std::string& name) {
  for (const auto& [n, v] : r.counters)
    if (n == name) return v;
  return -1;
}

}  // namespace

int main() {
  (void)dow_parameter_jacobian;  // states only
  const Configuration configurations[] = {
      {"raw rule", 1e-6, [](esdirk::Options& o) { o.tolerance_rule = esdirk::ToleranceRule::raw; },
       [](esdirk_solver* s) {
         CHECK_STATUS(esdirk_solver_set_tolerance_rule(s, ESDIRK_TOLERANCE_RAW, 0.0), ESDIRK_SUCCESS);
       }},
      {"calibration factor", 1e-6, [](esdirk::Options& o) { o.calibration_factor = 3.0; },
       [](esdirk_solver* s) {
         CHECK_STATUS(esdirk_solver_set_tolerance_rule(s, ESDIRK_TOLERANCE_CALIBRATED, 3.0),
                      ESDIRK_SUCCESS);
       }},
      {"ESDIRK34", 1e-6, [](esdirk::Options& o) { o.method = esdirk::Tableau::esdirk34(); },
       [](esdirk_solver* s) { CHECK_STATUS(esdirk_solver_set_method(s, "ESDIRK34"), ESDIRK_SUCCESS); }},
      {"ESDIRK547 at 1e-9", 1e-9, [](esdirk::Options& o) { o.method = esdirk::Tableau::esdirk547(); },
       [](esdirk_solver* s) { CHECK_STATUS(esdirk_solver_set_method(s, "ESDIRK547"), ESDIRK_SUCCESS); }},
      {"correction-size Newton test", 1e-6,
       [](esdirk::Options& o) {
         o.newton_test = esdirk::NewtonTest::preconditioned_residual;
         o.newton_rate_floor = 0.05;
       },
       [](esdirk_solver* s) {
         CHECK_STATUS(esdirk_solver_set_newton_test(s, ESDIRK_NEWTON_CORRECTION, 0.05), ESDIRK_SUCCESS);
       }},
      {"reuse and kept steps", 1e-6,
       [](esdirk::Options& o) {
         o.reuse_jacobian = true;
         o.jacobian_reuse_contraction = 0.2;
         o.keep_step_ratio_low = 0.8;
         o.keep_step_ratio_high = 1.3;
       },
       [](esdirk_solver* s) {
         CHECK_STATUS(esdirk_solver_set_jacobian_reuse(s, 1, 0.2), ESDIRK_SUCCESS);
         CHECK_STATUS(esdirk_solver_set_keep_step_ratio(s, 0.8, 1.3), ESDIRK_SUCCESS);
       }},
      {"reuse across nearby h", 1e-6,
       [](esdirk::Options& o) {
         o.reuse_jacobian = true;
         o.lu_reuse_h_change = 0.3;
       },
       [](esdirk_solver* s) {
         CHECK_STATUS(esdirk_solver_set_jacobian_reuse(s, 1, 0.1), ESDIRK_SUCCESS);
         CHECK_STATUS(esdirk_solver_set_lu_reuse_h_change(s, 0.3), ESDIRK_SUCCESS);
       }},
  };
  for (const Configuration& configuration : configurations) {
    const Result a = run_cpp(configuration), b = run_c(configuration);
    const Configuration defaults{"defaults", configuration.rtol, [](esdirk::Options&) {},
                                 [](esdirk_solver*) {}};
    const Result d = run_c(defaults);
    CHECK(a.x == b.x);  // bit for bit
    CHECK(a.z == b.z);
    CHECK(a.counters == b.counters);
    CHECK(a.method == b.method);
    // The setter changed the run (the Newton test keeps the steps, not the iterations).
    const bool changed = counter(b, "steps") != counter(d, "steps") ||
                         counter(b, "newton_iterations") != counter(d, "newton_iterations");
    CHECK(changed);
    if (a.counters != b.counters || a.x != b.x || !changed)
      std::fprintf(stderr, "configuration \"%s\" differs\n", configuration.what);
  }
  // What the configurations must show on their own.
  const Result automatic = run_c({"defaults at 1e-9", 1e-9, [](esdirk::Options&) {}, [](esdirk_solver*) {}});
  CHECK(automatic.method == "ESDIRK436");  // the default "auto", at and below rtol 1e-3
  CHECK(run_c(configurations[2]).method == "ESDIRK34");
  const Result reuse = run_c(configurations[5]);
  CHECK(counter(reuse, "jacobian_reuses") > 0);
  CHECK(counter(reuse, "steps_kept") > 0);
  CHECK(counter(reuse, "jacobian_evaluations") < counter(reuse, "accepted_steps"));
  // h moves every step (keep [1, 1]): the LU serves a next step only within the h change.
  const Result nearby = run_c(configurations[6]);
  const Result same_h = run_c({"reuse, same h only", 1e-6,
                               [](esdirk::Options& o) { o.reuse_jacobian = true; },
                               [](esdirk_solver* s) {
                                 CHECK_STATUS(esdirk_solver_set_jacobian_reuse(s, 1, 0.1), ESDIRK_SUCCESS);
                               }});
  CHECK(counter(nearby, "lu_reuses") > counter(same_h, "lu_reuses"));
  return report();
}
