#pragma once
// Forward-mode automatic differentiation: a dual number carrying a value and the derivatives
// along N directions at once (a "chunk"), doc/ad-guide.md.
//
//     Dual<N> a{v, {d_1, ..., d_N}}:  a represents v + sum_k d_k e_k,  e_k e_l = 0
//
// Every operation applies the chain rule to all N directions, so one evaluation of a model
// over Dual<N> gives N columns of its Jacobian exactly (to rounding). Comparisons look at the
// value only, so branches in a model follow the value, as they do for double.
//
// The math functions (exp, log, pow, ...) live in esdirk::ad and are found by argument-
// dependent lookup; a model written as a template calls them unqualified and writes
// `using std::exp;` (etc.) so that the same code compiles for double (doc/ad-guide.md).

#include <array>
#include <cmath>
#include <compare>
#include <type_traits>

#include "esdirk/ad/scalar_functions.hpp"

namespace esdirk::ad {

template <int N>
class Dual {
  static_assert(N >= 1, "Dual<N>: at least one direction");

 public:
  static constexpr int directions = N;

  // The derivatives first and 16-byte aligned: every operation is a loop over d that the
  // compiler turns into packed loads and stores, and with d at offset 8 (after v) half of them
  // straddled 16-byte boundaries and stalled; aligned, one evaluation of Dow over Dual<8> took
  // half the time (bench/ad).
  alignas(16) std::array<double, N> d{};  ///< the derivatives along the N directions
  double v = 0.0;                         ///< the value

  constexpr Dual() = default;
  /// A constant: all derivatives zero. Implicit, so that `Dual x = 1.0;` and `f[0] = 0;` work.
  constexpr Dual(double value) : v(value) {}  // NOLINT(google-explicit-constructor)
  constexpr Dual(double value, const std::array<double, N>& derivatives)
      : d(derivatives), v(value) {}

  constexpr double value() const { return v; }

  /// The result of a function with value `value` and derivative `dvalue` at a (chain rule).
  static constexpr Dual unary(const Dual& a, double value, double dvalue) {
    Dual r(value);
    for (int k = 0; k < N; ++k) r.d[k] = dvalue * a.d[k];
    return r;
  }
  /// The same for a function of two arguments with partial derivatives da and db.
  static constexpr Dual binary(const Dual& a, const Dual& b, double value, double da, double db) {
    Dual r(value);
    for (int k = 0; k < N; ++k) r.d[k] = da * a.d[k] + db * b.d[k];
    return r;
  }

  // Arithmetic: hidden friends, found only for Dual arguments. The overloads with double
  // take int, float, ... by a standard conversion, so `2 * x` and `x + 1` need no cast.
  friend constexpr Dual operator+(const Dual& a) { return a; }
  friend constexpr Dual operator-(const Dual& a) {
    Dual r(-a.v);
    for (int k = 0; k < N; ++k) r.d[k] = -a.d[k];
    return r;
  }
  friend constexpr Dual operator+(const Dual& a, const Dual& b) {
    Dual r(a.v + b.v);
    for (int k = 0; k < N; ++k) r.d[k] = a.d[k] + b.d[k];
    return r;
  }
  friend constexpr Dual operator-(const Dual& a, const Dual& b) {
    Dual r(a.v - b.v);
    for (int k = 0; k < N; ++k) r.d[k] = a.d[k] - b.d[k];
    return r;
  }
  friend constexpr Dual operator*(const Dual& a, const Dual& b) {
    Dual r(a.v * b.v);
    for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
    return r;
  }
  friend constexpr Dual operator/(const Dual& a, const Dual& b) {
    const double inverse = 1.0 / b.v, q = a.v * inverse;
    Dual r(q);
    for (int k = 0; k < N; ++k) r.d[k] = (a.d[k] - q * b.d[k]) * inverse;
    return r;
  }
  friend constexpr Dual operator+(const Dual& a, double b) { return Dual(a.v + b, a.d); }
  friend constexpr Dual operator+(double a, const Dual& b) { return Dual(a + b.v, b.d); }
  friend constexpr Dual operator-(const Dual& a, double b) { return Dual(a.v - b, a.d); }
  friend constexpr Dual operator-(double a, const Dual& b) { return unary(b, a - b.v, -1.0); }
  friend constexpr Dual operator*(const Dual& a, double b) { return unary(a, a.v * b, b); }
  friend constexpr Dual operator*(double a, const Dual& b) { return unary(b, a * b.v, a); }
  friend constexpr Dual operator/(const Dual& a, double b) {
    const double inverse = 1.0 / b;
    return unary(a, a.v * inverse, inverse);
  }
  friend constexpr Dual operator/(double a, const Dual& b) {
    const double q = a / b.v;
    return unary(b, q, -q / b.v);
  }

  constexpr Dual& operator+=(const Dual& b) { return *this = *this + b; }
  constexpr Dual& operator-=(const Dual& b) { return *this = *this - b; }
  constexpr Dual& operator*=(const Dual& b) { return *this = *this * b; }
  constexpr Dual& operator/=(const Dual& b) { return *this = *this / b; }
  constexpr Dual& operator+=(double b) { v += b; return *this; }
  constexpr Dual& operator-=(double b) { v -= b; return *this; }
  constexpr Dual& operator*=(double b) { return *this = *this * b; }
  constexpr Dual& operator/=(double b) { return *this = *this / b; }

  // Comparisons of the values (a branch follows the value, as for double).
  friend constexpr bool operator==(const Dual& a, const Dual& b) { return a.v == b.v; }
  friend constexpr bool operator==(const Dual& a, double b) { return a.v == b; }
  friend constexpr std::partial_ordering operator<=>(const Dual& a, const Dual& b) { return a.v <=> b.v; }
  friend constexpr std::partial_ordering operator<=>(const Dual& a, double b) { return a.v <=> b; }
};

template <int N>
struct is_scalar<Dual<N>> : std::true_type {};

}  // namespace esdirk::ad
