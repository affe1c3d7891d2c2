#!/usr/bin/env python3
"""The work-precision diagram (PNG) of bench_adjoint_sundials --full --csv.

    plot_adjoint.py results/adjoint.csv results/dow_adjoint.png

Gradient error (norm-wise, scaled gradient against the tight reference) against the best wall
time of forward run + adjoint, log-log, one line per solver labelled with its rtol values.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"esdirk": "o-", "IDAS": "s-"}
LABEL = {"esdirk": "esdirk: discrete adjoint (record + sweep)",
         "IDAS": "IDAS: IDASolveF + IDASolveB (Hermite checkpoints, Nd = 100)"}


def main():
    path, out = sys.argv[1], sys.argv[2]
    rows = [r for r in csv.DictReader(open(path)) if r["error"] not in ("nan", "")]
    fig, ax = plt.subplots(figsize=(7.5, 5.2))
    for solver in ("esdirk", "IDAS"):
        pts = sorted((float(r["error"]), 1e3 * float(r["seconds"]), float(r["rtol"]))
                     for r in rows if r["solver"] == solver)
        if not pts:
            continue
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], STYLE[solver], label=LABEL[solver])
        for e, t, rtol in pts:
            ax.annotate(f"{rtol:.0e}", (e, t), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel("gradient error (scaled, norm-wise, against esdirk at rtol 1e-12)")
    ax.set_ylabel("wall time of forward + adjoint [ms]")
    ax.set_title("Dow: d/d(x0, p) of u1(10 h) + int u3^2/2 dt (6 + 9 components)")
    ax.invert_xaxis()
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
