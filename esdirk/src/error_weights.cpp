#include "esdirk/error_weights.hpp"

namespace esdirk {

ErrorWeights::ErrorWeights(const Options& options, int nx, int nz)
    : rtol_(static_cast<std::size_t>(nx)),
      atol_(static_cast<std::size_t>(nx)),
      atolz_(static_cast<std::size_t>(nz)),
      rtolz_(options.rtol) {
  for (std::size_t i = 0; i < rtol_.size(); ++i) {
    rtol_[i] = options.rtol_vector.empty() ? options.rtol : options.rtol_vector[i];
    atol_[i] = options.atol_vector.empty() ? options.atol : options.atol_vector[i];
  }
  for (std::size_t i = 0; i < atolz_.size(); ++i)
    atolz_[i] = options.algebraic_atol.empty() ? options.atol : options.algebraic_atol[i];
}

}  // namespace esdirk
