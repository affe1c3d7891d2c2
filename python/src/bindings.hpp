#pragma once
// The pieces of the extension module esdirk._esdirk, one registration function per file.

#include <pybind11/pybind11.h>

#include "esdirk/options.hpp"
#include "esdirk/sensitivity/sensitivity_options.hpp"
#include "esdirk/statistics.hpp"
#include "esdirk/status.hpp"

namespace esdirk::python {

namespace py = pybind11;

void register_options(py::module_& m);
void register_problem(py::module_& m);
void register_solvers(py::module_& m);
void register_sensitivity(py::module_& m);
void register_hybrid(py::module_& m);
void register_hybrid_adjoint(py::module_& m);
void register_multishoot(py::module_& m);
void register_structural(py::module_& m);

/// Options from keywords (the C++ field names); a TypeError names an unknown keyword.
Options options_from(const py::dict& keywords);
SensitivityOptions sensitivity_options_from(const py::dict& keywords);
/// Every counter of Statistics by its stable name.
py::dict statistics_dict(const Statistics& statistics);
/// Raises esdirk.SolverError with `message` (or the status's own message) unless ok.
void check(Status status, const std::string& message);

}  // namespace esdirk::python
