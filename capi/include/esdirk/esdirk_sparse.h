/* esdirk large systems: banded and sparse Jacobians and the linear-solver back-end of a
 * problem (C99; Fortran: the module esdirk_sparse). doc/linear-solvers-guide.md.
 *
 * A problem's Jacobian J = [f_x f_z; g_x g_z] (n x n, n = nx + nz) is dense unless one of the
 * calls below declares its structure; the structure chooses how the iteration matrix
 * M = E - h gamma J is factored:
 *    ESDIRK_LINEAR_SOLVER_DENSE   LU with partial pivoting (the default)
 *    ESDIRK_LINEAR_SOLVER_BANDED  LAPACK band LU (dgbtrf/dgbtrs)
 *    ESDIRK_LINEAR_SOLVER_SPARSE  KLU (SuiteSparse): symbolic analysis once, refactorization
 *                                 per step
 *    ESDIRK_LINEAR_SOLVER_KRYLOV  restarted GMRES with a built-in or the problem's own
 *                                 preconditioner (Newton-Krylov)
 * Without an analytic Jacobian, J is formed by finite differences of coloured columns (one
 * evaluation of the residual per colour). The structure belongs to the problem, so every handle
 * made for it uses it: solver (with its sensitivities and adjoint), shooting interval, reverse
 * shooting interval and multiple-shooting evaluator. Declare it before such a handle is
 * created (their setup reads it); a later declaration applies to handles created after it.
 *
 * One structure handle, esdirk_jacobian_structure, serves plain and hybrid (event) problems:
 * esdirk_problem_jacobian_structure(problem) or esdirk_hybrid_problem_jacobian_structure(problem)
 * gives the problem's own, and the esdirk_jacobian_structure_* calls declare, read and clear it
 * with one implementation of every check. The handle belongs to the problem (never freed by
 * the caller; valid until the problem is freed).
 *
 * Patterns are compressed sparse column (CSC), 0-based: the rows of column j are
 * row_indices[column_pointers[j] .. column_pointers[j+1]-1], n+1 column pointers, the first 0.
 * The rows of a column may come in any order; the library keeps them sorted, and the values of
 * esdirk_sparse_jacobian_fn follow the sorted order (esdirk_problem_get_jacobian_pattern gives
 * it back). An entry not in the pattern is taken to be zero everywhere.
 *
 * Bad input (a NULL array, a pattern of the wrong size, a row outside [0, n), a row twice in a
 * column, decreasing column pointers, bandwidths negative or >= n, an unknown back-end) returns
 * ESDIRK_INVALID_ARGUMENT (ESDIRK_NULL_ARGUMENT for NULL) and leaves the problem's structure as
 * it was; esdirk_jacobian_structure_last_error() says what was wrong. A structurally singular
 * iteration matrix (KLU) is reported when a solver is initialized, naming a column.
 * The library never prints and no C++ exception crosses this interface.
 */
#ifndef ESDIRK_ESDIRK_SPARSE_H
#define ESDIRK_ESDIRK_SPARSE_H

#include "esdirk/esdirk.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ESDIRK_LINEAR_SOLVER_DENSE 0
#define ESDIRK_LINEAR_SOLVER_BANDED 1
#define ESDIRK_LINEAR_SOLVER_SPARSE 2
#define ESDIRK_LINEAR_SOLVER_KRYLOV 3 /* restarted GMRES, a built-in or the problem's own
                                        preconditioner */

/* The built-in preconditioners of ESDIRK_LINEAR_SOLVER_KRYLOV
   (esdirk_jacobian_structure_set_krylov_options). */
#define ESDIRK_KRYLOV_PRECONDITIONER_ILU0 0         /* ILU(0) of M on its pattern (the default) */
#define ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI 1 /* the LUs of M's diagonal blocks of block_size */

/* ---- The structure handle (plain and hybrid problems) ------------------------------------ */

/** A problem's Jacobian structure: the back-end, the bandwidths or the pattern, and the
 *  Newton-Krylov settings. Owned by its problem. */
typedef struct esdirk_jacobian_structure esdirk_jacobian_structure;

/** The problem's structure handle (NULL for a NULL problem). Owned by the problem: not freed
 *  by the caller, valid until esdirk_problem_free. Every call returns the same handle. */
ESDIRK_C_API esdirk_jacobian_structure* esdirk_problem_jacobian_structure(esdirk_problem* problem);

/** The hybrid problem's structure handle, one structure for every mode (see "Hybrid (event)
 *  problems" below). Owned by the problem as esdirk_problem_jacobian_structure's. */
ESDIRK_C_API esdirk_jacobian_structure* esdirk_hybrid_problem_jacobian_structure(
    esdirk_hybrid_problem* problem);

/** J is banded: J(i, j) = 0 unless -upper <= i - j <= lower; the band LU back-end.
 *  0 <= lower, upper < n (n = nx + nz). */
ESDIRK_C_API int esdirk_jacobian_structure_set_bandwidths(esdirk_jacobian_structure* structure,
                                                          esdirk_int lower, esdirk_int upper);

/** J has the CSC pattern (n + 1 column pointers, column_pointers[n] row indices, rows of a
 *  column in any order, none twice), factored by `linear_solver`: ESDIRK_LINEAR_SOLVER_SPARSE
 *  (KLU), _BANDED (with the pattern's bandwidths), _DENSE (the pattern then only colours the
 *  finite differences) or _KRYLOV (GMRES; the Krylov settings start from their defaults).
 *  The arrays are copied. */
ESDIRK_C_API int esdirk_jacobian_structure_set_pattern(esdirk_jacobian_structure* structure,
                                                       const esdirk_int* column_pointers,
                                                       const esdirk_int* row_indices,
                                                       int linear_solver);

/** Back to a dense Jacobian and the dense LU. */
ESDIRK_C_API int esdirk_jacobian_structure_clear(esdirk_jacobian_structure* structure);

/** The declared back-end (ESDIRK_LINEAR_SOLVER_*), its bandwidths and number of nonzeros
 *  (n - 1, n - 1 and n * n for a dense Jacobian); each output pointer may be NULL. With
 *  column_pointers not NULL, also the pattern with sorted rows: n + 1 column pointers and
 *  `capacity` >= nonzeros row indices (ESDIRK_BUFFER_TOO_SMALL otherwise, the sizes written;
 *  ESDIRK_WRONG_CALL_ORDER for a dense Jacobian, which has no pattern). With column_pointers
 *  NULL, row_indices and capacity are not read. */
ESDIRK_C_API int esdirk_jacobian_structure_get(const esdirk_jacobian_structure* structure,
                                               int* linear_solver, esdirk_int* lower,
                                               esdirk_int* upper, esdirk_int* nonzeros,
                                               esdirk_int* column_pointers,
                                               esdirk_int* row_indices, esdirk_int capacity);

/** The GMRES settings of ESDIRK_LINEAR_SOLVER_KRYLOV (doc/linear-solvers-guide.md,
 *  "Newton-Krylov"): the Krylov dimension m of GMRES(m) (the basis is allocated at setup;
 *  GMRES restarts after m iterations; in [1, min(n, 500)]: the basis holds dimension + 1
 *  vectors of n values; default min(30, n)), the restarts after the first cycle before a
 *  solve counts as failed (in [0, 1000]; default 4; a cycle that makes no progress ends the
 *  solve as failed at once), the forcing term: a solve stops when ||b - M x|| <= tolerance ||b|| (in (0, 1);
 *  default 0.05), the forcing term of the states' stage solves while a module that
 *  differentiates the run is attached (forward sensitivities, shooting intervals, adjoints),
 *  used when smaller than `tolerance` (tolerance_with_derivatives, in (0, 1); default 1e-3:
 *  the derivatives differentiate the converged stage equations, which must then be as close
 *  as an LU leaves them), and the block size of the block-Jacobi preconditioner (the unknowns
 *  per grid point of an interleaved grid; 1 is Jacobi; in [1, n]; default 1; checked but
 *  unused by the default ILU(0)). n = nx + nz. Kept with the declared structure: call it after
 *  esdirk_jacobian_structure_set_pattern (which starts from the defaults again). A value out of
 *  range returns ESDIRK_INVALID_ARGUMENT naming it (esdirk_jacobian_structure_last_error) and
 *  keeps the settings as they were. */
ESDIRK_C_API int esdirk_jacobian_structure_set_krylov(esdirk_jacobian_structure* structure,
                                                      esdirk_int dimension, int max_restarts,
                                                      double tolerance,
                                                      double tolerance_with_derivatives,
                                                      esdirk_int block_size);

/** The other settings of ESDIRK_LINEAR_SOLVER_KRYLOV (doc/c-api-guide.md, "Matrix-free
 *  Newton-Krylov"): matrix_free != 0 has GMRES multiply by J through the problem's
 *  esdirk_jacobian_vector_fn (esdirk_problem_set_krylov_callbacks) or, without one, through the
 *  difference quotient (F(y + s v) - F(y)) / s of the residual at the point where J is formed;
 *  the declared pattern then only feeds the preconditioner (declare just the couplings it
 *  uses). Forward sensitivities, shooting intervals and adjoints refuse matrix-free runs.
 *  sensitivity_tolerance: the relative residual of the forward sensitivities' GMRES stage
 *  solves (in (0, 1); default 1e-10). preconditioner: the built-in one used without the
 *  problem's own preconditioner callbacks (doc/linear-solvers-guide.md, "Preconditioners"):
 *  ESDIRK_KRYLOV_PRECONDITIONER_ILU0 (the default: the incomplete LU of M on its pattern; a
 *  zero pivot ends the run with ESDIRK_SINGULAR_ITERATION_MATRIX) or
 *  ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI (the dense LUs of M's diagonal blocks of the
 *  block size of esdirk_jacobian_structure_set_krylov). Kept with the declared structure: call
 *  it after the pattern; it and esdirk_jacobian_structure_set_krylov leave each other's
 *  settings as they are. A value out of range returns ESDIRK_INVALID_ARGUMENT naming it and
 *  keeps the settings as they were. */
ESDIRK_C_API int esdirk_jacobian_structure_set_krylov_options(esdirk_jacobian_structure* structure,
                                                              int matrix_free,
                                                              double sensitivity_tolerance,
                                                              int preconditioner);
/** The forward sensitivities' stage solves on ESDIRK_LINEAR_SOLVER_KRYLOV (C++
 *  KrylovSettings::sensitivity_step_preconditioner and sensitivity_error_fraction):
 *  step_preconditioner nonzero (the default) preconditions their GMRES with the step's
 *  preconditioner, zero sets one up per implicit stage; error_fraction in [0, 1) (default 0):
 *  if > 0, those solves may also stop at error_fraction x rtol when that is larger than the
 *  sensitivity tolerance, so the sensitivities are solved to a fraction of the error test's
 *  tolerance (0.01 measured to keep their errors; doc/linear-solvers-guide.md) instead of being
 *  the derivatives of the discrete scheme to rounding. Kept with the structure like the other
 *  Krylov settings; a value out of range returns ESDIRK_INVALID_ARGUMENT naming it and keeps
 *  the settings. */
ESDIRK_C_API int esdirk_jacobian_structure_set_krylov_sensitivity(esdirk_jacobian_structure* structure,
                                                                  int step_preconditioner,
                                                                  double error_fraction);

/** Why the last call on this structure (or on its problem's pattern checker and Krylov
 *  callbacks) failed, or what the checker found ("" if nothing; "null structure handle" for
 *  NULL). Valid until the next such call. */
ESDIRK_C_API const char* esdirk_jacobian_structure_last_error(
    const esdirk_jacobian_structure* structure);

/* ---- Callbacks and checks of a plain problem --------------------------------------------- */

/** The analytic Jacobian on the declared pattern: values[k] is the entry of row
 *  row_indices[k] in the column k lies in (nnz values; entries not written are 0). */
typedef int (*esdirk_sparse_jacobian_fn)(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                         const double* x, const double* z, const double* p,
                                         esdirk_int nnz, const esdirk_int* column_pointers,
                                         const esdirk_int* row_indices, double* values,
                                         void* user_data);

/** The analytic Jacobian on the declared pattern or band (NULL removes it: coloured finite
 *  differences). Needs a declared structure when a solver is created. */
ESDIRK_C_API int esdirk_problem_set_sparse_jacobian(esdirk_problem* problem,
                                                    esdirk_sparse_jacobian_fn jacobian);

/** out = J v at (t, x, z, p), J = [f_x f_z; g_x g_z]: v and out have nx + nz entries (z NULL
 *  when nz = 0, p NULL when np = 0). Used by matrix-free runs
 *  (esdirk_jacobian_structure_set_krylov_options) instead of differences. */
typedef int (*esdirk_jacobian_vector_fn)(esdirk_int nx, esdirk_int nz, esdirk_int np, double t,
                                         const double* x, const double* z, const double* p,
                                         const double* v, double* out, void* user_data);
/** Prepares the user preconditioner P, an approximation of the iteration matrix
 *  M = E - h_gamma J (E: identity on the nx differential rows, zero on the nz algebraic ones),
 *  at the point (t, x, z, p) where J was formed. J is given on the declared pattern (CSC, rows
 *  sorted: values[k] is the entry of row row_indices[k] in the column k lies in; analytic or
 *  coloured differences), valid during the call only. Called where a direct solver would
 *  factor M (the statistics' preconditioner_setups), never inside GMRES. */
typedef int (*esdirk_preconditioner_setup_fn)(esdirk_int nx, esdirk_int nz, esdirk_int np,
                                              double t, const double* x, const double* z,
                                              const double* p, double h_gamma, esdirk_int nnz,
                                              const esdirk_int* column_pointers,
                                              const esdirk_int* row_indices,
                                              const double* values, void* user_data);
/** out = P^{-1} r (P^{-T} r if `transpose` is nonzero: the adjoint's transposed stage solves)
 *  with the P of the last setup; r and out have n = nx + nz entries and do not overlap. */
typedef int (*esdirk_preconditioner_solve_fn)(esdirk_int nx, esdirk_int nz, const double* r,
                                              double* out, int transpose, void* user_data);

/** The callbacks of ESDIRK_LINEAR_SOLVER_KRYLOV, with the problem's user_data (each may be
 *  NULL; NULL removes it): the exact J v of matrix-free runs (without it: differences), and a
 *  preconditioner (setup and solve, both or neither: otherwise ESDIRK_INVALID_ARGUMENT and
 *  nothing changes) that replaces the built-in block-Jacobi one, applied from the right (GMRES
 *  still tests the true residual), as SUNDIALS' psetup/psolve. They belong to the problem, not
 *  to its structure: a later esdirk_jacobian_structure_set_pattern keeps them.
 *  A callback that returns nonzero (of either sign: the linear solve has no fatal code), or a
 *  J v or P^{-1} r with a non-finite entry, fails the GMRES solves of that setup: the step is
 *  retried as after a GMRES failure (a new J and setup, then a smaller step), and a run where
 *  that keeps happening stops with ESDIRK_LINEAR_SOLVER_FAILURES, the last good state kept and
 *  the message naming the callback and its code. The preconditioner belongs to the problem:
 *  while it is set, run one handle of the problem at a time (two concurrent runs would set up
 *  each other's P). The multiple-shooting evaluator makes a copy of the problem per interval
 *  but calls them from several threads at once with the same user_data: a preconditioner that
 *  keeps P in user_data needs one P per thread there (or one thread). */
ESDIRK_C_API int esdirk_problem_set_krylov_callbacks(esdirk_problem* problem,
                                                     esdirk_jacobian_vector_fn product,
                                                     esdirk_preconditioner_setup_fn setup,
                                                     esdirk_preconditioner_solve_fn solve);

/** Compares the declared pattern (and the analytic sparse Jacobian, if set) with central
 *  differences at (t, x, z, p; z and p may be NULL when nz or np is 0), one column at a time.
 *  *missing: the entries the pattern lacks (a difference entry beyond `threshold` times its
 *  row's largest entry outside the pattern; threshold <= 0 means 1e-8), the first `capacity`
 *  of them, largest first, in rows/cols (NULL allowed when capacity is 0); *wrong: the entries
 *  where the analytic sparse Jacobian disagrees with the differences (0 without one). Nonzero
 *  counts mean the pattern or the callback is wrong; esdirk_jacobian_structure_last_error() of
 *  the problem's structure then names the entries. ESDIRK_WRONG_CALL_ORDER without a declared
 *  structure, ESDIRK_CALLBACK_FAILURES if the residual or the sparse Jacobian failed (with the
 *  message). */
ESDIRK_C_API int esdirk_problem_check_jacobian_pattern(esdirk_problem* problem, double t,
                                                       const double* x, const double* z,
                                                       const double* p, double threshold,
                                                       esdirk_int* missing, esdirk_int* rows,
                                                       esdirk_int* cols, esdirk_int capacity,
                                                       esdirk_int* wrong);

/* ---- Hybrid (event) problems ------------------------------------------------------------
 * The structure handle of esdirk_hybrid_problem_jacobian_structure takes the same calls, with
 * the same checks, statuses and messages.
 * One structure serves every mode: declare the union of the modes' patterns (an entry of J
 * that is nonzero in any mode must be in it). It takes effect at the next
 * esdirk_hybrid_solver_initialize; a solver (and its adjoint) keeps the structure it was
 * initialized with. The event and reset Jacobians stay dense (they are nx + nz wide rows and
 * an nx-row matrix), and the sensitivity jumps at an event form one dense J of the mode.
 * esdirk_hybrid_problem_check_jacobian_pattern checks the pattern one mode at a time.
 * doc/c-api-guide.md, "Structure and method on every handle". */

/** The analytic Jacobian of `mode` on the declared pattern (nm: the memory size, 0 without
 *  memory; mem NULL then). As esdirk_sparse_jacobian_fn otherwise. */
typedef int (*esdirk_hybrid_sparse_jacobian_fn)(int mode, esdirk_int nx, esdirk_int nz,
                                                esdirk_int np, esdirk_int nm, double t,
                                                const double* x, const double* z, const double* p,
                                                const double* mem, esdirk_int nnz,
                                                const esdirk_int* column_pointers,
                                                const esdirk_int* row_indices, double* values,
                                                void* user_data);

/** As esdirk_problem_set_sparse_jacobian (NULL: coloured finite differences). */
ESDIRK_C_API int esdirk_hybrid_problem_set_sparse_jacobian(esdirk_hybrid_problem* problem,
                                                           esdirk_hybrid_sparse_jacobian_fn jacobian);
/** out = J v of `mode` (nm: the memory size, 0 without memory; mem NULL then). As
 *  esdirk_jacobian_vector_fn otherwise. */
typedef int (*esdirk_hybrid_jacobian_vector_fn)(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                                esdirk_int nm, double t, const double* x, const double* z,
                                                const double* p, const double* mem, const double* v,
                                                double* out, void* user_data);
/** Prepares P for M = E - h_gamma J of `mode` (nm, mem as above). As
 *  esdirk_preconditioner_setup_fn otherwise; the solve is an esdirk_preconditioner_solve_fn. */
typedef int (*esdirk_hybrid_preconditioner_setup_fn)(int mode, esdirk_int nx, esdirk_int nz, esdirk_int np,
                                                     esdirk_int nm, double t, const double* x,
                                                     const double* z, const double* p, const double* mem,
                                                     double h_gamma, esdirk_int nnz,
                                                     const esdirk_int* column_pointers,
                                                     const esdirk_int* row_indices, const double* values,
                                                     void* user_data);
/** esdirk_problem_set_krylov_callbacks for a hybrid problem, with the mode and the memory: the
 *  same checks, statuses, messages and failure handling, in every mode. The forward run, its
 *  sensitivities and the hybrid adjoint (whose replays set P up for their own steps) use them.
 *  Handles of one problem that run in turns (not concurrently) each set P up again for their
 *  own step before they solve with it. */
ESDIRK_C_API int esdirk_hybrid_problem_set_krylov_callbacks(esdirk_hybrid_problem* problem,
                                                            esdirk_hybrid_jacobian_vector_fn product,
                                                            esdirk_hybrid_preconditioner_setup_fn setup,
                                                            esdirk_preconditioner_solve_fn solve);
/** esdirk_problem_check_jacobian_pattern for one mode (mem: the memory, NULL without memory).
 *  Check every mode: the pattern must hold the entries of all of them. */
ESDIRK_C_API int esdirk_hybrid_problem_check_jacobian_pattern(
    esdirk_hybrid_problem* problem, int mode, double t, const double* x, const double* z,
    const double* p, const double* mem, double threshold, esdirk_int* missing, esdirk_int* rows,
    esdirk_int* cols, esdirk_int capacity, esdirk_int* wrong);

/* ---- Deprecated (one release): the per-problem structure calls ---------------------------
 * Each is a thin wrapper of the structure handle's call with the same statuses, checks and
 * messages (esdirk_problem_structure_error is the handle's last error). Replace
 * esdirk_problem_set_jacobian_pattern(problem, ...) by
 * esdirk_jacobian_structure_set_pattern(esdirk_problem_jacobian_structure(problem), ...). */

ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_set_bandwidths on esdirk_problem_jacobian_structure") int esdirk_problem_set_jacobian_bandwidths(esdirk_problem* problem, esdirk_int lower, esdirk_int upper);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_set_pattern on esdirk_problem_jacobian_structure") int esdirk_problem_set_jacobian_pattern(esdirk_problem* problem, const esdirk_int* column_pointers, const esdirk_int* row_indices, int linear_solver);
/** Sets the dimension, restarts, tolerance and block size; tolerance_with_derivatives kept. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_set_krylov on esdirk_problem_jacobian_structure") int esdirk_problem_set_krylov_settings(esdirk_problem* problem, esdirk_int dimension, int max_restarts, double tolerance, esdirk_int block_size);
/** Sets matrix_free and sensitivity_tolerance; the preconditioner kept. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_set_krylov_options on esdirk_problem_jacobian_structure") int esdirk_problem_set_krylov_options(esdirk_problem* problem, int matrix_free, double sensitivity_tolerance);
/** Sets the preconditioner; matrix_free and sensitivity_tolerance kept. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_set_krylov_options on esdirk_problem_jacobian_structure") int esdirk_problem_set_krylov_preconditioner(esdirk_problem* problem, int preconditioner);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_clear on esdirk_problem_jacobian_structure") int esdirk_problem_clear_jacobian_structure(esdirk_problem* problem);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_get on esdirk_problem_jacobian_structure") int esdirk_problem_get_jacobian_structure(const esdirk_problem* problem, int* linear_solver, esdirk_int* lower, esdirk_int* upper, esdirk_int* nonzeros);
/** ESDIRK_WRONG_CALL_ORDER for a dense Jacobian (checked first), ESDIRK_NULL_ARGUMENT for NULL
 *  column_pointers, then as esdirk_jacobian_structure_get. */
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_get on esdirk_problem_jacobian_structure") int esdirk_problem_get_jacobian_pattern(const esdirk_problem* problem, esdirk_int* column_pointers, esdirk_int* row_indices, esdirk_int capacity);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_last_error on esdirk_problem_jacobian_structure") const char* esdirk_problem_structure_error(const esdirk_problem* problem);

ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_set_bandwidths on esdirk_hybrid_problem_jacobian_structure") int esdirk_hybrid_problem_set_jacobian_bandwidths(esdirk_hybrid_problem* problem, esdirk_int lower, esdirk_int upper);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_set_pattern on esdirk_hybrid_problem_jacobian_structure") int esdirk_hybrid_problem_set_jacobian_pattern(esdirk_hybrid_problem* problem, const esdirk_int* column_pointers, const esdirk_int* row_indices, int linear_solver);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_clear on esdirk_hybrid_problem_jacobian_structure") int esdirk_hybrid_problem_clear_jacobian_structure(esdirk_hybrid_problem* problem);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_get on esdirk_hybrid_problem_jacobian_structure") int esdirk_hybrid_problem_get_jacobian_structure(const esdirk_hybrid_problem* problem, int* linear_solver, esdirk_int* lower, esdirk_int* upper, esdirk_int* nonzeros);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_get on esdirk_hybrid_problem_jacobian_structure") int esdirk_hybrid_problem_get_jacobian_pattern(const esdirk_hybrid_problem* problem, esdirk_int* column_pointers, esdirk_int* row_indices, esdirk_int capacity);
ESDIRK_C_API ESDIRK_DEPRECATED("esdirk_jacobian_structure_last_error on esdirk_hybrid_problem_jacobian_structure") const char* esdirk_hybrid_problem_structure_error(const esdirk_hybrid_problem* problem);

#ifdef __cplusplus
}
#endif

#endif /* ESDIRK_ESDIRK_SPARSE_H */
