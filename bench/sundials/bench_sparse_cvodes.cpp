// Large systems: esdirk's banded (LAPACK dgbtrf) and sparse (KLU) back-ends against CVODES
// (BDF) and IDAS (BDF on the residual y' - f(y)) with the same back-ends (SUNLinSol_Band,
// SUNLinSol_KLU), on the Brusselator by the method of lines (examples/brusselator_mol): 1-D with
// n = 2N unknowns and 2-D on an N x N grid with n = 2N^2, t = 0 .. 10, analytic Jacobians on
// every side, rtol = atol; states alone and states with the sensitivities to the three
// parameters (A, B, alpha; scaled columns p_l dy/dp_l, in the error test on every side: esdirk's
// exact mode with error control, the staggered correctors of CVODES and IDAS with analytic
// sensitivity right-hand sides / residuals, pbar = 1 and EE tolerances, so all measure them
// with the states' tolerances).
//
// esdirk runs with its defaults ("esdirk": the factorization policy decides when J and the LU
// are formed), states only with LU and Jacobian reuse ("esdirk reuse": Options::reuse_jacobian,
// keep_step_ratio_high = 1.2, as in bench_sundials) and, beside the KLU runs, with Newton-Krylov
// ("esdirk Krylov": LinearSolverKind::krylov with its defaults, GMRES(30) preconditioned by the
// ILU(0) of M on J's pattern). --solvers picks some of them (e.g. esdirk-krylov,CVODES,IDAS).
//
//  - Work-precision (1-D at n = 1e4; 2-D at N = 40, n = 3200, KLU): the achieved error (max-norm
//    at t = 10, relative to the largest component; with sensitivities the largest of that and
//    each sensitivity column's, relative to the column's largest entry) against an esdirk KLU
//    run at a tight rtol, and the best CPU time (CLOCK_PROCESS_CPUTIME_ID: the machine is
//    shared) of --repeat runs; the time ratio at equal accuracy is the peer's time,
//    interpolated in log-log at esdirk's achieved error, divided by esdirk's time (> 1: esdirk
//    is faster).
//  - Cost against n at rtol 1e-6 (1-D n = 1e3 .. 1e5; 2-D N = 20 .. 100, n = 800 .. 20 000, the
//    band back-end up to N = 40; --part 2d-large: N = 200 and 300, n = 80 000 and 180 000, states,
//    KLU, esdirk with reuse, CVODES and IDAS, one run each: a run of esdirk's defaults there
//    takes tens of minutes, see doc/benchmarks.md):
//    CPU time per step, per step and unknown, and the heap held by the solver per unknown (glibc
//    mallinfo2, small and mmapped blocks: the bytes in use at the end of the run minus before the
//    solver was made; KLU's and SUNDIALS's allocations included).
//
//     bench_sparse_cvodes [--quick] [--repeat N] [--csv PREFIX] [--part cost|work-precision|2d|...]
//                         [--directions 0|3]
// --set option=value changes an option of every esdirk run (newton_tolerance, newton_rate_floor,
// newton_fresh_rate_floor, newton_carry_observed_rate=0|1 (0.03 and 0: the Newton test before the
// fresh-Jacobian floor), stage_predictor,
// reuse_jacobian, keep_step_ratio_low/high, jacobian_reuse_contraction, lu_reuse_h_change, raw, method,
// factorization_policy=every_step|automatic, reuse_cost_ratio,
// max_newton_iterations, newton_test=contraction_rate|preconditioned_residual; stage_solve and
// correction_tolerance of the sensitivities; preconditioner=ilu0|block_jacobi, krylov_tolerance, sensitivity_tolerance,
// sensitivity_step_preconditioner=0|1, sensitivity_error_fraction of esdirk
// Krylov), for the measurements behind the
// defaults.
// KLU orders with AMD on every side (esdirk's KLU default; SUNDIALS' SUNLinSol_KLU defaults to
// COLAMD, which --sundials-colamd restores: on the 2-D grid its factors fill more, N = 70 took
// 2.7x the CPU time).
// --part runs one of the measurements: cost and work-precision are the 1-D ones, 2d both on the
// 2-D grid (by default all three), 2d-40 the 40 x 40 work-precision of 2d alone, 2d-100 the
// work-precision on the 100 x 100 grid and 2d-large the large grids, sensitivity-accuracy esdirk KLU against esdirk Krylov with sensitivities, the
// states' and the sensitivities' errors apart, at rtol 1e-4 .. 1e-7 on the 1-D grid n = 1000 and the
// 2-D 20 x 20 grid (all three only when asked for); --directions 0 (states) or 3 (with the
// sensitivities) one of the two cases (both by default).
// --csv writes PREFIX_work_precision.csv and PREFIX_cost.csv (plot_sparse.py draws them; the
// 2-D rows have model "2d").
// --quick (CTest): 1-D n = 1e3 and 2-D N = 12 (KLU), rtol 1e-3 and 1e-5, one repetition, states
// alone and with sensitivities; checks that every run succeeds, that the errors fall with rtol, that
// esdirk's band and KLU runs agree and that the 2-D model's Jacobian passes the pattern checker.
// No timing asserted.

#include <cvodes/cvodes.h>
#include <idas/idas.h>
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
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "brusselator_mol/brusselator_2d_model.hpp"
#include "brusselator_mol/brusselator_mol_model.hpp"
#include "esdirk/integrator.hpp"
#include "esdirk/jacobian.hpp"
#include "esdirk/sensitivity/forward_sensitivity.hpp"
#include "esdirk/stage_linear_system.hpp"

namespace {

double t_end = 10.0;  // --t-end (with --run only: the measurements all run to 10)
constexpr int parameters = 3;  // sensitivities to A, B, alpha when asked for

enum class Backend { band, klu };
const char* backend_name(Backend b) { return b == Backend::band ? "band" : "KLU"; }

enum class Solver { esdirk, esdirk_reuse, esdirk_krylov, cvodes, idas };
const char* solver_name(Solver s) {
  switch (s) {
    case Solver::esdirk: return "esdirk";
    case Solver::esdirk_reuse: return "esdirk reuse";
    case Solver::esdirk_krylov: return "esdirk Krylov";
    case Solver::cvodes: return "CVODES";
    case Solver::idas: return "IDAS";
  }
  return "?";
}
bool is_esdirk(Solver s) {
  return s == Solver::esdirk || s == Solver::esdirk_reuse || s == Solver::esdirk_krylov;
}
// "esdirk Krylov" runs on the KLU tables only (its own back-end, compared with the peers' KLU).
bool runs_on(Solver s, Backend b) { return s != Solver::esdirk_krylov || b == Backend::klu; }

struct Run {
  bool ok = false;
  std::vector<double> y;
  std::vector<double> S;   // n x directions, column-major: p_l dy/dp_l
  long steps = 0;          // accepted steps
  long factorizations = 0;
  long newton_iterations = 0;  // nonlinear iterations (esdirk: over all stages)
  long stage_factorizations = 0;  // esdirk's sensitivities: LUs of stage matrices M_i
  long back_substitutions = 0;    // esdirk's sensitivities: right-hand sides solved
  long linear_iterations = 0;     // esdirk Krylov: GMRES iterations
  esdirk::Statistics sensitivity_counters;  // esdirk: the sensitivities' own (their GMRES, Jacobians)
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

// --set name=value: options changed in every esdirk run (for the measurements behind defaults).
std::vector<std::string> settings;
// --set stage_solve=automatic|refinement|factorization: the forward sensitivities' stage solves.
esdirk::StageSolve stage_solve = esdirk::StageSolve::automatic;
// --set correction_tolerance=x: the exact-mode refinement's stopping tolerance (SensitivityOptions).
double correction_tolerance = esdirk::SensitivityOptions{}.correction_tolerance;
// --set preconditioner=ilu0|block_jacobi: esdirk Krylov's built-in preconditioner.
esdirk::KrylovPreconditioner krylov_preconditioner = esdirk::KrylovSettings{}.preconditioner;
// --set sensitivity_tolerance=x: the GMRES tolerance of esdirk Krylov's sensitivity solves.
// --set krylov_tolerance=x: the forcing term of the states' solves in every run (both
// KrylovSettings::tolerance and tolerance_with_derivatives; unset: the defaults, 0.05 for states
// alone and 1e-3 with sensitivities).
double krylov_sensitivity_tolerance = esdirk::KrylovSettings{}.sensitivity_tolerance;
double krylov_tolerance = 0.0;
// --set sensitivity_step_preconditioner=0|1, sensitivity_error_fraction=x: esdirk Krylov's
// sensitivity stage solves with the step's preconditioner, and stopped at x times rtol.
bool krylov_sensitivity_step_preconditioner = esdirk::KrylovSettings{}.sensitivity_step_preconditioner;
double krylov_sensitivity_error_fraction = esdirk::KrylovSettings{}.sensitivity_error_fraction;

bool apply(esdirk::Options& o, const std::string& setting) {
  const auto eq = setting.find('=');
  if (eq == std::string::npos) return false;
  const std::string name = setting.substr(0, eq), text = setting.substr(eq + 1);
  const double value = std::atof(text.c_str());
  if (name == "newton_tolerance") o.newton_tolerance = value;
  else if (name == "newton_rate_floor") o.newton_rate_floor = value;
  else if (name == "newton_fresh_rate_floor") o.newton_fresh_rate_floor = value;
  else if (name == "newton_carry_observed_rate") o.newton_carry_observed_rate = value > 0;
  else if (name == "max_newton_iterations") o.max_newton_iterations = static_cast<int>(value);
  else if (name == "stage_predictor")
    o.stage_predictor = text == "dense_output"     ? esdirk::StagePredictor::dense_output
                        : text == "previous_stage" ? esdirk::StagePredictor::previous_stage
                                                   : esdirk::StagePredictor::stage_extrapolation;
  else if (name == "raw") o.tolerance_rule = value > 0 ? esdirk::ToleranceRule::raw : esdirk::ToleranceRule::calibrated;
  else if (name == "reuse_jacobian") o.reuse_jacobian = value > 0;
  else if (name == "keep_step_ratio_high") o.keep_step_ratio_high = value;
  else if (name == "keep_step_ratio_low") o.keep_step_ratio_low = value;
  else if (name == "jacobian_reuse_contraction") o.jacobian_reuse_contraction = value;
  else if (name == "lu_reuse_h_change") o.lu_reuse_h_change = value;
  else if (name == "reuse_cost_ratio") o.reuse_cost_ratio = value;
  else if (name == "factorization_policy" && (text == "every_step" || text == "automatic"))
    o.factorization_policy = text == "every_step" ? esdirk::FactorizationPolicy::every_step
                                                  : esdirk::FactorizationPolicy::automatic;
  else if (name == "method") o.method = esdirk::MethodChoice::named(text);
  else if (name == "newton_test" && (text == "contraction_rate" || text == "preconditioned_residual"))
    o.newton_test = text == "contraction_rate" ? esdirk::NewtonTest::contraction_rate
                                               : esdirk::NewtonTest::preconditioned_residual;
  else if (name == "sensitivity_tolerance" && value > 0.0 && value < 1.0) krylov_sensitivity_tolerance = value;
  else if (name == "krylov_tolerance" && value > 0.0 && value < 1.0) krylov_tolerance = value;
  else if (name == "sensitivity_step_preconditioner") krylov_sensitivity_step_preconditioner = value > 0;
  else if (name == "sensitivity_error_fraction" && value >= 0.0 && value < 1.0)
    krylov_sensitivity_error_fraction = value;
  else if (name == "preconditioner" && (text == "ilu0" || text == "block_jacobi"))
    krylov_preconditioner = text == "ilu0" ? esdirk::KrylovPreconditioner::ilu0
                                           : esdirk::KrylovPreconditioner::block_jacobi;
  else if (name == "correction_tolerance" && value > 0.0 && value < 1.0) correction_tolerance = value;
  else if (name == "stage_solve" && (text == "automatic" || text == "refinement" || text == "factorization"))
    stage_solve = text == "refinement"      ? esdirk::StageSolve::refinement
                  : text == "factorization" ? esdirk::StageSolve::factorization
                                            : esdirk::StageSolve::automatic;
  else return false;
  return true;
}

// krylov: LinearSolverKind::krylov with its defaults (GMRES(30), ILU(0) of M on J's pattern),
// whatever `backend` says.
template <class Model>
Run esdirk_run(int size, Backend backend, double rtol, int directions, bool reuse, bool krylov = false) {
  Model model(size);
  model.set_jacobian_pattern(model.pattern(), krylov                    ? esdirk::LinearSolverKind::krylov
                                              : backend == Backend::band ? esdirk::LinearSolverKind::banded
                                                                         : esdirk::LinearSolverKind::sparse);
  if (krylov) {
    esdirk::KrylovSettings settings;  // the defaults; block_size for --set preconditioner=block_jacobi
    settings.block_size = 2;
    settings.preconditioner = krylov_preconditioner;
    settings.sensitivity_tolerance = krylov_sensitivity_tolerance;
    settings.sensitivity_step_preconditioner = krylov_sensitivity_step_preconditioner;
    settings.sensitivity_error_fraction = krylov_sensitivity_error_fraction;
    if (krylov_tolerance > 0.0) settings.tolerance = settings.tolerance_with_derivatives = krylov_tolerance;
    model.set_krylov_settings(settings);
  }
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
  if (reuse) {
    options.reuse_jacobian = true;
    options.keep_step_ratio_high = 1.2;
  }
  for (const std::string& setting : settings) apply(options, setting);
  esdirk::Integrator integrator(model, options);
  run.ok = esdirk::ok(integrator.initialize(0.0, y0, {}, p));
  if (directions == 0) {
    run.ok = run.ok && esdirk::ok(integrator.integrate_to(t_end, run.y));
    run.heap_bytes = heap_in_use() - heap0;
  } else {
    const int n = model.size();
    esdirk::SensitivityOptions sensitivity_options;
    sensitivity_options.stage_solve = stage_solve;
    sensitivity_options.correction_tolerance = correction_tolerance;
    esdirk::ForwardSensitivity sensitivities(integrator, sensitivity_options);
    esdirk::DenseMatrix seed(n + parameters, directions), S(n, directions);
    for (int l = 0; l < directions; ++l) seed(n + l, l) = p[static_cast<std::size_t>(l)];
    run.ok = run.ok && esdirk::ok(sensitivities.initialize(seed.cref())) &&
             esdirk::ok(sensitivities.integrate_to(t_end, run.y, {}, S.ref()));
    run.heap_bytes = heap_in_use() - heap0;  // with the sensitivities' workspaces
    run.S.assign(S.data(), S.data() + static_cast<std::size_t>(n) * directions);
    run.stage_factorizations = sensitivities.counters().stage_factorizations;
    run.back_substitutions = sensitivities.counters().back_substitutions;
    run.sensitivity_counters = sensitivities.counters();
  }
  run.seconds = cpu_seconds() - start;
  run.steps = integrator.statistics().accepted_steps;
  run.factorizations = integrator.statistics().lu_factorizations;
  run.newton_iterations = integrator.statistics().newton_iterations;
  run.linear_iterations = integrator.statistics().linear_iterations;
  return run;
}

// ---- SUNDIALS: the model's callbacks ----------------------------------------------------------

template <class Model>
struct SundialsData {
  Model* model;
  const esdirk::SparsityPattern* pattern;
  std::vector<double> p;
};

// out = J(y) s + pbar_l f_p e_l, pbar_l = p_l: the right-hand side of the scaled sensitivity
// p_l dy/dp_l (tmp: n values of workspace).
template <class Model>
void sensitivity_rhs(const SundialsData<Model>& d, const double* y, int l, const double* s,
                     double* out, double* tmp) {
  d.model->jacobian_product(y, d.p.data(), s, out);
  const int points = d.model->points();
  const double pl = d.p[static_cast<std::size_t>(l)];
  if (l == 0) {
    for (int i = 0; i < points; ++i) out[2 * i] += pl;
  } else if (l == 1) {
    for (int i = 0; i < points; ++i) {
      out[2 * i] -= pl * y[2 * i];
      out[2 * i + 1] += pl * y[2 * i];
    }
  } else {
    d.model->diffusion_per_alpha(y, tmp);
    for (int i = 0; i < 2 * points; ++i) out[i] += pl * tmp[i];
  }
}

// J, or c_j I - J for IDAS (scale = -1, shift = c_j), into SUNDIALS's band or CSC matrix over
// the model's pattern (SUNDIALS zeroes the matrix, index arrays included, before each call).
template <class Model>
void fill_matrix(const SundialsData<Model>& d, const double* y, double scale, double shift,
                 SUNMatrix J) {
  const auto& pointers = d.pattern->column_pointers();
  const auto& rows = d.pattern->row_indices();
  const int n = d.pattern->size();
  auto value = [&](int i, int j) {
    return scale * d.model->entry(y, d.p.data(), i, j) + (i == j ? shift : 0.0);
  };
  if (SUNMatGetID(J) == SUNMATRIX_BAND) {
    for (int j = 0; j < n; ++j) {
      double* column = SUNBandMatrix_Column(J, j);  // column[i - j] = J(i, j)
      for (int k = pointers[j]; k < pointers[j + 1]; ++k) column[rows[k] - j] = value(rows[k], j);
    }
    return;
  }
  sunindextype* colptrs = SUNSparseMatrix_IndexPointers(J);
  sunindextype* rowvals = SUNSparseMatrix_IndexValues(J);
  double* values = SUNSparseMatrix_Data(J);
  for (int j = 0; j <= n; ++j) colptrs[j] = pointers[j];
  for (int j = 0; j < n; ++j)
    for (int k = pointers[j]; k < pointers[j + 1]; ++k) {
      rowvals[k] = rows[k];
      values[k] = value(rows[k], j);
    }
}

// ---- CVODES (BDF, Newton, band or KLU direct solver, analytic Jacobian) ----------------------

// --sundials-colamd: SUNDIALS' KLU with its own default ordering (COLAMD) instead of AMD.
bool sundials_colamd = false;

template <class Model>
int cv_rhs(sunrealtype, N_Vector y, N_Vector ydot, void* user) {
  auto* d = static_cast<SundialsData<Model>*>(user);
  d->model->rhs(N_VGetArrayPointer(y), d->p.data(), N_VGetArrayPointer(ydot));
  return 0;
}

template <class Model>
int cv_sensitivity_rhs(int, sunrealtype, N_Vector y, N_Vector, int l, N_Vector yS, N_Vector ySdot,
                       void* user, N_Vector tmp, N_Vector) {
  sensitivity_rhs(*static_cast<SundialsData<Model>*>(user), N_VGetArrayPointer(y), l,
                  N_VGetArrayPointer(yS), N_VGetArrayPointer(ySdot), N_VGetArrayPointer(tmp));
  return 0;
}

template <class Model>
int cv_jacobian(sunrealtype, N_Vector y, N_Vector, SUNMatrix J, void* user, N_Vector, N_Vector,
                N_Vector) {
  fill_matrix(*static_cast<SundialsData<Model>*>(user), N_VGetArrayPointer(y), 1.0, 0.0, J);
  return 0;
}

// The band or KLU matrix and linear solver for the model.
template <class Model>
void make_linear_solver(const Model& model, const esdirk::SparsityPattern& pattern, Backend backend,
                        N_Vector y, SUNContext ctx, SUNMatrix* A, SUNLinearSolver* LS) {
  const int n = model.size();
  const int bandwidth = model.bandwidth();
  *A = backend == Backend::band ? SUNBandMatrix(n, bandwidth, bandwidth, ctx)
                                : SUNSparseMatrix(n, n, pattern.nonzeros(), CSC_MAT, ctx);
  *LS = backend == Backend::band ? SUNLinSol_Band(y, *A, ctx) : SUNLinSol_KLU(y, *A, ctx);
  // KLU's fill-reducing ordering as esdirk's (AMD, KLU's own default); SUNDIALS' default is
  // COLAMD, which fills the factors of the 2-D problem more (doc/benchmarks.md).
  if (backend == Backend::klu && !sundials_colamd) SUNLinSol_KLUSetOrdering(*LS, 0);
}

template <class Model>
Run cvodes_run(int size, Backend backend, double rtol, int directions) {
  Model model(size);
  const esdirk::SparsityPattern pattern = model.pattern();
  SundialsData<Model> data{&model, &pattern, model.nominal_parameters()};
  const int n = model.size();
  const auto y0 = model.initial_state();
  Run run;
  const double heap0 = heap_in_use();
  const double start = cpu_seconds();
  SUNContext ctx = nullptr;
  if (SUNContext_Create(nullptr, &ctx) != 0) throw std::runtime_error("SUNContext_Create failed");
  N_Vector y = N_VNew_Serial(n, ctx);
  std::copy(y0.begin(), y0.end(), N_VGetArrayPointer(y));
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  make_linear_solver(model, pattern, backend, y, ctx, &A, &LS);
  void* mem = CVodeCreate(CV_BDF, ctx);
  CVodeInit(mem, cv_rhs<Model>, 0.0, y);
  CVodeSStolerances(mem, rtol, rtol);
  CVodeSetUserData(mem, &data);
  CVodeSetLinearSolver(mem, LS, A);
  CVodeSetJacFn(mem, cv_jacobian<Model>);
  CVodeSetMaxNumSteps(mem, 10000000);
  N_Vector* yS = nullptr;
  double pbar[parameters] = {1.0, 1.0, 1.0};  // yS is already scaled by p
  if (directions > 0) {
    yS = N_VCloneVectorArray(directions, y);
    for (int l = 0; l < directions; ++l) N_VConst(0.0, yS[l]);
    CVodeSensInit1(mem, directions, CV_STAGGERED, cv_sensitivity_rhs<Model>, yS);
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
  CVodeGetNumNonlinSolvIters(mem, &run.newton_iterations);
  run.y.assign(N_VGetArrayPointer(y), N_VGetArrayPointer(y) + n);
  CVodeFree(&mem);
  if (yS != nullptr) N_VDestroyVectorArray(yS, directions);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  return run;
}

// ---- IDAS (BDF on F(t, y, y') = y' - f(y), band or KLU, analytic Jacobian c_j I - J) --------

template <class Model>
int ida_residual(sunrealtype, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto* d = static_cast<SundialsData<Model>*>(user);
  double* out = N_VGetArrayPointer(r);
  d->model->rhs(N_VGetArrayPointer(y), d->p.data(), out);
  const double* ydot = N_VGetArrayPointer(yp);
  for (int i = 0; i < d->model->size(); ++i) out[i] = ydot[i] - out[i];
  return 0;
}

// F_s,l = yS_l' - (J yS_l + pbar_l f_p e_l).
template <class Model>
int ida_sensitivity_residual(int Ns, sunrealtype, N_Vector y, N_Vector, N_Vector, N_Vector* yS,
                             N_Vector* ypS, N_Vector* rS, void* user, N_Vector tmp, N_Vector,
                             N_Vector) {
  auto* d = static_cast<SundialsData<Model>*>(user);
  for (int l = 0; l < Ns; ++l) {
    double* out = N_VGetArrayPointer(rS[l]);
    sensitivity_rhs(*d, N_VGetArrayPointer(y), l, N_VGetArrayPointer(yS[l]), out,
                    N_VGetArrayPointer(tmp));
    const double* sdot = N_VGetArrayPointer(ypS[l]);
    for (int i = 0; i < d->model->size(); ++i) out[i] = sdot[i] - out[i];
  }
  return 0;
}

template <class Model>
int ida_jacobian(sunrealtype, sunrealtype cj, N_Vector y, N_Vector, N_Vector, SUNMatrix J,
                 void* user, N_Vector, N_Vector, N_Vector) {
  fill_matrix(*static_cast<SundialsData<Model>*>(user), N_VGetArrayPointer(y), -1.0, cj, J);
  return 0;
}

template <class Model>
Run idas_run(int size, Backend backend, double rtol, int directions) {
  Model model(size);
  const esdirk::SparsityPattern pattern = model.pattern();
  SundialsData<Model> data{&model, &pattern, model.nominal_parameters()};
  const int n = model.size();
  const auto y0 = model.initial_state();
  Run run;
  const double heap0 = heap_in_use();
  const double start = cpu_seconds();
  SUNContext ctx = nullptr;
  if (SUNContext_Create(nullptr, &ctx) != 0) throw std::runtime_error("SUNContext_Create failed");
  N_Vector y = N_VNew_Serial(n, ctx);
  N_Vector yp = N_VNew_Serial(n, ctx);
  std::copy(y0.begin(), y0.end(), N_VGetArrayPointer(y));
  model.rhs(N_VGetArrayPointer(y), data.p.data(), N_VGetArrayPointer(yp));  // consistent y'(0)
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  make_linear_solver(model, pattern, backend, y, ctx, &A, &LS);
  void* mem = IDACreate(ctx);
  IDAInit(mem, ida_residual<Model>, 0.0, y, yp);
  IDASStolerances(mem, rtol, rtol);
  IDASetUserData(mem, &data);
  IDASetLinearSolver(mem, LS, A);
  IDASetJacFn(mem, ida_jacobian<Model>);
  IDASetMaxNumSteps(mem, 10000000);
  N_Vector* yS = nullptr;
  N_Vector* ypS = nullptr;
  double pbar[parameters] = {1.0, 1.0, 1.0};
  if (directions > 0) {
    // yS(0) = 0, so yS'(0) = pbar_l f_p e_l at y0.
    yS = N_VCloneVectorArray(directions, y);
    ypS = N_VCloneVectorArray(directions, y);
    std::vector<double> zero(static_cast<std::size_t>(n), 0.0), tmp(static_cast<std::size_t>(n));
    for (int l = 0; l < directions; ++l) {
      N_VConst(0.0, yS[l]);
      sensitivity_rhs(data, y0.data(), l, zero.data(), N_VGetArrayPointer(ypS[l]), tmp.data());
    }
    IDASensInit(mem, directions, IDA_STAGGERED, ida_sensitivity_residual<Model>, yS, ypS);
    IDASetSensParams(mem, nullptr, pbar, nullptr);
    IDASensEEtolerances(mem);
    IDASetSensErrCon(mem, SUNTRUE);
  }
  double t = 0.0;
  run.ok = IDASolve(mem, t_end, &t, y, yp, IDA_NORMAL) == IDA_SUCCESS;
  if (directions > 0) {
    run.ok = run.ok && IDAGetSens(mem, &t, yS) == IDA_SUCCESS;
    for (int l = 0; l < directions; ++l)
      run.S.insert(run.S.end(), N_VGetArrayPointer(yS[l]), N_VGetArrayPointer(yS[l]) + n);
  }
  run.seconds = cpu_seconds() - start;
  run.heap_bytes = heap_in_use() - heap0;
  IDAGetNumSteps(mem, &run.steps);
  long setups = 0;
  IDAGetNumLinSolvSetups(mem, &setups);
  run.factorizations = setups;
  IDAGetNumNonlinSolvIters(mem, &run.newton_iterations);
  run.y.assign(N_VGetArrayPointer(y), N_VGetArrayPointer(y) + n);
  IDAFree(&mem);
  if (yS != nullptr) N_VDestroyVectorArray(yS, directions);
  if (ypS != nullptr) N_VDestroyVectorArray(ypS, directions);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  N_VDestroy(yp);
  SUNContext_Free(&ctx);
  return run;
}

// ---- measurement ----------------------------------------------------------------------------

template <class Model>
Run run_once(Solver solver, int size, Backend backend, double rtol, int directions) {
  switch (solver) {
    case Solver::esdirk: return esdirk_run<Model>(size, backend, rtol, directions, false);
    case Solver::esdirk_reuse: return esdirk_run<Model>(size, backend, rtol, directions, true);
    case Solver::esdirk_krylov: return esdirk_run<Model>(size, backend, rtol, directions, false, true);
    case Solver::cvodes: return cvodes_run<Model>(size, backend, rtol, directions);
    case Solver::idas: return idas_run<Model>(size, backend, rtol, directions);
  }
  return {};
}

// The best CPU time of `repeat` runs (the solution and counters of the last).
template <class Model>
Run best_of(Solver solver, int size, Backend backend, double rtol, int directions, int repeat) {
  Run best;
  double seconds = INFINITY;
  for (int r = 0; r < repeat; ++r) {
    best = run_once<Model>(solver, size, backend, rtol, directions);
    seconds = std::min(seconds, best.seconds);
  }
  best.seconds = seconds;
  return best;
}

// --solvers: the solvers to run (all by default).
std::vector<Solver> selected = {Solver::esdirk, Solver::esdirk_reuse, Solver::esdirk_krylov,
                                Solver::cvodes, Solver::idas};

// The solvers of one case on one back-end: esdirk's reuse is states only (the sensitivities
// refuse it), esdirk Krylov runs with the KLU tables.
std::vector<Solver> solvers_for(int directions, Backend backend) {
  std::vector<Solver> solvers;
  for (Solver s : selected)
    if ((directions == 0 || s != Solver::esdirk_reuse) && runs_on(s, backend)) solvers.push_back(s);
  return solvers;
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
  long steps, factorizations, newton_iterations;
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

// "n = 10000 (1-D, N = 5000)" or "n = 20000 (2-D, 100 x 100)".
template <class Model>
std::string describe(int size) {
  const Model model(size);
  char text[96];
  if constexpr (std::is_same_v<Model, brusselator_mol::Model2d>)
    std::snprintf(text, sizeof text, "n = %d (2-D, %d x %d grid)", model.size(), size, size);
  else
    std::snprintf(text, sizeof text, "n = %d (1-D, N = %d)", model.size(), size);
  return text;
}

template <class Model>
const char* model_name() {
  return std::is_same_v<Model, brusselator_mol::Model2d> ? "2d" : "1d";
}

template <class Model>
int work_precision(int size, const std::vector<Backend>& backends, const std::vector<double>& rtols,
                   double reference_rtol, int directions, int repeat, bool quick, std::FILE* csv) {
  const int n = Model(size).size();
  std::printf("\nWork-precision, %s, t = 0 .. %g, %s\n", describe<Model>(size).c_str(), t_end,
              directions ? "states and 3 parameter sensitivities" : "states");
  const Run reference = esdirk_run<Model>(size, Backend::klu, reference_rtol, directions, false);
  const Run check = cvodes_run<Model>(size, Backend::klu, reference_rtol, directions);
  const double reference_spread = error_of(check, reference);
  std::printf("reference: esdirk KLU at rtol %.0e (%ld steps); CVODES KLU at the same rtol differs "
              "by %.1e\n", reference_rtol, reference.steps, reference_spread);
  int failures = 0;
  if (!reference.ok || !check.ok) {
    std::printf("CHECK FAILED: a reference run failed\n");
    return 1;
  }
  for (Backend backend : backends) {
    const std::vector<Solver> solvers = solvers_for(directions, backend);
    std::printf("\n%s: %8s | %-13s %10s %10s %6s %6s %7s\n", backend_name(backend), "rtol", "solver",
                "error", "time [s]", "steps", "LUs", "Newton");
    std::vector<std::vector<Point>> curves(solvers.size());
    std::vector<Run> last_esdirk;
    for (double rtol : rtols)
      for (std::size_t k = 0; k < solvers.size(); ++k) {
        const Run r = best_of<Model>(solvers[k], size, backend, rtol, directions, repeat);
        curves[k].push_back({rtol, error_of(r, reference), r.seconds, r.steps, r.factorizations,
                             r.newton_iterations});
        if (solvers[k] == Solver::esdirk) last_esdirk = {r};
        std::printf("      %8.0e | %-13s %10.2e %10.3e %6ld %6ld %7ld\n", rtol, solver_name(solvers[k]),
                    curves[k].back().error, r.seconds, r.steps, r.factorizations, r.newton_iterations);
        std::fflush(stdout);
        if (csv != nullptr)
          std::fprintf(csv, "%s,%d,%d,%s,%s,%.3e,%.6e,%.6e,%ld,%ld,%ld\n", model_name<Model>(), n,
                       directions, backend_name(backend), solver_name(solvers[k]), rtol,
                       curves[k].back().error, r.seconds, r.steps, r.factorizations,
                       r.newton_iterations);
        if (!std::isfinite(curves[k].back().error)) {
          std::printf("CHECK FAILED: %s failed at rtol %.0e\n", solver_name(solvers[k]), rtol);
          ++failures;
        }
      }
    // Each esdirk curve against each peer: the peer's time at esdirk's error / esdirk's time.
    for (std::size_t a = 0; a < solvers.size(); ++a) {
      if (!is_esdirk(solvers[a])) continue;
      for (std::size_t b = 0; b < solvers.size(); ++b) {
        if (is_esdirk(solvers[b])) continue;
        std::vector<double> ratios;
        for (const Point& ours : curves[a]) {
          const double ratio = time_at_error(curves[b], ours.error) / ours.seconds;
          if (std::isfinite(ratio)) ratios.push_back(ratio);
        }
        if (ratios.empty()) {
          std::printf("      %s/%s at equal error: no overlap\n", solver_name(solvers[b]), solver_name(solvers[a]));
          continue;
        }
        std::sort(ratios.begin(), ratios.end());
        std::printf("      %s/%s at equal error: median %.2f (lowest %.2f, highest %.2f, %zu points)\n",
                    solver_name(solvers[b]), solver_name(solvers[a]), ratios[ratios.size() / 2],
                    ratios.front(), ratios.back(), ratios.size());
      }
    }
    for (std::size_t k = 0; k < solvers.size(); ++k)
      if (curves[k].size() >= 2 && !(curves[k].back().error < curves[k].front().error)) {
        std::printf("CHECK FAILED: the error of %s does not fall with rtol\n", solver_name(solvers[k]));
        ++failures;
      }
    if (backend == Backend::klu && quick) {
      // The band run of the same rtol must agree (same method, same steps).
      const Run band = esdirk_run<Model>(size, Backend::band, rtols.back(), directions, false);
      if (error_of(band, last_esdirk.front()) > 1e-9) {
        std::printf("CHECK FAILED: esdirk's band and KLU runs differ\n");
        ++failures;
      }
    }
  }
  return failures;
}

// --part sensitivity-accuracy: esdirk KLU against esdirk Krylov with 3 sensitivities at the same
// rtol, the states' error and the sensitivity columns' error apart (against an esdirk KLU run at
// `reference_rtol`), the CPU time, the steps, Newton and GMRES iterations. What it shows: the
// accuracy the Krylov back-end's defaults give the sensitivities against the direct solver's on
// the same steps (doc/linear-solvers-guide.md, "Forward sensitivities with Krylov").
template <class Model>
int sensitivity_accuracy(int size, const std::vector<double>& rtols, double reference_rtol, int repeat) {
  std::printf("\nSensitivity accuracy, %s, t = 0 .. %g, 3 parameter sensitivities\n",
              describe<Model>(size).c_str(), t_end);
  const Run reference = esdirk_run<Model>(size, Backend::klu, reference_rtol, parameters, false);
  if (!reference.ok) {
    std::printf("CHECK FAILED: the reference run failed\n");
    return 1;
  }
  const std::size_t n = reference.y.size();
  std::printf("%8s | %-13s %10s %10s %10s %6s %7s %7s\n", "rtol", "solver", "states err", "sens err",
              "time [s]", "steps", "Newton", "GMRES");
  int failures = 0;
  for (double rtol : rtols)
    for (Solver solver : {Solver::esdirk, Solver::esdirk_krylov}) {
      const Run r = best_of<Model>(solver, size, Backend::klu, rtol, parameters, repeat);
      double sensitivity_error = INFINITY;
      if (r.ok) {
        sensitivity_error = 0.0;
        for (std::size_t offset = 0; offset < reference.S.size(); offset += n)
          sensitivity_error = std::max(sensitivity_error, relative_error(r.S, reference.S, offset, n));
      }
      std::printf("%8.0e | %-13s %10.2e %10.2e %10.3e %6ld %7ld %7ld\n", rtol, solver_name(solver),
                  r.ok ? relative_error(r.y, reference.y, 0, n) : INFINITY, sensitivity_error, r.seconds,
                  r.steps, r.newton_iterations, r.linear_iterations);
      std::fflush(stdout);
      if (!r.ok) {
        std::printf("CHECK FAILED: %s failed at rtol %.0e\n", solver_name(solver), rtol);
        ++failures;
      }
    }
  return failures;
}

// `band_limit`: the largest size run on the band back-end (2-D: the band LU's O(n N^2) work).
template <class Model>
int cost_against_n(const std::vector<int>& sizes, const std::vector<Backend>& backends,
                   int band_limit, double rtol, int directions, int repeat, std::FILE* csv,
                   const std::vector<Solver>& all_solvers) {
  std::printf("\nCost against n (%s) at rtol = atol = %.0e, %s (best of %d; n >= 5e4 at most twice)\n",
              model_name<Model>(), rtol, directions ? "states and 3 parameter sensitivities" : "states",
              repeat);
  std::printf("%8s %-13s %-7s | %6s %6s %10s %12s %12s %10s\n", "n", "solver", "backend", "steps",
              "LUs", "time [s]", "us/step", "ns/step/n", "heap B/n");
  int failures = 0;
  for (Backend backend : backends)
    for (int size : sizes) {
      if (backend == Backend::band && size > band_limit) continue;
      const int n = Model(size).size();
      const int reps = n >= 50000 ? std::min(repeat, 2) : repeat;
      for (Solver solver : all_solvers) {
        if (!runs_on(solver, backend) || (directions > 0 && solver == Solver::esdirk_reuse)) continue;
        const Run r = best_of<Model>(solver, size, backend, rtol, directions, reps);
        const double per_step = r.seconds / static_cast<double>(std::max(1L, r.steps));
        std::printf("%8d %-13s %-7s | %6ld %6ld %10.4f %12.1f %12.1f %10.0f\n", n, solver_name(solver),
                    backend_name(backend), r.steps, r.factorizations, r.seconds, 1e6 * per_step,
                    1e9 * per_step / n, r.heap_bytes / n);
        std::fflush(stdout);
        if (csv != nullptr)
          std::fprintf(csv, "%s,%d,%d,%s,%s,%.0e,%ld,%ld,%.6e,%.6e\n", model_name<Model>(), n,
                       directions, backend_name(backend), solver_name(solver), rtol, r.steps,
                       r.factorizations, r.seconds, r.heap_bytes);
        if (!r.ok) {
          std::printf("CHECK FAILED: %s %s failed at n = %d\n", solver_name(solver), backend_name(backend), n);
          ++failures;
        }
      }
    }
  return failures;
}

// The 2-D model's analytic Jacobian and pattern against central differences at the initial
// state (a small grid: the checker costs 2n evaluations).
int check_2d_model(int side) {
  brusselator_mol::Model2d model(side);
  model.set_jacobian_pattern(model.pattern(), esdirk::LinearSolverKind::sparse);
  const auto y0 = model.initial_state();
  const auto p = model.nominal_parameters();
  const esdirk::JacobianPatternCheck check = esdirk::check_jacobian_pattern(model, 0.0, y0, {}, p);
  const esdirk::JacobianCheck parameters_check = esdirk::check_jacobian(model, 0.0, y0, {}, p);
  std::printf("\n2-D model (%d x %d): pattern and sparse Jacobian %s; parameter Jacobian %s\n", side,
              side, check.ok ? "agree with differences" : "DISAGREE", parameters_check.ok ? "agrees" : "DISAGREES");
  if (check.ok && parameters_check.ok) return 0;
  std::printf("CHECK FAILED: %s\n%s\n", check.summary().c_str(), parameters_check.summary().c_str());
  return 1;
}

// The fill of KLU's factors of M = I - h gamma J at the initial state (what the sensitivities'
// automatic stage-solve rule weighs).
template <class Model>
esdirk::FactorizationCost factor_cost(int size) {
  Model model(size);
  const esdirk::SparsityPattern pattern = model.pattern();
  model.set_jacobian_pattern(pattern, esdirk::LinearSolverKind::sparse);
  esdirk::StageLinearSystem lu(model.nx(), model.nz(), model.jacobian_structure());
  esdirk::JacobianMatrix J(model.size(), model.jacobian_structure());
  const auto y0 = model.initial_state();
  const auto p = model.nominal_parameters();
  if (model.sparse_jacobian(0.0, y0, {}, p, J.sparse()) != 0 || lu.factor(J, 0.01, 0) != 0) return {};
  return lu.factorization_cost();
}

// --run: one run, its counters and CPU time (for profiling one configuration, e.g. under
// callgrind). SIZE is N (1-D: n = 2N; 2-D: an N x N grid); --t-end T integrates to T instead
// of 10 (the cost per step of the largest grids in minutes rather than hours).
int run_single(const std::vector<std::string>& a) {
  Solver solver = Solver::esdirk;
  if (a[0] == "esdirk-reuse") solver = Solver::esdirk_reuse;
  else if (a[0] == "esdirk-krylov") solver = Solver::esdirk_krylov;
  else if (a[0] == "CVODES") solver = Solver::cvodes;
  else if (a[0] == "IDAS") solver = Solver::idas;
  else if (a[0] != "esdirk") return 2;
  const Backend backend = a[1] == "band" ? Backend::band : Backend::klu;
  const int size = std::atoi(a[3].c_str());
  const double rtol = std::atof(a[4].c_str());
  const int directions = std::atoi(a[5].c_str()) == 0 ? 0 : parameters;
  if (size < 1 || !(rtol > 0.0) || (a[2] != "1d" && a[2] != "2d")) return 2;
  const Run r = a[2] == "2d" ? run_once<brusselator_mol::Model2d>(solver, size, backend, rtol, directions)
                             : run_once<brusselator_mol::Model>(solver, size, backend, rtol, directions);
  std::printf("%s %s %s size %d rtol %.0e directions %d, t = 0 .. %g: %s, %ld steps, %ld LUs, %ld Newton iterations, "
              "%.4f s CPU, %.0f B heap\n", solver_name(solver), backend_name(backend), a[2].c_str(), size,
              rtol, directions, t_end, r.ok ? "ok" : "FAILED", r.steps, r.factorizations, r.newton_iterations,
              r.seconds, r.heap_bytes);
  if (is_esdirk(solver))
    std::printf("esdirk: %.2f Newton iterations per step; sensitivities: %ld stage LUs, %ld back-substitutions; "
                "%ld GMRES iterations\n",
                static_cast<double>(r.newton_iterations) / static_cast<double>(std::max(1L, r.steps)),
                r.stage_factorizations, r.back_substitutions, r.linear_iterations);
  if (is_esdirk(solver) && solver == Solver::esdirk_krylov && directions > 0) {
    const esdirk::Statistics& c = r.sensitivity_counters;
    std::printf("sensitivities' GMRES: %ld iterations (%.2f per stage solve of one direction), %ld preconditioner "
                "setups, %ld preconditioner solves, %ld products with M_i, %ld failed solves; %ld stage Jacobians\n",
                c.linear_iterations,
                static_cast<double>(c.linear_iterations) / static_cast<double>(std::max(1L, c.back_substitutions)),
                c.preconditioner_setups, c.preconditioner_solves, c.jacobian_vector_products,
                c.linear_solver_failures, c.jacobian_evaluations);
  }
  if (backend == Backend::klu) {
    const esdirk::FactorizationCost c = a[2] == "2d" ? factor_cost<brusselator_mol::Model2d>(size)
                                                     : factor_cost<brusselator_mol::Model>(size);
    std::printf("KLU on M at the initial state (h gamma = 0.01): %.0f entries of M, %.0f of the factors "
                "(%.2f x), %.3g flops per factorization (%.1f per entry of M)\n",
                c.matrix_entries, c.factor_entries, c.factor_entries / c.matrix_entries,
                c.factorization_flops, c.factorization_flops / c.matrix_entries);
  }
  double sum = 0.0;
  for (double v : r.y) sum += std::abs(v);
  std::printf("y[0] = %.17g, sum |y_i| = %.17g\n", r.y.empty() ? 0.0 : r.y[0], sum);
  return r.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  using brusselator_mol::Model;
  using brusselator_mol::Model2d;
  bool quick = false;
  int repeat = 3;
  std::vector<std::string> single;  // --run SOLVER BACKEND MODEL SIZE RTOL DIRECTIONS
  std::string csv_prefix, part;
  std::vector<int> cases = {0, parameters};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--run") && i + 6 < argc) {
      single.assign(argv + i + 1, argv + i + 7);
      i += 6;
    } else if (!std::strcmp(argv[i], "--t-end") && i + 1 < argc && std::atof(argv[i + 1]) > 0.0) {
      t_end = std::atof(argv[++i]);
    } else if (!std::strcmp(argv[i], "--sundials-colamd")) {
      sundials_colamd = true;
    } else if (!std::strcmp(argv[i], "--set") && i + 1 < argc) {
      esdirk::Options probe;
      if (!apply(probe, argv[i + 1])) {
        std::fprintf(stderr, "--set: unknown setting %s\n", argv[i + 1]);
        return 2;
      }
      settings.push_back(argv[++i]);
    } else if (!std::strcmp(argv[i], "--solvers") && i + 1 < argc) {
      selected.clear();
      const std::string list = std::string(argv[++i]) + ",";
      for (std::size_t from = 0, comma; (comma = list.find(',', from)) != std::string::npos; from = comma + 1) {
        const std::string name = list.substr(from, comma - from);
        const Solver all[] = {Solver::esdirk, Solver::esdirk_reuse, Solver::esdirk_krylov, Solver::cvodes, Solver::idas};
        const char* flags[] = {"esdirk", "esdirk-reuse", "esdirk-krylov", "CVODES", "IDAS"};
        bool known = false;
        for (int k = 0; k < 5; ++k)
          if (name == flags[k]) {
            selected.push_back(all[k]);
            known = true;
          }
        if (!known) {
          std::fprintf(stderr, "--solvers: unknown solver %s\n", name.c_str());
          return 2;
        }
      }
    } else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv_prefix = argv[++i];
    } else if (!std::strcmp(argv[i], "--part") && i + 1 < argc &&
               (!std::strcmp(argv[i + 1], "cost") || !std::strcmp(argv[i + 1], "work-precision") ||
                !std::strcmp(argv[i + 1], "2d") || !std::strcmp(argv[i + 1], "2d-40") ||
                !std::strcmp(argv[i + 1], "2d-100") ||
                !std::strcmp(argv[i + 1], "2d-large") || !std::strcmp(argv[i + 1], "sensitivity-accuracy"))) {
      part = argv[++i];
    } else if (!std::strcmp(argv[i], "--directions") && i + 1 < argc &&
               (!std::strcmp(argv[i + 1], "0") || !std::strcmp(argv[i + 1], "3"))) {
      cases = {std::atoi(argv[++i])};
    } else {
      std::fprintf(stderr, "usage: bench_sparse_cvodes [--quick] [--repeat N] [--csv PREFIX] "
                           "[--part cost|work-precision|2d|2d-40|2d-100|2d-large|sensitivity-accuracy] [--directions 0|3] [--set option=value ...]\n"
                           "                           [--sundials-colamd] [--solvers esdirk,esdirk-reuse,esdirk-krylov,CVODES,IDAS]\n"
                           "       bench_sparse_cvodes --run esdirk|esdirk-reuse|esdirk-krylov|CVODES|IDAS band|KLU "
                           "1d|2d SIZE RTOL 0|3 [--t-end T]\n");
      return 2;
    }
  }
  if (!single.empty()) return run_single(single);
  if (t_end != 10.0) {
    std::fprintf(stderr, "--t-end goes with --run only\n");
    return 2;
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
    std::fprintf(wp_csv, "model,n,directions,backend,solver,rtol,error,seconds,steps,factorizations,newton_iterations\n");
    std::fprintf(cost_csv, "model,n,directions,backend,solver,rtol,steps,factorizations,seconds,heap_bytes\n");
  }
  int failures = 0;
  const bool precision = part.empty() || part == "work-precision";
  const bool cost = part.empty() || part == "cost";
  const bool two_d = part.empty() || part == "2d";
  const bool two_d_40 = part == "2d-40";  // the 40 x 40 work-precision of "2d" alone
  const bool large = part == "2d-large";
  const bool two_d_100 = part == "2d-100";
  if (part == "sensitivity-accuracy") {
    const std::vector<double> rtols = {1e-4, 1e-5, 1e-6, 1e-7};
    failures += sensitivity_accuracy<Model>(quick ? 100 : 500, rtols, 1e-10, repeat);
    failures += sensitivity_accuracy<Model2d>(quick ? 8 : 20, rtols, 1e-10, repeat);
    std::printf("\n%s\n", failures ? "CHECK FAILED" : "all checks passed");
    return failures ? 1 : 0;
  }
  const std::vector<Backend> both = {Backend::band, Backend::klu};
  if (quick && two_d) failures += check_2d_model(6);
  for (int directions : cases) {
    if (quick) {
      if (precision) failures += work_precision<Model>(500, both, {1e-3, 1e-5}, 1e-7, directions, 1, true, wp_csv);
      if (cost) failures += cost_against_n<Model>({500}, {Backend::klu}, 500, 1e-5, directions, 1, cost_csv,
                                                     selected);
      if (two_d)
        failures += work_precision<Model2d>(12, {Backend::klu}, {1e-3, 1e-5}, 1e-7, directions, 1, true, wp_csv);
    } else {
      if (precision)
        failures += work_precision<Model>(5000, both, {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8}, 1e-10,
                                          directions, repeat, false, wp_csv);
      if (cost)
        failures += cost_against_n<Model>({500, 1500, 5000, 15000, 50000}, both, 50000, 1e-6,
                                          directions, repeat, cost_csv, selected);
      if (two_d) {
        failures += work_precision<Model2d>(40, {Backend::klu}, {1e-3, 1e-4, 1e-5, 1e-6, 1e-7}, 1e-9,
                                            directions, repeat, false, wp_csv);
        failures += cost_against_n<Model2d>({20, 40, 70, 100}, both, 40, 1e-6, directions, repeat,
                                            cost_csv, selected);
      }
      if (two_d_40)
        failures += work_precision<Model2d>(40, {Backend::klu}, {1e-3, 1e-4, 1e-5, 1e-6, 1e-7}, 1e-9,
                                            directions, repeat, false, wp_csv);
      if (two_d_100)
        failures += work_precision<Model2d>(100, {Backend::klu}, {1e-3, 1e-4, 1e-5, 1e-6, 1e-7}, 1e-9,
                                            directions, repeat, false, wp_csv);
      if (large && directions == 0)
        failures += cost_against_n<Model2d>({200, 300}, {Backend::klu}, 0, 1e-6, 0, 1, cost_csv,
                                            {Solver::esdirk_reuse, Solver::cvodes, Solver::idas});
    }
  }
  if (wp_csv != nullptr) std::fclose(wp_csv);
  if (cost_csv != nullptr) std::fclose(cost_csv);
  std::printf("\n%s\n", failures ? "CHECK FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
