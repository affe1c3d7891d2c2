// No allocation in the step loop with a banded or sparse Jacobian either: a global operator new
// that counts, and KLU's allocations counted through SuiteSparse's malloc hooks, around
// integrate_to() calls after setup (the first steps, which make KLU's first numeric
// factorization, are setup); the same with forward sensitivities (stage LUs or refinement; Krylov:
// GMRES stage solves).

#define BOOST_TEST_MODULE esdirk sparse allocation
#include <SuiteSparse_config.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <vector>

#include "brusselator_1d.hpp"
#include "counting_new.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"

using counting_new::allocations;

namespace {

long suitesparse_allocations = 0;
void* counting_malloc(std::size_t size) {
  if (counting_new::enabled) ++suitesparse_allocations;
  return std::malloc(size);
}
void* counting_calloc(std::size_t count, std::size_t size) {
  if (counting_new::enabled) ++suitesparse_allocations;
  return std::calloc(count, size);
}
void* counting_realloc(void* p, std::size_t size) {
  if (counting_new::enabled) ++suitesparse_allocations;
  return std::realloc(p, size);
}

// Allocations (operator new and KLU's) while integrating t in [0.5, 5] after setup and [0, 0.5].
long allocations_while_integrating(esdirk::LinearSolverKind solver, bool algebraic, bool analytic,
                                   bool reuse = false, bool matrix_free = false) {
  SuiteSparse_config.malloc_func = counting_malloc;
  SuiteSparse_config.calloc_func = counting_calloc;
  SuiteSparse_config.realloc_func = counting_realloc;
  test_problems::Brusselator1d problem(40, algebraic, analytic);
  problem.set_jacobian_pattern(problem.pattern(), solver);
  if (matrix_free) {
    esdirk::KrylovSettings krylov;
    krylov.matrix_free = true;
    problem.set_krylov_settings(krylov);
  }
  esdirk::Options options;
  options.rtol = 1e-6;
  options.atol = 1e-8;
  if (reuse) {
    options.reuse_jacobian = true;
    options.keep_step_ratio_high = 1.2;
  }
  esdirk::Integrator integrator(problem, options);
  const auto x0 = problem.initial_state();
  const auto z0 = problem.initial_algebraic();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, x0, z0, {})));
  std::vector<double> x(x0.size()), z(z0.size());
  BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(0.5, x, z)));
  const long steps_before = integrator.statistics().accepted_steps;
  allocations = 0;
  suitesparse_allocations = 0;
  counting_new::enabled = true;
  bool all_ok = true;
  for (int k = 1; k <= 10; ++k) all_ok = all_ok && esdirk::ok(integrator.integrate_to(0.5 + 0.45 * k, x, z));
  counting_new::enabled = false;
  BOOST_REQUIRE(all_ok);
  BOOST_REQUIRE(integrator.statistics().accepted_steps > steps_before + 20);
  if (reuse) BOOST_REQUIRE(integrator.statistics().lu_reuses > 0);
  return allocations + suitesparse_allocations;
}

// The same with forward sensitivities to every initial state (exact mode: stage Jacobians in the
// pattern's storage and stage LUs on the back-end, with error control; or refinement).
long allocations_with_sensitivities(esdirk::LinearSolverKind solver, bool algebraic,
                                    esdirk::StageSolve stage_solve) {
  SuiteSparse_config.malloc_func = counting_malloc;
  SuiteSparse_config.calloc_func = counting_calloc;
  SuiteSparse_config.realloc_func = counting_realloc;
  test_problems::Brusselator1d problem(20, algebraic, true);
  problem.set_jacobian_pattern(problem.pattern(), solver);
  esdirk::Options options;
  options.rtol = 1e-6;
  options.atol = 1e-8;
  esdirk::Integrator integrator(problem, options);
  const auto x0 = problem.initial_state();
  const auto z0 = problem.initial_algebraic();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, x0, z0, {})));
  esdirk::SensitivityOptions so;
  so.stage_solve = stage_solve;
  esdirk::ForwardSensitivity sens(integrator, so);
  BOOST_REQUIRE(esdirk::ok(sens.initialize_all()));
  const int nx = problem.nx(), nz = problem.nz();
  std::vector<double> x(x0.size()), z(z0.size());
  esdirk::DenseMatrix Sx(nx, nx), Sz(nz, nx);
  BOOST_REQUIRE(esdirk::ok(sens.integrate_to(0.5, x, z, Sx.ref(), Sz.ref()).status));
  const long steps_before = integrator.statistics().accepted_steps;
  allocations = 0;
  suitesparse_allocations = 0;
  counting_new::enabled = true;
  bool all_ok = true;
  for (int k = 1; k <= 10; ++k)
    all_ok = all_ok && esdirk::ok(sens.integrate_to(0.5 + 0.45 * k, x, z, Sx.ref(), Sz.ref()).status);
  counting_new::enabled = false;
  BOOST_REQUIRE(all_ok);
  BOOST_REQUIRE(integrator.statistics().accepted_steps > steps_before + 20);
  return allocations + suitesparse_allocations;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sensitivities_allocate_nothing_in_the_step_loop_on_each_back_end) {
  for (auto solver : {esdirk::LinearSolverKind::banded, esdirk::LinearSolverKind::sparse,
                      esdirk::LinearSolverKind::krylov})
    for (bool algebraic : {false, true})
      for (auto stage_solve : {esdirk::StageSolve::automatic, esdirk::StageSolve::refinement})
        BOOST_TEST_CONTEXT(esdirk::linear_solver_name(solver) << ", algebraic " << algebraic
                           << ", refinement " << (stage_solve == esdirk::StageSolve::refinement)) {
          BOOST_TEST(allocations_with_sensitivities(solver, algebraic, stage_solve) == 0);
        }
}

BOOST_AUTO_TEST_CASE(each_back_end_allocates_nothing_in_the_step_loop) {
  for (auto solver : {esdirk::LinearSolverKind::dense, esdirk::LinearSolverKind::banded,
                      esdirk::LinearSolverKind::sparse, esdirk::LinearSolverKind::krylov})
    for (bool algebraic : {false, true})
      for (bool analytic : {false, true})
        BOOST_TEST_CONTEXT(esdirk::linear_solver_name(solver) << ", algebraic " << algebraic << ", analytic J " << analytic) {
          BOOST_TEST(allocations_while_integrating(solver, algebraic, analytic) == 0);
        }
}

// Matrix-free Krylov products (difference quotients of f and g) use the workspace made at setup.
BOOST_AUTO_TEST_CASE(matrix_free_krylov_allocates_nothing_in_the_step_loop) {
  for (bool algebraic : {false, true})
    for (bool analytic : {false, true})
      BOOST_TEST_CONTEXT("algebraic " << algebraic << ", analytic J " << analytic) {
        BOOST_TEST(allocations_while_integrating(esdirk::LinearSolverKind::krylov, algebraic, analytic,
                                                 false, true) == 0);
      }
}

// Options::reuse_jacobian keeps J's values and the LU in the buffers made at setup.
BOOST_AUTO_TEST_CASE(jacobian_and_lu_reuse_allocate_nothing_in_the_step_loop) {
  for (auto solver : {esdirk::LinearSolverKind::dense, esdirk::LinearSolverKind::banded,
                      esdirk::LinearSolverKind::sparse})
    for (bool algebraic : {false, true})
      BOOST_TEST_CONTEXT(esdirk::linear_solver_name(solver) << ", algebraic " << algebraic) {
        BOOST_TEST(allocations_while_integrating(solver, algebraic, true, true) == 0);
      }
}

BOOST_AUTO_TEST_CASE(the_suitesparse_counter_counts) {
  SuiteSparse_config.malloc_func = counting_malloc;
  suitesparse_allocations = 0;
  counting_new::enabled = true;
  void* p = SuiteSparse_malloc(10, sizeof(double));
  counting_new::enabled = false;
  SuiteSparse_free(p);
  BOOST_TEST(suitesparse_allocations == 1);
}
