#pragma once
// The library's models written once as templates over the scalar type (doc/ad-guide.md): the
// twins of the hand-Jacobian models of examples/ (Dow, the CSTR, Robertson, Van der Pol) and
// tests/common (Akzo Nobel, the 1-D Brusselator). Each follows its hand-written original line
// by line, so that the tests compare AD with the hand derivatives of the same equations.

#include <cmath>
#include <span>

namespace templated {

template <class T>
using In = std::span<const T>;
template <class T>
using Out = std::span<T>;

/// examples/dow/dow_model.hpp: 6 + 4 states, 9 parameters. The parameters have a scalar type of
/// their own (P = T but for J's passes, where they are plain doubles: plain_parameters).
struct Dow {
  static constexpr bool plain_parameters = true;
  template <class T, class P = T>
  int f(double, In<T> x, In<T> z, In<P> p, Out<T> f) const {
    const T &u2 = x[1], &u4 = x[3], &u6 = x[5];
    const T &u8 = z[1], &u9 = z[2], &u10 = z[3];
    const P &k1 = p[0], &km1 = p[1], &k2 = p[2], &k3 = p[3], &km3 = p[4];
    if (!(z[0] > 0.0)) return 1;  // [H+] > 0 (the model's own domain check)
    f[0] = -k2 * u2 * u8;
    f[1] = -k1 * u2 * u6 + km1 * u10 - k2 * u2 * u8;
    f[2] = k2 * u2 * u8 + k3 * u4 * u6 - km3 * u9;
    f[3] = -k3 * u4 * u6 + km3 * u9;
    f[4] = k1 * u2 * u6 - km1 * u10;
    f[5] = -k1 * u2 * u6 - k3 * u4 * u6 + km1 * u10 + km3 * u9;
    return 0;
  }
  template <class T, class P = T>
  int g(double, In<T> x, In<T> z, In<P> p, Out<T> g) const {
    const T &u1 = x[0], &u3 = x[2], &u5 = x[4], &u6 = x[5];
    const T &u7 = z[0], &u8 = z[1], &u9 = z[2], &u10 = z[3];
    const P &K1 = p[5], &K2 = p[6], &K3 = p[7], &Qp = p[8];
    g[0] = -Qp + u6 + u8 + u9 + u10 - u7;
    g[1] = u8 - K2 * u1 / (K2 + u7);
    g[2] = u9 - K3 * u3 / (K3 + u7);
    g[3] = u10 - K1 * u5 / (K1 + u7);
    return 0;
  }
};

/// Dow with its parameters as duals in every pass (the model as most users write it).
struct DowDualParameters : Dow {
  static constexpr bool plain_parameters = false;
};

/// tests/common/akzo_nobel.hpp: 5 + 1 states.
struct Akzo {
  template <class T>
  int f(double, In<T> y, In<T> z, In<T>, Out<T> f) const {
    using std::pow;
    using std::sqrt;
    const double k1 = 18.7, k2 = 0.58, k3 = 0.09, k4 = 0.42, K = 34.4, klA = 3.3, pCO2 = 0.9, H = 737.0;
    if (y[1] < 0.0) return 1;
    const T& y6 = z[0];
    const T r1 = k1 * pow(y[0], 4) * sqrt(y[1]);
    const T r2 = k2 * y[2] * y[3];
    const T r3 = k2 / K * y[0] * y[4];
    const T r4 = k3 * y[0] * y[3] * y[3];
    const T r5 = k4 * y6 * y6 * sqrt(y[1]);
    const T Fin = klA * (pCO2 / H - y[1]);
    f[0] = -2.0 * r1 + r2 - r3 - r4;
    f[1] = -0.5 * r1 - r4 - 0.5 * r5 + Fin;
    f[2] = r1 - r2 + r3;
    f[3] = -r2 + r3 - 2.0 * r4;
    f[4] = r2 - r3 + r5;
    return 0;
  }
  template <class T>
  int g(double, In<T> y, In<T> z, In<T>, Out<T> g) const {
    g[0] = 115.83 * y[0] * y[3] - z[0];
    return 0;
  }
};

/// examples/nmpc/cstr.hpp: 2 states, 1 control.
struct Cstr {
  template <class T>
  int f(double, In<T> x, In<T>, In<T> u, Out<T> f) const {
    using std::exp;
    constexpr double q = 100.0, V = 100.0, CAf = 1.0, Tf = 350.0, k0 = 7.2e10, EoR = 8750.0;
    constexpr double heat = 5e4 / (1000.0 * 0.239), cooling = 5e4 / (V * 1000.0 * 0.239);
    if (!(x[1] > 0.0)) return 1;
    const T k = k0 * exp(-EoR / x[1]);
    f[0] = q / V * (CAf - x[0]) - k * x[0];
    f[1] = q / V * (Tf - x[1]) + heat * k * x[0] + cooling * (u[0] - x[1]);
    return 0;
  }
};

/// examples/robertson/robertson_model.hpp, the ODE.
struct RobertsonOde {
  template <class T>
  int f(double, In<T> y, In<T>, In<T>, Out<T> f) const {
    f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    f[2] = 3e7 * y[1] * y[1];
    f[1] = -f[0] - f[2];
    return 0;
  }
};

/// examples/robertson/robertson_model.hpp, the DAE (x = y1, y2; z = y3).
struct RobertsonDae {
  template <class T>
  int f(double, In<T> x, In<T> z, In<T>, Out<T> f) const {
    f[0] = -0.04 * x[0] + 1e4 * x[1] * z[0];
    f[1] = 0.04 * x[0] - 1e4 * x[1] * z[0] - 3e7 * x[1] * x[1];
    return 0;
  }
  template <class T>
  int g(double, In<T> x, In<T> z, In<T>, Out<T> g) const {
    g[0] = x[0] + x[1] + z[0] - 1.0;
    return 0;
  }
};

/// examples/van_der_pol/van_der_pol_model.hpp.
struct VanDerPol {
  double eps = 1e-6;
  template <class T>
  int f(double, In<T> y, In<T>, In<T>, Out<T> f) const {
    f[0] = y[1];
    f[1] = ((1.0 - y[0] * y[0]) * y[1] - y[0]) / eps;
    return 0;
  }
};

/// tests/common/brusselator_1d.hpp (without the algebraic state): 2 N states, banded J.
struct Brusselator {
  int N = 0;
  template <class T>
  int f(double, In<T> x, In<T>, In<T>, Out<T> f) const {
    constexpr double A = 1.0, B = 3.0, alpha = 1.0 / 50.0;
    const double c = alpha * (N + 1.0) * (N + 1.0);
    for (int i = 0; i < N; ++i) {
      const T &u = x[2 * i], &v = x[2 * i + 1];
      const T ul = i > 0 ? x[2 * i - 2] : T(1.0), ur = i + 1 < N ? x[2 * i + 2] : T(1.0);
      const T vl = i > 0 ? x[2 * i - 1] : T(3.0), vr = i + 1 < N ? x[2 * i + 3] : T(3.0);
      f[2 * i] = A + u * u * v - (B + 1.0) * u + c * (ul - 2.0 * u + ur);
      f[2 * i + 1] = B * u - u * u * v + c * (vl - 2.0 * v + vr);
    }
    return 0;
  }
};

}  // namespace templated
