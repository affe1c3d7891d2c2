"""Multiple shooting from Python: the Van der Pol oscillator (mu = 5, as the control-free
parameter) on 16 intervals, evaluated by a pool of threads with compiled (numba.cfunc)
callbacks, which run in parallel. The continuity defects and A = dx/dx_k are checked: the
shooting solution from the exact nodes has no defects, and A matches differences.

    python3 shooting_threads.py [--threads 2]
"""

import argparse
import sys
import time

import numpy as np

import esdirk
from esdirk import models


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    c = models.compiled("van_der_pol")
    problem = esdirk.Problem(2, 0, 1, c["f"], jac=c["jac"])
    options = esdirk.Options(rtol=1e-9, atol=1e-11)
    N, T, mu = 16, 4.0, 5.0
    t = np.linspace(0.0, T, N + 1)
    # Nodes on one trajectory: then the intervals join without defects.
    ref = esdirk.solve_ivp(c["f"], (0.0, T), [2.0, 0.0], p=[mu], jac=c["jac"], t_eval=t,
                           rtol=1e-11, atol=1e-13)
    nodes = ref.y.T
    evaluator = esdirk.IntervalEvaluator(problem, N, options, threads=args.threads)
    start = time.perf_counter()
    out = evaluator.evaluate(t[:-1], t[1:], nodes[:-1], np.full((N, 1), mu))
    seconds = time.perf_counter() - start
    defects = np.max(np.abs(out["x"] - nodes[1:]))
    k, eps = 7, 1e-6
    fd = np.column_stack([
        (esdirk.solve_ivp(c["f"], (t[k], t[k + 1]), nodes[k] + eps * e, p=[mu], jac=c["jac"],
                          rtol=1e-11, atol=1e-13).y[:, -1]
         - esdirk.solve_ivp(c["f"], (t[k], t[k + 1]), nodes[k] - eps * e, p=[mu], jac=c["jac"],
                            rtol=1e-11, atol=1e-13).y[:, -1]) / (2 * eps) for e in np.eye(2)])
    a_error = np.max(np.abs(out["A"][k] - fd)) / np.max(np.abs(fd))
    print("%d intervals on %d threads: %.4f s; largest defect %.1e; A[%d] vs differences %.1e"
          % (N, evaluator.threads, seconds, defects, k, a_error))
    ok = out["ok"] and defects < 1e-6 and a_error < 1e-5
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
