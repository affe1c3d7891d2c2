// Where the stage Newton iteration starts (Options::stage_predictor).
// StagePredictor::stage_extrapolation extrapolates the stage derivatives and algebraic values
// of the same step to the next node: its weights must reproduce polynomials, and on the
// reference problems it must save Newton iterations against the previous-stage predictor of
// Kristensen et al. 2005 (Options::seed002()) at the same steps and accuracy
// (doc/integrator-theory.md section 2), of which it is the default. StagePredictor::dense_output
// starts stage 2 from the last step's continuous extension and the later stages as
// stage_extrapolation: it must save iterations against stage_extrapolation.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <set>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/options.hpp"
#include "esdirk/tableau.hpp"
#include "internal/stage_extrapolation.hpp"
#include "reference_problems.hpp"

namespace {

// The number of distinct nodes among stages 0 .. i-1.
int distinct_nodes(const esdirk::Tableau& t, int i) {
  std::set<double> nodes(t.c.begin(), t.c.begin() + i);
  return static_cast<int>(nodes.size());
}

}  // namespace

BOOST_AUTO_TEST_CASE(extrapolation_weights_reproduce_polynomials_up_to_their_degree) {
  for (const char* name : {"ESDIRK34", "ESDIRK436", "ESDIRK547"}) {
    const esdirk::Tableau t = esdirk::Tableau::named(name);
    const esdirk::DenseMatrix w = esdirk::internal::stage_extrapolation_weights(t, 4);
    for (int i = 1; i < t.stages; ++i) {
      // Exact for c^k up to the degree the earlier nodes allow (one node: constants).
      const int degree = std::min(4, distinct_nodes(t, i) - 1);
      for (int k = 0; k <= degree; ++k) {
        double sum = 0.0;
        for (int j = 0; j < i; ++j) sum += w(i, j) * std::pow(t.c[j], k);
        BOOST_TEST_INFO(name << " stage " << i << " degree " << k);
        BOOST_TEST(std::abs(sum - std::pow(t.c[i], k)) <= 1e-12);
      }
      for (int j = i; j < t.stages; ++j) BOOST_TEST(w(i, j) == 0.0);  // only earlier stages
    }
  }
}

BOOST_AUTO_TEST_CASE(stage_extrapolation_is_the_default_and_the_papers_configuration_keeps_its_predictor) {
  BOOST_TEST((esdirk::Options{}.stage_predictor == esdirk::StagePredictor::stage_extrapolation));
  BOOST_TEST(
      (esdirk::Options::seed002().stage_predictor == esdirk::StagePredictor::previous_stage));
  esdirk::Options bad;
  bad.stage_predictor = static_cast<esdirk::StagePredictor>(7);
  BOOST_CHECK_THROW(bad.validate(1, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(stage_extrapolation_saves_newton_iterations_at_the_same_accuracy) {
  // Measured over rtol 1e-3 .. 1e-10: 15-25 % fewer iterations on every reference problem with
  // the same steps (within 0.2 % summed over the tolerances; single runs differ by up to 7 %).
  // Here with ESDIRK34 at rtol 1e-4 and "auto" (ESDIRK436) at 1e-7: fewer iterations per step.
  for (const auto& c : reference_problems::all()) {
    for (double rtol : {1e-4, 1e-7}) {
      esdirk::Options extrapolated = c.options(rtol);
      if (rtol == 1e-4) extrapolated.method = esdirk::Tableau::esdirk34();
      extrapolated.stage_predictor = esdirk::StagePredictor::stage_extrapolation;
      esdirk::Options seed = extrapolated;
      seed.stage_predictor = esdirk::StagePredictor::previous_stage;
      auto p1 = c.make();
      auto p2 = c.make();
      const auto a = test_helpers::run(*p1, extrapolated, 0.0, c.t_end, c.x0, c.z0, c.p);
      const auto b = test_helpers::run(*p2, seed, 0.0, c.t_end, c.x0, c.z0, c.p);
      BOOST_TEST_INFO(c.name << " rtol " << rtol);
      BOOST_REQUIRE(esdirk::ok(a.status));
      BOOST_REQUIRE(esdirk::ok(b.status));
      const double per_step_a = static_cast<double>(a.stats.newton_iterations) / a.stats.steps;
      const double per_step_b = static_cast<double>(b.stats.newton_iterations) / b.stats.steps;
      BOOST_TEST(per_step_a < 0.97 * per_step_b);
      const auto sa = test_helpers::stacked(a), sb = test_helpers::stacked(b);
      double ea = 0.0, eb = 0.0;
      for (std::size_t i = 0; i < c.reference.size(); ++i) {
        if (std::abs(c.reference[i]) <= c.atol_of(rtol, static_cast<int>(i))) continue;
        ea = std::max(ea, std::abs(sa[i] - c.reference[i]) / std::abs(c.reference[i]));
        eb = std::max(eb, std::abs(sb[i] - c.reference[i]) / std::abs(c.reference[i]));
      }
      // The achieved error stays within the band the accuracy table holds ([0.1, 10] rtol).
      BOOST_TEST(ea <= 10.0 * rtol);
      BOOST_TEST(ea <= std::max(3.0 * eb, rtol));
    }
  }
}

// StagePredictor::dense_output starts stage 2 from the last step's continuous extension and
// extrapolates the later stages within the step (the extension for every stage, as before,
// took more Newton iterations than stage_extrapolation with the rate-based test: theory section
// 3, "Stage predictors"). Measured over rtol 1e-3 .. 1e-10: 1-17 % fewer Newton iterations
// ("auto" and ESDIRK34), the same steps within 0.1 %, every error in [0.1, 10] x rtol. Here at one ESDIRK34
// and one ESDIRK436 tolerance each: fewer iterations over the two runs than
// stage_extrapolation, the same steps within 3 %, and the accuracy band.
BOOST_AUTO_TEST_CASE(the_dense_output_predictor_starts_stage_two_from_the_last_step_and_saves_iterations) {
  for (auto c : reference_problems::all()) {
    const auto base = c.options;
    long iterations[2] = {0, 0}, steps[2] = {0, 0};
    for (double rtol : {1e-4, 1e-7}) {
      for (int k = 0; k < 2; ++k) {
        c.options = [&](double r) {
          esdirk::Options o = base(r);
          o.stage_predictor = k == 1 ? esdirk::StagePredictor::dense_output
                                     : esdirk::StagePredictor::stage_extrapolation;
          return o;
        };
        const auto out = reference_problems::solve(c, rtol);
        BOOST_TEST_INFO(c.name << " rtol " << rtol << (k == 1 ? " dense_output" : " stage_extrapolation") << ": error "
                               << out.error / rtol << " rtol");
        BOOST_REQUIRE(esdirk::ok(out.status));
        BOOST_TEST(out.error <= 10.0 * rtol);
        BOOST_TEST(out.error >= 0.1 * rtol);
        iterations[k] += out.stats.newton_iterations;
        steps[k] += out.stats.steps;
      }
    }
    BOOST_TEST_MESSAGE(c.name << ": Newton iterations " << iterations[0] << " -> " << iterations[1]
                              << ", steps " << steps[0] << " -> " << steps[1]);
    BOOST_TEST_INFO(c.name);
    BOOST_TEST(static_cast<double>(iterations[1]) / steps[1] < 0.99 * static_cast<double>(iterations[0]) / steps[0]);
    BOOST_TEST(std::abs(steps[1] - steps[0]) <= 0.03 * steps[0]);
  }
}

// Without a last step (the first step of a run) there is nothing to extend: dense_output then
// extrapolates like stage_extrapolation, to the last bit.
BOOST_AUTO_TEST_CASE(the_dense_output_predictor_extrapolates_on_a_first_step) {
  for (const auto& c : reference_problems::all()) {
    esdirk::Options extrapolated = c.options(1e-6);
    extrapolated.stage_predictor = esdirk::StagePredictor::stage_extrapolation;
    esdirk::Options dense = extrapolated;
    dense.stage_predictor = esdirk::StagePredictor::dense_output;
    auto p1 = c.make();
    auto p2 = c.make();
    esdirk::Integrator a(*p1, extrapolated), b(*p2, dense);
    BOOST_REQUIRE(esdirk::ok(a.initialize(0.0, c.x0, c.z0, c.p)));
    BOOST_REQUIRE(esdirk::ok(b.initialize(0.0, c.x0, c.z0, c.p)));
    const double h = 1e-5;  // a step every problem takes from its start
    BOOST_REQUIRE(esdirk::ok(a.step_exactly(h)));
    BOOST_REQUIRE(esdirk::ok(b.step_exactly(h)));
    const auto state = [](const esdirk::Integrator& s) {
      std::vector<double> v(s.x().begin(), s.x().end());
      v.insert(v.end(), s.z().begin(), s.z().end());
      return v;
    };
    BOOST_TEST_INFO(c.name);
    BOOST_TEST(state(a) == state(b), boost::test_tools::per_element());
    BOOST_TEST(a.statistics().newton_iterations == b.statistics().newton_iterations);
    // The second step starts stage 2 elsewhere.
    BOOST_REQUIRE(esdirk::ok(a.step_exactly(h)));
    BOOST_REQUIRE(esdirk::ok(b.step_exactly(h)));
    BOOST_TEST((state(a) != state(b)));
  }
}
