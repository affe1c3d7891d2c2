// The C shim of the SBML importer (esdirk_sbml.h): extern "C" definitions over
// esdirk::sbml::load / simulate; the message store and the exception guard are the C API's own
// (capi/src/shim.hpp).

#include "esdirk/sbml/sbml.hpp"

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "esdirk/esdirk_sbml.h"
#include "shim.hpp"

namespace sbml = esdirk::sbml;
using esdirk_capi::guarded;

struct esdirk_sbml : esdirk_capi::Messages {
  std::optional<sbml::Model> model;
  sbml::SimulationOptions options;
  std::vector<std::string> parameter_ids;  // of the loaded model, for esdirk_sbml_parameter_id
  // The last import error's details (esdirk_sbml_error_element, _error_line, _unsupported_feature).
  std::string error_element;
  std::string error_feature;
  int error_line = 0;
};

namespace {

// The library's numerical statuses have the C values (esdirk/status_codes.def).
int c_status(esdirk::Status status) { return static_cast<int>(status); }

// load and load_string: the import, its error details, the old model kept on failure.
template <class Import>
int load_with(esdirk_sbml* h, Import import) {
  return guarded(h, [&]() -> int {
    h->error_element.clear();
    h->error_feature.clear();
    h->error_line = 0;
    try {
      sbml::Model model = import();
      std::vector<std::string> ids = model.parameter_ids();
      h->model.emplace(std::move(model));
      h->parameter_ids = std::move(ids);
      h->message.clear();
      return ESDIRK_SUCCESS;
    } catch (const sbml::ImportError& e) {
      h->error_element = e.element_id();
      h->error_line = static_cast<int>(e.line());
      if (const auto* unsupported = dynamic_cast<const sbml::UnsupportedFeature*>(&e))
        h->error_feature = unsupported->feature();
      return h->fail(ESDIRK_INVALID_ARGUMENT, e.what());
    }
  });
}

bool quantity_ok(int q) {
  return q == ESDIRK_SBML_AMOUNT || q == ESDIRK_SBML_CONCENTRATION || q == ESDIRK_SBML_VALUE;
}

int read_outputs(esdirk_sbml* h, const char* call, const char* const* ids, const int* quantities,
                 esdirk_int n_outputs, std::vector<sbml::Output>& outputs);
int read_ids(esdirk_sbml* h, const char* call, const char* const* wrt, esdirk_int n_wrt,
             std::vector<std::string>& out);

}  // namespace

int esdirk_sbml_create(esdirk_sbml** handle) {
  if (!handle) return ESDIRK_NULL_ARGUMENT;
  *handle = nullptr;
  try {
    *handle = new esdirk_sbml();
    return ESDIRK_SUCCESS;
  } catch (const std::bad_alloc&) {
    return ESDIRK_OUT_OF_MEMORY;
  }
}

void esdirk_sbml_free(esdirk_sbml** handle) {
  if (!handle) return;
  delete *handle;
  *handle = nullptr;
}

const char* esdirk_sbml_last_error(const esdirk_sbml* h) {
  return h ? h->text() : "null sbml handle";
}
const char* esdirk_sbml_error_element(const esdirk_sbml* h) {
  return h ? h->error_element.c_str() : "";
}
int esdirk_sbml_error_line(const esdirk_sbml* h) { return h ? h->error_line : 0; }
const char* esdirk_sbml_unsupported_feature(const esdirk_sbml* h) {
  return h ? h->error_feature.c_str() : "";
}

int esdirk_sbml_load(esdirk_sbml* h, const char* path) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!path) return h->fail(ESDIRK_NULL_ARGUMENT, "load: path is NULL");
  return load_with(h, [path] { return sbml::load(path); });
}

int esdirk_sbml_load_string(esdirk_sbml* h, const char* xml, size_t length) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!xml && length > 0) return h->fail(ESDIRK_NULL_ARGUMENT, "load_string: xml is NULL");
  return load_with(
      h, [xml, length] { return sbml::load_string(std::string_view(xml ? xml : "", length)); });
}

int esdirk_sbml_has_model(const esdirk_sbml* h) { return h && h->model ? 1 : 0; }

namespace {

// Changes the handle's options through `change`; when the changed options are invalid
// (std::invalid_argument naming the option: ESDIRK_INVALID_ARGUMENT) the old ones stay.
template <class Change>
int change_options(esdirk_sbml* h, Change change) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  return guarded(h, [&]() -> int {
    sbml::SimulationOptions options = h->options;
    change(options);
    options.validate();
    h->options = options;
    h->message.clear();
    return ESDIRK_SUCCESS;
  });
}

}  // namespace

int esdirk_sbml_set_tolerances(esdirk_sbml* h, double rtol, double atol) {
  return change_options(h, [&](sbml::SimulationOptions& o) {
    o.relative_tolerance = rtol;
    o.absolute_tolerance = atol;
  });
}

int esdirk_sbml_set_max_steps(esdirk_sbml* h, long max_steps) {
  return change_options(h, [&](sbml::SimulationOptions& o) { o.max_steps = max_steps; });
}

int esdirk_sbml_set_max_seconds(esdirk_sbml* h, double max_seconds) {
  return change_options(h, [&](sbml::SimulationOptions& o) { o.max_seconds = max_seconds; });
}

namespace {

// The outputs of a C call (ids[j] with quantities[j]), or the failure's code with the message
// set (a NULL id, a quantity that is none).
int read_outputs(esdirk_sbml* h, const char* call, const char* const* ids, const int* quantities,
                 esdirk_int n_outputs, std::vector<sbml::Output>& outputs) {
  outputs.assign(static_cast<std::size_t>(n_outputs), {});
  for (esdirk_int j = 0; j < n_outputs; ++j) {
    if (!ids[j])
      return h->fail(ESDIRK_NULL_ARGUMENT, std::string(call) + ": ids[" + std::to_string(j) + "] is NULL");
    const int q = quantities ? quantities[j] : ESDIRK_SBML_VALUE;
    if (!quantity_ok(q))
      return h->fail(ESDIRK_INVALID_ARGUMENT, std::string(call) + ": quantities[" + std::to_string(j) +
                                                  "] = " + std::to_string(q) + " is not an esdirk_sbml_quantity");
    outputs[static_cast<std::size_t>(j)] = {ids[j], static_cast<sbml::Quantity>(q)};
  }
  return ESDIRK_SUCCESS;
}

// The ids of a sensitivity call, or the failure's code with the message set (NULL entries).
int read_ids(esdirk_sbml* h, const char* call, const char* const* wrt, esdirk_int n_wrt,
             std::vector<std::string>& out) {
  out.clear();
  for (esdirk_int k = 0; k < n_wrt; ++k) {
    if (!wrt[k]) return h->fail(ESDIRK_NULL_ARGUMENT, std::string(call) + ": wrt[" + std::to_string(k) + "] is NULL");
    out.emplace_back(wrt[k]);
  }
  return ESDIRK_SUCCESS;
}

}  // namespace

int esdirk_sbml_simulate(esdirk_sbml* h, const double* times, esdirk_int n_times,
                         const char* const* ids, const int* quantities, esdirk_int n_outputs,
                         double* values) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!times || !values || (n_outputs > 0 && !ids))
    return h->fail(ESDIRK_NULL_ARGUMENT, "simulate: times, ids and values must not be NULL");
  if (n_times < 1 || n_outputs < 0)
    return h->fail(ESDIRK_INVALID_ARGUMENT, "simulate: n_times must be >= 1 and n_outputs >= 0");
  if (!h->model) return h->fail(ESDIRK_WRONG_CALL_ORDER, "simulate: no model loaded");
  return guarded(h, [&]() -> int {
    std::vector<sbml::Output> outputs;
    const int read = read_outputs(h, "simulate", ids, quantities, n_outputs, outputs);
    if (read != ESDIRK_SUCCESS) return read;
    const std::vector<double> output_times(times, times + n_times);
    const sbml::Simulation run = sbml::simulate(*h->model, output_times, outputs, h->options);
    const std::size_t expected =
        static_cast<std::size_t>(n_times) * static_cast<std::size_t>(n_outputs);
    if (run.values.size() != expected)
      return h->fail(ESDIRK_INTERNAL_ERROR, "simulate: the run returned " +
                                                std::to_string(run.values.size()) +
                                                " values, not " + std::to_string(expected));
    std::memcpy(values, run.values.data(), expected * sizeof(double));
    if (!run.ok()) return h->fail(c_status(run.status), run.message);
    h->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_sbml_simulate_sensitivities(esdirk_sbml* h, const double* times, esdirk_int n_times,
                                       const char* const* ids, const int* quantities, esdirk_int n_outputs,
                                       const char* const* wrt, esdirk_int n_wrt, double* values,
                                       double* derivatives) {
  constexpr const char* call = "simulate_sensitivities";
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!times || !values || !derivatives || (n_outputs > 0 && !ids) || (n_wrt > 0 && !wrt))
    return h->fail(ESDIRK_NULL_ARGUMENT,
                   std::string(call) + ": times, ids, wrt, values and derivatives must not be NULL");
  if (n_times < 1 || n_outputs < 0 || n_wrt < 0)
    return h->fail(ESDIRK_INVALID_ARGUMENT, std::string(call) + ": n_times must be >= 1, n_outputs and n_wrt >= 0");
  if (!h->model) return h->fail(ESDIRK_WRONG_CALL_ORDER, std::string(call) + ": no model loaded");
  return guarded(h, [&]() -> int {
    std::vector<sbml::Output> outputs;
    std::vector<std::string> with_respect_to;
    int read = read_outputs(h, call, ids, quantities, n_outputs, outputs);
    if (read == ESDIRK_SUCCESS) read = read_ids(h, call, wrt, n_wrt, with_respect_to);
    if (read != ESDIRK_SUCCESS) return read;
    const std::vector<double> output_times(times, times + n_times);
    const sbml::Sensitivities run =
        sbml::simulate_sensitivities(*h->model, output_times, outputs, with_respect_to, h->options);
    const std::size_t rows = static_cast<std::size_t>(n_times) * static_cast<std::size_t>(n_outputs);
    const std::size_t columns = rows * static_cast<std::size_t>(n_wrt);
    if (run.simulation.values.size() != rows || run.derivatives.size() != columns)
      return h->fail(ESDIRK_INTERNAL_ERROR, std::string(call) + ": the run returned arrays of unexpected sizes");
    std::memcpy(values, run.simulation.values.data(), rows * sizeof(double));
    std::memcpy(derivatives, run.derivatives.data(), columns * sizeof(double));
    if (!run.simulation.ok()) return h->fail(c_status(run.simulation.status), run.simulation.message);
    h->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_sbml_adjoint_gradient(esdirk_sbml* h, const double* times, esdirk_int n_times, const char* const* ids,
                                 const int* quantities, esdirk_int n_outputs, const double* weights,
                                 const char* const* wrt, esdirk_int n_wrt, double* value, double* gradient) {
  constexpr const char* call = "adjoint_gradient";
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!times || !value || (n_wrt > 0 && !gradient) || (n_outputs > 0 && (!ids || !weights)) || (n_wrt > 0 && !wrt))
    return h->fail(ESDIRK_NULL_ARGUMENT,
                   std::string(call) + ": times, ids, weights, wrt, value and gradient must not be NULL");
  if (n_times < 1 || n_outputs < 0 || n_wrt < 0)
    return h->fail(ESDIRK_INVALID_ARGUMENT, std::string(call) + ": n_times must be >= 1, n_outputs and n_wrt >= 0");
  if (!h->model) return h->fail(ESDIRK_WRONG_CALL_ORDER, std::string(call) + ": no model loaded");
  return guarded(h, [&]() -> int {
    std::vector<sbml::Output> outputs;
    std::vector<std::string> with_respect_to;
    int read = read_outputs(h, call, ids, quantities, n_outputs, outputs);
    if (read == ESDIRK_SUCCESS) read = read_ids(h, call, wrt, n_wrt, with_respect_to);
    if (read != ESDIRK_SUCCESS) return read;
    const std::vector<double> output_times(times, times + n_times);
    const std::size_t rows = static_cast<std::size_t>(n_times) * static_cast<std::size_t>(n_outputs);
    const std::vector<double> w(weights, weights + rows);
    const sbml::Gradient g = sbml::adjoint_gradient(*h->model, output_times, outputs, w, with_respect_to, h->options);
    if (g.gradient.size() != static_cast<std::size_t>(n_wrt))
      return h->fail(ESDIRK_INTERNAL_ERROR, std::string(call) + ": the run returned a gradient of unexpected size");
    const double nan = std::nan("");
    *value = g.ok() ? g.value : nan;
    for (esdirk_int k = 0; k < n_wrt; ++k) gradient[k] = g.ok() ? g.gradient[static_cast<std::size_t>(k)] : nan;
    if (!g.ok()) return h->fail(c_status(g.status), g.message);
    h->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_sbml_parameter_count(const esdirk_sbml* h, esdirk_int* count) {
  if (!h || !count) return ESDIRK_NULL_ARGUMENT;
  *count = static_cast<esdirk_int>(h->parameter_ids.size());
  return ESDIRK_SUCCESS;
}

const char* esdirk_sbml_parameter_id(const esdirk_sbml* h, esdirk_int index) {
  if (!h || index < 0 || static_cast<std::size_t>(index) >= h->parameter_ids.size()) return nullptr;
  return h->parameter_ids[static_cast<std::size_t>(index)].c_str();
}

int esdirk_sbml_get_value(esdirk_sbml* h, const char* id, double* value) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!id || !value)
    return h->fail(ESDIRK_NULL_ARGUMENT, "get_value: id and value must not be NULL");
  if (!h->model) return h->fail(ESDIRK_WRONG_CALL_ORDER, "get_value: no model loaded");
  return guarded(h, [&]() -> int {
    *value = h->model->value(id);
    h->message.clear();
    return ESDIRK_SUCCESS;
  });
}

int esdirk_sbml_set_value(esdirk_sbml* h, const char* id, double value) {
  if (!h) return ESDIRK_NULL_ARGUMENT;
  if (!id) return h->fail(ESDIRK_NULL_ARGUMENT, "set_value: id is NULL");
  if (!h->model) return h->fail(ESDIRK_WRONG_CALL_ORDER, "set_value: no model loaded");
  if (!std::isfinite(value))
    return h->fail(ESDIRK_INVALID_ARGUMENT,
                   std::string("set_value: the value of '") + id + "' must be finite");
  return guarded(h, [&]() -> int {
    h->model->set_value(id, value);
    h->message.clear();
    return ESDIRK_SUCCESS;
  });
}
