"""A thermostat: the gradient of a comfort-and-energy cost through its switching events by the
hybrid adjoint, checked against central differences of whole runs.

A room's temperature T (scaled) relaxes toward the heater's temperature u at rate k while the
heater is on (mode 0) and toward 0 while it is off (mode 1); the heater switches off when T
rises to T_off and on when T falls to T_on. Over t in [0, 10] the cost is

    J = int (T - 1/2)^2 dt + c * (the time the heater is on),

carried as two more states, q' = (T - 1/2)^2 and e' = 1 (on) or 0 (off), so that the jumps at
the switches carry their share. esdirk.HybridAdjoint gives dJ/d(T0, k, u, T_on, T_off) in one
backward sweep over the recorded run (the thresholds enter through the event functions);
central differences need two whole runs per parameter. A memory budget keeps only a few steps
and recomputes the others from checkpoints, with the same bits.

    python3 thermostat_adjoint.py
"""

import sys

import numpy as np

import esdirk

T0 = 0.2
THETA = np.array([2.0, 1.0, 0.35, 0.65])  # k, u, T_on, T_off
C_ENERGY = 0.05
T_END = 10.0


def f(mode, t, x, z, p):
    k, u = p[0], (p[1] if mode == 0 else 0.0)
    d = x[0] - 0.5
    return [-k * (x[0] - u), d * d, 1.0 if mode == 0 else 0.0]


def jac(mode, t, x, z, p):  # d f / d(T, q, e)
    return [[-p[0], 0.0, 0.0], [2.0 * (x[0] - 0.5), 0.0, 0.0], [0.0, 0.0, 0.0]]


def jac_p(mode, t, x, z, p):  # d f / d(k, u, T_on, T_off)
    u = p[1] if mode == 0 else 0.0
    return [[-(x[0] - u), p[0] if mode == 0 else 0.0, 0.0, 0.0], [0.0] * 4, [0.0] * 4]


def events(mode, t, x, z, p):  # on: switch off at T_off; off: switch on at T_on
    return [x[0] - (p[3] if mode == 0 else p[2])]


def event_jac(mode, t, x, z, p):  # [h_t, h_T, h_q, h_e, h_k, h_u, h_Ton, h_Toff]
    return [[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0 if mode == 0 else -1.0, -1.0 if mode == 0 else 0.0]]


def switch(mode, fired, t, x, z, p):
    return 1 - mode, x


PROBLEM = esdirk.HybridProblem(3, 0, 4, 1, f, jac=jac, jac_p=jac_p, events=events,
                               event_jac=event_jac, transition=switch)


def cost_and_gradient(theta, rtol, memory_budget=0):
    """J at T_END, and with the adjoint its gradient (T0, k, u, T_on, T_off)."""
    solver = esdirk.HybridSolver(PROBLEM, esdirk.Options(rtol=rtol, atol=rtol * 1e-2))
    adjoint = esdirk.HybridAdjoint(solver, memory_budget=memory_budget)  # before initialize
    solver.initialize(0.0, 0, [T0, 0.0, 0.0], p=theta)
    adjoint.integrate_to(T_END)
    cost = solver.x[1] + C_ENERGY * solver.x[2]
    g = adjoint.gradient(weights=[0.0, 1.0, C_ENERGY])  # J = w . x(T_END)
    return cost, np.concatenate([g["dx0"][:1], g["dp"]]), g["report"], solver.event_count


def cost(theta0, theta, rtol):
    solver = esdirk.HybridSolver(PROBLEM, esdirk.Options(rtol=rtol, atol=rtol * 1e-2))
    solver.initialize(0.0, 0, [theta0, 0.0, 0.0], p=theta)
    solver.integrate_to(T_END)
    return solver.x[1] + C_ENERGY * solver.x[2]


def main():
    if len(sys.argv) > 1:
        print(__doc__)
        return 0
    rtol = 1e-10
    J, gradient, report, switches = cost_and_gradient(THETA, rtol)
    print("J = %.12f over %d switches, %d steps recorded" % (J, switches, report["recorded_steps"]))

    # The same gradient with the step records limited to 200 doubles (a few records; a budget
    # below one record raises ValueError naming a record's size).
    _, budgeted, small, _ = cost_and_gradient(THETA, rtol, memory_budget=200)
    print("memory budget of 200 doubles (%d step records at a time): peak %d doubles instead of "
          "%d, %d steps recomputed, same bits: %s" % (
              small["stored_records"], small["peak_stored_doubles"],
              report["peak_stored_doubles"], small["recomputed_steps"],
              np.array_equal(budgeted, gradient)))

    # Central differences of whole runs (every switch located again in each).
    names = ["T0", "k", "u", "T_on", "T_off"]
    base = np.concatenate([[T0], THETA])
    fd = np.zeros(5)
    for i in range(5):
        step = 1e-5 * abs(base[i])
        plus, minus = base.copy(), base.copy()
        plus[i] += step
        minus[i] -= step
        fd[i] = (cost(plus[0], plus[1:], rtol) - cost(minus[0], minus[1:], rtol)) / (2 * step)
    error = np.abs(gradient - fd).max() / np.abs(fd).max()
    print("%-6s %22s %22s" % ("", "adjoint", "central differences"))
    for name, a, d in zip(names, gradient, fd):
        print("%-6s %22.12e %22.12e" % (name, a, d))
    print("largest difference %.1e of the largest entry" % error)
    ok = (switches >= 10 and error < 1e-6 and np.array_equal(budgeted, gradient)
          and small["recomputed_steps"] > 0 and small["peak_stored_doubles"] < report["peak_stored_doubles"])
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
