! esdirk_hybrid_adjoint: the Fortran 2003 interfaces of the hybrid adjoint C API
! (capi/include/esdirk/esdirk_hybrid_adjoint.h; doc/fortran-guide.md, "Hybrid adjoint").
!
! Handles are type(c_ptr); the hybrid solver is the esdirk_events module's. The objective's
! callbacks have the shapes of the esdirk_adjoint module (esdirk_objective_gradient_fn for the
! terminal term, esdirk_output_gradient_fn for the outputs, whose k is the 0-based output
! number), bind(C) procedures passed with c_funloc. Matrices are column-major with explicit
! leading dimensions (dx0(i, j): initial state i, objective row j). Where C accepts NULL for dp,
! pass an array here.
module esdirk_hybrid_adjoint
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int, esdirk_string_from_c
  implicit none
  private

  ! What the recording and the last sweep did; mirrors struct esdirk_hybrid_adjoint_report
  ! (esdirk_hybrid_solver_get_adjoint_report sets struct_size itself).
  type, bind(C), public :: esdirk_hybrid_adjoint_report
    integer(c_size_t) :: struct_size = 0
    integer(c_int64_t) :: adjoint_steps = 0
    integer(c_int64_t) :: transposed_solves = 0
    integer(c_int64_t) :: stage_factorizations = 0
    integer(c_int64_t) :: jacobian_evaluations = 0
    integer(c_int64_t) :: parameter_jacobian_evaluations = 0
    integer(c_int64_t) :: objective_evaluations = 0
    integer(c_int64_t) :: segments = 0
    integer(c_int64_t) :: jumps = 0
    integer(c_int64_t) :: peak_stored_doubles = 0
    integer(c_int64_t) :: recorded_steps = 0
    integer(c_int64_t) :: recorded_outputs = 0
    integer(c_int64_t) :: checkpoints = 0
    integer(c_int64_t) :: recomputed_steps = 0
    integer(c_int64_t) :: stored_records = 0
  end type esdirk_hybrid_adjoint_report

  public :: esdirk_hybrid_objective_create, esdirk_hybrid_objective_free
  public :: esdirk_hybrid_objective_set_terminal, esdirk_hybrid_objective_set_terminal_weights
  public :: esdirk_hybrid_objective_set_outputs, esdirk_hybrid_objective_last_error_string
  public :: esdirk_hybrid_solver_set_adjoint, esdirk_hybrid_solver_adjoint_outputs
  public :: esdirk_hybrid_solver_adjoint_output_time, esdirk_hybrid_solver_adjoint_gradient
  public :: esdirk_hybrid_solver_get_adjoint_report

  interface
    ! ---- Objectives
    integer(c_int) function esdirk_hybrid_objective_create(rows, objective) &
        bind(C, name="esdirk_hybrid_objective_create")
      import :: c_int, c_ptr, esdirk_int
      integer(esdirk_int), value :: rows
      type(c_ptr), intent(out) :: objective
    end function esdirk_hybrid_objective_create

    subroutine esdirk_hybrid_objective_free(objective) bind(C, name="esdirk_hybrid_objective_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: objective
    end subroutine esdirk_hybrid_objective_free

    type(c_ptr) function c_esdirk_hybrid_objective_last_error(objective) &
        bind(C, name="esdirk_hybrid_objective_last_error")
      import :: c_ptr
      type(c_ptr), value :: objective
    end function c_esdirk_hybrid_objective_last_error

    integer(c_int) function esdirk_hybrid_objective_set_terminal(objective, gradient, user_data) &
        bind(C, name="esdirk_hybrid_objective_set_terminal")
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: objective
      type(c_funptr), value :: gradient
      type(c_ptr), value :: user_data
    end function esdirk_hybrid_objective_set_terminal

    integer(c_int) function esdirk_hybrid_objective_set_terminal_weights(objective, W, n, ldw) &
        bind(C, name="esdirk_hybrid_objective_set_terminal_weights")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: objective
      integer(esdirk_int), value :: n, ldw
      real(c_double), intent(in) :: W(ldw, *)
    end function esdirk_hybrid_objective_set_terminal_weights

    integer(c_int) function esdirk_hybrid_objective_set_outputs(objective, gradient, user_data) &
        bind(C, name="esdirk_hybrid_objective_set_outputs")
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: objective
      type(c_funptr), value :: gradient
      type(c_ptr), value :: user_data
    end function esdirk_hybrid_objective_set_outputs

    ! ---- The adjoint of a hybrid solver
    integer(c_int) function esdirk_hybrid_solver_set_adjoint(solver, record, memory_budget) &
        bind(C, name="esdirk_hybrid_solver_set_adjoint")
      import :: c_int, c_ptr, c_long
      type(c_ptr), value :: solver
      integer(c_int), value :: record
      integer(c_long), value :: memory_budget
    end function esdirk_hybrid_solver_set_adjoint

    integer(c_int) function esdirk_hybrid_solver_adjoint_outputs(solver, count) &
        bind(C, name="esdirk_hybrid_solver_adjoint_outputs")
      import :: c_int, c_ptr, esdirk_int
      type(c_ptr), value :: solver
      integer(esdirk_int), intent(out) :: count
    end function esdirk_hybrid_solver_adjoint_outputs

    ! k is 0-based, as in the output callback.
    integer(c_int) function esdirk_hybrid_solver_adjoint_output_time(solver, k, t) &
        bind(C, name="esdirk_hybrid_solver_adjoint_output_time")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      integer(esdirk_int), value :: k
      real(c_double), intent(out) :: t
    end function esdirk_hybrid_solver_adjoint_output_time

    integer(c_int) function esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, nx, lddx0, dp, &
        np, lddp) bind(C, name="esdirk_hybrid_solver_adjoint_gradient")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver, objective
      integer(esdirk_int), value :: nx, lddx0, np, lddp
      real(c_double), intent(inout) :: dx0(lddx0, *), dp(*)
    end function esdirk_hybrid_solver_adjoint_gradient

    integer(c_int) function c_esdirk_hybrid_solver_get_adjoint_report(solver, report) &
        bind(C, name="esdirk_hybrid_solver_get_adjoint_report")
      import :: c_int, c_ptr, esdirk_hybrid_adjoint_report
      type(c_ptr), value :: solver
      type(esdirk_hybrid_adjoint_report), intent(inout) :: report
    end function c_esdirk_hybrid_solver_get_adjoint_report
  end interface

contains

  !> The message of the last failure on a hybrid objective handle.
  function esdirk_hybrid_objective_last_error_string(objective) result(text)
    type(c_ptr), intent(in) :: objective
    character(len=:), allocatable :: text
    text = esdirk_string_from_c(c_esdirk_hybrid_objective_last_error(objective))
  end function esdirk_hybrid_objective_last_error_string

  !> What the recording and the last sweep did (the struct size is set here).
  integer(c_int) function esdirk_hybrid_solver_get_adjoint_report(solver, report) result(status)
    type(c_ptr), intent(in) :: solver
    type(esdirk_hybrid_adjoint_report), intent(out) :: report
    report%struct_size = c_sizeof(report)
    status = c_esdirk_hybrid_solver_get_adjoint_report(solver, report)
  end function esdirk_hybrid_solver_get_adjoint_report

end module esdirk_hybrid_adjoint
