// Structural analysis of model text from Python: esdirk.analyse_model(text) returns the
// library's JSON report as a dict (and its text report), ParseError as ValueError.

#include "esdirk/structural/structural.hpp"

#include "bindings.hpp"

namespace esdirk::python {

void register_structural(py::module_& m) {
  m.def(
      "analyse_model",
      [](const std::string& text, const std::string& source_name) {
        structural::Analysis analysis;
        try {
          analysis = structural::analyse(text, source_name);
        } catch (const std::exception& e) {  // ParseError, LimitExceeded: located messages
          throw py::value_error(e.what());
        }
        py::dict d =
            py::module_::import("json").attr("loads")(structural::json_report(analysis));
        d["text"] = structural::text_report(analysis);
        d["well_posed"] = analysis.well_posed();
        return d;
      },
      py::arg("text"), py::arg("source_name") = "<model>",
      R"(Structural analysis of a model in the library's model text (doc/structural-guide.md): the
Sigma-method's offsets, index and degrees of freedom per mode, block-triangular form and mode
changes. Returns the JSON report as a dict, plus 'text' (the text report) and 'well_posed'.
A malformed model raises ValueError with the located message (source:line:column).)");
}

}  // namespace esdirk::python
