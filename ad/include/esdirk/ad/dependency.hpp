#pragma once
// The structure of a templated model found by evaluating it once over a scalar that carries,
// beside its value, the set of inputs it depends on (doc/ad-guide.md, "The structure found
// automatically"):
//
//     Dependency a{v, bits}:  bit k of `inputs` set  <=>  a depends on input k of the block
//
// Every operation takes the union of its operands' sets, so an output's set holds every input
// its forward-mode derivative can be nonzero for along the branch the values take (a
// superset: a product by a value that happens to be zero keeps the dependency). Comparisons look
// at the value, as for double and Dual, so the evaluation follows the same branches as the
// double and dual evaluations at the same point. 64 inputs per evaluation.

#include <compare>
#include <cstdint>
#include <type_traits>

#include "esdirk/ad/scalar_functions.hpp"

namespace esdirk::ad {

class Dependency {
 public:
  double v = 0.0;              ///< the value (as the double evaluation computes it)
  std::uint64_t inputs = 0;    ///< the inputs of the block this value depends on

  constexpr Dependency() = default;
  /// A constant: depends on nothing.
  constexpr Dependency(double value) : v(value) {}  // NOLINT(google-explicit-constructor)
  constexpr Dependency(double value, std::uint64_t depends_on) : v(value), inputs(depends_on) {}

  constexpr double value() const { return v; }

  /// The scalar interface of scalar_functions.hpp: a function of a depends on what a does, of
  /// a and b on both (the partial derivatives are not needed).
  static constexpr Dependency unary(const Dependency& a, double value, double) { return {value, a.inputs}; }
  static constexpr Dependency binary(const Dependency& a, const Dependency& b, double value, double, double) {
    return {value, a.inputs | b.inputs};
  }

  friend constexpr Dependency operator+(const Dependency& a) { return a; }
  friend constexpr Dependency operator-(const Dependency& a) { return {-a.v, a.inputs}; }
  friend constexpr Dependency operator+(const Dependency& a, const Dependency& b) { return {a.v + b.v, a.inputs | b.inputs}; }
  friend constexpr Dependency operator-(const Dependency& a, const Dependency& b) { return {a.v - b.v, a.inputs | b.inputs}; }
  friend constexpr Dependency operator*(const Dependency& a, const Dependency& b) { return {a.v * b.v, a.inputs | b.inputs}; }
  friend constexpr Dependency operator/(const Dependency& a, const Dependency& b) { return {a.v / b.v, a.inputs | b.inputs}; }
  friend constexpr Dependency operator+(const Dependency& a, double b) { return {a.v + b, a.inputs}; }
  friend constexpr Dependency operator+(double a, const Dependency& b) { return {a + b.v, b.inputs}; }
  friend constexpr Dependency operator-(const Dependency& a, double b) { return {a.v - b, a.inputs}; }
  friend constexpr Dependency operator-(double a, const Dependency& b) { return {a - b.v, b.inputs}; }
  friend constexpr Dependency operator*(const Dependency& a, double b) { return {a.v * b, a.inputs}; }
  friend constexpr Dependency operator*(double a, const Dependency& b) { return {a * b.v, b.inputs}; }
  friend constexpr Dependency operator/(const Dependency& a, double b) { return {a.v / b, a.inputs}; }
  friend constexpr Dependency operator/(double a, const Dependency& b) { return {a / b.v, b.inputs}; }

  constexpr Dependency& operator+=(const Dependency& b) { return *this = *this + b; }
  constexpr Dependency& operator-=(const Dependency& b) { return *this = *this - b; }
  constexpr Dependency& operator*=(const Dependency& b) { return *this = *this * b; }
  constexpr Dependency& operator/=(const Dependency& b) { return *this = *this / b; }
  constexpr Dependency& operator+=(double b) { v += b; return *this; }
  constexpr Dependency& operator-=(double b) { v -= b; return *this; }
  constexpr Dependency& operator*=(double b) { v *= b; return *this; }
  constexpr Dependency& operator/=(double b) { v /= b; return *this; }

  friend constexpr bool operator==(const Dependency& a, const Dependency& b) { return a.v == b.v; }
  friend constexpr bool operator==(const Dependency& a, double b) { return a.v == b; }
  friend constexpr std::partial_ordering operator<=>(const Dependency& a, const Dependency& b) { return a.v <=> b.v; }
  friend constexpr std::partial_ordering operator<=>(const Dependency& a, double b) { return a.v <=> b; }
};

template <>
struct is_scalar<Dependency> : std::true_type {};

}  // namespace esdirk::ad
