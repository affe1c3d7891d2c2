// The shooting interval in reverse mode: A^T lambda, B^T lambda (with the algebraic parts and the
// running-cost gradients) from one sweep, against the forward ShootingInterval (exact mode) on
// the same steps; the statistics of the sweep; bad input.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>

#include "esdirk/sensitivity/reverse_shooting_interval.hpp"
#include "sensitivity_fixtures.hpp"

using namespace sens_test;
using esdirk::ReverseShootingInterval;
using esdirk::ShootingInterval;

namespace {

// The controlled index-1 DAE of test_shooting.cpp (two controls) with a running cost:
//   x0' = -x0 + u0 z,   x1' = x0 - u1 x1^2,   0 = z^3 + z - x1,
//   h = x0^2 + z^2 + u0^2 + u1 x1 / 2.
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

int running_cost(double, ConstVector x, ConstVector z, ConstVector u, double& h, Vector hx, Vector hz,
                 Vector hu) {
  h = x[0] * x[0] + z[0] * z[0] + u[0] * u[0] + 0.5 * u[1] * x[1];
  hx[0] = 2.0 * x[0];
  hx[1] = 0.5 * u[1];
  hz[0] = 2.0 * z[0];
  hu[0] = 2.0 * u[0];
  hu[1] = 0.5 * x[1];
  return 0;
}

DenseMatrix random_matrix(int rows, int cols, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  DenseMatrix M(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) M(i, j) = uniform(generator);
  return M;
}

// The worst relative error of `got` against the forward products
//   expected(:, j) = X^T lambda_x(:, j) + Xz^T lambda_z(:, j) + w_j c,
// each entry scaled by the sum of the magnitudes of its terms (the products' own size, so a
// cancellation does not inflate the error).
double worst_error(ConstMatrixRef got, ConstMatrixRef X, ConstMatrixRef Xz, ConstMatrixRef lx,
                   ConstMatrixRef lz, const std::vector<double>& w, const std::vector<double>& c) {
  double worst = 0.0;
  for (int j = 0; j < got.cols; ++j)
    for (int i = 0; i < got.rows; ++i) {
      double value = 0.0, scale = 0.0;
      for (int k = 0; k < X.rows; ++k) {
        value += X(k, i) * lx(k, j);
        scale += std::abs(X(k, i) * lx(k, j));
      }
      for (int k = 0; k < Xz.rows; ++k) {
        value += Xz(k, i) * lz(k, j);
        scale += std::abs(Xz(k, i) * lz(k, j));
      }
      if (!w.empty()) {
        value += w[static_cast<std::size_t>(j)] * c[static_cast<std::size_t>(i)];
        scale += std::abs(w[static_cast<std::size_t>(j)] * c[static_cast<std::size_t>(i)]);
      }
      worst = std::max(worst, std::abs(got(i, j) - value) / std::max(scale, 1e-300));
    }
  return worst;
}

// The forward interval on the reverse interval's steps: exact mode with the sensitivities kept
// out of the error test, so that both take the steps of the states alone.
esdirk::SensitivityOptions same_steps() {
  esdirk::SensitivityOptions o;
  o.mode = esdirk::SensitivityMode::exact;
  o.error_control = false;
  return o;
}

struct Interval {
  double t0, t1;
};

// Integrates consecutive intervals with both objects (warm starts after the first) and checks
// after each that both took the same steps and that the sweep's products equal the forward
// ones. Returns the worst relative error over every interval.
double compare_over_intervals(esdirk::Problem& problem, const esdirk::Options& options,
                              const std::vector<Interval>& intervals, std::vector<double> x,
                              const std::vector<double>& u, const std::vector<double>& z0,
                              bool with_cost, int m) {
  const int nx = problem.nx(), nz = problem.nz(), nu = problem.np();
  ShootingInterval forward(problem, options, same_steps());
  ReverseShootingInterval reverse(problem, options);
  if (with_cost) {
    forward.set_running_cost(running_cost);
    reverse.set_running_cost(running_cost);
  }
  double worst = 0.0;
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    const std::vector<double> zg = k == 0 ? z0 : std::vector<double>{};
    const esdirk::ShootingResult& f = forward.integrate(intervals[k].t0, intervals[k].t1, x, u, zg);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(f.status), f.message);
    const esdirk::ReverseShootingResult& r = reverse.integrate(intervals[k].t0, intervals[k].t1, x, u, zg);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    // The same steps: the same counts and the same end state, bit for bit.
    BOOST_TEST(r.steps == f.statistics.accepted_steps);
    BOOST_TEST(r.statistics.steps == f.statistics.steps);
    for (int i = 0; i < nx; ++i) BOOST_TEST(r.x[static_cast<std::size_t>(i)] == f.x[static_cast<std::size_t>(i)]);
    if (with_cost) BOOST_TEST(std::abs(r.H - f.H) <= 1e-14 * std::abs(f.H));

    const DenseMatrix lx = random_matrix(nx, m, 11u + static_cast<unsigned>(k));
    const DenseMatrix lz = random_matrix(nz, m, 23u + static_cast<unsigned>(k));
    std::vector<double> w;
    if (with_cost)
      for (int j = 0; j < m; ++j) w.push_back(j == 0 ? 1.0 : 0.5 - j);
    DenseMatrix gx(nx, m), gu(nu, m);
    const esdirk::Status status = reverse.transpose_products(
        lx.cref(), nz > 0 ? lz.cref() : ConstMatrixRef{}, w, gx.ref(), nu > 0 ? gu.ref() : MatrixRef{});
    BOOST_REQUIRE_MESSAGE(esdirk::ok(status), reverse.message());
    worst = std::max(worst, worst_error(gx.cref(), f.A.cref(), f.Az.cref(), lx.cref(), lz.cref(), w, f.q));
    if (nu > 0)
      worst = std::max(worst, worst_error(gu.cref(), f.B.cref(), f.Bz.cref(), lx.cref(), lz.cref(), w, f.r));
    // One sweep whatever m: its counters are in the interval's statistics.
    const esdirk::AdjointReport& report = reverse.adjoint_report();
    BOOST_TEST(report.adjoint_steps == r.steps);
    x = f.x;
  }
  return worst;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reverse_shooting_interval)

// Dow (6 states, 4 algebraic, the 9 parameters as controls) over three warm-started intervals,
// with adjoints of both x_{k+1} and z_{k+1} in two columns.
BOOST_AUTO_TEST_CASE(dow_products_equal_the_forward_interval) {
  dow::Model model;
  const Setup s = dow_setup();
  const double worst = compare_over_intervals(model, dow_options(1e-6), {{0.0, 0.5}, {0.5, 1.5}, {1.5, 3.0}},
                                              s.x0, s.p, s.z0, false, 2);
  BOOST_TEST_MESSAGE("Dow: worst relative error " << worst);
  BOOST_TEST(worst <= 1e-12);
}

// A DAE with a running cost: the weighted cost gradients q w^T, r w^T come out of the same sweep.
BOOST_AUTO_TEST_CASE(running_cost_gradients_equal_the_forward_interval) {
  ControlledDae model;
  esdirk::Options options;
  options.rtol = 1e-7;
  options.atol = 1e-9;
  const double worst = compare_over_intervals(model, options, {{0.0, 0.4}, {0.4, 1.1}}, {1.0, 0.5},
                                              {0.8, 1.2}, {0.4}, true, 3);
  BOOST_TEST_MESSAGE("controlled DAE: worst relative error " << worst);
  BOOST_TEST(worst <= 1e-12);
}

// An ODE with difference Jacobians (the sweep differences them as the forward exact mode does).
BOOST_AUTO_TEST_CASE(ode_with_difference_jacobians) {
  Oscillator model(false);
  esdirk::Options options;
  options.rtol = 1e-6;
  options.atol = 1e-8;
  const double worst = compare_over_intervals(model, options, {{0.0, 0.7}, {0.7, 1.5}}, {2.0, 0.0},
                                              {5.0, 1.0}, {}, false, 1);
  BOOST_TEST(worst <= 1e-12);
}

// lambda = 0, w = 1 gives (q, r); the counters of the sweep reach the interval's statistics
// and the totals.
BOOST_AUTO_TEST_CASE(cost_gradients_alone_and_statistics) {
  ControlledDae model;
  esdirk::Options options;
  options.rtol = 1e-7;
  options.atol = 1e-9;
  ShootingInterval forward(model, options, same_steps());
  ReverseShootingInterval reverse(model, options);
  forward.set_running_cost(running_cost);
  reverse.set_running_cost(running_cost);
  const std::vector<double> x0 = {1.0, 0.5}, u = {0.8, 1.2}, zg = {0.4};
  const esdirk::ShootingResult& f = forward.integrate(0.0, 0.7, x0, u, zg);
  const esdirk::ReverseShootingResult& r = reverse.integrate(0.0, 0.7, x0, u, zg);
  BOOST_REQUIRE(esdirk::ok(f.status) && esdirk::ok(r.status));
  const long forward_total = reverse.total_statistics().steps;
  BOOST_TEST(r.statistics.adjoint_steps == 0);
  DenseMatrix lx(2, 1), gx(2, 1), gu(2, 1);
  const std::vector<double> w = {1.0};
  BOOST_REQUIRE(esdirk::ok(reverse.transpose_products(lx.cref(), {}, w, gx.ref(), gu.ref())));
  for (int i = 0; i < 2; ++i) {
    BOOST_TEST(std::abs(gx(i, 0) - f.q[static_cast<std::size_t>(i)]) <= 1e-12 * std::abs(f.q[static_cast<std::size_t>(i)]));
    BOOST_TEST(std::abs(gu(i, 0) - f.r[static_cast<std::size_t>(i)]) <= 1e-12 * std::abs(f.r[static_cast<std::size_t>(i)]));
  }
  const esdirk::AdjointReport& report = reverse.adjoint_report();
  const esdirk::Statistics& st = reverse.result().statistics;
  BOOST_TEST(st.adjoint_steps == r.steps);
  // s - 1 implicit stages per step, each one LU and one transposed solve per column.
  const long implicit = options.resolved_method().stages - 1;
  BOOST_TEST(st.adjoint_factorizations == implicit * r.steps);
  BOOST_TEST(st.adjoint_transposed_solves == implicit * r.steps);
  BOOST_TEST(st.adjoint_factorizations == report.stage_factorizations);
  BOOST_TEST(st.adjoint_jacobian_evaluations == report.jacobian_evaluations);
  BOOST_TEST(st.adjoint_recomputed_steps == 0);
  BOOST_TEST(st.steps == forward_total);  // the sweep takes no forward step
  // A second sweep with two columns: one sweep again, twice the solves; both in the totals.
  DenseMatrix lx2 = random_matrix(2, 2, 5u), gx2(2, 2), gu2(2, 2);
  BOOST_REQUIRE(esdirk::ok(reverse.transpose_products(lx2.cref(), {}, {}, gx2.ref(), gu2.ref())));
  BOOST_TEST(reverse.adjoint_report().transposed_solves == 2 * implicit * r.steps);
  BOOST_TEST(reverse.total_statistics().adjoint_steps == 2L * r.steps);
  BOOST_TEST(reverse.result().statistics.adjoint_transposed_solves == 3 * implicit * r.steps);
}

// Regression: Integrator::initialize resets every counter, but the adjoint's share of the
// report (adjoint_steps, adjoint_transposed_solves, ...) kept the last sweep's values.
BOOST_AUTO_TEST_CASE(initialize_left_the_last_sweeps_counters_in_the_statistics) {
  Oscillator model;
  esdirk::Integrator solver(model);
  esdirk::Adjoint adjoint(solver);
  const Setup s = oscillator_setup();
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, {}, s.p)));
  solver.set_stop_time(s.t_end);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(s.t_end, x).status));
  esdirk::AdjointObjective objective;
  const DenseMatrix w(2, 1);
  objective.set_terminal_weights(w.cref());
  DenseMatrix dx0(2, 1), dp(2, 1);
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())));
  BOOST_TEST(solver.statistics().adjoint_steps == adjoint.steps());
  BOOST_TEST(solver.statistics().adjoint_transposed_solves ==
             (solver.method().stages - 1L) * adjoint.steps());
  BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, {}, s.p)));
  const esdirk::Statistics& st = solver.statistics();
  BOOST_TEST(st.adjoint_steps == 0);
  BOOST_TEST(st.adjoint_transposed_solves == 0);
  BOOST_TEST(st.adjoint_factorizations == 0);
  BOOST_TEST(st.adjoint_jacobian_evaluations == 0);
  BOOST_TEST(adjoint.report().adjoint_steps == 0);
}

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(products_before_an_interval_or_after_a_failed_one) {
  ControlledDae model;
  ReverseShootingInterval reverse(model);
  DenseMatrix lx(2, 1), gx(2, 1), gu(2, 1);
  BOOST_CHECK_THROW(reverse.transpose_products(lx.cref(), {}, {}, gx.ref(), gu.ref()), std::logic_error);
  BOOST_CHECK_THROW(reverse.result(), std::logic_error);
  // A cost that fails on the forward run: the interval fails, nothing is recorded.
  reverse.set_running_cost([](double, ConstVector, ConstVector, ConstVector, double& h, Vector, Vector,
                              Vector) {
    h = std::nan("");
    return 0;
  });
  const auto& r = reverse.integrate(0.0, 0.5, std::vector<double>{1.0, 0.5}, std::vector<double>{0.8, 1.2},
                                    std::vector<double>{0.4});
  BOOST_TEST(!esdirk::ok(r.status));
  BOOST_TEST(r.message.find("running cost") != std::string::npos);
  BOOST_CHECK_THROW(reverse.transpose_products(lx.cref(), {}, {}, gx.ref(), gu.ref()), std::logic_error);
}

BOOST_AUTO_TEST_CASE(wrong_sizes_and_non_finite_arguments) {
  ControlledDae model;
  ReverseShootingInterval reverse(model);
  const std::vector<double> x0 = {1.0, 0.5}, u = {0.8, 1.2}, zg = {0.4};
  BOOST_CHECK_THROW(reverse.integrate(0.0, 0.5, std::vector<double>{1.0}, u, zg), std::invalid_argument);
  BOOST_CHECK_THROW(reverse.integrate(0.0, 0.5, x0, std::vector<double>{1.0}, zg), std::invalid_argument);
  BOOST_CHECK_THROW(reverse.integrate(0.5, 0.5, x0, u, zg), std::invalid_argument);
  BOOST_REQUIRE(esdirk::ok(reverse.integrate(0.0, 0.5, x0, u, zg).status));
  DenseMatrix lx(2, 2), lz(1, 2), gx(2, 2), gu(2, 2), bad3(3, 2), bad1(1, 2), lz3(1, 3);
  BOOST_CHECK_THROW(reverse.transpose_products(bad3.cref(), {}, {}, gx.ref(), gu.ref()), std::invalid_argument);
  BOOST_CHECK_THROW(reverse.transpose_products(lx.cref(), lz3.cref(), {}, gx.ref(), gu.ref()), std::invalid_argument);
  BOOST_CHECK_THROW(reverse.transpose_products(lx.cref(), lz.cref(), std::vector<double>{1.0}, gx.ref(), gu.ref()),
                    std::invalid_argument);
  BOOST_CHECK_THROW(reverse.transpose_products(lx.cref(), lz.cref(), {}, bad3.ref(), gu.ref()), std::invalid_argument);
  BOOST_CHECK_THROW(reverse.transpose_products(lx.cref(), lz.cref(), {}, gx.ref(), bad1.ref()), std::invalid_argument);
  lx(1, 1) = std::nan("");
  BOOST_CHECK_THROW(reverse.transpose_products(lx.cref(), lz.cref(), {}, gx.ref(), gu.ref()), std::invalid_argument);
  lx(1, 1) = 0.0;
  BOOST_CHECK_THROW(reverse.transpose_products(lx.cref(), lz.cref(), std::vector<double>{1.0, INFINITY},
                                               gx.ref(), gu.ref()),
                    std::invalid_argument);
  // Nothing was lost: a valid call still works.
  BOOST_TEST(esdirk::ok(reverse.transpose_products(lx.cref(), lz.cref(), {}, gx.ref(), gu.ref())));
}

// A running cost whose gradient is NaN only in the sweep (the forward run needs the value only).
BOOST_AUTO_TEST_CASE(cost_gradient_not_finite_in_the_sweep) {
  ControlledDae model;
  ReverseShootingInterval reverse(model);
  reverse.set_running_cost([](double t, ConstVector x, ConstVector z, ConstVector u, double& h, Vector hx,
                              Vector hz, Vector hu) {
    running_cost(t, x, z, u, h, hx, hz, hu);
    hx[1] = std::nan("");
    return 0;
  });
  const std::vector<double> x0 = {1.0, 0.5}, u = {0.8, 1.2}, zg = {0.4};
  BOOST_REQUIRE(esdirk::ok(reverse.integrate(0.0, 0.5, x0, u, zg).status));
  DenseMatrix lx(2, 1), gx(2, 1), gu(2, 1);
  const std::vector<double> w = {1.0};
  BOOST_TEST(reverse.transpose_products(lx.cref(), {}, w, gx.ref(), gu.ref()) == esdirk::Status::callback_failures);
  BOOST_TEST(reverse.message().find("running cost") != std::string::npos);
  // Without the cost's weight the sweep does not call it and succeeds.
  BOOST_TEST(esdirk::ok(reverse.transpose_products(lx.cref(), {}, {}, gx.ref(), gu.ref())));
  BOOST_TEST(reverse.message().empty());
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
