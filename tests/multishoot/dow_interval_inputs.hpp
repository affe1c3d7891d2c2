// Dow's shooting intervals for the multiple-shooting tests: N intervals of 0.2 h in the nominal
// trajectory's neighbourhood (the same start state perturbed per interval, so the intervals
// differ), with the nine parameters as controls.
#pragma once

#include <cstddef>

#include "dow/dow_model.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"

namespace esdirk_tests {

inline esdirk::multishoot::IntervalInputs dow_inputs(int n) {
  esdirk::multishoot::IntervalInputs in(n, 6, 4, 9);
  const auto z0 = dow::consistent_algebraic_start();
  for (int k = 0; k < n; ++k) {
    const auto at = [](int i) { return static_cast<std::size_t>(i); };
    in.t_begin[at(k)] = 0.2 * k;
    in.t_end[at(k)] = 0.2 * (k + 1);
    for (int i = 0; i < 6; ++i) in.x_of(k)[at(i)] = dow::initial_states[at(i)];
    in.x_of(k)[0] *= 1.0 + 0.01 * k;
    for (int i = 0; i < 9; ++i) in.u_of(k)[at(i)] = dow::nominal_parameters[at(i)];
    for (int i = 0; i < 4; ++i) in.z_guess_of(k)[at(i)] = z0[at(i)];
  }
  return in;
}

}  // namespace esdirk_tests
