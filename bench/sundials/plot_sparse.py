#!/usr/bin/env python3
"""Plots of bench_sparse_cvodes --csv PREFIX: the work-precision diagram at n = 1e4 and the cost
per step and unknown against n, esdirk against CVODES with the band and KLU back-ends.

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


def main():
    prefix, out = sys.argv[1], sys.argv[2]
    wp = list(csv.DictReader(open(prefix + "_work_precision.csv")))
    cost = list(csv.DictReader(open(prefix + "_cost.csv")))

    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    n = wp[0]["n"]
    for (solver, backend), (marker, colour) in STYLE.items():
        rows = [r for r in wp if r["solver"] == solver and r["backend"] == backend]
        ax.loglog([float(r["error"]) for r in rows], [float(r["seconds"]) for r in rows], marker,
                  color=colour, mfc="none" if backend == "band" else colour,
                  label=f"{solver} {backend}")
    ax.set_xlabel("achieved error at t = 10 (max-norm, relative)")
    ax.set_ylabel("wall time [s]")
    ax.set_title(f"1-D Brusselator, n = {n}: work-precision")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{out}/brusselator_work_precision.png", dpi=110)

    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    for (solver, backend), (marker, colour) in STYLE.items():
        rows = [r for r in cost if r["solver"] == solver and r["backend"] == backend]
        ns = [int(r["n"]) for r in rows]
        per = [1e9 * float(r["seconds"]) / int(r["steps"]) / int(r["n"]) for r in rows]
        ax.loglog(ns, per, marker, color=colour, mfc="none" if backend == "band" else colour,
                  label=f"{solver} {backend}")
    ax.set_xlabel("n (unknowns)")
    ax.set_ylabel("time per step and unknown [ns]")
    ax.set_ylim(30, 3000)
    ax.set_title(f"Cost per step against n (rtol = {cost[0]['rtol']}); flat = linear")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{out}/brusselator_cost_vs_n.png", dpi=110)


if __name__ == "__main__":
    main()
