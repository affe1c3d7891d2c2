// Dow batch reactor, states only: wall time per run and per step (median of repeated runs).
//
//     bench_dow_states [rtol=1e-6] [repeats=200] [stage_predictor]
//
// stage_predictor (for the instruction counts of doc/integrator-theory.md section 3): one of
// dense_output (the default), stage_extrapolation, previous_stage.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/integrator.hpp"

int main(int argc, char** argv) {
  const double rtol = argc > 1 ? std::atof(argv[1]) : 1e-6;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 200;
  esdirk::Options options = dow::benchmark_options(rtol);
  if (argc > 3) {
    if (!std::strcmp(argv[3], "dense_output")) options.stage_predictor = esdirk::StagePredictor::dense_output;
    else if (!std::strcmp(argv[3], "previous_stage")) options.stage_predictor = esdirk::StagePredictor::previous_stage;
    else if (!std::strcmp(argv[3], "stage_extrapolation")) options.stage_predictor = esdirk::StagePredictor::stage_extrapolation;
    else {
      std::fprintf(stderr, "unknown stage predictor %s (dense_output, stage_extrapolation, previous_stage)\n", argv[3]);
      return 2;
    }
  }
  dow::Model model;
  esdirk::Integrator solver(model, options);
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> x0(dow::initial_states.begin(), dow::initial_states.end());
  const std::vector<double> z0(zs.begin(), zs.end());
  const std::vector<double> p(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  std::vector<double> x(6), z(4), seconds;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    if (!esdirk::ok(solver.initialize(0.0, x0, z0, p)) ||
        !esdirk::ok(solver.integrate_to(10.0, x, z))) {
      std::fprintf(stderr, "failed: %s\n", solver.message().c_str());
      return 1;
    }
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  const auto& s = solver.statistics();
  std::printf("Dow states only, rtol %.0e: %ld steps (%ld accepted), %ld f evaluations, %ld LUs\n",
              rtol, s.steps, s.accepted_steps, s.function_evaluations, s.lu_factorizations);
  std::printf("median wall time %.3f ms per run, %.2f us per step (%d runs)\n", 1e3 * median,
              1e6 * median / static_cast<double>(s.steps), repeats);
  return 0;
}
