#include "problem.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "esdirk/error_weights.hpp"

#include "bindings.hpp"
#include "structure.hpp"

namespace esdirk::python {

Callback make_callback(const py::object& value, const PythonStyle& style, const std::string& what) {
  if (value.is_none()) return {};
  py::object address =
      py::module_::import("esdirk._callbacks").attr("compiled_address")(value, what);
  if (!address.is_none()) return Callback::compiled(address.cast<std::uintptr_t>(), what);
  return Callback::python(value, style, what);
}

ModelProblem::ModelProblem(int nx, int nz, int np, Callback f, Callback g, Callback jacobian,
                           Callback parameter_jacobian, Callback sparse_jacobian)
    : Problem(nx, nz, np),
      f_(std::move(f)),
      g_(std::move(g)),
      jacobian_(std::move(jacobian)),
      parameter_jacobian_(std::move(parameter_jacobian)),
      sparse_jacobian_(std::move(sparse_jacobian)) {
  if (f_.empty()) throw py::type_error("the right-hand side f is required");
  if (!jacobian_.empty() && !sparse_jacobian_.empty())
    throw py::value_error("give jac (the dense Jacobian) or sparse_jac (its values on the "
                          "declared pattern), not both");
  use_difference_increments_of(Options{});
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
  if (jacobian_.empty()) return vectorized_jacobian(t, x, z, p, J);
  return jacobian_.call(t, x, z, p, J.data, J.rows, J.cols, J.ld, errors_);
}

int ModelProblem::sparse_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                  SparseMatrixRef J) {
  return sparse_jacobian_.call_sparse(t, x, z, p, J, errors_);
}

void ModelProblem::use_difference_increments_of(const Options& options) {
  if (options.difference_increment == DifferenceIncrement::error_weighted)
    floors_ = ErrorWeights(options, nx(), nz()).increment_floors();
  else
    floors_.assign(static_cast<std::size_t>(size()), 0.0);
}

bool ModelProblem::vectorized_differences() const {
  const JacobianStructure& s = jacobian_structure();
  return vectorized_ && jacobian_.empty() && sparse_jacobian_.empty() && !f_.is_compiled() &&
         (nz() == 0 || !g_.is_compiled()) && s.solver == LinearSolverKind::dense &&
         s.pattern == nullptr;
}

// Forward differences as JacobianEvaluator forms them (the same increments, the representable
// step, the same quotient), with f and g evaluated on all n + 1 columns by one call each:
// column 0 is the point itself (the base of the differences), column j + 1 the point with
// state j moved.
int ModelProblem::vectorized_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                      MatrixRef J) {
  const int n_x = nx(), n_z = nz(), n = size(), k = n + 1;
  static const double sqrt_eps = std::sqrt(std::numeric_limits<double>::epsilon());
  columns_.resize(static_cast<std::size_t>(n) * k);
  f_columns_.resize(static_cast<std::size_t>(n_x) * k);
  g_columns_.resize(static_cast<std::size_t>(n_z) * k);
  actual_.resize(static_cast<std::size_t>(n));
  X_.resize(static_cast<std::size_t>(n_x) * k);
  Z_.resize(static_cast<std::size_t>(n_z) * k);
  for (int c = 0; c < k; ++c) {
    double* col = columns_.data() + static_cast<std::size_t>(c) * n;
    std::copy(x.begin(), x.end(), col);
    std::copy(z.begin(), z.end(), col + n_x);
  }
  for (int j = 0; j < n; ++j) {
    double& v = columns_[static_cast<std::size_t>(j + 1) * n + j];
    const double saved = v;
    const double scale = std::max(std::abs(saved), std::min(floors_[j], 1.0));
    v = saved + sqrt_eps * (scale != 0.0 ? scale : 1.0);
    actual_[j] = v - saved;  // the representable increment
  }
  // X and Z as separate column-major blocks (nx x k, nz x k).
  for (int c = 0; c < k; ++c) {
    const double* col = columns_.data() + static_cast<std::size_t>(c) * n;
    std::copy(col, col + n_x, X_.data() + static_cast<std::size_t>(c) * n_x);
    std::copy(col + n_x, col + n, Z_.data() + static_cast<std::size_t>(c) * n_z);
  }
  ++vectorized_calls_;
  vectorized_columns_ += k;  // the point and the n moved states, as the library counts them
  int code = f_.call_columns(t, {X_.data(), n_x, k}, {Z_.data(), n_z, k}, p, f_columns_.data(), n_x,
                             errors_);
  if (code == 0 && n_z > 0)
    code = g_.call_columns(t, {X_.data(), n_x, k}, {Z_.data(), n_z, k}, p, g_columns_.data(), n_z,
                           errors_);
  if (code != 0) return code;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n_x; ++i)
      J(i, j) = (f_columns_[static_cast<std::size_t>(j + 1) * n_x + i] - f_columns_[i]) / actual_[j];
    for (int i = 0; i < n_z; ++i)
      J(n_x + i, j) = (g_columns_[static_cast<std::size_t>(j + 1) * n_z + i] - g_columns_[i]) / actual_[j];
  }
  return 0;
}

int ModelProblem::parameter_jacobian(double t, ConstVector x, ConstVector z, ConstVector p,
                                     MatrixRef Jp) {
  return parameter_jacobian_.call(t, x, z, p, Jp.data, Jp.rows, Jp.cols, Jp.ld, errors_);
}

bool ModelProblem::compiled() const {
  for (const Hook* h : {&product_, &preconditioner_setup_, &preconditioner_solve_})
    if (h->python) return false;
  for (const Callback* c : {&f_, &g_, &jacobian_, &parameter_jacobian_, &sparse_jacobian_})
    if (!c->empty() && !c->is_compiled()) return false;
  return true;
}

bool ModelProblem::python_only() const {
  for (const Hook* h : {&product_, &preconditioner_setup_, &preconditioner_solve_})
    if (h->compiled != 0) return false;
  for (const Callback* c : {&f_, &g_, &jacobian_, &parameter_jacobian_, &sparse_jacobian_})
    if (c->is_compiled()) return false;
  return true;
}

namespace {

using ProblemClass = py::class_<ModelProblem, std::shared_ptr<ModelProblem>>;

// esdirk.Problem: the constructor (callbacks, args, vectorized) and the sizes.
ProblemClass register_problem_class(py::module_& m) {
  ProblemClass problem_class(m, "Problem", R"(A semi-explicit index-1 DAE
x' = f(t, x, z, p), 0 = g(t, x, z, p) with nx differential, nz algebraic states and np
parameters (nz = 0: an ODE).

Problem(nx, nz, np, f, g=None, jac=None, jac_p=None, args=(), pass_z=True, pass_p=True)

Each callback is a Python callable fn(t, x, z, p, *args) returning an array (f: (nx,),
g: (nz,), jac: the (nx+nz, nx+nz) Jacobian [[f_x, f_z], [g_x, g_z]], jac_p: (nx+nz, np)),
or a compiled C function int fn(double t, const double *x, const double *z,
const double *p, double *out) (ctypes, cffi or numba.cfunc; matrices column-major).
Missing Jacobians are formed by finite differences. pass_z=False / pass_p=False leave z / p
out of the Python calls (fn(t, x, *args) for an ODE without parameters, as scipy calls it).

sparse_jac: the Jacobian's values on the pattern declared by set_jacobian_pattern (factored
by KLU): a Python callable returning a scipy.sparse matrix, a dense (n, n) array (taken on
the pattern; a nonzero outside it is an error) or the nonzeros in the pattern's CSC order
(jacobian_pattern); a compiled function writes those nonzeros.
vectorized: f (and g) accept x (and z) of shape (n, k) and return (n, k) (scipy's
vectorized=True): a dense difference Jacobian is then one call on n + 1 columns. Its
increments follow the options of the solve (solve_ivp, Integrator); default options elsewhere.
The statistics of solve_ivp and Integrator count the columns as fd_function_evaluations.)");
  problem_class
      .def(py::init([](int nx, int nz, int np, py::object f, py::object g, py::object jac,
                       py::object jac_p, py::tuple args, bool pass_z, bool pass_p,
                       py::object sparse_jac, bool vectorized) {
             PythonStyle style;
             style.extra = args;
             style.z = pass_z;
             style.p = pass_p;
             try {
               auto problem = std::make_shared<ModelProblem>(
                   nx, nz, np, make_callback(f, style, "f"), make_callback(g, style, "g"),
                   make_callback(jac, style, "jac"), make_callback(jac_p, style, "jac_p"),
                   make_callback(sparse_jac, style, "sparse_jac"));
               problem->set_vectorized(vectorized);
               problem->set_style(style);
               return problem;
             } catch (const std::invalid_argument& e) {
               throw py::value_error(e.what());
             }
           }),
           py::arg("nx"), py::arg("nz"), py::arg("np"), py::arg("f"), py::arg("g") = py::none(),
           py::arg("jac") = py::none(), py::arg("jac_p") = py::none(),
           py::arg("args") = py::tuple(), py::arg("pass_z") = true, py::arg("pass_p") = true,
           py::arg("sparse_jac") = py::none(), py::arg("vectorized") = false)
      .def_property_readonly("nx", &ModelProblem::nx)
      .def_property_readonly("nz", &ModelProblem::nz)
      .def_property_readonly("np", &ModelProblem::np)
      .def_property_readonly("vectorized", &ModelProblem::vectorized)
      .def_property_readonly(
          "compiled", &ModelProblem::compiled,
          "True when every callback is compiled (the GIL is not needed while integrating).");
  return problem_class;
}

// The Newton-Krylov hooks (krylov.cpp).
void add_krylov_hooks(ProblemClass& problem_class) {
  problem_class
      .def("set_jacobian_vector_product", &ModelProblem::set_jacobian_vector_product,
           py::arg("jac_vec"),
           "jac_vec(t, x, z, p, v) -> J v, shape (nx + nz,) (z, p and args as for f): the exact "
           "product of matrix-free Krylov runs (set_krylov_settings(matrix_free=True)) instead of "
           "differences. A Python callable or a compiled function (esdirk.SIGNATURES['jac_vec']); "
           "None removes it.")
      .def("set_preconditioner", &ModelProblem::set_preconditioner, py::arg("psetup"),
           py::arg("psolve"),
           "The Krylov solver's own preconditioner P of M = E - h_gamma J (E: identity on the "
           "differential rows, zero on the algebraic ones), replacing the built-in ILU(0) or "
           "block-Jacobi, applied "
           "from the right: psetup(t, x, z, p, J_values, h_gamma) where J was formed (J_values: "
           "J's nonzeros in the order of jacobian_pattern), where a direct solver would factor; "
           "psolve(r, transpose) -> P^{-1} r (P^{-T} r if transpose), shape (nx + nz,). Python "
           "callables or compiled functions (esdirk.SIGNATURES['psetup'], ['psolve']; nonzero "
           "return: that GMRES solve fails), or both None (removes them). A hook that raises "
           "esdirk.RecoverableError fails that GMRES solve (the step is retried); any other "
           "exception stops the integration and is raised.");
}

// The self-tests of jac_vec and of the declared pattern.
void add_checks(ProblemClass& problem_class) {
  problem_class.def(
      "check_jacobian_vector_product", &check_jacobian_vector_product, py::arg("t"),
      py::arg("x"), py::arg("z") = py::none(), py::arg("p") = py::none(),
      py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8, py::arg("directions") = 3,
      "The self-test of jac_vec (esdirk::check_jacobian_vector_product): J v at (t, x, z, p) "
      "against central differences of f and g along `directions` fixed directions; row i "
      "agrees when |a - b| <= rtol max(|a|, |b|) + atol max_k |b_k|. Returns a dict: ok, "
      "worst_error (the largest error / allowed, ok: <= 1), worst_direction, worst_row, "
      "equation (its name), supplied and finite_difference (both values there) and message "
      "('' if ok; otherwise it names jac_vec, the direction, the equation and both values, or "
      "the callback that failed). An inconsistent product makes GMRES solve another system "
      "than Newton's, which shows only as slow or failing steps: run it once on a "
      "representative point. ValueError without jac_vec, for wrong sizes or directions < 1; "
      "an exception raised by f, g or jac_vec is raised as it was.");
  problem_class.def(
      "check_jacobian_pattern",
      [](ModelProblem& p, double t, const py::object& x, const py::object& z,
         const py::object& params, double rtol, double atol, int max_reported) {
        const auto xv = vector_argument(x, p.nx(), "x");
        const auto zv = optional_vector(z, p.nz(), "z");
        const auto pv = optional_vector(params, p.np(), "p");
        JacobianPatternCheck check;
        try {
          check = run_integration(p.errors(), p.python_only(), [&] {
            return esdirk::check_jacobian_pattern(p, t, xv, zv, pv,
                                                  check_options(rtol, atol, max_reported));
          });
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
        return pattern_check_dict(check);
      },
      py::arg("t"), py::arg("x"), py::arg("z") = py::none(), py::arg("p") = py::none(),
      py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8, py::arg("max_reported") = 10,
      "The declared pattern (and sparse_jac, if given) against central differences of f and g "
      "at (t, x, z, p), one column at a time (esdirk::check_jacobian_pattern): a dict with ok, "
      "missing ((row, col) entries the pattern lacks, largest first), missing_count, wrong "
      "(sparse_jac's entries that disagree), callback_error and summary. ValueError without a "
      "declared pattern; an exception raised by f or g is raised as it was.");
}

}  // namespace

void register_problem(py::module_& m) {
  ProblemClass problem_class = register_problem_class(m);
  add_krylov_hooks(problem_class);
  add_checks(problem_class);
  add_structure_methods(problem_class, false);
}

}  // namespace esdirk::python
