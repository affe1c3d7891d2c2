// The initial point (doc/sbml.md, "Initial values"): every id's value at t0 from its initial
// assignment, its assignment rule or its declared value, in dependency order (a recursive
// evaluation with memory; a cycle is an ImportError), converted to the problem's states
// (amounts) and parameters. Runs at import (to refuse bad models) and at each simulate().
// The same evaluation runs over ad::Dual<8> with unit directions on chosen ids' declared values:
// the exact derivative of the initial point with respect to them (the sensitivities' seed).
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "compiled_model.hpp"
#include "esdirk/sbml/sbml.hpp"

namespace esdirk::sbml::detail {
namespace {

// T is double (values) or ad::Dual<8> (values and derivatives along up to 8 ids' declared
// values, `directions`: id -> direction indices).
template <class T>
class InitialValues {
 public:
  InitialValues(const CompiledModel& model, const std::unordered_map<std::string, double>& overrides, double t0,
                const std::unordered_map<std::string, std::vector<int>>* directions = nullptr)
      : m_(model), overrides_(overrides), t0_(t0), directions_(directions) {
    for (const ReactionDesc& r : model.desc.reactions) reactions_[r.id] = &r;
    for (const Origin& o : model.z_origin) algebraic_.insert(o.id);
  }

  T value(const std::string& id) {
    auto memo = memo_.find(id);
    if (memo != memo_.end()) return memo->second;
    if (active_.count(id))
      throw ImportError("the initial assignments and rules form a cycle through '" + id + "'", id);
    active_.insert(id);
    const T v = compute(id);
    active_.erase(id);
    memo_[id] = v;
    return v;
  }

 private:
  T compute(const std::string& id) {
    if (id.rfind("#rateOf:", 0) == 0) return rate_of(id.substr(8));
    auto r = reactions_.find(id);
    if (r != reactions_.end()) return eval(r->second->rate, id);
    const SymbolDesc* s = m_.desc.find(id);
    if (s == nullptr) throw ImportError("undefined id '" + id + "'", id);
    if (s->has_initial_assignment) return eval(s->initial_math, id);
    if (s->rule == RuleKind::assignment) return eval(s->rule_math, id);
    auto override_value = overrides_.find(id);
    const std::vector<int>* along = nullptr;
    if (directions_ != nullptr) {
      auto d = directions_->find(id);
      if (d != directions_->end()) along = &d->second;
    }
    const bool has = override_value != overrides_.end() || s->has_value || along != nullptr;
    T declared(override_value != overrides_.end() ? override_value->second : s->value);
    if (along != nullptr) seed(declared, *along);
    if (!has) {
      if (algebraic_.count(id)) return 1.0;  // a guess (sizes are positive): the solver makes z consistent
      throw UnsupportedFeature("an id without initial value", id);
    }
    if (s->kind != SymbolKind::species) return declared;
    // A species' value in math is its concentration unless hasOnlySubstanceUnits.
    if (s->only_substance == !s->value_is_concentration) return declared;
    const T size = value(s->compartment);
    return s->value_is_concentration ? declared * size : declared / size;
  }

  // rateOf(X) at t0: X's rate rule, or its reactions' rate (an amount's, divided by a constant
  // size for a concentration), 0 for what only events change; the rest is refused.
  T rate_of(const std::string& id) {
    const SymbolDesc* s = m_.desc.find(id);
    if (s == nullptr) throw ImportError("rateOf of the undefined id '" + id + "'", id);
    if (s->rule == RuleKind::rate) return eval(s->rule_math, id);
    if (s->rule != RuleKind::none || algebraic_.count(id) || reactions_.count(id))
      throw UnsupportedFeature("rateOf in an initial value of a variable set by a rule", id);
    if (s->kind != SymbolKind::species || s->constant || s->boundary) return T(0.0);
    T rate(0.0);
    for (const ReactionDesc& r : m_.desc.reactions)
      for (const ReactionTerm& t : r.terms)
        if (t.species == id) rate = rate + t.sign * eval(t.stoichiometry, id) * value(r.id);
    if (!s->conversion_factor.empty()) rate = rate * value(s->conversion_factor);
    if (s->only_substance) return rate;
    const SymbolDesc* c = m_.desc.find(s->compartment);
    if (c == nullptr || !c->constant || c->rule != RuleKind::none)
      throw UnsupportedFeature("rateOf in an initial value of a species in a compartment that changes", id);
    return rate / value(s->compartment);
  }

  T eval(const Expr& e, const std::string& context) {
    switch (e.op) {
      case Op::constant: return T(e.value);
      case Op::time: return T(t0_);
      case Op::symbol: return value(e.name);
      case Op::select: return math::value_of(eval(e.args[0], context)) != 0.0 ? eval(e.args[1], context) : eval(e.args[2], context);
      default: break;
    }
    if (e.args.size() == 1) return math::apply_unary(e.op, eval(e.args[0], context));
    const T a = eval(e.args[0], context), b = eval(e.args[1], context);
    if (e.op == Op::div && math::value_of(b) == 0.0)
      throw ImportError("division by zero at initialization in the math of '" + context + "'", context);
    return math::apply_binary(e.op, a, b);
  }

  const CompiledModel& m_;
  const std::unordered_map<std::string, double>& overrides_;
  // A declared value that is a direction of differentiation: derivative 1 along it.
  static void seed(double&, const std::vector<int>&) {}
  static void seed(ad::Dual<8>& v, const std::vector<int>& along) {
    for (int k : along) v.d[static_cast<std::size_t>(k)] = 1.0;
  }

  double t0_;
  const std::unordered_map<std::string, std::vector<int>>* directions_;
  std::unordered_map<std::string, T> memo_;
  std::unordered_set<std::string> active_;
  std::unordered_map<std::string, const ReactionDesc*> reactions_;
  std::unordered_set<std::string> algebraic_;
};

// The problem's start from the id values: x, z, p by their origins.
template <class T>
void start_point(const CompiledModel& model, InitialValues<T>& values, std::vector<T>& x0, std::vector<T>& z0,
                 std::vector<T>& p0) {
  auto start = [&](const Origin& o) {
    if (o.id.empty()) return T(o.fixed);
    T v = values.value(o.id);
    if (o.amount_of_concentration) v = v * values.value(o.compartment);
    return v;
  };
  x0.resize(static_cast<std::size_t>(model.nx));
  z0.resize(static_cast<std::size_t>(model.nz));
  p0.resize(static_cast<std::size_t>(model.np));
  for (std::size_t i = 0; i < x0.size(); ++i) {
    x0[i] = start(model.x_origin[i]);
    if (!std::isfinite(math::value_of(x0[i])))
      throw ImportError("the initial value of '" + model.x_origin[i].id + "' is not finite", model.x_origin[i].id);
  }
  for (std::size_t i = 0; i < z0.size(); ++i) z0[i] = start(model.z_origin[i]);
  for (std::size_t i = 0; i < p0.size(); ++i) p0[i] = start(model.p_origin[i]);
}

}  // namespace

void initial_point(const CompiledModel& model, double t0, std::vector<double>& x0,
                   std::vector<double>& z0, std::vector<double>& p0) {
  initial_point(model, model.overrides, t0, x0, z0, p0);
}

void initial_point(const CompiledModel& model, const std::unordered_map<std::string, double>& overrides,
                   double t0, std::vector<double>& x0, std::vector<double>& z0, std::vector<double>& p0) {
  InitialValues<double> values(model, overrides, t0);
  start_point(model, values, x0, z0, p0);
}

std::vector<double> initial_point_derivative(const CompiledModel& model, double t0,
                                             const std::vector<std::string>& ids) {
  const std::size_t rows = static_cast<std::size_t>(model.nx + model.np);
  std::vector<double> jacobian(rows * ids.size(), 0.0);
  std::vector<ad::Dual<8>> x0, z0, p0;
  for (std::size_t first = 0; first < ids.size(); first += 8) {
    const std::size_t count = std::min<std::size_t>(8, ids.size() - first);
    std::unordered_map<std::string, std::vector<int>> directions;
    for (std::size_t k = 0; k < count; ++k) directions[ids[first + k]].push_back(static_cast<int>(k));
    InitialValues<ad::Dual<8>> values(model, model.overrides, t0, &directions);
    start_point(model, values, x0, z0, p0);
    for (std::size_t k = 0; k < count; ++k) {
      double* column = &jacobian[(first + k) * rows];
      for (std::size_t i = 0; i < x0.size(); ++i) column[i] = x0[i].d[k];
      for (std::size_t i = 0; i < p0.size(); ++i) column[x0.size() + i] = p0[i].d[k];
    }
  }
  return jacobian;
}

}  // namespace esdirk::sbml::detail
