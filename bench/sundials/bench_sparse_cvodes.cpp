// Large systems: esdirk's banded (LAPACK dgbtrf) and sparse (KLU) back-ends against CVODES
// (BDF) with the same back-ends (SUNLinSol_Band, SUNLinSol_KLU), on the 1-D Brusselator by the
// method of lines (examples/brusselator_mol, n = 2N unknowns, t = 0 .. 10, analytic Jacobians on
// both sides, rtol = atol), states alone and states with the sensitivities to the three
// parameters (A, B, alpha; scaled columns p_l dy/dp_l, in the error test on both sides: esdirk's
// exact mode with error control, CVODES's staggered corrector with analytic fS, pbar = 1 and
// CVodeSensEEtolerances, so both measure them with the states' tolerances).
//
//  - Work-precision at n = 1e4: the achieved error (max-norm at t = 10, relative to the largest
//    component; with sensitivities the largest of that and each sensitivity column's, relative
//    to the column's largest entry) against a reference run at rtol 1e-11, and the best CPU
//    time (CLOCK_PROCESS_CPUTIME_ID: the machine is shared) of --repeat runs;
//    the time ratio at equal accuracy is CVODES's time, interpolated in log-log at esdirk's
//    achieved error, divided by esdirk's time (> 1: esdirk is faster).
//  - Cost against n at rtol 1e-6, n = 1e3 .. 1e5: CPU time per step, per step and unknown,
//    and the heap held by the solver per unknown (glibc mallinfo2, small and mmapped blocks:
//    the bytes in use at the end of the run minus before the solver was made; KLU's and
//    SUNDIALS's allocations included).
//
//     bench_sparse_cvodes [--quick] [--repeat N] [--csv PREFIX] [--part cost|work-precision]
//                         [--directions 0|3]
// --part runs one of the two measurements (both by default); --directions 0 (states) or 3 (with
// the sensitivities) one of the two cases (both by default).
// --csv writes PREFIX_work_precision.csv and PREFIX_cost.csv (plot_sparse.py draws them).
// --quick (CTest): n = 1e3, two tolerances, one repetition, states alone and with
// sensitivities; checks that every run succeeds,
// that the errors fall with rtol and that esdirk's band and KLU runs agree. No timing asserted.

#include <cvodes/cvodes.h>
#include <malloc.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "brusselator_mol/brusselator_mol_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"

namespace {

constexpr double t_end = 10.0;
constexpr int parameters = 3;  // sensitivities to A, B, alpha when asked for

enum class Backend { band, klu };
const char* backend_name(Backend b) { return b == Backend::band ? "band" : "KLU"; }

struct Run {
  bool ok = false;
  std::vector<double> y;
  std::vector<double> S;   // n x directions, column-major: p_l dy/dp_l
  long steps = 0;          // accepted steps
  long factorizations = 0;
  double seconds = 0.0;
  double heap_bytes = 0.0;  // held by the solver at the end of the run
};

// Bytes the process holds from malloc: the small blocks (uordblks) and the large ones glibc
// serves with mmap (hblkhd; every array of a large n is one of those).
double heap_in_use() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks) + static_cast<double>(info.hblkhd);
}

// The process's CPU time in seconds: on a shared machine wall time includes waiting for a
// core, CPU time does not (each solver is single-threaded: OPENBLAS_NUM_THREADS=1).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// ---- esdirk ---------------------------------------------------------------------------------

Run esdirk_run(int points, Backend backend, double rtol, int directions) {
  brusselator_mol::Model model(points);
  if (backend == Backend::band)
    model.set_jacobian_bandwidths(2, 2);
  else
    model.set_jacobian_pattern(model.pattern(), esdirk::LinearSolverKind::sparse);
  const auto y0 = model.initial_state();
  const auto p = model.nominal_parameters();
  Run run;
  run.y.resize(y0.size());
  const double heap0 = heap_in_use();
  const double start = cpu_seconds();
  esdirk::Options options;
  options.rtol = rtol;
  options.atol = rtol;
  options.max_steps = 10000000;
  esdirk::Integrator integrator(model, options);
  run.ok = esdirk::ok(integrator.initialize(0.0, y0, {}, p));
  if (directions == 0) {
    run.ok = run.ok && esdirk::ok(integrator.integrate_to(t_end, run.y));
    run.heap_bytes = heap_in_use() - heap0;
  } else {
    const int n = model.size();
    esdirk::ForwardSensitivity sensitivities(integrator);
    esdirk::DenseMatrix seed(n + parameters, directions), S(n, directions);
    for (int l = 0; l < directions; ++l) seed(n + l, l) = p[static_cast<std::size_t>(l)];
    run.ok = run.ok && esdirk::ok(sensitivities.initialize(seed.cref())) &&
             esdirk::ok(sensitivities.integrate_to(t_end, run.y, {}, S.ref()));
    run.heap_bytes = heap_in_use() - heap0;  // with the sensitivities' workspaces
    run.S.assign(S.data(), S.data() + static_cast<std::size_t>(n) * directions);
  }
  run.seconds = cpu_seconds() - start;
  run.steps = integrator.statistics().accepted_steps;
  run.factorizations = integrator.statistics().lu_factorizations;
  return run;
}

// ---- CVODES (BDF, Newton, band or KLU direct solver, analytic Jacobian) ----------------------

struct CvodesData {
  brusselator_mol::Model* model;
  const esdirk::SparsityPattern* pattern;
  std::vector<double> p;
};

int cv_rhs(sunrealtype, N_Vector y, N_Vector ydot, void* user) {
  auto* d = static_cast<CvodesData*>(user);
  d->model->rhs(N_VGetArrayPointer(y), d->p.data(), N_VGetArrayPointer(ydot));
  return 0;
}

// ySdot = J yS + pbar_l f_p e_l, pbar_l = p_l (the scaled sensitivity p_l dy/dp_l).
int cv_sensitivity_rhs(int, sunrealtype, N_Vector y, N_Vector, int l, N_Vector yS, N_Vector ySdot,
                       void* user, N_Vector tmp, N_Vector) {
  auto* d = static_cast<CvodesData*>(user);
  const double* x = N_VGetArrayPointer(y);
  double* out = N_VGetArrayPointer(ySdot);
  d->model->jacobian_product(x, d->p.data(), N_VGetArrayPointer(yS), out);
  const int points = d->model->points();
  const double pl = d->p[static_cast<std::size_t>(l)];
  if (l == 0) {
    for (int i = 0; i < points; ++i) out[2 * i] += pl;
  } else if (l == 1) {
    for (int i = 0; i < points; ++i) {
      out[2 * i] -= pl * x[2 * i];
      out[2 * i + 1] += pl * x[2 * i];
    }
  } else {
    double* diffusion = N_VGetArrayPointer(tmp);
    d->model->diffusion_per_alpha(x, diffusion);
    for (int i = 0; i < 2 * points; ++i) out[i] += pl * diffusion[i];
  }
  return 0;
}

int cv_band_jacobian(sunrealtype, N_Vector y, N_Vector, SUNMatrix J, void* user, N_Vector,
                     N_Vector, N_Vector) {
  auto* d = static_cast<CvodesData*>(user);
  const double* x = N_VGetArrayPointer(y);
  const int n = static_cast<int>(SUNBandMatrix_Columns(J));
  for (int j = 0; j < n; ++j) {
    double* column = SUNBandMatrix_Column(J, j);  // column[i - j] = J(i, j)
    for (int i = std::max(0, j - 2); i <= std::min(n - 1, j + 2); ++i)
      column[i - j] = d->model->entry(x, d->p.data(), i, j);
  }
  return 0;
}

int cv_sparse_jacobian(sunrealtype, N_Vector y, N_Vector, SUNMatrix J, void* user, N_Vector,
                       N_Vector, N_Vector) {
  auto* d = static_cast<CvodesData*>(user);
  const double* x = N_VGetArrayPointer(y);
  const auto& pointers = d->pattern->column_pointers();
  const auto& rows = d->pattern->row_indices();
  // CVODES zeroes the matrix, index arrays included, before each call.
  sunindextype* colptrs = SUNSparseMatrix_IndexPointers(J);
  sunindextype* rowvals = SUNSparseMatrix_IndexValues(J);
  double* values = SUNSparseMatrix_Data(J);
  const int n = d->pattern->size();
  for (int j = 0; j <= n; ++j) colptrs[j] = pointers[j];
  for (int j = 0; j < n; ++j)
    for (int k = pointers[j]; k < pointers[j + 1]; ++k) {
      rowvals[k] = rows[k];
      values[k] = d->model->entry(x, d->p.data(), rows[k], j);
    }
  return 0;
}

Run cvodes_run(int points, Backend backend, double rtol, int directions) {
  brusselator_mol::Model model(points);
  const esdirk::SparsityPattern pattern = model.pattern();
  CvodesData data{&model, &pattern, model.nominal_parameters()};
  const int n = model.size();
  const auto y0 = model.initial_state();
  Run run;
  const double heap0 = heap_in_use();
  const double start = cpu_seconds();
  SUNContext ctx = nullptr;
  if (SUNContext_Create(nullptr, &ctx) != 0) throw std::runtime_error("SUNContext_Create failed");
  N_Vector y = N_VNew_Serial(n, ctx);
  std::copy(y0.begin(), y0.end(), N_VGetArrayPointer(y));
  SUNMatrix A = backend == Backend::band ? SUNBandMatrix(n, 2, 2, ctx)
                                          : SUNSparseMatrix(n, n, pattern.nonzeros(), CSC_MAT, ctx);
  SUNLinearSolver LS =
      backend == Backend::band ? SUNLinSol_Band(y, A, ctx) : SUNLinSol_KLU(y, A, ctx);
  void* mem = CVodeCreate(CV_BDF, ctx);
  CVodeInit(mem, cv_rhs, 0.0, y);
  CVodeSStolerances(mem, rtol, rtol);
  CVodeSetUserData(mem, &data);
  CVodeSetLinearSolver(mem, LS, A);
  CVodeSetJacFn(mem, backend == Backend::band ? cv_band_jacobian : cv_sparse_jacobian);
  CVodeSetMaxNumSteps(mem, 10000000);
  N_Vector* yS = nullptr;
  double pbar[parameters] = {1.0, 1.0, 1.0};  // yS is already scaled by p
  if (directions > 0) {
    yS = N_VCloneVectorArray(directions, y);
    for (int l = 0; l < directions; ++l) N_VConst(0.0, yS[l]);
    CVodeSensInit1(mem, directions, CV_STAGGERED, cv_sensitivity_rhs, yS);
    CVodeSetSensParams(mem, nullptr, pbar, nullptr);
    CVodeSensEEtolerances(mem);
    CVodeSetSensErrCon(mem, SUNTRUE);
  }
  double t = 0.0;
  run.ok = CVode(mem, t_end, y, &t, CV_NORMAL) == CV_SUCCESS;
  if (directions > 0) {
    run.ok = run.ok && CVodeGetSens(mem, &t, yS) == CV_SUCCESS;
    for (int l = 0; l < directions; ++l)
      run.S.insert(run.S.end(), N_VGetArrayPointer(yS[l]), N_VGetArrayPointer(yS[l]) + n);
  }
  run.seconds = cpu_seconds() - start;
  run.heap_bytes = heap_in_use() - heap0;
  CVodeGetNumSteps(mem, &run.steps);
  long setups = 0;
  CVodeGetNumLinSolvSetups(mem, &setups);
  run.factorizations = setups;
  run.y.assign(N_VGetArrayPointer(y), N_VGetArrayPointer(y) + n);
  CVodeFree(&mem);
  if (yS != nullptr) N_VDestroyVectorArray(yS, directions);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  return run;
}

// ---- measurement ----------------------------------------------------------------------------

using Solver = std::function<Run(int, Backend, double, int)>;

// The best CPU time of `repeat` runs (the solution and counters of the last).
Run best_of(const Solver& solve, int points, Backend backend, double rtol, int directions,
            int repeat) {
  Run best;
  double seconds = INFINITY;
  for (int r = 0; r < repeat; ++r) {
    best = solve(points, backend, rtol, directions);
    seconds = std::min(seconds, best.seconds);
  }
  best.seconds = seconds;
  return best;
}

// max_i |a_i - b_i| / max_i |b_i| over [offset, offset + size).
double relative_error(const std::vector<double>& a, const std::vector<double>& b,
                      std::size_t offset, std::size_t size) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = offset; i < offset + size; ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

// The states' relative error and each sensitivity column's, the largest; infinite for a
// failed run.
double error_of(const Run& run, const Run& reference) {
  if (!run.ok || run.S.size() != reference.S.size()) return INFINITY;
  const std::size_t n = reference.y.size();
  double worst = relative_error(run.y, reference.y, 0, n);
  for (std::size_t offset = 0; offset < reference.S.size(); offset += n)
    worst = std::max(worst, relative_error(run.S, reference.S, offset, n));
  return worst;
}

struct Point {
  double rtol, error, seconds;
  long steps;
};

// The time along `points` (sorted by rtol) at `error`, log-log interpolated; NaN outside.
double time_at_error(const std::vector<Point>& points, double error) {
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const double e0 = points[i].error, e1 = points[i + 1].error;
    if ((error - e0) * (error - e1) > 0.0 || e0 == e1) continue;
    const double w = (std::log(error) - std::log(e0)) / (std::log(e1) - std::log(e0));
    return std::exp((1 - w) * std::log(points[i].seconds) + w * std::log(points[i + 1].seconds));
  }
  return NAN;
}

int work_precision(int points, const std::vector<double>& rtols, int directions, int repeat,
                   bool quick, std::FILE* csv) {
  const int n = 2 * points;
  std::printf("\nWork-precision, n = %d (N = %d), t = 0 .. %g, %s\n", n, points, t_end,
              directions ? "states and 3 parameter sensitivities" : "states");
  const Run reference = esdirk_run(points, Backend::klu, quick ? 1e-10 : 1e-11, directions);
  const Run check = cvodes_run(points, Backend::klu, quick ? 1e-10 : 1e-11, directions);
  const double reference_spread = error_of(check, reference);
  std::printf("reference: esdirk KLU at rtol %.0e (%ld steps); CVODES KLU at the same rtol differs "
              "by %.1e\n", quick ? 1e-10 : 1e-11, reference.steps, reference_spread);
  int failures = 0;
  if (!reference.ok || !check.ok) {
    std::printf("CHECK FAILED: a reference run failed\n");
    return 1;
  }
  for (Backend backend : {Backend::band, Backend::klu}) {
    std::printf("\n%s: %8s | %10s %10s %6s | %10s %10s %6s | %s\n", backend_name(backend), "rtol",
                "esdirk err", "time [s]", "steps", "CVODES err", "time [s]", "steps",
                "CVODES/esdirk at equal error");
    std::vector<Point> ours, theirs;
    std::vector<Run> our_runs;
    for (double rtol : rtols) {
      const Run a = best_of(esdirk_run, points, backend, rtol, directions, repeat);
      const Run b = best_of(cvodes_run, points, backend, rtol, directions, repeat);
      ours.push_back({rtol, error_of(a, reference), a.seconds, a.steps});
      theirs.push_back({rtol, error_of(b, reference), b.seconds, b.steps});
      our_runs.push_back(a);
      if (csv != nullptr) {
        std::fprintf(csv, "%d,%d,%s,esdirk,%.3e,%.6e,%.6e,%ld\n", n, directions,
                     backend_name(backend), rtol, ours.back().error, a.seconds, a.steps);
        std::fprintf(csv, "%d,%d,%s,CVODES,%.3e,%.6e,%.6e,%ld\n", n, directions,
                     backend_name(backend), rtol, theirs.back().error, b.seconds, b.steps);
      }
    }
    std::vector<double> ratios;
    for (std::size_t i = 0; i < rtols.size(); ++i) {
      const double ratio = time_at_error(theirs, ours[i].error) / ours[i].seconds;
      if (std::isfinite(ratio)) ratios.push_back(ratio);
      std::printf("      %8.0e | %10.2e %10.3e %6ld | %10.2e %10.3e %6ld | ", rtols[i],
                  ours[i].error, ours[i].seconds, ours[i].steps, theirs[i].error,
                  theirs[i].seconds, theirs[i].steps);
      if (std::isfinite(ratio)) std::printf("%.2f\n", ratio); else std::printf("-\n");
      if (!std::isfinite(ours[i].error) || !std::isfinite(theirs[i].error)) {
        std::printf("CHECK FAILED: a run failed at rtol %.0e\n", rtols[i]);
        ++failures;
      }
    }
    if (!ratios.empty()) {
      std::sort(ratios.begin(), ratios.end());
      std::printf("      median ratio %.2f (lowest %.2f, highest %.2f, %zu points)\n",
                  ratios[ratios.size() / 2], ratios.front(), ratios.back(), ratios.size());
    }
    if (ours.size() >= 2 && !(ours.back().error < ours.front().error &&
                              theirs.back().error < theirs.front().error)) {
      std::printf("CHECK FAILED: an error does not fall with rtol\n");
      ++failures;
    }
    if (backend == Backend::klu && quick) {
      // The band run of the same rtol must agree (same method, same steps).
      const Run band = esdirk_run(points, Backend::band, rtols.back(), directions);
      if (error_of(band, our_runs.back()) > 1e-9) {
        std::printf("CHECK FAILED: esdirk's band and KLU runs differ\n");
        ++failures;
      }
    }
  }
  return failures;
}

int cost_against_n(const std::vector<int>& point_counts, double rtol, int directions, int repeat,
                   std::FILE* csv) {
  std::printf("\nCost against n at rtol = atol = %.0e, %s (best of %d; n = 1e5 at most twice)\n",
              rtol, directions ? "states and 3 parameter sensitivities" : "states", repeat);
  std::printf("%8s %-7s %-7s | %6s %6s %10s %12s %12s %10s\n", "n", "solver", "backend", "steps",
              "LUs", "time [s]", "us/step", "ns/step/n", "heap B/n");
  int failures = 0;
  for (Backend backend : {Backend::band, Backend::klu})
    for (int points : point_counts) {
      const int n = 2 * points;
      const int reps = n >= 50000 ? std::min(repeat, 2) : repeat;
      for (int solver = 0; solver < 2; ++solver) {
        const Run r = best_of(solver == 0 ? Solver(esdirk_run) : Solver(cvodes_run), points,
                              backend, rtol, directions, reps);
        const char* name = solver == 0 ? "esdirk" : "CVODES";
        const double per_step = r.seconds / static_cast<double>(std::max(1L, r.steps));
        std::printf("%8d %-7s %-7s | %6ld %6ld %10.4f %12.1f %12.1f %10.0f\n", n, name,
                    backend_name(backend), r.steps, r.factorizations, r.seconds, 1e6 * per_step,
                    1e9 * per_step / n, r.heap_bytes / n);
        if (csv != nullptr)
          std::fprintf(csv, "%d,%d,%s,%s,%.0e,%ld,%ld,%.6e,%.6e\n", n, directions,
                       backend_name(backend), name, rtol, r.steps, r.factorizations, r.seconds,
                       r.heap_bytes);
        if (!r.ok) {
          std::printf("CHECK FAILED: %s %s failed at n = %d\n", name, backend_name(backend), n);
          ++failures;
        }
      }
    }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int repeat = 3;
  std::string csv_prefix, part;
  std::vector<int> cases = {0, parameters};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv_prefix = argv[++i];
    } else if (!std::strcmp(argv[i], "--part") && i + 1 < argc &&
               (!std::strcmp(argv[i + 1], "cost") || !std::strcmp(argv[i + 1], "work-precision"))) {
      part = argv[++i];
    } else if (!std::strcmp(argv[i], "--directions") && i + 1 < argc &&
               (!std::strcmp(argv[i + 1], "0") || !std::strcmp(argv[i + 1], "3"))) {
      cases = {std::atoi(argv[++i])};
    } else {
      std::fprintf(stderr, "usage: bench_sparse_cvodes [--quick] [--repeat N] [--csv PREFIX] "
                           "[--part cost|work-precision] [--directions 0|3]\n");
      return 2;
    }
  }
  std::FILE* wp_csv = nullptr;
  std::FILE* cost_csv = nullptr;
  if (!csv_prefix.empty()) {
    wp_csv = std::fopen((csv_prefix + "_work_precision.csv").c_str(), "w");
    cost_csv = std::fopen((csv_prefix + "_cost.csv").c_str(), "w");
    if (wp_csv == nullptr || cost_csv == nullptr) {
      std::fprintf(stderr, "cannot write %s_*.csv\n", csv_prefix.c_str());
      return 2;
    }
    std::fprintf(wp_csv, "n,directions,backend,solver,rtol,error,seconds,steps\n");
    std::fprintf(cost_csv, "n,directions,backend,solver,rtol,steps,factorizations,seconds,heap_bytes\n");
  }
  int failures = 0;
  const bool precision = part != "cost", cost = part != "work-precision";
  for (int directions : cases) {
    if (quick) {
      if (precision) failures += work_precision(500, {1e-4, 1e-6}, directions, 1, true, wp_csv);
      if (cost) failures += cost_against_n({500}, 1e-6, directions, 1, cost_csv);
    } else {
      if (precision)
        failures += work_precision(5000, {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8}, directions, repeat,
                                   false, wp_csv);
      if (cost)
        failures += cost_against_n({500, 1500, 5000, 15000, 50000}, 1e-6, directions, repeat,
                                   cost_csv);
    }
  }
  if (wp_csv != nullptr) std::fclose(wp_csv);
  if (cost_csv != nullptr) std::fclose(cost_csv);
  std::printf("\n%s\n", failures ? "CHECK FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
