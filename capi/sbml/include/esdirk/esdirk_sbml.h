/* esdirk C API: SBML models (C99). A handle holds one imported SBML model (Level 2 or 3, read
 * by libSBML and mapped onto a hybrid problem by esdirk's importer, doc/sbml.md) and the options
 * of its simulations.
 *
 *     esdirk_sbml* model = NULL;
 *     esdirk_sbml_create(&model);
 *     if (esdirk_sbml_load(model, "model.xml") != ESDIRK_SUCCESS)
 *       printf("%s (element '%s', line %d)\n", esdirk_sbml_last_error(model),
 *              esdirk_sbml_error_element(model), esdirk_sbml_error_line(model));
 *     const char* ids[] = {"S1", "k1"};
 *     const int quantities[] = {ESDIRK_SBML_CONCENTRATION, ESDIRK_SBML_VALUE};
 *     double times[] = {0, 1, 2}, values[3 * 2];            // row-major: time after time
 *     esdirk_sbml_simulate(model, times, 3, ids, quantities, 2, values);
 *     esdirk_sbml_free(&model);
 *
 * The conventions of esdirk.h hold: int status codes (ESDIRK_SUCCESS, negative on failure), the
 * handle keeps the message of its last failure, *_free(&h) frees and sets h to NULL, no C++
 * exception crosses this interface, the library never prints. A model that cannot be imported
 * is ESDIRK_INVALID_ARGUMENT, with the element id and the line where libSBML gives them, and
 * the name of the SBML feature when the model is valid but uses one the importer does not
 * support; a failed load keeps the model loaded before it. This part of the API lives in the
 * library esdirk_sbml_c (CMake target esdirk::sbml_c), built when libSBML is found.
 * Distinct handles may be used from distinct threads; one handle is not shared between
 * threads. */
#ifndef ESDIRK_ESDIRK_SBML_H
#define ESDIRK_ESDIRK_SBML_H

#include "esdirk/esdirk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct esdirk_sbml esdirk_sbml;

/** What an output reports (esdirk::sbml::Quantity): a species' amount or concentration, or the
 *  value an id has in the model's math (a parameter, a compartment's size, a species as its
 *  math sees it, a reaction's rate, a species reference's stoichiometry). */
enum esdirk_sbml_quantity {
  ESDIRK_SBML_AMOUNT = 0,
  ESDIRK_SBML_CONCENTRATION = 1,
  ESDIRK_SBML_VALUE = 2
};

/** An empty handle (no model yet). */
ESDIRK_C_API int esdirk_sbml_create(esdirk_sbml** sbml);
/** Frees *sbml and sets it to NULL; NULL (or a pointer to NULL) is a no-op. */
ESDIRK_C_API void esdirk_sbml_free(esdirk_sbml** sbml);
/** The message of the last failure on this handle ("" if none). Valid until the next call. */
ESDIRK_C_API const char* esdirk_sbml_last_error(const esdirk_sbml* sbml);
/** After a failed load: the id of the SBML element the error is about ("" when it is about the
 *  whole document), the line of the file libSBML gives (0 when none), and the SBML feature the
 *  importer does not support ("" when the model is not valid rather than unsupported). Valid
 *  until the next load. */
ESDIRK_C_API const char* esdirk_sbml_error_element(const esdirk_sbml* sbml);
ESDIRK_C_API int esdirk_sbml_error_line(const esdirk_sbml* sbml);
ESDIRK_C_API const char* esdirk_sbml_unsupported_feature(const esdirk_sbml* sbml);

/** Imports an SBML file / a document in memory (length bytes, no NUL needed). On failure the
 *  handle keeps the model it had. */
ESDIRK_C_API int esdirk_sbml_load(esdirk_sbml* sbml, const char* path);
ESDIRK_C_API int esdirk_sbml_load_string(esdirk_sbml* sbml, const char* xml, size_t length);
/** 1 when a model is loaded, 0 otherwise (also for a NULL handle). */
ESDIRK_C_API int esdirk_sbml_has_model(const esdirk_sbml* sbml);

/** Options of the next simulations (defaults rtol 1e-8, atol 1e-12, max_steps 1000000). */
ESDIRK_C_API int esdirk_sbml_set_tolerances(esdirk_sbml* sbml, double rtol, double atol);
ESDIRK_C_API int esdirk_sbml_set_max_steps(esdirk_sbml* sbml, long max_steps);
/** Wall-clock seconds per simulation (0, the default: no limit). A run that reaches it returns
 *  ESDIRK_TOO_MANY_STEPS (the work limit, as max_steps) with a message naming max_seconds and
 *  the rows reached before it filled. Negative or not finite: ESDIRK_INVALID_ARGUMENT. */
ESDIRK_C_API int esdirk_sbml_set_max_seconds(esdirk_sbml* sbml, double max_seconds);

/** Simulates from the first output time through n_times non-decreasing times and writes the
 *  n_outputs outputs (ids[j] with quantities[j]; quantities NULL: all ESDIRK_SBML_VALUE) at
 *  each time into values (n_times x n_outputs, row-major; at an event time the values after
 *  the event). A numerical failure returns its status (negative) with the rows reached before
 *  it filled and the rest NaN; an unknown id or decreasing times are ESDIRK_INVALID_ARGUMENT
 *  (nothing written); no model loaded is ESDIRK_WRONG_CALL_ORDER. */
ESDIRK_C_API int esdirk_sbml_simulate(esdirk_sbml* sbml, const double* times, esdirk_int n_times,
                                      const char* const* ids, const int* quantities,
                                      esdirk_int n_outputs, double* values);

/** esdirk_sbml_simulate plus the outputs' derivatives with respect to the n_wrt ids in wrt (a
 *  parameter of esdirk_sbml_parameter_id, or an id whose initial value starts a state: a
 *  species, a varying compartment or parameter), through the events: derivatives holds
 *  n_times x n_outputs x n_wrt values, entry (i * n_outputs + j) * n_wrt + k is d output j at
 *  time i / d wrt[k]. Forward sensitivities (doc/sbml.md, "Sensitivities"); the failures of
 *  esdirk_sbml_simulate, and an id that is neither is ESDIRK_INVALID_ARGUMENT (nothing
 *  written). After a numerical failure the rows not reached are NaN in both arrays. */
ESDIRK_C_API int esdirk_sbml_simulate_sensitivities(esdirk_sbml* sbml, const double* times,
                                                    esdirk_int n_times, const char* const* ids,
                                                    const int* quantities, esdirk_int n_outputs,
                                                    const char* const* wrt, esdirk_int n_wrt,
                                                    double* values, double* derivatives);
/** The gradient of G = sum_ij weights[i * n_outputs + j] y_ij (the outputs at the output
 *  times; at an event time the value before the event) with respect to the n_wrt ids, by one
 *  backward (adjoint) sweep: *value = G, gradient[k] = dG / d wrt[k]. Failures as
 *  esdirk_sbml_simulate_sensitivities (value and gradient NaN after a numerical failure). */
ESDIRK_C_API int esdirk_sbml_adjoint_gradient(esdirk_sbml* sbml, const double* times, esdirk_int n_times,
                                              const char* const* ids, const int* quantities,
                                              esdirk_int n_outputs, const double* weights,
                                              const char* const* wrt, esdirk_int n_wrt, double* value,
                                              double* gradient);

/** The model's parameters in the sense of sensitivities (constant parameters and compartments,
 *  local parameters as "reaction.parameter"): their number and the id of parameter `index`
 *  (NULL when out of range or no model; valid until the next load). */
ESDIRK_C_API int esdirk_sbml_parameter_count(const esdirk_sbml* sbml, esdirk_int* count);
ESDIRK_C_API const char* esdirk_sbml_parameter_id(const esdirk_sbml* sbml, esdirk_int index);
/** The value of a parameter, or the initial value of a state (species, varying compartment or
 *  parameter); set_value takes effect at the next simulation (initial assignments and rules
 *  are evaluated again from it). An unknown id is ESDIRK_INVALID_ARGUMENT. */
ESDIRK_C_API int esdirk_sbml_get_value(esdirk_sbml* sbml, const char* id, double* value);
ESDIRK_C_API int esdirk_sbml_set_value(esdirk_sbml* sbml, const char* id, double value);

#ifdef __cplusplus
}
#endif

#endif
