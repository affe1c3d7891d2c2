// AD derivatives of the templated twins (templated_models.hpp) against the hand-written ones of
// the library's models: J, [f_p; g_p], J v and v^T J, v^T [f_p; g_p] to 1e-14 relative; and
// coloured AD on a declared band or pattern against dense AD.

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <vector>

#include "brusselator_1d.hpp"
#include "dow/dow_model.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "nmpc/cstr.hpp"
#include "robertson/robertson_model.hpp"
#include "templated_models.hpp"
#include "van_der_pol/van_der_pol_model.hpp"

namespace {

using esdirk::ConstVector;
using esdirk::DenseMatrix;
using esdirk::ad::ModelProblem;

// |a - b| <= 1e-14 max(|a|, |b|, the row's largest entry): entries that are sums of large terms
// which cancel are compared at the size of those terms (the rounding of either side).
void require_equal_rows(const DenseMatrix& ad, const DenseMatrix& hand, const char* what) {
  BOOST_REQUIRE(ad.rows() == hand.rows());
  BOOST_REQUIRE(ad.cols() == hand.cols());
  for (int i = 0; i < ad.rows(); ++i) {
    double scale = 0.0;
    for (int j = 0; j < ad.cols(); ++j) scale = std::max(scale, std::abs(hand(i, j)));
    for (int j = 0; j < ad.cols(); ++j) {
      const double a = ad(i, j), b = hand(i, j);
      BOOST_TEST_CONTEXT(what << " (" << i << ", " << j << "): AD " << a << ", hand " << b) {
        BOOST_TEST(std::abs(a - b) <= 1e-14 * std::max({std::abs(a), std::abs(b), scale}));
      }
    }
  }
}

// Compares every derivative of `ad` with the hand-written `hand` at (t, x, z, p): J, [f_p; g_p]
// (if the hand model has it), J v + [f_p; g_p] w, v^T J and v^T [f_p; g_p] (against products
// of the hand matrices).
template <class Hand, class Ad>
void compare_at(Hand& hand, Ad& ad, double t, const std::vector<double>& x, const std::vector<double>& z,
                const std::vector<double>& p) {
  const int n = hand.size(), np = hand.np(), nx = hand.nx();
  DenseMatrix J_hand(n, n), J_ad(n, n);
  BOOST_REQUIRE(hand.jacobian(t, x, z, p, J_hand.ref()) == 0);
  BOOST_REQUIRE(ad.jacobian(t, x, z, p, J_ad.ref()) == 0);
  require_equal_rows(J_ad, J_hand, "J");
  DenseMatrix Jp_hand(n, std::max(np, 1)), Jp_ad(n, std::max(np, 1));
  if (np > 0 && hand.has_parameter_jacobian()) {
    BOOST_REQUIRE(hand.parameter_jacobian(t, x, z, p, Jp_hand.ref()) == 0);
    BOOST_REQUIRE(ad.parameter_jacobian(t, x, z, p, Jp_ad.ref()) == 0);
    require_equal_rows(Jp_ad, Jp_hand, "[f_p; g_p]");
  }
  // Products with fixed directions of mixed sign; the references are the hand matrices' products
  // summed in the same order as the rows are scaled above.
  std::vector<double> v(static_cast<std::size_t>(n)), w(static_cast<std::size_t>(np));
  for (int j = 0; j < n; ++j) v[static_cast<std::size_t>(j)] = 1.0 - 0.37 * j;
  for (int k = 0; k < np; ++k) w[static_cast<std::size_t>(k)] = 0.5 + 0.11 * k;
  const bool with_p = np > 0 && hand.has_parameter_jacobian();
  std::vector<double> Jv(static_cast<std::size_t>(n)), Jv_hand(static_cast<std::size_t>(n));
  BOOST_REQUIRE(ad.jacobian_vector_product(t, x, z, p, v, with_p ? ConstVector(w) : ConstVector(), Jv) == 0);
  // Each entry of J v is a sum of terms: compare at the size of its largest term.
  for (int i = 0; i < n; ++i) {
    double sum = 0.0, scale = 0.0;
    for (int j = 0; j < n; ++j) {
      sum += J_hand(i, j) * v[static_cast<std::size_t>(j)];
      scale = std::max(scale, std::abs(J_hand(i, j) * v[static_cast<std::size_t>(j)]));
    }
    for (int k = 0; with_p && k < np; ++k) {
      sum += Jp_hand(i, k) * w[static_cast<std::size_t>(k)];
      scale = std::max(scale, std::abs(Jp_hand(i, k) * w[static_cast<std::size_t>(k)]));
    }
    BOOST_TEST_CONTEXT("J v row " << i << ": AD " << Jv[static_cast<std::size_t>(i)] << ", hand " << sum) {
      BOOST_TEST(std::abs(Jv[static_cast<std::size_t>(i)] - sum) <= 1e-14 * scale);
    }
  }
  std::vector<double> vJ(static_cast<std::size_t>(n)), vJp(static_cast<std::size_t>(np));
  BOOST_REQUIRE(ad.vector_jacobian_product(t, x, z, p, v, vJ, vJp) == 0);
  for (int j = 0; j < n; ++j) {
    double sum = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
      sum += v[static_cast<std::size_t>(i)] * J_hand(i, j);
      scale = std::max(scale, std::abs(v[static_cast<std::size_t>(i)] * J_hand(i, j)));
    }
    BOOST_TEST_CONTEXT("v^T J column " << j << ": AD " << vJ[static_cast<std::size_t>(j)] << ", hand " << sum) {
      BOOST_TEST(std::abs(vJ[static_cast<std::size_t>(j)] - sum) <= 1e-14 * scale);
    }
  }
  for (int k = 0; with_p && k < np; ++k) {
    double sum = 0.0, scale = 0.0;
    for (int i = 0; i < n; ++i) {
      sum += v[static_cast<std::size_t>(i)] * Jp_hand(i, k);
      scale = std::max(scale, std::abs(v[static_cast<std::size_t>(i)] * Jp_hand(i, k)));
    }
    BOOST_TEST_CONTEXT("v^T [f_p; g_p] column " << k << ": AD " << vJp[static_cast<std::size_t>(k)] << ", hand " << sum) {
      BOOST_TEST(std::abs(vJp[static_cast<std::size_t>(k)] - sum) <= 1e-14 * scale);
    }
  }
  // The adjoint's hook (Problem::parameter_vjp) is the same sweep.
  if (with_p) {
    std::vector<double> only(static_cast<std::size_t>(np));
    // The adjoint asks for it when np > Chunk (automatic); it works whatever np.
    BOOST_TEST(ad.has_parameter_vjp() == (np > 8));
    BOOST_REQUIRE(ad.parameter_vjp(t, x, z, p, v, only) == 0);
    for (std::size_t k = 0; k < only.size(); ++k) BOOST_TEST(only[k] == vJp[k]);
  }
  (void)nx;
}

// Points along a run: the initial one and two perturbed ones.
std::vector<double> perturbed(std::vector<double> v, double scale) {
  for (std::size_t i = 0; i < v.size(); ++i) v[i] *= 1.0 + scale * (1.0 + 0.1 * static_cast<double>(i));
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(model_derivatives)

BOOST_AUTO_TEST_CASE(dow_ad_equals_the_hand_jacobians) {
  dow::Model hand;
  ModelProblem<templated::Dow> ad(6, 4, 9);
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const auto za = dow::consistent_algebraic_start();
  const std::vector<double> z0(za.begin(), za.end());
  const std::vector<double> x_mid{0.3, 6.5, 0.6, 0.7, 0.7, 0.013}, z_mid{2e-8, 1e-6, 3e-10, 8e-10};
  compare_at(hand, ad, 0.0, x0, z0, p);
  compare_at(hand, ad, 1.0, x_mid, z_mid, p);
  compare_at(hand, ad, 2.0, perturbed(x_mid, 0.03), perturbed(z_mid, -0.02), perturbed(p, 0.01));
  BOOST_TEST(ad.ad_statistics().jacobians == 3);
  BOOST_TEST(ad.ad_statistics().parameter_jacobians == 3);
  BOOST_TEST(ad.ad_statistics().tape_recordings == 3);
  BOOST_TEST(ad.ad_statistics().forward_passes == 3 * (2 + 2 + 1));  // J: 10/8, f_p: 9/8, J v
}

BOOST_AUTO_TEST_CASE(cstr_ad_equals_the_hand_jacobians) {
  cstr::Model hand;
  ModelProblem<templated::Cstr> ad(2, 0, 1);
  compare_at(hand, ad, 0.0, {0.5, 350.0}, {}, {300.0});
  compare_at(hand, ad, 0.3, {0.9, 310.0}, {}, {290.0});
}

BOOST_AUTO_TEST_CASE(robertson_and_van_der_pol_ad_equal_the_hand_jacobians) {
  robertson::Ode ode;
  ModelProblem<templated::RobertsonOde> ode_ad(3, 0, 0);
  compare_at(ode, ode_ad, 0.0, {1.0, 0.0, 0.0}, {}, {});
  compare_at(ode, ode_ad, 40.0, {0.7158, 9.185e-6, 0.2842}, {}, {});
  robertson::Dae dae;
  ModelProblem<templated::RobertsonDae> dae_ad(2, 1, 0);
  compare_at(dae, dae_ad, 40.0, {0.7158, 9.185e-6}, {0.2842}, {});
  van_der_pol::Model vdp;
  ModelProblem<templated::VanDerPol> vdp_ad(2, 0, 0);
  compare_at(vdp, vdp_ad, 0.0, {2.0, 0.0}, {}, {});
  compare_at(vdp, vdp_ad, 1.0, {-1.3, 0.8}, {}, {});
}

// Akzo Nobel has no hand Jacobian in the library: the reference is written here from its rates.
BOOST_AUTO_TEST_CASE(akzo_ad_equals_its_jacobian_by_hand) {
  const double k1 = 18.7, k2 = 0.58, k3 = 0.09, k4 = 0.42, K = 34.4, klA = 3.3, Ks = 115.83;
  const std::vector<double> y{0.43, 0.0011, 0.012, 0.006, 0.0013}, z{0.3};
  ModelProblem<templated::Akzo> ad(5, 1, 0);
  DenseMatrix J(6, 6), hand(6, 6);
  BOOST_REQUIRE(ad.jacobian(0.0, y, z, {}, J.ref()) == 0);
  // Gradients of the rates r1..r5 and Fin over (y1..y5, y6 = z).
  const double s = std::sqrt(y[1]), y6 = z[0];
  double dr[6][6] = {};
  dr[0][0] = 4.0 * k1 * std::pow(y[0], 3) * s;
  dr[0][1] = k1 * std::pow(y[0], 4) * 0.5 / s;
  dr[1][2] = k2 * y[3];
  dr[1][3] = k2 * y[2];
  dr[2][0] = k2 / K * y[4];
  dr[2][4] = k2 / K * y[0];
  dr[3][0] = k3 * y[3] * y[3];
  dr[3][3] = 2.0 * k3 * y[0] * y[3];
  dr[4][1] = k4 * y6 * y6 * 0.5 / s;
  dr[4][5] = 2.0 * k4 * y6 * s;
  dr[5][1] = -klA;
  const double weights[5][6] = {{-2.0, 1.0, -1.0, -1.0, 0.0, 0.0},
                                {-0.5, 0.0, 0.0, -1.0, -0.5, 1.0},
                                {1.0, -1.0, 1.0, 0.0, 0.0, 0.0},
                                {0.0, -1.0, 1.0, -2.0, 0.0, 0.0},
                                {0.0, 1.0, -1.0, 0.0, 1.0, 0.0}};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 6; ++j)
      for (int r = 0; r < 6; ++r) hand(i, j) += weights[i][r] * dr[r][j];
  hand(5, 0) = Ks * y[3];
  hand(5, 3) = Ks * y[0];
  hand(5, 5) = -1.0;
  require_equal_rows(J, hand, "Akzo J");
}

// Coloured forward mode on the Brusselator's exact pattern (banded and sparse back-ends) gives
// the dense AD Jacobian and the hand-written sparse one.
BOOST_AUTO_TEST_CASE(coloured_ad_equals_dense_ad_and_the_hand_sparse_jacobian) {
  const int N = 40, n = 2 * N;
  test_problems::Brusselator1d hand(N);
  const std::vector<double> x = perturbed(hand.initial_state(), 0.05);
  ModelProblem<templated::Brusselator> dense(n, 0, 0, {N});
  dense.set_structure_detection(esdirk::ad::StructureDetection::off);  // chunks of all columns
  DenseMatrix J_dense(n, n);
  BOOST_REQUIRE(dense.jacobian(0.0, x, {}, {}, J_dense.ref()) == 0);
  for (esdirk::LinearSolverKind solver : {esdirk::LinearSolverKind::sparse, esdirk::LinearSolverKind::banded,
                                          esdirk::LinearSolverKind::dense}) {
    ModelProblem<templated::Brusselator> coloured(n, 0, 0, {N});
    coloured.set_jacobian_pattern(hand.pattern(), solver);
    hand.set_jacobian_pattern(hand.pattern(), solver);
    BOOST_TEST(coloured.has_sparse_jacobian());
    const esdirk::SparsityPattern& pattern = *coloured.jacobian_structure().pattern;
    std::vector<double> values(static_cast<std::size_t>(pattern.nonzeros())),
        hand_values(values.size());
    BOOST_REQUIRE(coloured.sparse_jacobian(0.0, x, {}, {}, {&pattern, values.data()}) == 0);
    BOOST_REQUIRE(hand.sparse_jacobian(0.0, x, {}, {}, {&pattern, hand_values.data()}) == 0);
    DenseMatrix from_values(n, n), from_hand(n, n), J_coloured_dense(n, n);
    for (int j = 0; j < n; ++j)
      for (int k = pattern.column_pointers()[j]; k < pattern.column_pointers()[j + 1]; ++k) {
        from_values(pattern.row_indices()[k], j) = values[static_cast<std::size_t>(k)];
        from_hand(pattern.row_indices()[k], j) = hand_values[static_cast<std::size_t>(k)];
      }
    require_equal_rows(from_values, J_dense, "coloured vs dense AD");
    require_equal_rows(from_values, from_hand, "coloured AD vs hand");
    // The dense jacobian() of a problem with a pattern is coloured too.
    BOOST_REQUIRE(coloured.jacobian(0.0, x, {}, {}, J_coloured_dense.ref()) == 0);
    require_equal_rows(J_coloured_dense, J_dense, "coloured (dense storage) vs dense AD");
    // The pattern within the band 2 + 2 needs at most 5 colours: one evaluation per Jacobian,
    // of as many directions as pass_width gives (4 for up to 4 colours, else 8).
    const std::vector<int> colour = esdirk::colour_columns(pattern);
    const int colours = 1 + *std::max_element(colour.begin(), colour.end());
    BOOST_TEST(colours <= 5);
    BOOST_TEST(coloured.ad_statistics().forward_passes == 2);
    BOOST_TEST_MESSAGE(coloured.derivative_methods());
    BOOST_TEST(coloured.pass_width(colours) == (colours <= 4 ? 4 : 8));
    BOOST_TEST(coloured.derivative_methods().find(std::to_string(colours) + " colours, 1 evaluation of " +
                                                  std::to_string(coloured.pass_width(colours)) + " direction") !=
               std::string::npos);
  }
  BOOST_TEST(dense.ad_statistics().forward_passes == (n + 7) / 8);
}

// A model that takes its parameters as plain doubles in J's passes (plain_parameters, Dow's
// twin) gives the same J and [f_p; g_p] as the same model with the parameters as duals, bit for
// bit: a dual parameter's lanes are all zero, and 0 * d + k * d' rounds as k * d'.
BOOST_AUTO_TEST_CASE(plain_parameters_give_the_jacobian_of_dual_parameters_bit_for_bit) {
  static_assert(esdirk::ad::TakesPlainParameters<templated::Dow>);
  static_assert(!esdirk::ad::TakesPlainParameters<templated::DowDualParameters>);
  ModelProblem<templated::Dow> plain(6, 4, 9);
  ModelProblem<templated::DowDualParameters> duals(6, 4, 9);
  const std::vector<double> z{2e-8, 1e-6, 3e-10, 8e-10}, p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  for (double u2 : {6.5, 3.1, 0.02}) {
    const std::vector<double> x{0.3, u2, 0.6, 0.7, 0.7, 0.013};
    DenseMatrix J1(10, 10), J2(10, 10), Jp1(10, 9), Jp2(10, 9);
    BOOST_REQUIRE(plain.jacobian(0.0, x, z, p, J1.ref()) == 0);
    BOOST_REQUIRE(duals.jacobian(0.0, x, z, p, J2.ref()) == 0);
    BOOST_REQUIRE(plain.parameter_jacobian(0.0, x, z, p, Jp1.ref()) == 0);
    BOOST_REQUIRE(duals.parameter_jacobian(0.0, x, z, p, Jp2.ref()) == 0);
    for (int j = 0; j < 10; ++j)
      for (int i = 0; i < 10; ++i) BOOST_TEST(J1(i, j) == J2(i, j));
    for (int j = 0; j < 9; ++j)
      for (int i = 0; i < 10; ++i) BOOST_TEST(Jp1(i, j) == Jp2(i, j));
  }
}

// FunctionProblem's generic lambdas, unchanged, in ad::FunctionProblem.
BOOST_AUTO_TEST_CASE(function_problem_lambdas_are_differentiated) {
  const double eps = 1e-3;
  esdirk::ad::FunctionProblem problem(2, 0, 1, [eps](double, auto y, auto, auto p, auto f) {
    f[0] = y[1];
    f[1] = (p[0] * (1 - y[0] * y[0]) * y[1] - y[0]) / eps;
    return 0;
  });
  const std::vector<double> y{1.2, -0.4}, p{1.5};
  DenseMatrix J(2, 2), Jp(2, 1);
  BOOST_REQUIRE(problem.jacobian(0.0, y, {}, p, J.ref()) == 0);
  BOOST_REQUIRE(problem.parameter_jacobian(0.0, y, {}, p, Jp.ref()) == 0);
  DenseMatrix hand(2, 2), hand_p(2, 1);
  hand(0, 1) = 1.0;
  hand(1, 0) = (-2.0 * p[0] * y[0] * y[1] - 1.0) / eps;
  hand(1, 1) = p[0] * (1.0 - y[0] * y[0]) / eps;
  hand_p(1, 0) = (1.0 - y[0] * y[0]) * y[1] / eps;
  require_equal_rows(J, hand, "J");
  require_equal_rows(Jp, hand_p, "f_p");
  BOOST_CHECK_THROW(esdirk::ad::FunctionProblem(1, 1, 0, [](double, auto, auto, auto, auto) { return 0; }),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
