// The stage Newton recovers before the step is cut: on the graded fixed-step meshes
// t_k = 10 (k/N)^3 over Dow's initial transient the Jacobian at t_n is a poor model of the
// first stages (the first correction sends [H+] negative), and step_exactly has no smaller
// step to fall back on. With a Jacobian refresh at the stage iterate and damping where the
// model reports leaving its domain, every step converges and the error falls at order 3.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "reference_problems.hpp"

namespace {

struct GradedRun {
  bool ok = false;
  std::string message;
  double error = 0.0;  // largest relative error of the differential states at 10 h
  esdirk::Statistics stats;
};

GradedRun graded_mesh(int n, const esdirk::Tableau& method) {
  dow::Model model;
  esdirk::Options options;
  options.method = method;
  options.rtol = options.atol = 1e-13;  // Newton errors far below the discretization error
  esdirk::Integrator solver(model, options);
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  const auto zs = dow::consistent_algebraic_start();
  GradedRun run;
  if (!esdirk::ok(solver.initialize(0.0, {dow::initial_states.begin(), dow::initial_states.end()},
                                    {zs.begin(), zs.end()}, p)))
    return run;
  for (int k = 1; k <= n; ++k) {
    const double t = 10.0 * std::pow(static_cast<double>(k) / n, 3);
    const esdirk::Status status = solver.replay_step(t - solver.t(), t);
    if (!esdirk::ok(status)) {
      run.message = "step " + std::to_string(k) + ": " + solver.message();
      return run;
    }
  }
  for (int i = 0; i < 6; ++i) {
    const double ref = dow::reference_at_10h[static_cast<std::size_t>(i)];
    run.error = std::max(run.error, std::abs(solver.x()[i] - ref) / std::abs(ref));
  }
  run.stats = solver.statistics();
  run.ok = true;
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(newton_recovery)

// ESDIRK34 at order 3 (the requirement) and ESDIRK436 at order 4.
BOOST_AUTO_TEST_CASE(step_exactly_takes_dow_graded_meshes_at_full_order) {
  const struct {
    esdirk::Tableau method;
    double expected;
  } cases[] = {{esdirk::Tableau::esdirk34(), 3.0}, {esdirk::Tableau::esdirk436(), 4.0}};
  for (const auto& c : cases) {
    std::vector<double> errors;
    for (int n : {200, 400, 800}) {
      const GradedRun run = graded_mesh(n, c.method);
      BOOST_TEST_INFO(c.method.name << " N = " << n << ": " << run.message);
      BOOST_REQUIRE(run.ok);
      BOOST_TEST_MESSAGE(c.method.name << " graded mesh N = " << n << ": error " << run.error
                                       << ", Newton iterations " << run.stats.newton_iterations
                                       << ", Jacobian refreshes " << run.stats.jacobian_refreshes);
      errors.push_back(run.error);
    }
    for (std::size_t k = 1; k < errors.size(); ++k) {
      const double order = std::log2(errors[k - 1] / errors[k]);
      BOOST_TEST_MESSAGE(c.method.name << " graded mesh order " << order);
      BOOST_TEST(std::abs(order - c.expected) <= 0.1);
    }
  }
}

// The recovery on adaptive runs: on Dow every Newton failure of the paper's behaviour
// (max_jacobian_refreshes = 0 and no damping: cut h instead) becomes a refresh, and every run,
// with or without recovery and with either predictor, completes within the accuracy band of its
// reference solution without a spiral of step cuts. Each run is checked on its own against the
// reference solution, not against another run: a change of the Newton stopping points moves
// every trajectory a little, and which of two correct runs needs fewer iterations or lands
// nearer the reference is then chance (the dense-output predictor against previous_stage on Dow,
// the dense-output run against the non-recovering one on Robertson DAE).
BOOST_AUTO_TEST_CASE(adaptive_runs_recover_instead_of_cutting_h) {
  const double rtol = 1e-6;
  for (auto& c : reference_problems::all()) {
    const auto base = c.options;
    const auto run = [&](int refreshes, int dampings, esdirk::StagePredictor predictor) {
      c.options = [&](double r) {
        esdirk::Options o = base(r);
        o.max_jacobian_refreshes = refreshes;
        o.max_newton_dampings = dampings;
        o.stage_predictor = predictor;
        return o;
      };
      return reference_problems::solve(c, rtol);
    };
    // The largest share of rejected attempts (error test and Newton) among the accepted steps:
    // a spiral of step cuts takes several per accepted step. Without recovery Dow's Newton
    // failures cut h 45 times in 227 accepted steps at rtol 1e-6; with it, the runs reject at
    // most 1.5 % of their steps (Van der Pol, by the error test).
    const struct {
      const char* name;
      reference_problems::Outcome outcome;
      double max_rejected_share;
    } runs[] = {
        {"cut h (no recovery)", run(0, 0, esdirk::StagePredictor::previous_stage), 0.5},
        {"recovering", run(4, 10, esdirk::StagePredictor::previous_stage), 0.1},
        {"recovering, dense-output predictor", run(4, 10, esdirk::StagePredictor::dense_output), 0.1},
    };
    for (const auto& r : runs) {
      const esdirk::Statistics& s = r.outcome.stats;
      BOOST_TEST_MESSAGE(c.name << ", " << r.name << ": error " << r.outcome.error / rtol
                                << " rtol, steps " << s.steps << " (accepted " << s.accepted_steps
                                << ", error-test rejections " << s.rejected_steps
                                << ", Newton failures " << s.newton_failures << ", refreshes "
                                << s.jacobian_refreshes << "), Newton iterations " << s.newton_iterations);
      BOOST_TEST_INFO(c.name << ", " << r.name);
      BOOST_REQUIRE(esdirk::ok(r.outcome.status));
      // The band of the reference problems' accuracy table (doc/integrator-guide.md): the
      // achieved relative error against the published reference solution within [0.1, 10] x rtol.
      BOOST_TEST(r.outcome.error <= 10.0 * rtol);
      BOOST_TEST(r.outcome.error >= 0.1 * rtol);
      BOOST_TEST(static_cast<double>(s.steps - s.accepted_steps) <=
                 r.max_rejected_share * static_cast<double>(s.accepted_steps));
    }
    const esdirk::Statistics& cut = runs[0].outcome.stats;
    const esdirk::Statistics& recovering = runs[1].outcome.stats;
    BOOST_TEST_INFO(c.name);
    BOOST_TEST(recovering.newton_failures <= cut.newton_failures);
    if (c.name.find("Dow") != std::string::npos) {  // where the recovery acts
      BOOST_TEST(cut.newton_failures > 0);
      BOOST_TEST(recovering.newton_failures == 0);
      BOOST_TEST(recovering.jacobian_refreshes > 0);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
