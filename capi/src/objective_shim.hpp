#pragma once
// Internal to the C shim: the objective handle of both adjoints (esdirk_adjoint.h; the hybrid
// adjoint's esdirk_hybrid_objective is the same type). It holds the C callbacks of every term;
// each gradient builds its C++ objective from the terms its run can have and refuses the others
// (adjoint.cpp, hybrid_adjoint.cpp). Not installed.

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "argument_checks.hpp"
#include "esdirk/esdirk_adjoint.h"
#include "shim.hpp"

struct esdirk_objective : esdirk_capi::Messages {
  esdirk_int rows = 1;
  esdirk_objective_gradient_fn terminal = nullptr;
  void* terminal_data = nullptr;
  std::vector<double> terminal_weights;  // n x rows, contiguous (n = weights_rows)
  esdirk_int weights_rows = 0;
  // Smooth runs: a running cost and terms at given output times.
  esdirk_objective_gradient_fn running = nullptr;
  void* running_data = nullptr;
  std::vector<double> output_times;
  esdirk_output_gradient_fn at_output = nullptr;
  void* output_data = nullptr;
  // Hybrid runs: a term at every recorded output (esdirk_objective_set_outputs).
  esdirk_output_gradient_fn every_output = nullptr;
  void* every_output_data = nullptr;
};

namespace esdirk_capi {

/// esdirk_objective_set_terminal_weights and its deprecated hybrid twin (`who` names it).
inline int set_terminal_weights(esdirk_objective* o, const char* who, const double* W, esdirk_int n,
                                esdirk_int ldw) {
  if (!o) return ESDIRK_NULL_ARGUMENT;
  if (const int st = check_terminal_weights(*o, who, W, n, ldw, o->rows)) return st;
  return guarded(o, [&] {
    std::vector<double> w(static_cast<std::size_t>(n) * static_cast<std::size_t>(o->rows));
    for (esdirk_int j = 0; j < o->rows; ++j)
      std::copy(W + static_cast<std::size_t>(j) * static_cast<std::size_t>(ldw),
                W + static_cast<std::size_t>(j) * static_cast<std::size_t>(ldw) + n,
                w.begin() + static_cast<std::ptrdiff_t>(j) * n);
    o->terminal_weights.swap(w);
    o->weights_rows = n;
    o->terminal = nullptr;
    o->terminal_data = nullptr;
    return ESDIRK_SUCCESS;
  });
}

}  // namespace esdirk_capi
