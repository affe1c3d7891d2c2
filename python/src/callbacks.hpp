#pragma once
// Model callbacks of the Python package: a Python callable or a compiled C function.
//
// Both are called through Callback::call with the library's arguments (t, x, z, p) and write
// `rows` x `cols` values, column-major (cols = 0: a vector of `rows` values). A Python
// callable returns an array-like of shape (rows,) or (rows, cols) (a plain number for a
// vector of one); a compiled one has the C signature
//
//     int f(double t, const double* x, const double* z, const double* p, double* out)
//
// and returns the library's code (0 ok, > 0 recoverable, < 0 fatal). The integration runs with
// the GIL released; a Python callback takes it for its call. A Python exception (or a result
// of the wrong shape) ends the integration as a fatal callback failure and is kept in the
// ErrorSlot, from which the binding raises it once the library has returned.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "esdirk/jacobian_matrix.hpp"
#include "esdirk/matrix.hpp"

namespace esdirk::python {

namespace py = pybind11;

using CFunction = int (*)(double t, const double* x, const double* z, const double* p, double* out);

/// The first Python exception raised inside an integration (callbacks may run in several
/// threads: the GIL orders them). Owned by the object whose call ran the integration.
class ErrorSlot {
 public:
  /// Keeps the Python error currently set (call with the GIL held), unless one is kept.
  void store_current();
  bool pending() const { return static_cast<bool>(type_); }
  /// Raises the kept error (with the GIL held) and clears the slot; no-op if none.
  void raise_if_pending();
  void clear();

 private:
  py::object type_, value_, trace_;
};

/// Which arguments a Python callable takes after t and x.
struct PythonStyle {
  bool z = true;      ///< pass z (the DAE form)
  bool p = true;      ///< pass p
  bool mode = false;  ///< pass the mode first (hybrid problems): fn(mode, t, x, ...)
  py::tuple extra;    ///< appended arguments (scipy's `args`)
};

class Callback {
 public:
  Callback() = default;
  /// `what` names the callback in error messages ("fun", "jac", ...).
  static Callback python(py::object function, PythonStyle style, std::string what);
  static Callback compiled(std::uintptr_t address, std::string what);

  bool empty() const { return !compiled_ && !python_; }
  bool is_compiled() const { return compiled_ != nullptr; }
  const std::string& what() const { return what_; }

  /// An argument of a Python call: a vector (cols = 0) or a column-major matrix.
  struct Argument {
    const double* data = nullptr;
    int rows = 0;
    int cols = 0;
  };

  /// Evaluates into out (rows x cols column-major with leading dimension ld; cols = 0: a
  /// vector of rows). Returns the library's code; Python failures are stored in `errors`.
  int call(double t, ConstVector x, ConstVector z, ConstVector p, double* out, int rows, int cols,
           int ld, ErrorSlot& errors, int mode = 0) const;

  /// A vectorized Python function (scipy's vectorized=True) on k columns at once: X (nx x k),
  /// Z (nz x k) column-major; out receives rows x k, column-major. Python callables only.
  int call_columns(double t, Argument X, Argument Z, ConstVector p, double* out, int rows,
                   ErrorSlot& errors) const;
  /// A Jacobian's values on its sparsity pattern: a compiled function writes the nnz values in
  /// the pattern's CSC order; a Python one returns them, or a scipy.sparse matrix or a dense
  /// (n, n) array (taken on the pattern; a nonzero outside it is an error).
  /// `mode` is passed first to a Python function whose style has `mode` (hybrid problems).
  int call_sparse(double t, ConstVector x, ConstVector z, ConstVector p, SparseMatrixRef J,
                  ErrorSlot& errors, int mode = 0) const;

 private:
  int call_python(double t, ConstVector x, ConstVector z, ConstVector p, double* out, int rows,
                  int cols, int ld, ErrorSlot& errors, int mode) const;
  /// Calls the Python function (GIL held); throws py::error_already_set on its errors.
  py::object invoke(double t, Argument x, Argument z, Argument p, int mode) const;
  void read_general(const py::object& value, double* out, int rows, int cols, int ld) const;
  void read_sparse(const py::object& value, SparseMatrixRef J) const;

  CFunction compiled_ = nullptr;
  py::object python_;
  PythonStyle style_;
  std::string what_;
};

/// Runs `body` (which calls Python) with the GIL taken and turns its Python errors into the
/// library's codes as the model callbacks do: RecoverableError -> 1, anything else -> -1 with
/// the error kept in `errors` (and -1 at once when a callback failed before).
int call_python_guarded(ErrorSlot& errors, const std::function<void()>& body);

/// A NumPy copy of a vector (allocates; with the GIL held).
py::array_t<double> to_array(ConstVector v);
/// A NumPy (rows, cols) copy of a column-major matrix.
py::array_t<double> to_array(ConstMatrixRef m);

/// A float64 vector of exactly `n` entries from an array-like: raises ValueError naming
/// `what` for another shape, TypeError for what is not numeric.
std::vector<double> vector_argument(const py::handle& value, py::ssize_t n, const char* what);
/// Any-length float64 vector (1-D) from an array-like.
std::vector<double> vector_argument(const py::handle& value, const char* what);
/// `n` entries from an array-like, or n zeros for None.
std::vector<double> optional_vector(const py::handle& value, int n, const char* what);
/// A column-major copy of a (rows, cols) array-like; rows or cols < 0: any.
DenseMatrix matrix_argument(const py::handle& value, int rows, int cols, const char* what);

/// Runs an integration `work` with the GIL released, or held throughout when `hold_gil` (Python
/// callbacks only: each would take it back at once, and releasing and retaking it per call
/// costs more than the rest of the binding's work per call; other Python threads still run,
/// since the callbacks' bytecode yields the GIL as usual). Then raises the Python exception a
/// callback left in `errors`.
template <class Work>
auto run_integration(ErrorSlot& errors, bool hold_gil, Work&& work) {
  errors.clear();
  std::optional<decltype(work())> result;
  if (hold_gil) {
    result.emplace(work());
  } else {
    py::gil_scoped_release release;
    result.emplace(work());
  }
  errors.raise_if_pending();
  return *result;
}

/// The exception raised for a numerical failure: esdirk.SolverError(message) with `.status`.
[[noreturn]] void raise_solver_error(int status, const std::string& name,
                                     const std::string& message);

}  // namespace esdirk::python
