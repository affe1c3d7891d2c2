// The 1-D Brusselator by the method of lines (Hairer & Wanner's BRUSS, n = 2N unknowns) on the
// three linear-solver back-ends of the stage linear system.
//
//     brusselator_mol [--points N] [--rtol R]
//
// 1. N = 50 (n = 100) to t = 10 on the dense, banded (LAPACK dgbtrf) and sparse (KLU)
//    back-ends with the analytic sparse Jacobian, and on KLU with the coloured finite-difference
//    Jacobian: the same steps, solutions equal to rounding.
// 2. N points (default 500, n = 1000) on the banded and sparse back-ends at rtol = R (default
//    1e-6) and 100 R, against a reference at rtol = R/100 (under the default, calibrated
//    tolerance rule the achieved error is about rtol, so the reference is 100x more accurate
//    than the tighter run): the achieved error, and that it falls with the tolerance.
// Prints u at five points, the statistics, and CHECK PASSED / CHECK FAILED.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "brusselator_mol_model.hpp"
#include "esdirk/integrator.hpp"
#include "common/example_support.hpp"

namespace {

constexpr double t_end = 10.0;

struct Run {
  bool ok = false;
  std::vector<double> y;
  esdirk::Statistics stats;
  double seconds = 0.0;
};

// Which Jacobian the run uses: the model's analytic sparse one, or coloured differences.
class Differenced : public brusselator_mol::Model {
 public:
  using Model::Model;
  bool has_sparse_jacobian() const override { return false; }
};

Run solve(brusselator_mol::Model& model, esdirk::LinearSolverKind kind, double rtol) {
  model.set_jacobian_pattern(model.pattern(), kind);
  esdirk::Options options;
  options.rtol = rtol;
  options.atol = rtol;  // u and v are O(1)
  const auto start = std::chrono::steady_clock::now();
  esdirk::Integrator integrator(model, options);
  const auto y0 = model.initial_state();
  const auto p = model.nominal_parameters();
  Run run;
  run.y.resize(y0.size());
  run.ok = esdirk::ok(integrator.initialize(0.0, y0, {}, p)) &&
           esdirk::ok(integrator.integrate_to(t_end, run.y));
  if (!run.ok) std::fprintf(stderr, "failed: %s\n", integrator.message().c_str());
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.stats = integrator.statistics();
  return run;
}

// max_i |a_i - b_i| / max_i |b_i|.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, size = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    size = std::max(size, std::abs(b[i]));
  }
  return diff / size;
}

void print_statistics(const char* name, const Run& r) {
  std::printf("  %-22s steps %5ld  rejected %3ld  f %6ld  fd f %6ld  Jacobians %4ld  LU %4ld  %.3f s\n",
              name, r.stats.accepted_steps, r.stats.rejected_steps, r.stats.function_evaluations,
              r.stats.fd_function_evaluations, r.stats.jacobian_evaluations,
              r.stats.lu_factorizations, r.seconds);
}

}  // namespace

const char* const usage =
    "usage: brusselator_mol [--points N] [--rtol R]\n"
    "\n"
    "The 1-D Brusselator by the method of lines on the dense, banded and sparse (KLU) linear\n"
    "solvers: equal solutions on the same steps, and the achieved error against a reference.\n"
    "\n"
    "  --points N   grid points of the large run (default 500: 1000 unknowns)\n"
    "  --rtol R     relative tolerance of the large run (default 1e-6)\n"
    "  --help       this text\n";

int main(int argc, char** argv) {
  if (example_support::print_help_if_asked(argc, argv, usage)) return 0;
  int points = 500;
  double rtol = 1e-6;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--points") && i + 1 < argc) {
      points = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--rtol") && i + 1 < argc) {
      rtol = std::atof(argv[++i]);
    } else {
      std::fputs(usage, stderr);
      return 2;
    }
  }
  if (points < 10 || !(rtol > 0.0 && rtol < 1e-2)) {
    std::fprintf(stderr, "need N >= 10 and 0 < R < 1e-2\n");
    return 2;
  }
  bool good = true;
  auto check = [&good](bool condition, const char* what) {
    std::printf("  %-68s %s\n", what, condition ? "ok" : "FAILED");
    good = good && condition;
  };
  using esdirk::LinearSolverKind;

  // 1. The back-ends agree.
  std::printf("1-D Brusselator, N = 50 (n = 100), t = 0 .. %g, rtol = atol = 1e-8\n", t_end);
  brusselator_mol::Model small(50);
  Differenced small_differenced(50);
  const Run dense = solve(small, LinearSolverKind::dense, 1e-8);
  const Run banded = solve(small, LinearSolverKind::banded, 1e-8);
  const Run sparse = solve(small, LinearSolverKind::sparse, 1e-8);
  const Run coloured = solve(small_differenced, LinearSolverKind::sparse, 1e-8);
  print_statistics("dense LU", dense);
  print_statistics("band LU", banded);
  print_statistics("KLU", sparse);
  print_statistics("KLU, coloured diff.", coloured);
  const double band_vs_dense = relative_difference(banded.y, dense.y);
  const double klu_vs_dense = relative_difference(sparse.y, dense.y);
  const double coloured_vs_dense = relative_difference(coloured.y, dense.y);
  std::printf("  band - dense %.1e, KLU - dense %.1e, KLU coloured - dense %.1e (relative)\n",
              band_vs_dense, klu_vs_dense, coloured_vs_dense);
  check(dense.ok && banded.ok && sparse.ok && coloured.ok, "all four runs succeed");
  check(banded.stats.accepted_steps == dense.stats.accepted_steps &&
            sparse.stats.accepted_steps == dense.stats.accepted_steps,
        "band and KLU take the dense run's steps");
  check(band_vs_dense < 1e-11 && klu_vs_dense < 1e-11,
        "band and KLU equal dense LU to 1e-11 (rounding)");
  check(coloured_vs_dense < 1e-7, "coloured differences within 1e-7 (difference Jacobian)");
  check(coloured.stats.fd_function_evaluations > 0 &&
            coloured.stats.fd_function_evaluations <= 5 * coloured.stats.jacobian_evaluations,
        "coloured differences: at most 5 f per Jacobian (the band's colours)");

  // 2. Accuracy at N points.
  std::printf("\nN = %d (n = %d), banded and sparse at rtol = %.0e and %.0e, reference rtol %.0e\n",
              points, 2 * points, rtol, 100 * rtol, rtol / 100);
  brusselator_mol::Model large(points);
  const Run reference = solve(large, LinearSolverKind::sparse, rtol / 100);
  const Run band_run = solve(large, LinearSolverKind::banded, rtol);
  const Run klu_run = solve(large, LinearSolverKind::sparse, rtol);
  const Run klu_loose = solve(large, LinearSolverKind::sparse, 100 * rtol);
  print_statistics("reference (KLU)", reference);
  print_statistics("band LU", band_run);
  print_statistics("KLU", klu_run);
  print_statistics("KLU, 100 rtol", klu_loose);
  const double band_error = relative_difference(band_run.y, reference.y);
  const double klu_error = relative_difference(klu_run.y, reference.y);
  const double loose_error = relative_difference(klu_loose.y, reference.y);
  std::printf("  error at t = %g: band %.2e, KLU %.2e, KLU at 100 rtol %.2e\n", t_end, band_error,
              klu_error, loose_error);
  std::printf("\n  %8s %14s %14s\n", "x", "u(x, 10)", "v(x, 10)");
  for (int k = 1; k <= 5; ++k) {
    const int i = k * (points + 1) / 6 - 1;
    std::printf("  %8.4f %14.10f %14.10f\n", (i + 1.0) / (points + 1), reference.y[2 * i],
                reference.y[2 * i + 1]);
  }
  check(reference.ok && band_run.ok && klu_run.ok && klu_loose.ok, "all runs succeed");
  check(relative_difference(band_run.y, klu_run.y) < 1e-9, "band and KLU agree to 1e-9");
  check(klu_error < 100 * rtol, "error below 100 rtol");
  check(klu_error < 0.1 * loose_error, "error falls at least 10x when rtol falls 100x");
  std::printf("%s\n", good ? "CHECK PASSED" : "CHECK FAILED");
  return good ? 0 : 1;
}
