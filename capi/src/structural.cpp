// The C shim for the structural analysis: extern "C" definitions only. These functions have
// no handle; a malformed model's message is written into the caller's buffer instead.

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

}  // namespace

extern "C" {

int esdirk_structural_report(const char* model_text, int json, char* buffer, size_t capacity,
                             size_t* length, int* well_posed) {
  if (!model_text || !length) return ESDIRK_NULL_ARGUMENT;
  try {
    const auto model = esdirk::structural::parse_model(model_text, "model");
    const auto analysis = esdirk::structural::analyse_model(model);
    if (well_posed) *well_posed = analysis.well_posed() ? 1 : 0;
    const std::string report = json ? esdirk::structural::json_report(model, analysis)
                                    : esdirk::structural::text_report(model, analysis);
    return write_text(report, buffer, capacity, length);
  } catch (const std::invalid_argument& e) {  // ParseError and other input errors
    write_text(e.what(), buffer, capacity, length);
    return ESDIRK_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

int esdirk_structural_sigma(esdirk_int n_equations, esdirk_int n_variables, esdirk_int n_entries,
                            const esdirk_int* entry_equation, const esdirk_int* entry_variable,
                            const esdirk_int* entry_order, esdirk_int* equation_offsets,
                            esdirk_int* variable_offsets, esdirk_int* max_offset_index,
                            esdirk_int* pryce_structural_index, int64_t* degrees_of_freedom) {
  if (n_entries > 0 && (!entry_equation || !entry_variable || !entry_order))
    return ESDIRK_NULL_ARGUMENT;
  if (n_equations < 1 || n_variables < 1 || n_entries < 0) return ESDIRK_INVALID_ARGUMENT;
  try {
    std::vector<esdirk::structural::SignatureEntry> entries(static_cast<std::size_t>(n_entries));
    for (esdirk_int k = 0; k < n_entries; ++k)
      entries[k] = {entry_equation[k], entry_variable[k], entry_order[k]};
    const esdirk::structural::SignatureMatrix sigma(n_equations, n_variables, entries);
    const esdirk::structural::SigmaResult result = esdirk::structural::sigma_method(sigma);
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
    return ESDIRK_INVALID_ARGUMENT;  // an index out of range or a negative order
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  } catch (...) {
    return ESDIRK_INTERNAL_ERROR;
  }
}

}  // extern "C"
