// Forward sensitivities, the shooting interval and the adjoint on banded and sparse (KLU)
// problems: the same model declared with the three back-ends gives the same sensitivities as
// the dense back-end, in exact mode (stage LUs and refinement with the step's LU), with and
// without error control, in paper mode, for a DAE (consistent algebraic sensitivities) and with
// coloured difference Jacobians; the adjoint's transposed stage solves give the dense
// back-end's gradient and the forward sensitivities' one.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "brusselator_1d.hpp"
#include "brusselator_mol/brusselator_mol_model.hpp"
#include "brusselator_mol_differences.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/sensitivity/reverse_shooting_interval.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"

using esdirk::ConstMatrixRef;
using esdirk::DenseMatrix;
using esdirk::LinearSolverKind;
using esdirk::SensitivityMode;
using esdirk::SensitivityOptions;
using esdirk::StageSolve;

namespace {

constexpr LinearSolverKind structured_kinds[] = {LinearSolverKind::banded, LinearSolverKind::sparse};

// max |a - b| / max |b| over all entries.
double relative_difference(ConstMatrixRef a, ConstMatrixRef b) {
  double diff = 0.0, scale = 0.0;
  for (int j = 0; j < a.cols; ++j)
    for (int i = 0; i < a.rows; ++i) {
      diff = std::max(diff, std::abs(a(i, j) - b(i, j)));
      scale = std::max(scale, std::abs(b(i, j)));
    }
  return diff / scale;
}

// The Brusselator's analytic sparse Jacobian hidden: J by (coloured) differences.
class DifferencedBrusselator : public brusselator_mol::Model {
 public:
  using Model::Model;
  bool has_sparse_jacobian() const override { return false; }
};

struct SensitivityRun {
  std::vector<double> x;
  DenseMatrix Sx, Sz, Sz_consistent;
  esdirk::Statistics stats, sensitivity_counters;
  bool stage_lus = false;
};

// The Brusselator (N = 20, n = 40) to t = 1 with the sensitivities to its three parameters
// (scaled columns p_l e_l) on back-end `kind`.
SensitivityRun brusselator_parameters(LinearSolverKind kind, SensitivityOptions sensitivity,
                                      bool analytic = true) {
  brusselator_mol::Model analytic_model(20);
  DifferencedBrusselator differenced_model(20);
  brusselator_mol::Model& model = analytic ? analytic_model : differenced_model;
  model.set_jacobian_pattern(model.pattern(), kind);
  esdirk::Options options;
  options.rtol = 1e-7;
  options.atol = 1e-7;
  esdirk::Integrator integrator(model, options);
  const auto y0 = model.initial_state();
  const auto p = model.nominal_parameters();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, y0, {}, p)));
  esdirk::ForwardSensitivity sens(integrator, sensitivity);
  const int n = model.size();
  DenseMatrix seed(n + 3, 3);
  for (int l = 0; l < 3; ++l) seed(n + l, l) = p[static_cast<std::size_t>(l)];
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  SensitivityRun run;
  run.x.resize(static_cast<std::size_t>(n));
  run.Sx.resize(n, 3);
  const auto outcome = sens.integrate_to(1.0, run.x, {}, run.Sx.ref());
  BOOST_REQUIRE_MESSAGE(esdirk::ok(outcome.status), sens.message());
  run.stats = integrator.statistics();
  run.sensitivity_counters = sens.counters();
  run.stage_lus = run.stats.stage_factorizations > 0;
  return run;
}

void check_parameters_agree(SensitivityOptions sensitivity, double tolerance, bool analytic = true) {
  const SensitivityRun dense = brusselator_parameters(LinearSolverKind::dense, sensitivity, analytic);
  for (LinearSolverKind kind : structured_kinds) {
    const SensitivityRun run = brusselator_parameters(kind, sensitivity, analytic);
    BOOST_TEST_CONTEXT(esdirk::linear_solver_name(kind)) {
      BOOST_TEST(run.stats.accepted_steps == dense.stats.accepted_steps);
      BOOST_TEST(run.stats.sensitivity_solves == dense.stats.sensitivity_solves);
      BOOST_TEST(relative_difference(run.Sx.cref(), dense.Sx.cref()) < tolerance);
      const ConstMatrixRef x(run.x.data(), static_cast<int>(run.x.size()), 1,
                             static_cast<int>(run.x.size()));
      const ConstMatrixRef xd(dense.x.data(), static_cast<int>(dense.x.size()), 1,
                              static_cast<int>(dense.x.size()));
      BOOST_TEST(relative_difference(x, xd) < tolerance);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(structured_sensitivities)

BOOST_AUTO_TEST_CASE(exact_mode_with_error_control_matches_dense) {
  // The default: exact mode, sensitivities in the error test, stage LUs on every back-end
  // (n = 40 <= 50 ns for the dense one; always for banded and sparse).
  check_parameters_agree({}, 1e-12);
  const SensitivityRun band = brusselator_parameters(LinearSolverKind::banded, {});
  BOOST_TEST(band.stage_lus);
}

BOOST_AUTO_TEST_CASE(exact_mode_refinement_matches_dense) {
  // Refinement with the step's LU: the dense back-end multiplies by M^{-1} (n <= 48), banded
  // and sparse back-substitute; both stop at correction_tolerance = 1e-10.
  SensitivityOptions o;
  o.stage_solve = StageSolve::refinement;
  check_parameters_agree(o, 1e-9);
  const SensitivityRun sparse = brusselator_parameters(LinearSolverKind::sparse, o);
  BOOST_TEST(!sparse.stage_lus);
}

// Refinement with the step's LU starts each stage from the earlier stages extrapolated (the
// stage derivatives on the differential rows, as GMRES on the Krylov back-end does), not from
// M^{-1} rhs: the start's error is h gamma times the extrapolation's, so fewer sweeps reach
// correction_tolerance, with the same sensitivities (the test above). Measured here (KLU, n =
// 40, rtol 1e-7, t = 0 .. 1): 38.5 back-substitutions per step, 65.9 from M^{-1} rhs.
BOOST_AUTO_TEST_CASE(structured_refinement_starts_from_the_extrapolated_stage) {
  SensitivityOptions o;
  o.stage_solve = StageSolve::refinement;
  const SensitivityRun run = brusselator_parameters(LinearSolverKind::sparse, o);
  const long steps = run.stats.sensitivity_solves;
  BOOST_REQUIRE(steps > 0);
  const double per_step = static_cast<double>(run.sensitivity_counters.back_substitutions) / static_cast<double>(steps);
  BOOST_TEST_MESSAGE("back-substitutions per step " << per_step << " (" << steps << " steps, 3 directions)");
  BOOST_TEST(run.sensitivity_counters.stage_factorizations == 0);
  BOOST_TEST(per_step < 50.0);
}

BOOST_AUTO_TEST_CASE(exact_mode_without_error_control_matches_dense) {
  SensitivityOptions o;
  o.error_control = false;
  check_parameters_agree(o, 1e-12);
}

BOOST_AUTO_TEST_CASE(paper_mode_matches_dense) {
  check_parameters_agree(SensitivityOptions::seed002(), 1e-12);
}

BOOST_AUTO_TEST_CASE(coloured_difference_jacobians_match_dense_differences) {
  // Dense differences (one f per column) and coloured ones (one f per colour) give the same
  // J to rounding; the sensitivities then agree to the differences' own rounding error.
  check_parameters_agree({}, 1e-8, false);
}

BOOST_AUTO_TEST_CASE(sensitivities_match_central_differences_of_the_trajectory) {
  // Not only equal to the dense back-end: right. dx(1)/dB against central differences of two
  // KLU solutions at tight tolerance (the discretization errors cancel to about 1e-7).
  SensitivityOptions o;
  const SensitivityRun run = brusselator_parameters(LinearSolverKind::sparse, o);
  const double error = brusselator_mol_differences::relative_error_in_B(
      run.Sx, [](brusselator_mol::Model& model) {
        model.set_jacobian_pattern(model.pattern(), LinearSolverKind::sparse);
      });
  BOOST_TEST(error < 1e-5);
}

BOOST_AUTO_TEST_CASE(dae_state_sensitivities_match_dense) {
  // The Brusselator with an algebraic mean w = sum u_i / N (nz = 1): the consistent Sz at the
  // start and the stage sensitivities with g_x, g_z in the pattern's storage.
  auto run = [](LinearSolverKind kind) {
    test_problems::Brusselator1d model(15, true);
    model.set_jacobian_pattern(model.pattern(), kind);
    esdirk::Options options;
    options.rtol = 1e-7;
    options.atol = 1e-7;
    // Kristensen et al. 2005's configuration (raw tolerances, ESDIRK34): t = 0.495 below lies in the last
    // step of this run.
    options.tolerance_rule = esdirk::ToleranceRule::raw;
    options.method = esdirk::Tableau::esdirk34();
    esdirk::Integrator integrator(model, options);
    BOOST_REQUIRE(esdirk::ok(
        integrator.initialize(0.0, model.initial_state(), model.initial_algebraic(), {})));
    esdirk::ForwardSensitivity sens(integrator);
    BOOST_REQUIRE(esdirk::ok(sens.initialize_all()));
    SensitivityRun r;
    r.x.resize(static_cast<std::size_t>(model.nx()));
    std::vector<double> z(1);
    r.Sx.resize(model.nx(), model.nx());
    r.Sz.resize(1, model.nx());
    BOOST_REQUIRE(esdirk::ok(sens.integrate_to(0.5, r.x, z, r.Sx.ref(), r.Sz.ref()).status));
    // The consistent algebraic sensitivity -g_z^{-1} g_x Sx at t = 0.495 from the dense output
    // (g_x and g_z taken from the pattern's storage).
    DenseMatrix Sx_mid(model.nx(), model.nx());
    r.Sz_consistent.resize(1, model.nx());
    BOOST_REQUIRE(esdirk::ok(sens.dense_output(0.495, Sx_mid.ref(), r.Sz_consistent.ref())));
    return r;
  };
  const SensitivityRun dense = run(LinearSolverKind::dense);
  for (LinearSolverKind kind : structured_kinds) {
    const SensitivityRun r = run(kind);
    BOOST_TEST_CONTEXT(esdirk::linear_solver_name(kind)) {
      BOOST_TEST(relative_difference(r.Sx.cref(), dense.Sx.cref()) < 1e-12);
      BOOST_TEST(relative_difference(r.Sz.cref(), dense.Sz.cref()) < 1e-12);
      BOOST_TEST(relative_difference(r.Sz_consistent.cref(), dense.Sz_consistent.cref()) < 1e-12);
    }
  }
}

BOOST_AUTO_TEST_CASE(shooting_interval_matches_dense) {
  // A_k = dx_{k+1}/dx_k (40 x 40) and B_k = dx_{k+1}/du_k (40 x 3) of one interval.
  auto run = [](LinearSolverKind kind) {
    brusselator_mol::Model model(20);
    model.set_jacobian_pattern(model.pattern(), kind);
    esdirk::Options options;
    options.rtol = 1e-7;
    options.atol = 1e-7;
    esdirk::ShootingInterval interval(model, options);
    const auto& r = interval.integrate(0.0, 0.5, model.initial_state(), model.nominal_parameters());
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    return r;
  };
  const esdirk::ShootingResult dense = run(LinearSolverKind::dense);
  for (LinearSolverKind kind : structured_kinds) {
    const esdirk::ShootingResult r = run(kind);
    BOOST_TEST_CONTEXT(esdirk::linear_solver_name(kind)) {
      BOOST_TEST(relative_difference(r.A.cref(), dense.A.cref()) < 1e-12);
      BOOST_TEST(relative_difference(r.B.cref(), dense.B.cref()) < 1e-12);
    }
  }
}

// The adjoint of the Brusselator (N = 20) to t = 1: two objectives, sum u_i(1) and v_10(1);
// gradients with respect to y0 (40 x 2) and p (3 x 2).
struct AdjointRun {
  DenseMatrix dx0, dp;
  DenseMatrix Sp;  // forward exact sensitivities to p (unscaled), same steps (no error control)
  esdirk::Statistics stats;
};

AdjointRun brusselator_adjoint(LinearSolverKind kind, bool with_forward = false) {
  brusselator_mol::Model model(20);
  model.set_jacobian_pattern(model.pattern(), kind);
  esdirk::Options options;
  options.rtol = 1e-7;
  options.atol = 1e-7;
  esdirk::Integrator integrator(model, options);
  esdirk::Adjoint adjoint(integrator);
  const int n = model.size();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {},
                                                 model.nominal_parameters())));
  AdjointRun run;
  std::unique_ptr<esdirk::ForwardSensitivity> forward;
  if (with_forward) {
    SensitivityOptions o;
    o.error_control = false;  // the states' steps, which the adjoint differentiates
    forward = std::make_unique<esdirk::ForwardSensitivity>(integrator, o);
    DenseMatrix seed(n + 3, 3);
    for (int l = 0; l < 3; ++l) seed(n + l, l) = 1.0;
    BOOST_REQUIRE(esdirk::ok(forward->initialize(seed.cref())));
  }
  integrator.set_stop_time(1.0);
  std::vector<double> x(static_cast<std::size_t>(n));
  BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(1.0, x).status));
  if (with_forward) {
    run.Sp.resize(n, 3);
    std::copy(forward->state_sensitivity().data,
              forward->state_sensitivity().data + static_cast<std::size_t>(n) * 3, run.Sp.data());
  }
  DenseMatrix weights(n, 2);
  for (int i = 0; i < n; i += 2) weights(i, 0) = 1.0;
  weights(2 * 10 + 1, 1) = 1.0;
  esdirk::AdjointObjective objective;
  objective.rows = 2;
  objective.set_terminal_weights(weights.cref());
  run.dx0.resize(n, 2);
  run.dp.resize(3, 2);
  BOOST_REQUIRE(esdirk::ok(adjoint.gradient(objective, run.dx0.ref(), run.dp.ref())));
  run.stats = integrator.statistics();
  return run;
}

BOOST_AUTO_TEST_CASE(adjoint_transposed_solves_match_dense) {
  const AdjointRun dense = brusselator_adjoint(LinearSolverKind::dense);
  for (LinearSolverKind kind : structured_kinds) {
    const AdjointRun run = brusselator_adjoint(kind);
    BOOST_TEST_CONTEXT(esdirk::linear_solver_name(kind)) {
      BOOST_TEST(run.stats.adjoint_transposed_solves == dense.stats.adjoint_transposed_solves);
      BOOST_TEST(run.stats.adjoint_transposed_solves > 0);
      BOOST_TEST(relative_difference(run.dx0.cref(), dense.dx0.cref()) < 1e-12);
      BOOST_TEST(relative_difference(run.dp.cref(), dense.dp.cref()) < 1e-12);
    }
  }
}

BOOST_AUTO_TEST_CASE(adjoint_matches_forward_sensitivities_on_klu) {
  // d(sum u_i(1))/dp from the adjoint = sum_i (dx(1)/dp)_(u_i) from the forward exact mode on
  // the same steps: the adjoint is the transpose of the forward stage sensitivities.
  const AdjointRun run = brusselator_adjoint(LinearSolverKind::sparse, true);
  for (int l = 0; l < 3; ++l) {
    double forward = 0.0, scale = 0.0;
    for (int i = 0; i < run.Sp.rows(); i += 2) {
      forward += run.Sp(i, l);
      scale += std::abs(run.Sp(i, l));
    }
    BOOST_TEST(std::abs(run.dp(l, 0) - forward) < 1e-10 * scale);
    BOOST_TEST(std::abs(run.dp(l, 1) - run.Sp(21, l)) < 1e-10 * std::abs(run.Sp(21, l)) + 1e-14);
  }
}

BOOST_AUTO_TEST_CASE(dae_adjoint_matches_dense) {
  // The Brusselator with its algebraic mean: the consistent start's g_z^{-T} and g_x^T from
  // the pattern's storage. Objective: w(1) + u_3(1).
  auto run = [](LinearSolverKind kind) {
    test_problems::Brusselator1d model(15, true);
    model.set_jacobian_pattern(model.pattern(), kind);
    esdirk::Options options;
    options.rtol = 1e-7;
    options.atol = 1e-7;
    esdirk::Integrator integrator(model, options);
    esdirk::Adjoint adjoint(integrator);
    BOOST_REQUIRE(esdirk::ok(
        integrator.initialize(0.0, model.initial_state(), model.initial_algebraic(), {})));
    integrator.set_stop_time(0.5);
    std::vector<double> x(static_cast<std::size_t>(model.nx())), z(1);
    BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(0.5, x, z).status));
    DenseMatrix weights(model.size(), 1);
    weights(model.size() - 1, 0) = 1.0;
    weights(4, 0) = 1.0;
    esdirk::AdjointObjective objective;
    objective.set_terminal_weights(weights.cref());
    DenseMatrix dx0(model.nx(), 1);
    BOOST_REQUIRE(esdirk::ok(adjoint.gradient(objective, dx0.ref(), {})));
    return dx0;
  };
  const DenseMatrix dense = run(LinearSolverKind::dense);
  for (LinearSolverKind kind : structured_kinds)
    BOOST_TEST(relative_difference(run(kind).cref(), dense.cref()) < 1e-12);
}

BOOST_AUTO_TEST_CASE(reverse_shooting_interval_matches_dense) {
  // gx = A^T lambda, gu = B^T lambda of one interval (two adjoint columns), by the recorded
  // steps' reverse sweep on each back-end.
  auto run = [](LinearSolverKind kind, DenseMatrix& gx, DenseMatrix& gu) {
    brusselator_mol::Model model(20);
    model.set_jacobian_pattern(model.pattern(), kind);
    esdirk::Options options;
    options.rtol = 1e-7;
    options.atol = 1e-7;
    esdirk::ReverseShootingInterval interval(model, options);
    const auto& r = interval.integrate(0.0, 0.5, model.initial_state(), model.nominal_parameters());
    BOOST_REQUIRE_MESSAGE(esdirk::ok(r.status), r.message);
    const int n = model.size();
    DenseMatrix lambda(n, 2);
    for (int i = 0; i < n; ++i) {
      lambda(i, 0) = i % 2 == 0 ? 1.0 : 0.0;
      lambda(i, 1) = std::sin(0.3 * i);
    }
    gx.resize(n, 2);
    gu.resize(3, 2);
    BOOST_REQUIRE(esdirk::ok(interval.transpose_products(lambda.cref(), {}, {}, gx.ref(), gu.ref())));
  };
  DenseMatrix gx_dense, gu_dense;
  run(LinearSolverKind::dense, gx_dense, gu_dense);
  for (LinearSolverKind kind : structured_kinds) {
    DenseMatrix gx, gu;
    run(kind, gx, gu);
    BOOST_TEST_CONTEXT(esdirk::linear_solver_name(kind)) {
      BOOST_TEST(relative_difference(gx.cref(), gx_dense.cref()) < 1e-12);
      BOOST_TEST(relative_difference(gu.cref(), gu_dense.cref()) < 1e-12);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
