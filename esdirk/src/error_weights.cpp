#include "esdirk/error_weights.hpp"

#include <algorithm>
#include <limits>

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

// Measured on Dow (doc/sensitivity-guide.md, "Difference Jacobians of tiny states"): the floor
// atol/rtol puts the columns of the tiny differential state u4 right (its rows hold large
// cancelling terms); uncapped on the algebraic states it would move [H+] ~ 5e-9 by 1.5e-12 at
// rtol 1e-10 (its absolute tolerance 1e-14 is fixed, so atol/rtol = 1e-4) and the truncation
// error of its column spoils every sensitivity. Algebraic absolute tolerances are usually set
// for the state's own scale, so their increment is bounded by atol itself.
std::vector<double> ErrorWeights::increment_floors() const {
  const double sqrt_eps = std::sqrt(std::numeric_limits<double>::epsilon());
  std::vector<double> m;
  m.reserve(rtol_.size() + atolz_.size());
  // atol near DBL_MAX makes atol / rtol overflow; the floor only ever caps at the typical value,
  // so the largest double serves as "no floor" and keeps the floors finite.
  const double largest = std::numeric_limits<double>::max();
  for (std::size_t i = 0; i < rtol_.size(); ++i)
    m.push_back(rtol_[i] > 0.0 ? std::min(atol_[i] / rtol_[i], largest) : 0.0);
  for (double a : atolz_) m.push_back(rtolz_ > 0.0 ? std::min({a / rtolz_, a / sqrt_eps, largest}) : 0.0);
  return m;
}

}  // namespace esdirk
