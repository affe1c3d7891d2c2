// Fixed-step global error order: 3 for ESDIRK34 (2 and 1 for its sisters) on a nonlinear ODE,
// and 3 on the Dow DAE for the differential and the algebraic states.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"

namespace {

// Logistic growth y' = y (1 - y), y(0) = 0.1: y(t) = 1 / (1 + 9 e^{-t}).
esdirk::FunctionProblem logistic() {
  esdirk::FunctionProblem problem(1, 0, 0, [](double, auto y, auto, auto, auto f) {
    f[0] = y[0] * (1.0 - y[0]);
    return 0;
  });
  problem.set_jacobian([](double, auto y, auto, auto, esdirk::MatrixRef J) {
    J(0, 0) = 1.0 - 2.0 * y[0];
    return 0;
  });
  return problem;
}

// Integrates with n equal steps from t0 to t1; returns x and z at t1.
std::vector<double> fixed_steps(esdirk::Problem& problem, esdirk::Options options, double t0,
                                double t1, int n, const std::vector<double>& x0,
                                const std::vector<double>& z0, const std::vector<double>& p) {
  options.rtol = options.atol = 1e-13;  // Newton errors far below the discretization error
  options.max_newton_iterations = 50;   // fixed steps: converge however slowly
  options.algebraic_atol.clear();
  esdirk::Integrator solver(problem, options);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(t0, x0, z0, p)));
  const double h = (t1 - t0) / n;
  for (int k = 0; k < n; ++k) {
    const esdirk::Status status = solver.step_exactly(h);
    BOOST_TEST_INFO("n = " << n << ": " << solver.message());
    BOOST_REQUIRE(esdirk::ok(status));
  }
  std::vector<double> out(solver.x().begin(), solver.x().end());
  out.insert(out.end(), solver.z().begin(), solver.z().end());
  return out;
}

double order(double coarse_error, double fine_error) {
  return std::log2(coarse_error / fine_error);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(order_of_convergence)

BOOST_AUTO_TEST_CASE(logistic_ode_order_matches_each_method) {
  const struct {
    esdirk::Tableau method;
    double expected;
  } cases[] = {{esdirk::Tableau::esdirk34(), 3.0},
               {esdirk::Tableau::esdirk23(), 2.0},
               {esdirk::Tableau::esdirk12(), 1.0}};
  const double exact = 1.0 / (1.0 + 9.0 * std::exp(-2.0));
  for (const auto& c : cases) {
    auto problem = logistic();
    esdirk::Options options;
    options.method = c.method;
    std::vector<double> errors;
    for (int n : {10, 20, 40, 80})
      errors.push_back(
          std::abs(fixed_steps(problem, options, 0.0, 2.0, n, {0.1}, {}, {})[0] - exact));
    for (std::size_t k = 1; k < errors.size(); ++k) {
      BOOST_TEST_MESSAGE(c.method.name << " order " << order(errors[k - 1], errors[k]));
      BOOST_TEST_INFO(c.method.name << " halving " << k << ": errors " << errors[k - 1] << " -> "
                                    << errors[k]);
      BOOST_TEST(std::abs(order(errors[k - 1], errors[k]) - c.expected) <= 0.2);
    }
  }
}

// Dow from t = 1 h (a state of a tight adaptive run, past the initial transient) to t = 2 h.
// The reference is the same fixed-step scheme with 32 times as many steps.
BOOST_AUTO_TEST_CASE(dow_dae_order_3_for_differential_and_algebraic_states) {
  dow::Model model;
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  std::vector<double> x1(6), z1(4);
  {
    esdirk::Options tight;
    tight.rtol = 1e-10;
    tight.atol = 1e-16;
    esdirk::Integrator solver(model, tight);
    const auto zs = dow::consistent_algebraic_start();
    BOOST_REQUIRE(esdirk::ok(solver.initialize(
        0.0, {dow::initial_states.begin(), dow::initial_states.end()}, {zs.begin(), zs.end()}, p)));
    BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.0, x1, z1)));
  }
  esdirk::Options options;
  const auto reference = fixed_steps(model, options, 1.0, 2.0, 1024, x1, z1, p);
  std::vector<double> differential_errors, algebraic_errors;
  for (int n : {8, 16, 32}) {
    const auto y = fixed_steps(model, options, 1.0, 2.0, n, x1, z1, p);
    double ed = 0.0, ea = 0.0;
    for (int i = 0; i < 10; ++i) {
      const double rel = std::abs(y[i] - reference[i]) / std::abs(reference[i]);
      (i < 6 ? ed : ea) = std::max(i < 6 ? ed : ea, rel);
    }
    differential_errors.push_back(ed);
    algebraic_errors.push_back(ea);
  }
  for (std::size_t k = 1; k < differential_errors.size(); ++k) {
    BOOST_TEST_MESSAGE("Dow order: differential "
                       << order(differential_errors[k - 1], differential_errors[k])
                       << ", algebraic " << order(algebraic_errors[k - 1], algebraic_errors[k]));
    BOOST_TEST_INFO("differential: " << differential_errors[k - 1] << " -> "
                                     << differential_errors[k]);
    BOOST_TEST(std::abs(order(differential_errors[k - 1], differential_errors[k]) - 3.0) <= 0.2);
    BOOST_TEST_INFO("algebraic: " << algebraic_errors[k - 1] << " -> " << algebraic_errors[k]);
    BOOST_TEST(std::abs(order(algebraic_errors[k - 1], algebraic_errors[k]) - 3.0) <= 0.2);
  }
}

BOOST_AUTO_TEST_SUITE_END()
