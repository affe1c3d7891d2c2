"""esdirk.solve_ivp against closed forms and scipy's Radau and BDF."""

import ctypes
import os

import numpy as np
import pytest
import scipy.integrate
import scipy.sparse

import esdirk
from conftest import robertson, robertson_jac, van_der_pol


def test_linear_decay_matches_closed_form():
    res = esdirk.solve_ivp(lambda t, y: -2.0 * y, (0.0, 3.0), [1.0, 2.0], rtol=1e-8, atol=1e-12)
    assert res.success and res.status == 0
    assert res.t[0] == 0.0 and res.t[-1] == 3.0
    assert np.allclose(res.y[:, -1], [np.exp(-6.0), 2 * np.exp(-6.0)], rtol=1e-6)
    assert res.nfev > 0 and res.njev > 0 and res.nlu > 0


def test_t_eval_and_dense_output():
    t_eval = np.linspace(0.0, 2.0, 11)
    res = esdirk.solve_ivp(lambda t, y: [y[1], -y[0]], (0.0, 2.0), [0.0, 1.0], t_eval=t_eval,
                           dense_output=True, rtol=1e-8, atol=1e-10)
    assert np.array_equal(res.t, t_eval)
    assert np.allclose(res.y[0], np.sin(t_eval), atol=1e-7)
    tt = np.linspace(0.0, 2.0, 37)
    assert res.sol(tt).shape == (2, 37)
    assert np.allclose(res.sol(tt)[0], np.sin(tt), atol=1e-6)
    assert np.allclose(res.sol(1.3), [np.sin(1.3), np.cos(1.3)], atol=1e-6)


def test_backwards_in_time():
    res = esdirk.solve_ivp(lambda t, y: -y, (1.0, 0.0), [1.0], rtol=1e-8, atol=1e-12,
                           t_eval=[0.5, 0.0])
    assert np.allclose(res.y[0], np.exp([0.5, 1.0]), rtol=1e-6)


def test_args_are_passed_like_scipy():
    res = esdirk.solve_ivp(van_der_pol, (0.0, 1.0), [2.0, 0.0], args=(5.0,), rtol=1e-6)
    ref = scipy.integrate.solve_ivp(van_der_pol, (0.0, 1.0), [2.0, 0.0], args=(5.0,),
                                    method="Radau", rtol=1e-10, atol=1e-12)
    assert np.allclose(res.y[:, -1], ref.y[:, -1], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("scipy_method", ["Radau", "BDF"])
def test_robertson_agrees_with_scipy(scipy_method):
    t_eval = [1e-2, 1.0, 1e2, 1e4]
    res = esdirk.solve_ivp(robertson, (0.0, 1e4), [1.0, 0.0, 0.0], t_eval=t_eval, rtol=1e-8,
                           atol=1e-14, jac=robertson_jac)
    ref = scipy.integrate.solve_ivp(robertson, (0.0, 1e4), [1.0, 0.0, 0.0], t_eval=t_eval,
                                    method=scipy_method, rtol=1e-10, atol=1e-16,
                                    jac=robertson_jac)
    assert res.success and ref.success
    # Both close to the true solution: esdirk at its requested 1e-8, scipy tighter.
    assert np.allclose(res.y, ref.y, rtol=1e-6, atol=1e-13)


def test_van_der_pol_stiff_agrees_with_radau():
    res = esdirk.solve_ivp(van_der_pol, (0.0, 2.0), [2.0, 0.0], args=(1000.0,), rtol=1e-7,
                           atol=1e-9)
    ref = scipy.integrate.solve_ivp(van_der_pol, (0.0, 2.0), [2.0, 0.0], args=(1000.0,),
                                    method="Radau", rtol=1e-11, atol=1e-13)
    assert np.allclose(res.y[:, -1], ref.y[:, -1], rtol=1e-5, atol=1e-7)


def test_robertson_dae_form_keeps_the_mass_balance():
    def f(t, x, z):
        return [-0.04 * x[0] + 1e4 * x[1] * z[0], 0.04 * x[0] - 1e4 * x[1] * z[0] - 3e7 * x[1] ** 2]

    def g(t, x, z):
        return [x[0] + x[1] + z[0] - 1.0]

    res = esdirk.solve_ivp(f, (0.0, 1e3), [1.0, 0.0], g=g, z0=[0.0], rtol=1e-7, atol=1e-13,
                           t_eval=[1.0, 1e3])
    ode = esdirk.solve_ivp(robertson, (0.0, 1e3), [1.0, 0.0, 0.0], rtol=1e-9, atol=1e-15,
                           t_eval=[1.0, 1e3])
    assert res.y.shape == (3, 2) and res.z.shape == (1, 2)
    assert np.allclose(res.y.sum(axis=0), 1.0, atol=1e-12)
    assert np.allclose(res.y, ode.y, rtol=1e-5, atol=1e-12)


def test_events_terminal_and_direction():
    # Free fall from 10 m: the ground at t = sqrt(2), the apex never.
    def ground(t, y):
        return y[0]
    ground.terminal = True
    ground.direction = -1

    def half(t, y):
        return y[0] - 5.0

    res = esdirk.solve_ivp(lambda t, y: [y[1], -10.0], (0.0, 5.0), [10.0, 0.0],
                           events=[ground, half], rtol=1e-8, atol=1e-10)
    assert res.status == 1 and res.success
    assert res.t_events[0] == pytest.approx([np.sqrt(2.0)], rel=1e-9)
    assert res.t_events[1] == pytest.approx([1.0], rel=1e-9)
    assert res.t[-1] == pytest.approx(np.sqrt(2.0), rel=1e-9)
    assert res.y_events[0].shape == (1, 2)
    assert res.y_events[0][0, 0] == pytest.approx(0.0, abs=1e-8)


def test_options_by_keyword_and_statistics():
    res = esdirk.solve_ivp(robertson, (0.0, 10.0), [1.0, 0.0, 0.0], method="ESDIRK34",
                           rtol=1e-5, atol=1e-11, max_steps=100000, first_step=1e-6)
    assert res.method == "ESDIRK34"
    assert set(res.statistics) == set(esdirk.statistics_counters())
    assert res.statistics["accepted_steps"] == len(res.t) - 1
    assert res.nlu == res.statistics["lu_factorizations"]


def test_too_many_steps_is_a_failed_result_with_the_library_message():
    res = esdirk.solve_ivp(robertson, (0.0, 1e4), [1.0, 0.0, 0.0], rtol=1e-8, atol=1e-14,
                           max_steps=5)
    assert not res.success and res.status == -1
    assert "steps" in res.message
    assert res.status_name == "too_many_steps"


def test_forward_sensitivities_match_finite_differences():
    mu = 3.0

    def f(t, y, p):
        return [y[1], p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0]]

    t_eval = [0.5, 1.0]
    res = esdirk.solve_ivp(f, (0.0, 1.0), [2.0, 0.0], p=[mu], t_eval=t_eval, rtol=1e-10,
                           atol=1e-12, sensitivities=True)
    assert res.dy_dy0.shape == (2, 2, 2) and res.dy_dp.shape == (2, 2, 1)

    def solve(y0, p):
        return esdirk.solve_ivp(f, (0.0, 1.0), y0, p=[p], t_eval=t_eval, rtol=1e-12,
                                atol=1e-14).y
    eps = 1e-6
    dp = (solve([2.0, 0.0], mu + eps) - solve([2.0, 0.0], mu - eps)) / (2 * eps)
    dy0 = (solve([2.0 + eps, 0.0], mu) - solve([2.0 - eps, 0.0], mu)) / (2 * eps)
    assert np.allclose(res.dy_dp[:, :, 0].T, dp, rtol=1e-5, atol=1e-7)
    assert np.allclose(res.dy_dy0[:, :, 0].T, dy0, rtol=1e-5, atol=1e-7)


def test_banded_and_sparse_jacobians_give_the_dense_result():
    def chain(t, y):  # a tridiagonal diffusion chain
        d = np.zeros_like(y)
        d[1:-1] = y[:-2] - 2 * y[1:-1] + y[2:]
        d[0] = -2 * y[0] + y[1]
        d[-1] = y[-2] - 2 * y[-1]
        return d
    y0 = np.linspace(1.0, 2.0, 8)
    banded = esdirk.solve_ivp(chain, (0, 1), y0, lband=1, uband=1, rtol=1e-8, atol=1e-12)
    dense = esdirk.solve_ivp(chain, (0, 1), y0, rtol=1e-8, atol=1e-12)
    assert banded.success and np.allclose(banded.y[:, -1], dense.y[:, -1], rtol=1e-7)
    pattern = np.eye(8) + np.eye(8, k=1) + np.eye(8, k=-1)
    sparse = esdirk.solve_ivp(chain, (0, 1), y0, jac_sparsity=pattern, rtol=1e-8, atol=1e-12)
    assert sparse.success and np.allclose(sparse.y[:, -1], dense.y[:, -1], rtol=1e-7)
    # Coloured differences: 3 columns per Jacobian instead of 8, each with one base evaluation
    # (counted per Jacobian: the default factorization policy keeps the dense difference Jacobian
    # across steps, the coloured one not).
    def per_jacobian(result):
        return result.statistics["fd_function_evaluations"] / result.statistics["jacobian_evaluations"]
    assert per_jacobian(sparse) == 3 + 1 and per_jacobian(dense) == 8 + 1
    with pytest.raises(ValueError, match=r"shape \(8, 8\)"):
        esdirk.solve_ivp(chain, (0, 1), y0, jac_sparsity=np.eye(7))


def test_sensitivities_at_t0_with_events_are_the_seed():
    """t_eval starting at t0 with events and sensitivities: dy/dy0 there is the identity and
    dy/dp zero, as without events (the event path gave dy/dy0 = 0 at t0)."""
    def crossing(t, y, p):
        return y[0] - 0.1
    kw = dict(p=[1.0], t_eval=[0.0, 0.5, 1.0], sensitivities=True, rtol=1e-8, atol=1e-10)
    with_events = esdirk.solve_ivp(lambda t, y, p: [-p[0] * y[0]], (0, 1), [1.0],
                                   events=crossing, **kw)
    plain = esdirk.solve_ivp(lambda t, y, p: [-p[0] * y[0]], (0, 1), [1.0], **kw)
    assert with_events.dy_dy0[0, 0, 0] == 1.0 and with_events.dy_dp[0, 0, 0] == 0.0
    assert np.allclose(with_events.dy_dy0[:, 0, 0], np.exp(-with_events.t), rtol=1e-7)
    assert np.allclose(with_events.dy_dp, plain.dy_dp, rtol=1e-7, atol=1e-12)


def test_dense_output_ends_at_a_terminal_event():
    def ground(t, y):
        return y[0]
    ground.terminal = True
    res = esdirk.solve_ivp(lambda t, y: [y[1], -10.0], (0.0, 5.0), [10.0, 0.0], events=ground,
                           dense_output=True, rtol=1e-10, atol=1e-12)
    t_hit = np.sqrt(2.0)
    assert res.sol.t_max == pytest.approx(t_hit, rel=1e-9)
    tt = np.linspace(0.0, t_hit, 9)
    assert np.allclose(res.sol(tt)[0], 10.0 - 5.0 * tt ** 2, atol=1e-8)


def robertson_array(t, y):  # works on y of shape (3,) and (3, k): scipy's vectorized contract
    return np.array(robertson(t, y))


def test_vectorized_difference_jacobian_gives_the_same_bits_in_fewer_calls():
    """vectorized=True: one call of fun on the n + 1 columns of a difference Jacobian (the
    point and each moved state), with the library's increments: the same J, so the same run
    to the last bit (the model's arithmetic is elementwise), and the same nfev."""
    shapes = []

    def counted(t, y):
        shapes.append(np.shape(y))
        return robertson_array(t, y)
    plain = esdirk.solve_ivp(robertson_array, (0.0, 1e5), [1.0, 0.0, 0.0], rtol=1e-6, atol=1e-12)
    vectorized = esdirk.solve_ivp(counted, (0.0, 1e5), [1.0, 0.0, 0.0], rtol=1e-6, atol=1e-12,
                                  vectorized=True)
    assert np.array_equal(plain.y, vectorized.y) and np.array_equal(plain.t, vectorized.t)
    assert plain.nfev == vectorized.nfev and plain.njev == vectorized.njev
    assert shapes.count((3, 4)) == vectorized.njev
    assert len(shapes) == vectorized.statistics["function_evaluations"] + vectorized.njev
    assert set(shapes) == {(3,), (3, 4)}
    # esdirk.Integrator on a vectorized Problem counts the columns as solve_ivp does.
    problem = esdirk.Problem(3, 0, 0, robertson_array, vectorized=True, pass_z=False, pass_p=False)
    integrator = esdirk.Integrator(problem, rtol=1e-6, atol=1e-12)
    integrator.initialize(0.0, [1.0, 0.0, 0.0])
    integrator.set_stop_time(1e5)  # as solve_ivp
    integrator.integrate_to(1e5)
    assert np.array_equal(integrator.x, vectorized.y[:, -1])
    stats = integrator.statistics
    assert stats["fd_function_evaluations"] == 4 * stats["jacobian_evaluations"]
    # The DAE form: f and g both on the columns of (x, z).
    def f(t, x, z):
        return np.array([-0.04 * x[0] + 1e4 * x[1] * z[0],
                         0.04 * x[0] - 1e4 * x[1] * z[0] - 3e7 * x[1] * x[1]])

    def g(t, x, z):
        return np.array([x[0] + x[1] + z[0] - 1.0])
    kw = dict(g=g, z0=[0.0], rtol=1e-6, atol=1e-12)
    dae = esdirk.solve_ivp(f, (0.0, 1e5), [1.0, 0.0], **kw)
    dae_vectorized = esdirk.solve_ivp(f, (0.0, 1e5), [1.0, 0.0], vectorized=True, **kw)
    assert np.array_equal(dae.y, dae_vectorized.y) and dae.njev == dae_vectorized.njev
    # Counted as evaluated: the vectorized call also evaluates the point of the consistent
    # initialization's Jacobian, where the library differences from the g it already has.
    assert dae_vectorized.nfev == dae.nfev + 1
    # A result of the wrong shape names the callback and the columns.
    with pytest.raises(ValueError, match=r"f returned shape \(3,\), expected \(3, 4\)"):
        esdirk.solve_ivp(lambda t, y: robertson_array(t, y[:, 0] if y.ndim == 2 else y),
                         (0.0, 1.0), [1.0, 0.0, 0.0], vectorized=True)


ROBERTSON_PATTERN = np.array([[1, 1, 1], [1, 1, 1], [0, 1, 0]])


def robertson_sparse_values(t, y):  # the 7 nonzeros of the pattern in CSC order
    return [-0.04, 0.04, 1e4 * y[2], -1e4 * y[2] - 6e7 * y[1], 6e7 * y[1], 1e4 * y[1],
            -1e4 * y[1]]


def test_analytic_sparse_jacobian_in_every_form_and_compiled():
    """jac with jac_sparsity: jac's values on the pattern, factored by KLU. A scipy.sparse
    matrix, a dense array and the CSC nonzeros give the same bits, a compiled function the
    same as the Python one; all agree with the dense analytic and the coloured-difference
    runs to the tolerance."""
    def run(jac, sparsity=ROBERTSON_PATTERN):
        return esdirk.solve_ivp(robertson, (0.0, 1e5), [1.0, 0.0, 0.0], rtol=1e-8, atol=1e-14,
                                jac=jac, jac_sparsity=sparsity, t_eval=[1.0, 1e3, 1e5])
    values = run(robertson_sparse_values)
    assert values.success and values.statistics["fd_function_evaluations"] == 0
    for form in [lambda J: scipy.sparse.csr_matrix(J), lambda J: scipy.sparse.coo_matrix(J),
                 lambda J: J]:
        res = run(lambda t, y: form(robertson_jac(t, y)))
        assert np.array_equal(res.y, values.y) and res.nfev == values.nfev
    lib = ctypes.CDLL(os.environ["ESDIRK_TEST_MODELS"])
    compiled = esdirk.ctypes_type()(("robertson_sparse_jac", lib))
    assert np.array_equal(run(compiled).y, values.y)
    dense = esdirk.solve_ivp(robertson, (0.0, 1e5), [1.0, 0.0, 0.0], rtol=1e-8, atol=1e-14,
                             jac=robertson_jac, t_eval=[1.0, 1e3, 1e5])
    coloured = run(None)
    assert coloured.statistics["fd_function_evaluations"] > 0
    for other in (dense, coloured):
        assert np.allclose(values.y, other.y, rtol=1e-6, atol=1e-14)
    problem = esdirk.Problem(3, 0, 0, lambda t, x, z, p: robertson(t, x),
                             sparse_jac=lambda t, x, z, p: robertson_sparse_values(t, x))
    problem.set_jacobian_pattern(*reversed(np.nonzero(ROBERTSON_PATTERN.T)))
    indptr, indices = problem.jacobian_pattern
    assert indptr.tolist() == [0, 2, 5, 7] and indices.tolist() == [0, 1, 0, 1, 2, 0, 1]


def test_analytic_sparse_jacobian_bad_results():
    def run(jac, sparsity=ROBERTSON_PATTERN):
        return esdirk.solve_ivp(robertson, (0.0, 1.0), [1.0, 0.0, 0.0], jac=jac,
                                jac_sparsity=sparsity)
    with pytest.raises(ValueError, match=r"nonzero .* at row 2, column 0, outside the declared"):
        run(lambda t, y: robertson_jac(t, y) + np.array([[0, 0, 0], [0, 0, 0], [1, 0, 0]]))
    with pytest.raises(ValueError, match=r"returned shape \(6,\), expected \(7,\)"):
        run(lambda t, y: robertson_sparse_values(t, y)[:6])
    with pytest.raises(ValueError, match=r"sparse matrix of shape \(2, 2\), expected \(3, 3\)"):
        run(lambda t, y: scipy.sparse.eye(2))
    with pytest.raises(TypeError, match="scipy.sparse matrix: give its sparsity pattern"):
        esdirk.solve_ivp(robertson, (0.0, 1.0), [1.0, 0.0, 0.0],
                         jac=lambda t, y: scipy.sparse.csr_matrix(robertson_jac(t, y)))
    with pytest.raises(ValueError, match="not both"):
        esdirk.Problem(3, 0, 0, robertson, jac=robertson_jac, sparse_jac=robertson_jac)
    with pytest.raises(ValueError, match="declares no pattern"):
        esdirk.Integrator(esdirk.Problem(3, 0, 0, lambda t, x, z, p: robertson(t, x),
                                         sparse_jac=lambda t, x, z, p: robertson_jac(t, x)))


def test_krylov_solver_gives_the_klu_result():
    def chain(t, x, z, p):  # a stiff reaction-diffusion chain, tridiagonal J
        d = np.empty_like(x)
        d[1:-1] = 400.0 * (x[:-2] - 2 * x[1:-1] + x[2:])
        d[0] = 400.0 * (-2 * x[0] + x[1])
        d[-1] = 400.0 * (x[-2] - 2 * x[-1])
        return d - x ** 2
    n = 40
    rows = [i for i in range(n) for j in (i - 1, i, i + 1) if 0 <= j < n]
    cols = [j for i in range(n) for j in (i - 1, i, i + 1) if 0 <= j < n]
    x0 = np.sin(np.linspace(0.0, np.pi, n)) + 1.0
    results = {}
    for solver in ("sparse", "krylov"):
        problem = esdirk.Problem(n, 0, 0, chain)
        problem.set_jacobian_pattern(rows, cols, solver)
        if solver == "krylov":
            problem.set_krylov_settings(dimension=20, block_size=1)
        integrator = esdirk.Integrator(problem, rtol=1e-6, atol=1e-8)
        integrator.initialize(0.0, x0)
        integrator.integrate_to(1.0)
        results[solver] = integrator
    assert np.allclose(results["krylov"].x, results["sparse"].x, rtol=1e-5, atol=1e-7)
    assert results["krylov"].statistics["linear_iterations"] > 0
    assert results["sparse"].statistics["linear_iterations"] == 0
    with pytest.raises(ValueError, match="Krylov dimension"):
        problem.set_krylov_settings(dimension=0)
