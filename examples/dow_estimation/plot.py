#!/usr/bin/env python3
"""The Dow estimation's fit: data and the model at the estimate, per experiment and state.

    plot.py OUTPUT_DIR     (reads dow_estimation_fit.csv, writes dow_estimation_fit.png)

dow_estimation runs it itself with the Python found when it was configured.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

out = sys.argv[1] if len(sys.argv) > 1 else "."
rows = list(csv.DictReader(open(f"{out}/dow_estimation_fit.csv")))
experiments = sorted({int(r["experiment"]) for r in rows})
states = ["u1", "u2", "u3", "u4", "u5"]
names = {"u1": "[HA]", "u2": "[BM]", "u3": "[HABM]", "u4": "[AB]", "u5": "[MBMH]"}
fig, axes = plt.subplots(1, len(states), figsize=(18, 3.8))
colors = ["C0", "C1", "C2", "C3"]
for e in experiments:
    model = [r for r in rows if r["kind"] == "model" and int(r["experiment"]) == e]
    data = [r for r in rows if r["kind"] == "data" and int(r["experiment"]) == e]
    for ax, s in zip(axes, states):
        ax.plot([float(r["t"]) for r in model], [float(r[s]) for r in model], color=colors[e % 4],
                label=f"experiment {e}: model at the estimate")
        ax.plot([float(r["t"]) for r in data], [float(r[s]) for r in data], "o", mfc="none",
                color=colors[e % 4], label=f"experiment {e}: data")
for ax, s in zip(axes, states):
    ax.set_title(f"{s} {names[s]}")
    # Log time (linear below 0.01 h, so that the initial charge at t = 0 shows): the start-up
    # transient, where most of the early data lie, is as wide as the slow approach to 10 h.
    ax.set_xscale("symlog", linthresh=0.01)
    ax.set_xlim(0.0, 10.5)
    ax.set_xlabel("t [h] (log scale above 0.01 h)")
    ax.grid(alpha=0.3)
axes[0].set_ylabel("mol/kg")
axes[3].legend(fontsize=7, loc="upper left")  # the empty corner of u4
fig.suptitle("Dow reactor: multiple-shooting estimate of the kinetic parameters against the data")
fig.tight_layout()
fig.savefig(f"{out}/dow_estimation_fit.png", dpi=110)
print(f"wrote {out}/dow_estimation_fit.png")
