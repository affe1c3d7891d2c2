#include "esdirk/statistics.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <utility>

namespace esdirk {
namespace {

// A counter and the module that counts it: table() shows the counters of the integrator always
// and those of the sensitivity, event and adjoint modules only when the run used the module
// (one of its counters is not zero), so that a plain ODE run prints no lines about modules it
// did not use; csv() and the C API always give every counter.
struct Row : StatisticsCounter {
  const char* module;
};

constexpr Row rows[] = {
    {{"steps", "NSTEP", &Statistics::steps}, "integrator"},
    {{"accepted_steps", "", &Statistics::accepted_steps}, "integrator"},
    {{"rejected_steps", "", &Statistics::rejected_steps}, "integrator"},
    {{"function_evaluations", "NFUN", &Statistics::function_evaluations}, "integrator"},
    {{"fd_function_evaluations", "", &Statistics::fd_function_evaluations}, "integrator"},
    {{"jacobian_evaluations", "NJAC", &Statistics::jacobian_evaluations}, "integrator"},
    {{"lu_factorizations", "NLU", &Statistics::lu_factorizations}, "integrator"},
    {{"back_substitutions", "NBACK", &Statistics::back_substitutions}, "integrator"},
    {{"stage_factorizations", "", &Statistics::stage_factorizations}, "sensitivity"},
    {{"dense_output_factorizations", "", &Statistics::dense_output_factorizations}, "integrator"},
    {{"newton_iterations", "", &Statistics::newton_iterations}, "integrator"},
    {{"newton_failures", "", &Statistics::newton_failures}, "integrator"},
    {{"jacobian_refreshes", "", &Statistics::jacobian_refreshes}, "integrator"},
    {{"newton_dampings", "", &Statistics::newton_dampings}, "integrator"},
    {{"stage_start_fallbacks", "", &Statistics::stage_start_fallbacks}, "integrator"},
    {{"jacobian_reuses", "", &Statistics::jacobian_reuses}, "integrator"},
    {{"lu_reuses", "", &Statistics::lu_reuses}, "integrator"},
    {{"steps_kept", "", &Statistics::steps_kept}, "integrator"},
    {{"callback_failures", "", &Statistics::callback_failures}, "integrator"},
    {{"parameter_jacobian_evaluations", "NJACP", &Statistics::parameter_jacobian_evaluations}, "sensitivity"},
    {{"sensitivity_solves", "NSENS", &Statistics::sensitivity_solves}, "sensitivity"},
    {{"events", "", &Statistics::events}, "events"},
    {{"adjoint_steps", "", &Statistics::adjoint_steps}, "adjoint"},
    {{"checkpoints", "", &Statistics::checkpoints}, "adjoint"},
    {{"event_function_evaluations", "", &Statistics::event_function_evaluations}, "events"},
    {{"event_fd_evaluations", "", &Statistics::event_fd_evaluations}, "events"},
    {{"event_root_iterations", "", &Statistics::event_root_iterations}, "events"},
    {{"event_dense_evaluations", "", &Statistics::event_dense_evaluations}, "events"},
    {{"event_transitions", "", &Statistics::event_transitions}, "events"},
    {{"event_reinitializations", "", &Statistics::event_reinitializations}, "events"},
    {{"event_grazing_warnings", "", &Statistics::event_grazing_warnings}, "events"},
    {{"adjoint_transposed_solves", "", &Statistics::adjoint_transposed_solves}, "adjoint"},
    {{"adjoint_factorizations", "", &Statistics::adjoint_factorizations}, "adjoint"},
    {{"adjoint_jacobian_evaluations", "", &Statistics::adjoint_jacobian_evaluations}, "adjoint"},
    {{"adjoint_recomputed_steps", "", &Statistics::adjoint_recomputed_steps}, "adjoint"},
    {{"linear_iterations", "", &Statistics::linear_iterations}, "krylov"},
    {{"preconditioner_setups", "", &Statistics::preconditioner_setups}, "krylov"},
    {{"preconditioner_solves", "", &Statistics::preconditioner_solves}, "krylov"},
    {{"jacobian_vector_products", "", &Statistics::jacobian_vector_products}, "krylov"},
    {{"linear_solver_failures", "", &Statistics::linear_solver_failures}, "krylov"},
};

// True if one of the module's counters is not zero: the run used the module.
bool module_in_use(const Statistics& s, const char* module) {
  for (const Row& row : rows)
    if (std::strcmp(row.module, module) == 0 && s.*row.counter != 0) return true;
  return false;
}

// The counters alone, in the order of rows.
constexpr auto counters = [] {
  std::array<StatisticsCounter, std::size(rows)> list{};
  for (std::size_t i = 0; i < list.size(); ++i) list[i] = rows[i];
  return list;
}();

}  // namespace

std::span<const StatisticsCounter> statistics_counters() { return counters; }

// += and -= touch every counter by name at compile time (a fold over rows): a shooting interval
// does both on every call, and a loop over the rows' member pointers cost ~240 instructions each.
// Every member of Statistics is a long counter listed in rows (checked here), so nothing is missed.
static_assert(sizeof(Statistics) == std::size(rows) * sizeof(long),
              "every member of Statistics is a long counter listed in rows");

namespace {

template <class Combine, std::size_t... I>
void combine(Statistics& into, const Statistics& other, Combine op, std::index_sequence<I...>) {
  ((into.*rows[I].counter = op(into.*rows[I].counter, other.*rows[I].counter)), ...);
}

}  // namespace

Statistics& Statistics::operator+=(const Statistics& other) {
  combine(*this, other, [](long x, long y) { return x + y; }, std::make_index_sequence<std::size(rows)>{});
  return *this;
}

Statistics& Statistics::operator-=(const Statistics& other) {
  combine(*this, other, [](long x, long y) { return x - y; }, std::make_index_sequence<std::size(rows)>{});
  return *this;
}

std::string Statistics::table() const {
  std::string out;
  char line[96];
  for (const Row& row : rows) {
    if (std::strcmp(row.module, "integrator") != 0 && !module_in_use(*this, row.module)) continue;
    std::string label = row.name;
    if (*row.seed_name) label += std::string(" (") + row.seed_name + ")";
    std::snprintf(line, sizeof line, "%-40s %12ld\n", label.c_str(), this->*row.counter);
    out += line;
  }
  return out;
}

std::string Statistics::csv() const {
  std::string out = "counter,value\n";
  for (const Row& row : rows)
    out += std::string(row.name) + "," + std::to_string(this->*row.counter) + "\n";
  return out;
}

}  // namespace esdirk
