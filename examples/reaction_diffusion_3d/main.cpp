// The Brusselator on a 3-D grid (brusselator_3d_model.hpp) with the Krylov stage solver:
// restarted GMRES, block-Jacobi preconditioner on the two species of each point, J on its
// pattern (doc/linear-solvers-guide.md, "Newton-Krylov").
//
//     reaction_diffusion_3d [--side N] [--rtol R]
//
// 1. A 10^3 grid (n = 2000, small enough for KLU) to t = 1 with Krylov and with KLU at rtol R
//    (default 1e-5), and KLU at R/100 as the reference: Krylov's answer equals KLU's to the
//    tolerance and is as accurate.
// 2. The N^3 grid (default 16: n = 8192; 30 gives the 54 000 unknowns no LU of this machine's
//    memory holds) with Krylov alone: the counters, the Krylov workspace per unknown, and the
//    memory a band LU would need.
// Prints CHECK PASSED / CHECK FAILED.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "brusselator_3d_model.hpp"
#include "common/example_support.hpp"
#include "esdirk/integrator.hpp"

namespace {

constexpr double t_end = 1.0;

struct Run {
  bool ok = false;
  std::vector<double> y;
  esdirk::Statistics stats;
  double seconds = 0.0;
  std::size_t linear_solver_bytes = 0;
};

Run solve(int side, double rtol, esdirk::LinearSolverKind solver) {
  reaction_diffusion_3d::Brusselator3d model(side);
  model.set_jacobian_pattern(model.pattern(), solver);
  if (solver == esdirk::LinearSolverKind::krylov) {
    esdirk::KrylovSettings krylov;
    krylov.block_size = 2;  // u and v of one grid point
    model.set_krylov_settings(krylov);
  }
  esdirk::Options options;
  options.rtol = options.atol = rtol;
  const auto start = std::chrono::steady_clock::now();
  esdirk::Integrator integrator(model, options);
  Run run;
  run.y = model.initial_state();
  run.ok = esdirk::ok(integrator.initialize(0.0, run.y, {}, model.nominal_parameters())) &&
           esdirk::ok(integrator.integrate_to(t_end, run.y).status);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.stats = integrator.statistics();
  run.linear_solver_bytes = 2 * integrator.last_iteration_matrix().bytes();  // trial + accepted
  return run;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, size = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    size = std::max(size, std::abs(b[i]));
  }
  return diff / size;
}

void print(const char* name, const Run& r) {
  const auto& s = r.stats;
  std::printf("  %-8s steps %4ld  rejected %3ld  Newton %5ld  LU/precond. setups %4ld  GMRES it. %6ld  "
              "precond. solves %6ld  M v %6ld  failures %ld  %.2f s\n",
              name, s.accepted_steps, s.rejected_steps, s.newton_iterations, s.lu_factorizations,
              s.linear_iterations, s.preconditioner_solves, s.jacobian_vector_products,
              s.linear_solver_failures, r.seconds);
}

bool good = true;
void check(bool condition, const char* what) {
  std::printf("%s: %s\n", condition ? "ok" : "FAILED", what);
  good = good && condition;
}

}  // namespace

const char* const usage =
    "usage: reaction_diffusion_3d [--side N] [--rtol R]\n"
    "\n"
    "The Brusselator on a 3-D grid with the Krylov stage solver (GMRES, block-Jacobi\n"
    "preconditioner): equal to KLU on a 10^3 grid, then an N^3 grid with Krylov alone.\n"
    "\n"
    "  --side N     points per side of the large run (default 16: n = 2 N^3 = 8192)\n"
    "  --rtol R     relative tolerance (default 1e-5)\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  int side = 16;
  double rtol = 1e-5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--side") && i + 1 < argc) {
      side = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--rtol") && i + 1 < argc) {
      rtol = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "%s", usage);
      return 2;
    }
  }
  if (side < 2 || !(rtol > 0.0 && rtol < 1.0)) {
    std::fprintf(stderr, "reaction_diffusion_3d: --side must be >= 2 and --rtol in (0, 1)\n");
    return 2;
  }

  std::printf("1. 10^3 grid (n = 2000) to t = %g, rtol %g: Krylov against KLU\n", t_end, rtol);
  const Run krylov = solve(10, rtol, esdirk::LinearSolverKind::krylov);
  const Run klu = solve(10, rtol, esdirk::LinearSolverKind::sparse);
  const Run reference = solve(10, rtol / 100.0, esdirk::LinearSolverKind::sparse);
  print("Krylov", krylov);
  print("KLU", klu);
  const double difference = relative_difference(krylov.y, klu.y);
  const double e_krylov = relative_difference(krylov.y, reference.y);
  const double e_klu = relative_difference(klu.y, reference.y);
  std::printf("  Krylov - KLU %.2e, error against the reference: Krylov %.2e, KLU %.2e\n",
              difference, e_krylov, e_klu);
  check(krylov.ok && klu.ok && reference.ok, "all runs succeed");
  check(difference <= rtol, "Krylov equals KLU to the tolerance");
  check(e_krylov <= std::max(2.0 * e_klu, 0.1 * rtol), "Krylov as accurate as KLU");
  check(krylov.stats.linear_solver_failures == 0 && krylov.stats.linear_iterations > 0,
        "GMRES converged in every solve");

  const int n = 2 * side * side * side;
  std::printf("2. %d^3 grid (n = %d) to t = %g with Krylov\n", side, n, t_end);
  const Run large = solve(side, rtol, esdirk::LinearSolverKind::krylov);
  print("Krylov", large);
  const double band = static_cast<double>(n) * (3.0 * 2.0 * side * side + 1.0) * 8.0;
  std::printf("  linear-solver memory %.1f bytes per unknown (a band LU: %.0f bytes per unknown)\n",
              static_cast<double>(large.linear_solver_bytes) / n, band / n);
  std::printf("  %.2f us per step and unknown\n",
              1e6 * large.seconds / std::max(1L, large.stats.accepted_steps) / n);
  check(large.ok && large.stats.linear_solver_failures == 0, "the large grid integrates");
  std::printf(good ? "CHECK PASSED\n" : "CHECK FAILED\n");
  return good ? 0 : 1;
}
