! esdirk_options: the Fortran 2003 interfaces of the integrator options object
! (capi/include/esdirk/esdirk_options.h; doc/fortran-guide.md, "The options object"): one
! object, its checked setters, and esdirk_<handle>_set_options for every handle that integrates
! (solver, shooting, reverse shooting, multiple shooting, hybrid solver).
!
! Handles and the options object are type(c_ptr). Method names are Fortran strings (trailing
! blanks are dropped). An invalid value returns ESDIRK_INVALID_ARGUMENT, leaves the object as it
! was, and esdirk_options_last_error_string says why.
module esdirk_options
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_string_from_c
  implicit none
  private

  integer(c_int), parameter, public :: ESDIRK_TOLERANCE_CALIBRATED = 0
  integer(c_int), parameter, public :: ESDIRK_TOLERANCE_RAW = 1
  integer(c_int), parameter, public :: ESDIRK_NEWTON_CONTRACTION_RATE = 0
  integer(c_int), parameter, public :: ESDIRK_NEWTON_CORRECTION = 1
  integer(c_int), parameter, public :: ESDIRK_NEWTON_RESIDUAL = 2
  integer(c_int), parameter, public :: ESDIRK_DIFFERENCE_ERROR_WEIGHTED = 0
  integer(c_int), parameter, public :: ESDIRK_DIFFERENCE_RELATIVE = 1

  public :: esdirk_options_create, esdirk_options_free, esdirk_options_last_error_string
  public :: esdirk_options_set_tolerances, esdirk_options_set_tolerance_rule
  public :: esdirk_options_set_method, esdirk_options_set_jacobian_reuse
  public :: esdirk_options_set_lu_reuse_h_change, esdirk_options_set_keep_step_ratio
  public :: esdirk_options_set_newton_test, esdirk_options_set_difference_increment
  public :: esdirk_solver_set_options, esdirk_shooting_set_options
  public :: esdirk_reverse_shooting_set_options, esdirk_multishoot_set_options
  public :: esdirk_hybrid_solver_set_options

  interface
    integer(c_int) function esdirk_options_create(options) bind(C, name="esdirk_options_create")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: options
    end function esdirk_options_create

    subroutine esdirk_options_free(options) bind(C, name="esdirk_options_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: options
    end subroutine esdirk_options_free

    type(c_ptr) function c_esdirk_options_last_error(options) &
        bind(C, name="esdirk_options_last_error")
      import :: c_ptr
      type(c_ptr), value :: options
    end function c_esdirk_options_last_error

    integer(c_int) function esdirk_options_set_tolerances(options, rtol, atol) &
        bind(C, name="esdirk_options_set_tolerances")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: options
      real(c_double), value :: rtol, atol
    end function esdirk_options_set_tolerances

    integer(c_int) function esdirk_options_set_tolerance_rule(options, rule, calibration_factor) &
        bind(C, name="esdirk_options_set_tolerance_rule")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: options
      integer(c_int), value :: rule
      real(c_double), value :: calibration_factor
    end function esdirk_options_set_tolerance_rule

    integer(c_int) function c_esdirk_options_set_method(options, name) &
        bind(C, name="esdirk_options_set_method")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: options
      character(kind=c_char), intent(in) :: name(*)
    end function c_esdirk_options_set_method

    integer(c_int) function esdirk_options_set_jacobian_reuse(options, reuse, contraction) &
        bind(C, name="esdirk_options_set_jacobian_reuse")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: options
      integer(c_int), value :: reuse
      real(c_double), value :: contraction
    end function esdirk_options_set_jacobian_reuse

    integer(c_int) function esdirk_options_set_lu_reuse_h_change(options, fraction) &
        bind(C, name="esdirk_options_set_lu_reuse_h_change")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: options
      real(c_double), value :: fraction
    end function esdirk_options_set_lu_reuse_h_change

    integer(c_int) function esdirk_options_set_keep_step_ratio(options, low, high) &
        bind(C, name="esdirk_options_set_keep_step_ratio")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: options
      real(c_double), value :: low, high
    end function esdirk_options_set_keep_step_ratio

    integer(c_int) function esdirk_options_set_newton_test(options, test, rate_floor) &
        bind(C, name="esdirk_options_set_newton_test")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: options
      integer(c_int), value :: test
      real(c_double), value :: rate_floor
    end function esdirk_options_set_newton_test

    integer(c_int) function esdirk_options_set_difference_increment(options, rule) &
        bind(C, name="esdirk_options_set_difference_increment")
      import :: c_int, c_ptr
      type(c_ptr), value :: options
      integer(c_int), value :: rule
    end function esdirk_options_set_difference_increment

    integer(c_int) function esdirk_solver_set_options(handle, options) &
        bind(C, name="esdirk_solver_set_options")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, options
    end function esdirk_solver_set_options

    integer(c_int) function esdirk_shooting_set_options(handle, options) &
        bind(C, name="esdirk_shooting_set_options")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, options
    end function esdirk_shooting_set_options

    integer(c_int) function esdirk_reverse_shooting_set_options(handle, options) &
        bind(C, name="esdirk_reverse_shooting_set_options")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, options
    end function esdirk_reverse_shooting_set_options

    integer(c_int) function esdirk_multishoot_set_options(handle, options) &
        bind(C, name="esdirk_multishoot_set_options")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, options
    end function esdirk_multishoot_set_options

    integer(c_int) function esdirk_hybrid_solver_set_options(handle, options) &
        bind(C, name="esdirk_hybrid_solver_set_options")
      import :: c_int, c_ptr
      type(c_ptr), value :: handle, options
    end function esdirk_hybrid_solver_set_options
  end interface

contains

  !> The method by name: "auto" (default: chosen by rtol at the run), "ESDIRK34", "ESDIRK436",
  !> "ESDIRK547", "ESDIRK23" or "ESDIRK12".
  integer(c_int) function esdirk_options_set_method(options, name) result(status)
    type(c_ptr), intent(in) :: options
    character(len=*), intent(in) :: name
    status = c_esdirk_options_set_method(options, trim(name) // c_null_char)
  end function esdirk_options_set_method

  !> Why the last setter on the options object failed ("" if none).
  function esdirk_options_last_error_string(options) result(text)
    type(c_ptr), intent(in) :: options
    character(len=:), allocatable :: text
    text = esdirk_string_from_c(c_esdirk_options_last_error(options))
  end function esdirk_options_last_error_string

end module esdirk_options
