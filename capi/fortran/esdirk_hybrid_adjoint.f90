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
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_hybrid_adjoint_c_interfaces.inc'
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
