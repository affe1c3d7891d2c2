// The per-handle setters of esdirk_method.h, deprecated: each sets one option on a temporary
// options object and applies it (esdirk_capi::through_options, handle_options.hpp), so the
// checks, statuses and messages are those of esdirk_options.h. And what stays per handle: the
// name of the method in use, and the stage count of a method.

#include <cmath>
#include <string>

#include "esdirk/esdirk_method.h"
#include "handle_options.hpp"

using esdirk_capi::options_of;
using esdirk_capi::through_options;

namespace {

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

template <class Handle>
const char* method_name(const Handle* h) {
  if (!h) return nullptr;
  const esdirk::Integrator* run = last_run(h);
  return run ? run->method().name.c_str() : options_of(h).method.name().c_str();
}
// The multiple-shooting evaluator keeps no integrator between evaluations; its intervals all
// take the method its options resolve to.
const char* method_name(const esdirk_multishoot* h) {
  if (!h) return nullptr;
  return h->evaluator ? h->method_in_use.c_str() : options_of(h).method.name().c_str();
}

// Jacobian reuse: a handle that always differentiates refuses reuse before the contraction is
// looked at, as the per-handle setter always did (the options object checks the contraction
// when it is set and the handle's refusal when it is applied).
template <class Handle>
int jacobian_reuse(Handle* h, int reuse, double contraction) {
  if (h && reuse != 0 && esdirk_capi::reuse_refusal(h)) {
    esdirk_options reuse_on;
    reuse_on.values.reuse_jacobian = true;
    reuse_on.set = esdirk_capi::set_jacobian_reuse;
    return esdirk_capi::apply_options(h, &reuse_on);  // fails with the handle's refusal
  }
  return through_options(h, esdirk_options_set_jacobian_reuse, reuse, contraction);
}

}  // namespace

extern "C" {

// --- esdirk_solver (deprecated setters) ---
int esdirk_solver_set_tolerance_rule(esdirk_solver* h, int rule, double calibration_factor) {
  return through_options(h, esdirk_options_set_tolerance_rule, rule, calibration_factor);
}
int esdirk_solver_set_method(esdirk_solver* h, const char* name) {
  return through_options(h, esdirk_options_set_method, name);
}
int esdirk_solver_set_jacobian_reuse(esdirk_solver* h, int reuse, double contraction) {
  return jacobian_reuse(h, reuse, contraction);
}
int esdirk_solver_set_keep_step_ratio(esdirk_solver* h, double low, double high) {
  return through_options(h, esdirk_options_set_keep_step_ratio, low, high);
}
int esdirk_solver_set_newton_test(esdirk_solver* h, int test, double rate_floor) {
  return through_options(h, esdirk_options_set_newton_test, test, rate_floor);
}
int esdirk_solver_set_difference_increment(esdirk_solver* h, int rule) {
  return through_options(h, esdirk_options_set_difference_increment, rule);
}
int esdirk_solver_set_lu_reuse_h_change(esdirk_solver* h, double fraction) {
  return through_options(h, esdirk_options_set_lu_reuse_h_change, fraction);
}
const char* esdirk_solver_method_name(const esdirk_solver* h) { return method_name(h); }

// --- esdirk_shooting (deprecated setters) ---
int esdirk_shooting_set_tolerance_rule(esdirk_shooting* h, int rule, double calibration_factor) {
  return through_options(h, esdirk_options_set_tolerance_rule, rule, calibration_factor);
}
int esdirk_shooting_set_method(esdirk_shooting* h, const char* name) {
  return through_options(h, esdirk_options_set_method, name);
}
int esdirk_shooting_set_jacobian_reuse(esdirk_shooting* h, int reuse, double contraction) {
  return jacobian_reuse(h, reuse, contraction);
}
int esdirk_shooting_set_keep_step_ratio(esdirk_shooting* h, double low, double high) {
  return through_options(h, esdirk_options_set_keep_step_ratio, low, high);
}
int esdirk_shooting_set_newton_test(esdirk_shooting* h, int test, double rate_floor) {
  return through_options(h, esdirk_options_set_newton_test, test, rate_floor);
}
int esdirk_shooting_set_difference_increment(esdirk_shooting* h, int rule) {
  return through_options(h, esdirk_options_set_difference_increment, rule);
}
const char* esdirk_shooting_method_name(const esdirk_shooting* h) { return method_name(h); }

// --- esdirk_reverse_shooting (deprecated setters) ---
int esdirk_reverse_shooting_set_tolerance_rule(esdirk_reverse_shooting* h, int rule, double calibration_factor) {
  return through_options(h, esdirk_options_set_tolerance_rule, rule, calibration_factor);
}
int esdirk_reverse_shooting_set_method(esdirk_reverse_shooting* h, const char* name) {
  return through_options(h, esdirk_options_set_method, name);
}
int esdirk_reverse_shooting_set_jacobian_reuse(esdirk_reverse_shooting* h, int reuse, double contraction) {
  return jacobian_reuse(h, reuse, contraction);
}
int esdirk_reverse_shooting_set_keep_step_ratio(esdirk_reverse_shooting* h, double low, double high) {
  return through_options(h, esdirk_options_set_keep_step_ratio, low, high);
}
int esdirk_reverse_shooting_set_newton_test(esdirk_reverse_shooting* h, int test, double rate_floor) {
  return through_options(h, esdirk_options_set_newton_test, test, rate_floor);
}
int esdirk_reverse_shooting_set_difference_increment(esdirk_reverse_shooting* h, int rule) {
  return through_options(h, esdirk_options_set_difference_increment, rule);
}
const char* esdirk_reverse_shooting_method_name(const esdirk_reverse_shooting* h) { return method_name(h); }

// --- esdirk_multishoot (deprecated setters) ---
int esdirk_multishoot_set_tolerance_rule(esdirk_multishoot* h, int rule, double calibration_factor) {
  return through_options(h, esdirk_options_set_tolerance_rule, rule, calibration_factor);
}
int esdirk_multishoot_set_method(esdirk_multishoot* h, const char* name) {
  return through_options(h, esdirk_options_set_method, name);
}
int esdirk_multishoot_set_jacobian_reuse(esdirk_multishoot* h, int reuse, double contraction) {
  return jacobian_reuse(h, reuse, contraction);
}
int esdirk_multishoot_set_keep_step_ratio(esdirk_multishoot* h, double low, double high) {
  return through_options(h, esdirk_options_set_keep_step_ratio, low, high);
}
int esdirk_multishoot_set_newton_test(esdirk_multishoot* h, int test, double rate_floor) {
  return through_options(h, esdirk_options_set_newton_test, test, rate_floor);
}
int esdirk_multishoot_set_difference_increment(esdirk_multishoot* h, int rule) {
  return through_options(h, esdirk_options_set_difference_increment, rule);
}
const char* esdirk_multishoot_method_name(const esdirk_multishoot* h) { return method_name(h); }

// --- esdirk_hybrid_solver (deprecated setters) ---
int esdirk_hybrid_solver_set_tolerance_rule(esdirk_hybrid_solver* h, int rule, double calibration_factor) {
  return through_options(h, esdirk_options_set_tolerance_rule, rule, calibration_factor);
}
int esdirk_hybrid_solver_set_method(esdirk_hybrid_solver* h, const char* name) {
  return through_options(h, esdirk_options_set_method, name);
}
int esdirk_hybrid_solver_set_jacobian_reuse(esdirk_hybrid_solver* h, int reuse, double contraction) {
  return jacobian_reuse(h, reuse, contraction);
}
int esdirk_hybrid_solver_set_keep_step_ratio(esdirk_hybrid_solver* h, double low, double high) {
  return through_options(h, esdirk_options_set_keep_step_ratio, low, high);
}
int esdirk_hybrid_solver_set_newton_test(esdirk_hybrid_solver* h, int test, double rate_floor) {
  return through_options(h, esdirk_options_set_newton_test, test, rate_floor);
}
int esdirk_hybrid_solver_set_difference_increment(esdirk_hybrid_solver* h, int rule) {
  return through_options(h, esdirk_options_set_difference_increment, rule);
}
int esdirk_hybrid_solver_set_lu_reuse_h_change(esdirk_hybrid_solver* h, double fraction) {
  return through_options(h, esdirk_options_set_lu_reuse_h_change, fraction);
}
const char* esdirk_hybrid_solver_method_name(const esdirk_hybrid_solver* h) { return method_name(h); }

int esdirk_method_stages(const char* name, double rtol) {
  if (!name) return -1;
  try {
    esdirk::Options o;
    o.method = esdirk::MethodChoice::named(name);
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
