// Nonlinear model predictive control of an exothermic CSTR by multiple shooting with Ipopt
// (Gauss-Newton Hessian from the intervals' A_k, B_k; --lbfgs for Ipopt's limited-memory one):
// from the low-conversion steady state (T_c = 300 K) to the open-loop unstable middle one
// (C_A = 0.5 mol/L, T = 350 K) with the coolant temperature bounded, 250 <= T_c <= 350 K, and
// the reactor temperature kept below T_max = 355 K (a state constraint at the shooting
// nodes, soft by default: an exact L1 penalty, --soft). Each sample solves one NLP over N intervals of dt, warm-started from the previous
// solution; the plant is the same model integrated with the control held over the sample
// (zero-order hold: a restart of the integrator at each sample time).
//
// The shooting intervals run on a frozen mesh by default (--mesh): the first evaluation of each
// sample's NLP adapts the steps of every interval at rtol, the later SQP iterations of that
// sample reuse them. The intervals are then one smooth discrete map per sample (adaptive step
// selection makes the map and its derivatives jump where a step is accepted or rejected, which
// the NLP's line search sees as noise) at a cost fixed by the first evaluation, without
// rejected steps; the next sample adapts again, so the mesh follows the trajectory.
//
// The intervals run at rtol 1e-5 by default (3.7 steps per interval instead of 11.7 at 1e-8),
// which needs the soft state constraint: in sample 5 both T <= T_max and T_c >= 250 K are
// active and the hard NLP is feasible only within the intervals' error against the plant, so at
// rtol 1e-5 it fails there. With the penalty rho = 100 on the violation (per kelvin and node;
// above the hard NLP's state-bound multipliers, at most 3.9, in every sample but that one,
// where the soft NLP violates by < 1e-6 K), the soft NLP has the hard solution wherever the
// hard one is feasible with some margin.
//
//     nmpc [--horizon N] [--samples S] [--dt DT] [--threads T] [--output DIR] [--lbfgs]
//          [--cold-multipliers] [--mesh frozen|adaptive|fixed:STEPS] [--rtol R] [--soft RHO]
//          [--compare CSV]
//
// Writes DIR/nmpc_closed_loop.csv (plant states and input, ten points per sample); plot.py
// makes nmpc_closed_loop.png from it.
//
// Checks: every NLP solved; every sample's NLP constraint violation below its tolerance; the
// plant's T <= T_max and the bounds on T_c at every sample; the set point reached at the end;
// with --compare CSV, the closed loop equal to another run's (nmpc_closed_loop.csv of the same
// horizon and samples, e.g. hard bounds with --mesh adaptive --rtol 1e-8 --soft 0) within
// 1e-6 relative in C_A, T and T_c. Prints the largest state-bound multiplier and slack.
// Prints per sample the integration, derivative assembly and Ipopt times and the time and
// steps per shooting interval (timings are reported, never checked).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cstr.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"
#include "esdirk/multishoot/ipopt_ocp.hpp"
#include "common/example_support.hpp"

namespace ms = esdirk::multishoot;

namespace {

constexpr double CA_ref = 0.5, T_ref = 350.0, Tc_ref = 300.0, T_max = 355.0;
// --compare: the bound on the relative difference of two closed loops: the NLPs' optimality
// tolerance 1e-6 (two runs converge differently within it where the bound on T turns inactive).
constexpr double compare_bound = 1e-6;
constexpr double w_CA = 1.0 / (0.05 * 0.05), w_T = 1.0 / (2.0 * 2.0), w_Tc = 0.01 / (20.0 * 20.0);

// The steady state at T_c near (C_A, T): Newton on f = 0.
std::array<double, 2> steady_state(double Tc, double CA, double T) {
  cstr::Model m;
  std::vector<double> x = {CA, T}, f(2), u = {Tc};
  esdirk::DenseMatrix J(2, 2);
  for (int it = 0; it < 50; ++it) {
    m.evaluate(0.0, x, {}, u, f, {});
    m.jacobian(0.0, x, {}, u, J.ref());
    const double det = J(0, 0) * J(1, 1) - J(0, 1) * J(1, 0);
    const double d0 = (J(1, 1) * f[0] - J(0, 1) * f[1]) / det, d1 = (J(0, 0) * f[1] - J(1, 0) * f[0]) / det;
    x[0] -= d0;
    x[1] -= d1;
  }
  return {x[0], x[1]};
}

// The closed loop as written to nmpc_closed_loop.csv: rows of t, C_A, T, T_c.
std::vector<std::array<double, 4>> read_closed_loop(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::array<double, 4>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::array<double, 4> row{};
    std::stringstream fields(line);
    std::string field;
    for (double& v : row) {
      if (!std::getline(fields, field, ',')) throw std::runtime_error(path + ": a row with fewer than 4 fields");
      v = std::stod(field);
    }
    rows.push_back(row);
  }
  return rows;
}

// The largest difference of C_A, T and T_c between two closed loops of the same samples, each
// relative to the other run's value (an absolute 1e-8 floor for C_A near zero); -1 when the
// rows' times differ (another horizon, sample time or number of samples).
double closed_loop_difference(const std::vector<std::array<double, 4>>& a,
                              const std::vector<std::array<double, 4>>& b, std::array<double, 3>& worst) {
  worst = {0.0, 0.0, 0.0};
  if (a.size() != b.size()) return -1.0;
  double largest = 0.0;
  for (std::size_t r = 0; r < a.size(); ++r) {
    if (std::abs(a[r][0] - b[r][0]) > 1e-9) return -1.0;
    for (int i = 1; i < 4; ++i) {
      const double d = std::abs(a[r][static_cast<std::size_t>(i)] - b[r][static_cast<std::size_t>(i)]) /
                       std::max(std::abs(b[r][static_cast<std::size_t>(i)]), 1e-8);
      worst[static_cast<std::size_t>(i - 1)] = std::max(worst[static_cast<std::size_t>(i - 1)], d);
      largest = std::max(largest, d);
    }
  }
  return largest;
}

}  // namespace

const char* const usage =
    "usage: nmpc [--horizon N] [--samples S] [--dt DT] [--threads T] [--output DIR] [--lbfgs]\n"
    "            [--cold-multipliers] [--mesh frozen|adaptive|fixed:STEPS] [--rtol R] [--soft RHO]\n"
    "            [--compare CSV]\n"
    "\n"
    "Nonlinear model predictive control of an exothermic CSTR by multiple shooting with Ipopt,\n"
    "from the low-conversion steady state to the unstable middle one under input and state bounds.\n"
    "\n"
    "  --horizon N          shooting intervals per NLP (default 20)\n"
    "  --samples S          closed-loop samples (default 60)\n"
    "  --dt DT              sample time in minutes (default 0.05)\n"
    "  --threads T          threads evaluating the intervals (default 2)\n"
    "  --output DIR         write nmpc_closed_loop.csv and draw nmpc_closed_loop.png in DIR\n"
    "                       (default .)\n"
    "  --lbfgs              Ipopt's limited-memory Hessian instead of Gauss-Newton\n"
    "  --cold-multipliers   no warm start of the multipliers\n"
    "  --mesh M             shooting meshes: frozen (default: adapted at the first evaluation of\n"
    "                       each sample, reused by its later iterations), adaptive (every\n"
    "                       evaluation adapts), fixed:STEPS (STEPS equal steps per interval)\n"
    "  --rtol R             the shooting intervals' rtol (default 1e-5; atol = 1e-2 R)\n"
    "  --soft RHO           T <= T_max as a soft constraint with the L1 penalty RHO per kelvin\n"
    "                       and node (default 100); 0: a hard bound\n"
    "  --compare CSV        check that the closed loop equals the one in CSV (another run's\n"
    "                       nmpc_closed_loop.csv, same horizon and samples) within 1e-6 relative\n"
    "  --help               this text\n";

int main(int argc, char** argv) try {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  int N = 20, samples = 60, threads = 2;
  bool cold = false, lbfgs = false;
  double dt = 0.05, rtol = 1e-5, penalty = 100.0;
  std::string output = ".", mesh = "frozen", compare;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--horizon")) N = std::atoi(next());
    else if (!std::strcmp(argv[i], "--samples")) samples = std::atoi(next());
    else if (!std::strcmp(argv[i], "--dt")) dt = std::atof(next());
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(next());
    else if (!std::strcmp(argv[i], "--output")) output = next();
    else if (!std::strcmp(argv[i], "--cold-multipliers")) cold = true;
    else if (!std::strcmp(argv[i], "--lbfgs")) lbfgs = true;
    else if (!std::strcmp(argv[i], "--mesh")) mesh = next();
    else if (!std::strcmp(argv[i], "--rtol")) rtol = std::atof(next());
    else if (!std::strcmp(argv[i], "--compare")) compare = next();
    else if (!std::strcmp(argv[i], "--soft")) penalty = std::atof(next());
    else throw std::invalid_argument(std::string("unknown option ") + argv[i]);
  }

  esdirk::Options options;
  options.rtol = rtol;
  options.atol = 1e-2 * rtol;  // C_A ~ 0.5 mol/L
  ms::IntervalEvaluator evaluator([] { return std::make_unique<cstr::Model>(); }, N, options, {},
                                  threads);
  const bool frozen = mesh == "frozen";
  if (frozen) {
    evaluator.freeze_meshes();
  } else if (mesh.rfind("fixed:", 0) == 0) {
    evaluator.set_fixed_steps(std::atoi(mesh.c_str() + 6));  // throws naming `steps` if < 1
  } else if (mesh != "adaptive") {
    throw std::invalid_argument("--mesh must be frozen, adaptive or fixed:STEPS, not " + mesh);
  }
  // The tracking cost (C_A - 0.5)^2 / 0.05^2 + (T - 350)^2 / 2^2 + 0.01 (T_c - 300)^2 / 20^2,
  // terminal weight 10 times the states' (C_A, T of the unstable set point).
  ms::QuadraticCost cost;
  cost.x_ref = {CA_ref, T_ref};
  cost.u_ref = {Tc_ref};
  cost.Q = {w_CA, w_T};
  cost.R = {w_Tc};
  cost.P = {10.0 * w_CA, 10.0 * w_T};
  evaluator.set_running_cost(cost.running_cost());
  // Time and steps of the shooting intervals as one thread spends them (IntervalOutputs), summed
  // over a sample's evaluations.
  double interval_seconds = 0.0;
  long interval_count = 0, interval_steps = 0;
  const ms::EvaluateIntervals evaluate = [&](const ms::IntervalInputs& in, ms::IntervalOutputs& out) {
    const bool ok = evaluator.evaluate(in, out);
    interval_seconds += out.integration_seconds();
    interval_steps += out.total_steps();
    interval_count += N;
    return ok;
  };

  ms::OcpSpec spec;
  spec.nx = 2;
  spec.nz = 0;
  spec.nu = 1;
  spec.intervals = N;
  spec.dt = dt;
  spec.u_lower = {250.0};
  spec.u_upper = {350.0};
  spec.x_lower = {-INFINITY, -INFINITY};
  spec.x_upper = {INFINITY, T_max};
  spec.terminal = cost.terminal_cost();
  if (!lbfgs) spec.quadratic_cost = cost;
  spec.tolerance = 1e-8;
  spec.warm_start_multipliers = !cold;
  spec.soft_state_penalty = penalty;

  // The plant: the same model, integrated tightly, control held over each sample.
  cstr::Model plant_model;
  esdirk::Options plant_options;
  plant_options.rtol = 1e-10;
  plant_options.atol = 1e-12;
  esdirk::Integrator plant(plant_model, plant_options);
  const auto x_start = steady_state(Tc_ref, 0.9, 320.0);
  std::vector<double> x = {x_start[0], x_start[1]};

  ms::OcpSolution guess;
  for (int k = 0; k <= N; ++k) guess.s.insert(guess.s.end(), x.begin(), x.end());
  guess.u.assign(static_cast<std::size_t>(N), Tc_ref);

  const std::string csv = output + "/nmpc_closed_loop.csv";
  std::FILE* f = std::fopen(csv.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + csv);
  std::fprintf(f, "t,CA,T,Tc\n");
  if (!(rtol > 0.0 && rtol < 1.0)) throw std::invalid_argument("--rtol must be in (0, 1)");
  if (!(penalty >= 0.0)) throw std::invalid_argument("--soft must be >= 0");
  std::printf("CSTR NMPC: N = %d intervals of %g min, %d samples, %d threads, %s meshes, rtol %g, "
              "T <= T_max %s (penalty %g); start C_A = %.4f, T = %.3f K\n\n",
              N, dt, samples, threads, mesh.c_str(), options.rtol, penalty > 0.0 ? "soft" : "hard", penalty,
              x[0], x[1]);
  std::printf("%6s %8s %9s %9s %5s %5s %10s %9s %9s %9s %9s %9s %6s %9s %9s\n", "sample", "C_A", "T", "T_c",
              "iter", "evals", "viol", "integr s", "assem s", "solver s", "total s", "us/intv", "steps", "T mult",
              "slack");
  bool ok = true;
  double max_slack = 0.0, max_multiplier = 0.0;
  double max_T = x[1], max_viol = 0.0, sum_int = 0, sum_asm = 0, sum_sol = 0, max_total = 0;
  int total_iter = 0, failed_evals = 0;
  for (int j = 0; j < samples; ++j) {
    const double t = j * dt;
    if (frozen) evaluator.refresh_meshes();  // this sample's first evaluation adapts
    const double seconds_before = interval_seconds;
    const long count_before = interval_count, steps_before = interval_steps;
    const auto start = std::chrono::steady_clock::now();
    ms::OcpSolution sol = ms::solve_ocp(spec, t, x, guess, evaluate);
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double Tc = sol.u[0];
    const double count = static_cast<double>(std::max(1L, interval_count - count_before));
    std::printf("%6d %8.5f %9.4f %9.4f %5d %5d %10.2e %9.5f %9.5f %9.5f %9.5f %9.1f %6.2f %9.3g %9.2e\n", j, x[0], x[1],
                Tc, sol.iterations, sol.evaluations, sol.constraint_violation, sol.integration_seconds,
                sol.assembly_seconds, sol.solver_seconds, total, 1e6 * (interval_seconds - seconds_before) / count,
                static_cast<double>(interval_steps - steps_before) / count, sol.max_state_bound_multiplier,
                sol.max_slack);
    if (!sol.success) {
      std::printf("  sample %d: the NLP failed: %s %s\n", j, sol.status.c_str(), sol.message.c_str());
      ok = false;
    }
    if (sol.constraint_violation > spec.tolerance * 10.0) {
      std::printf("  sample %d: constraint violation %.3e above the NLP tolerance\n", j, sol.constraint_violation);
      ok = false;
    }
    if (Tc < spec.u_lower[0] - 1e-6 || Tc > spec.u_upper[0] + 1e-6) {
      std::printf("  sample %d: T_c = %.6f outside its bounds\n", j, Tc);
      ok = false;
    }
    max_viol = std::max(max_viol, sol.constraint_violation);
    max_slack = std::max(max_slack, sol.max_slack);
    max_multiplier = std::max(max_multiplier, sol.max_state_bound_multiplier);
    sum_int += sol.integration_seconds;
    sum_asm += sol.assembly_seconds;
    sum_sol += sol.solver_seconds;
    max_total = std::max(max_total, total);
    total_iter += sol.iterations;
    failed_evals += sol.failed_evaluations;

    // The plant over [t, t + dt] with T_c held: restart at the sample time (a time event).
    const std::vector<double> u = {Tc};
    if (!esdirk::ok(j == 0 ? plant.initialize(t, x, {}, u) : plant.restart(t, x, {}, u)))
      throw std::runtime_error("plant restart failed: " + plant.message());
    plant.set_stop_time(t + dt);
    std::fprintf(f, "%.6f,%.10f,%.10f,%.10f\n", t, x[0], x[1], Tc);
    for (int i = 1; i <= 10; ++i) {  // between samples too, for the plot and the T_max check
      const double ti = t + dt * i / 10.0;
      if (!esdirk::ok(plant.integrate_to(ti, x)))
        throw std::runtime_error("plant integration failed: " + plant.message());
      max_T = std::max(max_T, x[1]);
      std::fprintf(f, "%.6f,%.10f,%.10f,%.10f\n", ti, x[0], x[1], Tc);
    }
    if (x[1] > T_max + 1e-6) {
      std::printf("  sample %d: the plant's T = %.6f exceeds T_max\n", j + 1, x[1]);
      ok = false;
    }
    guess = ms::shift_for_warm_start(spec, sol);
  }
  std::fclose(f);
  if (!compare.empty()) {
    // The same closed loop as another run's (CTest: hard bounds, adaptive meshes, rtol 1e-8):
    // every plant state and input at every row within 1e-6 relative (measured for the default:
    // 7.6e-7 in T_c, in sample 9 where T leaves its bound; 6.9e-7 already for soft bounds on
    // the same adaptive meshes).
    std::array<double, 3> worst{};
    const double difference = closed_loop_difference(read_closed_loop(csv), read_closed_loop(compare), worst);
    if (difference < 0.0) {
      std::printf("the closed loop of %s has other sample times or another length\n", compare.c_str());
      ok = false;
    } else {
      std::printf("closed loop against %s: largest relative difference C_A %.2e, T %.2e, T_c %.2e (bound %.0e)\n",
                  compare.c_str(), worst[0], worst[1], worst[2], compare_bound);
      if (!(difference <= compare_bound)) {
        std::printf("the closed loop differs from %s by more than %.0e\n", compare.c_str(), compare_bound);
        ok = false;
      }
    }
  }
  example_support::run_plot_script(ESDIRK_EXAMPLE_PLOT_SCRIPT, output, "nmpc_closed_loop.png");
  const double err_CA = std::abs(x[0] - CA_ref), err_T = std::abs(x[1] - T_ref);
  std::printf("\nfinal C_A = %.6f (set point %.1f), T = %.5f K (set point %.1f); max T = %.5f K "
              "(limit %.1f, between samples included)\n",
              x[0], CA_ref, x[1], T_ref, max_T, T_max);
  std::printf("per sample: %.2f NLP iterations, %.5f s integration (wall, %d threads), %.5f s "
              "derivative assembly, %.5f s Ipopt; slowest sample %.4f s; %d trial points with "
              "failing intervals; max violation %.2e\n",
              static_cast<double>(total_iter) / samples, sum_int / samples, threads,
              sum_asm / samples, sum_sol / samples, max_total, failed_evals, max_viol);
  std::printf("state bound T <= T_max: %s; largest multiplier %.4g, largest slack %.3e\n",
              penalty > 0.0 ? "soft" : "hard", max_multiplier, max_slack);
  std::printf("per shooting interval: %.1f us and %.2f steps (%ld interval evaluations, %s meshes)\n",
              1e6 * interval_seconds / static_cast<double>(std::max(1L, interval_count)),
              static_cast<double>(interval_steps) / static_cast<double>(std::max(1L, interval_count)),
              interval_count, mesh.c_str());
  if (err_CA > 2e-3 || err_T > 0.05) {
    std::printf("the set point was not reached\n");
    ok = false;
  }
  std::printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "nmpc: %s\n", e.what());
  return 2;
}
