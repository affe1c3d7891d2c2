#pragma once
// Integrator options: a plain struct with documented defaults and validate().

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "esdirk/tableau.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

/// How the Newton iteration of a stage decides it has converged (see doc/integrator-theory.md).
enum class NewtonTest {
  /// Converged when the correction just computed, m_k = ||M^{-1} R(X_i, Z_i)|| in the error
  /// weights, is <= newton_tolerance; the correction is then applied (the default before the
  /// rate-based test; Options::seed002() keeps it).
  preconditioned_residual,
  residual,  ///< as the paper: ||R|| on the differential rows, M^{-1} R on the algebraic
  /// Measured as preconditioned_residual, but converged when the error left after applying the
  /// correction, estimated from the observed contraction rate theta = m_k/m_{k-1} (at least
  /// Options::newton_fresh_rate_floor with a Jacobian of this step, Options::newton_rate_floor
  /// with one kept from an earlier step) as eta m_k with eta = theta/(1 - theta), is <=
  /// newton_tolerance (Hairer & Wanner, Solving ODEs II, IV.8; RADAU5). Before the stage has
  /// shown a rate, eta is the previous stage's eta^0.8 (of its last observed rate, see
  /// Options::newton_carry_observed_rate), and 1 at the first implicit stage of every attempt
  /// (so an attempt depends only on its start and h). Usually one iteration fewer per stage
  /// (default).
  contraction_rate,
};

/// Where the Newton iteration of a stage starts (see doc/integrator-theory.md section 2).
enum class StagePredictor {
  previous_stage,  ///< as the paper: X from the previous stage derivative, Z inter-/extrapolated
  /// Stage 2 from the last step's continuous extension (as RADAU5), the later stages as
  /// stage_extrapolation; without a last step (the first step, after a restart or an event)
  /// stage 2 as stage_extrapolation. 1-17 % fewer Newton iterations than stage_extrapolation on
  /// the reference problems. A step depends on the one before it only through stage 2's starting
  /// value, which StepView::stage_start carries: Integrator::resume hands it back, so
  /// checkpoints and Trajectory replays repeat the run bit for bit. Where that start fails (the
  /// model leaves its domain or gives a non-finite value, or the iteration diverges with no
  /// Jacobian refresh left) stage 2 starts again from the stage extrapolation, once
  /// (Statistics::stage_start_fallbacks). Not the default: Dow with its default atol follows it
  /// to an accepted state outside the model's domain (doc/integrator-theory.md section 3).
  dense_output,
  /// The stage derivatives F_j and algebraic values Z_j of the same step's earlier stages
  /// extrapolated to the node c_i by the polynomial through their nodes (at most five: all of
  /// them for ESDIRK34 and ESDIRK436), X_i = base_i + h gamma F_i^pred. A step depends only on
  /// its start and h. 15-25 % fewer Newton iterations than previous_stage on the reference
  /// problems and the 1-D Brusselator (default).
  stage_extrapolation,
};

/// When the stepper forms a new Jacobian and a new LU (doc/integrator-theory.md section 8a).
enum class FactorizationPolicy {
  /// J at (t_n, x_n, z_n) and an LU of M every step (unless Options::reuse_jacobian is on).
  every_step,
  /// J and its LU are kept for the next step (and the LU for a step whose h gamma differs by at
  /// most 30 %) when, by the cost model of lu_reuse_pays(), the LU costs more than
  /// reuse_cost_ratio Newton iterations; J alone, with an LU every step, when J does
  /// (jacobian_reuse_pays()); otherwise as every_step. Decided once per run at the
  /// first factorization, from the declared Jacobian structure (structural_factorization_cost),
  /// so the decision is the same on every machine and for every back-end. Never while forward sensitivities, an adjoint or a Trajectory are
  /// attached (they need J at t_n of every step, and a replay that repeats each step bit for
  /// bit): then as every_step. Default.
  automatic,
};

/// How the tolerances the user gives become the tolerances of the error test (see
/// doc/integrator-theory.md section 4a).
enum class ToleranceRule {
  /// The achieved global error is about rtol: the error test uses kappa * rtol^(q/(q-1)) (q =
  /// the controller order, 4 for ESDIRK34) with the absolute tolerances scaled alike, because
  /// error-per-step control of an order q-1 method gives a global error ~ tol^((q-1)/q).
  calibrated,
  /// Kristensen et al. 2005: the error test uses rtol and atol as given (global error ~ 4
  /// rtol^(3/4)).
  raw,
};

/// How forward-difference Jacobians choose the increment of column j (doc/integrator-guide.md
/// section 1, "Jacobians: analytic, by differences, and checked"; doc/integrator-theory.md
/// section 2b). v_j is the state, atol_j and rtol_j the tolerances of its error test.
enum class DifferenceIncrement {
  /// sqrt(eps) max(|v_j|, min(F_j, typical_j)) with F_j = atol_j/rtol_j, the magnitude under
  /// which the error test measures state j absolutely (for an algebraic state at most
  /// atol_j/sqrt(eps), so that its increment never exceeds atol_j), and typical_j the
  /// evaluator's typical value (default 1). Relative to the state above that magnitude; a state
  /// that is tiny but not zero is moved by enough to rise above the rounding of the large terms
  /// that cancel in its rows. F_j = 0 where rtol_j = 0. Default.
  error_weighted,
  /// MINPACK's rule: sqrt(eps) |v_j|, and sqrt(eps) times the typical value of j
  /// (JacobianEvaluator::set_typical_values, default 1) only where v_j is exactly zero. The
  /// columns of tiny nonzero states can be wrong by O(1) (Dow's u4, u9, u10 in the first steps;
  /// Robertson's DAE fails).
  relative,
};

/// What Options::method asks for: "auto" (the Integrator picks a member of the family by the
/// tolerance, Options::automatic_method()) or one method. The method a run takes is
/// Integrator::method() (or Options::resolved_method()); a choice is never a tableau itself.
class MethodChoice {
 public:
  /// "auto" (the default of Options::method).
  static MethodChoice automatic() { return MethodChoice(); }
  /// One method. Implicit, so that `options.method = Tableau::esdirk436();` reads naturally.
  MethodChoice(Tableau tableau) : tableau_(std::move(tableau)) {}
  /// "auto" or a member by its name (Tableau::named: "ESDIRK34", "ESDIRK436", "ESDIRK547",
  /// "ESDIRK23", "ESDIRK12"); throws std::invalid_argument for any other name, listing the known ones.
  static MethodChoice named(const std::string& name) {
    return name == automatic_name ? automatic() : MethodChoice(Tableau::named(name));
  }
  bool is_automatic() const { return !tableau_.has_value(); }
  /// The chosen method. "auto" has none: std::logic_error (ask Integrator::method() or
  /// Options::resolved_method() for the member it resolves to).
  const Tableau& tableau() const {
    if (!tableau_)
      throw std::logic_error("MethodChoice: \"auto\" is not a method; the member it resolves to is "
                             "Integrator::method() or Options::resolved_method()");
    return *tableau_;
  }
  /// "auto" or the method's name.
  const std::string& name() const {
    static const std::string automatic_label(automatic_name);
    return tableau_ ? tableau_->name : automatic_label;
  }

 private:
  static constexpr const char* automatic_name = "auto";
  MethodChoice() = default;
  std::optional<Tableau> tableau_;
};

struct ESDIRK_API Options {
  // --- Tolerances -------------------------------------------------------------------------
  /// Scalar relative and absolute tolerances of the error test (Kristensen et al. 2005 eq. 21),
  /// used for every component unless the per-component vectors below are set.
  double rtol = 1e-6;
  double atol = 1e-6;
  /// Per-component tolerances of the differential states (size nx), overriding the scalars.
  std::vector<double> rtol_vector;
  std::vector<double> atol_vector;
  /// Absolute tolerances of the algebraic states (size nz); the Newton test on z uses weights
  /// algebraic_atol + rtol|z|. Empty: the scalar atol.
  std::vector<double> algebraic_atol;
  /// The calibrated rule (default: achieved error about rtol) or the paper's raw tolerances.
  ToleranceRule tolerance_rule = ToleranceRule::calibrated;
  /// kappa of the calibrated rule; 0 takes the method's measured constant
  /// (Tableau::tolerance_factor). Must be 0 or finite and > 0.
  double calibration_factor = 0.0;

  // --- Method -----------------------------------------------------------------------------
  /// The Runge-Kutta method: "auto" (default, MethodChoice::automatic()), which the Integrator
  /// resolves by the tolerance (automatic_method(): ESDIRK436 at and below rtol 1e-3, ESDIRK34
  /// above), or one method (a Tableau, e.g. Tableau::esdirk436(), or MethodChoice::named).
  /// The method a run takes is Integrator::method() (or resolved_method()); an Integrator's
  /// options() keep the choice as it was given.
  MethodChoice method = MethodChoice::automatic();

  /// Filter the error estimate through the iteration matrix, e <- M^{-1} [e; 0] (Shampine's filter
  /// for stiff problems, as RADAU5). Off: the raw estimate h sum d_i F_i of Kristensen et al. 2005.
  bool filter_error_estimate = false;

  // --- Step sizes -------------------------------------------------------------------------
  double initial_step = 0.0;  ///< |h0|; 0 chooses it from f(t0) (Hairer-Wanner heuristic)
  double max_step = std::numeric_limits<double>::infinity();  ///< bound on |h|
  double min_step = 0.0;    ///< |h| below max(min_step, 16 ulp(t)) ends with step_size_too_small
  long max_steps = 500000;  ///< attempted steps per call of integrate_to() / step()

  // --- Step-size controller (Kristensen et al. 2005 eq. 29, with the safeguards of mature codes)
  bool predictive_controller = true;   ///< Gustafsson's law (29); false: asymptotic law (27)
  double controller_k1 = 1.0;          ///< observer gain k1 of (29)
  double controller_k2 = 1.0;          ///< observer gain k2 of (29)
  double safety = 0.9;                 ///< safety factor: the target error is safety^q times tol
  double min_step_ratio = 0.2;         ///< smallest h_new/h after an accepted step or rejection
  /// Smallest h_new/h from the second error-test rejection in a row on, where the observed
  /// order of two rejected attempts is known: a first step far beyond a fast transient (of the
  /// sensitivities of a cold-started shooting interval, say) can have an error norm of 1e15
  /// that falls only like h, which cuts by min_step_ratio could not reach within
  /// max_error_test_failures. In (0, 1); the floor used is the smaller of this and
  /// min_step_ratio. seed002() sets it to min_step_ratio (one floor, as the seed).
  double repeated_rejection_min_ratio = 1e-3;
  double max_step_ratio = 5.0;         ///< largest h_new/h
  double previous_error_floor = 1e-2;  ///< floor on the stored r_{n-1} (as RADAU5)
  int max_error_test_failures = 12;    ///< consecutive error-test rejections before giving up
  /// Keep h when the controller proposes h_new/h in [keep_step_ratio_low, keep_step_ratio_high]
  /// after an accepted step (as RADAU5's quot1, quot2), so that with reuse_jacobian the next step
  /// reuses the LU as well. Need 0 < low <= 1 <= high <= max_step_ratio; [1, 1]: h always moves
  /// (doc/integrator-guide.md, "LU and Jacobian reuse").
  double keep_step_ratio_low = 1.0;
  double keep_step_ratio_high = 1.0;

  // --- Newton iteration -------------------------------------------------------------------
  NewtonTest newton_test = NewtonTest::contraction_rate;
  StagePredictor stage_predictor = StagePredictor::stage_extrapolation;
  int max_newton_iterations = 8;  ///< per stage
  /// Converged when the tested quantity of newton_test (in the error weights) is <= this.
  double newton_tolerance = 0.1;
  /// NewtonTest::contraction_rate with a Jacobian kept from an earlier step: the smallest
  /// contraction rate its error estimate trusts; in [0, 1). A stage's first rate is often far
  /// below its next (doc/integrator-theory.md §3). A Jacobian of this step uses
  /// newton_fresh_rate_floor.
  double newton_rate_floor = 0.03;
  /// NewtonTest::contraction_rate, while the stage's iteration matrix holds a Jacobian formed in
  /// this step (at t_n, or refreshed at a stage iterate), not one kept from an earlier step: the
  /// rate floor instead of newton_rate_floor; in [0, 1). With newton_carry_observed_rate it takes
  /// ESDIRK436 from 2.07, 2.08, 2.00 and 2.55 Newton iterations per stage to 1.42, 1.64, 1.40 and
  /// 2.14 on Robertson ODE, DAE, Van der Pol and Dow at the same steps and within the same
  /// accuracy band (doc/integrator-theory.md section 3, "Fewer iterations with a fresh
  /// Jacobian"). The previous test, one floor for every Jacobian and the floored rate carried:
  /// newton_fresh_rate_floor = newton_rate_floor and newton_carry_observed_rate = false.
  double newton_fresh_rate_floor = 0.003;
  /// NewtonTest::contraction_rate, with a Jacobian formed in this step: the first test of the
  /// next stage starts from the last rate the converged stage observed, not floored (as
  /// RADAU5); false: from its floored rate (the previous test, see newton_fresh_rate_floor).
  bool newton_carry_observed_rate = true;
  double reference_contraction =
      0.3;  ///< alpha_ref: above it the next step ratio is alpha_ref/alpha
  double newton_failure_factor = 0.25;     ///< h reduction after a failure with unknown rate
  double newton_failure_min_factor = 0.1;  ///< the smallest reduction factor after a failure
  double newton_limit_growth = 1.5;        ///< growth per step of the cap set by a Newton failure
  int max_newton_failures = 12;            ///< consecutive convergence failures before giving up
  /// Newton recovery before the step is cut (doc/integrator-theory.md section 3): when a stage
  /// iteration diverges or contracts too slowly to converge, form J at the stage's best iterate,
  /// refactor M and restart the stage from there, at most this many times per stage
  /// (0: the paper's behaviour, the step fails and is retried with a smaller h).
  int max_jacobian_refreshes = 4;
  /// Where the model reports an iterate outside its domain (a callback returning > 0 or a
  /// non-finite value), halve the Newton correction up to this many times before the attempt
  /// counts as a callback failure (0: no damping).
  int max_newton_dampings = 10;
  int max_callback_failures = 12;          ///< consecutive recoverable callback failures / NaNs
  /// States only: keep the Jacobian of the last step for the next one while its Newton
  /// iterations contracted at least as fast as jacobian_reuse_contraction (and no stage needed a
  /// refreshed Jacobian); a Newton failure makes the retry form J at t_n again. The steps then
  /// depend on the steps before them, so ForwardSensitivity and Adjoint refuse it (their
  /// derivatives need J at t_n of each step) and a Trajectory replay is not bit for bit. Every
  /// back-end (dense, banded, sparse). Off: J at t_n every step (the seed).
  bool reuse_jacobian = false;
  /// The Newton contraction rate below which the Jacobian is kept for the next step; in (0, 1).
  double jacobian_reuse_contraction = 0.1;
  /// Whether the stepper decides by cost to keep J and the LU (FactorizationPolicy::automatic,
  /// default) or forms both every step. Options::reuse_jacobian = true overrides it (reuse
  /// whenever Newton contracts fast, with lu_reuse_h_change).
  FactorizationPolicy factorization_policy = FactorizationPolicy::automatic;
  /// FactorizationPolicy::automatic: keep J and the LU when the LU costs more than this many
  /// Newton iterations, J alone when J does (a stale matrix costs 1-1.3 more iterations per step
  /// on the grids, 4.5-5.8 on the small dense problems; doc/integrator-theory.md section 8a).
  /// Finite and > 0.
  double reuse_cost_ratio = 5.0;
  /// With reuse_jacobian: the kept LU of M = E - h' gamma J also serves a step whose h gamma
  /// differs from h' gamma by at most this fraction (CVODES keeps its matrix while gamma
  /// changes by less than 30 %), so h may change without a new LU; the Newton iteration
  /// converges to the same stage values, a little more slowly. 0: only a step of the same h
  /// (keep_step_ratio_*). In [0, 1). Pays on grids whose factors fill in (2-D: 0.3 with
  /// keep_step_ratio_high = 1 saves 20-25 % over same-h reuse; doc/linear-solvers-guide.md).
  double lu_reuse_h_change = 0.0;

  // --- Difference Jacobians (when the problem supplies no jacobian()) ----------------------
  /// The increment of each difference column (see DifferenceIncrement).
  DifferenceIncrement difference_increment = DifferenceIncrement::error_weighted;

  // --- Consistent initialization of z -----------------------------------------------------
  int max_initialization_iterations = 30;
  double initialization_tolerance = 1e-6;  ///< on the weighted norm of the Newton correction

  /// Throws std::invalid_argument naming the first invalid option. nx and nz are the
  /// problem's sizes, for the per-component vectors.
  void validate(int nx, int nz) const;

  /// The relative tolerance the error test uses for a given user rtol: under the calibrated
  /// rule max(kappa rtol^(q/(q-1)), F (rtol/F)^(1/10)) with F = internal_rtol_floor (rtol itself
  /// when rtol <= F), under ToleranceRule::raw
  /// rtol itself. Absolute tolerances scale by the same factor internal_rtol(rtol) / rtol.
  /// q and kappa are those of resolved_method() (with method "auto", the member it takes).
  double internal_rtol(double rtol) const;
  /// The calibrated rule never asks for less than this (unless rtol itself is smaller).
  static constexpr double internal_rtol_floor = 1e-13;

  /// The configuration of Kristensen et al. 2005: raw tolerances, ESDIRK34, the paper's stage
  /// predictors, Newton stopped on the size of its correction and no Newton recovery (a failing
  /// Newton cuts h). Pair with SensitivityOptions::seed002() to reproduce the paper's Table 1.
  static Options seed002();

  /// What method = "auto" becomes: the member that reaches the requested accuracy at the least
  /// cost on the reference problems for this rtol (the smallest of rtol_vector, if set); see
  /// doc/integrator-guide.md for the measured choice.
  Tableau automatic_method() const;
  /// The method a run with these options takes: `method`, or automatic_method() when it is
  /// "auto". Size storage by its stage count (e.g. Trajectory::reserve).
  Tableau resolved_method() const { return method.is_automatic() ? automatic_method() : method.tableau(); }
  /// rtol at and below which "auto" takes the order-4 member (ESDIRK436) instead of ESDIRK34
  /// (above it ESDIRK436's error exceeds 10 x rtol on Dow; doc/integrator-guide.md section 6).
  static constexpr double automatic_high_order_from = 1e-3;
};

}  // namespace esdirk
