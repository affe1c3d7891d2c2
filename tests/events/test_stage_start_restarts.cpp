// StagePredictor::dense_output in the hybrid solver: after every
// restart (the start and each event) there is no step before, so the first step of each mode
// carries no stage-2 start (StepView::stage_start) and extrapolates; the later steps carry
// theirs, and a replay resumed at any step of a mode repeats the rest of the mode to the bit
// (the hybrid adjoint's checkpoints rely on it: test_adjoint_checkpointing.cpp).

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <vector>

#include "adjoint_fixtures.hpp"
#include "em_oscillator/em_oscillator_model.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "esdirk/trajectory.hpp"
#include "step_record_bits.hpp"

using test_bits::same_record;

BOOST_AUTO_TEST_SUITE(stage_start_restart_tests)

BOOST_AUTO_TEST_CASE(each_mode_starts_without_a_stage_start_and_replays_bit_for_bit_within_the_mode) {
  em_oscillator::Model model;
  esdirk::HybridOptions o;
  o.integrator.rtol = 1e-8;
  o.integrator.atol = 1e-10;
  o.integrator.stage_predictor = esdirk::StagePredictor::dense_output;
  esdirk::HybridSolver solver(model, o);
  esdirk::Trajectory trajectory;
  solver.integrator().add_listener(trajectory);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, em_oscillator::loading, std::vector<double>{0.0, 0.0, 0.0},
                                             std::vector<double>{0.0}, em_oscillator::nominal(),
                                             std::vector<double>(4, 0.0))));
  std::vector<double> x(3), z(1);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(em_oscillator::t_end, x, z)));
  solver.integrator().remove_listener(trajectory);
  const int steps = trajectory.size();
  BOOST_REQUIRE(solver.event_count() > 5);
  // A mode's first step follows a restart: its index is 0 (the integrator numbers steps from
  // its last start) and it has no stage-2 start; the others start stage 2 from their
  // predecessor.
  long restarts = 0, with_start = 0;
  int last_mode_first = 0;
  for (int n = 0; n < steps; ++n) {
    if (trajectory[n].index == 0) {
      ++restarts;
      last_mode_first = n;
      BOOST_TEST_INFO("step " << n);
      BOOST_TEST(trajectory[n].stage_start.empty());
    } else if (!trajectory[n].stage_start.empty()) {
      BOOST_TEST(trajectory[n].stage_start.size() == 4u);
      ++with_start;
    }
  }
  BOOST_TEST(restarts == solver.event_count() + 1);
  BOOST_TEST(with_start > (steps - restarts) / 2);
  // The last mode: resumed at each of its steps (its first without a stage-2 start), a second
  // integrator on the mode's problem and parameters replays the rest to the bit.
  esdirk::Integrator& recording = solver.integrator();
  BOOST_REQUIRE(steps - last_mode_first > 3);
  for (int first = last_mode_first; first < steps; ++first) {
    esdirk::Integrator replayer(recording.problem(), recording.options());
    replayer.jacobians().use_increments_of(recording.jacobians());
    esdirk::Trajectory replayed;
    replayer.add_listener(replayed);
    replayer.resume(trajectory[first], recording.parameters());
    BOOST_REQUIRE(esdirk::ok(trajectory.replay(replayer, first)));
    replayer.remove_listener(replayed);
    int differences = 0;
    for (int n = first; n < steps; ++n)
      if (!same_record(replayed[n - first], trajectory[n])) ++differences;
    BOOST_TEST_INFO("resumed at step " << first << " (the mode starts at " << last_mode_first << ", " << steps
                                       << " steps)");
    BOOST_TEST(differences == 0);
  }
}

// The hybrid adjoint of a dense_output run: the gradient equals the forward sensitivities as
// tightly as with stage_extrapolation (1e-12 relative, test_adjoint.cpp), and under a memory
// budget (each block replayed from its checkpoint, which carries the block's stage-2 start) it
// is the keep-everything gradient to the bit; a checkpoint holds 3 (nx + nz) doubles.
BOOST_AUTO_TEST_CASE(the_hybrid_adjoint_of_a_dense_output_run_is_exact_and_checkpoints_replay_it) {
  const auto run = [](esdirk::HybridAdjointOptions adjoint, bool forward) {
    em_oscillator::Model model;
    esdirk::HybridOptions o;
    o.integrator.rtol = 1e-8;
    o.integrator.atol = 1e-10;
    o.integrator.stage_predictor = esdirk::StagePredictor::dense_output;
    esdirk::DenseMatrix w(4, 3);  // G = q(10), u(10), z(10)
    w(2, 0) = 1.0;
    w(0, 1) = 1.0;
    w(3, 2) = 1.0;
    return event_tests::compare_adjoint(model, o, 0.0, em_oscillator::loading, {0.0, 0.0, 0.0}, {0.0},
                                        em_oscillator::nominal(), {em_oscillator::t_end}, {w},
                                        std::vector<double>(4, 0.0), adjoint, forward);
  };
  const event_tests::AdjointComparison exact = run({}, true);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(exact.status), exact.message);
  BOOST_TEST(exact.events > 5);
  BOOST_TEST_MESSAGE("EM, dense_output: adjoint vs forward " << exact.worst_relative_error());
  BOOST_TEST(exact.worst_relative_error() < 1e-12);
  const event_tests::AdjointComparison all = run({}, false);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(all.status), all.message);
  const int nx = 3, nz = 1, stages = 6;  // ESDIRK436 at rtol 1e-8
  const long record = 5 + stages * (2L * nx + 2L * nz + 1) + (nx + nz);
  const long event_data = all.report.peak_stored_doubles - all.steps * record;
  for (long k : {1L, 3L, 16L}) {
    esdirk::HybridAdjointOptions budget;
    budget.memory_budget = k * record;
    const event_tests::AdjointComparison c = run(budget, false);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(c.status), c.message);
    BOOST_TEST_INFO("budget of " << k << " records");
    BOOST_TEST(c.steps == all.steps);
    BOOST_TEST(c.report.stored_records == std::min<long>(k, all.steps));
    BOOST_TEST(c.report.recomputed_steps > 0);
    bool same = true;
    for (int j = 0; j < all.adjoint.cols(); ++j)
      for (int i = 0; i < all.adjoint.rows(); ++i) same = same && c.adjoint(i, j) == all.adjoint(i, j);
    BOOST_TEST(same);
    BOOST_TEST(c.report.peak_stored_doubles ==
               c.report.stored_records * record + 3L * all.steps + c.report.checkpoints * 3 * (nx + nz) + event_data);
  }
}

BOOST_AUTO_TEST_SUITE_END()
