// The interval evaluator: the same bits for any number of threads (each interval has its own
// integrator), the same numbers as a ShootingInterval called directly, and failures recorded
// per interval.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include <boost/test/unit_test.hpp>

#include "dow/dow_model.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"
#include "dow_interval_inputs.hpp"

namespace ms = esdirk::multishoot;

namespace {

using esdirk_tests::dow_inputs;  // dow_interval_inputs.hpp

ms::ProblemFactory dow_factory() {
  return [] { return std::make_unique<dow::Model>(); };
}

// Compares the numbers of two outputs bit for bit (the wall times excepted).
bool same_bits(const ms::IntervalOutputs& a, const ms::IntervalOutputs& b) {
  for (int k = 0; k < a.intervals(); ++k) {
    auto bits = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
    if (a.status(k) != b.status(k) || !bits(a.H(k), b.H(k)) || a.steps(k) != b.steps(k))
      return false;
    for (int i = 0; i < a.nx(); ++i) {
      if (!bits(a.x_end(k)[static_cast<std::size_t>(i)], b.x_end(k)[static_cast<std::size_t>(i)])) return false;
      for (int j = 0; j < a.nx(); ++j)
        if (!bits(a.A(k)(i, j), b.A(k)(i, j))) return false;
      for (int j = 0; j < a.nu(); ++j)
        if (!bits(a.B(k)(i, j), b.B(k)(i, j))) return false;
    }
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(intervals)

BOOST_AUTO_TEST_CASE(threaded_evaluation_is_bit_identical_to_serial) {
  const int n = 8;
  const esdirk::Options options = dow::benchmark_options(1e-6);
  ms::IntervalEvaluator serial(dow_factory(), n, options, {}, 1);
  ms::IntervalEvaluator threaded(dow_factory(), n, options, {}, 3);
  ms::IntervalInputs in = dow_inputs(n);
  ms::IntervalOutputs a, b;
  // Two rounds: the second warm-starts every interval from its own first call, which must not
  // depend on the schedule either.
  for (int round = 0; round < 2; ++round) {
    BOOST_TEST(serial.evaluate(in, a));
    BOOST_TEST(threaded.evaluate(in, b));
    BOOST_TEST(same_bits(a, b));
    for (double& x : in.x) x *= 1.001;
  }
}

BOOST_AUTO_TEST_CASE(outputs_match_a_shooting_interval_called_directly) {
  const int n = 3;
  const esdirk::Options options = dow::benchmark_options(1e-6);
  ms::IntervalEvaluator ev(dow_factory(), n, options, {}, 2);
  ms::IntervalInputs in = dow_inputs(n);
  ms::IntervalOutputs out;
  BOOST_TEST(ev.evaluate(in, out));
  for (int k = 0; k < n; ++k) {
    dow::Model model;
    esdirk::ShootingInterval direct(model, options);
    const esdirk::ShootingResult& r = direct.integrate(in.t_begin[static_cast<std::size_t>(k)], in.t_end[static_cast<std::size_t>(k)],
                                                       in.x_of(k), in.u_of(k), in.z_guess_of(k));
    BOOST_TEST(esdirk::ok(r.status));
    for (int i = 0; i < 6; ++i) {
      BOOST_TEST(out.x_end(k)[static_cast<std::size_t>(i)] == r.x[static_cast<std::size_t>(i)]);
      for (int j = 0; j < 9; ++j) BOOST_TEST(out.B(k)(i, j) == r.B(i, j));
    }
    BOOST_TEST(out.steps(k) == r.statistics.steps);
  }
}

// Frozen meshes: every interval adapts at the first evaluation and then takes exactly its own
// steps (no rejections), the same on any number of threads; fixed steps apply to every interval;
// a bad step count is refused and the policy kept.
BOOST_AUTO_TEST_CASE(frozen_and_fixed_meshes_of_every_interval) {
  const int n = 4;
  const esdirk::Options options = dow::benchmark_options(1e-6);
  ms::IntervalEvaluator serial(dow_factory(), n, options, {}, 1);
  ms::IntervalEvaluator threaded(dow_factory(), n, options, {}, 2);
  serial.freeze_meshes();
  threaded.freeze_meshes();
  ms::IntervalInputs in = dow_inputs(n);
  ms::IntervalOutputs first, a, b;
  BOOST_REQUIRE(serial.evaluate(in, first));
  for (double& x : in.x) x *= 1.001;  // the next SQP iterate
  BOOST_REQUIRE(serial.evaluate(in, a));
  BOOST_REQUIRE(threaded.evaluate(dow_inputs(n), b));
  BOOST_REQUIRE(threaded.evaluate(in, b));
  BOOST_TEST(same_bits(a, b));
  std::vector<long> frozen_steps;
  for (int k = 0; k < n; ++k) {
    BOOST_TEST(a.steps(k) <= first.steps(k));  // the adapting call's steps without its rejections
    frozen_steps.push_back(a.steps(k));
  }
  for (double& x : in.x) x *= 1.001;
  BOOST_REQUIRE(serial.evaluate(in, a));
  for (int k = 0; k < n; ++k) BOOST_TEST(a.steps(k) == frozen_steps[static_cast<std::size_t>(k)]);

  // Five equal steps of 0.04 h cannot cross Dow's start-up layer (these intervals all start
  // from the initial state): every interval fails in a fixed step and says so, where the
  // frozen mesh (adapted once) succeeds. A bad step count is refused and the policy kept.
  serial.set_fixed_steps(5);
  BOOST_TEST(!serial.evaluate(in, a));
  for (int k = 0; k < n; ++k) BOOST_TEST(a.message(k).find("fixed step") != std::string::npos, a.message(k));
  BOOST_CHECK_THROW(serial.set_fixed_steps(0), std::invalid_argument);
  BOOST_TEST(!serial.evaluate(in, a));
  BOOST_TEST(a.message(0).find("fixed step") != std::string::npos);
  serial.use_adaptive_steps();
  BOOST_TEST(serial.evaluate(in, a));
}

BOOST_AUTO_TEST_CASE(a_block_evaluates_only_its_own_intervals) {
  const int n = 6;
  ms::IntervalEvaluator all(dow_factory(), n, dow::benchmark_options(1e-6));
  ms::IntervalEvaluator block(dow_factory(), n, dow::benchmark_options(1e-6), {}, 1, 2, 3);
  BOOST_TEST(block.first() == 2);
  BOOST_TEST(block.count() == 3);
  ms::IntervalInputs in = dow_inputs(n);
  ms::IntervalOutputs a, b;
  all.evaluate(in, a);
  block.evaluate(in, b);
  for (int k = 2; k < 5; ++k) BOOST_TEST(b.x_end(k)[0] == a.x_end(k)[0]);
  BOOST_TEST(b.steps(0) == 0);  // not owned: untouched
}

BOOST_AUTO_TEST_CASE(a_failing_interval_is_recorded_and_the_others_still_run) {
  const int n = 4;
  ms::IntervalEvaluator ev(dow_factory(), n, dow::benchmark_options(1e-6), {}, 2);
  ms::IntervalInputs in = dow_inputs(n);
  in.x_of(2)[1] = std::numeric_limits<double>::quiet_NaN();  // a broken NLP iterate
  ms::IntervalOutputs out;
  BOOST_TEST(!ev.evaluate(in, out));
  BOOST_TEST(out.first_failure() == 2);
  BOOST_TEST(out.ok(0));
  BOOST_TEST(out.ok(1));
  BOOST_TEST(out.ok(3));
  BOOST_TEST(out.message(2).find("interval 2") != std::string::npos);
  BOOST_TEST(out.message(2).find("non-finite") != std::string::npos);
  // The next evaluation with good inputs succeeds again.
  in = dow_inputs(n);
  BOOST_TEST(ev.evaluate(in, out));
}

BOOST_AUTO_TEST_SUITE_END()
