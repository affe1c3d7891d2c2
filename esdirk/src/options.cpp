#include "esdirk/options.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "internal/format_number.hpp"

namespace esdirk {
namespace {

[[noreturn]] void invalid(const std::string& what) {
  throw std::invalid_argument("invalid option: " + what);
}

void require(bool condition, const char* name, const char* rule, double value) {
  if (!condition)
    invalid(std::string(name) + " must be " + rule + " (got " + internal::format_number(value) + ")");
}

void check_vector(const std::vector<double>& v, std::size_t expected, const char* name,
                  bool positive) {
  if (v.empty()) return;
  if (v.size() != expected)
    invalid(std::string(name) + " has " + std::to_string(v.size()) + " entries, expected " +
            std::to_string(expected));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool good = std::isfinite(v[i]) && (positive ? v[i] > 0.0 : v[i] >= 0.0);
    if (!good)
      invalid(std::string(name) + "[" + std::to_string(i) + "] must be finite and " +
              (positive ? "> 0" : ">= 0") + " (got " + internal::format_number(v[i]) + ")");
  }
}

// The member "auto" takes for these tolerances. The two members are built once: ErrorWeights
// asks once per component, which must not build a tableau each time.
const Tableau& automatic_member(double rtol, const std::vector<double>& rtol_vector) {
  static const Tableau low_order = Tableau::esdirk34();
  static const Tableau high_order = Tableau::esdirk436();
  double r = rtol;
  for (double v : rtol_vector) r = std::min(r, v);
  return r <= Options::automatic_high_order_from ? high_order : low_order;
}

}  // namespace

double Options::internal_rtol(double r) const {
  if (tolerance_rule == ToleranceRule::raw || !(r > 0.0)) return r;
  // Error-per-step control with an estimate of order q (local error h^q) gives h ~ tol^(1/q)
  // and a global error ~ h^p of the propagated order p: ~ tol^(p/q). The rule asks for
  // kappa rtol^(q/p), so that the global error is ~ rtol: 4/3 for ESDIRK34 (p = 3, q = 4), 1 for
  // ESDIRK436 and ESDIRK547, which propagate the higher-order solution (p = q).
  // "auto" has no order of its own: the rule is that of the member it resolves to (as the
  // Integrator resolves it), so ErrorWeights built from unresolved options are the run's.
  const Tableau& m = method.is_automatic() ? automatic_member(rtol, rtol_vector) : method.tableau();
  const double q = m.controller_order();
  const double p = m.order;
  const double kappa = calibration_factor > 0.0 ? calibration_factor : m.tolerance_factor;
  // Never below floor (r/floor)^(1/10) (or r itself below the floor): tighter than ~1e-13 the
  // rounding of the stage equations of O(1) states (a few ulp) reaches the Newton tolerance and
  // the error test. The floor still rises with rtol, so the error stays monotone in rtol.
  const double floor = r <= internal_rtol_floor ? r : internal_rtol_floor * std::pow(r / internal_rtol_floor, 0.1);
  return std::max(kappa * std::pow(r, q / p), floor);
}

Tableau Options::automatic_method() const { return automatic_member(rtol, rtol_vector); }

Options Options::seed002() {
  Options o;
  o.tolerance_rule = ToleranceRule::raw;
  o.method = Tableau::esdirk34();
  o.stage_predictor = StagePredictor::previous_stage;
  o.newton_test = NewtonTest::preconditioned_residual;
  o.max_jacobian_refreshes = 0;
  o.max_newton_dampings = 0;
  o.repeated_rejection_min_ratio = o.min_step_ratio;
  o.reuse_jacobian = false;  // J at t_n every step
  o.factorization_policy = FactorizationPolicy::every_step;
  o.keep_step_ratio_low = 1.0;
  o.keep_step_ratio_high = 1.0;
  return o;
}

void Options::validate(int nx, int nz) const {
  // A relative tolerance above 1 asks for no accuracy at all; 1e300 overflowed the internal
  // tolerance and the difference increments derived from it.
  require(rtol >= 0.0 && rtol <= 1.0, "rtol", "in [0, 1]", rtol);
  require(std::isfinite(atol) && atol >= 0.0, "atol", "finite and >= 0", atol);
  check_vector(rtol_vector, static_cast<std::size_t>(nx), "rtol_vector", false);
  for (std::size_t i = 0; i < rtol_vector.size(); ++i)
    if (rtol_vector[i] > 1.0)
      invalid("rtol_vector[" + std::to_string(i) + "] must be in [0, 1] (got " +
              internal::format_number(rtol_vector[i]) + ")");
  check_vector(atol_vector, static_cast<std::size_t>(nx), "atol_vector", false);
  check_vector(algebraic_atol, static_cast<std::size_t>(nz), "algebraic_atol", true);
  // A zero weight denominator would make the error norm infinite as soon as x_i = 0.
  for (int i = 0; i < nx; ++i) {
    const double r = rtol_vector.empty() ? rtol : rtol_vector[static_cast<std::size_t>(i)];
    const double a = atol_vector.empty() ? atol : atol_vector[static_cast<std::size_t>(i)];
    if (!(a > 0.0) && !(r > 0.0))
      invalid("rtol and atol are both zero for component " + std::to_string(i));
    if (!(a > 0.0))
      invalid("atol must be > 0 for component " + std::to_string(i) +
              " (pure relative tolerances fail at x = 0)");
  }
  if (nz > 0 && algebraic_atol.empty())
    require(atol > 0.0, "atol", "> 0 (it weighs the algebraic states)", atol);
  if (tolerance_rule != ToleranceRule::calibrated && tolerance_rule != ToleranceRule::raw)
    invalid("tolerance_rule is neither calibrated nor raw");
  require(calibration_factor == 0.0 || (std::isfinite(calibration_factor) && calibration_factor > 0.0),
          "calibration_factor", "0 (the method's) or finite and > 0", calibration_factor);
  if (!method.is_automatic()) method.tableau().validate();
  require(std::isfinite(initial_step) && initial_step >= 0.0, "initial_step", "finite and >= 0",
          initial_step);
  require(max_step > 0.0, "max_step", "> 0", max_step);
  require(std::isfinite(min_step) && min_step >= 0.0 && min_step < max_step, "min_step",
          "finite, >= 0 and < max_step", min_step);
  require(max_steps > 0, "max_steps", "> 0", static_cast<double>(max_steps));
  require(std::isfinite(controller_k1) && controller_k1 >= 0.0, "controller_k1", ">= 0",
          controller_k1);
  require(std::isfinite(controller_k2) && controller_k2 > 0.0, "controller_k2", "> 0",
          controller_k2);
  require(safety > 0.0 && safety <= 1.0, "safety", "in (0, 1]", safety);
  require(min_step_ratio > 0.0 && min_step_ratio < 1.0, "min_step_ratio", "in (0, 1)",
          min_step_ratio);
  require(repeated_rejection_min_ratio > 0.0 && repeated_rejection_min_ratio < 1.0,
          "repeated_rejection_min_ratio", "in (0, 1)", repeated_rejection_min_ratio);
  require(std::isfinite(max_step_ratio) && max_step_ratio > 1.0, "max_step_ratio", "finite and > 1",
          max_step_ratio);
  require(previous_error_floor > 0.0 && previous_error_floor <= 1.0, "previous_error_floor",
          "in (0, 1]", previous_error_floor);
  require(max_error_test_failures >= 1, "max_error_test_failures", ">= 1", max_error_test_failures);
  require(keep_step_ratio_low > 0.0 && keep_step_ratio_low <= 1.0, "keep_step_ratio_low", "in (0, 1]",
          keep_step_ratio_low);
  require(keep_step_ratio_high >= 1.0 && keep_step_ratio_high <= max_step_ratio, "keep_step_ratio_high",
          "in [1, max_step_ratio]", keep_step_ratio_high);
  require(jacobian_reuse_contraction > 0.0 && jacobian_reuse_contraction < 1.0,
          "jacobian_reuse_contraction", "in (0, 1)", jacobian_reuse_contraction);
  require(lu_reuse_h_change >= 0.0 && lu_reuse_h_change < 1.0, "lu_reuse_h_change", "in [0, 1)",
          lu_reuse_h_change);
  if (factorization_policy != FactorizationPolicy::every_step && factorization_policy != FactorizationPolicy::automatic)
    invalid("factorization_policy is neither every_step nor automatic (got " +
            std::to_string(static_cast<int>(factorization_policy)) + ")");
  require(std::isfinite(reuse_cost_ratio) && reuse_cost_ratio > 0.0, "reuse_cost_ratio", "finite and > 0",
          reuse_cost_ratio);
  if (stage_predictor != StagePredictor::dense_output && stage_predictor != StagePredictor::previous_stage &&
      stage_predictor != StagePredictor::stage_extrapolation)
    invalid("stage_predictor is none of stage_extrapolation, previous_stage, dense_output");
  if (difference_increment != DifferenceIncrement::error_weighted &&
      difference_increment != DifferenceIncrement::relative)
    invalid("difference_increment is neither error_weighted nor relative (got " +
            std::to_string(static_cast<int>(difference_increment)) + ")");
  if (newton_test != NewtonTest::preconditioned_residual && newton_test != NewtonTest::residual &&
      newton_test != NewtonTest::contraction_rate)
    invalid("newton_test is none of preconditioned_residual, residual, contraction_rate (got " +
            std::to_string(static_cast<int>(newton_test)) + ")");
  require(max_newton_iterations >= 1, "max_newton_iterations", ">= 1", max_newton_iterations);
  require(newton_tolerance > 0.0 && newton_tolerance < 1.0, "newton_tolerance", "in (0, 1)",
          newton_tolerance);
  require(newton_rate_floor >= 0.0 && newton_rate_floor < 1.0, "newton_rate_floor", "in [0, 1)",
          newton_rate_floor);
  require(newton_fresh_rate_floor >= 0.0 && newton_fresh_rate_floor < 1.0,
          "newton_fresh_rate_floor", "in [0, 1)", newton_fresh_rate_floor);
  require(reference_contraction > 0.0 && reference_contraction < 1.0, "reference_contraction",
          "in (0, 1)", reference_contraction);
  require(newton_failure_factor > 0.0 && newton_failure_factor < 1.0, "newton_failure_factor",
          "in (0, 1)", newton_failure_factor);
  require(newton_failure_min_factor > 0.0 && newton_failure_min_factor < 1.0,
          "newton_failure_min_factor", "in (0, 1)", newton_failure_min_factor);
  require(std::isfinite(newton_limit_growth) && newton_limit_growth > 1.0, "newton_limit_growth",
          "finite and > 1", newton_limit_growth);
  require(max_newton_failures >= 1, "max_newton_failures", ">= 1", max_newton_failures);
  require(max_jacobian_refreshes >= 0 && max_jacobian_refreshes <= 100, "max_jacobian_refreshes",
          "in [0, 100]", max_jacobian_refreshes);
  require(max_newton_dampings >= 0 && max_newton_dampings <= 60, "max_newton_dampings", "in [0, 60]",
          max_newton_dampings);
  require(max_callback_failures >= 1, "max_callback_failures", ">= 1", max_callback_failures);
  require(max_initialization_iterations >= 1, "max_initialization_iterations", ">= 1",
          max_initialization_iterations);
  require(initialization_tolerance > 0.0 && initialization_tolerance < 1.0,
          "initialization_tolerance", "in (0, 1)", initialization_tolerance);
}

}  // namespace esdirk
