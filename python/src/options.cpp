// Options and SensitivityOptions: every C++ field by its name, enumerations as strings.

#include <pybind11/stl.h>

#include <array>
#include <utility>

#include "bindings.hpp"
#include "callbacks.hpp"

namespace esdirk::python {

namespace {

template <class E, std::size_t N>
using Names = std::array<std::pair<E, const char*>, N>;

const Names<NewtonTest, 3> newton_tests{
    {{NewtonTest::preconditioned_residual, "preconditioned_residual"},
     {NewtonTest::residual, "residual"},
     {NewtonTest::contraction_rate, "contraction_rate"}}};
const Names<StagePredictor, 3> predictors{{{StagePredictor::previous_stage, "previous_stage"},
                                           {StagePredictor::dense_output, "dense_output"},
                                           {StagePredictor::stage_extrapolation, "stage_extrapolation"}}};
const Names<ToleranceRule, 2> tolerance_rules{
    {{ToleranceRule::calibrated, "calibrated"}, {ToleranceRule::raw, "raw"}}};
const Names<DifferenceIncrement, 2> increments{
    {{DifferenceIncrement::error_weighted, "error_weighted"},
     {DifferenceIncrement::relative, "relative"}}};
const Names<SensitivityMode, 2> sensitivity_modes{
    {{SensitivityMode::paper, "paper"}, {SensitivityMode::exact, "exact"}}};
const Names<StageSolve, 3> stage_solves{{{StageSolve::automatic, "automatic"},
                                         {StageSolve::refinement, "refinement"},
                                         {StageSolve::factorization, "factorization"}}};

template <class E, std::size_t N>
const char* name_of(const Names<E, N>& names, E value) {
  for (const auto& [v, n] : names)
    if (v == value) return n;
  return "unknown";
}

template <class E, std::size_t N>
E value_of(const Names<E, N>& names, const std::string& name, const char* field) {
  std::string known;
  for (const auto& [v, n] : names) {
    if (name == n) return v;
    known += std::string(known.empty() ? "" : ", ") + n;
  }
  throw py::value_error(std::string(field) + ": unknown value '" + name + "' (known: " + known +
                        ")");
}

// A string property over an enumerated field.
template <class Class, class E, std::size_t N>
void enum_property(py::class_<Class>& c, const char* field, E Class::*member,
                   const Names<E, N>& names) {
  c.def_property(
      field, [member, &names](const Class& o) { return std::string(name_of(names, o.*member)); },
      [member, &names, field](Class& o, const std::string& v) {
        o.*member = value_of(names, v, field);
      });
}

// Sets every keyword as an attribute, refusing names the class does not have.
void apply_keywords(py::object target, const py::dict& keywords, const char* what) {
  for (auto [key, value] : keywords) {
    const std::string name = py::str(key);
    if (name.empty() || name[0] == '_' || !py::hasattr(target, name.c_str()))
      throw py::type_error(std::string(what) + " has no option '" + name + "'");
    target.attr(name.c_str()) = value;
  }
}

}  // namespace

Options options_from(const py::dict& keywords) {
  py::object o = py::cast(Options{});
  apply_keywords(o, keywords, "Options");
  return o.cast<Options>();
}

SensitivityOptions sensitivity_options_from(const py::dict& keywords) {
  py::object o = py::cast(SensitivityOptions{});
  apply_keywords(o, keywords, "SensitivityOptions");
  return o.cast<SensitivityOptions>();
}

py::dict statistics_dict(const Statistics& statistics) {
  py::dict d;
  for (const auto& counter : statistics_counters()) d[counter.name] = statistics.*(counter.counter);
  return d;
}

void check(Status status, const std::string& message) {
  if (ok(status)) return;
  raise_solver_error(static_cast<int>(status), std::string(status_name(status)),
                     message.empty() ? std::string(status_message(status)) : message);
}

namespace {

// esdirk.Options: every field of the C++ Options, enumerations by name.
void register_integrator_options(py::module_& m) {
  py::class_<Options> o(m, "Options",
                        R"(Integrator options: the C++ esdirk::Options, field by field.

Options(rtol=1e-8, atol=1e-10, method="ESDIRK436", ...) sets fields by keyword; an
unknown keyword raises TypeError. Enumerated fields take their names as strings
(newton_test="contraction_rate"). validate(nx, nz) raises ValueError naming the first
invalid field.)");
  o.def(py::init([](py::kwargs kw) { return options_from(kw); }))
      .def_readwrite("rtol", &Options::rtol)
      .def_readwrite("atol", &Options::atol)
      .def_readwrite("rtol_vector", &Options::rtol_vector)
      .def_readwrite("atol_vector", &Options::atol_vector)
      .def_readwrite("algebraic_atol", &Options::algebraic_atol)
      .def_readwrite("calibration_factor", &Options::calibration_factor)
      .def_property(
          "method", [](const Options& o) { return o.method.name(); },
          [](Options& o, const std::string& name) { o.method = MethodChoice::named(name); })
      .def_property_readonly("resolved_method",
                             [](const Options& o) { return o.resolved_method().name; })
      .def_readwrite("filter_error_estimate", &Options::filter_error_estimate)
      .def_readwrite("initial_step", &Options::initial_step)
      .def_readwrite("max_step", &Options::max_step)
      .def_readwrite("min_step", &Options::min_step)
      .def_readwrite("max_steps", &Options::max_steps)
      .def_readwrite("predictive_controller", &Options::predictive_controller)
      .def_readwrite("controller_k1", &Options::controller_k1)
      .def_readwrite("controller_k2", &Options::controller_k2)
      .def_readwrite("safety", &Options::safety)
      .def_readwrite("min_step_ratio", &Options::min_step_ratio)
      .def_readwrite("repeated_rejection_min_ratio", &Options::repeated_rejection_min_ratio)
      .def_readwrite("max_step_ratio", &Options::max_step_ratio)
      .def_readwrite("previous_error_floor", &Options::previous_error_floor)
      .def_readwrite("max_error_test_failures", &Options::max_error_test_failures)
      .def_readwrite("keep_step_ratio_low", &Options::keep_step_ratio_low)
      .def_readwrite("keep_step_ratio_high", &Options::keep_step_ratio_high)
      .def_readwrite("max_newton_iterations", &Options::max_newton_iterations)
      .def_readwrite("newton_tolerance", &Options::newton_tolerance)
      .def_readwrite("newton_rate_floor", &Options::newton_rate_floor)
      .def_readwrite("newton_fresh_rate_floor", &Options::newton_fresh_rate_floor)
      .def_readwrite("newton_carry_observed_rate", &Options::newton_carry_observed_rate)
      .def_readwrite("reference_contraction", &Options::reference_contraction)
      .def_readwrite("newton_failure_factor", &Options::newton_failure_factor)
      .def_readwrite("newton_failure_min_factor", &Options::newton_failure_min_factor)
      .def_readwrite("newton_limit_growth", &Options::newton_limit_growth)
      .def_readwrite("max_newton_failures", &Options::max_newton_failures)
      .def_readwrite("max_jacobian_refreshes", &Options::max_jacobian_refreshes)
      .def_readwrite("max_newton_dampings", &Options::max_newton_dampings)
      .def_readwrite("max_callback_failures", &Options::max_callback_failures)
      .def_readwrite("reuse_jacobian", &Options::reuse_jacobian)
      .def_readwrite("jacobian_reuse_contraction", &Options::jacobian_reuse_contraction)
      .def_readwrite("lu_reuse_h_change", &Options::lu_reuse_h_change)
      .def_readwrite("max_initialization_iterations", &Options::max_initialization_iterations)
      .def_readwrite("initialization_tolerance", &Options::initialization_tolerance)
      .def("validate",
           [](const Options& o, int nx, int nz) {
             try {
               o.validate(nx, nz);
             } catch (const std::invalid_argument& e) {
               throw py::value_error(e.what());
             }
           })
      .def_static("seed002", &Options::seed002,
                  "The configuration of Kristensen et al. 2005, for its Table 1 (raw tolerances, ESDIRK34, ...).")
      .def("__repr__", [](const Options& o) {
        return "esdirk.Options(rtol=" + std::string(py::repr(py::float_(o.rtol))) +
               ", atol=" + std::string(py::repr(py::float_(o.atol))) + ", method='" +
               o.method.name() + "')";
      });
  enum_property(o, "tolerance_rule", &Options::tolerance_rule, tolerance_rules);
  enum_property(o, "newton_test", &Options::newton_test, newton_tests);
  enum_property(o, "stage_predictor", &Options::stage_predictor, predictors);
  enum_property(o, "difference_increment", &Options::difference_increment, increments);
}

void register_sensitivity_options(py::module_& m) {
  py::class_<SensitivityOptions> s(
      m, "SensitivityOptions",
      "Options of the forward sensitivities (esdirk::SensitivityOptions).");
  s.def(py::init([](py::kwargs kw) { return sensitivity_options_from(kw); }))
      .def_property(
          "error_control",
          [](const SensitivityOptions& o) -> py::object {
            return o.error_control ? py::bool_(*o.error_control) : py::object(py::none());
          },
          [](SensitivityOptions& o, py::object v) {
            if (v.is_none())
              o.error_control.reset();
            else
              o.error_control = v.cast<bool>();
          })
      .def_readwrite("error_atol", &SensitivityOptions::error_atol)
      .def_readwrite("difference_rtol_floor", &SensitivityOptions::difference_rtol_floor)
      .def_readwrite("correction_tolerance", &SensitivityOptions::correction_tolerance)
      .def_readwrite("max_corrections", &SensitivityOptions::max_corrections)
      .def_static("seed002", &SensitivityOptions::seed002);
  enum_property(s, "mode", &SensitivityOptions::mode, sensitivity_modes);
  enum_property(s, "stage_solve", &SensitivityOptions::stage_solve, stage_solves);
}

}  // namespace

void register_options(py::module_& m) {
  register_integrator_options(m);
  register_sensitivity_options(m);

  m.def(
      "statistics_counters",
      [] {
        py::list names;
        for (const auto& c : statistics_counters()) names.append(c.name);
        return names;
      },
      "The names of the statistics counters, in the order of the library's table.");
}

}  // namespace esdirk::python
