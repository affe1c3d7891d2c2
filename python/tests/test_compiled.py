"""Compiled callbacks: ctypes, cffi and numba.cfunc give the same bits as Python callables,
the GIL is released while they run, and wrongly declared pointers are refused."""

import ctypes
import os
import threading

import cffi
import numba
import numpy as np
import pytest

import esdirk
from conftest import robertson, robertson_jac

LIBRARY = os.environ["ESDIRK_TEST_MODELS"]
T_EVAL = [1e-3, 1.0, 1e3, 1e5]


def solve(fun, jac, **kw):
    return esdirk.solve_ivp(fun, (0.0, 1e5), [1.0, 0.0, 0.0], t_eval=T_EVAL, rtol=1e-8,
                            atol=1e-14, jac=jac, **kw)


@pytest.fixture(scope="module")
def reference():
    return solve(robertson, robertson_jac)


def declared(lib, name):
    fn = getattr(lib, name)
    dp = ctypes.POINTER(ctypes.c_double)
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_double, dp, dp, dp, dp]
    return fn


def test_ctypes_route_gives_the_same_bits(reference):
    lib = ctypes.CDLL(LIBRARY)
    res = solve(declared(lib, "robertson_f"), declared(lib, "robertson_jac"))
    assert res.success
    assert np.array_equal(res.y, reference.y)
    assert res.statistics == reference.statistics


def test_cffi_route_gives_the_same_bits(reference):
    ffi = cffi.FFI()
    ffi.cdef("int robertson_f(double, double *, double *, double *, double *);"
             "int robertson_jac(double, double *, double *, double *, double *);")
    lib = ffi.dlopen(LIBRARY)
    res = solve(lib.robertson_f, lib.robertson_jac)
    assert np.array_equal(res.y, reference.y)


@numba.cfunc(esdirk.numba_signature())
def numba_f(t, y, z, p, f):
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2]
    f[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1]
    f[2] = 3e7 * y[1] * y[1]
    return 0


@numba.cfunc(esdirk.numba_signature())
def numba_jac(t, y, z, p, J):  # column-major
    J[0] = -0.04
    J[1] = 0.04
    J[2] = 0.0
    J[3] = 1e4 * y[2]
    J[4] = -1e4 * y[2] - 6e7 * y[1]
    J[5] = 6e7 * y[1]
    J[6] = 1e4 * y[1]
    J[7] = -1e4 * y[1]
    J[8] = 0.0
    return 0


def test_numba_route_gives_the_same_bits(reference):
    res = solve(numba_f, numba_jac)
    assert np.array_equal(res.y, reference.y)
    assert res.statistics == reference.statistics


def test_raw_address_route(reference):
    res = solve(esdirk.CFunction(numba_f.address), esdirk.CFunction(numba_jac.address))
    assert np.array_equal(res.y, reference.y)


def test_compiled_event_function():
    lib = ctypes.CDLL(LIBRARY)
    event = declared(lib, "robertson_half_converted")
    # ctypes function objects take attributes like Python functions.
    event.terminal = True
    res = esdirk.solve_ivp(declared(lib, "robertson_f"), (0.0, 1e5), [1.0, 0.0, 0.0],
                           rtol=1e-8, atol=1e-14, jac=declared(lib, "robertson_jac"),
                           events=[event])

    def python_event(t, y):
        return y[2] - 0.5
    python_event.terminal = True
    ref = esdirk.solve_ivp(robertson, (0.0, 1e5), [1.0, 0.0, 0.0], rtol=1e-8, atol=1e-14,
                           jac=robertson_jac, events=[python_event])
    assert res.status == 1
    assert res.y[2, -1] == pytest.approx(0.5, abs=1e-12)
    assert res.t_events[0][0] == ref.t_events[0][0]


def test_compiled_callbacks_run_without_the_gil():
    lib = ctypes.CDLL(LIBRARY)
    probe = declared(lib, "gil_probe_f")
    count = lib.gil_probe_count
    count.restype = ctypes.c_int
    before = count()
    res = esdirk.solve_ivp(probe, (0.0, 1.0), [1.0], rtol=1e-6, atol=1e-10)
    assert res.success and res.nfev > 10
    assert count() == before  # no call held the GIL


def test_threads_integrate_in_parallel_with_compiled_callbacks():
    results = [None] * 4

    def work(i):
        results[i] = solve(numba_f, numba_jac).y

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for r in results[1:]:
        assert np.array_equal(r, results[0])


def test_compiled_fatal_failure_is_a_clear_failed_result():
    lib = ctypes.CDLL(LIBRARY)
    res = esdirk.solve_ivp(declared(lib, "always_fails"), (0.0, 1.0), [1.0])
    assert not res.success and res.status == -1
    assert res.status_name == "callback_fatal"
    # The next call with a good callback works.
    assert esdirk.solve_ivp(declared(lib, "gil_probe_f"), (0.0, 1.0), [1.0]).success


def test_wrong_declarations_are_refused_before_any_call():
    lib = ctypes.CDLL(LIBRARY)
    undeclared = lib.robertson_f
    with pytest.raises(TypeError, match="no declared argtypes"):
        esdirk.solve_ivp(undeclared, (0.0, 1.0), [1.0, 0.0, 0.0])
    wrong = lib.robertson_jac
    wrong.restype = ctypes.c_double
    wrong.argtypes = [ctypes.c_double] + [ctypes.POINTER(ctypes.c_double)] * 4
    with pytest.raises(TypeError, match="signature"):
        esdirk.solve_ivp(robertson, (0.0, 1.0), [1.0, 0.0, 0.0], jac=wrong)

    @numba.cfunc("float64(float64, CPointer(float64))")
    def two_arguments(t, y):
        return 0.0
    with pytest.raises(TypeError, match="signature"):
        esdirk.solve_ivp(two_arguments, (0.0, 1.0), [1.0])
    ffi = cffi.FFI()
    ffi.cdef("int robertson_half_converted(double, double *);")
    with pytest.raises(TypeError, match="signature"):
        esdirk.solve_ivp(ffi.dlopen(LIBRARY).robertson_half_converted, (0.0, 1.0), [1.0])
