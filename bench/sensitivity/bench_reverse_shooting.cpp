// When the shooting interval in reverse mode pays: the gradient-type product
//     g = A_k^T lambda + q_k w,   B_k^T lambda + r_k w          (m adjoint columns)
// by the forward ShootingInterval (A_k, B_k from nx + nu sensitivity directions, then the
// products; exact mode, and Kristensen et al. 2005's paper mode for contrast, whose A_k, B_k are only
// approximations) against ReverseShootingInterval (a recorded run and one sweep), per interval,
// and m adjoint columns, for a stiff reaction-diffusion chain with nx states and nu distributed
// controls (chain_model.hpp):
//     x_i' = D (n+1)^2 (x_{i-1} - 2 x_i + x_{i+1}) - k x_i^2 + u_{j(i)},   h = |x|^2 / n + |u|^2
// (x_0 = x_{n+1} = 0; node i is driven by control j(i) = i * nu / n). Both objects run a horizon
// of N intervals of length T with warm starts; the forward one keeps its sensitivities out of the
// error test, so both take the same steps. Prints the time per interval (best of R repeats) and
// the ratio forward / reverse. Run with OPENBLAS_NUM_THREADS=1.
//
//     bench_reverse_shooting [--repeats 5] [--intervals 10]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "chain_model.hpp"
#include "esdirk/sensitivity/reverse_shooting_interval.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Timing {
  double forward = 1e30, reverse = 1e30, paper = 1e30;
  long steps = 0;
};

Timing measure(int nx, int nu, double T, int m, int intervals, int repeats) {
  bench::Chain model(nx, nu);
  esdirk::Options options;
  options.rtol = 1e-6;
  options.atol = 1e-8;
  esdirk::SensitivityOptions same_steps;
  same_steps.error_control = false;
  std::vector<double> x0(static_cast<std::size_t>(nx)), u(static_cast<std::size_t>(nu));
  for (int i = 0; i < nx; ++i) x0[static_cast<std::size_t>(i)] = 1.0 + 0.5 * i / nx;
  for (int j = 0; j < nu; ++j) u[static_cast<std::size_t>(j)] = 0.3 + 0.1 * j / nu;
  esdirk::DenseMatrix lambda(nx, m), gx(nx, m), gu(nu, m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < nx; ++i) lambda(i, j) = 1.0 / (1.0 + i + j);
  std::vector<double> w(static_cast<std::size_t>(m), 0.0);
  w[0] = 1.0;
  std::vector<double> products(static_cast<std::size_t>(nx + nu)), exact_products;
  Timing timing;
  for (int r = 0; r < repeats; ++r) {
    for (const bool paper : {false, true}) {
      esdirk::SensitivityOptions sensitivity = same_steps;
      if (paper) sensitivity.mode = esdirk::SensitivityMode::paper;
      esdirk::ShootingInterval interval(model, options, sensitivity);
      interval.set_running_cost(bench::chain_cost);
      std::vector<double> x = x0;
      const auto start = Clock::now();
      long steps = 0;
      for (int k = 0; k < intervals; ++k) {
        const esdirk::ShootingResult& res = interval.integrate(k * T, (k + 1) * T, x, u);
        if (!esdirk::ok(res.status)) std::exit(1);
        // The same products from the formed matrices (the first column is compared below).
        for (int c = m - 1; c >= 0; --c) {
          const double weight = w[static_cast<std::size_t>(c)];
          for (int j = 0; j < nx; ++j) {
            double s = weight * res.q[static_cast<std::size_t>(j)];
            for (int i = 0; i < nx; ++i) s += res.A(i, j) * lambda(i, c);
            products[static_cast<std::size_t>(j)] = s;
          }
          for (int j = 0; j < nu; ++j) {
            double s = weight * res.r[static_cast<std::size_t>(j)];
            for (int i = 0; i < nx; ++i) s += res.B(i, j) * lambda(i, c);
            products[static_cast<std::size_t>(nx + j)] = s;
          }
        }
        steps += res.statistics.accepted_steps;
        x = res.x;
      }
      double& best = paper ? timing.paper : timing.forward;
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
      if (paper) continue;
      timing.steps = steps;
      exact_products = products;
    }
    {
      esdirk::ReverseShootingInterval interval(model, options);
      interval.set_running_cost(bench::chain_cost);
      std::vector<double> x = x0;
      const auto start = Clock::now();
      for (int k = 0; k < intervals; ++k) {
        const esdirk::ReverseShootingResult& res = interval.integrate(k * T, (k + 1) * T, x, u);
        if (!esdirk::ok(res.status)) std::exit(1);
        if (!esdirk::ok(interval.transpose_products(lambda.cref(), {}, w, gx.ref(), gu.ref()))) std::exit(1);
        x = res.x;
      }
      timing.reverse = std::min(timing.reverse, std::chrono::duration<double>(Clock::now() - start).count());
    }
  }
  // The last interval's products agree (both ran the same steps).
  double diff = 0.0, scale = 0.0;
  for (int j = 0; j < nx; ++j) {
    diff = std::max(diff, std::abs(gx(j, 0) - exact_products[static_cast<std::size_t>(j)]));
    scale = std::max(scale, std::abs(exact_products[static_cast<std::size_t>(j)]));
  }
  for (int j = 0; j < nu; ++j) {
    diff = std::max(diff, std::abs(gu(j, 0) - exact_products[static_cast<std::size_t>(nx + j)]));
    scale = std::max(scale, std::abs(exact_products[static_cast<std::size_t>(nx + j)]));
  }
  if (diff > 1e-10 * scale) {
    std::printf("the products differ: %g\n", diff / scale);
    std::exit(1);
  }
  return timing;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5, intervals = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--repeats") == 0) repeats = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--intervals") == 0) intervals = std::atoi(argv[i + 1]);
  }
  std::printf("reaction-diffusion chain, rtol 1e-6, %d intervals, time per interval, best of %d\n",
              intervals, repeats);
  std::printf("%4s %4s %5s %3s %6s %12s %12s %12s %8s %8s\n", "nx", "nu", "T", "m", "steps", "fwd exact",
              "fwd paper", "reverse", "exact/r", "paper/r");
  struct Case {
    int nx, nu;
    double T;
    int m;
  };
  const Case cases[] = {{4, 1, 0.2, 1},   {4, 4, 0.2, 1},   {8, 2, 0.2, 1},   {8, 8, 0.2, 1},
                        {16, 4, 0.2, 1},  {16, 16, 0.2, 1}, {32, 8, 0.2, 1},  {32, 32, 0.2, 1},
                        {64, 16, 0.2, 1}, {16, 4, 0.05, 1}, {16, 4, 1.0, 1},  {32, 8, 0.05, 1},
                        {32, 8, 1.0, 1},  {16, 4, 0.2, 5},  {16, 4, 0.2, 10}, {16, 4, 0.2, 20}};
  for (const Case& c : cases) {
    const Timing t = measure(c.nx, c.nu, c.T, c.m, intervals, repeats);
    std::printf("%4d %4d %5.2f %3d %6ld %10.3fms %10.3fms %10.3fms %8.2f %8.2f\n", c.nx, c.nu, c.T, c.m,
                t.steps / intervals, 1e3 * t.forward / intervals, 1e3 * t.paper / intervals,
                1e3 * t.reverse / intervals, t.forward / t.reverse, t.paper / t.reverse);
  }
  return 0;
}
