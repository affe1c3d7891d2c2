// Benchmark: Pryce's Σ-method on a chain of p pendula (3p unknowns x_k, y_k, λ_k).
//   link k:  x_k'' = -λ_k (x_k - x_{k-1}) + λ_{k+1} (x_{k+1} - x_k)      (f_k)
//            y_k'' = -λ_k (y_k - y_{k-1}) + λ_{k+1} (y_{k+1} - y_k) - g  (h_k)
//            (x_k - x_{k-1})² + (y_k - y_{k-1})² = L²                    (g_k)
// with x_0 = y_0 = 0 fixed and no λ_{p+1}. Expected: c(g_k) = 2, all other c = 0, d(x, y) = 2,
// d(λ) = 0, so 2p degrees of freedom, seed index 2 and Pryce index 3; the program checks this.
// Prints p, edges, time of the model build, of the Σ-method (matching, assignment, offsets,
// Jacobian BTF), offset rounds, and the peak resident set size.
//
//   bench_structural_chain [p ...]      (default 10 20 50 100 200 500 1000 2000)

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "esdirk/structural/structural.hpp"

using namespace esdirk::structural;

namespace {

SignatureMatrix chain(int p) {
  // Columns: x_k = 3k, y_k = 3k + 1, λ_k = 3k + 2 (k = 0..p-1); rows f_k, h_k, g_k likewise.
  std::vector<SignatureEntry> e;
  auto x = [](int k) { return 3 * k; };
  auto y = [](int k) { return 3 * k + 1; };
  auto lambda = [](int k) { return 3 * k + 2; };
  for (int k = 0; k < p; ++k) {
    int f = 3 * k, h = 3 * k + 1, g = 3 * k + 2;
    e.push_back({f, x(k), 2});
    e.push_back({f, x(k), 0});
    e.push_back({f, lambda(k), 0});
    e.push_back({h, y(k), 2});
    e.push_back({h, y(k), 0});
    e.push_back({h, lambda(k), 0});
    e.push_back({g, x(k), 0});
    e.push_back({g, y(k), 0});
    if (k > 0) {
      e.push_back({f, x(k - 1), 0});
      e.push_back({h, y(k - 1), 0});
      e.push_back({g, x(k - 1), 0});
      e.push_back({g, y(k - 1), 0});
    }
    if (k + 1 < p) {
      e.push_back({f, x(k + 1), 0});
      e.push_back({f, lambda(k + 1), 0});
      e.push_back({h, y(k + 1), 0});
      e.push_back({h, lambda(k + 1), 0});
    }
  }
  return SignatureMatrix(3 * p, 3 * p, e);
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{10, 20, 50, 100, 200, 500, 1000, 2000};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  }
  std::printf("%6s %7s %8s %12s %12s %7s %10s\n", "p", "n=3p", "edges", "build [ms]", "sigma [ms]",
              "rounds", "peak RSS [MiB]");
  using clock = std::chrono::steady_clock;
  for (int p : sizes) {
    auto t0 = clock::now();
    SignatureMatrix sigma = chain(p);
    auto t1 = clock::now();
    SigmaResult r = sigma_method(sigma);
    auto t2 = clock::now();
    bool ok = r.succeeded() && r.degrees_of_freedom == 2 * p && r.max_offset_index == 2 &&
              r.pryce_structural_index == 3;
    for (int k = 0; ok && k < p; ++k) {
      ok = r.equation_offsets()[3 * k] == 0 && r.equation_offsets()[3 * k + 1] == 0 &&
           r.equation_offsets()[3 * k + 2] == 2 && r.variable_offsets()[3 * k] == 2 &&
           r.variable_offsets()[3 * k + 1] == 2 && r.variable_offsets()[3 * k + 2] == 0;
    }
    if (!ok) {
      std::fprintf(stderr, "wrong offsets for p = %d\n", p);
      return 1;
    }
    auto ms = [](auto a, auto b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    std::printf("%6d %7d %8d %12.2f %12.2f %7d %10.1f\n", p, 3 * p, sigma.graph().edge_count(),
                ms(t0, t1), ms(t1, t2), r.offsets.rounds, peak_rss_kib() / 1024.0);
  }
  return 0;
}
