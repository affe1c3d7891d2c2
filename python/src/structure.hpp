#pragma once
// The Jacobian structure and the Newton-Krylov settings of esdirk.Problem and
// esdirk.HybridProblem: one set of methods for both classes, as the C API's one structure
// handle serves plain and hybrid problems. Each forwards to the C++ problem's own setter, so
// the checks and messages are the library's (std::invalid_argument becomes ValueError and the
// problem keeps its structure).

#include <pybind11/stl.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "callbacks.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/sparsity.hpp"

namespace esdirk::python {

/// "dense", "banded", "sparse" or "krylov" (a ValueError for another name).
LinearSolverKind linear_solver_from(const std::string& name);
/// The eight fields of KrylovSettings from their Python names (a ValueError for an unknown
/// preconditioner name; the ranges are checked by the problem's setter).
KrylovSettings krylov_settings_from(int dimension, int max_restarts, double tolerance,
                                    int block_size, bool matrix_free,
                                    double sensitivity_tolerance, const std::string& preconditioner,
                                    double tolerance_with_derivatives, bool sensitivity_step_preconditioner,
                                    double sensitivity_error_fraction);
/// The declared settings as a dict of the same names.
py::dict krylov_settings_dict(const KrylovSettings& settings);
/// A JacobianPatternCheck as a dict: ok, missing (a list of (row, col) the pattern lacks,
/// largest first), missing_count, wrong (dicts of sparse_jac's entries that disagree with the
/// differences: row, col, equation, variable, supplied, finite_difference, error),
/// callback_error and summary (the library's readable report).
py::dict pattern_check_dict(const JacobianPatternCheck& check);
/// JacobianCheckOptions from the Python keywords (rtol, atol, max_reported).
JacobianCheckOptions check_options(double rtol, double atol, int max_reported);
/// The declared pattern as CSC (indptr, indices), or None for a dense Jacobian.
py::object pattern_tuple(const JacobianStructure& structure);

/// The setters of the structure (set_jacobian_bandwidths, set_jacobian_pattern,
/// set_krylov_settings, clear_jacobian_structure) on a class whose C++ type has the setters of
/// Problem (Problem and HybridProblem do). `every_mode` adds the hybrid problem's rule to the
/// docstrings.
template <class PyClass>
void add_structure_setters(PyClass& c, bool every_mode) {
  using Model = typename PyClass::type;
  const std::string modes =
      every_mode ? " One structure serves every mode: declare the union of the modes' patterns "
                   "(an entry of J nonzero in any mode must be in it), before the HybridSolver is "
                   "made (a solver keeps the structure it was made with)."
                 : "";
  const auto refused = [](const std::invalid_argument& e) { return py::value_error(e.what()); };
  c.def(
       "set_jacobian_bandwidths",
       [refused](Model& p, int lower, int upper) {
         try {
           p.set_jacobian_bandwidths(lower, upper);
         } catch (const std::invalid_argument& e) {
           throw refused(e);
         }
       },
       py::arg("lower"), py::arg("upper"),
       ("J is banded: J[i, j] = 0 unless -upper <= i - j <= lower (the band LU; 0 <= lower, "
        "upper < nx + nz)." +
        modes)
           .c_str())
      .def(
          "set_jacobian_pattern",
          [refused](Model& p, std::vector<int> rows, std::vector<int> cols,
                    const std::string& solver) {
            const LinearSolverKind kind = linear_solver_from(solver);
            if (rows.size() != cols.size())
              throw py::value_error("rows and cols must have the same length");
            try {
              p.set_jacobian_pattern(
                  SparsityPattern::from_entries(p.nx() + p.nz(), rows, cols), kind);
            } catch (const std::invalid_argument& e) {
              throw refused(e);
            }
          },
          py::arg("rows"), py::arg("cols"), py::arg("solver") = "sparse",
          ("J[rows[k], cols[k]] are the only nonzeros: the Jacobian by coloured differences "
           "(or its analytic values on the pattern), factored by KLU ('sparse'), the band LU "
           "('banded') or the dense LU ('dense'), or solved by restarted GMRES ('krylov': "
           "states, forward sensitivities and adjoints; set_krylov_settings, which a later "
           "set_jacobian_pattern resets to the defaults)." +
           modes)
              .c_str())
      .def(
          "set_krylov_settings",
          [refused](Model& p, std::optional<int> dimension, int max_restarts, double tolerance,
                    int block_size, bool matrix_free, double sensitivity_tolerance,
                    const std::string& preconditioner, double tolerance_with_derivatives,
                    bool sensitivity_step_preconditioner, double sensitivity_error_fraction) {
            // Without a dimension the default for this n, min(30, n): 30 refused every n < 30.
            const int n = p.nx() + p.nz();
            const KrylovSettings settings = krylov_settings_from(
                dimension.value_or(esdirk::krylov_defaults(n).dimension), max_restarts, tolerance,
                block_size, matrix_free,
                sensitivity_tolerance, preconditioner, tolerance_with_derivatives, sensitivity_step_preconditioner,
                sensitivity_error_fraction);
            try {
              p.set_krylov_settings(settings);
            } catch (const std::invalid_argument& e) {
              throw refused(e);
            }
          },
          py::arg("dimension") = py::none(), py::arg("max_restarts") = 4, py::arg("tolerance") = 0.05,
          py::arg("block_size") = 1, py::arg("matrix_free") = false,
          py::arg("sensitivity_tolerance") = 1e-10, py::arg("preconditioner") = "ilu0",
          py::arg("tolerance_with_derivatives") = 1e-3, py::arg("sensitivity_step_preconditioner") = true,
          py::arg("sensitivity_error_fraction") = 0.0,
          ("The GMRES of solver='krylov': Krylov dimension (1 to min(n, 500), n = nx + nz; "
           "default min(30, n)), "
           "restarts (0 to 1000; a cycle without progress ends the solve), the forcing term "
           "(relative residual) and the block size of the block-Jacobi preconditioner; "
           "matrix_free: GMRES multiplies by J through a difference quotient of f and g (or "
           "Problem.set_jacobian_vector_product) and the pattern only feeds the "
           "preconditioner (states only: sensitivities and adjoints refuse it); "
           "sensitivity_tolerance: the relative residual of the forward sensitivities' and the "
           "adjoint's GMRES stage solves; preconditioner: the built-in one when no user "
           "preconditioner is given, 'ilu0' (incomplete LU of M on its pattern, the default) "
           "or 'block_jacobi' (dense LUs of M's diagonal blocks of block_size); "
           "tolerance_with_derivatives: the forcing term of the states' stage solves while "
           "sensitivities or an adjoint are attached, if smaller than tolerance (in (0, 1): "
           "the derivatives differentiate the converged stage equations); "
           "sensitivity_step_preconditioner: the sensitivities' stage GMRES is preconditioned by "
           "the step's preconditioner (True) or sets up its own per stage (False); "
           "sensitivity_error_fraction: if > 0, those solves may also stop at this fraction of "
           "the smallest rtol (in [0, 1); 0: sensitivity_tolerance alone). Every call sets all "
           "ten (the defaults for those not given); a value out of range raises ValueError "
           "naming it and keeps the settings." +
           modes)
              .c_str())
      .def("clear_jacobian_structure", &Model::clear_jacobian_structure,
           "Back to a dense Jacobian and the dense LU.");
}

/// What was declared, read back: jacobian_pattern, jacobian_bandwidths, linear_solver and
/// krylov_settings.
template <class PyClass>
void add_structure_properties(PyClass& c) {
  using Model = typename PyClass::type;
  c.def_property_readonly(
       "jacobian_pattern", [](Model& p) { return pattern_tuple(p.jacobian_structure()); },
       "The declared pattern as CSC (indptr, indices), rows sorted in each column (the order "
       "of sparse_jac's nonzeros and of psetup's J_values), or None (dense).")
      .def_property_readonly(
          "jacobian_bandwidths",
          [](Model& p) {
            const JacobianStructure& s = p.jacobian_structure();
            const int n = p.nx() + p.nz();
            if (s.pattern == nullptr) return py::make_tuple(n - 1, n - 1);
            return py::make_tuple(s.lower, s.upper);
          },
          "(lower, upper): the declared band, or the bandwidths of the declared pattern; "
          "(n - 1, n - 1) for a dense Jacobian (as the C API's esdirk_jacobian_structure_get).")
      .def_property_readonly(
          "linear_solver",
          [](Model& p) { return esdirk::linear_solver_name(p.jacobian_structure().solver); },
          "The declared back-end: 'dense', 'banded', 'sparse' or 'krylov'.")
      .def_property_readonly(
          "krylov_settings",
          [](Model& p) { return krylov_settings_dict(p.jacobian_structure().krylov); },
          "The Krylov settings as set_krylov_settings takes them (a dict).");
}

/// Adds set_jacobian_bandwidths, set_jacobian_pattern, set_krylov_settings,
/// clear_jacobian_structure, jacobian_pattern, jacobian_bandwidths, linear_solver and
/// krylov_settings (the setters and the properties above).
template <class PyClass>
void add_structure_methods(PyClass& c, bool every_mode) {
  add_structure_setters(c, every_mode);
  add_structure_properties(c);
}

}  // namespace esdirk::python
