// Forward sensitivities with the Krylov stage solver: every stage sensitivity system is solved
// by its own GMRES to KrylovSettings::sensitivity_tolerance (the Newton corrections keep the
// forcing term), so the sensitivities are those of the same discrete scheme: they agree with the
// direct solver's (KLU) to the integration tolerance, and with central differences of Krylov
// trajectories; matrix-free products are refused with a message naming why (the smooth adjoint
// with Krylov: test_krylov_adjoint.cpp).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "brusselator_mol/brusselator_mol_model.hpp"
#include "brusselator_mol_differences.hpp"
#include "esdirk/sensitivity/adjoint.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "krylov_fixtures.hpp"

using esdirk::ConstMatrixRef;
using esdirk::DenseMatrix;
using esdirk::LinearSolverKind;
using esdirk::SensitivityOptions;
using krylov_fixtures::declare;
using krylov_fixtures::relative_difference;

namespace {

struct SensitivityRun {
  std::vector<double> x;
  DenseMatrix Sx;
  esdirk::Statistics stats;
  esdirk::Statistics sensitivity_counters;  // the sensitivities' own (their GMRES)
  esdirk::Status status = esdirk::Status::success;
  std::string message;  // the sensitivities' message
  double t = 0.0;       // where the sensitivities stopped
};

// The sensitivities to the three parameters p (scaled columns p_l e_l) of `integrator`'s
// initialized run to t_end (its listeners, if any, see each trial before the sensitivities).
SensitivityRun parameter_sensitivities(esdirk::Integrator& integrator, const std::vector<double>& p,
                                       SensitivityOptions sensitivity, double t_end,
                                       esdirk::StepListener* after_sensitivities = nullptr) {
  esdirk::ForwardSensitivity sens(integrator, std::move(sensitivity));
  if (after_sensitivities != nullptr) integrator.add_listener(*after_sensitivities);
  const int n = integrator.problem().size();
  DenseMatrix seed(n + 3, 3);
  for (int l = 0; l < 3; ++l) seed(n + l, l) = p[static_cast<std::size_t>(l)];
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  SensitivityRun run;
  run.x.resize(static_cast<std::size_t>(n));
  run.Sx.resize(n, 3);
  run.status = sens.integrate_to(t_end, run.x, {}, run.Sx.ref()).status;
  run.message = sens.message();
  run.t = sens.t();
  run.stats = integrator.statistics();
  run.sensitivity_counters = sens.counters();
  if (after_sensitivities != nullptr) integrator.remove_listener(*after_sensitivities);
  return run;
}

// The 1-D Brusselator (20 points, n = 40, unless given) to t = 1 (unless given) with the
// sensitivities to its three parameters (scaled columns p_l e_l); `adjust` changes the Krylov
// settings of declare().
SensitivityRun brusselator_parameters(LinearSolverKind kind, SensitivityOptions sensitivity, double rtol,
                                      int points = 20, double t_end = 1.0,
                                      const std::function<void(esdirk::KrylovSettings&)>& adjust = {}) {
  brusselator_mol::Model model(points);
  declare(model, kind);
  if (adjust) {
    esdirk::KrylovSettings settings = model.jacobian_structure().krylov;
    adjust(settings);
    model.set_krylov_settings(settings);
  }
  esdirk::Options options;
  options.rtol = options.atol = rtol;
  esdirk::Integrator integrator(model, options);
  const auto p = model.nominal_parameters();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
  SensitivityRun run = parameter_sensitivities(integrator, p, std::move(sensitivity), t_end);
  BOOST_REQUIRE_MESSAGE(esdirk::ok(run.status), run.message);
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(krylov_sensitivities)

// Exact mode (the default, J at the converged stages): the Krylov run's states and
// sensitivities are the direct run's to the tolerance (the stage equations are solved to the
// same Newton tolerance, the sensitivities' linear stage systems to 1e-10; measured 7e-9 and
// 9e-9). Paper mode (J frozen at t_n) is only first-order accurate in h, so step sequences that
// agree to the tolerance leave differences of a small fraction of its own error (9e-3 from the
// exact mode here): at most 1 % of it (measured 0.2 %; GMRES stage solves to the Newton forcing
// term would leave about 5 %). GMRES did the sensitivities' stage solves.
BOOST_AUTO_TEST_CASE(krylov_sensitivities_match_klu_to_the_tolerance) {
  const double rtol = 1e-7;
  const auto exact_direct = brusselator_parameters(LinearSolverKind::sparse, {}, rtol);
  for (bool paper : {false, true}) {
    const SensitivityOptions o = paper ? SensitivityOptions::seed002() : SensitivityOptions{};
    const auto direct = paper ? brusselator_parameters(LinearSolverKind::sparse, o, rtol) : exact_direct;
    const auto krylov = brusselator_parameters(LinearSolverKind::krylov, o, rtol);
    BOOST_TEST_CONTEXT("paper mode " << paper) {
      const ConstMatrixRef x(krylov.x.data(), 40, 1, 40), xd(direct.x.data(), 40, 1, 40);
      const double difference = relative_difference(krylov.Sx.cref(), direct.Sx.cref());
      BOOST_TEST_INFO("states " << relative_difference(x, xd) << ", sensitivities " << difference);
      BOOST_TEST(relative_difference(x, xd) <= rtol);
      if (paper)
        BOOST_TEST(difference <= 0.01 * relative_difference(direct.Sx.cref(), exact_direct.Sx.cref()));
      else
        BOOST_TEST(difference <= 10.0 * rtol);
      BOOST_TEST(krylov.sensitivity_counters.linear_iterations > 0);  // GMRES solved the stage systems
      BOOST_TEST(krylov.stats.linear_solver_failures == 0);
      BOOST_TEST(krylov.stats.linear_iterations > direct.stats.linear_iterations);
    }
  }
}

// The states' stage solves of a run with sensitivities stop at
// KrylovSettings::tolerance_with_derivatives (1e-3), not at the states-only forcing term 0.05:
// the sensitivities differentiate the converged stage equations, and with the stage values only
// as close to them as 5 %-off Newton corrections leave them, the sensitivities differed from
// KLU's on the same steps by 0.75, 0.83 and 1.2 x rtol here at rtol 1e-4, 1e-5, 1e-6 (the states
// by 0.08-0.11 x rtol; 7.8 x rtol against the reference on the 1-D grid with n = 1000,
// doc/linear-solvers-guide.md). Measured with 1e-3: at most 0.025 x rtol, states 0.006 x rtol.
BOOST_AUTO_TEST_CASE(krylov_sensitivities_were_less_accurate_than_requested_with_the_states_forcing_term) {
  for (const double rtol : {1e-4, 1e-5, 1e-6}) {
    const auto direct = brusselator_parameters(LinearSolverKind::sparse, {}, rtol, 20, 10.0);
    const auto krylov = brusselator_parameters(LinearSolverKind::krylov, {}, rtol, 20, 10.0);
    const ConstMatrixRef x(krylov.x.data(), 40, 1, 40), xd(direct.x.data(), 40, 1, 40);
    const double states = relative_difference(x, xd);
    const double sensitivities = relative_difference(krylov.Sx.cref(), direct.Sx.cref());
    BOOST_TEST_INFO("rtol " << rtol << ": states " << states << ", sensitivities " << sensitivities);
    BOOST_TEST(states <= 0.1 * rtol);
    BOOST_TEST(sensitivities <= 0.1 * rtol);
  }
}

// Right, not only equal to KLU: dx(1)/dB against central differences of two Krylov solutions at
// tight tolerance (the same scheme; the discretization errors cancel to about 1e-7).
BOOST_AUTO_TEST_CASE(krylov_sensitivities_match_central_differences_of_krylov_trajectories) {
  const auto run = brusselator_parameters(LinearSolverKind::krylov, {}, 1e-7);
  const double error = brusselator_mol_differences::relative_error_in_B(
      run.Sx, [](brusselator_mol::Model& model) { declare(model, LinearSolverKind::krylov); });
  BOOST_TEST_INFO("relative difference " << error);
  BOOST_TEST(error < 1e-5);
}

// Matrix-free products need not come with all of J on the pattern, which the sensitivities
// multiply by: refused, naming the cause; a module that does not accept Krylov (the hybrid
// adjoint of the events module) is refused too.
BOOST_AUTO_TEST_CASE(matrix_free_sensitivities_and_krylov_adjoints_are_refused) {
  brusselator_mol::Model model(20);
  declare(model, LinearSolverKind::krylov, true);
  esdirk::Options options;
  {
    esdirk::Integrator integrator(model, options);
    try {
      esdirk::ForwardSensitivity sens(integrator, {});
      BOOST_ERROR("matrix-free sensitivities accepted");
    } catch (const std::invalid_argument& e) {
      BOOST_TEST(std::string(e.what()).find("matrix_free") != std::string::npos);
    }
  }
  declare(model, LinearSolverKind::krylov, false);
  esdirk::Integrator integrator(model, options);
  BOOST_CHECK_NO_THROW(integrator.require_step_jacobians("ForwardSensitivity", true));
  BOOST_CHECK_THROW(integrator.require_step_jacobians("a module without Krylov"), std::invalid_argument);
}

// Each stage's GMRES starts from the earlier stages extrapolated to its node
// (StageSensitivities::solve_by_gmres_from_guess), not from zero, and stops at the residual a
// zero start would stop at: the same accuracy (checked against KLU above, on this run by the
// forcing-term test) for fewer iterations. Measured here (20 points, rtol 1e-6, t = 10, 205
// steps, 3075 stage solves), GMRES iterations per solve: 3.83 from zero, 2.48 from the
// extrapolated stage values, 2.00 with the differential rows from the extrapolated stage
// derivatives (the start now; 100 points: 5.05, 3.18, -; 2-D 40 x 40 at rtol 1e-6: -, 4.32,
// 3.29). The bound fails with the values alone.
BOOST_AUTO_TEST_CASE(krylov_stage_sensitivities_start_from_the_extrapolated_earlier_stages) {
  const auto krylov = brusselator_parameters(LinearSolverKind::krylov, {}, 1e-6, 20, 10.0);
  const esdirk::Statistics& counted = krylov.sensitivity_counters;
  BOOST_REQUIRE(counted.back_substitutions > 0);
  const double per_solve = static_cast<double>(counted.linear_iterations) / counted.back_substitutions;
  BOOST_TEST_INFO("GMRES iterations per stage solve " << per_solve);
  BOOST_TEST(per_solve < 2.25);
  BOOST_TEST(counted.linear_solver_failures == 0);
}

// A seed column of zeros has zero sensitivities: its right-hand sides are zero at every stage,
// and the guessed start must not leave anything there (GMRES would be asked for a residual of
// zero).
BOOST_AUTO_TEST_CASE(a_zero_seed_column_stays_exactly_zero_on_the_krylov_back_end) {
  brusselator_mol::Model model(20);
  declare(model, LinearSolverKind::krylov);
  esdirk::Options options;
  options.rtol = options.atol = 1e-6;
  esdirk::Integrator integrator(model, options);
  const auto p = model.nominal_parameters();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
  esdirk::ForwardSensitivity sens(integrator, {});
  const int n = model.size();
  DenseMatrix seed(n + 3, 2), Sx(n, 2);
  seed(n + 1, 0) = p[1];  // dB, scaled; column 1 stays zero
  BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
  std::vector<double> x(static_cast<std::size_t>(n));
  const auto outcome = sens.integrate_to(1.0, x, {}, Sx.ref());
  BOOST_REQUIRE_MESSAGE(esdirk::ok(outcome.status), sens.message());
  double largest = 0.0, zero_column = 0.0;
  for (int i = 0; i < n; ++i) {
    largest = std::max(largest, std::abs(Sx(i, 0)));
    zero_column = std::max(zero_column, std::abs(Sx(i, 1)));
  }
  BOOST_TEST(largest > 0.0);
  BOOST_TEST(zero_column == 0.0);
}

// When the sensitivities' GMRES missed KrylovSettings::sensitivity_tolerance, the run ended with
// callback_failures and counted each retry as a callback failure, though no callback had
// failed: the step listener's verdict could not say what failed. It now names the linear
// solver (TrialVerdict::failure): the run ends with linear_solver_failures, the message names
// GMRES and the setting, no callback failure is counted, and the last good state is kept.
BOOST_AUTO_TEST_CASE(a_sensitivity_gmres_that_missed_its_tolerance_was_reported_as_a_callback_failure) {
  brusselator_mol::Model model(20);
  declare(model, LinearSolverKind::krylov);
  esdirk::KrylovSettings settings = model.jacobian_structure().krylov;
  // No GMRES(5) without restarts reaches 1e-300 on these 40 unknowns. With a 30-vector basis and
  // restarts it can: it found the exact floating-point solution (true residual 0) of a stage
  // system once the sensitivities started from their extrapolated derivatives. The states'
  // solves need 1-2 iterations and do not notice.
  settings.sensitivity_tolerance = 1e-300;
  settings.dimension = 5;
  settings.max_restarts = 0;
  model.set_krylov_settings(settings);
  esdirk::Options options;
  options.rtol = options.atol = 1e-6;
  esdirk::Integrator integrator(model, options);
  const auto p = model.nominal_parameters();
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
  const int n = model.size();
  DenseMatrix seed(n + 3, 3);
  for (int l = 0; l < 3; ++l) seed(n + l, l) = p[static_cast<std::size_t>(l)];
  for (const bool error_control : {true, false}) {  // the trial verdict, and on_accept
    SensitivityOptions sensitivity;
    sensitivity.error_control = error_control;
    BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
    esdirk::ForwardSensitivity sens(integrator, sensitivity);
    BOOST_REQUIRE(esdirk::ok(sens.initialize(seed.cref())));
    std::vector<double> x(static_cast<std::size_t>(n));
    DenseMatrix Sx(n, 3);
    const auto outcome = sens.integrate_to(1.0, x, {}, Sx.ref());
    BOOST_TEST_INFO("error control " << error_control << ": " << sens.message());
    BOOST_TEST(std::string(esdirk::status_name(outcome.status)) == "linear_solver_failures");
    BOOST_TEST(sens.message().find("GMRES did not solve the stage sensitivities to "
                                   "KrylovSettings::sensitivity_tolerance") != std::string::npos);
    BOOST_TEST(integrator.statistics().callback_failures == 0);
    BOOST_TEST(sens.counters().linear_solver_failures > 0);
    // With error control no step passes its trial; without, the integrator accepts the first
    // step before the sensitivities fail on it, and they stay at its start.
    if (error_control) BOOST_TEST(integrator.t() == 0.0);
    BOOST_TEST(sens.t() == 0.0);
  }
}

// The sensitivities' stage solves M_i S_i = rhs use the step's preconditioner (the one set up
// for the states' M with J_n; KrylovSettings::sensitivity_step_preconditioner, the default):
// no preconditioner setup of their own, where a setup per implicit stage was made before (its
// ILU(0) was 7 % of the instructions on the 40 x 40 grid). Right preconditioning leaves the
// residual M_i's, so both solve the same stage systems to the same relative residual 1e-10:
// the sensitivities agree to far below the tolerance on the same steps.
BOOST_AUTO_TEST_CASE(sensitivity_stage_solves_use_the_step_preconditioner_without_a_setup_of_their_own) {
  const double rtol = 1e-6;
  const auto shared = brusselator_parameters(LinearSolverKind::krylov, {}, rtol, 20, 10.0);
  const auto own = brusselator_parameters(LinearSolverKind::krylov, {}, rtol, 20, 10.0,
                                          [](esdirk::KrylovSettings& s) { s.sensitivity_step_preconditioner = false; });
  const esdirk::Statistics &a = shared.sensitivity_counters, &b = own.sensitivity_counters;
  BOOST_TEST_MESSAGE("GMRES iterations per stage solve: step's preconditioner "
                     << static_cast<double>(a.linear_iterations) / a.back_substitutions << ", own setups "
                     << static_cast<double>(b.linear_iterations) / b.back_substitutions << "; setups " << b.preconditioner_setups);
  BOOST_TEST(a.preconditioner_setups == 0);
  BOOST_TEST(a.stage_factorizations == 0);
  BOOST_TEST(a.preconditioner_solves > 0);
  BOOST_TEST(a.linear_solver_failures == 0);
  BOOST_TEST(b.preconditioner_setups > 0);  // one per implicit stage of every solved step
  BOOST_TEST(b.preconditioner_setups == b.stage_factorizations);
  BOOST_TEST(shared.stats.accepted_steps == own.stats.accepted_steps);
  const double difference = relative_difference(shared.Sx.cref(), own.Sx.cref());
  BOOST_TEST_MESSAGE("sensitivities differ by " << difference);
  BOOST_TEST(difference <= 1e-8);
}

// The stage GMRES of all directions runs in lockstep, so that one pass of ILU(0) takes up to four
// vectors (1.8 - 2.1x faster per vector); each direction's iteration is still its own. With the
// sensitivities outside the error test the steps do not depend on them, so five directions at
// once (groups of 4 and 1, one of them with a zero seed) must give each direction's bits and
// GMRES work of a run with that direction alone.
BOOST_AUTO_TEST_CASE(stage_gmres_of_several_directions_together_gives_the_bits_of_one_at_a_time) {
  brusselator_mol::Model model(20);
  declare(model, LinearSolverKind::krylov);
  const int n = model.size();
  const auto p = model.nominal_parameters();
  DenseMatrix seeds(n + 3, 5);
  for (int l = 0; l < 3; ++l) seeds(n + l, l) = p[static_cast<std::size_t>(l)];
  seeds(0, 3) = 1.0;   // an initial state
  // column 4 stays zero
  SensitivityOptions sensitivity;
  sensitivity.error_control = false;
  const auto run = [&](ConstMatrixRef seed, DenseMatrix& Sx, esdirk::Statistics& counters) {
    esdirk::Options options;
    options.rtol = options.atol = 1e-6;
    esdirk::Integrator integrator(model, options);
    BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
    esdirk::ForwardSensitivity sens(integrator, sensitivity);
    BOOST_REQUIRE(esdirk::ok(sens.initialize(seed)));
    Sx.resize(n, seed.cols);
    std::vector<double> x(static_cast<std::size_t>(n));
    BOOST_REQUIRE_MESSAGE(esdirk::ok(sens.integrate_to(2.0, x, {}, Sx.ref()).status), sens.message());
    counters = sens.counters();
  };
  DenseMatrix together;
  esdirk::Statistics together_counters;
  run(seeds.cref(), together, together_counters);
  long iterations_alone = 0;
  int differing = 0;
  for (int c = 0; c < 5; ++c) {
    DenseMatrix seed(n + 3, 1), alone;
    for (int i = 0; i < n + 3; ++i) seed(i, 0) = seeds(i, c);
    esdirk::Statistics counters;
    run(seed.cref(), alone, counters);
    iterations_alone += counters.linear_iterations;
    for (int i = 0; i < n; ++i) differing += alone(i, 0) != together(i, c);
  }
  BOOST_TEST(together_counters.linear_iterations > 0);
  BOOST_TEST(differing == 0);
  BOOST_TEST(together_counters.linear_iterations == iterations_alone);
}

namespace {

// The 1-D Brusselator with a point-Jacobi preconditioner of its own (P = diag M) whose next
// `failing_solves` solves fail: with NaN in `out`, or with a failure code; `failures` counts
// the solves that failed.
class FailingPreconditioner : public brusselator_mol::Model {
 public:
  explicit FailingPreconditioner(bool nan) : Model(20), nan_(nan), diagonal_(40) {}
  bool has_preconditioner() const override { return true; }
  int preconditioner_setup(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
                           const esdirk::JacobianMatrix&, double h_gamma) override {
    for (int i = 0; i < 40; ++i) diagonal_[static_cast<std::size_t>(i)] = 1.0 - h_gamma * entry(x.data(), p.data(), i, i);
    return 0;
  }
  int preconditioner_solve(esdirk::ConstVector r, esdirk::Vector out, bool) override {
    for (int i = 0; i < 40; ++i) out[i] = r[i] / diagonal_[static_cast<std::size_t>(i)];
    if (failing_solves == 0) return 0;
    --failing_solves;
    ++failures;
    if (!nan_) return 1;
    out[3] = std::numeric_limits<double>::quiet_NaN();
    return 0;
  }
  int failing_solves = 0;
  int failures = 0;

 private:
  bool nan_;
  std::vector<double> diagonal_;
};

// Added before the sensitivities, so it sees each trial step first: from t = `from` on, as long
// as fewer than `failures` solves have failed, the next preconditioner solve fails. Its partner
// below, added after the sensitivities, disarms what the trial left: a trial whose sensitivities
// needed no GMRES (their extrapolated start solved every stage to the tolerance, as it does on
// small steps) must not hand the failure to the next trial's Newton iteration.
class FailInSensitivitySolves : public esdirk::StepListener {
 public:
  FailInSensitivitySolves(FailingPreconditioner& model, double from, int failures)
      : model_(model), from_(from), failures_(failures) {}
  esdirk::TrialVerdict on_trial(const esdirk::StepView& step) override {
    if (step.t >= from_ && model_.failures < failures_) model_.failing_solves = 1;
    return {};
  }
  esdirk::AcceptVerdict on_accept(const esdirk::StepView&, esdirk::DenseOutput&) override {
    return esdirk::AcceptVerdict::proceed();
  }

 private:
  FailingPreconditioner& model_;
  double from_;
  int failures_;
};

class DisarmAfterSensitivities : public esdirk::StepListener {
 public:
  explicit DisarmAfterSensitivities(FailingPreconditioner& model) : model_(model) {}
  esdirk::TrialVerdict on_trial(const esdirk::StepView&) override {
    model_.failing_solves = 0;
    return {};
  }
  esdirk::AcceptVerdict on_accept(const esdirk::StepView&, esdirk::DenseOutput&) override {
    return esdirk::AcceptVerdict::proceed();
  }

 private:
  FailingPreconditioner& model_;
};

}  // namespace

// A preconditioner that returns NaN or fails inside the sensitivities' stage GMRES (the step's
// preconditioner, or with sensitivity_step_preconditioner off the stage's own setup): the step
// is retried smaller with a status that names the linear solver. Once (from t = 0.5), and the
// run goes on to the sensitivities of a clean run (10 x rtol, other steps). On every trial from
// the first, with a stage tolerance no solve reaches without GMRES (1e-300, GMRES(5) without
// restarts: the extrapolated start alone solves the stages of small retried steps to 1e-10), and
// the run ends with linear_solver_failures and the initial state, no callback failure counted.
BOOST_AUTO_TEST_CASE(a_preconditioner_failing_in_the_sensitivity_solves_retries_the_step) {
  const double rtol = 1e-6;
  enum class Failures { none, once, every_trial };
  const auto run = [&](bool nan, bool step_preconditioner, Failures failures) {
    const bool every_trial = failures == Failures::every_trial;
    FailingPreconditioner model(nan);
    model.set_jacobian_pattern(model.pattern(), LinearSolverKind::krylov);
    esdirk::KrylovSettings settings = model.jacobian_structure().krylov;
    settings.sensitivity_step_preconditioner = step_preconditioner;
    if (every_trial) {
      settings.sensitivity_tolerance = 1e-300;
      settings.dimension = 5;
      settings.max_restarts = 0;
    }
    model.set_krylov_settings(settings);
    esdirk::Options options;
    options.rtol = options.atol = rtol;
    esdirk::Integrator integrator(model, options);
    const auto p = model.nominal_parameters();
    BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
    const int allowed = failures == Failures::none ? 0 : every_trial ? 1000000 : 1;
    FailInSensitivitySolves failing(model, every_trial ? 0.0 : 0.5, allowed);
    DisarmAfterSensitivities disarm(model);
    integrator.add_listener(failing);
    const SensitivityRun r = parameter_sensitivities(integrator, p, {}, 1.0, &disarm);
    BOOST_TEST_INFO("NaN " << nan << ", step's preconditioner " << step_preconditioner << ", failures "
                           << allowed << ": " << r.message);
    BOOST_TEST(r.stats.callback_failures == 0);
    if (!every_trial) {
      BOOST_TEST(esdirk::ok(r.status));
      BOOST_TEST(model.failures == allowed);
      BOOST_TEST(r.sensitivity_counters.linear_solver_failures == allowed);
    } else {
      BOOST_TEST(model.failures > 0);
      BOOST_TEST(std::string(esdirk::status_name(r.status)) == "linear_solver_failures");
      BOOST_TEST(r.message.find("GMRES did not solve the stage sensitivities") != std::string::npos);
      BOOST_TEST(r.t == 0.0);  // the last good state: the initial one
    }
    return r;
  };
  for (const bool step_preconditioner : {true, false}) {
    const auto clean = run(true, step_preconditioner, Failures::none);
    for (const bool nan : {true, false}) {
      const auto once = run(nan, step_preconditioner, Failures::once);
      BOOST_TEST_MESSAGE("one failed sensitivity solve: sensitivities differ from the clean run by "
                         << relative_difference(once.Sx.cref(), clean.Sx.cref()));
      BOOST_TEST(relative_difference(once.Sx.cref(), clean.Sx.cref()) <= 10.0 * rtol);
      run(nan, step_preconditioner, Failures::every_trial);
    }
  }
}

// sensitivity_error_fraction stops the stage GMRES at a fraction of rtol instead of 1e-10:
// fewer iterations, sensitivities no longer the discrete scheme's to rounding (theory 8d).
// Out of [0, 1) it is refused, naming the setting.
BOOST_AUTO_TEST_CASE(the_sensitivity_error_fraction_is_validated_and_loosens_the_stage_solves) {
  brusselator_mol::Model model(20);
  declare(model, LinearSolverKind::krylov);
  for (const double bad : {-0.1, 1.0, std::numeric_limits<double>::quiet_NaN()}) {
    esdirk::KrylovSettings settings = model.jacobian_structure().krylov;
    settings.sensitivity_error_fraction = bad;
    krylov_fixtures::expect_refused([&](const esdirk::KrylovSettings& s) { model.set_krylov_settings(s); }, settings,
                                    "sensitivity_error_fraction must be in [0, 1)");
  }
  const double rtol = 1e-6;
  const auto exact = brusselator_parameters(LinearSolverKind::krylov, {}, rtol, 20, 10.0);
  const auto loose = brusselator_parameters(LinearSolverKind::krylov, {}, rtol, 20, 10.0,
                                            [](esdirk::KrylovSettings& s) { s.sensitivity_error_fraction = 0.01; });
  const double difference = relative_difference(loose.Sx.cref(), exact.Sx.cref());
  BOOST_TEST_MESSAGE("GMRES iterations " << exact.sensitivity_counters.linear_iterations << " -> "
                                         << loose.sensitivity_counters.linear_iterations << ", sensitivities differ by "
                                         << difference);
  BOOST_TEST(loose.sensitivity_counters.linear_iterations < exact.sensitivity_counters.linear_iterations);
  BOOST_TEST(difference <= 0.1 * rtol);
}

BOOST_AUTO_TEST_SUITE_END()
