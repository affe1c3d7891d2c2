// Each counter counts what it says, checked against a problem that counts its own calls.

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "van_der_pol/van_der_pol_model.hpp"

namespace {

// Van der Pol (a stiff problem with rejected steps) that counts its callback calls.
class CountingVanDerPol : public van_der_pol::Model {
 public:
  explicit CountingVanDerPol(bool analytic) : Model(1e-3), analytic_(analytic) {}
  int evaluate(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector g) override {
    ++evaluations;
    return Model::evaluate(t, x, z, p, f, g);
  }
  bool has_jacobian() const override { return analytic_; }
  int jacobian(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::MatrixRef J) override {
    ++jacobians;
    return Model::jacobian(t, x, z, p, J);
  }
  long evaluations = 0;
  long jacobians = 0;

 private:
  bool analytic_;
};

struct Counted {
  esdirk::Statistics stats;
  long evaluations, jacobians, observed_steps;
};

Counted run(bool analytic) {
  CountingVanDerPol problem(analytic);
  esdirk::Options options;
  options.rtol = options.atol = 1e-6;
  esdirk::Integrator solver(problem, options);
  long observed = 0;
  solver.set_step_observer([&observed](const esdirk::StepView&) { ++observed; });
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, std::vector<double>{2.0, 0.0}, {}, {})));
  std::vector<double> x(2);
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(2.0, x)));
  return {solver.statistics(), problem.evaluations, problem.jacobians, observed};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(statistics)

BOOST_AUTO_TEST_CASE(counters_with_an_analytic_jacobian) {
  const Counted c = run(true);
  const esdirk::Statistics& s = c.stats;
  BOOST_TEST(s.rejected_steps > 0);  // the problem exercises rejections
  BOOST_TEST(s.accepted_steps == c.observed_steps);
  BOOST_TEST(s.steps ==
             s.accepted_steps + s.rejected_steps + s.newton_failures + s.callback_failures);
  BOOST_TEST(s.function_evaluations == c.evaluations);
  BOOST_TEST(s.fd_function_evaluations == 0);
  BOOST_TEST(s.jacobian_evaluations == c.jacobians);
  // One Jacobian per step at (t_n, x_n): retries of a rejected step reuse it.
  BOOST_TEST(s.jacobian_evaluations == s.accepted_steps);
  BOOST_TEST(s.lu_factorizations == s.steps);  // one LU per attempted step (an ODE: no init LU)
  // Every stage residual evaluation is one Newton iteration and one back-substitution; the
  // two other evaluations are f(t0) and the starting-step probe.
  BOOST_TEST(s.newton_iterations == s.back_substitutions);
  BOOST_TEST(s.function_evaluations == s.newton_iterations + 2);
  BOOST_TEST(s.sensitivity_solves == 0);
}

BOOST_AUTO_TEST_CASE(finite_difference_evaluations_are_counted_apart) {
  const Counted c = run(false);
  const esdirk::Statistics& s = c.stats;
  BOOST_TEST(c.jacobians == 0);
  BOOST_TEST(s.function_evaluations + s.fd_function_evaluations == c.evaluations);
  // Each difference Jacobian of this ODE (n = 2) costs n + 1 evaluations: a fresh f(t_n, x_n)
  // and one per column.
  BOOST_TEST(s.fd_function_evaluations == 3 * s.jacobian_evaluations);
  BOOST_TEST(s.jacobian_evaluations == s.accepted_steps);
  BOOST_TEST(s.function_evaluations == s.newton_iterations + 2);
}

BOOST_AUTO_TEST_CASE(reports_name_every_counter) {
  esdirk::Statistics s;
  s.steps = 77;
  s.back_substitutions = 862;
  const std::string table = s.table(), csv = s.csv();
  BOOST_TEST(table.find("steps (NSTEP)") != std::string::npos);
  BOOST_TEST(table.find("862") != std::string::npos);
  BOOST_TEST(csv.find("counter,value\n") == 0);
  BOOST_TEST(csv.find("back_substitutions,862\n") != std::string::npos);
  for (const char* name :
       {"function_evaluations", "fd_function_evaluations", "jacobian_evaluations",
        "lu_factorizations", "newton_iterations", "newton_failures", "rejected_steps",
        "sensitivity_solves", "events", "adjoint_steps", "checkpoints", "adjoint_transposed_solves",
        "adjoint_factorizations", "adjoint_jacobian_evaluations", "adjoint_recomputed_steps"})
    BOOST_TEST(csv.find(name) != std::string::npos);
  esdirk::Statistics sum;
  sum += s;
  sum += s;
  BOOST_TEST(sum.steps == 154);
}

// table() shows a module's counters only when the run used it; csv() always shows all.
BOOST_AUTO_TEST_CASE(table_shows_the_counters_of_the_modules_in_use) {
  const auto shows = [](const esdirk::Statistics& s, const char* name) {
    return s.table().find(std::string(name) + " ") != std::string::npos;
  };
  esdirk::Statistics ode;  // a plain ODE run: integrator counters only
  ode.steps = 12;
  BOOST_TEST(shows(ode, "steps (NSTEP)"));
  BOOST_TEST(shows(ode, "newton_failures"));  // integrator counters show even at zero
  for (const char* name : {"sensitivity_solves", "parameter_jacobian_evaluations", "events",
                           "event_function_evaluations", "adjoint_steps", "checkpoints"})
    BOOST_TEST(!shows(ode, name), name);
  BOOST_TEST(ode.csv().find("adjoint_steps,0\n") != std::string::npos);

  esdirk::Statistics with_events = ode;
  with_events.event_root_iterations = 3;
  BOOST_TEST(shows(with_events, "events"));
  BOOST_TEST(shows(with_events, "event_grazing_warnings"));
  BOOST_TEST(!shows(with_events, "sensitivity_solves"));
  BOOST_TEST(!shows(with_events, "adjoint_steps"));

  esdirk::Statistics with_adjoint = ode;
  with_adjoint.checkpoints = 1;
  BOOST_TEST(shows(with_adjoint, "adjoint_recomputed_steps"));
  BOOST_TEST(!shows(with_adjoint, "events"));

  esdirk::Statistics with_sensitivities = ode;
  with_sensitivities.sensitivity_solves = 5;
  BOOST_TEST(shows(with_sensitivities, "stage_factorizations"));
  BOOST_TEST(shows(with_sensitivities, "parameter_jacobian_evaluations (NJACP)"));
  BOOST_TEST(!shows(with_sensitivities, "event_transitions"));
}

BOOST_AUTO_TEST_SUITE_END()
