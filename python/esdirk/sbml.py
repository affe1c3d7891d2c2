"""SBML models for esdirk (doc/python-guide.md, "SBML models"): libSBML reads the model, esdirk's
importer compiles its math once, and the hybrid solver integrates it through its events.

    from esdirk import sbml
    model = sbml.load("model.xml")                      # or sbml.load_string(xml)
    run = sbml.simulate(model, [0, 1, 2], ["S1", ("S2", "amount")])
    run.values            # NumPy array, (len(t), len(outputs))
    run["S1"]             # one output's column

A model that cannot be imported raises SBMLImportError (a ValueError) with .element_id and .line;
a valid model using a feature the importer does not support raises its subclass
UnsupportedFeature with .feature. (Named SBMLImportError so that it does not hide Python's own
ImportError.)
"""

import numpy as np

try:
    from ._sbml import Model, SBMLImportError, UnsupportedFeature, load, load_string
    from . import _sbml
except ImportError as error:  # the extension is built only when libSBML was found
    raise ImportError("esdirk was built without SBML support: libSBML (Debian: libsbml5-dev) "
                      "was not found when the package was built") from error

__all__ = ["Model", "SBMLImportError", "UnsupportedFeature", "load", "load_string", "simulate",
           "simulate_sensitivities", "adjoint_gradient", "Simulation", "Gradient"]


class Simulation:
    """The result of simulate / simulate_sensitivities.

    t (len(t),), outputs (the ids), values (len(t), len(outputs)), success, status (the C
    value), status_name, message; after a failure the rows before it are filled, the rest NaN.
    simulate_sensitivities adds with_respect_to and derivatives (len(t), len(outputs),
    len(with_respect_to)): d output j at time i / d parameter k.
    """

    def __init__(self, fields):
        self.__dict__.update(fields)

    def __getitem__(self, output):
        """The column of the output with this id (the first, if it is listed twice)."""
        try:
            return self.values[:, self.outputs.index(output)]
        except ValueError:
            raise KeyError(output) from None

    def __repr__(self):
        return "<esdirk.sbml.Simulation %s: %d times x %d outputs>" % (
            self.status_name, len(self.t), len(self.outputs))


class Gradient:
    """The result of adjoint_gradient: value (the weighted sum G), gradient (dG/d with_respect_to),
    with_respect_to, success, status, status_name, message."""

    def __init__(self, fields):
        self.__dict__.update(fields)

    def __repr__(self):
        return "<esdirk.sbml.Gradient %s: G = %g, %d derivatives>" % (
            self.status_name, self.value, len(self.gradient))


def _times(t):
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size == 0:
        raise ValueError("t must be a non-empty 1-D sequence of output times")
    return [float(x) for x in t]


def _outputs(model, outputs):
    if outputs is None:
        return [(s, "value") for s in model.species_ids]
    if isinstance(outputs, (str, tuple)):
        raise TypeError("outputs is a list of ids or (id, quantity) pairs")
    return list(outputs)


def simulate(model, t, outputs=None, *, rtol=1e-8, atol=1e-12, max_steps=1000000, max_step=0.0,
             max_seconds=0.0):
    """Integrates the model from t[0] through the output times t (non-decreasing) and returns a
    Simulation with the outputs at each time (at an event time, after the event).

    outputs: ids (their value in the model's math: a species' concentration unless
    hasOnlySubstanceUnits, a compartment's size, a parameter, a reaction's rate) or (id,
    quantity) pairs with quantity 'amount', 'concentration' or 'value'; default: every species'
    value. A numerical failure gives success False with the message (no exception); an unknown
    id, decreasing times or invalid options raise ValueError. max_seconds > 0 bounds the
    wall-clock time of the call: past it the run ends with status_name 'too_many_steps' and a
    message naming max_seconds."""
    return Simulation(_sbml._simulate(model, _times(t), _outputs(model, outputs), rtol, atol,
                                      max_steps, max_step, max_seconds))


def simulate_sensitivities(model, t, outputs=None, with_respect_to=None, *, rtol=1e-8,
                           atol=1e-12, max_steps=1000000, max_step=0.0, max_seconds=0.0):
    """simulate plus the forward sensitivities of the outputs with respect to parameters
    (model.parameter_ids) and initial values (model.initial_value_ids), through the events;
    default with_respect_to: every parameter."""
    wrt = list(model.parameter_ids if with_respect_to is None else with_respect_to)
    return Simulation(_sbml._simulate_sensitivities(model, _times(t), _outputs(model, outputs), wrt,
                                                    rtol, atol, max_steps, max_step, max_seconds))


def adjoint_gradient(model, t, outputs, weights, with_respect_to=None, *, rtol=1e-8, atol=1e-12,
                     max_steps=1000000, max_step=0.0, max_seconds=0.0):
    """The gradient of G = sum_ij weights[i, j] * output j at time t[i] with respect to
    with_respect_to (default: every parameter) by the hybrid adjoint: one forward run and one
    backward sweep, whatever the number of parameters."""
    wrt = list(model.parameter_ids if with_respect_to is None else with_respect_to)
    times = _times(t)
    outs = _outputs(model, outputs)
    return Gradient(_sbml._adjoint_gradient(model, times, outs, np.asarray(weights, dtype=float),
                                            wrt, rtol, atol, max_steps, max_step, max_seconds))
