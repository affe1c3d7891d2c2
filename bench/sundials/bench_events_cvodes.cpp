// Events against CVODES's root finding, states only (CVODES has no sensitivity jumps):
//  - the bouncing ball of Schäfer 2021 (z' = v, v' = -g, impact at z = 0 falling, v+ = -0.8 v-),
//    to t = 8 (four impacts);
//  - Serban & Recuero 2019's Example 5.1 (x' = 4 - x in mode A, 10 - 2x in mode B, switching where
//    x^3 - 5x^2 + 7x crosses p = 2.9: three events), to t = 5.
// Each solver runs at rtol = 1e-3 ... 1e-10 (atol = 1e-2 rtol) with analytic Jacobians; the
// error is the largest relative error of the event times and the final state against the
// closed forms of examples/bouncing_ball and examples/hybrid_ode. The wall time is the best of
// several repetitions. The ratio at equal accuracy is CVODES's time, interpolated in log-log
// at esdirk's achieved error, divided by esdirk's time (> 1: esdirk is faster), over the
// overlapping range of errors.
//
//     bench_events_cvodes [--quick] [--repeat N]
// --quick (CTest): two tolerances, one repetition; checks that both solvers find every event
// and that the error falls with rtol. No timing is asserted.

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bouncing_ball/bouncing_ball_closed_form.hpp"
#include "bouncing_ball/bouncing_ball_model.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "hybrid_ode/hybrid_ode_closed_form.hpp"
#include "hybrid_ode/hybrid_ode_model.hpp"

namespace {

constexpr double ball_t_end = 8.0;

// What one run gives: event times and the final state.
struct Run {
  bool ok = false;
  std::vector<double> events;
  std::vector<double> x_end;
  long steps = 0;
};

// The closed forms.
struct Exact {
  std::vector<double> events;
  std::vector<double> x_end;
};

Exact ball_exact() {
  using bouncing_ball::gravity, bouncing_ball::restitution, bouncing_ball::v0, bouncing_ball::z0;
  const auto e = bouncing_ball::exact<double>(z0, v0, gravity, restitution, ball_t_end);
  return {e.impacts, {e.z, e.v}};
}

Exact hybrid_exact() {
  const double p = hybrid_ode::nominal_p;
  const auto e = hybrid_ode::exact<double>(p, p);
  return {{e.t_event[0], e.t_event[1], e.t_event[2]}, {e.x_end, e.G}};
}

// Largest relative error of the event times and of the final state (relative to max(|x|, 1)).
double error_of(const Run& run, const Exact& exact) {
  if (!run.ok || run.events.size() != exact.events.size()) return INFINITY;
  double worst = 0.0;
  for (std::size_t k = 0; k < exact.events.size(); ++k)
    worst = std::max(worst, std::abs(run.events[k] - exact.events[k]) / exact.events[k]);
  for (std::size_t i = 0; i < exact.x_end.size(); ++i)
    worst = std::max(worst, std::abs(run.x_end[i] - exact.x_end[i]) /
                                std::max(1.0, std::abs(exact.x_end[i])));
  return worst;
}

// ---- esdirk ---------------------------------------------------------------------------------

Run esdirk_run(esdirk::HybridProblem& model, int mode0, std::vector<double> x0,
               std::vector<double> p, double t_end, double rtol) {
  esdirk::HybridOptions o;
  o.integrator.rtol = rtol;
  o.integrator.atol = 1e-2 * rtol;
  esdirk::HybridSolver solver(model, o);
  Run run;
  std::vector<double> x(x0.size());
  run.ok = esdirk::ok(solver.initialize(0.0, mode0, x0, {}, p)) &&
           esdirk::ok(solver.integrate_to(t_end, x));
  for (int k = 0; k < solver.logged_events(); ++k) run.events.push_back(solver.event(k).t);
  run.x_end = x;
  run.steps = solver.statistics().accepted_steps;
  return run;
}

Run esdirk_ball(double rtol) {
  bouncing_ball::Model model;
  return esdirk_run(model, 0, {bouncing_ball::z0, bouncing_ball::v0},
                    {bouncing_ball::gravity, bouncing_ball::restitution}, ball_t_end, rtol);
}

Run esdirk_hybrid(double rtol) {
  hybrid_ode::Model model;
  return esdirk_run(model, hybrid_ode::mode_a, {0.0, 0.0}, {hybrid_ode::nominal_p},
                    hybrid_ode::t_end, rtol);
}

// ---- CVODES (BDF, dense direct solver, analytic Jacobian, root finding) -------------------

struct CvodesModel {
  int n = 2;
  int mode = 0;
  std::function<void(double, const double*, double*)> rhs;
  std::function<void(const double*, double*)> jacobian;  // column-major n x n
  std::function<double(const double*)> event;
  int direction = 0;  // CVodeSetRootDirection: -1 falling only, 0 both
  // Applies the transition at a root (rootsfound = +1 rising, -1 falling) to y and the mode.
  std::function<void(int, double*)> transition;
};

int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* user) {
  static_cast<CvodesModel*>(user)->rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
  return 0;
}

int cv_jac(sunrealtype, N_Vector y, N_Vector, SUNMatrix J, void* user, N_Vector, N_Vector,
           N_Vector) {
  static_cast<CvodesModel*>(user)->jacobian(N_VGetArrayPointer(y), SUNDenseMatrix_Data(J));
  return 0;
}

int cv_root(sunrealtype, N_Vector y, sunrealtype* g, void* user) {
  g[0] = static_cast<CvodesModel*>(user)->event(N_VGetArrayPointer(y));
  return 0;
}

Run cvodes_run(CvodesModel& model, std::vector<double> y0, double t_end, double rtol) {
  SUNContext ctx = nullptr;
  if (SUNContext_Create(nullptr, &ctx) != 0) throw std::runtime_error("SUNContext_Create failed");
  N_Vector y = N_VNew_Serial(model.n, ctx);
  std::copy(y0.begin(), y0.end(), N_VGetArrayPointer(y));
  SUNMatrix A = SUNDenseMatrix(model.n, model.n, ctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, A, ctx);
  void* mem = CVodeCreate(CV_BDF, ctx);
  CVodeInit(mem, cv_rhs, 0.0, y);
  CVodeSStolerances(mem, rtol, 1e-2 * rtol);
  CVodeSetUserData(mem, &model);
  CVodeSetLinearSolver(mem, LS, A);
  CVodeSetJacFn(mem, cv_jac);
  CVodeSetMaxNumSteps(mem, 1000000);
  CVodeRootInit(mem, 1, cv_root);
  int direction = model.direction;
  CVodeSetRootDirection(mem, &direction);
  Run run;
  double t = 0.0;
  run.ok = true;
  while (t < t_end) {
    const int flag = CVode(mem, t_end, y, &t, CV_NORMAL);
    if (flag == CV_ROOT_RETURN) {
      int found = 0;
      CVodeGetRootInfo(mem, &found);
      run.events.push_back(t);
      model.transition(found, N_VGetArrayPointer(y));
      long steps = 0;
      CVodeGetNumSteps(mem, &steps);
      run.steps += steps;
      CVodeReInit(mem, t, y);  // a restart after the reset, as the hybrid solver does
    } else if (flag < 0) {
      run.ok = false;
      break;
    }
  }
  long steps = 0;
  CVodeGetNumSteps(mem, &steps);
  run.steps += steps;
  run.x_end.assign(N_VGetArrayPointer(y), N_VGetArrayPointer(y) + model.n);
  CVodeFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  SUNContext_Free(&ctx);
  return run;
}

Run cvodes_ball(double rtol) {
  CvodesModel m;
  const double g = bouncing_ball::gravity, gamma = bouncing_ball::restitution;
  m.rhs = [g](double, const double* y, double* f) {
    f[0] = y[1];
    f[1] = -g;
  };
  m.jacobian = [](const double*, double* J) {
    J[0] = 0.0, J[1] = 0.0, J[2] = 1.0, J[3] = 0.0;
  };
  m.event = [](const double* y) { return y[0]; };
  m.direction = -1;
  m.transition = [gamma](int, double* y) { y[1] = -gamma * y[1]; };
  return cvodes_run(m, {bouncing_ball::z0, bouncing_ball::v0}, ball_t_end, rtol);
}

Run cvodes_hybrid(double rtol) {
  CvodesModel m;
  const double p = hybrid_ode::nominal_p;
  m.rhs = [&m](double, const double* y, double* f) {
    f[0] = m.mode == hybrid_ode::mode_a ? 4.0 - y[0] : 10.0 - 2.0 * y[0];
    f[1] = y[0];
  };
  m.jacobian = [&m](const double*, double* J) {
    J[0] = m.mode == hybrid_ode::mode_a ? -1.0 : -2.0, J[1] = 1.0, J[2] = 0.0, J[3] = 0.0;
  };
  m.event = [p](const double* y) { return hybrid_ode::cubic(y[0]) - p; };
  m.direction = 0;
  m.transition = [&m](int found, double*) {
    m.mode = found > 0 ? hybrid_ode::mode_b : hybrid_ode::mode_a;
  };
  return cvodes_run(m, {0.0, 0.0}, hybrid_ode::t_end, rtol);
}

// ---- measurement ----------------------------------------------------------------------------

struct Point {
  double rtol, error, seconds;
  long steps;
};

Point measure(const std::function<Run(double)>& solve, const Exact& exact, double rtol,
              int repeat) {
  using Clock = std::chrono::steady_clock;
  Run run;
  double best = INFINITY;
  for (int r = 0; r < repeat; ++r) {
    // Enough runs per sample to last about a millisecond.
    const auto start = Clock::now();
    int runs = 0;
    do {
      run = solve(rtol);
      ++runs;
    } while (std::chrono::duration<double>(Clock::now() - start).count() < 1e-3);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count() / runs);
  }
  return {rtol, error_of(run, exact), best, run.steps};
}

// CVODES's time at esdirk's error, by log-log interpolation between CVODES's points (NaN
// outside CVODES's range of errors).
double time_at_error(const std::vector<Point>& points, double error) {
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const double e0 = points[i].error, e1 = points[i + 1].error;
    if ((error - e0) * (error - e1) > 0.0 || e0 == e1) continue;
    const double w = (std::log(error) - std::log(e0)) / (std::log(e1) - std::log(e0));
    return std::exp((1 - w) * std::log(points[i].seconds) + w * std::log(points[i + 1].seconds));
  }
  return NAN;
}

int compare(const char* name, const std::function<Run(double)>& ours,
            const std::function<Run(double)>& theirs, const Exact& exact,
            const std::vector<double>& rtols, int repeat, bool quick) {
  std::printf("\n%s (%zu events)\n", name, exact.events.size());
  std::printf("%8s | %10s %10s %6s | %10s %10s %6s | %s\n", "rtol", "esdirk err", "time [s]",
              "steps", "CVODES err", "time [s]", "steps", "CVODES/esdirk at equal error");
  std::vector<Point> a, b;
  for (double rtol : rtols) {
    a.push_back(measure(ours, exact, rtol, repeat));
    b.push_back(measure(theirs, exact, rtol, repeat));
  }
  std::vector<double> ratios;
  for (std::size_t i = 0; i < rtols.size(); ++i) {
    const double ratio = time_at_error(b, a[i].error) / a[i].seconds;
    if (std::isfinite(ratio)) ratios.push_back(ratio);
    std::printf("%8.0e | %10.2e %10.3e %6ld | %10.2e %10.3e %6ld | ", rtols[i], a[i].error,
                a[i].seconds, a[i].steps, b[i].error, b[i].seconds, b[i].steps);
    if (std::isfinite(ratio)) std::printf("%.2f\n", ratio); else std::printf("-\n");
  }
  if (!ratios.empty()) {
    std::sort(ratios.begin(), ratios.end());
    std::printf("median ratio %.2f, lowest %.2f, over %zu points\n", ratios[ratios.size() / 2],
                ratios.front(), ratios.size());
  }
  int failures = 0;
  for (std::size_t i = 0; i < rtols.size(); ++i) {
    if (!std::isfinite(a[i].error) || !std::isfinite(b[i].error)) {
      std::printf("CHECK FAILED: a run missed an event or failed at rtol %.0e\n", rtols[i]);
      ++failures;
    }
  }
  // The error must fall with rtol unless it is already at the rounding level at the loosest
  // rtol (the ball's free fall is a quadratic, which the order-3 method and its cubic dense
  // output reproduce exactly: only rounding and the event location remain).
  const double rounding_level = 1e-12;
  if (quick && a.size() >= 2 && !(a.back().error < a.front().error) &&
      !(a.front().error <= rounding_level && a.back().error <= rounding_level)) {
    std::printf("CHECK FAILED: esdirk's error does not fall with rtol\n");
    ++failures;
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: bench_events_cvodes [--quick] [--repeat N]\n");
      return 2;
    }
  }
  std::vector<double> rtols;
  if (quick) {
    rtols = {1e-4, 1e-8};
    repeat = 1;
  } else {
    for (double r = 1e-3; r > 3e-11; r /= std::sqrt(10.0)) rtols.push_back(r);
  }
  int failures = compare("Bouncing ball (seed 001), t = 0 .. 8", esdirk_ball, cvodes_ball,
                         ball_exact(), rtols, repeat, quick);
  failures += compare("Hybrid ODE (seed 000, Example 5.1), t = 0 .. 5", esdirk_hybrid,
                      cvodes_hybrid, hybrid_exact(), rtols, repeat, quick);
  std::printf("\n%s\n", failures ? "CHECK FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
