#pragma once
// The exact bouncing ball (Schaefer, "Sensitivity Analysis of Hybrid Differential Equations",
// GSoC 2021): free flight z = z0 + v0 t - g t^2 / 2 until the first
// impact at tau = (v0 + S)/g, S = sqrt(v0^2 + 2 g z0), then arcs with take-off speeds
// gamma^k S. Written for any number type T (double, or dual::Dual for exact derivatives with
// respect to z0, v0, g, gamma).

#include <vector>

#include "bouncing_ball/dual.hpp"

namespace bouncing_ball {

using dual::value;

template <class T>
struct Exact {
  T z, v;                 ///< at the time asked for
  std::vector<T> impacts;  ///< impact times up to it
};

template <class T>
Exact<T> exact(const T& z0, const T& v0, const T& g, const T& gamma, double t) {
  using std::sqrt;
  Exact<T> out;
  const T S = sqrt(v0 * v0 + 2.0 * g * z0);
  T tk = (v0 + S) / g;
  if (t < value(tk)) {
    out.z = z0 + v0 * t - 0.5 * g * t * t;
    out.v = v0 - g * t;
    return out;
  }
  T u = gamma * S;  // take-off speed after impact k
  for (;;) {
    out.impacts.push_back(tk);
    const T next = tk + 2.0 * u / g;
    if (t < value(next)) {
      const T s = t - tk;
      out.z = u * s - 0.5 * g * s * s;
      out.v = u - g * s;
      return out;
    }
    tk = next;
    u = gamma * u;
  }
}

}  // namespace bouncing_ball
