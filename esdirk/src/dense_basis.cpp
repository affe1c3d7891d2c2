#include "esdirk/dense_basis.hpp"

namespace esdirk {

void dense_weights(const Tableau& tableau, double theta, std::span<double> b) {
  const int s = tableau.stages;
  const double h01 = theta * theta * (3.0 - 2.0 * theta);
  const double h10 = theta * (1.0 - theta) * (1.0 - theta);
  const double h11 = theta * theta * (theta - 1.0);
  for (int i = 0; i < s; ++i) {
    double bi = h01 * tableau.b[static_cast<std::size_t>(i)];
    if (i == 0) bi += h10;
    if (i == s - 1) bi += h11;
    b[static_cast<std::size_t>(i)] = bi;
  }
}

void stage_interpolation_weights(const Tableau& tableau, double theta, std::span<double> l) {
  const int s = tableau.stages;
  const auto& c = tableau.c;
  for (int i = 0; i < s; ++i) {
    double li = 1.0;
    for (int j = 0; j < s; ++j)
      if (j != i)
        li *= (theta - c[static_cast<std::size_t>(j)]) /
              (c[static_cast<std::size_t>(i)] - c[static_cast<std::size_t>(j)]);
    l[static_cast<std::size_t>(i)] = li;
  }
}

}  // namespace esdirk
