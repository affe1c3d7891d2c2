// No allocation per step or per event once a hybrid solver is set up: a global operator new
// that counts around integrate_to calls that cross many events (the bouncing ball with
// sensitivities, Serban & Recuero 2019's Example 5.1, a DAE whose z jumps).

#define BOOST_TEST_MODULE esdirk events allocation
#include <boost/test/unit_test.hpp>
#include <vector>

#include "bouncing_ball/bouncing_ball_model.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "hybrid_ode/hybrid_ode_model.hpp"
#include "tank_switch/tank_switch_model.hpp"

#include "counting_new.hpp"

using counting_new::allocations;

namespace {

esdirk::HybridOptions options() {
  esdirk::HybridOptions o;
  o.integrator.rtol = 1e-8;
  o.integrator.atol = 1e-10;
  return o;
}

// Counts allocations of integrate_to over [t_first, t_last] after a first call to t_first.
long count(esdirk::HybridSolver& solver, int nx, int nz, int ns, double t_first, double t_last,
           long& events) {
  std::vector<double> x(static_cast<std::size_t>(nx)), z(static_cast<std::size_t>(nz));
  esdirk::DenseMatrix Sx(nx, ns), Sz(nz, ns);
  esdirk::MatrixRef sz = nz > 0 ? Sz.ref() : esdirk::MatrixRef{};
  BOOST_REQUIRE(esdirk::ok(solver.integrate_to(t_first, x, z, Sx.ref(), sz)));
  const long before = solver.event_count();
  allocations = 0;
  counting_new::enabled = true;
  bool ok = true;
  for (int k = 1; k <= 40; ++k)
    ok = ok && esdirk::ok(solver.integrate_to(t_first + (t_last - t_first) * k / 40.0, x, z, Sx.ref(), sz));
  counting_new::enabled = false;
  BOOST_TEST(ok);
  events = solver.event_count() - before;
  return allocations;
}

}  // namespace

BOOST_AUTO_TEST_CASE(bouncing_ball_with_sensitivities) {
  bouncing_ball::Model model;
  esdirk::HybridSolver solver(model, options());
  const std::vector<double> x0{5.0, -0.1}, p{10.0, 0.8};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  esdirk::DenseMatrix seed(4, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(seed.cref())));
  long events = 0;
  BOOST_TEST(count(solver, 2, 0, 4, 1.5, 8.0, events) == 0);
  BOOST_TEST(events >= 5);
}

BOOST_AUTO_TEST_CASE(hybrid_ode_and_difference_jacobians_of_h_and_phi) {
  hybrid_ode::Model model;
  esdirk::HybridSolver solver(model, options());
  const std::vector<double> x0{0.0, 0.0}, p{2.9};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, hybrid_ode::mode_a, x0, {}, p)));
  esdirk::DenseMatrix seed(3, 1);
  seed(2, 0) = 1.0;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(seed.cref())));
  long events = 0;
  BOOST_TEST(count(solver, 2, 0, 1, 0.1, 5.0, events) == 0);
  BOOST_TEST(events == 3);
}

BOOST_AUTO_TEST_CASE(dae_with_an_algebraic_jump) {
  tank_switch::Model model;  // difference Jacobians of h, phi and g_t
  esdirk::HybridSolver solver(model, options());
  const std::vector<double> x0{4.0}, z0{0.0}, p{1.0, 0.5, 1.0};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, z0, p)));
  esdirk::DenseMatrix seed(4, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(seed.cref())));
  long events = 0;
  BOOST_TEST(count(solver, 1, 1, 4, 0.5, 4.0, events) == 0);
  BOOST_TEST(events == 1);
}

// Parameter resets: p+ by the model, its Jacobian E by central differences, the jump of P.
class SofteningBall : public bouncing_ball::Model {
 public:
  bool has_parameter_reset() const override { return true; }
  int reset_parameters(int, const esdirk::TransitionCause&, double, esdirk::ConstVector, esdirk::ConstVector,
                       esdirk::ConstVector p, esdirk::ConstVector, esdirk::Vector p_plus) override {
    p_plus[1] = 0.98 * p[1];  // the restitution softens at every impact
    return 0;
  }
};

BOOST_AUTO_TEST_CASE(parameter_resets_with_sensitivities) {
  SofteningBall model;
  esdirk::HybridSolver solver(model, options());
  const std::vector<double> x0{5.0, -0.1}, p{10.0, 0.8};
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)));
  esdirk::DenseMatrix seed(4, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  BOOST_REQUIRE(esdirk::ok(solver.initialize_sensitivities(seed.cref())));
  long events = 0;
  BOOST_TEST(count(solver, 2, 0, 4, 1.5, 6.0, events) == 0);
  BOOST_TEST(events >= 4);
  BOOST_TEST(solver.parameters()[1] < 0.8 * 0.98 * 0.98);
}
