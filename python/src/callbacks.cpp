#include "callbacks.hpp"

#include <sstream>

namespace esdirk::python {

void ErrorSlot::store_current() {
  if (pending()) {
    PyErr_Clear();
    return;
  }
  PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
  PyErr_Fetch(&type, &value, &trace);
  PyErr_NormalizeException(&type, &value, &trace);
  if (trace && value) PyException_SetTraceback(value, trace);
  type_ = py::reinterpret_steal<py::object>(type);
  value_ = py::reinterpret_steal<py::object>(value);
  trace_ = py::reinterpret_steal<py::object>(trace);
}

void ErrorSlot::raise_if_pending() {
  if (!pending()) return;
  PyErr_Restore(type_.release().ptr(), value_.release().ptr(),
                trace_ ? trace_.release().ptr() : nullptr);
  throw py::error_already_set();
}

void ErrorSlot::clear() {
  type_ = py::object();
  value_ = py::object();
  trace_ = py::object();
}

Callback Callback::python(py::object function, PythonStyle style, std::string what) {
  if (!PyCallable_Check(function.ptr()))
    throw py::type_error(what + " must be callable or a compiled function (got " +
                         std::string(py::str(py::type::handle_of(function).attr("__name__"))) +
                         ")");
  Callback c;
  c.python_ = std::move(function);
  c.style_ = std::move(style);
  c.what_ = std::move(what);
  return c;
}

Callback Callback::compiled(std::uintptr_t address, std::string what) {
  if (address == 0) throw py::value_error(what + ": the compiled function's address is NULL");
  Callback c;
  c.compiled_ = reinterpret_cast<CFunction>(address);
  c.what_ = std::move(what);
  return c;
}

int Callback::call(double t, ConstVector x, ConstVector z, ConstVector p, double* out, int rows,
                   int cols, int ld, ErrorSlot& errors, int mode) const {
  if (compiled_) {
    const int width = cols == 0 ? 1 : cols;
    if (ld == rows || width == 1) return compiled_(t, x.data(), z.data(), p.data(), out);
    // A matrix with padding: through a packed copy (not the case of the library's dense
    // matrices, whose leading dimension is their row count).
    thread_local std::vector<double> packed;
    packed.assign(static_cast<std::size_t>(rows) * width, 0.0);
    const int code = compiled_(t, x.data(), z.data(), p.data(), packed.data());
    for (int j = 0; j < width; ++j)
      for (int i = 0; i < rows; ++i)
        out[i + static_cast<std::size_t>(j) * ld] = packed[i + static_cast<std::size_t>(j) * rows];
    return code;
  }
  return call_python(t, x, z, p, out, rows, cols, ld, errors, mode);
}

namespace {

py::object recoverable_error_type() {
  return py::module_::import("esdirk._esdirk").attr("RecoverableError");
}

std::string shape_text(const py::array& a) {
  std::ostringstream s;
  s << "(";
  for (py::ssize_t k = 0; k < a.ndim(); ++k)
    s << (k ? ", " : "") << a.shape(k) << (a.ndim() == 1 ? "," : "");
  s << ")";
  return s.str();
}

// Rejects what NumPy would convert with a loss (complex) or not as numbers at all.
void check_numeric(const py::array& a, const std::string& what) {
  const char kind = a.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw py::type_error(what + " must be real numbers (float64), got dtype " +
                         std::string(py::str(a.dtype())));
}

}  // namespace

namespace {

// The fast paths of a Python callback's call. A model in Python is called thousands of times
// per integration for a few microseconds each, so what the binding adds per call matters
// (doc/python-guide.md, "Speed"): the arguments go through one vectorcall, the arrays are made
// by NumPy's C API directly, and the common results (a list or tuple of floats, a float64
// array of the right shape) are read without converting them to a new array. Anything else
// takes the general path below, which also gives the error messages.

// A new 1-D float64 array holding v (nullptr with a Python error set if NumPy fails).
PyObject* new_vector(ConstVector v) {
  auto& api = py::detail::npy_api::get();
  const Py_intptr_t n = static_cast<Py_intptr_t>(v.size());
  PyObject* a = api.PyArray_NewFromDescr_(
      api.PyArray_Type_, api.PyArray_DescrFromType_(py::detail::npy_api::NPY_DOUBLE_), 1, &n,
      nullptr, nullptr, 0, nullptr);
  if (a && n > 0) std::copy(v.begin(), v.end(), reinterpret_cast<double*>(py::detail::array_proxy(a)->data));
  return a;
}

// A Python number that is a float (also numpy.float64, a float subclass) or a small exact int,
// as NumPy would convert it to float64 in a list of numbers; false for anything else.
bool plain_number(PyObject* item, double& value) {
  if (PyFloat_Check(item)) {
    value = PyFloat_AS_DOUBLE(item);
    return true;
  }
  if (PyLong_CheckExact(item)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    value = static_cast<double>(v);
    return true;
  }
  return false;
}

// Reads a result of the expected shape without conversions: a list or tuple of `rows` numbers
// (vectors only), or a native float64 NumPy array of shape (rows,) / (rows, cols). Returns
// false (nothing kept) for anything else, which the general path then converts or refuses.
bool read_fast(PyObject* value, double* out, int rows, int cols, int ld) {
  if (cols == 0 && (PyList_CheckExact(value) || PyTuple_CheckExact(value))) {
    if (PySequence_Fast_GET_SIZE(value) != rows) return false;
    PyObject** items = PySequence_Fast_ITEMS(value);
    for (int i = 0; i < rows; ++i)
      if (!plain_number(items[i], out[i])) return false;
    return true;
  }
  auto& api = py::detail::npy_api::get();
  if (!api.PyArray_Check_(value)) return false;
  const auto* a = py::detail::array_proxy(value);
  const auto* d = py::detail::array_descriptor_proxy(a->descr);
  if (d->type_num != py::detail::npy_api::NPY_DOUBLE_ || d->byteorder == '>') return false;
  const char* data = a->data;
  if (cols == 0) {
    if (a->nd != 1 || a->dimensions[0] != rows) return false;
    for (int i = 0; i < rows; ++i)
      out[i] = *reinterpret_cast<const double*>(data + i * a->strides[0]);
    return true;
  }
  if (a->nd != 2 || a->dimensions[0] != rows || a->dimensions[1] != cols) return false;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i)
      out[i + static_cast<std::size_t>(j) * ld] =
          *reinterpret_cast<const double*>(data + i * a->strides[0] + j * a->strides[1]);
  return true;
}

}  // namespace

namespace {

// A new float64 array of a column-major matrix's values, shape (rows, cols) (C order).
PyObject* new_matrix(const double* data, int rows, int cols) {
  auto& api = py::detail::npy_api::get();
  const Py_intptr_t dims[2] = {rows, cols};
  PyObject* a = api.PyArray_NewFromDescr_(
      api.PyArray_Type_, api.PyArray_DescrFromType_(py::detail::npy_api::NPY_DOUBLE_), 2, dims,
      nullptr, nullptr, 0, nullptr);
  if (a) {
    auto* out = reinterpret_cast<double*>(py::detail::array_proxy(a)->data);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) out[i * static_cast<std::size_t>(cols) + j] = data[i + static_cast<std::size_t>(j) * rows];
  }
  return a;
}

// Runs `read` (which calls the Python function and reads its result) with the GIL held and
// turns Python errors into the library's codes: RecoverableError -> 1, anything else -> -1
// with the error kept in `errors`.
template <class Read>
int guarded(ErrorSlot& errors, Read&& read) {
  py::gil_scoped_acquire gil;
  if (errors.pending()) return -1;  // another thread's callback failed: stop this one too
  try {
    read();
    return 0;
  } catch (py::error_already_set& e) {
    if (e.matches(recoverable_error_type())) return 1;  // retried with a smaller step
    e.restore();
    errors.store_current();
  } catch (py::builtin_exception& e) {
    e.set_error();
    errors.store_current();
  }
  return -1;
}

}  // namespace

int call_python_guarded(ErrorSlot& errors, const std::function<void()>& body) {
  return guarded(errors, body);
}

py::object Callback::invoke(double t, Argument x, Argument z, Argument p, int mode) const {
  // The arguments: [mode,] t, x, [z,] [p,] *extra, owned by `held` until the call returns.
  constexpr std::size_t fixed = 5;
  const std::size_t n_extra = style_.extra.size();
  py::object held[fixed];
  std::size_t n = 0;
  auto add = [&](PyObject* object) {
    if (!object) throw py::error_already_set();
    held[n++] = py::reinterpret_steal<py::object>(object);
  };
  auto array = [](Argument a) {
    return a.cols == 0 ? new_vector(ConstVector(a.data, static_cast<std::size_t>(a.rows)))
                       : new_matrix(a.data, a.rows, a.cols);
  };
  if (style_.mode) add(PyLong_FromLong(mode));
  add(PyFloat_FromDouble(t));
  add(array(x));
  if (style_.z) add(array(z));
  if (style_.p) add(array(p));
  PyObject* stack[fixed + 8];
  std::vector<PyObject*> long_stack;  // more than 8 extra arguments (rare)
  PyObject** argv = stack;
  if (n + n_extra > fixed + 8) {
    long_stack.resize(n + n_extra);
    argv = long_stack.data();
  }
  for (std::size_t k = 0; k < n; ++k) argv[k] = held[k].ptr();
  for (std::size_t k = 0; k < n_extra; ++k) argv[n + k] = PyTuple_GET_ITEM(style_.extra.ptr(), k);
  PyObject* result = PyObject_Vectorcall(python_.ptr(), argv, n + n_extra, nullptr);
  if (!result) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(result);
}

namespace {
Callback::Argument argument(ConstVector v) {
  return {v.data(), static_cast<int>(v.size()), 0};
}
}  // namespace

int Callback::call_python(double t, ConstVector x, ConstVector z, ConstVector p, double* out,
                          int rows, int cols, int ld, ErrorSlot& errors, int mode) const {
  return guarded(errors, [&] {
    py::object value = invoke(t, argument(x), argument(z), argument(p), mode);
    if (!read_fast(value.ptr(), out, rows, cols, ld)) read_general(value, out, rows, cols, ld);
  });
}

int Callback::call_columns(double t, Argument X, Argument Z, ConstVector p, double* out,
                           int rows, ErrorSlot& errors) const {
  return guarded(errors, [&] {
    py::object value = invoke(t, X, Z, argument(p), 0);
    if (!read_fast(value.ptr(), out, rows, X.cols, rows))
      read_general(value, out, rows, X.cols, rows);
  });
}

int Callback::call_sparse(double t, ConstVector x, ConstVector z, ConstVector p,
                          SparseMatrixRef J, ErrorSlot& errors, int mode) const {
  const int nnz = J.nonzeros();
  if (compiled_) return compiled_(t, x.data(), z.data(), p.data(), J.values);
  return guarded(errors, [&] {
    py::object value = invoke(t, argument(x), argument(z), argument(p), mode);
    if (!read_fast(value.ptr(), J.values, nnz, 0, nnz)) read_sparse(value, J);
  });
}

// A sparse Jacobian's result other than its nnz values: a scipy.sparse matrix or a dense
// (n, n) array, taken on the pattern; a nonzero outside the pattern is refused (it would be
// dropped silently otherwise).
void Callback::read_sparse(const py::object& value, SparseMatrixRef J) const {
  const SparsityPattern& pattern = *J.pattern;
  const int n = pattern.size();
  auto outside = [&](int i, int j, double v) {
    throw py::value_error(what_ + " returned a nonzero (" + std::to_string(v) + ") at row " +
                          std::to_string(i) + ", column " + std::to_string(j) +
                          ", outside the declared sparsity pattern");
  };
  if (py::hasattr(value, "tocsc")) {  // scipy.sparse: duplicates add up, as in scipy
    py::object csc = value.attr("tocsc")();
    const auto shape = csc.attr("shape").cast<std::pair<int, int>>();
    if (shape.first != n || shape.second != n)
      throw py::value_error(what_ + " returned a sparse matrix of shape (" +
                            std::to_string(shape.first) + ", " + std::to_string(shape.second) +
                            "), expected (" + std::to_string(n) + ", " + std::to_string(n) + ")");
    auto indptr = py::array_t<long long, py::array::forcecast>::ensure(csc.attr("indptr"));
    auto indices = py::array_t<long long, py::array::forcecast>::ensure(csc.attr("indices"));
    py::array data_raw = py::array::ensure(csc.attr("data"));
    check_numeric(data_raw, what_ + "'s result");
    auto data = py::array_t<double, py::array::forcecast>::ensure(data_raw);
    auto ptr = indptr.unchecked<1>();
    auto rows = indices.unchecked<1>();
    auto v = data.unchecked<1>();
    for (int j = 0; j < n; ++j)
      for (auto k = ptr(j); k < ptr(j + 1); ++k) {
        const int i = static_cast<int>(rows(k));
        const int at = pattern.find(i, j);
        if (at >= 0)
          J.values[at] += v(k);
        else if (v(k) != 0.0)
          outside(i, j, v(k));
      }
    return;
  }
  py::array raw = py::array::ensure(value);
  if (raw && raw.ndim() == 2) {
    DenseMatrix dense(n, n);
    read_general(value, dense.data(), n, n, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const int at = pattern.find(i, j);
        if (at >= 0)
          J.values[at] = dense(i, j);
        else if (dense(i, j) != 0.0)
          outside(i, j, dense(i, j));
      }
    return;
  }
  if (!raw || raw.ndim() != 1)
    throw py::type_error(what_ + " must return a scipy.sparse matrix, an (n, n) array or the " +
                         std::to_string(J.nonzeros()) + " values of the pattern in CSC order");
  read_general(value, J.values, J.nonzeros(), 0, J.nonzeros());
}

// Any array-like result: converted by NumPy, refused with a message naming the callback.
void Callback::read_general(const py::object& value, double* out, int rows, int cols,
                            int ld) const {
  if (value.is_none()) throw py::value_error(what_ + " returned None; it must return its values");
  if (py::hasattr(value, "tocsc"))
    throw py::type_error(what_ + " returned a scipy.sparse matrix: give its sparsity pattern "
                         "(solve_ivp's jac_sparsity, Problem.set_jacobian_pattern with sparse_jac) "
                         "to have its values used by the sparse LU, or return a dense array");
  py::array raw = py::array::ensure(value);
  if (!raw) throw py::type_error(what_ + " returned a value that is not an array of numbers");
  check_numeric(raw, what_ + "'s result");
  auto a = py::array_t<double, py::array::forcecast>::ensure(raw);
  const bool vector = cols == 0;
  const bool shape_ok =
      vector ? ((a.ndim() == 1 && a.shape(0) == rows) || (rows == 1 && a.ndim() == 0))
             : (a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == cols);
  if (!shape_ok) {
    std::ostringstream s;
    s << what_ << " returned shape " << shape_text(a) << ", expected (" << rows
      << (vector ? ",)" : ", " + std::to_string(cols) + ")");
    throw py::value_error(s.str());
  }
  if (vector) {
    if (a.ndim() == 0) {
      out[0] = *a.data();
    } else {
      auto v = a.unchecked<1>();
      for (int i = 0; i < rows; ++i) out[i] = v(i);
    }
  } else {
    auto m = a.unchecked<2>();
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) out[i + static_cast<std::size_t>(j) * ld] = m(i, j);
  }
}

py::array_t<double> to_array(ConstVector v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  if (!v.empty()) std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

py::array_t<double> to_array(ConstMatrixRef m) {
  py::array_t<double> a({static_cast<py::ssize_t>(m.rows), static_cast<py::ssize_t>(m.cols)});
  auto w = a.mutable_unchecked<2>();
  for (int i = 0; i < m.rows; ++i)
    for (int j = 0; j < m.cols; ++j) w(i, j) = m(i, j);
  return a;
}

namespace {

py::array numeric_array(const py::handle& value, const char* what) {
  py::array raw = py::array::ensure(value);
  if (!raw) throw py::type_error(std::string(what) + " must be an array of numbers");
  check_numeric(raw, what);
  return py::array_t<double, py::array::forcecast>::ensure(raw);
}

}  // namespace

std::vector<double> vector_argument(const py::handle& value, const char* what) {
  auto a = py::array_t<double>(numeric_array(value, what));
  if (a.ndim() > 1)
    throw py::value_error(std::string(what) + " must be one-dimensional, got shape " +
                          shape_text(a));
  auto v = a.unchecked();
  std::vector<double> out(static_cast<std::size_t>(a.size()));
  for (py::ssize_t i = 0; i < a.size(); ++i)
    out[static_cast<std::size_t>(i)] = a.ndim() == 0 ? *a.data() : v(i);
  return out;
}

std::vector<double> vector_argument(const py::handle& value, py::ssize_t n, const char* what) {
  auto out = vector_argument(value, what);
  if (static_cast<py::ssize_t>(out.size()) != n)
    throw py::value_error(std::string(what) + " must have " + std::to_string(n) + " entries, got " +
                          std::to_string(out.size()));
  return out;
}

std::vector<double> optional_vector(const py::handle& value, int n, const char* what) {
  if (value.is_none()) return std::vector<double>(static_cast<std::size_t>(n), 0.0);
  return vector_argument(value, n, what);
}

DenseMatrix matrix_argument(const py::handle& value, int rows, int cols, const char* what) {
  auto a = py::array_t<double>(numeric_array(value, what));
  if (a.ndim() != 2 || (rows >= 0 && a.shape(0) != rows) || (cols >= 0 && a.shape(1) != cols)) {
    std::ostringstream s;
    s << what << " must have shape (" << (rows >= 0 ? std::to_string(rows) : "n") << ", "
      << (cols >= 0 ? std::to_string(cols) : "m") << "), got " << shape_text(a);
    throw py::value_error(s.str());
  }
  DenseMatrix m(static_cast<int>(a.shape(0)), static_cast<int>(a.shape(1)));
  auto r = a.unchecked<2>();
  for (int i = 0; i < m.rows(); ++i)
    for (int j = 0; j < m.cols(); ++j) m(i, j) = r(i, j);
  return m;
}

void raise_solver_error(int status, const std::string& name, const std::string& message) {
  py::object type = py::module_::import("esdirk._esdirk").attr("SolverError");
  py::object error = type(message.empty() ? name : message);
  error.attr("status") = status;
  error.attr("status_name") = name;
  PyErr_SetObject(type.ptr(), error.ptr());
  throw py::error_already_set();
}

}  // namespace esdirk::python
