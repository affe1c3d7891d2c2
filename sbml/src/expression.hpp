#pragma once
// The importer's own expression tree: MathML read by libSBML, with function definitions
// inlined, piecewise turned into selects, local parameters and csymbols resolved to names.
// Built once at import; the compiler flattens it into a Program (program.hpp).

#include <string>
#include <vector>

namespace esdirk::sbml::detail {

enum class Op : unsigned char {
  // leaves
  constant, symbol, time,
  // arithmetic
  add, sub, mul, div, neg, pow, pow_const, exp, ln, log10, sqrt, abs, floor, ceil, factorial,
  // trigonometric and hyperbolic
  sin, cos, tan, sec, csc, cot, asin, acos, atan, asec, acsc, acot,
  sinh, cosh, tanh, sech, csch, coth, asinh, acosh, atanh, asech, acsch, acoth,
  // relations and logic (values 0 / 1)
  lt, gt, le, ge, eq, ne, logical_and, logical_or, logical_xor, logical_not,
  // select(condition, then, otherwise), min, max, rem, quotient
  select, min, max, rem, quotient,
  copy
};

struct Expr {
  Op op = Op::constant;
  double value = 0.0;     // Op::constant
  std::string name;       // Op::symbol
  std::vector<Expr> args;

  static Expr number(double v) {
    Expr e;
    e.value = v;
    return e;
  }
  static Expr symbol_of(std::string id) {
    Expr e;
    e.op = Op::symbol;
    e.name = std::move(id);
    return e;
  }
  static Expr make(Op op, std::vector<Expr> args) {
    Expr e;
    e.op = op;
    e.args = std::move(args);
    return e;
  }
  bool is_number() const { return op == Op::constant; }
};

/// Every symbol name the expression reads (with repetitions).
void collect_symbols(const Expr& e, std::vector<std::string>& out);
/// True if the expression reads `name`.
bool mentions(const Expr& e, const std::string& name);
/// The expression with every symbol `from` replaced by `to`.
Expr substitute(const Expr& e, const std::string& from, const Expr& to);

}  // namespace esdirk::sbml::detail
