// The Krylov stage solver's built-in preconditioners (KrylovPreconditioner): ILU(0) is the exact
// LU where the pattern has no fill (a tridiagonal J: one GMRES iteration per solve), needs
// fewer GMRES iterations than block-Jacobi on a grid with the same answer, counts its work as
// block-Jacobi does, and a zero or non-finite pivot of its factors fails the setup: the run
// ends with Status::singular_iteration_matrix, the last good state and a message naming the
// pivot's row, where block-Jacobi with pivoting over the whole block succeeds.

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "brusselator_mol/brusselator_2d_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/stage_linear_system.hpp"
#include "internal/incomplete_lu_preconditioner.hpp"
#include "krylov_fixtures.hpp"

using esdirk::ConstVector;
using esdirk::KrylovPreconditioner;
using esdirk::LinearSolverKind;
using esdirk::Vector;
using krylov_fixtures::GridRun;
using krylov_fixtures::relative_difference;

namespace {

esdirk::KrylovSettings with(KrylovPreconditioner preconditioner) {
  esdirk::KrylovSettings settings = krylov_fixtures::point_blocks();
  settings.preconditioner = preconditioner;
  return settings;
}

GridRun grid(int side, double rtol, LinearSolverKind solver, esdirk::KrylovSettings settings = {}) {
  brusselator_mol::Model2d model(side);
  model.set_jacobian_pattern(model.pattern(), solver);
  if (solver == LinearSolverKind::krylov) model.set_krylov_settings(settings);
  return krylov_fixtures::run_to_2(model, model.initial_state(), model.nominal_parameters(), rtol, 0.0);
}

// u' = c (u_{i-1} - 2 u_i + u_{i+1}) - u_i^2 on 40 points, u = 1 at the left end, 0 at the
// right: J is tridiagonal, so ILU(0) has no fill to drop and is M's LU.
class Rod : public esdirk::Problem {
 public:
  static constexpr int points = 40;
  Rod() : Problem(points, 0, 0) {
    set_jacobian_pattern(esdirk::SparsityPattern::banded(points, 1, 1), LinearSolverKind::krylov);
  }
  int evaluate(double, ConstVector x, ConstVector, ConstVector, Vector f, Vector) override {
    const double c = (points + 1.0) * (points + 1.0);
    for (int i = 0; i < points; ++i) {
      const double west = i > 0 ? x[i - 1] : 1.0, east = i + 1 < points ? x[i + 1] : 0.0;
      f[i] = c * (west - 2.0 * x[i] + east) - x[i] * x[i];
    }
    return 0;
  }
};

// x' = -x, 0 = z2 - x, 0 = z1 + z2 - 1 (index 1: g_z = [0 1; 1 1]). M's row of z1 has a zero
// diagonal and, as f does not depend on z, nothing above it fills it: ILU(0) in the natural
// order meets a zero pivot at every h. Block-Jacobi over all three unknowns pivots.
class ZeroDiagonal : public esdirk::Problem {
 public:
  ZeroDiagonal() : Problem(1, 2, 0) {
    const std::vector<int> rows{0, 1, 2, 1, 2}, cols{0, 0, 1, 2, 2};
    set_jacobian_pattern(esdirk::SparsityPattern::from_entries(3, rows, cols), LinearSolverKind::krylov);
  }
  int evaluate(double, ConstVector x, ConstVector z, ConstVector, Vector f, Vector g) override {
    f[0] = -x[0];
    g[0] = z[1] - x[0];
    g[1] = z[0] + z[1] - 1.0;
    return 0;
  }
};

// A 2-species 12 x 12 grid's pattern (5-point stencil on each species, the two species of a
// point coupled) with the second species algebraic (nx = 144 of n = 288), the diagonal of
// every tenth differential row left out of J's pattern, and values that are not symmetric.
struct IrregularPattern {
  static constexpr int side = 12, n = 2 * side * side, nx = side * side;
  std::vector<int> rows, cols;
  std::vector<double> values;
  IrregularPattern() {
    for (int j = 0; j < n; ++j) {  // column j of J: the unknowns whose equations use unknown j
      const int point = j % nx, x = point % side, y = point / side, species = j / nx;
      std::vector<int> column{j, (j + nx) % n};
      if (x > 0) column.push_back(j - 1);
      if (x + 1 < side) column.push_back(j + 1);
      if (y > 0) column.push_back(j - side);
      if (y + 1 < side) column.push_back(j + side);
      std::sort(column.begin(), column.end());
      for (int i : column) {
        if (i == j && j % 10 == 3 && j < nx) continue;
        rows.push_back(i);
        cols.push_back(j);
        values.push_back(i == j ? 4.0 + 0.01 * j : std::sin(1.0 + i + 0.37 * j) / (1.0 + species));
      }
    }
  }
  esdirk::SparsityPattern pattern() const { return esdirk::SparsityPattern::from_entries(n, rows, cols); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(krylov_preconditioners)

// The Krylov back-end forms M v by gathering along the ILU(0)'s compressed rows (faster than
// the scatter along J's columns it replaced). Both sum row i over the columns in increasing
// order, so the product must equal the scatter's to the bit, on differential and algebraic rows
// and where J's pattern lacks the diagonal (an entry 0 in the rows).
BOOST_AUTO_TEST_CASE(ilu0_rows_give_m_times_v_with_the_bits_of_the_column_scatter) {
  const IrregularPattern J;
  const esdirk::SparsityPattern pattern = J.pattern();
  // J's values in the pattern's CSC order (from_entries sorts by column, then row).
  const std::vector<int>& ptr = pattern.column_pointers();
  const std::vector<int>& row_index = pattern.row_indices();
  std::vector<double> csc(row_index.size(), 0.0);
  for (std::size_t k = 0; k < J.rows.size(); ++k) csc[static_cast<std::size_t>(pattern.find(J.rows[k], J.cols[k]))] = J.values[k];
  esdirk::internal::IncompleteLuPreconditioner ilu(J.nx, pattern);
  ilu.arrange_rows(csc.data());
  const double h_gamma = 0.0371;
  std::vector<double> v(J.n), by_rows(J.n), scatter(J.n, 0.0);
  for (int i = 0; i < J.n; ++i) v[i] = std::cos(0.3 * i) * (1.0 + i % 7);
  ilu.multiply(v.data(), by_rows.data(), h_gamma);
  for (int j = 0; j < J.n; ++j)
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) scatter[row_index[k]] += csc[k] * v[j];
  for (int i = 0; i < J.nx; ++i) scatter[i] = v[i] - h_gamma * scatter[i];
  int differing = 0;
  for (int i = 0; i < J.n; ++i) differing += by_rows[i] != scatter[i];
  BOOST_TEST(differing == 0);
  // The solves, which multiply by the reciprocal pivots: the transposed one is the adjoint of
  // the plain one, <(LU)^{-1} a, b> = <a, (LU)^{-T} b>, to rounding.
  BOOST_TEST_REQUIRE(ilu.factor(csc.data(), h_gamma) == 0);
  std::vector<double> a(J.n), b(J.n);
  for (int i = 0; i < J.n; ++i) a[i] = std::sin(0.7 * i), b[i] = 1.0 / (1.0 + i);
  std::vector<double> solved_a = a, solved_b = b;
  ilu.solve(solved_a.data(), false);
  ilu.solve(solved_b.data(), true);
  double left = 0.0, right = 0.0, scale = 0.0;
  for (int i = 0; i < J.n; ++i) left += solved_a[i] * b[i], right += a[i] * solved_b[i], scale += std::abs(solved_a[i] * b[i]);
  BOOST_TEST(std::abs(left - right) <= 1e-13 * scale);
}

// The ILU(0) kernels take up to four vectors in one pass over the factors and M's rows (the
// forward sensitivities' directions); each vector's arithmetic is that of the one-vector pass, so
// every grouping (1 ... 6 vectors: groups of 4, 3, 2, 1) must give the same bits, for the
// products and for both solves.
BOOST_AUTO_TEST_CASE(ilu0_passes_over_several_vectors_give_the_bits_of_one_vector_at_a_time) {
  const IrregularPattern J;
  const esdirk::SparsityPattern pattern = J.pattern();
  std::vector<double> csc(pattern.row_indices().size(), 0.0);
  for (std::size_t k = 0; k < J.rows.size(); ++k) csc[static_cast<std::size_t>(pattern.find(J.rows[k], J.cols[k]))] = J.values[k];
  esdirk::internal::IncompleteLuPreconditioner ilu(J.nx, pattern);
  const double h_gamma = 0.0371;
  ilu.arrange_rows(csc.data());
  BOOST_TEST_REQUIRE(ilu.factor(csc.data(), h_gamma) == 0);
  const auto un = static_cast<std::size_t>(J.n);
  for (int count = 1; count <= 6; ++count) {
    const auto uc = static_cast<std::size_t>(count);
    std::vector<double> v(un * uc), product(un * uc), one(un);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::cos(0.3 * static_cast<double>(i)) * (1.0 + static_cast<double>(i % 5));
    std::vector<const double*> in(uc);
    std::vector<double*> out(uc), solved(uc), solved_transposed(uc);
    std::vector<double> plain = v, transposed = v;
    for (std::size_t c = 0; c < uc; ++c) {
      in[c] = v.data() + c * un;
      out[c] = product.data() + c * un;
      solved[c] = plain.data() + c * un;
      solved_transposed[c] = transposed.data() + c * un;
    }
    ilu.multiply(in.data(), out.data(), count, h_gamma);
    ilu.solve(solved.data(), count, false);
    ilu.solve(solved_transposed.data(), count, true);
    int differing = 0;
    for (std::size_t c = 0; c < uc; ++c) {
      ilu.multiply(in[c], one.data(), h_gamma);
      for (std::size_t i = 0; i < un; ++i) differing += one[i] != out[c][i];
      std::copy(in[c], in[c] + J.n, one.begin());
      ilu.solve(one.data(), false);
      for (std::size_t i = 0; i < un; ++i) differing += one[i] != solved[c][i];
      std::copy(in[c], in[c] + J.n, one.begin());
      ilu.solve(one.data(), true);
      for (std::size_t i = 0; i < un; ++i) differing += one[i] != solved_transposed[c][i];
    }
    BOOST_TEST_INFO("vectors " << count);
    BOOST_TEST(differing == 0);
  }
}

BOOST_AUTO_TEST_CASE(ilu0_is_the_exact_lu_of_a_tridiagonal_stage_matrix) {
  Rod rod;
  esdirk::KrylovSettings settings;  // ILU(0) is the default
  BOOST_TEST((settings.preconditioner == KrylovPreconditioner::ilu0));
  settings.dimension = 10;
  settings.tolerance = 1e-12;  // still one iteration: the preconditioned operator is I
  rod.set_krylov_settings(settings);
  esdirk::Options options;
  options.rtol = options.atol = 1e-6;
  esdirk::Integrator integrator(rod, options);
  std::vector<double> y(Rod::points, 0.0);
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, y, {}, {})));
  BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(0.5, y).status));
  const esdirk::Statistics& s = integrator.statistics();
  BOOST_TEST_MESSAGE("solves " << s.back_substitutions << ", GMRES iterations " << s.linear_iterations);
  BOOST_TEST(s.linear_iterations > 0);
  BOOST_TEST(s.linear_iterations <= s.back_substitutions);  // at most one per solve (none for b = 0)
  BOOST_TEST(s.linear_solver_failures == 0);
  // The same run with the band LU: the same steps, the same answer to the Newton tolerance.
  Rod banded;
  banded.set_jacobian_bandwidths(1, 1);
  esdirk::Integrator direct(banded, options);
  std::vector<double> yb(Rod::points, 0.0);
  BOOST_REQUIRE(esdirk::ok(direct.initialize(0.0, yb, {}, {})));
  BOOST_REQUIRE(esdirk::ok(direct.integrate_to(0.5, yb).status));
  BOOST_TEST(direct.statistics().accepted_steps == s.accepted_steps);
  BOOST_TEST(relative_difference(y, yb) < 1e-10);
}

// The 2-D Brusselator (24 x 24, n = 1152): both preconditioners give KLU's answer to the
// tolerance; ILU(0) needs fewer GMRES iterations per Newton iteration (it keeps the five-point
// couplings block-Jacobi drops). Measured: 1.27 against 2.28 at rtol 1e-5; ILU - KLU 0.06 rtol.
BOOST_AUTO_TEST_CASE(ilu0_needs_fewer_gmres_iterations_than_block_jacobi_with_the_same_answer) {
  const double rtol = 1e-5;
  const GridRun direct = grid(24, rtol, LinearSolverKind::sparse);
  const GridRun ilu = grid(24, rtol, LinearSolverKind::krylov, with(KrylovPreconditioner::ilu0));
  const GridRun blocks = grid(24, rtol, LinearSolverKind::krylov, with(KrylovPreconditioner::block_jacobi));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(ilu.status), ilu.message);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(blocks.status), blocks.message);
  const auto per_newton = [](const GridRun& r) {
    return static_cast<double>(r.stats.linear_iterations) / static_cast<double>(r.stats.newton_iterations);
  };
  BOOST_TEST_MESSAGE("GMRES per Newton: ILU(0) " << per_newton(ilu) << ", block-Jacobi " << per_newton(blocks)
                                                 << "; ILU - KLU " << relative_difference(ilu.y, direct.y) / rtol
                                                 << " rtol");
  BOOST_TEST(per_newton(ilu) < 0.7 * per_newton(blocks));
  BOOST_TEST(relative_difference(ilu.y, direct.y) <= rtol);
  BOOST_TEST(relative_difference(blocks.y, direct.y) <= rtol);
  for (const GridRun* r : {&ilu, &blocks}) {
    const esdirk::Statistics& s = r->stats;
    BOOST_TEST(s.preconditioner_setups == s.lu_factorizations);
    BOOST_TEST(s.preconditioner_solves >= s.linear_iterations + s.back_substitutions);
    BOOST_TEST(s.linear_solver_failures == 0);
  }
}

// A zero pivot (the ZeroDiagonal DAE) and a non-finite one (entries whose product overflows):
// factor() returns the 1-based row, as a singular M; block-Jacobi over the whole system pivots.
BOOST_AUTO_TEST_CASE(a_zero_or_non_finite_ilu0_pivot_fails_the_setup) {
  ZeroDiagonal model;
  esdirk::KrylovSettings settings;
  settings.dimension = 3;
  model.set_krylov_settings(settings);
  esdirk::JacobianMatrix J(3, model.jacobian_structure());
  const std::vector<double> y{1.0, 0.0, 1.0}, p;
  // J on the pattern, column by column: f_x, g1_x; g2_z1; g1_z2, g2_z2.
  const std::vector<double> values{-1.0, -1.0, 1.0, 1.0, 1.0};
  std::copy(values.begin(), values.end(), J.sparse().values);
  {
    esdirk::StageLinearSystem ilu(1, 2, model.jacobian_structure());
    BOOST_TEST(ilu.factor(J, 0.1, 0) == 2);  // row 2: g's first equation, on the column of z1
  }
  settings.preconditioner = KrylovPreconditioner::block_jacobi;
  settings.block_size = 3;
  model.set_krylov_settings(settings);
  {
    esdirk::StageLinearSystem blocks(1, 2, model.jacobian_structure());
    BOOST_TEST(blocks.factor(J, 0.1, 0) == 0);
  }
  // M = [1 -a; -a 1] with a = 1e300: u_22 = 1 - a^2 overflows.
  esdirk::FunctionProblem pair(2, 0, 0, [](double, ConstVector x, ConstVector, ConstVector, Vector f) {
    f[0] = 1e300 * x[1];
    f[1] = 1e300 * x[0];
    return 0;
  });  // only its structure is used: J is set below
  const std::vector<int> rows{0, 1}, cols{1, 0};
  pair.set_jacobian_pattern(esdirk::SparsityPattern::from_entries(2, rows, cols), LinearSolverKind::krylov);
  esdirk::KrylovSettings two;
  two.dimension = 2;
  pair.set_krylov_settings(two);
  esdirk::JacobianMatrix K(2, pair.jacobian_structure());
  K.sparse().values[0] = K.sparse().values[1] = 1e300;
  esdirk::StageLinearSystem overflow(2, 0, pair.jacobian_structure());
  BOOST_TEST(overflow.factor(K, 1.0, 0) == 2);
}

// The run with the zero pivot: every step is retried smaller (the pivot stays zero), then the
// run stops with singular_iteration_matrix, the initial state kept; block-Jacobi over all three
// unknowns integrates it (z1 = 1 - x, z2 = x).
BOOST_AUTO_TEST_CASE(an_ilu0_zero_pivot_ends_the_run_with_the_last_good_state) {
  for (KrylovPreconditioner choice : {KrylovPreconditioner::ilu0, KrylovPreconditioner::block_jacobi}) {
    ZeroDiagonal model;
    esdirk::KrylovSettings settings;
    settings.dimension = 3;
    settings.preconditioner = choice;
    settings.block_size = 3;
    model.set_krylov_settings(settings);
    esdirk::Options options;
    esdirk::Integrator integrator(model, options);
    std::vector<double> x{1.0}, z{0.0, 1.0};
    BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, x, z, {})));
    const esdirk::Outcome o = integrator.integrate_to(1.0, x, z);
    BOOST_TEST_CONTEXT(esdirk::krylov_preconditioner_name(choice) << ": " << esdirk::status_name(o.status) << " "
                                                                  << integrator.message()) {
      if (choice == KrylovPreconditioner::ilu0) {
        BOOST_TEST((o.status == esdirk::Status::singular_iteration_matrix));
        BOOST_TEST(integrator.message().find("singular") != std::string::npos);
        BOOST_TEST(integrator.t() == 0.0);
        BOOST_TEST(x[0] == 1.0);
        BOOST_TEST(integrator.statistics().accepted_steps == 0);
      } else {
        BOOST_REQUIRE(esdirk::ok(o.status));
        BOOST_TEST(std::abs(x[0] - std::exp(-1.0)) < 1e-4);
        BOOST_TEST(std::abs(z[0] - (1.0 - x[0])) < 1e-10);
      }
    }
  }
}

// The message of that run said only "the iteration matrix stayed singular after 12 step
// reductions": nothing named the preconditioner, the row or what to change. It now names the
// pivot's row as the model's equation and the ways out, in the adaptive and the fixed-step
// branch (ILU(0), and block-Jacobi with blocks of one, which meet the same zero), the state kept.
BOOST_AUTO_TEST_CASE(a_preconditioner_zero_pivot_is_named_in_the_message) {
  struct Case {
    KrylovPreconditioner choice;
    std::string words;
  };
  for (const Case& c :
       {Case{KrylovPreconditioner::ilu0, "(ILU(0) zero pivot in row 1 (g[0]); use KrylovPreconditioner::block_jacobi"},
        Case{KrylovPreconditioner::block_jacobi,
             "(block-Jacobi zero pivot in row 1 (g[0]); use a larger KrylovSettings::block_size"}}) {
    ZeroDiagonal model;
    esdirk::KrylovSettings settings;
    settings.dimension = 3;
    settings.preconditioner = c.choice;
    settings.block_size = 1;
    model.set_krylov_settings(settings);
    esdirk::Options options;
    const std::vector<double> x0{1.0}, z0{0.0, 1.0};
    {
      esdirk::Integrator integrator(model, options);
      BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, x0, z0, {})));
      std::vector<double> x(1), z(2);
      const esdirk::Outcome o = integrator.integrate_to(1.0, x, z);
      BOOST_TEST_MESSAGE(integrator.message());
      BOOST_TEST((o.status == esdirk::Status::singular_iteration_matrix));
      BOOST_TEST(integrator.message().find("stayed singular") != std::string::npos);
      BOOST_TEST(integrator.message().find(c.words) != std::string::npos);
      BOOST_TEST(integrator.t() == 0.0);
      BOOST_TEST(integrator.x()[0] == 1.0);
    }
    esdirk::Integrator integrator(model, options);
    BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, x0, z0, {})));
    BOOST_TEST((integrator.step_exactly(0.1) == esdirk::Status::singular_iteration_matrix));
    BOOST_TEST_INFO(integrator.message());
    BOOST_TEST(integrator.message().find("fixed step") != std::string::npos);
    BOOST_TEST(integrator.message().find(c.words) != std::string::npos);
    BOOST_TEST(integrator.t() == 0.0);
  }
}

BOOST_AUTO_TEST_SUITE_END()
