// The presymplectic GHVI / PRK of index-1 adjoint DAEs (3.7, 3.9): order (T7), naturality
// against the reduced ODE (R13), presymplecticity of the pendulum's one-step map (T6), the
// defect against the constraint tolerance (T10), the index-2 reduction (T8), and the library's
// ESDIRK reverse sweep on a DAE step by step.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "esdirk/geometric/index2_reduction.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/linear_solver.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "geometric_fixtures.hpp"

using namespace fixtures;

namespace {

g::PrkPair pair_for(const std::string& name) {
  if (name == "pghvi1") return g::pghvi1();
  const g::RkTableau t = g::tableau_by_name(name);
  if (!t.has_zero_weight()) return g::symplectic_pair(t);
  return g::prk_pair(t, std::vector<double>(t.a.size(), 0.0), t.name);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dae_adjoint)

// T7: an index-1 DAE with a closed form at the method's order: q' = -u q, 0 = u - q^2 (the
// reading notes' 0 = u - q reduces to q' = -q^2, on which collocation methods superconverge at the
// end point; its naturality test is below), C = q(T): p(0) = 3^(-3/2).
BOOST_AUTO_TEST_CASE(index1_adjoint_converges_at_the_method_order) {
  for (const std::string name : {"pghvi1", "radau2", "radau3", "gauss2", "esdirk23", "esdirk34",
                                 "lobatto_iiia3", "sdirk2"}) {
    const g::PrkPair pair = pair_for(name);
    BOOST_TEST_CONTEXT(name) {
      std::vector<double> hs, errors;
      for (int N = 2; N <= 128; N *= 2) {
        esdirk::FunctionProblem p = cubic_dae();
        g::GeometricAdjoint run(p, pair);
        const std::vector<double> q0{1.0}, u0{1.0}, pN{1.0};
        BOOST_REQUIRE(run.forward(uniform_times(1.0, N), q0, u0) == esdirk::Status::success);
        BOOST_REQUIRE(run.backward(pN) == esdirk::Status::success);
        const double e = std::abs(run.adjoint_state(0)[0] - cubic_terminal_gradient());
        if (e > 3e-14) {
          hs.push_back(1.0 / N);
          errors.push_back(e);
        }
        BOOST_TEST(run.max_forward_defect() <= 1e-13);
      }
      BOOST_TEST_REQUIRE(hs.size() >= 2u);
      hs.erase(hs.begin(), hs.end() - 2);
      errors.erase(errors.begin(), errors.end() - 2);
      BOOST_TEST(std::abs(slope(hs, errors) - pair.method.order) <= 0.2,
                 "slope " << slope(hs, errors));
    }
  }
}

// R13 (naturality, doc/geometric-adjoint-theory.md §4.4): the presymplectic GHVI of the DAE
// and the symplectic PRK of the reduced ODE q' = -q^2 are the same map, step by step, to the
// constraint tolerance.
BOOST_AUTO_TEST_CASE(naturality_dae_equals_reduced_ode_step_by_step) {
  for (const std::string name :
       {"pghvi1", "radau2", "radau3", "gauss3", "esdirk34", "lobatto_iiia3", "explicit_midpoint"}) {
    const g::PrkPair pair = pair_for(name);
    BOOST_TEST_CONTEXT(name) {
      esdirk::FunctionProblem dae = riccati_dae(), ode = riccati();
      g::GeometricAdjoint a(dae, pair), b(ode, pair);
      const std::vector<double> q0{1.0}, u0{0.9}, pN{0.7}, times = uniform_times(2.0, 16);
      BOOST_REQUIRE(a.forward(times, q0, u0) == esdirk::Status::success);
      BOOST_REQUIRE(b.forward(times, q0, {}) == esdirk::Status::success);
      BOOST_REQUIRE(a.backward(pN) == esdirk::Status::success);
      BOOST_REQUIRE(b.backward(pN) == esdirk::Status::success);
      double worst = 0.0;
      for (int n = 0; n <= 16; ++n)
        worst = std::max({worst, std::abs(a.state(n)[0] - b.state(n)[0]),
                          std::abs(a.adjoint_state(n)[0] - b.adjoint_state(n)[0])});
      BOOST_TEST(worst <= 1e-13);
      // The multiplier of the DAE stage: Lambda = Q P (from 0 = -Q P + Lambda).
      const g::TypeTwoStep& step = a.step();
      for (int i = 0; i < pair.method.stages; ++i)
        if (pair.method.b[static_cast<std::size_t>(i)] != 0.0)
          BOOST_TEST(std::abs(step.stage_multiplier(i)[0] -
                              step.stage_state(i)[0] * step.stage_adjoint(i)[0]) <= 1e-13);
    }
  }
}

// T6: the pendulum of Tran & Leok §3.2.2 with one step dt = 2 from x0 = 0.5, v_x0 = 0 and
// p_x1 = 1, p_vx1 = 0: the one-step map of PGHVI-1 is presymplectic (defect <= 1e-10), BE-1's
// is not (O(1)). Also <p1, dq1> = <p0, dq0> for PGHVI-1 with the tangent (3.8).
BOOST_AUTO_TEST_CASE(pendulum_one_step_map_is_presymplectic) {
  esdirk::FunctionProblem p = pendulum();
  const std::vector<double> q0{0.5, 0.0}, p1{1.0, 0.0};
  std::vector<double> u0{-std::sqrt(0.75), 0.0, -std::sqrt(0.75)};
  g::StepOptions tight;
  tight.tolerance = 1e-15;
  g::TypeTwoStep pghvi(p, g::pghvi1(), tight);
  const g::OneStepMap good = g::one_step_map(pghvi, 0.0, 2.0, q0, u0, p1);
  BOOST_REQUIRE(good.status == esdirk::Status::success);
  BOOST_TEST(good.defect <= 1e-10);
  g::StepOptions partner = tight;
  partner.form = g::AdjointForm::partner;
  g::TypeTwoStep be(p, g::backward_euler_both(), partner);
  const g::OneStepMap bad = g::one_step_map(be, 0.0, 2.0, q0, u0, p1);
  BOOST_REQUIRE(bad.status == esdirk::Status::success);
  BOOST_TEST(bad.defect >= 0.1);
  BOOST_TEST_MESSAGE("pendulum dt = 2: PGHVI-1 defect " << good.defect << ", BE-1 defect "
                                                        << bad.defect);
  // T2 for the DAE: the pairing is exact for PGHVI-1.
  std::vector<double> p0(2), dq1(2);
  const std::vector<double> dq0{0.3, -0.2};
  BOOST_REQUIRE(pghvi.forward(0.0, 2.0, q0, u0) == esdirk::Status::success);
  BOOST_REQUIRE(pghvi.adjoint(p1, nullptr, p0) == esdirk::Status::success);
  pghvi.tangent(dq0, dq1);
  BOOST_TEST(std::abs(dot(p1, dq1) - dot(p0, dq0)) <= 1e-14);
  BOOST_TEST(pghvi.forward_defect() <= 1e-15);
  BOOST_TEST(pghvi.adjoint_defect() <= 1e-14);
}

// T10 (Remark 3.4) with the default exact Newton iteration: the stage defect is <= eps and the
// presymplectic defect of the one-step map stays within O(eps) (here <= 100 eps). The last
// correction <= eps leaves an error of order eps^2, so the map's defect sits at the
// difference-quotient floor (~1e-13) for every eps: a bound, no growth (the scaling is the
// next test's, with simplified Newton).
BOOST_AUTO_TEST_CASE(defect_is_bounded_by_the_constraint_tolerance_with_exact_newton) {
  esdirk::FunctionProblem p = pendulum();
  const std::vector<double> q0{0.5, 0.0}, p1{1.0, 0.0};
  const std::vector<double> u0{-std::sqrt(0.75), 0.0, -std::sqrt(0.75)};
  for (double eps : {1e-6, 1e-8, 1e-10}) {
    g::StepOptions o;
    o.tolerance = eps;
    g::TypeTwoStep step(p, g::pghvi1(), o);
    const g::OneStepMap map = g::one_step_map(step, 0.0, 2.0, q0, u0, p1);
    BOOST_REQUIRE(map.status == esdirk::Status::success);
    BOOST_TEST_MESSAGE("tolerance " << eps << ": defect " << map.defect);
    BOOST_TEST(map.defect <= 100 * eps);
    BOOST_REQUIRE(step.forward(0.0, 2.0, q0, u0) == esdirk::Status::success);
    BOOST_TEST(step.forward_defect() <= eps);
  }
}

// T10 (Remark 3.4: the identities hold to O(s eps) when the constraints are solved to eps):
// with StageIteration::simplified_newton the stages keep an error of the order of eps, and
// the presymplectic defect of PGHVI-1's one-step map (pendulum, dt = 0.5) follows eps over
// six decades, while BE-1's stays at its O(h^2) value whatever eps is.
BOOST_AUTO_TEST_CASE(defect_scales_with_the_constraint_tolerance) {
  esdirk::FunctionProblem p = pendulum();
  const std::vector<double> q0{0.5, 0.0}, p1{1.0, 0.0};
  const std::vector<double> u0{-std::sqrt(0.75), 0.0, -std::sqrt(0.75)};
  const double dt = 0.5;  // simplified Newton from K = f(q0) does not converge at dt = 2
  std::vector<double> tolerances, defects, be_defects;
  for (int k = 4; k <= 10; ++k) {
    const double eps = std::pow(10.0, -k);
    g::StepOptions o;
    o.tolerance = eps;
    o.iteration = g::StageIteration::simplified_newton;
    o.max_iterations = 100;
    g::TypeTwoStep pghvi(p, g::pghvi1(), o);
    const g::OneStepMap map = g::one_step_map(pghvi, 0.0, dt, q0, u0, p1);
    BOOST_REQUIRE(map.status == esdirk::Status::success);
    o.form = g::AdjointForm::partner;
    g::TypeTwoStep be(p, g::backward_euler_both(), o);
    const g::OneStepMap bad = g::one_step_map(be, 0.0, dt, q0, u0, p1);
    BOOST_REQUIRE(bad.status == esdirk::Status::success);
    BOOST_REQUIRE(pghvi.forward(0.0, dt, q0, u0) == esdirk::Status::success);
    BOOST_TEST_MESSAGE("simplified Newton, tolerance " << eps << ": stage defect "
                                                       << pghvi.forward_defect() << ", PGHVI-1 defect "
                                                       << map.defect << ", BE-1 defect " << bad.defect);
    // The stage residual is of the order of eps (not eps^2 as with exact Newton) ...
    BOOST_TEST(pghvi.forward_defect() <= eps);
    BOOST_TEST(pghvi.forward_defect() >= 1e-3 * eps);
    // ... and so is the map's defect.
    BOOST_TEST(map.defect <= 100 * eps);
    tolerances.push_back(eps);
    defects.push_back(map.defect);
    be_defects.push_back(bad.defect);
  }
  // Proportional: slope 1 in log-log. The iteration stops at the first correction <= eps and
  // converges linearly with a rate of about 0.1 here (one more iteration per decade of eps), so
  // the error left lies between about 0.1 eps and eps: each point may sit up to half a decade
  // off the proportional line, which moves the least-squares slope over these seven points
  // (x = log eps, sum |x - mean| / sum (x - mean)^2 = 12 / 28) by at most 0.5 * 12/28 = 0.21.
  const double measured = slope(tolerances, defects);
  BOOST_TEST_MESSAGE("PGHVI-1 defect against the tolerance: log-log slope " << measured);
  BOOST_TEST(std::abs(measured - 1.0) <= 0.25);
  // BE-1 is not presymplectic at any tolerance: its defect does not move with eps.
  for (double d : be_defects) {
    BOOST_TEST(d >= 0.1);
    BOOST_TEST(std::abs(d - be_defects.back()) <= 1e-3 * be_defects.back());
  }
}

// The library's ESDIRK34 on a DAE (the pendulum): on the integrator's recorded stages the
// GHVI adjoint p_n equals the reverse sweep's (lambda_x, lambda_z) reduced to the differential
// variables, lambda_x - phi_q^T phi_u^{-T} lambda_z (the pairing with consistent tangents).
BOOST_AUTO_TEST_CASE(esdirk34_dae_agrees_with_the_reverse_sweep_step_by_step) {
  esdirk::FunctionProblem p = pendulum();
  esdirk::Options options;
  options.method = esdirk::Tableau::esdirk34();
  options.rtol = 1e-7;
  options.atol = 1e-9;
  esdirk::Integrator solver(p, options);
  esdirk::Trajectory trajectory;
  solver.add_listener(trajectory);
  std::map<int, std::vector<double>> sweep;
  esdirk::AdjointOptions ao;
  ao.observer = [&](int n, double, esdirk::ConstMatrixRef lx, esdirk::ConstMatrixRef lz,
                    esdirk::ConstMatrixRef) {
    sweep[n] = {lx(0, 0), lx(1, 0), lz(0, 0), lz(1, 0), lz(2, 0)};
  };
  esdirk::Adjoint adjoint(solver, ao);
  const std::vector<double> x0{0.5, 0.0}, z0{-std::sqrt(0.75), 0.0, -std::sqrt(0.75)}, none;
  std::vector<double> x(2), z(3);
  BOOST_REQUIRE(solver.initialize(0.0, x0, z0, none) == esdirk::Status::success);
  solver.set_stop_time(2.0);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(2.0, x, z).status));
  esdirk::AdjointObjective objective;
  const double w[5] = {1.0, 0.5, 0.0, 0.0, 0.0};
  objective.set_terminal_weights({w, 5, 1, 5});
  std::vector<double> dx0(2);
  BOOST_REQUIRE(adjoint.gradient(objective, {dx0.data(), 2, 1, 2}, {}) == esdirk::Status::success);
  g::TypeTwoStep step(p, g::symplectic_pair(g::from_esdirk(esdirk::Tableau::esdirk34())));
  const int N = trajectory.size();
  std::vector<double> pn{1.0, 0.5}, p0(2);
  double worst = 0.0;
  esdirk::DenseMatrix J(5, 5), phi_u(3, 3);
  std::vector<int> piv(3);
  for (int n = N - 1; n >= 0; --n) {
    const esdirk::StepRecord& r = trajectory[n];
    const std::vector<double> q0{r.X(0, 0), r.X(1, 0)}, u{r.Z(0, 0), r.Z(1, 0), r.Z(2, 0)};
    BOOST_REQUIRE(step.set_stages(r.t, r.h, q0, r.X.cref(), r.Z.cref()) == esdirk::Status::success);
    BOOST_REQUIRE(step.adjoint(pn, nullptr, p0) == esdirk::Status::success);
    pn = p0;
    // Reduce the sweep's lambda at (x_n, z_n): w = phi_u^{-T} lambda_z, lambda_x - phi_q^T w.
    const std::vector<double>& l = sweep.at(n);
    p.jacobian(r.t, q0, u, {}, J.ref());
    for (int c = 0; c < 3; ++c)
      for (int rr = 0; rr < 3; ++rr) phi_u(rr, c) = J(2 + rr, 2 + c);
    esdirk::lu_factor(phi_u.ref(), piv.data());
    std::vector<double> wv{l[2], l[3], l[4]};
    esdirk::lu_solve(phi_u.cref(), piv.data(), {wv.data(), 3, 1, 3}, true);
    for (int k = 0; k < 2; ++k) {
      double reduced = l[static_cast<std::size_t>(k)];
      for (int rr = 0; rr < 3; ++rr) reduced -= J(2 + rr, k) * wv[static_cast<std::size_t>(rr)];
      worst = std::max(
          worst, std::abs(pn[static_cast<std::size_t>(k)] - reduced) / (1 + std::abs(reduced)));
    }
  }
  BOOST_TEST_MESSAGE("pendulum DAE: largest relative difference to the reduced sweep " << worst);
  BOOST_TEST(worst <= 1e-12);
  for (int k = 0; k < 2; ++k)
    BOOST_TEST(std::abs(pn[k] - dx0[k]) <= 1e-12 * (1 + std::abs(dx0[k])));
}

// T8: index 2 through phi = g_q f on the circle: f = (1, 0) + q u, g = (|q|^2 - 1)/2, so
// theta' = -sin(theta). With C = q_2 the tangential pairing <p_0, (-sin, cos)(theta_0)>
// converges to cos(theta_T) sin(theta_T) / sin(theta_0) at the method's order; Gauss keeps
// |q|^2 = 1 to rounding (a quadratic invariant), Radau IIA drifts at O(h^p).
BOOST_AUTO_TEST_CASE(index2_by_reduction_tangential_gradient) {
  g::Index2Reduction reduced(
      2, 1,
      [](double, ConstVector q, ConstVector u, Vector f) {
        f[0] = 1.0 + q[0] * u[0];
        f[1] = q[1] * u[0];
        return 0;
      },
      [](double, ConstVector q, MatrixRef gq) {
        gq(0, 0) = q[0], gq(0, 1) = q[1];
        return 0;
      },
      [](double, ConstVector q, ConstVector u, MatrixRef fq, MatrixRef fu) {
        fq(0, 0) = u[0], fq(0, 1) = 0, fq(1, 0) = 0, fq(1, 1) = u[0];
        fu(0, 0) = q[0], fu(1, 0) = q[1];
        return 0;
      },
      [](double, ConstVector, ConstVector v, MatrixRef out) {
        out(0, 0) = v[0], out(0, 1) = v[1];
        return 0;
      });
  const double th0 = 1.0, T = 1.0;
  const double thT = 2.0 * std::atan(std::tan(th0 / 2) * std::exp(-T));
  const double exact = std::cos(thT) * std::sin(thT) / std::sin(th0);
  for (const std::string name : {"gauss2", "radau2", "radau3"}) {
    const g::PrkPair pair = pair_for(name);
    BOOST_TEST_CONTEXT(name) {
      std::vector<double> hs, errors;
      double drift = 0.0;
      for (int N = 8; N <= 64; N *= 2) {
        g::GeometricAdjoint run(reduced, pair);
        const std::vector<double> q0{std::cos(th0), std::sin(th0)}, u0{-std::cos(th0)},
            pN{0.0, 1.0};
        BOOST_REQUIRE(run.forward(uniform_times(T, N), q0, u0) == esdirk::Status::success);
        BOOST_REQUIRE(run.backward(pN) == esdirk::Status::success);
        const double tangential =
            -std::sin(th0) * run.adjoint_state(0)[0] + std::cos(th0) * run.adjoint_state(0)[1];
        hs.push_back(T / N);
        errors.push_back(std::abs(tangential - exact));
        for (int n = 0; n <= N; ++n) {
          const ConstVector q = run.state(n);
          drift = std::max(drift, std::abs(q[0] * q[0] + q[1] * q[1] - 1.0));
        }
      }
      BOOST_TEST(std::abs(slope(hs, errors) - pair.method.order) <= 0.3,
                 "slope " << slope(hs, errors));
      if (name == std::string("gauss2"))
        BOOST_TEST(drift <= 1e-13);
      else
        BOOST_TEST(drift > 1e-10);  // g(q_n) = 0 is not kept: documented, not hidden
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
