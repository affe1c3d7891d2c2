#!/usr/bin/env python3
"""Plot of bench_krylov_scaling --csv FILE: esdirk Newton-Krylov on the 3-D Brusselator against n.

    plot.py results/scaling.csv results/scaling_3d.png [results/scaling_fixed_diffusion.csv
            [results/scaling_repeats.csv]]

Left: user CPU time per step and unknown (every run, so repeated sides show the scatter) and
GMRES iterations per Newton iteration (right axis); right: heap and peak resident set per unknown.
A third argument adds the runs with the diffusion held at the smallest side's value (grey), a
fourth the repeated runs of the small sides (their cost points only).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    return [r for r in csv.DictReader(open(path)) if r["ok"] == "1"]


def main():
    rows = read(sys.argv[1])
    fixed = read(sys.argv[3]) if len(sys.argv) > 3 else []
    fig, (cost, memory) = plt.subplots(1, 2, figsize=(11, 4.2))
    repeats = read(sys.argv[4]) if len(sys.argv) > 4 else []
    n = [float(r["n"]) for r in rows]
    cost.loglog(n + [float(r["n"]) for r in repeats],
                [float(r["us_per_step_unknown"]) for r in rows + repeats], "o", color="C0", mfc="none",
                label="CPU (user) per step and unknown, every run")
    if fixed:
        cost.loglog([float(r["n"]) for r in fixed], [float(r["us_per_step_unknown"]) for r in fixed],
                    "s", color="0.5", mfc="none", label="same, diffusion held at N = 8")
    smallest = min(n)
    base = sorted(float(r["us_per_step_unknown"]) for r in rows + repeats if float(r["n"]) == smallest)
    base = base[len(base) // 2]  # the median of the smallest side's runs
    cost.axhspan(base, 2 * base, color="C2", alpha=0.12, label="within 2x of n = 1e3 (target; median run)")
    cost.set_xlabel("n = 2 N^3")
    cost.set_ylabel("µs per step and unknown")
    cost.set_ylim(0.1, 10)
    cost.grid(True, which="both", alpha=0.3)
    ratio = cost.twinx()
    ratio.semilogx(n, [float(r["gmres"]) / float(r["newton"]) for r in rows], "^--", color="C3",
                   label="GMRES per Newton iteration")
    if fixed:
        ratio.semilogx([float(r["n"]) for r in fixed], [float(r["gmres"]) / float(r["newton"]) for r in fixed],
                       "v:", color="0.5", label="same, diffusion held")
    ratio.set_ylabel("GMRES iterations per Newton iteration")
    ratio.set_ylim(bottom=0)
    lines = cost.get_legend_handles_labels()
    more = ratio.get_legend_handles_labels()
    cost.legend(lines[0] + more[0], lines[1] + more[1], fontsize=8, loc="upper left")
    cost.set_title("cost per step and unknown")

    first = {}
    for r in rows:
        first.setdefault(r["side"], r)
    sizes = [float(r["n"]) for r in first.values()]
    memory.loglog(sizes, [float(r["heap_bytes_per_unknown"]) for r in first.values()], "o-", color="C0",
                  label="heap (mallinfo2) held at the end")
    peak = [r for r in first.values() if r["peak_rss_bytes_per_unknown"]]
    memory.loglog([float(r["n"]) for r in peak], [float(r["peak_rss_bytes_per_unknown"]) for r in peak], "s--",
                  color="C1", label="peak RSS minus RSS before the run")
    memory.set_ylim(100, 1e4)
    memory.set_xlabel("n = 2 N^3")
    memory.set_ylabel("bytes per unknown")
    memory.grid(True, which="both", alpha=0.3)
    memory.legend(fontsize=8)
    memory.set_title("memory per unknown (flat = linear in n)")
    fig.suptitle("esdirk Newton-Krylov, 3-D Brusselator, t = 0 .. 10, rtol 1e-5 (one loaded 2-core machine)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
