// Difference Jacobians against the analytic ones, and the Jacobian checker naming wrong entries.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "dow/dow_model.hpp"
#include "without_jacobians.hpp"
#include "esdirk/jacobian.hpp"

namespace {

// A Dow state in the middle of the run (magnitudes as at t ~ 1 h).
const std::vector<double> x_mid{0.3, 6.5, 0.6, 0.7, 0.7, 0.013};
const std::vector<double> z_mid{2e-8, 1e-6, 3e-10, 8e-10};
const std::vector<double> p_nominal(dow::nominal_parameters.begin(), dow::nominal_parameters.end());

// The Dow model with one wrong Jacobian entry: d(du4/dt)/du6 has the wrong sign.
class WrongDow : public dow::Model {
 public:
  int jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::MatrixRef J) override {
    const int code = Model::jacobian(t, x, z, p, J);
    J(3, 5) = -J(3, 5);
    return code;
  }
};

using DowWithoutJacobians = test_helpers::WithoutJacobiansOf<dow::Model>;

}  // namespace

BOOST_AUTO_TEST_SUITE(jacobians)

BOOST_AUTO_TEST_CASE(correct_dow_jacobians_pass_the_check) {
  dow::Model model;
  const esdirk::JacobianCheck check = esdirk::check_jacobian(model, 1.0, x_mid, z_mid, p_nominal);
  BOOST_TEST_INFO(check.summary());
  BOOST_TEST(check.ok);
  BOOST_TEST(check.summary().find("passed") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_wrong_entry_is_named) {
  WrongDow model;
  const esdirk::JacobianCheck check = esdirk::check_jacobian(model, 1.0, x_mid, z_mid, p_nominal);
  BOOST_TEST(!check.ok);
  BOOST_REQUIRE(!check.worst.empty());
  BOOST_TEST(check.worst.front().row == 3);
  BOOST_TEST(check.worst.front().col == 5);
  BOOST_TEST(check.worst.size() == 1u);  // nothing else is wrong
  const std::string summary = check.summary();
  BOOST_TEST(summary.find("ddu4/dt/du6 [M-]") != std::string::npos, summary);
}

BOOST_AUTO_TEST_CASE(forward_differences_match_the_analytic_jacobians) {
  dow::Model analytic;
  DowWithoutJacobians differenced;
  esdirk::Statistics stats;
  esdirk::JacobianEvaluator evaluator(differenced, stats);
  std::vector<double> f(6), g(4);
  BOOST_REQUIRE(differenced.evaluate(1.0, x_mid, z_mid, p_nominal, f, g) == 0);
  esdirk::DenseMatrix J_fd(10, 10), J(10, 10), Jp_fd(10, 9), Jp(10, 9);
  BOOST_REQUIRE(evaluator.state_jacobian(1.0, x_mid, z_mid, p_nominal, f, g, J_fd.ref()) == 0);
  BOOST_REQUIRE(evaluator.parameter_jacobian(1.0, x_mid, z_mid, p_nominal, f, g, Jp_fd.ref()) == 0);
  BOOST_TEST(stats.fd_function_evaluations == 10 + 9);
  BOOST_TEST(stats.jacobian_evaluations == 1);
  BOOST_TEST(stats.parameter_jacobian_evaluations == 1);
  analytic.jacobian(1.0, x_mid, z_mid, p_nominal, J.ref());
  analytic.parameter_jacobian(1.0, x_mid, z_mid, p_nominal, Jp.ref());
  // Forward differences are accurate to truncation (~sqrt(eps) relative) plus rounding:
  // eps times the size of the row's terms, divided by the increment delta_j.
  const double eps = 2.220446049250313e-16;
  std::vector<double> v(x_mid);
  v.insert(v.end(), z_mid.begin(), z_mid.end());
  auto compare = [&](const esdirk::DenseMatrix& a, const esdirk::DenseMatrix& b, bool states) {
    for (int i = 0; i < a.rows(); ++i) {
      double scale = 0.0, terms = 0.0;
      for (int j = 0; j < a.cols(); ++j) scale = std::max(scale, std::abs(a(i, j)));
      for (int k = 0; k < 10; ++k) terms = std::max(terms, std::abs(J(i, k) * v[k]));
      for (int j = 0; j < a.cols(); ++j) {
        const double delta =
            std::sqrt(eps) * std::abs(states ? v[j] : p_nominal[j]);  // all nonzero here
        BOOST_TEST_INFO("entry (" << i << ", " << j << ")");
        BOOST_TEST(std::abs(a(i, j) - b(i, j)) <= 1e-6 * scale + 8.0 * eps * terms / delta);
      }
    }
  };
  compare(J, J_fd, true);
  compare(Jp, Jp_fd, false);
}

BOOST_AUTO_TEST_CASE(checker_refuses_a_problem_without_jacobians) {
  DowWithoutJacobians model;
  BOOST_CHECK_THROW(esdirk::check_jacobian(model, 1.0, x_mid, z_mid, p_nominal),
                    std::invalid_argument);
  dow::Model sized;
  BOOST_CHECK_THROW(esdirk::check_jacobian(sized, 1.0, z_mid, z_mid, p_nominal),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
