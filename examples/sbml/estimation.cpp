// Parameter estimation of an SBML model with an event, by multiple shooting (doc/sbml.md,
// doc/multiple-shooting-guide.md): two doses of a drug (dosing.xml: absorption ka G, elimination
// ke C, the second dose by an event at t = 6). Synthetic measurements of C with noise of
// standard deviation 0.05 are made from the model itself at ka = 0.8, ke = 0.3 (reproducible
// pseudo-random numbers); multishoot::estimate fits (ka, ke) from (0.4, 0.6), with the node
// states of G and C as unknowns of the shooting problem, and gives 95 % confidence intervals
// from the Gauss-Newton covariance.
//
// The shooting intervals are the SBML model's own runs: esdirk::sbml::simulate_sensitivities
// from the node state (G, C) at t_k to t_{k+1} with the sensitivities to G, C (A) and to ka, ke
// (B), through the event where an interval holds it.
//
//     sbml_estimation [MODEL.xml]
//
// Checks: the model reproduces the closed form of the two doses; the estimation converges with
// the estimates within 4 standard deviations of the truth; over 40 data sets the 95 % intervals
// hold the true values at least 34 times each (binomial: fails once in a thousand by chance).
// Prints "CHECK PASSED" (exit 0) when all hold.

#include "esdirk/multishoot/estimation.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "common/example_support.hpp"
#include "esdirk/sbml/sbml.hpp"

namespace sbml = esdirk::sbml;
namespace ms = esdirk::multishoot;

const char* const usage =
    "usage: sbml_estimation [MODEL.xml]\n"
    "\n"
    "Estimates ka and ke of an SBML model with a dosing event (default: the example's\n"
    "dosing.xml) from synthetic measurements by multiple shooting, with 95 % confidence\n"
    "intervals.\n"
    "\n"
    "  --help       this text\n";

namespace {

constexpr double ka_true = 0.8, ke_true = 0.3, dose = 10.0, sigma = 0.05;

// C(t) of the two doses (D at 0 and at 6): each dose adds D ka/(ka - ke)(e^{-ke s} - e^{-ka s}).
double closed_form_c(double t) {
  const auto one = [](double s) {
    return s < 0 ? 0.0
                 : dose * ka_true / (ka_true - ke_true) *
                       (std::exp(-ke_true * s) - std::exp(-ka_true * s));
  };
  return one(t) + one(t - 6.0);
}

// Standard normal numbers from mt19937 (whose sequence the C++ standard fixes) by Box-Muller,
// so that the data are the same with every standard library.
class Noise {
 public:
  explicit Noise(std::uint32_t seed) : engine_(seed) {}
  double next() {
    const double u1 = (static_cast<double>(engine_()) + 0.5) / 4294967296.0;
    const double u2 = (static_cast<double>(engine_()) + 0.5) / 4294967296.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::mt19937 engine_;
};

// The shooting intervals of multishoot::estimate as runs of the SBML model: interval k starts
// from the node state s_k = (G, C) at t_k with the parameters u_k = (ka, ke).
class SbmlIntervals {
 public:
  explicit SbmlIntervals(sbml::Model& model) : model_(model) {}

  bool operator()(const ms::IntervalInputs& in, ms::IntervalOutputs& out) {
    out.resize(in.intervals, 2, 0, 2);
    bool all_ok = true;
    for (int k = 0; k < in.intervals; ++k) {
      const auto start = std::chrono::steady_clock::now();
      const double* s = in.x.data() + 2 * k;
      const double* u = in.u.data() + 2 * k;
      model_.set_value("G", s[0]);
      model_.set_value("C", s[1]);
      model_.set_value("ka", u[0]);
      model_.set_value("ke", u[1]);
      const sbml::Sensitivities run = sbml::simulate_sensitivities(
          model_, {in.t_begin[k], in.t_end[k]}, outputs_, {"G", "C", "ka", "ke"}, options_);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!run.simulation.ok()) {
        out.store_failure(k, run.simulation.status, run.simulation.message, seconds);
        all_ok = false;
        continue;
      }
      esdirk::ShootingResult r;
      r.t_end = in.t_end[k];
      r.x = {run.simulation.value(1, 0), run.simulation.value(1, 1)};
      r.A = esdirk::DenseMatrix(2, 2);
      r.B = esdirk::DenseMatrix(2, 2);
      r.Az = esdirk::DenseMatrix(0, 2);
      r.Bz = esdirk::DenseMatrix(0, 2);
      r.q.assign(2, 0.0);
      r.r.assign(2, 0.0);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          r.A(i, j) = run.derivative(1, static_cast<std::size_t>(i), static_cast<std::size_t>(j));
          r.B(i, j) =
              run.derivative(1, static_cast<std::size_t>(i), static_cast<std::size_t>(2 + j));
        }
      out.store(k, r, seconds);
    }
    return all_ok;
  }

 private:
  sbml::Model& model_;
  const std::vector<sbml::Output> outputs_{{"G", sbml::Quantity::amount},
                                           {"C", sbml::Quantity::amount}};
  sbml::SimulationOptions options_ = [] {
    sbml::SimulationOptions o;
    o.relative_tolerance = 1e-9;
    o.absolute_tolerance = 1e-12;
    return o;
  }();
};

// Estimates (ka, ke) from (0.4, 0.6) on data made from `truth` (C at every node) with noise
// from `seed`; the initial state (G, C) = (10, 0) is known.
ms::EstimationResult estimate_from(SbmlIntervals& intervals, const std::vector<double>& times,
                                   const sbml::Simulation& truth, std::uint32_t seed) {
  ms::EstimationProblem problem;
  problem.nx = 2;
  problem.np = 2;
  problem.measured = {1};
  ms::Experiment experiment;
  experiment.times = times;
  Noise noise(seed);
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double c = truth.value(i, 1) + (i == 0 ? 0.0 : sigma * noise.next());
    experiment.data.push_back(c);
    experiment.sigma.push_back(sigma);
    experiment.nodes.push_back(i == 0 ? dose : 5.0);  // G unknown after t0: a rough guess
    experiment.nodes.push_back(i == 0 ? 0.0 : c);     // C from the data
  }
  problem.experiments.push_back(experiment);
  return ms::estimate(problem, {0.4, 0.6}, std::ref(intervals));
}

}  // namespace

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  const std::string path = argc > 1 ? argv[1] : ESDIRK_SBML_EXAMPLE_DIR "/dosing.xml";
  bool passed = true;
  try {
    sbml::Model model = sbml::load(path);

    // Measurement times 0, 0.7, ..., 11.9: no node falls on the dose at t = 6.
    std::vector<double> times;
    for (int k = 0; k < 18; ++k) times.push_back(0.7 * k);
    const sbml::Simulation truth = sbml::simulate(
        model, times, {{"G", sbml::Quantity::amount}, {"C", sbml::Quantity::amount}});
    if (!truth.ok()) throw std::runtime_error("the true model failed: " + truth.message);
    double model_error = 0;
    for (std::size_t i = 0; i < times.size(); ++i)
      model_error = std::max(model_error, std::fabs(truth.value(i, 1) - closed_form_c(times[i])));
    std::printf("model against the closed form of the two doses: max |C - C_exact| = %.2e\n",
                model_error);
    if (!(model_error < 1e-6)) passed = false;

    // The data set shown, then a coverage study: the fraction of data sets (different noise)
    // whose 95 % intervals hold the true values should be near 0.95.
    SbmlIntervals intervals(model);
    const auto start = std::chrono::steady_clock::now();
    const ms::EstimationResult result = estimate_from(intervals, times, truth, 1);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "multiple shooting, %zu intervals: %s after %zu iterations (%.2f s), cost %.4g, "
        "residual variance %.3g\n",
        times.size() - 1, result.converged ? "converged" : "NOT converged", result.history.size(),
        seconds, result.cost, result.residual_variance);
    std::printf("%s\n", result.message.c_str());
    const char* names[2] = {"ka", "ke"};
    const double truth_values[2] = {ka_true, ke_true};
    for (int j = 0; j < 2; ++j) {
      const double off = (result.theta[j] - truth_values[j]) / result.theta_stddev[j];
      std::printf("  %s = %.5f +- %.5f   95 %% interval [%.5f, %.5f]   true %.2f (%+.1f sd)\n",
                  names[j], result.theta[j], result.theta_stddev[j], result.theta_lower[j],
                  result.theta_upper[j], truth_values[j], off);
      // A bound no honest estimate breaks (4 sd: once in 16 000 data sets).
      if (!(std::fabs(off) < 4.0)) passed = false;
    }
    std::printf("  correlation(ka, ke) = %.3f\n",
                result.covariance[2] / (result.theta_stddev[0] * result.theta_stddev[1]));
    if (!result.converged) passed = false;

    constexpr int data_sets = 40;
    int converged = 0, covered[2] = {0, 0};
    for (int d = 0; d < data_sets; ++d) {
      const ms::EstimationResult r = estimate_from(intervals, times, truth, 100 + d);
      if (!r.converged) continue;
      ++converged;
      for (int j = 0; j < 2; ++j)
        covered[j] += r.theta_lower[j] <= truth_values[j] && truth_values[j] <= r.theta_upper[j];
    }
    std::printf("coverage of the 95 %% intervals over %d data sets: ka %d, ke %d (%d converged)\n",
                data_sets, covered[0], covered[1], converged);
    // Binomial(40, 0.95): at least 34 with probability 0.999 (the intervals use the estimated
    // residual variance of 15 degrees of freedom, so a little below 0.95 is expected).
    if (converged != data_sets || covered[0] < 34 || covered[1] < 34) passed = false;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    passed = false;
  }
  std::printf("%s\n", passed ? "CHECK PASSED" : "CHECK FAILED");
  return passed ? 0 : 1;
}
