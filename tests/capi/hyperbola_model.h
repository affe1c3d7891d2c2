/* The index-1 DAE x' = -z, 0 = z - x^2 (x = x0/(1 + x0 t), dx(t)/dx0 = 1/(1 + x0 t)^2) as a
 * plain and as a one-mode hybrid residual: the small model of the options-object and objective
 * tests (test_capi_options.c, test_capi_options_derivatives.c, test_capi_one_objective.c). */
#ifndef ESDIRK_TESTS_CAPI_HYPERBOLA_MODEL_H
#define ESDIRK_TESTS_CAPI_HYPERBOLA_MODEL_H

#include "esdirk/esdirk.h"

static int hyperbola(esdirk_int nx, esdirk_int nz, esdirk_int np, double t, const double* x,
                     const double* z, const double* p, double* f, double* g, void* user_data) {
  (void)nx, (void)nz, (void)np, (void)t, (void)p, (void)user_data;
  f[0] = -z[0];
  g[0] = z[0] - x[0] * x[0];
  return 0;
}

static int hybrid_hyperbola(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_int nm,
                            double t, const double* x, const double* z, const double* p,
                            const double* mem, double* f, double* g, void* user_data) {
  (void)mode, (void)nm, (void)mem;
  return hyperbola(nx, nz, np, t, x, z, p, f, g, user_data);
}

#endif
