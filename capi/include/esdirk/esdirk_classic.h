/* esdirk classic driver: one call integrates from t to tend, in the style of the Fortran
 * RADAU5 / DASSL / ESDIRK34 codes, for programs ported from them (C99; Fortran: the module
 * esdirk_classic).
 *
 * A thin layer over the same integrator as the handle API of esdirk.h: a call builds the
 * options from rtol/atol/itol and the work arrays, initializes at (t, y) (the algebraic part of
 * y is a guess, made consistent), integrates to tend with tend as the stop time (so the last
 * step ends exactly at tend) and returns t = tend, y(tend), h = the step size the integrator
 * would try next and the statistics of the call in iwork. Calling again with the returned t, y
 * and h continues from tend (a fresh start with h as the first step, as in the classic codes).
 * The mapping of every argument to the handle API is in doc/classic-driver.md; a call gives the
 * same numbers, bit for bit, as the handle-API calls listed there.
 *
 * The state y is x then z: y[0..nx-1] the differential states, y[nx..nx+nz-1] the algebraic
 * ones. The callbacks are the handle API's (esdirk_residual_fn, esdirk_jacobian_fn,
 * esdirk_parameter_jacobian_fn) with the same return conventions.
 *
 * Work arrays. iwork (esdirk_int, liwork >= ESDIRK_CLASSIC_LIWORK) and rwork (double,
 * lrwork >= ESDIRK_CLASSIC_LRWORK): positions 0..9 are inputs (0 chooses the default; a
 * reserved input must be 0), positions 10..19 are outputs written by every call that got past
 * the argument checks. The constants below are 0-based C indices (iwork[ESDIRK_IWORK_NSTEP]);
 * the Fortran module esdirk_classic defines the same names as 1-based positions (one more).
 *
 * Return: the call returns IDID and also stores it in *idid:
 *    1  ESDIRK_CLASSIC_TEND_REACHED   t = tend, y = y(tend)
 *    2  ESDIRK_CLASSIC_INITIALIZED    t was tend on entry: only the algebraic part of y (and of
 *                                     S) was made consistent, no step was taken
 *  < 0  the library's status codes, unchanged (ESDIRK_TOO_MANY_STEPS, ..., ESDIRK_NULL_ARGUMENT,
 *       ESDIRK_INVALID_ARGUMENT, ESDIRK_BUFFER_TOO_SMALL for short work arrays); after a
 *       numerical failure (-1 ... -7) t, y (and S) hold the last accepted point, h the step the
 *       integrator would try next and iwork the statistics. esdirk_classic_last_error() says
 *       why (for a short work array: the length needed).
 * The library never prints and no C++ exception crosses this interface.
 */
#ifndef ESDIRK_ESDIRK_CLASSIC_H
#define ESDIRK_ESDIRK_CLASSIC_H

#include "esdirk/esdirk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- IDID ---------------------------------------------------------------------------------- */
#define ESDIRK_CLASSIC_TEND_REACHED 1
#define ESDIRK_CLASSIC_INITIALIZED 2

/* ---- Work-array lengths -------------------------------------------------------------------- */
#define ESDIRK_CLASSIC_LIWORK 20
#define ESDIRK_CLASSIC_LRWORK 20

/* ---- iwork: inputs (0 = default) ----------------------------------------------------------- */
#define ESDIRK_IWORK_MAX_STEPS 0          /* attempted steps in this call (500000) */
#define ESDIRK_IWORK_NEWTON_ITERATIONS 1  /* Newton iterations per stage (8) */
#define ESDIRK_IWORK_CONTROLLER 2         /* 0 predictive (Gustafsson), 1 asymptotic (standard) */
#define ESDIRK_IWORK_FILTER 3             /* 0 raw error estimate, 1 filtered by the matrix */
#define ESDIRK_IWORK_MAX_ERROR_TEST_FAILURES 4 /* in a row (12) */
#define ESDIRK_IWORK_MAX_NEWTON_FAILURES 5     /* in a row (12) */
#define ESDIRK_IWORK_MAX_CALLBACK_FAILURES 6   /* in a row (12) */
#define ESDIRK_IWORK_SENSITIVITY_MODE 7   /* sensitivities: 0 exact, 1 paper (Kristensen et al.) */
#define ESDIRK_IWORK_SENSITIVITY_ERROR_CONTROL 8 /* 0 the mode's default, 1 on, 2 off */
/* position 9 is reserved (must be 0) */

/* ---- iwork: outputs (the counts of this call; saturated at 2^31 - 1) ----------------------- */
#define ESDIRK_IWORK_NSTEP 10   /* attempted steps */
#define ESDIRK_IWORK_NACCEPT 11 /* accepted steps */
#define ESDIRK_IWORK_NREJECT 12 /* steps rejected by the error test */
#define ESDIRK_IWORK_NFUN 13    /* residual evaluations of the method */
#define ESDIRK_IWORK_NJAC 14    /* Jacobians formed */
#define ESDIRK_IWORK_NLU 15     /* LU factorizations */
#define ESDIRK_IWORK_NBACK 16   /* back substitutions */
#define ESDIRK_IWORK_NSENS 17   /* accepted steps whose sensitivities were solved */
#define ESDIRK_IWORK_NNEWT 18   /* Newton iterations */
#define ESDIRK_IWORK_NFDFUN 19  /* residual evaluations for finite-difference Jacobians */

/* ---- rwork: inputs (0 = default) ----------------------------------------------------------- */
#define ESDIRK_RWORK_MAX_STEP 0             /* bound on |h| (infinity) */
#define ESDIRK_RWORK_MIN_STEP 1             /* |h| below it fails (0: 16 ulp of t) */
#define ESDIRK_RWORK_SAFETY 2               /* controller safety factor (0.9) */
#define ESDIRK_RWORK_MIN_STEP_RATIO 3       /* smallest h_new/h (0.2) */
#define ESDIRK_RWORK_MAX_STEP_RATIO 4       /* largest h_new/h (5) */
#define ESDIRK_RWORK_NEWTON_TOLERANCE 5     /* (0.1) */
#define ESDIRK_RWORK_REFERENCE_CONTRACTION 6 /* (0.3) */
#define ESDIRK_RWORK_CONTROLLER_K1 7        /* observer gain k1 of the predictive law (1) */
#define ESDIRK_RWORK_CONTROLLER_K2 8        /* observer gain k2 (1) */
/* position 9 is reserved (must be 0) */

/* ---- rwork: outputs ------------------------------------------------------------------------ */
#define ESDIRK_RWORK_HLAST 10 /* the last accepted step (signed; 0 if none) */
/* positions 11..19 are reserved outputs (set to 0) */

/** Integrates x' = f, 0 = g from *t to tend (one call; see the top of this file).
 *  y: nx + nz values (x, then z: a guess on entry). p: np values (NULL with np = 0).
 *  *h: on entry the first step to try (0: chosen by the integrator; the sign is ignored); on
 *  return the step proposed for a continuation. rtol, atol: itol = 0: one value each, for every
 *  component; itol = 1: nx + nz values each (the algebraic states share one relative
 *  tolerance, so rtol[nx..nx+nz-1] must be equal). jacobian may be NULL (finite differences). */
ESDIRK_C_API int esdirk_classic_integrate(esdirk_int nx, esdirk_int nz, esdirk_int np,
                                esdirk_residual_fn residual, esdirk_jacobian_fn jacobian,
                                void* user_data, double* t, double* y, const double* p,
                                double tend, double* h, const double* rtol, const double* atol,
                                int itol, esdirk_int* iwork, esdirk_int liwork, double* rwork,
                                esdirk_int lrwork, int* idid);

/** esdirk_classic_integrate with ns forward sensitivities d(x, z)/d(theta).
 *  S: (nx + nz) x ns, column-major, leading dimension lds >= nx + nz: on entry rows 0..nx-1
 *  hold dx(t)/d(theta) (e.g. the identity block for directions in x0, 0 for parameter
 *  directions), the algebraic rows are ignored; on return S(tend). sp: np x ns, leading
 *  dimension ldsp >= np (may be NULL with np = 0): the parameter part dp/d(theta) of each
 *  direction. Direction j is the seed column (S(0..nx-1, j); sp(:, j)) of the handle API, so a
 *  continuation call with the returned S and the same sp continues the sensitivities.
 *  parameter_jacobian may be NULL (finite differences). */
ESDIRK_C_API int esdirk_classic_sensitivities(
    esdirk_int nx, esdirk_int nz, esdirk_int np, esdirk_residual_fn residual,
    esdirk_jacobian_fn jacobian, esdirk_parameter_jacobian_fn parameter_jacobian, void* user_data,
    double* t, double* y, const double* p, double tend, double* h, const double* rtol,
    const double* atol, int itol, esdirk_int ns, double* S, esdirk_int lds, const double* sp,
    esdirk_int ldsp, esdirk_int* iwork, esdirk_int liwork, double* rwork, esdirk_int lrwork,
    int* idid);

/** Why the last classic call on this thread failed ("" after a success). Valid until the next
 *  classic call on the thread. */
ESDIRK_C_API const char* esdirk_classic_last_error(void);

#ifdef __cplusplus
}
#endif
#endif /* ESDIRK_ESDIRK_CLASSIC_H */
