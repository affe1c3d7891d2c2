// Speed-up of the interval evaluation on a thread pool: N Dow intervals of 0.2 h (the nominal
// multiple-shooting case of the SUNDIALS benchmark, exact sensitivities with error control,
// rtol 1e-6), evaluated with 1 and with T threads; wall time per evaluation, best of R
// repeats, and the ratio. The results are bit-identical (checked here too).
//
//     bench_intervals [--intervals N] [--threads T] [--repeats R]
//
// Run it with OPENBLAS_NUM_THREADS=1 on an otherwise quiet machine (the ratio measures the
// machine's free cores as much as the pool).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "dow/dow_model.hpp"
#include "esdirk/multishoot/interval_evaluator.hpp"

namespace ms = esdirk::multishoot;

int main(int argc, char** argv) {
  int n = 40, threads = 2, repeats = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--intervals")) n = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
  }
  // Nodes on the nominal trajectory: integrate once and sample every 0.2 h.
  dow::Model model;
  esdirk::Integrator solver(model, dow::benchmark_options(1e-8));
  const auto z0 = dow::consistent_algebraic_start();
  solver.initialize(0.0, dow::initial_states, z0, dow::nominal_parameters);
  ms::IntervalInputs in(n, 6, 4, 9);
  std::vector<double> x(dow::initial_states.begin(), dow::initial_states.end()), z(z0.begin(), z0.end());
  for (int k = 0; k < n; ++k) {
    const double t = 0.2 * k;
    if (k > 0) {
      solver.set_stop_time(t);
      solver.integrate_to(t, x, z);
    }
    in.t_begin[k] = t;
    in.t_end[k] = t + 0.2;
    std::copy(x.begin(), x.end(), in.x_of(k).begin());
    std::copy(z.begin(), z.end(), in.z_guess_of(k).begin());
    std::copy(dow::nominal_parameters.begin(), dow::nominal_parameters.end(), in.u_of(k).begin());
  }
  auto factory = [] { return std::make_unique<dow::Model>(); };
  ms::IntervalEvaluator serial(factory, n, dow::benchmark_options(1e-6), {}, 1);
  ms::IntervalEvaluator parallel(factory, n, dow::benchmark_options(1e-6), {}, threads);
  ms::IntervalOutputs a, b;
  auto best_of = [&](ms::IntervalEvaluator& ev, ms::IntervalOutputs& out) {
    double best = 1e300;
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      ev.evaluate(in, out);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
  };
  const double t1 = best_of(serial, a), tn = best_of(parallel, b);
  bool same = true;
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < 6; ++i) {
      same = same && a.x_end(k)[i] == b.x_end(k)[i];
      for (int j = 0; j < 9; ++j) same = same && a.B(k)(i, j) == b.B(k)(i, j);
    }
  std::printf("N = %d intervals (%ld steps), best of %d: 1 thread %.4f s, %d threads %.4f s, "
              "speed-up %.2f, results %s\n",
              n, a.total_steps(), repeats, t1, threads, tn, t1 / tn,
              same ? "bit-identical" : "DIFFERENT");
  return same ? 0 : 1;
}
