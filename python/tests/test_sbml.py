"""esdirk.sbml: SBML models from Python against closed forms (a first-order decay, the same with a
reset event), sensitivities against the closed form and central differences, the adjoint
gradient against forward sensitivities, and bad input (documents that are not SBML, unsupported
features, unknown outputs, options)."""

import math
import os

import numpy as np
import pytest

from esdirk import sbml

HERE = os.path.dirname(os.path.abspath(__file__))
DECAY_FILE = os.path.join(HERE, "..", "..", "tests", "sbml_tools", "cases", "00001",
                          "00001-sbml-l3v2.xml")


def decay_model(size=2.0, event=""):
    """A' = -k A in a compartment of the given size, A(0) = 1 (amount), k = 1."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
  <model id="decay">
    <listOfCompartments>
      <compartment id="cell" spatialDimensions="3" size="{size}" constant="true"/>
    </listOfCompartments>
    <listOfSpecies>
      <species id="A" compartment="cell" initialAmount="1" hasOnlySubstanceUnits="false"
               boundaryCondition="false" constant="false"/>
    </listOfSpecies>
    <listOfParameters>
      <parameter id="k" value="1" constant="true"/>
    </listOfParameters>
    <listOfReactions>
      <reaction id="degradation" reversible="false">
        <listOfReactants>
          <speciesReference species="A" stoichiometry="1" constant="true"/>
        </listOfReactants>
        <kineticLaw>
          <math xmlns="http://www.w3.org/1998/Math/MathML">
            <apply><times/><ci> k </ci><ci> A </ci><ci> cell </ci></apply>
          </math>
        </kineticLaw>
      </reaction>
    </listOfReactions>
    {event}
  </model>
</sbml>
"""


# At t = 1 the amount is set back to 1 (concentration 1 / size).
RESET_AT_1 = """<listOfEvents>
      <event id="refill" useValuesFromTriggerTime="true">
        <trigger initialValue="false" persistent="true">
          <math xmlns="http://www.w3.org/1998/Math/MathML">
            <apply><geq/>
              <csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time"> t </csymbol>
              <cn> 1 </cn></apply>
          </math>
        </trigger>
        <listOfEventAssignments>
          <eventAssignment variable="A">
            <math xmlns="http://www.w3.org/1998/Math/MathML"><cn> 0.5 </cn></math>
          </eventAssignment>
        </listOfEventAssignments>
      </event>
    </listOfEvents>"""

T = np.linspace(0.0, 2.0, 9)


def test_decay_matches_the_closed_form_in_every_quantity():
    model = sbml.load_string(decay_model())
    assert model.id == "decay"
    assert model.species_ids == ["A"]
    assert "k" in model.parameter_ids and "cell" in model.parameter_ids
    run = sbml.simulate(model, T, [("A", "amount"), ("A", "concentration"), "A", "k"],
                        rtol=1e-10, atol=1e-14)
    assert run.success and run.status == 0 and run.status_name == "success"
    assert run.values.shape == (9, 4)
    np.testing.assert_array_equal(run.t, T)
    np.testing.assert_allclose(run.values[:, 0], np.exp(-T), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(run.values[:, 1], np.exp(-T) / 2, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(run.values[:, 2], np.exp(-T) / 2, rtol=1e-8, atol=1e-12)
    assert np.all(run.values[:, 3] == 1.0)
    np.testing.assert_array_equal(run["k"], run.values[:, 3])
    with pytest.raises(KeyError):
        run["nothing"]


def test_bytes_files_and_default_outputs():
    from_bytes = sbml.load_string(decay_model(size=1.0).encode())
    from_file = sbml.load(DECAY_FILE)
    a = sbml.simulate(from_bytes, T, rtol=1e-10, atol=1e-14)
    b = sbml.simulate(from_file, T, rtol=1e-10, atol=1e-14)
    assert a.outputs == ["A"]
    np.testing.assert_array_equal(a.values, b.values)


def test_set_value_changes_the_next_run():
    model = sbml.load_string(decay_model())
    assert model.value("k") == 1.0
    model.set_value("k", 3.0)
    assert model.value("k") == 3.0
    run = sbml.simulate(model, T, [("A", "amount")], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(run["A"], np.exp(-3 * T), rtol=1e-8, atol=1e-12)
    with pytest.raises(ValueError):
        model.value("no_such_id")


def test_an_event_resets_the_amount():
    model = sbml.load_string(decay_model(size=1.0, event=RESET_AT_1))
    run = sbml.simulate(model, T, [("A", "amount")], rtol=1e-10, atol=1e-14)
    expected = np.where(T < 1, np.exp(-T), 0.5 * np.exp(-(T - 1)))
    np.testing.assert_allclose(run["A"], expected, rtol=1e-8, atol=1e-12)


def test_import_errors_name_the_line_and_the_feature():
    with pytest.raises(sbml.SBMLImportError) as info:
        sbml.load_string("<?xml version='1.0'?>\n<sbml level='3' version='2'>\n<model id='m'>\n")
    assert isinstance(info.value, ValueError)
    assert info.value.line > 0
    assert info.value.feature == ""
    with pytest.raises(sbml.SBMLImportError):
        sbml.load_string("not xml at all")
    with pytest.raises(sbml.SBMLImportError):
        sbml.load(DECAY_FILE + ".missing")
    delayed = decay_model().replace(
        "<apply><times/><ci> k </ci><ci> A </ci><ci> cell </ci></apply>",
        "<apply><csymbol encoding='text' definitionURL='http://www.sbml.org/sbml/symbols/delay'>"
        " delay </csymbol><ci> A </ci><cn> 0.1 </cn></apply>")
    with pytest.raises(sbml.UnsupportedFeature) as info:
        sbml.load_string(delayed)
    assert isinstance(info.value, sbml.SBMLImportError)
    assert info.value.feature and info.value.feature in str(info.value)


def test_bad_arguments_raise_and_failures_return():
    model = sbml.load_string(decay_model())
    with pytest.raises(ValueError, match="no_such_id"):
        sbml.simulate(model, T, ["no_such_id"])
    with pytest.raises(ValueError, match="quantity 'mass'"):
        sbml.simulate(model, T, [("A", "mass")])
    with pytest.raises(TypeError):
        sbml.simulate(model, T, "A")
    with pytest.raises(TypeError):
        sbml.simulate(model, T, [3])
    with pytest.raises(ValueError):
        sbml.simulate(model, [1.0, 0.5], ["A"])
    with pytest.raises(ValueError):
        sbml.simulate(model, [], ["A"])
    with pytest.raises(ValueError):
        sbml.simulate(model, T, ["A"], rtol=-1)
    run = sbml.simulate(model, T, ["A"], max_steps=2)
    assert not run.success
    assert run.status_name == "too_many_steps"
    assert run.message
    assert run.values[0, 0] == 0.5
    assert math.isnan(run.values[-1, 0])


def test_max_seconds_is_checked_and_ends_a_run_that_would_not_end():
    model = sbml.load_string(decay_model())
    with pytest.raises(ValueError, match="max_seconds"):
        sbml.simulate(model, T, ["A"], max_seconds=-1.0)
    assert sbml.simulate(model, T, ["A"], max_seconds=60.0).success
    # A timer that fires every 1e-6 time units over [0, 1000]: 1e9 events.
    timer = decay_model(event="""<listOfEvents>
      <event id="tick" useValuesFromTriggerTime="true">
        <trigger initialValue="true" persistent="true">
          <math xmlns="http://www.w3.org/1998/Math/MathML">
            <apply><geq/><apply><minus/>
              <csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time"> t </csymbol>
              <ci> last </ci></apply><cn> 1e-6 </cn></apply>
          </math>
        </trigger>
        <listOfEventAssignments>
          <eventAssignment variable="last">
            <math xmlns="http://www.w3.org/1998/Math/MathML">
              <csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time"> t </csymbol>
            </math>
          </eventAssignment>
        </listOfEventAssignments>
      </event>
    </listOfEvents>""").replace('<parameter id="k" value="1" constant="true"/>',
                                '<parameter id="k" value="1" constant="true"/>\n'
                                '      <parameter id="last" value="0" constant="false"/>')
    run = sbml.simulate(sbml.load_string(timer), [0.0, 1000.0], ["A"], max_seconds=0.2)
    assert not run.success
    assert run.status_name == "too_many_steps"
    assert "max_seconds = 0.2" in run.message
    assert run.values[0, 0] == 0.5
    assert math.isnan(run.values[1, 0])
