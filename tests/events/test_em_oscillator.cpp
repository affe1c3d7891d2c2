// Serban & Recuero 2019, section 5.2: the EM hysteresis oscillator, a hybrid DAE with memory
// (examples/em_oscillator). G = int u^2 dt and its forward-sensitivity gradient against central
// differences of whole runs (every reversal re-located in each), dG/dbeta = 0, and z and its
// sensitivity w continuous across every reversal (sigma(u*) = z*, erratum E10). The memory's
// latched sensitivity is the total derivative (E7); in EM u' = z' = 0 at the reversals, so the
// paper's form agrees, and test_memory.cpp checks the case where it does not.

#include <boost/test/unit_test.hpp>

#include "em_oscillator/em_oscillator_model.hpp"
#include "event_fixtures.hpp"

namespace {

using namespace event_tests;

Run em_run(const std::vector<double>& p, double rtol, bool sensitivities) {
  em_oscillator::Model model;
  esdirk::DenseMatrix seed(7, 4);
  for (int k = 0; k < 4; ++k) seed(3 + k, k) = 1.0;
  return run(model, tight(rtol), 0.0, em_oscillator::loading, {0.0, 0.0, 0.0}, {0.0}, p,
             em_oscillator::t_end, sensitivities ? &seed : nullptr, {0.0, 0.0, 0.0, 0.0});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(em_oscillator_tests)

BOOST_AUTO_TEST_CASE(law_is_continuous_at_the_memory_point_and_its_derivatives_are_right) {
  // sigma(u*) = z*, sigma_u + sigma_u* = 0, sigma_z* = 1 and sigma_p = 0 at u = u* (the paper's §5.2),
  // and every partial against central differences of the law, at beta = 0 and beta != 0.
  for (double be : {0.0, 3.0}) {
    const std::vector<double> p{em_oscillator::k_a, em_oscillator::k_b, em_oscillator::alpha, be};
    for (int xi : {1, -1}) {
      const double us = 0.004, zs = 0.3;
      const em_oscillator::Law at = em_oscillator::law(xi, us, us, zs, p.data());
      BOOST_TEST(std::abs(at.sigma - zs) < 1e-14);
      BOOST_TEST(std::abs(at.sigma_u + at.sigma_ustar) < 1e-9 * std::abs(at.sigma_u));
      BOOST_TEST(std::abs(at.sigma_zstar - 1.0) < 1e-15);
      for (double d : at.sigma_p) BOOST_TEST(std::abs(d) < 1e-12);
      const double u = us - xi * 0.003;
      const em_oscillator::Law s = em_oscillator::law(xi, u, us, zs, p.data());
      auto fd = [&](auto&& f, double v) {
        const double h = 1e-6 * std::max(std::abs(v), 1e-3);
        return (f(v + h) - f(v - h)) / (2.0 * h);
      };
      BOOST_TEST(relative_error(
                     s.sigma_u,
                     fd([&](double v) { return em_oscillator::law(xi, v, us, zs, p.data()).sigma; },
                        u)) < 1e-7);
      BOOST_TEST(relative_error(
                     s.sigma_ustar,
                     fd([&](double v) { return em_oscillator::law(xi, u, v, zs, p.data()).sigma; },
                        us)) < 1e-7);
      BOOST_TEST(relative_error(
                     s.sigma_zstar,
                     fd([&](double v) { return em_oscillator::law(xi, u, us, v, p.data()).sigma; },
                        zs)) < 1e-7);
      for (int k = 0; k < 4; ++k) {
        auto sk = [&](double v) {
          std::vector<double> q = p;
          q[static_cast<std::size_t>(k)] = v;
          return em_oscillator::law(xi, u, us, zs, q.data()).sigma;
        };
        const double ref = fd(sk, p[static_cast<std::size_t>(k)]);
        BOOST_TEST(std::abs(s.sigma_p[k] - ref) < 1e-7 * std::max(std::abs(ref), 1e-3),
                   "k = " << k);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(g_rounds_to_the_papers_value_and_is_stable_under_refinement) {
  const Run r = em_run(em_oscillator::nominal(), 1e-10, false);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(std::round(r.x[2] * 1e5) / 1e5 == 0.04994);
  const Run fine = em_run(em_oscillator::nominal(), 1e-12, false);
  BOOST_REQUIRE(esdirk::ok(fine.status));
  BOOST_TEST(relative_error(r.x[2], fine.x[2]) < 1e-7);
  BOOST_REQUIRE_EQUAL(r.events.size(), fine.events.size());
  for (std::size_t i = 0; i < r.events.size(); ++i)
    BOOST_TEST(std::abs(r.events[i].t - fine.events[i].t) < 1e-7);
}

BOOST_AUTO_TEST_CASE(gradient_agrees_with_central_differences_of_whole_runs) {
  const std::vector<double> p = em_oscillator::nominal();
  const Run r = em_run(p, 1e-11, true);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  for (int k = 0; k < 3; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    const double step = 1e-4 * p[kk];
    std::vector<double> plus = p, minus = p;
    plus[kk] += step;
    minus[kk] -= step;
    const Run rp = em_run(plus, 1e-12, false), rm = em_run(minus, 1e-12, false);
    BOOST_REQUIRE(esdirk::ok(rp.status) && esdirk::ok(rm.status));
    BOOST_REQUIRE_EQUAL(rp.events.size(), r.events.size());  // the same reversals, moved
    const double fd = (rp.x[2] - rm.x[2]) / (2.0 * step);
    BOOST_TEST(relative_error(r.Sx(2, k), fd) < 1e-6,
               "k = " << k << ": FSA " << r.Sx(2, k) << ", FD " << fd);
  }
  // beta = 0: sigma_beta vanishes identically, and so does the whole gradient component.
  BOOST_TEST(std::abs(r.Sx(2, 3)) < 1e-10);
}

BOOST_AUTO_TEST_CASE(z_and_its_sensitivity_are_continuous_at_every_reversal) {
  const Run r = em_run(em_oscillator::nominal(), 1e-10, true);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events.size() >= 10u);
  for (const esdirk::EventRecord& e : r.events) {
    BOOST_TEST(e.mode_after == -e.mode_before);
    BOOST_TEST(std::abs(e.x_minus[1]) < 1e-12);  // v = 0 at a reversal
    BOOST_TEST(std::abs(e.z_plus[0] - e.z_minus[0]) < 1e-10, "t = " << e.t);
    for (int k = 0; k < 4; ++k) {
      BOOST_TEST(std::abs(e.sz_plus(0, k) - e.sz_minus(0, k)) < 1e-10,
                 "t = " << e.t << ", k = " << k);
      for (int i = 0; i < 3; ++i) BOOST_TEST(std::abs(e.sx_plus(i, k) - e.sx_minus(i, k)) < 1e-10);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
