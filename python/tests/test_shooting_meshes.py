"""Fixed and frozen meshes of esdirk.ShootingInterval and esdirk.IntervalEvaluator from Python
(doc/multiple-shooting-guide.md, "Fixed and frozen meshes")."""

import math

import numpy as np
import pytest

import esdirk
from esdirk import models

MU = 2.0


def forced_van_der_pol():
    """Van der Pol with a control u added to x2' (analytic Jacobians: the sensitivities are then
    the exact derivative of the discrete map)."""
    return esdirk.Problem(
        2, 0, 1, lambda t, x, z, u: np.add(models.van_der_pol(t, x, MU), [0.0, u[0]]),
        jac=lambda t, x, z, u: models.van_der_pol_jac(t, x, MU),
        jac_p=lambda t, x, z, u: np.array([[0.0], [1.0]]))


def interval(**kw):
    return esdirk.ShootingInterval(forced_van_der_pol(), esdirk.Options(rtol=1e-6, atol=1e-8, **kw))


X0, U0 = [1.5, -0.5], 0.3


def test_fixed_steps_give_the_exact_derivative_of_their_discrete_map():
    s = interval()
    s.set_fixed_steps(4)
    assert s.mesh_policy == "fixed"
    r = s.integrate(0.0, 0.8, X0, [U0])
    assert r["statistics"]["accepted_steps"] == 4 and r["statistics"]["rejected_steps"] == 0
    assert np.allclose(s.mesh, [0.0, 0.2, 0.4, 0.6, 0.8], rtol=0, atol=1e-15)
    assert r["error_estimate"] > 0.0  # measured on the fixed mesh as well

    # Central differences of the same four-step map (its derivative, not the flow's).
    def x_end(x0, u):
        return interval_map(x0, u)["x"]

    def interval_map(x0, u):
        t = interval()
        t.set_fixed_steps(4)
        return t.integrate(0.0, 0.8, x0, [u])
    eps = 1e-6
    for j in range(2):
        dx = np.zeros(2)
        dx[j] = eps
        fd = (x_end(np.add(X0, dx), U0) - x_end(np.subtract(X0, dx), U0)) / (2 * eps)
        assert np.max(np.abs(fd - r["A"][:, j])) < 1e-7 * np.max(np.abs(r["A"]))
    fd_u = (x_end(X0, U0 + eps) - x_end(X0, U0 - eps)) / (2 * eps)
    assert np.max(np.abs(fd_u - r["B"][:, 0])) < 1e-7 * np.max(np.abs(r["B"]))


def test_a_frozen_mesh_is_reused_and_equals_set_mesh_of_it():
    s = interval()
    s.freeze_mesh()
    assert s.mesh_policy == "frozen"
    first = s.integrate(0.0, 0.8, X0, [U0])
    mesh = np.array(s.mesh)
    steps = first["statistics"]["accepted_steps"]
    assert len(mesh) == steps + 1 and mesh[0] == 0.0 and mesh[-1] == pytest.approx(0.8)
    assert first["error_estimate"] <= 1.0  # the adapting call
    moved = [X0[0] + 1e-3, X0[1]]
    second = s.integrate(0.0, 0.8, moved, [U0])
    assert second["statistics"]["accepted_steps"] == steps
    assert second["statistics"]["rejected_steps"] == 0
    assert np.array_equal(s.mesh, mesh)
    # Bit-identical to a fixed mesh of the same points.
    t = interval()
    t.set_mesh(mesh)
    t.integrate(0.0, 0.8, X0, [U0])  # the same call history (the first call initializes)
    same = t.integrate(0.0, 0.8, moved, [U0])
    for key in ("x", "A", "B"):
        assert np.array_equal(same[key], second[key])
    # refresh_mesh: the next call adapts again (here on a longer interval).
    s.refresh_mesh()
    longer = s.integrate(0.0, 1.6, X0, [U0])
    assert s.mesh[-1] == pytest.approx(1.6) and longer["statistics"]["accepted_steps"] > 0
    s.use_adaptive_steps()
    assert s.mesh_policy == "adaptive"


def test_bad_meshes_raise_naming_the_argument_and_keep_the_previous_mesh():
    s = interval()
    s.set_fixed_steps(3)
    for bad, what in ((0, "steps"), (-2, "steps"), (10**9, "steps")):
        with pytest.raises(ValueError, match=what):
            s.set_fixed_steps(bad)
    for bad, what in (([0.0], "needs at least 2"), ([0.0, 0.5, 0.4], "negative"),
                      ([0.0, 0.2, 0.2, 0.8], "is zero"), ([0.1, 0.8], "must start at 0"),
                      ([0.0, math.nan, 0.8], "not finite"), ([0.0, math.inf], "not finite")):
        with pytest.raises(ValueError, match="the mesh .*" + what):
            s.set_mesh(bad)
    with pytest.raises(ValueError, match="1-D"):
        s.set_mesh([[0.0, 0.8]])
    assert s.mesh_policy == "fixed"
    r = s.integrate(0.0, 0.8, X0, [U0])  # still three equal steps
    assert r["statistics"]["accepted_steps"] == 3

    s.set_mesh([0.0, 0.3, 0.8])
    with pytest.raises(ValueError, match="t_end"):
        s.integrate(0.0, 1.0, X0, [U0])  # the mesh spans 0.8
    assert s.integrate(0.0, 0.8, X0, [U0])["statistics"]["accepted_steps"] == 2

    f = interval()
    f.freeze_mesh()
    f.integrate(0.0, 0.8, X0, [U0])
    frozen = np.array(f.mesh)
    with pytest.raises(ValueError, match="t_end"):
        f.integrate(0.0, 0.5, X0, [U0])
    f.integrate(0.0, 0.8, X0, [U0])
    assert np.array_equal(f.mesh, frozen)


def test_interval_evaluator_meshes():
    N = 3
    t = np.linspace(0.0, 1.2, N + 1)
    x = np.array([[1.5, -0.5], [1.0, -0.8], [0.5, -1.0]])
    u = np.full((N, 1), U0)
    ev = esdirk.IntervalEvaluator(forced_van_der_pol(), N, esdirk.Options(rtol=1e-6, atol=1e-8),
                                  threads=2)
    ev.set_fixed_steps(5)
    out = ev.evaluate(t[:-1], t[1:], x, u)
    assert out["ok"] and np.array_equal(out["steps"], [5, 5, 5])
    with pytest.raises(ValueError, match="steps"):
        ev.set_fixed_steps(0)
    assert np.array_equal(ev.evaluate(t[:-1], t[1:], x, u)["steps"], [5, 5, 5])

    ev.freeze_meshes()
    adapted = ev.evaluate(t[:-1], t[1:], x, u)
    reused = ev.evaluate(t[:-1], t[1:], x + 1e-4, u)
    again = ev.evaluate(t[:-1], t[1:], x - 1e-4, u)
    assert adapted["ok"] and reused["ok"] and again["ok"]
    # The adapting call's accepted steps, without its rejections, on every later call.
    assert np.all(reused["steps"] <= adapted["steps"]) and np.all(reused["steps"] > 1)
    assert np.array_equal(again["steps"], reused["steps"])
    ev.refresh_meshes()
    ev.use_adaptive_steps()
    assert ev.evaluate(t[:-1], t[1:], x, u)["ok"]
