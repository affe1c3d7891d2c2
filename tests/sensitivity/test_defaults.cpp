// Derivatives right by default (the shooting-defaults issue): with default options, the
// sensitivities of a shooting interval are as accurate as its states at every tolerance, on
// nodes on the nominal trajectory and on perturbed nodes (where the d/du6 column starts a fast
// transient that the states do not have), and Dow's scaled parameter sensitivities at 10 h are
// within 10 rtol^(3/4) of a tight reference. Kristensen et al. 2005's configuration is kept one
// option away and shown to fail the first of these (which is why it is not the default).

#include <boost/test/unit_test.hpp>

#include <fstream>

#include "dow_estimation/log_dow.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"
#include "run_helpers.hpp"
#include "without_jacobians.hpp"
#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

constexpr int nx = 6, nz = 4, np = 9, n = nx + nz, ns = nx + np;

std::vector<double> dow_atol(double rtol) {
  std::vector<double> atol(n);
  for (int i = 0; i < n; ++i) atol[i] = i < nx ? 1e-6 * rtol : dow::algebraic_atol[static_cast<std::size_t>(i - nx)];
  return atol;
}

struct Node {
  double t = 0.0;
  std::vector<double> x, z;
};

// The nominal trajectory at t (rtol 1e-12), optionally moved along Dow's three reaction
// directions by fractions of up to 1 % of the smallest concentration each changes (the
// perturbed nodes of the SUNDIALS benchmark: conserved quantities stay exact).
Node dow_node(double t, int k, double amplitude) {
  dow::Model model;
  const Setup s = dow_setup(t);
  Node node{t, std::vector<double>(nx), std::vector<double>(nz)};
  if (t == 0.0) {
    node.x = s.x0;
    node.z = s.z0;
  } else {
    esdirk::Integrator solver(model, dow_options(1e-12));
    BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, s.x0, s.z0, s.p)));
    solver.set_stop_time(t);
    BOOST_REQUIRE(esdirk::ok(solver.integrate_to(t, node.x, node.z)));
  }
  static const double direction[3][6] = {{-1, -1, 1, 0, 0, 0}, {0, -1, 0, 0, 1, -1}, {0, 0, 1, -1, 0, -1}};
  const std::vector<double> x0 = node.x;
  for (int r = 0; r < 3; ++r) {
    double smallest = 1e300;
    for (int i = 0; i < nx; ++i)
      if (direction[r][i] != 0.0) smallest = std::min(smallest, std::abs(x0[i]));
    const double step = amplitude * std::sin(1.3 * k + 2.1 * r + 0.5) * smallest;
    for (int i = 0; i < nx; ++i) node.x[i] += step * direction[r][i];
  }
  return node;
}

struct Shot {
  std::vector<double> y;  // x_{k+1}, z_{k+1}
  DenseMatrix S{n, ns};   // [A Bp; Az Bzp]: d/dx_k and the scaled p_j d/dp_j
  long steps = 0;
};

Shot shoot(const Node& node, double rtol, const esdirk::SensitivityOptions& so,
           const esdirk::MethodChoice& method = esdirk::Options{}.method) {
  dow::Model model;
  esdirk::Options options = dow_options(rtol);
  options.method = method;
  esdirk::ShootingInterval interval(model, options, so);
  const std::vector<double> u(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  const esdirk::ShootingResult& r = interval.integrate(node.t, node.t + 0.2, node.x, u, node.z);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  Shot shot;
  shot.y = r.x;
  shot.y.insert(shot.y.end(), r.z.begin(), r.z.end());
  for (int j = 0; j < ns; ++j) {
    const double scale = j < nx ? 1.0 : u[static_cast<std::size_t>(j - nx)];
    for (int i = 0; i < nx; ++i) shot.S(i, j) = scale * (j < nx ? r.A(i, j) : r.B(i, j - nx));
    for (int i = 0; i < nz; ++i) shot.S(nx + i, j) = scale * (j < nx ? r.Az(i, j) : r.Bz(i, j - nx));
  }
  shot.steps = r.statistics.accepted_steps;
  return shot;
}

// The u6 column of the reference against central differences of states-only runs (rtol 1e-12),
// so that the reference is checked independently of the sensitivity code.
double u6_column_check(const Node& node, const Shot& reference) {
  dow::Model model;
  const std::vector<double> u(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  const double delta = 1e-4 * node.x[5];
  std::vector<double> plus(nx), minus(nx), z(nz);
  for (const double sign : {1.0, -1.0}) {
    std::vector<double> x0 = node.x;
    x0[5] += sign * delta;
    esdirk::Integrator solver(model, dow_options(1e-12));
    BOOST_REQUIRE(esdirk::ok(solver.initialize(node.t, x0, node.z, u)));
    solver.set_stop_time(node.t + 0.2);
    BOOST_REQUIRE(esdirk::ok(solver.integrate_to(node.t + 0.2, sign > 0 ? plus : minus, z)));
  }
  double worst = 0.0;
  for (int i = 0; i < nx; ++i) {
    double scale = 0.0;
    for (int j = 0; j < ns; ++j) scale = std::max(scale, std::abs(reference.S(i, j)));
    worst = std::max(worst, std::abs((plus[i] - minus[i]) / (2.0 * delta) - reference.S(i, 5)) / scale);
  }
  return worst;
}

// The largest error of a column relative to that column's largest reference entry, over all
// columns: no column hides behind another (the d/du6 column's entries are small next to the
// parameter columns of the same rows, so a row-scaled measure would not see its errors).
double column_scaled_error(ConstMatrixRef a, ConstMatrixRef reference) {
  double worst = 0.0;
  for (int j = 0; j < reference.cols; ++j) {
    double scale = 0.0, error = 0.0;
    for (int i = 0; i < reference.rows; ++i) {
      scale = std::max(scale, std::abs(reference(i, j)));
      error = std::max(error, std::abs(a(i, j) - reference(i, j)));
    }
    if (scale > 0.0) worst = std::max(worst, error / scale);
  }
  return worst;
}

// Both measures: each entry against its row's and its column's largest reference entry.
double sensitivity_error(ConstMatrixRef a, ConstMatrixRef reference) {
  return std::max(row_scaled_error(a, reference, 0, reference.rows), column_scaled_error(a, reference));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(defaults)

// A short multiple-shooting run: interval 1 (the start-up transient) and interval 20 (t = 4 h:
// the fast layer of the d/du6 column), each against a reference at rtol 1e-12 whose d/du6
// column is checked against central differences of states-only runs. Returns the largest state
// and sensitivity errors over the run.
struct ShootingErrors {
  double states = 0.0, sensitivities = 0.0;
};

struct ShootingCase {
  std::vector<Node> nodes;
  std::vector<Shot> references;
  explicit ShootingCase(double amplitude) {
    for (const int k : {1, 20}) {
      nodes.push_back(dow_node(0.2 * k, k, amplitude));
      references.push_back(shoot(nodes.back(), 1e-12, {}));
      const double check = u6_column_check(nodes.back(), references.back());
      BOOST_TEST_MESSAGE("interval " << k << (amplitude > 0 ? " (perturbed)" : " (nominal)")
                                     << ": reference d/du6 column vs central differences " << check);
      BOOST_TEST(check < 1e-6);
    }
  }
  ShootingErrors errors(double rtol, const esdirk::SensitivityOptions& so,
                        const esdirk::MethodChoice& method = esdirk::Options{}.method) const {
    ShootingErrors e;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const Shot shot = shoot(nodes[k], rtol, so, method);
      e.states = std::max(e.states, test_helpers::relative_error(shot.y, references[k].y, dow_atol(rtol)[0]));
      e.sensitivities = std::max(e.sensitivities, sensitivity_error(shot.S.cref(), references[k].S.cref()));
    }
    return e;
  }
};

// Tolerances that mean what they say (issue 31): with default options ("auto": ESDIRK436 at and
// below rtol 1e-3, ESDIRK34 above; the shooting interval's sensitivities tested at the
// requested rtol, SensitivityTolerance::requested) the achieved error of A and B lies in
// [0.1, 10] x rtol for rtol 1e-3 .. 1e-10 and falls monotonically, on nominal and perturbed
// nodes (measured 0.11-0.79 x rtol; the states, whose test keeps the calibrated rule,
// 0.002-0.055; remeasured after "auto" took ESDIRK436 from rtol 1e-3).
BOOST_AUTO_TEST_CASE(default_shooting_tolerances_mean_what_they_say) {
  for (const double amplitude : {0.0, 0.01}) {
    const ShootingCase run(amplitude);
    double previous = 1e300;
    for (const double rtol : {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
      const ShootingErrors e = run.errors(rtol, {});
      BOOST_TEST_MESSAGE("  defaults, rtol " << rtol << ": states " << e.states / rtol << " rtol, sensitivities "
                                             << e.sensitivities / rtol << " rtol");
      BOOST_TEST(e.sensitivities <= 10.0 * rtol, "rtol " << rtol);
      BOOST_TEST(e.sensitivities >= 0.1 * rtol, "rtol " << rtol);
      BOOST_TEST(e.states <= 0.1 * rtol, "rtol " << rtol);
      BOOST_TEST(e.sensitivities < previous, "rtol " << rtol);
      previous = e.sensitivities;
    }
  }
}

// With the states' tolerances in the sensitivities' error test (SensitivityTolerance::states,
// ForwardSensitivity's default and the shooting interval's before issue 31) the sensitivities of
// these short intervals come out at 0.005-0.08 x rtol with ESDIRK436: steps spent on accuracy
// nobody asked for, but the derivatives right and improving with rtol.
BOOST_AUTO_TEST_CASE(with_the_states_tolerances_shooting_sensitivities_are_within_a_tenth_of_rtol) {
  esdirk::SensitivityOptions so;
  so.error_tolerance = esdirk::SensitivityTolerance::states;
  for (const double amplitude : {0.0, 0.01}) {
    const ShootingCase run(amplitude);
    double previous = 1e300;
    for (const double rtol : {1e-3, 1e-5, 1e-7, 1e-9}) {
      const ShootingErrors e = run.errors(rtol, so);
      BOOST_TEST_MESSAGE("  states' tolerances, rtol " << rtol << ": states " << e.states << ", sensitivities "
                                                       << e.sensitivities);
      BOOST_TEST(e.sensitivities <= 0.1 * rtol, "rtol " << rtol);
      BOOST_TEST(e.sensitivities < previous, "rtol " << rtol);
      previous = e.sensitivities;
    }
  }
}

// ESDIRK34 with the states' tolerances: the sensitivities as accurate as the states (within 10x).
BOOST_AUTO_TEST_CASE(esdirk34_shooting_sensitivities_are_as_accurate_as_the_states_at_every_tolerance) {
  esdirk::SensitivityOptions so;
  so.error_tolerance = esdirk::SensitivityTolerance::states;
  for (const double amplitude : {0.0, 0.01}) {
    const ShootingCase run(amplitude);
    double previous = 1e300;
    for (const double rtol : {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
      const ShootingErrors e = run.errors(rtol, so, esdirk::Tableau::esdirk34());
      BOOST_TEST_MESSAGE("  ESDIRK34, rtol " << rtol << ": states " << e.states << ", sensitivities " << e.sensitivities);
      BOOST_TEST(e.sensitivities <= 10.0 * e.states, "rtol " << rtol);
      BOOST_TEST(e.sensitivities < previous, "rtol " << rtol);
      previous = e.sensitivities;
    }
  }
}

// The sensitivities left out of the error test (Kristensen et al. 2005's configuration, here in exact mode)
// miss the fast layer of the d/du6 column on the nominal nodes: their error is hundreds of times
// the states' (5e-2 against 5e-6 on almost every one of the 50 intervals at rtol 1e-4). This is
// the failure the default avoids.
BOOST_AUTO_TEST_CASE(without_error_control_the_fast_layer_of_the_sensitivities_is_missed) {
  const ShootingCase run(0.0);
  esdirk::SensitivityOptions seed = esdirk::SensitivityOptions::seed002();
  seed.mode = esdirk::SensitivityMode::exact;
  for (const double rtol : {1e-3, 1e-4, 1e-5}) {
    const ShootingErrors e = run.errors(rtol, seed);
    BOOST_TEST_MESSAGE("  no sensitivity error control, rtol " << rtol << ": states " << e.states
                                                               << ", sensitivities " << e.sensitivities);
    BOOST_TEST(e.sensitivities > 50.0 * e.states, "rtol " << rtol);
  }
}

BOOST_AUTO_TEST_CASE(dow_scaled_sensitivities_at_10h_within_10_rtol_to_the_3_4) {
  dow::Model model;
  const Setup s = dow_setup();
  DenseMatrix seed(ns, np);
  for (int k = 0; k < np; ++k) seed(nx + k, k) = dow::nominal_parameters[static_cast<std::size_t>(k)];
  auto run = [&](double rtol) {
    esdirk::Integrator solver(model, dow_options(rtol));
    esdirk::ForwardSensitivity sens(solver);  // default options
    BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p)));
    BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
    solver.set_stop_time(s.t_end);
    std::vector<double> x(nx), z(nz);
    DenseMatrix Sx(nx, np), Sz(nz, np);
    BOOST_REQUIRE(esdirk::ok(sens.integrate_to(s.t_end, x, z, Sx.ref(), Sz.ref())));
    return stacked(sens);
  };
  const DenseMatrix reference = run(1e-12);
  // The stored reference of the SUNDIALS benchmark (IDAS, rtol 1e-11) agrees with it.
  std::ifstream file(ESDIRK_BENCH_REFERENCE_DIR "/dow_sensitivities.txt");
  std::string line;
  std::vector<double> stored;
  while (std::getline(file, line))
    if (!line.empty() && line[0] != '#') stored.push_back(std::stod(line));
  BOOST_REQUIRE(stored.size() == static_cast<std::size_t>(n + n * np));
  DenseMatrix idas(n, np);
  for (int j = 0; j < np; ++j)
    for (int i = 0; i < n; ++i) idas(i, j) = stored[static_cast<std::size_t>(n + i + j * n)];
  const double cross = row_scaled_error(reference.cref(), idas.cref(), 0, n);
  BOOST_TEST_MESSAGE("reference (esdirk rtol 1e-12) vs IDAS rtol 1e-11: " << cross);
  BOOST_TEST(cross < 1e-6);
  for (const double rtol : {1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
    const double error = row_scaled_error(run(rtol).cref(), reference.cref(), 0, n);
    BOOST_TEST_MESSAGE("rtol " << rtol << ": " << error << " (bound " << 10.0 * std::pow(rtol, 0.75) << ")");
    BOOST_TEST(error <= 10.0 * std::pow(rtol, 0.75));
  }
}

// Regression: a chain of cold-started Dow intervals (log-scaled parameters, the third batch of
// the estimation example) failed at the interval 6 h -> 8 h with the automatic initial step: the
// first step was 1e-2 h, the sensitivities' error norm 5e15 (a fast transient of the parameter
// directions), falling about like h, and twelve cuts by min_step_ratio = 0.2 ended 225 above the
// tolerance. From the second rejection in a row the cut now follows the measured order further.
BOOST_AUTO_TEST_CASE(a_cold_started_interval_with_a_fast_sensitivity_transient_takes_the_automatic_initial_step) {
  const std::vector<double> nodes = {0.0, 0.05, 0.15, 0.3, 0.6, 1.0, 1.5, 2.5, 4.0, 6.0, 8.0};
  dow::LogModel model;
  const std::array<double, 6> x0 = {1.0, 10.0, 0.0, 0.0, 0.0, 0.0131};
  std::vector<double> theta(np);
  for (int j = 0; j < np; ++j) theta[j] = std::log(dow::nominal_parameters[static_cast<std::size_t>(j)]);
  const auto z0 = dow::consistent_algebraic(x0.data(), dow::nominal_parameters.data());
  // The raw tolerances (Options::seed002()'s), where the failure was found. Under the default
  // calibrated rule (internal rtol 1e-8) the chain also succeeds, with up to 97 rejections in an interval.
  esdirk::Options options = dow::benchmark_options(1e-6);
  options.tolerance_rule = esdirk::ToleranceRule::raw;
  BOOST_REQUIRE(options.initial_step == 0.0);
  esdirk::ShootingInterval interval(model, options);
  std::vector<double> x(x0.begin(), x0.end()), z(z0.begin(), z0.end());
  for (std::size_t k = 0; k + 1 < nodes.size(); ++k) {
    interval.cold_start();
    const esdirk::ShootingResult& r = interval.integrate(nodes[k], nodes[k + 1], x, theta, z);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), "interval " << k << ": " << r.message);
    BOOST_TEST(r.statistics.rejected_steps < 40, "interval " << k << ": " << r.statistics.rejected_steps);
    x = r.x;
    z = r.z;
  }
  // The same chain with Options::seed002()'s single floor on the cut still fails where it did.
  esdirk::Options seed_floor = options;
  seed_floor.repeated_rejection_min_ratio = seed_floor.min_step_ratio;
  esdirk::ShootingInterval old(model, seed_floor);
  x.assign(x0.begin(), x0.end());
  z.assign(z0.begin(), z0.end());
  bool failed = false;
  for (std::size_t k = 0; k + 1 < nodes.size() && !failed; ++k) {
    old.cold_start();
    const esdirk::ShootingResult& r = old.integrate(nodes[k], nodes[k + 1], x, theta, z);
    failed = !esdirk::ok(r.status);
    x = r.x;
    z = r.z;
  }
  BOOST_TEST(failed);
}


// Regression: with difference Jacobians (no jacobian(), no parameter_jacobian()) the
// sensitivities' error test at the calibrated rule's internal tolerances chased the noise of the
// difference quotients: Dow to 2 h with one direction took 2563 steps at rtol 1e-6 (748 with
// analytic derivatives) and ran into the step limit at rtol 1e-8; the multiple-shooting
// estimation tests on a 2-state linear model took 100 times as long as with analytic
// derivatives. The sensitivities' test is now floored at difference_rtol_floor when differences
// are used: the steps are then those the states need, and the sensitivities stay within rtol.
BOOST_AUTO_TEST_CASE(difference_jacobians_at_tight_tolerances_do_not_chase_the_differences_noise) {
  using DowWithoutJacobians = test_helpers::WithoutJacobiansOf<dow::Model>;
  const Setup s = dow_setup(2.0);
  DenseMatrix seed(ns, 1);
  seed(0, 0) = 1.0;  // d/du1(0)
  struct Run {
    long steps = 0;
    DenseMatrix Sx{nx, 1};
  };
  auto run = [&](esdirk::Problem& model, double rtol, const esdirk::SensitivityOptions& so,
                 const esdirk::MethodChoice& method = esdirk::Options{}.method,
                 esdirk::DifferenceIncrement increment = esdirk::DifferenceIncrement::error_weighted) {
    esdirk::Options options = dow_options(rtol);
    options.method = method;
    options.difference_increment = increment;
    esdirk::Integrator solver(model, options);
    esdirk::ForwardSensitivity sens(solver, so);
    BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p)));
    BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
    solver.set_stop_time(s.t_end);
    std::vector<double> x(nx), z(nz);
    Run r;
    DenseMatrix Sz(nz, 1);
    BOOST_REQUIRE(esdirk::ok(sens.integrate_to(s.t_end, x, z, r.Sx.ref(), Sz.ref())));
    r.steps = solver.statistics().steps;
    return r;
  };
  dow::Model analytic;
  DowWithoutJacobians differences;
  const Run reference = run(analytic, 1e-11, {});
  double scale = 0.0;
  for (int k = 0; k < nx; ++k) scale = std::max(scale, std::abs(reference.Sx(k, 0)));
  for (const double rtol : {1e-6, 1e-8}) {
    const Run exact = run(analytic, rtol, {});
    const Run differenced = run(differences, rtol, {});
    double error = 0.0;
    for (int k = 0; k < nx; ++k) error = std::max(error, std::abs(differenced.Sx(k, 0) - reference.Sx(k, 0)) / scale);
    BOOST_TEST_MESSAGE("rtol " << rtol << ": steps " << differenced.steps << " (analytic " << exact.steps
                               << "), sensitivity error " << error);
    // Measured: 547 and 2923 steps (analytic 748, 3962), errors 5.7e-8 and 5.5e-10.
    BOOST_TEST(differenced.steps <= exact.steps);
    BOOST_TEST(error <= rtol);
  }
  // Where it broke: ESDIRK34 without the floor took 2563 steps at rtol 1e-6 (547 with it), with
  // the relative difference increments of the time. Part of that noise was the wrong columns of
  // Dow's tiny states (doc/integrator-theory.md section 2b): with the error-weighted increments
  // the run without the floor takes 973 steps, and the floor still saves 44 % of them.
  esdirk::SensitivityOptions unfloored;
  unfloored.difference_rtol_floor = 0.0;
  const esdirk::Tableau esdirk34 = esdirk::Tableau::esdirk34();
  const auto relative = esdirk::DifferenceIncrement::relative;
  BOOST_TEST(run(differences, 1e-6, unfloored, esdirk34, relative).steps >
             3 * run(differences, 1e-6, {}, esdirk34, relative).steps);
  BOOST_TEST(run(differences, 1e-6, unfloored, esdirk34).steps > 1.5 * run(differences, 1e-6, {}, esdirk34).steps);
}

BOOST_AUTO_TEST_SUITE_END()
