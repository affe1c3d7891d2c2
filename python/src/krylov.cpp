// The Newton-Krylov hooks of esdirk.Problem (solver='krylov'; doc/python-guide.md, "Large
// systems"): an exact J v for matrix-free runs and a user preconditioner (setup / solve), as
// Python callables or compiled functions (ctypes, cffi, numba.cfunc) with the hooks' own C
// signatures (esdirk._callbacks.SIGNATURES). A Python hook takes the GIL for its call (the
// integration runs without it unless every callback is Python), and its errors become the
// library's codes as for the model callbacks: RecoverableError fails the GMRES solve (the step
// is retried), any other exception or a result of the wrong shape stops the integration and is
// raised once it has returned. A compiled hook runs without the interpreter.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "esdirk/jacobian_vector_check.hpp"
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

using CompiledProduct = int (*)(double t, const double* x, const double* z, const double* p,
                                const double* v, double* out);
using CompiledSetup = int (*)(double t, const double* x, const double* z, const double* p,
                              double h_gamma, const double* J_values);
using CompiledSolve = int (*)(const double* r, double* out, int transpose);

// A Python callable, or a compiled function whose declared signature is the hook's (`kind` in
// esdirk._callbacks.SIGNATURES; a TypeError otherwise).
ModelProblem::Hook hook(const py::object& fn, const char* what, const char* kind) {
  ModelProblem::Hook h;
  if (fn.is_none()) return h;
  py::object address =
      py::module_::import("esdirk._callbacks").attr("compiled_address")(fn, what, kind);
  if (!address.is_none()) {
    h.compiled = address.cast<std::uintptr_t>();
    if (h.compiled == 0) throw py::value_error(std::string(what) + ": the compiled function's address is NULL");
    return h;
  }
  if (!PyCallable_Check(fn.ptr()))
    throw py::type_error(std::string(what) + " must be callable or a compiled function (got " +
                         std::string(py::str(py::type::handle_of(fn).attr("__name__"))) + ")");
  h.python = fn;
  return h;
}

// The n values of a hook's result into out (a ValueError naming the hook for another shape).
void read_result(const py::object& value, Vector out, const char* what) {
  const std::vector<double> v =
      vector_argument(value, static_cast<py::ssize_t>(out.size()), what);
  std::copy(v.begin(), v.end(), out.begin());
}

}  // namespace

void ModelProblem::set_jacobian_vector_product(py::object product) {
  product_ = hook(product, "jac_vec", "jac_vec");
}

void ModelProblem::set_preconditioner(py::object setup, py::object solve) {
  if (setup.is_none() != solve.is_none())
    throw py::value_error("set_preconditioner: give psetup and psolve, or neither");
  Hook s = hook(setup, "psetup", "psetup"), v = hook(solve, "psolve", "psolve");
  preconditioner_setup_ = std::move(s);
  preconditioner_solve_ = std::move(v);
}

int ModelProblem::jacobian_vector_product(double t, ConstVector x, ConstVector z, ConstVector p,
                                          ConstVector v, Vector out) {
  if (product_.compiled != 0)
    return reinterpret_cast<CompiledProduct>(product_.compiled)(t, x.data(), z.data(), p.data(),
                                                                v.data(), out.data());
  return call_python_guarded(errors_, [&] {
    read_result(call_hook(product_.python, style_, t, x, z, p, {to_array(v)}), out,
                "the result of jac_vec");
  });
}

int ModelProblem::preconditioner_setup(double t, ConstVector x, ConstVector z, ConstVector p,
                                       const JacobianMatrix& J, double h_gamma) {
  // J's values in the order of jacobian_pattern (the Krylov solver always has a pattern).
  const double* values = J.is_dense() ? J.dense().data : J.values();
  const py::ssize_t count = J.is_dense() ? static_cast<py::ssize_t>(J.size()) * J.size()
                                         : J.pattern().nonzeros();
  if (preconditioner_setup_.compiled != 0)
    return reinterpret_cast<CompiledSetup>(preconditioner_setup_.compiled)(
        t, x.data(), z.data(), p.data(), h_gamma, values);
  return call_python_guarded(errors_, [&] {
    call_hook(preconditioner_setup_.python, style_, t, x, z, p,
              {py::array_t<double>(count, values), py::float_(h_gamma)});
  });
}

int ModelProblem::preconditioner_solve(ConstVector r, Vector out, bool transpose) {
  if (preconditioner_solve_.compiled != 0)
    return reinterpret_cast<CompiledSolve>(preconditioner_solve_.compiled)(r.data(), out.data(),
                                                                           transpose ? 1 : 0);
  return call_python_guarded(errors_, [&] {
    py::list arguments;
    arguments.append(to_array(r));
    arguments.append(py::bool_(transpose));
    for (const py::handle item : style_.extra) arguments.append(item);
    read_result(preconditioner_solve_.python(*py::tuple(arguments)), out, "the result of psolve");
  });
}

py::dict check_jacobian_vector_product(ModelProblem& problem, double t, const py::object& x,
                                       const py::object& z, const py::object& p, double rtol,
                                       double atol, int directions) {
  const auto xv = vector_argument(x, problem.nx(), "x");
  const auto zv = optional_vector(z, problem.nz(), "z");
  const auto pv = optional_vector(p, problem.np(), "p");
  JacobianCheckOptions options;
  options.relative_tolerance = rtol;
  options.absolute_tolerance = atol;
  JacobianVectorProductCheck check;
  try {
    check = run_integration(problem.errors(), problem.python_only(), [&] {
      return esdirk::check_jacobian_vector_product(problem, t, xv, zv, pv, options, directions);
    });
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  py::dict d;
  d["ok"] = check.ok;
  d["worst_error"] = check.worst_error;
  d["worst_direction"] = check.worst_direction;
  d["worst_row"] = check.worst_row;
  d["equation"] = check.equation;
  d["supplied"] = check.supplied;
  d["finite_difference"] = check.finite_difference;
  d["message"] = check.message;
  return d;
}

}  // namespace esdirk::python
