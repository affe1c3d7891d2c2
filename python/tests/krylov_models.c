/* Compiled Newton-Krylov hooks for the Python tests (python/tests/test_krylov.py): the 1-D
 * Brusselator of 16 points (interleaved u, v) with its exact J v and a block-Jacobi
 * preconditioner built from the J its setup receives (the model of
 * tests/common/brusselator_1d_kernels.c, which the C API's Krylov test shares), in the hooks' C
 * signatures. The preconditioner keeps its blocks in static storage: one problem at a time. */

#include "brusselator_1d_kernels.h"

#define POINTS BRUSSELATOR_1D_POINTS
#define N BRUSSELATOR_1D_N
static double inverse[POINTS][4]; /* each point's 2x2 block of M, inverted, column-major */

int brusselator_f(double t, const double* x, const double* z, const double* p, double* f) {
  (void)t, (void)z, (void)p;
  brusselator_1d_f(x, f);
  return 0;
}

int brusselator_jac_vec(double t, const double* x, const double* z, const double* p,
                        const double* d, double* out) {
  (void)t, (void)z, (void)p;
  brusselator_1d_jv(x, d, out);
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
  return brusselator_1d_invert_blocks((const double(*)[4])block, inverse);
}

int brusselator_psolve(const double* r, double* out, int transpose) {
  brusselator_1d_block_solve((const double(*)[4])inverse, r, out, transpose);
  return 0;
}

/* A preconditioner solve that always fails (code 3). */
int failing_psolve(const double* r, double* out, int transpose) {
  (void)r, (void)out, (void)transpose;
  return 3;
}
