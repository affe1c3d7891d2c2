"""Hybrid systems from Python: parameter resets (with the sensitivity jumps through them),
initial events, and the analytic Jacobians of what runs at events (event functions, resets),
against closed forms and against the central differences the library forms without them."""

import ctypes
import math
import os

import numpy as np
import pytest

import esdirk


def controller(parameter_reset_jac=None):
    """x' = -k x; when x falls through 1/2 the gain doubles, k := 2 k (a parameter reset)."""
    return esdirk.HybridProblem(
        1, 0, 1, 1, f=lambda m, t, x, z, p: [-p[0] * x[0]],
        events=lambda m, t, x, z, p: [x[0] - 0.5],
        parameter_reset=lambda m, fired, t, x, z, p: [2.0 * p[0]],
        parameter_reset_jac=parameter_reset_jac)


def controller_closed_form(T, x0, k0):
    """x(T) = 2 x0^2 exp(-2 k0 T) after the event at t1 = ln(2 x0) / k0, and its derivatives
    with respect to x0 and k0."""
    e = math.exp(-2.0 * k0 * T)
    return 2.0 * x0 * x0 * e, np.array([[4.0 * x0 * e, -4.0 * T * x0 * x0 * e]])


def run_controller(problem, x0=1.0, k0=1.0, T=2.0):
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-10, atol=1e-12), directions=[-1])
    solver.initialize(0.0, 0, [x0], p=[k0])
    solver.initialize_sensitivities()
    solver.integrate_to(T)
    return solver


def test_parameter_reset_against_the_closed_form():
    solver = run_controller(controller())
    x, S = controller_closed_form(2.0, 1.0, 1.0)
    assert solver.x[0] == pytest.approx(x, rel=1e-8)
    assert np.allclose(solver.Sx, S, rtol=1e-6)
    assert solver.p.tolist() == [2.0]
    assert np.allclose(solver.Sp, [[0.0, 2.0]], atol=1e-7)  # dk+/d(x0, k0): the jump through psi
    (event,) = solver.events
    assert event["t"] == pytest.approx(math.log(2.0), rel=1e-9)
    assert event["p_minus"].tolist() == [1.0] and event["p_plus"].tolist() == [2.0]
    assert not event["initial"]
    # The same derivatives as central differences of whole runs in x0 and k0.
    eps = 1e-5
    fd = [(run_controller(controller(), *(np.array([1.0, 1.0]) + eps * e)).x[0]
           - run_controller(controller(), *(np.array([1.0, 1.0]) - eps * e)).x[0]) / (2 * eps)
          for e in np.eye(2)]
    assert np.allclose(solver.Sx[0], fd, rtol=1e-6)


def test_analytic_parameter_reset_jacobian_gives_the_difference_result():
    # E = [psi_t | psi_x | psi_p] = [0, 0, 2].
    analytic = run_controller(controller(lambda m, fired, t, x, z, p: [[0.0, 0.0, 2.0]]))
    differences = run_controller(controller())
    assert differences.statistics["event_fd_evaluations"] > analytic.statistics["event_fd_evaluations"]
    assert np.allclose(analytic.Sx, differences.Sx, rtol=1e-8)
    assert np.allclose(analytic.Sp, [[0.0, 2.0]], rtol=1e-14)


def ball(**jacobians):
    """The bouncing ball of examples/bouncing_ball: z' = v, v' = -g, impact at z = 0 falling,
    v+ = -gamma v-; p = (g, gamma)."""
    return esdirk.HybridProblem(
        2, 0, 2, 1, f=lambda m, t, x, z, p: [x[1], -p[0]],
        events=lambda m, t, x, z, p: [x[0]],
        transition=lambda m, fired, t, x, z, p: (m, [x[0], -p[1] * x[1]]), **jacobians)


def run_ball(problem):
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-10, atol=1e-12), directions=[-1])
    solver.initialize(0.0, 0, [5.0, -0.1], p=[10.0, 0.8])
    solver.initialize_sensitivities()
    solver.integrate_to(1.9)
    return solver


def test_analytic_event_and_reset_jacobians_give_the_difference_result():
    # D = [phi_t | phi_x | phi_p] of phi = (z, -gamma v); the event row [h_t, h_x, h_p] of h = z.
    reset_jac = lambda m, fired, t, x, z, p: [[0, 1, 0, 0, 0], [0, 0, -p[1], 0, -x[1]]]
    event_jac = lambda m, t, x, z, p: [[0.0, 1.0, 0.0, 0.0, 0.0]]
    differences = run_ball(ball())
    analytic = run_ball(ball(reset_jac=reset_jac, event_jac=event_jac))
    assert np.allclose(analytic.Sx, differences.Sx, rtol=1e-7, atol=1e-9)
    assert np.allclose(analytic.events[0]["tau"], differences.events[0]["tau"], rtol=1e-7)
    assert differences.statistics["event_fd_evaluations"] > 0
    assert analytic.statistics["event_fd_evaluations"] == 0
    # The event Jacobian compiled (one C signature, per-mode list) gives the Python one's bits.
    lib = ctypes.CDLL(os.environ["ESDIRK_TEST_MODELS"])
    compiled = esdirk.ctypes_type()(("ball_event_jacobian", lib))
    per_mode = run_ball(esdirk.HybridProblem(
        2, 0, 2, 1, f=[lambda t, x, z, p: [x[1], -p[0]]], events=[lambda t, x, z, p: [x[0]]],
        transition=lambda m, fired, t, x, z, p: (m, [x[0], -p[1] * x[1]]),
        reset_jac=reset_jac, event_jac=[compiled]))
    assert np.array_equal(per_mode.Sx, analytic.Sx) and np.array_equal(per_mode.x, analytic.x)


def test_initial_events_fire_at_t0_only_when_flagged():
    """x' = 1 with the trigger x > p already true at t0: flagged, it fires there (x := 0 and
    p := p + 1); unflagged, it never fires (only sign changes do)."""
    def problem():
        return esdirk.HybridProblem(
            1, 0, 1, 1, f=lambda m, t, x, z, p: [1.0], events=lambda m, t, x, z, p: [x[0] - p[0]],
            transition=lambda m, fired, t, x, z, p: (m, [0.0]),
            parameter_reset=lambda m, fired, t, x, z, p: [p[0] + 1.0])
    flagged = esdirk.HybridSolver(problem(), esdirk.Options(rtol=1e-10, atol=1e-12),
                                  initial_events=[True])
    flagged.initialize(0.0, 0, [2.0], p=[1.0])
    assert flagged.initial_event_pending
    flagged.integrate_to(0.5)
    assert flagged.x[0] == pytest.approx(0.5, rel=1e-12) and flagged.p.tolist() == [2.0]
    (event,) = flagged.events
    assert event["initial"] and event["t"] == 0.0 and event["fired"] == [1]
    plain = esdirk.HybridSolver(problem(), esdirk.Options(rtol=1e-10, atol=1e-12))
    plain.initialize(0.0, 0, [2.0], p=[1.0])
    plain.integrate_to(0.5)
    assert plain.x[0] == pytest.approx(2.5, rel=1e-12) and plain.events == []


def test_parameter_reset_bad_input_keeps_the_solver_usable():
    with pytest.raises(ValueError, match="np >= 1"):
        esdirk.HybridProblem(1, 0, 0, 1, f=lambda m, t, x, z, p: [-x[0]],
                             events=lambda m, t, x, z, p: [x[0] - 0.5],
                             parameter_reset=lambda m, fired, t, x, z, p: [])
    with pytest.raises(TypeError, match="parameter_reset must be a Python callable"):
        esdirk.HybridProblem(1, 0, 1, 1, f=lambda m, t, x, z, p: [-x[0]],
                             events=lambda m, t, x, z, p: [x[0] - 0.5], parameter_reset=3)
    state = {"result": [1.0, 2.0]}
    problem = esdirk.HybridProblem(1, 0, 1, 1, f=lambda m, t, x, z, p: [-p[0] * x[0]],
                                   events=lambda m, t, x, z, p: [x[0] - 0.5],
                                   parameter_reset=lambda m, fired, t, x, z, p: state["result"])
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-8, atol=1e-10))
    solver.initialize(0.0, 0, [1.0], p=[1.0])
    with pytest.raises(ValueError, match="parameter_reset's p_plus must have 1 entries, got 2"):
        solver.integrate_to(2.0)
    # The left limit at the event is kept, with the old parameters; the solver starts again.
    assert solver.x[0] == pytest.approx(0.5, rel=1e-9) and solver.p.tolist() == [1.0]
    state["result"] = [3.0]
    solver.initialize(0.0, 0, [1.0], p=[1.0])
    solver.integrate_to(2.0)
    assert solver.p.tolist() == [3.0]
    assert solver.x[0] == pytest.approx(0.5 * math.exp(-3.0 * (2.0 - math.log(2.0))), rel=1e-7)
