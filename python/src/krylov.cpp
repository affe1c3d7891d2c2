// The Newton-Krylov hooks of esdirk.Problem (solver='krylov'; doc/python-guide.md, "Large
// systems"): an exact J v for matrix-free runs and a user preconditioner (setup / solve), as
// Python callables. The library calls them with the GIL released around the integration, so
// each call takes the GIL, and its Python errors become the library's codes as for the model
// callbacks: RecoverableError fails the GMRES solve (the step is retried), any other exception
// or a result of the wrong shape stops the integration and is raised once it has returned.

#include <algorithm>
#include <string>
#include <vector>

#include "problem.hpp"

namespace esdirk::python {

namespace {

// fn(t, x, [z], [p], *more, *args), with the problem's pass_z / pass_p / args.
py::object call_hook(const py::object& fn, const PythonStyle& style, double t, ConstVector x,
                     ConstVector z, ConstVector p, std::initializer_list<py::object> more) {
  py::list arguments;
  arguments.append(t);
  arguments.append(to_array(x));
  if (style.z) arguments.append(to_array(z));
  if (style.p) arguments.append(to_array(p));
  for (const py::object& o : more) arguments.append(o);
  for (const py::handle item : style.extra) arguments.append(item);
  return fn(*py::tuple(arguments));
}

// A hook must be a Python callable: the compiled-callback signature (t, x, z, p, out) has no
// place for v, J or r.
py::object hook(const py::object& fn, const char* what) {
  if (fn.is_none()) return {};
  py::object address = py::module_::import("esdirk._callbacks").attr("compiled_address")(fn, what);
  if (!address.is_none())
    throw py::type_error(std::string(what) + " must be a Python callable (compiled functions are "
                                             "taken for f, g and the Jacobians only)");
  if (!PyCallable_Check(fn.ptr()))
    throw py::type_error(std::string(what) + " must be callable (got " +
                         std::string(py::str(py::type::handle_of(fn).attr("__name__"))) + ")");
  return fn;
}

// The n values of a hook's result into out (a ValueError naming the hook for another shape).
void read_result(const py::object& value, Vector out, const char* what) {
  const std::vector<double> v =
      vector_argument(value, static_cast<py::ssize_t>(out.size()), what);
  std::copy(v.begin(), v.end(), out.begin());
}

}  // namespace

void ModelProblem::set_jacobian_vector_product(py::object product) {
  product_ = hook(product, "jac_vec");
}

void ModelProblem::set_preconditioner(py::object setup, py::object solve) {
  if (setup.is_none() != solve.is_none())
    throw py::value_error("set_preconditioner: give psetup and psolve, or neither");
  py::object s = hook(setup, "psetup"), v = hook(solve, "psolve");
  preconditioner_setup_ = std::move(s);
  preconditioner_solve_ = std::move(v);
}

int ModelProblem::jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p,
                                          ConstVector v, Vector out) {
  return call_python_guarded(errors_, [&] {
    read_result(call_hook(product_, style_, t, x, z, p, {to_array(v)}), out,
                "the result of jac_vec");
  });
}

int ModelProblem::preconditioner_setup(double t, ConstVector x, ConstVector z, ConstVector p,
                                       const JacobianMatrix& J, double h_gamma) {
  return call_python_guarded(errors_, [&] {
    // J's values in the order of jacobian_pattern (the Krylov solver always has a pattern).
    py::object values =
        J.is_dense() ? py::object(to_array(J.dense()))
                     : py::object(py::array_t<double>(J.pattern().nonzeros(), J.values()));
    call_hook(preconditioner_setup_, style_, t, x, z, p, {values, py::float_(h_gamma)});
  });
}

int ModelProblem::preconditioner_solve(ConstVector r, Vector out, bool transpose) {
  return call_python_guarded(errors_, [&] {
    py::list arguments;
    arguments.append(to_array(r));
    arguments.append(py::bool_(transpose));
    for (const py::handle item : style_.extra) arguments.append(item);
    read_result(preconditioner_solve_(*py::tuple(arguments)), out, "the result of psolve");
  });
}

}  // namespace esdirk::python
