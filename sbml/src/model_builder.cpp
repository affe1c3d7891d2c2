// From the description to the compiled hybrid problem (doc/sbml.md, "Mapping"): who is a
// differential state, an algebraic variable, a parameter or a derived value; the slot layout;
// the dynamics program (assignment rules, concentrations, reaction rates, f and g in
// dependency order) and the event programs.
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <unordered_set>

#include "algebraic_rules.hpp"
#include "compiled_model.hpp"
#include "program_slice.hpp"
#include "esdirk/sbml/sbml.hpp"
#include "expression_compiler.hpp"
#include "sbml_problem.hpp"

namespace esdirk::sbml::detail {
namespace {

enum class Role { state, algebraic, parameter, assigned, reaction_rate };

constexpr int pending_slots_per_event = 8;

// The event function of a trigger: a continuous function whose sign is the trigger's truth
// where the trigger is a relation (a - b for a > b), min / max / - for and / or / not, and a
// step (+1 true, -1 false) for anything else (equalities, boolean symbols): its change is
// still located by the root finder's bisection.
Expr root_function(const Expr& b) {
  switch (b.op) {
    case Op::gt: case Op::ge: return Expr::make(Op::sub, {b.args[0], b.args[1]});
    case Op::lt: case Op::le: return Expr::make(Op::sub, {b.args[1], b.args[0]});
    case Op::logical_and: return Expr::make(Op::min, {root_function(b.args[0]), root_function(b.args[1])});
    case Op::logical_or: return Expr::make(Op::max, {root_function(b.args[0]), root_function(b.args[1])});
    case Op::logical_not: return Expr::make(Op::neg, {root_function(b.args[0])});
    default:
      return Expr::make(Op::sub, {Expr::make(Op::mul, {Expr::number(2.0), b}), Expr::number(1.0)});
  }
}

class Builder {
 public:
  explicit Builder(ModelDesc desc) : m_(std::make_unique<CompiledModel>()) { m_->desc = std::move(desc); }

  std::unique_ptr<CompiledModel> build() {
    assign_roles();
    layout();
    compile_dynamics();
    compile_events();
    slice_event_functions();
    m_->slot_count = c_.slot_count();
    m_->constants = c_.constants();
    m_->problem = std::make_unique<SbmlProblem>(*m_);
    return std::move(m_);
  }

 private:
  ModelDesc& d() { return m_->desc; }

  void assign_roles() {
    for (const ReactionDesc& r : d().reactions) reactions_.insert(r.id);
    roles_.resize(d().symbols.size());
    std::vector<int> candidates;
    for (std::size_t i = 0; i < d().symbols.size(); ++i) {
      const SymbolDesc& s = d().symbols[i];
      Role role;
      if (reactions_.count(s.id)) role = Role::reaction_rate;
      else if (s.rule == RuleKind::assignment) role = Role::assigned;
      else if (s.rule == RuleKind::rate) role = Role::state;
      // A species keeps its amount (constant ones too: in a compartment that changes size a
      // constant species' amount stays, its concentration follows the size).
      else if (s.kind == SymbolKind::species) role = Role::state;
      else if (s.constant) role = Role::parameter;
      else role = Role::parameter;
      if (s.rule == RuleKind::none && !s.constant && !reactions_.count(s.id) &&
          !(s.kind == SymbolKind::species && s.in_reactions))
        candidates.push_back(static_cast<int>(i));
      roles_[i] = role;
    }
    match_algebraic_rules(candidates);
  }

  // Each algebraic rule determines one variable not determined otherwise, chosen and checked
  // (index 1, structurally regular) by the structural module: algebraic_rules.cpp.
  void match_algebraic_rules(const std::vector<int>& candidates) {
    std::vector<int> states;
    for (std::size_t i = 0; i < roles_.size(); ++i)
      if (roles_[i] == Role::state) states.push_back(static_cast<int>(i));
    algebraic_ = determine_algebraic_variables(d(), states, candidates);
    for (int v : algebraic_) roles_[static_cast<std::size_t>(v)] = Role::algebraic;
  }

  // A state keeps a species' amount unless the species' math value is its state (a rate rule
  // gives the derivative of the math value itself).
  bool amount_state(const SymbolDesc& s) const {
    return s.kind == SymbolKind::species && s.rule == RuleKind::none && !s.only_substance;
  }

  void layout() {
    c_.add_named_slot("#time");
    std::vector<int> states, algebraics, parameters;
    for (std::size_t i = 0; i < d().symbols.size(); ++i) {
      switch (roles_[i]) {
        case Role::state: states.push_back(static_cast<int>(i)); break;
        case Role::algebraic: algebraics.push_back(static_cast<int>(i)); break;
        case Role::parameter: parameters.push_back(static_cast<int>(i)); break;
        default: break;
      }
    }
    // algebraic variables follow the rules' order (row r of g determines z r)
    algebraics.clear();
    for (int v : algebraic_) algebraics.push_back(v);
    for (int i : states) {
      const SymbolDesc& s = d().symbols[static_cast<std::size_t>(i)];
      Origin o;
      o.id = s.id;
      if (amount_state(s)) {
        o.amount_of_concentration = true;
        o.compartment = s.compartment;
        c_.add_named_slot("#amount:" + s.id);
        definitions_[s.id] = Expr::make(Op::div, {Expr::symbol_of("#amount:" + s.id), Expr::symbol_of(s.compartment)});
      } else {
        c_.add_named_slot(s.id);
      }
      m_->state_index[s.id] = static_cast<int>(m_->x_origin.size());
      m_->initial_value_ids.push_back(s.id);
      m_->x_origin.push_back(o);
      m_->x_names.push_back(s.id);
      state_symbols_.push_back(i);
    }
    if (states.empty()) {  // the integrator needs one state: a constant one
      c_.add_named_slot("#dummy");
      Origin o;
      o.fixed = 0.0;
      m_->x_origin.push_back(o);
      m_->x_names.push_back("#dummy");
      state_symbols_.push_back(-1);
    }
    m_->nx = static_cast<int>(m_->x_origin.size());
    m_->z_offset = m_->x_offset + m_->nx;
    for (int i : algebraics) {
      const SymbolDesc& s = d().symbols[static_cast<std::size_t>(i)];
      c_.add_named_slot(s.id);
      Origin o;
      o.id = s.id;
      m_->z_origin.push_back(o);
      m_->z_names.push_back(s.id);
    }
    m_->nz = static_cast<int>(m_->z_origin.size());
    m_->p_offset = m_->z_offset + m_->nz;
    for (int i : parameters) {
      const SymbolDesc& s = d().symbols[static_cast<std::size_t>(i)];
      c_.add_named_slot(s.id);
      Origin o;
      o.id = s.id;
      m_->parameter_index[s.id] = static_cast<int>(m_->p_origin.size());
      if (s.constant) m_->parameter_ids.push_back(s.id);
      else m_->initial_value_ids.push_back(s.id);
      m_->p_origin.push_back(o);
      m_->p_names.push_back(s.id);
    }
    // Pending delayed executions: per slot the execution time and the stored values.
    for (std::size_t e = 0; e < d().events.size(); ++e) {
      const EventDesc& ev = d().events[e];
      if (!ev.has_delay) continue;
      const int stride = 1 + (ev.use_values_from_trigger_time ? static_cast<int>(ev.assignments.size()) : 0);
      pending_parameter_.push_back(static_cast<int>(m_->p_origin.size()));
      for (int s = 0; s < pending_slots_per_event; ++s)
        for (int k = 0; k < stride; ++k) {
          Origin o;
          o.fixed = k == 0 ? inactive_time : 0.0;
          const std::string name = "#pending:" + ev.id + ":" + std::to_string(s) + (k == 0 ? ":time" : ":value" + std::to_string(k - 1));
          c_.add_named_slot(name);
          m_->p_origin.push_back(o);
          m_->p_names.push_back(name);
        }
    }
    // The latch of each event: its trigger's value as of the last transition (1 true), kept
    // current by transitions at both crossings; it tells a new firing from a repeated one.
    for (const EventDesc& ev : d().events) {
      Origin o;
      o.fixed = ev.initial_value ? 1.0 : 0.0;
      latch_parameter_.push_back(static_cast<int>(m_->p_origin.size()));
      c_.add_named_slot("#latch:" + ev.id);
      m_->p_origin.push_back(o);
      m_->p_names.push_back("#latch:" + ev.id);
    }
    m_->np = static_cast<int>(m_->p_origin.size());

    for (const ReactionDesc& r : d().reactions) definitions_[r.id] = r.rate;
    for (std::size_t i = 0; i < d().symbols.size(); ++i)
      if (roles_[i] == Role::assigned) definitions_[d().symbols[i].id] = d().symbols[i].rule_math;
  }

  Expr species_rate(const SymbolDesc& s) {
    std::vector<Expr> terms;
    for (const ReactionDesc& r : d().reactions)
      for (const ReactionTerm& t : r.terms)
        if (t.species == s.id)
          terms.push_back(Expr::make(Op::mul, {Expr::make(Op::mul, {Expr::number(t.sign), t.stoichiometry}),
                                               Expr::symbol_of(r.id)}));
    if (terms.empty() || s.boundary || s.constant) return Expr::number(0.0);
    Expr sum = terms[0];
    for (std::size_t k = 1; k < terms.size(); ++k) sum = Expr::make(Op::add, {sum, terms[k]});
    if (!s.conversion_factor.empty()) sum = Expr::make(Op::mul, {sum, Expr::symbol_of(s.conversion_factor)});
    return sum;
  }

  // d(value)/dt of an id for rateOf.
  Expr rate_of(const std::string& id) {
    const SymbolDesc* s = d().find(id);
    if (s == nullptr) throw ImportError("rateOf of the undefined id '" + id + "'", id);
    const Role role = roles_[static_cast<std::size_t>(d().index.at(id))];
    if (role == Role::parameter) return Expr::number(0.0);
    if (role != Role::state)
      throw UnsupportedFeature("rateOf of a variable set by an assignment or algebraic rule", id);
    if (!amount_state(*s)) return Expr::symbol_of("#dot:" + id);
    // [S] = n / V: d[S]/dt = (dn/dt - [S] dV/dt) / V
    return Expr::make(Op::div, {Expr::make(Op::sub, {Expr::symbol_of("#dot:" + id),
                                                     Expr::make(Op::mul, {Expr::symbol_of(id),
                                                                          Expr::symbol_of("#rateOf:" + s->compartment)})}),
                                Expr::symbol_of(s->compartment)});
  }

  void compile_dynamics() {
    // Derivatives of the states.
    for (std::size_t k = 0; k < state_symbols_.size(); ++k) {
      const int i = state_symbols_[k];
      if (i < 0) continue;
      const SymbolDesc& s = d().symbols[static_cast<std::size_t>(i)];
      definitions_["#dot:" + s.id] = s.rule == RuleKind::rate ? s.rule_math : species_rate(s);
    }
    c_.resolve = [this](const std::string& name) {
      if (name.rfind("#rateOf:", 0) == 0 && !definitions_.count(name))
        definitions_[name] = rate_of(name.substr(8));
      auto it = definitions_.find(name);
      if (it == definitions_.end()) return false;
      if (in_progress_.count(name))
        throw ImportError("the rules or reactions form a cycle through '" + name + "'", name);
      in_progress_.insert(name);
      const Expr definition = it->second;  // copy: the map may grow while compiling
      std::vector<std::string> names;
      collect_symbols(definition, names);
      const std::string saved = c_.context;
      c_.context = name;
      for (const std::string& n : names) c_.slot_of(n);
      c_.compile(definition, m_->dynamics, c_.add_named_slot(name));
      c_.context = saved;
      in_progress_.erase(name);
      return true;
    };
    for (std::size_t k = 0; k < state_symbols_.size(); ++k) {
      const int i = state_symbols_[k];
      m_->f_slots.push_back(i < 0 ? c_.constant(0.0) : c_.slot_of("#dot:" + d().symbols[static_cast<std::size_t>(i)].id));
    }
    for (std::size_t r = 0; r < d().algebraic_rules.size(); ++r) {
      c_.context = d().algebraic_rules[r].id;
      std::vector<std::string> names;
      collect_symbols(d().algebraic_rules[r].math, names);
      for (const std::string& n : names) c_.slot_of(n);
      m_->g_slots.push_back(c_.compile(d().algebraic_rules[r].math, m_->dynamics));
    }
    // Every id's value (outputs read them after the dynamics program).
    for (const SymbolDesc& s : d().symbols) {
      c_.context = s.id;
      SymbolSlot slot;
      slot.value_slot = c_.slot_of(s.id);
      if (s.kind == SymbolKind::species) {
        slot.compartment_slot = c_.slot_of(s.compartment);
        slot.value_is_amount = s.only_substance;
      }
      m_->symbols[s.id] = slot;
    }
  }

  Program compile_into_own(const Expr& e, int& slot, const std::string& context) {
    Program p;
    c_.context = context;
    std::vector<std::string> names;
    collect_symbols(e, names);
    for (const std::string& n : names) c_.slot_of(n);  // derived values join the dynamics
    slot = c_.compile(e, p);
    return p;
  }

  void compile_events() {
    const int n = static_cast<int>(d().events.size());
    int component = n;
    std::size_t pending = 0;
    for (int e = 0; e < n; ++e) {
      const EventDesc& ev = d().events[static_cast<std::size_t>(e)];
      EventCode code;
      code.id = ev.id;
      code.initial_value = ev.initial_value;
      code.persistent = ev.persistent;
      code.use_trigger_time_values = ev.use_values_from_trigger_time;
      code.has_delay = ev.has_delay;
      code.has_priority = ev.has_priority;
      code.component = e;
      code.latch_parameter = latch_parameter_[static_cast<std::size_t>(e)];
      code.trigger = compile_into_own(ev.trigger, code.trigger_slot, ev.id);
      if (ev.has_delay) code.delay = compile_into_own(ev.delay, code.delay_slot, ev.id);
      if (ev.has_priority) code.priority = compile_into_own(ev.priority, code.priority_slot, ev.id);
      for (const EventAssignmentDesc& a : ev.assignments) {
        std::vector<std::string> names;
        collect_symbols(a.math, names);
        c_.context = ev.id;
        for (const std::string& nm : names) c_.slot_of(nm);
        code.value_slots.push_back(c_.compile(a.math, code.values));
        code.targets.push_back(target_of(a.target, ev.id));
      }
      m_->max_assignments = std::max(m_->max_assignments, static_cast<int>(ev.assignments.size()));
      if (ev.has_delay) {
        code.first_pending_component = component;
        code.pending_slots = pending_slots_per_event;
        code.first_pending_parameter = pending_parameter_[pending++];
        component += pending_slots_per_event;
      }
      m_->events.push_back(std::move(code));
    }
    m_->ne = component;
    // Event functions: the triggers' root functions, then the pending executions' timers.
    for (int e = 0; e < n; ++e) {
      const EventDesc& ev = d().events[static_cast<std::size_t>(e)];
      const Expr h = root_function(ev.trigger);
      std::vector<std::string> names;
      collect_symbols(h, names);
      c_.context = ev.id;
      for (const std::string& nm : names) c_.slot_of(nm);
      m_->h_slots.push_back(c_.compile(h, m_->event_functions));
      m_->directions.push_back(EventDirection::both);
      m_->initial_events.push_back(false);
    }
    for (const EventCode& code : m_->events)
      for (int s = 0; s < code.pending_slots; ++s) {
        const int time_slot = m_->p_offset + code.first_pending_parameter + s * code.pending_stride();
        m_->h_slots.push_back(c_.compile(Expr::make(Op::sub, {Expr{Op::time, 0.0, {}, {}}, Expr::symbol_of(m_->p_names[static_cast<std::size_t>(time_slot - m_->p_offset)])}),
                                         m_->event_functions));
        m_->directions.push_back(EventDirection::rising);
        m_->initial_events.push_back(false);
      }
  }

  void slice_event_functions() {
    const Program* parts[] = {&m_->dynamics, &m_->event_functions};
    m_->event_values = slice(parts, m_->h_slots);
    const int inputs = m_->p_offset + m_->np;
    for (int h : m_->h_slots) {
      const int one[] = {h};
      m_->event_row_programs.push_back(slice(parts, one));
      m_->event_row_inputs.push_back(inputs_read(m_->event_row_programs.back(), one, inputs));
    }
  }

  AssignmentTarget target_of(const std::string& id, const std::string& event) {
    const std::size_t i = static_cast<std::size_t>(d().index.at(id));
    const SymbolDesc& s = d().symbols[i];
    AssignmentTarget t;
    switch (roles_[i]) {
      case Role::state:
        t.to_state = true;
        t.index = m_->state_index.at(id);
        if (amount_state(s)) t.compartment_slot = c_.slot_of(s.compartment);
        break;
      case Role::parameter:
        t.to_state = false;
        t.index = m_->parameter_index.at(id);
        break;
      default:
        throw UnsupportedFeature("an event assignment to a variable set by a rule", event);
    }
    // A compartment's new size keeps the amounts of its species: those kept as concentrations
    // (rate rules of species in concentration) are rescaled by old size / new size.
    if (s.kind == SymbolKind::compartment) {
      t.size_slot = c_.slot_of(s.id);
      for (std::size_t k = 0; k < state_symbols_.size(); ++k) {
        const int j = state_symbols_[k];
        if (j < 0) continue;
        const SymbolDesc& sp = d().symbols[static_cast<std::size_t>(j)];
        if (sp.kind == SymbolKind::species && sp.compartment == s.id && !sp.only_substance && !amount_state(sp))
          t.rescaled.push_back(static_cast<int>(k));
      }
    }
    return t;
  }

  std::unique_ptr<CompiledModel> m_;
  ExpressionCompiler c_;
  std::vector<Role> roles_;
  std::set<std::string> reactions_;
  std::vector<int> algebraic_;       // rule -> symbol
  std::vector<int> state_symbols_;   // x index -> symbol (-1: the constant state)
  std::vector<int> pending_parameter_;
  std::vector<int> latch_parameter_;
  std::unordered_map<std::string, Expr> definitions_;
  std::unordered_set<std::string> in_progress_;
};

}  // namespace

std::unique_ptr<CompiledModel> build_model(ModelDesc desc) { return Builder(std::move(desc)).build(); }

}  // namespace esdirk::sbml::detail
