#pragma once
// The objective terms of the adjoints from Python (adjoint_gradient in sensitivity.cpp,
// HybridAdjoint in hybrid_adjoint.cpp): gradient callbacks, terminal weights, the result arrays.

#include <optional>

#include "callbacks.hpp"
#include "esdirk/matrix.hpp"

namespace esdirk::python {

/// Calls a Python gradient function fn(t, x, z, p) (with `index`: fn(index, t, x, z, p)) ->
/// (dC/dx, dC/dz, dC/dp) and writes the three blocks (rows = objective rows). Each returned
/// block may be None (zero); a block's shape is (n,) for a single objective row or (n, rows).
/// Returns 0, or -1 with the Python error kept in `errors` (`what` names the callback).
int python_gradient(const py::object& fn, ErrorSlot& errors, const char* what, int rows, double t,
                    ConstVector x, ConstVector z, ConstVector p, MatrixRef dx, MatrixRef dz,
                    MatrixRef dp, std::optional<int> index = {});

/// Terminal weights W (C = W^T [x; z]): a 1-D array of n values (one row) or an (n, rows) matrix.
DenseMatrix weights_argument(const py::object& weights, int n);

/// A gradient block (n x rows) as NumPy: 1-D for a single objective row, (n, rows) otherwise.
py::object gradient_array(const DenseMatrix& gradient, int rows);

}  // namespace esdirk::python
