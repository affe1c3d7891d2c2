// No allocation in the step loop of the sensitivities either: a global operator new that
// counts, around integrate_to() of ForwardSensitivity (both modes, analytic and difference
// Jacobians, few and many directions: plain sweeps and doubling) and around repeated
// shooting intervals after the first, each with further listeners beside the sensitivities
// (a user observer before them, a reserved trajectory after them, a running cost).

#define BOOST_TEST_MODULE esdirk sensitivity allocation
#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <vector>

#include "dow/dow_model.hpp"
#include "without_jacobians.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"
#include "esdirk/trajectory.hpp"

#include "counting_new.hpp"

using counting_new::allocations;

namespace {

using DowWithoutJacobians = test_helpers::WithoutJacobiansOf<dow::Model>;

// The raw tolerances keep the runs short; the tolerance rule changes no code path of the step
// loop.
esdirk::Options dow_options() {
  esdirk::Options o = dow::benchmark_options(1e-6);
  o.tolerance_rule = esdirk::ToleranceRule::raw;
  return o;
}

// Allocations while integrating Dow to 2 h in 20 output times with `directions` seed columns
// (the first `directions` of: 6 initial states, 9 scaled parameters).
long allocations_while_integrating(esdirk::Problem& model, esdirk::SensitivityMode mode,
                                   int directions) {
  esdirk::Integrator solver(model, dow_options());
  long observed = 0;
  solver.set_step_observer([&observed](const esdirk::StepView&) { ++observed; });
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, z0, p)));
  esdirk::SensitivityOptions so;
  so.mode = mode;
  esdirk::ForwardSensitivity sens(solver, so);
  esdirk::Trajectory trajectory;
  trajectory.reserve(2000, 6, 4, solver.method().stages);
  solver.add_listener(trajectory);
  esdirk::DenseMatrix seed(15, directions);
  for (int k = 0; k < directions; ++k)
    seed(k, k) = k < 6 ? 1.0 : p[static_cast<std::size_t>(k - 6)];
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  std::vector<double> x(6), z(4);
  esdirk::DenseMatrix Sx(6, directions), Sz(4, directions);
  allocations = 0;
  counting_new::enabled = true;
  bool all_ok = true;
  for (int k = 1; k <= 20; ++k)
    all_ok = all_ok && esdirk::ok(sens.integrate_to(0.1 * k, x, z, Sx.ref(), Sz.ref()));
  counting_new::enabled = false;
  BOOST_REQUIRE(all_ok);
  BOOST_REQUIRE(solver.statistics().sensitivity_solves > 20);
  BOOST_REQUIRE(observed == solver.statistics().accepted_steps);
  BOOST_REQUIRE(trajectory.size() == observed);
  solver.remove_listener(trajectory);
  return allocations;
}

}  // namespace

BOOST_AUTO_TEST_CASE(forward_sensitivities_allocate_nothing_in_the_step_loop) {
  dow::Model analytic;
  DowWithoutJacobians differences;
  for (esdirk::Problem* model :
       {static_cast<esdirk::Problem*>(&analytic), static_cast<esdirk::Problem*>(&differences)})
    for (auto mode : {esdirk::SensitivityMode::paper, esdirk::SensitivityMode::exact})
      for (int directions : {1, 15}) {
        BOOST_TEST_INFO((model == &analytic ? "analytic" : "differences")
                        << ", " << (mode == esdirk::SensitivityMode::exact ? "exact" : "paper")
                        << ", " << directions << " directions");
        BOOST_TEST(allocations_while_integrating(*model, mode, directions) == 0);
      }
}

BOOST_AUTO_TEST_CASE(repeated_shooting_intervals_allocate_nothing) {
  dow::Model model;
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> u(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  std::vector<double> x(dow::initial_states.begin(), dow::initial_states.end());
  esdirk::ShootingInterval interval(model, dow_options());
  long observed = 0;
  interval.integrator().set_step_observer([&observed](const esdirk::StepView&) { ++observed; });
  interval.set_running_cost([](double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
                               double& h, esdirk::Vector hx, esdirk::Vector hz, esdirk::Vector hu) {
    h = x[0];
    std::fill(hx.begin(), hx.end(), 0.0);
    hx[0] = 1.0;
    std::fill(hz.begin(), hz.end(), 0.0);
    std::fill(hu.begin(), hu.end(), 0.0);
    return 0;
  });
  BOOST_REQUIRE(esdirk::ok(interval.integrate(0.0, 0.2, x, u, z0).status));
  x = interval.result().x;
  allocations = 0;
  counting_new::enabled = true;
  bool all_ok = true;
  for (int k = 1; k < 10; ++k) {
    const auto& r = interval.integrate(0.2 * k, 0.2 * (k + 1), x, u);
    all_ok = all_ok && esdirk::ok(r.status);
    std::copy(r.x.begin(), r.x.end(), x.begin());
  }
  counting_new::enabled = false;
  BOOST_REQUIRE(all_ok);
  BOOST_REQUIRE(observed == interval.total_statistics().accepted_steps);
  BOOST_TEST(allocations == 0);
}

// Fixed and frozen meshes: once the mesh is set (or frozen by the first call), repeated intervals
// allocate nothing either.
BOOST_AUTO_TEST_CASE(repeated_intervals_on_fixed_and_frozen_meshes_allocate_nothing) {
  dow::Model model;
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> u(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  std::vector<double> mesh;  // frozen by the first object, set as a fixed mesh on the second
  for (bool frozen : {true, false}) {
    const std::vector<double> x(dow::initial_states.begin(), dow::initial_states.end());
    esdirk::ShootingInterval interval(model, dow_options());
    if (frozen)
      interval.freeze_mesh();
    else
      interval.set_mesh(mesh);
    BOOST_REQUIRE(esdirk::ok(interval.integrate(1.0, 1.2, x, u, z0).status));
    if (frozen) mesh.assign(interval.mesh().begin(), interval.mesh().end());
    BOOST_REQUIRE(esdirk::ok(interval.integrate(1.2, 1.4, x, u, z0).status));
    allocations = 0;
    counting_new::enabled = true;
    bool all_ok = true;
    for (int k = 2; k < 8; ++k) all_ok = all_ok && esdirk::ok(interval.integrate(0.2 * k + 1.0, 0.2 * k + 1.2, x, u, z0).status);
    counting_new::enabled = false;
    BOOST_TEST_INFO((frozen ? "frozen" : "fixed") << " mesh");
    BOOST_REQUIRE(all_ok);
    BOOST_TEST(allocations == 0);
  }
}
