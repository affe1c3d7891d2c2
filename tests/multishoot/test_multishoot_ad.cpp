// Multiple shooting of templated models (esdirk/ad, doc/ad-guide.md): the interval evaluator
// and the Gauss-Newton estimator take an ad::ModelProblem like any Problem and give the
// numbers of its hand-Jacobian twin, with no finite differences.
#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "dow/dow_model.hpp"
#include "esdirk/ad/model_problem.hpp"
#include "esdirk/multishoot/estimation.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"
#include "dow_interval_inputs.hpp"
#include "nmpc/cstr.hpp"
#include "templated_models.hpp"

namespace ms = esdirk::multishoot;
using esdirk::ConstMatrixRef;
using esdirk::ConstVector;

namespace {

// The largest |a - b| over a column relative to the column's largest |b|, over the columns
// (the columns of Dow's B differ by 27 orders of magnitude, as its parameters do).
double matrix_difference(ConstMatrixRef a, ConstMatrixRef b) {
  double worst = 0.0;
  for (int j = 0; j < b.cols; ++j) {
    double scale = 0.0, difference = 0.0;
    for (int i = 0; i < b.rows; ++i) {
      scale = std::max(scale, std::abs(b(i, j)));
      difference = std::max(difference, std::abs(a(i, j) - b(i, j)));
    }
    worst = std::max(worst, scale > 0.0 ? difference / scale : difference);
  }
  return worst;
}
double vector_difference(ConstVector a, ConstVector b) {
  const int n = static_cast<int>(b.size());
  return matrix_difference({a.data(), n, 1, n}, {b.data(), n, 1, n});
}

// The largest relative differences of two evaluations, per output, over the intervals.
struct Differences {
  double x = 0.0, A = 0.0, B = 0.0, H = 0.0, q = 0.0, r = 0.0;
};
Differences differences(const ms::IntervalOutputs& a, const ms::IntervalOutputs& b) {
  Differences d;
  for (int k = 0; k < b.intervals(); ++k) {
    d.x = std::max(d.x, vector_difference(a.x_end(k), b.x_end(k)));
    d.A = std::max(d.A, matrix_difference(a.A(k), b.A(k)));
    d.B = std::max(d.B, matrix_difference(a.B(k), b.B(k)));
    d.H = std::max(d.H, std::abs(a.H(k) - b.H(k)) / std::abs(b.H(k)));
    d.q = std::max(d.q, vector_difference(a.q(k), b.q(k)));
    d.r = std::max(d.r, vector_difference(a.r(k), b.r(k)));
  }
  return d;
}
std::ostream& operator<<(std::ostream& os, const Differences& d) {
  return os << "x " << d.x << ", A " << d.A << ", B " << d.B << ", H " << d.H << ", q " << d.q << ", r " << d.r;
}

// A hand-Jacobian model with every entry of J and [f_p; g_p] moved by one unit in the last
// place, up or down by position (`parity` picks which): what a rounding of the Jacobians alone
// does to the outputs. (AD's J of the CSTR differs from the hand one by rounding: up to 2.4 ulp
// in df1/dT, whose exp(-E/RT) chain the two round differently, and a few ulp of the larger
// terms of df2/dT, a sum that partly cancels.)
template <class Hand>
class RoundedOtherwise : public Hand {
 public:
  explicit RoundedOtherwise(int parity) : parity_(parity) {}
  int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, esdirk::MatrixRef J) override {
    const int code = Hand::jacobian(t, x, z, p, J);
    nudge(J);
    return code;
  }
  int parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, esdirk::MatrixRef Jp) override {
    const int code = Hand::parameter_jacobian(t, x, z, p, Jp);
    nudge(Jp);
    return code;
  }

 private:
  void nudge(esdirk::MatrixRef M) const {
    for (int j = 0; j < M.cols; ++j)
      for (int i = 0; i < M.rows; ++i) M(i, j) *= (i + j) % 2 == parity_ ? 1.0 + 0x1p-52 : 1.0 - 0x1p-52;
  }
  int parity_;
};

// The templated CSTR with df1/dT (J(0, 1)) off by a relative `error`: a wrong derivative.
class CstrWithWrongEntry : public esdirk::ad::ModelProblem<templated::Cstr> {
 public:
  explicit CstrWithWrongEntry(double error) : ModelProblem(2, 0, 1), error_(error) {}
  int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, esdirk::MatrixRef J) override {
    const int code = ModelProblem::jacobian(t, x, z, p, J);
    J(0, 1) *= 1.0 + error_;
    return code;
  }

 private:
  double error_;
};

// The CSTR of the NMPC example: four intervals of one minute around its open-loop unstable set
// point, each from another node and control, with a running cost like the example's.
ms::IntervalInputs cstr_inputs(int n) {
  ms::IntervalInputs in(n, 2, 0, 1);
  for (int k = 0; k < n; ++k) {
    in.t_begin[static_cast<std::size_t>(k)] = 1.0 * k;
    in.t_end[static_cast<std::size_t>(k)] = 1.0 * (k + 1);
    in.x_of(k)[0] = 0.5 + 0.02 * k;
    in.x_of(k)[1] = 350.0 - 1.5 * k;
    in.u_of(k)[0] = 300.0 + 2.0 * k;
  }
  return in;
}
int cstr_cost(double, ConstVector x, ConstVector, ConstVector u, double& value, esdirk::Vector dx, esdirk::Vector,
              esdirk::Vector du) {
  const double c = x[0] - 0.5, T = x[1] - 350.0, w = u[0] - 300.0;
  value = c * c + 1e-2 * T * T + 1e-4 * w * w;
  dx[0] = 2.0 * c;
  dx[1] = 2e-2 * T;
  du[0] = 2e-4 * w;
  return 0;
}
esdirk::Options cstr_options() {
  esdirk::Options o;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  return o;
}
// `inspect` sees the evaluator's problems after the evaluation (they live as long as it does).
template <class Make, class Inspect>
ms::IntervalOutputs cstr_intervals(Make make, Inspect inspect) {
  const ms::IntervalInputs in = cstr_inputs(4);
  ms::IntervalEvaluator evaluator(make, in.intervals, cstr_options(), {}, 2);
  evaluator.set_running_cost(cstr_cost);
  ms::IntervalOutputs out;
  BOOST_REQUIRE(evaluator.evaluate(in, out));
  inspect();
  return out;
}
template <class Make>
ms::IntervalOutputs cstr_intervals(Make make) {
  return cstr_intervals(make, [] {});
}

using esdirk_tests::dow_inputs;  // dow_interval_inputs.hpp

// The consecutive reaction A -> B -> C of test_estimation.cpp (log-scaled rate constants),
// written once as a template, and by hand with both Jacobians.
struct ConsecutiveModel {
  template <class T>
  int f(double, std::span<const T> x, std::span<const T>, std::span<const T> th, std::span<T> f) const {
    using std::exp;
    const T k1 = exp(th[0]), k2 = exp(th[1]);
    f[0] = -k1 * x[0];
    f[1] = k1 * x[0] - k2 * x[1];
    return 0;
  }
};
class ConsecutiveByHand : public esdirk::Problem {
 public:
  ConsecutiveByHand() : Problem(2, 0, 2) {}
  int evaluate(double, ConstVector x, ConstVector, ConstVector th, esdirk::Vector f, esdirk::Vector) override {
    const double k1 = std::exp(th[0]), k2 = std::exp(th[1]);
    f[0] = -k1 * x[0];
    f[1] = k1 * x[0] - k2 * x[1];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double, ConstVector, ConstVector, ConstVector th, esdirk::MatrixRef J) override {
    const double k1 = std::exp(th[0]), k2 = std::exp(th[1]);
    J(0, 0) = -k1, J(0, 1) = 0.0;
    J(1, 0) = k1, J(1, 1) = -k2;
    return 0;
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double, ConstVector x, ConstVector, ConstVector th, esdirk::MatrixRef Jp) override {
    const double k1 = std::exp(th[0]), k2 = std::exp(th[1]);
    Jp(0, 0) = -k1 * x[0], Jp(0, 1) = 0.0;
    Jp(1, 0) = k1 * x[0], Jp(1, 1) = -k2 * x[1];
    return 0;
  }
};

// Two experiments of six measurements each from the closed form, noise added.
ms::EstimationProblem consecutive_problem(double k1, double k2) {
  ms::EstimationProblem p;
  p.nx = 2;
  p.nz = 0;
  p.np = 2;
  p.measured = {0, 1};
  int noise = 0;
  for (int e = 0; e < 2; ++e) {
    ms::Experiment x;
    const double b0 = 0.5 * e;
    for (int k = 0; k <= 6; ++k) {
      const double t = 0.5 * k;
      x.times.push_back(t);
      const double y1 = std::exp(-k1 * t),
                   y2 = k1 / (k2 - k1) * (std::exp(-k1 * t) - std::exp(-k2 * t)) + b0 * std::exp(-k2 * t);
      for (const double y : {y1, y2}) x.data.push_back(y + 0.01 * ((noise++ * 7919) % 13 - 6) / 6.0);
      x.sigma.insert(x.sigma.end(), {0.01, 0.01});
      x.nodes.insert(x.nodes.end(), {y1, y2});
    }
    p.experiments.push_back(x);
  }
  return p;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(multishoot_ad)

// The CSTR near its unstable set point amplifies rounding: one-ulp changes of the hand J move
// A and B by ~2e-11 and the running cost H by ~4e-10 (relative), so AD, whose J differs from
// the hand J by rounding only, is held to what such changes do: each output within four times the
// larger change of two hand runs with J rounded otherwise (by opposite patterns), or 1e-13
// (the rule of tests/ad/test_runs.cpp for Dow's sensitivities). Measured: AD moves each output
// by 0.9-1.25 times the larger change of the two rounded runs.
BOOST_AUTO_TEST_CASE(intervals_of_the_templated_cstr_equal_the_hand_jacobian_model) {
  std::vector<esdirk::ad::ModelProblem<templated::Cstr>*> made;
  const ms::IntervalOutputs ad = cstr_intervals(
      [&made] {
        auto problem = std::make_unique<esdirk::ad::ModelProblem<templated::Cstr>>(2, 0, 1);
        made.push_back(problem.get());
        return problem;
      },
      [&made] {
        // Every interval's derivatives came from its own AD model.
        BOOST_REQUIRE(made.size() == 4u);
        for (const auto* problem : made) {
          BOOST_TEST(problem->ad_statistics().jacobians > 0);
          BOOST_TEST(problem->ad_statistics().parameter_jacobians > 0);
          BOOST_TEST(problem->ad_statistics().failures == 0);
        }
      });
  const ms::IntervalOutputs hand = cstr_intervals([] { return std::make_unique<cstr::Model>(); });
  const ms::IntervalOutputs up = cstr_intervals([] { return std::make_unique<RoundedOtherwise<cstr::Model>>(0); });
  const ms::IntervalOutputs down = cstr_intervals([] { return std::make_unique<RoundedOtherwise<cstr::Model>>(1); });
  const Differences d = differences(ad, hand), r0 = differences(up, hand), r1 = differences(down, hand);
  BOOST_TEST_MESSAGE("CSTR intervals, AD against hand: " << d);
  BOOST_TEST_MESSAGE("one-ulp changes of the hand J: " << r0 << "; " << r1);
  const auto allowed = [](double one, double other) { return std::max(1e-13, 4.0 * std::max(one, other)); };
  BOOST_TEST(d.x <= allowed(r0.x, r1.x));
  BOOST_TEST(d.A <= allowed(r0.A, r1.A));
  BOOST_TEST(d.B <= allowed(r0.B, r1.B));
  BOOST_TEST(d.H <= allowed(r0.H, r1.H));
  BOOST_TEST(d.q <= allowed(r0.q, r1.q));
  BOOST_TEST(d.r <= allowed(r0.r, r1.r));
  // The bound could fail: the AD model with df1/dT off by a relative 1e-10 (450 000 ulp)
  // moves A beyond it (measured 3.2e-9 against 6.8e-11 allowed).
  const ms::IntervalOutputs wrong = cstr_intervals([] { return std::make_unique<CstrWithWrongEntry>(1e-10); });
  const Differences w = differences(wrong, hand);
  BOOST_TEST_MESSAGE("df1/dT off by 1e-10: " << w);
  BOOST_TEST(w.A > allowed(r0.A, r1.A));
  for (int k = 0; k < ad.intervals(); ++k) BOOST_TEST(ad.steps(k) == hand.steps(k));
}

// Dow's intervals do not amplify rounding this way: AD equals the hand model to 1e-13 in x and
// in every column of A and B (measured 1.6e-15, 7.7e-15, 1.2e-14), with the same steps.
BOOST_AUTO_TEST_CASE(intervals_of_the_templated_dow_equal_the_hand_jacobian_model) {
  const int n = 3;
  const esdirk::Options options = dow::benchmark_options(1e-6);
  ms::IntervalEvaluator ad([] { return std::make_unique<esdirk::ad::ModelProblem<templated::Dow>>(6, 4, 9); }, n,
                           options, {}, 2);
  ms::IntervalEvaluator hand([] { return std::make_unique<dow::Model>(); }, n, options, {}, 2);
  const ms::IntervalInputs in = dow_inputs(n);
  ms::IntervalOutputs a, h;
  BOOST_REQUIRE(ad.evaluate(in, a));
  BOOST_REQUIRE(hand.evaluate(in, h));
  const Differences d = differences(a, h);
  BOOST_TEST_MESSAGE("Dow intervals, AD against hand: " << d);
  BOOST_TEST(d.x <= 1e-13);
  BOOST_TEST(d.A <= 1e-13);
  BOOST_TEST(d.B <= 1e-13);
  for (int k = 0; k < n; ++k) BOOST_TEST(a.steps(k) == h.steps(k));
}

// The estimator on a templated model: the estimate, its iterations and its confidence
// intervals are those of the hand-Jacobian model. The two Jacobians agree bit for bit here
// (every entry is one product, the same in both), so the runs are the same to the last bit.
BOOST_AUTO_TEST_CASE(estimation_with_a_templated_model_equals_the_hand_jacobian_model) {
  const double k1 = 1.3, k2 = 0.4;
  const ms::EstimationProblem p = consecutive_problem(k1, k2);
  esdirk::Options options;
  options.rtol = 1e-10;
  options.atol = 1e-12;
  ms::IntervalEvaluator ad([] { return std::make_unique<esdirk::ad::ModelProblem<ConsecutiveModel>>(2, 0, 2); },
                           p.intervals(), options, {}, 2);
  ms::IntervalEvaluator hand([] { return std::make_unique<ConsecutiveByHand>(); }, p.intervals(), options, {}, 2);
  const std::vector<double> theta0 = {std::log(1.5 * k1), std::log(0.5 * k2)};
  const ms::EstimationResult a = ms::estimate(
      p, theta0, [&](const ms::IntervalInputs& in, ms::IntervalOutputs& out) { return ad.evaluate(in, out); });
  const ms::EstimationResult h = ms::estimate(
      p, theta0, [&](const ms::IntervalInputs& in, ms::IntervalOutputs& out) { return hand.evaluate(in, out); });
  BOOST_TEST(a.converged);
  BOOST_TEST(h.converged);
  BOOST_TEST(a.history.size() == h.history.size());
  for (int j = 0; j < 2; ++j) {
    BOOST_TEST(a.theta[static_cast<std::size_t>(j)] == h.theta[static_cast<std::size_t>(j)]);
    BOOST_TEST(a.theta_stddev[static_cast<std::size_t>(j)] == h.theta_stddev[static_cast<std::size_t>(j)]);
  }
  BOOST_TEST(a.cost == h.cost);
  // Within the noise of the closed form's parameters (the estimate itself is checked in
  // test_estimation.cpp).
  BOOST_TEST(std::abs(a.theta[0] - std::log(k1)) < 0.05);
  BOOST_TEST(std::abs(a.theta[1] - std::log(k2)) < 0.05);
}

BOOST_AUTO_TEST_SUITE_END()
