"""The bouncing ball as a hybrid system: z' = v, v' = -g, an impact where z falls through 0
and the reset v+ = -gamma v-, with the sensitivities to (z0, v0, g, gamma) across the impacts
(the jumps at events include the event-time sensitivity). Checked against the closed form.

    python3 bouncing_ball.py
"""

import math
import sys

import numpy as np

import esdirk


def closed_form(t, z0, v0, g, gamma):
    """The state at t (before the second impact)."""
    t1 = (v0 + math.sqrt(v0 * v0 + 2 * g * z0)) / g  # the first impact
    if t < t1:
        return np.array([z0 + v0 * t - 0.5 * g * t * t, v0 - g * t])
    v1 = -gamma * (v0 - g * t1)
    s = t - t1
    return np.array([v1 * s - 0.5 * g * s * s, v1 - g * s])


def main():
    if len(sys.argv) > 1:
        print(__doc__)
        return 0
    p = np.array([10.0, 0.8])  # g, gamma
    x0 = np.array([5.0, -0.1])
    problem = esdirk.HybridProblem(
        2, 0, 2, 1,
        f=lambda mode, t, x, z, p: [x[1], -p[0]],
        events=lambda mode, t, x, z, p: [x[0]],
        transition=lambda mode, fired, t, x, z, p: (mode, [x[0], -p[1] * x[1]]))
    solver = esdirk.HybridSolver(problem, esdirk.Options(rtol=1e-10, atol=1e-12),
                                 directions=[-1])
    solver.initialize(0.0, 0, x0, p=p)
    solver.initialize_sensitivities()
    solver.integrate_to(1.9)
    exact = closed_form(1.9, *x0, *p)
    # The sensitivities against central differences of the closed form.
    eps = 1e-6
    fd = np.column_stack([(closed_form(1.9, *(np.r_[x0, p] + eps * e)) -
                           closed_form(1.9, *(np.r_[x0, p] - eps * e))) / (2 * eps)
                          for e in np.eye(4)])
    event = solver.events[0]
    print("impact at t = %.12f (closed form %.12f)" % (event["t"], (0.1 + math.sqrt(0.01 + 100)) / 10))
    print("x(1.9) = %s, closed form %s" % (solver.x, exact))
    print("dx(1.9)/d(z0, v0, g, gamma):\n%s\ncentral differences of the closed form:\n%s" % (solver.Sx, fd))
    ok = (np.allclose(solver.x, exact, rtol=1e-8, atol=1e-9)
          and np.allclose(solver.Sx, fd, rtol=1e-6, atol=1e-6))
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
