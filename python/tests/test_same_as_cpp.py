"""The Python package gives the C++ API's results to the last bit: Robertson, Dow with
sensitivities, the bouncing ball with sensitivity jumps, a shooting interval. The C++ numbers
come from reference_runs (built in the same tree), printed in hexadecimal floating point."""

import numpy as np
import pytest

import esdirk
from esdirk import models


@pytest.fixture(scope="module")
def cpp(cpp_runs):
    return cpp_runs


def counts(stats):
    return [stats["steps"], stats["function_evaluations"], stats["jacobian_evaluations"],
            stats["lu_factorizations"]]


def test_robertson(cpp):
    for f, jac in [(models.robertson, models.robertson_jac),
                   (models.compiled("robertson")["f"], models.compiled("robertson")["jac"])]:
        res = esdirk.solve_ivp(f, (0.0, 1e5), [1.0, 0.0, 0.0], t_eval=[1e-3, 1.0, 1e3, 1e5],
                               rtol=1e-8, atol=1e-14, jac=jac)
        assert np.array_equal(res.y.T, np.array(cpp["robertson"]["y"]))
        assert counts(res.statistics) == cpp["robertson"]["counts"]


@pytest.mark.parametrize("route", ["python", "numba"])
def test_dow_with_sensitivities(cpp, route):
    if route == "python":
        f, g, jac, jac_p = models.dow_f, models.dow_g, models.dow_jac, models.dow_jac_p
    else:
        c = models.compiled("dow")
        f, g, jac, jac_p = c["f"], c["g"], c["jac"], c["jac_p"]
    res = esdirk.solve_ivp(f, (0.0, 10.0), models.DOW_X0, g=g, z0=models.dow_z0(),
                           p=models.DOW_PARAMETERS, jac=jac, jac_p=jac_p,
                           t_eval=[1e-3, 0.1, 1.0, 10.0], rtol=1e-6, atol=1e-12,
                           algebraic_atol=models.DOW_ALGEBRAIC_ATOL, seed=models.dow_scaled_seed())
    ref = cpp["dow"]
    assert np.array_equal(res.x.T, np.array(ref["x"]))
    assert np.array_equal(res.z.T, np.array(ref["z"]))
    S = res.sensitivities  # (nt, 10, 9): the x rows, then the z rows
    assert np.array_equal(S[:, :6, :].reshape(4, -1), np.array(ref["Sx"]))
    assert np.array_equal(S[:, 6:, :].reshape(4, -1), np.array(ref["Sz"]))
    assert counts(res.statistics) == ref["counts"]


def compiled_ball():
    """The ball's f, J, f_p and event function as numba.cfunc callbacks, one per mode (a list
    of one mode)."""
    import numba
    signature = esdirk.numba_signature()

    @numba.cfunc(signature)
    def f(t, x, z, p, out):
        out[0] = x[1]
        out[1] = -p[0]
        return 0

    @numba.cfunc(signature)
    def jac(t, x, z, p, J):
        J[0] = 0.0
        J[1] = 0.0
        J[2] = 1.0
        J[3] = 0.0
        return 0

    @numba.cfunc(signature)
    def jac_p(t, x, z, p, Jp):
        Jp[0] = 0.0
        Jp[1] = -1.0
        Jp[2] = 0.0
        Jp[3] = 0.0
        return 0

    @numba.cfunc(signature)
    def ground(t, x, z, p, h):
        h[0] = x[0]
        return 0
    return dict(f=[f], jac=[jac], jac_p=[jac_p], events=[ground])


@pytest.mark.parametrize("route", ["python", "numba"])
def test_bouncing_ball_with_sensitivity_jumps(cpp, route):
    callbacks = compiled_ball() if route == "numba" else dict(
        f=lambda mode, t, x, z, p: [x[1], -p[0]],
        jac=lambda mode, t, x, z, p: [[0.0, 1.0], [0.0, 0.0]],
        jac_p=lambda mode, t, x, z, p: [[0.0, 0.0], [-1.0, 0.0]],
        events=lambda mode, t, x, z, p: [x[0]])
    problem = esdirk.HybridProblem(
        2, 0, 2, 1, transition=lambda mode, fired, t, x, z, p: (mode, [x[0], -p[1] * x[1]]),
        **callbacks)
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-8, atol=1e-10))
    solver.initialize(0.0, 0, [5.0, -0.1], p=[10.0, 0.8])
    solver.initialize_sensitivities()
    ref = cpp["ball"]
    for k, t in enumerate([0.5, 1.0, 1.5, 1.9]):
        solver.integrate_to(t)
        assert np.array_equal(solver.x, ref["x"][k])
        assert np.array_equal(solver.Sx.reshape(-1), ref["Sx"][k])
    assert np.array_equal([e["t"] for e in solver.events], ref["events"][0])
    assert len(solver.events) == 1 and "tau" in solver.events[0]


def test_bouncing_ball_with_analytic_event_and_reset_jacobians(cpp):
    """event_jac and reset_jac from Python give the C++ model's analytic Jacobians' bits."""
    problem = esdirk.HybridProblem(
        2, 0, 2, 1, f=lambda mode, t, x, z, p: [x[1], -p[0]],
        jac=lambda mode, t, x, z, p: [[0.0, 1.0], [0.0, 0.0]],
        jac_p=lambda mode, t, x, z, p: [[0.0, 0.0], [-1.0, 0.0]],
        events=lambda mode, t, x, z, p: [x[0]],
        transition=lambda mode, fired, t, x, z, p: (mode, [x[0], -p[1] * x[1]]),
        event_jac=lambda mode, t, x, z, p: [[0.0, 1.0, 0.0, 0.0, 0.0]],
        reset_jac=lambda mode, fired, t, x, z, p: [[0.0, 1.0, 0.0, 0.0, 0.0],
                                                   [0.0, 0.0, -p[1], 0.0, -x[1]]])
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-8, atol=1e-10))
    solver.initialize(0.0, 0, [5.0, -0.1], p=[10.0, 0.8])
    solver.initialize_sensitivities()
    ref = cpp["ball_analytic"]
    for k, t in enumerate([0.5, 1.0, 1.5, 1.9]):
        solver.integrate_to(t)
        assert np.array_equal(solver.x, ref["x"][k])
        assert np.array_equal(solver.Sx.reshape(-1), ref["Sx"][k])
    assert np.array_equal([e["t"] for e in solver.events], ref["events"][0])
    assert counts(solver.statistics) == ref["counts"]
    assert solver.statistics["event_fd_evaluations"] == 0


@pytest.mark.parametrize("analytic", [False, True])
def test_parameter_reset_and_initial_event(cpp, analytic):
    """A gain switched by events (k := 2 k at x = 1/2) after an initial event at t0 (x := 3/2,
    k := k + 1): x, its sensitivities, the parameters and their sensitivities as in C++."""
    def reset(mode, fired, t, x, z, p):
        return [p[0] + 1.0] if fired[1] else [2.0 * p[0]]

    def reset_jac(mode, fired, t, x, z, p):
        return [[0.0, 0.0, 1.0 if fired[1] else 2.0]]
    problem = esdirk.HybridProblem(
        1, 0, 1, 2, f=lambda mode, t, x, z, p: [-p[0] * x[0]],
        events=lambda mode, t, x, z, p: [x[0] - 0.5, x[0] - 2.0],
        transition=lambda mode, fired, t, x, z, p: (mode, [1.5] if fired[1] else list(x)),
        parameter_reset=reset, parameter_reset_jac=reset_jac if analytic else None)
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-9, atol=1e-12),
                                 directions=[-1, 1], initial_events=[False, True])
    solver.initialize(0.0, 0, [2.5], p=[1.0])
    solver.initialize_sensitivities()
    ref = cpp["gain_analytic" if analytic else "gain"]
    for k, t in enumerate([0.5, 1.0, 2.0]):
        solver.integrate_to(t)
        assert np.array_equal(solver.x, ref["x"][k])
        assert np.array_equal(solver.Sx.reshape(-1), ref["Sx"][k])
        assert np.array_equal(solver.p, ref["p"][k])
        assert np.array_equal(solver.Sp.reshape(-1), ref["Sp"][k])
    assert np.array_equal([e["t"] for e in solver.events], ref["events"][0])
    assert np.array_equal([e["p_plus"][0] for e in solver.events], ref["p_plus"][0])
    assert [e["initial"] for e in solver.events] == [True, False]
    assert counts(solver.statistics) == ref["counts"]


def test_shooting_interval(cpp):
    mu = 1.0
    problem = esdirk.Problem(2, 0, 1, lambda t, x, z, u: [x[1], mu * (1.0 - x[0] * x[0]) * x[1] - x[0] + u[0]])

    def cost(t, x, z, u):
        return x[0] * x[0] + u[0] * u[0], [2.0 * x[0], 0.0], [], [2.0 * u[0]]

    interval = esdirk.ShootingInterval(problem, esdirk.Options(rtol=1e-8, atol=1e-10),
                                       running_cost=cost)
    ref = cpp["shooting"]
    x = [1.0, 0.0]
    for k, (t0, u) in enumerate([(0.0, 0.3), (0.5, -0.2)]):
        r = interval.integrate(t0, t0 + 0.5, x, [u])
        assert np.array_equal(r["x"], ref["x"][k])
        assert np.array_equal(r["A"].reshape(-1), ref["A"][k])
        assert np.array_equal(r["B"].reshape(-1), ref["B"][k])
        assert np.array_equal([r["H"]], ref["H"][k])
        assert np.array_equal(r["q"], ref["q"][k])
        assert np.array_equal(r["r"], ref["r"][k])
        x = r["x"]
