// The shooting interval: x_{k+1}, A_k, B_k, z_{k+1} and its sensitivities, the running cost and
// its gradients; composition over two half intervals and finite differences.
#include <boost/test/unit_test.hpp>

#include "esdirk/sensitivity/shooting_interval.hpp"
#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

// A small nonlinear index-1 DAE with two controls:
//   x0' = -x0 + u0 z,   x1' = x0 - u1 x1^2,   0 = z^3 + z - x1   (g_z = 3z^2 + 1 > 0)
// and the running cost h = x0^2 + z^2 + u0^2 + u1 x1 / 2.
class ControlledDae : public esdirk::Problem {
 public:
  ControlledDae() : Problem(2, 1, 2) {}
  int evaluate(double, ConstVector x, ConstVector z, ConstVector u, Vector f, Vector g) override {
    f[0] = -x[0] + u[0] * z[0];
    f[1] = x[0] - u[1] * x[1] * x[1];
    g[0] = z[0] * z[0] * z[0] + z[0] - x[1];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, ConstVector x, ConstVector z, ConstVector u, MatrixRef J) override {
    J.fill(0.0);
    J(0, 0) = -1.0;
    J(0, 2) = u[0];
    J(1, 0) = 1.0;
    J(1, 1) = -2.0 * u[1] * x[1];
    J(2, 1) = -1.0;
    J(2, 2) = 3.0 * z[0] * z[0] + 1.0;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, ConstVector x, ConstVector z, ConstVector, MatrixRef Jp) override {
    Jp.fill(0.0);
    Jp(0, 0) = z[0];
    Jp(1, 1) = -x[1] * x[1];
    return 0;
  }
};

int running_cost(double, ConstVector x, ConstVector z, ConstVector u, double& h, Vector hx,
                 Vector hz, Vector hu) {
  h = x[0] * x[0] + z[0] * z[0] + u[0] * u[0] + 0.5 * u[1] * x[1];
  hx[0] = 2.0 * x[0];
  hx[1] = 0.5 * u[1];
  hz[0] = 2.0 * z[0];
  hu[0] = 2.0 * u[0];
  hu[1] = 0.5 * x[1];
  return 0;
}

double relative_difference(ConstMatrixRef a, ConstMatrixRef b) {
  double diff = 0.0, scale = 0.0;
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) {
      diff = std::max(diff, std::abs(a(i, j) - b(i, j)));
      scale = std::max(scale, std::abs(b(i, j)));
    }
  return diff / scale;
}

// C = A2 A1 and D = A2 B1 + B2 (the recursion of Kristensen et al. 2005, eq. 15, over two intervals).
void compose(const esdirk::ShootingResult& first, const esdirk::ShootingResult& second,
             DenseMatrix& A, DenseMatrix& B) {
  const int nx = first.A.rows(), nu = first.B.cols();
  A.resize(nx, nx);
  B.resize(nx, nu);
  for (int i = 0; i < nx; ++i) {
    for (int j = 0; j < nx; ++j)
      for (int k = 0; k < nx; ++k) A(i, j) += second.A(i, k) * first.A(k, j);
    for (int j = 0; j < nu; ++j) {
      B(i, j) = second.B(i, j);
      for (int k = 0; k < nx; ++k) B(i, j) += second.A(i, k) * first.B(k, j);
    }
  }
}

esdirk::Options tight_options() {
  esdirk::Options o;
  o.rtol = o.atol = 1e-10;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shooting_interval)

BOOST_AUTO_TEST_CASE(one_interval_equals_two_half_intervals_on_dow) {
  dow::Model model;
  const Setup s = dow_setup();
  auto options = dow_options(1e-8);
  esdirk::ShootingInterval whole(model, options), halves(model, options);
  const auto& r = whole.integrate(0.0, 1.0, s.x0, s.p, s.z0);
  BOOST_REQUIRE(esdirk::ok(r.status));
  const esdirk::ShootingResult first = halves.integrate(0.0, 0.5, s.x0, s.p, s.z0);
  BOOST_REQUIRE(esdirk::ok(first.status));
  const esdirk::ShootingResult second = halves.integrate(0.5, 1.0, first.x, s.p);
  BOOST_REQUIRE(esdirk::ok(second.status));
  DenseMatrix A, B;
  compose(first, second, A, B);
  // The two runs take different steps: they agree to the integration accuracy.
  BOOST_TEST(relative_difference(A.cref(), r.A.cref()) <= 1e-5);
  BOOST_TEST(relative_difference(B.cref(), r.B.cref()) <= 1e-5);
  for (int i = 0; i < 6; ++i) BOOST_TEST(std::abs(second.x[i] - r.x[i]) <= 1e-6 * (1.0 + std::abs(r.x[i])));
  // z_{k+1} is consistent and its sensitivities compose the same way: Az = Az2 A1.
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) {
      double composed = 0.0;
      for (int k = 0; k < 6; ++k) composed += second.Az(i, k) * first.A(k, j);
      double scale = 0.0;
      for (int l = 0; l < 6; ++l) scale = std::max(scale, std::abs(r.Az(i, l)));
      BOOST_TEST(std::abs(composed - r.Az(i, j)) <= 1e-5 * scale);
    }
}

BOOST_AUTO_TEST_CASE(sensitivities_and_cost_gradients_match_finite_differences) {
  ControlledDae model;
  esdirk::ShootingInterval interval(model, tight_options());
  interval.set_running_cost(running_cost);
  const std::vector<double> x0 = {1.0, 0.5}, u = {0.8, 1.2}, zg = {0.4};
  const esdirk::ShootingResult r = interval.integrate(0.0, 0.7, x0, u, zg);
  BOOST_REQUIRE(esdirk::ok(r.status));
  // g(x_end, z_end) = 0: z_{k+1} is consistent.
  BOOST_TEST(std::abs(std::pow(r.z[0], 3) + r.z[0] - r.x[1]) <= 1e-9);

  esdirk::ShootingInterval probe(model, tight_options());
  probe.set_running_cost(running_cost);
  const double delta = 1e-5;
  for (int j = 0; j < 4; ++j) {
    auto xp = x0, xm = x0, up = u, um = u;
    if (j < 2) { xp[j] += delta; xm[j] -= delta; }
    else { up[j - 2] += delta; um[j - 2] -= delta; }
    const esdirk::ShootingResult plus = probe.integrate(0.0, 0.7, xp, up, zg);
    const esdirk::ShootingResult minus = probe.integrate(0.0, 0.7, xm, um, zg);
    for (int i = 0; i < 2; ++i) {
      const double fd = (plus.x[i] - minus.x[i]) / (2 * delta);
      const double analytic = j < 2 ? r.A(i, j) : r.B(i, j - 2);
      BOOST_TEST(std::abs(fd - analytic) <= 1e-5 * (1.0 + std::abs(fd)), "x" << i << " dir " << j);
    }
    const double fd_z = (plus.z[0] - minus.z[0]) / (2 * delta);
    BOOST_TEST(std::abs(fd_z - (j < 2 ? r.Az(0, j) : r.Bz(0, j - 2))) <= 1e-5 * (1.0 + std::abs(fd_z)));
    const double fd_H = (plus.H - minus.H) / (2 * delta);
    const double grad = j < 2 ? r.q[j] : r.r[j - 2];
    BOOST_TEST(std::abs(fd_H - grad) <= 1e-5 * (1.0 + std::abs(fd_H)), "H dir " << j);
  }
}

BOOST_AUTO_TEST_CASE(repeated_calls_reuse_the_object_and_warm_start) {
  dow::Model model;
  const Setup s = dow_setup();
  // The raw tolerances (Options::seed002()'s): the step counts compared below are those of that
  // rule (under the calibrated one the warm-started repeat of the last interval takes 408 steps
  // against 407).
  esdirk::Options options = dow_options(1e-6);
  options.tolerance_rule = esdirk::ToleranceRule::raw;
  esdirk::ShootingInterval interval(model, options);
  std::vector<double> x = s.x0;
  long first_steps = 0, later_steps = 0;
  // Ten intervals of 0.2 h chained, then the state compared with one long run.
  for (int k = 0; k < 10; ++k) {
    const auto& r = interval.integrate(0.2 * k, 0.2 * (k + 1), x, s.p, k == 0 ? ConstVector(s.z0) : ConstVector());
    BOOST_REQUIRE(esdirk::ok(r.status));
    x = r.x;
    (k == 0 ? first_steps : later_steps) += r.statistics.accepted_steps;
    BOOST_TEST(r.statistics.sensitivity_solves == r.statistics.accepted_steps);
  }
  BOOST_TEST(interval.total_statistics().accepted_steps == first_steps + later_steps);
  esdirk::Integrator solver(model, dow_options(1e-6));
  solver.initialize(0.0, s.x0, s.z0, s.p);
  solver.set_stop_time(2.0);
  std::vector<double> x_ref(6);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(2.0, x_ref)));
  for (int i = 0; i < 6; ++i) BOOST_TEST(std::abs(x[i] - x_ref[i]) <= 1e-4 * (1e-3 + std::abs(x_ref[i])));
  // The same interval again from the same point: the warm start needs no more steps.
  const long again_before = interval.integrate(1.8, 2.0, x, s.p).statistics.accepted_steps;
  const long again_after = interval.integrate(1.8, 2.0, x, s.p).statistics.accepted_steps;
  BOOST_TEST(again_after <= again_before);
}

BOOST_AUTO_TEST_CASE(error_control_resolves_the_fast_layer_of_the_state_directions) {
  // Perturbing u6 at a node breaks a fast equilibrium: d/du6(t_k) starts a transient (rate
  // ~1e9/h) that the states do not have. Without sensitivity error control the states' few
  // steps under-resolve it; with it (default per-direction tolerances atol_i / sigma_j) the
  // column matches central differences of tightly integrated states.
  dow::Model model;
  const Setup s = dow_setup();
  esdirk::Integrator tight(model, dow_options(1e-11));
  BOOST_REQUIRE(esdirk::ok(tight.initialize(0.0, s.x0, s.z0, s.p)));
  tight.set_stop_time(4.0);
  std::vector<double> x(6), z(4);
  BOOST_REQUIRE(esdirk::ok(tight.integrate_to(4.0, x, z)));
  const int u6 = 5;
  const double d = 1e-6 * std::abs(x[u6]);
  std::vector<double> fd(6);
  {
    esdirk::ShootingInterval reference(model, dow_options(1e-11));
    std::vector<double> xp = x, xm = x;
    xp[u6] += d;
    xm[u6] -= d;
    const std::vector<double> plus = reference.integrate(4.0, 4.2, xp, s.p, z).x;
    const auto& minus = reference.integrate(4.0, 4.2, xm, s.p, z);
    BOOST_REQUIRE(esdirk::ok(minus.status));
    for (int i = 0; i < 6; ++i) fd[i] = (plus[i] - minus.x[i]) / (2.0 * d);
  }
  auto column_error = [&](bool error_control, long& steps) {
    esdirk::SensitivityOptions so;
    so.error_control = error_control;
    // The raw tolerances (Options::seed002()'s): the finding is about the states' step sizes at
    // rtol 1e-6 as Kristensen et al. 2005 chose them (under the calibrated rule the states take 3x
    // more steps and the error-control-off column is 50x, not 100x, worse).
    esdirk::Options options = dow_options(1e-6);
    options.tolerance_rule = esdirk::ToleranceRule::raw;
    esdirk::ShootingInterval interval(model, options, so);
    const auto& r = interval.integrate(4.0, 4.2, x, s.p, z);
    BOOST_REQUIRE(esdirk::ok(r.status));
    steps = r.statistics.accepted_steps;
    double diff = 0.0, scale = 0.0;
    for (int i = 0; i < 6; ++i) {
      diff = std::max(diff, std::abs(r.A(i, u6) - fd[i]));
      scale = std::max(scale, std::abs(fd[i]));
    }
    return diff / scale;
  };
  long steps_off = 0, steps_on = 0;
  const double off = column_error(false, steps_off), on = column_error(true, steps_on);
  BOOST_TEST_MESSAGE("Dow [4, 4.2] h, rtol 1e-6, dx/du6(4) vs central differences: error control off "
                     << off << " (" << steps_off << " steps), on " << on << " (" << steps_on << " steps)");
  BOOST_TEST(on <= 50 * 1e-6);     // a global error of a few tens of rtol
  BOOST_TEST(off >= 100.0 * on);  // the finding this test documents
}

BOOST_AUTO_TEST_SUITE_END()
