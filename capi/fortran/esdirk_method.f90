! esdirk_method: the Fortran 2003 interfaces of the method, tolerance-rule and LU/Jacobian-reuse
! setters (capi/include/esdirk/esdirk_method.h; doc/fortran-guide.md, "Method, tolerance rule
! and LU reuse") of the handles that integrate: solver, shooting, reverse shooting and hybrid
! solver, and the multiple-shooting evaluator of esdirk_multishoot (esdirk_<handle>_set_method,
! ...).
!
! DEPRECATED for one release: these per-handle setters are thin wrappers of the options object
! (module esdirk_options: esdirk_options_set_method, ..., then esdirk_<handle>_set_options).
!
! Handles are type(c_ptr), as the esdirk module (and esdirk_adjoint for the reverse shooting
! interval, esdirk_multishoot for the multiple-shooting evaluator) makes them. Method names are
! Fortran strings (trailing blanks are dropped); an invalid value returns ESDIRK_INVALID_ARGUMENT,
! leaves the options as they were, and the handle's last-error function says why.
module esdirk_method
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_string_from_c
  use esdirk_options, only: ESDIRK_TOLERANCE_CALIBRATED, ESDIRK_TOLERANCE_RAW, &
                            ESDIRK_NEWTON_CONTRACTION_RATE, ESDIRK_NEWTON_CORRECTION, &
                            ESDIRK_NEWTON_RESIDUAL, ESDIRK_DIFFERENCE_ERROR_WEIGHTED, &
                            ESDIRK_DIFFERENCE_RELATIVE
  implicit none
  private

  ! The constants live in esdirk_options (the module of the options object that replaces
  ! these setters); re-exported so that programs using either module see the same entities.
  public :: ESDIRK_TOLERANCE_CALIBRATED, ESDIRK_TOLERANCE_RAW, ESDIRK_NEWTON_CONTRACTION_RATE
  public :: ESDIRK_NEWTON_CORRECTION, ESDIRK_NEWTON_RESIDUAL, ESDIRK_DIFFERENCE_ERROR_WEIGHTED
  public :: ESDIRK_DIFFERENCE_RELATIVE

  public :: esdirk_solver_set_tolerance_rule, esdirk_solver_set_method
  public :: esdirk_solver_method_name_string, esdirk_solver_set_jacobian_reuse
  public :: esdirk_solver_set_keep_step_ratio, esdirk_solver_set_lu_reuse_h_change
  public :: esdirk_shooting_set_tolerance_rule, esdirk_shooting_set_method
  public :: esdirk_shooting_method_name_string, esdirk_shooting_set_jacobian_reuse
  public :: esdirk_shooting_set_keep_step_ratio
  public :: esdirk_reverse_shooting_set_tolerance_rule, esdirk_reverse_shooting_set_method
  public :: esdirk_reverse_shooting_method_name_string, esdirk_reverse_shooting_set_jacobian_reuse
  public :: esdirk_reverse_shooting_set_keep_step_ratio
  public :: esdirk_hybrid_solver_set_tolerance_rule, esdirk_hybrid_solver_set_method
  public :: esdirk_hybrid_solver_method_name_string, esdirk_hybrid_solver_set_jacobian_reuse
  public :: esdirk_hybrid_solver_set_keep_step_ratio, esdirk_hybrid_solver_set_lu_reuse_h_change

  public :: esdirk_method_stages
  public :: esdirk_solver_set_newton_test, esdirk_shooting_set_newton_test
  public :: esdirk_reverse_shooting_set_newton_test, esdirk_hybrid_solver_set_newton_test
  public :: esdirk_solver_set_difference_increment, esdirk_shooting_set_difference_increment
  public :: esdirk_reverse_shooting_set_difference_increment
  public :: esdirk_hybrid_solver_set_difference_increment
  public :: esdirk_multishoot_set_tolerance_rule, esdirk_multishoot_set_method
  public :: esdirk_multishoot_method_name_string, esdirk_multishoot_set_jacobian_reuse
  public :: esdirk_multishoot_set_keep_step_ratio, esdirk_multishoot_set_newton_test
  public :: esdirk_multishoot_set_difference_increment

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_method_c_interfaces.inc'
  end interface

contains

  !> The method by name: "auto" (default: chosen by rtol at initialize), "ESDIRK34", "ESDIRK436",
  !> "ESDIRK547", "ESDIRK23" or "ESDIRK12".
  integer(c_int) function esdirk_solver_set_method(solver, name) result(status)
    type(c_ptr), intent(in) :: solver
    character(len=*), intent(in) :: name
    status = c_esdirk_solver_set_method(solver, trim(name) // c_null_char)
  end function esdirk_solver_set_method

  !> The method in use after initialize ("auto" resolved), before it the one set.
  function esdirk_solver_method_name_string(solver) result(name)
    type(c_ptr), intent(in) :: solver
    character(len=:), allocatable :: name
    name = esdirk_string_from_c(c_esdirk_solver_method_name(solver))
  end function esdirk_solver_method_name_string

  !> As esdirk_solver_set_method, on the shooting handle.
  integer(c_int) function esdirk_shooting_set_method(handle, name) result(status)
    type(c_ptr), intent(in) :: handle
    character(len=*), intent(in) :: name
    status = c_esdirk_shooting_set_method(handle, trim(name) // c_null_char)
  end function esdirk_shooting_set_method

  !> The method of the last run ("auto" resolved), else the one set.
  function esdirk_shooting_method_name_string(handle) result(name)
    type(c_ptr), intent(in) :: handle
    character(len=:), allocatable :: name
    name = esdirk_string_from_c(c_esdirk_shooting_method_name(handle))
  end function esdirk_shooting_method_name_string

  !> As esdirk_solver_set_method, on the reverse shooting handle.
  integer(c_int) function esdirk_reverse_shooting_set_method(handle, name) result(status)
    type(c_ptr), intent(in) :: handle
    character(len=*), intent(in) :: name
    status = c_esdirk_reverse_shooting_set_method(handle, trim(name) // c_null_char)
  end function esdirk_reverse_shooting_set_method

  !> The method of the last run ("auto" resolved), else the one set.
  function esdirk_reverse_shooting_method_name_string(handle) result(name)
    type(c_ptr), intent(in) :: handle
    character(len=:), allocatable :: name
    name = esdirk_string_from_c(c_esdirk_reverse_shooting_method_name(handle))
  end function esdirk_reverse_shooting_method_name_string

  !> As esdirk_solver_set_method, on the hybrid solver handle.
  integer(c_int) function esdirk_hybrid_solver_set_method(handle, name) result(status)
    type(c_ptr), intent(in) :: handle
    character(len=*), intent(in) :: name
    status = c_esdirk_hybrid_solver_set_method(handle, trim(name) // c_null_char)
  end function esdirk_hybrid_solver_set_method

  !> The method of the last run ("auto" resolved), else the one set.
  function esdirk_hybrid_solver_method_name_string(handle) result(name)
    type(c_ptr), intent(in) :: handle
    character(len=:), allocatable :: name
    name = esdirk_string_from_c(c_esdirk_hybrid_solver_method_name(handle))
  end function esdirk_hybrid_solver_method_name_string

  !> As esdirk_solver_set_method, on the multiple-shooting handle (every interval).
  integer(c_int) function esdirk_multishoot_set_method(handle, name) result(status)
    type(c_ptr), intent(in) :: handle
    character(len=*), intent(in) :: name
    status = c_esdirk_multishoot_set_method(handle, trim(name) // c_null_char)
  end function esdirk_multishoot_set_method

  !> The method the intervals of the last evaluation took ("auto" resolved), else the one set.
  function esdirk_multishoot_method_name_string(handle) result(name)
    type(c_ptr), intent(in) :: handle
    character(len=:), allocatable :: name
    name = esdirk_string_from_c(c_esdirk_multishoot_method_name(handle))
  end function esdirk_multishoot_method_name_string

  !> The stages s of the method `name` resolves to at rtol ("auto" by rtol): an adjoint step
  !> record holds 5 + s (2 nx + 2 nz + 1) doubles. -1 for an unknown name.
  integer(c_int) function esdirk_method_stages(name, rtol) result(stages)
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: rtol
    stages = c_esdirk_method_stages(trim(name) // c_null_char, rtol)
  end function esdirk_method_stages

end module esdirk_method
