"""esdirk.solve_ivp against scipy.integrate.solve_ivp (Radau, BDF, LSODA) at equal achieved
error, on Robertson (to t = 1e11), Van der Pol (eps = 1e-6, t in [0, 2]) and the Dow reactor
(as an ODE: scipy has no DAE form; the algebraic states are eliminated by a scalar Newton
solve for [H+] in every evaluation; esdirk also on the DAE itself). esdirk with Python
callbacks and with compiled (numba.cfunc) callbacks; scipy with the same Python callbacks.
The analytic Jacobians are given to every solver on Robertson and Van der Pol; on Dow every
solver forms it by differences; the Dow ODE also comes as a vectorized function (scipy's
vectorized=True), offered to esdirk and to scipy's Radau and BDF, whose faster variant counts,
and esdirk runs it once more with the options for an expensive differenced model
(reuse_jacobian, stage_predictor="dense_output"; scipy keeps its J anyway).

The achieved error is the largest relative error at the final time against the published
reference (components above 1e-12). esdirk runs rtol 1e-4 .. 1e-8 (half decades); scipy a
wider range, and its time at esdirk's achieved error is interpolated on its log-log
work-precision line. The speed-up is the median over esdirk's rtols.

    python3 vs_scipy.py [--quick] [--output DIR] [--replot DIR/python_vs_scipy.csv]

Writes DIR/python_vs_scipy.csv, DIR/python_vs_scipy.png and prints a markdown table.
"""

import argparse
import csv
import math
import os
import time

import numpy as np
import scipy.integrate

import esdirk
from esdirk import models

# --- Problems ---------------------------------------------------------------------------------

EPS = 1e-6


def vdp(t, y):
    return [y[1], ((1.0 - y[0] * y[0]) * y[1] - y[0]) / EPS]


def vdp_jac(t, y):
    return np.array([[0.0, 1.0], [(-2.0 * y[0] * y[1] - 1.0) / EPS, (1.0 - y[0] * y[0]) / EPS]])


P = models.DOW_PARAMETERS


def dow_hplus(x):
    """[H+] from the charge balance -Q+ + u6 + u8 + u9 + u10 - u7 = 0 with u8, u9, u10 in
    terms of u7: a convex decreasing function of u7 > 0, so Newton from u7 = 0 rises
    monotonically to the root."""
    K1, K2, K3, Qp = P[5], P[6], P[7], P[8]
    u1, u3, u5, u6 = x[0], x[2], x[4], x[5]
    u7 = 0.0
    for _ in range(200):
        a, b, c = K2 + u7, K3 + u7, K1 + u7
        F = -Qp + u6 + K2 * u1 / a + K3 * u3 / b + K1 * u5 / c - u7
        dF = -K2 * u1 / (a * a) - K3 * u3 / (b * b) - K1 * u5 / (c * c) - 1.0
        step = F / dF
        u7 -= step
        if abs(step) <= 1e-15 * u7:
            break
    return u7


def dow_ode(t, x):
    u7 = dow_hplus(x)
    z = [u7, P[6] * x[0] / (P[6] + u7), P[7] * x[2] / (P[7] + u7), P[5] * x[4] / (P[5] + u7)]
    return models.dow_f(t, x, z, P)


def dow_ode_vectorized(t, x):
    """dow_ode under scipy's vectorized contract: x of shape (6,) or (6, k), the result of the
    same shape. One state takes the scalar code (as dow_ode); k columns run the Newton solve
    for [H+] on all of them at once, in NumPy, until every column has converged."""
    if np.ndim(x) == 1:
        return dow_ode(t, x)
    k1, km1, k2, k3, km3, K1, K2, K3, Qp = P
    u1, u2, u3, u4, u5, u6 = x
    u7 = np.zeros_like(u1)
    for _ in range(200):
        a, b, c = K2 + u7, K3 + u7, K1 + u7
        F = -Qp + u6 + K2 * u1 / a + K3 * u3 / b + K1 * u5 / c - u7
        dF = -K2 * u1 / (a * a) - K3 * u3 / (b * b) - K1 * u5 / (c * c) - 1.0
        step = F / dF
        u7 = u7 - step
        if np.all(np.abs(step) <= 1e-15 * u7):
            break
    if not np.all(u7 > 0.0):
        raise esdirk.RecoverableError("[H+] <= 0")
    u8, u9, u10 = K2 * u1 / (K2 + u7), K3 * u3 / (K3 + u7), K1 * u5 / (K1 + u7)
    return np.array([-k2 * u2 * u8,
                     -k1 * u2 * u6 + km1 * u10 - k2 * u2 * u8,
                     k2 * u2 * u8 + k3 * u4 * u6 - km3 * u9,
                     -k3 * u4 * u6 + km3 * u9,
                     k1 * u2 * u6 - km1 * u10,
                     -k1 * u2 * u6 - k3 * u4 * u6 + km1 * u10 + km3 * u9])


def compiled_vdp():
    import numba

    @numba.cfunc(esdirk.numba_signature())
    def f(t, y, z, p, out):
        out[0] = y[1]
        out[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / 1e-6
        return 0

    @numba.cfunc(esdirk.numba_signature())
    def jac(t, y, z, p, J):
        J[0] = 0.0
        J[1] = (-2.0 * y[0] * y[1] - 1.0) / 1e-6
        J[2] = 1.0
        J[3] = (1.0 - y[0] * y[0]) / 1e-6
        return 0
    return f, jac


def compiled_dow_ode():
    import numba
    K1, K2, K3, Qp = (float(v) for v in P[5:9])
    k1, km1, k2, k3, km3 = (float(v) for v in P[:5])

    @numba.cfunc(esdirk.numba_signature())
    def f(t, x, z, p, out):
        u1, u2, u3, u4, u5, u6 = x[0], x[1], x[2], x[3], x[4], x[5]
        u7 = 0.0
        for _ in range(200):
            a, b, c = K2 + u7, K3 + u7, K1 + u7
            F = -Qp + u6 + K2 * u1 / a + K3 * u3 / b + K1 * u5 / c - u7
            dF = -K2 * u1 / (a * a) - K3 * u3 / (b * b) - K1 * u5 / (c * c) - 1.0
            step = F / dF
            u7 -= step
            if abs(step) <= 1e-15 * u7:
                break
        u8, u9, u10 = K2 * u1 / (K2 + u7), K3 * u3 / (K3 + u7), K1 * u5 / (K1 + u7)
        out[0] = -k2 * u2 * u8
        out[1] = -k1 * u2 * u6 + km1 * u10 - k2 * u2 * u8
        out[2] = k2 * u2 * u8 + k3 * u4 * u6 - km3 * u9
        out[3] = -k3 * u4 * u6 + km3 * u9
        out[4] = k1 * u2 * u6 - km1 * u10
        out[5] = -k1 * u2 * u6 - k3 * u4 * u6 + km1 * u10 + km3 * u9
        return 0
    return f


ROBERTSON_REF = np.array([0.2083340149701255e-07, 0.8333360770334713e-13, 0.9999999791665050])
VDP_REF = np.array([1.706167732170483, -0.8928097010247975])
DOW_REF = np.array([3.2064722102918803e-04, 5.7069094224017460, 5.4146936066416729e-01,
                    1.0358099921148016, 1.0358112248192761, 1.3098767295526429e-02])


def error(y, ref):
    big = np.abs(ref) > 1e-12
    return float(np.max(np.abs(y[big] - ref[big]) / np.abs(ref[big])))


def problems():
    rc = models.compiled("robertson")
    vf, vj = compiled_vdp()
    df = compiled_dow_ode()
    dc = models.compiled("dow")
    return [
        dict(name="Robertson", span=(0.0, 1e11), y0=[1.0, 0.0, 0.0], ref=ROBERTSON_REF,
             atol=lambda r: 1e-10 * r, py=(models.robertson, models.robertson_jac),
             compiled=(rc["f"], rc["jac"])),
        dict(name="Van der Pol", span=(0.0, 2.0), y0=[2.0, 0.0], ref=VDP_REF,
             atol=lambda r: r, py=(vdp, vdp_jac), compiled=(vf, vj)),
        dict(name="Dow (ODE)", span=(0.0, 10.0), y0=models.DOW_X0, ref=DOW_REF,
             atol=lambda r: 1e-6 * r, py=(dow_ode, None), compiled=(df, None),
             vectorized=dow_ode_vectorized,
             # What a user can choose today for an expensive model differenced every step:
             # keep J while Newton contracts fast, and start each stage from the last step's
             # dense output (fewer Newton iterations; not the default, see Options).
             tuned=dict(reuse_jacobian=True, stage_predictor="dense_output"),
             dae=(dc["f"], dc["g"], dc["jac"], dc["jac_p"]),
             dae_py=(models.dow_f, models.dow_g, models.dow_jac, models.dow_jac_p)),
    ]


# --- Runs -------------------------------------------------------------------------------------


def timed(run, min_total):
    """Best time of repeated runs (until min_total seconds or 7 runs) and the last result."""
    best, total, n, res = math.inf, 0.0, 0, None
    while n < 7 and (n == 0 or total < min_total):
        start = time.perf_counter()
        res = run()
        elapsed = time.perf_counter() - start
        best, total, n = min(best, elapsed), total + elapsed, n + 1
    return best, res


def run_esdirk(problem, route, rtol, min_total):
    span, y0 = problem["span"], problem["y0"]
    if route.startswith("esdirk DAE"):
        f, g, jac, jac_p = problem["dae" if "compiled" in route else "dae_py"]
        z0 = models.dow_z0()
        call = lambda: esdirk.solve_ivp(f, span, y0, g=g, z0=z0, p=P, jac=jac, jac_p=jac_p,
                                        rtol=rtol, atol=problem["atol"](rtol),
                                        algebraic_atol=models.DOW_ALGEBRAIC_ATOL)
        seconds, res = timed(call, min_total)
        return seconds, res, res.x[:, -1]
    f, jac = problem["compiled"] if "compiled" in route else problem["py"]
    vectorized = "vectorized" in route
    if vectorized:
        f = problem["vectorized"]
    options = problem["tuned"] if "options" in route else {}
    seconds, res = timed(lambda: esdirk.solve_ivp(f, span, y0, rtol=rtol, atol=problem["atol"](rtol),
                                                  jac=jac, vectorized=vectorized, **options),
                         min_total)
    return seconds, res, res.y[:, -1]


def run_scipy(problem, method, rtol, min_total, vectorized=False):
    f, jac = problem["py"]
    kw = {} if jac is None else {"jac": jac}
    if vectorized:
        f, kw = problem["vectorized"], dict(kw, vectorized=True)
    seconds, res = timed(lambda: scipy.integrate.solve_ivp(f, problem["span"], problem["y0"],
                                                           method=method, rtol=rtol,
                                                           atol=problem["atol"](rtol), **kw),
                         min_total)
    return seconds, res, res.y[:, -1]


def interpolate_time(points, err):
    """scipy's time at achieved error `err`, on its log-log work-precision line (None outside)."""
    pts = sorted((e, t) for e, t in points if e > 0)
    for (e0, t0), (e1, t1) in zip(pts, pts[1:]):
        if e0 <= err <= e1:
            if e1 == e0:
                return min(t0, t1)
            s = (math.log(err) - math.log(e0)) / (math.log(e1) - math.log(e0))
            return math.exp(math.log(t0) + s * (math.log(t1) - math.log(t0)))
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two tolerances, one run each")
    parser.add_argument("--output", default=".", help="folder for the CSV and the PNG")
    parser.add_argument("--replot", metavar="CSV", help="only the table and the plot of a CSV written before")
    args = parser.parse_args()
    if args.replot:
        with open(args.replot) as f:
            rows = [dict(r, rtol=float(r["rtol"]), error=float(r["error"]), seconds=float(r["seconds"]),
                         success=r["success"] == "True", nfev=int(r["nfev"])) for r in csv.DictReader(f)]
        print_table(speedups(rows, ["Radau", "BDF", "LSODA"]))
        os.makedirs(args.output, exist_ok=True)
        plot(rows, os.path.join(args.output, "python_vs_scipy.png"))
        return 0
    esdirk_rtols = [1e-4, 1e-6] if args.quick else list(10.0 ** -np.arange(4.0, 8.01, 0.5))
    scipy_rtols = [1e-4, 1e-6] if args.quick else list(10.0 ** -np.arange(3.0, 11.51, 0.5))
    min_total = 0.0 if args.quick else 0.3
    routes = ["esdirk (Python callbacks)", "esdirk (compiled callbacks)"]
    methods = ["Radau", "BDF", "LSODA"]
    rows = []
    for problem in problems():
        names = (routes + (["esdirk (Python, vectorized)"] if "vectorized" in problem else [])
                 + (["esdirk (Python, J kept + dense predictor options)"] if "tuned" in problem
                    else [])
                 + (["esdirk DAE (Python callbacks)", "esdirk DAE (compiled)"]
                    if "dae" in problem else []))
        for route in names:
            for rtol in esdirk_rtols:
                seconds, res, y = run_esdirk(problem, route, rtol, min_total)
                rows.append(dict(problem=problem["name"], solver=route, rtol=rtol,
                                 error=error(y, problem["ref"]), seconds=seconds,
                                 success=res.success, nfev=res.nfev))
        best_error = min(r["error"] for r in rows if r["problem"] == problem["name"])
        # scipy with the vectorized function too where there is one (Radau and BDF difference
        # their Jacobian with one call then; LSODA differences inside ODEPACK, one column per
        # call): the comparison takes scipy's faster variant at each error.
        series = [(m, False) for m in methods] + ([(m, True) for m in ("Radau", "BDF")]
                                                  if "vectorized" in problem and not args.quick
                                                  else [])
        for method, vectorized in series:
            for rtol in scipy_rtols:
                seconds, res, y = run_scipy(problem, method, rtol, min_total, vectorized)
                err = error(y, problem["ref"]) if res.success else math.inf
                rows.append(dict(problem=problem["name"],
                                 solver="scipy " + method + (" (vectorized)" if vectorized else ""),
                                 rtol=rtol, error=err, seconds=seconds, success=res.success,
                                 nfev=res.nfev))
                if err < 0.5 * best_error or seconds > 60.0:
                    break  # scipy's line now covers esdirk's errors (or it is too slow)
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, "python_vs_scipy.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    summary = speedups(rows, methods)
    print_table(summary)
    if not args.quick:
        plot(rows, os.path.join(args.output, "python_vs_scipy.png"))
    failed = [r for r in rows if r["solver"].startswith("esdirk") and not r["success"]]
    return 1 if failed else 0


def speedups(rows, methods):
    """Median over esdirk's rtols of scipy time / esdirk time at esdirk's achieved error."""
    summary = []
    for problem in dict.fromkeys(r["problem"] for r in rows):
        for route in dict.fromkeys(r["solver"] for r in rows
                                   if r["problem"] == problem and r["solver"].startswith("esdirk")):
            mine = [r for r in rows if r["problem"] == problem and r["solver"] == route]
            entry = dict(problem=problem, route=route,
                         esdirk_seconds=float(np.median([r["seconds"] for r in mine])))
            for method in methods:
                def theirs(solver):
                    return [(r["error"], r["seconds"]) for r in rows
                            if r["problem"] == problem and r["solver"] == solver
                            and r["success"] and math.isfinite(r["error"])]
                lines = [theirs("scipy " + method), theirs("scipy " + method + " (vectorized)")]
                ratios = [min(times) / r["seconds"] for r in mine
                          for times in [[t for t in (interpolate_time(line, r["error"])
                                                     for line in lines) if t is not None]]
                          if times]
                entry[method] = (float(np.median(ratios)), len(ratios), len(mine)) if ratios else None
            summary.append(entry)
    return summary


def print_table(summary):
    print("| problem | esdirk callbacks | median esdirk s | vs Radau | vs BDF | vs LSODA |")
    print("|---|---|---|---|---|---|")
    for e in summary:
        cells = []
        for method in ("Radau", "BDF", "LSODA"):
            v = e[method]
            cells.append("-" if v is None else ("%.1fx" % v[0]) + ("" if v[1] == v[2] else " (%d of %d)" % v[1:]))
        route = e["route"].replace("esdirk ", "").replace(" callbacks", "")
        problem = e["problem"]
        if route.startswith("DAE "):  # esdirk on the DAE against scipy on the ODE
            problem, route = problem.replace("(ODE)", "(DAE)"), route[4:]
        route = route[1:-1] if route.startswith("(") else route
        print("| %s | %s | %.4f | %s |" % (problem, route, e["esdirk_seconds"],
                                           " | ".join(cells)))


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    problems_ = list(dict.fromkeys(r["problem"] for r in rows))
    fig, axes = plt.subplots(1, len(problems_), figsize=(5.2 * len(problems_), 4.4))
    styles = {"esdirk (Python callbacks)": ("C0", "o-"), "esdirk (compiled callbacks)": ("C0", "s-"),
              "esdirk (Python, vectorized)": ("C9", "o-"),
              "esdirk (Python, J kept + dense predictor options)": ("C5", "o-"),
              "esdirk DAE (Python callbacks)": ("C4", "d--"),
              "esdirk DAE (compiled)": ("C4", "d-"), "scipy Radau": ("C1", "^--"),
              "scipy BDF": ("C2", "v--"), "scipy LSODA": ("C3", "x--"),
              "scipy Radau (vectorized)": ("C1", "^:"), "scipy BDF (vectorized)": ("C2", "v:")}
    for ax, problem in zip(axes, problems_):
        for solver, (color, style) in styles.items():
            pts = sorted((r["error"], r["seconds"]) for r in rows
                         if r["problem"] == problem and r["solver"] == solver and r["success"]
                         and math.isfinite(r["error"]) and r["error"] > 0)
            if pts:
                ax.loglog(*zip(*pts), style, color=color, label=solver, markersize=4)
        ax.set_title(problem)
        ax.set_xlabel("achieved relative error at the final time")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds (best of repeated runs)")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.suptitle("esdirk.solve_ivp vs scipy.integrate.solve_ivp: work-precision")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
