#include "problem.hpp"

#include <pybind11/stl.h>

#include "bindings.hpp"

namespace esdirk::python {

Callback make_callback(const py::object& value, const PythonStyle& style, const std::string& what) {
  if (value.is_none()) return {};
  py::object address =
      py::module_::import("esdirk._callbacks").attr("compiled_address")(value, what);
  if (!address.is_none()) return Callback::compiled(address.cast<std::uintptr_t>(), what);
  return Callback::python(value, style, what);
}

ModelProblem::ModelProblem(int nx, int nz, int np, Callback f, Callback g, Callback jacobian,
                           Callback parameter_jacobian)
    : Problem(nx, nz, np),
      f_(std::move(f)),
      g_(std::move(g)),
      jacobian_(std::move(jacobian)),
      parameter_jacobian_(std::move(parameter_jacobian)) {
  if (f_.empty()) throw py::type_error("the right-hand side f is required");
  if (nz > 0 && g_.empty()) throw py::type_error("a DAE (nz > 0) needs the algebraic equations g");
  if (nz == 0 && !g_.empty()) throw py::value_error("g is given but nz = 0");
}

int ModelProblem::evaluate(double t, ConstVector x, ConstVector z, ConstVector p, Vector f,
                           Vector g) {
  const int code = f_.call(t, x, z, p, f.data(), nx(), 0, nx(), errors_);
  if (code != 0 || nz() == 0) return code;
  return g_.call(t, x, z, p, g.data(), nz(), 0, nz(), errors_);
}

int ModelProblem::jacobian(double t, ConstVector x, ConstVector z, ConstVector p, MatrixRef J) {
  return jacobian_.call(t, x, z, p, J.data, J.rows, J.cols, J.ld, errors_);
}

int ModelProblem::parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                     MatrixRef Jp) {
  return parameter_jacobian_.call(t, x, z, p, Jp.data, Jp.rows, Jp.cols, Jp.ld, errors_);
}

bool ModelProblem::compiled() const {
  for (const Callback* c : {&f_, &g_, &jacobian_, &parameter_jacobian_})
    if (!c->empty() && !c->is_compiled()) return false;
  return true;
}

bool ModelProblem::python_only() const {
  for (const Callback* c : {&f_, &g_, &jacobian_, &parameter_jacobian_})
    if (c->is_compiled()) return false;
  return true;
}

void register_problem(py::module_& m) {
  py::class_<ModelProblem, std::shared_ptr<ModelProblem>>(m, "Problem",
                                                          R"(A semi-explicit index-1 DAE
x' = f(t, x, z, p), 0 = g(t, x, z, p) with nx differential, nz algebraic states and np
parameters (nz = 0: an ODE).

Problem(nx, nz, np, f, g=None, jac=None, jac_p=None, args=(), pass_z=True, pass_p=True)

Each callback is a Python callable fn(t, x, z, p, *args) returning an array (f: (nx,),
g: (nz,), jac: the (nx+nz, nx+nz) Jacobian [[f_x, f_z], [g_x, g_z]], jac_p: (nx+nz, np)),
or a compiled C function int fn(double t, const double *x, const double *z,
const double *p, double *out) (ctypes, cffi or numba.cfunc; matrices column-major).
Missing Jacobians are formed by finite differences. pass_z=False / pass_p=False leave z / p
out of the Python calls (fn(t, x, *args) for an ODE without parameters, as scipy calls it).)")
      .def(py::init([](int nx, int nz, int np, py::object f, py::object g, py::object jac,
                       py::object jac_p, py::tuple args, bool pass_z, bool pass_p) {
             PythonStyle style;
             style.extra = args;
             style.z = pass_z;
             style.p = pass_p;
             try {
               return std::make_shared<ModelProblem>(
                   nx, nz, np, make_callback(f, style, "f"), make_callback(g, style, "g"),
                   make_callback(jac, style, "jac"), make_callback(jac_p, style, "jac_p"));
             } catch (const std::invalid_argument& e) {
               throw py::value_error(e.what());
             }
           }),
           py::arg("nx"), py::arg("nz"), py::arg("np"), py::arg("f"), py::arg("g") = py::none(),
           py::arg("jac") = py::none(), py::arg("jac_p") = py::none(),
           py::arg("args") = py::tuple(), py::arg("pass_z") = true, py::arg("pass_p") = true)
      .def_property_readonly("nx", &ModelProblem::nx)
      .def_property_readonly("nz", &ModelProblem::nz)
      .def_property_readonly("np", &ModelProblem::np)
      .def_property_readonly(
          "compiled", &ModelProblem::compiled,
          "True when every callback is compiled (the GIL is not needed while integrating).")
      .def(
          "set_jacobian_bandwidths",
          [](ModelProblem& p, int lower, int upper) {
            try {
              p.set_jacobian_bandwidths(lower, upper);
            } catch (const std::invalid_argument& e) {
              throw py::value_error(e.what());
            }
          },
          "J is banded: J[i, j] = 0 unless -upper <= i - j <= lower (the band LU).")
      .def(
          "set_jacobian_pattern",
          [](ModelProblem& p, std::vector<int> rows, std::vector<int> cols,
             const std::string& solver) {
            LinearSolverKind kind = LinearSolverKind::sparse;
            if (solver == "dense")
              kind = LinearSolverKind::dense;
            else if (solver == "banded")
              kind = LinearSolverKind::banded;
            else if (solver != "sparse")
              throw py::value_error("solver must be 'sparse', 'banded' or 'dense', got '" + solver +
                                    "'");
            if (rows.size() != cols.size())
              throw py::value_error("rows and cols must have the same length");
            try {
              p.set_jacobian_pattern(SparsityPattern::from_entries(p.size(), rows, cols), kind);
            } catch (const std::invalid_argument& e) {
              throw py::value_error(e.what());
            }
          },
          py::arg("rows"), py::arg("cols"), py::arg("solver") = "sparse",
          "J[rows[k], cols[k]] are the only nonzeros: the Jacobian by coloured differences "
          "(or jac on the pattern), factored by KLU ('sparse'), the band LU or the dense LU.");
}

}  // namespace esdirk::python
