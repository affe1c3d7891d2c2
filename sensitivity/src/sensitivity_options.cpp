#include "esdirk/sensitivity/sensitivity_options.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace esdirk {

SensitivityOptions SensitivityOptions::seed002() {
  SensitivityOptions options;
  options.mode = SensitivityMode::paper;
  options.error_control = false;
  return options;
}

void SensitivityOptions::validate(int directions) const {
  if (mode != SensitivityMode::paper && mode != SensitivityMode::exact)
    throw std::invalid_argument("SensitivityOptions::mode is neither paper nor exact");
  if (error_tolerance && *error_tolerance != SensitivityTolerance::states &&
      *error_tolerance != SensitivityTolerance::requested)
    throw std::invalid_argument("SensitivityOptions::error_tolerance is neither states nor requested");
  if (!error_atol.empty()) {
    if (static_cast<int>(error_atol.size()) != directions)
      throw std::invalid_argument("SensitivityOptions::error_atol has " +
                                  std::to_string(error_atol.size()) +
                                  " entries, expected one per seed direction (" +
                                  std::to_string(directions) + ") or none");
    for (double a : error_atol)
      if (!(a > 0.0) || !std::isfinite(a))
        throw std::invalid_argument("SensitivityOptions::error_atol entries must be finite and > 0");
  }
  if (stage_solve != StageSolve::automatic && stage_solve != StageSolve::refinement &&
      stage_solve != StageSolve::factorization)
    throw std::invalid_argument("SensitivityOptions::stage_solve is not one of automatic, refinement, factorization");
  if (!(correction_tolerance > 0.0 && correction_tolerance < 1.0))
    throw std::invalid_argument("SensitivityOptions::correction_tolerance must be in (0, 1)");
  if (!(difference_rtol_floor >= 0.0 && difference_rtol_floor < 1.0))
    throw std::invalid_argument("SensitivityOptions::difference_rtol_floor must be in [0, 1)");
  if (max_corrections < 1)
    throw std::invalid_argument("SensitivityOptions::max_corrections must be >= 1");
}

}  // namespace esdirk
