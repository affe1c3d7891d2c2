// StagePredictor::dense_output starts stage 2 from the last step's continuous extension, which
// reaches up to three step lengths beyond that step. Where that start leaves the model's domain,
// gives a non-finite value or diverges, stage 2 starts again, once, from the extrapolation within
// the step (as StagePredictor::stage_extrapolation), before the attempt fails and h is cut; each
// such retry is counted in Statistics::stage_start_fallbacks. The runs below are two of those
// where the start from the extension failed when it was tried as the default (integrating to
// DBL_MAX, Dow's graded meshes with replay_step): with the fallback they succeed as with the
// extrapolation, without it they do not. A replay repeats the fallback: the record keeps the
// extension's start, and the failure and retry depend only on the step's start, h and that
// value.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/trajectory.hpp"
#include "step_record_bits.hpp"

using test_bits::same_record;

namespace {

esdirk::Options with_predictor(esdirk::Options o, esdirk::StagePredictor predictor) {
  o.stage_predictor = predictor;
  return o;
}

const std::vector<double> dow_p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
const std::vector<double> dow_x0(dow::initial_states.begin(), dow::initial_states.end());
std::vector<double> dow_z0() {
  const auto zs = dow::consistent_algebraic_start();
  return {zs.begin(), zs.end()};
}

// x' = -x from 1 integrated to DBL_MAX (the regression test of test_bad_input): the steps grow
// until the extension, extrapolated far beyond the last step, overflows.
struct ToDblMax {
  esdirk::Statistics stats;
  bool ok = false;
  double t = 0.0, x = 0.0;
  std::string message;
};
ToDblMax to_dbl_max(esdirk::StagePredictor predictor) {
  esdirk::FunctionProblem problem(1, 0, 0, [](double, auto x, auto, auto, auto f) {
    f[0] = -x[0];
    return 0;
  });
  esdirk::Integrator solver(problem, with_predictor(esdirk::Options{}, predictor));
  ToDblMax run;
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{1.0}, {}, {})));
  std::vector<double> x(1);
  run.ok = esdirk::ok(solver.integrate_to(std::numeric_limits<double>::max(), x));
  run.message = solver.message();
  run.t = solver.t();
  run.x = x[0];
  run.stats = solver.statistics();
  return run;
}

// Dow on the graded fixed-step mesh t_k = 10 (k/N)^3 (test_newton_recovery), ESDIRK34.
struct Graded {
  bool ok = false;
  std::string message;
  esdirk::Statistics stats;
};
Graded graded_mesh(int n, esdirk::StagePredictor predictor) {
  dow::Model model;
  esdirk::Options options = with_predictor(esdirk::Options{}, predictor);
  options.method = esdirk::Tableau::esdirk34();
  options.rtol = options.atol = 1e-13;
  esdirk::Integrator solver(model, options);
  Graded run;
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, dow_x0, dow_z0(), dow_p)));
  for (int k = 1; k <= n; ++k) {
    const double t = 10.0 * std::pow(static_cast<double>(k) / n, 3);
    if (!esdirk::ok(solver.replay_step(t - solver.t(), t))) {
      run.message = "step " + std::to_string(k) + ": " + solver.message();
      run.stats = solver.statistics();
      return run;
    }
  }
  run.ok = true;
  run.stats = solver.statistics();
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stage_start_fallback_tests)

// Integrating to DBL_MAX: without the fallback the extension's start overflowed (a non-finite f)
// and counted as two callback failures; with it the run ends at DBL_MAX without one, and the
// fallbacks say where the start failed.
BOOST_AUTO_TEST_CASE(a_start_that_overflows_falls_back_instead_of_blaming_the_callback) {
  const ToDblMax dense = to_dbl_max(esdirk::StagePredictor::dense_output);
  const ToDblMax extrapolated = to_dbl_max(esdirk::StagePredictor::stage_extrapolation);
  BOOST_TEST_MESSAGE("to DBL_MAX: fallbacks " << dense.stats.stage_start_fallbacks << ", steps "
                                              << dense.stats.steps << " (extrapolation "
                                              << extrapolated.stats.steps << ")");
  BOOST_TEST(dense.ok, dense.message);
  BOOST_TEST(dense.t == std::numeric_limits<double>::max());
  BOOST_TEST(std::abs(dense.x) < 1e-6);
  BOOST_TEST(dense.stats.callback_failures == 0);
  BOOST_TEST(dense.stats.stage_start_fallbacks > 0);
  // The counter belongs to the dense-output start alone.
  BOOST_TEST(extrapolated.ok, extrapolated.message);
  BOOST_TEST(extrapolated.stats.stage_start_fallbacks == 0);
}

// Dow's graded meshes with step_exactly (no smaller step to fall back on): every step converges
// with the dense-output start, where it fails falling back to the extrapolation.
BOOST_AUTO_TEST_CASE(graded_meshes_take_every_step_with_fallbacks) {
  long fallbacks = 0;
  for (int n : {200, 400, 800}) {
    const Graded run = graded_mesh(n, esdirk::StagePredictor::dense_output);
    BOOST_TEST_MESSAGE("graded mesh N = " << n << ": fallbacks " << run.stats.stage_start_fallbacks
                                          << ", Newton failures " << run.stats.newton_failures);
    BOOST_TEST_INFO("N = " << n << ": " << run.message);
    BOOST_TEST(run.ok);
    fallbacks += run.stats.stage_start_fallbacks;
  }
  BOOST_TEST(fallbacks > 0);
}

// A replay repeats the fallback: Dow's graded mesh N = 200 recorded, and every step whose
// attempt fell back resumed from its record (which keeps the extension's start) and replayed:
// the same bits, and the replay falls back too.
BOOST_AUTO_TEST_CASE(a_step_that_fell_back_replays_bit_for_bit) {
  dow::Model model;
  const int n = 200;
  esdirk::Options o = with_predictor(esdirk::Options{}, esdirk::StagePredictor::dense_output);
  o.method = esdirk::Tableau::esdirk34();
  o.rtol = o.atol = 1e-13;
  esdirk::Integrator solver(model, o);
  esdirk::Trajectory trajectory;
  solver.add_listener(trajectory);
  std::vector<long> fallbacks_at;  // the counter when each step was accepted
  solver.set_step_observer(
      [&](const esdirk::StepView&) { fallbacks_at.push_back(solver.statistics().stage_start_fallbacks); });
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, dow_x0, dow_z0(), dow_p)));
  for (int k = 1; k <= n; ++k) {
    const double t = 10.0 * std::pow(static_cast<double>(k) / n, 3);
    BOOST_REQUIRE(esdirk::ok(solver.replay_step(t - solver.t(), t)));
  }
  solver.remove_listener(trajectory);
  BOOST_REQUIRE(fallbacks_at.size() == static_cast<std::size_t>(n));
  BOOST_REQUIRE(trajectory.size() == n);
  long replayed_fallbacks = 0;
  int replays = 0;
  for (int k = 0; k < n; ++k) {
    const long before = k == 0 ? 0 : fallbacks_at[static_cast<std::size_t>(k - 1)];
    if (fallbacks_at[static_cast<std::size_t>(k)] == before) continue;
    BOOST_TEST_INFO("step " << k);
    BOOST_TEST(!trajectory[k].stage_start.empty());  // it started from the step before
    esdirk::Integrator replay(model, o);
    esdirk::Trajectory replayed;
    replay.add_listener(replayed);
    replay.resume(trajectory[k], dow_p);
    BOOST_REQUIRE(esdirk::ok(trajectory.replay(replay, k, 1)));
    replay.remove_listener(replayed);
    BOOST_REQUIRE(replayed.size() == 1);
    BOOST_TEST(same_record(replayed[0], trajectory[k]));
    BOOST_TEST(replay.statistics().stage_start_fallbacks == fallbacks_at[static_cast<std::size_t>(k)] - before);
    replayed_fallbacks += replay.statistics().stage_start_fallbacks;
    ++replays;
  }
  BOOST_TEST_MESSAGE("graded mesh N = " << n << ": steps that fell back " << replays << ", fallbacks in their replays "
                                        << replayed_fallbacks);
  BOOST_TEST(replays > 0);
}

BOOST_AUTO_TEST_SUITE_END()
