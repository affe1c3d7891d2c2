"""Robertson's kinetics with callbacks written in Python and compiled by numba.cfunc: the
integration runs without the interpreter (and with the GIL released).

    python3 robertson_numba.py
"""

import sys

import numba

import esdirk
from robertson_common import run


@numba.cfunc(esdirk.numba_signature())
def f(t, y, z, p, out):
    out[0] = -0.04 * y[0] + 1e4 * y[1] * y[2]
    out[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1]
    out[2] = 3e7 * y[1] * y[1]
    return 0


@numba.cfunc(esdirk.numba_signature())
def jac(t, y, z, p, J):  # column-major: J[i + 3 j] = df_i/dy_j
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


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(__doc__)
        sys.exit(0)
    sys.exit(run("numba.cfunc", f, jac))
