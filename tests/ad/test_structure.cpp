// The structure of J and [f_p; g_p] found automatically (Dependency, one evaluation per 64
// inputs) and the coloured forward mode on it: the same numbers as dense AD, bit for bit; a
// branch that adds a dependency at a new point is found there (the colouring of the first
// point would add two columns' entries); where colouring saves no lanes (Dow) the chunks stay;
// a model can opt out.

#include <boost/test/unit_test.hpp>
#include <array>
#include <algorithm>
#include <cmath>
#include <span>
#include <type_traits>
#include <vector>

#include "brusselator_1d.hpp"
#include "dow/dow_model.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "templated_models.hpp"

namespace {

using esdirk::DenseMatrix;
using esdirk::ad::ModelProblem;
using esdirk::ad::StructureDetection;

// Bit for bit: coloured and chunked forward mode compute every entry by the same operations.
void require_identical(const DenseMatrix& a, const DenseMatrix& b, const char* what) {
  BOOST_REQUIRE(a.rows() == b.rows());
  BOOST_REQUIRE(a.cols() == b.cols());
  for (int j = 0; j < a.cols(); ++j)
    for (int i = 0; i < a.rows(); ++i)
      BOOST_TEST_CONTEXT(what << " (" << i << ", " << j << ")") { BOOST_TEST(a(i, j) == b(i, j)); }
}

// A stiff chain with nx states and np parameters (node i driven by parameter i * np / nx), and
// one branch: while x[0] > 0 the first equation also depends on the last state (the far end),
// which the tridiagonal colouring gives the colour of column 0 when nx % 3 == 1.
struct BranchingChain {
  int nx = 16, np = 9;
  template <class T>
  int f(double, std::span<const T> x, std::span<const T>, std::span<const T> p, std::span<T> f) const {
    for (int i = 0; i < nx; ++i) {
      const T left = i > 0 ? x[static_cast<std::size_t>(i - 1)] : T(0.0);
      const T right = i + 1 < nx ? x[static_cast<std::size_t>(i + 1)] : T(0.0);
      const T& xi = x[static_cast<std::size_t>(i)];
      f[static_cast<std::size_t>(i)] = 30.0 * (left - 2.0 * xi + right) - xi * xi + p[static_cast<std::size_t>(i * np / nx)];
    }
    if (x[0] > 0.0) f[0] += 0.5 * x[0] * x[static_cast<std::size_t>(nx - 1)];
    return 0;
  }
};

// The chain with a parameter that multiplies its state: [f_p; g_p] changes from point to point.
struct ScaledChain {
  int nx = 20, np = 50;
  template <class T>
  int f(double, std::span<const T> x, std::span<const T>, std::span<const T> p, std::span<T> f) const {
    for (int i = 0; i < nx; ++i) {
      const T left = i > 0 ? x[static_cast<std::size_t>(i - 1)] : T(0.0);
      const T right = i + 1 < nx ? x[static_cast<std::size_t>(i + 1)] : T(0.0);
      const T& xi = x[static_cast<std::size_t>(i)];
      f[static_cast<std::size_t>(i)] = 30.0 * (left - 2.0 * xi + right) - xi * p[static_cast<std::size_t>(i * np / nx)];
    }
    return 0;
  }
};

// A model written for Dual and Var only: it opts out, and is never instantiated for Dependency.
struct NotForDependency {
  static constexpr bool structure_detection = false;
  template <class T>
  int f(double, std::span<const T> x, std::span<const T>, std::span<const T>, std::span<T> f) const {
    static_assert(!std::is_same_v<T, esdirk::ad::Dependency>, "opted out of structure detection");
    for (std::size_t i = 0; i < x.size(); ++i) f[i] = x[i] * x[(i + 1) % x.size()];
    return 0;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(structure)

// The 1-D Brusselator without a declared pattern: found and coloured (4 colours, one pass of
// 4 directions instead of 10 of 8), J identical to the chunks', its pattern the declared one.
BOOST_AUTO_TEST_CASE(found_structure_gives_the_dense_jacobian_bit_for_bit) {
  const int N = 40, n = 2 * N;
  test_problems::Brusselator1d hand(N);
  std::vector<double> x = hand.initial_state();
  for (std::size_t i = 0; i < x.size(); ++i) x[i] *= 1.0 + 0.05 * std::sin(1.0 + static_cast<double>(i));
  ModelProblem<templated::Brusselator> found(n, 0, 0, {N}), chunks(n, 0, 0, {N});
  chunks.set_structure_detection(StructureDetection::off);
  DenseMatrix J_found(n, n), J_chunks(n, n);
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, {}, J_found.ref()) == 0);
  BOOST_REQUIRE(chunks.jacobian(0.0, x, {}, {}, J_chunks.ref()) == 0);
  require_identical(J_found, J_chunks, "found structure vs chunks");
  BOOST_TEST(found.colours_found_states());
  const esdirk::ad::ColumnColouring& colouring = found.found_state_colouring();
  const esdirk::SparsityPattern pattern = hand.pattern();
  BOOST_TEST(colouring.column_pointers == pattern.column_pointers(), boost::test_tools::per_element());
  BOOST_TEST(colouring.rows == pattern.row_indices(), boost::test_tools::per_element());
  BOOST_TEST(colouring.colours == 4);
  BOOST_TEST(found.ad_statistics().structure_passes == 1);  // 80 inputs: one evaluation over two words
  BOOST_TEST(found.ad_statistics().forward_passes == 1);
  BOOST_TEST(chunks.ad_statistics().forward_passes == (n + 7) / 8);
  BOOST_TEST(chunks.ad_statistics().structure_passes == 0);
  BOOST_TEST_MESSAGE(found.derivative_methods());
  BOOST_TEST(found.derivative_methods().find("4 colours of 80 columns, 1 evaluation of 4 directions") !=
             std::string::npos);
  // The same point again (the adjoint asks for J and [f_p; g_p] there): no second check.
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, {}, J_found.ref()) == 0);
  BOOST_TEST(found.ad_statistics().structure_passes == 1);
}

// Regression: a structure found at one point is not the structure at every point. At x[0] < 0
// the first row has entries in columns 0 and 1 only, and column 15 shares colour 0 with
// column 0; at x[0] > 0 the row also depends on x[15], and the old colouring would return
// J(0,0) + J(0,15) as J(0,0). The check at the new point finds the wider structure, colours
// anew, and J is again that of the chunks.
BOOST_AUTO_TEST_CASE(a_branch_that_adds_a_dependency_at_a_new_point_is_found_there) {
  const BranchingChain model{16, 9};
  ModelProblem<BranchingChain> found(16, 0, 9, model), chunks(16, 0, 9, model);
  chunks.set_structure_detection(StructureDetection::off);
  std::vector<double> x(16), p(9);
  for (int i = 0; i < 16; ++i) x[static_cast<std::size_t>(i)] = 0.5 + 0.03 * i;
  for (int k = 0; k < 9; ++k) p[static_cast<std::size_t>(k)] = 0.1 * (k + 1);
  x[0] = -0.2;
  DenseMatrix J_found(16, 16), J_chunks(16, 16);
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J_found.ref()) == 0);
  BOOST_REQUIRE(found.colours_found_states());
  BOOST_TEST(found.found_state_colouring().colours == 3);
  BOOST_TEST(found.found_state_colouring().colour[0] == found.found_state_colouring().colour[15]);
  BOOST_TEST(found.ad_statistics().structure_updates == 1);
  x[0] = 0.2;
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J_found.ref()) == 0);
  BOOST_REQUIRE(chunks.jacobian(0.0, x, {}, p, J_chunks.ref()) == 0);
  BOOST_TEST(J_found(0, 15) == 0.5 * x[0]);
  require_identical(J_found, J_chunks, "after the branch");
  BOOST_TEST(found.ad_statistics().structure_updates == 2);
  BOOST_TEST(found.found_state_colouring().colour[0] != found.found_state_colouring().colour[15]);
  // Back on the first side: the structure found stays the wider one (a superset is exact).
  x[0] = -0.3;
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J_found.ref()) == 0);
  BOOST_REQUIRE(chunks.jacobian(0.0, x, {}, p, J_chunks.ref()) == 0);
  require_identical(J_found, J_chunks, "back before the branch");
  BOOST_TEST(found.ad_statistics().structure_updates == 2);
}

// [f_p; g_p] of the chain: every row depends on one parameter, one colour, one pass of one
// direction, identical to the chunks'. The adjoint's products w^T [f_p; g_p] come from the
// same compressed columns (formed once per point), over the pattern's entries only: equal to
// the product with the chunks' matrix, and to the tape's.
BOOST_AUTO_TEST_CASE(parameter_jacobian_and_products_on_the_found_structure) {
  for (int np : {1, 9, 50, 100}) {
    const BranchingChain model{20, np};
    ModelProblem<BranchingChain> found(20, 0, np, model), chunks(20, 0, np, model);
    chunks.set_structure_detection(StructureDetection::off);
    std::vector<double> x(20), p(static_cast<std::size_t>(np), 0.3), w(20), product(static_cast<std::size_t>(np)),
        tape(static_cast<std::size_t>(np)), vJ(20);
    for (int i = 0; i < 20; ++i) {
      x[static_cast<std::size_t>(i)] = 0.4 + 0.02 * i;
      w[static_cast<std::size_t>(i)] = std::cos(1.0 + i);
    }
    BOOST_TEST(found.has_parameter_vjp() == (np > 8));  // nothing found yet: by np
    DenseMatrix Jp_found(20, np), Jp_chunks(20, np);
    BOOST_REQUIRE(found.parameter_jacobian(0.0, x, {}, p, Jp_found.ref()) == 0);
    BOOST_REQUIRE(chunks.parameter_jacobian(0.0, x, {}, p, Jp_chunks.ref()) == 0);
    require_identical(Jp_found, Jp_chunks, "[f_p; g_p]");
    BOOST_TEST(found.found_parameter_colouring().colours == 1);
    // One parameter: a pass of one direction either way, and the matrix is cheaper than checks.
    BOOST_TEST(found.colours_found_parameters() == (np > 1));
    BOOST_TEST(found.has_parameter_vjp() == (np > 1));
    if (np == 1) continue;
    BOOST_TEST(found.ad_statistics().forward_passes == 1);
    x[3] *= 1.01;  // a new point
    w[0] = 0.7;
    BOOST_REQUIRE(chunks.parameter_jacobian(0.0, x, {}, p, Jp_chunks.ref()) == 0);
    for (int repeat = 0; repeat < 2; ++repeat) BOOST_REQUIRE(found.parameter_vjp(0.0, x, {}, p, w, product) == 0);
    BOOST_TEST(found.ad_statistics().forward_passes == 2);  // once per point
    BOOST_TEST(found.ad_statistics().tape_recordings == 0);
    BOOST_REQUIRE(found.vector_jacobian_product(0.0, x, {}, p, w, vJ, tape) == 0);
    for (int k = 0; k < np; ++k) {
      double expected = 0.0;
      for (int i = 0; i < 20; ++i) expected += w[static_cast<std::size_t>(i)] * Jp_chunks(i, k);
      BOOST_TEST_CONTEXT("parameter " << k) {
        BOOST_TEST(product[static_cast<std::size_t>(k)] == expected);
        // The tape sums the same terms in reverse order: equal to rounding.
        BOOST_TEST(std::abs(product[static_cast<std::size_t>(k)] - tape[static_cast<std::size_t>(k)]) <= 1e-15 * 20.0);
      }
    }
  }
}

// The adjoint asks for J and then w^T [f_p; g_p] at each stage point: one evaluation over
// Dependency checks both (120 inputs: one set of two words; J's check used to evaluate block 0
// and the parameters' blocks 0 and 1 again, three evaluations a point). With 316 inputs (five
// blocks, sets of four words: two evaluations) J and [f_p; g_p] stay those of the chunks.
BOOST_AUTO_TEST_CASE(one_structure_pass_checks_j_and_the_parameters_at_a_point) {
  for (const auto& [nx, np, evaluations] : {std::array<int, 3>{20, 100, 1}, std::array<int, 3>{16, 300, 2}}) {
    const BranchingChain model{nx, np};
    ModelProblem<BranchingChain> found(nx, 0, np, model), chunks(nx, 0, np, model);
    chunks.set_structure_detection(StructureDetection::off);
    std::vector<double> x(static_cast<std::size_t>(nx)), p(static_cast<std::size_t>(np)), w(static_cast<std::size_t>(nx), 0.5),
        product(static_cast<std::size_t>(np));
    for (int i = 0; i < nx; ++i) x[static_cast<std::size_t>(i)] = -0.4 + 0.02 * i;
    for (int k = 0; k < np; ++k) p[static_cast<std::size_t>(k)] = 0.1 + 0.01 * k;
    DenseMatrix J_found(nx, nx), J_chunks(nx, nx), Jp_found(nx, np), Jp_chunks(nx, np);
    BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J_found.ref()) == 0);
    BOOST_REQUIRE(found.colours_found_states() && found.colours_found_parameters());
    BOOST_TEST(found.ad_statistics().structure_passes == evaluations);
    x[0] = 0.3;  // a new point, past the branch
    const long before = found.ad_statistics().structure_passes;
    BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J_found.ref()) == 0);
    BOOST_REQUIRE(found.parameter_vjp(0.0, x, {}, p, w, product) == 0);
    BOOST_REQUIRE(found.parameter_jacobian(0.0, x, {}, p, Jp_found.ref()) == 0);
    BOOST_TEST(found.ad_statistics().structure_passes - before == evaluations);
    BOOST_REQUIRE(chunks.jacobian(0.0, x, {}, p, J_chunks.ref()) == 0);
    BOOST_REQUIRE(chunks.parameter_jacobian(0.0, x, {}, p, Jp_chunks.ref()) == 0);
    require_identical(J_found, J_chunks, "J past the branch");
    require_identical(Jp_found, Jp_chunks, "[f_p; g_p] past the branch");
    BOOST_TEST(found.derivative_methods().find("checked at every new point by " + std::to_string(evaluations) +
                                               (evaluations == 1 ? " evaluation " : " evaluations ")) != std::string::npos);
  }
}

// The adjoint asks for J and then for w^T [f_p; g_p] at every stage point: once it has done so
// at a point, J's coloured pass carries the parameters' colour in the lane it leaves unused (3
// colours of J in a pass of 4 lanes, 1 colour of [f_p; g_p]): one evaluation per point
// instead of two, and J and the products are the same bits as from separate passes (the
// chunks' J, the products of the chunks' [f_p; g_p]). At a point past the branch J needs more
// colours and the parameters get their own pass again; J formed twice without products between
// (a forward run) stops the pairing until products follow a J again.
BOOST_AUTO_TEST_CASE(j_carries_the_parameter_colours_at_the_adjoints_stage_points) {
  const int nx = 20, np = 50;
  const BranchingChain model{nx, np};
  ModelProblem<BranchingChain> found(nx, 0, np, model), chunks(nx, 0, np, model);
  chunks.set_structure_detection(StructureDetection::off);
  std::vector<double> x(static_cast<std::size_t>(nx)), p(static_cast<std::size_t>(np)), w(static_cast<std::size_t>(nx)),
      product(static_cast<std::size_t>(np));
  for (int k = 0; k < np; ++k) p[static_cast<std::size_t>(k)] = 0.1 + 0.01 * k;
  for (int i = 0; i < nx; ++i) w[static_cast<std::size_t>(i)] = std::cos(1.0 + i);
  DenseMatrix J_found(nx, nx), J_chunks(nx, nx), Jp_chunks(nx, np);
  // J, then the products at (x0 scaled by `scale`, with x[0] = first); the passes it took.
  const auto stage_point = [&](double scale, double first, bool products) {
    for (int i = 0; i < nx; ++i) x[static_cast<std::size_t>(i)] = scale * (0.4 + 0.02 * i);
    x[0] = first;
    const long passes = found.ad_statistics().forward_passes;
    BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J_found.ref()) == 0);
    if (products) BOOST_REQUIRE(found.parameter_vjp(0.0, x, {}, p, w, product) == 0);
    BOOST_REQUIRE(chunks.jacobian(0.0, x, {}, p, J_chunks.ref()) == 0);
    BOOST_REQUIRE(chunks.parameter_jacobian(0.0, x, {}, p, Jp_chunks.ref()) == 0);
    require_identical(J_found, J_chunks, "J");
    for (int k = 0; products && k < np; ++k) {
      double expected = 0.0;
      for (int i = 0; i < nx; ++i) expected += w[static_cast<std::size_t>(i)] * Jp_chunks(i, k);
      BOOST_TEST_CONTEXT("parameter " << k) { BOOST_TEST(product[static_cast<std::size_t>(k)] == expected); }
    }
    return found.ad_statistics().forward_passes - passes;
  };
  BOOST_TEST(stage_point(1.0, -0.4, true) == 2);  // the first point: J, then [f_p; g_p]
  BOOST_REQUIRE(found.colours_found_states() && found.colours_found_parameters());
  BOOST_TEST(found.found_state_colouring().colours == 3);
  BOOST_TEST(found.found_parameter_colouring().colours == 1);
  BOOST_TEST(stage_point(1.01, -0.4, true) == 1);  // both in J's pass
  BOOST_TEST(stage_point(1.02, -0.4, true) == 1);
  BOOST_TEST(stage_point(1.03, 0.3, true) == 2);  // past the branch: J takes 4 lanes
  BOOST_TEST(found.found_state_colouring().colours > 3);
  BOOST_TEST(stage_point(1.04, 0.3, true) == 2);
  // A forward run: J alone at new points (the first still carries the parameters).
  BOOST_TEST(stage_point(1.05, 0.3, false) == 1);
  BOOST_TEST(stage_point(1.06, 0.3, false) == 1);
  BOOST_TEST(found.ad_statistics().tape_recordings == 0);
}

// The caches (the structure checked at a point, the parameters' entries J's pass carried, the
// tape) are kept by the point of the call that formed them: a call at another point between
// them, or the same buffers holding another point, never reuses them, the same point again
// does (no new recording). Every product equals that of a fresh model at the same point.
BOOST_AUTO_TEST_CASE(caches_serve_their_own_point_only) {
  const int nx = 20, np = 50;
  const ScaledChain model{nx, np};
  ModelProblem<ScaledChain> found(nx, 0, np, model);
  std::vector<double> p(static_cast<std::size_t>(np)), w(static_cast<std::size_t>(nx));
  for (int k = 0; k < np; ++k) p[static_cast<std::size_t>(k)] = 0.1 + 0.01 * k;
  for (int i = 0; i < nx; ++i) w[static_cast<std::size_t>(i)] = std::cos(1.0 + i);
  const auto point = [&](double scale, double first) {
    std::vector<double> x(static_cast<std::size_t>(nx));
    for (int i = 0; i < nx; ++i) x[static_cast<std::size_t>(i)] = scale * (0.4 + 0.02 * i);
    x[0] = first;
    return x;
  };
  const std::vector<double> a = point(1.0, 0.4), b = point(1.1, 0.4), c = point(1.2, 0.3);
  std::vector<double> x = a;  // one buffer, several points
  // The products at `at` from found (parameter_vjp, or the tape's v^T J and v^T [f_p; g_p])
  // against those of a model that has seen no other point.
  const auto expect_products = [&](const std::vector<double>& at, bool tape) {
    ModelProblem<ScaledChain> reference(nx, 0, np, model);
    std::vector<double> product(static_cast<std::size_t>(np)), expected(static_cast<std::size_t>(np)),
        vJ(static_cast<std::size_t>(nx)), expected_vJ(static_cast<std::size_t>(nx));
    if (tape) {
      BOOST_REQUIRE(found.vector_jacobian_product(0.0, x, {}, p, w, vJ, product) == 0);
      BOOST_REQUIRE(reference.vector_jacobian_product(0.0, at, {}, p, w, expected_vJ, expected) == 0);
      for (int i = 0; i < nx; ++i) BOOST_TEST_CONTEXT("x[0] = " << at[0] << ", v^T J " << i) { BOOST_TEST(vJ[static_cast<std::size_t>(i)] == expected_vJ[static_cast<std::size_t>(i)]); }
    } else {
      BOOST_REQUIRE(found.parameter_vjp(0.0, x, {}, p, w, product) == 0);
      DenseMatrix J(nx, nx);
      BOOST_REQUIRE(reference.jacobian(0.0, at, {}, p, J.ref()) == 0);
      BOOST_REQUIRE(reference.parameter_vjp(0.0, at, {}, p, w, expected) == 0);
    }
    BOOST_TEST(product[0] == -w[0] * at[0]);  // f_p's entry at this point
    BOOST_TEST(product == expected);
  };
  const std::vector<double> d = point(1.3, 0.4);
  DenseMatrix J(nx, nx);
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J.ref()) == 0);  // a: the structure found
  expect_products(a, false);  // products follow J: the next J carries the parameters
  x = b;
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J.ref()) == 0);  // b, with the parameters' entries
  x = d;
  expect_products(d, false);  // not b's entries
  x = b;
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J.ref()) == 0);
  x = a;  // the buffer of J's point, now holding another
  expect_products(a, false);
  x = b;
  BOOST_REQUIRE(found.jacobian(0.0, x, {}, p, J.ref()) == 0);
  expect_products(b, false);  // J's own point: its entries
  x = a;
  const long recordings = found.ad_statistics().tape_recordings;
  expect_products(a, true);
  expect_products(a, true);  // the same point: the same tape
  BOOST_TEST(found.ad_statistics().tape_recordings - recordings == 1);
  x = c;
  std::vector<double> Jv(static_cast<std::size_t>(nx));
  BOOST_REQUIRE(found.jacobian_vector_product(0.0, x, {}, p, w, Jv) == 0);  // consults no cache
  expect_products(c, true);
  x = a;
  expect_products(a, true);
  BOOST_TEST(found.ad_statistics().tape_recordings - recordings == 3);
}

// Dow: 6 colours of 10 columns would save 2 lanes, less than the check costs: the chunks stay,
// and no structure pass runs after the first.
BOOST_AUTO_TEST_CASE(dow_keeps_the_chunks_where_colours_save_too_little) {
  ModelProblem<templated::Dow> ad(6, 4, 9);
  std::vector<double> x{0.3, 6.5, 0.6, 0.7, 0.7, 0.013}, z{2e-8, 1e-6, 3e-10, 8e-10},
      p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  DenseMatrix J(10, 10), Jp(10, 9);
  for (int k = 0; k < 3; ++k) {
    x[1] = 6.5 + 0.1 * k;
    BOOST_REQUIRE(ad.jacobian(0.0, x, z, p, J.ref()) == 0);
    BOOST_REQUIRE(ad.parameter_jacobian(0.0, x, z, p, Jp.ref()) == 0);
  }
  BOOST_TEST(ad.found_state_colouring().colours == 6);
  BOOST_TEST(!ad.colours_found_states());
  BOOST_TEST(!ad.colours_found_parameters());
  BOOST_TEST(ad.ad_statistics().structure_passes == 1);
  BOOST_TEST(ad.ad_statistics().forward_passes == 3 * (2 + 2));
  BOOST_TEST(ad.derivative_methods().find("J: forward-mode AD (2 evaluations") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_model_that_opts_out_is_never_evaluated_over_dependency) {
  ModelProblem<NotForDependency> ad(70, 0, 0);
  std::vector<double> x(70, 1.5);
  DenseMatrix J(70, 70);
  BOOST_REQUIRE(ad.jacobian(0.0, x, {}, {}, J.ref()) == 0);
  BOOST_TEST(ad.ad_statistics().structure_passes == 0);
  BOOST_TEST(!ad.colours_found_states());
  BOOST_TEST(J(69, 0) == 1.5);
  BOOST_TEST(J(69, 69) == 1.5);
}

BOOST_AUTO_TEST_SUITE_END()
