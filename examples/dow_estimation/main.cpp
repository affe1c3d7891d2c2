// Parameter estimation for the Dow reactor by multiple shooting: three batch experiments at
// different initial charges, the five concentrations u1..u5 measured at eleven times each, the
// nine kinetic parameters (log-scaled) and the node states as unknowns, continuity exact at
// the solution (equality-constrained Gauss-Newton, doc/multiple-shooting-guide.md). The
// intervals of each iteration run on a thread pool.
//
//     dow_estimation [--noise REL] [--threads N] [--rtol R] [--seed S] [--data FILE]
//                    [--output DIR] [--experiments E] [--data-nodes] [--rcond R]
//
// --noise 0: noise-free data; the check is that every identifiable parameter (and each
// identifiable product of the others) is recovered to 1e-6 relative from a start 50 % off.
// --noise REL (default 0.01): Gaussian noise of REL times each state's range; the check is
// that the true values lie in the reported 95 % intervals of the identifiable parameters.
// The data are written to DIR/dow_data.csv and read back (or read from --data FILE).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/shooting_interval.hpp"
#include "esdirk/multishoot/estimation.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"
#include "esdirk/multishoot/measurements.hpp"
#include "log_dow.hpp"
#include "common/example_support.hpp"

namespace ms = esdirk::multishoot;

namespace {

constexpr int nx = 6, nz = 4, np = 9;
const std::vector<int> measured = {0, 1, 2, 3, 4};  // u1..u5; M- (u6) is not measured
const std::vector<double> times = {0.0, 0.05, 0.15, 0.3, 0.6, 1.0, 1.5, 2.5, 4.0, 6.0, 8.0, 10.0};

// Initial charges of the batch experiments (u1 = [HA], u2 = [BM]; u6 = [M-] = 0.0131 as in the
// reference, u3 = u4 = u5 = 0).
std::array<double, 6> charge(int e) {
  static const double u1[] = {1.5776, 2.0, 1.0, 1.8}, u2[] = {8.32, 6.0, 10.0, 9.0};
  return {u1[e % 4], u2[e % 4], 0.0, 0.0, 0.0, 0.0131};
}

std::vector<double> log_of(const std::array<double, 9>& p) {
  std::vector<double> t;
  for (double v : p) t.push_back(std::log(v));
  return t;
}

// States at `ts` from x0 for log-parameters theta: x (nx per time) and z (nz per time).
bool simulate(const std::vector<double>& theta, const std::array<double, 6>& x0,
              const std::vector<double>& ts, double rtol, std::vector<double>& xs,
              std::vector<double>& zs) {
  dow::LogModel model;
  esdirk::Integrator solver(model, dow::benchmark_options(rtol));
  std::vector<double> p(9);
  for (int j = 0; j < 9; ++j) p[j] = std::exp(theta[j]);
  const auto z0 = dow::consistent_algebraic(x0.data(), p.data());
  if (!esdirk::ok(solver.initialize(ts[0], x0, z0, theta))) return false;
  xs.assign(x0.begin(), x0.end());
  zs.assign(z0.begin(), z0.end());
  std::vector<double> x(nx), z(nz);
  for (std::size_t k = 1; k < ts.size(); ++k) {
    solver.set_stop_time(ts[k]);
    if (!esdirk::ok(solver.integrate_to(ts[k], x, z))) return false;
    xs.insert(xs.end(), x.begin(), x.end());
    zs.insert(zs.end(), z.begin(), z.end());
  }
  return true;
}

// The intervals' options: the benchmark's tolerances. Every interval starts afresh
// (IntervalEvaluator) from the automatic initial step.
esdirk::Options interval_options(double rtol) { return dow::benchmark_options(rtol); }

// The states at `ts` from x0 as the estimator's intervals compute them (a chain of shooting
// intervals with the same options, each started afresh): the discrete model whose parameters
// the estimator looks for. Data made this way have no integration error relative to the
// estimator, so a noise-free fit tests the estimator itself; data from a tighter integration
// would add the estimator's integration error (see the guide for both).
bool discrete_model(const std::vector<double>& theta, const std::array<double, 6>& x0,
                    const std::vector<double>& ts, double rtol, std::vector<double>& xs) {
  dow::LogModel model;
  esdirk::ShootingInterval interval(model, interval_options(rtol));
  std::vector<double> p(9);
  for (int j = 0; j < 9; ++j) p[j] = std::exp(theta[j]);
  const auto z0 = dow::consistent_algebraic(x0.data(), p.data());
  std::vector<double> x(x0.begin(), x0.end()), z(z0.begin(), z0.end());
  xs = x;
  for (std::size_t k = 0; k + 1 < ts.size(); ++k) {
    interval.cold_start();
    const esdirk::ShootingResult& r = interval.integrate(ts[k], ts[k + 1], x, theta, z);
    if (!esdirk::ok(r.status)) {
      std::fprintf(stderr, "dow_estimation: data interval %zu: %s\n", k, r.message.c_str());
      return false;
    }
    x = r.x;
    z = r.z;
    xs.insert(xs.end(), x.begin(), x.end());
  }
  return true;
}

struct Args {
  bool no_error_control = false, data_nodes = false;
  double rcond = 1e-6, damping = 1e-4, max_step = 1.0, max_damping = 1.0;
  double noise = 0.01, rtol = 1e-6;
  int threads = 2, experiments = 3;
  unsigned seed = 2005;
  std::string data, output = ".";
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--noise")) a.noise = std::atof(next());
    else if (!std::strcmp(argv[i], "--rtol")) a.rtol = std::atof(next());
    else if (!std::strcmp(argv[i], "--threads")) a.threads = std::atoi(next());
    else if (!std::strcmp(argv[i], "--experiments")) a.experiments = std::atoi(next());
    else if (!std::strcmp(argv[i], "--seed")) a.seed = static_cast<unsigned>(std::atoi(next()));
    else if (!std::strcmp(argv[i], "--data")) a.data = next();
    else if (!std::strcmp(argv[i], "--no-error-control")) a.no_error_control = true;
    else if (!std::strcmp(argv[i], "--data-nodes")) a.data_nodes = true;
    else if (!std::strcmp(argv[i], "--rcond")) a.rcond = std::atof(next());
    else if (!std::strcmp(argv[i], "--damping")) a.damping = std::atof(next());
    else if (!std::strcmp(argv[i], "--max-damping")) a.max_damping = std::atof(next());
    else if (!std::strcmp(argv[i], "--max-step")) a.max_step = std::atof(next());
    else if (!std::strcmp(argv[i], "--output")) a.output = next();
    else throw std::invalid_argument(std::string("unknown option ") + argv[i]);
  }
  return a;
}

esdirk::SensitivityOptions sensitivity_options(const Args& a) {
  esdirk::SensitivityOptions s;
  if (a.no_error_control) s.error_control = false;
  return s;
}

}  // namespace

const char* const usage =
    "usage: dow_estimation [--noise REL] [--threads N] [--rtol R] [--seed S] [--data FILE]\n"
    "                      [--output DIR] [--experiments E] [--data-nodes] [--rcond R]\n"
    "                      [--damping D] [--max-damping D] [--max-step S] [--no-error-control]\n"
    "\n"
    "Parameter estimation for the Dow reactor by multiple shooting: the nine kinetic parameters\n"
    "from measured concentrations of several batch experiments, with 95 % confidence intervals.\n"
    "\n"
    "  --noise REL        Gaussian noise of REL times each state's range (default 0.01; 0: none)\n"
    "  --threads N        threads evaluating the intervals (default 2)\n"
    "  --rtol R           relative tolerance of the intervals (default 1e-6)\n"
    "  --seed S           random seed of the noise (default 2005)\n"
    "  --data FILE        read the measurements from FILE instead of simulating them\n"
    "  --output DIR       write dow_data.csv, dow_estimation_fit.csv and draw\n"
    "                     dow_estimation_fit.png in DIR (default .)\n"
    "  --experiments E    number of experiments (default 3)\n"
    "  --data-nodes       start the node states at the data\n"
    "  --rcond, --damping, --max-damping, --max-step   Gauss-Newton settings\n"
    "  --no-error-control sensitivities left out of the error test\n"
    "  --help             this text\n";

int main(int argc, char** argv) try {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  const Args args = parse(argc, argv);
  const std::vector<double> theta_true = log_of(dow::nominal_parameters);
  const int ny = static_cast<int>(measured.size());

  // 1. Synthetic data: tight integration at the true parameters, plus noise.
  std::string data_file = args.data;
  if (data_file.empty()) {
    std::mt19937 rng(args.seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<ms::MeasurementSeries> series;
    for (int e = 0; e < args.experiments; ++e) {
      std::vector<double> xs, zs;
      if (!discrete_model(theta_true, charge(e), times, args.rtol, xs))
        throw std::runtime_error("the data simulation failed");
      ms::MeasurementSeries s;
      s.times = times;
      std::vector<double> range(ny, 0.0);
      for (std::size_t k = 0; k < times.size(); ++k)
        for (int i = 0; i < ny; ++i) range[i] = std::max(range[i], std::abs(xs[k * nx + measured[i]]));
      for (std::size_t k = 0; k < times.size(); ++k)
        for (int i = 0; i < ny; ++i) {
          const double sigma = std::max(args.noise, 1e-4) * range[i];
          const double clean = xs[k * nx + measured[i]];
          // the initial charge is known exactly (a recipe); later samples carry the noise
          s.data.push_back(k == 0 ? clean : clean + args.noise * range[i] * normal(rng));
          s.sigma.push_back(sigma);
        }
      series.push_back(s);
    }
    data_file = args.output + "/dow_data.csv";
    ms::write_measurements(data_file, series, ny,
                           "Dow reactor, synthetic: u1..u5 in mol/kg, relative noise " +
                               std::to_string(args.noise));
  }
  const std::vector<ms::MeasurementSeries> series = ms::read_measurements(data_file, ny);

  // 2. The start: every parameter 50 % off (x1.5 and x0.5 alternately), node states and z
  // guesses from a simulation at the start.
  std::vector<double> theta0 = theta_true;
  for (int j = 0; j < np; ++j) theta0[j] += std::log(j % 2 == 0 ? 1.5 : 0.5);
  ms::EstimationProblem problem;
  problem.nx = nx;
  problem.nz = nz;
  problem.np = np;
  problem.measured = measured;
  for (std::size_t e = 0; e < series.size(); ++e) {
    const ms::MeasurementSeries& s = series[e];
    std::vector<double> xs, zs;
    std::array<double, 6> x0 = charge(static_cast<int>(e));
    for (int i = 0; i < ny; ++i) x0[measured[i]] = s.data[i];
    if (!simulate(theta0, x0, s.times, 1e-9, xs, zs))
      throw std::runtime_error("the start simulation of experiment " + std::to_string(e) + " failed");
    ms::Experiment x;
    x.times = s.times;
    x.data = s.data;
    x.sigma = s.sigma;
    // Node states from the simulation at the start (defects zero at the start). --data-nodes
    // puts the measured states at their data instead (the textbook multiple-shooting start,
    // near the measured trajectory): fine for noise-free data, but noisy data next to the
    // simulated u6 can leave the fast [H+] equilibrium without a positive root (u1 < 0 late
    // in a batch), and the interval cannot start.
    x.nodes = xs;
    if (args.data_nodes)
      for (std::size_t k = 0; k < s.times.size(); ++k)
        for (int i = 0; i < ny; ++i) x.nodes[k * nx + measured[i]] = s.data[k * ny + i];
    x.z_guess.assign(zs.begin(), zs.end() - nz);
    x.initial_state_known = true;
    problem.experiments.push_back(x);
  }

  // 3. Solve, the intervals on a thread pool.
  ms::IntervalEvaluator evaluator([] { return std::make_unique<dow::LogModel>(); },
                                  problem.intervals(), interval_options(args.rtol), sensitivity_options(args),
                                  args.threads);
  ms::GaussNewtonOptions options;
  options.step_tolerance = 1e-9;
  options.defect_tolerance = 1e-9;
  // Directions whose singular value is below 1e-6 of the largest carry information only at
  // the level of the integration error (the three smallest are 1e-8 .. 1e-10 of the largest
  // here): they are left where they start.
  options.rcond = args.rcond;
  options.initial_damping = args.damping;
  options.max_damping = args.max_damping;
  options.max_parameter_step = args.max_step;
  const auto start = std::chrono::steady_clock::now();
  const ms::EstimationResult res = ms::estimate(
      problem, theta0,
      [&](const ms::IntervalInputs& in, ms::IntervalOutputs& out) { return evaluator.evaluate(in, out); },
      options);
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("Dow estimation: %zu experiments, %d intervals, %d residuals, %d threads, rtol %g, "
              "noise %g\n",
              series.size(), problem.intervals(), res.residuals, args.threads, args.rtol, args.noise);
  std::printf("\n%4s %14s %10s %10s %7s %8s %4s %7s %9s %9s %9s\n", "iter", "cost", "max defect",
              "|dtheta|", "alpha", "damping", "back", "steps", "integr s", "assem s", "solver s");
  double t_int = 0, t_asm = 0, t_sol = 0;
  for (const ms::IterationRecord& r : res.history) {
    std::printf("%4d %14.6e %10.2e %10.2e %7.4f %8.1e %4d %7ld %9.4f %9.5f %9.5f\n", r.iteration,
                r.cost, r.max_defect, r.step, r.alpha, r.damping, r.backtracks, r.steps,
                r.integration_seconds, r.assembly_seconds, r.solver_seconds);
    t_int += r.integration_seconds;
    t_asm += r.assembly_seconds;
    t_sol += r.solver_seconds;
  }
  const double iters = static_cast<double>(res.history.size());
  std::printf("%s after %zu iterations, %.3f s: per iteration %.4f s integration (wall, %d "
              "threads), %.5f s assembly, %.5f s solver\n",
              res.message.c_str(), res.history.size(), total, t_int / iters, args.threads,
              t_asm / iters, t_sol / iters);
  std::printf("rank %d of %d, s^2 = %.4g, singular values of the reduced Jacobian:", res.rank, np,
              res.residual_variance);
  for (double s : res.singular_values) std::printf(" %.3e", s);
  std::printf("\n\n");

  std::printf("%-5s %13s %13s %13s %26s %9s\n", "param", "true", "start", "estimate",
              "95 % interval", "rel. err");
  bool ok = res.converged;
  int identifiable = 0;
  for (int j = 0; j < np; ++j) {
    const double p = std::exp(res.theta[j]), pt = std::exp(theta_true[j]);
    const double err = std::abs(res.theta[j] - theta_true[j]);  // relative error of p
    if (res.identifiable[j]) {
      ++identifiable;
      std::printf("%-5s %13.6e %13.6e %13.6e [%11.5e, %11.5e] %9.2e\n", dow::parameter_names[j], pt,
                  std::exp(theta0[j]), p, std::exp(res.theta_lower[j]), std::exp(res.theta_upper[j]), err);
      if (args.noise == 0.0 && err > 1e-6) ok = false;
      if (args.noise > 0.0 && !(theta_true[j] >= res.theta_lower[j] && theta_true[j] <= res.theta_upper[j])) {
        std::printf("      the true value is outside the 95 %% interval\n");
        ok = false;
      }
    } else {
      std::printf("%-5s %13.6e %13.6e %13.6e %26s %9.2e  not identifiable\n", dow::parameter_names[j],
                  pt, std::exp(theta0[j]), p, "(no information)", err);
    }
  }
  // While [H+] >> K, km1 and K1 (km3 and K3) enter the model only as km1 K1 / [H+], and
  // [H+] scales with K2 (u8 = K2 u1 / (K2 + u7)): the data determine km1 K1 / K2 and
  // km3 K3 / K2 (see the guide), not the five constants one by one.
  const struct { int a, b; const char* name; } products[] = {{1, 5, "km1*K1/K2"}, {4, 7, "km3*K3/K2"}};
  for (const auto& pr : products) {
    const int c = 6;  // K2
    const double est = res.theta[pr.a] + res.theta[pr.b] - res.theta[c];
    const double tru = theta_true[pr.a] + theta_true[pr.b] - theta_true[c];
    const double start_value = theta0[pr.a] + theta0[pr.b] - theta0[c];
    const double w[3] = {1.0, 1.0, -1.0};
    const int idx[3] = {pr.a, pr.b, c};
    double var = 0.0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) var += w[i] * w[j] * res.covariance[idx[i] + idx[j] * np];
    const double half = options.confidence_z * std::sqrt(std::max(var, 0.0));
    std::printf("%-9s %9.6e %13.6e %13.6e [%11.5e, %11.5e] %9.2e  (combination)\n", pr.name,
                std::exp(tru), std::exp(start_value), std::exp(est), std::exp(est - half),
                std::exp(est + half), std::abs(est - tru));
    if (args.noise == 0.0 && std::abs(est - tru) > 1e-6) ok = false;
    if (args.noise > 0.0 && std::abs(est - tru) > half) ok = false;
  }
  std::printf("%d of %d parameters identifiable individually\n", identifiable, np);

  // 4. The fit: simulations at the estimate from each experiment's charge, for the plot.
  const std::string fit_file = args.output + "/dow_estimation_fit.csv";
  if (std::FILE* f = std::fopen(fit_file.c_str(), "w")) {
    std::fprintf(f, "kind,experiment,t,u1,u2,u3,u4,u5,u6\n");
    for (std::size_t e = 0; e < series.size(); ++e) {
      std::vector<double> fine, xs, zs;
      for (int i = 0; i <= 200; ++i) fine.push_back(10.0 * std::pow(i / 200.0, 2.0));
      if (!simulate(res.theta, charge(static_cast<int>(e)), fine, 1e-8, xs, zs)) continue;
      for (std::size_t k = 0; k < fine.size(); ++k) {
        std::fprintf(f, "model,%zu,%.8g", e, fine[k]);
        for (int i = 0; i < nx; ++i) std::fprintf(f, ",%.10g", xs[k * nx + i]);
        std::fprintf(f, "\n");
      }
      for (std::size_t k = 0; k < series[e].times.size(); ++k) {
        std::fprintf(f, "data,%zu,%.8g", e, series[e].times[k]);
        for (int i = 0; i < ny; ++i) std::fprintf(f, ",%.10g", series[e].data[k * ny + i]);
        std::fprintf(f, ",nan\n");
      }
    }
    std::fclose(f);
    example_support::run_plot_script(ESDIRK_EXAMPLE_PLOT_SCRIPT, args.output, "dow_estimation_fit.png");
  }
  std::printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "dow_estimation: %s\n", e.what());
  return 2;
}
