// The dual number and the tape against closed-form derivatives.

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <vector>

#include "esdirk/ad/dual.hpp"
#include "esdirk/ad/tape.hpp"

namespace {

using esdirk::ad::Dual;
using esdirk::ad::Tape;
using esdirk::ad::Var;

// One expression that uses every operation and function, written once for double, Dual and Var.
template <class T>
T expression(const T& a, const T& b) {
  using std::abs, std::atan, std::cos, std::exp, std::log, std::max, std::min, std::pow, std::sin,
      std::sqrt, std::tanh;
  T r = a * b + a / b - 2.0 * a + 1 - b / 3.0 + 4.0 / b;
  r += pow(a, 3.0) + pow(2.0, b) + pow(a, b) + exp(a) * log(b) + sqrt(a * b);
  r -= sin(a) * cos(b) + tanh(a - b) + atan(a) + abs(a - 3.0 * b);
  r *= 1.0 + min(a, b) + max(a, 1.5);
  r /= 2.0;
  return -r;
}

// Its gradient by hand.
void gradient(double a, double b, double& da, double& db) {
  const double base = a * b + a / b - 2.0 * a + 1 - b / 3.0 + 4.0 / b + std::pow(a, 3.0) + std::pow(2.0, b) +
                      std::pow(a, b) + std::exp(a) * std::log(b) + std::sqrt(a * b) -
                      (std::sin(a) * std::cos(b) + std::tanh(a - b) + std::atan(a) + std::abs(a - 3.0 * b));
  const double sign = a - 3.0 * b < 0.0 ? -1.0 : 1.0, th = std::tanh(a - b);
  const double dbase_a = b + 1.0 / b - 2.0 + 3.0 * a * a + b * std::pow(a, b - 1.0) + std::exp(a) * std::log(b) +
                         0.5 * b / std::sqrt(a * b) -
                         (std::cos(a) * std::cos(b) + (1.0 - th * th) + 1.0 / (1.0 + a * a) + sign);
  const double dbase_b = a - a / (b * b) - 1.0 / 3.0 - 4.0 / (b * b) + std::log(2.0) * std::pow(2.0, b) +
                         std::log(a) * std::pow(a, b) + std::exp(a) / b + 0.5 * a / std::sqrt(a * b) -
                         (-std::sin(a) * std::sin(b) - (1.0 - th * th) - 3.0 * sign);
  const double factor = 1.0 + std::min(a, b) + std::max(a, 1.5);
  const double dfactor_a = (a <= b ? 1.0 : 0.0) + (a >= 1.5 ? 1.0 : 0.0);
  const double dfactor_b = b < a ? 1.0 : 0.0;
  da = -(dbase_a * factor + base * dfactor_a) / 2.0;
  db = -(dbase_b * factor + base * dfactor_b) / 2.0;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-13 * std::max(1.0, std::abs(b)); }

}  // namespace

BOOST_AUTO_TEST_SUITE(scalars)

BOOST_AUTO_TEST_CASE(dual_and_tape_give_the_closed_form_gradient) {
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{{0.7, 1.3}, {2.1, 0.4}, {1.9, 2.5}}) {
    double da = 0.0, db = 0.0;
    gradient(a, b, da, db);
    const Dual<2> x(a, {1.0, 0.0}), y(b, {0.0, 1.0});
    const Dual<2> r = expression(x, y);
    BOOST_TEST(r.v == expression(a, b));  // the value part is the double evaluation itself
    BOOST_TEST(close(r.d[0], da));
    BOOST_TEST(close(r.d[1], db));

    Tape tape;
    Tape::Recording recording(tape);
    const Var u = Var::input(a), w = Var::input(b);
    const Var s = expression(u, w);
    BOOST_TEST(s.v == expression(a, b));
    std::vector<double> adjoints(static_cast<std::size_t>(tape.size()), 0.0);
    adjoints[static_cast<std::size_t>(s.index)] = 1.0;
    tape.sweep(adjoints);
    BOOST_TEST(close(adjoints[0], da));
    BOOST_TEST(close(adjoints[1], db));
  }
}

BOOST_AUTO_TEST_CASE(comparisons_and_branches_follow_the_value) {
  const Dual<1> x(2.0, {1.0});
  BOOST_TEST((x > 1.0));
  BOOST_TEST((1 < x));
  BOOST_TEST((x == 2.0));
  BOOST_TEST(!(x < Dual<1>(2.0, {5.0})));
  BOOST_TEST(esdirk::ad::value_of(x) == 2.0);
}

BOOST_AUTO_TEST_CASE(constants_record_nothing_on_the_tape) {
  Tape tape;
  Tape::Recording recording(tape);
  const Var c = 3.0;
  const Var r = c * c + 2.0;
  BOOST_TEST(r.index == -1);
  BOOST_TEST(tape.size() == 0);
  BOOST_TEST(Tape::active() == &tape);
}

BOOST_AUTO_TEST_CASE(tape_storage_is_reused_by_later_recordings) {
  Tape tape;
  std::size_t capacity = 0;
  for (int round = 0; round < 3; ++round) {
    tape.clear();
    Tape::Recording recording(tape);
    Var x = Var::input(1.0);
    for (int k = 0; k < 100; ++k) x = x * 1.01 + 0.5;
    if (round == 0) capacity = tape.capacity();
    BOOST_TEST(tape.capacity() == capacity);
  }
  BOOST_TEST(Tape::active() == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
