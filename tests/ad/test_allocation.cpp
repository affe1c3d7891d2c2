// No allocation in the step loop with AD derivatives either: a global operator new that counts,
// around integrate_to() of Dow's forward sensitivities (dense J, [f_p; g_p] by forward mode),
// the Brusselator with its pattern declared (coloured J; the colouring is formed at the first
// Jacobian, before counting), the Brusselator without a pattern (the structure found and checked
// at every point), repeated vector-Jacobian products at new points (the tape keeps
// its storage after the first recording) and a hybrid run through an event (event row, reset
// Jacobian by forward mode).

#define BOOST_TEST_MODULE esdirk ad allocation
#include <boost/test/unit_test.hpp>
#include <vector>

#include "bouncing_ball/bouncing_ball_model.hpp"
#include "brusselator_1d.hpp"
#include "dow/dow_model.hpp"
#include "esdirk/ad/hybrid_model_problem.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "templated_hybrid_models.hpp"
#include "templated_models.hpp"

#include "counting_new.hpp"

using counting_new::allocations;

BOOST_AUTO_TEST_CASE(dow_sensitivities_by_ad_allocate_nothing_in_the_step_loop) {
  esdirk::ad::ModelProblem<templated::Dow> ad(6, 4, 9);
  esdirk::Options options = dow::benchmark_options(1e-6);
  options.tolerance_rule = esdirk::ToleranceRule::raw;
  esdirk::Integrator solver(ad, options);
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end()), z0(zs.begin(), zs.end()),
      p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, z0, p)));
  esdirk::ForwardSensitivity sensitivity(solver);
  BOOST_REQUIRE(esdirk::ok(sensitivity.initialize_all()));
  std::vector<double> x(6), z(4);
  esdirk::DenseMatrix Sx(6, 15), Sz(4, 15);
  allocations = 0;
  counting_new::enabled = true;
  bool all_ok = true;
  for (int k = 1; k <= 10; ++k) all_ok = all_ok && esdirk::ok(sensitivity.integrate_to(0.1 * k, x, z, Sx.ref(), Sz.ref()));
  counting_new::enabled = false;
  BOOST_REQUIRE(all_ok);
  BOOST_TEST(ad.ad_statistics().jacobians > 0);
  BOOST_TEST(ad.ad_statistics().parameter_jacobians > 0);
  BOOST_TEST(allocations == 0);
}

BOOST_AUTO_TEST_CASE(coloured_ad_allocates_nothing_after_the_first_jacobian) {
  const int points = 200;
  test_problems::Brusselator1d hand(points);
  esdirk::ad::ModelProblem<templated::Brusselator> ad(2 * points, 0, 0, templated::Brusselator{points});
  ad.set_jacobian_pattern(hand.pattern(), esdirk::LinearSolverKind::banded);
  esdirk::Integrator solver(ad);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, hand.initial_state(), {}, {})));
  std::vector<double> x(static_cast<std::size_t>(2 * points));
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(0.1, x)));  // the colouring is formed here
  allocations = 0;
  counting_new::enabled = true;
  const bool ok = esdirk::ok(solver.integrate_to(1.0, x));
  counting_new::enabled = false;
  BOOST_REQUIRE(ok);
  BOOST_TEST(ad.ad_statistics().coloured_jacobians > 1);
  BOOST_TEST(allocations == 0);
}

// Without a declared pattern the structure is found at the first Jacobian and checked at every
// new point (an evaluation over Dependency): no allocation after the first (only a wider
// structure colours anew).
BOOST_AUTO_TEST_CASE(found_structure_allocates_nothing_after_the_first_jacobian) {
  const int points = 100;
  test_problems::Brusselator1d hand(points);
  esdirk::ad::ModelProblem<templated::Brusselator> ad(2 * points, 0, 0, templated::Brusselator{points});
  esdirk::Integrator solver(ad);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, hand.initial_state(), {}, {})));
  std::vector<double> x(static_cast<std::size_t>(2 * points));
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(0.1, x)));  // the structure is found here
  BOOST_REQUIRE(ad.colours_found_states());
  const long passes = ad.ad_statistics().structure_passes;
  allocations = 0;
  counting_new::enabled = true;
  const bool ok = esdirk::ok(solver.integrate_to(1.0, x));
  counting_new::enabled = false;
  BOOST_REQUIRE(ok);
  BOOST_TEST(ad.ad_statistics().structure_passes > passes);
  BOOST_TEST(ad.ad_statistics().structure_updates == 1);
  BOOST_TEST(allocations == 0);
}

BOOST_AUTO_TEST_CASE(vector_jacobian_products_allocate_nothing_after_the_first_recording) {
  esdirk::ad::ModelProblem<templated::Dow> ad(6, 4, 9);
  std::vector<double> x{0.3, 6.5, 0.6, 0.7, 0.7, 0.013}, z{2e-8, 1e-6, 3e-10, 8e-10},
      p(dow::nominal_parameters.begin(), dow::nominal_parameters.end()), v(10, 1.0), vJ(10), vJp(9);
  BOOST_REQUIRE(ad.vector_jacobian_product(0.0, x, z, p, v, vJ, vJp) == 0);
  BOOST_REQUIRE(ad.parameter_vjp(0.0, x, z, p, v, vJp) == 0);  // finds the structure (tape for Dow)
  allocations = 0;
  counting_new::enabled = true;
  int code = 0;
  for (int k = 1; k <= 50; ++k) {
    x[1] = 6.5 * (1.0 + 1e-3 * k);  // a new point: a new recording
    code |= ad.vector_jacobian_product(0.0, x, z, p, v, vJ, vJp);
    code |= ad.parameter_vjp(0.0, x, z, p, v, vJp);
  }
  counting_new::enabled = false;
  BOOST_REQUIRE(code == 0);
  BOOST_TEST(ad.ad_statistics().tape_recordings == 51);
  BOOST_TEST(allocations == 0);
}

BOOST_AUTO_TEST_CASE(hybrid_ad_allocates_nothing_through_an_event) {
  esdirk::ad::HybridModelProblem<templated_hybrid::BouncingBall> ad(2, 0, 2, 1);
  esdirk::HybridSolver solver(ad, esdirk::HybridOptions{});
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0}, p{bouncing_ball::gravity, bouncing_ball::restitution};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  esdirk::DenseMatrix seed(4, 4), S(2, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(seed.cref())));
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(0.5, x, {}, S.ref())));
  allocations = 0;
  counting_new::enabled = true;
  const bool ok = esdirk::ok(solver.integrate_to(bouncing_ball::t_end, x, {}, S.ref()));
  counting_new::enabled = false;
  BOOST_REQUIRE(ok);
  BOOST_TEST(solver.logged_events() == 1);
  BOOST_TEST(allocations == 0);
}
