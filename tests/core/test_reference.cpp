// Adaptive runs against the published reference solutions, tolerance proportionality, and
// the Dow invariants and physical branch at every tolerance.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <vector>

#include "reference_problems.hpp"

namespace {
const double tolerances[] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
}

BOOST_AUTO_TEST_SUITE(reference_solutions)

BOOST_AUTO_TEST_CASE(every_problem_within_1e_6_at_rtol_1e_9_and_error_falls_with_rtol) {
  for (const auto& c : reference_problems::all()) {
    double previous = INFINITY;
    for (double rtol : tolerances) {
      const auto outcome = reference_problems::solve(c, rtol);
      BOOST_TEST_INFO(c.name << " at rtol " << rtol << ": error " << outcome.error << ", "
                             << outcome.stats.steps << " steps");
      BOOST_REQUIRE(esdirk::ok(outcome.status));
      BOOST_TEST(outcome.error < previous);  // tolerance proportionality: monotone decrease
      if (rtol == 1e-9) BOOST_TEST(outcome.error <= 1e-6);
      previous = outcome.error;
    }
  }
}

BOOST_AUTO_TEST_CASE(dow_invariants_and_physical_branch_at_every_tolerance) {
  for (double rtol : tolerances) {
    dow::Model model;
    esdirk::Integrator solver(model, dow::benchmark_options(rtol));
    const auto zs = dow::consistent_algebraic_start();
    BOOST_REQUIRE(esdirk::ok(solver.initialize(
        0.0, {dow::initial_states.begin(), dow::initial_states.end()}, {zs.begin(), zs.end()},
        {dow::nominal_parameters.begin(), dow::nominal_parameters.end()})));
    double worst_invariant = 0.0, smallest_h_plus = INFINITY;
    solver.set_step_observer([&](const esdirk::StepView& step) {
      const esdirk::ConstVector x(step.X.column(step.stages - 1), 6);
      const auto inv = dow::invariants(x);
      for (int k = 0; k < 3; ++k)
        worst_invariant = std::max(worst_invariant, std::abs(inv[k] - dow::invariant_values[k]));
      smallest_h_plus = std::min(smallest_h_plus, step.Z(0, step.stages - 1));
    });
    std::vector<double> x(6), z(4);
    BOOST_REQUIRE(esdirk::ok(solver.integrate_to(10.0, x, z)));
    BOOST_TEST_INFO("rtol " << rtol);
    BOOST_TEST(worst_invariant <= 1e-12);
    BOOST_TEST_INFO("rtol " << rtol);
    BOOST_TEST(smallest_h_plus > 0.0);  // the physical branch, [H+] > 0, at every step
    BOOST_TEST_INFO("rtol " << rtol);
    BOOST_TEST(x[0] < 1e-2);  // it reacted: on the wrong branch u1 stays at 1.5776
  }
}

BOOST_AUTO_TEST_SUITE_END()
