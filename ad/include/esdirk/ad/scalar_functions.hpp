#pragma once
// The math functions of the automatic-differentiation scalars (Dual<N>, forward mode; Var,
// reverse mode), written once: each states its value and derivative, and the scalar type
// applies the chain rule through its S::unary(a, value, derivative) and
// S::binary(a, b, value, da, db). A scalar type joins by specializing is_scalar.
//
// Where a function is not differentiable (abs at 0, min/max at a tie) the derivative of one
// side is taken, as every AD tool does; sqrt(0), log(0), pow(0, y < 1) have infinite
// derivatives, which the model adapter reports (doc/ad-guide.md, "Bad input").

#include <cmath>
#include <type_traits>

namespace esdirk::ad {

/// True for the automatic-differentiation scalars.
template <class S>
struct is_scalar : std::false_type {};
template <class S>
concept Scalar = is_scalar<S>::value;

/// The value of a scalar (of a double: itself), for code that must branch or print.
inline double value_of(double a) { return a; }
template <Scalar S>
double value_of(const S& a) { return a.value(); }

template <Scalar S> S exp(const S& a) { const double e = std::exp(a.value()); return S::unary(a, e, e); }
template <Scalar S> S expm1(const S& a) { return S::unary(a, std::expm1(a.value()), std::exp(a.value())); }
template <Scalar S> S log(const S& a) { return S::unary(a, std::log(a.value()), 1.0 / a.value()); }
template <Scalar S> S log1p(const S& a) { return S::unary(a, std::log1p(a.value()), 1.0 / (1.0 + a.value())); }
template <Scalar S> S log10(const S& a) {
  return S::unary(a, std::log10(a.value()), 1.0 / (a.value() * 2.302585092994045684));
}
template <Scalar S> S log2(const S& a) {
  return S::unary(a, std::log2(a.value()), 1.0 / (a.value() * 0.693147180559945309));
}
template <Scalar S> S sqrt(const S& a) { const double s = std::sqrt(a.value()); return S::unary(a, s, 0.5 / s); }
template <Scalar S> S cbrt(const S& a) {
  const double c = std::cbrt(a.value());
  return S::unary(a, c, 1.0 / (3.0 * c * c));
}
template <Scalar S> S sin(const S& a) { return S::unary(a, std::sin(a.value()), std::cos(a.value())); }
template <Scalar S> S cos(const S& a) { return S::unary(a, std::cos(a.value()), -std::sin(a.value())); }
template <Scalar S> S tan(const S& a) {
  const double t = std::tan(a.value());
  return S::unary(a, t, 1.0 + t * t);
}
template <Scalar S> S asin(const S& a) {
  return S::unary(a, std::asin(a.value()), 1.0 / std::sqrt(1.0 - a.value() * a.value()));
}
template <Scalar S> S acos(const S& a) {
  return S::unary(a, std::acos(a.value()), -1.0 / std::sqrt(1.0 - a.value() * a.value()));
}
template <Scalar S> S atan(const S& a) { return S::unary(a, std::atan(a.value()), 1.0 / (1.0 + a.value() * a.value())); }
template <Scalar S> S sinh(const S& a) { return S::unary(a, std::sinh(a.value()), std::cosh(a.value())); }
template <Scalar S> S cosh(const S& a) { return S::unary(a, std::cosh(a.value()), std::sinh(a.value())); }
template <Scalar S> S tanh(const S& a) {
  const double t = std::tanh(a.value());
  return S::unary(a, t, 1.0 - t * t);
}
template <Scalar S> S erf(const S& a) {
  const double x = a.value();
  return S::unary(a, std::erf(x), 1.1283791670955125739 * std::exp(-x * x));  // 2/sqrt(pi)
}
/// |a|: the derivative of the side a lies on, +1 at 0.
template <Scalar S> S abs(const S& a) { return a.value() < 0.0 ? S::unary(a, -a.value(), -1.0) : a; }
template <Scalar S> S fabs(const S& a) { return abs(a); }

template <Scalar S> S pow(const S& a, double b) {
  if (b == 0.0) return S(1.0);
  const double x = a.value();
  return S::unary(a, std::pow(x, b), b * std::pow(x, b - 1.0));
}
template <Scalar S> S pow(double a, const S& b) {
  const double value = std::pow(a, b.value());
  return S::unary(b, value, a == 0.0 ? 0.0 : value * std::log(a));
}
template <Scalar S> S pow(const S& a, const S& b) {
  const double x = a.value(), y = b.value(), value = std::pow(x, y);
  return S::binary(a, b, value, y == 0.0 ? 0.0 : y * std::pow(x, y - 1.0), x == 0.0 ? 0.0 : value * std::log(x));
}
template <Scalar S> S atan2(const S& y, const S& x) {
  const double r2 = x.value() * x.value() + y.value() * y.value();
  return S::binary(y, x, std::atan2(y.value(), x.value()), x.value() / r2, -y.value() / r2);
}
template <Scalar S> S hypot(const S& a, const S& b) {
  const double h = std::hypot(a.value(), b.value());
  return S::binary(a, b, h, a.value() / h, b.value() / h);
}

/// min and max pick one argument (the first at a tie), with its derivatives.
template <Scalar S> S min(const S& a, const S& b) { return b.value() < a.value() ? b : a; }
template <Scalar S> S max(const S& a, const S& b) { return a.value() < b.value() ? b : a; }
template <Scalar S> S min(const S& a, double b) { return b < a.value() ? S(b) : a; }
template <Scalar S> S min(double a, const S& b) { return b.value() < a ? b : S(a); }
template <Scalar S> S max(const S& a, double b) { return a.value() < b ? S(b) : a; }
template <Scalar S> S max(double a, const S& b) { return a < b.value() ? b : S(a); }
template <Scalar S> S fmin(const S& a, const S& b) { return min(a, b); }
template <Scalar S> S fmax(const S& a, const S& b) { return max(a, b); }

template <Scalar S> bool isfinite(const S& a) { return std::isfinite(a.value()); }
template <Scalar S> bool isnan(const S& a) { return std::isnan(a.value()); }

}  // namespace esdirk::ad
