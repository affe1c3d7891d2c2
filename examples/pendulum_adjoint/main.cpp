// The planar pendulum of Tran & Leok, "Geometric Methods for Adjoint Systems", §3.2.2, as an index-1 DAE, its adjoint integrated by the
// presymplectic PGHVI-1 and, for contrast, by backward Euler on the adjoint (BE-1: the same
// q-method, p-coefficients A~ = A instead of the symplectic partner A~ = 0).
//
// Prints, per step, the presymplectic defect max |M^T J M - J| of the one-step map
// M: (q_n, p_n) -> (q_n+1, p_n+1) in the differential variables (x, v_x, p_x, p_vx), for both
// methods: first the paper's single step dt = 2 from x0 = 0.5, v_x0 = 0, p_x1 = 1, p_vx1 = 0,
// then 12 steps of dt = 0.25. Tracks the phase area: the symplectic form of two tangent
// vectors, omega(V, W) = <dx, dp_x> + <dv_x, dp_vx> - (W <-> V), through the products of the
// one-step maps (exactly conserved by a presymplectic map), and a small square of initial data
// in the (x, p_x) plane as a curve; --plot DIR writes pendulum_adjoint.png.
//
//     pendulum_adjoint [--plot DIR]

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/example_support.hpp"
#include "esdirk/geometric/diagnostics.hpp"
#include "esdirk/geometric/type_two_step.hpp"
#include "esdirk/problem.hpp"
#include "pendulum_adjoint/pendulum_model.hpp"

namespace {

namespace g = esdirk::geometric;

using pendulum_dae::pendulum;  // the DAE (pendulum_model.hpp)

// The evolution map (q0, p0) -> (q1, p1) of one Type II step: p0 = B p1 is linear in p1
// (no running cost), so p1 = B^{-1} p0 with B from two adjoint solves.
struct Evolved {
  bool ok = false;
  double q1[2], p1[2], u1[3];
};
Evolved evolve(g::TypeTwoStep& step, double t, double h, const double* q0, const double* u_guess,
               const double* p0) {
  Evolved e;
  const std::vector<double> q(q0, q0 + 2), u(u_guess, u_guess + 3);
  if (step.forward(t, h, q, u) != esdirk::Status::success) return e;
  double B[2][2];
  for (int c = 0; c < 2; ++c) {
    std::vector<double> unit{c == 0 ? 1.0 : 0.0, c == 1 ? 1.0 : 0.0}, out(2);
    if (step.adjoint(unit, nullptr, out) != esdirk::Status::success) return e;
    B[0][c] = out[0], B[1][c] = out[1];
  }
  const double det = B[0][0] * B[1][1] - B[0][1] * B[1][0];
  e.p1[0] = (B[1][1] * p0[0] - B[0][1] * p0[1]) / det;
  e.p1[1] = (-B[1][0] * p0[0] + B[0][0] * p0[1]) / det;
  for (int k = 0; k < 2; ++k) e.q1[k] = step.q1()[static_cast<std::size_t>(k)];
  for (int k = 0; k < 3; ++k) e.u1[k] = step.u1()[static_cast<std::size_t>(k)];
  e.ok = std::isfinite(det) && det != 0.0;
  return e;
}

// omega(V, W) = sum_k V_q[k] W_p[k] - V_p[k] W_q[k] for 4-vectors (x, v_x, p_x, p_vx).
double omega(const double* V, const double* W) {
  return V[0] * W[2] - V[2] * W[0] + V[1] * W[3] - V[3] * W[1];
}

struct MethodRun {
  std::string name;
  std::vector<double> defects;              // per step
  std::vector<double> area_ratio;           // omega(M V, M W) / omega(V, W) after n steps
  std::vector<std::vector<double>> curves;  // per step: the square's image, x/p_x/v_x/p_vx
  bool ok = true;
};

MethodRun run_method(esdirk::FunctionProblem& problem, const g::PrkPair& pair, bool partner_form,
                     int steps, double h) {
  g::StepOptions options;
  options.tolerance = 1e-15;
  if (partner_form) options.form = g::AdjointForm::partner;
  g::TypeTwoStep step(problem, pair, options);
  MethodRun out;
  out.name = pair.name;
  double q[2] = {0.5, 0.0}, p[2] = {1.0, 0.0}, u[3] = {-std::sqrt(0.75), 0.0, -std::sqrt(0.75)};
  // Tangents V = (dx, 0, 0, 0), W = (0, 0, dp_x, 0), pushed through the one-step Jacobians.
  double V[4] = {1, 0, 0, 0}, W[4] = {0, 0, 1, 0};
  const double omega0 = omega(V, W);
  out.area_ratio.push_back(1.0);
  // The square of side 0.1 around (x, p_x) = (0.5, 1) as a closed curve of 80 points.
  std::vector<std::array<double, 4>> curve;
  for (int k = 0; k < 80; ++k) {
    const double s = (k % 20) / 20.0 * 0.1 - 0.05;
    const int side = k / 20;
    const double dx = side == 0 ? s : side == 1 ? 0.05 : side == 2 ? -s : -0.05;
    const double dp = side == 0 ? -0.05 : side == 1 ? s : side == 2 ? 0.05 : -s;
    curve.push_back({0.5 + dx, 0.0, 1.0 + dp, 0.0});
  }
  auto record_curve = [&]() {
    std::vector<double> flat;
    for (const auto& c : curve) flat.insert(flat.end(), c.begin(), c.end());
    out.curves.push_back(flat);
  };
  record_curve();
  for (int n = 0; n < steps; ++n) {
    const double t = n * h;
    const Evolved next = evolve(step, t, h, q, u, p);
    if (!next.ok) {
      out.ok = false;
      return out;
    }
    // The one-step map at (q_n, p_n+1) and its defect.
    const std::vector<double> qn(q, q + 2), un(u, u + 3), p1(next.p1, next.p1 + 2);
    const g::OneStepMap map = g::one_step_map(step, t, h, qn, un, p1);
    if (map.status != esdirk::Status::success) {
      out.ok = false;
      return out;
    }
    out.defects.push_back(map.defect);
    double MV[4] = {}, MW[4] = {};
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) {
        MV[r] += map.M[static_cast<std::size_t>(c * 4 + r)] * V[c];
        MW[r] += map.M[static_cast<std::size_t>(c * 4 + r)] * W[c];
      }
    std::copy(MV, MV + 4, V);
    std::copy(MW, MW + 4, W);
    out.area_ratio.push_back(omega(V, W) / omega0);
    // The curve's points, each through the evolution map (u from the step as the guess).
    for (auto& c : curve) {
      const double cq[2] = {c[0], c[1]}, cp[2] = {c[2], c[3]};
      const Evolved e = evolve(step, t, h, cq, u, cp);
      if (!e.ok) {
        out.ok = false;
        return out;
      }
      c = {e.q1[0], e.q1[1], e.p1[0], e.p1[1]};
    }
    record_curve();
    std::copy(next.q1, next.q1 + 2, q);
    std::copy(next.p1, next.p1 + 2, p);
    std::copy(next.u1, next.u1 + 3, u);
  }
  return out;
}

const char* plot_script = R"PY(import csv, os, sys
os.chdir(sys.argv[1])  # the folder of the CSV files
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open("pendulum_adjoint_curves.csv")))
areas = list(csv.DictReader(open("pendulum_adjoint_areas.csv")))
fig, ax = plt.subplots(1, 3, figsize=(15, 4.6))
for method, color in (("PGHVI-1", "tab:blue"), ("BE-1", "tab:red")):
    steps = sorted({int(r["step"]) for r in rows if r["method"] == method})
    for s in steps[::3]:
        pts = [r for r in rows if r["method"] == method and int(r["step"]) == s]
        xs = [float(r["x"]) for r in pts] + [float(pts[0]["x"])]
        px = [float(r["p_x"]) for r in pts] + [float(pts[0]["p_x"])]
        vx = [float(r["v_x"]) for r in pts] + [float(pts[0]["v_x"])]
        pv = [float(r["p_vx"]) for r in pts] + [float(pts[0]["p_vx"])]
        lab = method if s == 0 else None
        ax[0].plot(xs, px, color=color, lw=1, label=lab)
        ax[1].plot(vx, pv, color=color, lw=1, label=lab)
        ax[0].annotate(str(s), (xs[0], px[0]), fontsize=7, color=color)
    ax[2].plot([int(a["step"]) for a in areas], [float(a[method]) for a in areas], "o-", color=color, label=method)
ax[0].set_xlabel("x"); ax[0].set_ylabel("p_x"); ax[0].set_title("image of a square of (x0, p_x0), every 3rd step")
ax[1].set_xlabel("v_x"); ax[1].set_ylabel("p_vx"); ax[1].set_title("the same curves in (v_x, p_vx)")
ax[2].set_xlabel("step n (dt = 0.25)"); ax[2].set_ylabel("omega(M V, M W) / omega(V, W)")
ax[2].set_title("phase area (dx^dp_x + dv_x^dp_vx)"); ax[2].set_yscale("log")
for a in ax: a.legend(fontsize=8); a.grid(alpha=0.3)
fig.tight_layout(); fig.savefig("pendulum_adjoint.png", dpi=110)
)PY";

}  // namespace

const char* const usage =
    "usage: pendulum_adjoint [--plot DIR]\n"
    "\n"
    "The planar pendulum of Tran and Leok, \"Geometric Methods for Adjoint Systems\" (3.2.2), as an\n"
    "index-1 DAE: its adjoint by the presymplectic PGHVI-1 (phase area conserved) against backward\n"
    "Euler (not conserved).\n"
    "\n"
    "  --plot DIR   write the CSV files and draw pendulum_adjoint.png in DIR\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  std::string plot_dir;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--plot") == 0 && i + 1 < argc) plot_dir = argv[++i];
  esdirk::FunctionProblem problem = pendulum();
  bool all_ok = true;
  auto check = [&](bool ok, const char* what) {
    std::printf("  %-62s %s\n", what, ok ? "ok" : "FAILED");
    all_ok = all_ok && ok;
  };

  // The paper's step: dt = 2 (about a third of the small-oscillation period 2 pi).
  std::printf(
      "Pendulum (m = g = L = 1) as an index-1 DAE, adjoint one-step map (x, v_x, p_x, p_vx)\n\n");
  std::printf("Tran & Leok, \"Geometric Methods for Adjoint Systems\", §3.2.2: one step dt = 2 from x0 = 0.5, v_x0 = 0, p_x1 = 1, p_vx1 = 0\n");
  const std::vector<double> q0{0.5, 0.0}, u0{-std::sqrt(0.75), 0.0, -std::sqrt(0.75)}, p1{1.0, 0.0};
  g::StepOptions tight;
  tight.tolerance = 1e-15;
  g::TypeTwoStep pghvi(problem, g::pghvi1(), tight);
  g::StepOptions partner = tight;
  partner.form = g::AdjointForm::partner;
  g::TypeTwoStep be(problem, g::backward_euler_both(), partner);
  const g::OneStepMap a = g::one_step_map(pghvi, 0.0, 2.0, q0, u0, p1);
  const g::OneStepMap b = g::one_step_map(be, 0.0, 2.0, q0, u0, p1);
  std::printf("  %-10s symplecticity defect of the pair %-8.2g  presymplectic defect %.3g\n",
              "PGHVI-1", g::pghvi1().symplecticity_defect, a.defect);
  std::printf("  %-10s symplecticity defect of the pair %-8.2g  presymplectic defect %.3g\n\n",
              "BE-1", g::backward_euler_both().symplecticity_defect, b.defect);
  check(a.status == esdirk::Status::success && a.defect <= 1e-10,
        "PGHVI-1 defect <= 1e-10 at dt = 2");
  check(b.status == esdirk::Status::success && b.defect >= 0.1, "BE-1 defect O(1) at dt = 2");

  const int steps = 12;
  const double h = 0.25;
  const MethodRun good = run_method(problem, g::pghvi1(), false, steps, h);
  const MethodRun bad = run_method(problem, g::backward_euler_both(), true, steps, h);
  check(good.ok && bad.ok, "12 steps of dt = 0.25 solved for both methods");
  if (!good.ok || !bad.ok) {
    std::printf("\nCHECK FAILED\n");
    return 1;
  }
  std::printf(
      "\nper step, dt = 0.25: presymplectic defect max|M^T J M - J| and phase area omega_n / "
      "omega_0\n");
  std::printf("  %4s  %14s  %14s  %14s  %14s\n", "step", "PGHVI-1 defect", "BE-1 defect",
              "PGHVI-1 area", "BE-1 area");
  double worst_good = 0.0, least_bad = 1e300, area_good = 0.0;
  for (int n = 0; n < steps; ++n) {
    std::printf("  %4d  %14.3e  %14.3e  %14.10f  %14.10f\n", n + 1, good.defects[n], bad.defects[n],
                good.area_ratio[n + 1], bad.area_ratio[n + 1]);
    worst_good = std::max(worst_good, good.defects[n]);
    least_bad = std::min(least_bad, bad.defects[n]);
    area_good = std::max(area_good, std::abs(good.area_ratio[n + 1] - 1.0));
  }
  std::printf("\n");
  check(worst_good <= 1e-10, "PGHVI-1: every step's defect <= 1e-10");
  check(least_bad >= 1e-2, "BE-1: every step's defect >= 1e-2");
  check(area_good <= 1e-9, "PGHVI-1: phase area omega_n / omega_0 = 1 to 1e-9");
  check(std::abs(bad.area_ratio[steps] - 1.0) >= 0.1,
        "BE-1: phase area changed by >= 10 % over 12 steps");

  if (!plot_dir.empty()) {
    std::vector<std::vector<double>> areas, curve_rows;
    for (int n = 0; n <= steps; ++n)
      areas.push_back({double(n), good.area_ratio[n], bad.area_ratio[n]});
    example_support::write_csv(plot_dir + "/pendulum_adjoint_areas.csv", {"step", "PGHVI-1", "BE-1"},
                            areas);
    std::FILE* f = std::fopen((plot_dir + "/pendulum_adjoint_curves.csv").c_str(), "w");
    if (f) {
      std::fprintf(f, "method,step,x,v_x,p_x,p_vx\n");
      for (const MethodRun* m : {&good, &bad})
        for (std::size_t s = 0; s < m->curves.size(); ++s)
          for (std::size_t k = 0; k + 3 < m->curves[s].size(); k += 4)
            std::fprintf(f, "%s,%zu,%.17g,%.17g,%.17g,%.17g\n", m == &good ? "PGHVI-1" : "BE-1", s,
                         m->curves[s][k], m->curves[s][k + 1], m->curves[s][k + 2],
                         m->curves[s][k + 3]);
      std::fclose(f);
    }
    example_support::plot(plot_dir, "plot_pendulum_adjoint.py", plot_script, "pendulum_adjoint.png");
  }
  std::printf("\n%s\n", all_ok ? "CHECK PASSED" : "CHECK FAILED");
  return all_ok ? 0 : 1;
}
