"""The Python package's overhead on the Dow reactor with its 9 scaled parameter sensitivities
(examples/dow's run: rtol 1e-6, 115 output times, exact mode under error control):
esdirk.solve_ivp with compiled (numba.cfunc) and with Python callbacks against the C++ run of
the same problem (the dow example's CPU line, best of 3), each the best of --repeat runs.

    python3 dow_overhead.py path/to/examples/dow/dow [--repeat 20] [--rtol 1e-6]
"""

import argparse
import re
import subprocess
import time

import numpy as np

import esdirk
from esdirk import models


def output_times():
    return np.concatenate([np.outer(10.0 ** np.arange(-6, -1), [1, 2, 5]).ravel(),
                           0.1 * np.arange(1, 101)])


def python_time(callbacks, rtol, repeat):
    f, g, jac, jac_p = callbacks
    best, res = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        res = esdirk.solve_ivp(f, (0.0, 10.0), models.DOW_X0, g=g, z0=models.dow_z0(),
                               p=models.DOW_PARAMETERS, jac=jac, jac_p=jac_p, t_eval=output_times(),
                               rtol=rtol, atol=1e-6 * rtol, algebraic_atol=models.DOW_ALGEBRAIC_ATOL,
                               seed=models.dow_scaled_seed())
        best = min(best, time.perf_counter() - start)
    assert res.success, res.message
    return best, res.statistics


def cpp_time(program, rtol, repeat):
    best, steps = np.inf, None
    for _ in range(max(1, repeat // 3)):  # the example itself takes the best of 3
        out = subprocess.run([program, "--rtol", str(rtol)], check=True, capture_output=True,
                             text=True).stdout
        best = min(best, float(re.search(r"^CPU\s+(\S+)", out, re.M).group(1)))
        steps = int(re.search(r"^NSTEP\s+(\d+)", out, re.M).group(1))
    return best, steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dow", help="the dow example program (build/examples/dow/dow)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rtol", type=float, default=1e-6)
    args = parser.parse_args()
    c = models.compiled("dow")
    compiled, cstats = python_time((c["f"], c["g"], c["jac"], c["jac_p"]), args.rtol, args.repeat)
    python, pstats = python_time((models.dow_f, models.dow_g, models.dow_jac, models.dow_jac_p),
                                 args.rtol, max(3, args.repeat // 5))
    cpp, cpp_steps = cpp_time(args.dow, args.rtol, args.repeat)
    assert cstats["steps"] == pstats["steps"] == cpp_steps, "the runs must be the same steps"
    print("Dow reactor with 9 sensitivities, rtol %.0e, %d steps (the same in every run)"
          % (args.rtol, cpp_steps))
    print("%-34s %10s %8s" % ("run", "seconds", "vs C++"))
    print("%-34s %10.4f %8.2f" % ("C++ (examples/dow)", cpp, 1.0))
    print("%-34s %10.4f %8.2f" % ("solve_ivp, numba.cfunc callbacks", compiled, compiled / cpp))
    print("%-34s %10.4f %8.2f" % ("solve_ivp, Python callbacks", python, python / cpp))


if __name__ == "__main__":
    main()
