// Hybrid models and objectives written once as templates (esdirk::ad::HybridModelProblem,
// esdirk::ad::objective_gradient): their event, reset and parameter-reset Jacobians and the
// dynamics' Jacobians against the hand-written ones of the examples (bouncing ball, EM
// oscillator with memory) and against central differences of the same functions (a model that
// reads every argument); a hybrid run with forward sensitivities and the hybrid adjoint of the
// AD twin against the hand model's.

#include <boost/test/unit_test.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include "bouncing_ball/bouncing_ball_model.hpp"
#include "em_oscillator/em_oscillator_model.hpp"
#include "esdirk/ad/hybrid_model_problem.hpp"
#include "esdirk/ad/objective.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "templated_hybrid_models.hpp"

namespace {

using esdirk::ConstVector;
using esdirk::DenseMatrix;
using esdirk::MatrixRef;
using esdirk::TransitionCause;
using esdirk::Vector;
using esdirk::ad::HybridModelProblem;

// Entry by entry, relative to the largest entry of the row (entries that are sums of
// cancelling terms are compared at the row's scale).
void require_rows_close(const DenseMatrix& a, const DenseMatrix& b, double tolerance, const char* what) {
  BOOST_REQUIRE(a.rows() == b.rows() && a.cols() == b.cols());
  for (int i = 0; i < a.rows(); ++i) {
    double scale = 0.0;
    for (int j = 0; j < a.cols(); ++j) scale = std::max({scale, std::abs(a(i, j)), std::abs(b(i, j))});
    for (int j = 0; j < a.cols(); ++j)
      BOOST_TEST_CONTEXT(what << " (" << i << ", " << j << "): " << a(i, j) << " vs " << b(i, j)) {
        BOOST_TEST(std::abs(a(i, j) - b(i, j)) <= tolerance * std::max(scale, 1e-300));
      }
  }
}

// Every Jacobian of `ad` and `hand` at one point of `mode`: J, [f_p f_mem; g_p g_mem], the
// event rows, the reset D and (if both have it) the parameter reset E.
void require_same_jacobians(esdirk::HybridProblem& ad, esdirk::HybridProblem& hand, int mode, double t,
                            ConstVector x, ConstVector z, ConstVector p, ConstVector mem, double tolerance) {
  const int nx = hand.nx(), n = hand.nx() + hand.nz(), np = hand.np(), nm = hand.memory_size();
  const int inputs = 1 + n + np + nm;
  DenseMatrix Ja(n, n), Jh(n, n), Pa(n, np + nm), Ph(n, np + nm);
  BOOST_REQUIRE(ad.jacobian(mode, t, x, z, p, mem, Ja.ref()) == 0);
  BOOST_REQUIRE(hand.jacobian(mode, t, x, z, p, mem, Jh.ref()) == 0);
  require_rows_close(Ja, Jh, tolerance, "J");
  if (np + nm > 0) {
    BOOST_REQUIRE(ad.parameter_jacobian(mode, t, x, z, p, mem, Pa.ref()) == 0);
    BOOST_REQUIRE(hand.parameter_jacobian(mode, t, x, z, p, mem, Ph.ref()) == 0);
    require_rows_close(Pa, Ph, tolerance, "[f_p f_mem; g_p g_mem]");
  }
  DenseMatrix Ea(1, inputs), Eh(1, inputs);
  for (int k = 0; k < hand.event_count(); ++k) {
    BOOST_REQUIRE(ad.has_event_jacobian());
    BOOST_REQUIRE(ad.event_jacobian(mode, k, t, x, z, p, mem, {Ea.data(), static_cast<std::size_t>(inputs)}) == 0);
    BOOST_REQUIRE(hand.event_jacobian(mode, k, t, x, z, p, mem, {Eh.data(), static_cast<std::size_t>(inputs)}) == 0);
    require_rows_close(Ea, Eh, tolerance, "event Jacobian row");
  }
  const std::vector<int> fired(static_cast<std::size_t>(hand.event_count()), 1);
  const TransitionCause cause{fired};
  DenseMatrix Da(nx, inputs), Dh(nx, inputs);
  BOOST_REQUIRE(ad.reset_jacobian(mode, cause, t, x, z, p, mem, Da.ref()) == 0);
  BOOST_REQUIRE(hand.reset_jacobian(mode, cause, t, x, z, p, mem, Dh.ref()) == 0);
  require_rows_close(Da, Dh, tolerance, "reset Jacobian");
}


// A reset with sqrt at 0: its derivative is infinite.
struct SqrtReset {
  template <class T>
  int f(int, double, std::span<const T>, std::span<const T>, std::span<const T>, std::span<const T>,
        std::span<T> f) const {
    f[0] = 1.0;
    return 0;
  }
  template <class T>
  int events(int, T t, std::span<const T> x, std::span<const T>, std::span<const T>, std::span<const T>,
             std::span<T> h) const {
    h[0] = x[0] - t;
    return 0;
  }
  template <class T>
  int transition(int, const TransitionCause&, T, std::span<const T> x, std::span<const T>, std::span<const T>,
                 std::span<const T>, int&, std::span<T> x_plus) const {
    using std::sqrt;
    x_plus[0] = sqrt(x[0]);  // d/dx at x = 0 is infinite
    return 0;
  }
};

// Two objective rows over x, z, p and t.
struct TwoRows {
  template <class T>
  int operator()(double t, std::span<const T> x, std::span<const T> z, std::span<const T> p,
                 std::span<T> value) const {
    using std::exp;
    value[0] = exp(x[0]) * z[0] + t * p[0];
    value[1] = x[1] * p[0] * p[1];
    return 0;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(ad_hybrid)

BOOST_AUTO_TEST_CASE(bouncing_ball_jacobians_equal_the_hand_written_ones) {
  bouncing_ball::Model hand;
  HybridModelProblem<templated_hybrid::BouncingBall> ad(2, 0, 2, 1);
  BOOST_TEST(ad.has_jacobian());
  BOOST_TEST(ad.has_parameter_jacobian());
  BOOST_TEST(ad.has_event_jacobian());
  BOOST_TEST(ad.has_reset_jacobian());
  BOOST_TEST(!ad.has_parameter_reset());
  const std::vector<double> x{0.3, -2.5}, p{9.81, 0.8};
  require_same_jacobians(ad, hand, 0, 0.7, x, {}, p, {}, 0.0);  // the same arithmetic: bit for bit
}

BOOST_AUTO_TEST_CASE(em_oscillator_jacobians_with_memory_equal_the_hand_written_ones) {
  em_oscillator::Model hand;
  HybridModelProblem<templated_hybrid::EmOscillator> ad(3, 1, 4, 1, true);
  BOOST_TEST(!ad.has_mode(0));
  BOOST_TEST(ad.has_mode(-1));
  const std::vector<double> x{0.012, -0.3, 1e-4}, z{0.4};
  // beta = 0 (the example's value) and beta = 0.7 (the sinh terms live); both modes.
  for (double beta : {0.0, 0.7})
    for (int mode : {1, -1}) {
      const std::vector<double> p{em_oscillator::k_a, em_oscillator::k_b, em_oscillator::alpha, beta};
      const std::vector<double> mem{0.011, 0.2, 5e-5, 0.35};
      BOOST_TEST_CONTEXT("beta " << beta << ", mode " << mode) {
        require_same_jacobians(ad, hand, mode, 1.3, x, z, p, mem, 1e-13);
      }
    }
}

// Central differences of the model's own double functions over [t, x, z, p, mem].
BOOST_AUTO_TEST_CASE(every_argument_jacobians_equal_central_differences) {
  using Model = templated_hybrid::EveryArgument;
  HybridModelProblem<Model> ad(2, 1, 2, 2, true);
  BOOST_TEST(ad.has_parameter_reset());
  BOOST_TEST(ad.has_parameter_reset_jacobian());
  const int nx = 2, nz = 1, np = 2, nm = 3, inputs = 1 + nx + nz + np + nm, mode = 0;
  const std::vector<double> u0{0.4, 0.8, -0.3, 0.6, 1.7, 0.45, 0.9, -1.2, 0.25};
  const std::vector<int> fired{1, 0};
  const TransitionCause cause{fired};
  // out(u) of one callback at a point u = [t, x, z, p, mem], as plain doubles.
  using Function = std::function<void(const std::vector<double>&, std::vector<double>&)>;
  const auto split = [&](const std::vector<double>& u) {
    const ConstVector all(u);
    return std::array<ConstVector, 4>{all.subspan(1, nx), all.subspan(1 + nx, nz), all.subspan(1 + nx + nz, np),
                                      all.subspan(1 + nx + nz + np, nm)};
  };
  const Function events = [&](const std::vector<double>& u, std::vector<double>& out) {
    const auto a = split(u);
    out.assign(2, 0.0);
    BOOST_REQUIRE(ad.events(mode, u[0], a[0], a[1], a[2], a[3], out) == 0);
  };
  const Function reset = [&](const std::vector<double>& u, std::vector<double>& out) {
    const auto a = split(u);
    out.assign(a[0].begin(), a[0].end());
    int next = mode;
    BOOST_REQUIRE(ad.transition(mode, cause, u[0], a[0], a[1], a[2], a[3], next, out) == 0);
    BOOST_TEST(next == 1);
  };
  const Function parameter_reset = [&](const std::vector<double>& u, std::vector<double>& out) {
    const auto a = split(u);
    out.assign(a[2].begin(), a[2].end());
    BOOST_REQUIRE(ad.reset_parameters(mode, cause, u[0], a[0], a[1], a[2], a[3], out) == 0);
  };
  const Function dynamics = [&](const std::vector<double>& u, std::vector<double>& out) {
    const auto a = split(u);
    out.assign(nx + nz, 0.0);
    BOOST_REQUIRE(ad.evaluate(mode, u[0], a[0], a[1], a[2], a[3], Vector(out).subspan(0, nx), Vector(out).subspan(nx)) == 0);
  };
  const auto differences = [&](const Function& fn, int outputs) {
    DenseMatrix D(outputs, inputs);
    std::vector<double> plus, minus;
    for (int j = 0; j < inputs; ++j) {
      std::vector<double> u = u0;
      const double step = 1e-5 * std::max(1.0, std::abs(u0[static_cast<std::size_t>(j)]));
      u[static_cast<std::size_t>(j)] = u0[static_cast<std::size_t>(j)] + step;
      fn(u, plus);
      u[static_cast<std::size_t>(j)] = u0[static_cast<std::size_t>(j)] - step;
      fn(u, minus);
      for (int i = 0; i < outputs; ++i)
        D(i, j) = (plus[static_cast<std::size_t>(i)] - minus[static_cast<std::size_t>(i)]) / (2.0 * step);
    }
    return D;
  };
  const auto a = split(u0);
  const double t = u0[0];
  // Event rows, D, E and [J | J_p J_mem] by AD, against the differences (error O(step^2) ~ 1e-10).
  DenseMatrix H(2, inputs);
  std::vector<double> row(static_cast<std::size_t>(inputs));
  for (int k = 0; k < 2; ++k) {
    BOOST_REQUIRE(ad.event_jacobian(mode, k, t, a[0], a[1], a[2], a[3], row) == 0);
    for (int j = 0; j < inputs; ++j) H(k, j) = row[static_cast<std::size_t>(j)];
  }
  require_rows_close(H, differences(events, 2), 1e-8, "event Jacobian");
  DenseMatrix D(nx, inputs), E(np, inputs);
  BOOST_REQUIRE(ad.reset_jacobian(mode, cause, t, a[0], a[1], a[2], a[3], D.ref()) == 0);
  require_rows_close(D, differences(reset, nx), 1e-8, "reset Jacobian");
  BOOST_REQUIRE(ad.parameter_reset_jacobian(mode, cause, t, a[0], a[1], a[2], a[3], E.ref()) == 0);
  require_rows_close(E, differences(parameter_reset, np), 1e-8, "parameter reset Jacobian");
  // The dynamics: J (columns x, z) and [f_p f_mem; g_p g_mem] (columns p, mem) are the blocks
  // of the differences after the t column.
  DenseMatrix J(nx + nz, nx + nz), P(nx + nz, np + nm), Jall(nx + nz, inputs);
  BOOST_REQUIRE(ad.jacobian(mode, t, a[0], a[1], a[2], a[3], J.ref()) == 0);
  BOOST_REQUIRE(ad.parameter_jacobian(mode, t, a[0], a[1], a[2], a[3], P.ref()) == 0);
  for (int i = 0; i < nx + nz; ++i) {
    Jall(i, 0) = 0.0;
    for (int j = 0; j < nx + nz; ++j) Jall(i, 1 + j) = J(i, j);
    for (int j = 0; j < np + nm; ++j) Jall(i, 1 + nx + nz + j) = P(i, j);
  }
  DenseMatrix F = differences(dynamics, nx + nz);
  for (int i = 0; i < nx + nz; ++i) F(i, 0) = 0.0;  // f_t is not part of any Jacobian
  require_rows_close(Jall, F, 1e-8, "[J | f_p f_mem]");
  // A pattern declared: sparse_jacobian gathers the same values.
  ad.set_jacobian_bandwidths(1, 1);
  BOOST_REQUIRE(ad.has_sparse_jacobian());
  const esdirk::SparsityPattern& pattern = *ad.jacobian_structure().pattern;
  std::vector<double> values(static_cast<std::size_t>(pattern.nonzeros()));
  BOOST_REQUIRE(ad.sparse_jacobian(mode, t, a[0], a[1], a[2], a[3], {&pattern, values.data()}) == 0);
  for (int j = 0; j < nx + nz; ++j)
    for (int k = pattern.column_pointers()[static_cast<std::size_t>(j)]; k < pattern.column_pointers()[static_cast<std::size_t>(j) + 1]; ++k)
      BOOST_TEST(values[static_cast<std::size_t>(k)] == J(pattern.row_indices()[static_cast<std::size_t>(k)], j));
}

// A failure of the model for dual numbers is a code and a sentence, never a wrong Jacobian.
BOOST_AUTO_TEST_CASE(a_reset_whose_derivative_is_not_finite_is_reported) {
  HybridModelProblem<SqrtReset> ad(1, 0, 0, 1);
  const std::vector<double> x{0.0};
  const std::vector<int> fired{1};
  DenseMatrix D(1, 2);
  BOOST_TEST(ad.reset_jacobian(0, TransitionCause{fired}, 0.5, x, {}, {}, {}, D.ref()) == 1);
  BOOST_TEST(ad.last_failure().row == 0);
  // sqrt'(0) = inf times the zero seed of every other input is NaN: the first column, t, is
  // reported (the adapter does not guess which input the model meant).
  BOOST_TEST(ad.last_failure().column == 0);
  BOOST_TEST_MESSAGE(ad.last_failure().describe());
  BOOST_TEST(ad.last_failure().describe().find("transition") != std::string::npos);
  BOOST_TEST(ad.last_failure().describe().find("reset Jacobian") != std::string::npos);
}

namespace {

struct BallRun {
  std::vector<double> x = std::vector<double>(2);
  DenseMatrix S{2, 4}, dx0{2, 1}, dp{2, 1};
  esdirk::Statistics stats;
  int events = 0;
};

// Forward sensitivities of (z, v)(1.9) to (z0, v0, g, gamma) and the hybrid adjoint of
// C = z(1.9)^2 + gamma v(1.9), its terminal gradient from `terminal`.
BallRun ball_run(esdirk::HybridProblem& model, const esdirk::ObjectiveGradient& terminal) {
  esdirk::HybridOptions o;
  o.integrator.rtol = 1e-8;
  o.integrator.atol = 1e-10;
  esdirk::HybridSolver solver(model, o);
  esdirk::HybridAdjoint adjoint(solver);
  BallRun r;
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0};
  const std::vector<double> p{bouncing_ball::gravity, bouncing_ball::restitution};
  DenseMatrix seed(4, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(seed.cref())));
  BOOST_REQUIRE(esdirk::ok(adjoint.integrate_to(bouncing_ball::t_end, r.x, {}, r.S.ref())));
  esdirk::HybridObjective objective;
  objective.terminal = terminal;
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(objective, r.dx0.ref(), r.dp.ref())));
  r.stats = solver.statistics();
  r.events = solver.logged_events();
  return r;
}

struct BallCost {
  template <class T>
  int operator()(double, std::span<const T> x, std::span<const T>, std::span<const T> p, std::span<T> value) const {
    value[0] = x[0] * x[0] + p[1] * x[1];
    return 0;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(bouncing_ball_run_by_ad_equals_the_hand_model_run) {
  bouncing_ball::Model hand;
  HybridModelProblem<templated_hybrid::BouncingBall> ad(2, 0, 2, 1);
  const esdirk::ObjectiveGradient by_hand = [](double, ConstVector x, ConstVector, ConstVector p, MatrixRef dx,
                                               MatrixRef, MatrixRef dp) {
    dx(0, 0) = 2.0 * x[0];
    dx(1, 0) = p[1];
    dp(1, 0) = x[1];
    return 0;
  };
  const BallRun h = ball_run(hand, by_hand), a = ball_run(ad, esdirk::ad::objective_gradient(2, 0, 2, 1, BallCost{}));
  BOOST_TEST(a.events == h.events);
  BOOST_TEST(a.events == 1);  // the impact at t = 1.0 (the next one is after 1.9)
  BOOST_TEST(a.stats.accepted_steps == h.stats.accepted_steps);
  BOOST_TEST(a.stats.event_fd_evaluations == 0);
  BOOST_TEST(a.stats.fd_function_evaluations == 0);
  for (int i = 0; i < 2; ++i) BOOST_TEST(a.x[static_cast<std::size_t>(i)] == h.x[static_cast<std::size_t>(i)]);
  require_rows_close(a.S, h.S, 1e-13, "sensitivities");
  require_rows_close(a.dx0, h.dx0, 1e-13, "adjoint dC/dx0");
  require_rows_close(a.dp, h.dp, 1e-13, "adjoint dC/dp");
}

BOOST_AUTO_TEST_CASE(objective_gradient_equals_the_closed_form) {
  const auto gradient = esdirk::ad::objective_gradient(2, 1, 2, 2, TwoRows{});
  const std::vector<double> x{0.3, -1.5}, z{2.0}, p{0.7, 4.0};
  DenseMatrix dx(2, 2), dz(1, 2), dp(2, 2);
  BOOST_REQUIRE(gradient(2.5, x, z, p, dx.ref(), dz.ref(), dp.ref()) == 0);
  BOOST_TEST(dx(0, 0) == std::exp(0.3) * 2.0);
  BOOST_TEST(dx(1, 0) == 0.0);
  BOOST_TEST(dz(0, 0) == std::exp(0.3));
  BOOST_TEST(dp(0, 0) == 2.5);
  BOOST_TEST(dx(1, 1) == 0.7 * 4.0);
  BOOST_TEST(dp(0, 1) == -1.5 * 4.0);
  BOOST_TEST(dp(1, 1) == -1.5 * 0.7);
}

BOOST_AUTO_TEST_SUITE_END()
