! esdirk_classic: the Fortran 2003 interfaces of the classic one-call driver
! (capi/include/esdirk/esdirk_classic.h; doc/classic-driver.md).
!
! One call integrates from t to tend in the style of RADAU5 / DASSL / the Fortran ESDIRK34 code.
! y(1:nx) are the differential states, y(nx+1:nx+nz) the algebraic ones (a guess on entry).
! The work-array constants are 1-BASED POSITIONS here (iwork(ESDIRK_IWORK_NSTEP)), one more than
! the 0-based C indices of esdirk_classic.h. Callbacks are the esdirk module's
! (esdirk_residual_fn, ...), passed with c_funloc; c_null_funptr for an absent Jacobian.
module esdirk_classic
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int, esdirk_string_from_c
  implicit none
  private

  ! IDID (the negative values are the esdirk module's status codes, unchanged).
  integer(c_int), parameter, public :: ESDIRK_CLASSIC_TEND_REACHED = 1
  integer(c_int), parameter, public :: ESDIRK_CLASSIC_INITIALIZED = 2

  ! The lengths of the work arrays.
  integer(esdirk_int), parameter, public :: ESDIRK_CLASSIC_LIWORK = 20
  integer(esdirk_int), parameter, public :: ESDIRK_CLASSIC_LRWORK = 20

  ! iwork inputs (0 = default) and outputs, 1-based.
  integer, parameter, public :: ESDIRK_IWORK_MAX_STEPS = 1
  integer, parameter, public :: ESDIRK_IWORK_NEWTON_ITERATIONS = 2
  integer, parameter, public :: ESDIRK_IWORK_CONTROLLER = 3
  integer, parameter, public :: ESDIRK_IWORK_FILTER = 4
  integer, parameter, public :: ESDIRK_IWORK_MAX_ERROR_TEST_FAILURES = 5
  integer, parameter, public :: ESDIRK_IWORK_MAX_NEWTON_FAILURES = 6
  integer, parameter, public :: ESDIRK_IWORK_MAX_CALLBACK_FAILURES = 7
  integer, parameter, public :: ESDIRK_IWORK_SENSITIVITY_MODE = 8
  integer, parameter, public :: ESDIRK_IWORK_SENSITIVITY_ERROR_CONTROL = 9
  integer, parameter, public :: ESDIRK_IWORK_NSTEP = 11
  integer, parameter, public :: ESDIRK_IWORK_NACCEPT = 12
  integer, parameter, public :: ESDIRK_IWORK_NREJECT = 13
  integer, parameter, public :: ESDIRK_IWORK_NFUN = 14
  integer, parameter, public :: ESDIRK_IWORK_NJAC = 15
  integer, parameter, public :: ESDIRK_IWORK_NLU = 16
  integer, parameter, public :: ESDIRK_IWORK_NBACK = 17
  integer, parameter, public :: ESDIRK_IWORK_NSENS = 18
  integer, parameter, public :: ESDIRK_IWORK_NNEWT = 19
  integer, parameter, public :: ESDIRK_IWORK_NFDFUN = 20

  ! rwork inputs (0 = default) and outputs, 1-based.
  integer, parameter, public :: ESDIRK_RWORK_MAX_STEP = 1
  integer, parameter, public :: ESDIRK_RWORK_MIN_STEP = 2
  integer, parameter, public :: ESDIRK_RWORK_SAFETY = 3
  integer, parameter, public :: ESDIRK_RWORK_MIN_STEP_RATIO = 4
  integer, parameter, public :: ESDIRK_RWORK_MAX_STEP_RATIO = 5
  integer, parameter, public :: ESDIRK_RWORK_NEWTON_TOLERANCE = 6
  integer, parameter, public :: ESDIRK_RWORK_REFERENCE_CONTRACTION = 7
  integer, parameter, public :: ESDIRK_RWORK_CONTROLLER_K1 = 8
  integer, parameter, public :: ESDIRK_RWORK_CONTROLLER_K2 = 9
  integer, parameter, public :: ESDIRK_RWORK_HLAST = 11

  public :: esdirk_classic_integrate, esdirk_classic_sensitivities, esdirk_classic_last_error_string

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_classic_c_interfaces.inc'
  end interface

contains

  !> Why the last classic call of this thread failed ("" after a success).
  function esdirk_classic_last_error_string() result(text)
    character(len=:), allocatable :: text
    text = esdirk_string_from_c(c_esdirk_classic_last_error())
  end function esdirk_classic_last_error_string

end module esdirk_classic
