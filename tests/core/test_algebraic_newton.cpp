// The algebraic Newton kernel (internal/algebraic_newton.hpp) shared by the consistent
// initialization, the event correction and the geometric step: converged on closed-form roots,
// damped back into the model's domain, and where it stops when it cannot converge.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>
#include <vector>

#include "internal/algebraic_newton.hpp"

namespace {

using esdirk::internal::AlgebraicEquations;
using esdirk::internal::AlgebraicNewtonResult;
using Stop = AlgebraicNewtonResult::Stop;

// g and dg/dz given as functions; unit weights.
class Equations final : public AlgebraicEquations {
 public:
  std::function<int(esdirk::ConstVector, esdirk::Vector)> g;
  std::function<void(esdirk::ConstVector, esdirk::MatrixRef)> dgdz;
  int evaluations = 0, accepted_trials = 0, refused = 0;
  int evaluate(esdirk::ConstVector z, esdirk::Vector out, Point) override {
    ++evaluations;
    const int code = g(z, out);
    if (code > 0) ++refused;
    return code;
  }
  void accept_trial() override { ++accepted_trials; }
  int jacobian(esdirk::ConstVector z, esdirk::ConstVector, esdirk::MatrixRef J) override {
    dgdz(z, J);
    return 0;
  }
  void weights(esdirk::ConstVector, esdirk::Vector w) override {
    for (double& v : w) v = 1.0;
  }
};

struct Run {
  AlgebraicNewtonResult result;
  std::vector<double> z, g;
  esdirk::Statistics stats;
};

Run solve(Equations& eq, std::vector<double> z0, double tolerance, int iterations = 30) {
  const int nz = static_cast<int>(z0.size());
  const auto n = z0.size();
  Run run;
  run.z = z0;
  run.g.assign(n, 0.0);
  BOOST_TEST_REQUIRE(eq.g(run.z, run.g) == 0);
  esdirk::DenseMatrix J(nz, nz);
  std::vector<int> pivots(n);
  std::vector<double> work(5 * n);
  const esdirk::internal::AlgebraicNewtonWorkspace ws{J.ref(), pivots.data(), work.data(), work.data() + n,
                                                      work.data() + 2 * n, work.data() + 3 * n, work.data() + 4 * n};
  run.result = esdirk::internal::solve_algebraic(eq, run.z, run.g, {iterations, tolerance, 0.0}, ws, run.stats);
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(algebraic_newton)

BOOST_AUTO_TEST_CASE(converges_to_the_closed_form_root_with_g_at_the_returned_z) {
  // g = (z1^3 + z1 - 2, z2 - z1^2): the root (1, 1).
  Equations eq;
  eq.g = [](esdirk::ConstVector z, esdirk::Vector g) {
    g[0] = z[0] * z[0] * z[0] + z[0] - 2.0;
    g[1] = z[1] - z[0] * z[0];
    return 0;
  };
  eq.dgdz = [](esdirk::ConstVector z, esdirk::MatrixRef J) {
    J(0, 0) = 3.0 * z[0] * z[0] + 1.0;
    J(0, 1) = 0.0;
    J(1, 0) = -2.0 * z[0];
    J(1, 1) = 1.0;
  };
  const Run run = solve(eq, {3.0, -1.0}, 1e-13);
  BOOST_TEST(run.result.ok());
  BOOST_TEST(std::abs(run.z[0] - 1.0) < 1e-13);
  BOOST_TEST(std::abs(run.z[1] - 1.0) < 1e-13);
  // g is that of the returned z (the last correction, below the tolerance, is not applied).
  BOOST_TEST(run.g[0] == run.z[0] * run.z[0] * run.z[0] + run.z[0] - 2.0);
  BOOST_TEST(run.g[1] == run.z[1] - run.z[0] * run.z[0]);
  // One LU per iteration; one back-substitution per iteration and per trial point.
  BOOST_TEST(run.stats.lu_factorizations == run.result.iteration + 1);
  BOOST_TEST(run.stats.back_substitutions == run.stats.lu_factorizations + eq.evaluations);
}

BOOST_AUTO_TEST_CASE(a_trial_outside_the_domain_is_damped_back_into_it) {
  // g = log z, root 1; from z = 3 the full step lands at 3 - 3 log 3 < 0, where log fails.
  Equations eq;
  eq.g = [](esdirk::ConstVector z, esdirk::Vector g) {
    if (!(z[0] > 0.0)) return 1;
    g[0] = std::log(z[0]);
    return 0;
  };
  eq.dgdz = [](esdirk::ConstVector z, esdirk::MatrixRef J) { J(0, 0) = 1.0 / z[0]; };
  const Run run = solve(eq, {3.0}, 1e-14);
  BOOST_TEST(run.result.ok());
  BOOST_TEST(std::abs(run.z[0] - 1.0) < 1e-14);
  BOOST_TEST(eq.refused >= 1);  // the full step's trial, outside the domain
}

BOOST_AUTO_TEST_CASE(a_singular_dgdz_names_its_pivot_and_a_missing_root_fails) {
  Equations singular;
  singular.g = [](esdirk::ConstVector z, esdirk::Vector g) {
    g[0] = z[0] - z[1] - 1.0;
    g[1] = 2.0 * (z[0] - z[1]);
    return 0;
  };
  singular.dgdz = [](esdirk::ConstVector, esdirk::MatrixRef J) {
    J(0, 0) = 1.0;
    J(0, 1) = -1.0;
    J(1, 0) = 2.0;
    J(1, 1) = -2.0;
  };
  const Run s = solve(singular, {0.0, 0.0}, 1e-12);
  BOOST_TEST(static_cast<int>(s.result.stop) == static_cast<int>(Stop::singular));
  BOOST_TEST(s.result.pivot == 2);
  BOOST_TEST(s.z == std::vector<double>({0.0, 0.0}));  // z untouched

  // g = z^2 + 1 has no real root: the iteration stops without converging.
  Equations none;
  none.g = [](esdirk::ConstVector z, esdirk::Vector g) {
    g[0] = z[0] * z[0] + 1.0;
    return 0;
  };
  none.dgdz = [](esdirk::ConstVector z, esdirk::MatrixRef J) { J(0, 0) = 2.0 * z[0]; };
  const Run n = solve(none, {0.7}, 1e-12, 20);
  BOOST_TEST(!n.result.ok());
  BOOST_TEST((n.result.stop == Stop::no_descent || n.result.stop == Stop::max_iterations ||
              n.result.stop == Stop::singular));
}

BOOST_AUTO_TEST_SUITE_END()
