// The small-system fast path forms [f_p; g_p] P of a stage again only when [f_p; g_p] or the
// seed's parameter part P changed, bit for bit, and only over P's nonzero columns. A new seed
// on the same ForwardSensitivity (the same storage for P) must therefore give the bits of a
// fresh object: what broke when the product kept the nonzero columns or the product of an old
// seed.
#include <boost/test/unit_test.hpp>

#include <bit>
#include <cstdint>

#include "sensitivity_fixtures.hpp"

using namespace sens_test;

namespace {

// Sx at t_end of the oscillator (n = 2: the fixed-size stage kernels) with `seed`, after the
// object has run with each of `earlier` first.
DenseMatrix run(const std::vector<DenseMatrix>& earlier, const DenseMatrix& seed) {
  Oscillator model;
  const Setup s = oscillator_setup();
  esdirk::Options options;
  options.rtol = options.atol = 1e-6;
  options.method = esdirk::Tableau::esdirk436();
  esdirk::Integrator solver(model, options);
  esdirk::ForwardSensitivity sensitivity(solver);
  std::vector<double> x(2), z;
  DenseMatrix Sx(2, seed.cols());
  auto integrate = [&](const DenseMatrix& with) {
    BOOST_REQUIRE(esdirk::ok(solver.initialize(s.t0, s.x0, s.z0, s.p)));
    solver.set_stop_time(s.t_end);
    BOOST_REQUIRE(esdirk::ok(sensitivity.initialize(with.cref())));
    DenseMatrix S(2, with.cols());
    BOOST_REQUIRE(esdirk::ok(sensitivity.integrate_to(s.t_end, x, z, S.ref(), MatrixRef{})));
    return S;
  };
  for (const DenseMatrix& e : earlier) integrate(e);
  return integrate(seed);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(parameter_product)

BOOST_AUTO_TEST_CASE(a_new_seed_gives_the_bits_of_a_fresh_object) {
  // Four directions each (P keeps its storage): the identity, then parameter parts that move
  // the nonzero columns, scale them, and mix both parameters into one column.
  DenseMatrix identity(4, 4), moved(4, 4), mixed(4, 4);
  for (int k = 0; k < 4; ++k) identity(k, k) = 1.0;
  moved(0, 0) = 1.0;
  moved(2, 1) = 3.0;  // parameter 0 in column 1
  moved(3, 3) = -0.5;
  mixed(1, 0) = 1.0;
  mixed(2, 2) = 2.0;
  mixed(3, 2) = 0.25;
  mixed(3, 3) = 1.0;
  for (const DenseMatrix* seed : {&moved, &mixed, &identity}) {
    const DenseMatrix fresh = run({}, *seed);
    BOOST_TEST(same_bits(run({identity}, *seed), fresh));
    BOOST_TEST(same_bits(run({mixed, moved}, *seed), fresh));
  }
  // The parameter part matters (the comparison above is not vacuous).
  BOOST_TEST(!same_bits(run({}, moved), run({}, mixed)));
}

BOOST_AUTO_TEST_SUITE_END()
