// Distinct integrator objects in distinct threads are fully independent (doc/DESIGN: no
// globals, so shooting intervals can run in parallel). Several threads each integrate their
// own problems with their own objects; the final states must equal a single-thread run of the
// same problems bit for bit. Run under ThreadSanitizer in CI (ESDIRK_SANITIZE=thread), where
// any shared mutable state in the library shows up as a data race.
//
// Only the public API is used, and only final states are compared, so the test does not
// depend on what integrate_to returns.

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "esdirk/integrator.hpp"

namespace {

constexpr int thread_count = 4;
constexpr int problems_per_thread = 3;

// Van der Pol in Liénard form as an index-1 DAE, stiff for large mu:
//   x0' = x1,  x1' = mu ((1 - x0^2) x1 - x0) ... written with z = x0^2 as algebraic state:
//   x0' = x1,  x1' = mu ((1 - z) x1 - x0),  0 = z - x0^2.
// The parameter mu differs per problem so that every thread computes something different.
std::vector<double> solve(int problem_index) {
  esdirk::FunctionProblem problem(
      2, 1, 1,
      [](double, auto x, auto z, auto p, auto f) {
        f[0] = x[1];
        f[1] = p[0] * ((1.0 - z[0]) * x[1] - x[0]);
        return 0;
      },
      [](double, auto x, auto z, auto, auto g) {
        g[0] = z[0] - x[0] * x[0];
        return 0;
      });
  esdirk::Options options;
  options.rtol = 1e-7;
  options.atol = 1e-9;
  esdirk::Integrator solver(problem, options);
  std::vector<double> x{2.0, 0.0}, z{3.0}, p{5.0 + 7.0 * problem_index};
  if (solver.initialize(0.0, x, z, p) != esdirk::Status::success) return {};
  // Several output times, so dense output and restarts of the step loop are exercised too.
  for (double t : {0.5, 1.0, 2.0, 3.0}) solver.integrate_to(t, x, z);
  return {x[0], x[1], z[0]};
}

}  // namespace

int main() {
  const int total = thread_count * problems_per_thread;
  std::vector<std::vector<double>> reference(total), threaded(total);
  for (int i = 0; i < total; ++i) reference[i] = solve(i);

  std::vector<std::thread> threads;
  for (int k = 0; k < thread_count; ++k) {
    threads.emplace_back([k, &threaded] {
      // Interleaved problem indices: every thread's problems differ from its neighbours'.
      for (int j = 0; j < problems_per_thread; ++j) {
        int i = k + thread_count * j;
        threaded[i] = solve(i);
      }
    });
  }
  for (auto& t : threads) t.join();

  int passed = 0, failed = 0;
  for (int i = 0; i < total; ++i) {
    bool same = !reference[i].empty() && reference[i].size() == threaded[i].size() &&
                std::memcmp(reference[i].data(), threaded[i].data(),
                            reference[i].size() * sizeof(double)) == 0;
    if (same) {
      ++passed;
    } else {
      ++failed;
      std::printf("problem %d: threaded result differs from the single-thread run\n", i);
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
