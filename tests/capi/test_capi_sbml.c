/* The C API of the SBML importer (esdirk_sbml.h), compiled as C99: a first-order decay against
 * its closed form (amount, concentration, parameter value), parameters listed, read and set,
 * loading from a file and from memory, and bad input: a document that is not SBML, an
 * unsupported feature (the delay csymbol), a failed load keeping the model before it, unknown
 * outputs, decreasing times, NULL arguments, calls before a model is loaded; sensitivities and
 * the adjoint gradient against closed forms. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "esdirk/esdirk_sbml.h"

/* A' = -k A (A in amounts, compartment of size 2), A(0) = 1: A(t) = exp(-k t). */
static const char* decay_model =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<sbml xmlns=\"http://www.sbml.org/sbml/level3/version2/core\" level=\"3\" version=\"2\">\n"
    "  <model id=\"decay\">\n"
    "    <listOfCompartments>\n"
    "      <compartment id=\"cell\" spatialDimensions=\"3\" size=\"2\" constant=\"true\"/>\n"
    "    </listOfCompartments>\n"
    "    <listOfSpecies>\n"
    "      <species id=\"A\" compartment=\"cell\" initialAmount=\"1\"\n"
    "               hasOnlySubstanceUnits=\"false\" boundaryCondition=\"false\" "
    "constant=\"false\"/>\n"
    "    </listOfSpecies>\n"
    "    <listOfParameters>\n"
    "      <parameter id=\"k\" value=\"1\" constant=\"true\"/>\n"
    "    </listOfParameters>\n"
    "    <listOfReactions>\n"
    "      <reaction id=\"degradation\" reversible=\"false\">\n"
    "        <listOfReactants>\n"
    "          <speciesReference species=\"A\" stoichiometry=\"1\" constant=\"true\"/>\n"
    "        </listOfReactants>\n"
    "        <kineticLaw>\n"
    "          <math xmlns=\"http://www.w3.org/1998/Math/MathML\">\n"
    "            <apply><times/><ci> k </ci><ci> A </ci><ci> cell </ci></apply>\n"
    "          </math>\n"
    "        </kineticLaw>\n"
    "      </reaction>\n"
    "    </listOfReactions>\n"
    "  </model>\n"
    "</sbml>\n";

/* The same reaction with a delayed rate: valid SBML the importer refuses. */
static const char* delay_model =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<sbml xmlns=\"http://www.sbml.org/sbml/level3/version2/core\" level=\"3\" version=\"2\">\n"
    "  <model id=\"delayed\">\n"
    "    <listOfCompartments>\n"
    "      <compartment id=\"cell\" spatialDimensions=\"3\" size=\"1\" constant=\"true\"/>\n"
    "    </listOfCompartments>\n"
    "    <listOfSpecies>\n"
    "      <species id=\"A\" compartment=\"cell\" initialAmount=\"1\"\n"
    "               hasOnlySubstanceUnits=\"false\" boundaryCondition=\"false\" "
    "constant=\"false\"/>\n"
    "    </listOfSpecies>\n"
    "    <listOfReactions>\n"
    "      <reaction id=\"delayed_degradation\" reversible=\"false\">\n"
    "        <listOfReactants>\n"
    "          <speciesReference species=\"A\" stoichiometry=\"1\" constant=\"true\"/>\n"
    "        </listOfReactants>\n"
    "        <kineticLaw>\n"
    "          <math xmlns=\"http://www.w3.org/1998/Math/MathML\">\n"
    "            <apply><csymbol encoding=\"text\" "
    "definitionURL=\"http://www.sbml.org/sbml/symbols/delay\"> delay </csymbol>\n"
    "              <ci> A </ci><cn> 0.1 </cn></apply>\n"
    "          </math>\n"
    "        </kineticLaw>\n"
    "      </reaction>\n"
    "    </listOfReactions>\n"
    "  </model>\n"
    "</sbml>\n";

enum { NT = 5, NO = 3 };
static const double times[NT] = {0.0, 0.5, 1.0, 1.5, 2.0};
static const char* const ids[NO] = {"A", "A", "k"};
static const int quantities[NO] = {ESDIRK_SBML_AMOUNT, ESDIRK_SBML_CONCENTRATION,
                                   ESDIRK_SBML_VALUE};

/* The decay's outputs at `times` for rate k, within the tolerance the run was asked for. */
static void check_decay(const double* values, double k) {
  for (int i = 0; i < NT; ++i) {
    const double amount = exp(-k * times[i]);
    CHECK(fabs(values[i * NO + 0] - amount) < 1e-7);
    CHECK(fabs(values[i * NO + 1] - amount / 2.0) < 1e-7);
    CHECK(values[i * NO + 2] == k);
  }
}

static void test_decay_from_memory_and_parameters(void) {
  esdirk_sbml* model = NULL;
  double values[NT * NO];
  CHECK_STATUS(esdirk_sbml_create(&model), ESDIRK_SUCCESS);
  CHECK(esdirk_sbml_has_model(model) == 0);
  CHECK_STATUS(esdirk_sbml_load_string(model, decay_model, strlen(decay_model)), ESDIRK_SUCCESS);
  CHECK(esdirk_sbml_has_model(model) == 1);
  CHECK(strcmp(esdirk_sbml_last_error(model), "") == 0);
  CHECK_STATUS(esdirk_sbml_set_tolerances(model, 1e-10, 1e-14), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, values), ESDIRK_SUCCESS);
  check_decay(values, 1.0);

  /* k and the constant compartment are parameters; A starts a state, it is no parameter. */
  esdirk_int count = -1;
  int has_k = 0, has_cell = 0, has_a = 0;
  CHECK_STATUS(esdirk_sbml_parameter_count(model, &count), ESDIRK_SUCCESS);
  for (esdirk_int i = 0; i < count; ++i) {
    const char* id = esdirk_sbml_parameter_id(model, i);
    CHECK(id != NULL);
    if (!id) continue;
    has_k += strcmp(id, "k") == 0;
    has_cell += strcmp(id, "cell") == 0;
    has_a += strcmp(id, "A") == 0;
  }
  CHECK(has_k == 1 && has_cell == 1 && has_a == 0);
  CHECK(esdirk_sbml_parameter_id(model, count) == NULL);
  CHECK(esdirk_sbml_parameter_id(model, -1) == NULL);

  double k = 0.0;
  CHECK_STATUS(esdirk_sbml_get_value(model, "k", &k), ESDIRK_SUCCESS);
  CHECK(k == 1.0);
  CHECK_STATUS(esdirk_sbml_set_value(model, "k", 2.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_get_value(model, "k", &k), ESDIRK_SUCCESS);
  CHECK(k == 2.0);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, values), ESDIRK_SUCCESS);
  check_decay(values, 2.0);
  /* quantities NULL: every output is the id's value in the model's math (A's concentration). */
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, NULL, 1, values), ESDIRK_SUCCESS);
  CHECK(fabs(values[4] - exp(-4.0) / 2.0) < 1e-7);

  esdirk_sbml_free(&model);
  CHECK(model == NULL);
  esdirk_sbml_free(&model); /* a pointer to NULL: no-op */
  esdirk_sbml_free(NULL);
}

static void test_decay_from_a_file(void) {
  esdirk_sbml* model = NULL;
  double values[NT * NO];
  CHECK_STATUS(esdirk_sbml_create(&model), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_load(model, ESDIRK_SBML_DECAY_FILE), ESDIRK_SUCCESS);
  /* That file's compartment has size 1. */
  CHECK_STATUS(esdirk_sbml_set_tolerances(model, 1e-10, 1e-14), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, values), ESDIRK_SUCCESS);
  CHECK(fabs(values[4 * NO] - exp(-2.0)) < 1e-7);
  CHECK(fabs(values[4 * NO + 1] - exp(-2.0)) < 1e-7);
  CHECK_STATUS(esdirk_sbml_load(model, ESDIRK_SBML_DECAY_FILE ".missing"), ESDIRK_INVALID_ARGUMENT);
  CHECK(strlen(esdirk_sbml_last_error(model)) > 0);
  CHECK(esdirk_sbml_has_model(model) == 1);
  esdirk_sbml_free(&model);
}

static void test_bad_documents_keep_the_model(void) {
  esdirk_sbml* model = NULL;
  double values[NT * NO];
  const char* not_sbml = "<?xml version=\"1.0\"?>\n<html>\n<body>no model</body>\n</html>\n";
  const char* broken =
      "<?xml version=\"1.0\"?>\n<sbml level=\"3\" version=\"2\">\n<model id=\"m\">\n";
  CHECK_STATUS(esdirk_sbml_create(&model), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, values),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_sbml_get_value(model, "k", values), ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_sbml_set_value(model, "k", 1.0), ESDIRK_WRONG_CALL_ORDER);

  CHECK_STATUS(esdirk_sbml_load_string(model, not_sbml, strlen(not_sbml)), ESDIRK_INVALID_ARGUMENT);
  CHECK(strlen(esdirk_sbml_last_error(model)) > 0);
  CHECK(strcmp(esdirk_sbml_unsupported_feature(model), "") == 0);
  CHECK(esdirk_sbml_has_model(model) == 0);
  CHECK_STATUS(esdirk_sbml_load_string(model, broken, strlen(broken)), ESDIRK_INVALID_ARGUMENT);
  CHECK(esdirk_sbml_error_line(model) > 0); /* libSBML names the line of an XML error */
  CHECK_STATUS(esdirk_sbml_load_string(model, "", 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_load_string(model, NULL, 0), ESDIRK_INVALID_ARGUMENT);

  CHECK_STATUS(esdirk_sbml_load_string(model, decay_model, strlen(decay_model)), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_set_value(model, "k", 2.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_load_string(model, delay_model, strlen(delay_model)),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strlen(esdirk_sbml_unsupported_feature(model)) > 0);
  CHECK(strstr(esdirk_sbml_last_error(model), esdirk_sbml_unsupported_feature(model)) != NULL);
  printf("unsupported: %s (element '%s')\n", esdirk_sbml_unsupported_feature(model),
         esdirk_sbml_error_element(model));
  /* The failed load kept the decay model, with its changed k. */
  CHECK(esdirk_sbml_has_model(model) == 1);
  CHECK_STATUS(esdirk_sbml_set_tolerances(model, 1e-10, 1e-14), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, values), ESDIRK_SUCCESS);
  check_decay(values, 2.0);
  esdirk_sbml_free(&model);
}

static void test_misuse(void) {
  esdirk_sbml* model = NULL;
  double values[NT * NO] = {0};
  const double decreasing[2] = {1.0, 0.5};
  const char* unknown[1] = {"no_such_id"};
  const char* null_id[1] = {NULL};
  const int bad_quantity[1] = {7};
  esdirk_int count = 0;
  CHECK_STATUS(esdirk_sbml_create(NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_load(NULL, "x.xml"), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_simulate(NULL, times, NT, ids, quantities, NO, values),
               ESDIRK_NULL_ARGUMENT);
  CHECK(strlen(esdirk_sbml_last_error(NULL)) > 0);
  CHECK(esdirk_sbml_has_model(NULL) == 0);
  CHECK(esdirk_sbml_parameter_id(NULL, 0) == NULL);
  CHECK_STATUS(esdirk_sbml_parameter_count(NULL, &count), ESDIRK_NULL_ARGUMENT);

  CHECK_STATUS(esdirk_sbml_create(&model), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_load(model, NULL), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_load_string(model, decay_model, strlen(decay_model)), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_set_tolerances(model, -1.0, 1e-12), ESDIRK_INVALID_ARGUMENT);
  CHECK(strlen(esdirk_sbml_last_error(model)) > 0);
  CHECK_STATUS(esdirk_sbml_set_tolerances(model, NAN, 1e-12), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_set_max_steps(model, 0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, 0, ids, quantities, NO, values),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_simulate(model, NULL, NT, ids, quantities, NO, values),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, NULL, quantities, NO, values),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, null_id, NULL, 1, values),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, bad_quantity, 1, values),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_sbml_last_error(model), "quantities[0] = 7") != NULL);
  values[0] = 42.0;
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, unknown, NULL, 1, values),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_sbml_last_error(model), "no_such_id") != NULL);
  CHECK(values[0] == 42.0); /* nothing written */
  CHECK_STATUS(esdirk_sbml_simulate(model, decreasing, 2, ids, quantities, NO, values),
               ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_get_value(model, "no_such_id", values), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_get_value(model, NULL, values), ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_set_value(model, "k", INFINITY), ESDIRK_INVALID_ARGUMENT);
  /* A failed call changed nothing: the model still runs with k = 1. */
  CHECK_STATUS(esdirk_sbml_set_tolerances(model, 1e-10, 1e-14), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, values), ESDIRK_SUCCESS);
  check_decay(values, 1.0);
  /* Too few steps: a numerical failure, rows before it kept, the rest NaN. */
  CHECK_STATUS(esdirk_sbml_set_max_steps(model, 2), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, values),
               ESDIRK_TOO_MANY_STEPS);
  CHECK(values[0] == 1.0);
  CHECK(isnan(values[(NT - 1) * NO]));
  esdirk_sbml_free(&model);
}

/* Sensitivities of the decay A(t) = A0 exp(-k t) (amount; concentration A / 2) with respect to
 * k and the initial amount A0 = 1, and the adjoint gradient of G = sum_i A(t_i), against the
 * closed forms dA/dk = -t exp(-k t), dA/dA0 = exp(-k t). */
static void test_sensitivities_and_adjoint_gradient(void) {
  esdirk_sbml* model = NULL;
  const char* const wrt[2] = {"k", "A"};
  double values[NT * NO], derivatives[NT * NO * 2], weights[NT * NO], value = 0.0, gradient[2];
  CHECK_STATUS(esdirk_sbml_create(&model), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate_sensitivities(model, times, NT, ids, quantities, NO, wrt, 2, values,
                                                  derivatives),
               ESDIRK_WRONG_CALL_ORDER);
  CHECK_STATUS(esdirk_sbml_load_string(model, decay_model, strlen(decay_model)), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_set_tolerances(model, 1e-10, 1e-14), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate_sensitivities(model, times, NT, ids, quantities, NO, wrt, 2, values,
                                                  derivatives),
               ESDIRK_SUCCESS);
  check_decay(values, 1.0);
  double sum = 0.0, dsum_dk = 0.0, dsum_da = 0.0;
  for (int i = 0; i < NT; ++i) {
    const double a = exp(-times[i]);
    CHECK(fabs(derivatives[(i * NO + 0) * 2 + 0] + times[i] * a) < 1e-7);       /* dA/dk */
    CHECK(fabs(derivatives[(i * NO + 0) * 2 + 1] - a) < 1e-7);                  /* dA/dA0 */
    CHECK(fabs(derivatives[(i * NO + 1) * 2 + 0] + times[i] * a / 2.0) < 1e-7); /* d[A]/dk */
    CHECK(derivatives[(i * NO + 2) * 2 + 0] == 1.0);                            /* dk/dk */
    CHECK(derivatives[(i * NO + 2) * 2 + 1] == 0.0);
    weights[i * NO + 0] = 1.0;
    weights[i * NO + 1] = 0.0;
    weights[i * NO + 2] = 0.0;
    sum += a;
    dsum_dk -= times[i] * a;
    dsum_da += a;
  }
  CHECK_STATUS(esdirk_sbml_adjoint_gradient(model, times, NT, ids, quantities, NO, weights, wrt, 2, &value,
                                            gradient),
               ESDIRK_SUCCESS);
  CHECK(fabs(value - sum) < 1e-7);
  CHECK(fabs(gradient[0] - dsum_dk) < 1e-7);
  CHECK(fabs(gradient[1] - dsum_da) < 1e-7);

  /* Bad input: an id that is neither a parameter nor an initial value, NULL entries. */
  const char* const unknown[1] = {"no_such_id"};
  const char* const null_id[1] = {NULL};
  CHECK_STATUS(esdirk_sbml_simulate_sensitivities(model, times, NT, ids, quantities, NO, unknown, 1, values,
                                                  derivatives),
               ESDIRK_INVALID_ARGUMENT);
  CHECK(strstr(esdirk_sbml_last_error(model), "no_such_id") != NULL);
  CHECK_STATUS(esdirk_sbml_simulate_sensitivities(model, times, NT, ids, quantities, NO, null_id, 1, values,
                                                  derivatives),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_simulate_sensitivities(model, times, NT, ids, quantities, NO, wrt, 2, values, NULL),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_adjoint_gradient(model, times, NT, ids, quantities, NO, NULL, wrt, 2, &value, gradient),
               ESDIRK_NULL_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_adjoint_gradient(model, times, NT, ids, quantities, NO, weights, unknown, 1, &value,
                                            gradient),
               ESDIRK_INVALID_ARGUMENT);
  /* The time limit: invalid values refused, the options kept. */
  CHECK_STATUS(esdirk_sbml_set_max_seconds(model, -1.0), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_set_max_seconds(model, NAN), ESDIRK_INVALID_ARGUMENT);
  CHECK_STATUS(esdirk_sbml_set_max_seconds(model, 60.0), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_sbml_simulate(model, times, NT, ids, quantities, NO, values), ESDIRK_SUCCESS);
  check_decay(values, 1.0);
  esdirk_sbml_free(&model);
}

int main(void) {
  test_decay_from_memory_and_parameters();
  test_sensitivities_and_adjoint_gradient();
  test_decay_from_a_file();
  test_bad_documents_keep_the_model();
  test_misuse();
  return report();
}
