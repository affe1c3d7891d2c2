// libFuzzer target: the C API of hybrid systems (esdirk.h's hybrid solver and
// esdirk_hybrid_adjoint.h) with random sizes, options and call orders. The bytes choose nx
// (1 to 3), np (0 to 2), ne event functions (0 to 2), memory or not, a two-mode linear model
// x_i' = a_{mode,i} x_i + b_i + p_{i mod np} whose events h_k = x_{k mod nx} - level_k switch the
// mode and scale the state (coefficients may be NaN, infinite or huge), and then up to 16 calls
// in any order: every option setter (event windows and log capacities up to 2^26, adjoint
// budgets up to LONG_MAX), initialize, integrate_to (with and without sensitivities), the event
// log (event records, vectors and parameters either side), statistics with any struct_size,
// the Zeno options, initial events, an optional parameter reset p+ = p + shift (cascades at
// one instant come from levels that coincide), the adjoint gradient and report. What is checked:
//  - every status is a documented one and not ESDIRK_INTERNAL_ERROR; the message is a string;
//  - a successful integrate_to writes finite states;
//  - a struct_size beyond the library's struct is never a success and nothing is written;
//  - a logged event has initial in {0, 1} and cascade >= 0, and its p+ is finite if its p- is.
// Work per input is bounded: at most 16 calls, the callbacks fail fatally after 1000 calls,
// at most 100 steps per call, an event log of 8 unless a call sets more.

// The deprecated per-handle setters are fuzzed too while they exist (esdirk_options.h).
#define ESDIRK_NO_DEPRECATION_WARNINGS
#include <fuzzer/FuzzedDataProvider.h>

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "esdirk/esdirk.h"
#include "esdirk/esdirk_hybrid_adjoint.h"

namespace {

constexpr long call_budget = 1000;

struct Model {
  esdirk_int nx = 1, np = 0, ne = 0;
  double a[2][3] = {}, b[3] = {}, level[2] = {}, scale = -0.8, shift = 0.0;
  long calls = 0;
};

int residual(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, double t, const double* x,
             const double* z, const double* p, const double* mem, double* f, double* g, void* user) {
  auto& m = *static_cast<Model*>(user);
  (void)nz, (void)nm, (void)t, (void)z, (void)mem, (void)g;
  if (nx != m.nx || np != m.np) std::abort();
  if (++m.calls > call_budget) return -1;
  const int k = mode & 1;  // any mode the bytes start in is one of the two
  for (esdirk_int i = 0; i < nx; ++i) f[i] = m.a[k][i] * x[i] + m.b[i] + (np > 0 ? p[i % np] : 0.0);
  return 0;
}

int events(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm, esdirk_int ne, double t,
           const double* x, const double* z, const double* p, const double* mem, double* h, void* user) {
  auto& m = *static_cast<Model*>(user);
  (void)mode, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)p, (void)mem;
  if (ne != m.ne) std::abort();
  if (++m.calls > call_budget) return -1;
  for (esdirk_int k = 0; k < ne; ++k) h[k] = x[k % nx] - m.level[k];
  return 0;
}

int transition(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx, esdirk_int nz,
               esdirk_int np, esdirk_int nm, double t, const double* x, const double* z, const double* p,
               const double* mem, int* next_mode, double* x_plus, void* user) {
  auto& m = *static_cast<Model*>(user);
  (void)ne, (void)fired, (void)time_event, (void)nz, (void)np, (void)nm, (void)t, (void)z, (void)p, (void)mem;
  *next_mode = 1 - (mode & 1);
  for (esdirk_int i = 0; i < nx; ++i) x_plus[i] = m.scale * x[i];
  return 0;
}

int parameter_reset(int mode, esdirk_int ne, const int* fired, int time_event, esdirk_int nx, esdirk_int nz,
                    esdirk_int np, esdirk_int nm, double t, const double* x, const double* z, const double* p,
                    const double* mem, double* p_plus, void* user) {
  auto& m = *static_cast<Model*>(user);
  (void)mode, (void)ne, (void)fired, (void)time_event, (void)nx, (void)nz, (void)nm, (void)t, (void)x, (void)z,
      (void)mem;
  if (np != m.np) std::abort();
  if (++m.calls > call_budget) return -1;
  for (esdirk_int i = 0; i < np; ++i) p_plus[i] = p[i] + m.shift;
  return 0;
}

double value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return in.ConsumeFloatingPoint<double>();
    case 3: return 0.0;
    default: return in.ConsumeFloatingPointInRange<double>(-5.0, 5.0);
  }
}

int some_int(FuzzedDataProvider& in, int usual_low, int usual_high) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return -1;
    case 1: return INT_MAX;
    case 2: return 1 << in.ConsumeIntegralInRange<int>(0, 26);
    default: return in.ConsumeIntegralInRange<int>(usual_low, usual_high);
  }
}

bool documented(int status) {
  return std::strcmp(esdirk_status_name(status), "unknown") != 0 && status != ESDIRK_INTERNAL_ERROR;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  Model model;
  model.nx = in.ConsumeIntegralInRange<esdirk_int>(1, 3);
  model.np = in.ConsumeIntegralInRange<esdirk_int>(0, 2);
  model.ne = in.ConsumeIntegralInRange<esdirk_int>(0, 2);
  const int memory = in.ConsumeBool() ? 1 : 0;
  for (int mode = 0; mode < 2; ++mode)
    for (int i = 0; i < 3; ++i) model.a[mode][i] = value(in);
  for (int i = 0; i < 3; ++i) model.b[i] = value(in);
  for (int k = 0; k < 2; ++k) model.level[k] = value(in);
  model.scale = value(in);
  model.shift = value(in);
  const esdirk_int nx = model.nx, np = model.np, ne = model.ne, nm = memory ? nx : 0;

  esdirk_hybrid_problem* problem = nullptr;
  if (esdirk_hybrid_problem_create(nx, 0, np, ne, memory, residual, &model, &problem) != ESDIRK_SUCCESS)
    std::abort();
  if (ne > 0 && in.ConsumeIntegralInRange<int>(0, 7) != 0 &&
      esdirk_hybrid_problem_set_events(problem, events, nullptr) != ESDIRK_SUCCESS)
    std::abort();
  if (in.ConsumeBool() && esdirk_hybrid_problem_set_transition(problem, transition, nullptr) != ESDIRK_SUCCESS)
    std::abort();
  if (np > 0 && in.ConsumeBool() &&
      esdirk_hybrid_problem_set_parameter_reset(problem, np, parameter_reset, nullptr) != ESDIRK_SUCCESS)
    std::abort();
  esdirk_hybrid_solver* solver = nullptr;
  if (esdirk_hybrid_solver_create(problem, &solver) != ESDIRK_SUCCESS) std::abort();
  if (esdirk_hybrid_solver_set_step_limits(solver, 0.0, 0.0, std::numeric_limits<double>::infinity(), 100) !=
      ESDIRK_SUCCESS)
    std::abort();
  // A log of 8 events unless the bytes ask for more: the default 256 records made at every
  // initialize were a fifth of the time per input.
  if (esdirk_hybrid_solver_set_event_limits(solver, 100, 1e6, 16, 1e-8, 8) != ESDIRK_SUCCESS) std::abort();
  esdirk_hybrid_objective* objective = nullptr;
  if (esdirk_hybrid_objective_create(1, &objective) != ESDIRK_SUCCESS) std::abort();
  const double W[3] = {1.0, 0.5, 0.25};
  if (esdirk_hybrid_objective_set_terminal_weights(objective, W, nx, nx) != ESDIRK_SUCCESS) std::abort();

  std::vector<double> x(3), p(3), mem(3), sx(3 * 5), seed(5 * 5), dx0(3), dp(3), tau(4), xm(3), xp(3), pm(3),
      pp(3);
  std::vector<int> ints(3), fired(3);
  double t = 0.0, tout = 0.0;
  for (int call = 0; call < 16 && in.remaining_bytes() > 0; ++call) {
    int s = ESDIRK_SUCCESS;
    switch (in.ConsumeIntegralInRange<int>(0, 17)) {
      case 0: s = esdirk_hybrid_solver_set_tolerances(solver, in.ConsumeBool() ? 1e-6 : value(in), value(in)); break;
      case 1:
        s = esdirk_hybrid_solver_set_event_limits(solver, some_int(in, 1, 100), in.ConsumeBool() ? 1e6 : value(in),
                                                  some_int(in, 2, 32), in.ConsumeBool() ? 1e-8 : value(in),
                                                  some_int(in, 0, 300));
        break;
      case 2: {
        for (int& v : ints) v = in.ConsumeIntegralInRange<int>(-2, 2);
        s = in.ConsumeBool() ? esdirk_hybrid_solver_set_event_directions(solver, ints.data(), in.ConsumeIntegralInRange<esdirk_int>(0, 3))
                             : esdirk_hybrid_solver_set_terminal(solver, ints.data(), in.ConsumeIntegralInRange<esdirk_int>(0, 3));
        break;
      }
      case 3: {
        const double times[2] = {value(in), value(in)};
        s = esdirk_hybrid_solver_set_time_events(solver, times, in.ConsumeIntegralInRange<esdirk_int>(0, 2));
        break;
      }
      case 4:
        s = esdirk_hybrid_solver_set_event_location(solver, in.ConsumeBool() ? 0.0 : value(in), some_int(in, 1, 60),
                                                    some_int(in, 0, 8));
        break;
      case 5: {
        const long budgets[] = {0, -1, 35, 1000, 35L * ((1L << 32) + 2), std::numeric_limits<long>::max()};
        s = esdirk_hybrid_solver_set_adjoint(solver, in.ConsumeIntegralInRange<int>(0, 2),
                                             budgets[in.ConsumeIntegralInRange<int>(0, 5)]);
        break;
      }
      case 6:
      case 7: {
        for (esdirk_int i = 0; i < nx; ++i) x[i] = in.ConsumeFloatingPointInRange<double>(-3.0, 3.0);
        for (esdirk_int i = 0; i < np; ++i) p[i] = value(in);
        for (esdirk_int i = 0; i < nm; ++i) mem[i] = 0.0;
        t = in.ConsumeBool() ? 0.0 : value(in);
        s = esdirk_hybrid_solver_initialize(solver, t, in.ConsumeIntegralInRange<int>(-1, 1), x.data(), nx, nullptr, 0,
                                            np > 0 ? p.data() : nullptr, np, memory ? mem.data() : nullptr, nm);
        tout = t;
        break;
      }
      case 8:
      case 9:
      case 10: {
        tout += in.ConsumeBool() ? in.ConsumeFloatingPointInRange<double>(0.0, 2.0) : value(in);
        double reached = 0.0;
        s = esdirk_hybrid_solver_integrate_to(solver, tout, x.data(), nx, nullptr, 0, &reached);
        if (s == ESDIRK_SUCCESS)
          for (esdirk_int i = 0; i < nx; ++i)
            if (!std::isfinite(x[i])) std::abort();
        break;
      }
      case 11: {
        const esdirk_int rows = nx + np, ns = in.ConsumeIntegralInRange<esdirk_int>(1, 2);
        for (double& v : seed) v = in.ConsumeBool() ? 1.0 : 0.0;
        s = esdirk_hybrid_solver_start_sensitivities(solver, seed.data(), rows, ns, rows);
        if (s == ESDIRK_SUCCESS) {
          tout += in.ConsumeFloatingPointInRange<double>(0.0, 1.0);
          s = esdirk_hybrid_solver_integrate_sensitivities_to(solver, tout, x.data(), nx, nullptr, 0, sx.data(), nx,
                                                              nullptr, 0, ns, nullptr);
        }
        break;
      }
      case 12: {
        int64_t located = 0;
        esdirk_int logged = 0;
        s = esdirk_hybrid_solver_get_event_count(solver, &located, &logged);
        const esdirk_int index = in.ConsumeIntegralInRange<esdirk_int>(-1, 3);
        esdirk_event event = ESDIRK_EVENT_INIT;
        const int e = esdirk_hybrid_solver_get_event(solver, index, &event);
        if (!documented(e)) std::abort();
        if (e == ESDIRK_SUCCESS && (event.initial < 0 || event.initial > 1 || event.cascade < 0)) std::abort();
        const int q = esdirk_hybrid_solver_get_event_parameters(solver, index, pm.data(), pp.data(),
                                                                in.ConsumeIntegralInRange<esdirk_int>(0, 3));
        if (!documented(q)) std::abort();
        if (q == ESDIRK_SUCCESS)
          for (esdirk_int i = 0; i < np; ++i)
            if (std::isfinite(pm[i] + model.shift) && !std::isfinite(pp[i])) std::abort();
        const int v = esdirk_hybrid_solver_get_event_vectors(solver, index, fired.data(), ne, tau.data(), 0, xm.data(),
                                                             xp.data(), nx, nullptr, nullptr, 0);
        if (!documented(v)) std::abort();
        break;
      }
      case 13: {
        union {
          esdirk_statistics st;
          unsigned char bytes[sizeof(esdirk_statistics) + 32];
        } buffer;
        std::memset(&buffer, 0xab, sizeof buffer);
        buffer.st.struct_size = in.ConsumeBool() ? sizeof(esdirk_statistics) : in.ConsumeIntegral<std::size_t>();
        s = esdirk_hybrid_solver_get_statistics(solver, &buffer.st);
        if (buffer.st.struct_size > sizeof(esdirk_statistics)) {
          if (s == ESDIRK_SUCCESS) std::abort();  // refused (or not initialized yet)
          for (std::size_t k = sizeof(std::size_t); k < sizeof buffer; ++k)
            if (buffer.bytes[k] != 0xab) std::abort();
        }
        break;
      }
      case 14:
        s = esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0.data(), nx, nx, np > 0 ? dp.data() : nullptr,
                                                  np, np > 0 ? np : 1);
        break;
      case 15:
        s = esdirk_hybrid_solver_set_zeno(solver, some_int(in, 0, 16), in.ConsumeBool() ? 1e-9 : value(in));
        break;
      case 16: {
        for (int& v : ints) v = in.ConsumeIntegralInRange<int>(-1, 2);
        s = esdirk_hybrid_solver_set_initial_events(solver, ints.data(), in.ConsumeIntegralInRange<esdirk_int>(0, 3));
        break;
      }
      default: {
        esdirk_hybrid_adjoint_report report = ESDIRK_HYBRID_ADJOINT_REPORT_INIT;
        s = esdirk_hybrid_solver_get_adjoint_report(solver, &report);
        break;
      }
    }
    if (!documented(s)) std::abort();
    const char* message = esdirk_hybrid_solver_last_error(solver);
    if (message == nullptr || std::strlen(message) > 100000) std::abort();
  }
  esdirk_hybrid_objective_free(&objective);
  esdirk_hybrid_solver_free(&solver);
  esdirk_hybrid_problem_free(&problem);
  return 0;
}
