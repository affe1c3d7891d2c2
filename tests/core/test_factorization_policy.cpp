// FactorizationPolicy::automatic (the default): J and the LU are kept for the next step when the
// LU costs more than reuse_cost_ratio Newton iterations, J alone (a new LU every step) when J
// does, by the sizes of the declared structure (doc/integrator-theory.md section 8a). The rule is tested on the sizes of the
// problems it was calibrated on, the integrator follows it (2-D grids reuse; small dense
// problems and the 1-D grid keep one J and one LU per step), the error test still holds the
// achieved error, and modules that need J at t_n of every step (a Trajectory here; the
// sensitivities in tests/sensitivity/test_structured_sensitivity.cpp) switch it off.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "brusselator_mol/brusselator_2d_model.hpp"
#include "esdirk/factorization_policy.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/trajectory.hpp"
#include "krylov_fixtures.hpp"
#include "reference_problems.hpp"

using esdirk::FactorizationCost;
using esdirk::FactorizationPolicy;
using krylov_fixtures::relative_difference;

namespace {

FactorizationCost dense_cost(double n) { return {n * n, n * n, 2.0 / 3.0 * n * n * n}; }

struct GridRun {
  std::vector<double> y;
  esdirk::Statistics stats;
};

// The 2-D Brusselator on an N x N grid to t = 2 (KLU unless `solver` says otherwise), states only.
GridRun grid(int side, double rtol, FactorizationPolicy policy, bool record = false,
             esdirk::LinearSolverKind solver = esdirk::LinearSolverKind::sparse,
             esdirk::MethodChoice method = esdirk::MethodChoice::automatic()) {
  brusselator_mol::Model2d model(side);
  model.set_jacobian_pattern(model.pattern(), solver);
  esdirk::Options options;
  options.rtol = options.atol = rtol;
  options.factorization_policy = policy;
  options.method = method;
  esdirk::Integrator integrator(model, options);
  esdirk::Trajectory trajectory;
  if (record) integrator.add_listener(trajectory);
  GridRun run{model.initial_state(), {}};
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, run.y, {}, model.nominal_parameters())));
  BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(2.0, run.y).status));
  run.stats = integrator.statistics();
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(factorization_policy)

BOOST_AUTO_TEST_CASE(the_rule_on_the_sizes_it_was_measured_on) {
  const double ratio = esdirk::Options{}.reuse_cost_ratio;
  // Small dense problems with analytic Jacobians (Dow, n = 10; Akzo Nobel, n = 6; Robertson,
  // n = 3): an LU costs a few iterations, one J and one LU per step.
  for (int n : {2, 3, 6, 10}) {
    const auto costs = esdirk::reuse_costs(dense_cost(n), n * n, n, 0);
    BOOST_TEST(!esdirk::jacobian_reuse_pays(costs, ratio));
    BOOST_TEST(!esdirk::lu_reuse_pays(costs, ratio));
  }
  // By differences, kept J with a new LU every step saves the Jacobian alone (the rule first
  // counted the LU too, so Akzo Nobel, n = 6 by 6 evaluations, kept J and ran 8 % more
  // instructions and 56 % more Newton iterations than with J every step). Dow by differences
  // (10 evaluations per J) costs exactly 5 iterations: a tie forms J (kept, it ran 23 % more
  // instructions). From n = 11 on a difference J costs more than 5 iterations and is kept.
  for (int n : {6, 10}) {
    const auto differenced = esdirk::reuse_costs(dense_cost(n), n * n, n, n);
    BOOST_TEST(!esdirk::jacobian_reuse_pays(differenced, ratio));
    BOOST_TEST(!esdirk::lu_reuse_pays(differenced, ratio));
  }
  const auto larger = esdirk::reuse_costs(dense_cost(12), 144, 12, 12);
  BOOST_TEST(esdirk::jacobian_reuse_pays(larger, ratio));
  BOOST_TEST(!esdirk::lu_reuse_pays(larger, ratio));
  // Dense n = 100 (the 1-D Brusselator on the dense back-end): the LU dominates.
  BOOST_TEST(esdirk::lu_reuse_pays(esdirk::reuse_costs(dense_cost(100), 1e4, 100, 0), ratio));
  // KLU on the 1-D Brusselator, n = 1e4 (M 39996 entries, factors 59994, 1e5 flops): no.
  const auto one_d = esdirk::reuse_costs({39996, 59994, 1e5}, 39996, 10000, 0);
  BOOST_TEST(!esdirk::jacobian_reuse_pays(one_d, ratio));
  // KLU on the 2-D grids (8 x 8: 704 entries of M, 2224 of the factors, 2.08e4 flops;
  // 40 x 40: 18880, 153456, 8.36e6): J and the LU.
  BOOST_TEST(esdirk::lu_reuse_pays(esdirk::reuse_costs({704, 2224, 2.08e4}, 704, 128, 0), ratio));
  BOOST_TEST(
      esdirk::lu_reuse_pays(esdirk::reuse_costs({18880, 153456, 8.36e6}, 18880, 3200, 0), ratio));
  BOOST_CHECK_THROW(esdirk::reuse_costs({-1, 0, 0}, 0, 1, 0), std::invalid_argument);
  BOOST_CHECK_THROW(esdirk::reuse_costs(dense_cost(2), -1, 2, 0), std::invalid_argument);
}

// The costs come from the declared structure: no pattern is a dense LU, a pattern is the band
// LU of its bandwidths (capped by the dense count), whatever back-end factors it.
BOOST_AUTO_TEST_CASE(the_costs_come_from_the_declared_structure) {
  const esdirk::JacobianStructure dense;
  const auto d = esdirk::structural_factorization_cost(dense, 30);
  BOOST_TEST(d.matrix_entries == 900.0);
  BOOST_TEST(d.factor_entries == 900.0);
  BOOST_TEST(d.factorization_flops == 18000.0);
  for (auto kind : {esdirk::LinearSolverKind::dense, esdirk::LinearSolverKind::banded,
                    esdirk::LinearSolverKind::sparse}) {
    const auto band = esdirk::JacobianStructure::of_pattern(
        100, esdirk::SparsityPattern::banded(100, 2, 3), kind);
    const auto b = esdirk::structural_factorization_cost(band, 100);
    BOOST_TEST(b.matrix_entries == band.pattern->nonzeros());
    BOOST_TEST(b.factor_entries == 100.0 * (2 * 2 + 3 + 1));
    BOOST_TEST(b.factorization_flops == 2.0 * 100 * 2 * (2 + 3));
  }
  // A full-width pattern costs no more than the dense LU.
  const auto full = esdirk::JacobianStructure::banded(10, 9, 9);
  const auto f = esdirk::structural_factorization_cost(full, 10);
  BOOST_TEST(f.factor_entries == 100.0);
  BOOST_TEST(f.factorization_flops == 2.0 / 3.0 * 10.0 * 10.0 * 10.0);
  BOOST_CHECK_THROW(esdirk::structural_factorization_cost(dense, -1), std::invalid_argument);
}

// Regression: the decision was first made from the back-end's own sizes, so the dense LU of a
// grid (n^3 flops) kept J and its LU where band and KLU did not, and the three back-ends, which
// must give the same solution to rounding, diverged by the tolerance. Decided from the declared
// pattern they decide alike: on the 10 x 10 grid all three keep J and the LU, with the same
// counts and the same solution to rounding.
BOOST_AUTO_TEST_CASE(dense_band_and_klu_back_ends_decide_alike_and_give_the_same_solution) {
  const auto sparse = grid(10, 1e-6, FactorizationPolicy::automatic, false,
                           esdirk::LinearSolverKind::sparse);
  BOOST_TEST(sparse.stats.lu_reuses > 0);
  for (auto kind : {esdirk::LinearSolverKind::dense, esdirk::LinearSolverKind::banded}) {
    const auto other = grid(10, 1e-6, FactorizationPolicy::automatic, false, kind);
    BOOST_TEST_INFO(esdirk::linear_solver_name(kind));
    BOOST_TEST(other.stats.steps == sparse.stats.steps);
    BOOST_TEST(other.stats.lu_factorizations == sparse.stats.lu_factorizations);
    BOOST_TEST(other.stats.jacobian_reuses == sparse.stats.jacobian_reuses);
    BOOST_TEST(relative_difference(other.y, sparse.y) <= 1e-11);
  }
}

BOOST_AUTO_TEST_CASE(automatic_by_default_and_every_step_in_the_papers_configuration) {
  BOOST_TEST((esdirk::Options{}.factorization_policy == FactorizationPolicy::automatic));
  BOOST_TEST((esdirk::Options::seed002().factorization_policy == FactorizationPolicy::every_step));
  esdirk::Options bad;
  bad.reuse_cost_ratio = 0.0;
  BOOST_CHECK_THROW(bad.validate(1, 0), std::invalid_argument);
  bad = {};
  bad.factorization_policy = static_cast<FactorizationPolicy>(5);
  BOOST_CHECK_THROW(bad.validate(1, 0), std::invalid_argument);
}

// The five reference problems (n <= 10): one J and one LU per step, Akzo Nobel's difference J
// (6 evaluations, 3 iterations' worth) included: it was kept from step to step, which cost more
// iterations than it saved (see the_rule_on_the_sizes_it_was_measured_on).
BOOST_AUTO_TEST_CASE(small_dense_problems_keep_one_lu_per_step) {
  for (const auto& c : reference_problems::all()) {
    const auto out = reference_problems::solve(c, 1e-6);
    BOOST_TEST_INFO(c.name);
    BOOST_REQUIRE(esdirk::ok(out.status));
    BOOST_TEST(out.stats.jacobian_reuses == 0);
    BOOST_TEST(out.stats.lu_reuses == 0);
    BOOST_TEST(out.stats.lu_factorizations >= out.stats.steps);
  }
}

// The 2-D grid reuses J and the LU, and the error test still decides: the solution is as close
// to a tight reference as with a fresh J and LU every step. With ESDIRK34 at rtol 1e-4 and the
// default "auto" (ESDIRK436) at 1e-6 (35 steps): at 1e-4 ESDIRK436 takes 12 steps, too few for
// reuse to halve the LUs (8 of 13).
BOOST_AUTO_TEST_CASE(the_2d_grid_reuses_and_keeps_its_accuracy) {
  const auto reference = grid(10, 1e-10, FactorizationPolicy::every_step);
  for (double rtol : {1e-4, 1e-6}) {
    const esdirk::MethodChoice method =
        rtol == 1e-4 ? esdirk::MethodChoice(esdirk::Tableau::esdirk34()) : esdirk::MethodChoice::automatic();
    const auto sparse = esdirk::LinearSolverKind::sparse;
    const auto fresh = grid(10, rtol, FactorizationPolicy::every_step, false, sparse, method);
    const auto automatic = grid(10, rtol, FactorizationPolicy::automatic, false, sparse, method);
    const double e_fresh = relative_difference(fresh.y, reference.y);
    const double e_auto = relative_difference(automatic.y, reference.y);
    const auto& s = automatic.stats;
    BOOST_TEST_INFO("rtol " << rtol << ": error " << e_auto / rtol << " rtol (every step "
                            << e_fresh / rtol << "), " << s.steps << " steps (" << fresh.stats.steps
                            << "), " << s.lu_factorizations << " LUs ("
                            << fresh.stats.lu_factorizations << ")");
    BOOST_TEST(e_auto <= std::max(2.0 * e_fresh, 0.1 * rtol));
    BOOST_TEST(s.lu_reuses > 0);
    BOOST_TEST(s.jacobian_reuses > 0);
    BOOST_TEST(s.lu_factorizations < fresh.stats.lu_factorizations / 2);
    BOOST_TEST(fresh.stats.lu_reuses == 0);
  }
}

// A Trajectory replays each step from its own start: while it records, J and the LU are formed
// every step, and a recorded step resumed on its own comes out bit for bit.
BOOST_AUTO_TEST_CASE(a_recording_trajectory_keeps_one_jacobian_per_step) {
  const auto recorded = grid(10, 1e-5, FactorizationPolicy::automatic, true);
  const auto fresh = grid(10, 1e-5, FactorizationPolicy::every_step);
  BOOST_TEST(recorded.stats.jacobian_reuses == 0);
  BOOST_TEST(recorded.stats.lu_reuses == 0);
  BOOST_TEST(recorded.y == fresh.y);
}

BOOST_AUTO_TEST_SUITE_END()
