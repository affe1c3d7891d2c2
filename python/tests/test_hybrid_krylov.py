"""Large hybrid problems from Python: HybridProblem's Jacobian structure (bandwidths, a pattern
with its back-end, the Krylov settings, sparse_jac) against the C++ facade's rules, and
solve_ivp's event path, which keeps the structure of the problem without events.

The model is the C++ tests' thermostat on a heated rod (tests/events/test_krylov_hybrid_adjoint.cpp):
x_i' = c (x_{i-1} - 2 x_i + x_{i+1}) - x_i^2 / 2 on 32 cells, c = D (N + 1)^2, the left end held
at s while heating (mode 0) and at 0 while cooling (mode 1); heating ends when the middle cell
rises through 0.3, cooling when it falls through 0.1. Parameters (D, s); J is tridiagonal."""

import numba
import numpy as np
import pytest
import scipy.linalg
import scipy.sparse

import esdirk

CELLS = 32
SENSOR = CELLS // 2
P = np.array([0.05, 1.0])
T_END = 12.0
RTOL = 1e-6


def rod(mode, t, x, z, p):
    c = p[0] * (CELLS + 1.0) ** 2
    left = p[1] if mode == 0 else 0.0
    padded = np.concatenate(([left], x, [0.0]))
    return c * (padded[:-2] - 2.0 * x + padded[2:]) - 0.5 * x * x


def thermostat(mode, t, x, z, p):
    return [x[SENSOR] - (0.3 if mode == 0 else 0.1)]


def switch(mode, fired, t, x, z, p):
    return 1 - mode, x


def rod_jacobian(mode, t, x, z, p):
    """J on the tridiagonal pattern, as a scipy.sparse matrix."""
    c = p[0] * (CELLS + 1.0) ** 2
    off = np.full(CELLS - 1, c)
    return scipy.sparse.diags([off, -2.0 * c - x, off], [-1, 0, 1], format="csc")


def tridiagonal():
    rows = [i for j in range(CELLS) for i in (j - 1, j, j + 1) if 0 <= i < CELLS]
    cols = [j for j in range(CELLS) for i in (j - 1, j, j + 1) if 0 <= i < CELLS]
    return rows, cols


def make_rod(solver=None, sparse_jac=None, **krylov):
    problem = esdirk.HybridProblem(CELLS, 0, 2, 1, rod, events=thermostat, transition=switch,
                                   sparse_jac=sparse_jac)
    if solver is not None:
        problem.set_jacobian_pattern(*tridiagonal(), solver)
    if krylov:
        problem.set_krylov_settings(**krylov)
    return problem


def run(problem, sensitivities=False, rtol=RTOL):
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=rtol, atol=rtol))
    solver.initialize(0.0, 0, np.zeros(CELLS), p=P)
    if sensitivities:
        solver.initialize_sensitivities()
    assert solver.integrate_to(T_END) == "reached_output_time"
    return solver


def relative(a, b):
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.fixture(scope="module")
def klu():
    return run(make_rod("sparse"), sensitivities=True)


@pytest.mark.parametrize("preconditioner", ["ilu0", "block_jacobi"])
def test_hybrid_krylov_run_equals_the_klu_run(klu, preconditioner):
    # The bounds of the C++ hybrid Krylov-against-KLU comparison
    # (krylov_hybrid_adjoint_equals_the_klu_hybrid_adjoint): the states within rtol, the
    # sensitivities within 10 rtol + 1000 sensitivity_tolerance, relative to the largest entry
    # (the sensitivities' GMRES stage solves stop at 1e-10 relative residual, times M's
    # condition). ILU(0) of a tridiagonal M is its exact LU (one GMRES iteration per solve);
    # block-Jacobi over single cells makes GMRES iterate. Measured: states 8.5e-15 / 4.2e-8,
    # sensitivities 1.2e-9 / 3.7e-6 (ilu0 / block_jacobi).
    krylov = run(make_rod("krylov", preconditioner=preconditioner), sensitivities=True)
    assert krylov.event_count == klu.event_count == 2
    for mine, theirs in zip(krylov.events, klu.events):
        assert abs(mine["t"] - theirs["t"]) <= 10 * RTOL * T_END
    assert relative(krylov.x, klu.x) <= RTOL
    assert relative(krylov.Sx, klu.Sx) <= 10 * RTOL + 1000 * 1e-10
    stats, direct = krylov.statistics, klu.statistics
    assert stats["linear_iterations"] > 0 and stats["preconditioner_setups"] > 0
    assert stats["preconditioner_solves"] > 0 and stats["linear_solver_failures"] == 0
    assert direct["linear_iterations"] == 0 and direct["preconditioner_setups"] == 0
    # The declared structure is the problem's: read back as declared.
    problem = make_rod("krylov", dimension=16)
    assert problem.linear_solver == "krylov"
    assert problem.krylov_settings["dimension"] == 16
    indptr, indices = problem.jacobian_pattern
    assert len(indptr) == CELLS + 1 and len(indices) == 3 * CELLS - 2
    assert problem.jacobian_bandwidths == (1, 1)


def test_hybrid_krylov_settings_reach_the_run():
    # Block-Jacobi over single cells (Jacobi) keeps none of the couplings ILU(0) keeps: more
    # GMRES iterations for the same answer; the states-only run never uses
    # tolerance_with_derivatives (the same bits).
    ilu = run(make_rod("krylov"))
    jacobi = run(make_rod("krylov", preconditioner="block_jacobi"))
    assert relative(jacobi.x, ilu.x) <= RTOL
    assert jacobi.statistics["linear_iterations"] > ilu.statistics["linear_iterations"]
    same = run(make_rod("krylov", tolerance_with_derivatives=0.5))
    assert np.array_equal(same.x, ilu.x)
    # Matrix-free: J v by differences of f (one evaluation per product), the same states; the
    # sensitivities refuse it, naming the setting.
    free = run(make_rod("krylov", matrix_free=True))
    assert relative(free.x, ilu.x) <= RTOL
    stats = free.statistics
    assert stats["fd_function_evaluations"] >= stats["jacobian_vector_products"] > 0
    solver = esdirk.HybridSolver(make_rod("krylov", matrix_free=True))
    solver.initialize(0.0, 0, np.zeros(CELLS), p=P)
    with pytest.raises(ValueError, match="matrix_free"):
        solver.initialize_sensitivities()
    # A sensitivity_tolerance no GMRES solve reaches fails the sensitivities' stage solves,
    # naming GMRES and the setting, with the solver's last good state kept, as the linear
    # solver's failure (it was reported as callback_failures).
    problem = make_rod("krylov", sensitivity_tolerance=1e-300)
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=RTOL, atol=RTOL))
    solver.initialize(0.0, 0, np.zeros(CELLS), p=P)
    solver.initialize_sensitivities()
    with pytest.raises(esdirk.SolverError, match="GMRES did not solve the stage sensitivities to "
                                                 "KrylovSettings::sensitivity_tolerance") as error:
        solver.integrate_to(T_END)
    assert error.value.status_name == "linear_solver_failures"


def test_hybrid_bad_structure_and_settings_are_refused_with_the_libraries_words():
    problem = make_rod("krylov", dimension=8)
    for settings, words in (
            ({"max_restarts": 2**31 - 1}, r"max_restarts must be <= 1000 \(got 2147483647, n = 32\)"),
            ({"dimension": CELLS + 1}, r"the Krylov dimension must be in \[1, n\] \(got 33, n = 32\)"),
            ({"dimension": 0}, r"the Krylov dimension must be in \[1, n\] \(got 0, n = 32\)"),
            ({"dimension": -1}, r"the Krylov dimension must be in \[1, n\] \(got -1, n = 32\)"),
            ({"tolerance": 1.0}, r"tolerance must be in \(0, 1\)"),
            ({"block_size": 0}, r"block size must be in \[1, n\] \(got 0, n = 32\)"),
            ({"preconditioner": "jacobi"}, "preconditioner must be 'ilu0' or 'block_jacobi', got 'jacobi'")):
        with pytest.raises(ValueError, match=words):
            problem.set_krylov_settings(**settings)
    assert problem.krylov_settings == make_rod("krylov", dimension=8).krylov_settings
    with pytest.raises(ValueError, match="solver must be 'sparse', 'banded', 'dense' or 'krylov', got 'gmres'"):
        problem.set_jacobian_pattern(*tridiagonal(), "gmres")
    with pytest.raises(ValueError, match="row"):
        problem.set_jacobian_pattern([CELLS], [0], "krylov")
    with pytest.raises(ValueError):
        problem.set_jacobian_bandwidths(-1, 1)
    with pytest.raises(ValueError):
        problem.set_jacobian_bandwidths(1, CELLS)
    # Every refusal kept the structure.
    assert problem.linear_solver == "krylov" and problem.krylov_settings["dimension"] == 8
    problem.clear_jacobian_structure()
    assert problem.linear_solver == "dense" and problem.jacobian_pattern is None
    with pytest.raises(ValueError, match="not both"):
        esdirk.HybridProblem(CELLS, 0, 2, 1, rod, events=thermostat, jac=lambda *a: None,
                             sparse_jac=rod_jacobian)


def test_hybrid_structure_is_read_when_the_solver_is_made(klu):
    problem = make_rod()
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=RTOL, atol=RTOL))
    problem.set_jacobian_pattern(*tridiagonal(), "krylov")  # after the solver: not its structure
    solver.initialize(0.0, 0, np.zeros(CELLS), p=P)
    solver.integrate_to(T_END)
    assert solver.statistics["linear_iterations"] == 0
    assert run(problem).statistics["linear_iterations"] > 0


@pytest.mark.parametrize("solver", ["sparse", "krylov"])
def test_hybrid_sparse_jac_gives_the_difference_run(klu, solver):
    # J's values on the pattern from the model (a scipy.sparse matrix; per-mode lists too) in
    # place of coloured differences: no difference evaluations for J, the same run within the
    # tolerance.
    for sparse_jac in (rod_jacobian, [lambda t, x, z, p, m=m: rod_jacobian(m, t, x, z, p)
                                      for m in (0, 1)]):
        if isinstance(sparse_jac, list):
            problem = esdirk.HybridProblem(
                CELLS, 0, 2, 1, [lambda t, x, z, p, m=m: rod(m, t, x, z, p) for m in (0, 1)],
                events=[lambda t, x, z, p, m=m: thermostat(m, t, x, z, p) for m in (0, 1)],
                transition=switch, sparse_jac=sparse_jac)
            problem.set_jacobian_pattern(*tridiagonal(), solver)
        else:
            problem = make_rod(solver, sparse_jac=sparse_jac)
        analytic = run(problem, sensitivities=True)
        assert analytic.event_count == 2
        assert relative(analytic.x, klu.x) <= RTOL
        assert relative(analytic.Sx, klu.Sx) <= 10 * RTOL
        assert analytic.statistics["jacobian_evaluations"] > 0
        assert analytic.statistics["fd_function_evaluations"] < klu.statistics["fd_function_evaluations"]


def test_hybrid_sparse_jac_outside_the_pattern_is_refused():
    def wide(mode, t, x, z, p):
        J = rod_jacobian(mode, t, x, z, p).toarray()
        J[0, CELLS - 1] = 1.0
        return J
    problem = make_rod("sparse", sparse_jac=wide)
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=RTOL, atol=RTOL))
    solver.initialize(0.0, 0, np.zeros(CELLS), p=P)
    with pytest.raises(ValueError, match="outside the declared sparsity pattern"):
        solver.integrate_to(T_END)


# solve_ivp's events used the dense LU and differences whatever jac_sparsity, lband/uband or jac
# said (the event path's one-mode problem did not carry the problem's structure).
def test_solve_ivp_events_keep_the_jacobian_structure():
    def fun(t, y):
        return rod(0, t, y, None, P)

    def jac(t, y):
        return rod_jacobian(0, t, y, None, P)

    def hot(t, y):
        return y[SENSOR] - 0.3
    hot.terminal = True
    pattern = rod_jacobian(0, 0.0, np.ones(CELLS), None, P) != 0
    y0 = np.zeros(CELLS)
    runs = {
        "dense": esdirk.solve_ivp(fun, (0.0, T_END), y0, events=hot, rtol=RTOL, atol=RTOL),
        "sparse": esdirk.solve_ivp(fun, (0.0, T_END), y0, events=hot, rtol=RTOL, atol=RTOL,
                                   jac_sparsity=pattern),
        "jac": esdirk.solve_ivp(fun, (0.0, T_END), y0, events=hot, rtol=RTOL, atol=RTOL,
                                jac_sparsity=pattern, jac=jac),
        "banded": esdirk.solve_ivp(fun, (0.0, T_END), y0, events=hot, rtol=RTOL, atol=RTOL,
                                   lband=1, uband=1),
    }
    plain = esdirk.solve_ivp(fun, (0.0, T_END), y0, rtol=RTOL, atol=RTOL, jac_sparsity=pattern,
                             jac=jac, t_eval=[runs["jac"].t_events[0][0]])
    for name, r in runs.items():
        assert r.status == 1 and len(r.t_events[0]) == 1, name
        assert relative(r.y[:, -1], runs["dense"].y[:, -1]) <= 10 * RTOL, name
    # Coloured differences: 3 evaluations per Jacobian (a tridiagonal pattern), not 32.
    per_jacobian = {name: r.statistics["fd_function_evaluations"] / max(r.njev, 1)
                    for name, r in runs.items()}
    assert per_jacobian["dense"] >= CELLS
    assert per_jacobian["sparse"] <= 4 and per_jacobian["banded"] <= 4
    # jac on the pattern: no differences at all, as without events.
    assert runs["jac"].statistics["fd_function_evaluations"] == 0 < runs["jac"].njev
    assert plain.statistics["fd_function_evaluations"] == 0
    assert relative(plain.y[:, -1], runs["jac"].y[:, -1]) <= 10 * RTOL


def test_hybrid_pattern_check_names_what_a_mode_lacks():
    # check_jacobian_pattern one mode at a time (as the C++ and C checks): the tridiagonal
    # pattern holds both modes; the diagonal alone lacks the 2 (N - 1) couplings; a sparse_jac
    # wrong in mode 1 only is found there, naming the entry.
    x = np.linspace(0.1, 0.4, CELLS)
    problem = make_rod("krylov")
    for mode in (0, 1):
        check = problem.check_jacobian_pattern(mode, 0.0, x, p=P)
        assert check["ok"] and check["missing_count"] == 0, check["summary"]
    diagonal = make_rod()
    diagonal.set_jacobian_pattern(list(range(CELLS)), list(range(CELLS)), "krylov")
    check = diagonal.check_jacobian_pattern(1, 0.0, x, p=P, max_reported=3)
    assert not check["ok"] and check["missing_count"] == 2 * (CELLS - 1)
    assert len(check["missing"]) == 3 and all(abs(i - j) == 1 for i, j in check["missing"])

    def wrong_in_mode_1(mode, t, x, z, p):
        J = rod_jacobian(mode, t, x, z, p).tolil()
        if mode == 1:
            J[3, 3] *= 2.0
        return J.tocsc()
    analytic = make_rod("sparse", sparse_jac=wrong_in_mode_1)
    assert analytic.check_jacobian_pattern(0, 0.0, x, p=P)["ok"]
    check = analytic.check_jacobian_pattern(1, 0.0, x, p=P)
    assert not check["ok"] and check["missing_count"] == 0
    assert [(e["row"], e["col"]) for e in check["wrong"]] == [(3, 3)]
    with pytest.raises(ValueError, match="no mode -1"):
        analytic.check_jacobian_pattern(-1, 0.0, x, p=P)
    with pytest.raises(ValueError):
        make_rod().check_jacobian_pattern(0, 0.0, x, p=P)  # no declared pattern
    with pytest.raises(ValueError, match="x must have 32 entries"):
        problem.check_jacobian_pattern(0, 0.0, x[1:], p=P)


def test_a_failed_hybrid_run_reports_the_time_of_its_last_good_state():
    # .t stayed at the previous output time while .x held the last good state the failed call
    # wrote (at the solver's last accepted step), for a failing status and for a raised
    # callback alike.
    def failing_after(limit, error):
        def f(mode, t, x, z, p):
            if t > limit:
                raise error
            return rod(mode, t, x, z, p)
        return f
    for error in (esdirk.RecoverableError("no value here"), KeyError("no value here")):
        problem = esdirk.HybridProblem(CELLS, 0, 2, 1, failing_after(7.0, error),
                                       events=thermostat, transition=switch)
        problem.set_jacobian_pattern(*tridiagonal(), "krylov")
        solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=RTOL, atol=RTOL))
        solver.initialize(0.0, 0, np.zeros(CELLS), p=P)
        solver.integrate_to(6.0)
        with pytest.raises((esdirk.SolverError, KeyError)):
            solver.integrate_to(T_END)
        assert 6.0 < solver.t <= 7.0 and solver.mode == 1
        reference = esdirk.HybridSolver(make_rod("sparse"), esdirk.Options(rtol=RTOL, atol=RTOL))
        reference.initialize(0.0, 0, np.zeros(CELLS), p=P)
        reference.integrate_to(solver.t)
        assert relative(solver.x, reference.x) <= 10 * RTOL


@numba.cfunc(esdirk.numba_signature(), nopython=True)
def compiled_rod_jacobian(t, x_, z_, p_, out_):
    """J's nonzeros in the tridiagonal pattern's CSC order (J is the same in both modes)."""
    x = numba.carray(x_, (CELLS,))
    p = numba.carray(p_, (2,))
    out = numba.carray(out_, (3 * CELLS - 2,))
    c = p[0] * (CELLS + 1.0) ** 2
    k = 0
    for j in range(CELLS):
        if j > 0:
            out[k] = c
            k += 1
        out[k] = -2.0 * c - x[j]
        k += 1
        if j + 1 < CELLS:
            out[k] = c
            k += 1
    return 0


def test_compiled_hybrid_sparse_jac_gives_the_bits_of_the_python_one():
    python = run(make_rod("krylov", sparse_jac=rod_jacobian), sensitivities=True)
    for sparse_jac in (compiled_rod_jacobian, [compiled_rod_jacobian, compiled_rod_jacobian]):
        compiled = run(make_rod("krylov", sparse_jac=sparse_jac), sensitivities=True)
        assert np.array_equal(compiled.x, python.x) and np.array_equal(compiled.Sx, python.Sx)
        assert compiled.statistics == python.statistics


class ExactRodPreconditioner:
    """P = M = I - h_gamma J of the rod (tridiagonal, symmetric), solved by scipy's banded LU:
    each preconditioned GMRES solve converges in one iteration. Records the modes of its
    setups; `fail` replaces the solve's result (a callable of r) to inject failures."""

    def __init__(self):
        self.modes, self.setups, self.solves, self.products = [], 0, 0, 0
        self.fail = None

    def jac_vec(self, mode, t, x, z, p, v):
        self.products += 1
        c = p[0] * (CELLS + 1.0) ** 2
        padded = np.concatenate(([0.0], v, [0.0]))
        return c * (padded[:-2] - 2.0 * v + padded[2:]) - x * v

    def setup(self, mode, t, x, z, p, values, h_gamma):
        self.setups += 1
        if not self.modes or self.modes[-1] != mode:
            self.modes.append(mode)
        assert len(values) == 3 * CELLS - 2  # J's nonzeros on the tridiagonal pattern
        c = p[0] * (CELLS + 1.0) ** 2
        self.bands = np.zeros((3, CELLS))
        self.bands[0, 1:] = self.bands[2, :-1] = -h_gamma * c
        self.bands[1] = 1.0 + h_gamma * (2.0 * c + x)

    def solve(self, r, transpose):
        self.solves += 1
        if self.fail is not None:
            return self.fail(r)
        return scipy.linalg.solve_banded((1, 1), self.bands, r)


def test_hybrid_problem_brings_its_own_product_and_preconditioner(klu):
    # HybridProblem's Krylov hooks (before, only the built-in preconditioners and difference
    # products): matrix-free with the exact J v and P = M equals the KLU run to rounding, both
    # modes set P up, and every call is counted by the statistics.
    problem = make_rod("krylov", matrix_free=True)
    hooks = ExactRodPreconditioner()
    problem.set_jacobian_vector_product(hooks.jac_vec)
    problem.set_preconditioner(hooks.setup, hooks.solve)
    solver = run(problem)
    assert solver.event_count == 2
    assert relative(solver.x, klu.x) <= 1e-12
    stats = solver.statistics
    assert hooks.modes == [0, 1, 0]
    assert hooks.setups == stats["preconditioner_setups"] > 0
    assert hooks.solves == stats["preconditioner_solves"] > 0
    assert hooks.products == stats["jacobian_vector_products"] > 0
    assert stats["linear_iterations"] <= stats["preconditioner_solves"]


def test_hybrid_preconditioner_failures_and_bad_hooks():
    problem = make_rod("krylov")
    hooks = ExactRodPreconditioner()
    with pytest.raises(ValueError, match="psetup and psolve, or neither"):
        problem.set_preconditioner(hooks.setup, None)
    with pytest.raises(TypeError, match="psolve of a HybridProblem must be a Python callable"):
        problem.set_preconditioner(hooks.setup, 3.0)
    problem.set_preconditioner(hooks.setup, hooks.solve)

    def recoverable(r):
        raise esdirk.RecoverableError("not now")

    def broken(r):
        raise KeyError("no factor")
    # A recoverable failure or NaN: SolverError, linear_solver_failures; another exception is
    # raised as it is. The state of the last accepted step is kept; the solver runs again once
    # initialized again (a hybrid solver does not go on after a failed call).
    for fail, expected in ((recoverable, esdirk.SolverError), (lambda r: np.full(CELLS, np.nan), esdirk.SolverError),
                           (broken, KeyError)):
        solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=RTOL, atol=RTOL))
        solver.initialize(0.0, 0, np.zeros(CELLS), p=P)
        solver.integrate_to(1.0)
        hooks.fail = fail
        with pytest.raises(expected) as error:
            solver.integrate_to(T_END)
        if expected is esdirk.SolverError:
            assert error.value.status_name == "linear_solver_failures"
        assert 1.0 <= solver.t < T_END and np.all(np.isfinite(solver.x))  # the last accepted step
        hooks.fail = None
        solver.initialize(0.0, 0, np.zeros(CELLS), p=P)
        assert solver.integrate_to(T_END) == "reached_output_time"
