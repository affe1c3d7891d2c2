#pragma once
// Shared by simulate() and the sensitivities: the request's checks, the solver's options, the
// start (initial point, t0 events), and an output's value over double or duals.

#include <string>
#include <vector>

#include "compiled_model.hpp"
#include "esdirk/events/hybrid_solver.hpp"
#include "esdirk/sbml/sbml.hpp"

namespace esdirk::sbml::detail {

class SbmlProblem;

HybridOptions hybrid_options(const CompiledModel& m, const SimulationOptions& options,
                             const std::vector<double>& output_times);
void check_request(const CompiledModel& m, const std::vector<double>& times, const std::vector<Output>& outputs);

/// Initial point, solver start, t0 events and the start again from their result. On failure
/// returns the status and sets `message`.
Status start(const CompiledModel& m, SbmlProblem& problem, HybridSolver& solver, double t0,
             std::vector<double>& x0, std::vector<double>& z0, std::vector<double>& p0, std::string& message);

/// An output's value from the slots after the dynamics program (double or dual slots).
template <class T>
T output_value(const CompiledModel& m, const std::vector<T>& slots, const Output& o) {
  const SymbolSlot& s = m.symbols.at(o.id);
  const T v = slots[static_cast<std::size_t>(s.value_slot)];
  if (o.quantity == Quantity::value || s.compartment_slot < 0) return v;
  const T size = slots[static_cast<std::size_t>(s.compartment_slot)];
  if (o.quantity == Quantity::amount) return s.value_is_amount ? v : v * size;
  return s.value_is_amount ? v / size : v;
}

}  // namespace esdirk::sbml::detail
