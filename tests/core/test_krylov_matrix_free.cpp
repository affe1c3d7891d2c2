// Matrix-free Newton-Krylov and the problem's own preconditioner (LinearSolverKind::krylov):
// products J v from the problem or from a difference quotient of f give the direct solver's
// answer to the integration tolerance, also when J is formed only on the preconditioner's
// blocks; the difference quotient is J v to its rounding; a preconditioner written by the user
// that is the built-in one gives the same bits; a failing one ends the run with
// Status::linear_solver_failures, a message naming it and the last good state kept.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "brusselator_mol/brusselator_2d_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/stage_linear_system.hpp"
#include "krylov_fixtures.hpp"

using esdirk::ConstVector;
using esdirk::LinearSolverKind;
using esdirk::Vector;
using krylov_fixtures::relative_difference;
using Run = krylov_fixtures::GridRun;

namespace {

// The 2-D Brusselator with what a matrix-free user brings: its exact J v (the stencil, never
// forming J), optionally J only on the 2 x 2 blocks of each grid point (what a block-Jacobi
// preconditioner uses), optionally that J by coloured differences instead of analytically, and
// optionally a Jacobi preconditioner of its own.
class Grid : public brusselator_mol::Model2d {
 public:
  enum class Pattern { full, point_blocks };
  struct Choice {
    bool exact_product = false;
    bool analytic_jacobian = true;
    Pattern pattern = Pattern::full;
    bool own_jacobi = false;
  };
  Grid(int side, Choice choice) : Model2d(side), choice_(choice), diagonal_(static_cast<std::size_t>(size())) {
    set_jacobian_pattern(choice.pattern == Pattern::full ? pattern() : point_blocks(), LinearSolverKind::krylov);
  }

  esdirk::SparsityPattern point_blocks() const {
    std::vector<int> rows, cols;
    for (int k = 0; k < points(); ++k)
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
          rows.push_back(2 * k + r);
          cols.push_back(2 * k + c);
        }
    return esdirk::SparsityPattern::from_entries(size(), rows, cols);
  }

  bool has_sparse_jacobian() const override { return choice_.analytic_jacobian; }
  bool has_jacobian_vector_product() const override { return choice_.exact_product; }
  int jacobian_vector_product(double, ConstVector x, ConstVector, ConstVector p, ConstVector v,
                              Vector out) override {
    ++products;
    jacobian_product(x.data(), p.data(), v.data(), out.data());
    return 0;
  }

  // Jacobi: P = diag(M), M = E - h gamma J, written as the built-in block-Jacobi of block size
  // 1 forms and applies it (the same operations, so the same bits).
  bool has_preconditioner() const override { return choice_.own_jacobi; }
  int preconditioner_setup(double, ConstVector, ConstVector, ConstVector, const esdirk::JacobianMatrix& J,
                           double h_gamma) override {
    ++setups;
    if (fail_setup) return 1;
    for (int i = 0; i < size(); ++i) diagonal_[static_cast<std::size_t>(i)] = -h_gamma * J(i, i) + 1.0;
    return 0;
  }
  int preconditioner_solve(ConstVector r, Vector out, bool) override {
    ++solves;
    for (int i = 0; i < size(); ++i)
      out[static_cast<std::size_t>(i)] = r[static_cast<std::size_t>(i)] / diagonal_[static_cast<std::size_t>(i)];
    if (nan_solve) out[0] = std::numeric_limits<double>::quiet_NaN();
    return 0;
  }

  long products = 0, setups = 0, solves = 0;
  bool fail_setup = false, nan_solve = false;

 private:
  Choice choice_;
  std::vector<double> diagonal_;
};

Run integrate(esdirk::Problem& model, const std::vector<double>& y0, double rtol, double min_step = 0.0) {
  return krylov_fixtures::run_to_2(model, y0, brusselator_mol::Model2d(2).nominal_parameters(), rtol, min_step);
}

Run direct_run(int side, double rtol) {
  brusselator_mol::Model2d model(side);
  model.set_jacobian_pattern(model.pattern(), LinearSolverKind::sparse);
  return integrate(model, model.initial_state(), rtol);
}

// The built-in block-Jacobi preconditioner (the user preconditioners below copy it).
esdirk::KrylovSettings settings(bool matrix_free, int block_size) {
  esdirk::KrylovSettings s;
  s.matrix_free = matrix_free;
  s.preconditioner = esdirk::KrylovPreconditioner::block_jacobi;
  s.block_size = block_size;
  return s;
}


}  // namespace

BOOST_AUTO_TEST_SUITE(krylov_matrix_free)

// The same discrete scheme whatever gives J v: the stages are solved to the Newton tolerance, so
// every matrix-free run agrees with KLU to the integration tolerance, also with J only on the
// points' 2 x 2 blocks (the full J is never formed: the difference J of the blocks takes 2
// evaluations). The counters say where the products came from.
BOOST_AUTO_TEST_CASE(matrix_free_products_give_the_direct_solvers_answer_to_the_tolerance) {
  const double rtol = 1e-5;
  const auto direct = direct_run(10, rtol);
  for (bool exact : {false, true})
    for (auto pattern : {Grid::Pattern::full, Grid::Pattern::point_blocks})
      for (bool analytic : {true, false}) {
        Grid model(10, {exact, analytic, pattern, false});
        model.set_krylov_settings(settings(true, 2));
        const auto run = integrate(model, model.initial_state(), rtol);
        BOOST_TEST_CONTEXT("exact J v " << exact << ", point blocks " << (pattern == Grid::Pattern::point_blocks)
                                        << ", analytic J " << analytic) {
          BOOST_TEST_INFO(esdirk::status_name(run.status) << ": " << run.message);
          BOOST_REQUIRE(esdirk::ok(run.status));
          BOOST_TEST(relative_difference(run.y, direct.y) <= rtol);
          BOOST_TEST(std::abs(run.stats.accepted_steps - direct.stats.accepted_steps) <=
                     std::max(3L, direct.stats.accepted_steps / 10));
          const auto& s = run.stats;
          BOOST_TEST(s.linear_solver_failures == 0);
          if (exact) BOOST_TEST(model.products == s.jacobian_vector_products);
          // A difference product is one evaluation, and each setup one more for F at the point.
          const long product_evaluations = exact ? 0 : s.jacobian_vector_products + s.preconditioner_setups;
          if (analytic) BOOST_TEST(s.fd_function_evaluations == product_evaluations);
          if (!analytic && pattern == Grid::Pattern::point_blocks)  // 2 colours (+ the base at t_n)
            BOOST_TEST(s.fd_function_evaluations <= product_evaluations + 3 * s.jacobian_evaluations);
        }
      }
}

// GMRES with the difference quotient solves the system with the exact M: asked for a relative
// residual of 1e-7 (the quotient's own error is of order sqrt(eps) relative, so GMRES cannot
// reliably go much below), the residual with the exact M is within 2e-7; with the problem's
// exact J v GMRES reaches 1e-10. The matrix-free back-end refuses transposed solves.
BOOST_AUTO_TEST_CASE(the_difference_quotient_is_j_v_to_its_rounding) {
  for (bool exact : {false, true}) {
    Grid model(6, {exact, true, Grid::Pattern::full, false});
    esdirk::KrylovSettings s = settings(true, 2);
    s.tolerance = exact ? 1e-10 : 1e-7;
    s.dimension = 40;
    s.max_restarts = 10;
    model.set_krylov_settings(s);
    const int n = model.size();
    const auto y = model.initial_state();
    const auto p = model.nominal_parameters();
    esdirk::JacobianMatrix J(n, model.jacobian_structure());
    BOOST_REQUIRE(model.sparse_jacobian(0.0, y, {}, p, J.sparse()) == 0);
    J.record_point(model, 0.0, y, {}, p);
    esdirk::StageLinearSystem krylov(n, 0, model.jacobian_structure());
    esdirk::Statistics stats;
    krylov.set_statistics(&stats);
    const double hg = 0.05;
    BOOST_REQUIRE(krylov.factor(J, hg, 0) == 0);
    std::vector<double> b(static_cast<std::size_t>(n)), x(b.size());
    for (int i = 0; i < n; ++i) b[i] = x[i] = std::sin(1.0 + i);
    krylov.solve(esdirk::MatrixRef{x.data(), n, 1, n});
    BOOST_TEST(krylov.last_solve_converged());
    double r2 = 0.0, b2 = 0.0;
    for (int i = 0; i < n; ++i) {
      double r = x[i] - b[i];
      for (int k = 0; k < n; ++k) r -= hg * J(i, k) * x[k];
      r2 += r * r;
      b2 += b[i] * b[i];
    }
    BOOST_TEST_CONTEXT("exact J v " << exact) {
      BOOST_TEST_INFO("relative residual with the exact M " << std::sqrt(r2 / b2));
      BOOST_TEST(std::sqrt(r2 / b2) <= (exact ? 1e-10 : 2e-7));
      BOOST_TEST(stats.fd_function_evaluations == (exact ? 0 : stats.jacobian_vector_products + 1));
    }
    BOOST_CHECK_THROW(krylov.solve_transposed(esdirk::MatrixRef{x.data(), n, 1, n}), std::logic_error);
  }
}

// A Jacobi preconditioner written by the user performs the built-in block-Jacobi's operations
// for block size 1: the runs agree bit for bit, counter for counter; each setup of the stage
// system calls the user's setup, each application its solve.
BOOST_AUTO_TEST_CASE(a_user_jacobi_preconditioner_gives_the_built_in_jacobi_bit_for_bit) {
  for (bool matrix_free : {false, true}) {
    Grid built_in(8, {false, true, Grid::Pattern::full, false});
    Grid own(8, {false, true, Grid::Pattern::full, true});
    built_in.set_krylov_settings(settings(matrix_free, 1));
    own.set_krylov_settings(settings(matrix_free, 1));
    const auto a = integrate(built_in, built_in.initial_state(), 1e-5);
    const auto b = integrate(own, own.initial_state(), 1e-5);
    BOOST_TEST_CONTEXT("matrix-free " << matrix_free) {
      BOOST_REQUIRE(esdirk::ok(b.status));
      BOOST_TEST(a.y == b.y);
      BOOST_TEST(a.stats.linear_iterations == b.stats.linear_iterations);
      BOOST_TEST(a.stats.accepted_steps == b.stats.accepted_steps);
      BOOST_TEST(own.setups >= b.stats.preconditioner_setups);  // + a setup redone for the other stage system
      BOOST_TEST(b.stats.preconditioner_setups > 0);
      BOOST_TEST(own.solves == b.stats.preconditioner_solves);
      BOOST_TEST(built_in.solves == 0);
    }
  }
}

// Two stage systems share the problem's preconditioner: one set up before the other redoes its
// setup before it solves again, so its solves are its own.
BOOST_AUTO_TEST_CASE(a_stage_system_set_up_before_another_solves_with_its_own_preconditioner) {
  Grid model(6, {false, true, Grid::Pattern::full, true});
  model.set_krylov_settings(settings(false, 1));
  const int n = model.size();
  const auto y = model.initial_state();
  const auto p = model.nominal_parameters();
  esdirk::JacobianMatrix J(n, model.jacobian_structure());
  BOOST_REQUIRE(model.sparse_jacobian(0.0, y, {}, p, J.sparse()) == 0);
  J.record_point(model, 0.0, y, {}, p);
  esdirk::StageLinearSystem first(n, 0, model.jacobian_structure()), second(n, 0, model.jacobian_structure());
  std::vector<double> alone(static_cast<std::size_t>(n)), after(alone.size());
  for (int i = 0; i < n; ++i) alone[i] = after[i] = std::cos(0.5 + i);
  BOOST_REQUIRE(first.factor(J, 0.02, 0) == 0);
  first.solve(esdirk::MatrixRef{alone.data(), n, 1, n});
  BOOST_REQUIRE(second.factor(J, 0.3, 0) == 0);
  const long setups = model.setups;
  first.solve(esdirk::MatrixRef{after.data(), n, 1, n});
  BOOST_TEST(model.setups == setups + 1);
  BOOST_TEST(alone == after);
}

// A preconditioner whose setup fails, or whose solve returns NaN: the stage solves fail, the
// step is retried down to min_step, and the run ends with linear_solver_failures naming the
// preconditioner, the initial state (the last good one) kept.
BOOST_AUTO_TEST_CASE(a_failing_preconditioner_stops_with_linear_solver_failures_and_keeps_the_state) {
  for (bool nan_solve : {false, true}) {
    Grid model(6, {false, true, Grid::Pattern::full, true});
    model.set_krylov_settings(settings(false, 1));
    model.fail_setup = !nan_solve;
    model.nan_solve = nan_solve;
    const auto y0 = model.initial_state();
    const auto run = integrate(model, y0, 1e-5, 1e-3);
    BOOST_TEST_CONTEXT("NaN from the solve " << nan_solve) {
      BOOST_TEST_INFO(esdirk::status_name(run.status) << ": " << run.message);
      BOOST_TEST((run.status == esdirk::Status::linear_solver_failures));
      BOOST_TEST(run.message.find("preconditioner") != std::string::npos);
      BOOST_TEST(run.stats.linear_solver_failures > 0);
      BOOST_TEST(run.stats.accepted_steps == 0);
      BOOST_TEST(run.t == 0.0);
      BOOST_TEST(run.y == y0);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
