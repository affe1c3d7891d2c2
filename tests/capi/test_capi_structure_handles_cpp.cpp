// A hybrid problem with a banded or sparse Jacobian through the C API and through the C++
// classes (HybridProblem::set_jacobian_bandwidths / set_jacobian_pattern / sparse_jacobian,
// HybridOptions::integrator) gives the same run to the last bit: states, sensitivities, event
// times and counters, for band LU with the analytic sparse J, KLU with coloured differences,
// and the method and tolerance-rule setters of esdirk_method.h. (The heated chain with a
// thermostat of test_capi_structure_handles.c.)
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "esdirk/esdirk.h"
#include "esdirk/esdirk_method.h"
#include "esdirk/esdirk_sparse.h"
#include "esdirk/events/hybrid_solver.hpp"

namespace {

constexpr int kStates = 10, kParameters = 2;
constexpr double c = 6.0, t_final = 3.0, p_nominal[kParameters] = {0.5, 12.0};

double rate(int mode, int i, const double* x, const double* p) {
  const double left = i > 0 ? x[i - 1] : 0.0, right = i + 1 < kStates ? x[i + 1] : 0.0;
  return c * (left - 2.0 * x[i] + right) - p[0] * x[i] + (mode == 1 && i == 0 ? p[1] : 0.0);
}
double jacobian_entry(int i, int j, const double* p) { return i == j ? -2.0 * c - p[0] : c; }
double level(int mode) { return mode == 1 ? 0.30 : 0.15; }

// --- C callbacks ------------------------------------------------------------------------------
int c_residual(int mode, esdirk_int, esdirk_int, esdirk_int, esdirk_int, double, const double* x,
               const double*, const double* p, const double*, double* f, double*, void*) {
  for (int i = 0; i < kStates; ++i) f[i] = rate(mode, i, x, p);
  return 0;
}
int c_sparse_jacobian(int, esdirk_int, esdirk_int, esdirk_int, esdirk_int, double, const double*,
                      const double*, const double* p, const double*, esdirk_int,
                      const esdirk_int* ptr, const esdirk_int* rows, double* values, void*) {
  for (int j = 0; j < kStates; ++j)
    for (int k = ptr[j]; k < ptr[j + 1]; ++k) values[k] = jacobian_entry(rows[k], j, p);
  return 0;
}
int c_events(int mode, esdirk_int, esdirk_int, esdirk_int, esdirk_int, esdirk_int, double,
             const double* x, const double*, const double*, const double*, double* h, void*) {
  h[0] = x[0] - level(mode);
  return 0;
}
int c_transition(int mode, esdirk_int, const int*, int, esdirk_int, esdirk_int, esdirk_int,
                 esdirk_int, double, const double*, const double*, const double*, const double*,
                 int* next_mode, double*, void*) {
  *next_mode = 1 - mode;
  return 0;
}

// --- The same model in C++ --------------------------------------------------------------------
class Chain final : public esdirk::HybridProblem {
 public:
  explicit Chain(bool analytic) : HybridProblem(kStates, 0, kParameters, 1), analytic_(analytic) {}
  int evaluate(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector p,
               esdirk::ConstVector, esdirk::Vector f, esdirk::Vector) override {
    for (int i = 0; i < kStates; ++i) f[i] = rate(mode, i, x.data(), p.data());
    return 0;
  }
  bool has_sparse_jacobian() const override { return analytic_; }
  int sparse_jacobian(int, double, esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector p,
                      esdirk::ConstVector, esdirk::SparseMatrixRef J) override {
    for (int j = 0; j < kStates; ++j)
      for (int k = J.column_pointers()[j]; k < J.column_pointers()[j + 1]; ++k)
        J.values[k] = jacobian_entry(J.row_indices()[k], j, p.data());
    return 0;
  }
  int events(int mode, double, esdirk::ConstVector x, esdirk::ConstVector, esdirk::ConstVector,
             esdirk::ConstVector, esdirk::Vector h) override {
    h[0] = x[0] - level(mode);
    return 0;
  }
  int transition(int mode, const esdirk::TransitionCause&, double, esdirk::ConstVector,
                 esdirk::ConstVector, esdirk::ConstVector, esdirk::ConstVector, int& next_mode,
                 esdirk::Vector) override {
    next_mode = 1 - mode;
    return 0;
  }

 private:
  bool analytic_;
};

struct Run {
  std::vector<double> x = std::vector<double>(kStates),
                      S = std::vector<double>(kStates * kParameters), times;
  std::int64_t steps = 0, lus = 0, jacobians = 0;
  std::string method;
};

enum class Kind { band_analytic, klu_coloured };

std::vector<double> seed() {
  std::vector<double> s((kStates + kParameters) * kParameters, 0.0);
  s[kStates] = 1.0;
  s[(kStates + kParameters) + kStates + 1] = 1.0;
  return s;
}

// The tridiagonal pattern, 0-based CSC.
void tridiagonal(std::vector<int>& ptr, std::vector<int>& rows) {
  ptr.assign(1, 0);
  rows.clear();
  for (int j = 0; j < kStates; ++j) {
    for (int i = std::max(0, j - 1); i <= std::min(kStates - 1, j + 1); ++i) rows.push_back(i);
    ptr.push_back(static_cast<int>(rows.size()));
  }
}

Run through_c(Kind kind, const char* method, int raw) {
  Run run;
  esdirk_hybrid_problem* hp = nullptr;
  esdirk_hybrid_solver* s = nullptr;
  CHECK_STATUS(
      esdirk_hybrid_problem_create(kStates, 0, kParameters, 1, 0, c_residual, nullptr, &hp),
      ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_events(hp, c_events, nullptr), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_problem_set_transition(hp, c_transition, nullptr), ESDIRK_SUCCESS);
  if (kind == Kind::band_analytic) {
    CHECK_STATUS(esdirk_jacobian_structure_set_bandwidths(
                     esdirk_hybrid_problem_jacobian_structure(hp), 1, 1),
                 ESDIRK_SUCCESS);
    CHECK_STATUS(esdirk_hybrid_problem_set_sparse_jacobian(hp, c_sparse_jacobian), ESDIRK_SUCCESS);
  } else {
    std::vector<int> ptr, rows;
    tridiagonal(ptr, rows);
    CHECK_STATUS(
        esdirk_jacobian_structure_set_pattern(esdirk_hybrid_problem_jacobian_structure(hp),
                                              ptr.data(), rows.data(), ESDIRK_LINEAR_SOLVER_SPARSE),
        ESDIRK_SUCCESS);
  }
  CHECK_STATUS(esdirk_hybrid_solver_create(hp, &s), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_tolerances(s, 1e-7, 1e-9), ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_set_method(s, method), ESDIRK_SUCCESS);
  if (raw)
    CHECK_STATUS(esdirk_hybrid_solver_set_tolerance_rule(s, ESDIRK_TOLERANCE_RAW, 0.0),
                 ESDIRK_SUCCESS);
  const std::vector<double> x0(kStates, 0.0), sd = seed();
  CHECK_STATUS(esdirk_hybrid_solver_initialize(s, 0.0, 1, x0.data(), kStates, nullptr, 0, p_nominal,
                                               kParameters, nullptr, 0),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_start_sensitivities(s, sd.data(), kStates + kParameters,
                                                        kParameters, kStates + kParameters),
               ESDIRK_SUCCESS);
  CHECK_STATUS(esdirk_hybrid_solver_integrate_sensitivities_to(s, t_final, run.x.data(), kStates,
                                                               nullptr, 0, run.S.data(), kStates,
                                                               nullptr, 0, kParameters, nullptr),
               ESDIRK_SUCCESS);
  std::int64_t located = 0;
  esdirk_int logged = 0;
  esdirk_hybrid_solver_get_event_count(s, &located, &logged);
  for (esdirk_int k = 0; k < logged; ++k) {
    esdirk_event e = ESDIRK_EVENT_INIT;
    esdirk_hybrid_solver_get_event(s, k, &e);
    run.times.push_back(e.t);
  }
  esdirk_hybrid_solver_get_counter(s, "steps", &run.steps);
  esdirk_hybrid_solver_get_counter(s, "lu_factorizations", &run.lus);
  esdirk_hybrid_solver_get_counter(s, "jacobian_evaluations", &run.jacobians);
  run.method = esdirk_hybrid_solver_method_name(s);
  esdirk_hybrid_solver_free(&s);
  esdirk_hybrid_problem_free(&hp);
  return run;
}

Run through_cpp(Kind kind, const char* method, int raw) {
  Run run;
  Chain chain(kind == Kind::band_analytic);
  if (kind == Kind::band_analytic) {
    chain.set_jacobian_bandwidths(1, 1);
  } else {
    std::vector<int> ptr, rows;
    tridiagonal(ptr, rows);
    chain.set_jacobian_pattern(esdirk::SparsityPattern(kStates, ptr, rows),
                               esdirk::LinearSolverKind::sparse);
  }
  esdirk::HybridOptions options;
  options.integrator.rtol = 1e-7;
  options.integrator.atol = 1e-9;
  options.integrator.method = esdirk::MethodChoice::named(method);
  if (raw) options.integrator.tolerance_rule = esdirk::ToleranceRule::raw;
  esdirk::HybridSolver solver(chain, options);
  const std::vector<double> x0(kStates, 0.0), sd = seed();
  CHECK(solver.initialize(0.0, 1, x0, {}, std::vector<double>(p_nominal, p_nominal + kParameters),
                          {}) == esdirk::Status::success);
  CHECK(solver.initialize_sensitivities(esdirk::ConstMatrixRef(
            sd.data(), kStates + kParameters, kParameters, kStates + kParameters)) ==
        esdirk::Status::success);
  const esdirk::Outcome o = solver.integrate_to(
      t_final, run.x, {}, esdirk::MatrixRef{run.S.data(), kStates, kParameters, kStates});
  CHECK(esdirk::ok(o.status));
  for (int k = 0; k < solver.logged_events(); ++k) run.times.push_back(solver.event(k).t);
  run.steps = solver.statistics().steps;
  run.lus = solver.statistics().lu_factorizations;
  run.jacobians = solver.statistics().jacobian_evaluations;
  run.method = solver.integrator().method().name;
  return run;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void compare(Kind kind, const char* method, int raw) {
  const Run c_run = through_c(kind, method, raw), cpp_run = through_cpp(kind, method, raw);
  std::printf("%s %s%s: %zu events, %lld steps, %lld LUs\n",
              kind == Kind::band_analytic ? "band + analytic J" : "KLU + coloured differences",
              method, raw ? " (raw tolerances)" : "", cpp_run.times.size(),
              static_cast<long long>(cpp_run.steps), static_cast<long long>(cpp_run.lus));
  CHECK(cpp_run.times.size() >= 4);
  CHECK(same_bits(c_run.x, cpp_run.x));
  CHECK(same_bits(c_run.S, cpp_run.S));
  CHECK(same_bits(c_run.times, cpp_run.times));
  CHECK(c_run.steps == cpp_run.steps && c_run.lus == cpp_run.lus &&
        c_run.jacobians == cpp_run.jacobians);
  CHECK(c_run.method == cpp_run.method && c_run.method == method);
}

}  // namespace

int main() {
  compare(Kind::band_analytic, "ESDIRK34", 0);
  compare(Kind::klu_coloured, "ESDIRK34", 0);
  compare(Kind::band_analytic, "ESDIRK436", 0);
  compare(Kind::klu_coloured, "ESDIRK23", 1);
  return report();
}
