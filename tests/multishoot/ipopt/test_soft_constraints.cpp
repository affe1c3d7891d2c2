// Soft node state bounds of solve_ocp (OcpSpec::soft_state_penalty): an exact L1 penalty.
// On x' = -x + u, x(0) = x0, one state, one control:
//  - where the hard OCP is feasible (its state bound active), the soft one with a penalty
//    above the hard multipliers has the hard solution and zero slacks;
//  - where no control keeps x below its bound, the hard OCP fails and the soft one returns the
//    least violating control (the control bound nearest to the state bound) with slacks equal
//    to the node states' closed-form violation;
//  - the warm start carries the slacks over, a negative penalty is refused by name.
#define BOOST_TEST_MODULE esdirk multishoot ipopt
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/multishoot/interval_evaluator.hpp"
#include "esdirk/multishoot/ipopt_ocp.hpp"

namespace ms = esdirk::multishoot;

namespace {

class Decay : public esdirk::Problem {  // x' = -x + u
 public:
  Decay() : Problem(1, 0, 1) {}
  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector u, esdirk::Vector f,
               esdirk::Vector) override {
    f[0] = -x[0] + u[0];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::MatrixRef J) override {
    J(0, 0) = -1.0;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    Jp(0, 0) = 1.0;
    return 0;
  }
};

constexpr int N = 5;
constexpr double dt = 0.2;

struct Ocp {
  ms::QuadraticCost cost;
  ms::OcpSpec spec;
  std::unique_ptr<ms::IntervalEvaluator> evaluator;
  ms::EvaluateIntervals evaluate;

  Ocp(double u_lo, double u_hi, double x_hi) {
    esdirk::Options options;
    options.rtol = 1e-10;
    options.atol = 1e-12;
    evaluator = std::make_unique<ms::IntervalEvaluator>([] { return std::make_unique<Decay>(); }, N, options,
                                                        esdirk::SensitivityOptions{}, 1);
    cost.x_ref = {1.0};  // drive x to 1: the bound x <= x_hi < 1 becomes active
    cost.u_ref = {1.0};
    cost.Q = {10.0};
    cost.R = {0.1};
    cost.P = {10.0};
    evaluator->set_running_cost(cost.running_cost());
    spec.nx = 1;
    spec.nu = 1;
    spec.intervals = N;
    spec.dt = dt;
    spec.u_lower = {u_lo};
    spec.u_upper = {u_hi};
    spec.x_lower = {-INFINITY};
    spec.x_upper = {x_hi};
    spec.terminal = cost.terminal_cost();
    spec.quadratic_cost = cost;
    spec.tolerance = 1e-10;
    evaluate = [this](const ms::IntervalInputs& in, ms::IntervalOutputs& out) {
      return evaluator->evaluate(in, out);
    };
  }

  ms::OcpSolution solve(double x0, const ms::OcpSolution* start = nullptr) const {
    ms::OcpSolution guess;
    if (start) {
      guess = *start;
    } else {
      guess.s.assign(N + 1, x0);
      guess.u.assign(N, spec.u_lower[0]);
    }
    const std::vector<double> x = {x0};
    return ms::solve_ocp(spec, 0.0, x, guess, evaluate);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(soft_state_bounds_equal_hard_where_feasible) {
  Ocp ocp(-2.0, 2.0, 0.5);
  const ms::OcpSolution hard = ocp.solve(0.0);
  BOOST_REQUIRE_MESSAGE(hard.success, hard.status + " " + hard.message);
  BOOST_TEST(hard.slack.empty());
  BOOST_TEST(hard.max_slack == 0.0);
  double s_max = 0.0;
  for (double s : hard.s) s_max = std::max(s_max, s);
  BOOST_TEST(std::abs(s_max - 0.5) < 1e-8);  // the bound is active
  BOOST_TEST(hard.max_state_bound_multiplier > 0.1);

  // Exact penalty: 10 x the hard problem's largest state-bound multiplier.
  ocp.spec.soft_state_penalty = 10.0 * hard.max_state_bound_multiplier;
  const ms::OcpSolution soft = ocp.solve(0.0);
  BOOST_REQUIRE_MESSAGE(soft.success, soft.status + " " + soft.message);
  BOOST_REQUIRE_EQUAL(soft.slack.size(), static_cast<std::size_t>(N));
  BOOST_TEST(soft.max_slack < 1e-8);
  for (std::size_t i = 0; i < hard.s.size(); ++i) BOOST_TEST(std::abs(soft.s[i] - hard.s[i]) < 1e-7);
  for (std::size_t k = 0; k < hard.u.size(); ++k) BOOST_TEST(std::abs(soft.u[k] - hard.u[k]) < 1e-6);
  // The soft constraint's multiplier is the hard bound's (below the penalty).
  BOOST_TEST(std::abs(soft.max_state_bound_multiplier - hard.max_state_bound_multiplier) <
             1e-4 * hard.max_state_bound_multiplier);
}

BOOST_AUTO_TEST_CASE(soft_state_bounds_solve_where_hard_is_infeasible) {
  // From x0 = 1 with u >= 0.9, x_k = 0.9 + 0.1 exp(-k dt) > 0.5 whatever the control.
  Ocp ocp(0.9, 2.0, 0.5);
  const ms::OcpSolution hard = ocp.solve(1.0);
  BOOST_TEST(!hard.success);
  ocp.spec.soft_state_penalty = 100.0;
  const ms::OcpSolution soft = ocp.solve(1.0);
  BOOST_REQUIRE_MESSAGE(soft.success, soft.status + " " + soft.message);
  BOOST_TEST(soft.constraint_violation < 1e-9);
  for (int k = 0; k < N; ++k) BOOST_TEST(std::abs(soft.u[static_cast<std::size_t>(k)] - 0.9) < 1e-7);
  double largest = 0.0;
  for (int k = 1; k <= N; ++k) {
    const double x_k = 0.9 + 0.1 * std::exp(-k * dt);
    BOOST_TEST(std::abs(soft.s[static_cast<std::size_t>(k)] - x_k) < 1e-8);
    BOOST_TEST(std::abs(soft.slack[static_cast<std::size_t>(k - 1)] - (x_k - 0.5)) < 1e-8);
    largest = std::max(largest, x_k - 0.5);
  }
  BOOST_TEST(std::abs(soft.max_slack - largest) < 1e-8);

  // The next sample, warm-started with the shifted slacks and multipliers, from x_1.
  const ms::OcpSolution next_start = ms::shift_for_warm_start(ocp.spec, soft);
  BOOST_REQUIRE_EQUAL(next_start.slack.size(), static_cast<std::size_t>(N));
  BOOST_TEST(next_start.slack[0] == soft.slack[1]);
  const ms::OcpSolution next = ocp.solve(soft.s[1], &next_start);
  BOOST_REQUIRE_MESSAGE(next.success, next.status + " " + next.message);
  BOOST_TEST(std::abs(next.u[0] - 0.9) < 1e-7);
}

BOOST_AUTO_TEST_CASE(soft_state_penalty_negative_is_refused) {
  Ocp ocp(-2.0, 2.0, 0.5);
  ocp.spec.soft_state_penalty = -1.0;
  try {
    ocp.spec.validate();
    BOOST_FAIL("a negative penalty was accepted");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find("soft_state_penalty") != std::string::npos);
  }
}
