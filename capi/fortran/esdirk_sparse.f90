! esdirk_sparse: the Fortran 2003 interfaces of the banded and sparse Jacobian C API
! (capi/include/esdirk/esdirk_sparse.h; doc/fortran-guide.md, "Large systems").
!
! Problem handles are the esdirk module's type(c_ptr), and so is a problem's Jacobian-structure
! handle (esdirk_problem_jacobian_structure, esdirk_hybrid_problem_jacobian_structure; owned by
! the problem, never freed). The C functions take 0-based compressed sparse column (CSC) arrays;
! esdirk_jacobian_structure_set_pattern_1based takes Fortran's 1-based ones (colptr(1) = 1, as
! Harwell-Boeing files store them) and converts. The sparse Jacobian
! callback receives the 0-based CSC arrays of the pattern with sorted rows: values(k) is the
! entry of row row_indices(k) + 1 (1-based) in the column k lies in.
module esdirk_sparse
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int, esdirk_string_from_c
  implicit none
  private

  integer(c_int), parameter, public :: ESDIRK_LINEAR_SOLVER_DENSE = 0
  integer(c_int), parameter, public :: ESDIRK_LINEAR_SOLVER_BANDED = 1
  integer(c_int), parameter, public :: ESDIRK_LINEAR_SOLVER_SPARSE = 2
  integer(c_int), parameter, public :: ESDIRK_LINEAR_SOLVER_KRYLOV = 3
  integer(c_int), parameter, public :: ESDIRK_KRYLOV_PRECONDITIONER_ILU0 = 0
  integer(c_int), parameter, public :: ESDIRK_KRYLOV_PRECONDITIONER_BLOCK_JACOBI = 1

  ! The shape of the analytic Jacobian on the declared pattern (write yours with bind(C) and pass
  ! c_funloc(yours)).
  abstract interface
    integer(c_int) function esdirk_sparse_jacobian_fn(nx, nz, np, t, x, z, p, nnz, column_pointers, &
        row_indices, values, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, np, nnz
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*)
      integer(esdirk_int), intent(in) :: column_pointers(nx + nz + 1), row_indices(nnz)
      real(c_double), intent(inout) :: values(nnz)
      type(c_ptr), value :: user_data
    end function esdirk_sparse_jacobian_fn
  end interface
  public :: esdirk_sparse_jacobian_fn

  ! The analytic Jacobian of one mode of a hybrid problem on the declared pattern (nm: the
  ! memory size; mem has nm entries).
  abstract interface
    integer(c_int) function esdirk_hybrid_sparse_jacobian_fn(mode, nx, nz, np, nm, t, x, z, p, mem, &
        nnz, column_pointers, row_indices, values, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode
      integer(esdirk_int), value :: nx, nz, np, nm, nnz
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
      integer(esdirk_int), intent(in) :: column_pointers(nx + nz + 1), row_indices(nnz)
      real(c_double), intent(inout) :: values(nnz)
      type(c_ptr), value :: user_data
    end function esdirk_hybrid_sparse_jacobian_fn
  end interface
  public :: esdirk_hybrid_sparse_jacobian_fn

  ! The Newton-Krylov callbacks (esdirk_problem_set_krylov_callbacks): J v, and the user
  ! preconditioner's setup (J on the declared pattern, 0-based CSC) and solve out = P^{-1} r.
  abstract interface
    integer(c_int) function esdirk_jacobian_vector_fn(nx, nz, np, t, x, z, p, v, out, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, np
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), v(nx + nz)
      real(c_double), intent(out) :: out(nx + nz)
      type(c_ptr), value :: user_data
    end function esdirk_jacobian_vector_fn
    integer(c_int) function esdirk_preconditioner_setup_fn(nx, nz, np, t, x, z, p, h_gamma, nnz, &
        column_pointers, row_indices, values, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, np, nnz
      real(c_double), value :: t, h_gamma
      real(c_double), intent(in) :: x(nx), z(*), p(*), values(nnz)
      integer(esdirk_int), intent(in) :: column_pointers(nx + nz + 1), row_indices(nnz)
      type(c_ptr), value :: user_data
    end function esdirk_preconditioner_setup_fn
    integer(c_int) function esdirk_preconditioner_solve_fn(nx, nz, r, out, transpose, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz
      real(c_double), intent(in) :: r(nx + nz)
      real(c_double), intent(out) :: out(nx + nz)
      integer(c_int), value :: transpose
      type(c_ptr), value :: user_data
    end function esdirk_preconditioner_solve_fn
  end interface
  public :: esdirk_jacobian_vector_fn, esdirk_preconditioner_setup_fn, esdirk_preconditioner_solve_fn

  ! The hybrid problem's J v and preconditioner setup (esdirk_hybrid_problem_set_krylov_callbacks):
  ! the mode and the memory first; the solve is esdirk_preconditioner_solve_fn.
  abstract interface
    integer(c_int) function esdirk_hybrid_jacobian_vector_fn(mode, nx, nz, np, nm, t, x, z, p, mem, v, out, &
        user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode
      integer(esdirk_int), value :: nx, nz, np, nm
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*), v(nx + nz)
      real(c_double), intent(out) :: out(nx + nz)
      type(c_ptr), value :: user_data
    end function esdirk_hybrid_jacobian_vector_fn
    integer(c_int) function esdirk_hybrid_preconditioner_setup_fn(mode, nx, nz, np, nm, t, x, z, p, mem, &
        h_gamma, nnz, column_pointers, row_indices, values, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode
      integer(esdirk_int), value :: nx, nz, np, nm, nnz
      real(c_double), value :: t, h_gamma
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*), values(nnz)
      integer(esdirk_int), intent(in) :: column_pointers(nx + nz + 1), row_indices(nnz)
      type(c_ptr), value :: user_data
    end function esdirk_hybrid_preconditioner_setup_fn
  end interface
  public :: esdirk_hybrid_jacobian_vector_fn, esdirk_hybrid_preconditioner_setup_fn

  ! One structure handle for plain and hybrid problems.
  public :: esdirk_problem_jacobian_structure, esdirk_hybrid_problem_jacobian_structure
  public :: esdirk_jacobian_structure_set_bandwidths, esdirk_jacobian_structure_set_pattern
  public :: esdirk_jacobian_structure_set_pattern_1based, esdirk_jacobian_structure_clear
  public :: esdirk_jacobian_structure_get, esdirk_jacobian_structure_set_krylov
  public :: esdirk_jacobian_structure_set_krylov_options, esdirk_jacobian_structure_last_error
  public :: esdirk_jacobian_structure_set_krylov_sensitivity
  ! Deprecated (one release): the per-problem structure calls, wrappers of the handle's.
  public :: esdirk_problem_set_jacobian_bandwidths, esdirk_problem_set_jacobian_pattern
  public :: esdirk_problem_set_jacobian_pattern_1based, esdirk_problem_set_sparse_jacobian
  public :: esdirk_problem_clear_jacobian_structure, esdirk_problem_get_jacobian_structure
  public :: esdirk_problem_set_krylov_settings, esdirk_problem_set_krylov_options, &
            esdirk_problem_set_krylov_preconditioner
  public :: esdirk_problem_set_krylov_callbacks
  public :: esdirk_problem_get_jacobian_pattern, esdirk_problem_check_jacobian_pattern
  public :: esdirk_problem_structure_error_string
  ! Hybrid (event) problems: one structure for every mode (the union of the modes' patterns).
  public :: esdirk_hybrid_problem_set_jacobian_bandwidths, esdirk_hybrid_problem_set_jacobian_pattern
  public :: esdirk_hybrid_problem_set_jacobian_pattern_1based
  public :: esdirk_hybrid_problem_set_sparse_jacobian, esdirk_hybrid_problem_clear_jacobian_structure
  public :: esdirk_hybrid_problem_get_jacobian_structure, esdirk_hybrid_problem_get_jacobian_pattern
  public :: esdirk_hybrid_problem_check_jacobian_pattern, esdirk_hybrid_problem_structure_error_string
  public :: esdirk_hybrid_problem_set_krylov_callbacks

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_sparse_c_interfaces.inc'
  end interface

contains

  !> The pattern from 1-based CSC arrays: n + 1 column pointers starting at 1, the rows of
  !> column j in row_indices(column_pointers(j) : column_pointers(j+1) - 1), 1-based. The
  !> checks and statuses are those of the C function (a row 0 or n + 1 is outside the matrix).
  integer(c_int) function esdirk_jacobian_structure_set_pattern_1based(structure, column_pointers, &
      row_indices, linear_solver) result(status)
    type(c_ptr), intent(in) :: structure
    integer(esdirk_int), intent(in) :: column_pointers(:), row_indices(:)
    integer(c_int), intent(in) :: linear_solver
    integer(esdirk_int), allocatable :: pointers0(:), rows0(:)
    integer(esdirk_int), target :: empty(1)
    pointers0 = column_pointers - 1
    rows0 = row_indices - 1
    if (size(rows0) == 0) then
      empty = 0
      status = esdirk_jacobian_structure_set_pattern(structure, pointers0, empty, linear_solver)
    else
      status = esdirk_jacobian_structure_set_pattern(structure, pointers0, rows0, linear_solver)
    end if
  end function esdirk_jacobian_structure_set_pattern_1based

  !> Why the last call on the structure (or its problem's pattern checker) failed, or what the
  !> checker found ("" if nothing).
  function esdirk_jacobian_structure_last_error(structure) result(text)
    type(c_ptr), intent(in) :: structure
    character(len=:), allocatable :: text
    text = esdirk_string_from_c(c_esdirk_jacobian_structure_last_error(structure))
  end function esdirk_jacobian_structure_last_error

  !> Deprecated (one release): esdirk_jacobian_structure_set_pattern_1based on
  !> esdirk_problem_jacobian_structure(problem).
  integer(c_int) function esdirk_problem_set_jacobian_pattern_1based(problem, column_pointers, &
      row_indices, linear_solver) result(status)
    type(c_ptr), intent(in) :: problem
    integer(esdirk_int), intent(in) :: column_pointers(:), row_indices(:)
    integer(c_int), intent(in) :: linear_solver
    status = esdirk_jacobian_structure_set_pattern_1based(esdirk_problem_jacobian_structure(problem), &
        column_pointers, row_indices, linear_solver)
  end function esdirk_problem_set_jacobian_pattern_1based

  !> Deprecated (one release): esdirk_jacobian_structure_last_error of the problem's structure.
  function esdirk_problem_structure_error_string(problem) result(text)
    type(c_ptr), intent(in) :: problem
    character(len=:), allocatable :: text
    text = esdirk_string_from_c(c_esdirk_problem_structure_error(problem))
  end function esdirk_problem_structure_error_string

  !> Deprecated (one release): esdirk_jacobian_structure_set_pattern_1based on
  !> esdirk_hybrid_problem_jacobian_structure(problem).
  integer(c_int) function esdirk_hybrid_problem_set_jacobian_pattern_1based(problem, column_pointers, &
      row_indices, linear_solver) result(status)
    type(c_ptr), intent(in) :: problem
    integer(esdirk_int), intent(in) :: column_pointers(:), row_indices(:)
    integer(c_int), intent(in) :: linear_solver
    status = esdirk_jacobian_structure_set_pattern_1based( &
        esdirk_hybrid_problem_jacobian_structure(problem), column_pointers, row_indices, linear_solver)
  end function esdirk_hybrid_problem_set_jacobian_pattern_1based

  !> Deprecated (one release): esdirk_jacobian_structure_last_error of the problem's structure.
  function esdirk_hybrid_problem_structure_error_string(problem) result(text)
    type(c_ptr), intent(in) :: problem
    character(len=:), allocatable :: text
    text = esdirk_string_from_c(c_esdirk_hybrid_problem_structure_error(problem))
  end function esdirk_hybrid_problem_structure_error_string
end module esdirk_sparse
