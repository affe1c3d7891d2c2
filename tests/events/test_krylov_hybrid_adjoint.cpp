// The hybrid adjoint with the Krylov stage solver (LinearSolverKind::krylov): a thermostat on a
// heated rod, 32 cells, whose mode switches twice, so the gradient crosses events whose times
// move with the parameters (two events by t = 12). The Krylov hybrid adjoint's gradient must
// equal the direct (KLU) hybrid adjoint's and central differences of the objective, and be
// reproduced bit for bit when its records are recomputed from checkpoints.

#include <boost/test/unit_test.hpp>

#include <array>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint_fixtures.hpp"
#include "krylov_fixtures.hpp"

namespace {

using namespace event_tests;

// x_i' = c (x_{i-1} - 2 x_i + x_{i+1}) - x_i^2 / 2 on 32 cells, c = D (N+1)^2, x = 0 beyond the
// right end; the left end is held at s while heating (mode 0) and at 0 while cooling (mode 1).
// The thermostat reads the middle cell: heating ends when it rises through 0.3, cooling when it
// falls through 0.1. Parameters (D, s). J is tridiagonal (declared; formed by differences).
class HeatedRod : public esdirk::HybridProblem {
 public:
  static constexpr int cells = 32, sensor = cells / 2;
  HeatedRod() : HybridProblem(cells, 0, 2, 1) {}

  int evaluate(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    const double c = p[0] * (cells + 1.0) * (cells + 1.0), left = mode == 0 ? p[1] : 0.0;
    for (int i = 0; i < cells; ++i) {
      const double west = i > 0 ? x[i - 1] : left, east = i + 1 < cells ? x[i + 1] : 0.0;
      f[i] = c * (west - 2.0 * x[i] + east) - 0.5 * x[i] * x[i];
    }
    return 0;
  }
  int events(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[sensor] - (mode == 0 ? 0.3 : 0.1);
    return 0;
  }
  int transition(int mode, const esdirk::TransitionCause&, double, esdirk::ConstVector, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, int& next_mode, esdirk::Vector) override {
    next_mode = 1 - mode;
    return 0;
  }
};

// The rod with the problem's own Krylov hooks: the exact product J v and P = M itself
// (M = I - h gamma J is tridiagonal and symmetric: the Thomas algorithm solves it, and P^{-T} =
// P^{-1}), so that every preconditioned GMRES solve converges in one iteration. `fail_setup`
// and `nan_solve` make them fail (the bad input of the hooks); the counters say what was called.
class PreconditionedRod : public HeatedRod {
 public:
  bool fail_setup = false, nan_solve = false;
  long products = 0, setups = 0, solves = 0;
  std::vector<int> setup_modes;

  bool has_jacobian_vector_product() const override { return true; }
  int jacobian_vector_product(int, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
                              esdirk::ConstVector, esdirk::ConstVector v, esdirk::Vector out) override {
    ++products;
    const double c = coupling(p);
    for (int i = 0; i < cells; ++i)
      out[i] = c * ((i > 0 ? v[i - 1] : 0.0) - 2.0 * v[i] + (i + 1 < cells ? v[i + 1] : 0.0)) - x[i] * v[i];
    return 0;
  }
  bool has_preconditioner() const override { return true; }
  int preconditioner_setup(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
                           esdirk::ConstVector, const esdirk::JacobianMatrix&, double h_gamma) override {
    ++setups;
    if (setup_modes.empty() || setup_modes.back() != mode) setup_modes.push_back(mode);
    if (fail_setup) return 1;
    off_ = -h_gamma * coupling(p);
    for (int i = 0; i < cells; ++i) diagonal_[i] = 1.0 + h_gamma * (2.0 * coupling(p) + x[i]);
    return 0;
  }
  int preconditioner_solve(esdirk::ConstVector r, esdirk::Vector out, bool) override {
    ++solves;
    // Thomas: forward elimination into pivot_, then back substitution.
    double previous = 0.0;
    for (int i = 0; i < cells; ++i) {
      pivot_[i] = diagonal_[i] - (i > 0 ? off_ * off_ / pivot_[i - 1] : 0.0);
      previous = out[i] = r[i] - (i > 0 ? off_ * previous / pivot_[i - 1] : 0.0);
    }
    for (int i = cells - 1; i >= 0; --i) out[i] = (out[i] - (i + 1 < cells ? off_ * out[i + 1] : 0.0)) / pivot_[i];
    if (nan_solve) out[0] = std::nan("");
    return 0;
  }

 private:
  static double coupling(esdirk::ConstVector p) { return p[0] * (cells + 1.0) * (cells + 1.0); }
  double off_ = 0.0;
  std::array<double, cells> diagonal_{}, pivot_{};
};

constexpr double t_end = 12.0;
const std::vector<double> nominal_p{0.05, 1.0};

void declare(HeatedRod& model, esdirk::LinearSolverKind kind) {
  model.set_jacobian_pattern(esdirk::SparsityPattern::banded(HeatedRod::cells, 1, 1), kind);
}

// The hybrid adjoint of G = x_sensor(t_end) + x_last(t_end) on a states-only run.
AdjointComparison gradient(esdirk::LinearSolverKind kind, double rtol, esdirk::HybridAdjointOptions options = {}) {
  HeatedRod model;
  declare(model, kind);
  esdirk::DenseMatrix w(HeatedRod::cells, 1);
  w(HeatedRod::sensor, 0) = 1.0;
  w(HeatedRod::cells - 1, 0) = 1.0;
  return compare_adjoint(model, tight(rtol), 0.0, 0, std::vector<double>(HeatedRod::cells, 0.0), {}, nominal_p,
                         {t_end}, {w}, {}, options, false);
}

// G of one Krylov run with parameters p.
double objective(std::vector<double> p, double rtol) {
  HeatedRod model;
  declare(model, esdirk::LinearSolverKind::krylov);
  const Run r = run(model, tight(rtol), 0.0, 0, std::vector<double>(HeatedRod::cells, 0.0), {}, std::move(p), t_end);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
  return r.x[HeatedRod::sensor] + r.x[HeatedRod::cells - 1];
}

// max |a - b| over the gradient's entries, relative to b's largest entry.
double difference(const esdirk::DenseMatrix& a, const esdirk::DenseMatrix& b) {
  double worst = 0.0, scale = 0.0;
  for (int i = 0; i < b.rows(); ++i) {
    worst = std::max(worst, std::abs(a(i, 0) - b(i, 0)));
    scale = std::max(scale, std::abs(b(i, 0)));
  }
  return worst / scale;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(krylov_hybrid_adjoint_tests)

// The Krylov forward run's stage values differ from KLU's by the Newton iteration's error (its
// corrections are GMRES solves to the forcing term 0.05), about rtol / 10, and the sweep's
// transposed stage solves stop at a relative residual of KrylovSettings::sensitivity_tolerance
// (1e-10) times M's condition (~ 1 + 4 h gamma c, tens here), their errors adding up over the
// thousands of stage solves. Bound: 10 rtol + 1000 sensitivity_tolerance. Measured (the same
// steps for both back-ends, 226 at rtol 1e-6 and 681 at 1e-8): 2.1e-8 and 1.5e-8, the second
// set by the transposed solves.
BOOST_AUTO_TEST_CASE(krylov_hybrid_adjoint_equals_the_klu_hybrid_adjoint) {
  for (double rtol : {1e-6, 1e-8}) {
    const AdjointComparison krylov = gradient(esdirk::LinearSolverKind::krylov, rtol);
    const AdjointComparison klu = gradient(esdirk::LinearSolverKind::sparse, rtol);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(krylov.status), krylov.message);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(klu.status), klu.message);
    BOOST_TEST(krylov.events == 2);
    BOOST_TEST(klu.events == 2);
    BOOST_TEST(krylov.report.jumps == 2);
    BOOST_TEST(krylov.report.sweep.transposed_solves > 0);
    const double d = difference(krylov.adjoint, klu.adjoint);
    BOOST_TEST_MESSAGE("rtol " << rtol << ": |Krylov - KLU| / |KLU| = " << d << " (steps " << krylov.steps << ", "
                               << klu.steps << "), dG/dD = " << klu.adjoint(HeatedRod::cells, 0)
                               << ", dG/ds = " << klu.adjoint(HeatedRod::cells + 1, 0));
    const double sensitivity_tolerance = esdirk::KrylovSettings{}.sensitivity_tolerance;
    BOOST_TEST(d < 10.0 * rtol + 1000.0 * sensitivity_tolerance, "difference " << d);
  }
}

// dG/dD and dG/ds against central differences of G (Krylov runs at rtol 1e-10, increments
// 1e-5 relative). G is strongly curved in s: the differences' error falls as the increment
// squared, 1.1e-3 / 1.1e-4 / 1.1e-5 relative at increments 1e-3 / 3e-4 / 1e-4, so about 1e-7
// at 1e-5. Measured: 2.8e-8 (D) and 7.0e-8 (s); bound 1e-6.
BOOST_AUTO_TEST_CASE(krylov_hybrid_adjoint_equals_central_differences) {
  const double rtol = 1e-10;
  const AdjointComparison krylov = gradient(esdirk::LinearSolverKind::krylov, rtol);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(krylov.status), krylov.message);
  for (int k = 0; k < 2; ++k) {
    std::vector<double> plus = nominal_p, minus = nominal_p;
    const double delta = 1e-5 * nominal_p[static_cast<std::size_t>(k)];
    plus[static_cast<std::size_t>(k)] += delta;
    minus[static_cast<std::size_t>(k)] -= delta;
    const double differences = (objective(plus, rtol) - objective(minus, rtol)) / (2.0 * delta);
    const double adjoint = krylov.adjoint(HeatedRod::cells + k, 0);
    BOOST_TEST_MESSAGE("dG/dp" << k << ": adjoint " << adjoint << ", differences " << differences << ", relative "
                                << relative_error(adjoint, differences));
    BOOST_TEST(relative_error(adjoint, differences) < 1e-6);
  }
}

// With a memory budget the records are recomputed from checkpoints by Krylov replays of the
// same steps: the gradient is the same to the last bit.
BOOST_AUTO_TEST_CASE(krylov_hybrid_adjoint_recomputes_records_bit_for_bit) {
  esdirk::HybridAdjointOptions small;
  small.memory_budget = 2000;  // doubles: a few steps' records
  const AdjointComparison kept = gradient(esdirk::LinearSolverKind::krylov, 1e-6);
  const AdjointComparison recomputed = gradient(esdirk::LinearSolverKind::krylov, 1e-6, small);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(recomputed.status), recomputed.message);
  BOOST_TEST(recomputed.report.recomputed_steps > 0);
  for (int i = 0; i < kept.adjoint.rows(); ++i) BOOST_TEST(recomputed.adjoint(i, 0) == kept.adjoint(i, 0));
}

// HybridProblem::set_krylov_settings (the hybrid problem had none, so hybrid Krylov runs always
// used the defaults): checked as Problem's (the caps, the dimension against n; a refused call
// keeps the settings), and the settings reach the forward run and the adjoint's sweep. A
// sensitivity_tolerance no transposed GMRES solve can reach (1e-300: the true residual stops at
// rounding, and the cycle after that makes no progress) ends gradient() with
// linear_solver_failures naming GMRES, while the forward run (forcing term 0.05) succeeds.
BOOST_AUTO_TEST_CASE(hybrid_krylov_settings_are_checked_and_reach_the_sweep) {
  HeatedRod model;
  declare(model, esdirk::LinearSolverKind::krylov);
  const auto refused = [&model](const esdirk::KrylovSettings& s, const std::string& words) {
    krylov_fixtures::expect_refused([&model](const esdirk::KrylovSettings& k) { model.set_krylov_settings(k); }, s, words);
  };
  esdirk::KrylovSettings s;
  s.max_restarts = INT_MAX;
  refused(s, "max_restarts must be <= 1000 (got 2147483647, n = 32)");
  s = {};
  s.dimension = HeatedRod::cells + 1;
  refused(s, "the Krylov dimension must be in [1, n] (got 33, n = 32)");
  BOOST_TEST(model.jacobian_structure().krylov.max_restarts == esdirk::KrylovSettings{}.max_restarts);
  BOOST_TEST(model.jacobian_structure().krylov.dimension == esdirk::KrylovSettings{}.dimension);

  s = {};
  s.sensitivity_tolerance = 1e-300;
  model.set_krylov_settings(s);
  esdirk::DenseMatrix w(HeatedRod::cells, 1);
  w(HeatedRod::sensor, 0) = 1.0;
  const AdjointComparison r = compare_adjoint(model, tight(1e-6), 0.0, 0, std::vector<double>(HeatedRod::cells, 0.0),
                                              {}, nominal_p, {t_end}, {w}, {}, {}, false);
  BOOST_TEST_INFO(esdirk::status_name(r.status) << ": " << r.message);
  BOOST_TEST(r.events == 2);  // the forward run reached t_end
  BOOST_TEST((r.status == esdirk::Status::linear_solver_failures));
  BOOST_TEST(r.message.find("GMRES") != std::string::npos);
}

// HybridProblem's Krylov hooks (it had none: a hybrid problem could use only the built-in
// preconditioners and difference products). A matrix-free states-only run with the problem's
// product and preconditioner equals the KLU run to the integration tolerance, in both modes,
// and each GMRES solve takes one iteration (P = M).
BOOST_AUTO_TEST_CASE(a_hybrid_problem_brings_its_own_product_and_preconditioner) {
  const double rtol = 1e-7;
  PreconditionedRod own;
  declare(own, esdirk::LinearSolverKind::krylov);
  esdirk::KrylovSettings settings;
  settings.matrix_free = true;
  own.set_krylov_settings(settings);
  HeatedRod klu;
  declare(klu, esdirk::LinearSolverKind::sparse);
  const std::vector<double> x0(HeatedRod::cells, 0.0);
  const Run a = run(own, tight(rtol), 0.0, 0, x0, {}, nominal_p, t_end);
  const Run b = run(klu, tight(rtol), 0.0, 0, x0, {}, nominal_p, t_end);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(a.status), a.message);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(b.status), b.message);
  BOOST_TEST(a.events.size() == 2u);
  BOOST_TEST(b.events.size() == 2u);
  double worst = 0.0;
  for (int i = 0; i < HeatedRod::cells; ++i) worst = std::max(worst, std::abs(a.x[i] - b.x[i]));
  BOOST_TEST_MESSAGE("own hooks against KLU: " << worst << "; " << own.products << " products, " << own.setups
                                               << " setups, " << own.solves << " solves, "
                                               << a.stats.linear_iterations << " GMRES iterations");
  BOOST_TEST(worst < 10.0 * rtol);
  BOOST_TEST(own.products > 0);
  BOOST_TEST(own.setups == a.stats.preconditioner_setups);
  BOOST_TEST(own.solves == a.stats.preconditioner_solves);
  BOOST_TEST((own.setup_modes == std::vector<int>{0, 1, 0}));  // heating, cooling, heating
  BOOST_TEST(a.stats.linear_iterations <= a.stats.preconditioner_solves);  // one iteration a solve
}

// The hybrid adjoint with the problem's preconditioner (products on the pattern: the adjoint
// refuses matrix_free): the gradient equals the KLU hybrid adjoint's, and with a memory budget
// the replays, a second view of the same problem that sets its one P up in between, give the
// same bits.
BOOST_AUTO_TEST_CASE(the_hybrid_adjoint_uses_the_problems_preconditioner) {
  const double rtol = 1e-6;
  esdirk::DenseMatrix w(HeatedRod::cells, 1);
  w(HeatedRod::sensor, 0) = 1.0;
  w(HeatedRod::cells - 1, 0) = 1.0;
  const auto adjoint = [&w, rtol](esdirk::HybridAdjointOptions options, long* setups) {
    PreconditionedRod model;
    declare(model, esdirk::LinearSolverKind::krylov);
    const AdjointComparison r = compare_adjoint(model, tight(rtol), 0.0, 0, std::vector<double>(HeatedRod::cells, 0.0),
                                                {}, nominal_p, {t_end}, {w}, {}, options, false);
    *setups = model.setups;
    return r;
  };
  long kept_setups = 0, recomputed_setups = 0;
  esdirk::HybridAdjointOptions small;
  small.memory_budget = 2000;
  const AdjointComparison kept = adjoint({}, &kept_setups);
  const AdjointComparison recomputed = adjoint(small, &recomputed_setups);
  const AdjointComparison klu = gradient(esdirk::LinearSolverKind::sparse, rtol);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(kept.status), kept.message);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(recomputed.status), recomputed.message);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(klu.status), klu.message);
  const double d = difference(kept.adjoint, klu.adjoint);
  BOOST_TEST_MESSAGE("own preconditioner against KLU: " << d << " (" << kept_setups << " setups; with replays "
                                                        << recomputed_setups << ")");
  BOOST_TEST(d < 10.0 * rtol + 1000.0 * esdirk::KrylovSettings{}.sensitivity_tolerance);
  BOOST_TEST(recomputed.report.recomputed_steps > 0);
  BOOST_TEST(recomputed_setups > kept_setups);
  for (int i = 0; i < kept.adjoint.rows(); ++i) BOOST_TEST(recomputed.adjoint(i, 0) == kept.adjoint(i, 0));
}

// Two solvers on one hybrid problem, stepped in turns: the problem has one P, so a solver whose
// kept setup was replaced by the other's sets its own up again before it solves (each solver
// is a separate view of the problem). Each then gives the bits of a solver run alone; with the
// other's P its GMRES would converge to other bits.
BOOST_AUTO_TEST_CASE(two_solvers_on_one_hybrid_problem_do_not_solve_with_each_others_preconditioner) {
  const std::vector<double> x0(HeatedRod::cells, 0.0), p_other{0.08, 1.3};
  esdirk::HybridOptions options = tight(1e-6);
  options.integrator.reuse_jacobian = true;  // J and P kept from step to step
  options.integrator.lu_reuse_h_change = 0.3;
  const auto turn = [](esdirk::HybridSolver& solver, int k, std::vector<double>& x) {
    BOOST_REQUIRE(esdirk::ok(solver.integrate_to(0.5 * k, x).status));
  };
  const auto alone = [&](const std::vector<double>& p) {
    PreconditionedRod model;
    declare(model, esdirk::LinearSolverKind::krylov);
    esdirk::HybridSolver solver(model, options);
    BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
    std::vector<double> x(x0);
    for (int k = 1; k <= 24; ++k) turn(solver, k, x);
    return x;
  };
  PreconditionedRod shared;
  declare(shared, esdirk::LinearSolverKind::krylov);
  esdirk::HybridSolver a(shared, options), b(shared, options);
  BOOST_REQUIRE(esdirk::ok(a.initialize(0.0, 0, x0, {}, nominal_p)));
  BOOST_REQUIRE(esdirk::ok(b.initialize(0.0, 0, x0, {}, p_other)));
  std::vector<double> xa(x0), xb(x0);
  for (int k = 1; k <= 24; ++k) {  // half-unit turns: several steps each, J and P kept between them
    turn(a, k, xa);
    turn(b, k, xb);
  }
  BOOST_TEST(a.integrator().statistics().lu_reuses > 0);
  BOOST_TEST(xa == alone(nominal_p));
  BOOST_TEST(xb == alone(p_other));
}

// A preconditioner whose setup fails, or whose solve gives NaN: the GMRES solves fail, the step
// is retried with a new J and smaller steps, and the run ends with linear_solver_failures (not a
// callback failure), the state at the last good step kept.
BOOST_AUTO_TEST_CASE(a_failing_hybrid_preconditioner_ends_the_run_as_a_linear_solver_failure) {
  for (const bool nan : {false, true}) {
    BOOST_TEST_INFO((nan ? "NaN from the solve" : "failed setup"));
    PreconditionedRod model;
    declare(model, esdirk::LinearSolverKind::krylov);
    model.fail_setup = !nan;
    model.nan_solve = nan;
    const Run r = run(model, tight(1e-6), 0.0, 0, std::vector<double>(HeatedRod::cells, 0.0), {}, nominal_p, t_end);
    BOOST_TEST_INFO(esdirk::status_name(r.status) << ": " << r.message);
    BOOST_TEST((r.status == esdirk::Status::linear_solver_failures));
    BOOST_TEST(r.stats.callback_failures == 0);
    BOOST_TEST(r.x == std::vector<double>(HeatedRod::cells, 0.0));  // no step was accepted
  }
}

BOOST_AUTO_TEST_SUITE_END()
