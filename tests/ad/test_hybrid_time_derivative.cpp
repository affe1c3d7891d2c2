// g_t of a templated hybrid model (esdirk::ad::HybridModelProblem::constraint_time_derivative):
// the events module needs z' = -g_z^{-1}(g_x f + g_t) at an event (D_h, the event-time
// sensitivity tau and the sensitivity jumps, forward and adjoint). A model whose g takes t as T
// gets g_t by one forward pass; the same model with `double t` keeps the central difference in
// t. Both against the closed form of a model whose algebraic state and event function depend on
// t explicitly.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <span>
#include <vector>

#include "esdirk/ad/hybrid_model_problem.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"

namespace {

using esdirk::ConstVector;
using esdirk::DenseMatrix;
using esdirk::MatrixRef;

// x' = 1 (mode 0), 2 (mode 1); 0 = z - a sin(w t); h = z + t - c. The event (mode 0 -> 1) is at
// tau with a sin(w tau) + tau = c, so
//   D_h = 1 + a w cos(w tau),   dtau/da = -sin(w tau) / D_h,   dx(T)/da = (1 - 2) dtau/da.
// g_t = -a w cos(w t) has a large third derivative in t: its central difference is off by
// ~1e-9 relative (doc/ad-guide.md, "Hybrid models").
constexpr double a = 0.05, w = 10.0, c = 0.5, t_end = 1.0;

struct TimeDependentConstraint {
  template <class T>
  int f(int mode, double, std::span<const T>, std::span<const T>, std::span<const T>, std::span<const T>,
        std::span<T> f) const {
    f[0] = mode == 0 ? 1.0 : 2.0;
    return 0;
  }
  template <class T, class Time>
  int constraint(Time t, std::span<const T> z, std::span<const T> p, std::span<T> g) const {
    using std::sin;
    g[0] = z[0] - p[0] * sin(w * t);
    return 0;
  }
  template <class T>
  int events(int, T t, std::span<const T>, std::span<const T> z, std::span<const T>, std::span<const T>,
             std::span<T> h) const {
    h[0] = z[0] + t - c;
    return 0;
  }
  template <class T>
  int transition(int, const esdirk::TransitionCause&, T, std::span<const T>, std::span<const T>, std::span<const T>,
                 std::span<const T>, int& next_mode, std::span<T>) const {
    next_mode = 1;
    return 0;
  }
};

// The model's g with t as T: exact g_t.
struct TimeAsScalar : TimeDependentConstraint {
  template <class T>
  int g(int, T t, std::span<const T>, std::span<const T> z, std::span<const T> p, std::span<const T>,
        std::span<T> g) const {
    return constraint(t, z, p, g);
  }
};
// The same g with `double t`: AD cannot see t, the events module differences it.
struct TimeAsDouble : TimeDependentConstraint {
  template <class T>
  int g(int, double t, std::span<const T>, std::span<const T> z, std::span<const T> p, std::span<const T>,
        std::span<T> g) const {
    return constraint(t, z, p, g);
  }
};

struct Run {
  double t_event = 0.0, dh_dt = 0.0, tau = 0.0, sx = 0.0, adjoint = 0.0;
  esdirk::Statistics stats;
};

Run run(esdirk::HybridProblem& model) {
  esdirk::HybridOptions o;
  o.integrator.rtol = 1e-10;
  o.integrator.atol = 1e-12;
  esdirk::HybridSolver solver(model, o);
  esdirk::HybridAdjoint adjoint(solver);
  const std::vector<double> x0{0.0}, z0{0.0}, p{a};
  DenseMatrix seed(2, 1);
  seed(1, 0) = 1.0;  // the direction of a
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, z0, p)));
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(seed.cref())));
  std::vector<double> x(1), z(1);
  DenseMatrix S(1, 1);
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(t_end, x, z, S.ref())));
  BOOST_REQUIRE(solver.logged_events() == 1);
  const esdirk::EventRecord& e = solver.event(0);
  Run r;
  r.t_event = e.t;
  r.dh_dt = e.dh_dt;
  r.tau = e.tau[0];
  r.sx = S(0, 0);
  esdirk::HybridObjective objective;  // C = x(T)
  objective.terminal = [](double, ConstVector, ConstVector, ConstVector, MatrixRef dx, MatrixRef, MatrixRef) {
    dx(0, 0) = 1.0;
    return 0;
  };
  DenseMatrix dx0(1, 1), dp(1, 1);
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())));
  r.adjoint = dp(0, 0);
  r.stats = solver.statistics();
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_ad_models_constraint_time_derivative_is_exact_not_a_central_difference) {
  esdirk::ad::HybridModelProblem<TimeAsScalar> exact(1, 1, 1, 1);
  esdirk::ad::HybridModelProblem<TimeAsDouble> differenced(1, 1, 1, 1);
  BOOST_TEST(exact.has_constraint_time_derivative());
  BOOST_TEST(!differenced.has_constraint_time_derivative());

  // The hook itself: g_t = -a w cos(w t) to rounding.
  const std::vector<double> x{0.3}, z{0.1}, p{a};
  std::vector<double> gt(1);
  BOOST_REQUIRE(exact.constraint_time_derivative(0, 0.7, x, z, p, {}, gt) == 0);
  BOOST_TEST(std::abs(gt[0] + a * w * std::cos(w * 0.7)) <= 1e-16);

  const Run e = run(exact), d = run(differenced);
  // Closed forms at the located event time (the root finder's own error is not the subject).
  const auto dh_dt = [](double t) { return 1.0 + a * w * std::cos(w * t); };
  const auto tau = [&](double t) { return -std::sin(w * t) / dh_dt(t); };
  BOOST_TEST_MESSAGE("event at " << e.t_event << ": D_h exact " << std::abs(e.dh_dt / dh_dt(e.t_event) - 1.0)
                                 << ", differenced " << std::abs(d.dh_dt / dh_dt(d.t_event) - 1.0)
                                 << " relative; tau " << std::abs(e.tau / tau(e.t_event) - 1.0) << ", "
                                 << std::abs(d.tau / tau(d.t_event) - 1.0));
  BOOST_TEST(std::abs(e.t_event - d.t_event) <= 1e-12);
  BOOST_TEST(std::abs(e.dh_dt - dh_dt(e.t_event)) <= 1e-14 * dh_dt(e.t_event));
  BOOST_TEST(std::abs(e.tau - tau(e.t_event)) <= 1e-14 * std::abs(tau(e.t_event)));
  // The jump of x's sensitivity, forward and adjoint: dx(T)/da = -tau (x' = 1, then 2).
  BOOST_TEST(std::abs(e.sx + tau(e.t_event)) <= 1e-14 * std::abs(tau(e.t_event)));
  BOOST_TEST(std::abs(e.adjoint - e.sx) <= 1e-14 * std::abs(e.sx));
  BOOST_TEST(e.stats.fd_function_evaluations == 0);
  BOOST_TEST(e.stats.event_fd_evaluations == 0);

  // The fallback: the difference's truncation error, bounded but far above rounding.
  BOOST_TEST(d.stats.fd_function_evaluations > 0);
  BOOST_TEST(std::abs(d.dh_dt - dh_dt(d.t_event)) <= 1e-7 * dh_dt(d.t_event));
  BOOST_TEST(std::abs(d.tau - tau(d.t_event)) <= 1e-7 * std::abs(tau(d.t_event)));
  BOOST_TEST(std::abs(d.sx - e.sx) <= 1e-7 * std::abs(e.sx));
}
