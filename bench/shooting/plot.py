#!/usr/bin/env python3
"""Work-precision diagram of one shooting interval from bench_shooting's CSV.

    python3 bench/shooting/plot.py bench/shooting/results/work_precision.csv \
        bench/shooting/results/shooting_intervals.png

x: the worst of the errors of x, A and B (row-scaled, see bench_shooting.cpp); y: time per
interval. One panel per interval; Radau IIA has one line per Newton tolerance. Points whose
worst error is above 1 (no accuracy: the Gauss methods' A on Dow's stiff directions) are left out.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TITLES = {"cstr": "CSTR, 0.05 min (2 states, 1 control)",
          "dow23": "Dow, [2, 3] h (15 directions)",
          "dow05": "Dow, [0, 0.5] h (start-up layer)"}


def main(source, target):
    series = defaultdict(list)
    with open(source) as f:
        for row in csv.DictReader(f):
            if row["ok"] != "1":
                continue
            method = row["method"]
            label = method
            if method == "Radau IIA":
                label = "Radau IIA, Newton " + row["setting"].split("Newton ")[1]
            elif method == "esdirk":
                label = "esdirk " + row["setting"].split(",")[0]
            elif method == "esdirk fixed":
                label = "esdirk fixed, " + row["setting"].split(" ")[0] + ", rtol " + row["setting"].split("rtol ")[1]
            worst = max(float(row["error_x"]), float(row["error_A"]), float(row["error_B"]))
            if worst > 1.0:
                continue
            series[(row["case"], label)].append((max(worst, 1e-16), 1e6 * float(row["seconds"])))
    cases = [c for c in TITLES if any(key[0] == c for key in series)]
    fig, axes = plt.subplots(1, len(cases), figsize=(5.2 * len(cases), 4.4))
    if len(cases) == 1:
        axes = [axes]
    for ax, case in zip(axes, cases):
        for (c, label), points in sorted(series.items()):
            if c != case:
                continue
            points.sort(key=lambda p: -p[0])
            style = ("o-" if label.startswith("esdirk") else "s--" if label.startswith("Radau")
                     else "d-." if label.startswith("Gauss") else "^:")
            ax.loglog([p[0] for p in points], [p[1] for p in points], style, label=label, markersize=4)
        ax.set_title(TITLES[case], fontsize=10)
        ax.set_xlabel("worst error of x, A, B (row-scaled)")
        ax.set_ylabel("time per interval [us]")
        ax.invert_xaxis()
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(target, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
