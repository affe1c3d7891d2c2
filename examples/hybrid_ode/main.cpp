// Serban & Recuero, "Sensitivity Analysis for Hybrid Systems and Systems with Memory"
// (TR-2019-01), Example 5.1 (p = 2.9): three events A -> B -> A -> B, the sensitivity s = dx/dp
// with its jumps, and dG/dp for G = int_0^5 x dt (printed in the report: -2.31195), checked
// against the closed form (hybrid_ode_closed_form.hpp) and the printed value. With --adjoint
// also dG/dp and dx(5)/dp by the hybrid adjoint (HybridAdjoint), checked against the forward
// sensitivities of the same run (1e-12) and the closed form.
//
//     hybrid_ode [--rtol 1e-10] [--adjoint] [--plot DIR]

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/example_support.hpp"
#include "esdirk/events/hybrid_adjoint.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "hybrid_ode/hybrid_ode_closed_form.hpp"
#include "hybrid_ode/hybrid_ode_model.hpp"

namespace {

bool all_ok = true;

void check(bool ok, const char* what, double value, double reference) {
  std::printf("  %-34s %18.12g  closed form %18.12g  rel. error %8.1e  %s\n", what, value, reference,
              std::abs(value - reference) / std::max(std::abs(reference), 1e-300), ok ? "ok" : "WRONG");
  all_ok = all_ok && ok;
}

const char* plot_script = R"PY(import csv, os, sys
os.chdir(sys.argv[1])  # the folder of the CSV files
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open("hybrid_ode.csv")))
t = [float(r["t"]) for r in rows]
fig, ax = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
ax[0].plot(t, [float(r["x"]) for r in rows])
ax[0].set_ylabel("x"); ax[0].set_title("Serban & Recuero 2019, Example 5.1 (p = 2.9): modes A, B, A, B")
ax[1].plot(t, [float(r["s"]) for r in rows], color="C1")
ax[1].set_ylabel("s = dx/dp"); ax[1].set_xlabel("t")
for e in open("hybrid_ode_events.csv").read().split()[1:]:
    for a in ax: a.axvline(float(e), color="gray", lw=0.6, ls="--")
fig.tight_layout(); fig.savefig("hybrid_ode.png", dpi=110)
)PY";

}  // namespace

const char* const usage =
    "usage: hybrid_ode [--rtol R] [--adjoint] [--plot DIR]\n"
    "\n"
    "The hybrid ODE of Serban and Recuero, \"Sensitivity Analysis for Hybrid Systems and Systems\n"
    "with Memory\" (Example 5.1, p = 2.9): three events, the sensitivity with its jumps and\n"
    "dG/dp, checked against the closed form.\n"
    "\n"
    "  --rtol R     relative tolerance (default 1e-10)\n"
    "  --adjoint    also dG/dp by the hybrid adjoint\n"
    "  --plot DIR   write hybrid_ode.csv and draw hybrid_ode.png in DIR\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  double rtol = 1e-10;
  std::string plot_dir;
  bool with_adjoint = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rtol") && i + 1 < argc) rtol = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--adjoint")) with_adjoint = true;
    else if (!std::strcmp(argv[i], "--plot") && i + 1 < argc) plot_dir = argv[++i];
    else {
      std::fputs(usage, stderr);
      return 2;
    }
  }
  using D1 = dual::Dual<1>;
  const double p = hybrid_ode::nominal_p;
  const auto ex = hybrid_ode::exact(D1::variable(p, 0), p);

  hybrid_ode::Model model;
  esdirk::HybridOptions o;
  o.integrator.rtol = rtol;
  o.integrator.atol = 1e-2 * rtol;
  esdirk::HybridSolver solver(model, o);
  esdirk::HybridAdjoint adjoint(solver);  // records the run (used with --adjoint)
  const std::vector<double> x0{0.0, 0.0}, params{p};
  esdirk::DenseMatrix seed(3, 1), S(2, 1);
  seed(2, 0) = 1.0;
  std::vector<double> x(2);
  bool ok = esdirk::ok(solver.initialize(0.0, hybrid_ode::mode_a, x0, {}, params)) &&
            esdirk::ok(solver.initialize_sensitivities(seed.cref()));
  std::vector<std::vector<double>> samples;
  for (int k = 1; ok && k <= 500; ++k) {
    const double t = hybrid_ode::t_end * k / 500.0;
    ok = esdirk::ok(with_adjoint ? adjoint.integrate_to(t, x, {}, S.ref()) : solver.integrate_to(t, x, {}, S.ref()));
    samples.push_back({t, x[0], S(0, 0)});
  }
  if (!ok || solver.logged_events() != 3) {
    std::printf("failed: %s\nCHECK FAILED\n", solver.message().c_str());
    return 1;
  }
  std::printf("Example 5.1 of Serban & Recuero, \"Sensitivity Analysis for Hybrid Systems and Systems with Memory\" (TR-2019-01), p = %.1f, %s, rtol = %.1e\n\n", p,
              solver.integrator().method().name.c_str(), rtol);
  // Event times carry the integrator's global error (about 40 rtol); tau and the jumps follow.
  const double time_bound = std::max(1e-8, 100 * rtol), sens_bound = 1e-8;
  for (int k = 0; k < 3; ++k) {
    const esdirk::EventRecord& e = solver.event(k);
    const auto kk = static_cast<std::size_t>(k);
    char what[64];
    std::snprintf(what, sizeof what, "t%d (%c -> %c)", k + 1, e.mode_before == hybrid_ode::mode_a ? 'A' : 'B',
                  e.mode_after == hybrid_ode::mode_a ? 'A' : 'B');
    check(std::abs(e.t - ex.t_event[kk].v) < time_bound * e.t, what, e.t, ex.t_event[kk].v);
    std::snprintf(what, sizeof what, "tau%d = dt%d/dp", k + 1, k + 1);
    check(std::abs(e.tau[0] - ex.t_event[kk].d[0]) < sens_bound * std::abs(ex.t_event[kk].d[0]), what, e.tau[0], ex.t_event[kk].d[0]);
    const double xe = ex.x_event[kk].v, f_plus = e.mode_after == hybrid_ode::mode_a ? 4 - xe : 10 - 2 * xe;
    const double s_plus = ex.x_event[kk].d[0] - f_plus * ex.t_event[kk].d[0];
    std::snprintf(what, sizeof what, "s%d+ (after the jump)", k + 1);
    check(std::abs(e.sx_plus(0, 0) - s_plus) < sens_bound * std::abs(s_plus), what, e.sx_plus(0, 0), s_plus);
  }
  check(std::abs(x[0] - ex.x_end.v) < 100 * rtol, "x(5)", x[0], ex.x_end.v);
  check(std::abs(S(0, 0) - ex.x_end.d[0]) < std::max(1e-6, 1e4 * rtol) * std::abs(ex.x_end.d[0]), "s(5) = dx(5)/dp", S(0, 0), ex.x_end.d[0]);
  check(std::abs(x[1] - ex.G.v) < 100 * rtol * ex.G.v, "G = int x dt", x[1], ex.G.v);
  check(std::abs(S(1, 0) - ex.G.d[0]) < sens_bound * std::abs(ex.G.d[0]), "dG/dp", S(1, 0), ex.G.d[0]);
  const bool printed = std::round(S(1, 0) * 1e5) / 1e5 == -2.31195;
  std::printf("  dG/dp rounded to 6 digits: %.5f (the report prints -2.31195): %s\n", S(1, 0), printed ? "ok" : "WRONG");
  all_ok = all_ok && printed;
  if (with_adjoint) {
    // G = q(5) and x(5): one sweep back through the three events for both rows.
    esdirk::HybridObjective objective;
    esdirk::DenseMatrix w(2, 2), dx0(2, 2), dp(1, 2);
    w(1, 0) = 1.0;
    w(0, 1) = 1.0;
    objective.set_terminal_weights(w.cref());
    const esdirk::Status status = adjoint.gradient(objective, dx0.ref(), dp.ref());
    if (!esdirk::ok(status)) {
      std::printf("adjoint failed: %s\nCHECK FAILED\n", adjoint.message().c_str());
      return 1;
    }
    std::printf("\n  by the hybrid adjoint (%ld segments, %ld jumps transposed, %ld adjoint steps):\n",
                adjoint.report().segments, adjoint.report().jumps, adjoint.report().sweep.adjoint_steps);
    const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::abs(b); };
    std::printf("  %-34s %18.12g  forward     %18.12g  rel. diff. %8.1e  %s\n", "dG/dp (adjoint)", dp(0, 0), S(1, 0),
                std::abs(dp(0, 0) - S(1, 0)) / std::abs(S(1, 0)), same(dp(0, 0), S(1, 0)) ? "ok" : "WRONG");
    std::printf("  %-34s %18.12g  forward     %18.12g  rel. diff. %8.1e  %s\n", "dx(5)/dp (adjoint)", dp(0, 1), S(0, 0),
                std::abs(dp(0, 1) - S(0, 0)) / std::abs(S(0, 0)), same(dp(0, 1), S(0, 0)) ? "ok" : "WRONG");
    all_ok = all_ok && same(dp(0, 0), S(1, 0)) && same(dp(0, 1), S(0, 0));
    check(std::abs(dp(0, 0) - ex.G.d[0]) < sens_bound * std::abs(ex.G.d[0]), "dG/dp (adjoint)", dp(0, 0), ex.G.d[0]);
    const bool seed_digits = std::round(dp(0, 0) * 1e5) / 1e5 == -2.31195;
    std::printf("  adjoint dG/dp rounded to 6 digits: %.5f (the report prints -2.31195 for its ASA): %s\n", dp(0, 0),
                seed_digits ? "ok" : "WRONG");
    all_ok = all_ok && seed_digits;
  }
  const esdirk::Statistics& st = solver.statistics();
  std::printf("\n  steps %ld, events %ld, root-finder iterations %ld, dense evaluations for events %ld\n",
              st.accepted_steps, st.events, st.event_root_iterations, st.event_dense_evaluations);
  if (!plot_dir.empty()) {
    example_support::write_csv(plot_dir + "/hybrid_ode.csv", {"t", "x", "s"}, samples);
    example_support::write_csv(plot_dir + "/hybrid_ode_events.csv", {"t"},
                            {{solver.event(0).t}, {solver.event(1).t}, {solver.event(2).t}});
    example_support::plot(plot_dir, "plot_hybrid_ode.py", plot_script, "hybrid_ode.png");
  }
  std::printf("\n%s\n", all_ok ? "CHECK PASSED" : "CHECK FAILED");
  return all_ok ? 0 : 1;
}
