// libFuzzer target: the C API's integrator setup and use with random sizes, options, states
// and call orders. The bytes choose the sizes (mostly small, sometimes negative or huge), a
// small coupled ODE or index-1 DAE whose coefficients may be NaN, infinite or huge, callbacks
// that fail (recoverably, fatally or with NaN) at a chosen call, and then a sequence of C API
// calls with random arguments: every option setter (Jacobian and LU reuse included),
// initialize, restart, integrate_to, step, stop times, dense output, statistics, counters by
// name and forward sensitivities. The Newton-Krylov back-end (esdirk_sparse.h) takes part:
// half of the inputs start on it with settings in range, and calls among the others declare
// Jacobian patterns (full, the model's, its diagonal, random or malformed) for any back-end,
// set the GMRES settings (restarts up to and beyond the cap of 1000, the forcing term while
// derivatives are attached) and the Krylov options (the preconditioner too) with random values,
// each through the problem's structure handle or the deprecated per-problem call, set, change or remove the J v and preconditioner callbacks, which behave,
// fail (either sign), write NaN or stagnate (a preconditioner blind to its input, a zero J v),
// and make a new solver for the problem (a solver reads the problem's structure when made).
//
// What is checked on every call:
//  - the status is one of the documented codes and never ESDIRK_INTERNAL_ERROR (an exception
//    that reached the C boundary unexpectedly);
//  - the handle's message is a NUL-terminated string;
//  - a failed initialize or restart keeps the previous state (t and x bit for bit);
//  - a successful integrate_to writes finite states;
//  - the Krylov callbacks get the problem's sizes, NULL z and p exactly for empty ones, a valid
//    CSC J (sorted rows in range, nnz its last column pointer) and a finite h gamma, an
//    output that does not overlap the input, no transposed solve (there is no adjoint here),
//    and no preconditioner solve before the setup of the callbacks in place.
// Work per input is bounded: at most 24 calls, the step limit passed to the library is at
// most 60 steps per call and the failure limits at most 20, and the residual fails fatally
// after 600 calls in all (issue 27: the step bound alone allowed 24 x 60 steps of up to 8
// states with difference Jacobians, 235-380 inputs per second), so an input never runs long.
// The Krylov callbacks fail after 1500 calls in all, and the GMRES restarts passed on are
// mostly 0-6 (the dimension is at most n = nx + nz <= 11).

// The deprecated per-handle setters are fuzzed too while they exist (esdirk_options.h).
#define ESDIRK_NO_DEPRECATION_WARNINGS
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
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_sparse.h"

namespace {

constexpr esdirk_int max_small_size = 8;

// The model: x_i' = -k_i x_i + c_i x_{i+1} z_{i mod nz} + p_{i mod np} + s sin(w t),
//            0 = d_j z_j - x_j^2 - q_j.
struct Model {
  esdirk_int nx = 1, nz = 0, np = 0;
  std::vector<double> k, c, d, q;
  double s = 0.0, w = 1.0;
  // Failure injection: the call with this index (1-based) of the residual returns `code`
  // (0: none; > 0 recoverable; < 0 fatal; 99: writes NaN instead).
  long fail_at = 0;
  int code = 0;
  long calls = 0;
  // The Newton-Krylov callbacks in place: their behaviour, the failure injected at their
  // call with index krylov_fail_at (counted over the three), and the preconditioner's state.
  int product = 0, setup = 0, solve = 0;  // a Behaviour each
  long krylov_fail_at = 0;
  int krylov_code = 0;
  long krylov_calls = 0;
  bool set_up = false;           // the setup of the callbacks in place has run
  std::vector<double> diagonal;  // P: the diagonal of M = E - h gamma J (Jacobi)
};

// What a Krylov callback does: computes what it should (J v exactly; P the Jacobi diagonal of
// M), fails from its chosen call on with the chosen code, writes a NaN at its chosen call, or
// stagnates (J v: zero; P^{-1} r: the same vector whatever r is, so GMRES cannot progress).
enum Behaviour : int { behaves, fails, writes_nan, stagnates, behaviours };

// Krylov callback calls per input; later calls fail (the work bound of GMRES's callbacks).
constexpr long krylov_call_budget = 1500;

// Residual calls per input; later calls fail fatally (a documented status, and the work bound).
constexpr long call_budget = 600;

int residual(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
             const double* z, const double* p, double* f, double* g, void* user) {
  auto& m = *static_cast<Model*>(user);
  if (nx != m.nx || nz != m.nz || np != m.np) std::abort();  // the library passes its sizes
  ++m.calls;
  if (m.calls > call_budget) return -1;
  if (m.calls == m.fail_at && m.code != 99 && m.code != 0) return m.code;
  for (esdirk_int i = 0; i < nx; ++i) {
    const double coupling = nz > 0 ? z[i % nz] : 1.0;
    f[i] = -m.k[i] * x[i] + m.c[i] * x[(i + 1) % nx] * coupling + (np > 0 ? p[i % np] : 0.0) +
           m.s * std::sin(m.w * t);
  }
  for (esdirk_int j = 0; j < nz; ++j) g[j] = m.d[j] * z[j] - x[j % nx] * x[j % nx] - m.q[j];
  if (m.calls == m.fail_at && m.code == 99) f[0] = std::numeric_limits<double>::quiet_NaN();
  return 0;
}

// The exact Jacobian of the model (offered to the library when the bytes ask for it).
int jacobian(esdirk_int nx, esdirk_int nz, esdirk_int, double, const double* x, const double* z,
             const double*, double* J, esdirk_int ldj, void* user) {
  auto& m = *static_cast<Model*>(user);
  const esdirk_int n = nx + nz;
  for (esdirk_int col = 0; col < n; ++col)
    for (esdirk_int row = 0; row < n; ++row) J[row + col * ldj] = 0.0;
  for (esdirk_int i = 0; i < nx; ++i) {
    const double coupling = nz > 0 ? z[i % nz] : 1.0;
    J[i + i * ldj] += -m.k[i];
    J[i + ((i + 1) % nx) * ldj] += m.c[i] * coupling;
    if (nz > 0) J[i + (nx + i % nz) * ldj] += m.c[i] * x[(i + 1) % nx];
  }
  for (esdirk_int j = 0; j < nz; ++j) {
    J[nx + j + (nx + j) * ldj] = m.d[j];
    J[nx + j + (j % nx) * ldj] += -2.0 * x[j % nx];
  }
  return 0;
}

// Counts a Krylov callback's call; nonzero: the code it returns instead of its work.
int count_krylov_call(Model& m, int behaviour) {
  ++m.krylov_calls;
  if (m.krylov_calls > krylov_call_budget) return 1;
  if (behaviour == fails && m.krylov_calls >= m.krylov_fail_at) return m.krylov_code;
  return 0;
}

void check_arguments(const Model& m, esdirk_int nx, esdirk_int nz, esdirk_int np, const double* z,
                     const double* p) {
  if (nx != m.nx || nz != m.nz || np != m.np) std::abort();
  if ((z == nullptr) != (nz == 0) || (p == nullptr) != (np == 0)) std::abort();
}

bool overlap(const double* a, const double* b, esdirk_int n) { return a < b + n && b < a + n; }

int jacobian_vector(esdirk_int nx, esdirk_int nz, esdirk_int np, double, const double* x,
                    const double* z, const double* p, const double* v, double* out, void* user) {
  auto& m = *static_cast<Model*>(user);
  check_arguments(m, nx, nz, np, z, p);
  if (overlap(v, out, nx + nz)) std::abort();
  if (const int code = count_krylov_call(m, m.product)) return code;
  for (esdirk_int i = 0; i < nx; ++i) {
    const double coupling = nz > 0 ? z[i % nz] : 1.0;
    out[i] = -m.k[i] * v[i] + m.c[i] * coupling * v[(i + 1) % nx] +
             (nz > 0 ? m.c[i] * x[(i + 1) % nx] * v[nx + i % nz] : 0.0);
  }
  for (esdirk_int j = 0; j < nz; ++j) out[nx + j] = m.d[j] * v[nx + j] - 2.0 * x[j % nx] * v[j % nx];
  if (m.product == stagnates) std::fill(out, out + nx + nz, 0.0);
  if (m.product == writes_nan && m.krylov_calls >= m.krylov_fail_at)
    out[0] = std::numeric_limits<double>::quiet_NaN();
  return 0;
}

int preconditioner_setup(esdirk_int nx, esdirk_int nz, esdirk_int np, double, const double*,
                         const double* z, const double* p, double h_gamma, esdirk_int nnz,
                         const esdirk_int* column_pointers, const esdirk_int* row_indices,
                         const double* values, void* user) {
  auto& m = *static_cast<Model*>(user);
  check_arguments(m, nx, nz, np, z, p);
  const esdirk_int n = nx + nz;
  // h gamma is negative when integrating backwards, 0 for a step of a few subnormals.
  if (!std::isfinite(h_gamma)) std::abort();
  if (column_pointers[0] != 0 || column_pointers[n] != nnz) std::abort();
  for (esdirk_int j = 0; j < n; ++j) {
    if (column_pointers[j + 1] < column_pointers[j]) std::abort();
    for (esdirk_int k = column_pointers[j]; k < column_pointers[j + 1]; ++k)
      if (row_indices[k] < 0 || row_indices[k] >= n ||
          (k > column_pointers[j] && row_indices[k] <= row_indices[k - 1]))
        std::abort();
  }
  if (const int code = count_krylov_call(m, m.setup)) return code;
  // Jacobi: the diagonal of M = E - h gamma J (E: 1 on the differential rows, 0 elsewhere).
  m.diagonal.assign(static_cast<std::size_t>(n), 1.0);
  for (esdirk_int j = 0; j < n; ++j)
    for (esdirk_int k = column_pointers[j]; k < column_pointers[j + 1]; ++k)
      if (row_indices[k] == j) {
        const double d = j < nx ? 1.0 - h_gamma * values[k] : values[k];
        m.diagonal[j] = d != 0.0 && std::isfinite(d) ? d : 1.0;
      }
  if (m.setup == writes_nan && m.krylov_calls >= m.krylov_fail_at)
    m.diagonal[0] = std::numeric_limits<double>::quiet_NaN();
  m.set_up = true;
  return 0;
}

int preconditioner_solve(esdirk_int nx, esdirk_int nz, const double* r, double* out,
                         int transpose, void* user) {
  auto& m = *static_cast<Model*>(user);
  if (nx != m.nx || nz != m.nz || transpose != 0 || overlap(r, out, nx + nz)) std::abort();
  if (!m.set_up) std::abort();  // P^{-1} r with the P of the last setup: there was none
  if (const int code = count_krylov_call(m, m.solve)) return code;
  for (esdirk_int i = 0; i < nx + nz; ++i)
    out[i] = m.solve == stagnates ? 1.0 : r[i] / m.diagonal[static_cast<std::size_t>(i)];
  if (m.solve == writes_nan && m.krylov_calls >= m.krylov_fail_at)
    out[nx + nz - 1] = std::numeric_limits<double>::quiet_NaN();
  return 0;
}

// A double that is mostly moderate and sometimes special.
double value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return -std::numeric_limits<double>::infinity();
    case 3: return in.ConsumeFloatingPoint<double>();  // any finite double
    case 4: return 0.0;
    default: return in.ConsumeFloatingPointInRange<double>(-10.0, 10.0);
  }
}

// A size near `n`, sometimes hostile.
esdirk_int size_near(FuzzedDataProvider& in, esdirk_int n) {
  switch (in.ConsumeIntegralInRange<int>(0, 15)) {
    case 0: return -1;
    case 1: return n + 1;
    case 2: return n > 0 ? n - 1 : 0;
    case 3: return std::numeric_limits<esdirk_int>::max();
    default: return n;
  }
}

bool documented(int status) {
  return std::strcmp(esdirk_status_name(status), "unknown") != 0 &&
         status != ESDIRK_INTERNAL_ERROR;
}

void check(int status, const esdirk_solver* solver) {
  if (!documented(status)) std::abort();
  const char* message = esdirk_solver_last_error(solver);
  if (message == nullptr || std::strlen(message) > 100000) std::abort();
}

// Hostile sizes at creation: each must be refused quickly with a size status, or accepted.
bool hostile_sizes(FuzzedDataProvider& in) {
  if (in.ConsumeIntegralInRange<int>(0, 7) != 0) return false;
  const esdirk_int huge[] = {-1, 0, 1 << 30, std::numeric_limits<esdirk_int>::max(), 1 << 20};
  Model model;
  const esdirk_int nx = huge[in.ConsumeIntegralInRange<int>(0, 4)];
  const esdirk_int nz = huge[in.ConsumeIntegralInRange<int>(0, 4)];
  const esdirk_int np = huge[in.ConsumeIntegralInRange<int>(0, 4)];
  esdirk_problem* problem = nullptr;
  const int status = esdirk_problem_create(nx, nz, np, residual, &model, &problem);
  if (!documented(status)) std::abort();
  if (status == ESDIRK_SUCCESS) {
    // Accepted (a large but allowed size): creating a solver may run out of memory but must
    // say so; nothing is integrated at these sizes.
    esdirk_solver* solver = nullptr;
    const int created = esdirk_solver_create(problem, &solver);
    if (!documented(created)) std::abort();
    esdirk_solver_free(&solver);
  } else if (status != ESDIRK_INVALID_ARGUMENT && status != ESDIRK_OUT_OF_MEMORY) {
    std::abort();
  }
  esdirk_problem_free(&problem);
  return true;
}

// True where the model's J has an entry (row i, column j; x first, then z).
bool model_entry(const Model& m, esdirk_int i, esdirk_int j) {
  if (i < m.nx)
    return j == i || j == (i + 1) % m.nx || (m.nz > 0 && j == m.nx + i % m.nz);
  return j == i || j == (i - m.nx) % m.nx;
}

// esdirk_problem_set_jacobian_pattern with a pattern that is full, the model's, its diagonal,
// random, or malformed (a row out of range or twice in a column, a decreasing or nonzero first
// column pointer, NULL arrays: always inside the arrays given), for any back-end (mostly the
// Krylov one: `krylov` asks for it); or now and then back to a dense Jacobian.
int declare_pattern(FuzzedDataProvider& in, esdirk_problem* problem, const Model& m, bool krylov) {
  esdirk_jacobian_structure* structure = esdirk_problem_jacobian_structure(problem);
  const bool through_handle = in.ConsumeBool();
  const auto set_pattern = [&](const esdirk_int* pointers, const esdirk_int* rows, int solver) {
    return through_handle ? esdirk_jacobian_structure_set_pattern(structure, pointers, rows, solver)
                          : esdirk_problem_set_jacobian_pattern(problem, pointers, rows, solver);
  };
  if (!krylov && in.ConsumeIntegralInRange<int>(0, 7) == 0)
    return through_handle ? esdirk_jacobian_structure_clear(structure)
                          : esdirk_problem_clear_jacobian_structure(problem);
  const esdirk_int n = m.nx + m.nz;
  esdirk_int pointers[max_small_size + 4 + 1];
  esdirk_int rows[(max_small_size + 4) * (max_small_size + 4)];
  esdirk_int count = 0;
  const int kind = in.ConsumeIntegralInRange<int>(0, krylov ? 3 : 4);
  for (esdirk_int j = 0; j < n; ++j) {
    pointers[j] = count;
    for (esdirk_int i = 0; i < n; ++i) {
      const bool entry = kind == 0   ? true
                         : kind == 1 ? model_entry(m, i, j)
                         : kind == 2 ? i == j
                                     : in.ConsumeBool();
      if (entry) rows[count++] = i;
    }
  }
  pointers[n] = count;
  if (kind == 4 && count > 0) {
    const esdirk_int at = in.ConsumeIntegralInRange<esdirk_int>(0, count - 1);
    switch (in.ConsumeIntegralInRange<int>(0, 4)) {
      case 0: rows[at] = in.ConsumeBool() ? n : -1; break;
      case 1: rows[at] = at > 0 ? rows[at - 1] : rows[at]; break;
      case 2: pointers[0] = 1; break;
      case 3:
        if (n > 1) pointers[1] = count;  // then pointers[2] may be smaller
        break;
      case 4: return set_pattern(nullptr, rows, ESDIRK_LINEAR_SOLVER_KRYLOV);
    }
  }
  const int solvers[] = {ESDIRK_LINEAR_SOLVER_KRYLOV, ESDIRK_LINEAR_SOLVER_DENSE,
                         ESDIRK_LINEAR_SOLVER_BANDED, ESDIRK_LINEAR_SOLVER_SPARSE, -1, 4};
  const int solver = krylov || in.ConsumeBool() ? ESDIRK_LINEAR_SOLVER_KRYLOV
                                                : solvers[in.ConsumeIntegralInRange<int>(0, 5)];
  return set_pattern(pointers, rows, solver);
}

// esdirk_jacobian_structure_set_krylov or the deprecated esdirk_problem_set_krylov_settings: in
// range (`sane`) or anything, restarts mostly 0-6.
int krylov_settings(FuzzedDataProvider& in, esdirk_problem* problem, const Model& m, bool sane) {
  const esdirk_int n = m.nx + m.nz;
  const esdirk_int dimension = sane || in.ConsumeBool() ? in.ConsumeIntegralInRange<esdirk_int>(1, n)
                                                         : size_near(in, n);
  int restarts = in.ConsumeIntegralInRange<int>(0, 6);
  if (!sane) {
    switch (in.ConsumeIntegralInRange<int>(0, 15)) {
      case 0: restarts = -1; break;
      case 1: restarts = std::numeric_limits<int>::min(); break;
      case 2: restarts = in.ConsumeIntegralInRange<int>(7, 100); break;
      case 3: restarts = std::numeric_limits<int>::max(); break;  // refused: beyond 1000
      case 4: restarts = 1000 + in.ConsumeIntegralInRange<int>(0, 1); break;  // the cap
      default: break;
    }
  }
  const double tolerance = sane || in.ConsumeBool() ? in.ConsumeFloatingPointInRange<double>(1e-8, 0.5)
                                                    : value(in);
  const esdirk_int block_size = sane || in.ConsumeBool() ? in.ConsumeIntegralInRange<esdirk_int>(1, n)
                                                          : size_near(in, n);
  if (in.ConsumeBool())
    return esdirk_problem_set_krylov_settings(problem, dimension, restarts, tolerance, block_size);
  const double with_derivatives = sane || in.ConsumeBool()
                                      ? in.ConsumeFloatingPointInRange<double>(1e-8, 0.5)
                                      : value(in);
  return esdirk_jacobian_structure_set_krylov(esdirk_problem_jacobian_structure(problem), dimension,
                                              restarts, tolerance, with_derivatives, block_size);
}

// esdirk_jacobian_structure_set_krylov_options or the deprecated esdirk_problem_set_krylov_options:
// matrix-free or not, any sensitivity tolerance (and preconditioner, valid or not).
int krylov_options(FuzzedDataProvider& in, esdirk_problem* problem, bool sane) {
  const int matrix_free = in.ConsumeIntegralInRange<int>(-1, 1);
  const double tolerance = sane || in.ConsumeBool() ? in.ConsumeFloatingPointInRange<double>(1e-12, 0.5)
                                                    : value(in);
  if (in.ConsumeBool()) return esdirk_problem_set_krylov_options(problem, matrix_free, tolerance);
  const int preconditioner = in.ConsumeIntegralInRange<int>(0, 7) == 0 ? in.ConsumeIntegral<int>()
                                                                       : in.ConsumeIntegralInRange<int>(0, 1);
  return esdirk_jacobian_structure_set_krylov_options(esdirk_problem_jacobian_structure(problem),
                                                      matrix_free, tolerance, preconditioner);
}

// esdirk_problem_set_krylov_callbacks: each callback absent or with a behaviour, now and then
// a setup without a solve or the other way round (refused, nothing changed).
int krylov_callbacks(FuzzedDataProvider& in, esdirk_problem* problem, Model& m) {
  const auto pick = [&in] { return in.ConsumeIntegralInRange<int>(-1, behaviours - 1); };
  const int product = pick(), setup = pick();
  int solve = setup < 0 ? -1 : pick();
  if (solve < 0 && setup >= 0) solve = 0;
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) solve = solve < 0 ? 0 : -1;  // a lone half
  const int status = esdirk_problem_set_krylov_callbacks(
      problem, product < 0 ? nullptr : jacobian_vector, setup < 0 ? nullptr : preconditioner_setup,
      solve < 0 ? nullptr : preconditioner_solve);
  if (status == ESDIRK_SUCCESS) {
    const bool had_preconditioner = m.solve >= 0;
    m.product = product, m.setup = setup, m.solve = solve;
    // A preconditioner put in place has not been set up yet.
    if (!had_preconditioner && solve >= 0) m.set_up = false;
    m.krylov_fail_at = m.krylov_calls + in.ConsumeIntegralInRange<long>(0, 300);
    const int codes[] = {1, -1, 2, std::numeric_limits<int>::min()};
    m.krylov_code = codes[in.ConsumeIntegralInRange<int>(0, 3)];
  } else if (status != ESDIRK_INVALID_ARGUMENT) {
    std::abort();
  }
  return status;
}

// A problem-level call of the Krylov back-end (`which` in 0-3): pattern, GMRES settings,
// Krylov options, callbacks.
int krylov_call(FuzzedDataProvider& in, esdirk_problem* problem, Model& m, int which, bool sane) {
  switch (which) {
    case 0: return declare_pattern(in, problem, m, sane);
    case 1: return krylov_settings(in, problem, m, sane);
    case 2: return krylov_options(in, problem, sane);
    default: return krylov_callbacks(in, problem, m);
  }
}

void check_problem(int status, const esdirk_problem* problem) {
  if (!documented(status)) std::abort();
  const char* message = esdirk_problem_structure_error(problem);
  if (message == nullptr || std::strlen(message) > 100000) std::abort();
  // The handle's message is the same string.
  auto* structure = esdirk_problem_jacobian_structure(const_cast<esdirk_problem*>(problem));
  if (esdirk_jacobian_structure_last_error(structure) != message) std::abort();
}

// A solver for the problem (it reads the problem's structure), with the step bound.
esdirk_solver* new_solver(esdirk_problem* problem) {
  esdirk_solver* solver = nullptr;
  if (esdirk_solver_create(problem, &solver) != ESDIRK_SUCCESS) std::abort();
  // The default allows 500000 steps per call: bound the work of an input (case 3 keeps it).
  if (esdirk_solver_set_step_limits(solver, 0.0, 0.0, std::numeric_limits<double>::infinity(),
                                    60) != ESDIRK_SUCCESS)
    std::abort();
  return solver;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  if (hostile_sizes(in)) return 0;

  Model model;
  model.nx = in.ConsumeIntegralInRange<esdirk_int>(1, max_small_size);
  model.nz = in.ConsumeIntegralInRange<esdirk_int>(0, 3);
  model.np = in.ConsumeIntegralInRange<esdirk_int>(0, 3);
  for (esdirk_int i = 0; i < model.nx; ++i) {
    model.k.push_back(value(in));
    model.c.push_back(value(in));
  }
  for (esdirk_int j = 0; j < model.nz; ++j) {
    model.d.push_back(in.ConsumeBool() ? 1.0 : value(in));  // d = 0: singular dg/dz
    model.q.push_back(value(in));
  }
  model.s = value(in);
  model.w = value(in);
  model.fail_at = in.ConsumeIntegralInRange<long>(0, 200);
  const int codes[] = {0, 1, -1, 99};
  model.code = codes[in.ConsumeIntegralInRange<int>(0, 3)];

  esdirk_problem* problem = nullptr;
  if (esdirk_problem_create(model.nx, model.nz, model.np, residual, &model, &problem) !=
      ESDIRK_SUCCESS)
    std::abort();
  if (in.ConsumeBool() && esdirk_problem_set_jacobian(problem, jacobian) != ESDIRK_SUCCESS)
    std::abort();
  model.product = model.setup = model.solve = -1;  // no Krylov callbacks yet
  // Half of the inputs start on the Krylov back-end with settings in range, so that most of
  // their integrations run GMRES; the calls below may change any of it.
  if (in.ConsumeBool()) {
    for (int which = 0; which < 4; ++which)
      if (which == 0 || in.ConsumeIntegralInRange<int>(0, 3) != 0)
        check_problem(krylov_call(in, problem, model, which, true), problem);
  }
  esdirk_solver* solver = new_solver(problem);

  const esdirk_int nx = model.nx, nz = model.nz, np = model.np;
  std::vector<double> x(max_small_size + 2), z(max_small_size + 2), p(max_small_size + 2);
  std::vector<double> sx((max_small_size + 2) * 12), sz((max_small_size + 2) * 12);
  std::vector<double> seed(12 * 12), rtol(max_small_size + 2), atol(max_small_size + 2);
  bool initialized = false;

  for (int call = 0; call < 24 && in.remaining_bytes() > 0; ++call) {
    int status = ESDIRK_SUCCESS;
    switch (in.ConsumeIntegralInRange<int>(0, 25)) {
      case 0: status = esdirk_solver_set_tolerances(solver, value(in), value(in)); break;
      case 1: {
        const esdirk_int n = size_near(in, nx);
        const esdirk_int filled = std::min<esdirk_int>(n < 0 ? 0 : n, max_small_size + 2);
        for (esdirk_int i = 0; i < filled; ++i) rtol[i] = value(in), atol[i] = value(in);
        status = esdirk_solver_set_tolerance_vectors(solver, rtol.data(), atol.data(), filled);
        break;
      }
      case 2: {
        const esdirk_int n = std::min<esdirk_int>(size_near(in, nz), max_small_size + 2);
        for (esdirk_int i = 0; i < n; ++i) atol[i] = value(in);
        status = esdirk_solver_set_algebraic_atol(solver, atol.data(), n);
        break;
      }
      case 3: {
        const double h0 = value(in), hmin = value(in), hmax = value(in);
        status = esdirk_solver_set_step_limits(solver, h0, hmin, hmax,
                                               in.ConsumeIntegralInRange<long>(-2, 60));
        break;
      }
      case 4: {
        const int predictive = in.ConsumeIntegralInRange<int>(-1, 2);
        const double k1 = value(in), k2 = value(in), safety = value(in), lo = value(in);
        status = esdirk_solver_set_controller(solver, predictive, k1, k2, safety, lo, value(in));
        break;
      }
      case 5: {
        const int iterations = in.ConsumeIntegralInRange<int>(-1, 20);
        const double tolerance = value(in);
        status = esdirk_solver_set_newton(solver, iterations, tolerance, value(in));
        break;
      }
      case 6:
        status = esdirk_solver_set_filter_error_estimate(solver,
                                                         in.ConsumeIntegralInRange<int>(-1, 2));
        break;
      case 7: {
        const int a = in.ConsumeIntegralInRange<int>(-1, 20);
        const int b = in.ConsumeIntegralInRange<int>(-1, 20);
        status = esdirk_solver_set_failure_limits(solver, a, b,
                                                  in.ConsumeIntegralInRange<int>(-1, 20));
        break;
      }
      case 8:
      case 9: {
        // initialize (8) or restart (9): a failure must keep the previous state.
        double t_before = 0.0;
        std::vector<double> x_before(nx), z_before(nz + 1);
        const bool had_state =
            esdirk_solver_get_state(solver, &t_before, x_before.data(), nx, z_before.data(),
                                    nz) == ESDIRK_SUCCESS;
        const double t0 = value(in);
        for (esdirk_int i = 0; i < nx; ++i) x[i] = value(in);
        for (esdirk_int j = 0; j < nz; ++j) z[j] = in.ConsumeBool() ? 1.0 : value(in);
        for (esdirk_int j = 0; j < np; ++j) p[j] = value(in);
        const esdirk_int nx_arg = size_near(in, nx);
        const bool restart = (call & 1) != 0 && initialized;
        status = restart ? esdirk_solver_restart(solver, t0, x.data(), nx_arg, z.data(), nz,
                                                 p.data(), np)
                         : esdirk_solver_initialize(solver, t0, x.data(), nx_arg, z.data(), nz,
                                                    p.data(), np);
        if (status == ESDIRK_SUCCESS) {
          initialized = true;
        } else if (had_state) {
          double t_after = 0.0;
          std::vector<double> x_after(nx), z_after(nz + 1);
          if (esdirk_solver_get_state(solver, &t_after, x_after.data(), nx, z_after.data(),
                                      nz) != ESDIRK_SUCCESS)
            std::abort();
          if (std::memcmp(&t_after, &t_before, sizeof t_after) != 0 ||
              std::memcmp(x_after.data(), x_before.data(), nx * sizeof(double)) != 0)
            std::abort();
        }
        break;
      }
      case 10:
      case 11: {
        const double tout = value(in);
        status = esdirk_solver_integrate_to(solver, tout, x.data(), size_near(in, nx), z.data(),
                                            nz);
        if (status == ESDIRK_SUCCESS) {
          for (esdirk_int i = 0; i < nx; ++i)
            if (!std::isfinite(x[i])) std::abort();
        }
        break;
      }
      case 12: status = esdirk_solver_step(solver, value(in)); break;
      case 13:
        status = in.ConsumeBool() ? esdirk_solver_set_stop_time(solver, value(in))
                                  : esdirk_solver_clear_stop_time(solver);
        break;
      case 14:
        status = esdirk_solver_dense_output(solver, value(in), x.data(), size_near(in, nx),
                                            z.data(), nz);
        break;
      case 15: {
        esdirk_statistics statistics = ESDIRK_STATISTICS_INIT;
        if (in.ConsumeBool()) statistics.struct_size = in.ConsumeIntegralInRange<size_t>(0, 64);
        status = esdirk_solver_get_statistics(solver, &statistics);
        break;
      }
      case 16: {
        const std::string name = in.ConsumeRandomLengthString(32);
        int64_t counter = 0;
        status = esdirk_solver_get_counter(solver, name.c_str(), &counter);
        if (status == ESDIRK_SUCCESS && counter < 0) std::abort();
        break;
      }
      case 17: {
        const int mode = in.ConsumeIntegralInRange<int>(-1, 2);
        status = esdirk_solver_set_sensitivity_options(solver, mode,
                                                       in.ConsumeIntegralInRange<int>(-2, 2));
        break;
      }
      case 18: {
        const esdirk_int rows = size_near(in, nx + np);
        const esdirk_int ns = in.ConsumeIntegralInRange<esdirk_int>(-1, 12);
        const esdirk_int ld = std::max<esdirk_int>(rows, 1);
        const bool identity = in.ConsumeBool();
        if (!identity && rows >= 0 && ns >= 0 && rows <= 12)
          for (esdirk_int i = 0; i < rows * ns; ++i) seed[i] = value(in);
        const bool fits = rows >= 0 && ns >= 0 && rows <= 12;
        status = esdirk_solver_start_sensitivities(
            solver, identity || !fits ? nullptr : seed.data(), rows, ns, ld);
        break;
      }
      case 19: {
        const double tout = value(in);
        const esdirk_int ns = in.ConsumeIntegralInRange<esdirk_int>(0, 12);
        status = esdirk_solver_integrate_sensitivities_to(solver, tout, x.data(), nx, z.data(),
                                                          nz, sx.data(), max_small_size + 2,
                                                          sz.data(), max_small_size + 2, ns);
        break;
      }
      case 20:
      case 21:
      case 22:
      case 23:
        check_problem(krylov_call(in, problem, model, in.ConsumeIntegralInRange<int>(0, 3), false),
                      problem);
        break;
      case 24:  // a new solver: the structure and settings declared since apply to it
        esdirk_solver_free(&solver);
        solver = new_solver(problem);
        initialized = false;
        break;
      case 25: {
        // Jacobian and LU reuse: a kept preconditioner setup outlives the calls that follow.
        const double fraction = in.ConsumeBool() ? in.ConsumeProbability<double>() : value(in);
        status = in.ConsumeBool()
                     ? esdirk_solver_set_jacobian_reuse(solver, in.ConsumeIntegralInRange<int>(-1, 2),
                                                        fraction)
                     : esdirk_solver_set_lu_reuse_h_change(solver, fraction);
        break;
      }
    }
    check(status, solver);
  }
  esdirk_solver_free(&solver);
  esdirk_problem_free(&problem);
  return 0;
}
