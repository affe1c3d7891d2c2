#pragma once
// The error weights w_i = 1/(atol_i + rtol_i |v_i|) of the error test, one rule for the
// integrator and the modules above it (sensitivities measure their stage refinement and their
// own error with the same tolerances).

#include <cmath>
#include <vector>

#include "esdirk/matrix.hpp"
#include "esdirk/options.hpp"

namespace esdirk {

class ErrorWeights {
 public:
  ErrorWeights() = default;
  /// Expands the scalar or per-state tolerances of `options` for nx differential and nz
  /// algebraic states (algebraic states use Options::rtol and algebraic_atol, or atol), after
  /// the tolerance rule (Options::internal_rtol): these are the tolerances of the error test.
  ErrorWeights(const Options& options, int nx, int nz);

  /// w_i = 1/(atol_i + rtol_i |x_i|) over the differential states.
  void differential(ConstVector x, Vector w) const {
    for (std::size_t i = 0; i < rtol_.size(); ++i) w[i] = 1.0 / (atol_[i] + rtol_[i] * std::abs(x[i]));
  }
  /// The same over the algebraic states.
  void algebraic(ConstVector z, Vector w) const {
    for (std::size_t i = 0; i < atolz_.size(); ++i) w[i] = 1.0 / (atolz_[i] + rtolz_ * std::abs(z[i]));
  }
  double rtol(int i) const { return rtol_[static_cast<std::size_t>(i)]; }
  double atol(int i) const { return atol_[static_cast<std::size_t>(i)]; }
  /// The tolerances of algebraic state i (one rtol for all of them).
  double algebraic_rtol() const { return rtolz_; }
  double algebraic_atol(int i) const { return atolz_[static_cast<std::size_t>(i)]; }
  /// The floors of the difference-Jacobian increments under
  /// DifferenceIncrement::error_weighted, nx + nz values in units of the states: atol_j/rtol_j
  /// for a differential state (the magnitude below which the error test measures it
  /// absolutely); for an algebraic state the same, but at most atol_j/sqrt(eps), so that its
  /// increment never exceeds atol_j (IDA's bound 1/ewt_j). 0 where rtol_j = 0.
  std::vector<double> increment_floors() const;

 private:
  std::vector<double> rtol_, atol_, atolz_;
  double rtolz_ = 0.0;
};

}  // namespace esdirk
