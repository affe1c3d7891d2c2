#pragma once
// esdirk.Problem: a Problem whose f, g and Jacobians are Callbacks (Python or compiled).

#include <memory>
#include <vector>

#include "callbacks.hpp"
#include "esdirk/options.hpp"
#include "esdirk/problem.hpp"

namespace esdirk::python {

/// A Callback from what the user passed: None (empty), a compiled function (ctypes, cffi,
/// numba.cfunc; checked by esdirk._callbacks) or a Python callable.
Callback make_callback(const py::object& value, const PythonStyle& style, const std::string& what);

class ModelProblem final : public Problem {
 public:
  ModelProblem(int nx, int nz, int np, Callback f, Callback g, Callback jacobian,
               Callback parameter_jacobian, Callback sparse_jacobian = {});

  int evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f, Vector g) override;
  bool has_jacobian() const override { return !jacobian_.empty() || vectorized_differences(); }
  int jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) override;
  bool has_parameter_jacobian() const override { return !parameter_jacobian_.empty(); }
  int parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                         MatrixRef Jp) override;
  bool has_sparse_jacobian() const override { return !sparse_jacobian_.empty(); }
  int sparse_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                      SparseMatrixRef J) override;

  /// scipy's vectorized=True: f (and g) accept k columns at once, so a difference Jacobian is
  /// one call on its n + 1 columns (the point and each moved state) instead of n + 1 calls.
  /// Used where the library would difference the dense J: no analytic jac, no declared
  /// structure, Python callbacks (compiled ones are differenced by the library, in C).
  void set_vectorized(bool vectorized) { vectorized_ = vectorized; }
  bool vectorized() const { return vectorized_; }
  /// The increments of the vectorized differences follow the library's rule
  /// (DifferenceIncrement) for these options, so that J is the one the library would form.
  void use_difference_increments_of(const Options& options);
  /// Columns evaluated by vectorized differences, n + 1 per Jacobian (counted as
  /// fd_function_evaluations, as the library counts its own differences with their base) and
  /// the calls that evaluated them, since the last reset.
  long vectorized_columns() const { return vectorized_columns_; }
  long vectorized_calls() const { return vectorized_calls_; }
  void reset_counters() { vectorized_columns_ = vectorized_calls_ = 0; }

  /// True when every callback is compiled: the integration never needs the interpreter.
  bool compiled() const;
  /// True when no callback is compiled: an integration then holds the GIL throughout (as a
  /// solver written in Python would), instead of releasing it around every callback call.
  bool python_only() const;
  ErrorSlot& errors() { return errors_; }

  // --- Newton-Krylov hooks (python/src/krylov.cpp): Python callables, called with the
  // arguments the other callbacks take (pass_z, pass_p, args), or compiled functions with the
  // hooks' own signatures (esdirk._callbacks.SIGNATURES). A Python hook that raises stops the
  // integration as the other callbacks do (RecoverableError: the GMRES solve fails and the
  // step is retried).
  /// How the callbacks are called (kept for the hooks, which are set after construction).
  void set_style(PythonStyle style) { style_ = std::move(style); }
  /// jac_vec(t, x, z, p, v) -> J v (n,); None removes it.
  void set_jacobian_vector_product(py::object product);
  /// psetup(t, x, z, p, J_values, h_gamma) and psolve(r, transpose) -> P^{-1} r: both or None.
  void set_preconditioner(py::object setup, py::object solve);
  /// A hook: a Python callable or a compiled function's address (neither: not set).
  struct Hook {
    py::object python;
    std::uintptr_t compiled = 0;
    explicit operator bool() const { return compiled != 0 || static_cast<bool>(python); }
  };
  bool has_jacobian_vector_product() const override { return static_cast<bool>(product_); }
  int jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p,
                              ConstVector v, Vector out) override;
  bool has_preconditioner() const override { return static_cast<bool>(preconditioner_solve_); }
  int preconditioner_setup(double t, ConstVector x, ConstVector z, ConstVector p,
                           const JacobianMatrix& J, double h_gamma) override;
  int preconditioner_solve(ConstVector r, Vector out, bool transpose) override;

 private:
  bool vectorized_differences() const;
  int vectorized_jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J);

  Callback f_, g_, jacobian_, parameter_jacobian_, sparse_jacobian_;
  ErrorSlot errors_;
  bool vectorized_ = false;
  std::vector<double> floors_;                  // increment floors (nx + nz)
  // The workspace of the vectorized differences (sized at the first Jacobian).
  std::vector<double> columns_, f_columns_, g_columns_, X_, Z_, actual_;
  long vectorized_columns_ = 0, vectorized_calls_ = 0;
  PythonStyle style_;
  Hook product_, preconditioner_setup_, preconditioner_solve_;
};

/// esdirk::check_jacobian_vector_product on the problem's jac_vec at (t, x, z, p) as a dict
/// (ok, worst_error, worst_direction, worst_row, equation, supplied, finite_difference, message);
/// ValueError without a jac_vec, for wrong sizes or directions < 1. A Python exception in f, g
/// or jac_vec is raised as it was.
py::dict check_jacobian_vector_product(ModelProblem& problem, double t, const py::object& x,
                                       const py::object& z, const py::object& p, double rtol,
                                       double atol, int directions);

}  // namespace esdirk::python
