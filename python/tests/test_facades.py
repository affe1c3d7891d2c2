"""The other facades from Python: adjoint gradients, multiple shooting with threads,
estimation, hybrid systems, structural analysis, statistics."""

import numpy as np
import pytest

import esdirk
from esdirk import models


def vdp_problem(**kw):
    return esdirk.Problem(2, 0, 1, lambda t, x, z, u: [x[1], (1.0 - x[0] * x[0]) * x[1] - x[0] + u[0]], **kw)


def test_adjoint_gradient_equals_forward_sensitivities():
    problem = vdp_problem()
    options = esdirk.Options(rtol=1e-8, atol=1e-10)
    g = esdirk.adjoint_gradient(problem, (0.0, 0.5), [1.0, 0.0], p=[0.3], weights=[1.0, 2.0],
                                options=options)
    r = esdirk.ShootingInterval(problem, options).integrate(0.0, 0.5, [1.0, 0.0], [0.3])
    w = np.array([1.0, 2.0])
    assert g["dx0"] == pytest.approx(w @ r["A"], rel=1e-8)
    assert g["dp"] == pytest.approx(w @ r["B"], rel=1e-8)
    assert g["steps"] > 0


def test_adjoint_gradient_with_a_python_terminal_term_and_running_cost():
    problem = vdp_problem()
    options = esdirk.Options(rtol=1e-9, atol=1e-11)
    g = esdirk.adjoint_gradient(
        problem, (0.0, 0.5), [1.0, 0.0], p=[0.3], options=options,
        terminal=lambda t, x, z, p: ([2.0 * x[0], 0.0], None, None),
        running=lambda t, x, z, p: ([2.0 * x[0], 0.0], None, [2.0 * p[0]]))

    def phi(x0, u):
        cost = lambda t, x, z, uu: (x[0] * x[0] + uu[0] * uu[0], [2 * x[0], 0.0], [], [2 * uu[0]])
        r = esdirk.ShootingInterval(problem, esdirk.Options(rtol=1e-11, atol=1e-13),
                                    running_cost=cost).integrate(0.0, 0.5, x0, [u])
        return r["x"][0] ** 2 + r["H"]
    eps = 1e-6
    fd = (phi([1.0 + eps, 0.0], 0.3) - phi([1.0 - eps, 0.0], 0.3)) / (2 * eps)
    fd_p = (phi([1.0, 0.0], 0.3 + eps) - phi([1.0, 0.0], 0.3 - eps)) / (2 * eps)
    assert g["dx0"][0] == pytest.approx(fd, rel=1e-6)
    assert g["dp"][0] == pytest.approx(fd_p, rel=1e-6)


@pytest.mark.parametrize("compiled", [False, True])
def test_interval_evaluator_threads_give_the_serial_bits(compiled):
    c = models.compiled("van_der_pol")
    problem = (esdirk.Problem(2, 0, 1, c["f"], jac=c["jac"]) if compiled else
               esdirk.Problem(2, 0, 1, lambda t, x, z, p: models.van_der_pol(t, x, p[0]),
                              jac=lambda t, x, z, p: models.van_der_pol_jac(t, x, p[0])))
    N = 6
    t = np.linspace(0.0, 3.0, N + 1)
    x = np.column_stack([np.linspace(2.0, -1.0, N), np.linspace(0.0, 1.0, N)])
    u = np.full((N, 1), 5.0)
    options = esdirk.Options(rtol=1e-7, atol=1e-9)
    serial = esdirk.IntervalEvaluator(problem, N, options, threads=1).evaluate(t[:-1], t[1:], x, u)
    parallel = esdirk.IntervalEvaluator(problem, N, options, threads=3).evaluate(t[:-1], t[1:], x, u)
    assert serial["ok"] and parallel["ok"]
    for key in ("x", "A", "B"):
        assert np.array_equal(serial[key], parallel[key])
    assert serial["A"].shape == (N, 2, 2) and serial["B"].shape == (N, 2, 1)


def test_interval_evaluator_reports_a_failed_interval_and_python_errors():
    def f(t, x, z, p):
        if p[0] < 0:
            raise ArithmeticError("negative control")
        return [x[1], -x[0] + p[0]]
    problem = esdirk.Problem(2, 0, 1, f)
    ev = esdirk.IntervalEvaluator(problem, 3, threads=2)
    x = np.ones((3, 2))
    with pytest.raises(ArithmeticError, match="negative control"):
        ev.evaluate([0, 1, 2], [1, 2, 3], x, [[1.0], [-1.0], [1.0]])
    out = ev.evaluate([0, 1, 2], [1, 2, 3], x, [[1.0], [1.0], [1.0]])  # still usable
    assert out["ok"]
    with pytest.raises(ValueError, match=r"x must have shape \(3, 2\)"):
        ev.evaluate([0, 1, 2], [1, 2, 3], np.ones((2, 2)))


def test_estimation_recovers_the_rate_constant():
    theta_true = 0.7
    problem = esdirk.Problem(1, 0, 1, lambda t, x, z, p: [-p[0] * x[0]],
                             jac=lambda t, x, z, p: [[-p[0]]], jac_p=lambda t, x, z, p: [[-x[0]]])
    times = np.linspace(0.0, 2.0, 5)
    data = 2.0 * np.exp(-theta_true * times)
    r = esdirk.estimate(problem, [0], [{"times": times, "data": data[:, None],
                                        "nodes": np.full((5, 1), 1.0) * data[:, None] * 1.1,
                                        "initial_state_known": False}],
                        theta0=[0.3], options=esdirk.Options(rtol=1e-10, atol=1e-12), threads=2)
    assert r["converged"], r["message"]
    assert r["theta"][0] == pytest.approx(theta_true, rel=1e-7)
    assert r["covariance"].shape == (1, 1)


def test_hybrid_solver_python_error_keeps_the_solver_usable():
    state = {"fail": False}

    def events(mode, t, x, z, p):
        if state["fail"]:
            raise LookupError("event table")
        return [x[0]]

    problem = esdirk.HybridProblem(2, 0, 0, 1, f=lambda m, t, x, z, p: [x[1], -10.0], events=events,
                                   transition=lambda m, fired, t, x, z, p: (m, [x[0], -0.5 * x[1]]))
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-8, atol=1e-10))
    solver.initialize(0.0, 0, [5.0, 0.0])
    solver.integrate_to(0.5)
    state["fail"] = True
    with pytest.raises(LookupError, match="event table"):
        solver.integrate_to(1.5)
    state["fail"] = False
    solver.initialize(0.0, 0, [5.0, 0.0])
    solver.integrate_to(1.5)
    assert len(solver.events) == 1
    assert solver.events[0]["t"] == pytest.approx(1.0, rel=1e-9)
    assert solver.events[0]["x_plus"][1] == pytest.approx(5.0, rel=1e-7)


def test_structural_analysis_of_model_text():
    report = esdirk.analyse_model("model pendulum\nvariables x y lam\n"
                                  "equation e1: x'' x lam\nequation e2: y'' y lam\n"
                                  "equation e3: x y\n")
    assert report["well_posed"]
    assert "variable_offsets (d): x=2 y=2 lam=0" in report["text"]
    with pytest.raises(ValueError, match=r"<model>:2:"):
        esdirk.analyse_model("model m\nequation e1: q\n")


def test_statistics_is_a_dict_of_every_counter():
    problem = esdirk.Problem(1, 0, 0, lambda t, x, z, p: -x)
    solver = esdirk.Integrator(problem)
    solver.initialize(0.0, [1.0])
    solver.integrate_to(1.0)
    stats = solver.statistics
    assert list(stats) == esdirk.statistics_counters()
    assert stats["steps"] >= stats["accepted_steps"] > 0
    assert stats["fd_function_evaluations"] > 0  # no Jacobian given: differences


def test_hybrid_per_mode_lists_and_unknown_modes():
    # Two modes: falling freely (0) and sliding with friction (1); per-mode Python lists.
    problem = esdirk.HybridProblem(
        2, 0, 0, 1,
        f=[lambda t, x, z, p: [x[1], -10.0], lambda t, x, z, p: [x[1], -x[1]]],
        events=[lambda t, x, z, p: [x[0]], lambda t, x, z, p: [1.0]],
        transition=lambda mode, fired, t, x, z, p: (1, [0.0, 3.0]))
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-9, atol=1e-11))
    solver.initialize(0.0, 0, [5.0, 0.0])
    solver.integrate_to(2.0)
    assert solver.mode == 1
    t1 = 1.0  # the fall from 5 m ends at t = 1
    assert solver.x[1] == pytest.approx(3.0 * np.exp(-(2.0 - t1)), rel=1e-7)
    with pytest.raises(ValueError, match="mode"):
        solver.initialize(0.0, 2, [5.0, 0.0])  # the lists know modes 0 and 1
    bad = esdirk.HybridProblem(2, 0, 0, 1, f=[lambda t, x, z, p: [-1.0, 0.0]],
                               events=lambda m, t, x, z, p: [x[0]],
                               transition=lambda mode, fired, t, x, z, p: (5, list(x)))
    solver = esdirk.HybridSolver(bad)
    solver.initialize(0.0, 0, [1.0, -1.0])
    with pytest.raises(esdirk.SolverError, match="mode"):
        solver.integrate_to(5.0)
