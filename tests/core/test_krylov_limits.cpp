// The limits of the Krylov stage solver's settings and the end of a GMRES that makes no
// progress (issue 27): a restart count of INT_MAX made a stagnating GMRES run for ever, and a
// Krylov dimension near n asked n^2 memory at setup. Both settings are capped in the core
// validation (max_krylov_restarts, max_krylov_dimension) that every setter and the stage
// system itself call, and a GMRES cycle that does not reduce the residual ends the solve.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/problem.hpp"
#include "esdirk/stage_linear_system.hpp"
#include "krylov_fixtures.hpp"

using esdirk::KrylovSettings;
using esdirk::LinearSolverKind;

namespace {

// A stiff rotation, x' = w (x_1, -x_0) with w = 1e6 and a full 2 x 2 pattern. M = I - h gamma J
// has a unit diagonal, so Jacobi (block-Jacobi with blocks of 1) is the identity, and GMRES(1)
// cuts the residual by a factor sqrt(1 - 1 / (1 + (h gamma w)^2)) per cycle: about 1 - 1e-11
// at h = 1. That is no progress.
esdirk::FunctionProblem rotation(int max_restarts) {
  esdirk::FunctionProblem problem(2, 0, 0, [](double, esdirk::ConstVector x, esdirk::ConstVector,
                                              esdirk::ConstVector, esdirk::Vector f) {
    f[0] = 1e6 * x[1];
    f[1] = -1e6 * x[0];
    return 0;
  });
  problem.set_jacobian_pattern(esdirk::SparsityPattern::banded(2, 1, 1), LinearSolverKind::krylov);
  KrylovSettings settings;
  settings.dimension = 1;
  settings.max_restarts = max_restarts;
  settings.preconditioner = esdirk::KrylovPreconditioner::block_jacobi;
  problem.set_krylov_settings(settings);
  return problem;
}

using krylov_fixtures::expect_refused;

}  // namespace

BOOST_AUTO_TEST_SUITE(krylov_limits)

// Problem::set_krylov_settings took any restart count (only the C setter refused more than
// 1000): the core check now refuses INT_MAX and 1001 naming the cap, and the problem keeps the
// settings it had; the cap itself is accepted.
BOOST_AUTO_TEST_CASE(restart_counts_beyond_the_cap_are_refused_by_the_core_and_the_settings_kept) {
  esdirk::FunctionProblem problem = rotation(4);
  const auto set = [&problem](const KrylovSettings& s) { problem.set_krylov_settings(s); };
  KrylovSettings s = problem.jacobian_structure().krylov;
  for (int restarts : {INT_MAX, esdirk::max_krylov_restarts + 1}) {
    s.max_restarts = restarts;
    expect_refused(set, s, "max_restarts must be <= 1000 (got " + std::to_string(restarts));
    BOOST_TEST(problem.jacobian_structure().krylov.max_restarts == 4);
    BOOST_TEST(problem.jacobian_structure().krylov.dimension == 1);
  }
  s.max_restarts = esdirk::max_krylov_restarts;
  BOOST_CHECK_NO_THROW(problem.set_krylov_settings(s));
  BOOST_TEST(problem.jacobian_structure().krylov.max_restarts == 1000);
}

// A dimension near n allocated n + 1 basis vectors of n values at setup (8e10 bytes for
// n = 1e5): the cap is checked before anything is allocated, by the problem's setter and by the
// stage system (which also sees structures no setter checked).
BOOST_AUTO_TEST_CASE(a_krylov_dimension_near_n_is_refused_before_its_n_squared_basis_is_allocated) {
  const int n = 100000;
  esdirk::JacobianStructure structure =
      esdirk::JacobianStructure::of_pattern(n, esdirk::SparsityPattern::banded(n, 0, 0), LinearSolverKind::krylov);
  structure.krylov.dimension = n;
  try {
    esdirk::StageLinearSystem system(n, 0, structure);
    BOOST_ERROR("a Krylov dimension of n = 1e5 was accepted");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST_INFO(e.what());
    BOOST_TEST(std::string(e.what()).find("Krylov dimension must be <= 500 (the GMRES basis") != std::string::npos);
  }
  structure.krylov.dimension = esdirk::max_krylov_dimension;
  BOOST_CHECK_NO_THROW(esdirk::StageLinearSystem(n, 0, structure));

  esdirk::FunctionProblem problem(n, 0, 0, [](double, esdirk::ConstVector, esdirk::ConstVector,
                                              esdirk::ConstVector, esdirk::Vector f) {
    std::fill(f.begin(), f.end(), 0.0);
    return 0;
  });
  problem.set_jacobian_pattern(esdirk::SparsityPattern::banded(n, 0, 0), LinearSolverKind::krylov);
  const auto set = [&problem](const KrylovSettings& s) { problem.set_krylov_settings(s); };
  KrylovSettings s;
  s.dimension = esdirk::max_krylov_dimension + 1;
  expect_refused(set, s, "Krylov dimension must be <= 500 (the GMRES basis holds dimension + 1 vectors of n values) "
                  "(got 501, n = 100000)");
  BOOST_TEST(problem.jacobian_structure().krylov.dimension == 30);  // the default kept
  // Below n the cap does not hide the old check.
  s.dimension = 3;
  esdirk::FunctionProblem rot = rotation(4);
  expect_refused([&rot](const KrylovSettings& k) { rot.set_krylov_settings(k); }, s, "must be in [1, n]");
}

// GMRES had no stagnation test: with the cap of restarts (1000) the rotation's first stage solve
// ran 1001 cycles of one iteration each, and with INT_MAX it never ended. A cycle that reduces
// the residual by less than sqrt(eps) now ends the solve as failed, so each failed solve of the
// step costs one GMRES iteration (before: 1001), and the step ends as a linear-solver failure
// with the state kept.
BOOST_AUTO_TEST_CASE(a_gmres_cycle_without_progress_ends_the_solve_instead_of_running_every_restart) {
  esdirk::FunctionProblem problem = rotation(esdirk::max_krylov_restarts);
  esdirk::Options options;
  esdirk::Integrator integrator(problem, options);
  const std::vector<double> x0 = {1.0, 0.0};
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, x0, {}, {})));
  const esdirk::Status status = integrator.step_exactly(1.0);
  const esdirk::Statistics& stats = integrator.statistics();
  BOOST_TEST_MESSAGE(esdirk::status_name(status) << ": " << integrator.message() << "; GMRES iterations "
                                                 << stats.linear_iterations << ", failed solves "
                                                 << stats.linear_solver_failures);
  BOOST_TEST((status == esdirk::Status::linear_solver_failures));
  BOOST_TEST(integrator.message().find("GMRES") != std::string::npos);
  BOOST_TEST(stats.linear_solver_failures > 0);
  BOOST_TEST(stats.linear_iterations == stats.linear_solver_failures);
  BOOST_TEST(integrator.t() == 0.0);
  BOOST_TEST(std::vector<double>(integrator.x().begin(), integrator.x().end()) == x0);
}

BOOST_AUTO_TEST_SUITE_END()
