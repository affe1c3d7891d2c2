// The SBML reader: libSBML parses and checks the document, flattens hierarchical models, and
// this file turns the model into the importer's description, refusing what it cannot map.
#include "import.hpp"

#include <sbml/SBMLTypes.h>
#include <sbml/conversion/ConversionProperties.h>
#include <sbml/packages/fbc/extension/FbcModelPlugin.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <memory>
#include <optional>
#include <unordered_map>

namespace esdirk::sbml::detail {
namespace {

constexpr double avogadro = 6.02214179e23;  // the value SBML Level 3 Version 1 fixes

// Local parameters of the reaction whose kinetic law is being read: id -> global name.
using LocalScope = std::unordered_map<std::string, std::string>;

Expr substitute_all(const Expr& e, const std::unordered_map<std::string, Expr>& map) {
  if (e.op == Op::symbol) {
    auto it = map.find(e.name);
    if (it != map.end()) return it->second;
  }
  Expr r = e;
  for (Expr& a : r.args) a = substitute_all(a, map);
  return r;
}

// The MathML functions of one argument that map to one operation of the compiled program.
std::optional<Op> elementary_function(::ASTNodeType_t type) {
  switch (type) {
    case AST_FUNCTION_EXP: return Op::exp;
    case AST_FUNCTION_LN: return Op::ln;
    case AST_FUNCTION_ABS: return Op::abs;
    case AST_FUNCTION_FLOOR: return Op::floor;
    case AST_FUNCTION_CEILING: return Op::ceil;
    case AST_FUNCTION_FACTORIAL: return Op::factorial;
    case AST_FUNCTION_SIN: return Op::sin;
    case AST_FUNCTION_COS: return Op::cos;
    case AST_FUNCTION_TAN: return Op::tan;
    case AST_FUNCTION_SEC: return Op::sec;
    case AST_FUNCTION_CSC: return Op::csc;
    case AST_FUNCTION_COT: return Op::cot;
    case AST_FUNCTION_ARCSIN: return Op::asin;
    case AST_FUNCTION_ARCCOS: return Op::acos;
    case AST_FUNCTION_ARCTAN: return Op::atan;
    case AST_FUNCTION_ARCSEC: return Op::asec;
    case AST_FUNCTION_ARCCSC: return Op::acsc;
    case AST_FUNCTION_ARCCOT: return Op::acot;
    case AST_FUNCTION_SINH: return Op::sinh;
    case AST_FUNCTION_COSH: return Op::cosh;
    case AST_FUNCTION_TANH: return Op::tanh;
    case AST_FUNCTION_SECH: return Op::sech;
    case AST_FUNCTION_CSCH: return Op::csch;
    case AST_FUNCTION_COTH: return Op::coth;
    case AST_FUNCTION_ARCSINH: return Op::asinh;
    case AST_FUNCTION_ARCCOSH: return Op::acosh;
    case AST_FUNCTION_ARCTANH: return Op::atanh;
    case AST_FUNCTION_ARCSECH: return Op::asech;
    case AST_FUNCTION_ARCCSCH: return Op::acsch;
    case AST_FUNCTION_ARCCOTH: return Op::acoth;
    default: return std::nullopt;
  }
}

Expr fold(Op op, std::vector<Expr> args, double empty) {
  if (args.empty()) return Expr::number(empty);
  Expr r = std::move(args[0]);
  for (std::size_t i = 1; i < args.size(); ++i) r = Expr::make(op, {std::move(r), std::move(args[i])});
  return r;
}

class Reader {
 public:
  explicit Reader(const ::Model& model) : model_(model) {
    for (unsigned i = 0; i < model.getNumFunctionDefinitions(); ++i) {
      const ::FunctionDefinition* f = model.getFunctionDefinition(i);
      functions_[f->getId()] = f;
    }
  }

  ModelDesc read() {
    desc_.id = model_.getId();
    read_compartments();
    read_species();
    read_parameters();
    read_reactions();
    read_rules();
    read_initial_assignments();
    read_events();
    check_sizeless();
    return std::move(desc_);
  }

  void check_sizeless() const {
    std::vector<const Expr*> all;
    for (const SymbolDesc& s : desc_.symbols) {
      all.push_back(&s.rule_math);
      all.push_back(&s.initial_math);
    }
    for (const ReactionDesc& r : desc_.reactions) {
      all.push_back(&r.rate);
      for (const ReactionTerm& t : r.terms) all.push_back(&t.stoichiometry);
    }
    for (const AlgebraicRuleDesc& a : desc_.algebraic_rules) all.push_back(&a.math);
    for (const EventDesc& e : desc_.events) {
      all.push_back(&e.trigger);
      all.push_back(&e.delay);
      all.push_back(&e.priority);
      for (const EventAssignmentDesc& a : e.assignments) all.push_back(&a.math);
    }
    for (const SymbolDesc& c : desc_.symbols)
      if (c.sizeless)
        for (const Expr* e : all)
          if (mentions(*e, c.id) || mentions(*e, "#rateOf:" + c.id))
            throw UnsupportedFeature("the size of a zero-dimensional compartment in math", c.id);
  }

 private:
  [[noreturn]] void unsupported(const std::string& feature, const ::SBase* element) const {
    throw UnsupportedFeature(feature, element_name(element), element ? element->getLine() : 0);
  }
  static std::string element_name(const ::SBase* element) {
    if (element == nullptr) return {};
    if (element->isSetId()) return element->getId();
    if (element->isSetMetaId()) return element->getMetaId();
    return element->getElementName();
  }

  SymbolDesc& add_symbol(const std::string& id, SymbolKind kind, const ::SBase* element) {
    if (desc_.index.count(id))
      throw ImportError("the id '" + id + "' is defined twice", id, element->getLine());
    desc_.index[id] = static_cast<int>(desc_.symbols.size());
    desc_.symbols.emplace_back();
    desc_.symbols.back().id = id;
    desc_.symbols.back().kind = kind;
    return desc_.symbols.back();
  }

  SymbolDesc& symbol_for(const std::string& id, const ::SBase* element) {
    SymbolDesc* s = desc_.find(id);
    if (s == nullptr)
      throw ImportError("'" + element_name(element) + "' refers to the undefined id '" + id + "'",
                        element_name(element), element->getLine());
    return *s;
  }

  Expr math(const ::ASTNode* node, const ::SBase* element, const LocalScope* local = nullptr) {
    if (node == nullptr) unsupported("an element without math", element);
    return convert(node, element, local, 0);
  }

  Expr convert(const ::ASTNode* n, const ::SBase* element, const LocalScope* local, int depth) {
    auto child = [&](unsigned i) { return convert(n->getChild(i), element, local, depth); };
    auto children = [&]() {
      std::vector<Expr> out;
      for (unsigned i = 0; i < n->getNumChildren(); ++i) out.push_back(child(i));
      return out;
    };
    auto unary = [&](Op op) {
      if (n->getNumChildren() != 1) unsupported("a MathML function with the wrong number of arguments", element);
      return Expr::make(op, {child(0)});
    };
    auto binary = [&](Op op) {
      if (n->getNumChildren() != 2) unsupported("a MathML function with the wrong number of arguments", element);
      return Expr::make(op, {child(0), child(1)});
    };
    auto relational = [&](Op op) {
      std::vector<Expr> a = children();
      if (a.size() < 2) unsupported("a relational operator with fewer than two arguments", element);
      std::vector<Expr> pairs;
      for (std::size_t i = 0; i + 1 < a.size(); ++i) pairs.push_back(Expr::make(op, {a[i], a[i + 1]}));
      return fold(Op::logical_and, std::move(pairs), 1.0);
    };
    if (const std::optional<Op> op = elementary_function(n->getType())) return unary(*op);
    switch (n->getType()) {
      case AST_INTEGER: return Expr::number(static_cast<double>(n->getInteger()));
      case AST_REAL: case AST_REAL_E: case AST_RATIONAL: return Expr::number(n->getReal());
      case AST_NAME: {
        const std::string name = n->getName();
        if (local) {
          auto it = local->find(name);
          if (it != local->end()) return Expr::symbol_of(it->second);
        }
        return Expr::symbol_of(name);
      }
      case AST_NAME_TIME: {
        Expr e;
        e.op = Op::time;
        return e;
      }
      case AST_NAME_AVOGADRO: return Expr::number(avogadro);
      case AST_CONSTANT_E: return Expr::number(std::exp(1.0));
      case AST_CONSTANT_PI: return Expr::number(M_PI);
      case AST_CONSTANT_TRUE: return Expr::number(1.0);
      case AST_CONSTANT_FALSE: return Expr::number(0.0);
      case AST_PLUS: return fold(Op::add, children(), 0.0);
      case AST_TIMES: return fold(Op::mul, children(), 1.0);
      case AST_MINUS:
        if (n->getNumChildren() == 1) return Expr::make(Op::neg, {child(0)});
        return binary(Op::sub);
      case AST_DIVIDE: return binary(Op::div);
      case AST_POWER: case AST_FUNCTION_POWER: return binary(Op::pow);
      case AST_FUNCTION_ROOT:
        if (n->getNumChildren() == 1) return Expr::make(Op::sqrt, {child(0)});
        if (n->getNumChildren() == 2) {
          Expr degree = child(0), x = child(1);
          if (degree.is_number() && degree.value == 2.0) return Expr::make(Op::sqrt, {x});
          return Expr::make(Op::pow, {x, Expr::make(Op::div, {Expr::number(1.0), degree})});
        }
        unsupported("root with more than two arguments", element);
      case AST_FUNCTION_LOG:
        if (n->getNumChildren() == 1) return Expr::make(Op::log10, {child(0)});
        if (n->getNumChildren() == 2) {
          Expr base = child(0), x = child(1);
          if (base.is_number() && base.value == 10.0) return Expr::make(Op::log10, {x});
          return Expr::make(Op::div, {Expr::make(Op::ln, {x}), Expr::make(Op::ln, {base})});
        }
        unsupported("log with more than two arguments", element);
      case AST_RELATIONAL_LT: return relational(Op::lt);
      case AST_RELATIONAL_GT: return relational(Op::gt);
      case AST_RELATIONAL_LEQ: return relational(Op::le);
      case AST_RELATIONAL_GEQ: return relational(Op::ge);
      case AST_RELATIONAL_EQ: return relational(Op::eq);
      case AST_RELATIONAL_NEQ: return binary(Op::ne);
      case AST_LOGICAL_AND: return fold(Op::logical_and, children(), 1.0);
      case AST_LOGICAL_OR: return fold(Op::logical_or, children(), 0.0);
      case AST_LOGICAL_XOR: return fold(Op::logical_xor, children(), 0.0);
      case AST_LOGICAL_NOT: return unary(Op::logical_not);
      case AST_LOGICAL_IMPLIES:
        if (n->getNumChildren() != 2) unsupported("implies without two arguments", element);
        return Expr::make(Op::logical_or, {Expr::make(Op::logical_not, {child(0)}), child(1)});
      case AST_FUNCTION_MAX: return fold(Op::max, children(), -HUGE_VAL);
      case AST_FUNCTION_MIN: return fold(Op::min, children(), HUGE_VAL);
      case AST_FUNCTION_REM: return binary(Op::rem);
      case AST_FUNCTION_QUOTIENT: return binary(Op::quotient);
      case AST_FUNCTION_PIECEWISE: return piecewise(n, element, local, depth);
      case AST_FUNCTION_RATE_OF: return rate_of(n, element, local);
      case AST_FUNCTION_DELAY: unsupported("delay csymbol", element);
      case AST_FUNCTION: return call(n, element, local, depth);
      default: break;
    }
    unsupported(std::string("MathML element '") + (n->getName() ? n->getName() : "?") + "'", element);
  }

  // (value condition)* [otherwise]: nested selects from the last piece outwards. With no
  // otherwise and no true condition the value is undefined (NaN).
  Expr piecewise(const ::ASTNode* n, const ::SBase* element, const LocalScope* local, int depth) {
    auto child = [&](unsigned i) { return convert(n->getChild(i), element, local, depth); };
    const unsigned count = n->getNumChildren();
    const unsigned pieces = count / 2;
    Expr result = count % 2 ? child(count - 1) : Expr::number(std::nan(""));
    for (unsigned k = pieces; k-- > 0;)
      result = Expr::make(Op::select, {child(2 * k + 1), child(2 * k), std::move(result)});
    return result;
  }

  // rateOf(id): the rate of a symbol, resolved when the program is compiled.
  Expr rate_of(const ::ASTNode* n, const ::SBase* element, const LocalScope* local) {
    if (n->getNumChildren() != 1 || n->getChild(0)->getType() != AST_NAME)
      unsupported("rateOf of an expression (only of an id)", element);
    std::string target = n->getChild(0)->getName();
    if (local && local->count(target)) target = local->at(target);
    return Expr::symbol_of("#rateOf:" + target);
  }

  // A call of a function definition: its body with the arguments put in for its bound
  // variables (inlined here, so the compiled program has no calls).
  Expr call(const ::ASTNode* n, const ::SBase* element, const LocalScope* local, int depth) {
    const std::string name = n->getName() ? n->getName() : "";
    auto it = functions_.find(name);
    if (it == functions_.end())
      throw ImportError("'" + element_name(element) + "' calls the undefined function '" + name + "'",
                        element_name(element), element->getLine());
    if (depth > 64) throw ImportError("function definitions call each other without end", name);
    const ::FunctionDefinition* f = it->second;
    const ::ASTNode* body = f->getBody();
    if (body == nullptr) throw ImportError("the function definition '" + name + "' has no body", name);
    if (f->getNumArguments() != n->getNumChildren())
      throw ImportError("'" + element_name(element) + "' calls '" + name + "' with " +
                            std::to_string(n->getNumChildren()) + " arguments, it takes " +
                            std::to_string(f->getNumArguments()),
                        element_name(element), element->getLine());
    std::unordered_map<std::string, Expr> arguments;
    for (unsigned i = 0; i < f->getNumArguments(); ++i)
      arguments[f->getArgument(i)->getName()] = convert(n->getChild(i), element, local, depth);
    // The body sees only its bound variables (no local parameters of the caller).
    return substitute_all(convert(body, f, nullptr, depth + 1), arguments);
  }

  void read_compartments() {
    for (unsigned i = 0; i < model_.getNumCompartments(); ++i) {
      const ::Compartment* c = model_.getCompartment(i);
      SymbolDesc& s = add_symbol(c->getId(), SymbolKind::compartment, c);
      s.constant = c->getConstant();
      s.has_value = c->isSetSize();
      s.value = c->getSize();
      // A zero-dimensional compartment without size: its species, amounts only, need none;
      // math that reads it is refused (check_sizeless).
      if (!s.has_value && (c->getLevel() < 3 || c->isSetSpatialDimensions()) &&
          c->getSpatialDimensionsAsDouble() == 0.0) {
        s.has_value = true;
        s.value = 1.0;
        s.sizeless = true;
      }
    }
  }

  void read_species() {
    for (unsigned i = 0; i < model_.getNumSpecies(); ++i) {
      const ::Species* sp = model_.getSpecies(i);
      SymbolDesc& s = add_symbol(sp->getId(), SymbolKind::species, sp);
      s.constant = sp->getConstant();
      s.compartment = sp->getCompartment();
      s.only_substance = sp->getHasOnlySubstanceUnits();
      s.boundary = sp->getBoundaryCondition();
      if (sp->isSetConversionFactor()) s.conversion_factor = sp->getConversionFactor();
      else if (model_.isSetConversionFactor()) s.conversion_factor = model_.getConversionFactor();
      if (sp->isSetInitialAmount()) {
        s.has_value = true;
        s.value = sp->getInitialAmount();
      } else if (sp->isSetInitialConcentration()) {
        s.has_value = true;
        s.value = sp->getInitialConcentration();
        s.value_is_concentration = true;
      }
      if (desc_.find(s.compartment) == nullptr)
        throw ImportError("the species '" + sp->getId() + "' is in the undefined compartment '" +
                              s.compartment + "'", sp->getId(), sp->getLine());
      const ::Compartment* c = model_.getCompartment(s.compartment);
      const bool zero_dimensional = c && (c->getLevel() < 3 || c->isSetSpatialDimensions()) &&
                                    c->getSpatialDimensionsAsDouble() == 0.0;
      // A zero-dimensional compartment has no size: its species have amounts only.
      if (zero_dimensional) s.only_substance = true;
    }
  }

  void read_parameters() {
    for (unsigned i = 0; i < model_.getNumParameters(); ++i) {
      const ::Parameter* p = model_.getParameter(i);
      SymbolDesc& s = add_symbol(p->getId(), SymbolKind::parameter, p);
      s.constant = p->getConstant();
      s.has_value = p->isSetValue();
      s.value = p->getValue();
    }
  }

  void read_reactions() {
    for (unsigned i = 0; i < model_.getNumReactions(); ++i) {
      const ::Reaction* r = model_.getReaction(i);
      if (r->isSetFast() && r->getFast()) unsupported("fast reaction", r);
      ReactionDesc reaction;
      reaction.id = r->getId();
      // The reaction's id in math is its rate: a symbol of its own.
      add_symbol(r->getId(), SymbolKind::parameter, r).constant = false;
      LocalScope local;
      const ::KineticLaw* law = r->getKineticLaw();
      if (law == nullptr || law->getMath() == nullptr) unsupported("reaction without kinetic law", r);
      for (unsigned k = 0; k < law->getNumParameters(); ++k) {
        const ::Parameter* p = law->getParameter(k);
        const std::string name = r->getId() + "." + p->getId();
        SymbolDesc& s = add_symbol(name, SymbolKind::local_parameter, p);
        s.has_value = p->isSetValue();
        s.value = p->getValue();
        local[p->getId()] = name;
      }
      for (unsigned k = 0; k < law->getNumLocalParameters(); ++k) {
        const ::LocalParameter* p = law->getLocalParameter(k);
        const std::string name = r->getId() + "." + p->getId();
        if (local.count(p->getId())) continue;
        SymbolDesc& s = add_symbol(name, SymbolKind::local_parameter, p);
        s.has_value = p->isSetValue();
        s.value = p->getValue();
        local[p->getId()] = name;
      }
      pending_laws_.push_back({law, local});
      auto terms = [&](const ::ListOf* list, double sign) {
        for (unsigned k = 0; k < list->size(); ++k) {
          const auto* ref = static_cast<const ::SpeciesReference*>(list->get(k));
          ReactionTerm term;
          term.species = ref->getSpecies();
          term.sign = sign;
          if (desc_.find(term.species) == nullptr)
            throw ImportError("the reaction '" + r->getId() + "' refers to the undefined species '" +
                                  term.species + "'", r->getId(), r->getLine());
          if (ref->isSetStoichiometryMath() && ref->getStoichiometryMath()->isSetMath()) {
            term.stoichiometry = math(ref->getStoichiometryMath()->getMath(), ref);
          } else if (ref->isSetId() && !ref->getId().empty()) {
            SymbolDesc& s = add_symbol(ref->getId(), SymbolKind::species_reference, ref);
            s.constant = ref->getLevel() < 3 || ref->getConstant();
            s.has_value = ref->isSetStoichiometry() || ref->getLevel() < 3;
            s.value = ref->isSetStoichiometry() ? ref->getStoichiometry() : 1.0;
            term.stoichiometry = Expr::symbol_of(ref->getId());
          } else {
            if (ref->getLevel() >= 3 && !ref->isSetStoichiometry())
              unsupported("a species reference without stoichiometry", ref);
            term.stoichiometry = Expr::number(ref->getStoichiometry());
          }
          reaction.terms.push_back(std::move(term));
        }
      };
      terms(r->getListOfReactants(), -1.0);
      terms(r->getListOfProducts(), 1.0);
      desc_.reactions.push_back(std::move(reaction));
    }
    // Kinetic laws are read once every symbol exists (they may name species references of
    // later reactions).
    for (std::size_t i = 0; i < desc_.reactions.size(); ++i)
      desc_.reactions[i].rate = math(pending_laws_[i].first->getMath(), model_.getReaction(static_cast<unsigned>(i)),
                                     &pending_laws_[i].second);
    for (const ReactionDesc& r : desc_.reactions)
      for (const ReactionTerm& t : r.terms) {
        SymbolDesc* s = desc_.find(t.species);
        if (!s->boundary) s->in_reactions = true;
      }
  }

  void read_rules() {
    int algebraic = 0;
    for (unsigned i = 0; i < model_.getNumRules(); ++i) {
      const ::Rule* rule = model_.getRule(i);
      // Level 3 Version 2: a rule without math is ignored (as are initial assignments,
      // delays and priorities without math below).
      if (!rule->isSetMath()) continue;
      if (rule->isAlgebraic()) {
        ++algebraic;
        desc_.algebraic_rules.push_back(
            {rule->isSetMetaId() ? rule->getMetaId() : "algebraic rule " + std::to_string(algebraic),
             math(rule->getMath(), rule)});
        continue;
      }
      SymbolDesc& s = symbol_for(rule->getVariable(), rule);
      if (s.rule != RuleKind::none)
        throw ImportError("two rules for '" + s.id + "'", s.id, rule->getLine());
      if (s.constant) throw ImportError("a rule for the constant '" + s.id + "'", s.id, rule->getLine());
      s.rule = rule->isAssignment() ? RuleKind::assignment : RuleKind::rate;
      s.rule_math = math(rule->getMath(), rule);
    }
  }

  void read_initial_assignments() {
    for (unsigned i = 0; i < model_.getNumInitialAssignments(); ++i) {
      const ::InitialAssignment* ia = model_.getInitialAssignment(i);
      if (!ia->isSetMath()) continue;
      SymbolDesc& s = symbol_for(ia->getSymbol(), ia);
      s.has_initial_assignment = true;
      s.initial_math = math(ia->getMath(), ia);
    }
  }

  void read_events() {
    for (unsigned i = 0; i < model_.getNumEvents(); ++i) {
      const ::Event* e = model_.getEvent(i);
      EventDesc event;
      event.id = e->isSetId() ? e->getId() : "event " + std::to_string(i + 1);
      const ::Trigger* trigger = e->getTrigger();
      if (trigger == nullptr || trigger->getMath() == nullptr)
        throw UnsupportedFeature("event without trigger", event.id, e->getLine());
      event.trigger = math(trigger->getMath(), e);
      event.initial_value = trigger->isSetInitialValue() ? trigger->getInitialValue() : true;
      event.persistent = trigger->isSetPersistent() ? trigger->getPersistent() : true;
      event.use_values_from_trigger_time = e->getUseValuesFromTriggerTime();
      if (e->isSetDelay() && e->getDelay()->isSetMath()) {
        event.has_delay = true;
        event.delay = math(e->getDelay()->getMath(), e);
      }
      if (e->isSetPriority() && e->getPriority()->isSetMath()) {
        event.has_priority = true;
        event.priority = math(e->getPriority()->getMath(), e);
      }
      for (unsigned k = 0; k < e->getNumEventAssignments(); ++k) {
        const ::EventAssignment* a = e->getEventAssignment(k);
        const SymbolDesc& s = symbol_for(a->getVariable(), a);
        if (s.constant) throw ImportError("the event '" + event.id + "' assigns the constant '" + s.id + "'", event.id);
        if (!a->isSetMath()) continue;  // L3V2: an assignment without math does nothing
        event.assignments.push_back({a->getVariable(), math(a->getMath(), e)});
      }
      desc_.events.push_back(std::move(event));
    }
  }

  const ::Model& model_;
  ModelDesc desc_;
  std::unordered_map<std::string, const ::FunctionDefinition*> functions_;
  std::vector<std::pair<const ::KineticLaw*, LocalScope>> pending_laws_;
};

void check_errors(::SBMLDocument& document, unsigned first) {
  for (unsigned i = first; i < document.getNumErrors(); ++i) {
    const ::SBMLError* error = document.getError(i);
    if (error->getSeverity() < LIBSBML_SEV_ERROR) continue;
    // Unit references that name no unit (10311-10313) say nothing about the numbers: units
    // are not checked (the model's numbers are taken as they are).
    if (error->getErrorId() >= 10311 && error->getErrorId() <= 10313) continue;
    const std::string message = error->getMessage();
    if (message.find("external model") != std::string::npos)
      throw UnsupportedFeature("external model definition (comp)", {}, error->getLine());
    // Decided by the error's package and id, never by its text: core errors may mention
    // packages (10215, an undefined id, speaks of "L3 package objects").
    if (error->getErrorId() == RequiredPackagePresent || error->getErrorId() == UnrequiredPackagePresent)
      throw UnsupportedFeature("SBML package this build of libSBML does not know", {}, error->getLine());
    if (error->getPackage() != "core" && !error->getPackage().empty())
      throw UnsupportedFeature("SBML package " + error->getPackage(), {}, error->getLine());
    throw ImportError("not a valid SBML document (line " + std::to_string(error->getLine()) + "): " + message,
                      {}, error->getLine());
  }
}

// libSBML throws (SBMLConstructorException) from deep inside its reader when the <sbml>
// element's namespace and its level/version attributes disagree, and leaks the half-built
// document when it does. So the start tag is checked first, with libSBML's own XML tokenizer,
// before any SBML object exists.
void check_sbml_start_tag(const std::string& text) {
  ::XMLInputStream stream(text.c_str(), /*isFile=*/false);
  const ::XMLToken& root = stream.peek();
  if (!stream.isGood() || !root.isStart() || root.getName() != "sbml") return;  // the reader reports it
  const auto number = [&](const char* name) -> int {
    const std::string value = root.getAttrValue(name);
    if (value.empty() || value.size() > 2 || value.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(value);
  };
  const int level = number("level"), version = number("version");
  const bool known = (level == 1 && (version == 1 || version == 2)) || (level == 2 && version >= 1 && version <= 5) ||
                     (level == 3 && (version == 1 || version == 2));
  if (!known)
    throw ImportError("the <sbml> element names no SBML Level/Version libSBML knows (level '" +
                          root.getAttrValue("level") + "', version '" + root.getAttrValue("version") + "')",
                      {}, root.getLine());
  const std::string expected = ::SBMLNamespaces::getSBMLNamespaceURI(level, version);
  const std::string declared = root.getNamespaces().getURI("");
  if (declared != expected)
    throw ImportError("the <sbml> element's namespace '" + declared + "' is not the one of SBML Level " +
                          std::to_string(level) + " Version " + std::to_string(version) + " ('" + expected + "')",
                      {}, root.getLine());
}

std::string file_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ImportError("cannot open the SBML file '" + path + "'");
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

ModelDesc read_model(std::string_view path_or_text, bool from_file, const ImportOptions& options) {
  const std::string source(path_or_text);
  check_sbml_start_tag(from_file ? file_text(source) : source);
  std::unique_ptr<::SBMLDocument> document;
  try {  // a second line behind check_sbml_start_tag: no libSBML exception leaves the importer
    document.reset(from_file ? ::readSBMLFromFile(source.c_str()) : ::readSBMLFromString(source.c_str()));
  } catch (const std::exception& e) {
    throw ImportError(std::string("libSBML could not read the document: ") + e.what());
  }
  if (!document) throw ImportError("libSBML could not read the document");
  check_errors(*document, 0);
  if (document->getModel() == nullptr) throw ImportError("the SBML document has no model");
  if (document->isPackageEnabled("comp")) {
    if (!options.flatten_hierarchical) throw UnsupportedFeature("hierarchical model (comp)", document->getModel()->getId());
    ::ConversionProperties properties;
    properties.addOption("flatten comp", true);
    properties.addOption("leavePorts", false);
    const unsigned before = document->getNumErrors();
    if (document->convert(properties) != LIBSBML_OPERATION_SUCCESS) {
      check_errors(*document, before);
      throw UnsupportedFeature("hierarchical model libSBML cannot flatten (comp)", document->getModel()->getId());
    }
  }
  if (options.check_consistency) {
    document->setConsistencyChecks(LIBSBML_CAT_UNITS_CONSISTENCY, false);
    document->setConsistencyChecks(LIBSBML_CAT_MODELING_PRACTICE, false);
    const unsigned before = document->getNumErrors();
    document->checkConsistency();
    check_errors(*document, before);
  }
  const ::Model& model = *document->getModel();
  if (document->isPackageEnabled("fbc")) {
    const auto* fbc = dynamic_cast<const ::FbcModelPlugin*>(model.getPlugin("fbc"));
    if (fbc && fbc->getNumObjectives() > 0) throw UnsupportedFeature("flux balance objective (fbc)", model.getId());
  }
  return Reader(model).read();
}

}  // namespace esdirk::sbml::detail
