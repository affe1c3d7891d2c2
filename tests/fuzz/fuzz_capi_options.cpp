// libFuzzer target: the C API's options object (esdirk_options.h). The bytes choose a small
// ODE or index-1 DAE, then up to 24 calls: every esdirk_options_set_* setter with random
// arguments (mostly in range, often NaN, infinite, huge, negative, of the wrong length, NULL,
// unknown method names and rules), a second object set the same way, and the objects applied
// to each handle that integrates (solver, shooting interval, reverse shooting interval,
// multiple-shooting evaluator, hybrid solver), with runs of the solver and of the shooting
// intervals in between.
//
// What is checked:
//  - every status is a documented code and never ESDIRK_INTERNAL_ERROR; every message is a
//    NUL-terminated string; a setter that succeeds leaves the object's message empty, one that
//    fails says why (ESDIRK_INVALID_ARGUMENT or ESDIRK_NULL_ARGUMENT only);
//  - a refused setter changes nothing: at the end the object is rebuilt from the accepted
//    calls alone, both are applied to two new solvers, and their runs agree bit for bit
//    (states, status and every counter);
//  - what the setters accept the run accepts: an object whose settings were all accepted,
//    applied to a solver, fails its initialize with ESDIRK_INVALID_ARGUMENT only for what is
//    documented as checked at the run (rtol <= 1, atol > 0 where it weighs a component,
//    keep_step_ratio_high <= the controller's max_step_ratio);
//  - set_options refuses only what is documented (Jacobian reuse on the handles that always
//    differentiate, an algebraic atol of the wrong length) and a refused set_options leaves
//    the handle's method as it was.
// Work per input is bounded: at most 24 calls, and in each run the residual fails fatally
// after 300 calls (the same budget for the two runs that are compared).

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "esdirk/esdirk.h"
#include "esdirk/esdirk_adjoint.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_multishoot.h"
#include "esdirk/esdirk_options.h"

namespace {

constexpr esdirk_int max_small_size = 6;
constexpr long call_budget = 300;  // residual calls per run; later calls fail fatally

// x_i' = -k_i x_i + c x_{i+1} + p_{i mod np}, 0 = z_j - x_j^2 - 1 (well posed: the fuzzing is
// in the options, not in the model).
struct Model {
  esdirk_int nx = 1, nz = 0, np = 0;
  std::vector<double> k;
  double c = 0.0;
  long calls = 0;
};

int residual(esdirk_int nx, esdirk_int nz, esdirk_int np, double, const double* x, const double* z,
             const double* p, double* f, double* g, void* user) {
  auto& m = *static_cast<Model*>(user);
  if (nx != m.nx || nz != m.nz || np != m.np) std::abort();
  if (++m.calls > call_budget) return -1;
  for (esdirk_int i = 0; i < nx; ++i)
    f[i] = -m.k[i] * x[i] + m.c * x[(i + 1) % nx] + (np > 0 ? p[i % np] : 0.0);
  for (esdirk_int j = 0; j < nz; ++j) g[j] = z[j] - x[j % nx] * x[j % nx] - 1.0;
  return 0;
}

int hybrid_residual(int, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int, double t,
                    const double* x, const double* z, const double* p, const double*, double* f,
                    double* g, void* user) {
  return residual(nx, nz, np, t, x, z, p, f, g, user);
}

// A double that is mostly in a useful range and sometimes special.
double value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 11)) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return -std::numeric_limits<double>::infinity();
    case 3: return in.ConsumeFloatingPoint<double>();  // any finite double
    case 4: return 0.0;
    case 5: return 1.0;
    case 6: return -in.ConsumeProbability<double>();
    case 7: return std::numeric_limits<double>::denorm_min();
    default: return in.ConsumeProbability<double>();  // [0, 1]: most options live there
  }
}

int small_int(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return std::numeric_limits<int>::min();
    case 1: return std::numeric_limits<int>::max();
    default: return in.ConsumeIntegralInRange<int>(-2, 4);
  }
}

bool documented(int status) {
  return std::strcmp(esdirk_status_name(status), "unknown") != 0 && status != ESDIRK_INTERNAL_ERROR;
}

void check_message(const char* message) {
  if (message == nullptr || std::strlen(message) > 100000) std::abort();
}

// One setter call, recorded so that the accepted calls can be replayed on a fresh object.
struct Call {
  int which = 0;
  std::vector<double> reals;
  std::vector<int> ints;
  std::string name;
  bool null_pointer = false;
  esdirk_int length = 0;
};

constexpr int setters = 17;

Call draw(FuzzedDataProvider& in, esdirk_int nz) {
  Call c;
  c.which = in.ConsumeIntegralInRange<int>(0, setters - 1);
  switch (c.which) {
    case 1: {  // algebraic atol: the right length mostly, NULL now and then
      switch (in.ConsumeIntegralInRange<int>(0, 5)) {
        case 0: c.length = -1; break;
        case 1: c.length = nz + 1; break;
        case 2: c.length = nz > 0 ? nz - 1 : 0; break;
        default: c.length = nz; break;
      }
      c.null_pointer = in.ConsumeIntegralInRange<int>(0, 7) == 0;
      for (esdirk_int i = 0; i < std::max<esdirk_int>(c.length, 0); ++i) c.reals.push_back(value(in));
      break;
    }
    case 3: {  // method: a known name, "auto", a wrong case, junk, NULL
      const char* names[] = {"auto", "ESDIRK34", "ESDIRK436", "ESDIRK547", "ESDIRK23", "ESDIRK12", "esdirk34", ""};
      const int pick = in.ConsumeIntegralInRange<int>(0, 9);
      if (pick < 8) c.name = names[pick];
      else if (pick == 8) c.name = in.ConsumeRandomLengthString(24);
      else c.null_pointer = true;
      break;
    }
    default:
      for (int k = 0; k < 5; ++k) c.reals.push_back(value(in));
      c.ints = {small_int(in), small_int(in), small_int(in)};
      break;
  }
  return c;
}

int apply(esdirk_options* o, const Call& c) {
  switch (c.which) {
    case 0: return esdirk_options_set_tolerances(o, c.reals[0], c.reals[1]);
    case 1: return esdirk_options_set_algebraic_atol(o, c.null_pointer ? nullptr : c.reals.data(), c.length);
    case 2: return esdirk_options_set_tolerance_rule(o, c.ints[0], c.reals[0]);
    case 3: return esdirk_options_set_method(o, c.null_pointer ? nullptr : c.name.c_str());
    case 4: return esdirk_options_set_jacobian_reuse(o, c.ints[0], c.reals[0]);
    case 5: return esdirk_options_set_lu_reuse_h_change(o, c.reals[0]);
    case 6: return esdirk_options_set_keep_step_ratio(o, c.reals[0], 1.0 + 4.0 * c.reals[1]);
    case 7: return esdirk_options_set_newton_test(o, c.ints[0], c.reals[0]);
    case 8: return esdirk_options_set_newton_fresh_rate(o, c.reals[0], c.ints[0]);
    case 9: return esdirk_options_set_difference_increment(o, c.ints[0]);
    case 10: {
      // max_steps: mostly small (the work bound is the residual's budget), sometimes not
      const long max_steps = c.ints[0] == std::numeric_limits<int>::max() ? std::numeric_limits<long>::max()
                                                                         : static_cast<long>(c.ints[0]) * 20;
      return esdirk_options_set_step_limits(o, c.reals[0], c.reals[1] * 1e-3,
                                            c.reals[2] == 1.0 ? std::numeric_limits<double>::infinity() : c.reals[2],
                                            max_steps);
    }
    case 11:
      return esdirk_options_set_controller(o, c.ints[0], c.reals[0], c.reals[1], c.reals[2], c.reals[3],
                                           1.0 + 9.0 * c.reals[4]);
    case 12: return esdirk_options_set_newton(o, c.ints[0], c.reals[0], c.reals[1]);
    case 13: return esdirk_options_set_filter_error_estimate(o, c.ints[0]);
    case 14: return esdirk_options_set_failure_limits(o, c.ints[0], c.ints[1], c.ints[2]);
    case 15: return esdirk_options_set_sensitivity(o, c.ints[0], c.ints[1]);
    default: return esdirk_options_set_adjoint(o, c.ints[0], static_cast<long>(c.ints[1]));
  }
}

// An options object and the calls it accepted.
struct Object {
  esdirk_options* options = nullptr;
  std::vector<Call> accepted;
  Object() {
    if (esdirk_options_create(&options) != ESDIRK_SUCCESS) std::abort();
  }
  ~Object() { esdirk_options_free(&options); }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  void set(const Call& c) {
    const int status = apply(options, c);
    const char* message = esdirk_options_last_error(options);
    check_message(message);
    if (status == ESDIRK_SUCCESS) {
      if (*message != '\0') std::abort();
      accepted.push_back(c);
    } else if ((status != ESDIRK_INVALID_ARGUMENT && status != ESDIRK_NULL_ARGUMENT) || *message == '\0') {
      std::abort();
    }
  }
};

// Messages of the run's own checks of settings the setters accept (documented as checked at
// the run: against the problem's sizes and the controller; a recording's budget against one
// step record and its refusal of Jacobian reuse).
bool checked_at_the_run(const char* message) {
  return std::strstr(message, "rtol") || std::strstr(message, "atol") ||
         std::strstr(message, "keep_step_ratio_high") || std::strstr(message, "memory_budget") ||
         std::strstr(message, "reuse_jacobian");
}

struct Run {
  int status = 0;
  std::vector<double> x;
  std::vector<int64_t> counters;
};

// A new solver with `o` applied, initialized and run to `tout`.
Run run_solver(esdirk_problem* problem, Model& model, const esdirk_options* o, double tout,
               bool all_accepted) {
  Run r;
  esdirk_solver* solver = nullptr;
  if (esdirk_solver_create(problem, &solver) != ESDIRK_SUCCESS) std::abort();
  r.status = esdirk_solver_set_options(solver, o);
  check_message(esdirk_solver_last_error(solver));
  if (!documented(r.status)) std::abort();
  if (r.status == ESDIRK_SUCCESS) {
    std::vector<double> x(static_cast<std::size_t>(model.nx), 0.5), z(static_cast<std::size_t>(model.nz) + 1, 1.25);
    std::vector<double> p(static_cast<std::size_t>(model.np) + 1, 0.1);
    r.status = esdirk_solver_initialize(solver, 0.0, x.data(), model.nx, z.data(), model.nz, p.data(), model.np);
    const char* message = esdirk_solver_last_error(solver);
    check_message(message);
    if (all_accepted && r.status == ESDIRK_INVALID_ARGUMENT && !checked_at_the_run(message)) std::abort();
    if (r.status == ESDIRK_SUCCESS) {
      r.status = esdirk_solver_integrate_to(solver, tout, x.data(), model.nx, z.data(), model.nz);
      if (r.status == ESDIRK_SUCCESS)
        for (double v : x)
          if (!std::isfinite(v)) std::abort();
      r.x = x;
    }
  }
  if (!documented(r.status)) std::abort();
  for (int i = 0; esdirk_counter_name(i) != nullptr; ++i) {
    int64_t value = 0;
    if (esdirk_solver_get_counter(solver, esdirk_counter_name(i), &value) == ESDIRK_SUCCESS)
      r.counters.push_back(value);
  }
  esdirk_solver_free(&solver);
  return r;
}

bool same(const Run& a, const Run& b) {
  // memcmp only on states that exist: a run refused before integrating has none, and memcmp's
  // pointers must not be null even for a length of 0.
  return a.status == b.status && a.x.size() == b.x.size() &&
         (a.x.empty() || std::memcmp(a.x.data(), b.x.data(), a.x.size() * sizeof(double)) == 0) &&
         a.counters == b.counters;
}

// set_options on a handle: a documented status; refused only for what is documented; a
// refusal leaves the handle's method as it was.
template <class Handle, class SetOptions, class MethodName, class LastError>
void apply_to(Handle* h, const esdirk_options* o, SetOptions set_options, MethodName method_name,
              LastError last_error) {
  const std::string before = method_name(h);
  const int status = set_options(h, o);
  const char* message = last_error(h);
  check_message(message);
  if (!documented(status)) std::abort();
  if (status != ESDIRK_SUCCESS) {
    if (status != ESDIRK_INVALID_ARGUMENT) std::abort();
    if (!std::strstr(message, "set_jacobian_reuse") && !std::strstr(message, "set_algebraic_atol") &&
        !std::strstr(message, "set_sensitivity: ") && !std::strstr(message, "set_adjoint: "))
      std::abort();
    if (before != method_name(h)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  Model model;
  model.nx = in.ConsumeIntegralInRange<esdirk_int>(1, max_small_size);
  model.nz = in.ConsumeIntegralInRange<esdirk_int>(0, 2);
  model.np = in.ConsumeIntegralInRange<esdirk_int>(0, 2);
  for (esdirk_int i = 0; i < model.nx; ++i) model.k.push_back(in.ConsumeFloatingPointInRange<double>(0.0, 1e4));
  model.c = in.ConsumeFloatingPointInRange<double>(-1.0, 1.0);
  const esdirk_int nx = model.nx, nz = model.nz, np = model.np;

  esdirk_problem* problem = nullptr;
  if (esdirk_problem_create(nx, nz, np, residual, &model, &problem) != ESDIRK_SUCCESS) std::abort();
  esdirk_hybrid_problem* hybrid_problem = nullptr;
  if (esdirk_hybrid_problem_create(nx, nz, np, 0, 0, hybrid_residual, &model, &hybrid_problem) != ESDIRK_SUCCESS)
    std::abort();
  esdirk_solver* solver = nullptr;
  esdirk_shooting* shooting = nullptr;
  esdirk_reverse_shooting* reverse = nullptr;
  esdirk_multishoot* ms = nullptr;
  esdirk_hybrid_solver* hybrid = nullptr;
  if (esdirk_solver_create(problem, &solver) != ESDIRK_SUCCESS ||
      esdirk_shooting_create(problem, &shooting) != ESDIRK_SUCCESS ||
      esdirk_reverse_shooting_create(problem, &reverse) != ESDIRK_SUCCESS ||
      esdirk_multishoot_create(problem, 2, 1, &ms) != ESDIRK_SUCCESS ||
      esdirk_hybrid_solver_create(hybrid_problem, &hybrid) != ESDIRK_SUCCESS)
    std::abort();

  Object objects[2];
  std::vector<double> x(max_small_size), z(3), u(3, 0.1), A(max_small_size * max_small_size), B(max_small_size * 3);
  double H = 0.0;
  for (int call = 0; call < 24 && in.remaining_bytes() > 0; ++call) {
    Object& object = objects[in.ConsumeIntegralInRange<int>(0, 1)];
    const int what = in.ConsumeIntegralInRange<int>(0, 15);
    if (what < 9) {
      object.set(draw(in, nz));
      continue;
    }
    const esdirk_options* o = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? nullptr : object.options;
    if (o == nullptr) {
      // NULL options: ESDIRK_NULL_ARGUMENT with the reason on the handle.
      if (esdirk_solver_set_options(solver, nullptr) != ESDIRK_NULL_ARGUMENT) std::abort();
      check_message(esdirk_solver_last_error(solver));
      continue;
    }
    switch (what) {
      case 9:
        apply_to(solver, o, esdirk_solver_set_options, esdirk_solver_method_name, esdirk_solver_last_error);
        break;
      case 10:
        apply_to(shooting, o, esdirk_shooting_set_options, esdirk_shooting_method_name, esdirk_shooting_last_error);
        break;
      case 11:
        apply_to(reverse, o, esdirk_reverse_shooting_set_options, esdirk_reverse_shooting_method_name,
                 esdirk_reverse_shooting_last_error);
        break;
      case 12:
        apply_to(ms, o, esdirk_multishoot_set_options, esdirk_multishoot_method_name, esdirk_multishoot_last_error);
        break;
      case 13:
        apply_to(hybrid, o, esdirk_hybrid_solver_set_options, esdirk_hybrid_solver_method_name,
                 esdirk_hybrid_solver_last_error);
        break;
      case 14: {  // the shooting intervals run with what they were given
        const double t_end = in.ConsumeFloatingPointInRange<double>(1e-3, 2.0);
        model.calls = 0;
        for (esdirk_int i = 0; i < nx; ++i) x[i] = 0.5;
        z.assign(3, 1.25);
        const int status = in.ConsumeBool()
                               ? esdirk_shooting_integrate(shooting, 0.0, t_end, x.data(), nx, u.data(), np, z.data(),
                                                           nz, x.data(), z.data(), A.data(), nx, B.data(), nx, &H,
                                                           nullptr, nullptr)
                               : esdirk_reverse_shooting_integrate(reverse, 0.0, t_end, x.data(), nx, u.data(), np,
                                                                   z.data(), nz, x.data(), z.data(), &H);
        if (!documented(status)) std::abort();
        check_message(esdirk_shooting_last_error(shooting));
        check_message(esdirk_reverse_shooting_last_error(reverse));
        break;
      }
      default: {  // a solver run with this object, then the same object rebuilt from the accepted calls
        const double tout = in.ConsumeFloatingPointInRange<double>(1e-3, 2.0);
        model.calls = 0;
        const Run first = run_solver(problem, model, object.options, tout, false);
        Object replay;
        for (const Call& c : object.accepted) replay.set(c);
        model.calls = 0;
        const Run second = run_solver(problem, model, replay.options, tout, true);
        if (!same(first, second)) std::abort();
        break;
      }
    }
  }
  esdirk_hybrid_solver_free(&hybrid);
  esdirk_multishoot_free(&ms);
  esdirk_reverse_shooting_free(&reverse);
  esdirk_shooting_free(&shooting);
  esdirk_solver_free(&solver);
  esdirk_hybrid_problem_free(&hybrid_problem);
  esdirk_problem_free(&problem);
  return 0;
}
