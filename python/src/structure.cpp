#include "structure.hpp"

namespace esdirk::python {

LinearSolverKind linear_solver_from(const std::string& name) {
  if (name == "sparse") return LinearSolverKind::sparse;
  if (name == "dense") return LinearSolverKind::dense;
  if (name == "banded") return LinearSolverKind::banded;
  if (name == "krylov") return LinearSolverKind::krylov;
  throw py::value_error("solver must be 'sparse', 'banded', 'dense' or 'krylov', got '" + name +
                        "'");
}

KrylovSettings krylov_settings_from(int dimension, int max_restarts, double tolerance,
                                    int block_size, bool matrix_free,
                                    double sensitivity_tolerance, const std::string& preconditioner,
                                    double tolerance_with_derivatives, bool sensitivity_step_preconditioner,
                                    double sensitivity_error_fraction) {
  KrylovSettings settings;
  if (preconditioner == "ilu0")
    settings.preconditioner = KrylovPreconditioner::ilu0;
  else if (preconditioner == "block_jacobi")
    settings.preconditioner = KrylovPreconditioner::block_jacobi;
  else
    throw py::value_error("preconditioner must be 'ilu0' or 'block_jacobi', got '" +
                          preconditioner + "'");
  settings.dimension = dimension;
  settings.max_restarts = max_restarts;
  settings.tolerance = tolerance;
  settings.tolerance_with_derivatives = tolerance_with_derivatives;
  settings.block_size = block_size;
  settings.matrix_free = matrix_free;
  settings.sensitivity_tolerance = sensitivity_tolerance;
  settings.sensitivity_step_preconditioner = sensitivity_step_preconditioner;
  settings.sensitivity_error_fraction = sensitivity_error_fraction;
  return settings;
}

py::dict krylov_settings_dict(const KrylovSettings& s) {
  py::dict d;
  d["dimension"] = s.dimension;
  d["max_restarts"] = s.max_restarts;
  d["tolerance"] = s.tolerance;
  d["block_size"] = s.block_size;
  d["matrix_free"] = s.matrix_free;
  d["sensitivity_tolerance"] = s.sensitivity_tolerance;
  d["preconditioner"] = s.preconditioner == KrylovPreconditioner::ilu0 ? "ilu0" : "block_jacobi";
  d["tolerance_with_derivatives"] = s.tolerance_with_derivatives;
  d["sensitivity_step_preconditioner"] = s.sensitivity_step_preconditioner;
  d["sensitivity_error_fraction"] = s.sensitivity_error_fraction;
  return d;
}

JacobianCheckOptions check_options(double rtol, double atol, int max_reported) {
  JacobianCheckOptions options;
  options.relative_tolerance = rtol;
  options.absolute_tolerance = atol;
  options.max_reported = max_reported;
  return options;
}

py::dict pattern_check_dict(const JacobianPatternCheck& check) {
  py::list missing, wrong;
  for (const JacobianMismatch& m : check.missing) missing.append(py::make_tuple(m.row, m.col));
  for (const JacobianMismatch& m : check.wrong) {
    py::dict e;
    e["row"] = m.row;
    e["col"] = m.col;
    e["equation"] = m.equation;
    e["variable"] = m.variable;
    e["supplied"] = m.supplied;
    e["finite_difference"] = m.finite_difference;
    e["error"] = m.error;
    wrong.append(e);
  }
  py::dict d;
  d["ok"] = check.ok;
  d["missing"] = missing;
  d["missing_count"] = check.missing_count;
  d["wrong"] = wrong;
  d["callback_error"] = check.callback_error;
  d["summary"] = check.summary();
  return d;
}

py::object pattern_tuple(const JacobianStructure& structure) {
  const auto& pattern = structure.pattern;
  if (!pattern) return py::none();
  return py::make_tuple(py::array_t<int>(py::cast(pattern->column_pointers())),
                        py::array_t<int>(py::cast(pattern->row_indices())));
}

}  // namespace esdirk::python
