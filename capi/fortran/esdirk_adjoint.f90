! esdirk_adjoint: the Fortran 2003 interfaces of the adjoint C API
! (capi/include/esdirk/esdirk_adjoint.h; doc/fortran-guide.md, "Adjoint").
!
! Handles are type(c_ptr); the solver and problem handles are the esdirk module's. Callbacks are
! bind(C) procedures with the shapes of the abstract interfaces below, passed with c_funloc.
! Matrices are column-major with explicit leading dimensions (dx(i, j): state i, objective row
! j). Where C accepts NULL for "none" (lambda_z, the weights w, dp, gu), pass arrays here (of
! zeros when there is nothing to pass: a zero weight does not call the running cost).
module esdirk_adjoint
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int, esdirk_statistics, esdirk_string_from_c
  implicit none
  private

  ! What the last sweep did; mirrors struct esdirk_adjoint_report (esdirk_solver_get_adjoint_report
  ! sets struct_size itself).
  type, bind(C), public :: esdirk_adjoint_report
    integer(c_size_t) :: struct_size = 0
    integer(c_int64_t) :: adjoint_steps = 0
    integer(c_int64_t) :: transposed_solves = 0
    integer(c_int64_t) :: stage_factorizations = 0
    integer(c_int64_t) :: jacobian_evaluations = 0
    integer(c_int64_t) :: parameter_jacobian_evaluations = 0
    integer(c_int64_t) :: objective_evaluations = 0
    integer(c_int64_t) :: recomputed_steps = 0
    integer(c_int64_t) :: checkpoints = 0
    integer(c_int64_t) :: peak_stored_doubles = 0
    integer(c_int64_t) :: stored_records = 0
  end type esdirk_adjoint_report

  ! The shapes of the objective's callbacks (dx, dz, dp arrive filled with zeros; dz is not
  ! associated when nz = 0, dp when np = 0: do not touch them then).
  abstract interface
    integer(c_int) function esdirk_objective_gradient_fn(nx, nz, np, rows, t, x, z, p, dx, lddx, &
        dz, lddz, dp, lddp, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, np, rows, lddx, lddz, lddp
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*)
      real(c_double), intent(inout) :: dx(lddx, *), dz(lddz, *), dp(lddp, *)
      type(c_ptr), value :: user_data
    end function esdirk_objective_gradient_fn
    ! k is the 0-based index of the output time (k + 1 in Fortran arrays).
    integer(c_int) function esdirk_output_gradient_fn(k, nx, nz, np, rows, t, x, z, p, dx, lddx, &
        dz, lddz, dp, lddp, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: k, nx, nz, np, rows, lddx, lddz, lddp
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*)
      real(c_double), intent(inout) :: dx(lddx, *), dz(lddz, *), dp(lddp, *)
      type(c_ptr), value :: user_data
    end function esdirk_output_gradient_fn
  end interface
  public :: esdirk_objective_gradient_fn, esdirk_output_gradient_fn

  public :: esdirk_objective_create, esdirk_objective_free, esdirk_objective_set_terminal
  public :: esdirk_objective_set_terminal_weights, esdirk_objective_set_running
  public :: esdirk_objective_set_output_times, esdirk_objective_last_error_string
  public :: esdirk_objective_set_outputs
  public :: esdirk_solver_set_adjoint, esdirk_solver_adjoint_gradient, esdirk_solver_get_adjoint_report
  public :: esdirk_solver_check_gradient
  public :: esdirk_reverse_shooting_create, esdirk_reverse_shooting_free
  public :: esdirk_reverse_shooting_set_tolerances, esdirk_reverse_shooting_set_algebraic_atol
  public :: esdirk_reverse_shooting_set_max_steps, esdirk_reverse_shooting_set_running_cost
  public :: esdirk_reverse_shooting_integrate, esdirk_reverse_shooting_transpose_products
  public :: esdirk_reverse_shooting_get_statistics, esdirk_reverse_shooting_get_counter
  public :: esdirk_reverse_shooting_last_error_string

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_adjoint_c_interfaces.inc'
  end interface

contains

  !> The message of the last failure on an objective handle.
  function esdirk_objective_last_error_string(objective) result(message)
    type(c_ptr), intent(in) :: objective
    character(len=:), allocatable :: message
    message = esdirk_string_from_c(c_esdirk_objective_last_error(objective))
  end function esdirk_objective_last_error_string

  !> The message of the last failure on a reverse shooting handle.
  function esdirk_reverse_shooting_last_error_string(shooting) result(message)
    type(c_ptr), intent(in) :: shooting
    character(len=:), allocatable :: message
    message = esdirk_string_from_c(c_esdirk_reverse_shooting_last_error(shooting))
  end function esdirk_reverse_shooting_last_error_string

  !> The run-time gradient check (esdirk_solver_check_gradient of the C API): worst_error, passed
  !> (1 or 0) and a one-line summary naming the worst row and variable (cut to len(summary)).
  integer(c_int) function esdirk_solver_check_gradient(solver, objective, dx0, nx, lddx0, dp, np, lddp, &
      tolerance, all_components, seed, worst_error, passed, summary) result(status)
    type(c_ptr), intent(in) :: solver, objective
    integer(esdirk_int), intent(in) :: nx, lddx0, np, lddp
    real(c_double), intent(in) :: dx0(lddx0, *), dp(*)
    real(c_double), intent(in) :: tolerance
    integer(c_int), intent(in) :: all_components, seed
    real(c_double), intent(out) :: worst_error
    integer(c_int), intent(out) :: passed
    character(len=*), intent(out) :: summary
    character(kind=c_char) :: buffer(len(summary) + 1)
    integer :: i
    status = c_esdirk_solver_check_gradient(solver, objective, dx0, nx, lddx0, dp, np, lddp, tolerance, &
                                            all_components, seed, worst_error, passed, buffer, &
                                            int(len(summary) + 1, c_size_t))
    summary = ""
    do i = 1, len(summary)
      if (buffer(i) == c_null_char) exit
      summary(i:i) = buffer(i)
    end do
  end function esdirk_solver_check_gradient

  !> What the last sweep did (the struct size is set here).
  integer(c_int) function esdirk_solver_get_adjoint_report(solver, report) result(status)
    type(c_ptr), intent(in) :: solver
    type(esdirk_adjoint_report), intent(out) :: report
    report%struct_size = c_sizeof(report)
    status = c_esdirk_solver_get_adjoint_report(solver, report)
  end function esdirk_solver_get_adjoint_report

  !> Deprecated (one release): esdirk_reverse_shooting_get_counter. Counters of the last
  !> interval with its sweeps (total = 0) or of all (total = 1).
  integer(c_int) function esdirk_reverse_shooting_get_statistics(shooting, total, statistics) result(status)
    type(c_ptr), intent(in) :: shooting
    integer(c_int), intent(in) :: total
    type(esdirk_statistics), intent(out) :: statistics
    statistics%struct_size = c_sizeof(statistics)
    status = c_esdirk_reverse_shooting_get_statistics(shooting, total, statistics)
  end function esdirk_reverse_shooting_get_statistics

  !> One counter by name ("adjoint_steps", "adjoint_transposed_solves", ...).
  integer(c_int) function esdirk_reverse_shooting_get_counter(shooting, total, name, value) result(status)
    type(c_ptr), intent(in) :: shooting
    integer(c_int), intent(in) :: total
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(out) :: value
    status = c_esdirk_reverse_shooting_get_counter(shooting, total, trim(name) // c_null_char, value)
  end function esdirk_reverse_shooting_get_counter

end module esdirk_adjoint
