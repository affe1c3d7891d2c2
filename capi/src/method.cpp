// The C API of the method, the tolerance rule and LU/Jacobian reuse (esdirk_method.h), for
// every handle that owns integrator options: solver, shooting interval, reverse shooting
// interval, multiple-shooting evaluator and hybrid solver. One implementation (the templates
// below) serves them all; each setter checks its values with Options::validate on default
// options that differ only in them, so the rules and messages are the library's own, and an
// invalid value changes nothing.

#include <cmath>
#include <string>
#include <utility>

#include "esdirk/esdirk_method.h"
#include "hybrid_shim.hpp"
#include "multishoot_shim.hpp"
#include "shim.hpp"

using esdirk_capi::guarded;

namespace {

// --- What the setters need of each handle ----------------------------------------------------

// The integrator options the handle's next run uses.
esdirk::Options& options_of(esdirk_solver* h) { return h->options; }
esdirk::Options& options_of(esdirk_shooting* h) { return h->options; }
esdirk::Options& options_of(esdirk_reverse_shooting* h) { return h->options; }
esdirk::Options& options_of(esdirk_multishoot* h) { return h->options; }
esdirk::Options& options_of(esdirk_hybrid_solver* h) { return h->options.integrator; }
const esdirk::Options& options_of(const esdirk_solver* h) { return h->options; }
const esdirk::Options& options_of(const esdirk_shooting* h) { return h->options; }
const esdirk::Options& options_of(const esdirk_reverse_shooting* h) { return h->options; }
const esdirk::Options& options_of(const esdirk_multishoot* h) { return h->options; }
const esdirk::Options& options_of(const esdirk_hybrid_solver* h) { return h->options.integrator; }

// (nx, nz) of the handle's problem, for Options::validate.
template <class Handle>
std::pair<int, int> sizes_of(const Handle* h) {
  return {h->problem->problem->nx(), h->problem->problem->nz()};
}
std::pair<int, int> sizes_of(const esdirk_hybrid_solver* h) {
  return {h->model().nx(), h->model().nz()};
}

// After an option changed: the handles that keep their integrator between runs rebuild it.
void options_changed(esdirk_solver*) {}         // initialize makes a new integrator
void options_changed(esdirk_hybrid_solver*) {}  // initialize makes a new solver
void options_changed(esdirk_shooting* h) { h->options_changed = true; }
void options_changed(esdirk_reverse_shooting* h) { h->options_changed = true; }
void options_changed(esdirk_multishoot* h) { h->evaluator.reset(); }

// Why the handle can never use Jacobian reuse (it always differentiates), or null. The solver
// and the hybrid solver refuse it when sensitivities or an adjoint are started instead.
const char* reuse_refusal(const esdirk_solver*) { return nullptr; }
const char* reuse_refusal(const esdirk_hybrid_solver*) { return nullptr; }
const char* reuse_refusal(const esdirk_shooting*) {
  return "a shooting interval always computes sensitivities";
}
const char* reuse_refusal(const esdirk_reverse_shooting*) {
  return "a reverse shooting interval always runs an adjoint";
}
const char* reuse_refusal(const esdirk_multishoot*) {
  return "a multiple-shooting evaluator always computes sensitivities";
}

// The integrator of the last run (its method has "auto" resolved), or null.
const esdirk::Integrator* last_run(const esdirk_solver* h) { return h->integrator.get(); }
const esdirk::Integrator* last_run(const esdirk_shooting* h) {
  return h->interval ? &h->interval->integrator() : nullptr;
}
const esdirk::Integrator* last_run(const esdirk_reverse_shooting* h) {
  return h->interval ? &h->interval->integrator() : nullptr;
}
const esdirk::Integrator* last_run(const esdirk_hybrid_solver* h) {
  return h->solver ? &h->solver->integrator() : nullptr;
}

// Throws std::invalid_argument (prefixed by `who`) if `probe` is not valid for the handle.
template <class Handle>
void check(const esdirk::Options& probe, const Handle* h, const char* who) {
  const auto [nx, nz] = sizes_of(h);
  try {
    probe.validate(nx, nz);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(who) + ": " + e.what());
  }
}

// --- The setters, once ----------------------------------------------------------------------

template <class Handle>
int set_tolerance_rule(Handle* h, int rule, double calibration_factor) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  return guarded(h, [&]() -> int {
    esdirk::Options probe;
    switch (rule) {
      case ESDIRK_TOLERANCE_CALIBRATED:
        probe.tolerance_rule = esdirk::ToleranceRule::calibrated;
        break;
      case ESDIRK_TOLERANCE_RAW:
        probe.tolerance_rule = esdirk::ToleranceRule::raw;
        break;
      default:
        return h->fail(
            ESDIRK_INVALID_ARGUMENT,
            "set_tolerance_rule: rule " + std::to_string(rule) +
                " is neither ESDIRK_TOLERANCE_CALIBRATED (0) nor ESDIRK_TOLERANCE_RAW (1)");
    }
    probe.calibration_factor = calibration_factor;
    check(probe, h, "set_tolerance_rule");
    esdirk::Options& options = options_of(h);
    options.tolerance_rule = probe.tolerance_rule;
    options.calibration_factor = calibration_factor;
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

template <class Handle>
int set_method(Handle* h, const char* name) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!name) return h->fail(ESDIRK_NULL_ARGUMENT, "set_method: name is NULL");
  return guarded(h, [&]() -> int {
    esdirk::Tableau method;
    try {
      method = esdirk::Tableau::named(name);  // throws for an unknown name, listing the known
    } catch (const std::invalid_argument& e) {
      return h->fail(ESDIRK_INVALID_ARGUMENT, std::string("set_method: ") + e.what());
    }
    options_of(h).method = std::move(method);
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

template <class Handle>
const char* method_name(const Handle* h) {
  if (!h) return nullptr;
  const esdirk::Integrator* run = last_run(h);
  return run ? run->options().method.name.c_str() : options_of(h).method.name.c_str();
}
// The multiple-shooting evaluator keeps no integrator between evaluations; its intervals all
// take the method its options resolve to.
const char* method_name(const esdirk_multishoot* h) {
  if (!h) return nullptr;
  return h->evaluator ? h->method_in_use.c_str() : options_of(h).method.name.c_str();
}

template <class Handle>
int set_jacobian_reuse(Handle* h, int reuse, double contraction) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  return guarded(h, [&]() -> int {
    if (reuse != 0) {
      if (const char* why = reuse_refusal(h))
        return h->fail(ESDIRK_INVALID_ARGUMENT,
                       std::string("set_jacobian_reuse: reuse is a states-only option and ") + why +
                           " (they need the Jacobian at the start of every step)");
    }
    esdirk::Options probe;
    probe.reuse_jacobian = reuse != 0;
    probe.jacobian_reuse_contraction = contraction;
    check(probe, h, "set_jacobian_reuse");
    esdirk::Options& options = options_of(h);
    options.reuse_jacobian = probe.reuse_jacobian;
    options.jacobian_reuse_contraction = contraction;
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

template <class Handle>
int set_lu_reuse_h_change(Handle* h, double fraction) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  return guarded(h, [&]() -> int {
    esdirk::Options probe;
    probe.lu_reuse_h_change = fraction;
    check(probe, h, "set_lu_reuse_h_change");
    options_of(h).lu_reuse_h_change = fraction;
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

template <class Handle>
int set_keep_step_ratio(Handle* h, double low, double high) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  return guarded(h, [&]() -> int {
    if (!std::isfinite(high))
      return h->fail(ESDIRK_INVALID_ARGUMENT, "set_keep_step_ratio: high must be finite");
    // The bound high <= max_step_ratio is checked when the options are used, against the
    // controller then set (a controller setter may come after this call).
    esdirk::Options probe;
    probe.keep_step_ratio_low = low;
    probe.keep_step_ratio_high = high;
    if (high > probe.max_step_ratio) probe.max_step_ratio = high;
    check(probe, h, "set_keep_step_ratio");
    esdirk::Options& options = options_of(h);
    options.keep_step_ratio_low = low;
    options.keep_step_ratio_high = high;
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

template <class Handle>
int set_newton_test(Handle* h, int test, double rate_floor) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  return guarded(h, [&]() -> int {
    esdirk::Options probe;
    switch (test) {
      case ESDIRK_NEWTON_CONTRACTION_RATE:
        probe.newton_test = esdirk::NewtonTest::contraction_rate;
        break;
      case ESDIRK_NEWTON_CORRECTION:
        probe.newton_test = esdirk::NewtonTest::preconditioned_residual;
        break;
      case ESDIRK_NEWTON_RESIDUAL:
        probe.newton_test = esdirk::NewtonTest::residual;
        break;
      default:
        return h->fail(ESDIRK_INVALID_ARGUMENT,
                       "set_newton_test: test " + std::to_string(test) +
                           " is none of ESDIRK_NEWTON_CONTRACTION_RATE (0), ESDIRK_NEWTON_CORRECTION "
                           "(1), ESDIRK_NEWTON_RESIDUAL (2)");
    }
    probe.newton_rate_floor = rate_floor;
    check(probe, h, "set_newton_test");
    esdirk::Options& options = options_of(h);
    options.newton_test = probe.newton_test;
    options.newton_rate_floor = rate_floor;
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

template <class Handle>
int set_difference_increment(Handle* h, int rule) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  return guarded(h, [&]() -> int {
    esdirk::DifferenceIncrement increment;
    switch (rule) {
      case ESDIRK_DIFFERENCE_ERROR_WEIGHTED:
        increment = esdirk::DifferenceIncrement::error_weighted;
        break;
      case ESDIRK_DIFFERENCE_RELATIVE:
        increment = esdirk::DifferenceIncrement::relative;
        break;
      default:
        return h->fail(ESDIRK_INVALID_ARGUMENT,
                       "set_difference_increment: rule " + std::to_string(rule) +
                           " is none of ESDIRK_DIFFERENCE_ERROR_WEIGHTED (0), "
                           "ESDIRK_DIFFERENCE_RELATIVE (1)");
    }
    options_of(h).difference_increment = increment;
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

}  // namespace

extern "C" {

int esdirk_solver_set_difference_increment(esdirk_solver* s, int rule) {
  return set_difference_increment(s, rule);
}
int esdirk_shooting_set_difference_increment(esdirk_shooting* s, int rule) {
  return set_difference_increment(s, rule);
}
int esdirk_reverse_shooting_set_difference_increment(esdirk_reverse_shooting* s, int rule) {
  return set_difference_increment(s, rule);
}
int esdirk_multishoot_set_difference_increment(esdirk_multishoot* s, int rule) {
  return set_difference_increment(s, rule);
}
int esdirk_hybrid_solver_set_difference_increment(esdirk_hybrid_solver* s, int rule) {
  return set_difference_increment(s, rule);
}

int esdirk_solver_set_newton_test(esdirk_solver* s, int test, double rate_floor) {
  return set_newton_test(s, test, rate_floor);
}
int esdirk_shooting_set_newton_test(esdirk_shooting* s, int test, double rate_floor) {
  return set_newton_test(s, test, rate_floor);
}
int esdirk_reverse_shooting_set_newton_test(esdirk_reverse_shooting* s, int test, double rate_floor) {
  return set_newton_test(s, test, rate_floor);
}
int esdirk_multishoot_set_newton_test(esdirk_multishoot* s, int test, double rate_floor) {
  return set_newton_test(s, test, rate_floor);
}
int esdirk_hybrid_solver_set_newton_test(esdirk_hybrid_solver* s, int test, double rate_floor) {
  return set_newton_test(s, test, rate_floor);
}

// --- esdirk_solver -------------------------------------------------------------------------
int esdirk_solver_set_tolerance_rule(esdirk_solver* s, int rule, double calibration_factor) {
  return set_tolerance_rule(s, rule, calibration_factor);
}
int esdirk_solver_set_method(esdirk_solver* s, const char* name) { return set_method(s, name); }
const char* esdirk_solver_method_name(const esdirk_solver* s) { return method_name(s); }
int esdirk_solver_set_jacobian_reuse(esdirk_solver* s, int reuse, double contraction) {
  return set_jacobian_reuse(s, reuse, contraction);
}
int esdirk_solver_set_keep_step_ratio(esdirk_solver* s, double low, double high) {
  return set_keep_step_ratio(s, low, high);
}
int esdirk_solver_set_lu_reuse_h_change(esdirk_solver* s, double fraction) {
  return set_lu_reuse_h_change(s, fraction);
}

// --- esdirk_shooting -----------------------------------------------------------------------
int esdirk_shooting_set_tolerance_rule(esdirk_shooting* s, int rule, double calibration_factor) {
  return set_tolerance_rule(s, rule, calibration_factor);
}
int esdirk_shooting_set_method(esdirk_shooting* s, const char* name) { return set_method(s, name); }
const char* esdirk_shooting_method_name(const esdirk_shooting* s) { return method_name(s); }
int esdirk_shooting_set_jacobian_reuse(esdirk_shooting* s, int reuse, double contraction) {
  return set_jacobian_reuse(s, reuse, contraction);
}
int esdirk_shooting_set_keep_step_ratio(esdirk_shooting* s, double low, double high) {
  return set_keep_step_ratio(s, low, high);
}

// --- esdirk_reverse_shooting ---------------------------------------------------------------
int esdirk_reverse_shooting_set_tolerance_rule(esdirk_reverse_shooting* s, int rule,
                                               double calibration_factor) {
  return set_tolerance_rule(s, rule, calibration_factor);
}
int esdirk_reverse_shooting_set_method(esdirk_reverse_shooting* s, const char* name) {
  return set_method(s, name);
}
const char* esdirk_reverse_shooting_method_name(const esdirk_reverse_shooting* s) {
  return method_name(s);
}
int esdirk_reverse_shooting_set_jacobian_reuse(esdirk_reverse_shooting* s, int reuse,
                                               double contraction) {
  return set_jacobian_reuse(s, reuse, contraction);
}
int esdirk_reverse_shooting_set_keep_step_ratio(esdirk_reverse_shooting* s, double low,
                                                double high) {
  return set_keep_step_ratio(s, low, high);
}

// --- esdirk_multishoot ---------------------------------------------------------------------
int esdirk_multishoot_set_tolerance_rule(esdirk_multishoot* s, int rule,
                                         double calibration_factor) {
  return set_tolerance_rule(s, rule, calibration_factor);
}
int esdirk_multishoot_set_method(esdirk_multishoot* s, const char* name) {
  return set_method(s, name);
}
const char* esdirk_multishoot_method_name(const esdirk_multishoot* s) { return method_name(s); }
int esdirk_multishoot_set_jacobian_reuse(esdirk_multishoot* s, int reuse, double contraction) {
  return set_jacobian_reuse(s, reuse, contraction);
}
int esdirk_multishoot_set_keep_step_ratio(esdirk_multishoot* s, double low, double high) {
  return set_keep_step_ratio(s, low, high);
}

// --- esdirk_hybrid_solver ------------------------------------------------------------------
int esdirk_hybrid_solver_set_tolerance_rule(esdirk_hybrid_solver* s, int rule,
                                            double calibration_factor) {
  return set_tolerance_rule(s, rule, calibration_factor);
}
int esdirk_hybrid_solver_set_method(esdirk_hybrid_solver* s, const char* name) {
  return set_method(s, name);
}
const char* esdirk_hybrid_solver_method_name(const esdirk_hybrid_solver* s) {
  return method_name(s);
}
int esdirk_hybrid_solver_set_jacobian_reuse(esdirk_hybrid_solver* s, int reuse,
                                            double contraction) {
  return set_jacobian_reuse(s, reuse, contraction);
}
int esdirk_hybrid_solver_set_keep_step_ratio(esdirk_hybrid_solver* s, double low, double high) {
  return set_keep_step_ratio(s, low, high);
}
int esdirk_hybrid_solver_set_lu_reuse_h_change(esdirk_hybrid_solver* s, double fraction) {
  return set_lu_reuse_h_change(s, fraction);
}

int esdirk_method_stages(const char* name, double rtol) {
  if (!name) return -1;
  try {
    esdirk::Options o;
    o.method = esdirk::Tableau::named(name);
    if (o.method.is_automatic()) {
      if (!(rtol > 0.0) || !std::isfinite(rtol)) return -1;
      o.rtol = rtol;
    }
    return o.resolved_method().stages;
  } catch (const std::exception&) {
    return -1;  // an unknown name
  }
}

}  // extern "C"
