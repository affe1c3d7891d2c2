#pragma once
// Internal to the C shim: argument checks that entry points of several handles share, each
// with one wording (adjoint.cpp, hybrid_adjoint.cpp, sensitivity.cpp; tests/capi checks the
// messages). Each returns ESDIRK_SUCCESS or the failure status, with "<who>: ..." stored as
// the handle's message.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "shim.hpp"

namespace esdirk_capi {

/// True when the rows x cols block of the column-major array `data` (leading dimension ld) is
/// finite.
inline bool all_finite(const double* data, esdirk_int rows, esdirk_int cols, esdirk_int ld) {
  for (esdirk_int j = 0; j < cols; ++j)
    for (esdirk_int i = 0; i < rows; ++i)
      if (!std::isfinite(data[static_cast<std::size_t>(j) * static_cast<std::size_t>(ld) +
                              static_cast<std::size_t>(i)]))
        return false;
  return true;
}

/// The terminal weights W of an objective with `cols` rows: n x cols with leading dimension
/// ldw, n = nx + nz >= 1, ldw >= n, every entry finite.
inline int check_terminal_weights(Messages& handle, const std::string& who, const double* W,
                                  esdirk_int n, esdirk_int ldw, esdirk_int cols) {
  if (!W) return handle.fail(ESDIRK_NULL_ARGUMENT, who + ": W is NULL");
  if (n < 1 || ldw < n)
    return handle.fail(ESDIRK_INVALID_ARGUMENT,
                       who + ": n = nx + nz must be >= 1 and ldw >= n (got n = " +
                           std::to_string(n) + ", ldw = " + std::to_string(ldw) + ")");
  if (!all_finite(W, n, cols, ldw))
    return handle.fail(ESDIRK_INVALID_ARGUMENT, who + ": W has non-finite entries");
  return ESDIRK_SUCCESS;
}

/// An adjoint report struct to fill: given, its struct_size set (by `init`, at least the size
/// field and one counter) and not beyond the library's struct `Report` (called `type`): a
/// garbage size or a newer header's struct gets nothing written.
template <class Report>
int check_report(Messages& handle, const std::string& who, const Report* report, const char* init,
                 const char* type) {
  if (!report) return handle.fail(ESDIRK_NULL_ARGUMENT, who + ": report is NULL");
  if (report->struct_size < sizeof(size_t) + sizeof(int64_t))
    return handle.fail(ESDIRK_INVALID_ARGUMENT, who + ": set struct_size (" + init + ")");
  if (report->struct_size > sizeof(Report))
    return handle.fail(ESDIRK_INVALID_ARGUMENT,
                       who + ": struct_size = " + std::to_string(report->struct_size) +
                           " is larger than the " + type + " of this library (" +
                           std::to_string(sizeof(Report)) + " bytes)");
  return ESDIRK_SUCCESS;
}

/// The step limit of a shooting interval (forward or reverse): at least 1.
inline int check_max_steps(Messages& handle, long max_steps) {
  if (max_steps < 1)
    return handle.fail(ESDIRK_INVALID_ARGUMENT, "set_max_steps: max_steps must be >= 1 (got " +
                                                    std::to_string(max_steps) + ")");
  return ESDIRK_SUCCESS;
}

}  // namespace esdirk_capi
