// Checkpointing of the hybrid adjoint (HybridAdjointOptions::memory_budget): the steps of each
// mode are split into blocks of as many records as the budget holds, each replayed bit for bit
// from its checkpoint during the sweep. The gradients must be bit-identical to keep-everything
// (EM oscillator with memory and 19 reversals, Serban & Recuero 2019's Example 5.1 with outputs inside steps,
// the tank DAE whose z jumps), every step recomputed at most once, and the stored doubles
// bounded as documented; a budget below one record is refused.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <stdexcept>

#include "adjoint_fixtures.hpp"
#include "em_oscillator/em_oscillator_model.hpp"
#include "hybrid_ode/hybrid_ode_model.hpp"
#include "tank_switch/tank_switch_model.hpp"

namespace {

using namespace event_tests;

// Doubles of one step record: 5 + s (2 nx + 2 nz + 1), s the stages of the method the default
// options resolve at `rtol` (every run below is at rtol <= 1e-6: ESDIRK436, 6 stages), and
// under the default StagePredictor::dense_output the first implicit stage's starting value
// (nx + nz), which a replay from a checkpoint needs too.
bool stage_start() { return esdirk::Options{}.stage_predictor == esdirk::StagePredictor::dense_output; }

long record_doubles(int nx, int nz, double rtol = esdirk::Options{}.rtol) {
  esdirk::Options o;
  o.rtol = rtol;
  return 5 + o.resolved_method().stages * (2L * nx + 2L * nz + 1L) + (stage_start() ? nx + nz : 0);
}

// Doubles of one checkpoint: x, z, f, g, and the stage-2 start under dense_output.
long checkpoint_doubles(int nx, int nz) { return (stage_start() ? 3L : 2L) * (nx + nz); }

bool bit_identical(const AdjointComparison& a, const AdjointComparison& b) {
  if (a.adjoint.rows() != b.adjoint.rows() || a.adjoint.cols() != b.adjoint.cols()) return false;
  for (int j = 0; j < a.adjoint.cols(); ++j)
    for (int i = 0; i < a.adjoint.rows(); ++i)
      if (a.adjoint(i, j) != b.adjoint(i, j)) return false;
  return true;
}

esdirk::HybridAdjointOptions budget_of(long records, int nx, int nz) {
  esdirk::HybridAdjointOptions o;
  o.memory_budget = records * record_doubles(nx, nz);
  return o;
}

AdjointComparison em_run(esdirk::HybridAdjointOptions adjoint) {
  em_oscillator::Model model;
  esdirk::HybridOptions o;
  o.integrator.rtol = 1e-8;
  o.integrator.atol = 1e-10;
  esdirk::DenseMatrix w(4, 3);  // G = q(10), u(10), z(10)
  w(2, 0) = 1.0;
  w(0, 1) = 1.0;
  w(3, 2) = 1.0;
  return compare_adjoint(model, o, 0.0, em_oscillator::loading, {0.0, 0.0, 0.0}, {0.0}, em_oscillator::nominal(),
                         {em_oscillator::t_end}, {w}, std::vector<double>(4, 0.0), adjoint, false);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hybrid_adjoint_checkpointing_tests)

BOOST_AUTO_TEST_CASE(em_oscillator_checkpointed_gradient_is_bit_identical) {
  const AdjointComparison all = em_run({});
  BOOST_REQUIRE_MESSAGE(esdirk::ok(all.status), all.message);
  BOOST_TEST(all.events > 5);
  BOOST_TEST(all.report.checkpoints == 0);
  BOOST_TEST(all.report.recomputed_steps == 0);
  BOOST_TEST(all.report.stored_records == all.steps);
  const long record = record_doubles(3, 1);
  for (long k : {1L, 3L, 16L, 64L, 100000L}) {
    const AdjointComparison c = em_run(budget_of(k, 3, 1));
    BOOST_REQUIRE_MESSAGE(esdirk::ok(c.status), c.message);
    BOOST_TEST(c.steps == all.steps);
    BOOST_TEST(bit_identical(c, all), "budget of " << k << " records: the gradient differs");
    const esdirk::HybridAdjointReport& r = c.report;
    BOOST_TEST(r.stored_records == std::min<long>(k, all.steps));
    // Every step recomputed at most once, never the last one; all but at most the last k
    // (the ring's content after the run, less the block that straddles its start).
    BOOST_TEST(r.recomputed_steps < all.steps);
    BOOST_TEST(r.recomputed_steps >= all.steps - k);
    if (k >= all.steps) BOOST_TEST(r.recomputed_steps == 0);
    // Blocks: at least one per mode and one per k steps; at most one more per mode.
    BOOST_TEST(r.checkpoints >= std::max<long>(all.events + 1, (all.steps + k - 1) / k));
    BOOST_TEST(r.checkpoints <= (all.steps + k - 1) / k + all.events + 1);
    // What is stored: k records, the schedule (3 per step), the checkpoints (x, z, f, g and
    // the stage-2 start), the segment and event data (the same as keep-everything's beyond its
    // records).
    const long event_data = all.report.peak_stored_doubles - all.steps * record;
    BOOST_TEST(r.peak_stored_doubles ==
               r.stored_records * record + 3L * all.steps + r.checkpoints * checkpoint_doubles(3, 1) + event_data);
    BOOST_TEST_MESSAGE("EM, budget " << k << " records: peak stored doubles " << r.peak_stored_doubles << " (all: "
                                     << all.report.peak_stored_doubles << "), checkpoints " << r.checkpoints
                                     << ", recomputed " << r.recomputed_steps << " of " << all.steps << " steps");
    if (k <= 64) BOOST_TEST(r.peak_stored_doubles < all.report.peak_stored_doubles / 2);
  }
}

BOOST_AUTO_TEST_CASE(outputs_inside_steps_and_dae_checkpointed_gradients_are_bit_identical) {
  // Serban & Recuero 2019's Example 5.1 with 7 outputs (dense outputs inside steps, 3 events).
  hybrid_ode::Model ode;
  std::vector<double> times;
  std::vector<esdirk::DenseMatrix> weights;
  for (int k = 1; k <= 7; ++k) {
    times.push_back(hybrid_ode::t_end * k / 7);
    esdirk::DenseMatrix w(2, 2);
    w(1, 0) = 1.0;
    w(0, 1) = 1.0;
    weights.push_back(w);
  }
  const auto ode_run = [&](esdirk::HybridAdjointOptions o) {
    return compare_adjoint(ode, tight(1e-8), 0.0, hybrid_ode::mode_a, {0.0, 0.0}, {}, {hybrid_ode::nominal_p}, times,
                           weights, {}, o, false);
  };
  const AdjointComparison all = ode_run({});
  BOOST_REQUIRE_MESSAGE(esdirk::ok(all.status), all.message);
  BOOST_TEST(all.events == 3);
  for (long k : {1L, 2L, 5L}) {
    const AdjointComparison c = ode_run(budget_of(k, 2, 0));
    BOOST_REQUIRE_MESSAGE(esdirk::ok(c.status), c.message);
    BOOST_TEST(bit_identical(c, all), "Example 5.1, budget of " << k << " records: the gradient differs");
    BOOST_TEST(c.report.recomputed_steps > 0);
  }

  // The tank DAE: z jumps at the switch, z and g in the checkpoints.
  tank_switch::Model tank;
  std::vector<esdirk::DenseMatrix> both(2);
  for (auto& w : both) {
    w.resize(2, 2);
    w(0, 0) = w(1, 1) = 1.0;
  }
  const auto tank_run = [&](esdirk::HybridAdjointOptions o) {
    return compare_adjoint(tank, tight(1e-10), 0.0, 0, {tank_switch::x0}, {tank_switch::a * tank_switch::x0},
                           {tank_switch::a, tank_switch::b, tank_switch::c}, {1.0, tank_switch::t_end}, both, {}, o,
                           false);
  };
  const AdjointComparison tall = tank_run({});
  BOOST_REQUIRE_MESSAGE(esdirk::ok(tall.status), tall.message);
  const AdjointComparison t3 = tank_run(budget_of(3, 1, 1));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(t3.status), t3.message);
  BOOST_TEST(bit_identical(t3, tall));
  BOOST_TEST(t3.report.recomputed_steps > 0);
}

BOOST_AUTO_TEST_CASE(memory_budget_below_one_record_is_refused) {
  em_oscillator::Model model;
  esdirk::HybridSolver solver(model, esdirk::HybridOptions{});
  esdirk::HybridAdjointOptions o;
  o.memory_budget = record_doubles(3, 1) - 1;
  BOOST_CHECK_THROW(esdirk::HybridAdjoint(solver, o), std::invalid_argument);
  o.memory_budget = -1;
  BOOST_CHECK_THROW(esdirk::HybridAdjoint(solver, o), std::invalid_argument);
  o.memory_budget = record_doubles(3, 1);
  BOOST_CHECK_NO_THROW(esdirk::HybridAdjoint(solver, o));
}

BOOST_AUTO_TEST_SUITE_END()
