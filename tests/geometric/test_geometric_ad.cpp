// The geometric adjoint of a templated model (esdirk/ad, doc/ad-guide.md): TypeTwoStep and
// GeometricAdjoint take an ad::ModelProblem like any Problem, and its exact stage Jacobians
// give the hand-Jacobian twin's forward run, adjoint, stage multipliers and tangents.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "esdirk/ad/model_problem.hpp"
#include "geometric_fixtures.hpp"

using namespace fixtures;

namespace {

// The planar pendulum of geometric_fixtures.hpp (index 1: q = (x, v_x), u = (y, v_y, rho)) with
// the gravity as a parameter: phi_3 = v_x^2 + v_y^2 - gravity y + rho.
struct Pendulum {
  template <class T>
  int f(double, std::span<const T> q, std::span<const T> u, std::span<const T>, std::span<T> f) const {
    f[0] = q[1];
    f[1] = u[2] * q[0];
    return 0;
  }
  template <class T>
  int g(double, std::span<const T> q, std::span<const T> u, std::span<const T> p, std::span<T> g) const {
    g[0] = q[0] * q[0] + u[0] * u[0] - 1.0;
    g[1] = q[1] * q[0] + u[1] * u[0];
    g[2] = q[1] * q[1] + u[1] * u[1] - p[0] * u[0] + u[2];
    return 0;
  }
};

// The same equations with the Jacobian written by hand.
esdirk::FunctionProblem pendulum_by_hand() {
  esdirk::FunctionProblem p(
      2, 3, 1,
      [](double, ConstVector q, ConstVector u, ConstVector, Vector f) {
        f[0] = q[1];
        f[1] = u[2] * q[0];
        return 0;
      },
      [](double, ConstVector q, ConstVector u, ConstVector p, Vector g) {
        g[0] = q[0] * q[0] + u[0] * u[0] - 1.0;
        g[1] = q[1] * q[0] + u[1] * u[0];
        g[2] = q[1] * q[1] + u[1] * u[1] - p[0] * u[0] + u[2];
        return 0;
      });
  p.set_jacobian([](double, ConstVector q, ConstVector u, ConstVector p, MatrixRef J) {
    for (int c = 0; c < 5; ++c)
      for (int r = 0; r < 5; ++r) J(r, c) = 0.0;
    J(0, 1) = 1.0;
    J(1, 0) = u[2];
    J(1, 4) = q[0];
    J(2, 0) = 2 * q[0], J(2, 2) = 2 * u[0];
    J(3, 0) = q[1], J(3, 1) = q[0], J(3, 2) = u[1], J(3, 3) = u[0];
    J(4, 1) = 2 * q[1], J(4, 2) = -p[0], J(4, 3) = 2 * u[1], J(4, 4) = 1.0;
    return 0;
  });
  return p;
}

// As test_dae_adjoint.cpp: the symplectic partner, or the zero-weight-safe pair.
g::PrkPair pair_for(const std::string& name) {
  if (name == "pghvi1") return g::pghvi1();
  const g::RkTableau t = g::tableau_by_name(name);
  if (!t.has_zero_weight()) return g::symplectic_pair(t);
  return g::prk_pair(t, std::vector<double>(t.a.size(), 0.0), t.name);
}

bool same_bits(ConstVector a, ConstVector b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

// Running cost L = x^2 + v_y^2 / 2 (it reads an algebraic state: the multipliers take part).
g::RunningCost pendulum_cost() {
  g::RunningCost L;
  L.value = [](double, ConstVector q, ConstVector u, double& v) {
    v = q[0] * q[0] + 0.5 * u[1] * u[1];
    return 0;
  };
  L.gradient = [](double, ConstVector q, ConstVector u, Vector dq, Vector du) {
    dq[0] = 2.0 * q[0];
    du[1] = u[1];
    return 0;
  };
  return L;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(geometric_ad)

// AD's J of this model is the hand J (each entry is an input, a constant or twice an input:
// exact in both), checked at the run's points below; so every number of the geometric adjoint
// is the same to the last bit, for a fully implicit pair (Radau IIA, all stages solved
// together), a lower-triangular one (ESDIRK, stage by stage) and PGHVI-1, with and without a
// running cost. Anything the module asked of the AD model differently (a sparse or structured
// Jacobian, a product, a difference quotient) would show here.
BOOST_AUTO_TEST_CASE(geometric_adjoint_of_a_templated_dae_equals_the_hand_jacobian_model) {
  const std::vector<double> q0{0.5, 0.0}, gravity{1.3}, pN{1.0, -0.4};
  const std::vector<double> u0{-std::sqrt(0.75), 0.0, -1.3 * std::sqrt(0.75)};
  const std::vector<double> dq0{0.3, -0.2}, times = uniform_times(2.0, 10);
  const g::RunningCost L = pendulum_cost();
  for (const std::string name : {"radau3", "esdirk34", "pghvi1"}) {
    const g::PrkPair pair = pair_for(name);
    for (const bool running : {false, true}) {
      BOOST_TEST_CONTEXT(name << (running ? ", running cost" : ", terminal cost")) {
        esdirk::ad::ModelProblem<Pendulum> ad(2, 3, 1);
        esdirk::FunctionProblem hand = pendulum_by_hand();
        g::GeometricAdjoint a(ad, pair), h(hand, pair);
        a.set_parameters(gravity);
        h.set_parameters(gravity);
        BOOST_REQUIRE(a.forward(times, q0, u0) == esdirk::Status::success);
        BOOST_REQUIRE(h.forward(times, q0, u0) == esdirk::Status::success);
        BOOST_REQUIRE(a.backward(running ? std::vector<double>(2, 0.0) : pN, running ? &L : nullptr) ==
                      esdirk::Status::success);
        BOOST_REQUIRE(h.backward(running ? std::vector<double>(2, 0.0) : pN, running ? &L : nullptr) ==
                      esdirk::Status::success);
        a.tangent(dq0);
        h.tangent(dq0);
        bool same = a.steps() == h.steps() && a.running_quadrature() == h.running_quadrature();
        for (int n = 0; n <= a.steps(); ++n) {
          same = same && same_bits(a.state(n), h.state(n)) && same_bits(a.algebraic(n), h.algebraic(n)) &&
                 same_bits(a.adjoint_state(n), h.adjoint_state(n)) &&
                 same_bits(a.tangent_state(n), h.tangent_state(n));
          for (int i = 0; n < a.steps() && i < static_cast<int>(pair.method.b.size()); ++i)
            same = same && same_bits(a.stage_adjoint(n, i), h.stage_adjoint(n, i)) &&
                   same_bits(a.stage_multiplier(n, i), h.stage_multiplier(n, i));
        }
        BOOST_TEST(same);
        BOOST_TEST(a.max_forward_defect() <= 1e-13);
        // The pairing <p_n, dq_n> is conserved: the exact J (not a difference quotient).
        if (!running) BOOST_TEST(std::abs(dot(a.adjoint_state(0), dq0) - dot(pN, a.tangent_state(a.steps()))) <= 1e-13);
        BOOST_TEST(ad.ad_statistics().jacobians > 0);
        BOOST_TEST(ad.ad_statistics().failures == 0);
        BOOST_TEST(a.statistics().fd_function_evaluations == 0);
        BOOST_TEST(a.statistics().jacobian_evaluations == h.statistics().jacobian_evaluations);
        // The premise: J equal at the last step's stages (bit for bit but for the sign of some
        // zeros: AD's structural zeros may be -0.0, which the stage matrices never see as such).
        for (int i = 0; i < static_cast<int>(pair.method.b.size()); ++i) {
          esdirk::DenseMatrix Ja(5, 5), Jh(5, 5);
          const double t = a.step().t() + pair.method.c[static_cast<std::size_t>(i)] * a.step().h();
          BOOST_REQUIRE(ad.jacobian(t, a.step().stage_state(i), a.step().stage_algebraic(i), gravity, Ja.ref()) == 0);
          BOOST_REQUIRE(hand.jacobian(t, a.step().stage_state(i), a.step().stage_algebraic(i), gravity, Jh.ref()) == 0);
          bool equal = true;
          for (int k = 0; k < 25; ++k) equal = equal && Ja.data()[k] == Jh.data()[k];
          BOOST_TEST(equal);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
