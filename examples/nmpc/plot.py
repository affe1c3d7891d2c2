#!/usr/bin/env python3
"""The CSTR's closed loop under NMPC: C_A, T (with the limit) and the coolant temperature.

    plot.py OUTPUT_DIR     (reads nmpc_closed_loop.csv, writes nmpc_closed_loop.png)

nmpc runs it itself with the Python found when it was configured.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

out = sys.argv[1] if len(sys.argv) > 1 else "."
rows = list(csv.DictReader(open(f"{out}/nmpc_closed_loop.csv")))
t = [float(r["t"]) for r in rows]
fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
axes[0].plot(t, [float(r["CA"]) for r in rows], label="plant")
axes[0].axhline(0.5, color="k", ls="--", lw=0.8, label="set point")
axes[0].set_ylabel("C_A [mol/L]")
axes[1].plot(t, [float(r["T"]) for r in rows], label="plant")
axes[1].axhline(350.0, color="k", ls="--", lw=0.8, label="set point")
axes[1].axhline(355.0, color="r", ls=":", lw=1.0, label="T_max (at the nodes)")
axes[1].set_ylabel("T [K]")
axes[2].step(t, [float(r["Tc"]) for r in rows], where="post", label="T_c (held over each sample)")
for bound in (250.0, 350.0):
    axes[2].axhline(bound, color="r", ls=":", lw=1.0)
axes[2].set_ylabel("T_c [K]")
axes[2].set_xlabel("t [min]")
for ax in axes:
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
fig.suptitle("CSTR under multiple-shooting NMPC (Ipopt, Gauss-Newton Hessian)")
fig.tight_layout()
fig.savefig(f"{out}/nmpc_closed_loop.png", dpi=110)
print(f"wrote {out}/nmpc_closed_loop.png")
