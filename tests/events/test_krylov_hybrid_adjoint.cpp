// The hybrid adjoint with the Krylov stage solver (LinearSolverKind::krylov): a thermostat on a
// heated rod, 32 cells, whose mode switches twice, so the gradient crosses events whose times
// move with the parameters (two events by t = 12). The Krylov hybrid adjoint's gradient must
// equal the direct (KLU) hybrid adjoint's and central differences of the objective, and be
// reproduced bit for bit when its records are recomputed from checkpoints.

#include <boost/test/unit_test.hpp>

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

BOOST_AUTO_TEST_SUITE_END()
