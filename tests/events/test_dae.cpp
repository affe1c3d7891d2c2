// An index-1 DAE whose algebraic state jumps at the event (examples/tank_switch): event time,
// x, z and their sensitivities to (x0, a, b, c) against the closed form and against central
// differences of whole runs; the event function depends on z.

#include <boost/test/unit_test.hpp>

#include "event_fixtures.hpp"
#include "tank_switch/tank_switch_model.hpp"

namespace {

using namespace event_tests;
using D4 = dual::Dual<4>;

Run tank_run(double rtol, double dx0 = 0, double da = 0, double db = 0, double dc = 0,
             bool sensitivities = true) {
  tank_switch::Model model;
  const esdirk::DenseMatrix seed = identity(4);
  esdirk::HybridOptions o = tight(rtol);
  o.directions = {esdirk::EventDirection::falling};
  return run(model, o, 0.0, 0, {tank_switch::x0 + dx0}, {0.0},
             {tank_switch::a + da, tank_switch::b + db, tank_switch::c + dc}, tank_switch::t_end,
             sensitivities ? &seed : nullptr);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dae_tests)

BOOST_AUTO_TEST_CASE(switch_with_an_algebraic_jump_matches_the_closed_form) {
  const auto ex = tank_switch::exact(D4::variable(tank_switch::x0, 0), D4::variable(tank_switch::a, 1),
                                     D4::variable(tank_switch::b, 2), D4::variable(tank_switch::c, 3),
                                     tank_switch::t_end);
  const Run r = tank_run(1e-10);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
  const esdirk::EventRecord& e = r.events[0];
  BOOST_TEST(relative_error(e.t, ex.t1.v) < 1e-8);
  BOOST_TEST(std::abs(e.z_minus[0] - tank_switch::c) < 1e-9);  // z jumps from c ...
  const double x1 = tank_switch::c / tank_switch::a;
  BOOST_TEST(std::abs(e.z_plus[0] - tank_switch::b * x1 * x1) < 1e-9);  // ... to b x1^2
  BOOST_TEST(relative_error(r.x[0], ex.x.v) < 1e-8);
  BOOST_TEST(relative_error(r.z[0], ex.z.v) < 1e-8);
  for (int j = 0; j < 4; ++j) {
    BOOST_TEST(relative_error(e.tau[static_cast<std::size_t>(j)], ex.t1.d[static_cast<std::size_t>(j)], 1e-3) < 1e-7);
    BOOST_TEST(relative_error(r.Sx(0, j), ex.x.d[static_cast<std::size_t>(j)], 1e-3) < 1e-7,
               "dx/dtheta_" << j << ": " << r.Sx(0, j) << " vs " << ex.x.d[static_cast<std::size_t>(j)]);
    BOOST_TEST(relative_error(r.Sz(0, j), ex.z.d[static_cast<std::size_t>(j)], 1e-3) < 1e-7,
               "dz/dtheta_" << j << ": " << r.Sz(0, j) << " vs " << ex.z.d[static_cast<std::size_t>(j)]);
  }
}

BOOST_AUTO_TEST_CASE(sensitivities_match_central_differences_of_whole_runs) {
  const double rtol = 1e-11, d = 1e-5;
  const Run r = tank_run(rtol);
  BOOST_REQUIRE(esdirk::ok(r.status));
  for (int j = 0; j < 4; ++j) {
    double dd[4] = {0, 0, 0, 0};
    dd[j] = d;
    const Run plus = tank_run(rtol, dd[0], dd[1], dd[2], dd[3], false);
    const Run minus = tank_run(rtol, -dd[0], -dd[1], -dd[2], -dd[3], false);
    BOOST_REQUIRE(plus.events.size() == 1u && minus.events.size() == 1u);
    const double fx = (plus.x[0] - minus.x[0]) / (2 * d), fz = (plus.z[0] - minus.z[0]) / (2 * d);
    BOOST_TEST(relative_error(r.Sx(0, j), fx, 1e-3) < 1e-6, "x, theta " << j << ": " << r.Sx(0, j) << " vs " << fx);
    BOOST_TEST(relative_error(r.Sz(0, j), fz, 1e-3) < 1e-6, "z, theta " << j << ": " << r.Sz(0, j) << " vs " << fz);
  }
}

BOOST_AUTO_TEST_SUITE_END()
