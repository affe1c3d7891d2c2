#pragma once
// A compiled expression: a flat list of register instructions over one slot array (time, the
// states, the parameters, the derived values, the constants, the temporaries). Evaluating it
// is one pass over the list: no names, no tree, no virtual calls, no allocation. The same
// instructions run over double (values) and over esdirk::ad::Dual<N> (N directional
// derivatives at once), so derivatives come from the one definition.

#include <cmath>
#include <vector>

#include "esdirk/ad/dual.hpp"
#include "expression.hpp"

namespace esdirk::sbml::detail {

struct Instruction {
  Op op;
  int dst, a, b, c;
};

struct Program {
  std::vector<Instruction> code;
};

namespace math {
using ad::value_of;
using std::abs;
using std::acos;
using std::asin;
using std::atan;
using std::cos;
using std::cosh;
using std::exp;
using std::log;
using std::log10;
using std::pow;
using std::sin;
using std::sinh;
using std::sqrt;
using std::tan;
using std::tanh;

template <class T> T constant_like(double v) { return T(v); }

template <class T>
T apply_unary(Op op, const T& a) {
  switch (op) {
    case Op::neg: return -a;
    case Op::exp: return exp(a);
    case Op::ln: return log(a);
    case Op::log10: return log10(a);
    case Op::sqrt: return sqrt(a);
    case Op::abs: return abs(a);
    case Op::floor: return T(std::floor(value_of(a)));
    case Op::ceil: return T(std::ceil(value_of(a)));
    case Op::factorial: return T(std::tgamma(value_of(a) + 1.0));
    case Op::sin: return sin(a);
    case Op::cos: return cos(a);
    case Op::tan: return tan(a);
    case Op::sec: return 1.0 / cos(a);
    case Op::csc: return 1.0 / sin(a);
    case Op::cot: return 1.0 / tan(a);
    case Op::asin: return asin(a);
    case Op::acos: return acos(a);
    case Op::atan: return atan(a);
    case Op::asec: return acos(1.0 / a);
    case Op::acsc: return asin(1.0 / a);
    case Op::acot: return atan(1.0 / a);
    case Op::sinh: return sinh(a);
    case Op::cosh: return cosh(a);
    case Op::tanh: return tanh(a);
    case Op::sech: return 1.0 / cosh(a);
    case Op::csch: return 1.0 / sinh(a);
    case Op::coth: return 1.0 / tanh(a);
    case Op::asinh: return log(a + sqrt(a * a + 1.0));
    case Op::acosh: return log(a + sqrt(a * a - 1.0));
    case Op::atanh: return 0.5 * log((1.0 + a) / (1.0 - a));
    case Op::asech: return log((1.0 + sqrt(1.0 - a * a)) / a);
    case Op::acsch: return log(1.0 / a + sqrt(1.0 + 1.0 / (a * a)));
    case Op::acoth: return 0.5 * log((a + 1.0) / (a - 1.0));
    case Op::logical_not: return T(value_of(a) == 0.0 ? 1.0 : 0.0);
    case Op::copy: return a;
    default: return T(std::nan(""));
  }
}

template <class T>
T apply_binary(Op op, const T& a, const T& b) {
  const double x = value_of(a), y = value_of(b);
  switch (op) {
    case Op::add: return a + b;
    case Op::sub: return a - b;
    case Op::mul: return a * b;
    case Op::div: return a / b;
    // A negative base has no derivative along the exponent: differentiate along the base only.
    case Op::pow: return x < 0.0 ? T(pow(a, y)) : T(pow(a, b));
    case Op::pow_const: return T(pow(a, y));
    case Op::lt: return T(x < y ? 1.0 : 0.0);
    case Op::gt: return T(x > y ? 1.0 : 0.0);
    case Op::le: return T(x <= y ? 1.0 : 0.0);
    case Op::ge: return T(x >= y ? 1.0 : 0.0);
    case Op::eq: return T(x == y ? 1.0 : 0.0);
    case Op::ne: return T(x != y ? 1.0 : 0.0);
    case Op::logical_and: return T(x != 0.0 && y != 0.0 ? 1.0 : 0.0);
    case Op::logical_or: return T(x != 0.0 || y != 0.0 ? 1.0 : 0.0);
    case Op::logical_xor: return T((x != 0.0) != (y != 0.0) ? 1.0 : 0.0);
    case Op::min: return x <= y ? a : b;
    case Op::max: return x >= y ? a : b;
    // rem and quotient as SBML (L3V2): truncation towards zero; piecewise constant quotient.
    case Op::rem: return a - T(std::trunc(x / y)) * b;
    case Op::quotient: return T(std::trunc(x / y));
    default: return T(std::nan(""));
  }
}
}  // namespace math

/// Runs `program` over `slots` (time, states, parameters and constants already in place).
template <class T>
void run(const Program& program, T* slots) {
  for (const Instruction& in : program.code) {
    switch (in.op) {
      case Op::select:
        slots[in.dst] = math::value_of(slots[in.a]) != 0.0 ? slots[in.b] : slots[in.c];
        break;
      case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::pow: case Op::pow_const:
      case Op::lt: case Op::gt: case Op::le: case Op::ge: case Op::eq: case Op::ne:
      case Op::logical_and: case Op::logical_or: case Op::logical_xor: case Op::min:
      case Op::max: case Op::rem: case Op::quotient:
        slots[in.dst] = math::apply_binary(in.op, slots[in.a], slots[in.b]);
        break;
      default:
        slots[in.dst] = math::apply_unary(in.op, slots[in.a]);
        break;
    }
  }
}

}  // namespace esdirk::sbml::detail
