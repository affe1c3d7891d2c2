// The ESDIRK34 tableau against its closed forms and order conditions, and one step of the
// linear test equation against the stability function R(z) of the reference.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <complex>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/tableau.hpp"

using esdirk::Tableau;

namespace {

// The closed forms of reference/esdirk34.md in long double.
struct ClosedForms {
  long double g, c3, a31, a32, b1, b2, b3, bh1, bh2, bh3, bh4;
  ClosedForms() {
    const long double pi = 3.141592653589793238462643383279502884L;
    g = 1.0L + std::sqrt(2.0L) *
                   std::cos(std::acos(2.0L * std::sqrt(2.0L) / 3.0L) / 3.0L - 2.0L * pi / 3.0L);
    c3 = 2 * g * (12 * g * g - 9 * g + 2) / (12 * g * g - 6 * g + 1);
    a32 = c3 * (c3 - 2 * g) / (4 * g);
    a31 = c3 - a32 - g;
    b2 = (-2 + 3 * c3 + 6 * g * (1 - c3)) / (12 * g * (c3 - 2 * g));
    b3 = (1 - 6 * g + 6 * g * g) / (3 * c3 * (c3 - 2 * g));
    b1 = 1 - b2 - b3 - g;
    bh1 = (12 * c3 * g - 2 * c3 - 4 * g + 1) / (24 * c3 * g);
    bh2 = (1 - 2 * c3) / (24 * g * (c3 - 2 * g) * (2 * g - 1));
    bh3 = (4 * g - 1) / (12 * c3 * (c3 - 1) * (c3 - 2 * g));
    bh4 = (12 * c3 * g - 4 * c3 - 8 * g + 3) / (12 * (c3 - 1) * (2 * g - 1));
  }
};

void check_close(double value, long double exact, const char* what) {
  BOOST_TEST_INFO(what);
  BOOST_TEST(std::abs(value - static_cast<double>(exact)) <=
             2e-16 * std::max(1.0L, std::abs(exact)));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tableau)

BOOST_AUTO_TEST_CASE(esdirk34_matches_closed_forms) {
  const Tableau t = Tableau::esdirk34();
  const ClosedForms e;
  BOOST_TEST(6 * e.g * e.g * e.g - 18 * e.g * e.g + 9 * e.g - 1 == 0.0L,
             boost::test_tools::tolerance(1e-17L));
  check_close(t.gamma, e.g, "gamma");
  check_close(t.c[1], 2 * e.g, "c2");
  check_close(t.c[2], e.c3, "c3");
  check_close(t.A(2, 0), e.a31, "a31");
  check_close(t.A(2, 1), e.a32, "a32");
  check_close(t.b[0], e.b1, "b1");
  check_close(t.b[1], e.b2, "b2");
  check_close(t.b[2], e.b3, "b3");
  check_close(t.b_hat[0], e.bh1, "bhat1");
  check_close(t.b_hat[1], e.bh2, "bhat2");
  check_close(t.b_hat[2], e.bh3, "bhat3");
  check_close(t.b_hat[3], e.bh4, "bhat4");
  BOOST_TEST(t.controller_order() == 4);
  t.validate();
}

BOOST_AUTO_TEST_CASE(order_conditions) {
  const Tableau t = Tableau::esdirk34();
  const int s = t.stages;
  auto dot = [&](const std::vector<double>& w, auto&& v) {
    long double sum = 0;
    for (int i = 0; i < s; ++i) sum += static_cast<long double>(w[i]) * v(i);
    return static_cast<double>(sum);
  };
  auto Ac = [&](int i) {
    long double r = 0;
    for (int j = 0; j < s; ++j) r += t.A(i, j) * t.c[j];
    return r;
  };
  auto Ac2 = [&](int i) {
    long double r = 0;
    for (int j = 0; j < s; ++j) r += t.A(i, j) * t.c[j] * t.c[j];
    return r;
  };
  auto AAc = [&](int i) {
    long double r = 0;
    for (int j = 0; j < s; ++j) r += t.A(i, j) * Ac(j);
    return r;
  };
  const auto tol = boost::test_tools::tolerance(1e-15);
  // Order 3 for b.
  BOOST_TEST(dot(t.b, [](int) { return 1.0L; }) == 1.0, tol);
  BOOST_TEST(dot(t.b, [&](int i) { return (long double)t.c[i]; }) == 0.5, tol);
  BOOST_TEST(dot(t.b, [&](int i) { return (long double)t.c[i] * t.c[i]; }) == 1.0 / 3.0, tol);
  BOOST_TEST(dot(t.b, Ac) == 1.0 / 6.0, tol);
  // Stage order 2: A c = c^2 / 2 on every row.
  for (int i = 0; i < s; ++i)
    BOOST_TEST(static_cast<double>(Ac(i)) == t.c[i] * t.c[i] / 2.0,
               boost::test_tools::tolerance(1e-15));
  // Order 4 for b_hat (all eight conditions).
  const auto& bh = t.b_hat;
  BOOST_TEST(dot(bh, [](int) { return 1.0L; }) == 1.0, tol);
  BOOST_TEST(dot(bh, [&](int i) { return (long double)t.c[i]; }) == 0.5, tol);
  BOOST_TEST(dot(bh, [&](int i) { return (long double)t.c[i] * t.c[i]; }) == 1.0 / 3.0, tol);
  BOOST_TEST(dot(bh, Ac) == 1.0 / 6.0, tol);
  BOOST_TEST(dot(bh, [&](int i) { return (long double)t.c[i] * t.c[i] * t.c[i]; }) == 0.25, tol);
  BOOST_TEST(dot(bh, [&](int i) { return t.c[i] * Ac(i); }) == 0.125, tol);
  BOOST_TEST(dot(bh, Ac2) == 1.0 / 12.0, tol);
  BOOST_TEST(dot(bh, AAc) == 1.0 / 24.0, tol);
  // The order-4 defects of (A, b) quoted by the reference.
  BOOST_TEST(dot(t.b, [&](int i) { return (long double)t.c[i] * t.c[i] * t.c[i]; }) - 0.25 ==
                 0.0222969909934,
             boost::test_tools::tolerance(1e-10));
  BOOST_TEST(dot(t.b, AAc) - 1.0 / 24.0 == -0.0258970846506, boost::test_tools::tolerance(1e-10));
  // The error weights d = b - b_hat of the reference.
  const double d_ref[] = {-0.05462549724041393941850916, -0.4942088936259949547855155,
                          0.2219344997350646446420101, 0.3268998911313442495620146};
  for (int i = 0; i < s; ++i) BOOST_TEST(t.d(i) == d_ref[i], boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(sister_methods_are_valid) {
  for (const Tableau& t : {Tableau::esdirk12(), Tableau::esdirk23()}) {
    BOOST_TEST_INFO(t.name);
    BOOST_CHECK_NO_THROW(t.validate());
    double sum = 0.0;
    for (double b : t.b) sum += b;
    BOOST_TEST(sum == 1.0, boost::test_tools::tolerance(1e-15));
  }
}

// One step of y' = lambda y from y = 1 with h = 1 must return R(lambda): to 1e-14 relative
// where the stage sums are well conditioned (|z| <= 10). For |z| >> 1 the explicit first stage
// contributes h a_41 F_1 = a_41 z, which cancels down to R(z) = O(1/z): the attainable
// accuracy is then the rounding of those terms, eps |z| sum_j |a_4j|, divided by the stage
// denominator (1 + gamma |z|); the test holds it to that bound.
BOOST_AUTO_TEST_CASE(one_step_returns_the_stability_function) {
  const double lambdas[] = {-1.0, -10.0, 1.0, -100.0, -1e6};
  const double R[] = {0.3614238084311264832637, -0.1279609513909911405725, 2.532895617298640002979,
                      -0.02645452143975854820284, -2.870075135290355865373e-6};
  const esdirk::Tableau tab = esdirk::Tableau::esdirk34();
  double row_sum = 0.0;
  for (int j = 0; j < 4; ++j) row_sum += std::abs(tab.A(3, j));
  for (int k = 0; k < 5; ++k) {
    const double lambda = lambdas[k];
    esdirk::FunctionProblem problem(1, 0, 0, [lambda](double, auto y, auto, auto, auto f) {
      f[0] = lambda * y[0];
      return 0;
    });
    problem.set_jacobian([lambda](double, auto, auto, auto, esdirk::MatrixRef J) {
      J(0, 0) = lambda;
      return 0;
    });
    esdirk::Options options;
    options.method = tab;  // R(z) above is ESDIRK34's
    options.newton_tolerance = 1e-6;  // a linear problem: Newton is exact after one iteration
    esdirk::Integrator solver(problem, options);
    const std::vector<double> y0{1.0};
    BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, y0, {}, {})));
    BOOST_REQUIRE(esdirk::ok(solver.step_exactly(1.0)));
    const double error = std::abs(solver.x()[0] - R[k]);
    const double z = std::abs(lambda);
    const double bound = z <= 10.0 ? 1e-14 * std::abs(R[k])
                                   : 4.0 * 2.220446e-16 * z * row_sum / (1.0 + tab.gamma * z);
    BOOST_TEST_INFO("lambda = " << lambda << ", relative error " << error / std::abs(R[k]));
    BOOST_TEST(error <= bound);
  }
}

// ESDIRK34's R(i) from the rotation x' = [[0,-1],[1,0]] x: one step from (1, 0) gives (Re R(i), Im R(i)).
BOOST_AUTO_TEST_CASE(one_step_of_a_rotation_returns_R_of_i) {
  esdirk::FunctionProblem problem(2, 0, 0, [](double, auto x, auto, auto, auto f) {
    f[0] = -x[1];
    f[1] = x[0];
    return 0;
  });
  esdirk::Options options;
  options.method = esdirk::Tableau::esdirk34();  // the values below are ESDIRK34's R(i)
  options.newton_tolerance = 1e-6;
  problem.set_jacobian([](double, auto, auto, auto, esdirk::MatrixRef J) {
    J(0, 0) = 0;
    J(0, 1) = -1;
    J(1, 0) = 1;
    J(1, 1) = 0;
    return 0;
  });
  esdirk::Integrator solver(problem, options);
  const std::vector<double> x0{1.0, 0.0};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, {}, {})));
  BOOST_REQUIRE(esdirk::ok(solver.step_exactly(1.0)));
  BOOST_TEST(std::abs(solver.x()[0] - 0.5394520557431521630574) <= 1e-14);
  BOOST_TEST(std::abs(solver.x()[1] - 0.8210878654682421275412) <= 1e-14);
}

BOOST_AUTO_TEST_SUITE_END()
