#pragma once
// Internal to the C shim: the options object (esdirk_options.h) and what applying it needs of
// each handle that integrates (solver, shooting interval, reverse shooting interval,
// multiple-shooting evaluator, hybrid solver). One implementation serves every handle: the
// per-handle setters of esdirk_method.h and the handles' set_tolerances are thin deprecated
// wrappers that set one option on a temporary object and apply it (through_options), so the
// checks, statuses and messages exist once. Not installed.

#include <string>
#include <utility>

#include "esdirk/esdirk_options.h"
#include "hybrid_shim.hpp"
#include "multishoot_shim.hpp"
#include "shim.hpp"

// The settings an options object carries, one bit each: applying copies only those set.
namespace esdirk_capi {
enum OptionSetting : unsigned {
  set_tolerances = 1u << 0,
  set_tolerance_rule = 1u << 1,
  set_method = 1u << 2,
  set_jacobian_reuse = 1u << 3,
  set_lu_reuse_h_change = 1u << 4,
  set_keep_step_ratio = 1u << 5,
  set_newton_test = 1u << 6,
  set_difference_increment = 1u << 7,
  set_algebraic_atol = 1u << 8,
  set_newton_fresh_rate = 1u << 9,
  set_step_limits = 1u << 10,
  set_controller = 1u << 11,
  set_newton = 1u << 12,
  set_failure_limits = 1u << 13,
  set_filter_error_estimate = 1u << 14,
  set_sensitivity = 1u << 15,  // not an esdirk::Options field: the handle's SensitivityOptions
  set_adjoint = 1u << 16,      // not an esdirk::Options field: the handle's adjoint recording
};
}  // namespace esdirk_capi

struct esdirk_options : esdirk_capi::Messages {
  esdirk::Options values;  // the values of the settings set; the others keep their defaults
  unsigned set = 0;        // OptionSetting bits
  esdirk_int algebraic_atol_length = 0;  // the nz the caller gave (checked when applied)
  esdirk::SensitivityOptions sensitivity;  // set_sensitivity
  bool record_adjoint = false;             // set_adjoint
  long memory_budget = 0;
};

namespace esdirk_capi {

// The integrator options the handle's next run uses.
inline esdirk::Options& options_of(esdirk_solver* h) { return h->options; }
inline esdirk::Options& options_of(esdirk_shooting* h) { return h->options; }
inline esdirk::Options& options_of(esdirk_reverse_shooting* h) { return h->options; }
inline esdirk::Options& options_of(esdirk_multishoot* h) { return h->options; }
inline esdirk::Options& options_of(esdirk_hybrid_solver* h) { return h->options.integrator; }
inline const esdirk::Options& options_of(const esdirk_solver* h) { return h->options; }
inline const esdirk::Options& options_of(const esdirk_shooting* h) { return h->options; }
inline const esdirk::Options& options_of(const esdirk_reverse_shooting* h) { return h->options; }
inline const esdirk::Options& options_of(const esdirk_multishoot* h) { return h->options; }
inline const esdirk::Options& options_of(const esdirk_hybrid_solver* h) {
  return h->options.integrator;
}

// (nx, nz) of the handle's problem, for Options::validate.
template <class Handle>
std::pair<int, int> sizes_of(const Handle* h) {
  return {h->problem->problem->nx(), h->problem->problem->nz()};
}
inline std::pair<int, int> sizes_of(const esdirk_hybrid_solver* h) {
  return {h->model().nx(), h->model().nz()};
}

// After an option changed: the handles that keep their integrator between runs rebuild it.
inline void options_changed(esdirk_solver*) {}         // initialize makes a new integrator
inline void options_changed(esdirk_hybrid_solver*) {}  // initialize makes a new solver
inline void options_changed(esdirk_shooting* h) { h->options_changed = true; }
inline void options_changed(esdirk_reverse_shooting* h) { h->options_changed = true; }
inline void options_changed(esdirk_multishoot* h) { h->evaluator.reset(); }

// Why the handle can never use Jacobian reuse (it always differentiates), or null. The solver
// and the hybrid solver refuse it when sensitivities or an adjoint are started instead.
inline const char* reuse_refusal(const esdirk_solver*) { return nullptr; }
inline const char* reuse_refusal(const esdirk_hybrid_solver*) { return nullptr; }
inline const char* reuse_refusal(const esdirk_shooting*) {
  return "a shooting interval always computes sensitivities";
}
inline const char* reuse_refusal(const esdirk_reverse_shooting*) {
  return "a reverse shooting interval always runs an adjoint";
}
inline const char* reuse_refusal(const esdirk_multishoot*) {
  return "a multiple-shooting evaluator always computes sensitivities";
}

// The settings that are not integrator options, on the handles that have them. A handle
// without one refuses it in set_options (why_no_* says why), so that an object never seems to
// configure what a handle cannot do.
inline esdirk::SensitivityOptions* sensitivity_of(esdirk_solver* h) { return &h->sensitivity_options; }
inline esdirk::SensitivityOptions* sensitivity_of(esdirk_shooting* h) { return &h->sensitivity_options; }
template <class Handle>
esdirk::SensitivityOptions* sensitivity_of(Handle*) { return nullptr; }
inline const char* why_no_sensitivity(const esdirk_reverse_shooting*) {
  return "a reverse shooting interval computes no forward sensitivities";
}
inline const char* why_no_sensitivity(const esdirk_multishoot*) {
  return "a multiple-shooting evaluator's intervals always compute the exact sensitivities";
}
inline const char* why_no_sensitivity(const esdirk_hybrid_solver*) {
  return "a hybrid solver's sensitivities are always the exact ones (with the jumps of "
         "esdirk_hybrid_solver_set_sensitivity_jumps)";
}
template <class Handle>
const char* why_no_sensitivity(const Handle*) { return nullptr; }

inline bool apply_recording(esdirk_solver* h, const esdirk_options& o) {
  h->record_adjoint = o.record_adjoint;
  h->adjoint_options.memory_budget = o.memory_budget;
  return true;
}
inline bool apply_recording(esdirk_hybrid_solver* h, const esdirk_options& o) {
  h->record_adjoint = o.record_adjoint;
  h->adjoint_options.memory_budget = o.memory_budget;
  return true;
}
template <class Handle>
bool apply_recording(Handle*, const esdirk_options&) { return false; }
inline const char* why_no_recording(const esdirk_shooting*) {
  return "a shooting interval computes forward sensitivities, not an adjoint";
}
inline const char* why_no_recording(const esdirk_reverse_shooting*) {
  return "a reverse shooting interval records each interval for its own adjoint";
}
inline const char* why_no_recording(const esdirk_multishoot*) {
  return "a multiple-shooting evaluator computes forward sensitivities, not an adjoint";
}
template <class Handle>
const char* why_no_recording(const Handle*) { return nullptr; }

// Throws std::invalid_argument (prefixed by the setter's name) if a setting of `options` is
// not valid for a problem of nx differential and nz algebraic states. Each setting is checked
// alone, on default options that differ only in it, as the per-handle setters always did.
void check_settings(const esdirk_options& options, int nx, int nz);

// Copies the settings set on `from` into `to`.
void copy_settings(const esdirk_options& from, esdirk::Options& to);

// The setters of the options object whose deprecated per-handle setters never checked their
// values (the handle's next run did): `checked` false stores them unchecked for those.
namespace setter {
int step_limits(esdirk_options* o, bool checked, double initial_step, double min_step, double max_step,
                    long max_steps);
int controller(esdirk_options* o, bool checked, int predictive, double k1, double k2, double safety,
                   double min_step_ratio, double max_step_ratio);
int newton(esdirk_options* o, bool checked, int max_iterations, double tolerance,
               double reference_contraction);
int failure_limits(esdirk_options* o, bool checked, int max_error_test_failures, int max_newton_failures,
                       int max_callback_failures);
int filter_error_estimate(esdirk_options* o, bool checked, int filter);
}  // namespace setter

/// esdirk_<handle>_set_options: all or nothing, the handle's *_last_error says why not.
template <class Handle>
int apply_options(Handle* h, const esdirk_options* options) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!options) return h->fail(ESDIRK_NULL_ARGUMENT, "set_options: options is NULL");
  return guarded(h, [&]() -> int {
    if ((options->set & set_jacobian_reuse) && options->values.reuse_jacobian) {
      if (const char* why = reuse_refusal(h))
        return h->fail(ESDIRK_INVALID_ARGUMENT,
                       std::string("set_jacobian_reuse: reuse is a states-only option and ") + why +
                           " (they need the Jacobian at the start of every step)");
    }
    if (options->set & set_sensitivity) {
      if (const char* why = why_no_sensitivity(h))
        return h->fail(ESDIRK_INVALID_ARGUMENT, std::string("set_sensitivity: ") + why);
    }
    if (options->set & set_adjoint) {
      if (const char* why = why_no_recording(h))
        return h->fail(ESDIRK_INVALID_ARGUMENT, std::string("set_adjoint: ") + why);
    }
    const auto [nx, nz] = sizes_of(h);
    if ((options->set & set_algebraic_atol) && options->algebraic_atol_length != nz)
      return h->fail(ESDIRK_INVALID_ARGUMENT,
                     "set_algebraic_atol: length must be nz = " + std::to_string(nz));
    check_settings(*options, nx, nz);
    copy_settings(*options, options_of(h));
    if (options->set & set_sensitivity)
      if (esdirk::SensitivityOptions* to = sensitivity_of(h)) {
        to->mode = options->sensitivity.mode;
        to->error_control = options->sensitivity.error_control;
      }
    if (options->set & set_adjoint) apply_recording(h, *options);
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

/// A deprecated per-handle setter: `setter` on a temporary options object, then applied.
template <class Handle, class... Parameters, class... Arguments>
int through_options(Handle* h, int (*setter)(esdirk_options*, Parameters...),
                    Arguments... arguments) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  esdirk_options one;
  const int status = setter(&one, arguments...);
  if (status != ESDIRK_SUCCESS) return h->fail(status, one.message);
  return apply_options(h, &one);
}

/// A deprecated per-handle setter whose values the handle's next run checked (step limits,
/// controller, Newton, failure limits): the setting is copied unchecked, as that setter stored
/// it, so the run refuses a bad value with the status and message it always gave.
template <class Handle, class... Parameters, class... Arguments>
int unchecked_through_options(Handle* h, int (*setter)(esdirk_options*, bool, Parameters...),
                              Arguments... arguments) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  esdirk_options one;
  const int status = setter(&one, false, arguments...);
  if (status != ESDIRK_SUCCESS) return h->fail(status, one.message);
  return guarded(h, [&]() -> int {
    copy_settings(one, options_of(h));
    options_changed(h);
    return ESDIRK_SUCCESS;
  });
}

/// A deprecated per-handle set_algebraic_atol: the length is checked against the handle's nz
/// before `atol` is read, as the setter did before the options object (a count that does not
/// match the handle must not make the library read past the caller's array).
template <class Handle>
int algebraic_atol_through_options(Handle* h, const double* atol, esdirk_int nz) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  const int handle_nz = sizes_of(h).second;
  if (atol != nullptr && nz != handle_nz)
    return h->fail(ESDIRK_INVALID_ARGUMENT,
                   "set_algebraic_atol: length must be nz = " + std::to_string(handle_nz));
  return through_options(h, esdirk_options_set_algebraic_atol, atol, nz);
}

}  // namespace esdirk_capi
