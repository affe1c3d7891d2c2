// The solvers of the comparison (see runners.hpp). SUNDIALS objects are driven the way its
// documentation recommends for stiff dense problems: dense direct linear solver, analytic
// Jacobian, vector absolute tolerances, IDACalcIC for consistent initial values, algebraic
// variables identified (IDASetId) and excluded from the error test (IDASetSuppressAlg), stop time
// at the output time (no interpolation), and IDAS's estimated sensitivity tolerances.
#include "runners.hpp"

#include <arkode/arkode_arkstep.h>
#include <cvodes/cvodes.h>
#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <stdexcept>

#include "esdirk/sensitivity/forward_sensitivity.hpp"

namespace bench {

namespace {

int nx_of(const Task& t) { return t.problem->nx(); }

// Solves the small dense system A x = b in place (partial pivoting); false if singular.
bool solve_dense(std::vector<double>& A, std::vector<double>& b, int n) {
  for (int k = 0; k < n; ++k) {
    int piv = k;
    for (int i = k + 1; i < n; ++i)
      if (std::abs(A[i + k * n]) > std::abs(A[piv + k * n])) piv = i;
    if (A[piv + k * n] == 0.0) return false;
    if (piv != k) {
      for (int j = 0; j < n; ++j) std::swap(A[k + j * n], A[piv + j * n]);
      std::swap(b[k], b[piv]);
    }
    for (int i = k + 1; i < n; ++i) {
      const double m = A[i + k * n] / A[k + k * n];
      for (int j = k + 1; j < n; ++j) A[i + j * n] -= m * A[k + j * n];
      b[i] -= m * b[k];
    }
  }
  for (int k = n - 1; k >= 0; --k) {
    for (int j = k + 1; j < n; ++j) b[k] -= A[k + j * n] * b[j];
    b[k] /= A[k + k * n];
  }
  return true;
}

// The seed matrix of esdirk's ForwardSensitivity: (nx + np) x ns, scaled parameter columns.
esdirk::DenseMatrix seed_of(const Task& task) {
  const int nx = nx_of(task), np = task.problem->np();
  esdirk::DenseMatrix seed(nx + np, static_cast<int>(task.directions.size()));
  for (int j = 0; j < seed.cols(); ++j) {
    const auto& d = task.directions[static_cast<std::size_t>(j)];
    if (d.parameter)
      seed(nx + d.index, j) = task.p[static_cast<std::size_t>(d.index)];
    else
      seed(d.index, j) = 1.0;
  }
  return seed;
}

}  // namespace

Counters counters_of_statistics(const esdirk::Statistics& s) {
  Counters c;
  c.steps = s.accepted_steps;
  c.fevals = s.function_evaluations + s.fd_function_evaluations;
  c.jacobians = s.jacobian_evaluations;
  c.lus = s.lu_factorizations;
  c.sens_evals = s.parameter_jacobian_evaluations;
  return c;
}

namespace {

bool all_finite(const double* v, int n) {
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

struct Context {
  SUNContext ctx = nullptr;
  Context() {
    if (SUNContext_Create(nullptr, &ctx) != 0) throw std::runtime_error("SUNContext_Create failed");
  }
  ~Context() { SUNContext_Free(&ctx); }
};

void store_message(int, const char* module, const char* function, char* msg, void* data) {
  auto* message = static_cast<std::string*>(data);
  *message = std::string(module) + "/" + function + ": " + msg;
}

// The ODE x' = f(t, x) of a Problem with nz = 0, for CVODES and ARKODE.
struct OdeData {
  esdirk::Problem* problem;
  std::vector<double> p;
  esdirk::DenseMatrix J;
  std::string message;
};

int ode_rhs(double t, N_Vector y, N_Vector ydot, void* data) {
  auto* d = static_cast<OdeData*>(data);
  const int n = d->problem->nx();
  const int code = d->problem->evaluate(t, {N_VGetArrayPointer(y), static_cast<std::size_t>(n)}, {},
                                        d->p, {N_VGetArrayPointer(ydot), static_cast<std::size_t>(n)}, {});
  if (code != 0) return code > 0 ? 1 : -1;
  return all_finite(N_VGetArrayPointer(ydot), n) ? 0 : 1;
}

int ode_jacobian(double t, N_Vector y, N_Vector, SUNMatrix Jac, void* data, N_Vector, N_Vector, N_Vector) {
  auto* d = static_cast<OdeData*>(data);
  const int n = d->problem->nx();
  const int code = d->problem->jacobian(t, {N_VGetArrayPointer(y), static_cast<std::size_t>(n)}, {}, d->p, d->J.ref());
  if (code != 0) return code > 0 ? 1 : -1;
  for (int j = 0; j < n; ++j) {
    double* col = SUNDenseMatrix_Column(Jac, j);
    for (int i = 0; i < n; ++i) col[i] = d->J(i, j);
  }
  return 0;
}

void require_ode(const Task& task, const char* who) {
  if (task.problem->nz() != 0 || !task.directions.empty())
    throw std::invalid_argument(std::string(who) + ": ODE states only");
}

}  // namespace

// --- esdirk --------------------------------------------------------------------------------------

esdirk::Options esdirk_options(const Task& task) {
  const int nx = nx_of(task);
  esdirk::Options o;
  o.rtol = task.rtol;
  o.atol_vector.assign(task.atol.begin(), task.atol.begin() + nx);
  o.algebraic_atol.assign(task.atol.begin() + nx, task.atol.end());
  return o;
}

Outcome run_esdirk(const Task& task, const esdirk::Options& options,
                   const esdirk::SensitivityOptions& sensitivity) {
  esdirk::Problem& problem = *task.problem;
  const int nx = problem.nx(), nz = problem.nz(), ns = static_cast<int>(task.directions.size());
  Outcome out;
  esdirk::Integrator solver(problem, options);
  std::vector<double> x(static_cast<std::size_t>(nx)), z(static_cast<std::size_t>(nz));
  esdirk::Status status = solver.initialize(task.t0, task.x0, task.z_guess, task.p);
  if (ns == 0) {
    if (esdirk::ok(status)) {
      solver.set_stop_time(task.t_end);
      status = solver.integrate_to(task.t_end, x, z);
    }
    out.message = solver.message();
  } else {
    esdirk::ForwardSensitivity sens(solver, sensitivity);
    const esdirk::DenseMatrix seed = seed_of(task);
    esdirk::DenseMatrix Sx(nx, ns), Sz(nz, ns);
    if (esdirk::ok(status)) status = sens.initialize(seed.cref());
    if (esdirk::ok(status)) {
      solver.set_stop_time(task.t_end);
      status = sens.integrate_to(task.t_end, x, z, Sx.ref(), Sz.ref());
    }
    out.message = sens.message().empty() ? solver.message() : sens.message();
    out.S.resize(static_cast<std::size_t>((nx + nz) * ns));
    for (int j = 0; j < ns; ++j) {
      for (int i = 0; i < nx; ++i) out.S[static_cast<std::size_t>(i + j * (nx + nz))] = Sx(i, j);
      for (int i = 0; i < nz; ++i) out.S[static_cast<std::size_t>(nx + i + j * (nx + nz))] = Sz(i, j);
    }
  }
  out.ok = esdirk::ok(status);
  out.y = x;
  out.y.insert(out.y.end(), z.begin(), z.end());
  out.counters = counters_of_statistics(solver.statistics());
  return out;
}

// --- IDAS ----------------------------------------------------------------------------------------

struct IdasSolver::Impl {
  Context context;
  esdirk::Problem& problem;
  int nx, nz, n, np, ns;
  std::vector<double> p_nominal, p_actual;
  std::vector<double> multipliers;  // IDAS's "parameters": p = multiplier * p_nominal (+ dummies)
  std::vector<double> pbar;
  std::vector<int> plist;
  esdirk::DenseMatrix P;            // np x ns: dp/d(direction)
  double rtol;
  std::vector<double> atol;
  std::vector<Direction> directions;
  IdasSettings settings;
  std::vector<double> f, g;
  esdirk::DenseMatrix J, Jp, JpP;
  std::string message;
  void* mem = nullptr;
  N_Vector y = nullptr, yp = nullptr, id = nullptr, atolv = nullptr;
  N_Vector* yS = nullptr;
  N_Vector* ypS = nullptr;
  SUNMatrix A = nullptr;
  SUNLinearSolver LS = nullptr;
  bool initialized = false;
  long recoverable = 0;  // residual calls that returned a recoverable failure
  long extra_fevals = 0;  // residual evaluations of the user's consistent_z()
  bool z_converged = false;  // consistent_z() made z consistent: no IDACalcIC needed

  Impl(esdirk::Problem& pr, std::vector<double> p, double rt, std::vector<double> at,
       std::vector<Direction> dirs, IdasSettings s)
      : problem(pr), nx(pr.nx()), nz(pr.nz()), n(pr.size()), np(pr.np()),
        ns(static_cast<int>(dirs.size())), p_nominal(std::move(p)), p_actual(p_nominal), rtol(rt),
        atol(std::move(at)), directions(std::move(dirs)), settings(s),
        f(static_cast<std::size_t>(nx)), g(static_cast<std::size_t>(nz)), J(n, n), Jp(n, np), JpP(n, ns) {
    if (!problem.has_jacobian()) settings.analytic_jacobian = false;
    if (!problem.has_parameter_jacobian() || !problem.has_jacobian()) settings.analytic_sensitivities = false;
    multipliers.assign(static_cast<std::size_t>(np), 1.0);
    P.resize(np, ns);
    for (int j = 0; j < ns; ++j) {
      const Direction& d = directions[static_cast<std::size_t>(j)];
      if (d.parameter) {
        P(d.index, j) = p_nominal[static_cast<std::size_t>(d.index)];
        plist.push_back(d.index);
      } else {
        plist.push_back(static_cast<int>(multipliers.size()));  // a dummy parameter
        multipliers.push_back(1.0);
      }
    }
    pbar.assign(multipliers.size(), 1.0);
    y = N_VNew_Serial(n, context.ctx);
    yp = N_VNew_Serial(n, context.ctx);
    id = N_VNew_Serial(n, context.ctx);
    atolv = N_VNew_Serial(n, context.ctx);
    for (int i = 0; i < n; ++i) {
      NV_Ith_S(id, i) = i < nx ? 1.0 : 0.0;
      NV_Ith_S(atolv, i) = atol[static_cast<std::size_t>(i)];
    }
    if (ns > 0) {
      yS = N_VCloneVectorArray(ns, y);
      ypS = N_VCloneVectorArray(ns, y);
    }
    A = SUNDenseMatrix(n, n, context.ctx);
    LS = SUNLinSol_Dense(y, A, context.ctx);
  }

  ~Impl() {
    if (mem) IDAFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (yS) N_VDestroyVectorArray(yS, ns);
    if (ypS) N_VDestroyVectorArray(ypS, ns);
    for (N_Vector v : {y, yp, id, atolv})
      if (v) N_VDestroy(v);
  }

  void update_parameters() {
    for (int k = 0; k < np; ++k)
      p_actual[static_cast<std::size_t>(k)] = multipliers[static_cast<std::size_t>(k)] * p_nominal[static_cast<std::size_t>(k)];
  }
  esdirk::ConstVector xs(N_Vector v) const { return {N_VGetArrayPointer(v), static_cast<std::size_t>(nx)}; }
  esdirk::ConstVector zs(N_Vector v) const { return {N_VGetArrayPointer(v) + nx, static_cast<std::size_t>(nz)}; }

  static int residual(double t, N_Vector yy, N_Vector ypp, N_Vector rr, void* data) {
    auto* s = static_cast<Impl*>(data);
    s->update_parameters();
    const int code = s->problem.evaluate(t, s->xs(yy), s->zs(yy), s->p_actual, s->f, s->g);
    if (code != 0) {
      ++s->recoverable;
      return code > 0 ? 1 : -1;
    }
    const double* d = N_VGetArrayPointer(ypp);
    double* r = N_VGetArrayPointer(rr);
    for (int i = 0; i < s->nx; ++i) r[i] = d[i] - s->f[static_cast<std::size_t>(i)];
    for (int k = 0; k < s->nz; ++k) r[s->nx + k] = s->g[static_cast<std::size_t>(k)];
    return all_finite(r, s->n) ? 0 : 1;
  }

  static int jacobian(double t, double cj, N_Vector yy, N_Vector, N_Vector, SUNMatrix Jac, void* data,
                      N_Vector, N_Vector, N_Vector) {
    auto* s = static_cast<Impl*>(data);
    s->update_parameters();
    const int code = s->problem.jacobian(t, s->xs(yy), s->zs(yy), s->p_actual, s->J.ref());
    if (code != 0) return code > 0 ? 1 : -1;
    for (int j = 0; j < s->n; ++j) {
      double* col = SUNDenseMatrix_Column(Jac, j);
      for (int i = 0; i < s->n; ++i) col[i] = i < s->nx ? -s->J(i, j) : s->J(i, j);
      if (j < s->nx) col[j] += cj;
    }
    return 0;
  }

  // dF/dy s + dF/dy' s' + dF/dp P_j for every direction j, with F = [y'_x - f; g].
  static int sensitivity_residual(int Ns, double t, N_Vector yy, N_Vector, N_Vector, N_Vector* yyS,
                                  N_Vector* ypS_, N_Vector* rS, void* data, N_Vector, N_Vector, N_Vector) {
    auto* s = static_cast<Impl*>(data);
    s->update_parameters();
    int code = s->problem.jacobian(t, s->xs(yy), s->zs(yy), s->p_actual, s->J.ref());
    if (code != 0) return code > 0 ? 1 : -1;
    s->JpP.fill(0.0);
    bool uses_parameters = false;
    for (const auto& d : s->directions) uses_parameters = uses_parameters || d.parameter;
    if (uses_parameters) {
      code = s->problem.parameter_jacobian(t, s->xs(yy), s->zs(yy), s->p_actual, s->Jp.ref());
      if (code != 0) return code > 0 ? 1 : -1;
      for (int j = 0; j < Ns; ++j)
        for (int k = 0; k < s->np; ++k)
          if (s->P(k, j) != 0.0)
            for (int i = 0; i < s->n; ++i) s->JpP(i, j) += s->Jp(i, k) * s->P(k, j);
    }
    for (int j = 0; j < Ns; ++j) {
      const double* sv = N_VGetArrayPointer(yyS[j]);
      const double* sp = N_VGetArrayPointer(ypS_[j]);
      double* r = N_VGetArrayPointer(rS[j]);
      for (int i = 0; i < s->n; ++i) r[i] = 0.0;
      for (int k = 0; k < s->n; ++k) {
        const double sk = sv[k];
        if (sk == 0.0) continue;
        const double* col = s->J.column(k);
        for (int i = 0; i < s->n; ++i) r[i] += col[i] * sk;
      }
      for (int i = 0; i < s->nx; ++i) r[i] = sp[i] - r[i] - s->JpP(i, j);
      for (int i = s->nx; i < s->n; ++i) r[i] += s->JpP(i, j);
    }
    return 0;
  }

  // The user's own damped Newton for g(t0, x0, z) = 0 (analytic g_z; the step is halved while
  // the residual fails or its norm does not decrease). IDACalcIC alone cannot restart Dow from a
  // perturbed node: its Newton steps leave [H+] > 0 and it gives up ("unable to recover").
  bool consistent_z(double t0) {
    if (nz == 0 || !problem.has_jacobian()) return false;
    double* yv = N_VGetArrayPointer(y);
    std::vector<double> gz(static_cast<std::size_t>(nz * nz)), dz(static_cast<std::size_t>(nz)),
        z_try(static_cast<std::size_t>(nz)), g_try(static_cast<std::size_t>(nz));
    auto norm = [](const std::vector<double>& v) {
      double s = 0.0;
      for (double e : v) s += e * e;
      return std::sqrt(s);
    };
    ++extra_fevals;
    if (problem.evaluate(t0, xs(y), zs(y), p_actual, f, g) != 0) return false;
    for (int iteration = 0; iteration < 50; ++iteration) {
      if (problem.jacobian(t0, xs(y), zs(y), p_actual, J.ref()) != 0) return false;
      for (int a = 0; a < nz; ++a) {
        for (int b = 0; b < nz; ++b) gz[static_cast<std::size_t>(a + b * nz)] = J(nx + a, nx + b);
        dz[static_cast<std::size_t>(a)] = g[static_cast<std::size_t>(a)];
      }
      if (!solve_dense(gz, dz, nz)) return false;
      double small = 0.0;  // the correction in the algebraic tolerances
      for (int k = 0; k < nz; ++k)
        small = std::max(small, std::abs(dz[static_cast<std::size_t>(k)]) /
                                    (atol[static_cast<std::size_t>(nx + k)] + rtol * std::abs(yv[nx + k])));
      const double g_norm = norm(g);
      bool accepted = false;
      for (double lambda = 1.0; lambda > 1e-12 && !accepted; lambda *= 0.5) {
        for (int k = 0; k < nz; ++k) z_try[static_cast<std::size_t>(k)] = yv[nx + k] - lambda * dz[static_cast<std::size_t>(k)];
        ++extra_fevals;
        std::vector<double> f_try(f.size());
        if (problem.evaluate(t0, xs(y), z_try, p_actual, f_try, g_try) == 0 && all_finite(g_try.data(), nz) &&
            (norm(g_try) < g_norm || (lambda == 1.0 && small <= 1.0))) {
          for (int k = 0; k < nz; ++k) yv[nx + k] = z_try[static_cast<std::size_t>(k)];
          f = f_try;
          g = g_try;
          accepted = true;
        }
      }
      if (!accepted) return false;
      if (small <= 1e-3) return true;
    }
    return false;
  }

  // y0 = (x0, z), y'0 = (f, -g_z^{-1} g_x f) with z from the guess by consistent_z();
  // IDACalcIC then corrects z and x' to IDAS's own tolerances.
  void initial_values(double t0, const std::vector<double>& x0, const std::vector<double>& z_guess) {
    double* yv = N_VGetArrayPointer(y);
    double* dv = N_VGetArrayPointer(yp);
    for (int i = 0; i < nx; ++i) yv[i] = x0[static_cast<std::size_t>(i)];
    for (int k = 0; k < nz; ++k) yv[nx + k] = z_guess[static_cast<std::size_t>(k)];
    update_parameters();
    z_converged = consistent_z(t0);
    for (int i = 0; i < n; ++i) dv[i] = 0.0;
    if (problem.evaluate(t0, xs(y), zs(y), p_actual, f, g) == 0) {
      for (int i = 0; i < nx; ++i) dv[i] = f[static_cast<std::size_t>(i)];
      if (nz > 0 && problem.has_jacobian() && problem.jacobian(t0, xs(y), zs(y), p_actual, J.ref()) == 0) {
        std::vector<double> gz(static_cast<std::size_t>(nz * nz)), rhs(static_cast<std::size_t>(nz), 0.0);
        for (int a = 0; a < nz; ++a) {
          for (int b = 0; b < nz; ++b) gz[static_cast<std::size_t>(a + b * nz)] = J(nx + a, nx + b);
          for (int i = 0; i < nx; ++i) rhs[static_cast<std::size_t>(a)] -= J(nx + a, i) * dv[i];
        }
        if (solve_dense(gz, rhs, nz))
          for (int k = 0; k < nz; ++k) dv[nx + k] = rhs[static_cast<std::size_t>(k)];
      }
    }
    for (int j = 0; j < ns; ++j) {
      N_VConst(0.0, yS[j]);
      N_VConst(0.0, ypS[j]);
      const Direction& d = directions[static_cast<std::size_t>(j)];
      if (!d.parameter) NV_Ith_S(yS[j], d.index) = 1.0;
    }
  }

  // Sz = -g_z^{-1} (g_x Sx + g_p P), S'x = f_x Sx + f_z Sz + f_p P, S'z = 0 at (t0, y).
  bool consistent_sensitivities(double t0) {
    update_parameters();
    if (problem.jacobian(t0, xs(y), zs(y), p_actual, J.ref()) != 0) return check(-1, "Jacobian at t0");
    Jp.fill(0.0);
    if (np > 0 && problem.parameter_jacobian(t0, xs(y), zs(y), p_actual, Jp.ref()) != 0)
      return check(-1, "parameter Jacobian at t0");
    std::vector<double> s(static_cast<std::size_t>(n)), gz(static_cast<std::size_t>(nz * nz)), rhs(static_cast<std::size_t>(nz));
    for (int j = 0; j < ns; ++j) {
      std::vector<double> jpP(static_cast<std::size_t>(n), 0.0);
      for (int k = 0; k < np; ++k)
        for (int i = 0; i < n; ++i) jpP[static_cast<std::size_t>(i)] += Jp(i, k) * P(k, j);
      for (int i = 0; i < n; ++i) s[static_cast<std::size_t>(i)] = NV_Ith_S(yS[j], i);
      for (int a = 0; a < nz; ++a) {
        for (int b = 0; b < nz; ++b) gz[static_cast<std::size_t>(a + b * nz)] = J(nx + a, nx + b);
        double r = jpP[static_cast<std::size_t>(nx + a)];
        for (int i = 0; i < nx; ++i) r += J(nx + a, i) * s[static_cast<std::size_t>(i)];
        rhs[static_cast<std::size_t>(a)] = -r;
      }
      if (nz > 0 && !solve_dense(gz, rhs, nz)) return check(-1, "g_z singular at t0");
      for (int a = 0; a < nz; ++a) s[static_cast<std::size_t>(nx + a)] = rhs[static_cast<std::size_t>(a)];
      for (int i = 0; i < n; ++i) NV_Ith_S(yS[j], i) = s[static_cast<std::size_t>(i)];
      for (int i = 0; i < n; ++i) NV_Ith_S(ypS[j], i) = 0.0;
      for (int i = 0; i < nx; ++i) {
        double d = jpP[static_cast<std::size_t>(i)];
        for (int k = 0; k < n; ++k) d += J(i, k) * s[static_cast<std::size_t>(k)];
        NV_Ith_S(ypS[j], i) = d;
      }
    }
    return true;
  }

  bool check(int flag, const char* what) {
    if (flag >= 0) return true;
    if (message.empty()) message = std::string(what) + " failed (flag " + std::to_string(flag) + ")";
    return false;
  }

  bool setup(double t0) {
    mem = IDACreate(context.ctx);
    if (!mem) return check(-1, "IDACreate");
    IDASetErrHandlerFn(mem, store_message, &message);
    if (!check(IDAInit(mem, residual, t0, y, yp), "IDAInit")) return false;
    IDASVtolerances(mem, rtol, atolv);
    IDASetUserData(mem, this);
    if (!check(IDASetLinearSolver(mem, LS, A), "IDASetLinearSolver")) return false;
    if (settings.analytic_jacobian) IDASetJacFn(mem, jacobian);
    IDASetMaxNumSteps(mem, settings.max_steps);
    IDASetMaxOrd(mem, settings.max_order);
    IDASetMaxConvFails(mem, settings.max_conv_fails);
    IDASetMaxErrTestFails(mem, settings.max_error_test_fails);
    if (nz > 0) {
      IDASetId(mem, id);
      IDASetSuppressAlg(mem, settings.suppress_algebraic ? SUNTRUE : SUNFALSE);
    }
    if (settings.initial_step > 0.0) IDASetInitStep(mem, settings.initial_step);
    if (ns > 0) {
      const int ism = settings.staggered ? IDA_STAGGERED : IDA_SIMULTANEOUS;
      if (!check(IDASensInit(mem, ns, ism, settings.analytic_sensitivities ? sensitivity_residual : nullptr, yS, ypS),
                 "IDASensInit"))
        return false;
      IDASetSensParams(mem, multipliers.data(), pbar.data(), plist.data());
      if (settings.sensitivity_atol_factor > 0.0) {
        // Explicit sensitivity tolerances: the states' atol times a factor for every direction.
        N_Vector* atolS = N_VCloneVectorArray(ns, y);
        for (int j = 0; j < ns; ++j) N_VScale(settings.sensitivity_atol_factor, atolv, atolS[j]);
        IDASensSVtolerances(mem, rtol, atolS);
        N_VDestroyVectorArray(atolS, ns);
      } else {
        IDASensEEtolerances(mem);
      }
      IDASetSensErrCon(mem, settings.sensitivity_error_control ? SUNTRUE : SUNFALSE);
      if (!settings.analytic_sensitivities)
        IDASetSensDQMethod(mem, settings.forward_dq ? IDA_FORWARD : IDA_CENTERED, settings.dq_rhomax);
    }
    return true;
  }

  Outcome integrate(double t0, double t_end, const std::vector<double>& x0, const std::vector<double>& z_guess) {
    Outcome out;
    message.clear();
    initial_values(t0, x0, z_guess);
    bool good = true;
    if (!initialized) {
      good = setup(t0);
      initialized = good;
    } else {
      good = check(IDAReInit(mem, t0, y, yp), "IDAReInit");
      if (good && ns > 0)
        good = check(IDASensReInit(mem, settings.staggered ? IDA_STAGGERED : IDA_SIMULTANEOUS, yS, ypS), "IDASensReInit");
    }
    if (good) good = check(IDASetStopTime(mem, t_end), "IDASetStopTime");
    // Consistent values: z by the user's damped Newton (consistent_z) and y' from the equations;
    // IDACalcIC only when that is unavailable (no analytic Jacobian), with the sensitivities
    // switched off (their IC problem is linear, and IDACalcIC's line search on it fails at tight
    // tolerances); the sensitivities from the linearized constraints.
    if (good && nz > 0 && !z_converged) {
      if (ns > 0) IDASensToggleOff(mem);
      good = check(IDACalcIC(mem, IDA_YA_YDP_INIT, t_end), "IDACalcIC");
      if (good) IDAGetConsistentIC(mem, y, yp);
    }
    if (good && ns > 0) {
      good = consistent_sensitivities(t0);
      if (good) good = check(IDASensReInit(mem, settings.staggered ? IDA_STAGGERED : IDA_SIMULTANEOUS, yS, ypS),
                             "IDASensReInit");
    }
    double tret = t0;
    if (good) good = check(IDASolve(mem, t_end, &tret, y, yp, IDA_NORMAL), "IDASolve");
    out.ok = good && std::abs(tret - t_end) <= 1e-12 * std::max(1.0, std::abs(t_end));
    out.message = message;
    out.y.assign(N_VGetArrayPointer(y), N_VGetArrayPointer(y) + n);
    if (ns > 0 && initialized) {
      if (good) IDAGetSens(mem, &tret, yS);
      for (int j = 0; j < ns; ++j) out.S.insert(out.S.end(), N_VGetArrayPointer(yS[j]), N_VGetArrayPointer(yS[j]) + n);
    }
    if (mem) {
      long nst = 0, nre = 0, nreLS = 0, nje = 0, nsetups = 0, nreS = 0, nrSe = 0;
      IDAGetNumSteps(mem, &nst);
      IDAGetNumResEvals(mem, &nre);
      IDAGetNumLinResEvals(mem, &nreLS);
      IDAGetNumJacEvals(mem, &nje);
      IDAGetNumLinSolvSetups(mem, &nsetups);
      if (ns > 0) {
        IDAGetNumResEvalsSens(mem, &nreS);
        IDAGetSensNumResEvals(mem, &nrSe);
      }
      out.counters.steps = nst;
      out.counters.fevals = nre + nreLS + nreS + extra_fevals;
      extra_fevals = 0;
      out.counters.jacobians = nje;
      out.counters.lus = nsetups;
      out.counters.sens_evals = settings.analytic_sensitivities ? nrSe : 0;
      out.counters.recoverable = recoverable;
      recoverable = 0;
    }
    return out;
  }
};

IdasSolver::IdasSolver(esdirk::Problem& problem, std::vector<double> p, double rtol, std::vector<double> atol,
                       std::vector<Direction> directions, IdasSettings settings)
    : impl_(std::make_unique<Impl>(problem, std::move(p), rtol, std::move(atol), std::move(directions), settings)) {}
IdasSolver::~IdasSolver() = default;

Outcome IdasSolver::integrate(double t0, double t_end, const std::vector<double>& x0,
                              const std::vector<double>& z_guess) {
  return impl_->integrate(t0, t_end, x0, z_guess);
}

Outcome run_idas(const Task& task, const IdasSettings& settings) {
  IdasSolver solver(*task.problem, task.p, task.rtol, task.atol, task.directions, settings);
  return solver.integrate(task.t0, task.t_end, task.x0, task.z_guess);
}

// --- CVODES --------------------------------------------------------------------------------------

Outcome run_cvodes(const Task& task) {
  require_ode(task, "run_cvodes");
  Context context;
  const int n = task.problem->nx();
  OdeData data{task.problem, task.p, esdirk::DenseMatrix(n, n), {}};
  N_Vector y = N_VNew_Serial(n, context.ctx), atolv = N_VNew_Serial(n, context.ctx);
  for (int i = 0; i < n; ++i) {
    NV_Ith_S(y, i) = task.x0[static_cast<std::size_t>(i)];
    NV_Ith_S(atolv, i) = task.atol[static_cast<std::size_t>(i)];
  }
  SUNMatrix A = SUNDenseMatrix(n, n, context.ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, context.ctx);
  void* mem = CVodeCreate(CV_BDF, context.ctx);
  CVodeSetErrHandlerFn(mem, store_message, &data.message);
  CVodeInit(mem, ode_rhs, task.t0, y);
  CVodeSVtolerances(mem, task.rtol, atolv);
  CVodeSetUserData(mem, &data);
  CVodeSetLinearSolver(mem, LS, A);
  if (task.problem->has_jacobian()) CVodeSetJacFn(mem, ode_jacobian);
  CVodeSetMaxNumSteps(mem, 1000000);
  CVodeSetStopTime(mem, task.t_end);
  double tret = task.t0;
  const int flag = CVode(mem, task.t_end, y, &tret, CV_NORMAL);
  Outcome out;
  out.ok = flag >= 0 && std::abs(tret - task.t_end) <= 1e-12 * std::max(1.0, std::abs(task.t_end));
  out.message = data.message;
  out.y.assign(N_VGetArrayPointer(y), N_VGetArrayPointer(y) + n);
  long nst = 0, nfe = 0, nfeLS = 0, nje = 0, nsetups = 0;
  CVodeGetNumSteps(mem, &nst);
  CVodeGetNumRhsEvals(mem, &nfe);
  CVodeGetNumLinRhsEvals(mem, &nfeLS);
  CVodeGetNumJacEvals(mem, &nje);
  CVodeGetNumLinSolvSetups(mem, &nsetups);
  out.counters = {nst, nfe + nfeLS, nje, nsetups, 0};
  CVodeFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  N_VDestroy(atolv);
  return out;
}

// --- ARKODE --------------------------------------------------------------------------------------

Outcome run_arkode(const Task& task, const std::string& table) {
  require_ode(task, "run_arkode");
  ARKODE_DIRKTableID id;
  if (table == "ARK324L2SA_DIRK_4_2_3")
    id = ARKODE_ARK324L2SA_DIRK_4_2_3;
  else if (table == "KVAERNO_5_3_4")
    id = ARKODE_KVAERNO_5_3_4;
  else
    throw std::invalid_argument("run_arkode: unknown table " + table);
  Context context;
  const int n = task.problem->nx();
  OdeData data{task.problem, task.p, esdirk::DenseMatrix(n, n), {}};
  N_Vector y = N_VNew_Serial(n, context.ctx), atolv = N_VNew_Serial(n, context.ctx);
  for (int i = 0; i < n; ++i) {
    NV_Ith_S(y, i) = task.x0[static_cast<std::size_t>(i)];
    NV_Ith_S(atolv, i) = task.atol[static_cast<std::size_t>(i)];
  }
  SUNMatrix A = SUNDenseMatrix(n, n, context.ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, context.ctx);
  void* mem = ARKStepCreate(nullptr, ode_rhs, task.t0, y, context.ctx);
  ARKStepSetErrHandlerFn(mem, store_message, &data.message);
  ARKStepSetTableNum(mem, id, ARKODE_ERK_NONE);
  ARKStepSVtolerances(mem, task.rtol, atolv);
  ARKStepSetUserData(mem, &data);
  ARKStepSetLinearSolver(mem, LS, A);
  if (task.problem->has_jacobian()) ARKStepSetJacFn(mem, ode_jacobian);
  ARKStepSetMaxNumSteps(mem, 1000000);
  // Stiff settings: more error-test and convergence failures before giving up (the defaults
  // stop Robertson and Van der Pol in their transients).
  ARKStepSetMaxErrTestFails(mem, 20);
  ARKStepSetMaxConvFails(mem, 50);
  ARKStepSetStopTime(mem, task.t_end);
  double tret = task.t0;
  const int flag = ARKStepEvolve(mem, task.t_end, y, &tret, ARK_NORMAL);
  Outcome out;
  out.ok = flag >= 0 && std::abs(tret - task.t_end) <= 1e-12 * std::max(1.0, std::abs(task.t_end));
  out.message = data.message;
  out.y.assign(N_VGetArrayPointer(y), N_VGetArrayPointer(y) + n);
  long nst = 0, nfe = 0, nfi = 0, nfeLS = 0, nje = 0, nsetups = 0;
  ARKStepGetNumSteps(mem, &nst);
  ARKStepGetNumRhsEvals(mem, &nfe, &nfi);
  ARKStepGetNumLinRhsEvals(mem, &nfeLS);
  ARKStepGetNumJacEvals(mem, &nje);
  ARKStepGetNumLinSolvSetups(mem, &nsetups);
  out.counters = {nst, nfe + nfi + nfeLS, nje, nsetups, 0};
  ARKStepFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  N_VDestroy(atolv);
  return out;
}

}  // namespace bench
