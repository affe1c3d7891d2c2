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
  use esdirk, only: esdirk_string_from_c, esdirk_int
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
  public :: esdirk_options_set_algebraic_atol
  public :: esdirk_options_set_method, esdirk_options_set_jacobian_reuse
  public :: esdirk_options_set_lu_reuse_h_change, esdirk_options_set_keep_step_ratio
  public :: esdirk_options_set_newton_test, esdirk_options_set_difference_increment
  public :: esdirk_options_set_newton_fresh_rate, esdirk_options_set_step_limits
  public :: esdirk_options_set_controller, esdirk_options_set_newton
  public :: esdirk_options_set_filter_error_estimate, esdirk_options_set_failure_limits
  public :: esdirk_options_set_sensitivity, esdirk_options_set_adjoint
  public :: esdirk_solver_set_options, esdirk_shooting_set_options
  public :: esdirk_reverse_shooting_set_options, esdirk_multishoot_set_options
  public :: esdirk_hybrid_solver_set_options

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_options_c_interfaces.inc'
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
