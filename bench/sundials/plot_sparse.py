#!/usr/bin/env python3
"""Plots of bench_sparse_cvodes --csv PREFIX: the work-precision diagram at n = 1e4 and the cost
per step and unknown against n, esdirk against CVODES with the band and KLU back-ends, states
alone (left) and with three parameter sensitivities (right).

    plot_sparse.py results/sparse results/

reads PREFIX_work_precision.csv and PREFIX_cost.csv, writes brusselator_work_precision.png and
brusselator_cost_vs_n.png into the output folder.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {("esdirk", "band"): ("o-", "C0"), ("esdirk", "KLU"): ("s-", "C0"),
         ("CVODES", "band"): ("o--", "C3"), ("CVODES", "KLU"): ("s--", "C3")}
PANELS = {"0": "states", "3": "states + 3 parameter sensitivities"}


def series(rows, solver, backend, directions):
    return [r for r in rows if r["solver"] == solver and r["backend"] == backend
            and r["directions"] == directions]


def main():
    prefix, out = sys.argv[1], sys.argv[2]
    wp = list(csv.DictReader(open(prefix + "_work_precision.csv")))
    cost = list(csv.DictReader(open(prefix + "_cost.csv")))

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
    for ax, (directions, title) in zip(axes, PANELS.items()):
        for (solver, backend), (marker, colour) in STYLE.items():
            rows = series(wp, solver, backend, directions)
            ax.loglog([float(r["error"]) for r in rows], [float(r["seconds"]) for r in rows],
                      marker, color=colour, mfc="none" if backend == "band" else colour,
                      label=f"{solver} {backend}")
        ax.set_xlabel("achieved error at t = 10 (max-norm, relative)")
        ax.set_title(f"n = {wp[0]['n']}: {title}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("CPU time [s] (best of the repetitions)")
    axes[0].legend()
    fig.suptitle("1-D Brusselator by the method of lines: work-precision")
    fig.tight_layout()
    fig.savefig(f"{out}/brusselator_work_precision.png", dpi=100)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
    for ax, (directions, title) in zip(axes, PANELS.items()):
        for (solver, backend), (marker, colour) in STYLE.items():
            rows = series(cost, solver, backend, directions)
            ns = [int(r["n"]) for r in rows]
            per = [1e9 * float(r["seconds"]) / int(r["steps"]) / int(r["n"]) for r in rows]
            ax.loglog(ns, per, marker, color=colour, mfc="none" if backend == "band" else colour,
                      label=f"{solver} {backend}")
        ax.set_xlabel("n (unknowns)")
        ax.set_title(f"{title} (rtol = {cost[0]['rtol']})")
        ax.set_ylim(30, 3000)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("time per step and unknown [ns] (flat = linear)")
    axes[0].legend()
    fig.suptitle("1-D Brusselator: cost per step against n")
    fig.tight_layout()
    fig.savefig(f"{out}/brusselator_cost_vs_n.png", dpi=100)


if __name__ == "__main__":
    main()
