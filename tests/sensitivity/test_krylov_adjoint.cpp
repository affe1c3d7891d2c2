// The adjoint with the Krylov stage solver: the transposed stage systems M_i^T rho = w are
// solved by GMRES on M^T (J^T from J on the declared pattern, the preconditioner's transpose)
// to KrylovSettings::sensitivity_tolerance. The gradient is then that of the same discrete run
// as the forward sensitivities' (to the linear tolerance) and the direct adjoint's (KLU, to the
// integration tolerance: the step sequences differ by GMRES's Newton corrections). A user
// preconditioner without its transpose, and matrix-free products (no J^T v), give a clear
// status or message.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "brusselator_mol/brusselator_mol_model.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "krylov_fixtures.hpp"

using esdirk::ConstMatrixRef;
using esdirk::DenseMatrix;
using esdirk::LinearSolverKind;

namespace {

constexpr int grid_points = 20, n = 2 * grid_points, np = 3;
constexpr double t_end = 1.0;

// The 1-D Brusselator with an optional point-Jacobi preconditioner of its own (P = diag M,
// which is its own transpose), which may refuse the transposed solve.
class Brusselator : public brusselator_mol::Model {
 public:
  enum class Preconditioner { built_in, jacobi, jacobi_without_transpose };

  Brusselator(LinearSolverKind kind, Preconditioner preconditioner = Preconditioner::built_in,
              bool matrix_free = false, double sensitivity_tolerance = 1e-10)
      : Model(grid_points), preconditioner_(preconditioner), diagonal_(n) {
    set_jacobian_pattern(pattern(), kind);
    if (kind != LinearSolverKind::krylov) return;
    esdirk::KrylovSettings krylov = krylov_fixtures::point_blocks(matrix_free);
    krylov.sensitivity_tolerance = sensitivity_tolerance;
    set_krylov_settings(krylov);
  }

  bool has_preconditioner() const override { return preconditioner_ != Preconditioner::built_in; }
  int preconditioner_setup(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
                           const esdirk::JacobianMatrix&, double h_gamma) override {
    for (int i = 0; i < n; ++i) diagonal_[i] = 1.0 - h_gamma * entry(x.data(), p.data(), i, i);
    return 0;
  }
  int preconditioner_solve(esdirk::ConstVector r, esdirk::Vector out, bool transpose) override {
    if (transpose) ++transposed_solves;
    if (transpose && preconditioner_ == Preconditioner::jacobi_without_transpose) return 1;
    for (int i = 0; i < n; ++i) out[i] = r[i] / diagonal_[i];
    return 0;
  }

  long transposed_solves = 0;

 private:
  Preconditioner preconditioner_;
  std::vector<double> diagonal_;
};

// C = w^T x(1): w weighs every state (a smooth profile, so no entry dominates).
DenseMatrix objective_weights() {
  DenseMatrix w(n, 1);
  for (int i = 0; i < n; ++i) w(i, 0) = 1.0 + 0.5 * std::cos(0.3 * i);
  return w;
}

esdirk::Options options(double rtol) {
  esdirk::Options o;
  o.rtol = o.atol = rtol;
  return o;
}

struct AdjointRun {
  esdirk::Status status = esdirk::Status::success;
  std::string message;
  DenseMatrix dx0{n, 1}, dp{np, 1};
  std::vector<double> x;
  long steps = 0;
  esdirk::Statistics stats;
};

AdjointRun adjoint_gradient(Brusselator& model, double rtol, long memory_budget = 0) {
  esdirk::Integrator integrator(model, options(rtol));
  esdirk::AdjointOptions adjoint_options;
  adjoint_options.memory_budget = memory_budget;
  esdirk::Adjoint adjoint(integrator, adjoint_options);
  AdjointRun run;
  run.x.resize(n);
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, model.nominal_parameters())));
  integrator.set_stop_time(t_end);
  BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(t_end, run.x).status));
  esdirk::AdjointObjective objective;
  objective.set_terminal_weights(objective_weights().cref());
  run.status = adjoint.gradient(objective, run.dx0.ref(), run.dp.ref());
  run.message = adjoint.message();
  run.steps = integrator.statistics().steps;
  adjoint.add_statistics(run.stats);
  return run;
}

// dC/d(x0, p) by forward exact sensitivities of the same problem: columns e_k of x0 for every
// state, then e_l of p. Without their error control, so that the steps are the adjoint run's.
AdjointRun forward_gradient(Brusselator& model, double rtol) {
  esdirk::Integrator integrator(model, options(rtol));
  esdirk::SensitivityOptions sensitivity;
  sensitivity.error_control = false;
  esdirk::ForwardSensitivity sens(integrator, sensitivity);
  AdjointRun run;
  run.x.resize(n);
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, model.nominal_parameters())));
  integrator.set_stop_time(t_end);
  DenseMatrix seed(n + np, n + np), Sx(n, n + np);
  for (int k = 0; k < n + np; ++k) seed(k, k) = 1.0;
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  BOOST_REQUIRE_MESSAGE(esdirk::ok(sens.integrate_to(t_end, run.x, {}, Sx.ref()).status), sens.message());
  const DenseMatrix w = objective_weights();
  for (int k = 0; k < n + np; ++k) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += w(i, 0) * Sx(i, k);
    (k < n ? run.dx0(k, 0) : run.dp(k - n, 0)) = sum;
  }
  run.steps = integrator.statistics().steps;
  return run;
}

double relative_difference(const AdjointRun& a, const AdjointRun& b) {
  double diff = 0.0, scale = 0.0;
  for (const auto& [u, v] : {std::pair{&a.dx0, &b.dx0}, std::pair{&a.dp, &b.dp}})
    for (int i = 0; i < u->rows(); ++i) {
      diff = std::max(diff, std::abs((*u)(i, 0) - (*v)(i, 0)));
      scale = std::max(scale, std::abs((*v)(i, 0)));
    }
  return diff / scale;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(krylov_adjoint)

// The same discrete run: the Krylov adjoint and the Krylov forward sensitivities (the same
// steps, J at the converged stages) differ only by their stage solves, which GMRES ends at a
// relative residual of sensitivity_tolerance: the difference is proportional to it (measured
// 5e-9 and 1e-8 at 1e-10, 3e-11 and 5e-11 at 1e-12, built-in and user preconditioner; bound
// 1000 times the tolerance, and a hundredfold smaller tolerance must cut it at least tenfold).
// Against the direct adjoint (KLU) the difference is that of two step sequences at rtol 1e-7
// (measured 5e-9 and 7e-8; bound 10 rtol, as the forward sensitivities' test).
BOOST_AUTO_TEST_CASE(krylov_adjoint_matches_forward_sensitivities_and_the_direct_adjoint) {
  const double rtol = 1e-7;
  Brusselator direct_model(LinearSolverKind::sparse);
  const AdjointRun direct = adjoint_gradient(direct_model, rtol);
  BOOST_REQUIRE(esdirk::ok(direct.status));
  for (auto preconditioner : {Brusselator::Preconditioner::built_in, Brusselator::Preconditioner::jacobi}) {
    double last = 0.0;
    for (double tolerance : {1e-10, 1e-12}) {
      BOOST_TEST_CONTEXT("user preconditioner " << (preconditioner == Brusselator::Preconditioner::jacobi)
                                                << ", sensitivity_tolerance " << tolerance) {
        Brusselator krylov_model(LinearSolverKind::krylov, preconditioner, false, tolerance);
        const AdjointRun krylov = adjoint_gradient(krylov_model, rtol);
        BOOST_REQUIRE_MESSAGE(esdirk::ok(krylov.status), krylov.message);
        BOOST_TEST(krylov.stats.adjoint_transposed_solves > 0);
        if (preconditioner == Brusselator::Preconditioner::jacobi) BOOST_TEST(krylov_model.transposed_solves > 0);

        Brusselator forward_model(LinearSolverKind::krylov, preconditioner, false, tolerance);
        const AdjointRun forward = forward_gradient(forward_model, rtol);
        BOOST_REQUIRE(forward.steps == krylov.steps);
        const double difference = relative_difference(krylov, forward);
        BOOST_TEST_INFO("Krylov adjoint vs Krylov forward: " << difference);
        BOOST_TEST(difference <= 1000.0 * tolerance);
        if (last > 0.0) BOOST_TEST(difference <= 0.1 * last);
        last = difference;

        BOOST_TEST_INFO("Krylov adjoint vs KLU adjoint: " << relative_difference(krylov, direct));
        BOOST_TEST(relative_difference(krylov, direct) <= 10.0 * rtol);
      }
    }
  }
}

// Records not kept are recomputed from checkpoints by a second integrator on the Krylov
// back-end: the replayed steps (GMRES is deterministic) and so the gradient are bit for bit
// those of the run that kept every record.
BOOST_AUTO_TEST_CASE(a_krylov_adjoint_with_a_memory_budget_replays_bit_for_bit) {
  Brusselator model(LinearSolverKind::krylov);
  const AdjointRun all = adjoint_gradient(model, 1e-6);
  const AdjointRun bounded = adjoint_gradient(model, 1e-6, 2000);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(bounded.status), bounded.message);
  BOOST_TEST(bounded.stats.adjoint_recomputed_steps > 0);
  BOOST_TEST(relative_difference(bounded, all) == 0.0);
}

// The rows of an objective run their transposed stage GMRES in lockstep (one pass of the ILU(0)
// factors for all), each with its own iteration: a two-row objective must give each row's
// gradient of a one-row run to the bit.
BOOST_AUTO_TEST_CASE(adjoint_rows_solved_together_give_the_bits_of_one_row_at_a_time) {
  DenseMatrix weights(n, 2);
  for (int i = 0; i < n; ++i) {
    weights(i, 0) = 1.0 + 0.5 * std::cos(0.3 * i);
    weights(i, 1) = i % 2 == 0 ? 1.0 : -0.25 * i;
  }
  const auto gradient = [&](ConstMatrixRef w, DenseMatrix& dx0, DenseMatrix& dp) {
    Brusselator model(LinearSolverKind::krylov);
    esdirk::Integrator integrator(model, options(1e-6));
    esdirk::Adjoint adjoint(integrator);
    std::vector<double> x(n);
    BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, model.nominal_parameters())));
    integrator.set_stop_time(t_end);
    BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(t_end, x).status));
    esdirk::AdjointObjective objective;
    objective.set_terminal_weights(w);
    dx0.resize(n, w.cols);
    dp.resize(np, w.cols);
    BOOST_REQUIRE_MESSAGE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref())), adjoint.message());
  };
  DenseMatrix dx0, dp;
  gradient(weights.cref(), dx0, dp);
  int differing = 0;
  for (int r = 0; r < 2; ++r) {
    DenseMatrix w(n, 1), one_dx0, one_dp;
    for (int i = 0; i < n; ++i) w(i, 0) = weights(i, r);
    gradient(w.cref(), one_dx0, one_dp);
    for (int i = 0; i < n; ++i) differing += one_dx0(i, 0) != dx0(i, r);
    for (int i = 0; i < np; ++i) differing += one_dp(i, 0) != dp(i, r);
  }
  BOOST_TEST(differing == 0);
}

// A user preconditioner whose transposed solve fails: the gradient stops with
// Status::linear_solver_failures and a message naming preconditioner_solve's transpose.
BOOST_AUTO_TEST_CASE(a_preconditioner_without_transpose_fails_the_adjoint_naming_the_cause) {
  Brusselator model(LinearSolverKind::krylov, Brusselator::Preconditioner::jacobi_without_transpose);
  const AdjointRun run = adjoint_gradient(model, 1e-6);
  BOOST_TEST((run.status == esdirk::Status::linear_solver_failures));
  BOOST_TEST_INFO(run.message);
  BOOST_TEST(run.message.find("preconditioner_solve failed for transpose = true") != std::string::npos);
  BOOST_TEST(run.message.find("P^{-T}") != std::string::npos);
}

// Matrix-free products give J v, never J^T v, and need not come with all of J on the declared
// pattern: the adjoint refuses them at construction, naming the setting.
BOOST_AUTO_TEST_CASE(matrix_free_adjoints_are_refused_naming_the_setting) {
  Brusselator model(LinearSolverKind::krylov, Brusselator::Preconditioner::built_in, true);
  esdirk::Integrator integrator(model, options(1e-6));
  try {
    esdirk::Adjoint adjoint(integrator);
    BOOST_ERROR("a matrix-free adjoint was accepted");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find("matrix_free") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
