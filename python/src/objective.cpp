// The objective terms of the adjoints from Python (objective.hpp).

#include "objective.hpp"

#include <string>

namespace esdirk::python {

int python_gradient(const py::object& fn, ErrorSlot& errors, const char* what, int rows, double t,
                    ConstVector x, ConstVector z, ConstVector p, MatrixRef dx, MatrixRef dz,
                    MatrixRef dp, std::optional<int> index) {
  py::gil_scoped_acquire gil;
  if (errors.pending()) return -1;
  try {
    py::object r = index ? fn(*index, t, to_array(x), to_array(z), to_array(p))
                         : fn(t, to_array(x), to_array(z), to_array(p));
    py::tuple parts;
    try {
      parts = r.cast<py::tuple>();
    } catch (py::error_already_set&) {  // not a sequence: name the callback, not tuple()
      throw py::type_error(std::string(what) + " must return a tuple (dC/dx, dC/dz, dC/dp), got " +
                           std::string(py::str(r.get_type().attr("__name__"))));
    }
    if (parts.size() != 3)
      throw py::value_error(std::string(what) + " must return (dC/dx, dC/dz, dC/dp)");
    MatrixRef blocks[3] = {dx, dz, dp};
    for (int b = 0; b < 3; ++b) {
      if (parts[b].is_none() || blocks[b].rows == 0) continue;
      DenseMatrix m = rows == 1 && py::array::ensure(parts[b]).ndim() == 1
                          ? [&] {
                              const auto v = vector_argument(parts[b], blocks[b].rows, what);
                              DenseMatrix c(blocks[b].rows, 1);
                              for (int i = 0; i < c.rows(); ++i) c(i, 0) = v[static_cast<std::size_t>(i)];
                              return c;
                            }()
                          : matrix_argument(parts[b], blocks[b].rows, rows, what);
      for (int j = 0; j < rows; ++j)
        for (int i = 0; i < blocks[b].rows; ++i) blocks[b](i, j) = m(i, j);
    }
    return 0;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::cast_error&) {
    PyErr_SetString(PyExc_TypeError,
                    (std::string(what) + " must return a tuple (dC/dx, dC/dz, dC/dp)").c_str());
  } catch (py::builtin_exception& e) {
    e.set_error();
  }
  errors.store_current();
  return -1;
}

DenseMatrix weights_argument(const py::object& weights, int n) {
  DenseMatrix w;
  py::array a = py::array::ensure(weights);
  if (a && a.ndim() == 1) {
    const auto v = vector_argument(weights, n, "weights");
    w.resize(n, 1);
    for (int i = 0; i < n; ++i) w(i, 0) = v[static_cast<std::size_t>(i)];
  } else {
    w = matrix_argument(weights, n, -1, "weights");
  }
  return w;
}

py::object gradient_array(const DenseMatrix& gradient, int rows) {
  py::array_t<double> a = to_array(gradient.cref());
  if (rows == 1) return a.attr("reshape")(-1);
  return a;
}

}  // namespace esdirk::python
