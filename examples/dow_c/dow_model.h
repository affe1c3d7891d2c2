/* The Dow Chemical batch reactor (Kristensen et al., IFAC 2005, section 5) as C callbacks for the esdirk C API:
 * 6 differential + 4 algebraic states, 9 parameters (k1, k-1, k2, k3, k-3, K1, K2, K3, Q+).
 * The same equations, in the same order of operations, as examples/dow/dow_model.hpp, so the
 * C and C++ runs produce the same numbers. */
#ifndef ESDIRK_EXAMPLES_DOW_MODEL_H
#define ESDIRK_EXAMPLES_DOW_MODEL_H

#include <math.h>

#include "esdirk/esdirk.h"

static const double dow_parameters[9] = {21.893,   2.14e9,   32.318,   21.893, 1.07e9,
                                         7.65e-18, 4.03e-11, 5.32e-18, 0.0131};
static const double dow_x0[6] = {1.5776, 8.32, 0.0, 0.0, 0.0, 0.0131};
/* Absolute tolerances of the tiny algebraic states ([H+] ~ 1e-8, u9, u10 ~ 1e-10). */
static const double dow_algebraic_atol[4] = {1e-14, 1e-14, 1e-16, 1e-16};

/* u9 = u10 = 0, u7 = u8 = 2 K2 u1 / (K2 + sqrt(K2^2 + 4 K2 u1)). */
static void dow_algebraic_start(double z0[4]) {
  const double K2 = dow_parameters[6], u1 = dow_x0[0];
  const double h = 2.0 * K2 * u1 / (K2 + sqrt(K2 * K2 + 4.0 * K2 * u1));
  z0[0] = h;
  z0[1] = h;
  z0[2] = 0.0;
  z0[3] = 0.0;
}

static int dow_residual(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                        const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)user_data;
  const double u1 = x[0], u2 = x[1], u3 = x[2], u4 = x[3], u5 = x[4], u6 = x[5];
  const double u7 = z[0], u8 = z[1], u9 = z[2], u10 = z[3];
  const double k1 = p[0], km1 = p[1], k2 = p[2], k3 = p[3], km3 = p[4];
  const double K1 = p[5], K2 = p[6], K3 = p[7], Qp = p[8];
  if (!(u7 > 0.0)) return 1; /* keep [H+] > 0: the non-physical branch has u7 ~ -Q+ */
  f[0] = -k2 * u2 * u8;
  f[1] = -k1 * u2 * u6 + km1 * u10 - k2 * u2 * u8;
  f[2] = k2 * u2 * u8 + k3 * u4 * u6 - km3 * u9;
  f[3] = -k3 * u4 * u6 + km3 * u9;
  f[4] = k1 * u2 * u6 - km1 * u10;
  f[5] = -k1 * u2 * u6 - k3 * u4 * u6 + km1 * u10 + km3 * u9;
  g[0] = -Qp + u6 + u8 + u9 + u10 - u7;
  g[1] = u8 - K2 * u1 / (K2 + u7);
  g[2] = u9 - K3 * u3 / (K3 + u7);
  g[3] = u10 - K1 * u5 / (K1 + u7);
  return 0;
}

/* J = [f_x f_z; g_x g_z]: columns u1..u6, u7..u10; rows f1..f6, g1..g4. */
static int dow_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                        const double* z, const double* p, double* J, esdirk_int ld,
                        void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)user_data;
  const double u1 = x[0], u2 = x[1], u3 = x[2], u4 = x[3], u5 = x[4], u6 = x[5];
  const double u7 = z[0], u8 = z[1];
  const double k1 = p[0], km1 = p[1], k2 = p[2], k3 = p[3], km3 = p[4];
  const double K1 = p[5], K2 = p[6], K3 = p[7];
#define E(i, j) J[(i) + (j)*ld]
  for (int j = 0; j < 10; ++j)
    for (int i = 0; i < 10; ++i) E(i, j) = 0.0;
  E(0, 1) = -k2 * u8;
  E(0, 7) = -k2 * u2;
  E(1, 1) = -k1 * u6 - k2 * u8;
  E(1, 5) = -k1 * u2;
  E(1, 7) = -k2 * u2;
  E(1, 9) = km1;
  E(2, 1) = k2 * u8;
  E(2, 3) = k3 * u6;
  E(2, 5) = k3 * u4;
  E(2, 7) = k2 * u2;
  E(2, 8) = -km3;
  E(3, 3) = -k3 * u6;
  E(3, 5) = -k3 * u4;
  E(3, 8) = km3;
  E(4, 1) = k1 * u6;
  E(4, 5) = k1 * u2;
  E(4, 9) = -km1;
  E(5, 1) = -k1 * u6;
  E(5, 3) = -k3 * u6;
  E(5, 5) = -k1 * u2 - k3 * u4;
  E(5, 8) = km3;
  E(5, 9) = km1;
  E(6, 5) = 1.0;
  E(6, 6) = -1.0;
  E(6, 7) = 1.0;
  E(6, 8) = 1.0;
  E(6, 9) = 1.0;
  E(7, 0) = -K2 / (K2 + u7);
  E(7, 6) = K2 * u1 / ((K2 + u7) * (K2 + u7));
  E(7, 7) = 1.0;
  E(8, 2) = -K3 / (K3 + u7);
  E(8, 6) = K3 * u3 / ((K3 + u7) * (K3 + u7));
  E(8, 8) = 1.0;
  E(9, 4) = -K1 / (K1 + u7);
  E(9, 6) = K1 * u5 / ((K1 + u7) * (K1 + u7));
  E(9, 9) = 1.0;
#undef E
  return 0;
}

/* Jp = [f_p; g_p]: columns k1, k-1, k2, k3, k-3, K1, K2, K3, Q+. */
static int dow_parameter_jacobian(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                  const double* x, const double* z, const double* p, double* Jp,
                                  esdirk_int ld, void* user_data) {
  (void)nx;
  (void)nz;
  (void)np;
  (void)t;
  (void)user_data;
  const double u1 = x[0], u2 = x[1], u3 = x[2], u4 = x[3], u5 = x[4], u6 = x[5];
  const double u7 = z[0], u8 = z[1], u9 = z[2], u10 = z[3];
  const double K1 = p[5], K2 = p[6], K3 = p[7];
#define E(i, j) Jp[(i) + (j)*ld]
  for (int j = 0; j < 9; ++j)
    for (int i = 0; i < 10; ++i) E(i, j) = 0.0;
  E(0, 2) = -u2 * u8;
  E(1, 0) = -u2 * u6;
  E(1, 1) = u10;
  E(1, 2) = -u2 * u8;
  E(2, 2) = u2 * u8;
  E(2, 3) = u4 * u6;
  E(2, 4) = -u9;
  E(3, 3) = -u4 * u6;
  E(3, 4) = u9;
  E(4, 0) = u2 * u6;
  E(4, 1) = -u10;
  E(5, 0) = -u2 * u6;
  E(5, 1) = u10;
  E(5, 3) = -u4 * u6;
  E(5, 4) = u9;
  E(6, 8) = -1.0;
  E(7, 6) = -u1 * u7 / ((K2 + u7) * (K2 + u7));
  E(8, 7) = -u3 * u7 / ((K3 + u7) * (K3 + u7));
  E(9, 5) = -u5 * u7 / ((K1 + u7) * (K1 + u7));
#undef E
  return 0;
}

#endif
