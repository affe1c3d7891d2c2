// The initial point (doc/sbml.md, "Initial values"): every id's value at t0 from its initial
// assignment, its assignment rule or its declared value, in dependency order (a recursive
// evaluation with memory; a cycle is an ImportError), converted to the problem's states
// (amounts) and parameters. Runs at import (to refuse bad models) and at each simulate().
#include <cmath>
#include <unordered_set>

#include "compiled_model.hpp"
#include "esdirk/sbml/sbml.hpp"

namespace esdirk::sbml::detail {
namespace {

class InitialValues {
 public:
  InitialValues(const CompiledModel& model, const std::unordered_map<std::string, double>& overrides, double t0)
      : m_(model), overrides_(overrides), t0_(t0) {
    for (const ReactionDesc& r : model.desc.reactions) reactions_[r.id] = &r;
    for (const Origin& o : model.z_origin) algebraic_.insert(o.id);
  }

  double value(const std::string& id) {
    auto memo = memo_.find(id);
    if (memo != memo_.end()) return memo->second;
    if (active_.count(id))
      throw ImportError("the initial assignments and rules form a cycle through '" + id + "'", id);
    active_.insert(id);
    const double v = compute(id);
    active_.erase(id);
    memo_[id] = v;
    return v;
  }

 private:
  double compute(const std::string& id) {
    if (id.rfind("#rateOf:", 0) == 0) return rate_of(id.substr(8));
    auto r = reactions_.find(id);
    if (r != reactions_.end()) return eval(r->second->rate, id);
    const SymbolDesc* s = m_.desc.find(id);
    if (s == nullptr) throw ImportError("undefined id '" + id + "'", id);
    if (s->has_initial_assignment) return eval(s->initial_math, id);
    if (s->rule == RuleKind::assignment) return eval(s->rule_math, id);
    auto override_value = overrides_.find(id);
    const bool has = override_value != overrides_.end() || s->has_value;
    const double declared = override_value != overrides_.end() ? override_value->second : s->value;
    if (!has) {
      if (algebraic_.count(id)) return 1.0;  // a guess (sizes are positive): the solver makes z consistent
      throw UnsupportedFeature("an id without initial value", id);
    }
    if (s->kind != SymbolKind::species) return declared;
    // A species' value in math is its concentration unless hasOnlySubstanceUnits.
    if (s->only_substance == !s->value_is_concentration) return declared;
    const double size = value(s->compartment);
    return s->value_is_concentration ? declared * size : declared / size;
  }

  // rateOf(X) at t0: X's rate rule, or its reactions' rate (an amount's, divided by a constant
  // size for a concentration), 0 for what only events change; the rest is refused.
  double rate_of(const std::string& id) {
    const SymbolDesc* s = m_.desc.find(id);
    if (s == nullptr) throw ImportError("rateOf of the undefined id '" + id + "'", id);
    if (s->rule == RuleKind::rate) return eval(s->rule_math, id);
    if (s->rule != RuleKind::none || algebraic_.count(id) || reactions_.count(id))
      throw UnsupportedFeature("rateOf in an initial value of a variable set by a rule", id);
    if (s->kind != SymbolKind::species || s->constant || s->boundary) return 0.0;
    double rate = 0.0;
    for (const ReactionDesc& r : m_.desc.reactions)
      for (const ReactionTerm& t : r.terms)
        if (t.species == id) rate += t.sign * eval(t.stoichiometry, id) * value(r.id);
    if (!s->conversion_factor.empty()) rate *= value(s->conversion_factor);
    if (s->only_substance) return rate;
    const SymbolDesc* c = m_.desc.find(s->compartment);
    if (c == nullptr || !c->constant || c->rule != RuleKind::none)
      throw UnsupportedFeature("rateOf in an initial value of a species in a compartment that changes", id);
    return rate / value(s->compartment);
  }

  double eval(const Expr& e, const std::string& context) {
    switch (e.op) {
      case Op::constant: return e.value;
      case Op::time: return t0_;
      case Op::symbol: return value(e.name);
      case Op::select: return eval(e.args[0], context) != 0.0 ? eval(e.args[1], context) : eval(e.args[2], context);
      default: break;
    }
    if (e.args.size() == 1) return math::apply_unary(e.op, eval(e.args[0], context));
    const double a = eval(e.args[0], context), b = eval(e.args[1], context);
    if (e.op == Op::div && b == 0.0)
      throw ImportError("division by zero at initialization in the math of '" + context + "'", context);
    return math::apply_binary(e.op, a, b);
  }

  const CompiledModel& m_;
  const std::unordered_map<std::string, double>& overrides_;
  double t0_;
  std::unordered_map<std::string, double> memo_;
  std::unordered_set<std::string> active_;
  std::unordered_map<std::string, const ReactionDesc*> reactions_;
  std::unordered_set<std::string> algebraic_;
};

}  // namespace

void initial_point(const CompiledModel& model, double t0, std::vector<double>& x0,
                   std::vector<double>& z0, std::vector<double>& p0) {
  initial_point(model, model.overrides, t0, x0, z0, p0);
}

void initial_point(const CompiledModel& model, const std::unordered_map<std::string, double>& overrides,
                   double t0, std::vector<double>& x0, std::vector<double>& z0, std::vector<double>& p0) {
  InitialValues values(model, overrides, t0);
  auto start = [&](const Origin& o) {
    if (o.id.empty()) return o.fixed;
    double v = values.value(o.id);
    if (o.amount_of_concentration) v *= values.value(o.compartment);
    return v;
  };
  x0.resize(static_cast<std::size_t>(model.nx));
  z0.resize(static_cast<std::size_t>(model.nz));
  p0.resize(static_cast<std::size_t>(model.np));
  for (std::size_t i = 0; i < x0.size(); ++i) {
    x0[i] = start(model.x_origin[i]);
    if (!std::isfinite(x0[i]))
      throw ImportError("the initial value of '" + model.x_origin[i].id + "' is not finite", model.x_origin[i].id);
  }
  for (std::size_t i = 0; i < z0.size(); ++i) z0[i] = start(model.z_origin[i]);
  for (std::size_t i = 0; i < p0.size(); ++i) p0[i] = start(model.p_origin[i]);
}

}  // namespace esdirk::sbml::detail
