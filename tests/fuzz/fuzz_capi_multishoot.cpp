// libFuzzer target: the C API of multiple shooting (esdirk_multishoot.h) with random sizes,
// thread counts, options, inputs and call orders. The bytes choose nx, nz, nu, the number of
// intervals (1 to 4) and threads (1 to 3, sometimes up to 64: more than intervals), a small
// coupled DAE x_i' = -k_i x_i + c_i x_{i+1} z + u, 0 = d z - x_0^2 - q, whose coefficients may
// be NaN, infinite or huge, and then up to 6 calls in any order: evaluate (inputs that may be
// NaN, infinite, empty or backwards intervals), the setters (tolerances, algebraic atol,
// initial step, running cost, method), and a re-entrant call from inside the residual on some
// pool thread. What is checked:
//  - every status is a documented one and not ESDIRK_INTERNAL_ERROR; the message is a string;
//  - inputs no interval can take are ESDIRK_INVALID_ARGUMENT and write no output;
//  - a successful evaluate writes finite x_end, A and B and ESDIRK_SUCCESS per interval;
//  - a re-entrant call from a callback is refused (ESDIRK_WRONG_CALL_ORDER) on every thread.
// Work per input is bounded: the residual fails fatally after 300 calls (summed over the
// threads), intervals are at most 1 long and the coefficients at most 10 in size unless
// special, so an input never runs long.

// The deprecated per-handle setters are fuzzed too while they exist (esdirk_options.h).
#define ESDIRK_NO_DEPRECATION_WARNINGS
#include <fuzzer/FuzzedDataProvider.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_multishoot.h"

namespace {

constexpr long call_budget = 300;

struct Model {
  esdirk_int nx = 1, nz = 0, nu = 0;
  std::vector<double> k, c;
  double d = 1.0, q = 0.0;
  std::atomic<long> calls{0};
  // A re-entrant call from the residual (0: none), and what came back.
  std::atomic<esdirk_multishoot*> reenter{nullptr};
  std::atomic<int> reentered{0}, reentry_wrong{0};
};

int residual(esdirk_int nx, esdirk_int nz, esdirk_int nu, double t, const double* x, const double* z,
             const double* u, double* f, double* g, void* user) {
  auto& m = *static_cast<Model*>(user);
  if (nx != m.nx || nz != m.nz || nu != m.nu) std::abort();
  if (m.calls.fetch_add(1, std::memory_order_relaxed) >= call_budget) return -1;
  if (esdirk_multishoot* h = m.reenter.load()) {
    double out[8];
    const double in[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const int s = esdirk_multishoot_evaluate(h, in, in, in, in, in, out, nullptr, nullptr, nullptr,
                                             nullptr, nullptr, nullptr, nullptr);
    const char* message = esdirk_multishoot_last_error(h);
    m.reentered.fetch_add(1);
    if (s != ESDIRK_WRONG_CALL_ORDER || message == nullptr) m.reentry_wrong.fetch_add(1);
  }
  (void)t;
  for (esdirk_int i = 0; i < nx; ++i)
    f[i] = -m.k[i] * x[i] + m.c[i] * x[(i + 1) % nx] * (nz > 0 ? z[0] : 1.0) + (nu > 0 ? u[i % nu] : 0.0);
  if (nz > 0) g[0] = m.d * z[0] - x[0] * x[0] - m.q;
  return 0;
}

int running_cost(esdirk_int nx, esdirk_int nz, esdirk_int nu, double t, const double* x, const double*,
                 const double* u, double* value, double* hx, double* hz, double* hu, void*) {
  (void)t;
  *value = 0.0;
  for (esdirk_int i = 0; i < nx; ++i) *value += x[i] * x[i], hx[i] = 2.0 * x[i];
  for (esdirk_int j = 0; j < nz; ++j) hz[j] = 0.0;
  for (esdirk_int j = 0; j < nu; ++j) *value += u[j] * u[j], hu[j] = 2.0 * u[j];
  return 0;
}

double value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return in.ConsumeFloatingPoint<double>();
    case 3: return 0.0;
    default: return in.ConsumeFloatingPointInRange<double>(-10.0, 10.0);
  }
}

bool documented(int status) {
  return std::strcmp(esdirk_status_name(status), "unknown") != 0 && status != ESDIRK_INTERNAL_ERROR;
}

bool finite(const std::vector<double>& v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  Model model;
  model.nx = in.ConsumeIntegralInRange<esdirk_int>(1, 3);
  model.nz = in.ConsumeIntegralInRange<esdirk_int>(0, 1);
  model.nu = in.ConsumeIntegralInRange<esdirk_int>(0, 2);
  for (esdirk_int i = 0; i < model.nx; ++i) model.k.push_back(value(in)), model.c.push_back(value(in));
  model.d = in.ConsumeBool() ? 1.0 : value(in);
  model.q = value(in);
  const esdirk_int n = in.ConsumeIntegralInRange<esdirk_int>(1, 4);
  const esdirk_int threads = in.ConsumeIntegralInRange<int>(0, 15) != 0 ? in.ConsumeIntegralInRange<esdirk_int>(1, 3)
                                                                         : in.ConsumeIntegralInRange<esdirk_int>(1, 64);
  const esdirk_int nx = model.nx, nz = model.nz, nu = model.nu;

  esdirk_problem* problem = nullptr;
  if (esdirk_problem_create(nx, nz, nu, residual, &model, &problem) != ESDIRK_SUCCESS) std::abort();
  esdirk_multishoot* ms = nullptr;
  if (!documented(esdirk_multishoot_create(problem, in.ConsumeBool() ? n : -n, threads, &ms))) std::abort();
  if (ms == nullptr && esdirk_multishoot_create(problem, n, threads, &ms) != ESDIRK_SUCCESS) std::abort();

  const std::size_t N = static_cast<std::size_t>(n);
  std::vector<double> t_begin(N), t_end(N), x(N * nx), u(N * nu + 1), zg(N * nz + 1);
  std::vector<double> x_end(N * nx), z_end(N * nz + 1), A(N * nx * nx), B(N * nx * nu + 1), H(N), q(N * nx),
      r(N * nu + 1);
  std::vector<esdirk_int> status(N);
  for (int call = 0; call < 6 && in.remaining_bytes() > 0; ++call) {
    int s = ESDIRK_SUCCESS;
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
      case 0: s = esdirk_multishoot_set_tolerances(ms, in.ConsumeBool() ? 1e-6 : value(in), value(in)); break;
      case 1: {
        const double atol = in.ConsumeBool() ? 1e-6 : value(in);
        s = esdirk_multishoot_set_algebraic_atol(ms, &atol, in.ConsumeIntegralInRange<esdirk_int>(0, 2));
        break;
      }
      case 2: s = esdirk_multishoot_set_initial_step(ms, in.ConsumeBool() ? 1e-3 : value(in)); break;
      case 3: s = esdirk_multishoot_set_running_cost(ms, in.ConsumeBool() ? running_cost : nullptr, nullptr); break;
      case 4: {
        const char* names[] = {"auto", "ESDIRK34", "ESDIRK436", "no such method", ""};
        s = esdirk_multishoot_set_method(ms, names[in.ConsumeIntegralInRange<int>(0, 4)]);
        break;
      }
      default: {
        // Inputs: mostly good intervals of length <= 1, sometimes hostile.
        bool good = true;
        for (std::size_t k = 0; k < N; ++k) {
          t_begin[k] = static_cast<double>(k);
          t_end[k] = t_begin[k] + in.ConsumeFloatingPointInRange<double>(0.01, 1.0);
          for (esdirk_int i = 0; i < nx; ++i) x[k * nx + i] = in.ConsumeFloatingPointInRange<double>(-2.0, 2.0);
          for (esdirk_int i = 0; i < nu; ++i) u[k * nu + i] = in.ConsumeFloatingPointInRange<double>(-2.0, 2.0);
          if (nz > 0) zg[k] = x[k * nx] * x[k * nx];
        }
        if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
          const std::size_t k = in.ConsumeIntegralInRange<std::size_t>(0, N - 1);
          switch (in.ConsumeIntegralInRange<int>(0, 4)) {
            case 0: x[k * nx] = value(in); break;
            case 1: t_end[k] = value(in); break;
            case 2: t_begin[k] = value(in); break;
            case 3: t_end[k] = t_begin[k] - in.ConsumeFloatingPointInRange<double>(0.0, 1.0); break;
            default: if (nu > 0) u[k * nu] = value(in); break;
          }
          for (std::size_t j = 0; j < N; ++j)
            good = good && std::isfinite(t_begin[j]) && std::isfinite(t_end[j]) && t_end[j] > t_begin[j];
          good = good && finite(x, N * nx) && finite(u, N * nu);
        }
        const bool reenter = in.ConsumeIntegralInRange<int>(0, 7) == 0;
        model.reenter.store(reenter ? ms : nullptr);
        const double canary = -12345.0;
        std::fill(x_end.begin(), x_end.end(), canary);
        s = esdirk_multishoot_evaluate(ms, t_begin.data(), t_end.data(), x.data(), nu > 0 ? u.data() : nullptr,
                                       nz > 0 ? zg.data() : nullptr, x_end.data(), z_end.data(), A.data(),
                                       B.data(), H.data(), q.data(), r.data(), status.data());
        model.reenter.store(nullptr);
        if (model.reentry_wrong.load() != 0) std::abort();
        if (!good) {
          if (s != ESDIRK_INVALID_ARGUMENT) std::abort();
          for (double v : x_end)
            if (v != canary) std::abort();
        }
        if (s == ESDIRK_SUCCESS) {
          for (std::size_t k = 0; k < N; ++k)
            if (status[k] != ESDIRK_SUCCESS) std::abort();
          if (!finite(x_end, N * nx) || !finite(A, N * nx * nx) || !finite(B, N * nx * nu)) std::abort();
        }
        break;
      }
    }
    if (!documented(s)) std::abort();
    const char* message = esdirk_multishoot_last_error(ms);
    if (message == nullptr || std::strlen(message) > 100000) std::abort();
  }
  esdirk_multishoot_free(&ms);
  if (ms != nullptr) std::abort();
  esdirk_problem_free(&problem);
  return 0;
}
