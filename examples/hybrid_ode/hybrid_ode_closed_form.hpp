#pragma once
// The exact solution of Example 5.1 of Serban & Recuero (TR-2019-01) (x increases monotonically and crosses
// h(x) = x^3 - 5x^2 + 7x = p three times for 49/27 < p < 3: A -> B -> A -> B), for any number
// type (double, or dual::Dual for exact derivatives with respect to p). In A
// x = 4 - (4 - x_s) e^{-(t - t_s)}, in B x = 5 - (5 - x_s) e^{-2(t - t_s)}; the crossings are
// the roots x_a < x_b < x_c of h(x) = p with dx_e/dp = 1/h'(x_e).

#include <array>
#include <cmath>

#include "bouncing_ball/dual.hpp"
#include "hybrid_ode/hybrid_ode_model.hpp"

namespace hybrid_ode {

template <class T>
struct Exact {
  std::array<T, 3> t_event, x_event;
  T x_end;  ///< x(5)
  T G;      ///< int_0^5 x dt
};

/// The root of h(x) = p in (lo, hi) by bisection then Newton (double precision).
inline double crossing(double p, double lo, double hi) {
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double m = 0.5 * (lo + hi);
    ((cubic(m) - p) * (cubic(lo) - p) > 0.0 ? lo : hi) = m;
  }
  double x = 0.5 * (lo + hi);
  for (int i = 0; i < 3; ++i) x -= (cubic(x) - p) / cubic_slope(x);
  return x;
}

/// `p` as a T carrying its derivative; `value_of` its double value.
template <class T>
Exact<T> exact(const T& p, double p_value) {
  using std::exp;
  using std::log;
  const double roots[3] = {crossing(p_value, 0.0, 1.0), crossing(p_value, 1.0, 7.0 / 3.0),
                           crossing(p_value, 7.0 / 3.0, 4.0)};
  Exact<T> out;
  for (int e = 0; e < 3; ++e) {
    // x_e(p) with the exact derivative 1/h'(x_e): x_e + (p - p_value)/h'(x_e) to first order.
    out.x_event[static_cast<std::size_t>(e)] = roots[e] + (p - p_value) / cubic_slope(roots[e]);
  }
  const T& xa = out.x_event[0];
  const T& xb = out.x_event[1];
  const T& xc = out.x_event[2];
  const T t1 = log(4.0 / (4.0 - xa));
  const T t2 = t1 + 0.5 * log((5.0 - xa) / (5.0 - xb));
  const T t3 = t2 + log((4.0 - xb) / (4.0 - xc));
  out.t_event = {t1, t2, t3};
  out.x_end = 5.0 - (5.0 - xc) * exp(-2.0 * (t_end - t3));
  // int x dt: 4 dt - dx in A, 5 dt - dx/2 in B.
  out.G = (4.0 * t1 - xa) + (5.0 * (t2 - t1) - 0.5 * (xb - xa)) + (4.0 * (t3 - t2) - (xc - xb)) +
          (5.0 * (t_end - t3) - 0.5 * (out.x_end - xc));
  return out;
}

}  // namespace hybrid_ode
