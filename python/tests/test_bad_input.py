"""Bad input: a clear Python exception, and the solver state kept (a later call works)."""

import ctypes

import numpy as np
import pytest

import esdirk
from conftest import robertson, robertson_jac


def decay(t, y):
    return -y


def test_wrong_y0_shape_and_dtype():
    with pytest.raises(ValueError, match="one-dimensional"):
        esdirk.solve_ivp(decay, (0, 1), [[1.0, 2.0]])
    with pytest.raises(TypeError, match="real numbers"):
        esdirk.solve_ivp(decay, (0, 1), np.array([1.0 + 1j]))
    with pytest.raises(TypeError, match="real numbers"):
        esdirk.solve_ivp(decay, (0, 1), np.array(["a"]))


def test_non_contiguous_input_is_copied_correctly():
    y = (np.arange(6.0) + 1.0)[::2]  # a strided view
    assert not y.flags.c_contiguous
    res = esdirk.solve_ivp(decay, (0, 1), y, rtol=1e-8, atol=1e-12)
    ref = esdirk.solve_ivp(decay, (0, 1), np.ascontiguousarray(y), rtol=1e-8, atol=1e-12)
    assert np.array_equal(res.y, ref.y)


def test_callback_returning_the_wrong_shape():
    with pytest.raises(ValueError, match=r"f returned shape \(3,\), expected \(2,\)"):
        esdirk.solve_ivp(lambda t, y: [1.0, 2.0, 3.0], (0, 1), [1.0, 1.0])
    with pytest.raises(ValueError, match="returned None"):
        esdirk.solve_ivp(lambda t, y: None, (0, 1), [1.0])
    with pytest.raises(ValueError, match=r"jac returned shape \(2,\), expected \(2, 2\)"):
        esdirk.solve_ivp(decay, (0, 1), [1.0, 1.0], jac=lambda t, y: [1.0, 2.0])


def test_callback_raising_propagates_the_exception():
    def broken(t, y):
        if t > 0.5:
            raise KeyError("model table has no entry")
        return -y
    with pytest.raises(KeyError, match="model table"):
        esdirk.solve_ivp(broken, (0, 1), [1.0])


def test_nan_ends_with_a_failed_result():
    res = esdirk.solve_ivp(lambda t, y: [np.nan], (0, 1), [1.0])
    assert not res.success
    assert "non-finite" in res.message or "failing" in res.message


def test_recoverable_error_retries_the_step():
    calls = {"failed": 0}

    def sometimes(t, y):
        if y[0] < 0.0:  # outside the model's domain: the step is retried smaller
            calls["failed"] += 1
            raise esdirk.RecoverableError("negative concentration")
        return -50.0 * y
    res = esdirk.solve_ivp(sometimes, (0, 1), [1.0], rtol=1e-3, atol=1e-8, first_step=0.5)
    assert res.success


def test_unknown_option_and_scipy_method_names():
    with pytest.raises(TypeError, match="unexpected option 'max_stepz'"):
        esdirk.solve_ivp(decay, (0, 1), [1.0], max_stepz=3)
    with pytest.raises(ValueError, match="scipy's"):
        esdirk.solve_ivp(decay, (0, 1), [1.0], method="Radau")
    with pytest.raises(ValueError, match="unknown"):
        esdirk.solve_ivp(decay, (0, 1), [1.0], method="RK4")
    with pytest.raises(ValueError, match="rtol"):
        esdirk.solve_ivp(decay, (0, 1), [1.0], rtol=-1.0)
    with pytest.raises(ValueError, match="newton_test"):
        esdirk.Options(newton_test="fast")


def test_the_fresh_jacobian_newton_fields_are_checked_and_reach_the_run():
    """Options.newton_fresh_rate_floor and newton_carry_observed_rate (the rate test with a
    Jacobian of this step): defaults 0.003 and True, a floor outside [0, 1) refused naming the
    field, and the previous test (0.03, not carried) costs Robertson more Newton iterations."""
    assert esdirk.Options().newton_fresh_rate_floor == 0.003
    assert esdirk.Options().newton_carry_observed_rate is True
    for bad in (-0.1, 1.0, float("nan")):
        with pytest.raises(ValueError, match="newton_fresh_rate_floor"):
            esdirk.solve_ivp(decay, (0, 1), [1.0], newton_fresh_rate_floor=bad)
    with pytest.raises(TypeError):
        esdirk.Options(newton_carry_observed_rate="yes")

    def run(**kw):
        res = esdirk.solve_ivp(robertson, (0.0, 1e3), [1.0, 0.0, 0.0], rtol=1e-6, atol=1e-12,
                               jac=robertson_jac, **kw)
        assert res.success
        return res.statistics["newton_iterations"]
    default = run()
    assert run(newton_fresh_rate_floor=0.003, newton_carry_observed_rate=True) == default
    assert run(newton_fresh_rate_floor=0.03, newton_carry_observed_rate=False) > default


def test_t_eval_outside_the_span():
    with pytest.raises(ValueError, match="t_span"):
        esdirk.solve_ivp(decay, (0, 1), [1.0], t_eval=[2.0])


def test_wrongly_declared_function_pointer_is_refused():
    fn_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_double, ctypes.POINTER(ctypes.c_double))
    wrong = fn_type(lambda t, y: 0)
    with pytest.raises(TypeError, match="signature"):
        esdirk.solve_ivp(wrong, (0, 1), [1.0])
    with pytest.raises(TypeError, match="CFunction"):
        esdirk.solve_ivp(12345, (0, 1), [1.0])


def test_integrator_keeps_its_state_after_a_callback_error():
    fail = {"now": False}

    def f(t, x, z, p):
        if fail["now"]:
            raise RuntimeError("sensor offline")
        return -x

    problem = esdirk.Problem(1, 0, 0, f)
    solver = esdirk.Integrator(problem, rtol=1e-8, atol=1e-12)
    solver.initialize(0.0, [1.0])
    solver.integrate_to(0.5)
    x_half = solver.x.copy()
    fail["now"] = True
    with pytest.raises(RuntimeError, match="sensor offline"):
        solver.integrate_to(1.0)
    fail["now"] = False
    solver.integrate_to(1.0)  # continues from the last good step
    assert solver.t == 1.0
    assert solver.x[0] == pytest.approx(np.exp(-1.0), rel=1e-7)
    assert x_half[0] == pytest.approx(np.exp(-0.5), rel=1e-7)


def test_integrator_failure_raises_solver_error_and_can_continue():
    problem = esdirk.Problem(3, 0, 0, lambda t, y, z, p: robertson(t, y))
    solver = esdirk.Integrator(problem, rtol=1e-6, atol=1e-12, max_steps=3)
    solver.initialize(0.0, [1.0, 0.0, 0.0])
    with pytest.raises(esdirk.SolverError, match="steps taken in this call") as info:
        solver.integrate_to(1e3)
    assert info.value.status_name == "too_many_steps"
    t_stuck = solver.t
    for _ in range(200):  # each call may take three more steps
        try:
            solver.integrate_to(1e3)
            break
        except esdirk.SolverError:
            assert solver.t >= t_stuck
    assert solver.t == 1e3


def test_wrong_sizes_in_the_integrator():
    problem = esdirk.Problem(2, 0, 1, lambda t, x, z, p: -p[0] * x)
    solver = esdirk.Integrator(problem)
    with pytest.raises(ValueError, match="x0 must have 2 entries"):
        solver.initialize(0.0, [1.0])
    with pytest.raises(ValueError, match="p must have 1 entries"):
        solver.initialize(0.0, [1.0, 1.0], p=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"seed must have shape \(3, m\)"):
        solver.initialize(0.0, [1.0, 1.0], p=[1.0])
        solver.enable_sensitivities(np.ones((2, 2)))
    solver.integrate_to(1.0)  # still usable
    assert solver.x == pytest.approx(np.exp(-1.0) * np.ones(2), rel=1e-4)


def test_every_form_of_a_result_gives_the_same_bits():
    """The binding reads lists and tuples of numbers and native float64 arrays of any strides
    directly, and converts every other array-like through NumPy: the same numbers in any of
    these forms give the same run, to the last bit."""
    def run(f_form, jac_form):
        return esdirk.solve_ivp(lambda t, y: f_form(robertson(t, y)), (0.0, 1e3), [1.0, 0.0, 0.0],
                                rtol=1e-6, atol=1e-12,
                                jac=lambda t, y: jac_form(np.array(robertson_jac(t, y))))
    reference = run(list, lambda J: J)
    forms_of_f = [tuple, np.array, lambda v: np.repeat(np.array(v), 2)[::2],
                  lambda v: np.array(v, dtype=">f8"), lambda v: [float(x) for x in v],
                  lambda v: np.array(v)[:, None].T[0], lambda v: np.array([v]).T[:, 0]]
    forms_of_jac = [np.asfortranarray, lambda J: J.tolist(), lambda J: J.T.copy().T,
                    lambda J: J.astype(">f8"), lambda J: np.kron(J, np.ones((2, 2)))[::2, ::2]]
    for form in forms_of_f:
        res = run(form, lambda J: J)
        assert np.array_equal(res.y, reference.y) and res.nfev == reference.nfev
    for form in forms_of_jac:
        res = run(list, form)
        assert np.array_equal(res.y, reference.y) and res.nfev == reference.nfev
    # Integers count as numbers (a list with an exact 0 as with 0.0); a number too large for
    # int64 is not (NumPy makes an object array of it), nor is a string in a list.
    ints = esdirk.solve_ivp(lambda t, y: [-y[0], 0], (0, 1), [1.0, 2.0], rtol=1e-8, atol=1e-12)
    floats = esdirk.solve_ivp(lambda t, y: [-y[0], 0.0], (0, 1), [1.0, 2.0], rtol=1e-8, atol=1e-12)
    assert np.array_equal(ints.y, floats.y)
    with pytest.raises(TypeError, match="f's result must be real numbers"):
        esdirk.solve_ivp(lambda t, y: [10 ** 30], (0, 1), [1.0])
    with pytest.raises(TypeError, match="f's result must be real numbers"):
        esdirk.solve_ivp(lambda t, y: [-y[0], "x"], (0, 1), [1.0, 2.0])
    with pytest.raises(TypeError, match="f's result must be real numbers"):
        esdirk.solve_ivp(lambda t, y: np.array([1j]), (0, 1), [1.0])


def test_an_objective_gradient_that_returns_no_sequence_is_named():
    """It raised tuple()'s "'float' object is not iterable", naming no callback."""
    problem = esdirk.Problem(1, 0, 1, lambda t, x, z, p: [-p[0] * x[0]])
    with pytest.raises(TypeError, match="terminal must return a tuple .* got float"):
        esdirk.adjoint_gradient(problem, (0.0, 1.0), [1.0], p=[1.0],
                                terminal=lambda t, x, z, p: 1.0)
    r = esdirk.adjoint_gradient(problem, (0.0, 1.0), [1.0], p=[1.0], weights=[1.0],
                                options=esdirk.Options(rtol=1e-8, atol=1e-10))
    assert abs(r["dx0"][0] - np.exp(-1.0)) < 1e-6
