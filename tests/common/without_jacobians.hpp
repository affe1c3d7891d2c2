#pragma once
// Models with their analytic Jacobians hidden, so that the integrator and the modules above it
// form J and f_p by forward differences (tests and benchmarks of the difference Jacobians).

#include <memory>
#include <utility>

#include "esdirk/problem.hpp"

namespace test_helpers {

// A model class whose Jacobian callbacks are declared absent (everything else is the model's).
template <class Model>
struct WithoutJacobiansOf : Model {
  bool has_jacobian() const override { return false; }
  bool has_parameter_jacobian() const override { return false; }
};

// Any problem (owned) seen through its residual only.
class WithoutJacobians : public esdirk::Problem {
 public:
  explicit WithoutJacobians(std::unique_ptr<esdirk::Problem> inner)
      : Problem(inner->nx(), inner->nz(), inner->np()), inner_(std::move(inner)) {}
  int evaluate(double t, esdirk::ConstVector x, esdirk::ConstVector z, esdirk::ConstVector p,
               esdirk::Vector f, esdirk::Vector g) override {
    return inner_->evaluate(t, x, z, p, f, g);
  }

 private:
  std::unique_ptr<esdirk::Problem> inner_;
};

}  // namespace test_helpers
