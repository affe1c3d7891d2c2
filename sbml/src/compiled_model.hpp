#pragma once
// The imported model as the hybrid problem sees it: the slot layout, the compiled programs
// (dynamics, event functions, per-event triggers, delays, priorities and assignments) and what
// each state and parameter is. Built once by model_builder.cpp; shared read-only by every
// simulation.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "description.hpp"
#include "esdirk/events/hybrid_problem.hpp"
#include "program.hpp"

namespace esdirk::sbml::detail {

class SbmlProblem;

/// Where the value of an id lives after the dynamics program ran.
struct SymbolSlot {
  int value_slot = -1;        // the id's value in math
  int compartment_slot = -1;  // a species' compartment size, -1 for other ids
  bool value_is_amount = false;  // a species whose math value is its amount
};

/// One state, algebraic variable or parameter of the problem: which id starts it.
struct Origin {
  std::string id;              // the symbol ("" for bookkeeping entries)
  bool amount_of_concentration = false;  // x = value * size of `compartment`
  std::string compartment;
  double fixed = 0.0;          // bookkeeping: the initial value
};

/// An event assignment: where the value goes.
struct AssignmentTarget {
  bool to_state = true;  // x (else p)
  int index = 0;
  int compartment_slot = -1;  // >= 0: the value is a concentration, x = value * size
  int size_slot = -1;         // a compartment: its size, and the states kept as concentrations
  std::vector<int> rescaled;  // in it (x *= old size / new size)
};

struct EventCode {
  std::string id;
  bool initial_value = true, persistent = true, use_trigger_time_values = true;
  bool has_delay = false, has_priority = false;
  Program trigger, delay, priority, values;
  int trigger_slot = -1, delay_slot = -1, priority_slot = -1;
  std::vector<int> value_slots;
  std::vector<AssignmentTarget> targets;
  int component = 0;                 // its trigger's event function
  int first_pending_component = 0;   // the timers of its pending delayed executions
  int pending_slots = 0;
  int first_pending_parameter = 0;   // per slot: execution time, then the stored values
  int latch_parameter = 0;           // the trigger's value as of the last transition
  int pending_stride() const { return 1 + (use_trigger_time_values ? static_cast<int>(targets.size()) : 0); }
};

struct CompiledModel {
  ModelDesc desc;
  std::unordered_map<std::string, double> overrides;  // Model::set_value

  int nx = 0, nz = 0, np = 0, ne = 0;
  int slot_count = 0;
  int x_offset = 1, z_offset = 0, p_offset = 0;  // slot 0 is the time
  std::vector<std::pair<int, double>> constants;

  Program dynamics;  // derived values, f and g
  std::vector<int> f_slots, g_slots;
  Program event_functions;
  std::vector<int> h_slots;
  // Slices (program_slice.hpp) for the solver's frequent calls: the event functions' values
  // without f and g; per event function, the instructions its value needs and the inputs
  // (slots 0 .. p_offset + np - 1: t, x, z, p) it reads, for its gradient row.
  Program event_values;
  std::vector<Program> event_row_programs;
  std::vector<std::vector<int>> event_row_inputs;
  std::vector<EventDirection> directions;
  std::vector<bool> initial_events;
  std::vector<EventCode> events;
  int max_assignments = 0;

  std::vector<Origin> x_origin, z_origin, p_origin;
  std::vector<std::string> x_names, z_names, p_names;
  std::unordered_map<std::string, SymbolSlot> symbols;
  std::unordered_map<std::string, int> parameter_index;  // sensitivity ids -> p index
  std::unordered_map<std::string, int> state_index;      // initial-value ids -> x index
  std::vector<std::string> parameter_ids, initial_value_ids;

  std::unique_ptr<SbmlProblem> problem;
};

/// Marks an inactive pending execution (its timer t - T stays far below zero).
inline constexpr double inactive_time = 1e300;

/// Builds the compiled model from the description (throws ImportError, UnsupportedFeature).
std::unique_ptr<CompiledModel> build_model(ModelDesc desc);

/// The initial point: x0, z0 (a guess made consistent by the solver) and p0, from the declared
/// values, the overrides, the initial assignments and the rules, at time t0.
void initial_point(const CompiledModel& model, double t0, std::vector<double>& x0,
                   std::vector<double>& z0, std::vector<double>& p0);
/// The same with other overrides than the model's (sensitivity seeds).
void initial_point(const CompiledModel& model, const std::unordered_map<std::string, double>& overrides,
                   double t0, std::vector<double>& x0, std::vector<double>& z0, std::vector<double>& p0);
/// The exact derivative of the initial point (x0 rows, then p0 rows; column-major, one column
/// per id) with respect to the ids' declared values, by the same evaluation over dual numbers.
std::vector<double> initial_point_derivative(const CompiledModel& model, double t0,
                                             const std::vector<std::string>& ids);

}  // namespace esdirk::sbml::detail
