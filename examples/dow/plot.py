#!/usr/bin/env python3
"""Plots of the Dow benchmark output: the states and the scaled sensitivities p_j du_i/dp_j
over time, from dow_states.csv and dow_sensitivities.csv written by `dow --output DIR` (which
runs this script itself with the Python found when it was configured).

    python3 plot.py DIR        writes DIR/dow_states.png and DIR/dow_sensitivities.png

Time is on a log axis (from the first output time, 1e-6 h), so that the start-up transient
and the slow reaction over 10 h are both visible.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    # t = 0 has no place on the log axis.
    header, data = rows[0], [[float(v) for v in row] for row in rows[1:] if float(row[0]) > 0]
    columns = list(zip(*data))
    return header, columns


def plot_states(directory):
    header, columns = read(f"{directory}/dow_states.csv")
    t = columns[0]
    fig, axes = plt.subplots(2, 5, figsize=(17, 6.5), sharex=True)
    for k, ax in enumerate(axes.flat):
        ax.semilogx(t, columns[k + 1], color="tab:blue")
        ax.set_title(header[k + 1], fontsize=10)
        ax.grid(alpha=0.3)
        if k >= 5:
            ax.set_xlabel("t [h] (log scale)")
    fig.suptitle("Dow batch reactor: states (mol/kg); top row differential, bottom row algebraic")
    fig.tight_layout()
    fig.savefig(f"{directory}/dow_states.png", dpi=110)
    plt.close(fig)


def plot_sensitivities(directory):
    header, columns = read(f"{directory}/dow_sensitivities.csv")
    t = columns[0]
    states = ["u1 [HA]", "u2 [BM]", "u3 [HABM]", "u4 [AB]", "u5 [MBMH]", "u6 [M-]",
              "u7 [H+]", "u8 [A-]", "u9 [ABM-]", "u10 [MBM-]"]
    params = ["k1", "km1", "k2", "k3", "km3", "K1", "K2", "K3", "Qp"]
    colors = plt.cm.tab10.colors
    fig, axes = plt.subplots(2, 5, figsize=(18, 7.5), sharex=True)
    for i, ax in enumerate(axes.flat):
        for j, p in enumerate(params):
            ax.semilogx(t, columns[1 + i * len(params) + j], color=colors[j], label=p, lw=1.2)
        ax.set_title(f"p_j d({states[i]})/dp_j", fontsize=10)
        ax.grid(alpha=0.3)
        if i >= 5:
            ax.set_xlabel("t [h] (log scale)")
    axes.flat[0].legend(fontsize=7, ncol=2)
    fig.suptitle("Dow batch reactor: scaled sensitivities to the nine parameters")
    fig.tight_layout()
    fig.savefig(f"{directory}/dow_sensitivities.png", dpi=110)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    plot_states(sys.argv[1])
    plot_sensitivities(sys.argv[1])
    print(f"wrote {sys.argv[1]}/dow_states.png and dow_sensitivities.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
