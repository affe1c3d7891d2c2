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

int Callback::call_python(double t, ConstVector x, ConstVector z, ConstVector p, double* out,
                          int rows, int cols, int ld, ErrorSlot& errors, int mode) const {
  py::gil_scoped_acquire gil;
  if (errors.pending()) return -1;  // another thread's callback failed: stop this one too
  try {
    py::list args;
    if (style_.mode) args.append(mode);
    args.append(t);
    args.append(to_array(x));
    if (style_.z) args.append(to_array(z));
    if (style_.p) args.append(to_array(p));
    for (auto a : style_.extra) args.append(a);
    py::object value = python_(*py::tuple(args));
    if (value.is_none()) throw py::value_error(what_ + " returned None; it must return its values");
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
