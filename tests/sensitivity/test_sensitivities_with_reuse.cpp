// Forward sensitivities under FactorizationPolicy::automatic (the default; doc/integrator-
// theory.md section 8a). On the 2-D Brusselator grid a states-only run keeps J and the LU from
// step to step; with ForwardSensitivity attached every step forms J at t_n and its own LU, so
// the staggered stage solves use the step's exact iteration matrix. Reuse changes how Newton
// reaches the stage values, not the discrete scheme: the sensitivities equal central
// differences of that scheme on the same steps, whose runs do reuse (states only) and solve the
// stage equations far below the sensitivity run's tolerance.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "brusselator_mol/brusselator_2d_model.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"

namespace {

constexpr int side = 10;  // n = 200: the automatic policy reuses on this grid (states only)
constexpr double t_end = 1.0;

struct FixedSteps {
  std::vector<double> y;
  esdirk::Statistics stats;
};

// x(t_end) on the given steps, states only, with the stage equations solved to ~1e-12.
FixedSteps on_steps(const std::vector<double>& steps, const std::vector<double>& p) {
  brusselator_mol::Model2d model(side);
  model.set_jacobian_pattern(model.pattern(), esdirk::LinearSolverKind::sparse);
  esdirk::Options options;
  options.rtol = options.atol = 1e-12;  // the Newton test's weights (the steps are given)
  esdirk::Integrator integrator(model, options);
  FixedSteps run{model.initial_state(), {}};
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, run.y, {}, p)));
  for (double h : steps) BOOST_REQUIRE(esdirk::ok(integrator.step_exactly(h)));
  std::copy(integrator.x().begin(), integrator.x().end(), run.y.begin());
  run.stats = integrator.statistics();
  return run;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sensitivities_with_the_default_policy_equal_central_differences) {
  brusselator_mol::Model2d model(side);
  model.set_jacobian_pattern(model.pattern(), esdirk::LinearSolverKind::sparse);
  esdirk::Options options;  // the defaults: FactorizationPolicy::automatic
  options.rtol = options.atol = 1e-6;
  esdirk::Integrator integrator(model, options);
  std::vector<double> steps;
  integrator.set_step_observer([&steps](const esdirk::StepView& step) { steps.push_back(step.h); });
  const auto p = model.nominal_parameters();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
  integrator.set_stop_time(t_end);  // the last recorded step ends at t_end (no dense output)
  esdirk::ForwardSensitivity sensitivities(integrator, {});
  const int n = model.size();
  esdirk::DenseMatrix seed(n + 3, 3), S(n, 3);
  for (int l = 0; l < 3; ++l) seed(n + l, l) = p[static_cast<std::size_t>(l)];
  std::vector<double> y(static_cast<std::size_t>(n));
  BOOST_REQUIRE(esdirk::ok(sensitivities.initialize(seed.cref())));
  BOOST_REQUIRE(esdirk::ok(sensitivities.integrate_to(t_end, y, {}, S.ref()).status));
  // Exact stage solves: J at t_n and a new LU every step, nothing kept.
  const esdirk::Statistics& s = integrator.statistics();
  BOOST_TEST(s.jacobian_reuses == 0);
  BOOST_TEST(s.lu_reuses == 0);
  BOOST_TEST(s.lu_factorizations >= s.steps);
  BOOST_REQUIRE(steps.size() > 10);

  for (int l = 0; l < 3; ++l) {
    std::vector<double> plus = p, minus = p;
    const double dp = 1e-4 * p[static_cast<std::size_t>(l)];
    plus[static_cast<std::size_t>(l)] += dp;
    minus[static_cast<std::size_t>(l)] -= dp;
    const FixedSteps a = on_steps(steps, plus), b = on_steps(steps, minus);
    // The difference runs are states only: they keep J and the LU.
    BOOST_TEST(a.stats.lu_reuses > 0);
    double worst = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
      const double difference =
          (a.y[static_cast<std::size_t>(i)] - b.y[static_cast<std::size_t>(i)]) / (2.0 * dp) *
          p[static_cast<std::size_t>(l)];  // scaled as the seed
      worst = std::max(worst, std::abs(S(i, l) - difference));
      scale = std::max(scale, std::abs(difference));
    }
    BOOST_TEST_INFO("parameter " << l);
    BOOST_TEST(worst / scale < 1e-6);
  }
}

// A module that needs J at t_n of every step asks for it only while it is attached. It was a
// flag the integrator set once and never cleared: after the sensitivities (or the adjoint) were
// destroyed, a states-only continuation on the 2-D grid still formed J and factored every step.
BOOST_AUTO_TEST_CASE(the_integrator_kept_forming_j_every_step_after_the_sensitivities_were_removed) {
  brusselator_mol::Model2d model(side);
  model.set_jacobian_pattern(model.pattern(), esdirk::LinearSolverKind::sparse);
  esdirk::Options options;  // the defaults: FactorizationPolicy::automatic
  options.rtol = options.atol = 1e-6;
  const auto p = model.nominal_parameters();
  const int n = model.size();
  std::vector<double> y(static_cast<std::size_t>(n));

  // Each module in turn: attached on [0, 1] (every step forms J), removed on [1, 2] (J kept).
  for (const bool adjoint : {false, true}) {
    BOOST_TEST_INFO((adjoint ? "Adjoint" : "ForwardSensitivity"));
    esdirk::Integrator integrator(model, options);
    {
      std::unique_ptr<esdirk::Adjoint> recording;
      std::unique_ptr<esdirk::ForwardSensitivity> sensitivities;
      if (adjoint) recording = std::make_unique<esdirk::Adjoint>(integrator);
      BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
      if (!adjoint) {
        sensitivities = std::make_unique<esdirk::ForwardSensitivity>(integrator, esdirk::SensitivityOptions{});
        esdirk::DenseMatrix seed(n + 3, 1);
        seed(n, 0) = 1.0;
        BOOST_REQUIRE(esdirk::ok(sensitivities->initialize(seed.cref())));
      }
      BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(t_end, y).status));
      BOOST_TEST(integrator.statistics().jacobian_reuses == 0);
      BOOST_TEST(integrator.statistics().lu_reuses == 0);
    }
    const esdirk::Statistics attached = integrator.statistics();
    BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(2.0 * t_end, y).status));
    const esdirk::Statistics& s = integrator.statistics();
    BOOST_TEST_INFO(s.steps - attached.steps << " steps without the module, "
                                             << s.lu_factorizations - attached.lu_factorizations << " LUs");
    BOOST_TEST(s.jacobian_reuses > 0);
    BOOST_TEST(s.lu_reuses > 0);
    BOOST_TEST(s.lu_factorizations - attached.lu_factorizations < (s.steps - attached.steps) / 2);
  }
}
