#include "esdirk/error_weights.hpp"

namespace esdirk {

ErrorWeights::ErrorWeights(const Options& options, int nx, int nz)
    : rtol_(static_cast<std::size_t>(nx)),
      atol_(static_cast<std::size_t>(nx)),
      atolz_(static_cast<std::size_t>(nz)),
      rtolz_(options.internal_rtol(options.rtol)) {
  // The tolerance rule (Options::internal_rtol): each rtol is mapped, each atol keeps its ratio
  // to its rtol (a component with rtol = 0 takes the factor of the scalar rtol).
  const auto factor = [&options](double r) {
    return r > 0.0 ? options.internal_rtol(r) / r : 1.0;
  };
  const double scalar_factor = factor(options.rtol);
  for (std::size_t i = 0; i < rtol_.size(); ++i) {
    const double r = options.rtol_vector.empty() ? options.rtol : options.rtol_vector[i];
    const double a = options.atol_vector.empty() ? options.atol : options.atol_vector[i];
    const double f = r > 0.0 ? factor(r) : scalar_factor;
    rtol_[i] = r * f;
    atol_[i] = a * f;
  }
  for (std::size_t i = 0; i < atolz_.size(); ++i)
    atolz_[i] = scalar_factor * (options.algebraic_atol.empty() ? options.atol : options.algebraic_atol[i]);
}

}  // namespace esdirk
