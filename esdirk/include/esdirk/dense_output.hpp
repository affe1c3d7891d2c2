#pragma once
// The dense output over the last accepted step, as listeners see it (the stepper implements
// it). x(t) is the continuous extension of order 3; z(t) is interpolated from the stage values
// and corrected onto g(t, x(t), z) = 0 (doc/integrator-theory.md, section 6).

#include "esdirk/matrix.hpp"
#include "esdirk/export.hpp"

namespace esdirk {

class ESDIRK_API DenseOutput {
 public:
  /// x(t) and, if z is not empty, z(t) for t in the step [t_begin, t_end]. Throws
  /// std::domain_error outside it. The z correction evaluates the model (up to twice, counted
  /// in function_evaluations) and factors dg/dz once per step (dense_output_factorizations).
  virtual void evaluate(double t, Vector x, Vector z = {}) = 0;
  virtual double t_begin() const = 0;
  virtual double t_end() const = 0;

 protected:
  ~DenseOutput() = default;
};

}  // namespace esdirk
