// The hybrid adjoint (HybridAdjoint): its gradient equals the forward sensitivities' on the same
// steps and events to 1e-12 relative on every event example, including simultaneous events, an
// event at an output time, a terminal event and memory; the negative tests show that dropping
// the jumps or using Serban & Recuero 2019's printed recurrence (erratum E8) would be caught.

#include <boost/test/unit_test.hpp>

#include <cmath>

#include "adjoint_fixtures.hpp"
#include "bouncing_ball/bouncing_ball_closed_form.hpp"
#include "bouncing_ball/bouncing_ball_model.hpp"
#include "em_oscillator/em_oscillator_model.hpp"
#include "hybrid_ode/hybrid_ode_closed_form.hpp"
#include "hybrid_ode/hybrid_ode_model.hpp"
#include "tank_switch/tank_switch_model.hpp"

namespace {

using namespace event_tests;

constexpr double agreement = 1e-12;

// G = q(5) = int_0^5 x dt and x(5) of Serban & Recuero 2019's Example 5.1, sampled at `outputs` times.
AdjointComparison hybrid_ode_case(double rtol, int outputs, esdirk::HybridAdjointOptions adjoint = {},
                                  bool forward = true) {
  hybrid_ode::Model model;
  std::vector<double> times;
  std::vector<esdirk::DenseMatrix> weights;
  for (int k = 1; k <= outputs; ++k) {
    times.push_back(hybrid_ode::t_end * k / outputs);
    weights.emplace_back();
  }
  esdirk::DenseMatrix w(2, 2);
  w(1, 0) = 1.0;  // G = q(5)
  w(0, 1) = 1.0;  // x(5)
  weights.back() = w;
  return compare_adjoint(model, tight(rtol), 0.0, hybrid_ode::mode_a, {0.0, 0.0}, {}, {hybrid_ode::nominal_p},
                         times, weights, {}, adjoint, forward);
}

// Schäfer 2021's ball with two sensors on the ground: h0 = z and h1 = z (2 + sin t) vanish together,
// so every impact fires both components at once. Component 0 reverses the velocity
// (v+ = -gamma v-), component 1 adds the impact energy to a counter (c+ = c- + v-^2 / 2), so the
// reset depends on which components fired. States (z, v, c), parameters (g, gamma).
class TwoSensorBall : public esdirk::HybridProblem {
 public:
  TwoSensorBall() : HybridProblem(3, 0, 2, 2) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = x[1];
    f[1] = -p[0];
    f[2] = 0.0;
    return 0;
  }
  int events(int, double t, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0];
    h[1] = x[0] * (2.0 + std::sin(t));
    return 0;
  }
  int transition(int, const esdirk::TransitionCause& cause, double, esdirk::ConstVector x,
                 esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector, int&,
                 esdirk::Vector x_plus) override {
    if (cause.fired_component(0)) x_plus[1] = -p[1] * x[1];
    if (cause.fired_component(1)) x_plus[2] = x[2] + 0.5 * x[1] * x[1];
    both = both && cause.fired_component(0) && cause.fired_component(1);
    return 0;
  }
  bool both = true;
};

// A decaying state with a dose at known times (time events): x' = -k x, x+ = x- + d.
class Dosing : public esdirk::HybridProblem {
 public:
  Dosing() : HybridProblem(1, 0, 2, 0) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = -p[0] * x[0];
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector x,
                 esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector, int&,
                 esdirk::Vector x_plus) override {
    x_plus[0] = x[0] + p[1];
    return 0;
  }
};

// A tank refilled whenever it runs low: x' = -k x until x = lo (a parameter of the event
// function), then the reset assigns x+ = hi (phi_x = 0: the old state is forgotten). p = (k, lo, hi).
class Refill : public esdirk::HybridProblem {
 public:
  Refill() : HybridProblem(1, 0, 3, 1) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = -p[0] * x[0];
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - p[1];
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector, esdirk::ConstVector,
                 esdirk::ConstVector p, esdirk::ConstVector, int&, esdirk::Vector x_plus) override {
    x_plus[0] = p[2];
    return 0;
  }
};

// The counterexample of erratum E7 (Serban & Recuero 2019, eq. 25; doc/events-theory.md J6):
// y' = 1 until y = p (t1 = p), then y' = y* with the memory y* = y(t1) = p. dy/dp = 1 + t - 2p,
// so 2 - p at t = p + 1; the memory's sensitivity must be the total derivative s+ + y'+ tau (the
// paper's s* = s+ gives 2 - 2p).
class LatchedRate : public esdirk::HybridProblem {
 public:
  LatchedRate() : HybridProblem(1, 0, 1, 1, true) {}
  bool has_mode(int mode) const override { return mode == 0 || mode == 1; }
  int evaluate(int mode, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::ConstVector memory, esdirk::Vector f, esdirk::Vector) override {
    f[0] = mode == 0 ? 1.0 : memory[0];
    return 0;
  }
  int events(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = mode == 0 ? x[0] - p[0] : 1.0;
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, int& next, esdirk::Vector) override {
    next = 1;
    return 0;
  }
};

// The ball's position, velocity (and for TwoSensorBall the counter) at every output.
std::vector<esdirk::DenseMatrix> all_states_at(int n, int outputs) {
  std::vector<esdirk::DenseMatrix> w(static_cast<std::size_t>(outputs));
  for (auto& m : w) {
    m.resize(n, n);
    for (int i = 0; i < n; ++i) m(i, i) = 1.0;
  }
  return w;
}

AdjointComparison em_case(double rtol, esdirk::HybridAdjointOptions adjoint = {}) {
  em_oscillator::Model model;
  esdirk::HybridOptions o;
  o.integrator.rtol = rtol;
  o.integrator.atol = 1e-2 * rtol;
  // G = q(10) = int u^2 dt, and u(10), z(10).
  esdirk::DenseMatrix w(4, 3);
  w(2, 0) = 1.0;
  w(0, 1) = 1.0;
  w(3, 2) = 1.0;
  return compare_adjoint(model, o, 0.0, em_oscillator::loading, {0.0, 0.0, 0.0}, {0.0}, em_oscillator::nominal(),
                         {em_oscillator::t_end}, {w}, std::vector<double>(4, 0.0), adjoint);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hybrid_adjoint_tests)

BOOST_AUTO_TEST_CASE(hybrid_ode_adjoint_equals_forward_and_the_papers_value) {
  for (int outputs : {1, 7}) {
    const AdjointComparison r = hybrid_ode_case(1e-10, outputs);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    BOOST_TEST(r.events == 3);
    BOOST_TEST(r.report.jumps == 3);
    BOOST_TEST_MESSAGE("outputs " << outputs << ": adjoint vs forward " << r.worst_relative_error());
    BOOST_TEST(r.worst_relative_error() < agreement, "worst " << r.worst_relative_error());
    // dG/dp: the paper prints -2.31195; the closed form to the solver's accuracy.
    using D1 = dual::Dual<1>;
    const auto ex = hybrid_ode::exact(D1::variable(hybrid_ode::nominal_p, 0), hybrid_ode::nominal_p);
    const double dG = r.adjoint(2, 0);
    BOOST_TEST(std::round(dG * 1e5) / 1e5 == -2.31195);
    BOOST_TEST(relative_error(dG, ex.G.d[0]) < 1e-7, dG << " vs " << ex.G.d[0]);
    BOOST_TEST(relative_error(r.adjoint(2, 1), ex.x_end.d[0]) < 1e-5);
  }
}

BOOST_AUTO_TEST_CASE(hybrid_ode_without_jumps_is_wrong) {
  esdirk::HybridAdjointOptions off;
  off.jumps = false;
  const AdjointComparison r = hybrid_ode_case(1e-10, 1, off);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  // f does not depend on p and s(0) = 0: without the jumps dG/dp = 0 (the paper's footnote).
  BOOST_TEST(r.adjoint(2, 0) == 0.0);
  BOOST_TEST(relative_error(r.adjoint(2, 0), -2.31195) == 1.0);
  // The forward run (with its jumps) disagrees completely.
  BOOST_TEST(r.worst_relative_error() > 0.5);
}

BOOST_AUTO_TEST_CASE(hybrid_ode_converges_to_the_closed_form) {
  using D1 = dual::Dual<1>;
  const auto ex = hybrid_ode::exact(D1::variable(hybrid_ode::nominal_p, 0), hybrid_ode::nominal_p);
  double previous = 1.0;
  for (double rtol : {1e-6, 1e-8, 1e-10, 1e-12}) {
    const AdjointComparison r = hybrid_ode_case(rtol, 1, {}, false);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    const double error = relative_error(r.adjoint(2, 0), ex.G.d[0]);
    BOOST_TEST_MESSAGE("rtol " << rtol << ": dG/dp error " << error);
    BOOST_TEST(error < std::max(1e3 * rtol, 1e-10));
    BOOST_TEST(error < previous);
    previous = error;
  }
}

BOOST_AUTO_TEST_CASE(bouncing_ball_adjoint_equals_forward_and_the_closed_form) {
  using D4 = dual::Dual<4>;
  for (bool analytic : {true, false}) {  // the event and reset Jacobians by differences too
    bouncing_ball::Model model;
    model.use_analytic_event_jacobians(analytic);
    const std::vector<double> times{0.5, 1.2, bouncing_ball::t_end};
    const AdjointComparison r =
        compare_adjoint(model, tight(1e-8), 0.0, 0, {bouncing_ball::z0, bouncing_ball::v0}, {},
                        {bouncing_ball::gravity, bouncing_ball::restitution}, times, all_states_at(2, 3));
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    BOOST_TEST(r.events == 1);
    BOOST_TEST_MESSAGE("ball (analytic " << analytic << "): adjoint vs forward " << r.worst_relative_error());
    BOOST_TEST(r.worst_relative_error() < agreement);
    // Free flight is integrated exactly: the sum over the outputs of z and v against the
    // closed form, d/d(z0, v0, g, gamma).
    for (int row = 0; row < 2; ++row)
      for (int d = 0; d < 4; ++d) {
        double exact = 0.0;
        for (double t : times) {
          const auto ex = bouncing_ball::exact(D4::variable(bouncing_ball::z0, 0), D4::variable(bouncing_ball::v0, 1),
                                               D4::variable(bouncing_ball::gravity, 2),
                                               D4::variable(bouncing_ball::restitution, 3), t);
          exact += (row == 0 ? ex.z : ex.v).d[static_cast<std::size_t>(d)];
        }
        BOOST_TEST(std::abs(r.adjoint(d, row) - exact) < (analytic ? 1e-9 : 1e-6) * std::max(1.0, std::abs(exact)),
                   "row " << row << " d " << d << ": " << r.adjoint(d, row) << " vs " << exact);
      }
  }
}

BOOST_AUTO_TEST_CASE(adjoint_follows_the_solvers_jump_options) {
  // The explicit event of Schäfer 2021 (event_time_sensitivity = false: tau = 0, dz(t_end)/dz0 = 1
  // as the blog prints) and a forward run without jumps: the adjoint transposes what ran.
  bouncing_ball::Model model;
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0}, p{bouncing_ball::gravity, bouncing_ball::restitution};
  esdirk::HybridOptions fixed_time = tight(1e-8);
  fixed_time.event_time_sensitivity = false;
  const AdjointComparison r = compare_adjoint(model, fixed_time, 0.0, 0, x0, {}, p, {bouncing_ball::t_end}, all_states_at(2, 1));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.worst_relative_error() < agreement);
  BOOST_TEST(std::abs(r.adjoint(0, 0) - 1.0) < 1e-10);  // dz(t_end)/dz0, explicit event
  esdirk::HybridOptions no_jumps = tight(1e-8);
  no_jumps.sensitivity_jumps = false;
  const AdjointComparison n = compare_adjoint(model, no_jumps, 0.0, 0, x0, {}, p, {bouncing_ball::t_end}, all_states_at(2, 1));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(n.status), n.message);
  BOOST_TEST(n.worst_relative_error() < agreement);
  BOOST_TEST(n.report.jumps == 0);
}

BOOST_AUTO_TEST_CASE(terminal_event_gradient_is_the_total_derivative) {
  // The ball stopped at its impact: L = v(tau-) = -S. Schäfer 2021: dL/dz0 = -g/S (printed -0.99995,
  // labelled there as dL/dg), dL/dv0 = -v0/S, dL/dg = -z0/S, dL/dgamma = 0.
  bouncing_ball::Model model;
  esdirk::HybridOptions o = tight(1e-8);
  o.terminal = {true};
  esdirk::HybridSolver solver(model, o);
  esdirk::HybridAdjoint adjoint(solver);
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0}, p{bouncing_ball::gravity, bouncing_ball::restitution};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  esdirk::SensitivityOptions so;
  so.stage_solve = esdirk::StageSolve::factorization;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(identity(4).cref(), so)));
  std::vector<double> x(2);
  esdirk::DenseMatrix Sx(2, 4);
  const esdirk::Outcome o1 = adjoint.integrate_to(bouncing_ball::t_end, x, {}, Sx.ref());
  BOOST_REQUIRE(o1.reason == esdirk::StopReason::listener_stop);
  esdirk::HybridObjective objective;
  esdirk::DenseMatrix w(2, 1);
  w(1, 0) = 1.0;
  objective.set_terminal_weights(w.cref());
  esdirk::DenseMatrix dx0(2, 1), dp(2, 1);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())), adjoint.message());
  const double g = bouncing_ball::gravity, z0 = bouncing_ball::z0, v0 = bouncing_ball::v0;
  const double S = std::sqrt(v0 * v0 + 2 * g * z0);
  const double exact[4] = {-g / S, -v0 / S, -z0 / S, 0.0};
  const double got[4] = {dx0(0, 0), dx0(1, 0), dp(0, 0), dp(1, 0)};
  for (int d = 0; d < 4; ++d) {
    // The forward total derivative: S_v + v' tau, tau = -S_z / D_h with D_h = v(tau-).
    const double tau = -Sx(0, d) / x[1], forward = Sx(1, d) - g * tau;
    BOOST_TEST(std::abs(got[d] - exact[d]) < 1e-10, "d " << d << ": " << got[d] << " vs " << exact[d]);
    BOOST_TEST(std::abs(got[d] - forward) < 1e-12 * S, "d " << d << ": " << got[d] << " vs forward " << forward);
  }
  BOOST_TEST(std::round(dx0(0, 0) * 1e5) / 1e5 == -0.99995);
}

BOOST_AUTO_TEST_CASE(two_simultaneous_events_adjoint_equals_forward) {
  TwoSensorBall model;
  const std::vector<double> times{1.0, 1.9, 2.6};
  const AdjointComparison r = compare_adjoint(model, tight(1e-9), 0.0, 0, {bouncing_ball::z0, bouncing_ball::v0, 0.0},
                                              {}, {bouncing_ball::gravity, bouncing_ball::restitution}, times,
                                              all_states_at(3, 3));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events == 2);  // two impacts, both components each time
  BOOST_TEST(model.both);
  BOOST_TEST_MESSAGE("two sensors: adjoint vs forward " << r.worst_relative_error());
  BOOST_TEST(r.worst_relative_error() < agreement);
}

BOOST_AUTO_TEST_CASE(events_at_output_times_adjoint_equals_forward) {
  // Time events at two of the output times (the output is the left limit there) ...
  Dosing dosing;
  esdirk::HybridOptions o = tight(1e-9);
  o.time_events = {1.0, 2.0};
  const AdjointComparison r =
      compare_adjoint(dosing, o, 0.0, 0, {1.0}, {}, {0.7, 0.5}, {0.5, 1.0, 1.0, 2.0, 3.0}, all_states_at(1, 5));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events == 2);
  BOOST_TEST_MESSAGE("doses at output times: adjoint vs forward " << r.worst_relative_error());
  BOOST_TEST(r.worst_relative_error() < agreement);
  // Closed form: sum of x over the outputs (left limit at 1 and 2, the right limit at the second 1).
  const double k = 0.7, e1 = std::exp(-k), e05 = std::exp(-0.5 * k);  // the dose d = 0.5
  // x(0.5) = e05, x(1-) = e1, x(1+) = e1 + d, x(2-) = (e1 + d) e1, x(3) = ((e1 + d) e1 + d) e1
  const double dx0 = e05 + e1 + e1 + e1 * e1 + e1 * e1 * e1;
  BOOST_TEST(relative_error(r.adjoint(0, 0), dx0) < 1e-6);
  const double ddose = 1.0 + e1 + (e1 + 1.0) * e1;
  BOOST_TEST(relative_error(r.adjoint(2, 0), ddose) < 1e-6);

  // ... and a state event (the ball's impact) exactly at an output time.
  bouncing_ball::Model model;
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0}, p{bouncing_ball::gravity, bouncing_ball::restitution};
  const Run first = run(model, tight(1e-8), 0.0, 0, x0, {}, p, bouncing_ball::t_end, nullptr);
  BOOST_REQUIRE(esdirk::ok(first.status) && first.events.size() == 1);
  const double t_impact = first.events[0].t;
  const AdjointComparison at = compare_adjoint(model, tight(1e-8), 0.0, 0, x0, {}, p,
                                               {t_impact, t_impact, bouncing_ball::t_end}, all_states_at(2, 3));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(at.status), at.message);
  BOOST_TEST(at.events == 1);
  BOOST_TEST_MESSAGE("impact at an output time: adjoint vs forward " << at.worst_relative_error());
  BOOST_TEST(at.worst_relative_error() < agreement);

  // ... and a terminal event the run goes on from: its output is then the left limit at t*.
  esdirk::HybridOptions terminal = tight(1e-8);
  terminal.terminal = {true};
  const AdjointComparison on = compare_adjoint(model, terminal, 0.0, 0, x0, {}, p,
                                               {bouncing_ball::t_end, bouncing_ball::t_end}, all_states_at(2, 2));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(on.status), on.message);
  BOOST_TEST(on.events == 1);
  BOOST_TEST_MESSAGE("past a terminal event: adjoint vs forward " << on.worst_relative_error());
  BOOST_TEST(on.worst_relative_error() < agreement);
}

BOOST_AUTO_TEST_CASE(assigning_reset_and_parameter_dependent_event_adjoint_equals_closed_form) {
  Refill model;
  const double k = 0.8, lo = 1.0, hi = 3.0, x0 = 2.0, t_end = 4.5;
  const AdjointComparison r = compare_adjoint(model, tight(1e-10), 0.0, 0, {x0}, {}, {k, lo, hi},
                                              {2.0, t_end}, all_states_at(1, 2));
  // (the closed form below to the solver's accuracy: event times carry the global error)
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events == 3);  // t1 = ln(x0/lo)/k = 0.87, then every ln(hi/lo)/k = 1.37
  BOOST_TEST_MESSAGE("assigning reset: adjoint vs forward " << r.worst_relative_error());
  BOOST_TEST(r.worst_relative_error() < agreement);
  // Closed form of x(2) + x(t_end) (x(t) = hi e^{-k (t - t_last)} after the last refill).
  using D4 = dual::Dual<4>;
  using std::exp;
  using std::log;
  const D4 X0 = D4::variable(x0, 0), K = D4::variable(k, 1), LO = D4::variable(lo, 2), HI = D4::variable(hi, 3);
  const auto x_at = [&](double t) {
    D4 last = log(X0 / LO) / K;
    if (t < last.v) return X0 * exp(-1.0 * K * t);
    const D4 period = log(HI / LO) / K;
    while (t >= (last + period).v) last = last + period;
    return HI * exp(-1.0 * K * (t - last));
  };
  const D4 sum = x_at(2.0) + x_at(t_end);
  for (int d = 0; d < 4; ++d)
    BOOST_TEST(std::abs(r.adjoint(d, 0) - sum.d[static_cast<std::size_t>(d)]) < 1e-7 * std::max(1.0, std::abs(sum.d[static_cast<std::size_t>(d)])),
               "d " << d << ": " << r.adjoint(d, 0) << " vs " << sum.d[static_cast<std::size_t>(d)]);
}

BOOST_AUTO_TEST_CASE(memory_latched_while_moving_adjoint_gives_the_total_derivative) {
  for (double p : {0.5, 1.0, 1.7}) {
    LatchedRate model;
    const AdjointComparison r =
        compare_adjoint(model, tight(1e-10), 0.0, 0, {0.0}, {}, {p}, {p + 1.0}, all_states_at(1, 1), {0.0});
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    BOOST_TEST(r.events == 1);
    BOOST_TEST(r.worst_relative_error() < agreement, "p = " << p << ": " << r.worst_relative_error());
    BOOST_TEST(std::abs(r.adjoint(1, 0) - (2.0 - p)) < 1e-8, "p = " << p << ": " << r.adjoint(1, 0));
  }
}

BOOST_AUTO_TEST_CASE(dae_mode_switch_adjoint_equals_forward_and_the_closed_form) {
  using D4 = dual::Dual<4>;
  tank_switch::Model model;
  // x(t_end) and z(t_end), z jumping at the switch (h = z - c depends on z).
  const AdjointComparison r =
      compare_adjoint(model, tight(1e-10), 0.0, 0, {tank_switch::x0}, {tank_switch::a * tank_switch::x0},
                      {tank_switch::a, tank_switch::b, tank_switch::c}, {1.0, tank_switch::t_end}, all_states_at(2, 2));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events == 1);
  BOOST_TEST_MESSAGE("tank switch (DAE): adjoint vs forward " << r.worst_relative_error());
  BOOST_TEST(r.worst_relative_error() < agreement);
  const auto ex = tank_switch::exact(D4::variable(tank_switch::x0, 0), D4::variable(tank_switch::a, 1),
                                     D4::variable(tank_switch::b, 2), D4::variable(tank_switch::c, 3), tank_switch::t_end);
  // Row 1: z(1) + z(t_end), z(1) = a x0 e^{-a} before the switch (t1 = ln 4).
  using std::exp;
  const D4 z1 = D4::variable(tank_switch::a, 1) * D4::variable(tank_switch::x0, 0) * exp(-1.0 * D4::variable(tank_switch::a, 1));
  for (int d = 0; d < 4; ++d) {
    const double exact = ex.z.d[static_cast<std::size_t>(d)] + z1.d[static_cast<std::size_t>(d)];
    BOOST_TEST(std::abs(r.adjoint(d, 1) - exact) < 1e-6 * (1 + std::abs(exact)),
               "d(z(1) + z(t_end))/d" << d << ": " << r.adjoint(d, 1) << " vs " << exact);
  }
}

BOOST_AUTO_TEST_CASE(em_oscillator_adjoint_equals_forward_and_the_printed_recurrence_does_not) {
  const AdjointComparison r = em_case(1e-8);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events > 5);
  BOOST_TEST_MESSAGE("EM (" << r.events << " reversals): adjoint vs forward " << r.worst_relative_error());
  BOOST_TEST(r.worst_relative_error() < agreement);
  // The paper's ASA row (rtol 1e-8 in ode15s, "consistent with the tolerances"; E16: a ~2 % check).
  BOOST_TEST(relative_error(r.adjoint(3, 0), -1.335e-5) < 0.02);
  BOOST_TEST(relative_error(r.adjoint(4, 0), 3.267e-3) < 0.02);
  BOOST_TEST(relative_error(r.adjoint(5, 0), -1.540e-6) < 0.03);
  BOOST_TEST(std::abs(r.adjoint(6, 0)) < 1e-12);  // dG/dbeta = 0 exactly at beta = 0

  // Erratum E8: the printed recurrence moves the x*-part of the memory adjoint; the comparison
  // with the forward gradient catches it.
  esdirk::HybridAdjointOptions printed;
  printed.memory_transfer = esdirk::MemoryTransfer::printed_recurrence;
  const AdjointComparison e8 = em_case(1e-8, printed);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(e8.status), e8.message);
  const double ka = relative_error(e8.adjoint(3, 0), e8.forward(3, 0)),
               alpha = relative_error(e8.adjoint(5, 0), e8.forward(5, 0));
  BOOST_TEST_MESSAGE("E8 printed recurrence: dG/dk_a off by " << ka << ", dG/dalpha by " << alpha);
  BOOST_TEST(ka > 1e-5);
  BOOST_TEST(e8.worst_relative_error() > 1e6 * agreement);
}

BOOST_AUTO_TEST_CASE(statistics_report_the_sweep_and_initialize_resets_them) {
  bouncing_ball::Model model;
  esdirk::HybridSolver solver(model, tight(1e-8));
  esdirk::HybridAdjoint adjoint(solver);
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0}, p{bouncing_ball::gravity, bouncing_ball::restitution};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(bouncing_ball::t_end, x)));
  esdirk::HybridObjective objective;
  esdirk::DenseMatrix w(2, 1), dx0(2, 1), dp(2, 1);
  w(0, 0) = 1.0;
  objective.set_terminal_weights(w.cref());
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())));
  const esdirk::HybridAdjointReport& r = adjoint.report();
  BOOST_TEST(r.segments == 2);
  BOOST_TEST(r.jumps == 1);
  BOOST_TEST(r.sweep.adjoint_steps == adjoint.steps());
  // s - 1 implicit stages, 1 row
  BOOST_TEST(r.sweep.transposed_solves == (solver.integrator().method().stages - 1L) * adjoint.steps());
  BOOST_TEST(r.peak_stored_doubles > 0);
  const esdirk::Statistics& st = solver.statistics();
  BOOST_TEST(st.adjoint_steps == r.sweep.adjoint_steps);
  BOOST_TEST(st.adjoint_transposed_solves == r.sweep.transposed_solves);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  BOOST_TEST(solver.statistics().adjoint_steps == 0);
  BOOST_TEST(adjoint.outputs() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
