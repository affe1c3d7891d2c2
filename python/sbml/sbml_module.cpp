// The extension module esdirk._sbml (doc/python-guide.md, "SBML models"): esdirk::sbml's load,
// Model, simulate, simulate_sensitivities and adjoint_gradient with NumPy arrays. Built only
// with the sbml component (libSBML found); the package's esdirk/sbml.py re-exports it.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "esdirk/sbml/sbml.hpp"
#include "esdirk/status.hpp"

namespace py = pybind11;
namespace sbml = esdirk::sbml;

namespace {

// The Python classes of the import errors (made in the module's init, kept for its lifetime).
PyObject* import_error_type = nullptr;
PyObject* unsupported_type = nullptr;

// Raises the Python error for an ImportError, with element_id, line (and feature) as attributes.
void raise_import_error(const sbml::ImportError& e) {
  const auto* unsupported = dynamic_cast<const sbml::UnsupportedFeature*>(&e);
  PyObject* type = unsupported ? unsupported_type : import_error_type;
  py::object error = py::reinterpret_borrow<py::object>(type)(e.what());
  error.attr("element_id") = e.element_id();
  error.attr("line") = e.line();
  error.attr("feature") = unsupported ? unsupported->feature() : std::string();
  PyErr_SetObject(type, error.ptr());
}

sbml::Quantity quantity_from(const std::string& name) {
  if (name == "amount") return sbml::Quantity::amount;
  if (name == "concentration") return sbml::Quantity::concentration;
  if (name == "value") return sbml::Quantity::value;
  throw py::value_error("quantity '" + name + "': expected 'amount', 'concentration' or 'value'");
}

// outputs: a list of ids (their value in the model's math) or (id, quantity) pairs.
std::vector<sbml::Output> outputs_from(const py::sequence& items) {
  std::vector<sbml::Output> outputs;
  for (const py::handle item : items) {
    if (py::isinstance<py::str>(item)) {
      outputs.push_back({item.cast<std::string>(), sbml::Quantity::value});
    } else if (py::isinstance<py::tuple>(item) && py::len(item) == 2) {
      const py::tuple pair = item.cast<py::tuple>();
      outputs.push_back({pair[0].cast<std::string>(), quantity_from(pair[1].cast<std::string>())});
    } else {
      throw py::type_error("outputs: each entry is an id or an (id, quantity) pair, not " +
                           py::repr(item).cast<std::string>());
    }
  }
  return outputs;
}

sbml::SimulationOptions options_from(double rtol, double atol, long max_steps, double max_step,
                                      double max_seconds) {
  sbml::SimulationOptions options;
  options.relative_tolerance = rtol;
  options.absolute_tolerance = atol;
  options.max_steps = max_steps;
  options.max_step = max_step;
  options.max_seconds = max_seconds;
  options.validate();  // std::invalid_argument -> ValueError naming the option
  return options;
}

py::array_t<double> matrix(const std::vector<double>& values, std::size_t rows,
                           std::size_t columns) {
  py::array_t<double> out({rows, columns});
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

// The fields every result shares: t, outputs, values, status, status_name, message, success.
py::dict simulation_dict(const sbml::Simulation& run) {
  py::dict d;
  py::array_t<double> t(run.times.size());
  std::copy(run.times.begin(), run.times.end(), t.mutable_data());
  py::list ids;
  for (const sbml::Output& o : run.outputs) ids.append(o.id);
  d["t"] = t;
  d["outputs"] = ids;
  d["values"] = matrix(run.values, run.times.size(), run.outputs.size());
  d["status"] = static_cast<int>(run.status);
  d["status_name"] = std::string(esdirk::status_name(run.status));
  d["message"] = run.message;
  d["success"] = run.ok();
  return d;
}

// SBMLImportError (a ValueError) and its subclass UnsupportedFeature.
void register_errors(py::module_& m) {
  static py::exception<sbml::ImportError> import_error(m, "SBMLImportError", PyExc_ValueError);
  static py::exception<sbml::UnsupportedFeature> unsupported(m, "UnsupportedFeature",
                                                             import_error.ptr());
  import_error_type = import_error.ptr();
  unsupported_type = unsupported.ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const sbml::ImportError& e) {
      raise_import_error(e);
    }
  });
}

// Model and the loaders.
void register_model(py::module_& m) {
  py::class_<sbml::Model>(m, "Model", "An imported SBML model (esdirk.sbml.load).")
      .def_property_readonly("id", &sbml::Model::id)
      .def_property_readonly("species_ids", &sbml::Model::species_ids)
      .def_property_readonly("compartment_ids", &sbml::Model::compartment_ids)
      .def_property_readonly("global_parameter_ids", &sbml::Model::global_parameter_ids)
      .def_property_readonly("parameter_ids", &sbml::Model::parameter_ids,
                             "Ids sensitivities and gradients may be taken with respect to: "
                             "constant parameters and compartments, local parameters as "
                             "'reaction.parameter'.")
      .def_property_readonly("initial_value_ids", &sbml::Model::initial_value_ids)
      .def("value", &sbml::Model::value, py::arg("id"),
           "A parameter's value or a state's initial value (ValueError for another id).")
      .def("set_value", &sbml::Model::set_value, py::arg("id"), py::arg("value"),
           "Changes a parameter or an initial value for the next simulations.")
      .def("__repr__", [](const sbml::Model& model) {
        return "<esdirk.sbml.Model '" + model.id() +
               "': " + std::to_string(model.species_ids().size()) + " species, " +
               std::to_string(model.parameter_ids().size()) + " parameters>";
      });

  m.def(
      "load", [](const std::string& path) { return sbml::load(path); }, py::arg("path"),
      "Imports an SBML file (Level 2 or 3).");
  m.def(
      "load_string",
      [](const py::object& xml) {
        const std::string text = py::isinstance<py::bytes>(xml)
                                     ? xml.cast<py::bytes>().cast<std::string>()
                                     : xml.cast<std::string>();
        return sbml::load_string(text);
      },
      py::arg("xml"), "Imports an SBML document given as str or bytes.");
}

// The runs (esdirk/sbml.py wraps them): simulation, forward sensitivities, adjoint gradient.
void register_runs(py::module_& m) {
  m.def(
      "_simulate",
      [](const sbml::Model& model, const std::vector<double>& times, const py::sequence& outputs,
         double rtol, double atol, long max_steps, double max_step, double max_seconds) {
        const std::vector<sbml::Output> out = outputs_from(outputs);
        const sbml::SimulationOptions options = options_from(rtol, atol, max_steps, max_step, max_seconds);
        sbml::Simulation run;
        {
          py::gil_scoped_release release;
          run = sbml::simulate(model, times, out, options);
        }
        return simulation_dict(run);
      },
      py::arg("model"), py::arg("times"), py::arg("outputs"), py::arg("rtol"), py::arg("atol"),
      py::arg("max_steps"), py::arg("max_step"), py::arg("max_seconds"));

  m.def(
      "_simulate_sensitivities",
      [](const sbml::Model& model, const std::vector<double>& times, const py::sequence& outputs,
         const std::vector<std::string>& with_respect_to, double rtol, double atol, long max_steps,
         double max_step, double max_seconds) {
        const std::vector<sbml::Output> out = outputs_from(outputs);
        const sbml::SimulationOptions options = options_from(rtol, atol, max_steps, max_step, max_seconds);
        sbml::Sensitivities run;
        {
          py::gil_scoped_release release;
          run = sbml::simulate_sensitivities(model, times, out, with_respect_to, options);
        }
        py::dict d = simulation_dict(run.simulation);
        const std::size_t nt = run.simulation.times.size(), no = run.simulation.outputs.size(),
                          nw = run.with_respect_to.size();
        py::array_t<double> derivatives({nt, no, nw});
        std::copy(run.derivatives.begin(), run.derivatives.end(), derivatives.mutable_data());
        d["with_respect_to"] = run.with_respect_to;
        d["derivatives"] = derivatives;
        return d;
      },
      py::arg("model"), py::arg("times"), py::arg("outputs"), py::arg("with_respect_to"),
      py::arg("rtol"), py::arg("atol"), py::arg("max_steps"), py::arg("max_step"), py::arg("max_seconds"));

  m.def(
      "_adjoint_gradient",
      [](const sbml::Model& model, const std::vector<double>& times, const py::sequence& outputs,
         const py::array_t<double, py::array::c_style | py::array::forcecast>& weights,
         const std::vector<std::string>& with_respect_to, double rtol, double atol, long max_steps,
         double max_step, double max_seconds) {
        const std::vector<sbml::Output> out = outputs_from(outputs);
        if (weights.ndim() != 2 || static_cast<std::size_t>(weights.shape(0)) != times.size() ||
            static_cast<std::size_t>(weights.shape(1)) != out.size())
          throw py::value_error("weights must have the shape (len(t), len(outputs)) = (" +
                                std::to_string(times.size()) + ", " + std::to_string(out.size()) +
                                ")");
        const std::vector<double> w(weights.data(), weights.data() + weights.size());
        const sbml::SimulationOptions options = options_from(rtol, atol, max_steps, max_step, max_seconds);
        sbml::Gradient g;
        {
          py::gil_scoped_release release;
          g = sbml::adjoint_gradient(model, times, out, w, with_respect_to, options);
        }
        py::dict d;
        py::array_t<double> gradient(g.gradient.size());
        std::copy(g.gradient.begin(), g.gradient.end(), gradient.mutable_data());
        d["value"] = g.value;
        d["gradient"] = gradient;
        d["with_respect_to"] = g.with_respect_to;
        d["status"] = static_cast<int>(g.status);
        d["status_name"] = std::string(esdirk::status_name(g.status));
        d["message"] = g.message;
        d["success"] = g.ok();
        return d;
      },
      py::arg("model"), py::arg("times"), py::arg("outputs"), py::arg("weights"),
      py::arg("with_respect_to"), py::arg("rtol"), py::arg("atol"), py::arg("max_steps"),
      py::arg("max_step"), py::arg("max_seconds"));
}

}  // namespace

PYBIND11_MODULE(_sbml, m) {
  m.doc() = "SBML models (libSBML import, compiled expressions) for esdirk";
  register_errors(m);
  register_model(m);
  register_runs(m);
}
