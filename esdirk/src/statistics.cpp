#include "esdirk/statistics.hpp"

#include <cstdio>
#include <utility>

namespace esdirk {
namespace {

using Row = StatisticsCounter;

constexpr Row rows[] = {
    {"steps", "NSTEP", &Statistics::steps},
    {"accepted_steps", "", &Statistics::accepted_steps},
    {"rejected_steps", "", &Statistics::rejected_steps},
    {"function_evaluations", "NFUN", &Statistics::function_evaluations},
    {"fd_function_evaluations", "", &Statistics::fd_function_evaluations},
    {"jacobian_evaluations", "NJAC", &Statistics::jacobian_evaluations},
    {"lu_factorizations", "NLU", &Statistics::lu_factorizations},
    {"back_substitutions", "NBACK", &Statistics::back_substitutions},
    {"stage_factorizations", "", &Statistics::stage_factorizations},
    {"dense_output_factorizations", "", &Statistics::dense_output_factorizations},
    {"newton_iterations", "", &Statistics::newton_iterations},
    {"newton_failures", "", &Statistics::newton_failures},
    {"jacobian_refreshes", "", &Statistics::jacobian_refreshes},
    {"newton_dampings", "", &Statistics::newton_dampings},
    {"jacobian_reuses", "", &Statistics::jacobian_reuses},
    {"lu_reuses", "", &Statistics::lu_reuses},
    {"steps_kept", "", &Statistics::steps_kept},
    {"callback_failures", "", &Statistics::callback_failures},
    {"parameter_jacobian_evaluations", "NJACP", &Statistics::parameter_jacobian_evaluations},
    {"sensitivity_solves", "NSENS", &Statistics::sensitivity_solves},
    {"events", "", &Statistics::events},
    {"adjoint_steps", "", &Statistics::adjoint_steps},
    {"checkpoints", "", &Statistics::checkpoints},
    {"event_function_evaluations", "", &Statistics::event_function_evaluations},
    {"event_fd_evaluations", "", &Statistics::event_fd_evaluations},
    {"event_root_iterations", "", &Statistics::event_root_iterations},
    {"event_dense_evaluations", "", &Statistics::event_dense_evaluations},
    {"event_transitions", "", &Statistics::event_transitions},
    {"event_reinitializations", "", &Statistics::event_reinitializations},
    {"event_grazing_warnings", "", &Statistics::event_grazing_warnings},
    {"adjoint_transposed_solves", "", &Statistics::adjoint_transposed_solves},
    {"adjoint_factorizations", "", &Statistics::adjoint_factorizations},
    {"adjoint_jacobian_evaluations", "", &Statistics::adjoint_jacobian_evaluations},
    {"adjoint_recomputed_steps", "", &Statistics::adjoint_recomputed_steps},
};

}  // namespace

std::span<const StatisticsCounter> statistics_counters() { return rows; }

Statistics& Statistics::operator+=(const Statistics& other) {
  for (const Row& row : rows) this->*row.counter += other.*row.counter;
  return *this;
}

Statistics& Statistics::operator-=(const Statistics& other) {
  for (const Row& row : rows) this->*row.counter -= other.*row.counter;
  return *this;
}

std::string Statistics::table() const {
  std::string out;
  char line[96];
  for (const Row& row : rows) {
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
