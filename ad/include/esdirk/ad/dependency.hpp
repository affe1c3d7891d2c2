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
// double and dual evaluations at the same point. 64 inputs per word of the set.

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "esdirk/ad/scalar_functions.hpp"

namespace esdirk::ad {

/// Value + the set of inputs it depends on, in Words 64-bit words (64 Words inputs).
template <int Words>
class BasicDependency {
  static_assert(Words >= 1, "BasicDependency: at least one word");

 public:
  using Set = std::array<std::uint64_t, Words>;
  double v = 0.0;  ///< the value (as the double evaluation computes it)
  Set inputs{};    ///< the inputs of the block this value depends on (bit k of word k / 64)

  constexpr BasicDependency() = default;
  /// A constant: depends on nothing.
  constexpr BasicDependency(double value) : v(value) {}  // NOLINT(google-explicit-constructor)
  constexpr BasicDependency(double value, const Set& depends_on) : v(value), inputs(depends_on) {}

  constexpr double value() const { return v; }

  /// The scalar interface of scalar_functions.hpp: a function of a depends on what a does, of
  /// a and b on both (the partial derivatives are not needed).
  static constexpr BasicDependency unary(const BasicDependency& a, double value, double) { return {value, a.inputs}; }
  static constexpr BasicDependency binary(const BasicDependency& a, const BasicDependency& b, double value, double,
                                          double) {
    return {value, join(a.inputs, b.inputs)};
  }
  static constexpr Set join(const Set& a, const Set& b) {
    Set r{};
    for (int k = 0; k < Words; ++k) r[static_cast<std::size_t>(k)] = a[static_cast<std::size_t>(k)] | b[static_cast<std::size_t>(k)];
    return r;
  }

  using D = BasicDependency;
  friend constexpr D operator+(const D& a) { return a; }
  friend constexpr D operator-(const D& a) { return {-a.v, a.inputs}; }
  friend constexpr D operator+(const D& a, const D& b) { return {a.v + b.v, join(a.inputs, b.inputs)}; }
  friend constexpr D operator-(const D& a, const D& b) { return {a.v - b.v, join(a.inputs, b.inputs)}; }
  friend constexpr D operator*(const D& a, const D& b) { return {a.v * b.v, join(a.inputs, b.inputs)}; }
  friend constexpr D operator/(const D& a, const D& b) { return {a.v / b.v, join(a.inputs, b.inputs)}; }
  friend constexpr D operator+(const D& a, double b) { return {a.v + b, a.inputs}; }
  friend constexpr D operator+(double a, const D& b) { return {a + b.v, b.inputs}; }
  friend constexpr D operator-(const D& a, double b) { return {a.v - b, a.inputs}; }
  friend constexpr D operator-(double a, const D& b) { return {a - b.v, b.inputs}; }
  friend constexpr D operator*(const D& a, double b) { return {a.v * b, a.inputs}; }
  friend constexpr D operator*(double a, const D& b) { return {a * b.v, b.inputs}; }
  friend constexpr D operator/(const D& a, double b) { return {a.v / b, a.inputs}; }
  friend constexpr D operator/(double a, const D& b) { return {a / b.v, b.inputs}; }

  constexpr D& operator+=(const D& b) { return *this = *this + b; }
  constexpr D& operator-=(const D& b) { return *this = *this - b; }
  constexpr D& operator*=(const D& b) { return *this = *this * b; }
  constexpr D& operator/=(const D& b) { return *this = *this / b; }
  constexpr D& operator+=(double b) { v += b; return *this; }
  constexpr D& operator-=(double b) { v -= b; return *this; }
  constexpr D& operator*=(double b) { v *= b; return *this; }
  constexpr D& operator/=(double b) { v /= b; return *this; }

  friend constexpr bool operator==(const D& a, const D& b) { return a.v == b.v; }
  friend constexpr bool operator==(const D& a, double b) { return a.v == b; }
  friend constexpr std::partial_ordering operator<=>(const D& a, const D& b) { return a.v <=> b.v; }
  friend constexpr std::partial_ordering operator<=>(const D& a, double b) { return a.v <=> b; }
};

/// One word: 64 inputs per evaluation. ModelProblem evaluates over 1, 2 or 4 words (64, 128
/// or 256 inputs: one evaluation for [x; z; p] up to 256).
using Dependency = BasicDependency<1>;

template <int Words>
struct is_scalar<BasicDependency<Words>> : std::true_type {};

}  // namespace esdirk::ad
