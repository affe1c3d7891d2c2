#pragma once
// esdirk.Problem: a Problem whose f, g and Jacobians are Callbacks (Python or compiled).

#include <memory>

#include "callbacks.hpp"
#include "esdirk/problem.hpp"

namespace esdirk::python {

/// A Callback from what the user passed: None (empty), a compiled function (ctypes, cffi,
/// numba.cfunc; checked by esdirk._callbacks) or a Python callable.
Callback make_callback(const py::object& value, const PythonStyle& style, const std::string& what);

class ModelProblem final : public Problem {
 public:
  ModelProblem(int nx, int nz, int np, Callback f, Callback g, Callback jacobian,
               Callback parameter_jacobian);

  int evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f, Vector g) override;
  bool has_jacobian() const override { return !jacobian_.empty(); }
  int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) override;
  bool has_parameter_jacobian() const override { return !parameter_jacobian_.empty(); }
  int parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                         MatrixRef Jp) override;

  /// True when every callback is compiled: the integration never needs the interpreter.
  bool compiled() const;
  /// True when no callback is compiled: an integration then holds the GIL throughout (as a
  /// solver written in Python would), instead of releasing it around every callback call.
  bool python_only() const;
  ErrorSlot& errors() { return errors_; }

 private:
  Callback f_, g_, jacobian_, parameter_jacobian_;
  ErrorSlot errors_;
};

}  // namespace esdirk::python
