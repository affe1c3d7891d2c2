// The Dow Chemical batch reactor benchmark (Kristensen et al., "Sensitivity analysis in index-1
// DAEs by ESDIRK methods", IFAC 2005, section 5): integrate the 6 + 4 index-1
// DAE over 10 h with the default method (ESDIRK436 at and below rtol 1e-3, ESDIRK34 above)
// together with the sensitivities to its nine kinetic parameters, compare the states with the reference solution, check the linear invariants (of the states
// and of their sensitivities), print the statistics in the form of the paper's Table 1 and the
// scaled sensitivities p_j du_i/dp_j at 10 h, and write CSV files (plotted by plot.py).
//
//     dow [--rtol 1e-6] [--mode exact|paper] [--error-control | --no-error-control] [--seed]
//         [--output DIR]
//
// The sensitivity options are the library's defaults (exact mode, under error control) unless
// changed; --seed runs the paper's configuration (Options::seed002(): raw tolerances, no
// Newton recovery; SensitivityOptions::seed002(): paper mode, sensitivities left out of the error
// test), which is what a reproduction of the paper's Table 1
// uses.
//
// Exit status 0 when the run succeeded, stayed on the physical branch ([H+] > 0), kept the
// invariants of the states to 1e-12 and of the sensitivities to 1e-10, and (for rtol <= 1e-6)
// matched the reference states to 1e3 * rtol and, in exact mode, a tight-tolerance run of the
// sensitivities to 1e3 * rtol relative to each row's maximum.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "dow_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "common/example_support.hpp"

namespace {

constexpr int nx = 6, nz = 4, np = 9;
constexpr double t_end = 10.0;

struct Settings {
  double rtol = 1e-6;
  esdirk::SensitivityOptions sensitivity;  // the library's defaults
  bool seed = false;                       // seed002() was asked for
  std::string output_dir;
};

// The options of the benchmark: the concentrations are O(1) and u3..u5 start at zero; the
// algebraic states are tiny ([H+] ~ 1e-8, u9, u10 ~ 1e-10), so their absolute tolerances set
// the accuracy of the Newton iteration on z.
// With `seed`, the integrator configuration of Kristensen et al. 2005 (Options::seed002(): raw tolerances,
// ESDIRK34, no Newton recovery) with the same tolerances.
esdirk::Options dow_options(double rtol, bool seed) {
  const esdirk::Options own = dow::benchmark_options(rtol);
  if (!seed) return own;
  esdirk::Options o = esdirk::Options::seed002();
  o.rtol = own.rtol;
  o.atol = own.atol;
  o.algebraic_atol = own.algebraic_atol;
  return o;
}

// Seed columns p_j e_j: the sensitivities come out scaled, p_j du/dp_j (the K's are ~1e-17, so
// unscaled sensitivities to them are ~1e16).
esdirk::DenseMatrix scaled_parameter_seed() {
  esdirk::DenseMatrix seed(nx + np, np);
  for (int j = 0; j < np; ++j) seed(nx + j, j) = dow::nominal_parameters[static_cast<std::size_t>(j)];
  return seed;
}

// Output grid: log-spaced through the initial transient, then every 0.1 h.
std::vector<double> output_times() {
  std::vector<double> times;
  for (int k = -6; k < -1; ++k)
    for (double m : {1.0, 2.0, 5.0}) times.push_back(m * std::pow(10.0, k));
  for (int k = 1; k <= 100; ++k) times.push_back(0.1 * k);
  return times;
}

struct Run {
  bool ok = false;
  std::string message;
  esdirk::Statistics stats;
  double seconds = 0.0;
  std::vector<std::vector<double>> rows;  // t, x (6), z (4), S (10 x 9, row-major by state)
  std::vector<double> x, z;               // at 10 h
  esdirk::DenseMatrix S;                  // [Sx; Sz] at 10 h (10 x 9)
  std::string method;                     // the method the run took ("auto" resolved)
};

// One run over [0, 10 h] with the stop time at 10 h (the values there are not interpolated).
// `with_sensitivities` false: the states alone (for the overhead figure).
Run run(double rtol, const esdirk::SensitivityOptions& sens_options, bool with_sensitivities,
        const std::vector<double>& times, bool keep_rows, bool seed_configuration = false) {
  Run result;
  const auto start = std::chrono::steady_clock::now();
  dow::Model model;
  esdirk::Integrator solver(model, dow_options(rtol, seed_configuration));
  result.method = solver.method().name;
  std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const auto z_start = dow::consistent_algebraic_start();
  std::vector<double> z0(z_start.begin(), z_start.end());
  std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  if (!esdirk::ok(solver.initialize(0.0, x0, z0, p))) {
    result.message = solver.message();
    return result;
  }
  solver.set_stop_time(t_end);
  result.x.assign(nx, 0.0);
  result.z.assign(nz, 0.0);
  if (!with_sensitivities) {
    result.ok = esdirk::ok(solver.integrate_to(t_end, result.x, result.z));
    result.message = solver.message();
    result.stats = solver.statistics();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  esdirk::ForwardSensitivity sens(solver, sens_options);
  const esdirk::DenseMatrix seed = scaled_parameter_seed();
  if (!esdirk::ok(sens.initialize(seed.cref()))) {
    result.message = sens.message();
    return result;
  }
  esdirk::DenseMatrix Sx(nx, np), Sz(nz, np);
  for (double t : times) {
    if (!esdirk::ok(sens.integrate_to(t, result.x, result.z, Sx.ref(), Sz.ref()))) {
      result.message = sens.message();
      return result;
    }
    if (!keep_rows) continue;
    std::vector<double> row{t};
    row.insert(row.end(), result.x.begin(), result.x.end());
    row.insert(row.end(), result.z.begin(), result.z.end());
    for (int i = 0; i < nx + nz; ++i)
      for (int j = 0; j < np; ++j) row.push_back(i < nx ? Sx(i, j) : Sz(i - nx, j));
    result.rows.push_back(std::move(row));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.S.resize(nx + nz, np);
  for (int j = 0; j < np; ++j)
    for (int i = 0; i < nx + nz; ++i) result.S(i, j) = i < nx ? Sx(i, j) : Sz(i - nx, j);
  result.stats = solver.statistics();
  result.ok = true;
  return result;
}

double best_time(double rtol, const esdirk::SensitivityOptions& so, bool with_sens,
                 const std::vector<double>& times, bool seed) {
  double best = 1e300;
  for (int repeat = 0; repeat < 3; ++repeat)
    best = std::min(best, run(rtol, so, with_sens, times, false, seed).seconds);
  return best;
}

void print_table1(const Run& r, double cpu) {
  const auto& s = r.stats;
  std::printf("%-8s %14s %14s   %s\n", "counter", "esdirk", "paper Table 1", "meaning here");
  std::printf("%-8s %14ld %14d   attempted steps\n", "NSTEP", s.steps, 77);
  std::printf("%-8s %14ld %14d   f/g evaluations by the method (+%ld for differences)\n", "NFUN",
              s.function_evaluations, 868, s.fd_function_evaluations);
  std::printf("%-8s %14ld %14d   Jacobians J (steps and stages)\n", "NJAC", s.jacobian_evaluations, 75);
  std::printf("%-8s %14ld %14d   parameter Jacobians [f_p; g_p]\n", "NJACT",
              s.parameter_jacobian_evaluations, 75);
  std::printf("%-8s %14ld %14d   LU factorizations\n", "NLU", s.lu_factorizations, 77);
  std::printf("%-8s %14ld %14d   right-hand sides solved with an LU\n", "NBACK", s.back_substitutions, 862);
  std::printf("%-8s %14ld %14d   accepted steps with a sensitivity solve\n", "NSENS", s.sensitivity_solves, 77);
  std::printf("%-8s %14.4f %14.2f   seconds (paper: 2005 hardware, tolerance not stated)\n", "CPU", cpu, 0.09);
}

// |c'S_j| for the three invariants, relative to the column's largest entry.
double worst_sensitivity_invariant(const esdirk::DenseMatrix& S) {
  const double c[3][nx] = {{1, 0, 1, 1, 0, 0}, {0, 1, 1, 1, 1, 0}, {0, 0, 0, -1, 1, 1}};
  double worst = 0.0;
  for (int j = 0; j < S.cols(); ++j) {
    double scale = 0.0;
    for (int i = 0; i < nx; ++i) scale = std::max(scale, std::abs(S(i, j)));
    for (const auto& ck : c) {
      double sum = 0.0;
      for (int i = 0; i < nx; ++i) sum += ck[i] * S(i, j);
      worst = std::max(worst, std::abs(sum) / std::max(scale, 1e-300));
    }
  }
  return worst;
}

double row_scaled_difference(const esdirk::DenseMatrix& a, const esdirk::DenseMatrix& b) {
  double worst = 0.0;
  for (int i = 0; i < a.rows(); ++i) {
    double scale = 0.0;
    for (int j = 0; j < a.cols(); ++j) scale = std::max(scale, std::abs(b(i, j)));
    for (int j = 0; j < a.cols(); ++j) worst = std::max(worst, std::abs(a(i, j) - b(i, j)) / scale);
  }
  return worst;
}

void write_csv(const std::string& dir, const Run& r) {
  std::ofstream states(dir + "/dow_states.csv"), sens(dir + "/dow_sensitivities.csv");
  states << "t";
  for (const char* name : dow::state_names) states << "," << name;
  states << "\n";
  sens << "t";
  for (const char* state : dow::state_names)
    for (const char* param : dow::parameter_names) sens << "," << param << "*d(" << state << ")/d" << param;
  sens << "\n";
  states.precision(17);
  sens.precision(17);
  for (const auto& row : r.rows) {
    for (std::size_t k = 0; k < 1 + nx + nz; ++k) states << (k ? "," : "") << row[k];
    states << "\n";
    sens << row[0];
    for (std::size_t k = 1 + nx + nz; k < row.size(); ++k) sens << "," << row[k];
    sens << "\n";
  }
  std::ofstream(dir + "/dow_statistics.csv") << r.stats.csv();
}

bool parse(int argc, char** argv, Settings& s) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--rtol") && i + 1 < argc) s.rtol = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--output") && i + 1 < argc) s.output_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--error-control")) s.sensitivity.error_control = true;
    else if (!std::strcmp(argv[i], "--no-error-control")) s.sensitivity.error_control = false;
    else if (!std::strcmp(argv[i], "--seed")) s.seed = true;
    else if (!std::strcmp(argv[i], "--mode") && i + 1 < argc) {
      const std::string mode = argv[++i];
      if (mode == "paper") s.sensitivity.mode = esdirk::SensitivityMode::paper;
      else if (mode == "exact") s.sensitivity.mode = esdirk::SensitivityMode::exact;
      else return false;
    } else {
      return false;
    }
  }
  if (s.seed) s.sensitivity = esdirk::SensitivityOptions::seed002();
  return s.rtol > 0.0 && s.rtol < 1.0;
}

}  // namespace

const char* const usage =
    "usage: dow [--rtol R] [--mode exact|paper] [--error-control | --no-error-control] [--seed] [--output DIR]\n"
    "\n"
    "The Dow Chemical batch reactor (an index-1 DAE, 6 + 4 states) over 10 h with the sensitivities\n"
    "to its nine kinetic parameters, checked against the reference solution and the conserved\n"
    "quantities; statistics in the form of Table 1 of Kristensen et al., \"Sensitivity analysis in\n"
    "index-1 DAEs by ESDIRK methods\" (IFAC 2005).\n"
    "\n"
    "  --rtol R             relative tolerance (default 1e-6)\n"
    "  --mode exact|paper   sensitivities of the discrete solution (default) or the paper's\n"
    "  --error-control      sensitivities in the error test (the default)\n"
    "  --no-error-control   sensitivities left out of the error test\n"
    "  --seed               the paper's own configuration (Options::seed002(), its Table 1)\n"
    "  --output DIR         write dow_states.csv, dow_sensitivities.csv, dow_statistics.csv and\n"
    "                       draw dow_states.png, dow_sensitivities.png in DIR\n"
    "  --help               this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  Settings settings;
  if (!parse(argc, argv, settings)) {
    std::fputs(usage, stderr);
    return 2;
  }
  const esdirk::SensitivityOptions& so = settings.sensitivity;
  const bool exact = so.mode == esdirk::SensitivityMode::exact;
  const auto times = output_times();
  const Run r = run(settings.rtol, so, true, times, true, settings.seed);
  if (!r.ok) {
    std::fprintf(stderr, "integration failed: %s\n", r.message.c_str());
    return 1;
  }

  std::printf("Dow Chemical batch reactor, %s, rtol = %.1e, t = 0 .. 10 h, sensitivities: %s mode, %s%s\n\n",
              r.method.c_str(), settings.rtol, exact ? "exact" : "paper",
              so.error_controlled() ? "under error control" : "not in the error test",
              settings.seed ? " (the configuration of Kristensen et al., IFAC 2005)" : !so.error_control ? " (library default)" : "");
  std::printf("%-12s %24s %24s %10s\n", "state", "esdirk", "reference", "rel. err");
  double worst_error = 0.0;
  for (int i = 0; i < nx + nz; ++i) {
    const double value = i < nx ? r.x[i] : r.z[i - nx];
    const double ref = dow::reference_at_10h[static_cast<std::size_t>(i)];
    const double err = std::abs(value - ref) / std::abs(ref);
    worst_error = std::max(worst_error, err);
    std::printf("%-12s %24.16e %24.16e %10.2e\n", dow::state_names[i], value, ref, err);
  }
  bool physical = true;
  double worst_invariant = 0.0;
  for (const auto& row : r.rows) {
    physical = physical && row[1 + nx] > 0.0;
    const auto inv = dow::invariants(esdirk::ConstVector(row.data() + 1, nx));
    for (int k = 0; k < 3; ++k)
      worst_invariant = std::max(worst_invariant, std::abs(inv[k] - dow::invariant_values[k]));
  }
  std::printf("\nlargest invariant drift over all outputs: %.2e\n", worst_invariant);
  std::printf("physical branch ([H+] > 0 at every output): %s\n", physical ? "yes" : "NO");
  std::printf("largest relative error at t = 10 h: %.2e\n\n", worst_error);

  std::printf("scaled sensitivities p_j du_i/dp_j at t = 10 h:\n%-11s", "");
  for (const char* name : dow::parameter_names) std::printf(" %10s", name);
  std::printf("\n");
  for (int i = 0; i < nx + nz; ++i) {
    std::printf("%-11s", dow::state_names[i]);
    for (int j = 0; j < np; ++j) std::printf(" %10.3e", r.S(i, j));
    std::printf("\n");
  }
  const double sens_invariant = worst_sensitivity_invariant(r.S);
  bool finite = true;
  for (int j = 0; j < np; ++j)
    for (int i = 0; i < nx + nz; ++i) finite = finite && std::isfinite(r.S(i, j));
  std::printf("\nsensitivities of the invariants (should be 0), relative to each column: %.2e\n", sens_invariant);

  // A tight-tolerance run (exact mode) as the sensitivity reference.
  const std::vector<double> end_only{t_end};
  const Run tight = run(1e-10, esdirk::SensitivityOptions{}, true, end_only, false);
  const double sens_difference = tight.ok ? row_scaled_difference(r.S, tight.S) : 1e300;
  std::printf("difference from a tight run (rtol 1e-10, defaults), relative to each row's max: %.2e\n\n", sens_difference);

  const double cpu = best_time(settings.rtol, so, true, end_only, settings.seed);
  const double cpu_states = best_time(settings.rtol, so, false, end_only, settings.seed);
  std::printf("statistics in the form of Table 1 of Kristensen et al., IFAC 2005 (9 parameter sensitivities, %s):\n",
              settings.seed ? "the paper's configuration" : "the options above; --seed for the paper's");
  print_table1(r, cpu);
  std::printf("\nCPU without sensitivities: %.4f s (overhead ratio %.2f)\n", cpu_states, cpu / cpu_states);

  if (!settings.output_dir.empty()) {
    write_csv(settings.output_dir, r);
    std::printf("\nwrote dow_states.csv, dow_sensitivities.csv and dow_statistics.csv in %s\n",
                settings.output_dir.c_str());
    example_support::run_plot_script(ESDIRK_EXAMPLE_PLOT_SCRIPT, settings.output_dir,
                                     "dow_states.png, dow_sensitivities.png");
  }

  bool good = physical && finite && worst_invariant <= 1e-12 && sens_invariant <= 1e-10 &&
              r.stats.sensitivity_solves == r.stats.accepted_steps;
  if (settings.rtol <= 1e-6) good = good && worst_error <= 1e3 * settings.rtol;
  if (settings.rtol <= 1e-6 && exact) good = good && sens_difference <= 1e3 * settings.rtol;
  std::printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  return good ? 0 : 1;
}
