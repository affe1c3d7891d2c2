// Difference Jacobians against the analytic ones, and the Jacobian checker naming wrong entries.

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
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

// A problem of n = 5 states (2 parameters) whose callback J, sparse J (on a tridiagonal
// pattern) and parameter Jacobian are full of ordinary entries except `value` at (row, col).
class PlantedEntry : public esdirk::Problem {
 public:
  PlantedEntry() : Problem(5, 0, 2) {}
  int row = 0, col = 0;
  double value = 1.0;
  bool sparse = false;
  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector, esdirk::Vector f,
               esdirk::Vector) override {
    for (int i = 0; i < 5; ++i) f[i] = -x[i];
    return 0;
  }
  bool has_jacobian() const override { return !sparse; }
  int jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, esdirk::MatrixRef J) override {
    for (int j = 0; j < 5; ++j)
      for (int i = 0; i < 5; ++i) J(i, j) = ordinary(i, j);
    J(row, col) = value;
    return 0;
  }
  bool has_sparse_jacobian() const override { return sparse; }
  int sparse_jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                      esdirk::SparseMatrixRef J) override {
    for (int j = 0; j < 5; ++j)
      for (int i = std::max(0, j - 1); i <= std::min(4, j + 1); ++i) J.at(i, j) = i == row && j == col ? value : ordinary(i, j);
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    for (int j = 0; j < 2; ++j)
      for (int i = 0; i < 5; ++i) Jp(i, j) = ordinary(i, j);
    if (col < 2) Jp(row, col) = value;
    return 0;
  }
  // Finite entries of every kind: extreme magnitudes, subnormal, signed zeros.
  static double ordinary(int i, int j) {
    const double kinds[] = {std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                            std::numeric_limits<double>::denorm_min(), -0.0, 0.0, -1.5, 3e-300};
    return kinds[(3 * i + j) % 7];
  }
};

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

// JacobianEvaluator tests every entry of a callback's J and parameter Jacobian for finiteness
// in one branch-free pass over the bits (esdirk/src/jacobian.cpp, all_finite): a NaN or an
// infinity anywhere must still be caught, finite entries of every kind must pass, and a view
// whose leading dimension exceeds its rows must be tested on its rows only.
BOOST_AUTO_TEST_CASE(every_non_finite_entry_of_a_callback_jacobian_is_caught) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x(5, 1.0), f(5, -1.0), p(2, 0.5);
  for (const bool sparse : {false, true}) {
    PlantedEntry problem;
    problem.sparse = sparse;
    if (sparse) problem.set_jacobian_bandwidths(1, 1);
    esdirk::Statistics stats;
    esdirk::JacobianEvaluator evaluator(problem, stats);
    esdirk::JacobianMatrix J(5, problem.jacobian_structure());
    // A 5 x 5 view inside 7 x 5 storage whose two extra rows hold NaN.
    esdirk::DenseMatrix padded(7, 5);
    padded.fill(std::numeric_limits<double>::quiet_NaN());
    const esdirk::MatrixRef view{padded.data(), 5, 5, 7};
    esdirk::DenseMatrix Jp(5, 2);
    for (int col = 0; col < 5; ++col)
      for (int row = 0; row < 5; ++row) {
        if (sparse && std::abs(row - col) > 1) continue;
        problem.row = row;
        problem.col = col;
        BOOST_TEST_INFO("sparse " << sparse << ", entry (" << row << ", " << col << ")");
        problem.value = 2.0;
        BOOST_TEST(evaluator.state_jacobian(0.0, x, {}, p, f, {}, J) == 0);
        if (!sparse) BOOST_TEST(evaluator.state_jacobian(0.0, x, {}, p, f, {}, view) == 0);
        BOOST_TEST(evaluator.parameter_jacobian(0.0, x, {}, p, f, {}, Jp.ref()) == 0);
        for (const double bad : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(), inf, -inf}) {
          problem.value = bad;
          BOOST_TEST(evaluator.state_jacobian(0.0, x, {}, p, f, {}, J) == 1);
          if (!sparse) BOOST_TEST(evaluator.state_jacobian(0.0, x, {}, p, f, {}, view) == 1);
          BOOST_TEST(evaluator.parameter_jacobian(0.0, x, {}, p, f, {}, Jp.ref()) == (col < 2 ? 1 : 0));
        }
      }
  }
}

// A dense problem of order n with one planted entry in J and in f_p.
class SmallPlantedEntry : public esdirk::Problem {
 public:
  explicit SmallPlantedEntry(int n) : Problem(n, 0, 1), n_(n) {}
  int row = 0, col = 0;
  double value = 1.0;
  int evaluate(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector, esdirk::Vector f,
               esdirk::Vector) override {
    for (int i = 0; i < n_; ++i) f[i] = -x[i];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, esdirk::MatrixRef J) override {
    for (int j = 0; j < n_; ++j)
      for (int i = 0; i < n_; ++i) J(i, j) = i == j ? -1.0 : 0.5;
    J(row, col) = value;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef Jp) override {
    for (int i = 0; i < n_; ++i) Jp(i, 0) = 1.0;
    Jp(row, 0) = value;
    return 0;
  }

 private:
  int n_;
};

// Small matrices (at most 16 entries: the CSTR's 2 x 2 J and 2 x 1 f_p) are checked inline in
// jacobian.cpp, larger ones by the vector clones: orders 1 ... 5 cover both sides of the bound
// (4 x 4 is the last inline J, 5 x 5 the first of the clones). A NaN or an infinity in J must
// fail the evaluation (an infinity in J can give finite, wrong sensitivities).
BOOST_AUTO_TEST_CASE(every_non_finite_entry_of_a_small_callback_jacobian_is_caught) {
  const double inf = std::numeric_limits<double>::infinity();
  for (int n = 1; n <= 5; ++n) {
    SmallPlantedEntry problem(n);
    esdirk::Statistics stats;
    esdirk::JacobianEvaluator evaluator(problem, stats);
    esdirk::DenseMatrix J(n, n), Jp(n, 1);
    const std::vector<double> x(static_cast<std::size_t>(n), 1.0), f(static_cast<std::size_t>(n), -1.0), p(1, 0.5);
    for (int col = 0; col < n; ++col)
      for (int row = 0; row < n; ++row) {
        problem.row = row;
        problem.col = col;
        BOOST_TEST_INFO("order " << n << ", entry (" << row << ", " << col << ")");
        problem.value = -3.0;
        BOOST_TEST(evaluator.state_jacobian(0.0, x, {}, p, f, {}, J.ref()) == 0);
        BOOST_TEST(evaluator.parameter_jacobian(0.0, x, {}, p, f, {}, Jp.ref()) == 0);
        for (const double bad : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(), inf, -inf}) {
          problem.value = bad;
          BOOST_TEST(evaluator.state_jacobian(0.0, x, {}, p, f, {}, J.ref()) == 1);
          BOOST_TEST(evaluator.parameter_jacobian(0.0, x, {}, p, f, {}, Jp.ref()) == 1);
        }
      }
  }
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
