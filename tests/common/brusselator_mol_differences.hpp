#pragma once
// The sensitivity to B of the 1-D Brusselator of examples/brusselator_mol (20 points, t = 0 to
// 1) against central differences of two trajectories at tight tolerance (the same scheme: the
// discretization errors cancel to about 1e-7), for the sensitivity tests of the structured
// back-ends (tests/sensitivity/test_structured_sensitivity.cpp with KLU,
// test_krylov_sensitivity.cpp with GMRES). Include after <boost/test/unit_test.hpp> (the runs
// use BOOST_REQUIRE).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "brusselator_mol/brusselator_mol_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/matrix.hpp"

namespace brusselator_mol_differences {

/// x(1) of brusselator_mol::Model(20) from its initial state with B replaced, at
/// rtol = atol = 1e-11, after `declare(model)` has declared the model's Jacobian structure.
template <class Declare>
std::vector<double> states_at_1(double B, Declare declare) {
  brusselator_mol::Model model(20);
  declare(model);
  esdirk::Options options;
  options.rtol = options.atol = 1e-11;
  esdirk::Integrator integrator(model, options);
  std::vector<double> p = model.nominal_parameters(), x(static_cast<std::size_t>(model.size()));
  p[1] = B;
  BOOST_REQUIRE(esdirk::ok(integrator.initialize(0.0, model.initial_state(), {}, p)));
  BOOST_REQUIRE(esdirk::ok(integrator.integrate_to(1.0, x).status));
  return x;
}

/// max_i |Sx(i, 1) - d_i| / max_i |d_i|, d_i = B dx_i(1)/dB by the central difference with
/// dB = 1e-4 B about the nominal B (scaled as the sensitivities' seed column p_1 e_1), each
/// trajectory with the structure `declare(model)` declares.
template <class Declare>
double relative_error_in_B(const esdirk::DenseMatrix& Sx, Declare declare) {
  const double B = brusselator_mol::nominal_B, dB = 1e-4 * B;
  const auto plus = states_at_1(B + dB, declare), minus = states_at_1(B - dB, declare);
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < plus.size(); ++i) {
    const double difference = (plus[i] - minus[i]) / (2.0 * dB) * B;  // scaled as the seed
    worst = std::max(worst, std::abs(Sx(static_cast<int>(i), 1) - difference));
    scale = std::max(scale, std::abs(difference));
  }
  return worst / scale;
}

}  // namespace brusselator_mol_differences
