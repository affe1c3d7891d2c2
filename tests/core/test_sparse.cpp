// Banded and sparse linear algebra: the three back-ends of the stage linear system agree,
// coloured differences equal dense differences, the colouring is as small as promised, the
// pattern checker names missing entries, and every kind of bad input is refused clearly.

#define BOOST_TEST_MODULE esdirk banded and sparse linear algebra
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "brusselator_1d.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/stage_linear_system.hpp"

using esdirk::LinearSolverKind;
using esdirk::SparsityPattern;
using test_problems::Brusselator1d;

namespace {

bool message_contains(const std::exception& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

// Integrates the Brusselator (optionally with its algebraic state) to t = 2 with `solver`.
std::vector<double> solve_brusselator(LinearSolverKind solver, bool algebraic, bool analytic,
                                      esdirk::Statistics* stats = nullptr) {
  Brusselator1d problem(20, algebraic, analytic);
  problem.set_jacobian_pattern(problem.pattern(), solver);
  esdirk::Options options;
  options.rtol = 1e-8;
  options.atol = 1e-10;
  esdirk::Integrator integrator(problem, options);
  const auto x0 = problem.initial_state();
  const auto z0 = problem.initial_algebraic();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, x0, z0, {})));
  std::vector<double> x(x0.size()), z(z0.size());
  BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(2.0, x, z)));
  if (stats != nullptr) *stats = integrator.statistics();
  x.insert(x.end(), z.begin(), z.end());
  return x;
}

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(std::abs(a[i]), 1e-300));
  return worst;
}

// A random well-conditioned J with the Brusselator's pattern (for the solve tests).
esdirk::JacobianMatrix random_jacobian(const esdirk::JacobianStructure& s, int n, unsigned seed) {
  esdirk::JacobianMatrix J(n, s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if (J.is_dense()) {
    const auto& p = *s.pattern;
    for (int j = 0; j < n; ++j)
      for (int k = p.column_pointers()[j]; k < p.column_pointers()[j + 1]; ++k)
        J.dense()(p.row_indices()[k], j) = u(rng);
  } else {
    for (int k = 0; k < J.pattern().nonzeros(); ++k) J.sparse().values[k] = u(rng);
  }
  return J;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(back_ends)

BOOST_AUTO_TEST_CASE(dense_banded_and_sparse_give_the_same_solution) {
  for (bool algebraic : {false, true}) {
    const auto dense = solve_brusselator(LinearSolverKind::dense, algebraic, true);
    const auto banded = solve_brusselator(LinearSolverKind::banded, algebraic, true);
    const auto sparse = solve_brusselator(LinearSolverKind::sparse, algebraic, true);
    BOOST_TEST_CONTEXT("algebraic state: " << algebraic) {
      BOOST_TEST(max_relative_difference(dense, banded) <= 1e-12);
      BOOST_TEST(max_relative_difference(dense, sparse) <= 1e-12);
    }
  }
}

BOOST_AUTO_TEST_CASE(each_back_end_solves_and_solves_transposed) {
  for (bool algebraic : {false, true}) {
    Brusselator1d problem(15, algebraic);
    const int nx = problem.nx(), nz = problem.nz(), n = problem.size();
    for (LinearSolverKind kind : {LinearSolverKind::dense, LinearSolverKind::banded, LinearSolverKind::sparse}) {
      problem.set_jacobian_pattern(problem.pattern(), kind);
      const auto& s = problem.jacobian_structure();
      const esdirk::JacobianMatrix J = random_jacobian(s, n, 7);
      esdirk::StageLinearSystem system(nx, nz, s);
      BOOST_TEST((system.kind() == kind));
      const double hg = 0.3;
      BOOST_REQUIRE(system.factor(J, hg, 0) == 0);
      BOOST_TEST(system.h_gamma() == hg);
      // M = E - hg J applied to the solution must give back the right-hand side.
      for (bool transposed : {false, true}) {
        esdirk::DenseMatrix B(n, 2), X(n, 2);
        for (int c = 0; c < 2; ++c)
          for (int i = 0; i < n; ++i) B(i, c) = X(i, c) = std::sin(1.0 + i + 3.0 * c);
        transposed ? system.solve_transposed(X.ref()) : system.solve(X.ref());
        double worst = 0.0;
        for (int c = 0; c < 2; ++c)
          for (int i = 0; i < n; ++i) {
            double r = -B(i, c);
            for (int k = 0; k < n; ++k) {
              const int row = transposed ? k : i, col = transposed ? i : k;
              const double m = (row < nx ? -hg * J(row, col) : J(row, col)) + (row == col && row < nx ? 1.0 : 0.0);
              r += m * X(k, c);
            }
            worst = std::max(worst, std::abs(r));
          }
        BOOST_TEST_CONTEXT(esdirk::linear_solver_name(kind) << (transposed ? " transposed" : "") << ", nz = " << nz) {
          BOOST_TEST(worst <= 1e-12);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_zero_pivot_is_reported_by_each_back_end) {
  // J = 0 on the algebraic row except a structural entry whose value is zero: M singular.
  Brusselator1d problem(5, true);
  const int nx = problem.nx(), nz = problem.nz(), n = problem.size();
  for (LinearSolverKind kind : {LinearSolverKind::dense, LinearSolverKind::banded, LinearSolverKind::sparse}) {
    problem.set_jacobian_pattern(problem.pattern(), kind);
    esdirk::JacobianMatrix J(n, problem.jacobian_structure());  // all zero: g_z = 0
    esdirk::StageLinearSystem system(nx, nz, problem.jacobian_structure());
    BOOST_TEST_CONTEXT(esdirk::linear_solver_name(kind)) { BOOST_TEST(system.factor(J, 0.1, 0) > 0); }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(colouring)

// With increment floors (DifferenceIncrement::error_weighted) as well, at a point where some
// states are tiny, zero or negative: one increment rule for both.
BOOST_AUTO_TEST_CASE(coloured_differences_equal_dense_differences) {
  for (bool algebraic : {false, true})
  for (bool floored : {false, true}) {
    Brusselator1d coloured(30, algebraic, false), plain(30, algebraic, false);
    coloured.set_jacobian_pattern(coloured.pattern(), LinearSolverKind::sparse);
    const int n = coloured.size();
    auto x = coloured.initial_state();
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += 0.1 * std::cos(static_cast<double>(i));  // generic point
    if (floored) {
      x[3] = 1e-20;
      x[7] = 0.0;
      x[11] = -3e-15;
    }
    const auto z = coloured.initial_algebraic();
    std::vector<double> f(x.size()), g(z.size());
    BOOST_REQUIRE(plain.evaluate(0.0, x, z, {}, f, g) == 0);

    esdirk::Statistics sparse_stats, dense_stats;
    esdirk::JacobianEvaluator sparse_evaluator(coloured, sparse_stats), dense_evaluator(plain, dense_stats);
    if (floored) {
      std::vector<double> floors(static_cast<std::size_t>(n));
      for (int j = 0; j < n; ++j) floors[static_cast<std::size_t>(j)] = 1e-4 * (1 + j % 3);
      floors[5] = 0.0;
      sparse_evaluator.set_increment_floors(floors);
      dense_evaluator.use_increments_of(sparse_evaluator);
    }
    esdirk::JacobianMatrix Js(n, coloured.jacobian_structure());
    esdirk::DenseMatrix Jd(n, n);
    BOOST_REQUIRE(sparse_evaluator.state_jacobian(0.0, x, z, {}, f, g, Js) == 0);
    BOOST_REQUIRE(dense_evaluator.state_jacobian(0.0, x, z, {}, f, g, Jd.ref()) == 0);
    double worst = 0.0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double scale = std::max(1.0, std::abs(Jd(i, j)));
        worst = std::max(worst, std::abs(Js(i, j) - Jd(i, j)) / scale);
      }
    BOOST_TEST_CONTEXT("algebraic state: " << algebraic << ", floors: " << floored) {
      BOOST_TEST(worst <= 1e-13);
      // One f evaluation per colour, counted; n without the pattern.
      BOOST_TEST(sparse_stats.fd_function_evaluations == sparse_evaluator.colours());
      BOOST_TEST(dense_stats.fd_function_evaluations == n);
      // Without the algebraic row (which couples every u): optimal, one colour per entry of a row.
      if (!algebraic) BOOST_TEST(sparse_evaluator.colours() == coloured.pattern().max_row_count());
    }
  }
}

BOOST_AUTO_TEST_CASE(colours_of_a_band_stay_within_the_rows_of_jtj) {
  for (auto [n, lower, upper] : {std::tuple{60, 2, 3}, std::tuple{50, 0, 4}, std::tuple{40, 5, 1}}) {
    const SparsityPattern band = SparsityPattern::banded(n, lower, upper);
    const std::vector<int> colour = esdirk::colour_columns(band);
    const int colours = 1 + *std::max_element(colour.begin(), colour.end());
    // The largest number of entries in a row of the pattern of JᵀJ: columns j, k are coupled
    // if they share a row.
    int max_jtj_row = 0;
    for (int j = 0; j < n; ++j) {
      std::set<int> coupled;
      for (int i = 0; i < n; ++i)
        if (band.find(i, j) >= 0)
          for (int k = 0; k < n; ++k)
            if (band.find(i, k) >= 0) coupled.insert(k);
      max_jtj_row = std::max(max_jtj_row, static_cast<int>(coupled.size()));
    }
    // A valid distance-2 colouring: no two columns of one colour share a row.
    bool valid = true;
    for (int i = 0; i < n; ++i) {
      std::set<int> seen;
      for (int j = 0; j < n; ++j)
        if (band.find(i, j) >= 0 && !seen.insert(colour[j]).second) valid = false;
    }
    BOOST_TEST_CONTEXT("n " << n << " lower " << lower << " upper " << upper) {
      BOOST_TEST(valid);
      BOOST_TEST(colours <= max_jtj_row);
      BOOST_TEST(colours == lower + upper + 1);  // optimal on a band
    }
  }
}

BOOST_AUTO_TEST_CASE(an_integration_with_coloured_differences_counts_colours_per_jacobian) {
  esdirk::Statistics stats;
  const auto coloured = solve_brusselator(LinearSolverKind::sparse, false, false, &stats);
  const auto analytic = solve_brusselator(LinearSolverKind::sparse, false, true);
  BOOST_TEST(max_relative_difference(coloured, analytic) <= 1e-5);
  Brusselator1d probe(20);
  probe.set_jacobian_pattern(probe.pattern());
  esdirk::Statistics unused;
  const int colours = esdirk::JacobianEvaluator(probe, unused).colours();
  // Per Jacobian: the colours and one evaluation at the base point.
  BOOST_TEST(stats.fd_function_evaluations == stats.jacobian_evaluations * (colours + 1));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pattern_checker)

BOOST_AUTO_TEST_CASE(a_correct_pattern_and_jacobian_pass) {
  Brusselator1d problem(10, true);
  problem.set_jacobian_pattern(problem.pattern());
  const auto x = problem.initial_state();
  const auto z = problem.initial_algebraic();
  const auto report = esdirk::check_jacobian_pattern(problem, 0.0, x, z, {});
  BOOST_TEST(report.ok, report.summary());
}

BOOST_AUTO_TEST_CASE(a_pattern_that_misses_entries_is_named) {
  // The tridiagonal band misses the coupling u_i <-> u_{i+1} two columns away.
  Brusselator1d problem(10, false, false);
  problem.set_jacobian_bandwidths(1, 1);
  const auto x = problem.initial_state();
  const auto report = esdirk::check_jacobian_pattern(problem, 0.0, x, {}, {});
  BOOST_TEST(!report.ok);
  BOOST_TEST(report.missing_count == 2 * (2 * 10 - 2));  // (i, i +- 2) for every species
  BOOST_REQUIRE(!report.missing.empty());
  BOOST_TEST(std::abs(report.missing[0].row - report.missing[0].col) == 2);
  BOOST_TEST(report.summary().find("missing from the pattern") != std::string::npos);
  BOOST_TEST(report.summary().find("df[") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_user_jacobian_writing_outside_its_pattern_is_detected) {
  // The analytic Jacobian writes the +-2 couplings, which the declared band does not hold.
  Brusselator1d problem(10);
  problem.set_jacobian_bandwidths(1, 1);
  const auto x = problem.initial_state();
  const auto report = esdirk::check_jacobian_pattern(problem, 0.0, x, {}, {});
  BOOST_TEST(!report.ok);
  BOOST_TEST(report.callback_error.find("outside its pattern") != std::string::npos);
  BOOST_TEST(report.callback_error.find("is not in the sparsity pattern") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_wrong_value_in_the_pattern_is_named) {
  Brusselator1d problem(6);
  esdirk::FunctionProblem wrong(
      problem.nx(), 0, 0, [&](double t, auto x, auto z, auto p, auto f) { return problem.evaluate(t, x, z, p, f, {}); });
  wrong.set_jacobian_pattern(problem.pattern());
  wrong.set_sparse_jacobian([&](double t, auto x, auto z, auto p, esdirk::SparseMatrixRef J) {
    problem.sparse_jacobian(t, x, z, p, J);
    J.at(3, 1) *= 2.0;
    return 0;
  });
  const auto x = problem.initial_state();
  const auto report = esdirk::check_jacobian_pattern(wrong, 0.0, x, {}, {});
  BOOST_TEST(!report.ok);
  BOOST_REQUIRE(report.wrong.size() == 1u);
  BOOST_TEST(report.wrong[0].row == 3);
  BOOST_TEST(report.wrong[0].col == 1);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(a_pattern_with_an_out_of_range_row_is_refused) {
  try {
    SparsityPattern(3, {0, 1, 2, 3}, {0, 3, 2});
    BOOST_FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(message_contains(e, "row index 3 in column 1 is outside [0, 3)"), e.what());
  }
  BOOST_CHECK_THROW(SparsityPattern(3, {0, 1, 2, 3}, {0, -1, 2}), std::invalid_argument);
  const int rows[] = {0, 1}, cols[] = {0, 5};
  BOOST_CHECK_THROW(SparsityPattern::from_entries(3, rows, cols), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_pattern_with_a_duplicate_entry_is_refused) {
  try {
    SparsityPattern(3, {0, 1, 3, 4}, {0, 1, 1, 2});
    BOOST_FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(message_contains(e, "entry (1, 1) is listed twice"), e.what());
  }
  const int rows[] = {2, 0, 2}, cols[] = {1, 0, 1};
  BOOST_CHECK_THROW(SparsityPattern::from_entries(3, rows, cols), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(malformed_column_pointers_are_refused) {
  BOOST_CHECK_THROW(SparsityPattern(3, {0, 1, 2}, {0, 1}), std::invalid_argument);        // too few
  BOOST_CHECK_THROW(SparsityPattern(3, {1, 1, 2, 3}, {0, 1, 2}), std::invalid_argument);  // not 0
  BOOST_CHECK_THROW(SparsityPattern(3, {0, 2, 1, 3}, {0, 1, 2}), std::invalid_argument);  // decreasing
  BOOST_CHECK_THROW(SparsityPattern(3, {0, 1, 2, 4}, {0, 1, 2}), std::invalid_argument);  // count
  Brusselator1d problem(4);
  BOOST_CHECK_THROW(problem.set_jacobian_pattern(SparsityPattern::banded(5, 1, 1)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(bandwidths_larger_than_n_or_negative_are_refused) {
  Brusselator1d problem(4);  // n = 8
  for (auto [lower, upper] : {std::pair{8, 1}, std::pair{1, 8}, std::pair{-1, 1}, std::pair{1, -2}}) {
    try {
      problem.set_jacobian_bandwidths(lower, upper);
      BOOST_FAIL("no exception");
    } catch (const std::invalid_argument& e) {
      BOOST_TEST(message_contains(e, "0 <= lower, upper < n = 8"), e.what());
    }
  }
  BOOST_CHECK_THROW(SparsityPattern::banded(8, 9, 0), std::invalid_argument);
  BOOST_TEST((problem.jacobian_structure().solver == LinearSolverKind::dense));  // unchanged
}

BOOST_AUTO_TEST_CASE(a_structurally_singular_sparse_matrix_names_a_column) {
  // x' = -x, 0 = x - 1 + 0 * z: no equation determines z (the pattern has no g_z entry).
  esdirk::FunctionProblem problem(
      1, 1, 0, [](double, auto x, auto, auto, auto f) { f[0] = -x[0]; return 0; },
      [](double, auto x, auto, auto, auto g) { g[0] = x[0] - 1.0; return 0; });
  const int rows[] = {0, 1}, cols[] = {0, 0};
  problem.set_jacobian_pattern(SparsityPattern::from_entries(2, rows, cols));
  try {
    esdirk::Integrator integrator(problem);
    BOOST_FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(message_contains(e, "structurally singular"), e.what());
    BOOST_TEST(message_contains(e, "column 1 (state z[0])"), e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_banded_problem_with_only_a_dense_jacobian_is_refused) {
  esdirk::FunctionProblem problem(3, 0, 0, [](double, auto x, auto, auto, auto f) {
    for (int i = 0; i < 3; ++i) f[i] = -x[i];
    return 0;
  });
  problem.set_jacobian([](double, auto, auto, auto, esdirk::MatrixRef J) {
    J.fill(0.0);
    return 0;
  });
  problem.set_jacobian_bandwidths(1, 1);
  BOOST_CHECK_THROW(esdirk::Integrator integrator(problem), std::invalid_argument);
}

// JacobianMatrix::copy_values_from (the kept J of Options::reuse_jacobian) copies every entry
// in either storage and refuses a matrix of another size or storage.
BOOST_AUTO_TEST_CASE(copying_jacobian_values_needs_the_same_storage) {
  Brusselator1d problem(6);
  const int n = problem.size();
  for (auto solver : {esdirk::LinearSolverKind::dense, esdirk::LinearSolverKind::banded,
                      esdirk::LinearSolverKind::sparse}) {
    problem.set_jacobian_pattern(problem.pattern(), solver);
    const esdirk::JacobianMatrix source = random_jacobian(problem.jacobian_structure(), n, 3);
    esdirk::JacobianMatrix copy(n, problem.jacobian_structure());
    copy.copy_values_from(source);
    double difference = 0.0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) difference = std::max(difference, std::abs(copy(i, j) - source(i, j)));
    BOOST_TEST_INFO(esdirk::linear_solver_name(solver));
    BOOST_TEST(difference == 0.0);
    esdirk::JacobianMatrix other_size(n + 2);
    BOOST_CHECK_THROW(other_size.copy_values_from(source), std::invalid_argument);
  }
  problem.set_jacobian_pattern(problem.pattern(), esdirk::LinearSolverKind::sparse);
  esdirk::JacobianMatrix sparse(n, problem.jacobian_structure()), dense(n);
  BOOST_CHECK_THROW(dense.copy_values_from(sparse), std::invalid_argument);
  BOOST_CHECK_THROW(sparse.copy_values_from(dense), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_sparse_jacobian_callback_writing_outside_its_pattern_throws) {
  Brusselator1d problem(5);
  problem.set_jacobian_bandwidths(1, 1);
  esdirk::Integrator integrator(problem);
  const auto x0 = problem.initial_state();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, x0, {}, {})));
  std::vector<double> x(x0.size());
  BOOST_CHECK_THROW(integrator.integrate_to(0.1, x), std::out_of_range);
}

BOOST_AUTO_TEST_SUITE_END()
