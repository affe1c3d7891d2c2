/* Compiled callbacks for the Python tests (the ctypes and cffi routes): Robertson's kinetics
 * with the signature of every esdirk compiled callback,
 *     int fn(double t, const double *x, const double *z, const double *p, double *out). */

#include <dlfcn.h>

int robertson_f(double t, const double* y, const double* z, const double* p, double* f) {
  (void)t, (void)z, (void)p;
  f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
  f[1] = 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1];
  f[2] = 3e7 * y[1] * y[1];
  return 0;
}

/* Column-major 3 x 3. */
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

/* An event: y3 reaches 0.5. */
int robertson_half_converted(double t, const double* y, const double* z, const double* p,
                             double* h) {
  (void)t, (void)z, (void)p;
  h[0] = y[2] - 0.5;
  return 0;
}

/* A callback that reports a fatal failure (the integration must stop with a clear status). */
int always_fails(double t, const double* y, const double* z, const double* p, double* f) {
  (void)t, (void)y, (void)z, (void)p, (void)f;
  return -1;
}

/* x' = -x, counting the calls made while the calling thread holds Python's GIL (found at run
 * time, so that this library does not link Python): with compiled callbacks the integration
 * must run with the GIL released. */

static int gil_held_calls = 0;

int gil_probe_f(double t, const double* y, const double* z, const double* p, double* f) {
  (void)t, (void)z, (void)p;
  int (*held)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "PyGILState_Check");
  if (held && held()) ++gil_held_calls;
  f[0] = -y[0];
  return 0;
}

int gil_probe_count(void) { return gil_held_calls; }

/* Robertson's Jacobian on its sparsity pattern, the 7 nonzeros in CSC order (column 0: rows
 * 0, 1; column 1: rows 0, 1, 2; column 2: rows 0, 1). */
int robertson_sparse_jac(double t, const double* y, const double* z, const double* p,
                         double* values) {
  (void)t, (void)z, (void)p;
  values[0] = -0.04;
  values[1] = 0.04;
  values[2] = 1e4 * y[2];
  values[3] = -1e4 * y[2] - 6e7 * y[1];
  values[4] = 6e7 * y[1];
  values[5] = 1e4 * y[1];
  values[6] = -1e4 * y[1];
  return 0;
}

/* The bouncing ball's event Jacobian, the row [h_t, h_z, h_v, h_g, h_gamma] of h = z
 * (1 x 5, column-major). */
int ball_event_jacobian(double t, const double* x, const double* z, const double* p,
                        double* row) {
  (void)t, (void)x, (void)z, (void)p;
  row[0] = 0.0;
  row[1] = 1.0;
  row[2] = 0.0;
  row[3] = 0.0;
  row[4] = 0.0;
  return 0;
}
