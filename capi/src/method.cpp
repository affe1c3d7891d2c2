// The C API of the method, the tolerance rule and LU/Jacobian reuse (esdirk_method.h). Each
// setter checks its values with Options::validate on default options that differ only in
// them, so the rules and messages are the library's own, and an invalid value changes nothing.

#include <cmath>
#include <string>

#include "esdirk/esdirk_method.h"
#include "shim.hpp"

using esdirk_capi::guarded;

namespace {

// Throws std::invalid_argument (prefixed by `who`) if `probe` is not valid.
void check(const esdirk::Options& probe, const esdirk_solver* s, const char* who) {
  try {
    probe.validate(s->problem->problem->nx(), s->problem->problem->nz());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(who) + ": " + e.what());
  }
}

}  // namespace

extern "C" {

int esdirk_solver_set_tolerance_rule(esdirk_solver* s, int rule, double calibration_factor) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  return guarded(s, [&]() -> int {
    esdirk::Options probe;
    switch (rule) {
      case ESDIRK_TOLERANCE_CALIBRATED: probe.tolerance_rule = esdirk::ToleranceRule::calibrated; break;
      case ESDIRK_TOLERANCE_RAW: probe.tolerance_rule = esdirk::ToleranceRule::raw; break;
      default:
        return s->fail(ESDIRK_INVALID_ARGUMENT,
                       "set_tolerance_rule: rule " + std::to_string(rule) +
                           " is neither ESDIRK_TOLERANCE_CALIBRATED (0) nor ESDIRK_TOLERANCE_RAW (1)");
    }
    probe.calibration_factor = calibration_factor;
    check(probe, s, "set_tolerance_rule");
    s->options.tolerance_rule = probe.tolerance_rule;
    s->options.calibration_factor = calibration_factor;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_set_method(esdirk_solver* s, const char* name) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  if (!name) return s->fail(ESDIRK_NULL_ARGUMENT, "set_method: name is NULL");
  return guarded(s, [&]() -> int {
    esdirk::Tableau method;
    try {
      method = esdirk::Tableau::named(name);  // throws for an unknown name, listing the known
    } catch (const std::invalid_argument& e) {
      return s->fail(ESDIRK_INVALID_ARGUMENT, std::string("set_method: ") + e.what());
    }
    s->options.method = std::move(method);
    return ESDIRK_SUCCESS;
  });
}

const char* esdirk_solver_method_name(const esdirk_solver* s) {
  if (!s) return nullptr;
  return s->integrator ? s->integrator->options().method.name.c_str()
                       : s->options.method.name.c_str();
}

int esdirk_solver_set_jacobian_reuse(esdirk_solver* s, int reuse, double contraction) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  return guarded(s, [&]() -> int {
    esdirk::Options probe;
    probe.reuse_jacobian = reuse != 0;
    probe.jacobian_reuse_contraction = contraction;
    check(probe, s, "set_jacobian_reuse");
    s->options.reuse_jacobian = probe.reuse_jacobian;
    s->options.jacobian_reuse_contraction = contraction;
    return ESDIRK_SUCCESS;
  });
}

int esdirk_solver_set_keep_step_ratio(esdirk_solver* s, double low, double high) {
  if (!s) return ESDIRK_NULL_ARGUMENT;
  return guarded(s, [&]() -> int {
    if (!std::isfinite(high))
      return s->fail(ESDIRK_INVALID_ARGUMENT, "set_keep_step_ratio: high must be finite");
    // The bound high <= max_step_ratio is checked at initialize, against the controller then
    // set (esdirk_solver_set_controller may come after this call).
    esdirk::Options probe;
    probe.keep_step_ratio_low = low;
    probe.keep_step_ratio_high = high;
    if (high > probe.max_step_ratio) probe.max_step_ratio = high;
    check(probe, s, "set_keep_step_ratio");
    s->options.keep_step_ratio_low = low;
    s->options.keep_step_ratio_high = high;
    return ESDIRK_SUCCESS;
  });
}

}  // extern "C"
