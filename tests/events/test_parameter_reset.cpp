// Parameter resets: a transition assigns new parameter values, p+ = psi(t, x-, z-, p-, mem).
// A controller gain switched by an event, x' = -k x with k := 2 k where x falls through 1/2:
//     t* = ln(2 x0) / k0,   x(T) = (1/2) exp(-2 k0 (T - t*)) = 2 x0^2 exp(-2 k0 T),
// and a reset that reads the state, k := k + 3 x-^2, whose total derivative along the moving
// event is that of k- alone (x(t*) = 1/2 for every (x0, k0)). Forward sensitivities against the
// closed forms and central differences of the whole run, the adjoint against the forward.

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "adjoint_fixtures.hpp"
#include "bouncing_ball/dual.hpp"
#include "event_fixtures.hpp"

namespace {

using namespace event_tests;

enum class GainReset { doubled, plus_state_squared, not_finite };

class SwitchedGain : public esdirk::HybridProblem {
 public:
  explicit SwitchedGain(GainReset reset, bool analytic_jacobian = false)
      : HybridProblem(1, 0, 1, 1), reset_(reset), analytic_(analytic_jacobian) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = -p[0] * x[0];
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - 0.5;
    return 0;
  }
  bool has_parameter_reset() const override { return true; }
  int reset_parameters(int, const esdirk::TransitionCause&, double, esdirk::ConstVector x,
                       esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector,
                       esdirk::Vector p_plus) override {
    ++resets;
    switch (reset_) {
      case GainReset::doubled: p_plus[0] = 2.0 * p[0]; break;
      case GainReset::plus_state_squared: p_plus[0] = p[0] + 3.0 * x[0] * x[0]; break;
      case GainReset::not_finite: p_plus[0] = std::nan(""); break;
    }
    return 0;
  }
  bool has_parameter_reset_jacobian() const override { return analytic_; }
  // E = [psi_t, psi_x, psi_k].
  int parameter_reset_jacobian(int, const esdirk::TransitionCause&, double, esdirk::ConstVector x,
                               esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                               esdirk::MatrixRef E) override {
    E(0, 0) = 0.0;
    E(0, 1) = reset_ == GainReset::plus_state_squared ? 6.0 * x[0] : 0.0;
    E(0, 2) = reset_ == GainReset::doubled ? 2.0 : 1.0;
    return 0;
  }
  int resets = 0;

 private:
  GainReset reset_;
  bool analytic_;
};

constexpr double x0 = 1.3, k0 = 0.8, T = 2.5;

esdirk::HybridOptions falling(double rtol) {
  esdirk::HybridOptions o = tight(rtol);
  o.directions = {esdirk::EventDirection::falling};
  return o;
}

// x(T) and its derivatives in (x0, k0), both resets, from the closed form.
dual::Dual<2> closed_form(GainReset reset) {
  using D2 = dual::Dual<2>;
  const D2 X0 = D2::variable(x0, 0), K = D2::variable(k0, 1);
  const D2 t_star = dual::log(2.0 * X0) / K;
  const D2 k_plus = reset == GainReset::doubled ? 2.0 * K : K + 0.75;
  return 0.5 * dual::exp(-k_plus * (T - t_star));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(parameter_reset_tests)

BOOST_AUTO_TEST_CASE(gain_doubled_by_an_event_matches_the_closed_form) {
  SwitchedGain model(GainReset::doubled);
  esdirk::HybridSolver solver(model, falling(1e-10));
  const std::vector<double> x0v{x0}, p{k0};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0v, {}, p)));
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(identity(2).cref())));
  std::vector<double> x(1);
  esdirk::DenseMatrix Sx(1, 2);
  const esdirk::Outcome out = solver.integrate_to(T, x, {}, Sx.ref());
  BOOST_REQUIRE_MESSAGE(esdirk::ok(out), solver.message());
  BOOST_REQUIRE_EQUAL(solver.event_count(), 1);
  const esdirk::EventRecord& e = solver.event(0);
  BOOST_TEST(relative_error(e.t, std::log(2.0 * x0) / k0) < 1e-10);
  BOOST_TEST(e.p_minus[0] == k0);
  BOOST_TEST(e.p_plus[0] == 2.0 * k0);
  BOOST_TEST(solver.parameters()[0] == 2.0 * k0);  // the mode's p; the user's p is the first value
  const dual::Dual<2> exact = closed_form(GainReset::doubled);
  BOOST_TEST(relative_error(x[0], exact.v) < 1e-8);
  BOOST_TEST(relative_error(Sx(0, 0), exact.d[0]) < 1e-7);  // 4 x0 exp(-2 k0 T)
  BOOST_TEST(relative_error(Sx(0, 1), exact.d[1]) < 1e-7);  // -2 T x(T)
  // dk+/d(x0, k0) = (0, 2): the chain rule through the reset.
  const esdirk::ConstMatrixRef P = solver.parameter_sensitivity();
  BOOST_REQUIRE_EQUAL(P.rows, 1);
  BOOST_TEST(std::abs(P(0, 0)) < 1e-14);
  BOOST_TEST(std::abs(P(0, 1) - 2.0) < 1e-9);
}

BOOST_AUTO_TEST_CASE(reset_reading_the_state_follows_the_moving_event) {
  // dk+/dtheta = 6 x- (s- + f- tau) + dk-/dtheta, and s- + f- tau = 0 here: a reset Jacobian
  // that forgot tau would give dk+/dx0 = 6 x- s- != 0 and a wrong x(T).
  for (const bool analytic : {false, true}) {
    SwitchedGain model(GainReset::plus_state_squared, analytic);
    const esdirk::DenseMatrix seed = identity(2);
    const Run r = run(model, falling(1e-10), 0.0, 0, {x0}, {}, {k0}, T, &seed);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
    BOOST_TEST(std::abs(r.events[0].p_plus[0] - (k0 + 0.75)) < 1e-9);
    const dual::Dual<2> exact = closed_form(GainReset::plus_state_squared);
    BOOST_TEST(relative_error(r.x[0], exact.v) < 1e-8);
    BOOST_TEST(relative_error(r.Sx(0, 0), exact.d[0]) < 1e-7, "analytic E " << analytic);
    BOOST_TEST(relative_error(r.Sx(0, 1), exact.d[1]) < 1e-7, "analytic E " << analytic);
  }
}

BOOST_AUTO_TEST_CASE(sensitivities_match_central_differences_of_the_whole_run) {
  for (const GainReset reset : {GainReset::doubled, GainReset::plus_state_squared}) {
    SwitchedGain model(reset);
    const esdirk::DenseMatrix seed = identity(2);
    const Run r = run(model, falling(1e-11), 0.0, 0, {x0}, {}, {k0}, T, &seed);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    const double base[2] = {x0, k0};
    for (int j = 0; j < 2; ++j) {
      double v[2] = {base[0], base[1]};
      const double d = 1e-5 * base[j];
      v[j] = base[j] + d;
      const Run up = run(model, falling(1e-11), 0.0, 0, {v[0]}, {}, {v[1]}, T);
      v[j] = base[j] - d;
      const Run down = run(model, falling(1e-11), 0.0, 0, {v[0]}, {}, {v[1]}, T);
      BOOST_REQUIRE(esdirk::ok(up.status) && esdirk::ok(down.status));
      const double fd = (up.x[0] - down.x[0]) / (2.0 * d);
      BOOST_TEST_MESSAGE("gain direction " << j << ": forward vs central difference " << relative_error(r.Sx(0, j), fd));
      BOOST_TEST(relative_error(r.Sx(0, j), fd) < 1e-7, "direction " << j << ": " << r.Sx(0, j) << " vs " << fd);
    }
  }
}

BOOST_AUTO_TEST_CASE(adjoint_equals_forward_through_parameter_resets) {
  // Outputs before, at and after the event; the adjoint's transposed jump carries the adjoint of
  // k+ back through E (doc/events-theory.md, J3p).
  for (const GainReset reset : {GainReset::doubled, GainReset::plus_state_squared}) {
    SwitchedGain model(reset);
    const double t_star = std::log(2.0 * x0) / k0;
    const std::vector<double> times{0.2, 0.9 * t_star, 1.5, T};
    const AdjointComparison r = compare_adjoint(model, falling(1e-9), 0.0, 0, {x0}, {}, {k0}, times,
                                                {pick(1, 0), pick(1, 0), pick(1, 0), pick(1, 0)});
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    BOOST_TEST(r.events == 1);
    BOOST_TEST_MESSAGE("gain: adjoint vs forward " << r.worst_relative_error());
    BOOST_TEST(r.worst_relative_error() < 1e-12, "worst " << r.worst_relative_error());
  }
}

BOOST_AUTO_TEST_CASE(adjoint_gradient_matches_central_differences_of_the_whole_run) {
  // Phi = x(1) + x(T) (one output on each side of the event) for both resets.
  for (const GainReset reset : {GainReset::doubled, GainReset::plus_state_squared}) {
    SwitchedGain model(reset);
    const std::vector<double> times{1.0, T};
    const AdjointComparison a = compare_adjoint(model, falling(1e-11), 0.0, 0, {x0}, {}, {k0}, times,
                                                {pick(1, 0), pick(1, 0)});
    BOOST_REQUIRE_MESSAGE(esdirk::ok(a.status), a.message);
    const auto phi = [&](double x0v, double k0v) {
      esdirk::HybridSolver solver(model, falling(1e-11));
      const std::vector<double> xs{x0v}, p{k0v};
      BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, xs, {}, p)));
      std::vector<double> x(1);
      double sum = 0.0;
      for (double t : times) {
        BOOST_REQUIRE(esdirk::ok(solver.integrate_to(t, x)));
        sum += x[0];
      }
      return sum;
    };
    const double dx = 1e-5 * x0, dk = 1e-5 * k0;
    const double fd[2] = {(phi(x0 + dx, k0) - phi(x0 - dx, k0)) / (2.0 * dx),
                          (phi(x0, k0 + dk) - phi(x0, k0 - dk)) / (2.0 * dk)};
    for (int j = 0; j < 2; ++j) {
      BOOST_TEST_MESSAGE("gain: adjoint vs central difference " << relative_error(a.adjoint(j, 0), fd[j]));
      BOOST_TEST(relative_error(a.adjoint(j, 0), fd[j]) < 1e-7, "direction " << j << ": " << a.adjoint(j, 0)
                                                                              << " vs " << fd[j]);
    }
  }
}

BOOST_AUTO_TEST_CASE(adjoint_of_an_objective_on_the_reset_parameter) {
  // C = x(T) + k(T)^2 with k(T) = k+: the objective's p is the mode's; its dp term enters the
  // adjoint of k+ and goes back through the reset to k0 (forward: Sx + 2 k+ dk+/dtheta).
  SwitchedGain model(GainReset::doubled);
  esdirk::HybridSolver solver(model, falling(1e-9));
  esdirk::HybridAdjoint adjoint(solver);
  const std::vector<double> x0v{x0}, p{k0};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0v, {}, p)));
  esdirk::SensitivityOptions so;
  so.stage_solve = esdirk::StageSolve::factorization;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(identity(2).cref(), so)));
  std::vector<double> x(1);
  esdirk::DenseMatrix Sx(1, 2);
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(T, x, {}, Sx.ref())));
  const double k_final = solver.parameters()[0];
  const esdirk::ConstMatrixRef P = solver.parameter_sensitivity();
  double seen_k = 0.0;
  esdirk::HybridObjective objective;
  objective.terminal = [&](double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector pk,
                           esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef dp) {
    seen_k = pk[0];
    dx(0, 0) = 1.0;
    dp(0, 0) = 2.0 * pk[0];
    return 0;
  };
  esdirk::DenseMatrix dx0(1, 1), dp(1, 1);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())), adjoint.message());
  BOOST_TEST(seen_k == 2.0 * k0);
  const double forward[2] = {Sx(0, 0) + 2.0 * k_final * P(0, 0), Sx(0, 1) + 2.0 * k_final * P(0, 1)};
  const double scale = std::max(std::abs(forward[0]), std::abs(forward[1]));
  BOOST_TEST(std::abs(dx0(0, 0) - forward[0]) < 1e-12 * scale, dx0(0, 0) << " vs " << forward[0]);
  BOOST_TEST(std::abs(dp(0, 0) - forward[1]) < 1e-12 * scale, dp(0, 0) << " vs " << forward[1]);
  const dual::Dual<2> exact = closed_form(GainReset::doubled);
  BOOST_TEST(relative_error(dp(0, 0), exact.d[1] + 2.0 * (2.0 * k0) * 2.0) < 1e-6);
}

BOOST_AUTO_TEST_CASE(non_finite_parameter_reset_is_refused_and_keeps_the_left_limit) {
  SwitchedGain model(GainReset::not_finite);
  esdirk::HybridSolver solver(model, falling(1e-9));
  const std::vector<double> x0v{x0}, p{k0};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0v, {}, p)));
  std::vector<double> x(1);
  const esdirk::Outcome out = solver.integrate_to(T, x);
  BOOST_TEST((out.status == esdirk::Status::callback_failures));
  const std::string& m = solver.message();
  BOOST_TEST(m.find("parameter reset of the event (event function 0)") != std::string::npos, m);
  BOOST_TEST(m.find("t = ") != std::string::npos, m);
  // The state before the event: the left limit at t*, the old parameters.
  BOOST_TEST(std::abs(solver.t() - std::log(2.0 * x0) / k0) < 1e-6);
  BOOST_TEST(std::abs(x[0] - 0.5) < 1e-7);
  BOOST_TEST(solver.parameters()[0] == k0);
  BOOST_TEST(solver.mode() == 0);
}

BOOST_AUTO_TEST_CASE(parameter_reset_on_a_problem_without_parameters_is_refused) {
  class NoParameters : public esdirk::HybridProblem {
   public:
    NoParameters() : HybridProblem(1, 0, 0, 1) {}
    int evaluate(int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
      f[0] = 1.0;
      return 0;
    }
    bool has_parameter_reset() const override { return true; }
  } model;
  BOOST_CHECK_EXCEPTION(esdirk::HybridSolver(model, {}), std::invalid_argument, [](const std::invalid_argument& e) {
    return std::string(e.what()).find("no parameters (np = 0)") != std::string::npos;
  });
}

// A thermostat whose parameters drift at every switch: x' = u - a x with the heater on (mode 0),
// x' = -a x off (mode 1); it switches off where x rises through 2 and on where x falls through
// 1 (one event function, h = x - 2 on, 1 - x off, rising). Every switch resets
// (a, u) := (1.05 a, u + 0.1 x-^2 + 0.01 t), a reset that reads t, x- and p-, and a time event at
// t = 3.3 sets a := 0.9 a. No closed form: the adjoint against the forward sensitivities, with
// and without a memory budget, and the forward against central differences of the whole run.
class DriftingThermostat : public esdirk::HybridProblem {
 public:
  DriftingThermostat() : HybridProblem(1, 0, 2, 1) {}
  int evaluate(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    f[0] = (mode == 0 ? p[1] : 0.0) - p[0] * x[0];
    return 0;
  }
  int events(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = mode == 0 ? x[0] - 2.0 : 1.0 - x[0];
    return 0;
  }
  int transition(int mode, const esdirk::TransitionCause& cause, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next_mode,
                 esdirk::Vector) override {
    if (cause.time_event < 0) next_mode = 1 - mode;
    return 0;
  }
  bool has_parameter_reset() const override { return true; }
  int reset_parameters(int, const esdirk::TransitionCause& cause, double t, esdirk::ConstVector x,
                       esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector,
                       esdirk::Vector p_plus) override {
    if (cause.time_event >= 0) {
      p_plus[0] = 0.9 * p[0];  // u unchanged: p_plus holds it
    } else {
      p_plus[0] = 1.05 * p[0];
      p_plus[1] = p[1] + 0.1 * x[0] * x[0] + 0.01 * t;
    }
    return 0;
  }
};

esdirk::HybridOptions thermostat_options(double rtol) {
  esdirk::HybridOptions o = tight(rtol);
  o.directions = {esdirk::EventDirection::rising};
  o.time_events = {3.3};
  return o;
}

BOOST_AUTO_TEST_CASE(drifting_thermostat_adjoint_equals_forward_also_with_a_memory_budget) {
  DriftingThermostat model;
  const std::vector<double> times{0.7, 2.1, 3.3, 5.0, 8.0};
  const std::vector<esdirk::DenseMatrix> w(times.size(), pick(1, 0));
  const AdjointComparison all = compare_adjoint(model, thermostat_options(1e-9), 0.0, 0, {0.5}, {}, {0.4, 1.5},
                                                times, w);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(all.status), all.message);
  BOOST_TEST(all.events >= 6);  // switches and the time event
  BOOST_TEST_MESSAGE("thermostat: " << all.events << " events, adjoint vs forward " << all.worst_relative_error());
  BOOST_TEST(all.worst_relative_error() < 1e-12, "worst " << all.worst_relative_error());
  // Checkpoints replay each mode with the parameters it had (the segment's p+): bit-identical.
  const AdjointComparison plain = compare_adjoint(model, thermostat_options(1e-9), 0.0, 0, {0.5}, {}, {0.4, 1.5},
                                                  times, w, {}, {}, false);
  esdirk::HybridAdjointOptions budget;
  budget.memory_budget = 3 * 60;  // a few step records: most steps are replayed
  const AdjointComparison replayed = compare_adjoint(model, thermostat_options(1e-9), 0.0, 0, {0.5}, {},
                                                     {0.4, 1.5}, times, w, {}, budget, false);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(plain.status) && esdirk::ok(replayed.status), replayed.message);
  BOOST_TEST(replayed.report.recomputed_steps > 0);
  for (int i = 0; i < 3; ++i) BOOST_TEST(replayed.adjoint(i, 0) == plain.adjoint(i, 0));
}

BOOST_AUTO_TEST_CASE(drifting_thermostat_sensitivities_match_central_differences) {
  DriftingThermostat model;
  const double T = 8.0, base[3] = {0.5, 0.4, 1.5};
  const esdirk::DenseMatrix seed = identity(3);
  const Run r = run(model, thermostat_options(1e-11), 0.0, 0, {base[0]}, {}, {base[1], base[2]}, T, &seed);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_TEST(r.events.size() >= 6u);
  for (int j = 0; j < 3; ++j) {
    double v[3] = {base[0], base[1], base[2]};
    const double d = 1e-5 * base[j];
    v[j] = base[j] + d;
    const Run up = run(model, thermostat_options(1e-11), 0.0, 0, {v[0]}, {}, {v[1], v[2]}, T);
    v[j] = base[j] - d;
    const Run down = run(model, thermostat_options(1e-11), 0.0, 0, {v[0]}, {}, {v[1], v[2]}, T);
    BOOST_REQUIRE(esdirk::ok(up.status) && esdirk::ok(down.status));
    BOOST_REQUIRE(up.events.size() == r.events.size() && down.events.size() == r.events.size());
    const double fd = (up.x[0] - down.x[0]) / (2.0 * d);
    BOOST_TEST_MESSAGE("thermostat direction " << j << ": forward vs central difference "
                                               << relative_error(r.Sx(0, j), fd));
    BOOST_TEST(relative_error(r.Sx(0, j), fd) < 1e-7, "direction " << j << ": " << r.Sx(0, j) << " vs " << fd);
  }
}

// An index-1 DAE whose algebraic state reads the reset parameter: x' = -z, 0 = z - k x, and
// k := 2 k where x falls through 1/2. z jumps with k (z+ = 2 k0 x+), and so does its
// sensitivity: w+ = P+ x+ + k+ s+ is made consistent with the new parameter directions.
class AlgebraicGain : public esdirk::HybridProblem {
 public:
  AlgebraicGain() : HybridProblem(1, 1, 1, 1) {}
  int evaluate(int, double, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector g) override {
    f[0] = -z[0];
    g[0] = z[0] - p[0] * x[0];
    return 0;
  }
  int events(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - 0.5;
    return 0;
  }
  bool has_parameter_reset() const override { return true; }
  int reset_parameters(int, const esdirk::TransitionCause&, double, esdirk::ConstVector, esdirk::ConstVector,
                       esdirk::ConstVector p, esdirk::ConstVector, esdirk::Vector p_plus) override {
    p_plus[0] = 2.0 * p[0];
    return 0;
  }
};

BOOST_AUTO_TEST_CASE(algebraic_state_follows_the_reset_parameter) {
  AlgebraicGain model;
  const esdirk::DenseMatrix seed = identity(2);
  const Run r = run(model, falling(1e-10), 0.0, 0, {x0}, {k0 * x0}, {k0}, T, &seed);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
  const esdirk::EventRecord& e = r.events[0];
  BOOST_TEST(std::abs(e.z_minus[0] - k0 * 0.5) < 1e-9);
  BOOST_TEST(std::abs(e.z_plus[0] - 2.0 * k0 * 0.5) < 1e-9);
  const dual::Dual<2> exact = closed_form(GainReset::doubled);
  BOOST_TEST(relative_error(r.x[0], exact.v) < 1e-8);
  BOOST_TEST(relative_error(r.z[0], 2.0 * k0 * exact.v) < 1e-8);
  // z(T) = k+ x(T) with k+ = 2 k0: dz/dx0 = 2 k0 dx/dx0, dz/dk0 = 2 x(T) + 2 k0 dx/dk0.
  BOOST_TEST(relative_error(r.Sz(0, 0), 2.0 * k0 * exact.d[0]) < 1e-7);
  BOOST_TEST(relative_error(r.Sz(0, 1), 2.0 * exact.v + 2.0 * k0 * exact.d[1]) < 1e-7);
  // The adjoint of z at three outputs (before, after the event, at T) against the forward.
  const AdjointComparison a = compare_adjoint(model, falling(1e-9), 0.0, 0, {x0}, {k0 * x0}, {k0},
                                              {0.5, 1.6, T}, {pick(2, 1), pick(2, 1), pick(2, 1)});
  BOOST_REQUIRE_MESSAGE(esdirk::ok(a.status), a.message);
  BOOST_TEST(a.worst_relative_error() < 1e-12, "worst " << a.worst_relative_error());
}

// A re-armed trigger, SBML style: the event t - k > 0 assigns k := 2 when it fires, so the
// trigger is false again right after t = k0 = 1 and fires once more at t = 2 (where k := 2 is
// the same value: no third event). The first event time moves with k0 (tau = 1); the second
// does not (k+ = 2 whatever k0: E = [0, 0, 0]). Found only when detection after a restart
// starts from the sign of h+ (h+ = -1 here, while dh/dt = +1).
class RearmedTrigger : public esdirk::HybridProblem {
 public:
  RearmedTrigger() : HybridProblem(1, 0, 1, 1) {}
  int evaluate(int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
               esdirk::Vector f, esdirk::Vector) override {
    f[0] = 1.0;
    return 0;
  }
  int events(int, double t, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector p, esdirk::ConstVector,
             esdirk::Vector h) override {
    h[0] = t - p[0];
    return 0;
  }
  int transition(int, const esdirk::TransitionCause&, double, esdirk::ConstVector x, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, int&, esdirk::Vector x_plus) override {
    x_plus[0] = x[0] + 1.0;  // count the firings in x
    return 0;
  }
  bool has_parameter_reset() const override { return true; }
  int reset_parameters(int, const esdirk::TransitionCause&, double, esdirk::ConstVector, esdirk::ConstVector,
                       esdirk::ConstVector, esdirk::ConstVector, esdirk::Vector p_plus) override {
    p_plus[0] = 2.0;
    return 0;
  }
  bool has_parameter_reset_jacobian() const override { return broken_jacobian; }
  int parameter_reset_jacobian(int, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                               esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                               esdirk::MatrixRef E) override {
    for (int c = 0; c < E.cols; ++c) E(0, c) = std::nan("");
    return 0;
  }
  bool broken_jacobian = false;
};

BOOST_AUTO_TEST_CASE(trigger_rearmed_by_a_parameter_reset_fires_again) {
  RearmedTrigger model;
  esdirk::HybridOptions o = tight(1e-10);
  o.directions = {esdirk::EventDirection::rising};
  const esdirk::DenseMatrix seed = identity(2);
  const Run r = run(model, o, 0.0, 0, {0.0}, {}, {1.0}, 4.0, &seed);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
  BOOST_TEST(std::abs(r.events[0].t - 1.0) < 1e-12);
  BOOST_TEST(std::abs(r.events[1].t - 2.0) < 1e-12);
  BOOST_TEST(std::abs(r.events[0].tau[1] - 1.0) < 1e-9);  // dt1/dk0
  BOOST_TEST(std::abs(r.events[1].tau[1]) < 1e-9);        // t2 = k+ = 2 for every k0
  BOOST_TEST(std::abs(r.x[0] - 6.0) < 1e-10);              // 4 + two firings
  // x(4) = 4 + 2 whatever x0 and k0: s = (1, 0); across the first event s+ = s- + (f- - f+) tau
  // with f- = f+ = 1. The event gradient and E are central differences here (error ~1e-11).
  BOOST_TEST(std::abs(r.Sx(0, 0) - 1.0) < 1e-9);
  BOOST_TEST(std::abs(r.Sx(0, 1)) < 1e-9);
  // The adjoint through both events (the second one's tau reads h_p with the reset k).
  const AdjointComparison a = compare_adjoint(model, o, 0.0, 0, {0.0}, {}, {1.0}, {1.5, 4.0}, {pick(1, 0), pick(1, 0)});
  BOOST_REQUIRE_MESSAGE(esdirk::ok(a.status), a.message);
  BOOST_TEST(a.events == 2);
  BOOST_TEST(a.worst_relative_error() < 1e-12, "worst " << a.worst_relative_error());
}

BOOST_AUTO_TEST_CASE(failing_parameter_reset_jacobian_names_the_event) {
  RearmedTrigger model;
  model.broken_jacobian = true;
  esdirk::HybridOptions o = tight(1e-10);
  o.directions = {esdirk::EventDirection::rising};
  const esdirk::DenseMatrix seed = identity(2);
  const Run r = run(model, o, 0.0, 0, {0.0}, {}, {1.0}, 4.0, &seed);
  BOOST_TEST((r.status == esdirk::Status::callback_failures));
  BOOST_TEST(r.message.find("Jacobian of the parameter reset of the event (event function 0)") != std::string::npos,
             r.message);
  BOOST_TEST(std::abs(r.x[0] - 1.0) < 1e-10);  // the left limit of the first event
}

BOOST_AUTO_TEST_CASE(hybrid_adjoint_of_a_last_output_inside_a_step_is_taken_at_the_output_time) {
  // Issue 26 item 6 for the hybrid adjoint: the last output time 2.3 is not a step end (the
  // integrator stepped past it and interpolated). The smooth Adjoint refuses that case; the
  // hybrid adjoint records the output as dense output with its time and differentiates x(2.3)
  // itself: equal to the forward sensitivities there (the same interpolant, to rounding) and to
  // the closed form of x(t) = 2 x0^2 exp(-2 k0 t) after the event at t = 2.3, not at the step end.
  SwitchedGain model(GainReset::doubled);
  esdirk::HybridSolver solver(model, falling(1e-10));
  esdirk::HybridAdjoint adjoint(solver);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, std::vector<double>{x0}, {}, std::vector<double>{k0})));
  esdirk::SensitivityOptions so;
  so.stage_solve = esdirk::StageSolve::factorization;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(identity(2).cref(), so)));
  std::vector<double> x(1);
  esdirk::DenseMatrix Sx(1, 2);
  constexpr double tout = 2.3;
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(1.0, x, {}, Sx.ref())));
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(tout, x, {}, Sx.ref())));
  BOOST_REQUIRE(solver.event_count() == 1);
  BOOST_REQUIRE_MESSAGE(solver.integrator().t() > tout, "the last step ends at " << solver.integrator().t());
  BOOST_TEST(adjoint.output_time(1) == tout);
  esdirk::HybridObjective objective;
  esdirk::DenseMatrix w(1, 1);
  w(0, 0) = 1.0;
  objective.set_terminal_weights(w.cref());
  esdirk::DenseMatrix dx0(1, 1), dp(1, 1);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())), adjoint.message());
  BOOST_TEST(relative_error(dx0(0, 0), Sx(0, 0)) < 1e-12);
  BOOST_TEST(relative_error(dp(0, 0), Sx(0, 1)) < 1e-12);
  const double exact = 2.0 * x0 * x0 * std::exp(-2.0 * k0 * tout);
  BOOST_TEST(relative_error(x[0], exact) < 1e-8);
  BOOST_TEST(relative_error(dx0(0, 0), 4.0 * x0 * std::exp(-2.0 * k0 * tout)) < 1e-7);
  BOOST_TEST(relative_error(dp(0, 0), -2.0 * tout * exact) < 1e-7);
  // At the step end the derivative in k0 would be -2 t_end x(t_end): off by far more.
  const double t_end = solver.integrator().t();
  BOOST_TEST(relative_error(-2.0 * t_end * 2.0 * x0 * x0 * std::exp(-2.0 * k0 * t_end), -2.0 * tout * exact) > 1e-4);
}

BOOST_AUTO_TEST_SUITE_END()
