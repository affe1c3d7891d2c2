// esdirk.HybridAdjoint: the discrete adjoint of a hybrid run (esdirk::HybridAdjoint), gradients
// of an objective at the recorded outputs with respect to x0 and p through events and jumps,
// with a memory budget (blocks of steps recomputed from checkpoints, the same bits).

#include "esdirk/events/hybrid_adjoint.hpp"

#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "hybrid.hpp"
#include "objective.hpp"

namespace esdirk::python {

namespace {

// The counters of the C API's esdirk_hybrid_adjoint_report, by the same names.
py::dict report_dict(const HybridAdjoint& adjoint) {
  const HybridAdjointReport& r = adjoint.report();
  py::dict d;
  d["adjoint_steps"] = r.sweep.adjoint_steps;
  d["transposed_solves"] = r.sweep.transposed_solves;
  d["stage_factorizations"] = r.sweep.stage_factorizations;
  d["jacobian_evaluations"] = r.sweep.jacobian_evaluations;
  d["parameter_jacobian_evaluations"] = r.sweep.parameter_jacobian_evaluations;
  d["objective_evaluations"] = r.sweep.objective_evaluations;
  d["segments"] = r.segments;
  d["jumps"] = r.jumps;
  d["peak_stored_doubles"] = r.peak_stored_doubles;
  d["recorded_steps"] = static_cast<long>(adjoint.steps());
  d["recorded_outputs"] = static_cast<long>(adjoint.outputs());
  d["checkpoints"] = r.checkpoints;
  d["recomputed_steps"] = r.recomputed_steps;
  d["stored_records"] = r.stored_records;
  return d;
}

// The objective's terms from Python: terminal weights or a terminal gradient function, and a
// gradient function at every recorded output.
HybridObjective objective_from(const HybridProblem& problem, ErrorSlot& errors,
                               const py::object& weights, const py::object& terminal,
                               const py::object& at_output, const py::object& running, int rows) {
  if (!running.is_none())
    throw py::value_error(
        "HybridAdjoint.gradient: a hybrid run has no running term (the last step of each mode "
        "overshoots its event); integrate the cost as a state q' = L of the model and weight q "
        "at the last output");
  if (!weights.is_none() && !terminal.is_none())
    throw py::value_error("HybridAdjoint.gradient: give weights or terminal, not both");
  const std::pair<const py::object*, const char*> callables[] = {{&terminal, "terminal"},
                                                                 {&at_output, "at_output"}};
  for (const auto& [fn, name] : callables)
    if (!fn->is_none() && !PyCallable_Check(fn->ptr()))
      throw py::type_error(std::string("HybridAdjoint.gradient: ") + name +
                           " must be a Python callable returning (dC/dx, dC/dz, dC/dp)");
  HybridObjective objective;
  if (!weights.is_none()) {
    const DenseMatrix w = weights_argument(weights, problem.nx() + problem.nz());
    rows = w.cols();
    objective.set_terminal_weights(w.cref());
  }
  objective.rows = rows;
  ErrorSlot* slot = &errors;
  if (!terminal.is_none())
    objective.terminal = [terminal, slot, rows](double t, ConstVector x, ConstVector z,
                                                ConstVector p, MatrixRef dx, MatrixRef dz,
                                                MatrixRef dp) {
      return python_gradient(terminal, *slot, "terminal", rows, t, x, z, p, dx, dz, dp);
    };
  if (!at_output.is_none())
    objective.at_output = [at_output, slot, rows](int k, double t, ConstVector x, ConstVector z,
                                                  ConstVector p, MatrixRef dx, MatrixRef dz,
                                                  MatrixRef dp) {
      return python_gradient(at_output, *slot, "at_output", rows, t, x, z, p, dx, dz, dp, k);
    };
  try {
    objective.validate();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  return objective;
}

// Owns the C++ adjoint, which listens to the solver's integrator (the Python object keeps the
// solver alive: keep_alive below).
class HybridAdjointBinding {
 public:
  HybridAdjointBinding(HybridBinding& solver, long memory_budget, bool jumps) : solver_(solver) {
    HybridAdjointOptions options;
    options.memory_budget = memory_budget;
    options.jumps = jumps;
    try {
      adjoint_ = std::make_unique<HybridAdjoint>(solver.solver(), options);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
  }

  std::string integrate_to(double tout) { return solver_.integrate_to(tout, adjoint_.get()); }

  py::dict gradient(const py::object& weights, const py::object& terminal,
                    const py::object& at_output, const py::object& running, int rows) {
    const HybridProblem& problem = solver_.problem();
    const HybridObjective objective =
        objective_from(problem, solver_.errors(), weights, terminal, at_output, running, rows);
    DenseMatrix dx0(problem.nx(), objective.rows), dp(problem.np(), objective.rows);
    Status status = Status::success;
    try {
      status = solver_.run([&] { return adjoint_->gradient(objective, dx0.ref(), dp.ref()); });
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    } catch (const std::logic_error& e) {  // no recorded output, or the run failed
      throw std::runtime_error(e.what());
    }
    check(status, adjoint_->message());
    py::dict d;
    d["dx0"] = gradient_array(dx0, objective.rows);
    d["dp"] = gradient_array(dp, objective.rows);
    d["report"] = report_dict(*adjoint_);
    d["statistics"] = statistics_dict(solver_.solver().statistics());
    return d;
  }

  HybridAdjoint& adjoint() { return *adjoint_; }

 private:
  HybridBinding& solver_;
  std::unique_ptr<HybridAdjoint> adjoint_;
};

}  // namespace

void register_hybrid_adjoint(py::module_& m) {
  py::class_<HybridAdjointBinding>(m, "HybridAdjoint", R"(The discrete adjoint of a hybrid run
(esdirk::HybridAdjoint): the gradient of an objective at the recorded outputs with respect to
x0 and p, through the events, resets and parameter resets of the run; the exact transpose of
the forward sensitivities of HybridSolver on the same steps (steps, event times and the mode
sequence frozen).

    solver = esdirk.HybridSolver(problem, options)
    adjoint = esdirk.HybridAdjoint(solver, memory_budget=0)   # before solver.initialize
    solver.initialize(t0, mode, x0, p=p)
    for t in times:
        adjoint.integrate_to(t)          # solver.integrate_to, the output recorded
    g = adjoint.gradient(weights=w)      # C = w . [x; z] at the last output

gradient(weights=None, terminal=None, at_output=None, rows=1): the terminal term at the last
output as weights (n,) or (n, rows) over [x; z], or terminal(t, x, z, p) -> (dC/dx, dC/dz,
dC/dp); terms at every output k as at_output(k, t, x, z, p) -> (dC_k/dx, dC_k/dz, dC_k/dp)
(None blocks are zero). An output at an event is the left limit; at a terminal event the
output time moves with the parameters and the gradient is the total derivative. A running
cost is a state q' = L of the model. Returns a dict: dx0 (nx), dp (np) (1-D for one row,
(n, rows) otherwise), report (the counters of the sweep and the recording, the C API's
names), statistics (the solver's, with the adjoint's counters).

memory_budget: doubles the step records may occupy (0 keeps every step); blocks of steps
are then replayed from checkpoints during the sweep, with the same bits. A budget below one
step record raises ValueError naming the record's size. jumps=False passes the adjoint
through events unchanged (the transpose of a run without sensitivity jumps: a wrong gradient,
for comparison).)")
      .def(py::init<HybridBinding&, long, bool>(), py::arg("solver"), py::arg("memory_budget") = 0,
           py::arg("jumps") = true, py::keep_alive<1, 2>())
      .def("integrate_to", &HybridAdjointBinding::integrate_to, py::arg("tout"),
           "solver.integrate_to(tout) (the same result), recording the output it returns.")
      .def("gradient", &HybridAdjointBinding::gradient, py::arg("weights") = py::none(),
           py::arg("terminal") = py::none(), py::arg("at_output") = py::none(),
           py::arg("running") = py::none(), py::arg("rows") = 1)
      .def_property_readonly("outputs",
                             [](HybridAdjointBinding& b) { return b.adjoint().outputs(); })
      .def_property_readonly("output_times",
                             [](HybridAdjointBinding& b) {
                               std::vector<double> t;
                               for (int k = 0; k < b.adjoint().outputs(); ++k)
                                 t.push_back(b.adjoint().output_time(k));
                               return to_array(t);
                             })
      .def_property_readonly("segments",
                             [](HybridAdjointBinding& b) { return b.adjoint().segments(); })
      .def_property_readonly("steps", [](HybridAdjointBinding& b) { return b.adjoint().steps(); })
      .def_property_readonly(
          "memory_budget",
          [](HybridAdjointBinding& b) { return b.adjoint().options().memory_budget; })
      .def_property_readonly("report",
                             [](HybridAdjointBinding& b) { return report_dict(b.adjoint()); })
      .def_property_readonly("message",
                             [](HybridAdjointBinding& b) { return b.adjoint().message(); });
}

}  // namespace esdirk::python
