#pragma once
// Forward-mode dual numbers: a value and its derivatives with respect to N inputs. The closed
// forms of the examples are written once in terms of these, so that the same code gives the
// reference values and their exact derivatives (no hand-derived formulas to get wrong).

#include <array>
#include <cmath>

namespace dual {

template <int N>
struct Dual {
  double v = 0.0;
  std::array<double, N> d{};

  Dual() = default;
  Dual(double value) : v(value) {}  // NOLINT: constants convert implicitly
  static Dual variable(double value, int i) {
    Dual x(value);
    x.d[static_cast<std::size_t>(i)] = 1.0;
    return x;
  }
};

/// The value of a number (a double is its own value), for comparisons in generic code.
inline double value(double x) { return x; }
template <int N> double value(const Dual<N>& x) { return x.v; }

template <int N> Dual<N> operator+(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v + b.v);
  for (std::size_t i = 0; i < N; ++i) r.d[i] = a.d[i] + b.d[i];
  return r;
}
template <int N> Dual<N> operator-(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v - b.v);
  for (std::size_t i = 0; i < N; ++i) r.d[i] = a.d[i] - b.d[i];
  return r;
}
template <int N> Dual<N> operator-(const Dual<N>& a) { return Dual<N>(0.0) - a; }
template <int N> Dual<N> operator*(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v * b.v);
  for (std::size_t i = 0; i < N; ++i) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return r;
}
template <int N> Dual<N> operator/(const Dual<N>& a, const Dual<N>& b) {
  Dual<N> r(a.v / b.v);
  for (std::size_t i = 0; i < N; ++i) r.d[i] = (a.d[i] * b.v - a.v * b.d[i]) / (b.v * b.v);
  return r;
}
template <int N> Dual<N> operator+(const Dual<N>& a, double b) { return a + Dual<N>(b); }
template <int N> Dual<N> operator+(double a, const Dual<N>& b) { return Dual<N>(a) + b; }
template <int N> Dual<N> operator-(const Dual<N>& a, double b) { return a - Dual<N>(b); }
template <int N> Dual<N> operator-(double a, const Dual<N>& b) { return Dual<N>(a) - b; }
template <int N> Dual<N> operator*(const Dual<N>& a, double b) { return a * Dual<N>(b); }
template <int N> Dual<N> operator*(double a, const Dual<N>& b) { return Dual<N>(a) * b; }
template <int N> Dual<N> operator/(const Dual<N>& a, double b) { return a / Dual<N>(b); }
template <int N> Dual<N> operator/(double a, const Dual<N>& b) { return Dual<N>(a) / b; }

template <int N> Dual<N> sqrt(const Dual<N>& a) {
  const double s = std::sqrt(a.v);
  Dual<N> r(s);
  for (std::size_t i = 0; i < N; ++i) r.d[i] = a.d[i] / (2.0 * s);
  return r;
}
template <int N> Dual<N> exp(const Dual<N>& a) {
  const double e = std::exp(a.v);
  Dual<N> r(e);
  for (std::size_t i = 0; i < N; ++i) r.d[i] = a.d[i] * e;
  return r;
}
template <int N> Dual<N> log(const Dual<N>& a) {
  Dual<N> r(std::log(a.v));
  for (std::size_t i = 0; i < N; ++i) r.d[i] = a.d[i] / a.v;
  return r;
}

}  // namespace dual
