// The Type II adjoint step on ODEs: exact gradients of the discrete map (T4), the quadratic
// invariant <p_n, dq_n> (T2), the augmented identity (T3), convergence orders (T5), stiff
// amplification (T12), the partner form against the unnormalized one, and the library's
// ESDIRK reverse sweep step by step.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "geometric_fixtures.hpp"

using namespace fixtures;

namespace {

const std::vector<std::string> all_families{"gauss1",        "gauss2",         "gauss3",
                                            "gauss4",        "radau1",         "radau2",
                                            "radau3",        "lobatto_iiia2",  "lobatto_iiia3",
                                            "lobatto_iiia4", "lobatto_iiib2",  "lobatto_iiib3",
                                            "lobatto_iiib4", "backward_euler", "esdirk12",
                                            "esdirk23",      "esdirk34",       "explicit_midpoint",
                                            "rk4",           "sdirk2"};

// The pair used for a tableau: the symplectic one where it exists, otherwise a placeholder
// partner (the unnormalized form never reads it).
g::PrkPair pair_for(const g::RkTableau& t) {
  if (!t.has_zero_weight()) return g::symplectic_pair(t);
  return g::prk_pair(t, std::vector<double>(t.a.size(), 0.0), t.name + " (no partner)");
}

g::StepOptions tight_options() {
  g::StepOptions o;
  o.tolerance = 1e-15;
  return o;
}

// The terminal cost C(q_N) = q_N (scalar) of q' = -q^2 as a function of q0 on fixed steps.
double riccati_terminal(const std::string& name, double q0, int N, double T) {
  esdirk::FunctionProblem p = riccati();
  g::GeometricAdjoint run(p, pair_for(g::tableau_by_name(name)), tight_options());
  const std::vector<double> times = uniform_times(T, N), x{q0};
  BOOST_REQUIRE(run.forward(times, x, {}) == esdirk::Status::success);
  return run.state(N)[0];
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ode_adjoint)

// T4: p_0 = dC(q_N)/dq_0 of the discrete map, against fourth-order central differences of
// the same scheme on the same steps (sixth-order stencil, increment 1e-2: truncation and
// rounding both ~1e-14).
BOOST_AUTO_TEST_CASE(adjoint_is_the_exact_gradient_of_the_discrete_map) {
  const int N = 8;
  const double T = 1.0, q0 = 1.0, d = 1e-2;
  for (const std::string& name : all_families) {
    BOOST_TEST_CONTEXT(name) {
      esdirk::FunctionProblem p = riccati();
      g::GeometricAdjoint run(p, pair_for(g::tableau_by_name(name)), tight_options());
      const std::vector<double> times = uniform_times(T, N), x{q0}, one{1.0};
      BOOST_REQUIRE(run.forward(times, x, {}) == esdirk::Status::success);
      BOOST_REQUIRE(run.backward(one) == esdirk::Status::success);
      auto F = [&](double k) { return riccati_terminal(name, q0 + k * d, N, T); };
      const double fd = (-F(-3) + 9 * F(-2) - 45 * F(-1) + 45 * F(1) - 9 * F(2) + F(3)) / (60 * d);
      BOOST_TEST(std::abs(run.adjoint_state(0)[0] - fd) <= 1e-12 * std::abs(fd));
      // Forward mode on the same linearization: equal to rounding.
      run.tangent(one);
      BOOST_TEST(std::abs(run.adjoint_state(0)[0] - run.tangent_state(N)[0]) <= 1e-15);
    }
  }
}

// T2: <p_n, dq_n> constant to 1e-13 relative (Van der Pol mu = 10, T = 1, h = 0.01; a random
// 5 x 5 linear system; Robertson with the implicit methods).
BOOST_AUTO_TEST_CASE(quadratic_invariant_is_conserved) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  struct Case {
    esdirk::FunctionProblem problem;
    std::vector<double> q0;
    double T;
    int N;
    bool stiff;
  };
  std::vector<Case> cases;
  cases.push_back({van_der_pol(10.0), {2.0, 0.0}, 1.0, 100, false});
  cases.push_back({linear(random_matrix(5, 3), 5), {1, -1, 0.5, 0.2, -0.3}, 1.0, 50, false});
  cases.push_back({robertson(), {1.0, 0.0, 0.0}, 1.0, 100, true});
  for (Case& c : cases) {
    for (const std::string& name : all_families) {
      const g::RkTableau t = g::tableau_by_name(name);
      // Robertson at h = 0.01 with the L-stable, stiffly accurate methods only.
      if (c.stiff && !(t.stiffly_accurate() && name.rfind("lobatto", 0) != 0)) continue;
      BOOST_TEST_CONTEXT(name << " on nx = " << c.problem.nx()) {
        g::GeometricAdjoint run(c.problem, pair_for(t));
        BOOST_REQUIRE(run.forward(uniform_times(c.T, c.N), c.q0, {}) == esdirk::Status::success);
        std::vector<double> pN(c.q0.size()), dq0(c.q0.size());
        for (auto& v : pN) v = u(rng);
        for (auto& v : dq0) v = u(rng);
        BOOST_REQUIRE(run.backward(pN) == esdirk::Status::success);
        run.tangent(dq0);
        BOOST_TEST(g::pairing_drift(run).relative <= 1e-13);
      }
    }
  }
}

// The negative control: backward Euler on both q and p (BE-1, A~ = A) is not the adjoint;
// per step <p1, dq1> - <p0, dq0> = h^2 <J^T p1, J dq1>, O(h^2) (T2 of doc/geometric-adjoint-theory.md).
BOOST_AUTO_TEST_CASE(backward_euler_on_the_adjoint_breaks_the_invariant) {
  esdirk::FunctionProblem p = van_der_pol(10.0);
  g::StepOptions o;
  o.form = g::AdjointForm::partner;
  g::GeometricAdjoint run(p, g::backward_euler_both(), o);
  const std::vector<double> q0{2.0, 0.0}, pN{1.0, 0.5}, dq0{0.3, -0.7};
  BOOST_REQUIRE(run.forward(uniform_times(1.0, 100), q0, {}) == esdirk::Status::success);
  BOOST_REQUIRE(run.backward(pN) == esdirk::Status::success);
  run.tangent(dq0);
  BOOST_TEST(g::pairing_drift(run).relative > 1e-6);
}

// The partner (normalized PRK) form and the unnormalized recursion give the same p_0 for every
// symplectic pair.
BOOST_AUTO_TEST_CASE(partner_form_equals_unnormalized_form) {
  for (const std::string& name : all_families) {
    const g::RkTableau t = g::tableau_by_name(name);
    if (t.has_zero_weight()) continue;
    BOOST_TEST_CONTEXT(name) {
      esdirk::FunctionProblem p = van_der_pol(2.0);
      g::StepOptions o;
      o.form = g::AdjointForm::partner;
      g::GeometricAdjoint plain(p, g::symplectic_pair(t)), prk(p, g::symplectic_pair(t), o);
      const std::vector<double> q0{2.0, 0.0}, pN{1.0, -0.5}, times = uniform_times(1.0, 20);
      BOOST_REQUIRE(plain.forward(times, q0, {}) == esdirk::Status::success);
      BOOST_REQUIRE(prk.forward(times, q0, {}) == esdirk::Status::success);
      BOOST_REQUIRE(plain.backward(pN) == esdirk::Status::success);
      BOOST_REQUIRE(prk.backward(pN) == esdirk::Status::success);
      for (int n = 0; n <= 20; ++n)
        for (int k = 0; k < 2; ++k)
          BOOST_TEST(std::abs(plain.adjoint_state(n)[k] - prk.adjoint_state(n)[k]) <=
                     1e-13 * (1 + std::abs(plain.adjoint_state(n)[k])));
    }
  }
}

// T3: with a running cost and p_N = 0, p_0 is the gradient of h sum b_i L(Q^i) (L = q^2 / 2 +
// q), against central differences of the discrete quadrature.
BOOST_AUTO_TEST_CASE(augmented_adjoint_is_the_gradient_of_the_discrete_running_cost) {
  g::RunningCost L;
  L.value = [](double, ConstVector q, ConstVector, double& v) {
    v = 0.5 * q[0] * q[0] + q[0];
    return 0;
  };
  L.gradient = [](double, ConstVector q, ConstVector, Vector dq, Vector) {
    dq[0] = q[0] + 1.0;
    return 0;
  };
  for (const std::string name :
       {"gauss2", "radau3", "esdirk34", "explicit_midpoint", "lobatto_iiia3"}) {
    BOOST_TEST_CONTEXT(name) {
      esdirk::FunctionProblem p = riccati();
      const g::PrkPair pair = pair_for(g::tableau_by_name(name));
      auto cost = [&](double q0) {
        g::GeometricAdjoint r(p, pair, tight_options());
        const std::vector<double> x{q0}, zero{0.0};
        BOOST_REQUIRE(r.forward(uniform_times(1.0, 8), x, {}) == esdirk::Status::success);
        BOOST_REQUIRE(r.backward(zero, &L) == esdirk::Status::success);
        return std::make_pair(r.running_quadrature(), r.adjoint_state(0)[0]);
      };
      const double d = 1e-2;
      auto F = [&](double k) { return cost(1 + k * d).first; };
      const double fd = (-F(-3) + 9 * F(-2) - 45 * F(-1) + 45 * F(1) - 9 * F(2) + F(3)) / (60 * d);
      BOOST_TEST(std::abs(cost(1.0).second - fd) <= 1e-12 * std::abs(fd));
    }
  }
}

// T5: the adjoint's observed order equals the method's classical order (+-0.2) against the
// closed forms of q' = -q^3, q(0) = 1, T = 1 (terminal C = q(T); running L = q with p_N = 0).
BOOST_AUTO_TEST_CASE(adjoint_converges_at_the_method_order) {
  g::RunningCost L;
  L.gradient = [](double, ConstVector, ConstVector, Vector dq, Vector) {
    dq[0] = 1.0;
    return 0;
  };
  for (const std::string& name : all_families) {
    const g::RkTableau t = g::tableau_by_name(name);
    BOOST_TEST_CONTEXT(name << " (order " << t.order << ")") {
      for (bool running : {false, true}) {
        std::vector<double> hs, errors;
        for (int N = 1; N <= 512; N *= 2) {
          esdirk::FunctionProblem p = cubic();
          g::GeometricAdjoint run(p, pair_for(t), tight_options());
          const std::vector<double> q0{1.0}, pN{running ? 0.0 : 1.0};
          BOOST_REQUIRE(run.forward(uniform_times(1.0, N), q0, {}) == esdirk::Status::success);
          BOOST_REQUIRE(run.backward(pN, running ? &L : nullptr) == esdirk::Status::success);
          const double error =
              std::abs(run.adjoint_state(0)[0] -
                       (running ? cubic_running_gradient() : cubic_terminal_gradient()));
          // Above rounding (3e-14, 150 ulp of the result: its noise moves a slope by < 0.05).
          if (error > 3e-14) {
            hs.push_back(1.0 / N);
            errors.push_back(error);
          }
        }
        BOOST_TEST_REQUIRE(hs.size() >= 2u);
        // The two smallest steps above rounding: the asymptotic range of the high orders.
        hs.erase(hs.begin(), hs.end() - 2);
        errors.erase(errors.begin(), errors.end() - 2);
        BOOST_TEST(std::abs(slope(hs, errors) - t.order) <= 0.2,
                   "running " << running << ": slope " << slope(hs, errors));
      }
    }
  }
}

// T12: for q' = -1e6 q the adjoint amplification per step p0 / p1 is the forward method's
// R(-1e6 h): against closed forms (backward Euler 1/(1 - z), Radau IIA(2)
// (1 + z/3)/(1 - 2z/3 + z^2/6)) and against the forward amplification q1 / q0.
BOOST_AUTO_TEST_CASE(stiff_adjoint_amplification_is_the_stability_function) {
  const double lambda = -1e6;
  esdirk::FunctionProblem p = linear({lambda}, 1);
  for (double h : {1e-6, 1e-3, 1.0}) {
    const double z = lambda * h;
    for (const std::string name :
         {"backward_euler", "radau2", "radau3", "esdirk12", "esdirk23", "esdirk34", "sdirk2"}) {
      BOOST_TEST_CONTEXT(name << ", z = " << z) {
        g::TypeTwoStep step(p, pair_for(g::tableau_by_name(name)));
        const std::vector<double> q0{1.0}, p1{1.0};
        std::vector<double> p0(1);
        BOOST_REQUIRE(step.forward(0.0, h, q0, {}) == esdirk::Status::success);
        BOOST_REQUIRE(step.adjoint(p1, nullptr, p0) == esdirk::Status::success);
        const double R = step.q1()[0];
        // Rounding floor: q1 = q0 + h sum b_i K^i sums terms up to |z| in size.
        const double floor = 1e-15 * (1 + std::abs(z));
        BOOST_TEST(std::abs(p0[0] - R) <= floor);
        if (name == "backward_euler") BOOST_TEST(std::abs(p0[0] - 1 / (1 - z)) <= floor);
        if (name == "radau2")
          BOOST_TEST(std::abs(p0[0] - (1 + z / 3) / (1 - 2 * z / 3 + z * z / 6)) <= floor);
        if (h == 1.0)
          BOOST_TEST(std::abs(p0[0]) <= 1e-5);  // L-stable: damped like the forward method
      }
    }
  }
}

// The library's ESDIRK methods: on the steps and stages recorded by esdirk::Integrator, the
// Type II step equals esdirk::Adjoint's reverse sweep step by step, bit for bit: both run the
// one stage recursion (esdirk/src/internal/dirk_adjoint_stages.hpp) with the same dense stage
// LU, the same Jacobians and the same seeds (an ODE: p1 at the stiffly accurate last stage, the
// explicit first stage the step start), so every operation is the same.
BOOST_AUTO_TEST_CASE(esdirk_methods_agree_with_the_reverse_sweep_step_by_step) {
  for (const esdirk::Tableau& method :
       {esdirk::Tableau::esdirk34(), esdirk::Tableau::esdirk23(), esdirk::Tableau::esdirk12()}) {
    BOOST_TEST_CONTEXT(method.name) {
      esdirk::FunctionProblem p = van_der_pol(5.0);
      esdirk::Options options;
      options.method = method;
      options.rtol = 1e-6;
      options.atol = 1e-8;
      // The comparison needs recorded steps, not accurate ones: the raw tolerances keep the
      // first-order ESDIRK12 at a few hundred steps (calibrated, rtol 1e-6 asks it for 1e-12).
      options.tolerance_rule = esdirk::ToleranceRule::raw;
      esdirk::Integrator solver(p, options);
      esdirk::Trajectory trajectory;
      solver.add_listener(trajectory);
      std::map<int, std::vector<double>> sweep;  // lambda_x at each step start t_n, by n
      esdirk::AdjointOptions adjoint_options;
      adjoint_options.observer = [&](int n, double, esdirk::ConstMatrixRef lx,
                                     esdirk::ConstMatrixRef, esdirk::ConstMatrixRef) {
        sweep[n] = {lx(0, 0), lx(1, 0)};
      };
      esdirk::Adjoint adjoint(solver, adjoint_options);
      const std::vector<double> x0{2.0, 0.0}, none;
      std::vector<double> x(2), zz;
      BOOST_REQUIRE(solver.initialize(0.0, x0, none, none) == esdirk::Status::success);
      solver.set_stop_time(1.0);
      BOOST_REQUIRE(esdirk::ok(solver.integrate_to(1.0, x, zz).status));
      esdirk::AdjointObjective objective;
      const double w[2] = {1.0, -0.5};
      objective.set_terminal_weights({w, 2, 1, 2});
      std::vector<double> dx0(2);
      BOOST_REQUIRE(adjoint.gradient(objective, {dx0.data(), 2, 1, 2}, {}) ==
                    esdirk::Status::success);
      // The same steps through the Type II step, on the recorded stages.
      g::TypeTwoStep step(p, pair_for(g::from_esdirk(method)));
      const int N = trajectory.size();
      BOOST_REQUIRE(static_cast<int>(sweep.size()) == N + 1);
      std::vector<double> pn{1.0, -0.5}, p0(2);
      double worst = 0.0;
      for (int n = N - 1; n >= 0; --n) {
        const esdirk::StepRecord& r = trajectory[n];
        const std::vector<double> q0{r.X(0, 0), r.X(1, 0)};
        BOOST_REQUIRE(step.set_stages(r.t, r.h, q0, r.X.cref(), r.Z.cref()) ==
                      esdirk::Status::success);
        BOOST_REQUIRE(step.adjoint(pn, nullptr, p0) == esdirk::Status::success);
        pn = p0;
        const std::vector<double>& lx = sweep.at(n);
        for (int k = 0; k < 2; ++k)
          worst = std::max(worst, std::abs(pn[k] - lx[k]) / (1.0 + std::abs(lx[k])));
      }
      BOOST_TEST_MESSAGE("largest relative difference to the sweep " << worst);
      BOOST_TEST(worst == 0.0);
      BOOST_TEST(pn[0] == dx0[0]);
      BOOST_TEST(pn[1] == dx0[1]);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(conservation_diagnostics)

// T11: f(q) = (1 - |q|^2) q + w S q commutes with the rotation generator g(q) = S q (S skew),
// so <p_n, S q_n> is conserved by every Runge-Kutta map to rounding; H = <p, f(q)> only to
// O(h^p) (an accuracy diagnostic that shrinks with h).
BOOST_AUTO_TEST_CASE(rotation_momentum_is_conserved_hamiltonian_drifts_at_order_p) {
  const double w = 2.0;
  esdirk::FunctionProblem p(2, 0, 0,
                            [w](double, ConstVector q, ConstVector, ConstVector, Vector f) {
                              const double r = 1 - q[0] * q[0] - q[1] * q[1];
                              f[0] = r * q[0] - w * q[1];
                              f[1] = r * q[1] + w * q[0];
                              return 0;
                            });
  p.set_jacobian([w](double, ConstVector q, ConstVector, ConstVector, MatrixRef J) {
    const double r = 1 - q[0] * q[0] - q[1] * q[1];
    J(0, 0) = r - 2 * q[0] * q[0], J(0, 1) = -2 * q[0] * q[1] - w;
    J(1, 0) = -2 * q[0] * q[1] + w, J(1, 1) = r - 2 * q[1] * q[1];
    return 0;
  });
  auto rotation = [](ConstVector q, Vector g) {
    g[0] = -q[1];
    g[1] = q[0];
  };
  for (const std::string name : {"gauss2", "radau2", "esdirk34", "rk4", "explicit_midpoint"}) {
    BOOST_TEST_CONTEXT(name) {
      double previous_drift = 0.0;
      for (int N : {20, 40}) {
        g::GeometricAdjoint run(p, pair_for(g::tableau_by_name(name)));
        const std::vector<double> q0{0.3, 0.1}, pN{1.0, -2.0};
        BOOST_REQUIRE(run.forward(uniform_times(2.0, N), q0, {}) == esdirk::Status::success);
        BOOST_REQUIRE(run.backward(pN) == esdirk::Status::success);
        BOOST_TEST(g::momentum_drift(run, rotation).relative <= 1e-13);
        const double drift = g::hamiltonian_drift(run).relative;
        BOOST_TEST(drift > 1e-12);  // not a conserved quantity of the discrete map
        if (previous_drift > 0.0)
          BOOST_TEST(drift < previous_drift / 3.0);  // but it shrinks with h (order >= 2 here)
        previous_drift = drift;
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(regressions)

// hamiltonian_drift evaluated f with zero parameters instead of the run's.
BOOST_AUTO_TEST_CASE(hamiltonian_drift_used_zero_parameters) {
  esdirk::FunctionProblem p(1, 0, 1,
                            [](double, ConstVector q, ConstVector, ConstVector theta, Vector f) {
                              f[0] = -theta[0] * q[0] * q[0];
                              return 0;
                            });
  g::GeometricAdjoint run(p, g::symplectic_pair(g::radau_iia(2)));
  const std::vector<double> theta{2.0}, q0{1.0}, pN{1.0};
  run.set_parameters(theta);
  BOOST_REQUIRE(run.forward(uniform_times(1.0, 4), q0, {}) == esdirk::Status::success);
  BOOST_REQUIRE(run.backward(pN) == esdirk::Status::success);
  double expected = 0.0;
  const double H0 = -2.0 * run.adjoint_state(0)[0] * run.state(0)[0] * run.state(0)[0];
  for (int n = 0; n <= 4; ++n)
    expected =
        std::max(expected,
                 std::abs(-2.0 * run.adjoint_state(n)[0] * run.state(n)[0] * run.state(n)[0] - H0));
  BOOST_TEST(expected > 1e-8);
  BOOST_TEST(std::abs(g::hamiltonian_drift(run).absolute - expected) <= 1e-15);
}

BOOST_AUTO_TEST_SUITE_END()
