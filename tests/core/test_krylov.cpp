// The Krylov stage solver (LinearSolverKind::krylov): restarted GMRES with the built-in
// preconditioners (ILU(0), block-Jacobi; more in test_krylov_preconditioners.cpp). GMRES solves M x = b and M^T x = b to its tolerance; an integration gives
// the direct solvers' answer to the integration tolerance on the 2-D Brusselator; each counter
// counts what it says; a GMRES that cannot converge ends the run with
// Status::linear_solver_failures and the last good state; bad settings and the derivative
// modules are refused with a message naming the cause.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "brusselator_mol/brusselator_2d_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/stage_linear_system.hpp"
#include "krylov_fixtures.hpp"

using esdirk::KrylovSettings;
using esdirk::LinearSolverKind;
using krylov_fixtures::GridRun;
using krylov_fixtures::relative_difference;

namespace {

// The 2-D Brusselator on a side x side grid to t_end, states only.
GridRun grid(int side, double rtol, LinearSolverKind solver, esdirk::KrylovSettings settings = {},
             double min_step = 0.0) {
  brusselator_mol::Model2d model(side);
  model.set_jacobian_pattern(model.pattern(), solver);
  if (solver == LinearSolverKind::krylov) model.set_krylov_settings(settings);
  return krylov_fixtures::run_to_2(model, model.initial_state(), model.nominal_parameters(), rtol, min_step);
}

esdirk::KrylovSettings block_of_two() { return krylov_fixtures::point_blocks(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(krylov)

// GMRES on M = E - hg J with a random J on the grid's pattern: the residual of the returned x
// is within the tolerance, for M and M^T, with Jacobi, block-Jacobi and ILU(0) preconditioners.
BOOST_AUTO_TEST_CASE(gmres_solves_and_solves_transposed_to_its_tolerance) {
  brusselator_mol::Model2d model(6);
  const int n = model.size();
  using Choice = std::pair<esdirk::KrylovPreconditioner, int>;
  for (const auto& [preconditioner, block] :
       {Choice{esdirk::KrylovPreconditioner::block_jacobi, 1}, Choice{esdirk::KrylovPreconditioner::block_jacobi, 2},
        Choice{esdirk::KrylovPreconditioner::ilu0, 2}}) {
    esdirk::KrylovSettings settings;
    settings.preconditioner = preconditioner;
    settings.block_size = block;
    settings.tolerance = 1e-10;
    settings.dimension = 20;
    settings.max_restarts = 10;
    model.set_jacobian_pattern(model.pattern(), LinearSolverKind::sparse);
    esdirk::JacobianMatrix J(n, model.jacobian_structure());
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int k = 0; k < J.pattern().nonzeros(); ++k) J.sparse().values[k] = u(rng);
    model.set_jacobian_pattern(model.pattern(), LinearSolverKind::krylov);
    model.set_krylov_settings(settings);
    esdirk::StageLinearSystem krylov(n, 0, model.jacobian_structure());
    esdirk::Statistics stats;
    krylov.set_statistics(&stats);
    const double hg = 0.2;
    BOOST_REQUIRE(krylov.factor(J, hg, 0) == 0);
    BOOST_TEST(stats.preconditioner_setups == 1);
    for (bool transposed : {false, true}) {
      std::vector<double> b(static_cast<std::size_t>(n)), x(b.size());
      for (int i = 0; i < n; ++i) b[i] = x[i] = std::sin(1.0 + i);
      const esdirk::MatrixRef X{x.data(), n, 1, n};
      transposed ? krylov.solve_transposed(X) : krylov.solve(X);
      BOOST_TEST(krylov.last_solve_converged());
      // r = M x - b (or M^T x - b) with M formed entry by entry.
      double worst = 0.0, b_norm = 0.0;
      for (int i = 0; i < n; ++i) {
        double r = -b[i];
        for (int k = 0; k < n; ++k) {
          const int row = transposed ? k : i, col = transposed ? i : k;
          r += (-hg * J(row, col) + (row == col ? 1.0 : 0.0)) * x[k];
        }
        worst += r * r;
        b_norm += b[i] * b[i];
      }
      BOOST_TEST_CONTEXT(esdirk::krylov_preconditioner_name(preconditioner) << ", block " << block
                                                                         << (transposed ? ", transposed" : "")) {
        BOOST_TEST(std::sqrt(worst / b_norm) <= 1e-10);
      }
    }
    BOOST_TEST(stats.linear_iterations > 0);
    BOOST_TEST(stats.preconditioner_solves > stats.linear_iterations);  // + one per cycle end
    BOOST_TEST(stats.jacobian_vector_products > stats.linear_iterations);  // + true residuals
    BOOST_TEST(stats.linear_solver_failures == 0);
  }
}

// The same discrete scheme: the stage equations are solved to the Newton tolerance by either
// solver, so Krylov and KLU agree to the integration tolerance, and both are as close to a
// tight reference.
BOOST_AUTO_TEST_CASE(krylov_gives_the_direct_solvers_answer_to_the_tolerance) {
  const auto reference = grid(10, 1e-10, LinearSolverKind::sparse);
  for (double rtol : {1e-4, 1e-6}) {
    const auto direct = grid(10, rtol, LinearSolverKind::sparse);
    const auto krylov = grid(10, rtol, LinearSolverKind::krylov, block_of_two());
    BOOST_REQUIRE(esdirk::ok(krylov.status));
    const double e_direct = relative_difference(direct.y, reference.y);
    const double e_krylov = relative_difference(krylov.y, reference.y);
    BOOST_TEST_INFO("rtol " << rtol << ": Krylov error " << e_krylov / rtol << " rtol, KLU "
                            << e_direct / rtol << " rtol; Krylov - KLU "
                            << relative_difference(krylov.y, direct.y) / rtol << " rtol");
    BOOST_TEST(relative_difference(krylov.y, direct.y) <= rtol);
    BOOST_TEST(e_krylov <= std::max(2.0 * e_direct, 0.1 * rtol));
    // The step count stays that of the direct solver within a few steps.
    BOOST_TEST(std::abs(krylov.stats.accepted_steps - direct.stats.accepted_steps) <=
               std::max(3L, direct.stats.accepted_steps / 10));
  }
}

// Each counter means one thing: a preconditioner setup per factorization (NLU), a GMRES solve
// per back-substitution, at least one iteration per solve, one preconditioner solve and one
// product with M per iteration plus one of each per restart cycle.
BOOST_AUTO_TEST_CASE(the_krylov_counters) {
  const auto run = grid(8, 1e-5, LinearSolverKind::krylov, block_of_two());
  BOOST_REQUIRE(esdirk::ok(run.status));
  const auto& s = run.stats;
  BOOST_TEST(s.preconditioner_setups == s.lu_factorizations);
  BOOST_TEST(s.linear_iterations >= s.back_substitutions);
  BOOST_TEST(s.preconditioner_solves >= s.linear_iterations + s.back_substitutions);
  BOOST_TEST(s.jacobian_vector_products >= s.linear_iterations + s.back_substitutions);
  BOOST_TEST(s.linear_solver_failures == 0);
  BOOST_TEST(s.table().find("linear_iterations") != std::string::npos);
  // A direct run counts none of them, and its table has no Krylov lines.
  const auto direct = grid(8, 1e-5, LinearSolverKind::sparse);
  BOOST_TEST(direct.stats.linear_iterations == 0);
  BOOST_TEST(direct.stats.preconditioner_setups == 0);
  BOOST_TEST(direct.stats.table().find("linear_iterations") == std::string::npos);
}

// GMRES(1) without restarts to a relative residual of 1e-9 cannot converge on the grid at
// steps above 1e-3 (one iteration reduces the residual by about h gamma times the coupling),
// and min_step = 1e-3 keeps the step there: the run stops with linear_solver_failures, a
// message naming GMRES, the failed solves counted, and the initial state (the last good one)
// kept.
BOOST_AUTO_TEST_CASE(a_gmres_that_cannot_converge_stops_with_linear_solver_failures) {
  esdirk::KrylovSettings hopeless;
  hopeless.dimension = 1;
  hopeless.max_restarts = 0;
  hopeless.tolerance = 1e-9;
  const auto run = grid(8, 1e-5, LinearSolverKind::krylov, hopeless, 1e-3);
  BOOST_TEST_INFO(esdirk::status_name(run.status) << ": " << run.message);
  BOOST_TEST((run.status == esdirk::Status::linear_solver_failures));
  BOOST_TEST(run.message.find("GMRES") != std::string::npos);
  BOOST_TEST(run.stats.linear_solver_failures > 0);
  BOOST_TEST(run.stats.accepted_steps == 0);
  BOOST_TEST(run.t == 0.0);
  BOOST_TEST(run.y == brusselator_mol::Model2d(8).initial_state());
}

BOOST_AUTO_TEST_CASE(bad_settings_and_the_derivative_modules_are_refused) {
  brusselator_mol::Model2d model(4);  // n = 32
  model.set_jacobian_pattern(model.pattern(), LinearSolverKind::krylov);
  const auto refused = [&model](const esdirk::KrylovSettings& s, const std::string& words) {
    krylov_fixtures::expect_refused([&model](const esdirk::KrylovSettings& k) { model.set_krylov_settings(k); }, s, words);
  };
  esdirk::KrylovSettings s;
  s.dimension = 0;
  refused(s, "Krylov dimension");
  s.dimension = 33;
  refused(s, "Krylov dimension");
  s = {};
  s.tolerance = 0.0;
  refused(s, "tolerance");
  s = {};
  s.max_restarts = -1;
  refused(s, "max_restarts");
  s = {};
  s.block_size = 0;
  refused(s, "block size");
  s = {};
  s.sensitivity_tolerance = 1.0;
  refused(s, "sensitivity_tolerance");
  s = {};
  s.preconditioner = static_cast<esdirk::KrylovPreconditioner>(7);
  refused(s, "preconditioner must be ilu0 or block_jacobi");
  // The default dimension (30) fits n = 32; a module that does not accept the Krylov back-end
  // (every module with derivatives accepts it today) is refused.
  esdirk::Options options;
  esdirk::Integrator integrator(model, options);
  BOOST_CHECK_THROW(integrator.require_step_jacobians("a module without Krylov"), std::invalid_argument);
  BOOST_CHECK_NO_THROW(integrator.require_step_jacobians("HybridAdjoint", true));
}

// The default Krylov dimension (30) was refused by every problem of fewer than 30 unknowns when
// its integrator was made, so the Krylov back-end with its defaults failed on small systems. A
// declared structure now starts from krylov_defaults(n) (dimension min(30, n)): the defaults
// run and, GMRES being exact within n iterations, give the direct solver's answer; a dimension
// the caller sets above n is still refused, naming it.
BOOST_AUTO_TEST_CASE(the_default_krylov_dimension_refused_every_problem_of_fewer_than_30_unknowns) {
  BOOST_TEST(esdirk::krylov_defaults(8).dimension == 8);
  BOOST_TEST(esdirk::krylov_defaults(30).dimension == 30);
  BOOST_TEST(esdirk::krylov_defaults(31).dimension == 30);
  const auto run = [](LinearSolverKind solver) {
    brusselator_mol::Model2d tiny(2);  // n = 8
    tiny.set_jacobian_pattern(tiny.pattern(), solver);
    BOOST_TEST(tiny.jacobian_structure().krylov.dimension == 8);
    GridRun run = krylov_fixtures::run_to_2(tiny, tiny.initial_state(), tiny.nominal_parameters(), 1e-8);
    BOOST_TEST_INFO(run.message);
    BOOST_TEST(esdirk::ok(run.status));
    return run.y;
  };
  const std::vector<double> krylov = run(LinearSolverKind::krylov), lu = run(LinearSolverKind::sparse);
  BOOST_TEST(relative_difference(krylov, lu) <= 1e-6);

  brusselator_mol::Model2d tiny(2);
  tiny.set_jacobian_pattern(tiny.pattern(), LinearSolverKind::krylov);
  KrylovSettings s = tiny.jacobian_structure().krylov;
  s.dimension = 9;
  try {
    tiny.set_krylov_settings(s);
    BOOST_ERROR("a Krylov dimension of 9 on n = 8 was accepted");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find("the Krylov dimension must be in [1, n] (got 9, n = 8)") != std::string::npos);
  }
  BOOST_TEST(tiny.jacobian_structure().krylov.dimension == 8);
}

BOOST_AUTO_TEST_SUITE_END()
