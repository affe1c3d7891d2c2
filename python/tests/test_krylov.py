"""Newton-Krylov from Python: matrix_free, sensitivity_tolerance and tolerance_with_derivatives in
set_krylov_settings, the J v hook and a user preconditioner (setup / solve) against the direct
(KLU) solution, and bad input: an exception or a wrong shape in a hook is raised, a failing
preconditioner ends with a SolverError, and the integration continues from its last good state."""

import ctypes
import os

import numba
import numpy as np
import pytest

import esdirk

POINTS = 16
N = 2 * POINTS
A, B, ALPHA = 1.0, 3.0, 0.02
C = ALPHA * (POINTS + 1) ** 2
RTOL = 1e-6
T_END = 2.0


def brusselator(t, x, z, p):
    """The 1-D Brusselator, u = x[0::2], v = x[1::2], u = 1 and v = 3 at both ends."""
    u, v = x[0::2], x[1::2]
    ue = np.concatenate(([1.0], u, [1.0]))
    ve = np.concatenate(([3.0], v, [3.0]))
    f = np.empty(N)
    f[0::2] = A + u * u * v - (B + 1.0) * u + C * (ue[:-2] - 2.0 * u + ue[2:])
    f[1::2] = B * u - u * u * v + C * (ve[:-2] - 2.0 * v + ve[2:])
    return f


def exact_product(t, x, z, p, d):
    u, v, du, dv = x[0::2], x[1::2], d[0::2], d[1::2]
    due = np.concatenate(([0.0], du, [0.0]))
    dve = np.concatenate(([0.0], dv, [0.0]))
    out = np.empty(N)
    out[0::2] = (2 * u * v - (B + 1) - 2 * C) * du + u * u * dv + C * (due[:-2] + due[2:])
    out[1::2] = (B - 2 * u * v) * du + (-u * u - 2 * C) * dv + C * (dve[:-2] + dve[2:])
    return out


def pattern():
    """Each point's 2x2 block and the same species at the neighbours."""
    rows, cols = [], []
    for j in range(N):
        k = j // 2
        for i in (j - 2, 2 * k, 2 * k + 1, j + 2):
            if 0 <= i < N:
                rows.append(i)
                cols.append(j)
    return rows, cols


def initial_state():
    k = np.arange(1, POINTS + 1)
    x = np.empty(N)
    x[0::2] = 1.0 + np.sin(2 * np.pi * k / (POINTS + 1))
    x[1::2] = 3.0
    return x


class BlockJacobi:
    """The inverse of each point's 2x2 block of M = I - h_gamma J, from the J psetup receives."""

    def __init__(self, problem):
        self.indptr, self.indices = problem.jacobian_pattern
        self.setups = self.solves = 0
        self.fail = None

    def setup(self, t, x, z, p, values, h_gamma):
        self.setups += 1
        blocks = np.zeros((POINTS, 2, 2))
        for j in range(N):
            for k in range(self.indptr[j], self.indptr[j + 1]):
                i = self.indices[k]
                if i // 2 == j // 2:
                    blocks[j // 2, i % 2, j % 2] = -h_gamma * values[k]
        self.inverse = np.linalg.inv(blocks + np.eye(2))

    def solve(self, r, transpose):
        self.solves += 1
        if self.fail is not None:
            return self.fail(r)
        m = np.swapaxes(self.inverse, 1, 2) if transpose else self.inverse
        return np.einsum("kij,kj->ki", m, r.reshape(POINTS, 2)).reshape(N)


def make_problem(solver="krylov", matrix_free=False):
    problem = esdirk.Problem(N, 0, 0, brusselator)
    problem.set_jacobian_pattern(*pattern(), solver)
    if solver == "krylov":
        problem.set_krylov_settings(dimension=20, block_size=2, matrix_free=matrix_free)
    return problem


def run(problem, t_end=T_END):
    integrator = esdirk.Integrator(problem, rtol=RTOL, atol=RTOL)
    integrator.initialize(0.0, initial_state())
    integrator.integrate_to(t_end)
    return integrator


@pytest.fixture(scope="module")
def direct():
    return run(make_problem("sparse")).x


@pytest.mark.parametrize("matrix_free,exact", [(True, False), (True, True), (False, False)])
def test_user_preconditioner_gives_the_klu_result(direct, matrix_free, exact):
    problem = make_problem(matrix_free=matrix_free)
    preconditioner = BlockJacobi(problem)
    problem.set_preconditioner(preconditioner.setup, preconditioner.solve)
    products = []
    if exact:
        problem.set_jacobian_vector_product(
            lambda t, x, z, p, v: products.append(1) or exact_product(t, x, z, p, v))
    integrator = run(problem)
    stats = integrator.statistics
    # Both runs are within about rtol of the solution (|x| is about 1 to 4).
    assert np.max(np.abs(integrator.x - direct)) < 10 * RTOL
    assert preconditioner.setups == stats["preconditioner_setups"] > 0
    assert preconditioner.solves == stats["preconditioner_solves"] > 0
    if exact:
        assert len(products) == stats["jacobian_vector_products"] > 0


def test_matrix_free_and_sensitivity_tolerance_reach_the_solver(direct):
    # Matrix-free by differences: every product is one evaluation of f.
    integrator = run(make_problem(matrix_free=True))
    stats = integrator.statistics
    assert np.max(np.abs(integrator.x - direct)) < 10 * RTOL
    assert stats["fd_function_evaluations"] >= stats["jacobian_vector_products"] > 0
    plain = run(make_problem(matrix_free=False)).statistics
    assert plain["fd_function_evaluations"] < plain["jacobian_vector_products"]
    problem = make_problem()
    for bad in (0.0, 1.0, float("nan")):
        with pytest.raises(ValueError, match="sensitivity_tolerance"):
            problem.set_krylov_settings(dimension=20, sensitivity_tolerance=bad)
    # The derivatives refuse matrix-free products, naming the setting.
    problem.set_krylov_settings(dimension=20, matrix_free=True)
    integrator = esdirk.Integrator(problem, rtol=RTOL, atol=RTOL)
    integrator.initialize(0.0, initial_state())
    with pytest.raises(ValueError, match="matrix_free"):
        integrator.enable_sensitivities()


def sensitivity_run(**settings):
    """A run with sensitivities to T_END on GMRES (dimension 20) with the given Krylov settings."""
    problem = make_problem()
    problem.set_krylov_settings(dimension=20, **settings)
    integrator = esdirk.Integrator(problem, rtol=RTOL, atol=RTOL)
    integrator.initialize(0.0, initial_state())
    integrator.enable_sensitivities()
    integrator.integrate_to(T_END)
    return integrator


def test_tolerance_with_derivatives_is_the_forcing_term_while_sensitivities_run(direct):
    # KrylovSettings::tolerance_with_derivatives: the states' stage solves stop there instead of
    # at `tolerance` (0.05) while sensitivities are attached. The default is 1e-3 (given or not,
    # the same run to the bit); the states-only forcing term 0.05 there takes fewer GMRES
    # iterations and moves the sensitivities; a states-only run never uses it.
    default = sensitivity_run()
    given = sensitivity_run(tolerance_with_derivatives=1e-3)
    loose = sensitivity_run(tolerance_with_derivatives=0.05)
    assert np.array_equal(default.Sx, given.Sx) and np.array_equal(default.x, given.x)
    assert not np.array_equal(default.Sx, loose.Sx)
    assert loose.statistics["linear_iterations"] < default.statistics["linear_iterations"]
    states = make_problem()
    states.set_krylov_settings(dimension=20, tolerance_with_derivatives=0.05)
    assert np.array_equal(run(states).x, run(make_problem()).x)
    # Out of (0, 1): refused with the words of the other tolerances, the settings kept.
    problem = make_problem()
    problem.set_krylov_settings(dimension=20, tolerance_with_derivatives=0.05)
    for bad in (0.0, 1.0, -1e-3, float("nan")):
        with pytest.raises(ValueError, match=r"the tolerance_with_derivatives must be in \(0, 1\)"):
            problem.set_krylov_settings(dimension=20, tolerance_with_derivatives=bad)
    integrator = esdirk.Integrator(problem, rtol=RTOL, atol=RTOL)
    integrator.initialize(0.0, initial_state())
    integrator.enable_sensitivities()
    integrator.integrate_to(T_END)
    assert np.array_equal(integrator.Sx, loose.Sx)


def test_the_sensitivities_stage_preconditioner_and_error_fraction_reach_the_run(direct):
    # KrylovSettings::sensitivity_step_preconditioner (default True): the sensitivities' stage
    # GMRES uses the step's preconditioner, no setup of its own (stage_factorizations counts
    # those setups); False sets one up per stage.
    # sensitivity_error_fraction > 0 lets those solves stop earlier: fewer GMRES iterations.
    step = sensitivity_run()
    own = sensitivity_run(sensitivity_step_preconditioner=False)
    assert step.statistics["stage_factorizations"] == 0 < own.statistics["stage_factorizations"]
    assert np.max(np.abs(step.Sx - own.Sx)) <= 1e-6 * np.max(np.abs(own.Sx))
    loose = sensitivity_run(sensitivity_error_fraction=0.1)
    assert loose.statistics["linear_iterations"] < step.statistics["linear_iterations"]
    problem = make_problem()
    for bad in (-0.1, 1.0, float("nan")):
        with pytest.raises(ValueError, match=r"the sensitivity_error_fraction must be in \[0, 1\)"):
            problem.set_krylov_settings(dimension=20, sensitivity_error_fraction=bad)
    assert problem.krylov_settings["sensitivity_error_fraction"] == 0.0


def test_the_builtin_preconditioner_is_chosen_by_name(direct):
    # ILU(0), the default, keeps the couplings between grid points: fewer GMRES iterations than
    # block-Jacobi over each point's two species, the same answer; a wrong name is refused.
    runs = {}
    for name in ("ilu0", "block_jacobi"):
        problem = make_problem()
        problem.set_krylov_settings(dimension=20, block_size=2, preconditioner=name)
        runs[name] = run(problem)
        assert np.max(np.abs(runs[name].x - direct)) < 10 * RTOL
    default = run(make_problem())
    assert np.array_equal(default.x, runs["ilu0"].x)
    ilu, blocks = (runs[name].statistics for name in ("ilu0", "block_jacobi"))
    assert ilu["linear_iterations"] < blocks["linear_iterations"]
    with pytest.raises(ValueError, match="preconditioner must be 'ilu0' or 'block_jacobi', got 'jacobi'"):
        make_problem().set_krylov_settings(preconditioner="jacobi")


def test_restarts_and_dimensions_beyond_the_caps_are_refused_and_the_settings_kept(direct):
    # INT_MAX restarts made a stagnating GMRES run for ever (issue 27); a dimension near n asked
    # n^2 memory. Both are refused by the library's check, and the problem keeps its settings:
    # the run is the one before the refused calls, to the bit.
    problem = make_problem()
    before = run(problem).x
    with pytest.raises(ValueError, match=r"max_restarts must be <= 1000 \(got 2147483647"):
        problem.set_krylov_settings(dimension=20, max_restarts=2**31 - 1)
    with pytest.raises(ValueError, match="max_restarts must be <= 1000"):
        problem.set_krylov_settings(dimension=20, max_restarts=1001)
    assert np.array_equal(run(problem).x, before)
    problem.set_krylov_settings(dimension=20, block_size=2, max_restarts=1000)
    assert np.max(np.abs(run(problem).x - direct)) < 10 * RTOL
    n = 600
    large = esdirk.Problem(n, 0, 0, lambda t, x, z, p: -x)
    large.set_jacobian_pattern(list(range(n)), list(range(n)), "krylov")
    with pytest.raises(ValueError, match=r"Krylov dimension must be <= 500 .*\(got 501, n = 600\)"):
        large.set_krylov_settings(dimension=501)
    large.set_krylov_settings(dimension=500)


def test_exception_in_a_hook_is_raised_and_the_state_kept(direct):
    problem = make_problem(matrix_free=True)
    preconditioner = BlockJacobi(problem)
    problem.set_preconditioner(preconditioner.setup, preconditioner.solve)
    integrator = esdirk.Integrator(problem, rtol=RTOL, atol=RTOL)
    integrator.initialize(0.0, initial_state())
    integrator.integrate_to(0.5)

    def broken(r):
        raise KeyError("no factor for this block")
    preconditioner.fail = broken
    with pytest.raises(KeyError, match="no factor"):
        integrator.integrate_to(T_END)
    preconditioner.fail = None  # the run goes on from its last good state
    integrator.integrate_to(T_END)
    assert np.max(np.abs(integrator.x - direct)) < 10 * RTOL


def test_wrong_shapes_are_refused_naming_the_hook():
    problem = make_problem(matrix_free=True)
    preconditioner = BlockJacobi(problem)
    problem.set_preconditioner(preconditioner.setup, preconditioner.solve)
    preconditioner.fail = lambda r: r[:-1]
    with pytest.raises(ValueError, match="psolve must have 32 entries, got 31"):
        run(problem)
    preconditioner.fail = None
    problem.set_jacobian_vector_product(lambda t, x, z, p, v: np.zeros((N, 2)))
    with pytest.raises(ValueError, match="jac_vec must be one-dimensional"):
        run(problem)


def test_failing_or_nan_preconditioner_ends_with_a_solver_error(direct):
    problem = make_problem(matrix_free=True)
    preconditioner = BlockJacobi(problem)
    problem.set_preconditioner(preconditioner.setup, preconditioner.solve)

    def recoverable(r):
        raise esdirk.RecoverableError("not now")
    for fail in (recoverable, lambda r: np.full(N, np.nan)):
        integrator = esdirk.Integrator(problem, rtol=RTOL, atol=RTOL)
        integrator.initialize(0.0, initial_state())
        integrator.integrate_to(0.5)
        preconditioner.fail = fail
        with pytest.raises(esdirk.SolverError, match="preconditioner") as error:
            integrator.integrate_to(T_END)
        assert error.value.status_name == "linear_solver_failures"
        preconditioner.fail = None
        integrator.integrate_to(T_END)
        assert np.max(np.abs(integrator.x - direct)) < 10 * RTOL


def test_bad_hooks_are_refused():
    problem = make_problem()
    preconditioner = BlockJacobi(problem)
    with pytest.raises(ValueError, match="psetup and psolve"):
        problem.set_preconditioner(preconditioner.setup, None)
    with pytest.raises(TypeError, match="psolve must be callable"):
        problem.set_preconditioner(preconditioner.setup, 3.0)
    model_signature = esdirk.ctypes_type()(lambda t, x, z, p, out: 0)
    with pytest.raises(TypeError, match=r"jac_vec: a compiled callback must have the signature "
                                        r"int fn\(double t, .*const double \*v, double \*out\)"):
        problem.set_jacobian_vector_product(model_signature)
    with pytest.raises(TypeError, match="psolve: a compiled callback must have the signature"):
        problem.set_preconditioner(preconditioner.setup, model_signature)
    # Removing them: the built-in block-Jacobi again.
    problem.set_preconditioner(preconditioner.setup, preconditioner.solve)
    problem.set_preconditioner(None, None)
    problem.set_jacobian_vector_product(None)
    run(problem)
    assert preconditioner.setups == 0


def compiled_hooks():
    """The C hooks of krylov_models.c, declared with the hooks' signatures."""
    lib = ctypes.CDLL(os.environ["ESDIRK_TEST_MODELS"])
    hooks = {}
    for name, kind in (("brusselator_f", "model"), ("brusselator_jac_vec", "jac_vec"),
                       ("brusselator_psetup", "psetup"), ("brusselator_psolve", "psolve"),
                       ("failing_psolve", "psolve")):
        hooks[name] = esdirk.ctypes_type(kind)((name, lib))
    return hooks


def test_compiled_hooks_run_without_the_interpreter(direct):
    hooks = compiled_hooks()
    problem = esdirk.Problem(N, 0, 0, hooks["brusselator_f"])
    problem.set_jacobian_pattern(*pattern(), "krylov")
    problem.set_krylov_settings(dimension=20, block_size=2, matrix_free=True)
    problem.set_jacobian_vector_product(hooks["brusselator_jac_vec"])
    problem.set_preconditioner(hooks["brusselator_psetup"], hooks["brusselator_psolve"])
    assert problem.compiled  # the integration never takes the GIL
    integrator = run(problem)
    stats = integrator.statistics
    assert np.max(np.abs(integrator.x - direct)) < 10 * RTOL
    assert stats["preconditioner_setups"] > 0 and stats["jacobian_vector_products"] > 0
    # A failing compiled solve ends with a SolverError, the state kept.
    problem.set_preconditioner(hooks["brusselator_psetup"], hooks["failing_psolve"])
    integrator = esdirk.Integrator(problem, rtol=RTOL, atol=RTOL)
    integrator.initialize(0.0, initial_state())
    with pytest.raises(esdirk.SolverError, match="preconditioner") as error:
        integrator.integrate_to(T_END)
    assert error.value.status_name == "linear_solver_failures"
    problem.set_preconditioner(hooks["brusselator_psetup"], hooks["brusselator_psolve"])
    integrator.integrate_to(T_END)
    assert np.max(np.abs(integrator.x - direct)) < 10 * RTOL


@numba.cfunc(esdirk.numba_signature("jac_vec"), nopython=True)
def numba_jac_vec(t, x_, z_, p_, d_, out_):
    x = numba.carray(x_, (N,))
    d = numba.carray(d_, (N,))
    out = numba.carray(out_, (N,))
    for k in range(POINTS):
        u, v, du, dv = x[2 * k], x[2 * k + 1], d[2 * k], d[2 * k + 1]
        dul = d[2 * k - 2] if k > 0 else 0.0
        dur = d[2 * k + 2] if k + 1 < POINTS else 0.0
        dvl = d[2 * k - 1] if k > 0 else 0.0
        dvr = d[2 * k + 3] if k + 1 < POINTS else 0.0
        out[2 * k] = (2 * u * v - (B + 1) - 2 * C) * du + u * u * dv + C * (dul + dur)
        out[2 * k + 1] = (B - 2 * u * v) * du + (-u * u - 2 * C) * dv + C * (dvl + dvr)
    return 0


def test_numba_jac_vec_with_a_python_preconditioner(direct):
    problem = make_problem(matrix_free=True)
    problem.set_jacobian_vector_product(numba_jac_vec)
    preconditioner = BlockJacobi(problem)
    problem.set_preconditioner(preconditioner.setup, preconditioner.solve)
    assert not problem.compiled  # the Python hooks need the interpreter
    integrator = run(problem)
    stats = integrator.statistics
    assert np.max(np.abs(integrator.x - direct)) < 10 * RTOL
    assert stats["jacobian_vector_products"] > 0
    assert preconditioner.solves == stats["preconditioner_solves"] > 0


def test_inconsistent_jac_vec_is_found_by_the_self_test():
    # check_jacobian_vector_product (the C++ self-test): the exact product agrees with central
    # differences of f; one wrong coefficient (half the diffusion added on the diagonal of
    # row 5) is found there, with both values; a NaN product is named as failing.
    problem = make_problem(matrix_free=True)
    x = initial_state()
    problem.set_jacobian_vector_product(exact_product)
    good = problem.check_jacobian_vector_product(0.0, x)
    assert good["ok"] and good["worst_error"] <= 1.0 and good["message"] == ""

    def wrong(t, x, z, p, v):
        out = exact_product(t, x, z, p, v)
        out[5] += 0.5 * C * v[5]
        return out
    problem.set_jacobian_vector_product(wrong)
    bad = problem.check_jacobian_vector_product(0.0, x)
    assert not bad["ok"] and bad["worst_row"] == 5 and bad["equation"] == "f[5]"
    assert bad["worst_error"] > 1.0 and bad["supplied"] != bad["finite_difference"]
    assert "jacobian_vector_product disagrees with central differences" in bad["message"]
    # Loose enough tolerances accept it: the tolerances reach the check.
    assert problem.check_jacobian_vector_product(0.0, x, rtol=1.0, atol=1.0)["ok"]
    problem.set_jacobian_vector_product(lambda t, x, z, p, v: np.full(N, np.nan))
    nan = problem.check_jacobian_vector_product(0.0, x)
    assert not nan["ok"] and "jacobian_vector_product failed or was not finite" in nan["message"]

    def raising(t, x, z, p, v):
        raise KeyError("no product here")
    problem.set_jacobian_vector_product(raising)
    with pytest.raises(KeyError, match="no product here"):
        problem.check_jacobian_vector_product(0.0, x)
    problem.set_jacobian_vector_product(exact_product)
    with pytest.raises(ValueError, match="directions must be >= 1"):
        problem.check_jacobian_vector_product(0.0, x, directions=0)
    with pytest.raises(ValueError, match="x must have 32 entries, got 31"):
        problem.check_jacobian_vector_product(0.0, x[:-1])
    problem.set_jacobian_vector_product(None)
    with pytest.raises(ValueError, match="has no jacobian_vector_product"):
        problem.check_jacobian_vector_product(0.0, x)


def test_structure_reads_back_and_clears():
    problem = make_problem()
    assert problem.linear_solver == "krylov"
    assert problem.krylov_settings == {
        "dimension": 20, "max_restarts": 4, "tolerance": 0.05, "block_size": 2,
        "matrix_free": False, "sensitivity_tolerance": 1e-10, "preconditioner": "ilu0",
        "tolerance_with_derivatives": 1e-3, "sensitivity_step_preconditioner": True,
        "sensitivity_error_fraction": 0.0}
    # A later pattern starts from the default settings again (as in C++).
    problem.set_jacobian_pattern(*pattern(), "krylov")
    assert problem.krylov_settings["dimension"] == 30
    assert problem.jacobian_bandwidths == (2, 2)  # the neighbours' species, 2 rows away
    problem.set_jacobian_bandwidths(3, 1)
    assert problem.linear_solver == "banded" and problem.jacobian_bandwidths == (3, 1)
    problem.clear_jacobian_structure()
    assert problem.linear_solver == "dense" and problem.jacobian_pattern is None
    assert problem.jacobian_bandwidths == (N - 1, N - 1)


def forced(t, x, z, p):
    """The Brusselator with the feed A + (p[0] - 1) (a parameter, or the shooting's control)."""
    f = brusselator(t, x, z, p)
    f[0::2] += p[0] - 1.0
    return f


def forced_problem(solver):
    problem = esdirk.Problem(N, 0, 1, forced)
    problem.set_jacobian_pattern(*pattern(), solver)
    if solver == "krylov":
        problem.set_krylov_settings(dimension=20, block_size=2, preconditioner="block_jacobi")
    return problem


def relative(a, b):
    return np.max(np.abs(np.asarray(a) - b)) / np.max(np.abs(b))


def test_adjoint_shooting_and_evaluator_run_with_krylov_as_with_klu():
    # The derivatives' transposed and forward GMRES stage solves (sensitivity_tolerance 1e-10)
    # against the KLU runs, within the C++ comparisons' bounds: 10 rtol + 1000
    # sensitivity_tolerance relative to the largest entry. Measured (block-Jacobi, rtol 1e-6):
    # see doc/python-guide.md, "Large systems: Newton-Krylov".
    bound = 10 * RTOL + 1000 * 1e-10
    options = esdirk.Options(rtol=RTOL, atol=RTOL)
    x0 = initial_state()
    weights = np.zeros(N)
    weights[N // 2] = 1.0
    adjoint = {solver: esdirk.adjoint_gradient(forced_problem(solver), (0.0, 1.0), x0, p=[1.0],
                                               weights=weights, options=options)
               for solver in ("krylov", "sparse")}
    assert relative(adjoint["krylov"]["dx0"], adjoint["sparse"]["dx0"]) <= bound
    assert relative(adjoint["krylov"]["dp"], adjoint["sparse"]["dp"]) <= bound
    assert adjoint["krylov"]["statistics"]["linear_iterations"] > 0
    assert adjoint["sparse"]["statistics"]["linear_iterations"] == 0
    interval = {solver: esdirk.ShootingInterval(forced_problem(solver), options).integrate(
                    0.0, 0.5, x0, [1.0]) for solver in ("krylov", "sparse")}
    for block in ("x", "A", "B"):
        assert relative(interval["krylov"][block], interval["sparse"][block]) <= bound, block
    assert interval["krylov"]["statistics"]["preconditioner_setups"] > 0
    starts = np.array([0.0, 0.3, 0.6])
    evaluated = {}
    for solver, threads in (("krylov", 2), ("sparse", 1)):
        evaluator = esdirk.IntervalEvaluator(forced_problem(solver), 3, options, threads=threads)
        evaluated[solver] = evaluator.evaluate(starts, starts + 0.3, np.tile(x0, (3, 1)),
                                               np.ones((3, 1)))
    assert np.all(evaluated["krylov"]["status"] == 0)
    for block in ("x", "A", "B"):
        assert relative(evaluated["krylov"][block], evaluated["sparse"][block]) <= bound, block


def test_pattern_check_finds_the_couplings_a_pattern_lacks():
    x = initial_state()
    assert make_problem().check_jacobian_pattern(0.0, x)["ok"]
    # The 2 x 2 blocks of each point only (what a block preconditioner needs): the diffusion
    # couplings to the neighbours, 2 per species and pair of neighbours, are missing.
    blocks = esdirk.Problem(N, 0, 0, brusselator)
    rows = [2 * (j // 2) + i for j in range(N) for i in (0, 1)]
    cols = [j for j in range(N) for i in (0, 1)]
    blocks.set_jacobian_pattern(rows, cols, "krylov")
    check = blocks.check_jacobian_pattern(0.0, x)
    assert not check["ok"] and check["missing_count"] == 2 * 2 * (POINTS - 1)
    assert all(abs(i - j) == 2 for i, j in check["missing"]) and "missing" in check["summary"]
    with pytest.raises(ValueError):
        esdirk.Problem(N, 0, 0, brusselator).check_jacobian_pattern(0.0, x)


def test_stagnating_preconditioner_ends_with_a_solver_error_naming_gmres(direct):
    # A psolve that returns zeros (or a constant) gives GMRES no direction to progress in: the
    # cycle without progress fails the solve, the step is retried smaller, and the run stops
    # with linear_solver_failures naming GMRES, its last good state kept: .x is the solution at
    # .t, the last accepted step (.t stayed at the previous output time, 0.5, while .x held
    # the state of the step after it).
    problem = make_problem()
    preconditioner = BlockJacobi(problem)
    problem.set_preconditioner(preconditioner.setup, preconditioner.solve)
    for fail in (lambda r: np.zeros(N), lambda r: np.ones(N)):
        integrator = esdirk.Integrator(problem, rtol=RTOL, atol=RTOL)
        integrator.initialize(0.0, initial_state())
        integrator.integrate_to(0.5)
        preconditioner.fail = fail
        with pytest.raises(esdirk.SolverError, match="GMRES did not reach its tolerance") as error:
            integrator.integrate_to(T_END)
        assert error.value.status_name == "linear_solver_failures"
        assert 0.5 < integrator.t < T_END
        assert np.max(np.abs(integrator.x - run(make_problem("sparse"), integrator.t).x)) < 10 * RTOL
        preconditioner.fail = None
        integrator.integrate_to(T_END)
        assert np.max(np.abs(integrator.x - direct)) < 10 * RTOL


def test_krylov_dimension_out_of_range_is_refused():
    problem = make_problem()
    for dimension in (0, -1, N + 1):
        with pytest.raises(ValueError, match=r"the Krylov dimension must be in \[1, n\] \(got %d, n = 32\)"
                           % dimension):
            problem.set_krylov_settings(dimension=dimension)
    assert problem.krylov_settings["dimension"] == 20  # kept
    # Below 30 unknowns the default dimension is n (30 was refused where the solver was made,
    # and by set_krylov_settings without a dimension); one above n is still refused.
    small = esdirk.Problem(4, 0, 0, lambda t, x, z, p: -x)
    small.set_jacobian_pattern(range(4), range(4), "krylov")
    assert small.krylov_settings["dimension"] == 4
    small.set_krylov_settings(max_restarts=3)
    assert small.krylov_settings["dimension"] == 4
    with pytest.raises(ValueError, match=r"the Krylov dimension must be in \[1, n\] \(got 5, n = 4\)"):
        small.set_krylov_settings(dimension=5)
    integrator = esdirk.Integrator(small, rtol=1e-8, atol=1e-10)
    integrator.initialize(0.0, np.ones(4))
    integrator.integrate_to(1.0)
    assert np.max(np.abs(integrator.x - np.exp(-1.0))) < 1e-6
