// LU and Jacobian reuse (Options::reuse_jacobian, keep_step_ratio_low/high): the counters say
// how often, the error test still holds the achieved error in [0.1, 10] x rtol on the
// reference problems, the modules whose derivatives need J at t_n refuse the option, and
// out-of-range options are clear errors. Off by default and in Options::seed002().

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "brusselator_1d.hpp"
#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "reference_problems.hpp"

namespace {

esdirk::Options with_reuse(esdirk::Options o) {
  o.reuse_jacobian = true;
  o.keep_step_ratio_low = 1.0;
  o.keep_step_ratio_high = 1.2;
  return o;
}

struct BrusselatorRun {
  std::vector<double> x;
  esdirk::Statistics stats;
};

// The 1-D Brusselator (n = 2 * 100, with or without the algebraic mean) to t = 10 on a back-end.
BrusselatorRun brusselator(esdirk::LinearSolverKind solver, bool algebraic, double rtol, bool reuse) {
  test_problems::Brusselator1d problem(100, algebraic, true);
  problem.set_jacobian_pattern(problem.pattern(), solver);
  esdirk::Options options;
  options.rtol = rtol;
  options.atol = rtol;
  if (reuse) options = with_reuse(options);
  else options.factorization_policy = esdirk::FactorizationPolicy::every_step;  // J and LU every step
  esdirk::Integrator integrator(problem, options);
  BrusselatorRun run;
  run.x = problem.initial_state();
  std::vector<double> z = problem.initial_algebraic();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, run.x, z, {})));
  BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(10.0, run.x, z).status));
  run.stats = integrator.statistics();
  return run;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

bool names(const std::invalid_argument& e, const char* option) {
  return std::string(e.what()).find(option) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jacobian_reuse)

BOOST_AUTO_TEST_CASE(off_by_default_and_in_the_papers_configuration) {
  for (const esdirk::Options& o : {esdirk::Options{}, esdirk::Options::seed002()}) {
    BOOST_TEST(!o.reuse_jacobian);
    BOOST_TEST(o.keep_step_ratio_low == 1.0);
    BOOST_TEST(o.keep_step_ratio_high == 1.0);
  }
  // J at t_n every step: one Jacobian per accepted step plus the initialization's, no reuse.
  auto cases = reference_problems::all();
  const auto& dow = cases.back();
  const auto out = reference_problems::solve(dow, 1e-6);
  BOOST_REQUIRE(esdirk::ok(out.status));
  BOOST_TEST(out.stats.jacobian_reuses == 0);
  BOOST_TEST(out.stats.lu_reuses == 0);
  BOOST_TEST(out.stats.steps_kept == 0);
}

// With reuse, the error test still decides: the achieved error stays in [0.1, 10] x rtol, and
// the counters show that J and LUs were reused and h was kept.
BOOST_AUTO_TEST_CASE(reuse_keeps_the_achieved_error_and_counts_what_it_saved) {
  for (auto& c : reference_problems::all()) {
    const auto base = c.options;
    c.options = [base](double rtol) { return with_reuse(base(rtol)); };
    for (double rtol : {1e-4, 1e-8}) {
      const auto out = reference_problems::solve(c, rtol);
      const auto& s = out.stats;
      BOOST_TEST_INFO(c.name << " rtol " << rtol << ": error " << out.error / rtol << " rtol, " << s.steps
                             << " steps, " << s.jacobian_evaluations << " J, " << s.jacobian_reuses
                             << " J reuses, " << s.lu_factorizations << " LUs, " << s.lu_reuses
                             << " LU reuses, " << s.steps_kept << " kept");
      BOOST_REQUIRE(esdirk::ok(out.status));
      BOOST_TEST(out.error <= 10.0 * rtol);
      BOOST_TEST(out.error >= 0.1 * rtol);
      BOOST_TEST(s.jacobian_reuses > 0);
      BOOST_TEST(s.steps_kept > 0);
      // Every attempt either factors M or reuses the last LU (analytic or difference J alike;
      // refreshes add LUs of their own).
      BOOST_TEST(s.lu_factorizations + s.lu_reuses >= s.steps);
      BOOST_TEST(s.lu_reuses <= s.jacobian_reuses);
      BOOST_TEST(s.jacobian_evaluations + s.jacobian_reuses >= s.accepted_steps);
    }
  }
}

// A kept h: consecutive accepted steps of equal size at least as often as steps_kept says.
BOOST_AUTO_TEST_CASE(kept_steps_have_the_same_size) {
  dow::Model model;
  esdirk::Integrator solver(model, with_reuse(dow::benchmark_options(1e-6)));
  std::vector<double> sizes;
  solver.set_step_observer([&sizes](const esdirk::StepView& step) { sizes.push_back(step.h); });
  const auto zs = dow::consistent_algebraic_start();
  std::vector<double> x(6), z(4);
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, {dow::initial_states.begin(), dow::initial_states.end()},
                                             {zs.begin(), zs.end()},
                                             {dow::nominal_parameters.begin(), dow::nominal_parameters.end()})));
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(10.0, x, z).status));
  long equal = 0;
  for (std::size_t k = 1; k < sizes.size(); ++k) equal += sizes[k] == sizes[k - 1];
  const esdirk::Statistics& s = solver.statistics();
  BOOST_TEST_MESSAGE("Dow rtol 1e-6: " << s.steps_kept << " kept, " << equal << " equal consecutive steps, "
                                       << s.lu_reuses << " LU reuses of " << s.steps << " attempts");
  BOOST_TEST(s.steps_kept > 0);
  BOOST_TEST(equal >= s.steps_kept - s.rejected_steps - s.newton_failures);
  BOOST_TEST(s.lu_reuses > 0);
}

// Reuse on the banded and sparse (KLU) back-ends: J's values and the LU are kept as on the dense
// one (no n x n array), the achieved error stays within [0.1, 10] x rtol of a tight reference,
// and most steps save their LU.
BOOST_AUTO_TEST_CASE(reuse_works_on_the_banded_and_sparse_back_ends) {
  for (bool algebraic : {false, true}) {
    const auto reference = brusselator(esdirk::LinearSolverKind::sparse, algebraic, 1e-11, false);
    for (auto solver : {esdirk::LinearSolverKind::banded, esdirk::LinearSolverKind::sparse})
      for (double rtol : {1e-4, 1e-7}) {
        const auto plain = brusselator(solver, algebraic, rtol, false);
        const auto kept = brusselator(solver, algebraic, rtol, true);
        const double error = relative_difference(kept.x, reference.x);
        const auto& s = kept.stats;
        std::ostringstream what;
        what << esdirk::linear_solver_name(solver) << ", algebraic " << algebraic << ", rtol " << rtol
             << ": error " << error / rtol << " rtol (without reuse "
             << relative_difference(plain.x, reference.x) / rtol << "), " << s.steps << " steps ("
             << plain.stats.steps << "), " << s.jacobian_evaluations << " J ("
             << plain.stats.jacobian_evaluations << "), " << s.lu_factorizations << " LUs ("
             << plain.stats.lu_factorizations << "), " << s.lu_reuses << " LU reuses";
        BOOST_TEST_MESSAGE(what.str());
        BOOST_TEST_INFO(what.str());
        BOOST_TEST(error <= 10.0 * rtol);
        BOOST_TEST(error >= 0.1 * rtol);
        BOOST_TEST(s.jacobian_reuses > 0);
        BOOST_TEST(s.lu_reuses > 0);
        BOOST_TEST(s.lu_factorizations + s.lu_reuses >= s.steps);
        BOOST_TEST(s.jacobian_evaluations < plain.stats.jacobian_evaluations / 2);
        BOOST_TEST(s.lu_factorizations < plain.stats.lu_factorizations);
      }
  }
}

// The banded and sparse back-ends take the same steps as the dense one with reuse too: the kept
// J is the same matrix in another storage.
BOOST_AUTO_TEST_CASE(reuse_gives_the_dense_back_ends_solution_on_every_back_end) {
  const auto dense = brusselator(esdirk::LinearSolverKind::dense, false, 1e-6, true);
  for (auto solver : {esdirk::LinearSolverKind::banded, esdirk::LinearSolverKind::sparse}) {
    const auto other = brusselator(solver, false, 1e-6, true);
    BOOST_TEST_INFO(esdirk::linear_solver_name(solver));
    BOOST_TEST(other.stats.steps == dense.stats.steps);
    BOOST_TEST(other.stats.lu_reuses == dense.stats.lu_reuses);
    BOOST_TEST(relative_difference(other.x, dense.x) <= 1e-12);
  }
}

// Options::lu_reuse_h_change: with h free to change (keep_step_ratio_high = 1) the kept LU
// serves steps whose h gamma is within 30 % of its own. The error test still holds the achieved
// error in [0.1, 10] x rtol, and the LUs fall well below those of same-h reuse. ESDIRK34 at rtol
// 1e-4, the default "auto" (ESDIRK436) at 1e-7.
BOOST_AUTO_TEST_CASE(lu_reuse_across_small_changes_of_h) {
  const auto reference = brusselator(esdirk::LinearSolverKind::sparse, false, 1e-11, false);
  for (auto solver : {esdirk::LinearSolverKind::dense, esdirk::LinearSolverKind::sparse})
    for (double rtol : {1e-4, 1e-7}) {
      test_problems::Brusselator1d problem(100, false, true);
      problem.set_jacobian_pattern(problem.pattern(), solver);
      esdirk::Options options;
      options.rtol = rtol;
      options.atol = rtol;
      options.reuse_jacobian = true;
      if (rtol == 1e-4) options.method = esdirk::Tableau::esdirk34();
      const auto run = [&](double change) {
        esdirk::Options o = options;
        o.lu_reuse_h_change = change;
        esdirk::Integrator integrator(problem, o);
        BrusselatorRun r;
        r.x = problem.initial_state();
        std::vector<double> z;
        BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, r.x, z, {})));
        BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(10.0, r.x, z).status));
        r.stats = integrator.statistics();
        return r;
      };
      const auto same_h = run(0.0);
      const auto nearby = run(0.3);
      const double error = relative_difference(nearby.x, reference.x);
      BOOST_TEST_INFO(esdirk::linear_solver_name(solver) << ", rtol " << rtol << ": error " << error / rtol
                                                         << " rtol, LUs " << nearby.stats.lu_factorizations
                                                         << " (same h only " << same_h.stats.lu_factorizations << ")");
      BOOST_TEST(error <= 10.0 * rtol);
      BOOST_TEST(error >= 0.1 * rtol);
      BOOST_TEST(nearby.stats.lu_reuses > same_h.stats.lu_reuses);
      BOOST_TEST(nearby.stats.lu_factorizations < same_h.stats.lu_factorizations / 2);
    }
}

BOOST_AUTO_TEST_CASE(out_of_range_reuse_options_are_clear_errors) {
  auto problem = esdirk::FunctionProblem(1, 0, 0, [](double, auto y, auto, auto, auto f) {
    f[0] = -y[0];
    return 0;
  });
  struct Bad {
    const char* name;
    void (*set)(esdirk::Options&);
  };
  const Bad bad[] = {
      {"keep_step_ratio_low", [](esdirk::Options& o) { o.keep_step_ratio_low = 0.0; }},
      {"keep_step_ratio_low", [](esdirk::Options& o) { o.keep_step_ratio_low = 1.5; }},
      {"keep_step_ratio_low", [](esdirk::Options& o) { o.keep_step_ratio_low = std::nan(""); }},
      {"keep_step_ratio_high", [](esdirk::Options& o) { o.keep_step_ratio_high = 0.9; }},
      {"keep_step_ratio_high", [](esdirk::Options& o) { o.keep_step_ratio_high = 6.0; }},  // > max_step_ratio 5
      {"keep_step_ratio_high", [](esdirk::Options& o) { o.keep_step_ratio_high = INFINITY; }},
      {"jacobian_reuse_contraction", [](esdirk::Options& o) { o.jacobian_reuse_contraction = 0.0; }},
      {"jacobian_reuse_contraction", [](esdirk::Options& o) { o.jacobian_reuse_contraction = 1.0; }},
      {"jacobian_reuse_contraction", [](esdirk::Options& o) { o.jacobian_reuse_contraction = std::nan(""); }},
      {"lu_reuse_h_change", [](esdirk::Options& o) { o.lu_reuse_h_change = -0.1; }},
      {"lu_reuse_h_change", [](esdirk::Options& o) { o.lu_reuse_h_change = 1.0; }},
      {"lu_reuse_h_change", [](esdirk::Options& o) { o.lu_reuse_h_change = std::nan(""); }},
  };
  for (const Bad& b : bad) {
    esdirk::Options o;
    b.set(o);
    BOOST_TEST_INFO(b.name);
    BOOST_CHECK_EXCEPTION(esdirk::Integrator(problem, o), std::invalid_argument,
                          [&](const std::invalid_argument& e) { return names(e, b.name); });
  }
}

BOOST_AUTO_TEST_SUITE_END()
