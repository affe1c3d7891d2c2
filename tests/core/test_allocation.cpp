// No allocation inside the step loop: a global operator new that counts, around
// integrate_to() calls after setup.

#define BOOST_TEST_MODULE esdirk core allocation
#include <boost/test/unit_test.hpp>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/trajectory.hpp"

#include "counting_new.hpp"

using counting_new::allocations;

namespace {

class DowWithoutJacobian : public dow::Model {
 public:
  bool has_jacobian() const override { return false; }
};

long allocations_while_integrating(esdirk::Problem& model) {
  esdirk::Options options;
  options.rtol = 1e-6;
  options.atol = 1e-12;
  esdirk::Integrator solver(model, options);
  long observed = 0;
  solver.set_step_observer([&observed](const esdirk::StepView&) { ++observed; });
  // Further listeners: a trajectory with reserved records and one that looks at the dense
  // output inside every step (the dg/dz LU cache must not allocate either).
  esdirk::Trajectory trajectory;
  trajectory.reserve(5000, model.nx(), model.nz(), solver.method().stages);  // the resolved method
  solver.add_listener(trajectory);
  struct DenseProbe : esdirk::StepListener {
    std::vector<double> x, z;
    esdirk::AcceptVerdict on_accept(const esdirk::StepView& step, esdirk::DenseOutput& dense) override {
      dense.evaluate(step.t + 0.5 * step.h, x, z);
      return esdirk::AcceptVerdict::proceed();
    }
  } probe;
  probe.x.resize(static_cast<std::size_t>(model.nx()));
  probe.z.resize(static_cast<std::size_t>(model.nz()));
  solver.add_listener(probe);
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  BOOST_REQUIRE(esdirk::ok(solver.initialize(0.0, x0, z0, p)));
  std::vector<double> x(6), z(4);
  allocations = 0;
  counting_new::enabled = true;
  bool all_ok = true;
  for (int k = 1; k <= 100; ++k) all_ok = all_ok && esdirk::ok(solver.integrate_to(0.1 * k, x, z));
  counting_new::enabled = false;
  BOOST_REQUIRE(all_ok);
  BOOST_REQUIRE(observed > 100);
  BOOST_REQUIRE(trajectory.size() == observed);
  solver.remove_listener(trajectory);
  solver.remove_listener(probe);
  return allocations;
}

}  // namespace

BOOST_AUTO_TEST_CASE(dow_with_analytic_jacobian_allocates_nothing_in_the_step_loop) {
  dow::Model model;
  BOOST_TEST(allocations_while_integrating(model) == 0);
}

BOOST_AUTO_TEST_CASE(dow_with_difference_jacobian_allocates_nothing_in_the_step_loop) {
  DowWithoutJacobian model;
  BOOST_TEST(allocations_while_integrating(model) == 0);
}

BOOST_AUTO_TEST_CASE(the_counter_counts) {
  counting_new::enabled = true;
  allocations = 0;
  auto* v = new std::vector<double>(10);
  counting_new::enabled = false;
  delete v;
  BOOST_TEST(allocations >= 1);
}

// Regression: the counting operator new did not replace the nothrow form, so std::stable_sort's
// temporary buffer (in the Stepper's stage-predictor setup) came from AddressSanitizer's nothrow
// new and went back through the counting delete's free: an alloc-dealloc mismatch that aborted
// every allocation test in the ASan build. The nothrow form is counted and freed in pairs now.
BOOST_AUTO_TEST_CASE(nothrow_new_is_counted_and_freed_by_the_same_pair) {
  counting_new::enabled = true;
  allocations = 0;
  void* p = ::operator new(256, std::nothrow);  // what std::get_temporary_buffer calls
  counting_new::enabled = false;
  BOOST_REQUIRE(p != nullptr);
  ::operator delete(p, std::nothrow);
  BOOST_TEST(allocations >= 1);
}
