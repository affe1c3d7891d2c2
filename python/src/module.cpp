// The extension module esdirk._esdirk (doc/python-guide.md). The package esdirk re-exports it
// together with the pure-Python parts (solve_ivp, the compiled-callback checks).

#include "bindings.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_esdirk, m) {
  m.doc() = "esdirk: ESDIRK integrators for stiff ODEs and index-1 DAEs with sensitivities";
  // A numerical failure (a Status other than success): .status (the C value), .status_name.
  py::exception<std::runtime_error> solver_error(m, "SolverError");
  (void)solver_error;
  // Raised by a Python callback for a recoverable failure: the step is retried smaller.
  py::exception<std::runtime_error> recoverable(m, "RecoverableError");
  (void)recoverable;
  using namespace esdirk::python;
  register_options(m);
  register_problem(m);
  register_solvers(m);
  register_sensitivity(m);
  register_hybrid(m);
  register_hybrid_adjoint(m);
  register_multishoot(m);
  register_structural(m);
}
