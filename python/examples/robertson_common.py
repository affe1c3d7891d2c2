"""What the Robertson examples share: the run, the reference and the check."""

import sys

import numpy as np

import esdirk

# Reference at t = 1e11 (the IVP test set's values; y3 from the mass balance).
REFERENCE = np.array([2.083340149701255e-08, 8.333360770334713e-14, 9.999999791665050e-01])
T_EVAL = 10.0 ** np.arange(-5, 12)


def run(route, fun, jac, rtol=1e-8):
    res = esdirk.solve_ivp(fun, (0.0, 1e11), [1.0, 0.0, 0.0], t_eval=T_EVAL, rtol=rtol,
                           atol=1e-7 * rtol, jac=jac)
    print("Robertson to t = 1e11 with %s callbacks, %s, rtol = %.0e" % (route, res.method, rtol))
    for t, y in zip(res.t[::4], res.y[:, ::4].T):
        print("  t = %8.0e   y = %.10e %.10e %.10e" % (t, *y))
    error = np.max(np.abs(res.y[:, -1] - REFERENCE) / REFERENCE)
    print("largest relative error at 1e11: %.2e;  steps %d, f evaluations %d, LUs %d"
          % (error, res.statistics["steps"], res.nfev, res.nlu))
    ok = res.success and error < 1e3 * rtol and abs(res.y[:, -1].sum() - 1.0) < 1e-12
    print("OK" if ok else "FAILED: " + res.message)
    return 0 if ok else 1


def library_argument(default_name):
    """The compiled model library: argv[1], or the build's default location."""
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print("usage: %s [path to the compiled model library]" % sys.argv[0])
        sys.exit(0)
    return sys.argv[1] if len(sys.argv) > 1 else default_name
