#!/usr/bin/env python3
"""The work-precision diagram (PNG) of bench_adjoint_sundials --full --csv.

    plot_adjoint.py results/adjoint.csv [results/adjoint_instructions.csv] results/dow_adjoint.png

Gradient error (norm-wise, scaled gradient against the tight reference) against the best wall
time of forward run + adjoint, log-log, one line per solver labelled with its rtol values; with
the instruction counts of count_adjoint_instructions.sh, a second panel with instructions (the
figure a shared machine's load does not disturb) against the same errors. Prints IDAS's time and
instructions over esdirk's at equal gradient error.
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SOLVERS = ("esdirk", "IDAS", "IDAS rtolB=rtol/100")
STYLE = {"esdirk": "o-", "IDAS": "s-", "IDAS rtolB=rtol/100": "s--"}
LABEL = {"esdirk": "esdirk: discrete adjoint (record + sweep)",
         "IDAS": "IDAS: IDASolveF + IDASolveB (Hermite, Nd = 100), backward rtol = rtol",
         "IDAS rtolB=rtol/100": "IDAS, backward rtol = rtol / 100 (its best setting here)"}


def panel(ax, points, ylabel, scale):
    for solver in SOLVERS:
        pts = sorted(p for p in points if p[0] == solver)
        pts = sorted((e, scale * y, rtol) for _, e, y, rtol in pts)
        if not pts:
            continue
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], STYLE[solver], label=LABEL[solver])
        for e, y, rtol in pts:
            ax.annotate(f"{rtol:.0e}", (e, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel("gradient error (scaled, norm-wise, against esdirk at rtol 1e-12)")
    ax.set_ylabel(ylabel)
    ax.invert_xaxis()
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def at_error(points, solver, target):
    """log-log interpolation of a solver's y at a given error (None outside its range)."""
    pts = sorted(((e, y) for s, e, y, _ in points if s == solver), reverse=True)
    for (e0, y0), (e1, y1) in zip(pts, pts[1:]):
        if (target - e0) * (target - e1) <= 0 and e0 != e1:
            w = (math.log(target) - math.log(e0)) / (math.log(e1) - math.log(e0))
            return math.exp((1 - w) * math.log(y0) + w * math.log(y1))
    return None


def print_ratios(points, what):
    print(f"IDAS / esdirk {what} at equal gradient error:")
    for target in (1e-4, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8, 3e-9):
        base = at_error(points, "esdirk", target)
        cells = []
        for solver in SOLVERS[1:]:
            other = at_error(points, solver, target)
            cells.append(f"{solver} {other / base:.2f}" if base and other else f"{solver} -")
        print(f"  {target:.0e}: " + ", ".join(cells))


def main():
    path, out = sys.argv[1], sys.argv[-1]
    counts_path = sys.argv[2] if len(sys.argv) > 3 else None
    rows = [r for r in csv.DictReader(open(path)) if r["error"] not in ("nan", "")]
    error = {(r["solver"], float(r["rtol"])): float(r["error"]) for r in rows}
    times = [(r["solver"], float(r["error"]), float(r["seconds"]), float(r["rtol"])) for r in rows]
    counts = []
    if counts_path:
        for r in csv.DictReader(open(counts_path)):
            key = (r["solver"], float(r["rtol"]))
            if key in error and r["instructions"]:
                counts.append((r["solver"], error[key], float(r["instructions"]), float(r["rtol"])))
    print_ratios(times, "wall time")
    if counts:
        print_ratios(counts, "instructions")
    fig, axes = plt.subplots(1, 2 if counts else 1, figsize=(14 if counts else 7.5, 5.4), squeeze=False)
    panel(axes[0][0], times, "wall time of forward + adjoint [ms] (best of runs)", 1e3)
    if counts:
        panel(axes[0][1], counts, "instructions of forward + adjoint [millions] (callgrind)", 1e-6)
    fig.suptitle("Dow: d/d(x0, p) of u1(10 h) + int u3^2/2 dt (6 + 9 components)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
