/* Robertson's kinetics as compiled esdirk callbacks, for robertson_ctypes.py and
 * robertson_cffi.py. Every compiled callback has this signature:
 *     int fn(double t, const double *x, const double *z, const double *p, double *out)
 * returning 0 (ok), > 0 (recoverable: the step is retried smaller) or < 0 (fatal). */

int robertson_f(double t, const double* y, const double* z, const double* p, double* f) {
  (void)t, (void)z, (void)p;
  f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
  f[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1];
  f[2] = 3e7 * y[1] * y[1];
  return 0;
}

/* The Jacobian, column-major: J[i + 3 j] = df_i/dy_j. */
int robertson_jac(double t, const double* y, const double* z, const double* p, double* J) {
  (void)t, (void)z, (void)p;
  J[0] = -0.04;
  J[1] = 0.04;
  J[2] = 0.0;
  J[3] = 1e4 * y[2];
  J[4] = -1e4 * y[2] - 6e7 * y[1];
  J[5] = 6e7 * y[1];
  J[6] = 1e4 * y[1];
  J[7] = -1e4 * y[1];
  J[8] = 0.0;
  return 0;
}
