// Replays under StagePredictor::dense_output. A step's stage 2 starts from the last
// step's continuous extension, which an integrator resumed at a checkpoint does not have: the
// step carries that starting value (StepView::stage_start, StepRecord::stage_start) and
// Integrator::resume hands it to the first step after it. A recorded run must then replay bit
// for bit (states, stage values and derivatives, and the starting values themselves) from every
// recorded step; without the starting value it does not; after initialize() or a restart there
// is no step before and the step carries none.

#include <boost/test/unit_test.hpp>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/trajectory.hpp"
#include "step_record_bits.hpp"
#include "reference_problems.hpp"

using test_bits::same_bits;
using test_bits::same_record;

namespace {

// Records a run of `problem` over [0, t_end] (t_end a stop time).
esdirk::Trajectory record(esdirk::Problem& problem, const esdirk::Options& options, const std::vector<double>& x0,
                          const std::vector<double>& z0, const std::vector<double>& p, double t_end) {
  esdirk::Trajectory trajectory;
  esdirk::Integrator solver(problem, options);
  solver.add_listener(trajectory);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, z0, p)));
  solver.set_stop_time(t_end);
  std::vector<double> x(x0.size()), z(z0.size());
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(t_end, x, z)));
  solver.remove_listener(trajectory);
  return trajectory;
}

// Resumes a new integrator at recorded step `first` (with or without its stage_start) and
// replays the rest; returns how many replayed steps differ from the records in any bit.
int replay_differences(esdirk::Problem& problem, const esdirk::Options& options, const esdirk::Trajectory& recorded,
                       const std::vector<double>& p, int first, bool hand_stage_start = true) {
  esdirk::Integrator solver(problem, options);
  esdirk::Trajectory replayed;
  solver.add_listener(replayed);
  const esdirk::StepRecord& r = recorded[first];
  const auto column = [](const esdirk::DenseMatrix& m) {
    return esdirk::ConstVector(m.column(0), static_cast<std::size_t>(m.rows()));
  };
  if (hand_stage_start)
    solver.resume(r, p);
  else
    solver.resume(r.t, column(r.X), column(r.Z), column(r.F), column(r.G), p, r.index, r.h >= 0.0 ? 1.0 : -1.0);
  BOOST_REQUIRE(esdirk::ok(recorded.replay(solver, first)));
  solver.remove_listener(replayed);
  int differences = 0;
  for (int n = first; n < recorded.size(); ++n)
    if (!same_record(replayed[n - first], recorded[n])) ++differences;
  return differences;
}

// Dow at rtol 1e-6 with the dense-output predictor, recorded over [0, 2] h.
struct DowRun {
  dow::Model model;
  esdirk::Options options = dense_output(dow::benchmark_options(1e-6));
  std::vector<double> p{dow::nominal_parameters.begin(), dow::nominal_parameters.end()};
  esdirk::Trajectory trajectory = record_dow();

  static esdirk::Options dense_output(esdirk::Options o) {
    o.stage_predictor = esdirk::StagePredictor::dense_output;
    return o;
  }
  esdirk::Trajectory record_dow() {
    const auto zs = dow::consistent_algebraic_start();
    const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
    const std::vector<double> z0(zs.begin(), zs.end());
    return record(model, options, x0, z0, p, 2.0);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(stage_start_replay_tests)

// Dow (nx = 6, nz = 4), ESDIRK436 at rtol 1e-6: a replay from every recorded step repeats every
// later step to the bit, stage values and starting values included.
BOOST_FIXTURE_TEST_CASE(a_dense_output_run_replays_bit_for_bit_from_every_recorded_step, DowRun) {
  const int steps = trajectory.size();
  BOOST_REQUIRE(steps > 20);
  // The first step has no step before it; every later one here starts stage 2 from its
  // predecessor (h never grows beyond the extension's reach on Dow).
  BOOST_TEST(trajectory[0].stage_start.empty());
  for (int n = 1; n < steps; ++n) BOOST_TEST(trajectory[n].stage_start.size() == 10u);
  for (int first = 0; first < steps; ++first) {
    BOOST_TEST_INFO("resumed at step " << first << " of " << steps);
    BOOST_TEST(replay_differences(model, options, trajectory, p, first) == 0);
  }
}

// Without the recorded starting value the first replayed step starts stage 2 by extrapolation
// and its stage values differ (the Newton iteration stops elsewhere within its tolerance): the
// record's stage_start is what makes the replay exact.
BOOST_FIXTURE_TEST_CASE(a_replay_without_the_recorded_stage_start_differs, DowRun) {
  int differing = 0, tried = 0;
  for (int first = 1; first < trajectory.size(); first += 5, ++tried)
    if (replay_differences(model, options, trajectory, p, first, false) > 0) ++differing;
  BOOST_TEST_MESSAGE("replays without stage_start that differ: " << differing << " of " << tried);
  BOOST_TEST(differing == tried);
}

// The reference problems (ODEs and DAEs, ESDIRK34 at 1e-4 and ESDIRK436 at 1e-7): replays from
// ten recorded steps spread over each run repeat the run to the bit.
BOOST_AUTO_TEST_CASE(the_reference_problems_replay_bit_for_bit_from_recorded_steps) {
  for (const auto& c : reference_problems::all()) {
    for (double rtol : {1e-4, 1e-7}) {
      esdirk::Options options = c.options(rtol);
      options.stage_predictor = esdirk::StagePredictor::dense_output;
      auto problem = c.make();
      const esdirk::Trajectory trajectory = record(*problem, options, c.x0, c.z0, c.p, c.t_end);
      const int steps = trajectory.size();
      int with_start = 0;
      for (int n = 0; n < steps; ++n) with_start += trajectory[n].stage_start.empty() ? 0 : 1;
      BOOST_TEST_INFO(c.name << " rtol " << rtol << ": " << steps << " steps");
      BOOST_TEST(with_start > steps / 2);
      for (int k = 0; k < 10; ++k) {
        const int first = static_cast<int>(static_cast<long>(steps - 1) * k / 9);
        BOOST_TEST_INFO(c.name << " rtol " << rtol << ": resumed at step " << first << " of " << steps);
        BOOST_TEST(replay_differences(*problem, options, trajectory, c.p, first) == 0);
      }
    }
  }
}

// After a restart (a discontinuity) there is no step before: the first step carries no
// stage_start and starts stage 2 as stage_extrapolation does, to the bit.
BOOST_AUTO_TEST_CASE(after_a_restart_the_first_step_has_no_stage_start_and_extrapolates) {
  dow::Model model;
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  esdirk::Options dense = dow::benchmark_options(1e-6), extrapolated = dense;
  dense.stage_predictor = esdirk::StagePredictor::dense_output;
  extrapolated.stage_predictor = esdirk::StagePredictor::stage_extrapolation;
  esdirk::Integrator a(model, dense), b(model, extrapolated);
  std::vector<double> x(6), z(4);
  BOOST_REQUIRE(esdirk::ok(a.initialize(0.0, x0, z0, p)));
  BOOST_REQUIRE(esdirk::ok(a.integrate_to(0.5, x, z)));
  BOOST_REQUIRE(a.last_step().stage_start.size() == 10u);
  const std::vector<double> xr(a.x().begin(), a.x().end()), zr(a.z().begin(), a.z().end());
  BOOST_REQUIRE(esdirk::ok(a.restart(a.t(), xr, zr, p)));
  BOOST_REQUIRE(esdirk::ok(b.initialize(a.t(), xr, zr, p)));
  const double h = 1e-3;
  BOOST_REQUIRE(esdirk::ok(a.step_exactly(h)));
  BOOST_REQUIRE(esdirk::ok(b.step_exactly(h)));
  BOOST_TEST(a.last_step().stage_start.empty());
  BOOST_TEST(same_record(esdirk::StepRecord(a.last_step()), esdirk::StepRecord(b.last_step())));
  BOOST_REQUIRE(esdirk::ok(a.step_exactly(h)));
  BOOST_TEST(a.last_step().stage_start.size() == 10u);  // from the step before again
}

// Bad input: a stage_start of the wrong size or with a non-finite entry is refused with a clear
// message, and the integrator stays where it was.
BOOST_AUTO_TEST_CASE(resume_refuses_a_bad_stage_start_and_keeps_its_state) {
  dow::Model model;
  esdirk::Options dense = dow::benchmark_options(1e-6);
  dense.stage_predictor = esdirk::StagePredictor::dense_output;
  esdirk::Integrator solver(model, dense);
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, z0, p)));
  BOOST_REQUIRE(esdirk::ok(solver.step_exactly(1e-5)));
  BOOST_REQUIRE(esdirk::ok(solver.step_exactly(1e-5)));
  esdirk::StepRecord r(solver.last_step());
  BOOST_REQUIRE(r.stage_start.size() == 10u);
  const double t = solver.t();
  const std::vector<double> x(solver.x().begin(), solver.x().end());
  for (int bad = 0; bad < 2; ++bad) {
    esdirk::StepRecord wrong = r;
    if (bad == 0)
      wrong.stage_start.resize(9);
    else
      wrong.stage_start[3] = std::numeric_limits<double>::quiet_NaN();
    try {
      solver.resume(wrong, p);
      BOOST_FAIL("resume accepted a bad stage_start");
    } catch (const std::invalid_argument& e) {
      BOOST_TEST_MESSAGE(e.what());
      BOOST_TEST(std::string(e.what()).find("stage_start") != std::string::npos);
    }
    BOOST_TEST(solver.t() == t);
    BOOST_TEST(std::vector<double>(solver.x().begin(), solver.x().end()) == x);
    BOOST_TEST(solver.last_step().stage_start.size() == 10u);
  }
}

BOOST_AUTO_TEST_SUITE_END()
