"""esdirk.HybridAdjoint: gradients of an objective through events and jumps. On a thermostat
(two modes, a state-dependent event, nine switches on [0, 4], a running cost carried as a state)
the gradient is the C++ one to the last bit, the forward sensitivities' on the same run to
rounding, converges to the closed form with the tolerance and agrees with central differences of
whole runs; memory budgets give the same bits; a terminal event gives the total derivative; bad
input raises and leaves the recording usable."""

import math
import os
import re

import numpy as np
import pytest

import esdirk

P = [2.0, 1.0]            # (k, u): the rate and the heater's temperature
X0 = [0.2, 0.0]           # the temperature and the cost's integral
TIMES = [1.0, 2.5, 4.0]
HIGH, LOW = 0.7, 0.3      # the thermostat's switching temperatures


def thermostat_f(mode, t, x, z, p):
    u = p[1] if mode == 0 else 0.0
    d = x[0] - 0.5
    return [-p[0] * (x[0] - u), d * d]


def thermostat_jac(mode, t, x, z, p):
    return [[-p[0], 0.0], [2.0 * (x[0] - 0.5), 0.0]]


def thermostat_jac_p(mode, t, x, z, p):
    u = p[1] if mode == 0 else 0.0
    return [[-(x[0] - u), p[0] if mode == 0 else 0.0], [0.0, 0.0]]


def thermostat_events(mode, t, x, z, p):
    return [x[0] - (HIGH if mode == 0 else LOW)]


def switch(mode, fired, t, x, z, p):
    return 1 - mode, x


def thermostat():
    return esdirk.HybridProblem(2, 0, 2, 1, thermostat_f, jac=thermostat_jac,
                                jac_p=thermostat_jac_p, events=thermostat_events,
                                transition=switch)


def compiled_thermostat():
    """The same model as numba.cfunc callbacks, one per mode."""
    import numba
    signature = esdirk.numba_signature()

    def mode_callbacks(heating):
        @numba.cfunc(signature)
        def f(t, x, z, p, out):
            u = p[1] if heating else 0.0
            d = x[0] - 0.5
            out[0] = -p[0] * (x[0] - u)
            out[1] = d * d
            return 0

        @numba.cfunc(signature)
        def jac(t, x, z, p, J):  # column-major
            J[0] = -p[0]
            J[1] = 2.0 * (x[0] - 0.5)
            J[2] = 0.0
            J[3] = 0.0
            return 0

        @numba.cfunc(signature)
        def jac_p(t, x, z, p, Jp):
            u = p[1] if heating else 0.0
            Jp[0] = -(x[0] - u)
            Jp[1] = 0.0
            Jp[2] = p[0] if heating else 0.0
            Jp[3] = 0.0
            return 0

        @numba.cfunc(signature)
        def events(t, x, z, p, h):
            h[0] = x[0] - (HIGH if heating else LOW)
            return 0
        return f, jac, jac_p, events

    modes = [mode_callbacks(True), mode_callbacks(False)]
    f, jac, jac_p, events = (list(c) for c in zip(*modes))
    return esdirk.HybridProblem(2, 0, 2, 1, f, jac=jac, jac_p=jac_p, events=events,
                                transition=switch)


def record(problem, rtol=1e-8, atol=None, budget=0, sensitivities=False, x0=X0, p=P,
           times=TIMES, **options):
    """A HybridSolver run recorded by a HybridAdjoint: (solver, adjoint, [(x, Sx) per output])."""
    options = esdirk.Options(rtol=rtol, atol=rtol * 1e-2 if atol is None else atol, **options)
    solver = esdirk.HybridSolver(problem, options)
    adjoint = esdirk.HybridAdjoint(solver, memory_budget=budget)
    solver.initialize(0.0, 0, x0, p=p)
    if sensitivities:
        solver.initialize_sensitivities(stage_solve="factorization")
    outputs = []
    for t in times:
        adjoint.integrate_to(t)
        outputs.append((solver.x.copy(), None if solver.Sx is None else solver.Sx.copy()))
    return solver, adjoint, outputs


# The objective of the C++ reference run: row 0 = q(4) + sum_k t_k u^2 / 2 (a term depending on
# p explicitly), row 1 = x0(4) + sum_k x0(t_k).
WEIGHTS = [[0.0, 1.0], [1.0, 0.0]]


def at_output(k, t, x, z, p):
    return [[0.0, 1.0], [0.0, 0.0]], None, [[0.0, 0.0], [t * p[1], 0.0]]


def objective_gradient(adjoint, **kw):
    g = adjoint.gradient(weights=WEIGHTS, at_output=at_output, **kw)
    return np.vstack([g["dx0"], g["dp"]]), g


@pytest.fixture(scope="module")
def cpp(cpp_runs):
    return cpp_runs["thermostat_adjoint"]


@pytest.mark.parametrize("route", ["python", "numba"])
def test_gradient_is_the_cpp_gradient_to_the_last_bit(cpp, route):
    """The same model arithmetic, the same library code: the binding only copies numbers."""
    problem = thermostat() if route == "python" else compiled_thermostat()
    solver, adjoint, outputs = record(problem, rtol=1e-8, atol=1e-10)
    for k, (x, _) in enumerate(outputs):
        assert np.array_equal(x, cpp["x"][k])
    assert np.array_equal([e["t"] for e in solver.events], cpp["events"][0])
    assert len(solver.events) == 9
    G, g = objective_gradient(adjoint)
    assert np.array_equal(g["dx0"].reshape(-1), cpp["dx0"][0])
    assert np.array_equal(g["dp"].reshape(-1), cpp["dp"][0])
    r = g["report"]
    assert [r["adjoint_steps"], r["transposed_solves"], r["segments"], r["jumps"],
            r["objective_evaluations"], r["recorded_steps"]] == cpp["counts"]
    assert r["recorded_outputs"] == 3 and r["segments"] == 10 and r["jumps"] == 9


def test_report_has_the_c_api_counters_and_statistics_the_sweep():
    _, adjoint, _ = record(thermostat())
    _, g = objective_gradient(adjoint)
    assert list(g["report"]) == [
        "adjoint_steps", "transposed_solves", "stage_factorizations", "jacobian_evaluations",
        "parameter_jacobian_evaluations", "objective_evaluations", "segments", "jumps",
        "peak_stored_doubles", "recorded_steps", "recorded_outputs", "checkpoints",
        "recomputed_steps", "stored_records"]
    r, s = g["report"], g["statistics"]
    assert r["adjoint_steps"] == r["recorded_steps"] == adjoint.steps > 0
    assert s["adjoint_steps"] == r["adjoint_steps"]
    assert s["adjoint_transposed_solves"] == r["transposed_solves"]
    assert s["adjoint_factorizations"] == r["stage_factorizations"]
    assert r["checkpoints"] == r["recomputed_steps"] == 0
    assert adjoint.report == r and adjoint.outputs == 3 and adjoint.segments == 10
    assert np.array_equal(adjoint.output_times, TIMES)


def forward_gradient(outputs):
    """The objective's gradient from the forward sensitivities of the same run, (4, 2)."""
    G = np.zeros((4, 2))
    G[:, 0] = outputs[-1][1][1]
    G[:, 1] = outputs[-1][1][0]
    for (x, Sx), t in zip(outputs, TIMES):
        G[3, 0] += t * P[1]
        G[:, 1] += Sx[0]
    return G


@pytest.mark.parametrize("rtol", [1e-6, 1e-9])
def test_gradient_equals_the_forward_sensitivities_on_the_same_run(rtol):
    """Both differentiate the same steps and events; only rounding differs."""
    _, adjoint, outputs = record(thermostat(), rtol=rtol, sensitivities=True)
    G, _ = objective_gradient(adjoint)
    F = forward_gradient(outputs)
    error = np.abs(G - F).max(axis=0) / np.abs(F).max(axis=0)
    assert error.max() < 1e-12, error


def closed_form(x0, q0, k, u, times):
    """x0 and q at `times`: the exponentials of each mode, switched where they cross."""
    out, t, x, q, mode = [], 0.0, x0, q0, 0
    for tout in times:
        while True:
            target = u if mode == 0 else 0.0
            c = x - target
            s_event = math.log(c / ((HIGH if mode == 0 else LOW) - target)) / k
            s = min(s_event, tout - t)
            e = math.exp(-k * s)
            a = target - 0.5
            q += a * a * s + 2.0 * a * c * (1.0 - e) / k + c * c * (1.0 - e * e) / (2.0 * k)
            x, t = target + c * e, t + s
            if s < s_event:
                break
            mode = 1 - mode
        out.append((x, q))
    return out


def closed_form_objective(theta):
    x0, q0, k, u = theta
    values = closed_form(x0, q0, k, u, TIMES)
    return np.array([values[-1][1] + sum(t * u * u / 2.0 for t in TIMES),
                     values[-1][0] + sum(v[0] for v in values)])


def central_differences(objective, theta, relative_step):
    G = np.zeros((len(theta), 2))
    for i in range(len(theta)):
        step = relative_step * max(abs(theta[i]), 1.0)
        plus, minus = list(theta), list(theta)
        plus[i] += step
        minus[i] -= step
        G[i] = (objective(plus) - objective(minus)) / (2.0 * step)
    return G


def relative_errors(G, reference):
    return np.abs(G - reference).max(axis=0) / np.abs(reference).max(axis=0)


def closed_form_gradient():
    """The closed form's gradient: central differences of the closed form (smooth in theta),
    Richardson-extrapolated from steps 1e-3 and 5e-4 (error O(step^4), about 1e-11 here)."""
    def differences(step):
        return central_differences(closed_form_objective, X0 + P, step)
    return (4.0 * differences(5e-4) - differences(1e-3)) / 3.0


def test_gradient_converges_to_the_closed_form():
    """The gradient of the computed solution tends to the exact one as the tolerance falls
    (measured 1.0e-6, 1.5e-8, 2.1e-10 at rtol 1e-5, 1e-7, 1e-9)."""
    exact = closed_form_gradient()
    previous = math.inf
    for rtol in [1e-5, 1e-7, 1e-9]:
        _, adjoint, _ = record(thermostat(), rtol=rtol)
        G, _ = objective_gradient(adjoint)
        error = relative_errors(G, exact).max()
        assert error < 1e3 * rtol, (rtol, error)
        assert error < previous / 10.0
        previous = error


def test_central_differences_of_the_closed_form_approach_the_gradient_at_second_order():
    """Against the adjoint gradient at rtol 1e-11 (2e-10 from the closed form's), central
    differences of the closed form with steps 1e-2, 1e-3, 1e-4 err by 4.6e-3, 4.6e-5, 4.6e-7:
    the differences' own order 2, down to 1e-4 of the step's error."""
    _, adjoint, _ = record(thermostat(), rtol=1e-11)
    G, _ = objective_gradient(adjoint)
    errors = [relative_errors(central_differences(closed_form_objective, X0 + P, step), G).max()
              for step in [1e-2, 1e-3, 1e-4]]
    for coarse, fine in zip(errors, errors[1:]):
        assert 1.9 < math.log10(coarse / fine) < 2.1, errors


def test_gradient_agrees_with_central_differences_of_whole_runs():
    """Central differences of whole runs at rtol 1e-10 (every switch re-located in each run);
    their error is the step's O(1e-8) relative plus the runs' own error over the step."""
    _, adjoint, _ = record(thermostat(), rtol=1e-10)
    G, _ = objective_gradient(adjoint)

    def objective(theta):
        _, _, outputs = record(thermostat(), rtol=1e-10, x0=theta[:2], p=theta[2:])
        x = [o[0] for o in outputs]
        return np.array([x[-1][1] + sum(t * theta[3] ** 2 / 2.0 for t in TIMES),
                         x[-1][0] + sum(v[0] for v in x)])

    fd = central_differences(objective, X0 + P, 1e-4)
    assert relative_errors(G, fd).max() < 1e-6


def record_size():
    """The doubles of one step record, as the refused budget's message names them."""
    solver = esdirk.HybridSolver(thermostat(), esdirk.Options(rtol=1e-8, atol=1e-10))
    with pytest.raises(ValueError, match=r"cannot hold one step record") as refused:
        esdirk.HybridAdjoint(solver, memory_budget=1)
    return int(re.search(r"\((\d+) doubles\)", str(refused.value)).group(1))


def test_memory_budgets_give_the_same_bits():
    size = record_size()
    _, adjoint, _ = record(thermostat(), budget=0)
    reference, g = objective_gradient(adjoint)
    kept = g["report"]
    for records in [1, 3, 16, 10 ** 6]:
        _, adjoint, _ = record(thermostat(), budget=records * size)
        G, g = objective_gradient(adjoint)
        assert np.array_equal(G, reference), records
        r = g["report"]
        assert adjoint.memory_budget == records * size
        assert r["stored_records"] == min(records, kept["recorded_steps"])
        assert r["checkpoints"] >= 10  # at least one block per mode
        if records < 16:
            assert r["recomputed_steps"] > 0
            assert r["peak_stored_doubles"] < kept["peak_stored_doubles"]
        # A second sweep (another objective) on the same recording: the same bits again.
        assert np.array_equal(objective_gradient(adjoint)[0], reference)


def test_a_refused_budget_leaves_the_solver_usable():
    solver = esdirk.HybridSolver(thermostat(), esdirk.Options(rtol=1e-8, atol=1e-8 * 1e-2))
    with pytest.raises(ValueError, match="memory_budget"):
        esdirk.HybridAdjoint(solver, memory_budget=-1)
    with pytest.raises(ValueError, match="cannot hold one step record"):
        esdirk.HybridAdjoint(solver, memory_budget=1)
    adjoint = esdirk.HybridAdjoint(solver)
    solver.initialize(0.0, 0, X0, p=P)
    for t in TIMES:
        adjoint.integrate_to(t)
    _, fresh, _ = record(thermostat())
    assert np.array_equal(objective_gradient(adjoint)[0], objective_gradient(fresh)[0])


def test_terminal_event_gives_the_total_derivative():
    """The ball stopped at its impact, C = v(t*): dC/d(z0, v0, g, gamma) = (-g, -v0, -z0, 0) / S
    with S = sqrt(v0^2 + 2 g z0) (the adjoint guide's Schaefer 2021 example)."""
    problem = esdirk.HybridProblem(
        2, 0, 2, 1, f=lambda mode, t, x, z, p: [x[1], -p[0]],
        jac=lambda mode, t, x, z, p: [[0.0, 1.0], [0.0, 0.0]],
        jac_p=lambda mode, t, x, z, p: [[0.0, 0.0], [-1.0, 0.0]],
        events=lambda mode, t, x, z, p: [x[0]],
        transition=lambda mode, fired, t, x, z, p: (mode, [x[0], -p[1] * x[1]]))
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-8, atol=1e-10), terminal=[True])
    adjoint = esdirk.HybridAdjoint(solver)
    z0, v0, g, gamma = 5.0, -0.1, 10.0, 0.8
    solver.initialize(0.0, 0, [z0, v0], p=[g, gamma])
    assert adjoint.integrate_to(1.9) == "listener_stop"
    r = adjoint.gradient(weights=[0.0, 1.0])
    S = math.sqrt(v0 * v0 + 2.0 * g * z0)
    assert np.allclose(np.concatenate([r["dx0"], r["dp"]]), [-g / S, -v0 / S, -z0 / S, 0.0],
                       rtol=0.0, atol=1e-10)
    assert round(r["dx0"][0], 5) == -0.99995


def test_terminal_callback_and_several_rows():
    """A terminal gradient function with rows=2 gives the weights' gradient."""
    _, adjoint, _ = record(thermostat())
    by_weights = adjoint.gradient(weights=WEIGHTS)
    by_function = adjoint.gradient(
        terminal=lambda t, x, z, p: (np.array(WEIGHTS), None, None), rows=2)
    assert np.array_equal(by_weights["dx0"], by_function["dx0"])
    assert np.array_equal(by_weights["dp"], by_function["dp"])
    one_row = adjoint.gradient(weights=[1.0, 0.0])
    assert one_row["dx0"].shape == (2,) and np.array_equal(one_row["dx0"],
                                                           by_weights["dx0"][:, 1])


def test_without_jumps_the_gradient_is_that_of_a_run_without_jumps():
    _, adjoint, outputs = record(thermostat(), sensitivities=True)
    solver = esdirk.HybridSolver(thermostat(), esdirk.Options(rtol=1e-8, atol=1e-10))
    no_jumps = esdirk.HybridAdjoint(solver, jumps=False)
    solver.initialize(0.0, 0, X0, p=P)
    for t in TIMES:
        no_jumps.integrate_to(t)
    G, _ = objective_gradient(no_jumps)
    assert no_jumps.report["jumps"] == 0
    assert relative_errors(G, forward_gradient(outputs)).max() > 1e-2


def test_misuse_raises_naming_the_cause():
    solver = esdirk.HybridSolver(thermostat(), esdirk.Options(rtol=1e-8, atol=1e-10))
    adjoint = esdirk.HybridAdjoint(solver)
    with pytest.raises(RuntimeError, match="no recorded output"):
        adjoint.gradient(weights=[1.0, 0.0])
    solver.initialize(0.0, 0, X0, p=P)
    late = esdirk.HybridAdjoint(solver)  # did not see the run start
    late.integrate_to(1.0)
    with pytest.raises(RuntimeError, match="no recorded output"):
        late.gradient(weights=[1.0, 0.0])


def test_bad_objectives_raise_and_the_recording_stays_usable():
    _, adjoint, _ = record(thermostat())
    reference, _ = objective_gradient(adjoint)
    with pytest.raises(ValueError, match="no term"):
        adjoint.gradient()
    with pytest.raises(ValueError, match="weights"):
        adjoint.gradient(weights=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="running"):
        adjoint.gradient(weights=[1.0, 0.0], running=lambda t, x, z, p: (x, None, None))
    with pytest.raises(ValueError, match="not both"):
        adjoint.gradient(weights=[1.0, 0.0], terminal=lambda t, x, z, p: ([1.0, 0.0], None, None))
    with pytest.raises(TypeError, match="at_output"):
        adjoint.gradient(at_output=[1.0, 0.0])
    with pytest.raises(ValueError, match="at_output"):
        adjoint.gradient(at_output=lambda k, t, x, z, p: ([1.0, 0.0, 0.0], None, None))
    with pytest.raises(ValueError, match="at_output must return"):
        adjoint.gradient(at_output=lambda k, t, x, z, p: [1.0, 0.0])
    with pytest.raises(TypeError, match="at_output must return a tuple .* got float"):
        adjoint.gradient(at_output=lambda k, t, x, z, p: 1.0)

    def nan_at_first_output(k, t, x, z, p):
        return [math.nan if k == 0 else 1.0, 0.0], None, None
    with pytest.raises(esdirk.SolverError, match="output 0") as failed:
        adjoint.gradient(at_output=nan_at_first_output)
    assert failed.value.status_name == "callback_failures"
    assert "not finite" in str(failed.value)

    def raising(k, t, x, z, p):
        raise ZeroDivisionError("in the objective")
    with pytest.raises(ZeroDivisionError, match="in the objective"):
        adjoint.gradient(at_output=raising)
    # Nothing lost: the same bits as before.
    assert np.array_equal(objective_gradient(adjoint)[0], reference)


def test_a_failed_run_refuses_the_gradient_until_initialized_again():
    """A model that returns NaN past t = 1.5 ends the run; the recording is incomplete."""
    def failing_f(mode, t, x, z, p):
        return [math.nan, math.nan] if t > 1.5 else thermostat_f(mode, t, x, z, p)
    problem = esdirk.HybridProblem(2, 0, 2, 1, failing_f, jac=thermostat_jac,
                                   jac_p=thermostat_jac_p, events=thermostat_events,
                                   transition=switch)
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-8, atol=1e-10, max_step=0.1))
    adjoint = esdirk.HybridAdjoint(solver)
    solver.initialize(0.0, 0, X0, p=P)
    adjoint.integrate_to(1.0)
    with pytest.raises(esdirk.SolverError):
        adjoint.integrate_to(2.5)
    assert solver.t <= 1.5
    with pytest.raises(RuntimeError, match="failed"):
        adjoint.gradient(weights=[1.0, 0.0])
    solver.initialize(0.0, 0, X0, p=P)
    adjoint.integrate_to(1.0)
    _, fresh, _ = record(thermostat(), atol=1e-10, times=[1.0], max_step=0.1)
    for a, b in [(adjoint, fresh)]:
        assert np.array_equal(objective_gradient(a)[0], objective_gradient(b)[0])


def test_gmres_gives_the_klu_gradient_on_a_heated_rod():
    """The sweep's transposed stage solves on GMRES (ILU(0)) against KLU on the heated rod of
    test_hybrid_krylov.py (32 cells, 2 switches): within the Krylov comparisons' bound,
    10 rtol + 1000 sensitivity_tolerance of the largest entry."""
    cells = 32

    def rod(mode, t, x, z, p):
        padded = np.concatenate(([p[1] if mode == 0 else 0.0], x, [0.0]))
        return p[0] * (cells + 1.0) ** 2 * (padded[:-2] - 2.0 * x + padded[2:]) - 0.5 * x * x

    def middle(mode, t, x, z, p):
        return [x[cells // 2] - (0.3 if mode == 0 else 0.1)]
    rows = [i for j in range(cells) for i in (j - 1, j, j + 1) if 0 <= i < cells]
    cols = [j for j in range(cells) for i in (j - 1, j, j + 1) if 0 <= i < cells]
    gradients = {}
    for kind in ["sparse", "krylov"]:
        problem = esdirk.HybridProblem(cells, 0, 2, 1, rod, events=middle, transition=switch)
        problem.set_jacobian_pattern(rows, cols, kind)
        if kind == "krylov":
            problem.set_krylov_settings(dimension=16)
        solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-6, atol=1e-6))
        adjoint = esdirk.HybridAdjoint(solver)
        solver.initialize(0.0, 0, np.zeros(cells), p=[0.05, 1.0])
        adjoint.integrate_to(12.0)
        g = adjoint.gradient(weights=np.full(cells, 1.0 / cells))
        assert len(solver.events) == 2 and g["report"]["jumps"] == 2
        assert (g["statistics"]["linear_iterations"] > 0) == (kind == "krylov")
        gradients[kind] = np.concatenate([g["dx0"], g["dp"]])
    error = np.abs(gradients["krylov"] - gradients["sparse"]).max()
    assert error < (10 * 1e-6 + 1000 * 1e-10) * np.abs(gradients["sparse"]).max()


def test_the_adjoint_keeps_its_solver_alive_and_a_dropped_adjoint_detaches():
    import gc
    solver = esdirk.HybridSolver(thermostat(), esdirk.Options(rtol=1e-8, atol=1e-10))
    adjoint = esdirk.HybridAdjoint(solver)
    solver.initialize(0.0, 0, X0, p=P)
    del solver
    gc.collect()
    for t in TIMES:
        adjoint.integrate_to(t)
    _, fresh, _ = record(thermostat())
    assert np.array_equal(objective_gradient(adjoint)[0], objective_gradient(fresh)[0])
    # A solver whose adjoint is gone runs on (its statistics without a sweep).
    solver = esdirk.HybridSolver(thermostat(), esdirk.Options(rtol=1e-8, atol=1e-10))
    dropped = esdirk.HybridAdjoint(solver)
    del dropped
    gc.collect()
    solver.initialize(0.0, 0, X0, p=P)
    solver.integrate_to(4.0)
    assert solver.statistics["adjoint_steps"] == 0 and len(solver.events) == 9


def test_options_the_adjoint_cannot_run_with_are_refused():
    solver = esdirk.HybridSolver(thermostat(), esdirk.Options(reuse_jacobian=True))
    with pytest.raises(ValueError, match="reuse_jacobian"):
        esdirk.HybridAdjoint(solver)
    problem = esdirk.HybridProblem(2, 0, 2, 1, thermostat_f, events=thermostat_events,
                                   transition=switch)
    problem.set_jacobian_pattern([0, 1, 0, 1], [0, 0, 1, 1], "krylov")
    problem.set_krylov_settings(dimension=2, matrix_free=True)
    with pytest.raises(ValueError, match="matrix_free"):
        esdirk.HybridAdjoint(esdirk.HybridSolver(problem))


def forward_and_adjoint(problem, x0, p, times, objective_terms, z0=None, **solver_options):
    """One run with exact-mode forward sensitivities, recorded by an adjoint; the objective
    sum_k C_k at the outputs, its gradient both ways: (adjoint, forward), each (nx + np,)."""
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-9, atol=1e-12), **solver_options)
    adjoint = esdirk.HybridAdjoint(solver)
    solver.initialize(0.0, 0, x0, z0, p)
    solver.initialize_sensitivities(stage_solve="factorization")
    forward = 0.0
    states = []
    for t in times:
        adjoint.integrate_to(t)
        states.append((solver.x.copy(), solver.z.copy(), solver.p.copy()))
        dx, dz, dp = objective_terms(solver.x, solver.z, solver.p)
        forward = forward + dx @ solver.Sx + dz @ solver.Sz + dp @ solver.Sp

    def at_output(k, t, x, z, p):
        assert np.array_equal(x, states[k][0]) and np.array_equal(p, states[k][2])
        return objective_terms(x, z, p)
    g = adjoint.gradient(at_output=at_output)
    return np.concatenate([g["dx0"], g["dp"]]), forward, solver, g


def test_parameter_resets_and_an_initial_event_adjoint_equals_forward():
    """The gain switch of test_same_as_cpp.py (k := 2 k where x falls to 1/2, and an initial
    event x := 3/2, k := k + 1): the terms receive the output's mode's p, the gradient's dp is
    with respect to the p of initialize. C_k = p x(t_k) + x(t_k)^2."""
    problem = esdirk.HybridProblem(
        1, 0, 1, 2, f=lambda mode, t, x, z, p: [-p[0] * x[0]],
        events=lambda mode, t, x, z, p: [x[0] - 0.5, x[0] - 2.0],
        transition=lambda mode, fired, t, x, z, p: (mode, [1.5] if fired[1] else list(x)),
        parameter_reset=lambda mode, fired, t, x, z, p: [p[0] + 1.0] if fired[1] else [2.0 * p[0]])
    G, F, solver, g = forward_and_adjoint(
        problem, [2.5], [1.0], [0.5, 1.0, 2.0],
        lambda x, z, p: (np.array([p[0] + 2.0 * x[0]]), np.zeros(0), np.array([x[0]])),
        directions=[-1, 1], initial_events=[False, True])
    assert [e["initial"] for e in solver.events] == [True, False]
    assert solver.p[0] == 4.0 and g["report"]["jumps"] == 2
    assert np.abs(G - F).max() < 1e-12 * np.abs(F).max(), (G, F)


def test_dae_mode_switch_adjoint_equals_forward():
    """x' = -z, 0 = z - c x with c = p0 before x falls to 1/2 and p1 after (z re-initialized at
    the switch); C_k = x(t_k) + 3 z(t_k): the z terms and dz0/dx0 go through the sweep."""
    problem = esdirk.HybridProblem(
        1, 1, 2, 1, f=lambda mode, t, x, z, p: [-z[0]],
        g=lambda mode, t, x, z, p: [z[0] - p[mode] * x[0]],
        events=lambda mode, t, x, z, p: [x[0] - 0.5],
        transition=lambda mode, fired, t, x, z, p: (1, list(x)) if mode == 0 else None)
    G, F, solver, g = forward_and_adjoint(
        problem, [1.0], [0.8, 2.0], [0.5, 1.0, 1.5],
        lambda x, z, p: (np.array([1.0]), np.array([3.0]), np.zeros(2)), z0=[0.8])
    assert len(solver.events) == 1 and solver.mode == 1
    assert np.abs(G - F).max() < 1e-12 * np.abs(F).max(), (G, F)


def test_a_compiled_model_runs_without_the_gil_in_the_recording_and_the_sweep():
    """x' = -x (compiled: a probe counting its calls made with the GIL held), an event where x
    falls to 1/2 whose transition changes nothing (Python): the library forms J by differences
    of the compiled f in the sweep too; only the Python callbacks take the GIL."""
    import ctypes
    lib = ctypes.CDLL(os.environ["ESDIRK_TEST_MODELS"])
    probe = lib.gil_probe_f
    pointer = ctypes.POINTER(ctypes.c_double)
    probe.restype = ctypes.c_int
    probe.argtypes = [ctypes.c_double, pointer, pointer, pointer, pointer]
    count = lib.gil_probe_count
    count.restype = ctypes.c_int
    problem = esdirk.HybridProblem(1, 0, 0, 1, [probe],
                                   events=lambda mode, t, x, z, p: [x[0] - 0.5],
                                   transition=lambda mode, fired, t, x, z, p: None)
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-10, atol=1e-12))
    adjoint = esdirk.HybridAdjoint(solver)
    before = count()
    solver.initialize(0.0, 0, [1.0])
    adjoint.integrate_to(2.0)
    g = adjoint.gradient(at_output=lambda k, t, x, z, p: ([1.0], None, None))
    assert len(solver.events) == 1 and g["report"]["jacobian_evaluations"] > 0
    assert solver.statistics["fd_function_evaluations"] > 0
    assert count() == before  # no call of f held the GIL
    assert abs(g["dx0"][0] - math.exp(-2.0)) < 1e-8
