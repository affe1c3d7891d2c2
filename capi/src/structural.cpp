// The C shim for the structural analysis: extern "C" definitions only. These functions have
// no handle; a malformed model's message is written into the caller's buffer instead.
// Sizes beyond the limits of esdirk/structural/limits.hpp are ESDIRK_INVALID_ARGUMENT, checked
// before anything is allocated, so no input can make these calls take memory or time out of
// proportion to it.

#include "esdirk/structural/structural.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "esdirk/esdirk.h"

namespace {

// Writes text (with its NUL) into the caller's buffer if it fits.
int write_text(const std::string& text, char* buffer, size_t capacity, size_t* length) {
  if (length) *length = text.size();
  if (!buffer || capacity < text.size() + 1) return ESDIRK_BUFFER_TOO_SMALL;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return ESDIRK_SUCCESS;
}

// A failure's status with its message in the caller's buffer (when it fits; the status is
// the failure's either way).
int fail(int status, const char* message, char* buffer, size_t capacity, size_t* length) {
  const size_t n = std::strlen(message);
  *length = n;
  if (buffer && capacity > n) std::memcpy(buffer, message, n + 1);
  return status;
}

// The arrays of esdirk_structural_sigma, checked without allocating: sizes within the graph
// limit, indices in range, orders within the order limit.
bool valid_signature(esdirk_int n_equations, esdirk_int n_variables, esdirk_int n_entries,
                     const esdirk_int* entry_equation, const esdirk_int* entry_variable,
                     const esdirk_int* entry_order) {
  using esdirk::structural::max_graph_size;
  if (n_equations < 1 || n_variables < 1 || n_entries < 0) return false;
  if (n_equations > max_graph_size || n_variables > max_graph_size || n_entries > max_graph_size)
    return false;
  for (esdirk_int k = 0; k < n_entries; ++k) {
    if (entry_equation[k] < 0 || entry_equation[k] >= n_equations || entry_variable[k] < 0 ||
        entry_variable[k] >= n_variables || entry_order[k] < 0 ||
        entry_order[k] > esdirk::structural::max_derivative_order)
      return false;
  }
  return true;
}

}  // namespace

extern "C" {

int esdirk_structural_report(const char* model_text, int json, char* buffer, size_t capacity,
                             size_t* length, int* well_posed) {
  if (!model_text || !length) return ESDIRK_NULL_ARGUMENT;
  try {
    const auto analysis = esdirk::structural::analyse(model_text, "model");
    if (well_posed) *well_posed = analysis.well_posed() ? 1 : 0;
    const std::string report = json ? esdirk::structural::json_report(analysis)
                                    : esdirk::structural::text_report(analysis);
    return write_text(report, buffer, capacity, length);
  } catch (const std::invalid_argument& e) {  // ParseError, LimitExceeded, other input errors
    return fail(ESDIRK_INVALID_ARGUMENT, e.what(), buffer, capacity, length);
  } catch (const std::length_error& e) {  // a size limit of a lower layer
    return fail(ESDIRK_INVALID_ARGUMENT, e.what(), buffer, capacity, length);
  } catch (const std::bad_alloc&) {
    return fail(ESDIRK_OUT_OF_MEMORY, "out of memory", buffer, capacity, length);
  } catch (const std::exception& e) {
    return fail(ESDIRK_INTERNAL_ERROR, e.what(), buffer, capacity, length);
  } catch (...) {
    return fail(ESDIRK_INTERNAL_ERROR, "unknown exception", buffer, capacity, length);
  }
}

int esdirk_structural_sigma(esdirk_int n_equations, esdirk_int n_variables, esdirk_int n_entries,
                            const esdirk_int* entry_equation, const esdirk_int* entry_variable,
                            const esdirk_int* entry_order, esdirk_int* equation_offsets,
                            esdirk_int* variable_offsets, esdirk_int* max_offset_index,
                            esdirk_int* pryce_structural_index, int64_t* degrees_of_freedom) {
  if (n_entries > 0 && (!entry_equation || !entry_variable || !entry_order))
    return ESDIRK_NULL_ARGUMENT;
  if (!valid_signature(n_equations, n_variables, n_entries, entry_equation, entry_variable,
                       entry_order))
    return ESDIRK_INVALID_ARGUMENT;
  // With fewer entries than equations or variables one of them has none, so no complete
  // matching exists (or a variable occurs nowhere): answered before allocating anything.
  if (n_entries < n_equations || n_entries < n_variables) return ESDIRK_STRUCTURALLY_SINGULAR;
  try {
    std::vector<esdirk::structural::SignatureEntry> entries(static_cast<std::size_t>(n_entries));
    for (esdirk_int k = 0; k < n_entries; ++k)
      entries[k] = {entry_equation[k], entry_variable[k], entry_order[k]};
    const esdirk::structural::SignatureMatrix sigma(n_equations, n_variables, entries);
    const esdirk::structural::SigmaResult result = esdirk::structural::sigma_method(sigma);
    // Offsets past the limits (max_latent_equations, max_offset_iteration_work) are a size
    // problem of the input, not a structural property.
    if (result.status == esdirk::structural::SigmaStatus::too_large) return ESDIRK_INVALID_ARGUMENT;
    if (!result.succeeded()) return ESDIRK_STRUCTURALLY_SINGULAR;
    if (equation_offsets)
      for (esdirk_int i = 0; i < n_equations; ++i)
        equation_offsets[i] = result.equation_offsets()[i];
    if (variable_offsets)
      for (esdirk_int j = 0; j < n_variables; ++j)
        variable_offsets[j] = result.variable_offsets()[j];
    if (max_offset_index) *max_offset_index = result.max_offset_index;
    if (pryce_structural_index) *pryce_structural_index = result.pryce_structural_index;
    if (degrees_of_freedom) *degrees_of_freedom = result.degrees_of_freedom;
    return ESDIRK_SUCCESS;
  } catch (const std::invalid_argument&) {
    return ESDIRK_INVALID_ARGUMENT;
  } catch (const std::length_error&) {
    return ESDIRK_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

}  // extern "C"
