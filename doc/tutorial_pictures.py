"""The pictures of doc/tutorial.md, from the CSV files its programs write.

    python3 doc/tutorial_pictures.py CSV_DIR [PNG_DIR]

CSV_DIR is where the tutorial's programs ran (the test suite runs them in
<build>/tests/docs/output); PNG_DIR defaults to this file's folder (doc/).
scripts/tutorial-pictures.sh does both steps.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def columns(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {key: [float(r[key]) for r in rows] for key in rows[0]}


def stiff(src, dst):
    c, s = columns(f"{src}/tutorial_stiff.csv"), columns(f"{src}/tutorial_stiff_steps.csv")
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    t = [max(v, 1e-6) for v in c["t"]]
    ax[0].semilogx(t, c["exact"], color="0.75", lw=4, label="exact")
    ax[0].semilogx(t, c["y"], color="C0", lw=1.2, label="esdirk (dense output)")
    ax[0].set_xlabel("t")
    ax[0].set_ylabel("y")
    ax[0].set_title("y' = -1000 (y - cos t), y(0) = 0")
    ax[0].legend()
    ax[1].loglog(s["t"], s["h"], ".", ms=3, color="C1")
    ax[1].set_xlabel("t (end of the step)")
    ax[1].set_ylabel("step size h")
    ax[1].set_title(f"{len(s['t'])} accepted steps")
    fig.tight_layout()
    fig.savefig(f"{dst}/tutorial-stiff.png", dpi=90)


def robertson(src, dst):
    c = columns(f"{src}/tutorial_robertson.csv")
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.semilogx(c["t"], c["y1"], label="y1")
    ax.semilogx(c["t"], [1e4 * v for v in c["y2"]], label="1e4 y2")
    ax.semilogx(c["t"], c["y3"], label="y3 (algebraic)")
    ax.set_xlabel("t")
    ax.set_title("Robertson's kinetics as an index-1 DAE")
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{dst}/tutorial-robertson.png", dpi=90)


def sensitivities(src, dst):
    c = columns(f"{src}/tutorial_sensitivities.csv")
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    ax[0].plot(c["t"], c["x1"], label="x1 (A)")
    ax[0].plot(c["t"], c["x2"], label="x2 (B)")
    ax[0].set_xlabel("t")
    ax[0].set_title("A -> B -> C, k1 = 2, k2 = 1")
    ax[0].legend()
    ax[1].plot(c["t"], c["dx1_dk1"], label="dx1/dk1")
    ax[1].plot(c["t"], c["dx2_dk1"], label="dx2/dk1")
    ax[1].plot(c["t"], c["dx2_dk2"], label="dx2/dk2")
    ax[1].axhline(0.0, color="0.6", lw=0.6)
    ax[1].set_xlabel("t")
    ax[1].set_title("forward sensitivities")
    ax[1].legend()
    fig.tight_layout()
    fig.savefig(f"{dst}/tutorial-sensitivities.png", dpi=90)


def ball(src, dst):
    c = columns(f"{src}/tutorial_ball.csv")
    fig, ax = plt.subplots(2, 1, figsize=(7, 4.6), sharex=True)
    ax[0].plot(c["t"], c["z"], color="C0")
    ax[0].set_ylabel("height z")
    ax[0].set_title("bouncing ball, g = 9.81, gamma = 0.8")
    ax[1].plot(c["t"], c["v"], color="C1")
    ax[1].axhline(0.0, color="0.6", lw=0.6)
    ax[1].set_ylabel("velocity v")
    ax[1].set_xlabel("t")
    fig.tight_layout()
    fig.savefig(f"{dst}/tutorial-ball.png", dpi=90)


def adjoint(src, dst):
    c = columns(f"{src}/tutorial_adjoint.csv")
    order = sorted(range(len(c["t"])), key=lambda i: c["t"][i])
    t = [c["t"][i] for i in order]
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for key, label in (("lambda1", "lambda_1 = dPhi/dx1(t)"), ("lambda2", "lambda_2 = dPhi/dx2(t)"),
                       ("mu_k1", "mu_k1 (accumulated dPhi/dk1)"),
                       ("mu_k2", "mu_k2 (accumulated dPhi/dk2)")):
        ax.plot(t, [c[key][i] for i in order], ".-", ms=3, label=label)
    ax.axhline(0.0, color="0.6", lw=0.6)
    ax.set_xlabel("t (the sweep runs from t = 2 back to 0)")
    ax.set_title("adjoint of Phi = x2(2) at the step starts")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{dst}/tutorial-adjoint.png", dpi=90)


def estimation(src, dst):
    d = columns(f"{src}/tutorial_estimation_data.csv")
    f = columns(f"{src}/tutorial_estimation_fit.csv")
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.plot(d["t"], d["a"], "o", color="C0", label="data A")
    ax.plot(d["t"], d["b"], "s", color="C1", label="data B")
    ax.plot(f["t"], f["a_start"], "--", color="C0", lw=1, label="initial guess (k = 1, 0.5)")
    ax.plot(f["t"], f["b_start"], "--", color="C1", lw=1)
    ax.plot(f["t"], f["a_fit"], color="C0", label="estimate")
    ax.plot(f["t"], f["b_fit"], color="C1")
    ax.set_xlabel("t")
    ax.set_title("estimating k1, k2 by multiple shooting")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{dst}/tutorial-estimation.png", dpi=90)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    src = sys.argv[1]
    dst = sys.argv[2] if len(sys.argv) == 3 else os.path.dirname(os.path.abspath(__file__))
    for draw in (stiff, robertson, sensitivities, ball, adjoint, estimation):
        draw(src, dst)
    print(f"wrote the tutorial's pictures in {dst}")


if __name__ == "__main__":
    main()
