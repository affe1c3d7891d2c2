/* The 1-D Brusselator of the C Krylov tests: brusselator_1d_kernels.h. */
#include "brusselator_1d_kernels.h"

#define POINTS BRUSSELATOR_1D_POINTS
static const double A = 1.0, B = 3.0, ALPHA = 0.02;

static double coupling(void) {
  const double dx = 1.0 / (POINTS + 1);
  return ALPHA / (dx * dx);
}

void brusselator_1d_f(const double* x, double* f) {
  const double c = coupling();
  for (int k = 0; k < POINTS; ++k) {
    const double u = x[2 * k], v = x[2 * k + 1];
    const double ul = k > 0 ? x[2 * k - 2] : 1.0, ur = k + 1 < POINTS ? x[2 * k + 2] : 1.0;
    const double vl = k > 0 ? x[2 * k - 1] : 3.0, vr = k + 1 < POINTS ? x[2 * k + 3] : 3.0;
    f[2 * k] = A + u * u * v - (B + 1.0) * u + c * (ul - 2.0 * u + ur);
    f[2 * k + 1] = B * u - u * u * v + c * (vl - 2.0 * v + vr);
  }
}

void brusselator_1d_jv(const double* x, const double* d, double* out) {
  const double c = coupling();
  for (int k = 0; k < POINTS; ++k) {
    const double u = x[2 * k], v = x[2 * k + 1], du = d[2 * k], dv = d[2 * k + 1];
    const double dul = k > 0 ? d[2 * k - 2] : 0.0, dur = k + 1 < POINTS ? d[2 * k + 2] : 0.0;
    const double dvl = k > 0 ? d[2 * k - 1] : 0.0, dvr = k + 1 < POINTS ? d[2 * k + 3] : 0.0;
    out[2 * k] = (2.0 * u * v - (B + 1.0) - 2.0 * c) * du + u * u * dv + c * (dul + dur);
    out[2 * k + 1] = (B - 2.0 * u * v) * du + (-u * u - 2.0 * c) * dv + c * (dvl + dvr);
  }
}

int brusselator_1d_invert_blocks(const double minus_hgamma_j[POINTS][4], double inverse[POINTS][4]) {
  for (int k = 0; k < POINTS; ++k) {
    const double* block = minus_hgamma_j[k];
    const double a = 1.0 + block[0], b = block[2], c = block[1], d = 1.0 + block[3];
    const double det = a * d - b * c;
    if (det == 0.0) return 1;
    inverse[k][0] = d / det;
    inverse[k][1] = -c / det;
    inverse[k][2] = -b / det;
    inverse[k][3] = a / det;
  }
  return 0;
}

void brusselator_1d_block_solve(const double inverse[POINTS][4], const double* r, double* out,
                                int transpose) {
  for (int k = 0; k < POINTS; ++k) {
    const double* m = inverse[k];
    const double r0 = r[2 * k], r1 = r[2 * k + 1];
    out[2 * k] = m[0] * r0 + (transpose ? m[1] : m[2]) * r1;
    out[2 * k + 1] = (transpose ? m[2] : m[1]) * r0 + m[3] * r1;
  }
}
