// The options object of the C API (esdirk_options.h). Each setting is one row of the table
// below: what it copies and whether Options::validate checks it. A setter checks its value at
// once, with the library's own rules and messages (Options::validate on default options that
// differ only in the setting), and esdirk_<handle>_set_options checks the settings again
// against the handle's sizes before copying them (handle_options.hpp).

#include <cmath>
#include <iterator>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include "handle_options.hpp"

using esdirk_capi::guarded;

namespace {

struct Setting {
  unsigned bit;
  const char* who;                        // the prefix of its messages
  bool validated;                         // Options::validate checks it
  void (*copy)(const esdirk::Options& from, esdirk::Options& to);
};

constexpr Setting settings[] = {
    {esdirk_capi::set_tolerances, "set_tolerances", false,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.rtol = f.rtol;
       t.atol = f.atol;
     }},
    {esdirk_capi::set_tolerance_rule, "set_tolerance_rule", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.tolerance_rule = f.tolerance_rule;
       t.calibration_factor = f.calibration_factor;
     }},
    {esdirk_capi::set_method, "set_method", false,
     [](const esdirk::Options& f, esdirk::Options& t) { t.method = f.method; }},
    {esdirk_capi::set_jacobian_reuse, "set_jacobian_reuse", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.reuse_jacobian = f.reuse_jacobian;
       t.jacobian_reuse_contraction = f.jacobian_reuse_contraction;
     }},
    {esdirk_capi::set_lu_reuse_h_change, "set_lu_reuse_h_change", true,
     [](const esdirk::Options& f, esdirk::Options& t) { t.lu_reuse_h_change = f.lu_reuse_h_change; }},
    {esdirk_capi::set_keep_step_ratio, "set_keep_step_ratio", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.keep_step_ratio_low = f.keep_step_ratio_low;
       t.keep_step_ratio_high = f.keep_step_ratio_high;
     }},
    {esdirk_capi::set_newton_test, "set_newton_test", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.newton_test = f.newton_test;
       t.newton_rate_floor = f.newton_rate_floor;
     }},
    {esdirk_capi::set_newton_fresh_rate, "set_newton_fresh_rate", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.newton_fresh_rate_floor = f.newton_fresh_rate_floor;
       t.newton_carry_observed_rate = f.newton_carry_observed_rate;
     }},
    {esdirk_capi::set_algebraic_atol, "set_algebraic_atol", false,
     [](const esdirk::Options& f, esdirk::Options& t) { t.algebraic_atol = f.algebraic_atol; }},
    {esdirk_capi::set_difference_increment, "set_difference_increment", false,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.difference_increment = f.difference_increment;
     }},
    {esdirk_capi::set_step_limits, "set_step_limits", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.initial_step = f.initial_step;
       t.min_step = f.min_step;
       t.max_step = f.max_step;
       t.max_steps = f.max_steps;
     }},
    {esdirk_capi::set_controller, "set_controller", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.predictive_controller = f.predictive_controller;
       t.controller_k1 = f.controller_k1;
       t.controller_k2 = f.controller_k2;
       t.safety = f.safety;
       t.min_step_ratio = f.min_step_ratio;
       t.max_step_ratio = f.max_step_ratio;
     }},
    {esdirk_capi::set_newton, "set_newton", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.max_newton_iterations = f.max_newton_iterations;
       t.newton_tolerance = f.newton_tolerance;
       t.reference_contraction = f.reference_contraction;
     }},
    {esdirk_capi::set_failure_limits, "set_failure_limits", true,
     [](const esdirk::Options& f, esdirk::Options& t) {
       t.max_error_test_failures = f.max_error_test_failures;
       t.max_newton_failures = f.max_newton_failures;
       t.max_callback_failures = f.max_callback_failures;
     }},
    {esdirk_capi::set_filter_error_estimate, "set_filter_error_estimate", false,
     [](const esdirk::Options& f, esdirk::Options& t) { t.filter_error_estimate = f.filter_error_estimate; }},
};

// Throws std::invalid_argument prefixed by the setter's name if `setting` of `values` is not
// valid for (nx, nz).
void check_one(const Setting& setting, const esdirk::Options& values, int nx, int nz) {
  if (!setting.validated) return;
  esdirk::Options probe;
  setting.copy(values, probe);
  // The bound keep_step_ratio_high <= max_step_ratio is checked when the options are used,
  // against the controller then set (a controller setter may come later).
  if (probe.keep_step_ratio_high > probe.max_step_ratio)
    probe.max_step_ratio = probe.keep_step_ratio_high;
  try {
    probe.validate(nx, nz);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(setting.who) + ": " + e.what());
  }
}

const Setting& setting_of(unsigned bit) {
  for (const Setting& s : settings)
    if (s.bit == bit) return s;
  throw std::logic_error("unknown option setting");
}

// A setter: `body` writes the value into a copy of the object's values (or fails with a
// message); the copy is checked (unless `checked` is false: the deprecated setters whose handle
// checked the value only at its run) and kept only if valid, so a refused value changes nothing.
template <class Body>
int set(esdirk_options* o, unsigned bit, Body&& body, bool checked = true) {
  if (!o) return ESDIRK_NULL_ARGUMENT;
  return guarded(o, [&]() -> int {
    esdirk::Options next = o->values;
    const int status = body(next);
    if (status != ESDIRK_SUCCESS) return status;
    if (checked) check_one(setting_of(bit), next, 1, 0);  // the sizes matter only when applied
    o->values = std::move(next);
    o->set |= bit;
    o->message.clear();
    return ESDIRK_SUCCESS;
  });
}

}  // namespace

namespace esdirk_capi {

void check_settings(const esdirk_options& options, int nx, int nz) {
  for (const Setting& s : settings)
    if (options.set & s.bit) check_one(s, options.values, nx, nz);
}

void copy_settings(const esdirk_options& from, esdirk::Options& to) {
  for (const Setting& s : settings)
    if (from.set & s.bit) s.copy(from.values, to);
}

namespace setter {

int step_limits(esdirk_options* o, bool checked, double initial_step, double min_step, double max_step,
                    long max_steps) {
  return set(
      o, esdirk_capi::set_step_limits,
      [&](esdirk::Options& next) -> int {
        next.initial_step = initial_step;
        next.min_step = min_step;
        next.max_step = max_step;
        next.max_steps = max_steps;
        return ESDIRK_SUCCESS;
      },
      checked);
}

int controller(esdirk_options* o, bool checked, int predictive, double k1, double k2, double safety,
                   double min_step_ratio, double max_step_ratio) {
  return set(
      o, esdirk_capi::set_controller,
      [&](esdirk::Options& next) -> int {
        next.predictive_controller = predictive != 0;
        next.controller_k1 = k1;
        next.controller_k2 = k2;
        next.safety = safety;
        next.min_step_ratio = min_step_ratio;
        next.max_step_ratio = max_step_ratio;
        return ESDIRK_SUCCESS;
      },
      checked);
}

int newton(esdirk_options* o, bool checked, int max_iterations, double tolerance,
               double reference_contraction) {
  return set(
      o, esdirk_capi::set_newton,
      [&](esdirk::Options& next) -> int {
        next.max_newton_iterations = max_iterations;
        next.newton_tolerance = tolerance;
        next.reference_contraction = reference_contraction;
        return ESDIRK_SUCCESS;
      },
      checked);
}

int failure_limits(esdirk_options* o, bool checked, int max_error_test_failures, int max_newton_failures,
                       int max_callback_failures) {
  return set(
      o, esdirk_capi::set_failure_limits,
      [&](esdirk::Options& next) -> int {
        next.max_error_test_failures = max_error_test_failures;
        next.max_newton_failures = max_newton_failures;
        next.max_callback_failures = max_callback_failures;
        return ESDIRK_SUCCESS;
      },
      checked);
}

int filter_error_estimate(esdirk_options* o, bool, int filter) {
  return set(o, esdirk_capi::set_filter_error_estimate, [&](esdirk::Options& next) -> int {
    next.filter_error_estimate = filter != 0;
    return ESDIRK_SUCCESS;
  });
}

}  // namespace setter

}  // namespace esdirk_capi

extern "C" {

int esdirk_options_create(esdirk_options** options) {
  if (!options) return ESDIRK_NULL_ARGUMENT;
  *options = new (std::nothrow) esdirk_options();
  return *options ? ESDIRK_SUCCESS : ESDIRK_OUT_OF_MEMORY;
}

void esdirk_options_free(esdirk_options** options) { esdirk_capi::free_handle(options); }

const char* esdirk_options_last_error(const esdirk_options* options) {
  return options ? options->text() : "options is NULL";
}

int esdirk_options_set_tolerances(esdirk_options* o, double rtol, double atol) {
  return set(o, esdirk_capi::set_tolerances, [&](esdirk::Options& next) -> int {
    if (!esdirk_capi::tolerances_ok(rtol, atol))
      return o->fail(ESDIRK_INVALID_ARGUMENT, esdirk_capi::tolerances_message);
    next.rtol = rtol;
    next.atol = atol;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_algebraic_atol(esdirk_options* o, const double* atol, esdirk_int nz) {
  if (o && !esdirk_capi::vector_ok(atol, nz))
    return o->fail(ESDIRK_NULL_ARGUMENT, "set_algebraic_atol: atol is NULL");
  return set(o, esdirk_capi::set_algebraic_atol, [&](esdirk::Options& next) -> int {
    // A negative nz is kept as given: set_options refuses it against the problem's nz.
    if (nz > 0) next.algebraic_atol.assign(atol, atol + nz);
    else next.algebraic_atol.clear();
    o->algebraic_atol_length = nz;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_tolerance_rule(esdirk_options* o, int rule, double calibration_factor) {
  return set(o, esdirk_capi::set_tolerance_rule, [&](esdirk::Options& next) -> int {
    switch (rule) {
      case ESDIRK_TOLERANCE_CALIBRATED: next.tolerance_rule = esdirk::ToleranceRule::calibrated; break;
      case ESDIRK_TOLERANCE_RAW: next.tolerance_rule = esdirk::ToleranceRule::raw; break;
      default:
        return o->fail(ESDIRK_INVALID_ARGUMENT,
                       "set_tolerance_rule: rule " + std::to_string(rule) +
                           " is neither ESDIRK_TOLERANCE_CALIBRATED (0) nor ESDIRK_TOLERANCE_RAW (1)");
    }
    next.calibration_factor = calibration_factor;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_method(esdirk_options* o, const char* name) {
  if (o && !name) return o->fail(ESDIRK_NULL_ARGUMENT, "set_method: name is NULL");
  return set(o, esdirk_capi::set_method, [&](esdirk::Options& next) -> int {
    try {
      next.method = esdirk::MethodChoice::named(name);  // throws for an unknown name, listing the known
    } catch (const std::invalid_argument& e) {
      return o->fail(ESDIRK_INVALID_ARGUMENT, std::string("set_method: ") + e.what());
    }
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_jacobian_reuse(esdirk_options* o, int reuse, double contraction) {
  return set(o, esdirk_capi::set_jacobian_reuse, [&](esdirk::Options& next) -> int {
    next.reuse_jacobian = reuse != 0;
    next.jacobian_reuse_contraction = contraction;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_lu_reuse_h_change(esdirk_options* o, double fraction) {
  return set(o, esdirk_capi::set_lu_reuse_h_change, [&](esdirk::Options& next) -> int {
    next.lu_reuse_h_change = fraction;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_keep_step_ratio(esdirk_options* o, double low, double high) {
  return set(o, esdirk_capi::set_keep_step_ratio, [&](esdirk::Options& next) -> int {
    if (!std::isfinite(high))
      return o->fail(ESDIRK_INVALID_ARGUMENT, "set_keep_step_ratio: high must be finite");
    next.keep_step_ratio_low = low;
    next.keep_step_ratio_high = high;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_newton_test(esdirk_options* o, int test, double rate_floor) {
  return set(o, esdirk_capi::set_newton_test, [&](esdirk::Options& next) -> int {
    switch (test) {
      case ESDIRK_NEWTON_CONTRACTION_RATE: next.newton_test = esdirk::NewtonTest::contraction_rate; break;
      case ESDIRK_NEWTON_CORRECTION: next.newton_test = esdirk::NewtonTest::preconditioned_residual; break;
      case ESDIRK_NEWTON_RESIDUAL: next.newton_test = esdirk::NewtonTest::residual; break;
      default:
        return o->fail(ESDIRK_INVALID_ARGUMENT,
                       "set_newton_test: test " + std::to_string(test) +
                           " is none of ESDIRK_NEWTON_CONTRACTION_RATE (0), ESDIRK_NEWTON_CORRECTION "
                           "(1), ESDIRK_NEWTON_RESIDUAL (2)");
    }
    next.newton_rate_floor = rate_floor;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_newton_fresh_rate(esdirk_options* o, double fresh_rate_floor, int carry_observed_rate) {
  return set(o, esdirk_capi::set_newton_fresh_rate, [&](esdirk::Options& next) -> int {
    if (carry_observed_rate != 0 && carry_observed_rate != 1)
      return o->fail(ESDIRK_INVALID_ARGUMENT, "set_newton_fresh_rate: carry_observed_rate must be 0 or 1 (got " +
                                                  std::to_string(carry_observed_rate) + ")");
    next.newton_fresh_rate_floor = fresh_rate_floor;
    next.newton_carry_observed_rate = carry_observed_rate == 1;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_difference_increment(esdirk_options* o, int rule) {
  return set(o, esdirk_capi::set_difference_increment, [&](esdirk::Options& next) -> int {
    switch (rule) {
      case ESDIRK_DIFFERENCE_ERROR_WEIGHTED: next.difference_increment = esdirk::DifferenceIncrement::error_weighted; break;
      case ESDIRK_DIFFERENCE_RELATIVE: next.difference_increment = esdirk::DifferenceIncrement::relative; break;
      default:
        return o->fail(ESDIRK_INVALID_ARGUMENT,
                       "set_difference_increment: rule " + std::to_string(rule) +
                           " is none of ESDIRK_DIFFERENCE_ERROR_WEIGHTED (0), "
                           "ESDIRK_DIFFERENCE_RELATIVE (1)");
    }
    return ESDIRK_SUCCESS;
  });
}

int esdirk_options_set_step_limits(esdirk_options* o, double initial_step, double min_step, double max_step,
                                   long max_steps) {
  return esdirk_capi::setter::step_limits(o, true, initial_step, min_step, max_step, max_steps);
}

int esdirk_options_set_controller(esdirk_options* o, int predictive, double k1, double k2, double safety,
                                  double min_step_ratio, double max_step_ratio) {
  return esdirk_capi::setter::controller(o, true, predictive, k1, k2, safety, min_step_ratio, max_step_ratio);
}

int esdirk_options_set_newton(esdirk_options* o, int max_iterations, double tolerance,
                              double reference_contraction) {
  return esdirk_capi::setter::newton(o, true, max_iterations, tolerance, reference_contraction);
}

int esdirk_options_set_failure_limits(esdirk_options* o, int max_error_test_failures, int max_newton_failures,
                                      int max_callback_failures) {
  return esdirk_capi::setter::failure_limits(o, true, max_error_test_failures, max_newton_failures,
                                         max_callback_failures);
}

int esdirk_options_set_filter_error_estimate(esdirk_options* o, int filter) {
  return esdirk_capi::setter::filter_error_estimate(o, true, filter);
}

// Not integrator options (esdirk::Options): kept beside them and copied by set_options into
// the handles that have them (handle_options.hpp). The messages are the words of the setters
// they replace (esdirk_solver_set_sensitivity_options, esdirk_solver_set_adjoint).
int esdirk_options_set_sensitivity(esdirk_options* o, int mode, int error_control) {
  if (!o) return ESDIRK_NULL_ARGUMENT;
  esdirk::SensitivityMode chosen = esdirk::SensitivityMode::exact;
  if (mode == ESDIRK_SENSITIVITY_PAPER)
    chosen = esdirk::SensitivityMode::paper;
  else if (mode != ESDIRK_SENSITIVITY_EXACT)
    return o->fail(ESDIRK_INVALID_ARGUMENT,
                   "set_sensitivity: mode must be ESDIRK_SENSITIVITY_EXACT or _PAPER");
  o->sensitivity.mode = chosen;
  // ESDIRK_ERROR_CONTROL_DEFAULT (< 0): the library's choice for the mode; 0 off; > 0 on.
  o->sensitivity.error_control =
      error_control < 0 ? std::optional<bool>{} : std::optional<bool>{error_control != 0};
  o->set |= esdirk_capi::set_sensitivity;
  o->message.clear();
  return ESDIRK_SUCCESS;
}

int esdirk_options_set_adjoint(esdirk_options* o, int record, long memory_budget) {
  if (!o) return ESDIRK_NULL_ARGUMENT;
  if (memory_budget < 0)
    return o->fail(ESDIRK_INVALID_ARGUMENT, "set_adjoint: memory_budget must be >= 0 (0 keeps every step)");
  o->record_adjoint = record != 0;
  o->memory_budget = memory_budget;
  o->set |= esdirk_capi::set_adjoint;
  o->message.clear();
  return ESDIRK_SUCCESS;
}

int esdirk_solver_set_options(esdirk_solver* h, const esdirk_options* o) {
  return esdirk_capi::apply_options(h, o);
}
int esdirk_shooting_set_options(esdirk_shooting* h, const esdirk_options* o) {
  return esdirk_capi::apply_options(h, o);
}
int esdirk_reverse_shooting_set_options(esdirk_reverse_shooting* h, const esdirk_options* o) {
  return esdirk_capi::apply_options(h, o);
}
int esdirk_multishoot_set_options(esdirk_multishoot* h, const esdirk_options* o) {
  return esdirk_capi::apply_options(h, o);
}
int esdirk_hybrid_solver_set_options(esdirk_hybrid_solver* h, const esdirk_options* o) {
  return esdirk_capi::apply_options(h, o);
}

}  // extern "C"
