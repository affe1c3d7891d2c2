#pragma once
// Small helpers shared by the tests: run a problem to a time, relative errors against a
// reference.

#include <algorithm>
#include <cmath>
#include <vector>

#include "esdirk/integrator.hpp"

namespace test_helpers {

struct Run {
  esdirk::Status status;
  std::vector<double> x, z;
  esdirk::Statistics stats;
};

inline Run run(esdirk::Problem& problem, const esdirk::Options& options, double t0, double t1,
               std::vector<double> x0, std::vector<double> z0, std::vector<double> p = {}) {
  esdirk::Integrator solver(problem, options);
  Run r;
  r.x.assign(static_cast<std::size_t>(problem.nx()), 0.0);
  r.z.assign(static_cast<std::size_t>(problem.nz()), 0.0);
  r.status = solver.initialize(t0, x0, z0, p);
  if (esdirk::ok(r.status)) r.status = solver.integrate_to(t1, r.x, r.z);
  r.stats = solver.statistics();
  return r;
}

/// The largest |v_i - ref_i| / |ref_i| over the components with |ref_i| > atol (the
/// "relative error of every component above its atol").
inline double relative_error(const std::vector<double>& v, const std::vector<double>& ref,
                             double atol) {
  double worst = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (std::abs(ref[i]) > atol)
      worst = std::max(worst, std::abs(v[i] - ref[i]) / std::abs(ref[i]));
  return worst;
}

/// x followed by z.
inline std::vector<double> stacked(const Run& r) {
  std::vector<double> all = r.x;
  all.insert(all.end(), r.z.begin(), r.z.end());
  return all;
}

}  // namespace test_helpers
