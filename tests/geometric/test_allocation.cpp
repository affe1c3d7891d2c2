// No allocation in the step loops of the geometric integrators: a global operator new that
// counts, around a second forward sweep of the same length (the buffers are sized by the
// first), the backward sweep (plain and with a running cost) and the tangent sweep, for a DAE
// with a DIRK tableau (stage by stage) and with a fully implicit one (all stages together).

#define BOOST_TEST_MODULE esdirk geometric allocation
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <vector>

#include "counting_new.hpp"
#include "geometric_fixtures.hpp"

using counting_new::allocations;
using namespace fixtures;

// The counter counts (else the test below would pass on nothing).
BOOST_AUTO_TEST_CASE(counter_sees_an_allocation) {
  allocations = 0;
  counting_new::enabled = true;
  std::vector<double>* v = new std::vector<double>(10);
  counting_new::enabled = false;
  delete v;
  BOOST_TEST(allocations >= 1);
}

BOOST_AUTO_TEST_CASE(sweeps_do_not_allocate) {
  g::RunningCost L;
  L.gradient = [](double, ConstVector q, ConstVector, Vector dq, Vector) {
    dq[0] = q[0];
    return 0;
  };
  for (const g::PrkPair& pair : {g::symplectic_pair(g::from_esdirk(esdirk::Tableau::esdirk34())),
                                 g::symplectic_pair(g::radau_iia(3)), g::pghvi1()}) {
    BOOST_TEST_CONTEXT(pair.name) {
      esdirk::FunctionProblem p = pendulum();
      g::GeometricAdjoint run(p, pair);
      const std::vector<double> times = uniform_times(2.0, 20), q0{0.5, 0.0},
                                u0{-std::sqrt(0.75), 0.0, -std::sqrt(0.75)}, pN{1.0, 0.5},
                                zero{0.0, 0.0}, dq0{0.1, -0.2};
      BOOST_REQUIRE(run.forward(times, q0, u0) == esdirk::Status::success);
      allocations = 0;
      counting_new::enabled = true;
      const bool ok = run.forward(times, q0, u0) == esdirk::Status::success &&
                      run.backward(pN) == esdirk::Status::success &&
                      run.backward(zero, &L) == esdirk::Status::success;
      run.tangent(dq0);
      counting_new::enabled = false;
      BOOST_TEST(ok);
      BOOST_TEST(allocations == 0);
    }
  }
}
