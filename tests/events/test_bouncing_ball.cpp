// The bouncing ball of Schäfer 2021 against its closed form: impact times, states and the
// sensitivities with respect to (z0, v0, g, gamma) across several bounces, the implicit vs
// explicit event of the blog, central differences of whole runs, and convergence in rtol.

#include <boost/test/unit_test.hpp>

#include "bouncing_ball/bouncing_ball_closed_form.hpp"
#include "bouncing_ball/bouncing_ball_model.hpp"
#include "event_fixtures.hpp"

namespace {

using namespace event_tests;
using D4 = dual::Dual<4>;

bouncing_ball::Exact<D4> exact_ball(double t) {
  return bouncing_ball::exact(D4::variable(bouncing_ball::z0, 0), D4::variable(bouncing_ball::v0, 1),
                              D4::variable(bouncing_ball::gravity, 2),
                              D4::variable(bouncing_ball::restitution, 3), t);
}

Run ball_run(double rtol, double t_end, bool with_sensitivities = true, double dz0 = 0.0,
             double dv0 = 0.0, double dg = 0.0, double dgamma = 0.0,
             esdirk::HybridOptions options = {}, bool analytic = true) {
  bouncing_ball::Model model;
  model.use_analytic_event_jacobians(analytic);
  esdirk::HybridOptions o = options;
  o.integrator.rtol = rtol;
  o.integrator.atol = rtol * 1e-2;
  const esdirk::DenseMatrix seed = identity(4);
  return run(model, o, 0.0, 0, {bouncing_ball::z0 + dz0, bouncing_ball::v0 + dv0}, {},
             {bouncing_ball::gravity + dg, bouncing_ball::restitution + dgamma}, t_end,
             with_sensitivities ? &seed : nullptr);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bouncing_ball_tests)

BOOST_AUTO_TEST_CASE(impact_times_and_states_match_the_closed_form) {
  const double t_end = 6.0;
  const Run r = ball_run(1e-10, t_end, false);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  const auto ex = exact_ball(t_end);
  BOOST_REQUIRE_EQUAL(r.events.size(), ex.impacts.size());
  BOOST_TEST(ex.impacts.size() >= 5u);
  for (std::size_t k = 0; k < ex.impacts.size(); ++k) {
    BOOST_TEST(relative_error(r.events[k].t, ex.impacts[k].v) < 1e-10, "impact " << k << ": " << r.events[k].t << " vs " << ex.impacts[k].v);
    // The location tolerance is met on every event. The default is 4 ulp of the larger end of
    // the root finder's first bracket, which lies in the step that contains t* (a step of
    // ESDIRK436 can reach past 4 from an impact below it: 4 ulp of t* would be half of that).
    double step_end = r.events[k].t;
    for (const auto& [t0, t1] : r.step_spans)
      if (t0 <= r.events[k].t && r.events[k].t <= t1) step_end = std::max(step_end, t1);
    const double ulp = std::nextafter(step_end, 1e300) - step_end;
    BOOST_TEST(r.events[k].bracket <= 4.0 * ulp);
    BOOST_TEST(r.events[k].fired[0] == -1);
  }
  BOOST_TEST(std::abs(r.x[0] - ex.z.v) < 1e-8);
  BOOST_TEST(relative_error(r.x[1], ex.v.v) < 1e-8);
  // Located: also the next impact beyond t_end, found in the last step (kept for a next call).
  BOOST_TEST(r.stats.events >= static_cast<long>(ex.impacts.size()));
  BOOST_TEST(r.stats.event_transitions == static_cast<long>(ex.impacts.size()));
  BOOST_TEST(r.stats.event_reinitializations == static_cast<long>(ex.impacts.size()));
  BOOST_TEST(r.stats.event_root_iterations > 0);
  BOOST_TEST(r.stats.event_grazing_warnings == 0);
}

BOOST_AUTO_TEST_CASE(first_impact_tau_is_the_blogs_value) {
  const Run r = ball_run(1e-10, bouncing_ball::t_end, false);
  BOOST_REQUIRE(esdirk::ok(r.status));
  BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
  BOOST_TEST(std::round(r.events[0].t * 1e5) / 1e5 == 0.99005);  // printed in Schäfer 2021
}

BOOST_AUTO_TEST_CASE(sensitivities_with_jumps_match_the_closed_form) {
  for (double t_end : {bouncing_ball::t_end, 6.0}) {
    const Run r = ball_run(1e-10, t_end);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    const auto ex = exact_ball(t_end);
    for (int j = 0; j < 4; ++j) {
      BOOST_TEST(relative_error(r.Sx(0, j), ex.z.d[static_cast<std::size_t>(j)], 1e-3) < 1e-8,
                 "dz/dtheta_" << j << " at " << t_end << ": " << r.Sx(0, j) << " vs " << ex.z.d[static_cast<std::size_t>(j)]);
      BOOST_TEST(relative_error(r.Sx(1, j), ex.v.d[static_cast<std::size_t>(j)], 1e-3) < 1e-8,
                 "dv/dtheta_" << j << " at " << t_end << ": " << r.Sx(1, j) << " vs " << ex.v.d[static_cast<std::size_t>(j)]);
    }
    // tau = dt*/dtheta at every impact.
    for (std::size_t k = 0; k < ex.impacts.size(); ++k)
      for (int j = 0; j < 4; ++j)
        BOOST_TEST(relative_error(r.events[k].tau[static_cast<std::size_t>(j)],
                                  ex.impacts[k].d[static_cast<std::size_t>(j)], 1e-3) < 1e-8);
  }
  // The blog's 0.84 (implicit event).
  const Run r = ball_run(1e-10, bouncing_ball::t_end);
  BOOST_TEST(std::round(r.Sx(0, 0) * 100) / 100 == 0.84);
}

BOOST_AUTO_TEST_CASE(explicit_event_gives_the_blogs_one) {
  // The event time held fixed (Schäfer 2021's DiscreteCallback): dz(t_end)/dz0 = 1.
  esdirk::HybridOptions o;
  o.event_time_sensitivity = false;
  const Run r = ball_run(1e-10, bouncing_ball::t_end, true, 0, 0, 0, 0, o);
  BOOST_REQUIRE(esdirk::ok(r.status));
  BOOST_TEST(std::abs(r.Sx(0, 0) - 1.0) < 1e-9);
}

BOOST_AUTO_TEST_CASE(sensitivities_match_central_differences_of_whole_runs) {
  const double t_end = 4.0, rtol = 1e-11;
  const Run r = ball_run(rtol, t_end, true, 0, 0, 0, 0, {}, false);  // difference Jacobians of h, phi
  BOOST_REQUIRE(esdirk::ok(r.status));
  const double delta[4] = {1e-4, 1e-4, 1e-4, 1e-5};
  for (int j = 0; j < 4; ++j) {
    double d[4] = {0, 0, 0, 0};
    d[j] = delta[j];
    const Run plus = ball_run(rtol, t_end, false, d[0], d[1], d[2], d[3]);
    const Run minus = ball_run(rtol, t_end, false, -d[0], -d[1], -d[2], -d[3]);
    BOOST_REQUIRE(plus.events.size() == r.events.size() && minus.events.size() == r.events.size());
    for (int i = 0; i < 2; ++i) {
      const double fd = (plus.x[static_cast<std::size_t>(i)] - minus.x[static_cast<std::size_t>(i)]) / (2.0 * delta[j]);
      BOOST_TEST(relative_error(r.Sx(i, j), fd, 1e-2) < 1e-6, "x" << i << " theta" << j << ": " << r.Sx(i, j) << " vs fd " << fd);
    }
  }
}

BOOST_AUTO_TEST_CASE(exact_at_every_tolerance) {
  // Free flight is quadratic in t, which ESDIRK34 and its dense output reproduce exactly: the
  // states, impacts and sensitivities are exact to rounding at any tolerance (loose tolerances
  // mean long steps, each holding a whole arc: the detector must still find every impact).
  const double t_end = 4.0;
  const auto ex = exact_ball(t_end);
  for (double rtol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    const Run r = ball_run(rtol, t_end);
    BOOST_REQUIRE(esdirk::ok(r.status));
    BOOST_REQUIRE_EQUAL(r.events.size(), ex.impacts.size());
    double worst = 0.0;
    for (int j = 0; j < 4; ++j) worst = std::max(worst, relative_error(r.Sx(0, j), ex.z.d[static_cast<std::size_t>(j)], 1e-3));
    BOOST_TEST_MESSAGE("rtol " << rtol << ": worst relative error of dz/dtheta " << worst);
    BOOST_TEST(worst < 1e-11);
  }
}

BOOST_AUTO_TEST_SUITE_END()
