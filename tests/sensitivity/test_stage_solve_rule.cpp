// The forward sensitivities' automatic stage-solve rule on banded and sparse problems weighs the
// fill of the step's factors (stage_factorization_pays, doc/linear-solvers-guide.md): stage LUs
// on the 1-D Brusselator grid, whose factors fill in little, refinement with the step's LU on
// the 2-D grid, whose KLU factors hold 8x the entries of M and cost ~450 flops per entry of M
// (40 x 40; 1.5x and 2.5 flops on the 1-D grid).
// The decision is tested, not its timing (that is measured in bench_sparse_cvodes).
#include <boost/test/unit_test.hpp>
#include <limits>
#include <stdexcept>
#include <vector>

#include "brusselator_mol/brusselator_2d_model.hpp"
#include "brusselator_mol/brusselator_mol_model.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/sensitivity/stage_sensitivities.hpp"
#include "esdirk/stage_linear_system.hpp"

using esdirk::FactorizationCost;
using esdirk::LinearSolverKind;

namespace {

// The size of the factored M = I - h gamma J at the model's initial state on back-end `kind`.
template <class Model>
FactorizationCost cost_of(Model& model, LinearSolverKind kind) {
  model.set_jacobian_pattern(model.pattern(), kind);
  esdirk::StageLinearSystem lu(model.nx(), model.nz(), model.jacobian_structure());
  esdirk::JacobianMatrix J(model.size(), model.jacobian_structure());
  const auto y0 = model.initial_state();
  const auto p = model.nominal_parameters();
  BOOST_REQUIRE(model.sparse_jacobian(0.0, y0, {}, p, J.sparse()) == 0);
  BOOST_REQUIRE(lu.factor(J, 0.01, 0) == 0);
  return lu.factorization_cost();
}

// Stage LUs taken by the automatic rule in a short run with the three parameter sensitivities.
template <class Model>
long stage_lus_of_a_short_run(Model& model, LinearSolverKind kind) {
  model.set_jacobian_pattern(model.pattern(), kind);
  esdirk::Options options;
  options.rtol = 1e-5;
  options.atol = 1e-5;
  esdirk::Integrator integrator(model, options);
  const auto y0 = model.initial_state();
  const auto p = model.nominal_parameters();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, y0, {}, p)));
  esdirk::ForwardSensitivity sensitivities(integrator, {});
  const int n = model.size();
  esdirk::DenseMatrix seed(n + 3, 3), S(n, 3);
  for (int l = 0; l < 3; ++l) seed(n + l, l) = p[static_cast<std::size_t>(l)];
  std::vector<double> y(static_cast<std::size_t>(n));
  BOOST_REQUIRE(esdirk::ok(sensitivities.initialize(seed.cref())));
  BOOST_REQUIRE(esdirk::ok(sensitivities.integrate_to(0.05, y, {}, S.ref()).status));
  BOOST_REQUIRE(integrator.statistics().accepted_steps > 0);
  return integrator.statistics().stage_factorizations;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stage_solve_rule)

BOOST_AUTO_TEST_CASE(klu_reports_the_fill_of_its_factors) {
  // The 1-D grid (a ladder graph: two species chains coupled at each point) fills in little:
  // L and U, each with its diagonal, hold 1.5x the entries of M. The 2-D grid's fill grows with
  // the side (8x at 40 x 40).
  brusselator_mol::Model one_d(500);
  const FactorizationCost c1 = cost_of(one_d, LinearSolverKind::sparse);
  BOOST_TEST(c1.matrix_entries == one_d.pattern().nonzeros());  // J's pattern holds the diagonal
  BOOST_TEST(c1.factor_entries >= c1.matrix_entries + one_d.size() - 1);  // both diagonals
  BOOST_TEST(c1.factor_entries <= 2.0 * c1.matrix_entries);
  BOOST_TEST(c1.factorization_flops > 0.0);
  BOOST_TEST(c1.factorization_flops < 5.0 * c1.matrix_entries);
  brusselator_mol::Model2d two_d(40);
  const FactorizationCost c2 = cost_of(two_d, LinearSolverKind::sparse);
  BOOST_TEST(c2.factor_entries > 4.0 * c2.matrix_entries);
  BOOST_TEST(c2.factorization_flops > 100.0 * c2.matrix_entries);
}

BOOST_AUTO_TEST_CASE(band_and_dense_costs_are_the_closed_forms) {
  brusselator_mol::Model model(100);  // n = 200, kl = ku = 2
  const FactorizationCost band = cost_of(model, LinearSolverKind::banded);
  const double n = 200.0;
  BOOST_TEST(band.matrix_entries == n * 5.0);
  BOOST_TEST(band.factor_entries == n * 7.0);
  BOOST_TEST(band.factorization_flops == 2.0 * n * 2.0 * 4.0);
  esdirk::StageLinearSystem dense(200, 0);
  const FactorizationCost d = dense.factorization_cost();
  BOOST_TEST(d.matrix_entries == n * n);
  BOOST_TEST(d.factor_entries == n * n);
  BOOST_TEST(d.factorization_flops == 2.0 / 3.0 * n * n * n, boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(stage_lus_on_the_1d_grid_refinement_on_the_2d_grid) {
  for (const int directions : {1, 3}) {
    BOOST_TEST_CONTEXT("directions " << directions) {
      brusselator_mol::Model one_d(5000);  // n = 1e4, the benchmark's size
      for (const LinearSolverKind kind : {LinearSolverKind::sparse, LinearSolverKind::banded})
        BOOST_TEST(esdirk::stage_factorization_pays(cost_of(one_d, kind),
                                                    one_d.pattern().nonzeros(), directions));
      brusselator_mol::Model2d two_d(40);  // n = 3200
      for (const LinearSolverKind kind : {LinearSolverKind::sparse, LinearSolverKind::banded})
        BOOST_TEST(!esdirk::stage_factorization_pays(cost_of(two_d, kind),
                                                     two_d.pattern().nonzeros(), directions));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_sensitivities_follow_the_rule) {
  brusselator_mol::Model one_d(500);
  BOOST_TEST(stage_lus_of_a_short_run(one_d, LinearSolverKind::sparse) > 0);
  brusselator_mol::Model2d two_d(40);
  BOOST_TEST(stage_lus_of_a_short_run(two_d, LinearSolverKind::sparse) == 0);
}

BOOST_AUTO_TEST_CASE(bad_arguments_throw) {
  const FactorizationCost ok{10.0, 20.0, 30.0};
  BOOST_CHECK_THROW(esdirk::stage_factorization_pays(ok, 10.0, 0), std::invalid_argument);
  BOOST_CHECK_THROW(esdirk::stage_factorization_pays(ok, -1.0, 1), std::invalid_argument);
  BOOST_CHECK_THROW(esdirk::stage_factorization_pays({-1.0, 20.0, 30.0}, 10.0, 1),
                    std::invalid_argument);
  BOOST_CHECK_THROW(esdirk::stage_factorization_pays(
                        {10.0, 20.0, std::numeric_limits<double>::quiet_NaN()}, 10.0, 1),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
