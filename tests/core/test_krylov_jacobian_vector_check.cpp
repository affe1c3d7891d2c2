// check_jacobian_vector_product: a problem's own J v (the Krylov solver's matrix-free product)
// against central differences of f and g. The exact product of the 1-D Brusselator passes; a
// product that drops one coupling (a typical slip) fails naming the equation and both values;
// a failing product is named as such; bad arguments throw.
#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "brusselator_mol/brusselator_mol_model.hpp"
#include "esdirk/jacobian_vector_check.hpp"

namespace {

// J v from the model's own entries; `drop` (>= 0) leaves out the diffusion coupling of that row
// to its right neighbour, `fail` makes the product return 1.
class BrusselatorWithProduct : public brusselator_mol::Model {
 public:
  explicit BrusselatorWithProduct(int drop = -1, bool fail = false) : Model(10), drop_(drop), fail_(fail) {}
  bool has_jacobian_vector_product() const override { return true; }
  int jacobian_vector_product(double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
                              esdirk::ConstVector v, esdirk::Vector out) override {
    if (fail_) return 1;
    const int n = size();
    for (int i = 0; i < n; ++i) {
      out[i] = 0.0;
      for (int j = std::max(0, i - 2); j <= std::min(n - 1, i + 2); ++j)
        if (couples(i, j) && !(i == drop_ && j == i + 2)) out[i] += entry(x.data(), p.data(), i, j) * v[j];
    }
    return 0;
  }

 private:
  int drop_;
  bool fail_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(krylov_jacobian_vector_check)

BOOST_AUTO_TEST_CASE(the_exact_product_passes_and_a_dropped_coupling_is_named) {
  BrusselatorWithProduct exact;
  const auto x = exact.initial_state();
  const auto p = exact.nominal_parameters();
  const auto good = esdirk::check_jacobian_vector_product(exact, 0.0, x, {}, p);
  BOOST_TEST_INFO(good.message);
  BOOST_TEST(good.ok);
  BOOST_TEST(good.worst_error < 1e-2);  // central differences of a quadratic f: rounding only
  BOOST_TEST(good.message.empty());

  BrusselatorWithProduct wrong(7);  // row 7 (v at point 3) without its right neighbour
  const auto bad = esdirk::check_jacobian_vector_product(wrong, 0.0, x, {}, p);
  BOOST_TEST(!bad.ok);
  BOOST_TEST(bad.worst_row == 7);
  BOOST_TEST(bad.equation == wrong.equation_name(7));
  BOOST_TEST_INFO(bad.message);
  BOOST_TEST(bad.message.find("jacobian_vector_product disagrees") != std::string::npos);
  BOOST_TEST(bad.message.find(wrong.equation_name(7)) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_failing_product_and_bad_arguments_are_reported) {
  BrusselatorWithProduct failing(-1, true);
  const auto x = failing.initial_state();
  const auto p = failing.nominal_parameters();
  const auto report = esdirk::check_jacobian_vector_product(failing, 0.0, x, {}, p);
  BOOST_TEST(!report.ok);
  BOOST_TEST(report.message.find("jacobian_vector_product failed") != std::string::npos);

  BOOST_CHECK_THROW(esdirk::check_jacobian_vector_product(failing, 0.0, x, {}, p, {}, 0), std::invalid_argument);
  const std::vector<double> short_x(3, 1.0);
  BOOST_CHECK_THROW(esdirk::check_jacobian_vector_product(failing, 0.0, short_x, {}, p), std::invalid_argument);
  brusselator_mol::Model without(10);
  BOOST_CHECK_THROW(esdirk::check_jacobian_vector_product(without, 0.0, x, {}, p), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
