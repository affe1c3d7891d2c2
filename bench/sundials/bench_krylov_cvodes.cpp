// Newton-Krylov on a 3-D grid: esdirk with LinearSolverKind::krylov (GMRES with the built-in
// preconditioner of --preconditioner: ILU(0), the default, or block-Jacobi on the two species of
// each point) against CVODES (BDF) with SPGMR and its band preconditioner
// (CVBandPrecInit, a difference-quotient band of J, bandwidth --band), on the Brusselator of
// examples/reaction_diffusion_3d, states only, one process. Work-precision: each solver at
// several tolerances, the achieved error against an esdirk run at rtol 1e-9 (Krylov), CPU time
// (best of --repeat), and the CVODES time interpolated at esdirk's error (log-log) over
// esdirk's time. doc/benchmarks.md, "3-D grid: Newton-Krylov". --matrix-free runs esdirk with
// KrylovSettings::matrix_free (J v by differences of f, as CVODES's SPGMR does by default) and J
// only on each point's 2 x 2 block, the block-Jacobi preconditioner's part. Each esdirk line also
// gives the Newton iterations per implicit stage solve.
//
//     bench_krylov_cvodes [--side N] [--t-end T] [--rtols r,r,...] [--band B] [--repeat K]
//                         [--matrix-free] [--preconditioner ilu0|block_jacobi] [--quick]
//
// --quick (CTest): N = 6, rtol 1e-5, both solvers succeed with errors within 100 rtol; no
// timing is checked. Prints "all checks passed".

#include <cvodes/cvodes.h>
#include <cvodes/cvodes_bandpre.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_spgmr.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include "esdirk/integrator.hpp"
#include "reaction_diffusion_3d/brusselator_3d_model.hpp"

namespace {

using Model = reaction_diffusion_3d::Brusselator3d;
double t_end = 1.0;  // --t-end
bool matrix_free = false;  // --matrix-free
esdirk::KrylovPreconditioner preconditioner = esdirk::KrylovSettings{}.preconditioner;  // --preconditioner

struct Point {
  bool ok = false;
  double rtol = 0.0, error = 0.0, seconds = 0.0;
  long steps = 0, linear_iterations = 0, setups = 0;
  double newton_per_stage = 0.0;  // esdirk: Newton iterations per implicit stage solve
  std::vector<double> y;
};

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, size = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    size = std::max(size, std::abs(b[i]));
  }
  return diff / size;
}

Point run_esdirk(int side, double rtol) {
  Model model(side);
  if (matrix_free) {
    std::vector<int> rows, cols;  // each point's 2 x 2 block
    for (int q = 0; q < model.points(); ++q)
      for (int c = 0; c < 2; ++c)
        for (int r = 0; r < 2; ++r) {
          rows.push_back(2 * q + r);
          cols.push_back(2 * q + c);
        }
    model.set_jacobian_pattern(esdirk::SparsityPattern::from_entries(model.size(), rows, cols),
                               esdirk::LinearSolverKind::krylov);
  } else {
    model.set_jacobian_pattern(model.pattern(), esdirk::LinearSolverKind::krylov);
  }
  esdirk::KrylovSettings krylov;
  krylov.block_size = 2;  // u and v of one point (block_jacobi)
  krylov.preconditioner = preconditioner;
  krylov.matrix_free = matrix_free;
  model.set_krylov_settings(krylov);
  esdirk::Options options;
  options.rtol = options.atol = rtol;
  Point point;
  point.rtol = rtol;
  const double start = cpu_seconds();
  esdirk::Integrator integrator(model, options);
  point.y = model.initial_state();
  point.ok = esdirk::ok(integrator.initialize(0.0, point.y, {}, model.nominal_parameters())) &&
             esdirk::ok(integrator.integrate_to(t_end, point.y).status);
  point.seconds = cpu_seconds() - start;
  const auto& s = integrator.statistics();
  point.steps = s.accepted_steps;
  point.linear_iterations = s.linear_iterations;
  point.setups = s.preconditioner_setups;
  const long attempts = s.accepted_steps + s.rejected_steps;
  point.newton_per_stage = attempts > 0 ? static_cast<double>(s.newton_iterations) /
                                              (static_cast<double>(attempts) * (integrator.method().stages - 1))
                                        : 0.0;
  return point;
}

struct CvodesData {
  Model* model;
  std::vector<double> p;
};

int cv_rhs(sunrealtype, N_Vector y, N_Vector ydot, void* user) {
  auto* d = static_cast<CvodesData*>(user);
  const int n = d->model->size();
  d->model->evaluate(0.0, esdirk::ConstVector(N_VGetArrayPointer(y), static_cast<std::size_t>(n)), {},
                     d->p, esdirk::Vector(N_VGetArrayPointer(ydot), static_cast<std::size_t>(n)), {});
  return 0;
}

Point run_cvodes(int side, double rtol, int band) {
  Model model(side);
  CvodesData data{&model, model.nominal_parameters()};
  const int n = model.size();
  Point point;
  point.rtol = rtol;
  const double start = cpu_seconds();
  SUNContext ctx = nullptr;
  SUNContext_Create(nullptr, &ctx);
  N_Vector y = N_VNew_Serial(n, ctx);
  const auto y0 = model.initial_state();
  std::copy(y0.begin(), y0.end(), N_VGetArrayPointer(y));
  void* mem = CVodeCreate(CV_BDF, ctx);
  CVodeInit(mem, cv_rhs, 0.0, y);
  CVodeSStolerances(mem, rtol, rtol);
  CVodeSetUserData(mem, &data);
  CVodeSetMaxNumSteps(mem, 10000000);
  SUNLinearSolver LS = SUNLinSol_SPGMR(y, SUN_PREC_LEFT, 30, ctx);
  CVodeSetLinearSolver(mem, LS, nullptr);
  CVBandPrecInit(mem, n, band, band);
  sunrealtype t = 0.0;
  point.ok = CVode(mem, t_end, y, &t, CV_NORMAL) == CV_SUCCESS;
  point.seconds = cpu_seconds() - start;
  point.y.assign(N_VGetArrayPointer(y), N_VGetArrayPointer(y) + n);
  long steps = 0, iterations = 0, setups = 0;
  CVodeGetNumSteps(mem, &steps);
  CVodeGetNumLinIters(mem, &iterations);
  CVodeGetNumPrecEvals(mem, &setups);
  point.steps = steps;
  point.linear_iterations = iterations;
  point.setups = setups;
  CVodeFree(&mem);
  SUNLinSolFree(LS);
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  return point;
}

// The best of `repeat` runs (the error is the same each time).
template <class Run>
Point best_of(int repeat, Run run) {
  Point best = run();
  for (int k = 1; k < repeat; ++k) {
    Point again = run();
    if (again.seconds < best.seconds) best.seconds = again.seconds;
  }
  return best;
}

// The peer's time at `error`, interpolated log-log between its two points that bracket it; 0
// when outside its range.
double time_at(const std::vector<Point>& peer, double error) {
  for (std::size_t i = 0; i + 1 < peer.size(); ++i) {
    const Point& a = peer[i];
    const Point& b = peer[i + 1];
    const double lo = std::min(a.error, b.error), hi = std::max(a.error, b.error);
    if (error < lo || error > hi || lo <= 0.0) continue;
    if (hi == lo) return std::min(a.seconds, b.seconds);
    const double w = std::log(error / a.error) / std::log(b.error / a.error);
    return std::exp((1.0 - w) * std::log(a.seconds) + w * std::log(b.seconds));
  }
  return 0.0;
}

void print(const char* name, const Point& p) {
  std::printf("%-22s rtol %.0e  error %.2e  %8.3f s  steps %5ld  linear it. %7ld  precond. setups %5ld",
              name, p.rtol, p.error, p.seconds, p.steps, p.linear_iterations, p.setups);
  if (p.newton_per_stage > 0.0) std::printf("  Newton/stage %.2f", p.newton_per_stage);
  std::printf("%s\n", p.ok ? "" : "  FAILED");
}

}  // namespace

int main(int argc, char** argv) {
  int side = 20, band = 1, repeat = 1;
  bool quick = false;
  std::vector<double> rtols = {1e-4, 1e-5, 1e-6, 1e-7};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--side" && i + 1 < argc) side = std::atoi(argv[++i]);
    else if (arg == "--band" && i + 1 < argc) band = std::atoi(argv[++i]);
    else if (arg == "--t-end" && i + 1 < argc) t_end = std::atof(argv[++i]);
    else if (arg == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--quick") quick = true;
    else if (arg == "--matrix-free") matrix_free = true;
    else if (arg == "--preconditioner" && i + 1 < argc && (std::strcmp(argv[i + 1], "ilu0") == 0 ||
                                                           std::strcmp(argv[i + 1], "block_jacobi") == 0))
      preconditioner = std::strcmp(argv[++i], "ilu0") == 0 ? esdirk::KrylovPreconditioner::ilu0
                                                           : esdirk::KrylovPreconditioner::block_jacobi;
    else if (arg == "--rtols" && i + 1 < argc) {
      rtols.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) rtols.push_back(std::atof(item.c_str()));
    } else {
      std::printf("usage: bench_krylov_cvodes [--side N] [--t-end T] [--rtols r,r,...] [--band B] [--repeat K] "
                  "[--matrix-free] [--preconditioner ilu0|block_jacobi] [--quick]\n");
      return arg == "--help" ? 0 : 2;
    }
  }
  if (quick) {
    side = 6;
    t_end = 1.0;
    rtols = {1e-5};
  }
  std::printf("3-D Brusselator, %d^3 grid, n = %d, t = 0 .. %g; esdirk GMRES + %s; CVODES SPGMR + band "
              "preconditioner (%d, %d)\n",
              side, 2 * side * side * side, t_end, esdirk::krylov_preconditioner_name(preconditioner), band, band);
  const Point reference = run_esdirk(side, 1e-9);
  if (!reference.ok) {
    std::printf("the reference run failed\n");
    return 1;
  }
  std::vector<Point> esdirk_points, cvodes_points;
  bool all_ok = true;
  for (double rtol : rtols) {
    Point e = best_of(repeat, [&] { return run_esdirk(side, rtol); });
    Point c = best_of(repeat, [&] { return run_cvodes(side, rtol, band); });
    e.error = relative_difference(e.y, reference.y);
    c.error = relative_difference(c.y, reference.y);
    print(matrix_free ? "esdirk Krylov m-free" : "esdirk Krylov", e);
    print("CVODES SPGMR+band", c);
    all_ok = all_ok && e.ok && c.ok;
    if (quick) all_ok = all_ok && e.error < 100.0 * rtol && c.error < 100.0 * rtol;
    esdirk_points.push_back(e);
    cvodes_points.push_back(c);
  }
  std::sort(cvodes_points.begin(), cvodes_points.end(),
            [](const Point& a, const Point& b) { return a.error > b.error; });
  for (const Point& e : esdirk_points) {
    const double peer = time_at(cvodes_points, e.error);
    if (peer > 0.0)
      std::printf("at error %.2e: CVODES time / esdirk time = %.2f\n", e.error, peer / e.seconds);
    else
      std::printf("at error %.2e: outside CVODES's range\n", e.error);
  }
  if (quick) std::printf(all_ok ? "all checks passed\n" : "a check FAILED\n");
  return all_ok ? 0 : 1;
}
