// The bouncing ball of F. Schaefer, "Sensitivity Analysis of Hybrid Differential Equations" (a
// GSoC 2021 post, "the post" below) with event sensitivities. Checks, against the closed form:
// the impact time tau (printed 0.99005), dz(t_end)/dz0 with the implicit event (printed 0.84)
// and with the explicit (fixed-time) event (printed 1), the post's mislabelled derivative
// (-0.99995 is dv(tau-)/dz0, not dv(tau-)/dg), and all sensitivities after several bounces.
// With --adjoint the same gradients by the hybrid adjoint (HybridAdjoint), checked against the
// forward sensitivities of the same run (1e-12) and the closed form, and the run stopped at the
// impact (a terminal event): the adjoint of v(tau-) gives -g/S, -v0/S, -z0/S, 0.
//
//     bouncing_ball [--rtol 1e-10] [--adjoint] [--plot DIR]

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bouncing_ball/bouncing_ball_closed_form.hpp"
#include "bouncing_ball/bouncing_ball_model.hpp"
#include "common/example_support.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"

namespace {

using D4 = dual::Dual<4>;
bool all_ok = true;
bool with_adjoint = false;

void check(bool ok, const char* what, double value, double reference) {
  std::printf("  %-52s %16.10g  reference %16.10g  %s\n", what, value, reference, ok ? "ok" : "WRONG");
  all_ok = all_ok && ok;
}

double rel(double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-3}); }

struct Result {
  std::vector<double> x;
  esdirk::DenseMatrix S;
  esdirk::DenseMatrix adjoint;  // with_adjoint: d(z, v)(t_end)/d(z0, v0, g, gamma), one row each
  std::vector<esdirk::EventRecord> events;
  std::vector<std::vector<double>> samples;  // t, z, v, dz/dz0, dz/dg, dz/dgamma
  bool ok = true;
};

Result solve(double rtol, double t_end, bool implicit_event) {
  bouncing_ball::Model model;
  esdirk::HybridOptions o;
  o.integrator.rtol = rtol;
  o.integrator.atol = 1e-2 * rtol;
  o.event_time_sensitivity = implicit_event;
  esdirk::HybridSolver solver(model, o);
  esdirk::HybridAdjoint adjoint(solver);  // records the run (used with --adjoint)
  Result r;
  r.x.assign(2, 0.0);
  r.S.resize(2, 4);
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0};
  const std::vector<double> p{bouncing_ball::gravity, bouncing_ball::restitution};
  esdirk::DenseMatrix seed(4, 4);
  for (int i = 0; i < 4; ++i) seed(i, i) = 1.0;
  r.ok = esdirk::ok(solver.initialize(0.0, 0, x0, {}, p)) && esdirk::ok(solver.initialize_sensitivities(seed.cref()));
  for (int k = 1; r.ok && k <= 400; ++k) {
    const double t = t_end * k / 400.0;
    r.ok = esdirk::ok(with_adjoint ? adjoint.integrate_to(t, r.x, {}, r.S.ref()) : solver.integrate_to(t, r.x, {}, r.S.ref()));
    r.samples.push_back({t, r.x[0], r.x[1], r.S(0, 0), r.S(0, 2), r.S(0, 3)});
  }
  if (!r.ok) std::printf("failed: %s\n", solver.message().c_str());
  for (int i = 0; i < solver.logged_events(); ++i) r.events.push_back(solver.event(i));
  if (r.ok && with_adjoint) {
    esdirk::HybridObjective objective;
    esdirk::DenseMatrix w(2, 2), dx0(2, 2), dp(2, 2);
    w(0, 0) = w(1, 1) = 1.0;  // rows: z(t_end), v(t_end)
    objective.set_terminal_weights(w.cref());
    r.ok = esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref()));
    if (!r.ok) std::printf("adjoint failed: %s\n", adjoint.message().c_str());
    r.adjoint.resize(2, 4);
    for (int row = 0; row < 2; ++row)
      for (int i = 0; i < 2; ++i) {
        r.adjoint(row, i) = dx0(i, row);
        r.adjoint(row, 2 + i) = dp(i, row);
      }
  }
  return r;
}

// The run stopped at the impact (a terminal event): the adjoint of L = v(tau-), the total
// derivative along the moving impact time (the post's implicit event that ends the run).
bool terminal_adjoint(double rtol, double out[4]) {
  bouncing_ball::Model model;
  esdirk::HybridOptions o;
  o.integrator.rtol = rtol;
  o.integrator.atol = 1e-2 * rtol;
  o.terminal = {true};
  esdirk::HybridSolver solver(model, o);
  esdirk::HybridAdjoint adjoint(solver);
  const std::vector<double> x0{bouncing_ball::z0, bouncing_ball::v0};
  const std::vector<double> p{bouncing_ball::gravity, bouncing_ball::restitution};
  std::vector<double> x(2);
  if (!esdirk::ok(solver.initialize(0.0, 0, x0, {}, p))) return false;
  const esdirk::Outcome stop = adjoint.integrate_to(bouncing_ball::t_end, x);
  if (!esdirk::ok(stop) || stop.reason != esdirk::StopReason::listener_stop) return false;
  esdirk::HybridObjective objective;
  esdirk::DenseMatrix w(2, 1), dx0(2, 1), dp(2, 1);
  w(1, 0) = 1.0;
  objective.set_terminal_weights(w.cref());
  if (!esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref()))) return false;
  out[0] = dx0(0, 0);
  out[1] = dx0(1, 0);
  out[2] = dp(0, 0);
  out[3] = dp(1, 0);
  return true;
}

const char* plot_script = R"PY(import csv, os, sys
os.chdir(sys.argv[1])  # the folder of the CSV files
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open("bouncing_ball.csv")))
t = [float(r["t"]) for r in rows]
fig, ax = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
ax[0].plot(t, [float(r["z"]) for r in rows], label="height z")
ax[0].plot(t, [float(r["v"]) for r in rows], label="velocity v")
ax[0].axhline(0, color="gray", lw=0.5)
ax[0].legend(); ax[0].set_title("Bouncing ball: g = 10, gamma = 0.8")
for key, lab in [("dz_dz0", "dz/dz0"), ("dz_dg", "dz/dg"), ("dz_dgamma", "dz/dgamma")]:
    ax[1].plot(t, [float(r[key]) for r in rows], label=lab)
ax[1].set_xlabel("t"); ax[1].legend(); ax[1].set_title("sensitivities with jumps at the impacts")
fig.tight_layout(); fig.savefig("bouncing_ball.png", dpi=110)
)PY";

}  // namespace

const char* const usage =
    "usage: bouncing_ball [--rtol R] [--adjoint] [--plot DIR]\n"
    "\n"
    "The bouncing ball of Schaefer's \"Sensitivity Analysis of Hybrid Differential Equations\" with\n"
    "event sensitivities (impact time, jumps), checked against the closed form.\n"
    "\n"
    "  --rtol R     relative tolerance (default 1e-10)\n"
    "  --adjoint    also the gradients by the hybrid adjoint, and a run stopped at the impact\n"
    "  --plot DIR   write bouncing_ball.csv and draw bouncing_ball.png in DIR\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  double rtol = 1e-10;
  std::string plot_dir;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rtol") && i + 1 < argc) rtol = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--adjoint")) with_adjoint = true;
    else if (!std::strcmp(argv[i], "--plot") && i + 1 < argc) plot_dir = argv[++i];
    else {
      std::fputs(usage, stderr);
      return 2;
    }
  }
  const double z0 = bouncing_ball::z0, v0 = bouncing_ball::v0, g = bouncing_ball::gravity;
  const double S = std::sqrt(v0 * v0 + 2 * g * z0);
  esdirk::Options resolved;  // the method the runs below take ("auto" resolves by rtol)
  resolved.rtol = rtol;
  std::printf("Bouncing ball, %s, rtol = %.1e\n\n", resolved.resolved_method().name.c_str(), rtol);

  std::printf("t_end = %.2f (one impact):\n", bouncing_ball::t_end);
  const Result imp = solve(rtol, bouncing_ball::t_end, true);
  const Result exp = solve(rtol, bouncing_ball::t_end, false);
  all_ok = all_ok && imp.ok && exp.ok && imp.events.size() == 1 && exp.events.size() == 1;
  if (!all_ok) {
    std::printf("CHECK FAILED\n");
    return 1;
  }
  const esdirk::EventRecord& e = imp.events[0];
  check(std::round(e.t * 1e5) / 1e5 == 0.99005, "impact time tau (the post: 0.99005)", e.t, (v0 + S) / g);
  const double implicit_dz0 = -bouncing_ball::restitution + (1 + bouncing_ball::restitution) * g * (bouncing_ball::t_end - e.t) / S;
  check(rel(imp.S(0, 0), implicit_dz0) < 1e-8 && std::round(imp.S(0, 0) * 100) / 100 == 0.84,
        "dz(t_end)/dz0, implicit event (the post: 0.84)", imp.S(0, 0), implicit_dz0);
  check(std::abs(exp.S(0, 0) - 1.0) < 1e-8, "dz(t_end)/dz0, explicit event (the post: 1)", exp.S(0, 0), 1.0);
  // v(tau-) as a function of the inputs: its total derivative s_v(tau-) + v'(tau-) tau_j.
  const double dv_dz0 = e.sx_minus(1, 0) - g * e.tau[0];
  const double dv_dg = e.sx_minus(1, 2) - g * e.tau[2];
  check(rel(dv_dz0, -g / S) < 1e-8 && std::round(dv_dz0 * 1e5) / 1e5 == -0.99995,
        "dv(tau-)/dz0 = -g/S (the post's '-0.99995 = dL/dg')", dv_dz0, -g / S);
  check(rel(dv_dg, -z0 / S) < 1e-8, "dv(tau-)/dg = -z0/S (the true implicit d/dg)", dv_dg, -z0 / S);
  check(std::abs(exp.events[0].sx_minus(1, 2) + e.t) < 1e-8, "dv(tau-)/dg at the fixed time (the post: -0.99005)",
        exp.events[0].sx_minus(1, 2), -e.t);

  const double t_long = 6.0;
  std::printf("\nt_end = %.1f (several impacts):\n", t_long);
  const Result many = solve(rtol, t_long, true);
  const auto ex = bouncing_ball::exact(D4::variable(z0, 0), D4::variable(v0, 1), D4::variable(g, 2),
                                       D4::variable(bouncing_ball::restitution, 3), t_long);
  all_ok = all_ok && many.ok && many.events.size() == ex.impacts.size();
  for (std::size_t k = 0; k < std::min(many.events.size(), ex.impacts.size()); ++k) {
    char what[64];
    std::snprintf(what, sizeof what, "impact %zu time", k + 1);
    check(rel(many.events[k].t, ex.impacts[k].v) < 1e-10, what, many.events[k].t, ex.impacts[k].v);
  }
  const char* names[4] = {"z0", "v0", "g", "gamma"};
  for (int j = 0; j < 4; ++j) {
    char what[64];
    std::snprintf(what, sizeof what, "dz(6)/d%s", names[j]);
    check(rel(many.S(0, j), ex.z.d[static_cast<std::size_t>(j)]) < 1e-8, what, many.S(0, j), ex.z.d[static_cast<std::size_t>(j)]);
    std::snprintf(what, sizeof what, "dv(6)/d%s", names[j]);
    check(rel(many.S(1, j), ex.v.d[static_cast<std::size_t>(j)]) < 1e-8, what, many.S(1, j), ex.v.d[static_cast<std::size_t>(j)]);
  }
  if (with_adjoint && many.ok) {
    std::printf("\nby the hybrid adjoint (the same run, %zu impacts):\n", many.events.size());
    for (int j = 0; j < 4; ++j)
      for (int row = 0; row < 2; ++row) {
        char what[64];
        std::snprintf(what, sizeof what, "d%s(6)/d%s, adjoint", row == 0 ? "z" : "v", names[j]);
        const double a = many.adjoint(row, j), f = many.S(row, j);
        const double exact = (row == 0 ? ex.z : ex.v).d[static_cast<std::size_t>(j)];
        // Forward and adjoint on the same steps agree to rounding; both to the closed form.
        check(std::abs(a - f) <= 1e-12 * std::max(1.0, std::abs(f)) && rel(a, exact) < 1e-8, what, a, exact);
      }
    double terminal[4];
    const bool ok = terminal_adjoint(rtol, terminal);
    const double exact[4] = {-g / S, -v0 / S, -z0 / S, 0.0};
    std::printf("\nstopped at the impact (terminal event), L = v(tau-), by the adjoint:\n");
    for (int j = 0; j < 4; ++j) {
      char what[64];
      std::snprintf(what, sizeof what, "dv(tau-)/d%s, adjoint", names[j]);
      check(ok && std::abs(terminal[j] - exact[j]) < 1e-10, what, terminal[j], exact[j]);
    }
    check(ok && std::round(terminal[0] * 1e5) / 1e5 == -0.99995, "dv(tau-)/dz0 (the post: -0.99995)", terminal[0], -g / S);
  }
  if (!plot_dir.empty()) {
    example_support::write_csv(plot_dir + "/bouncing_ball.csv", {"t", "z", "v", "dz_dz0", "dz_dg", "dz_dgamma"}, many.samples);
    example_support::plot(plot_dir, "plot_bouncing_ball.py", plot_script, "bouncing_ball.png");
  }
  std::printf("\n%s\n", all_ok ? "CHECK PASSED" : "CHECK FAILED");
  return all_ok ? 0 : 1;
}
