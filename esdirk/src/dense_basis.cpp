#include "esdirk/dense_basis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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

double step_fraction(double t, double t_n, double h, double t_end) {
  // The ends exactly: (t_end - t_n)/h is not 1 when t_end = t_n + h was rounded.
  if (t == t_end) return 1.0;
  if (t == t_n) return 0.0;
  const double theta = (t - t_n) / h;
  if (theta >= -1e-12 && theta <= 1.0 + 1e-12) return theta;
  const double slack = 4.0 * std::numeric_limits<double>::epsilon() * std::max(std::abs(t_n), std::abs(t_end));
  if (std::abs(t - t_n) <= slack) return 0.0;
  if (std::abs(t - t_end) <= slack) return 1.0;
  return std::numeric_limits<double>::quiet_NaN();
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
