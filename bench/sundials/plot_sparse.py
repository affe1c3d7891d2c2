#!/usr/bin/env python3
"""Plots of bench_sparse_cvodes --csv PREFIX: esdirk (defaults, with LU and Jacobian reuse for
states, and with Newton-Krylov beside the KLU runs) against CVODES and IDAS with the band and
KLU back-ends, states alone and with three parameter sensitivities.

    plot_sparse.py results/sparse results/ [results/sparse_before]

reads PREFIX_work_precision.csv and PREFIX_cost.csv (the rows of several runs may be
concatenated, one header) and, if a third argument is given, BEFORE_work_precision.csv, an
earlier run whose esdirk curves are drawn in grey for comparison (the work-precision panels);
writes into the output folder
  brusselator_work_precision.png  1-D, n = 1e4: CPU time against the achieved error
  brusselator_cost_vs_n.png       1-D: time per step and unknown against n
  brusselator_2d.png              2-D: work-precision at N = 40 (rows of other sizes, e.g.
                                  --part 2d-100, are left out), time per step and unknown and
                                  heap per unknown against n (KLU; band up to N = 40)
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOUR = {"esdirk": "C0", "esdirk reuse": "C2", "esdirk Krylov": "C4", "CVODES": "C3", "IDAS": "C1"}
LINE = {"esdirk": "-", "esdirk reuse": "-", "esdirk Krylov": "-.", "CVODES": "--", "IDAS": ":"}
MARKER = {"band": "o", "KLU": "s"}
PANELS = {"0": "states", "3": "states + 3 parameter sensitivities"}


def read(path):
    return [r for r in csv.DictReader(open(path)) if r["model"] != "model"]


def series(rows, model, solver, backend, directions):
    return [r for r in rows if r["model"] == model and r["solver"] == solver
            and r["backend"] == backend and r["directions"] == directions]


def draw(ax, rows, model, directions, x, y, backends=("band", "KLU")):
    for solver in COLOUR:
        for backend in backends:
            chosen = series(rows, model, solver, backend, directions)
            if not chosen:
                continue
            ax.loglog([x(r) for r in chosen], [y(r) for r in chosen],
                      MARKER[backend] + LINE[solver], color=COLOUR[solver],
                      mfc="none" if backend == "band" else COLOUR[solver],
                      label=f"{solver} {backend}")
    ax.grid(True, which="both", alpha=0.3)


def draw_before(ax, rows, model, directions, backends=("band", "KLU"), marker=None):
    """esdirk's curves of an earlier run, grey (before a change of defaults)."""
    for solver in ("esdirk", "esdirk reuse"):
        for backend in backends:
            chosen = series(rows, model, solver, backend, directions)
            if chosen:
                ax.loglog([error(r) for r in chosen], [seconds(r) for r in chosen],
                          (marker or MARKER[backend]) + LINE[solver], color="0.6", lw=1,
                          mfc="none", ms=4, label=f"{solver} {backend}, before")


def error(r):
    return float(r["error"])


def seconds(r):
    return float(r["seconds"])


def per_step_and_unknown(r):
    return 1e9 * float(r["seconds"]) / int(r["steps"]) / int(r["n"])


def n_of(r):
    return int(r["n"])


def heap_per_unknown(r):
    return float(r["heap_bytes"]) / int(r["n"])


def main():
    prefix, out = sys.argv[1], sys.argv[2]
    wp = read(prefix + "_work_precision.csv")
    cost = read(prefix + "_cost.csv")
    before = read(sys.argv[3] + "_work_precision.csv") if len(sys.argv) > 3 else []

    fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
    for ax, (directions, title) in zip(axes, PANELS.items()):
        draw_before(ax, before, "1d", directions, backends=("KLU",))
        draw(ax, wp, "1d", directions, error, seconds)
        n = next(r["n"] for r in wp if r["model"] == "1d")
        ax.set_xlabel("achieved error at t = 10 (max-norm, relative)")
        ax.set_title(f"n = {n}: {title}")
    axes[0].set_ylabel("CPU time [s] (best of the repetitions)")
    axes[0].legend(fontsize=8)
    fig.suptitle("1-D Brusselator by the method of lines: work-precision")
    fig.tight_layout()
    fig.savefig(f"{out}/brusselator_work_precision.png", dpi=100)

    fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
    for ax, (directions, title) in zip(axes, PANELS.items()):
        draw(ax, cost, "1d", directions, n_of, per_step_and_unknown)
        ax.set_xlabel("n (unknowns)")
        ax.set_title(f"{title} (rtol = 1e-6)")
    axes[0].set_ylabel("CPU time per step and unknown [ns] (flat = linear)")
    axes[0].legend(fontsize=8)
    fig.suptitle("1-D Brusselator: cost per step against n")
    fig.tight_layout()
    fig.savefig(f"{out}/brusselator_cost_vs_n.png", dpi=100)

    fig, axes = plt.subplots(1, 3, figsize=(17, 5))
    ax = axes[0]
    for directions in ("0", "3"):
        draw_before(ax, before, "2d", directions, backends=("KLU",), marker="s" if directions == "0" else "^")
    for directions, face in (("0", None), ("3", "none")):
        for solver in COLOUR:
            chosen = [r for r in series(wp, "2d", solver, "KLU", directions) if r["n"] == "3200"]
            if chosen:
                ax.loglog([error(r) for r in chosen], [seconds(r) for r in chosen],
                          ("s" if directions == "0" else "^") + LINE[solver], color=COLOUR[solver],
                          mfc=face if face else COLOUR[solver],
                          label=f"{solver} KLU, {PANELS[directions]}")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title("work-precision, n = 3200 (40 x 40; KLU)")
    ax.set_xlabel("achieved error at t = 10 (max-norm, relative)")
    ax.set_ylabel("CPU time [s]")
    ax.legend(fontsize=7)
    draw(axes[1], cost, "2d", "0", n_of, per_step_and_unknown)
    axes[1].set_title("states: time per step and unknown (rtol = 1e-6)")
    axes[1].set_xlabel("n = 2 N^2 (unknowns)")
    axes[1].set_ylabel("CPU time per step and unknown [ns]")
    axes[1].legend(fontsize=7)
    draw(axes[2], cost, "2d", "0", n_of, heap_per_unknown)
    axes[2].set_title("states: heap held per unknown")
    axes[2].set_xlabel("n = 2 N^2 (unknowns)")
    axes[2].set_ylabel("bytes per unknown")
    fig.suptitle("2-D Brusselator on an N x N grid by the method of lines")
    fig.tight_layout()
    fig.savefig(f"{out}/brusselator_2d.png", dpi=100)


if __name__ == "__main__":
    main()
