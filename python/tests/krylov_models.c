/* Compiled Newton-Krylov hooks for the Python tests (python/tests/test_krylov.py): the 1-D
 * Brusselator of 16 points (interleaved u, v) with its exact J v and a block-Jacobi
 * preconditioner built from the J its setup receives, in the hooks' C signatures. The
 * preconditioner keeps its blocks in static storage: one problem at a time. */

#define POINTS 16
#define N (2 * POINTS)
static const double A = 1.0, B = 3.0, ALPHA = 0.02;
static double inverse[POINTS][4]; /* each point's 2x2 block of M, inverted, column-major */

static double coupling(void) { return ALPHA * (POINTS + 1) * (POINTS + 1); }

int brusselator_f(double t, const double* x, const double* z, const double* p, double* f) {
  (void)t, (void)z, (void)p;
  const double c = coupling();
  for (int k = 0; k < POINTS; ++k) {
    const double u = x[2 * k], v = x[2 * k + 1];
    const double ul = k > 0 ? x[2 * k - 2] : 1.0, ur = k + 1 < POINTS ? x[2 * k + 2] : 1.0;
    const double vl = k > 0 ? x[2 * k - 1] : 3.0, vr = k + 1 < POINTS ? x[2 * k + 3] : 3.0;
    f[2 * k] = A + u * u * v - (B + 1.0) * u + c * (ul - 2.0 * u + ur);
    f[2 * k + 1] = B * u - u * u * v + c * (vl - 2.0 * v + vr);
  }
  return 0;
}

int brusselator_jac_vec(double t, const double* x, const double* z, const double* p,
                        const double* d, double* out) {
  (void)t, (void)z, (void)p;
  const double c = coupling();
  for (int k = 0; k < POINTS; ++k) {
    const double u = x[2 * k], v = x[2 * k + 1], du = d[2 * k], dv = d[2 * k + 1];
    const double dul = k > 0 ? d[2 * k - 2] : 0.0, dur = k + 1 < POINTS ? d[2 * k + 2] : 0.0;
    const double dvl = k > 0 ? d[2 * k - 1] : 0.0, dvr = k + 1 < POINTS ? d[2 * k + 3] : 0.0;
    out[2 * k] = (2.0 * u * v - (B + 1.0) - 2.0 * c) * du + u * u * dv + c * (dul + dur);
    out[2 * k + 1] = (B - 2.0 * u * v) * du + (-u * u - 2.0 * c) * dv + c * (dvl + dvr);
  }
  return 0;
}

/* J_values in the pattern's CSC order: column j holds rows j - 2 (k > 0), 2k, 2k + 1 and
 * j + 2 (k < POINTS - 1), k = j / 2. */
int brusselator_psetup(double t, const double* x, const double* z, const double* p,
                       double h_gamma, const double* values) {
  (void)t, (void)x, (void)z, (void)p;
  double block[POINTS][4] = {{0.0}};
  int at = 0;
  for (int j = 0; j < N; ++j) {
    const int k = j / 2;
    if (k > 0) ++at;
    block[k][2 * (j % 2)] = -h_gamma * values[at++];     /* row 2k */
    block[k][2 * (j % 2) + 1] = -h_gamma * values[at++]; /* row 2k + 1 */
    if (k + 1 < POINTS) ++at;
  }
  for (int k = 0; k < POINTS; ++k) {
    const double a = 1.0 + block[k][0], b = block[k][2], c = block[k][1], d = 1.0 + block[k][3];
    const double det = a * d - b * c;
    if (det == 0.0) return 1;
    inverse[k][0] = d / det;
    inverse[k][1] = -c / det;
    inverse[k][2] = -b / det;
    inverse[k][3] = a / det;
  }
  return 0;
}

int brusselator_psolve(const double* r, double* out, int transpose) {
  for (int k = 0; k < POINTS; ++k) {
    const double* m = inverse[k];
    out[2 * k] = m[0] * r[2 * k] + (transpose ? m[1] : m[2]) * r[2 * k + 1];
    out[2 * k + 1] = (transpose ? m[2] : m[1]) * r[2 * k] + m[3] * r[2 * k + 1];
  }
  return 0;
}

/* A preconditioner solve that always fails (code 3). */
int failing_psolve(const double* r, double* out, int transpose) {
  (void)r, (void)out, (void)transpose;
  return 3;
}
