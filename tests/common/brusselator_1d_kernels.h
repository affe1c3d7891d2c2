/* The 1-D Brusselator of the C Krylov tests (tests/capi/test_capi_krylov.c and the Python
 * tests' compiled hooks, python/tests/krylov_models.c), in plain C99: 16 grid points, the
 * states interleaved (state 2k is u_k, 2k + 1 is v_k), u = 1 and v = 3 beyond both ends,
 *   u' = A + u^2 v - (B + 1) u + c (u_{k-1} - 2 u_k + u_{k+1}),
 *   v' = B u - u^2 v + c (v_{k-1} - 2 v_k + v_{k+1}),   A = 1, B = 3, c = 0.02 / dx^2,
 * its exact J v, and the block-Jacobi preconditioner over each point's 2x2 block of
 * M = I - h gamma J. Each test wraps these in its callbacks' signatures. (The C++ tests have
 * their own model with an algebraic variant: tests/common/brusselator_1d.hpp.) */
#ifndef ESDIRK_TESTS_BRUSSELATOR_1D_KERNELS_H
#define ESDIRK_TESTS_BRUSSELATOR_1D_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

#define BRUSSELATOR_1D_POINTS 16
#define BRUSSELATOR_1D_N (2 * BRUSSELATOR_1D_POINTS)

/* f at x (N values each). */
void brusselator_1d_f(const double* x, double* f);

/* out = J(x) d. */
void brusselator_1d_jv(const double* x, const double* d, double* out);

/* The inverse of each point's 2x2 block of M (column-major: [0] row 0 col 0, [1] row 1 col 0,
 * [2] row 0 col 1, [3] row 1 col 1) from the block of -h gamma J (same layout). Returns 1 for a
 * singular block (inverse then partly written), else 0. */
int brusselator_1d_invert_blocks(const double minus_hgamma_j[BRUSSELATOR_1D_POINTS][4],
                                 double inverse[BRUSSELATOR_1D_POINTS][4]);

/* out = P^{-1} r (P^{-T} r if transpose is nonzero) with the inverted blocks. */
void brusselator_1d_block_solve(const double inverse[BRUSSELATOR_1D_POINTS][4], const double* r,
                                double* out, int transpose);

#ifdef __cplusplus
}
#endif

#endif
