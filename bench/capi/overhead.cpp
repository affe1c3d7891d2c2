// Overhead of the C API per shooting interval on Dow: N = 50 intervals of 0.2 h (rtol 1e-6,
// exact sensitivities, nine controls), through esdirk_shooting_integrate with the C callbacks
// and through esdirk::ShootingInterval with the C++ model; median of repeated sweeps,
// alternating the two so that machine load affects both alike.
//
//     bench_capi_overhead [repeats=30]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "dow/dow_model.hpp"
#include "dow_c/dow_model.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_options.h"
#include "esdirk/sensitivity/shooting_interval.hpp"

namespace {

constexpr int nx = 6, nz = 4, nu = 9, intervals = 50;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double sweep_cpp(esdirk::ShootingInterval& interval) {
  std::vector<double> x(dow::initial_states.begin(), dow::initial_states.end());
  const std::vector<double> u(dow::nominal_parameters.begin(), dow::nominal_parameters.end());
  const auto zs = dow::consistent_algebraic_start();
  const std::vector<double> z0(zs.begin(), zs.end());
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < intervals; ++k) {
    const auto& r = interval.integrate(0.2 * k, 0.2 * (k + 1), x, u,
                                       k == 0 ? esdirk::ConstVector(z0) : esdirk::ConstVector{});
    if (r.status != esdirk::Status::success) std::exit(1);
    x = r.x;
  }
  return seconds_since(start);
}

double sweep_c(esdirk_shooting* sh) {
  double x[nx], x_next[nx], z[nz], z_next[nz], A[nx * nx], B[nx * nu];
  std::copy(dow_x0, dow_x0 + nx, x);
  dow_algebraic_start(z);
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < intervals; ++k) {
    if (esdirk_shooting_integrate(sh, 0.2 * k, 0.2 * (k + 1), x, nx, dow_parameters, nu,
                                  k == 0 ? z : nullptr, nz, x_next, z_next, A, nx, B, nx, nullptr,
                                  nullptr, nullptr) != ESDIRK_SUCCESS)
      std::exit(1);
    std::copy(x_next, x_next + nx, x);
  }
  return seconds_since(start);
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 30;
  dow::Model model;
  esdirk::ShootingInterval interval(model, dow::benchmark_options(1e-6));

  esdirk_problem* problem = nullptr;
  esdirk_shooting* sh = nullptr;
  esdirk_problem_create(nx, nz, nu, dow_residual, nullptr, &problem);
  esdirk_problem_set_jacobian(problem, dow_jacobian);
  esdirk_problem_set_parameter_jacobian(problem, dow_parameter_jacobian);
  esdirk_shooting_create(problem, &sh);
  esdirk_options* options = nullptr;
  esdirk_options_create(&options);
  esdirk_options_set_tolerances(options, 1e-6, 1e-12);
  esdirk_options_set_algebraic_atol(options, dow_algebraic_atol, nz);
  esdirk_shooting_set_options(sh, options);
  esdirk_options_free(&options);

  std::vector<double> cpp, c;
  sweep_cpp(interval);  // warm up both
  sweep_c(sh);
  for (int r = 0; r < repeats; ++r) {
    cpp.push_back(sweep_cpp(interval));
    c.push_back(sweep_c(sh));
  }
  std::sort(cpp.begin(), cpp.end());
  std::sort(c.begin(), c.end());
  const double mc = cpp[cpp.size() / 2], m = c[c.size() / 2];
  std::printf("Dow, %d intervals of 0.2 h, rtol 1e-6, exact sensitivities (median of %d sweeps)\n",
              intervals, repeats);
  std::printf("C++ ShootingInterval : %8.3f ms per sweep, %7.1f us per interval\n", 1e3 * mc,
              1e6 * mc / intervals);
  std::printf("C API                : %8.3f ms per sweep, %7.1f us per interval\n", 1e3 * m,
              1e6 * m / intervals);
  std::printf("C layer overhead     : %+.2f %%\n", 100.0 * (m / mc - 1.0));
  esdirk_shooting_free(&sh);
  esdirk_problem_free(&problem);
  return 0;
}
