// An index-1 DAE with a mode switch where the algebraic state jumps (tank_switch_model.hpp):
// the event time, the jump of z (re-initialized from g of the new mode), x and z at t_end and
// their sensitivities to (x0, a, b, c), checked against the closed form.
//
//     tank_switch [--rtol 1e-10] [--plot DIR]

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/example_support.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "tank_switch/tank_switch_model.hpp"

namespace {

bool all_ok = true;

void check(bool ok, const char* what, double value, double reference) {
  std::printf("  %-28s %18.12g  closed form %18.12g  %s\n", what, value, reference, ok ? "ok" : "WRONG");
  all_ok = all_ok && ok;
}

double rel(double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-3}); }

const char* plot_script = R"PY(import csv, os, sys
os.chdir(sys.argv[1])  # the folder of the CSV files
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open("tank_switch.csv")))
t = [float(r["t"]) for r in rows]
fig, ax = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
ax[0].plot(t, [float(r["x"]) for r in rows], label="level x")
ax[0].plot(t, [float(r["z"]) for r in rows], label="outflow z (algebraic)")
ax[0].axhline(1.0, color="gray", lw=0.5, ls="--")
ax[0].legend(); ax[0].set_title("DAE with a mode switch: z = a x until z = c, then z = b x^2")
for key in ["dx_da", "dx_dc", "dz_da", "dz_dc"]:
    ax[1].plot(t, [float(r[key]) for r in rows], label=key.replace("_", "/"))
ax[1].legend(); ax[1].set_xlabel("t"); ax[1].set_title("sensitivities (jump at the switch)")
fig.tight_layout(); fig.savefig("tank_switch.png", dpi=110)
)PY";

}  // namespace

const char* const usage =
    "usage: tank_switch [--rtol R] [--plot DIR]\n"
    "\n"
    "An index-1 DAE with a mode switch where the algebraic state jumps: the event time, the jump\n"
    "of z and the sensitivities, checked against the closed form.\n"
    "\n"
    "  --rtol R     relative tolerance (default 1e-10)\n"
    "  --plot DIR   write tank_switch.csv and draw tank_switch.png in DIR\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  double rtol = 1e-10;
  std::string plot_dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rtol") && i + 1 < argc) rtol = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--plot") && i + 1 < argc) plot_dir = argv[++i];
    else {
      std::fputs(usage, stderr);
      return 2;
    }
  }
  using D4 = dual::Dual<4>;
  const auto ex = tank_switch::exact(D4::variable(tank_switch::x0, 0), D4::variable(tank_switch::a, 1),
                                     D4::variable(tank_switch::b, 2), D4::variable(tank_switch::c, 3),
                                     tank_switch::t_end);
  tank_switch::Model model;
  esdirk::HybridOptions o;
  o.integrator.rtol = rtol;
  o.integrator.atol = 1e-2 * rtol;
  o.directions = {esdirk::EventDirection::falling};
  esdirk::HybridSolver solver(model, o);
  const std::vector<double> x0{tank_switch::x0}, z0{0.0}, p{tank_switch::a, tank_switch::b, tank_switch::c};
  esdirk::DenseMatrix seed(4, 4), Sx(1, 4), Sz(1, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  std::vector<double> x(1), z(1);
  bool ok = esdirk::ok(solver.initialize(0.0, 0, x0, z0, p)) && esdirk::ok(solver.initialize_sensitivities(seed.cref()));
  std::vector<std::vector<double>> samples;
  for (int k = 1; ok && k <= 400; ++k) {
    const double t = tank_switch::t_end * k / 400.0;
    ok = esdirk::ok(solver.integrate_to(t, x, z, Sx.ref(), Sz.ref()));
    samples.push_back({t, x[0], z[0], Sx(0, 1), Sx(0, 3), Sz(0, 1), Sz(0, 3)});
  }
  if (!ok || solver.logged_events() != 1) {
    std::printf("failed: %s\nCHECK FAILED\n", solver.message().c_str());
    return 1;
  }
  std::printf("Tank with a switching valve (index-1 DAE), %s, rtol = %.1e\n\n",
              solver.integrator().method().name.c_str(), rtol);
  const esdirk::EventRecord& e = solver.event(0);
  const double x1 = tank_switch::c / tank_switch::a;
  check(rel(e.t, ex.t1.v) < 1e-8, "switch time t1", e.t, ex.t1.v);
  check(std::abs(e.z_minus[0] - tank_switch::c) < 1e-9, "z(t1-) = c", e.z_minus[0], tank_switch::c);
  check(std::abs(e.z_plus[0] - tank_switch::b * x1 * x1) < 1e-9, "z(t1+) = b (c/a)^2", e.z_plus[0], tank_switch::b * x1 * x1);
  check(rel(x[0], ex.x.v) < 1e-8, "x(4)", x[0], ex.x.v);
  check(rel(z[0], ex.z.v) < 1e-8, "z(4)", z[0], ex.z.v);
  const char* names[4] = {"x0", "a", "b", "c"};
  for (int j = 0; j < 4; ++j) {
    const auto jj = static_cast<std::size_t>(j);
    char what[48];
    std::snprintf(what, sizeof what, "dt1/d%s", names[j]);
    check(rel(e.tau[jj], ex.t1.d[jj]) < 1e-7, what, e.tau[jj], ex.t1.d[jj]);
    std::snprintf(what, sizeof what, "dx(4)/d%s", names[j]);
    check(rel(Sx(0, j), ex.x.d[jj]) < 1e-7, what, Sx(0, j), ex.x.d[jj]);
    std::snprintf(what, sizeof what, "dz(4)/d%s", names[j]);
    check(rel(Sz(0, j), ex.z.d[jj]) < 1e-7, what, Sz(0, j), ex.z.d[jj]);
  }
  if (!plot_dir.empty()) {
    example_support::write_csv(plot_dir + "/tank_switch.csv", {"t", "x", "z", "dx_da", "dx_dc", "dz_da", "dz_dc"}, samples);
    example_support::plot(plot_dir, "plot_tank_switch.py", plot_script, "tank_switch.png");
  }
  std::printf("\n%s\n", all_ok ? "CHECK PASSED" : "CHECK FAILED");
  return all_ok ? 0 : 1;
}
