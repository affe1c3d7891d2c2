"""Reference problems, as Python callables and as compiled callbacks (numba.cfunc).

Each model is written once in the arithmetic of the C++ examples (same operations in the same
order), so that a run from Python gives the bits of the same run in C++. The compiled
versions need numba (Debian: python3-numba) and are built on first use.

    robertson(t, y), robertson_jac(t, y)             Robertson's kinetics (3 ODEs)
    van_der_pol(t, y, mu), van_der_pol_jac(t, y, mu)
    dow_f, dow_g, dow_jac, dow_jac_p (t, x, z, p)    the Dow Chemical reactor: 6 + 4 DAE, 9 parameters
    compiled("robertson" | "van_der_pol" | "dow")    the same as numba.cfunc callbacks
"""

import math

import numpy as np

from ._esdirk import RecoverableError

# --- Robertson ------------------------------------------------------------------------------


def robertson(t, y):
    return [-0.04 * y[0] + 1e4 * y[1] * y[2],
            0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1],
            3e7 * y[1] * y[1]]


def robertson_jac(t, y):
    return np.array([[-0.04, 1e4 * y[2], 1e4 * y[1]],
                     [0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1]],
                     [0.0, 6e7 * y[1], 0.0]])


# --- Van der Pol (mu is the parameter p[0] in the compiled form) ----------------------------


def van_der_pol(t, y, mu):
    return [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]]


def van_der_pol_jac(t, y, mu):
    return np.array([[0.0, 1.0],
                     [-2.0 * mu * y[0] * y[1] - 1.0, mu * (1.0 - y[0] * y[0])]])


# --- Dow Chemical batch reactor (examples/dow/dow_model.hpp) ---------------------------------

#: k1, k-1, k2, k3, k-3, K1, K2, K3, Q+
DOW_PARAMETERS = np.array([21.893, 2.14e9, 32.318, 21.893, 1.07e9, 7.65e-18, 4.03e-11,
                           5.32e-18, 0.0131])
DOW_X0 = np.array([1.5776, 8.32, 0.0, 0.0, 0.0, 0.0131])
#: Absolute tolerances of the algebraic states ([H+] ~ 1e-8, u9, u10 ~ 1e-10).
DOW_ALGEBRAIC_ATOL = [1e-14, 1e-14, 1e-16, 1e-16]


def dow_z0():
    """The consistent algebraic start: u9 = u10 = 0, u7 = u8 = 2 K2 u1 / (K2 + sqrt(K2^2 + 4 K2 u1))."""
    K2, u1 = DOW_PARAMETERS[6], DOW_X0[0]
    h = 2.0 * K2 * u1 / (K2 + math.sqrt(K2 * K2 + 4.0 * K2 * u1))
    return np.array([h, h, 0.0, 0.0])


def dow_f(t, x, z, p):
    u2, u4, u6 = x[1], x[3], x[5]
    u7, u8, u9, u10 = z[0], z[1], z[2], z[3]
    k1, km1, k2, k3, km3 = p[0], p[1], p[2], p[3], p[4]
    # [H+] must stay positive: the algebraic equations have a non-physical root with u7 < 0.
    if not (u7 > 0.0):
        raise RecoverableError("[H+] <= 0")
    return [-k2 * u2 * u8,
            -k1 * u2 * u6 + km1 * u10 - k2 * u2 * u8,
            k2 * u2 * u8 + k3 * u4 * u6 - km3 * u9,
            -k3 * u4 * u6 + km3 * u9,
            k1 * u2 * u6 - km1 * u10,
            -k1 * u2 * u6 - k3 * u4 * u6 + km1 * u10 + km3 * u9]


def dow_g(t, x, z, p):
    u1, u3, u5, u6 = x[0], x[2], x[4], x[5]
    u7, u8, u9, u10 = z[0], z[1], z[2], z[3]
    K1, K2, K3, Qp = p[5], p[6], p[7], p[8]
    return [-Qp + u6 + u8 + u9 + u10 - u7,
            u8 - K2 * u1 / (K2 + u7),
            u9 - K3 * u3 / (K3 + u7),
            u10 - K1 * u5 / (K1 + u7)]


def dow_jac(t, x, z, p):
    u1, u2, u3, u4, u5, u6 = x[0], x[1], x[2], x[3], x[4], x[5]
    u7, u8 = z[0], z[1]
    k1, km1, k2, k3, km3 = p[0], p[1], p[2], p[3], p[4]
    K1, K2, K3 = p[5], p[6], p[7]
    J = np.zeros((10, 10))
    J[0, 1] = -k2 * u8
    J[0, 7] = -k2 * u2
    J[1, 1] = -k1 * u6 - k2 * u8
    J[1, 5] = -k1 * u2
    J[1, 7] = -k2 * u2
    J[1, 9] = km1
    J[2, 1] = k2 * u8
    J[2, 3] = k3 * u6
    J[2, 5] = k3 * u4
    J[2, 7] = k2 * u2
    J[2, 8] = -km3
    J[3, 3] = -k3 * u6
    J[3, 5] = -k3 * u4
    J[3, 8] = km3
    J[4, 1] = k1 * u6
    J[4, 5] = k1 * u2
    J[4, 9] = -km1
    J[5, 1] = -k1 * u6
    J[5, 3] = -k3 * u6
    J[5, 5] = -k1 * u2 - k3 * u4
    J[5, 8] = km3
    J[5, 9] = km1
    J[6, 5] = 1.0
    J[6, 6] = -1.0
    J[6, 7] = 1.0
    J[6, 8] = 1.0
    J[6, 9] = 1.0
    J[7, 0] = -K2 / (K2 + u7)
    J[7, 6] = K2 * u1 / ((K2 + u7) * (K2 + u7))
    J[7, 7] = 1.0
    J[8, 2] = -K3 / (K3 + u7)
    J[8, 6] = K3 * u3 / ((K3 + u7) * (K3 + u7))
    J[8, 8] = 1.0
    J[9, 4] = -K1 / (K1 + u7)
    J[9, 6] = K1 * u5 / ((K1 + u7) * (K1 + u7))
    J[9, 9] = 1.0
    return J


def dow_jac_p(t, x, z, p):
    u1, u2, u3, u4, u5, u6 = x[0], x[1], x[2], x[3], x[4], x[5]
    u7, u8, u9, u10 = z[0], z[1], z[2], z[3]
    K1, K2, K3 = p[5], p[6], p[7]
    Jp = np.zeros((10, 9))
    Jp[0, 2] = -u2 * u8
    Jp[1, 0] = -u2 * u6
    Jp[1, 1] = u10
    Jp[1, 2] = -u2 * u8
    Jp[2, 2] = u2 * u8
    Jp[2, 3] = u4 * u6
    Jp[2, 4] = -u9
    Jp[3, 3] = -u4 * u6
    Jp[3, 4] = u9
    Jp[4, 0] = u2 * u6
    Jp[4, 1] = -u10
    Jp[5, 0] = -u2 * u6
    Jp[5, 1] = u10
    Jp[5, 3] = -u4 * u6
    Jp[5, 4] = u9
    Jp[6, 8] = -1.0
    Jp[7, 6] = -u1 * u7 / ((K2 + u7) * (K2 + u7))
    Jp[8, 7] = -u3 * u7 / ((K3 + u7) * (K3 + u7))
    Jp[9, 5] = -u5 * u7 / ((K1 + u7) * (K1 + u7))
    return Jp


def dow_scaled_seed():
    """Seed columns p_j e_j over (x0, p): the sensitivities come out scaled, p_j du/dp_j."""
    seed = np.zeros((15, 9))
    seed[6:, :] = np.diag(DOW_PARAMETERS)
    return seed


# --- Compiled (numba.cfunc) -----------------------------------------------------------------

_compiled = {}


def compiled(name):
    """The model's callbacks as numba.cfunc objects: a dict with 'f', 'jac' (and for the Dow
    DAE 'g', 'jac_p'). The Van der Pol parameter mu is p[0]. Built on first use."""
    if name not in _compiled:
        builders = {"robertson": _robertson_cfuncs, "van_der_pol": _van_der_pol_cfuncs,
                    "dow": _dow_cfuncs}
        if name not in builders:
            raise ValueError("unknown model %r (known: %s)" % (name, ", ".join(builders)))
        _compiled[name] = builders[name]()
    return _compiled[name]


def _cfunc(fn):
    import numba
    from ._callbacks import numba_signature
    return numba.cfunc(numba_signature(), nopython=True)(fn)


def _robertson_cfuncs():
    def f(t, y, z, p, out):
        out[0] = -0.04 * y[0] + 1e4 * y[1] * y[2]
        out[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1]
        out[2] = 3e7 * y[1] * y[1]
        return 0

    def jac(t, y, z, p, J):  # column-major
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
    return {"f": _cfunc(f), "jac": _cfunc(jac)}


def _van_der_pol_cfuncs():
    def f(t, y, z, p, out):
        out[0] = y[1]
        out[1] = p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0]
        return 0

    def jac(t, y, z, p, J):  # column-major
        J[0] = 0.0
        J[1] = -2.0 * p[0] * y[0] * y[1] - 1.0
        J[2] = 1.0
        J[3] = p[0] * (1.0 - y[0] * y[0])
        return 0
    return {"f": _cfunc(f), "jac": _cfunc(jac)}


def _dow_cfuncs():
    def f(t, x, z, p, out):
        u2, u4, u6 = x[1], x[3], x[5]
        u7, u8, u9, u10 = z[0], z[1], z[2], z[3]
        k1, km1, k2, k3, km3 = p[0], p[1], p[2], p[3], p[4]
        if not (u7 > 0.0):
            return 1
        out[0] = -k2 * u2 * u8
        out[1] = -k1 * u2 * u6 + km1 * u10 - k2 * u2 * u8
        out[2] = k2 * u2 * u8 + k3 * u4 * u6 - km3 * u9
        out[3] = -k3 * u4 * u6 + km3 * u9
        out[4] = k1 * u2 * u6 - km1 * u10
        out[5] = -k1 * u2 * u6 - k3 * u4 * u6 + km1 * u10 + km3 * u9
        return 0

    def g(t, x, z, p, out):
        u1, u3, u5, u6 = x[0], x[2], x[4], x[5]
        u7, u8, u9, u10 = z[0], z[1], z[2], z[3]
        K1, K2, K3, Qp = p[5], p[6], p[7], p[8]
        out[0] = -Qp + u6 + u8 + u9 + u10 - u7
        out[1] = u8 - K2 * u1 / (K2 + u7)
        out[2] = u9 - K3 * u3 / (K3 + u7)
        out[3] = u10 - K1 * u5 / (K1 + u7)
        return 0

    def jac(t, x, z, p, J):  # column-major 10 x 10: J[i + 10 j]
        u1, u2, u3, u4, u5, u6 = x[0], x[1], x[2], x[3], x[4], x[5]
        u7, u8 = z[0], z[1]
        k1, km1, k2, k3, km3 = p[0], p[1], p[2], p[3], p[4]
        K1, K2, K3 = p[5], p[6], p[7]
        for k in range(100):
            J[k] = 0.0
        J[0 + 10 * 1] = -k2 * u8
        J[0 + 10 * 7] = -k2 * u2
        J[1 + 10 * 1] = -k1 * u6 - k2 * u8
        J[1 + 10 * 5] = -k1 * u2
        J[1 + 10 * 7] = -k2 * u2
        J[1 + 10 * 9] = km1
        J[2 + 10 * 1] = k2 * u8
        J[2 + 10 * 3] = k3 * u6
        J[2 + 10 * 5] = k3 * u4
        J[2 + 10 * 7] = k2 * u2
        J[2 + 10 * 8] = -km3
        J[3 + 10 * 3] = -k3 * u6
        J[3 + 10 * 5] = -k3 * u4
        J[3 + 10 * 8] = km3
        J[4 + 10 * 1] = k1 * u6
        J[4 + 10 * 5] = k1 * u2
        J[4 + 10 * 9] = -km1
        J[5 + 10 * 1] = -k1 * u6
        J[5 + 10 * 3] = -k3 * u6
        J[5 + 10 * 5] = -k1 * u2 - k3 * u4
        J[5 + 10 * 8] = km3
        J[5 + 10 * 9] = km1
        J[6 + 10 * 5] = 1.0
        J[6 + 10 * 6] = -1.0
        J[6 + 10 * 7] = 1.0
        J[6 + 10 * 8] = 1.0
        J[6 + 10 * 9] = 1.0
        J[7 + 10 * 0] = -K2 / (K2 + u7)
        J[7 + 10 * 6] = K2 * u1 / ((K2 + u7) * (K2 + u7))
        J[7 + 10 * 7] = 1.0
        J[8 + 10 * 2] = -K3 / (K3 + u7)
        J[8 + 10 * 6] = K3 * u3 / ((K3 + u7) * (K3 + u7))
        J[8 + 10 * 8] = 1.0
        J[9 + 10 * 4] = -K1 / (K1 + u7)
        J[9 + 10 * 6] = K1 * u5 / ((K1 + u7) * (K1 + u7))
        J[9 + 10 * 9] = 1.0
        return 0

    def jac_p(t, x, z, p, Jp):  # column-major 10 x 9: Jp[i + 10 j]
        u1, u2, u3, u4, u5, u6 = x[0], x[1], x[2], x[3], x[4], x[5]
        u7, u8, u9, u10 = z[0], z[1], z[2], z[3]
        K1, K2, K3 = p[5], p[6], p[7]
        for k in range(90):
            Jp[k] = 0.0
        Jp[0 + 10 * 2] = -u2 * u8
        Jp[1 + 10 * 0] = -u2 * u6
        Jp[1 + 10 * 1] = u10
        Jp[1 + 10 * 2] = -u2 * u8
        Jp[2 + 10 * 2] = u2 * u8
        Jp[2 + 10 * 3] = u4 * u6
        Jp[2 + 10 * 4] = -u9
        Jp[3 + 10 * 3] = -u4 * u6
        Jp[3 + 10 * 4] = u9
        Jp[4 + 10 * 0] = u2 * u6
        Jp[4 + 10 * 1] = -u10
        Jp[5 + 10 * 0] = -u2 * u6
        Jp[5 + 10 * 1] = u10
        Jp[5 + 10 * 3] = -u4 * u6
        Jp[5 + 10 * 4] = u9
        Jp[6 + 10 * 8] = -1.0
        Jp[7 + 10 * 6] = -u1 * u7 / ((K2 + u7) * (K2 + u7))
        Jp[8 + 10 * 7] = -u3 * u7 / ((K3 + u7) * (K3 + u7))
        Jp[9 + 10 * 5] = -u5 * u7 / ((K1 + u7) * (K1 + u7))
        return 0
    return {"f": _cfunc(f), "g": _cfunc(g), "jac": _cfunc(jac), "jac_p": _cfunc(jac_p)}
