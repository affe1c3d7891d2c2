// The Brusselator on a 3-D grid (brusselator_3d_model.hpp) with the Krylov stage solver:
// restarted GMRES with the default ILU(0) preconditioner (the incomplete LU of M on J's 7-point
// pattern), J on its pattern (doc/linear-solvers-guide.md, "Newton-Krylov", "Preconditioners").
//
//     reaction_diffusion_3d [--side N] [--rtol R]
//
// 1. A 10^3 grid (n = 2000, small enough for KLU) to t = 1 with Krylov and with KLU at rtol R
//    (default 1e-5), and KLU at R/100 as the reference: Krylov's answer equals KLU's to the
//    tolerance and is as accurate.
//    The same grid matrix-free with the problem's own preconditioner (the class below): J only
//    on each point's 2 x 2 reaction block, J v by differences of f, the blocks of M inverted in
//    closed form at each preconditioner setup: equal to KLU to the tolerance as well.
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

// The model as a matrix-free user brings it (doc/linear-solvers-guide.md, "Matrix-free
// products" and "Your own preconditioner"): the declared pattern is only what the
// preconditioner needs, the 2 x 2 reaction block of each point (4 entries per point instead of
// the stencil's 14), J v comes from differences of f, and the preconditioner is the exact
// inverse of each point's block of M = I - h gamma J, written out in closed form.
class MatrixFreeBrusselator3d : public reaction_diffusion_3d::Brusselator3d {
 public:
  explicit MatrixFreeBrusselator3d(int side)
      : Brusselator3d(side), inverse_(static_cast<std::size_t>(2 * size())) {
    std::vector<int> rows, cols;
    for (int q = 0; q < size() / 2; ++q)
      for (int c = 0; c < 2; ++c)
        for (int r = 0; r < 2; ++r) {
          rows.push_back(2 * q + r);
          cols.push_back(2 * q + c);
        }
    set_jacobian_pattern(esdirk::SparsityPattern::from_entries(size(), rows, cols),
                         esdirk::LinearSolverKind::krylov);
    esdirk::KrylovSettings krylov;
    krylov.block_size = 2;
    krylov.matrix_free = true;
    set_krylov_settings(krylov);
  }

  bool has_preconditioner() const override { return true; }
  // The values of each block come in pattern order: (2q, 2q), (2q+1, 2q), (2q, 2q+1), (2q+1, 2q+1).
  int preconditioner_setup(double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                           const esdirk::JacobianMatrix& J, double h_gamma) override {
    const double* j = J.values();
    for (std::size_t b = 0; b < inverse_.size(); b += 4) {
      const double a = 1.0 - h_gamma * j[b], c = -h_gamma * j[b + 1], bb = -h_gamma * j[b + 2],
                   d = 1.0 - h_gamma * j[b + 3];
      const double det = a * d - bb * c;
      if (det == 0.0 || !std::isfinite(det)) return 1;  // the run retries with a smaller step
      inverse_[b] = d / det;
      inverse_[b + 1] = -c / det;
      inverse_[b + 2] = -bb / det;
      inverse_[b + 3] = a / det;
    }
    return 0;
  }
  int preconditioner_solve(esdirk::ConstVector r, esdirk::Vector out, bool transpose) override {
    for (std::size_t q = 0; 4 * q < inverse_.size(); ++q) {
      const double* m = inverse_.data() + 4 * q;  // column-major 2 x 2
      const double off_lower = transpose ? m[2] : m[1], off_upper = transpose ? m[1] : m[2];
      out[2 * q] = m[0] * r[2 * q] + off_upper * r[2 * q + 1];
      out[2 * q + 1] = off_lower * r[2 * q] + m[3] * r[2 * q + 1];
    }
    return 0;
  }

 private:
  std::vector<double> inverse_;  // the inverse of each point's block of M, column-major
};

constexpr double t_end = 1.0;

struct Run {
  bool ok = false;
  std::vector<double> y;
  esdirk::Statistics stats;
  double seconds = 0.0;
  std::size_t linear_solver_bytes = 0;
};

Run integrate(reaction_diffusion_3d::Brusselator3d& model, double rtol);

Run solve(int side, double rtol, esdirk::LinearSolverKind solver) {
  reaction_diffusion_3d::Brusselator3d model(side);
  model.set_jacobian_pattern(model.pattern(), solver);
  if (solver == esdirk::LinearSolverKind::krylov) {
    esdirk::KrylovSettings krylov;
    krylov.block_size = 2;  // u and v of one grid point, for KrylovPreconditioner::block_jacobi
    model.set_krylov_settings(krylov);  // the default ILU(0) preconditioner
  }
  return integrate(model, rtol);
}

Run solve_matrix_free(int side, double rtol) {
  MatrixFreeBrusselator3d model(side);
  return integrate(model, rtol);
}

Run integrate(reaction_diffusion_3d::Brusselator3d& model, double rtol) {
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
  run.linear_solver_bytes = integrator.linear_solver_bytes();  // trial + accepted
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
  std::printf("  %-11s steps %4ld  rejected %3ld  Newton %5ld  LU/precond. setups %4ld  GMRES it. %6ld  "
              "precond. solves %6ld  M v %6ld  difference f %6ld  failures %ld  %.2f s\n",
              name, s.accepted_steps, s.rejected_steps, s.newton_iterations, s.lu_factorizations,
              s.linear_iterations, s.preconditioner_solves, s.jacobian_vector_products,
              s.fd_function_evaluations, s.linear_solver_failures, r.seconds);
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
    "The Brusselator on a 3-D grid with the Krylov stage solver (GMRES, ILU(0)\n"
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
  const Run matrix_free = solve_matrix_free(10, rtol);
  print("Krylov", krylov);
  print("matrix-free", matrix_free);
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
  const double difference_free = relative_difference(matrix_free.y, klu.y);
  std::printf("  matrix-free with its own preconditioner - KLU %.2e, J on %d entries instead of %d\n",
              difference_free, 4 * 1000, reaction_diffusion_3d::Brusselator3d(10).pattern().nonzeros());
  check(matrix_free.ok && difference_free <= rtol && matrix_free.stats.linear_solver_failures == 0,
        "matrix-free with the problem's preconditioner equals KLU to the tolerance");

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
