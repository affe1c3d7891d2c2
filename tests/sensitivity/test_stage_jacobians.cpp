// The exact sensitivities form J and [f_p; g_p] at every stage of a step. With the problem's
// own jacobian() and parameter_jacobian() they ask has_jacobian() and has_parameter_jacobian()
// once per step and call the evaluator's analytic path, whose finiteness check of a small
// J (up to 16 entries) runs inline: a NaN, an infinity or a failure code of a callback at a stage
// must still fail the interval with the status and the message that name it, on every stage
// solve (the fixed-size kernels at n = 2, the lanes at n = 12, the general solve at n = 20),
// and the same object must give the bits of a fresh one once the model is repaired.
#include <boost/test/unit_test.hpp>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "esdirk/sensitivity/shooting_interval.hpp"
#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

// x_i' = -(i + 1) x_i + x_{i-1}/2 + u: a linear chain of order n with one control, J and
// [f_p; g_p] analytic. `poison` replaces entry (n - 1, 0) of J or of [f_p; g_p] (or returns
// `code`) at every t > 0: the stage points of a single step from 0, never the step's start,
// where the integrator forms its own J.
class Chain : public esdirk::Problem {
 public:
  explicit Chain(int n) : Problem(n, 0, 1), n_(n) {}
  enum class Target { none, jacobian, parameters };
  Target target = Target::none;
  double value = 0.0;  // the poisoned entry, if code == 0
  int code = 0;        // the callback's code at a poisoned point

  int evaluate(double, ConstVector x, ConstVector, ConstVector p, Vector f, Vector) override {
    for (int i = 0; i < n_; ++i) f[i] = -(i + 1.0) * x[i] + (i > 0 ? 0.5 * x[i - 1] : 0.0) + p[0];
    return 0;
  }
  bool has_jacobian() const override { return true; }
  int jacobian(double t, ConstVector, ConstVector, ConstVector, MatrixRef J) override {
    for (int j = 0; j < n_; ++j)
      for (int i = 0; i < n_; ++i) J(i, j) = i == j ? -(i + 1.0) : (i == j + 1 ? 0.5 : 0.0);
    return poisoned(t, Target::jacobian, J);
  }
  bool has_parameter_jacobian() const override { return true; }
  int parameter_jacobian(double t, ConstVector, ConstVector, ConstVector, MatrixRef Jp) override {
    for (int i = 0; i < n_; ++i) Jp(i, 0) = 1.0;
    return poisoned(t, Target::parameters, Jp);
  }

 private:
  int poisoned(double t, Target where, MatrixRef M) const {
    if (target != where || !(t > 0.0)) return 0;
    if (code != 0) return code;
    M(n_ - 1, 0) = value;
    return 0;
  }
  int n_;
};

esdirk::Options one_step_options() {
  esdirk::Options o;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  o.method = esdirk::Tableau::named("ESDIRK436");
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stage_jacobians)

BOOST_AUTO_TEST_CASE(a_bad_stage_jacobian_or_parameter_jacobian_fails_the_interval_by_name) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Bad {
    double value;
    int code;
    esdirk::Status status;
    const char* what;  // the words after "the Jacobian" or "the parameter Jacobian [f_p; g_p]"
  };
  const Bad bads[] = {{nan, 0, esdirk::Status::callback_failures, "failed or was not finite"},
                      {-inf, 0, esdirk::Status::callback_failures, "failed or was not finite"},
                      {0.0, 1, esdirk::Status::callback_failures, "failed or was not finite"},
                      {0.0, -1, esdirk::Status::callback_fatal, "returned a fatal code"}};
  for (const int n : {2, 12, 20}) {
    Chain model(n);
    esdirk::ShootingInterval fresh(model, one_step_options());
    fresh.set_fixed_steps(1);
    const std::vector<double> x0(static_cast<std::size_t>(n), 1.0), u{0.5};
    const auto& reference = fresh.integrate(0.0, 0.2, x0, u);
    BOOST_REQUIRE(esdirk::ok(reference.status));
    const DenseMatrix A = reference.A, B = reference.B;

    esdirk::ShootingInterval interval(model, one_step_options());
    interval.set_fixed_steps(1);
    for (const Chain::Target target : {Chain::Target::jacobian, Chain::Target::parameters})
      for (const Bad& bad : bads) {
        BOOST_TEST_INFO("n = " << n << (target == Chain::Target::jacobian ? ", J" : ", [f_p; g_p]")
                               << ", value " << bad.value << ", code " << bad.code);
        model.target = target;
        model.value = bad.value;
        model.code = bad.code;
        const auto& failed = interval.integrate(0.0, 0.2, x0, u);
        BOOST_TEST(failed.status == bad.status);
        const std::string expected =
            std::string(target == Chain::Target::jacobian ? "the Jacobian " : "the parameter Jacobian [f_p; g_p] ") +
            bad.what + (target == Chain::Target::jacobian ? " at the stage t = " : " at t = ");
        BOOST_TEST_MESSAGE(failed.message);
        BOOST_TEST(failed.message.find(expected) != std::string::npos, failed.message);

        model.target = Chain::Target::none;  // repaired: the bits of the fresh object
        const auto& repaired = interval.integrate(0.0, 0.2, x0, u);
        BOOST_REQUIRE(esdirk::ok(repaired.status));
        BOOST_TEST(same_bits(repaired.A, A));
        BOOST_TEST(same_bits(repaired.B, B));
      }
  }
}

BOOST_AUTO_TEST_SUITE_END()
