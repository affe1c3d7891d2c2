// The gradient of one scalar of the Dow batch reactor with respect to its 9 parameters and 6
// initial states: esdirk's discrete adjoint (forward run with recording + reverse sweep) against
// IDAS's adjoint (IDASolveF with checkpoints, IDASolveB with the analytic Jacobian of the
// adjoint DAE, the parameter gradient as a backward quadrature). doc/benchmarks.md, "Adjoint".
//
//     Phi = u1(T) + int_0^T u3^2 / 2 dt,   T = 10 h
//
// Both solvers get the same Dow model (examples/dow, analytic Jacobian and parameter Jacobian)
// and the same tolerances (atol = 1e-6 rtol for x, the fixed algebraic atol for z; IDAS's
// backward problem and quadrature the same rtol and atol). Accuracy: the norm-wise relative
// error of the scaled gradient (dPhi/dx0_i, p_k dPhi/dp_k) against a reference gradient from a
// tight esdirk run (rtol 1e-12; an IDAS run at rtol 1e-11 agrees with it, printed).
//
//     bench_adjoint_sundials --quick              two tolerances, checks both gradients against
//                                                 the reference (CTest; a few seconds)
//     bench_adjoint_sundials --full [--csv FILE]  rtol 1e-3 .. 1e-10, best of repeated runs, the
//                                                 work-precision data, the time ratio at equal
//                                                 accuracy, and the memory of both
//     bench_adjoint_sundials --single esdirk|IDAS RTOL [F]   one gradient (for callgrind, see
//                                                 below; F: IDAS's backward rtol = F rtol)
//     bench_adjoint_sundials --variants           IDAS settings against each other
//
// Run with OPENBLAS_NUM_THREADS=1.

#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dow/dow_model.hpp"
#include "esdirk/linear_solver.hpp"
#include "esdirk/sensitivity/adjoint.hpp"

namespace {

constexpr int NX = 6, NZ = 4, N = NX + NZ, NP = 9, NG = NX + NP;
constexpr double T_END = 10.0;
using Clock = std::chrono::steady_clock;

struct Gradient {
  bool ok = false;
  std::string message;
  std::vector<double> g;  // dPhi/dx0 (6), dPhi/dp (9)
  long forward_steps = 0, backward_steps = 0, checkpoints = 0;
  long stored_doubles = 0;  // esdirk: peak_stored_doubles; IDAS: an estimate (see below)
};

// The scaled gradient (dPhi/dx0_i, p_k dPhi/dp_k) against the reference: norm-wise relative.
double gradient_error(const std::vector<double>& g, const std::vector<double>& ref) {
  double diff = 0.0, scale = 0.0;
  for (int j = 0; j < NG; ++j) {
    const double s = j < NX ? 1.0 : dow::nominal_parameters[static_cast<std::size_t>(j - NX)];
    diff = std::max(diff, std::abs(s * (g[static_cast<std::size_t>(j)] - ref[static_cast<std::size_t>(j)])));
    scale = std::max(scale, std::abs(s * ref[static_cast<std::size_t>(j)]));
  }
  return diff / scale;
}

// ---- esdirk -----------------------------------------------------------------------------------

Gradient esdirk_gradient(double rtol, long budget_records = 0) {
  dow::Model model;
  esdirk::Integrator solver(model, dow::benchmark_options(rtol));
  esdirk::AdjointOptions options;
  options.memory_budget = budget_records * (5 + 4 * (2 * NX + 2 * NZ + 1));
  esdirk::Adjoint adjoint(solver, options);
  Gradient out;
  const auto z0 = dow::consistent_algebraic_start();
  std::vector<double> x(NX), z(NZ);
  if (!esdirk::ok(solver.initialize(0.0, dow::initial_states, z0, dow::nominal_parameters))) {
    out.message = solver.message();
    return out;
  }
  solver.set_stop_time(T_END);
  if (!esdirk::ok(solver.integrate_to(T_END, x, z).status)) {
    out.message = solver.message();
    return out;
  }
  esdirk::AdjointObjective objective;
  objective.terminal = [](double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector,
                          esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef) {
    dx(0, 0) = 1.0;
    return 0;
  };
  objective.running = [](double, esdirk::ConstVector xs, esdirk::ConstVector, esdirk::ConstVector,
                         esdirk::MatrixRef dx, esdirk::MatrixRef, esdirk::MatrixRef) {
    dx(2, 0) = xs[2];
    return 0;
  };
  esdirk::DenseMatrix dx0(NX, 1), dp(NP, 1);
  if (!esdirk::ok(adjoint.gradient(objective, dx0.ref(), dp.ref()))) {
    out.message = adjoint.message();
    return out;
  }
  out.ok = true;
  for (int i = 0; i < NX; ++i) out.g.push_back(dx0(i, 0));
  for (int k = 0; k < NP; ++k) out.g.push_back(dp(k, 0));
  out.forward_steps = adjoint.steps();
  out.backward_steps = adjoint.report().adjoint_steps;
  out.checkpoints = adjoint.report().checkpoints;
  out.stored_doubles = adjoint.report().peak_stored_doubles;
  return out;
}

// ---- IDAS -------------------------------------------------------------------------------------
// The forward DAE F(t, y, y') = [x' - f; g] and its adjoint (IDAS guide, "Adjoint sensitivity
// analysis"; Cao, Li, Petzold, Serban 2003) for Phi = G(x(T)) + int L(x) dt with
// F_y' = diag(I, 0):
//     (F_y'^T lambda)' - F_y^T lambda = -L_y^T,   lambda_x(T) = G_x^T,  lambda_z(T) consistent
//     dPhi/dx0 = lambda_x(0),   dPhi/dp = int_0^T (lambda_x^T f_p - lambda_z^T g_p) dt.
// With J = [f_x f_z; g_x g_z] the adjoint residual is
//     rB = [lambda_x'; 0] + J^T [lambda_x; -lambda_z] + [L_x; L_z],
// and the quadrature q' = -Jp^T [lambda_x; -lambda_z] backwards from q(T) = 0 gives
// q(0) = dPhi/dp.

struct Context {
  SUNContext ctx = nullptr;
  Context() {
    if (SUNContext_Create(nullptr, &ctx) != 0) throw std::runtime_error("SUNContext_Create failed");
  }
  ~Context() { SUNContext_Free(&ctx); }
};

struct IdasData {
  dow::Model model;
  std::vector<double> p{dow::nominal_parameters.begin(), dow::nominal_parameters.end()};
  std::vector<double> f = std::vector<double>(NX), g = std::vector<double>(NZ);
  esdirk::DenseMatrix J{N, N}, Jp{N, NP};
  std::string message;
  esdirk::ConstVector xs(N_Vector v) const { return {N_VGetArrayPointer(v), NX}; }
  esdirk::ConstVector zs(N_Vector v) const { return {N_VGetArrayPointer(v) + NX, NZ}; }
};

void store_message(int, const char* module, const char* function, char* msg, void* data) {
  *static_cast<std::string*>(data) = std::string(module) + "/" + function + ": " + msg;
}

int residual(double t, N_Vector y, N_Vector yp, N_Vector r, void* data) {
  auto* d = static_cast<IdasData*>(data);
  if (d->model.evaluate(t, d->xs(y), d->zs(y), d->p, d->f, d->g) != 0) return 1;
  const double* dy = N_VGetArrayPointer(yp);
  double* out = N_VGetArrayPointer(r);
  for (int i = 0; i < NX; ++i) out[i] = dy[i] - d->f[static_cast<std::size_t>(i)];
  for (int k = 0; k < NZ; ++k) out[NX + k] = d->g[static_cast<std::size_t>(k)];
  return 0;
}

int jacobian(double t, double cj, N_Vector y, N_Vector, N_Vector, SUNMatrix A, void* data, N_Vector,
             N_Vector, N_Vector) {
  auto* d = static_cast<IdasData*>(data);
  if (d->model.jacobian(t, d->xs(y), d->zs(y), d->p, d->J.ref()) != 0) return 1;
  for (int j = 0; j < N; ++j) {
    double* col = SUNDenseMatrix_Column(A, j);
    for (int i = 0; i < N; ++i) col[i] = i < NX ? -d->J(i, j) : d->J(i, j);
    if (j < NX) col[j] += cj;
  }
  return 0;
}

int adjoint_residual(double t, N_Vector y, N_Vector, N_Vector yB, N_Vector ypB, N_Vector rB, void* data) {
  auto* d = static_cast<IdasData*>(data);
  if (d->model.jacobian(t, d->xs(y), d->zs(y), d->p, d->J.ref()) != 0) return 1;
  const double* l = N_VGetArrayPointer(yB);
  const double* dl = N_VGetArrayPointer(ypB);
  double* r = N_VGetArrayPointer(rB);
  for (int i = 0; i < N; ++i) {
    double s = i < NX ? dl[i] : 0.0;
    for (int k = 0; k < N; ++k) s += d->J(k, i) * (k < NX ? l[k] : -l[k]);
    r[i] = s;
  }
  r[2] += N_VGetArrayPointer(y)[2];  // L_x of u3^2 / 2
  return 0;
}

int adjoint_jacobian(double t, double cj, N_Vector y, N_Vector, N_Vector, N_Vector, N_Vector, SUNMatrix A,
                     void* data, N_Vector, N_Vector, N_Vector) {
  auto* d = static_cast<IdasData*>(data);
  if (d->model.jacobian(t, d->xs(y), d->zs(y), d->p, d->J.ref()) != 0) return 1;
  for (int j = 0; j < N; ++j) {
    double* col = SUNDenseMatrix_Column(A, j);
    for (int i = 0; i < N; ++i) col[i] = j < NX ? d->J(j, i) : -d->J(j, i);
    if (j < NX) col[j] += cj;
  }
  return 0;
}

int adjoint_quadrature(double t, N_Vector y, N_Vector, N_Vector yB, N_Vector, N_Vector q, void* data) {
  auto* d = static_cast<IdasData*>(data);
  if (d->model.parameter_jacobian(t, d->xs(y), d->zs(y), d->p, d->Jp.ref()) != 0) return 1;
  const double* l = N_VGetArrayPointer(yB);
  double* out = N_VGetArrayPointer(q);
  for (int k = 0; k < NP; ++k) {
    double s = 0.0;
    for (int i = 0; i < N; ++i) s += d->Jp(i, k) * (i < NX ? l[i] : -l[i]);
    out[k] = -s;
  }
  return 0;
}

// steps_per_checkpoint: IDAAdjInit's Nd (IDAS stores a checkpoint every Nd steps and the
// Hermite data, y and y', of the Nd steps of the interval being swept).
// Settings a careful IDAS user might try (--variants compares them): the backward problem's
// rtol as a fraction of the forward one, the interpolation of the forward solution, and the
// error test on the gradient quadrature (atol: the reference's scale times rtol, per parameter).
struct IdasVariant {
  double backward_rtol_factor = 1.0;
  int interpolation = IDA_HERMITE;
  bool quadrature_error_control = false;
  std::vector<double> quadrature_scale;  // |dPhi/dp_k| of a reference, for the quadrature atol
};

Gradient idas_gradient(double rtol, long steps_per_checkpoint = 100, const IdasVariant& variant = {}) {
  Context context;
  IdasData data;
  Gradient out;
  N_Vector y = N_VNew_Serial(N, context.ctx), yp = N_VNew_Serial(N, context.ctx);
  N_Vector id = N_VNew_Serial(N, context.ctx), atol = N_VNew_Serial(N, context.ctx);
  N_Vector yB = N_VNew_Serial(N, context.ctx), ypB = N_VNew_Serial(N, context.ctx);
  N_Vector qB = N_VNew_Serial(NP, context.ctx);
  SUNMatrix A = SUNDenseMatrix(N, N, context.ctx), AB = SUNDenseMatrix(N, N, context.ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, context.ctx), LSB = SUNLinSol_Dense(yB, AB, context.ctx);
  void* mem = IDACreate(context.ctx);
  auto flag_ok = [&](int flag, const char* what) {
    if (flag >= 0) return true;
    if (data.message.empty()) data.message = std::string(what) + " failed (flag " + std::to_string(flag) + ")";
    return false;
  };
  const esdirk::Options options = dow::benchmark_options(rtol);
  double* yv = N_VGetArrayPointer(y);
  double* dv = N_VGetArrayPointer(yp);
  const auto z0 = dow::consistent_algebraic_start();
  for (int i = 0; i < NX; ++i) yv[i] = dow::initial_states[static_cast<std::size_t>(i)];
  for (int k = 0; k < NZ; ++k) yv[NX + k] = z0[static_cast<std::size_t>(k)];
  data.model.evaluate(0.0, data.xs(y), data.zs(y), data.p, data.f, data.g);
  for (int i = 0; i < N; ++i) dv[i] = i < NX ? data.f[static_cast<std::size_t>(i)] : 0.0;
  for (int i = 0; i < N; ++i) {
    NV_Ith_S(id, i) = i < NX ? 1.0 : 0.0;
    NV_Ith_S(atol, i) = i < NX ? options.atol : options.algebraic_atol[static_cast<std::size_t>(i - NX)];
  }
  int ncheck = 0, which = 0;
  double t = 0.0;
  bool good = mem != nullptr;
  if (good) {
    IDASetErrHandlerFn(mem, store_message, &data.message);
    good = flag_ok(IDAInit(mem, residual, 0.0, y, yp), "IDAInit");
  }
  if (good) {
    IDASVtolerances(mem, rtol, atol);
    IDASetUserData(mem, &data);
    good = flag_ok(IDASetLinearSolver(mem, LS, A), "IDASetLinearSolver");
    IDASetJacFn(mem, jacobian);
    IDASetMaxNumSteps(mem, 1000000);
    IDASetId(mem, id);
    IDASetSuppressAlg(mem, SUNTRUE);
    IDASetStopTime(mem, T_END);
  }
  if (good) good = flag_ok(IDACalcIC(mem, IDA_YA_YDP_INIT, T_END), "IDACalcIC");
  if (good) good = flag_ok(IDAGetConsistentIC(mem, y, yp), "IDAGetConsistentIC");
  if (good) good = flag_ok(IDAAdjInit(mem, steps_per_checkpoint, variant.interpolation), "IDAAdjInit");
  if (good) good = flag_ok(IDASolveF(mem, T_END, &t, y, yp, IDA_NORMAL, &ncheck), "IDASolveF");
  long forward_steps = 0;
  if (good) IDAGetNumSteps(mem, &forward_steps);
  // lambda_x(T) = e_1 (G = u1); lambda_z(T) from the algebraic adjoint rows
  // f_z^T lambda_x - g_z^T lambda_z = 0 (L_z = 0); lambda_x'(T) from the differential rows.
  if (good && data.model.jacobian(T_END, data.xs(y), data.zs(y), data.p, data.J.ref()) != 0) good = false;
  if (good) {
    double* l = N_VGetArrayPointer(yB);
    double* dl = N_VGetArrayPointer(ypB);
    for (int i = 0; i < N; ++i) l[i] = dl[i] = 0.0;
    l[0] = 1.0;
    esdirk::DenseMatrix gzT(NZ, NZ), rhs(NZ, 1);
    for (int a = 0; a < NZ; ++a) {
      for (int b = 0; b < NZ; ++b) gzT(a, b) = data.J(NX + b, NX + a);
      for (int i = 0; i < NX; ++i) rhs(a, 0) += data.J(i, NX + a) * l[i];
    }
    std::vector<int> pivots(NZ);
    if (esdirk::lu_factor(gzT.ref(), pivots.data()) != 0) good = flag_ok(-1, "g_z^T at T");
    if (good) {
      esdirk::lu_solve(gzT.cref(), pivots.data(), rhs.ref(), false);
      for (int a = 0; a < NZ; ++a) l[NX + a] = rhs(a, 0);
      for (int i = 0; i < NX; ++i) {
        double s = 0.0;
        for (int k = 0; k < N; ++k) s += data.J(k, i) * (k < NX ? l[k] : -l[k]);
        dl[i] = -s - (i == 2 ? yv[2] : 0.0);
      }
    }
  }
  if (good) good = flag_ok(IDACreateB(mem, &which), "IDACreateB");
  if (good) good = flag_ok(IDAInitB(mem, which, adjoint_residual, T_END, yB, ypB), "IDAInitB");
  if (good) {
    IDASVtolerancesB(mem, which, variant.backward_rtol_factor * rtol, atol);
    IDASetUserDataB(mem, which, &data);
    good = flag_ok(IDASetLinearSolverB(mem, which, LSB, AB), "IDASetLinearSolverB");
    IDASetJacFnB(mem, which, adjoint_jacobian);
    IDASetMaxNumStepsB(mem, which, 1000000);
    IDASetIdB(mem, which, id);
    IDASetSuppressAlgB(mem, which, SUNTRUE);
    N_VConst(0.0, qB);
    good = good && flag_ok(IDAQuadInitB(mem, which, adjoint_quadrature, qB), "IDAQuadInitB");
    // The quadrature's tolerances: rtol and the parameter gradient's own scale (|dPhi/dp_k|
    // spans 1e-11 .. 1e16 for Dow: atol = rtol times 1e-6 of the scaled value's size is not
    // known in advance, so the error test on the quadrature stays off, as IDAS's default).
    if (variant.quadrature_error_control) {
      N_Vector atolQ = N_VNew_Serial(NP, context.ctx);
      for (int k = 0; k < NP; ++k)
        NV_Ith_S(atolQ, k) = rtol * std::max(1e-300, variant.quadrature_scale[static_cast<std::size_t>(k)]);
      IDAQuadSVtolerancesB(mem, which, rtol, atolQ);
      N_VDestroy(atolQ);
      IDASetQuadErrConB(mem, which, SUNTRUE);
    } else {
      IDAQuadSStolerancesB(mem, which, rtol, 0.0);
      IDASetQuadErrConB(mem, which, SUNFALSE);
    }
  }
  if (good) good = flag_ok(IDASolveB(mem, 0.0, IDA_NORMAL), "IDASolveB");
  if (good) good = flag_ok(IDAGetB(mem, which, &t, yB, ypB), "IDAGetB");
  if (good) good = flag_ok(IDAGetQuadB(mem, which, &t, qB), "IDAGetQuadB");
  if (good) {
    out.ok = true;
    for (int i = 0; i < NX; ++i) out.g.push_back(NV_Ith_S(yB, i));
    for (int k = 0; k < NP; ++k) out.g.push_back(NV_Ith_S(qB, k));
    long backward_steps = 0;
    IDAGetNumSteps(IDAGetAdjIDABmem(mem, which), &backward_steps);
    out.forward_steps = forward_steps;
    out.backward_steps = backward_steps;
    out.checkpoints = ncheck;
    // What IDAS keeps (an estimate from its documented storage, not measured): each checkpoint
    // holds the BDF history (up to max order 5 + 1 vectors of n) and the interval being swept
    // the Hermite data (y and y' at each of its Nd steps).
    out.stored_doubles = static_cast<long>(ncheck) * 6L * N + 2L * (steps_per_checkpoint + 1) * N;
  }
  out.message = data.message;
  IDAFree(&mem);
  SUNLinSolFree(LS);
  SUNLinSolFree(LSB);
  SUNMatDestroy(A);
  SUNMatDestroy(AB);
  for (N_Vector v : {y, yp, id, atol, yB, ypB, qB}) N_VDestroy(v);
  return out;
}

// The best wall time of `run` over repeats that take at least min_time in all (3 at least).
template <class Run>
double best_time(Run run, double min_time, Gradient& result) {
  double best = 1e30, total = 0.0;
  for (int r = 0; r < 3 || total < min_time; ++r) {
    const auto start = Clock::now();
    result = run();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::min(best, seconds);
    total += seconds;
    if (!result.ok) break;
  }
  return best;
}

double states_only_time(double rtol, double min_time) {
  dow::Model model;
  Gradient unused;
  unused.ok = true;
  return best_time(
      [&] {
        esdirk::Integrator solver(model, dow::benchmark_options(rtol));
        const auto z0 = dow::consistent_algebraic_start();
        std::vector<double> x(NX), z(NZ);
        Gradient g;
        g.ok = esdirk::ok(solver.initialize(0.0, dow::initial_states, z0, dow::nominal_parameters));
        solver.set_stop_time(T_END);
        g.ok = g.ok && esdirk::ok(solver.integrate_to(T_END, x, z).status);
        return g;
      },
      min_time, unused);
}

// log-log interpolation of time at a given error along a work-precision line (sorted by error).
double time_at(const std::vector<std::pair<double, double>>& line, double error) {
  for (std::size_t i = 1; i < line.size(); ++i) {
    const auto& [e0, t0] = line[i - 1];
    const auto& [e1, t1] = line[i];
    if ((error - e0) * (error - e1) <= 0.0 && e0 != e1) {
      const double s = (std::log(error) - std::log(e0)) / (std::log(e1) - std::log(e0));
      return std::exp(std::log(t0) + s * (std::log(t1) - std::log(t0)));
    }
  }
  return NAN;
}

int quick() {
  const Gradient ref = esdirk_gradient(1e-10);
  if (!ref.ok) {
    std::printf("reference failed: %s\n", ref.message.c_str());
    return 1;
  }
  int failures = 0, passed = 0;
  for (double rtol : {1e-5, 1e-7}) {
    const Gradient e = esdirk_gradient(rtol), i = idas_gradient(rtol);
    const double ee = e.ok ? gradient_error(e.g, ref.g) : INFINITY;
    const double ei = i.ok ? gradient_error(i.g, ref.g) : INFINITY;
    std::printf("rtol %.0e: esdirk error %.2e (%ld steps), IDAS error %.2e (%ld + %ld steps, %ld checkpoints)%s%s\n",
                rtol, ee, e.forward_steps, ei, i.forward_steps, i.backward_steps, i.checkpoints,
                i.ok ? "" : " IDAS: ", i.ok ? "" : i.message.c_str());
    // Both converge: the gradient error within 1000 rtol (the state error of each solver is
    // below ~100 rtol on Dow).
    const bool good = ee <= 1e3 * rtol && ei <= 1e3 * rtol;
    good ? ++passed : ++failures;
  }
  // The checkpointed esdirk gradient is the keep-everything one, bit for bit.
  const Gradient a = esdirk_gradient(1e-6), b = esdirk_gradient(1e-6, 16);
  const bool same = a.ok && b.ok && a.g == b.g && b.stored_doubles < a.stored_doubles;
  same ? ++passed : ++failures;
  std::printf("%d passed, %d failed\n", passed, failures);
  return failures == 0 ? 0 : 1;
}

int full(const std::string& csv_path, double min_time) {
  const Gradient ref = esdirk_gradient(1e-12);
  const Gradient idas_tight = idas_gradient(1e-11);
  if (!ref.ok || !idas_tight.ok) {
    std::printf("reference failed: %s %s\n", ref.message.c_str(), idas_tight.message.c_str());
    return 1;
  }
  std::printf("Dow, Phi = u1(10 h) + int u3^2/2 dt, gradient w.r.t. 6 x0 + 9 p\n");
  std::printf("reference: esdirk rtol 1e-12 (%ld steps); IDAS rtol 1e-11 differs by %.2e\n", ref.forward_steps,
              gradient_error(idas_tight.g, ref.g));
  // IDAS with the forward tolerances for its backward problem, and with rtolB = rtol/100, its best
  // setting here (--variants: rtol/10 and rtol/1000 are slower at every accuracy).
  struct Solver {
    const char* name;
    double backward_factor;  // < 0: esdirk
    std::vector<std::pair<double, double>> line;
  };
  std::vector<Solver> solvers = {{"esdirk", -1.0, {}}, {"IDAS", 1.0, {}}, {"IDAS rtolB=rtol/100", 0.01, {}}};
  std::printf("%-20s %8s %10s %10s %7s %7s %6s %9s\n", "solver", "rtol", "error", "time[ms]", "fwd", "bwd",
              "ckpts", "/states");
  std::ofstream csv;
  if (!csv_path.empty()) {
    csv.open(csv_path);
    csv << "solver,rtol,error,seconds,forward_steps,backward_steps,checkpoints,stored_doubles\n";
  }
  for (double rtol : {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}) {
    const double ts = states_only_time(rtol, min_time);
    for (Solver& solver : solvers) {
      IdasVariant variant;
      variant.backward_rtol_factor = solver.backward_factor;
      Gradient g;
      const double t = best_time(
          [&] { return solver.backward_factor < 0.0 ? esdirk_gradient(rtol) : idas_gradient(rtol, 100, variant); },
          min_time, g);
      const double error = g.ok ? gradient_error(g.g, ref.g) : NAN;
      std::printf("%-20s %8.0e %10.2e %10.3f %7ld %7ld %6ld %9.2f %s\n", solver.name, rtol, error, 1e3 * t,
                  g.forward_steps, g.backward_steps, g.checkpoints, t / ts, g.ok ? "" : g.message.c_str());
      if (g.ok) solver.line.emplace_back(error, t);
      if (csv)
        csv << solver.name << "," << rtol << "," << error << "," << t << "," << g.forward_steps << ","
            << g.backward_steps << "," << g.checkpoints << "," << g.stored_doubles << "\n";
    }
  }
  auto by_error = [](auto a, auto b) { return a.first > b.first; };
  for (Solver& solver : solvers) std::sort(solver.line.begin(), solver.line.end(), by_error);
  std::printf("\nIDAS time / esdirk time at equal gradient error (log-log interpolation):\n");
  for (double error : {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8}) {
    const double a = time_at(solvers[0].line, error);
    std::printf("  error %.0e: esdirk %.3f ms", error, 1e3 * a);
    for (std::size_t k = 1; k < solvers.size(); ++k) {
      const double b = time_at(solvers[k].line, error);
      if (std::isfinite(a) && std::isfinite(b))
        std::printf(", %s %.3f ms (ratio %.2f)", solvers[k].name, 1e3 * b, b / a);
      else
        std::printf(", %s outside its range", solvers[k].name);
    }
    std::printf("\n");
  }
  std::printf("\nmemory at rtol 1e-6 (doubles held for the sweep):\n");
  for (long records : {0L, 64L, 16L}) {
    const Gradient g = esdirk_gradient(1e-6, records);
    std::printf("  esdirk %-18s %8ld doubles, %4ld checkpoints, gradient %s\n",
                records ? ("budget " + std::to_string(records) + " records").c_str() : "every step kept",
                g.stored_doubles, g.checkpoints, g.g == esdirk_gradient(1e-6).g ? "bit-identical" : "DIFFERENT");
  }
  for (long nd : {400L, 100L, 20L}) {
    const Gradient g = idas_gradient(1e-6, nd);
    std::printf("  IDAS   Nd = %-11ld %8ld doubles (estimate), %4ld checkpoints\n", nd, g.stored_doubles, g.checkpoints);
  }
  return 0;
}

}  // namespace

// IDAS settings against each other (error and best time per rtol), to drive IDAS at its best.
int variants(double min_time) {
  const Gradient ref = esdirk_gradient(1e-12);
  IdasVariant base;
  std::vector<double> scale(ref.g.begin() + NX, ref.g.end());
  for (double& v : scale) v = std::abs(v);
  struct Named {
    const char* name;
    IdasVariant v;
  };
  std::vector<Named> list = {{"Hermite, rtolB = rtol", base}};
  IdasVariant tight = base;
  tight.backward_rtol_factor = 0.1;
  list.push_back({"Hermite, rtolB = rtol/10", tight});
  IdasVariant tighter = base;
  tighter.backward_rtol_factor = 0.01;
  list.push_back({"Hermite, rtolB = rtol/100", tighter});
  IdasVariant tightest = base;
  tightest.backward_rtol_factor = 0.001;
  list.push_back({"Hermite, rtolB = rtol/1000", tightest});
  IdasVariant poly = base;
  poly.interpolation = IDA_POLYNOMIAL;
  list.push_back({"polynomial, rtolB = rtol", poly});
  IdasVariant quad = base;
  quad.quadrature_error_control = true;
  quad.quadrature_scale = scale;
  list.push_back({"Hermite, quadrature error test", quad});
  std::printf("%-32s %8s %10s %10s %7s\n", "IDAS variant", "rtol", "error", "time[ms]", "bwd");
  for (const Named& n : list)
    for (double rtol : {1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9}) {
      Gradient g;
      const double t = best_time([&] { return idas_gradient(rtol, 100, n.v); }, min_time, g);
      std::printf("%-32s %8.0e %10.2e %10.3f %7ld %s\n", n.name, rtol, g.ok ? gradient_error(g.g, ref.g) : NAN,
                  1e3 * t, g.backward_steps, g.ok ? "" : g.message.c_str());
    }
  return 0;
}

// One gradient, for instruction counts that the load of a shared machine does not disturb:
//     valgrind --tool=callgrind --toggle-collect=single_gradient bench_adjoint_sundials --single esdirk 1e-6
// (collects this function only; the gradient's error is printed by --full).
extern "C" __attribute__((noinline)) int single_gradient(const char* solver, double rtol,
                                                         double backward_rtol_factor) {
  IdasVariant variant;
  variant.backward_rtol_factor = backward_rtol_factor;
  const Gradient g =
      std::strcmp(solver, "IDAS") == 0 ? idas_gradient(rtol, 100, variant) : esdirk_gradient(rtol);
  return g.ok ? 0 : 1;
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "--quick", csv;
  double min_time = 0.2;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--csv") == 0) csv = argv[i + 1];
    if (std::strcmp(argv[i], "--min-time") == 0) min_time = std::atof(argv[i + 1]);
  }
  try {
    if (mode == "--quick") return quick();
    if (mode == "--full") return full(csv, min_time);
    if (mode == "--variants") return variants(min_time);
    if (mode == "--single" && argc > 3)
      return single_gradient(argv[2], std::atof(argv[3]), argc > 4 ? std::atof(argv[4]) : 1.0);
  } catch (const std::exception& e) {
    std::printf("failed: %s\n", e.what());
    return 1;
  }
  std::printf("usage: %s --quick | --full [--csv FILE] [--min-time SECONDS]\n", argv[0]);
  return 2;
}
