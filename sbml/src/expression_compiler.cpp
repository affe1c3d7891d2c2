// Tree to register program (expression_compiler.hpp).
#include "expression_compiler.hpp"

#include <cmath>
#include <stdexcept>

#include "esdirk/sbml/sbml.hpp"

namespace esdirk::sbml::detail {

int ExpressionCompiler::add_named_slot(const std::string& name) {
  if (named_.count(name)) throw std::logic_error("slot '" + name + "' defined twice");
  const int s = next_++;
  named_[name] = s;
  return s;
}

int ExpressionCompiler::slot_of(const std::string& name) {
  auto it = named_.find(name);
  if (it != named_.end()) return it->second;
  if (resolve && resolve(name)) {
    it = named_.find(name);
    if (it != named_.end()) return it->second;
  }
  throw ImportError("undefined id '" + name + "' in the math of '" + context + "'", context);
}

int ExpressionCompiler::constant(double v) {
  // NaN never compares equal to itself: keep one slot per NaN (rare, correct).
  if (!std::isnan(v)) {
    auto it = constant_slots_.find(v);
    if (it != constant_slots_.end()) return it->second;
  }
  const int s = next_++;
  if (!std::isnan(v)) constant_slots_[v] = s;
  constants_.emplace_back(s, v);
  constant_value_[s] = v;
  return s;
}

int ExpressionCompiler::compile(const Expr& e, Program& program, int destination) {
  auto emit = [&](Op op, int a, int b, int c) {
    const int dst = destination >= 0 ? destination : temporary();
    program.code.push_back({op, dst, a, b, c});
    return dst;
  };
  switch (e.op) {
    case Op::constant: {
      const int s = constant(e.value);
      return destination >= 0 ? emit(Op::copy, s, 0, 0) : s;
    }
    case Op::symbol: {
      const int s = slot_of(e.name);
      return destination >= 0 ? emit(Op::copy, s, 0, 0) : s;
    }
    case Op::time: return destination >= 0 ? emit(Op::copy, 0, 0, 0) : 0;
    default: break;
  }
  // Constant subexpressions are folded here: fewer instructions, and no derivative of a
  // constant through a singular point (d sqrt(u) at u = 0 is infinite, times du = 0 is NaN).
  auto known = [&](int slot, double& v) {
    auto it = constant_value_.find(slot);
    if (it == constant_value_.end()) return false;
    v = it->second;
    return true;
  };
  auto folded = [&](double v) { return destination >= 0 ? emit(Op::copy, constant(v), 0, 0) : constant(v); };
  if (e.op == Op::select) {
    const int c = compile(e.args[0], program);
    double cv = 0.0;
    if (known(c, cv)) return compile(cv != 0.0 ? e.args[1] : e.args[2], program, destination);
    const int a = compile(e.args[1], program), b = compile(e.args[2], program);
    return emit(Op::select, c, a, b);
  }
  if (e.args.size() == 1) {
    const int a = compile(e.args[0], program);
    double av = 0.0;
    if (known(a, av)) return folded(math::apply_unary(e.op, av));
    return emit(e.op, a, 0, 0);
  }
  // Binary (n-ary add, mul, and, or, xor, min, max are folded left by the importer).
  Op op = e.op;
  if (op == Op::pow && e.args[1].is_number()) op = Op::pow_const;
  const int a = compile(e.args[0], program), b = compile(e.args[1], program);
  double av = 0.0, bv = 0.0;
  if (known(a, av) && known(b, bv)) return folded(math::apply_binary(op, av, bv));
  return emit(op, a, b, 0);
}

}  // namespace esdirk::sbml::detail
