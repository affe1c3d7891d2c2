! esdirk: the Fortran 2003 module for the esdirk C API (capi/include/esdirk/esdirk.h).
!
! Hand-written iso_c_binding interfaces: the same functions and constants as the C API.
! Handles are type(c_ptr); callbacks are bind(C) procedures passed with c_funloc; matrices
! are column-major with explicit leading dimensions, so J(i, j) in Fortran is the entry of
! equation i and state j (1-based). See doc/fortran-guide.md.
module esdirk
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer, parameter, public :: esdirk_int = c_int32_t

  ! Status codes (esdirk.h).
  integer(c_int), parameter, public :: ESDIRK_SUCCESS = 0
  integer(c_int), parameter, public :: ESDIRK_TOO_MANY_STEPS = -1
  integer(c_int), parameter, public :: ESDIRK_STEP_SIZE_TOO_SMALL = -2
  integer(c_int), parameter, public :: ESDIRK_ERROR_TEST_FAILURES = -3
  integer(c_int), parameter, public :: ESDIRK_NEWTON_FAILURES = -4
  integer(c_int), parameter, public :: ESDIRK_SINGULAR_ITERATION_MATRIX = -5
  integer(c_int), parameter, public :: ESDIRK_CALLBACK_FAILURES = -6
  integer(c_int), parameter, public :: ESDIRK_CALLBACK_FATAL = -7
  integer(c_int), parameter, public :: ESDIRK_INITIALIZATION_FAILED = -8
  integer(c_int), parameter, public :: ESDIRK_SINGULAR_ALGEBRAIC_JACOBIAN = -9
  integer(c_int), parameter, public :: ESDIRK_NULL_ARGUMENT = -101
  integer(c_int), parameter, public :: ESDIRK_INVALID_ARGUMENT = -102
  integer(c_int), parameter, public :: ESDIRK_WRONG_CALL_ORDER = -103
  integer(c_int), parameter, public :: ESDIRK_OUT_OF_MEMORY = -104
  integer(c_int), parameter, public :: ESDIRK_INTERNAL_ERROR = -105

  ! The integrator's counters; mirrors struct esdirk_statistics.
  type, bind(C), public :: esdirk_statistics
    integer(c_int64_t) :: steps = 0
    integer(c_int64_t) :: accepted_steps = 0
    integer(c_int64_t) :: rejected_steps = 0
    integer(c_int64_t) :: function_evaluations = 0
    integer(c_int64_t) :: fd_function_evaluations = 0
    integer(c_int64_t) :: jacobian_evaluations = 0
    integer(c_int64_t) :: lu_factorizations = 0
    integer(c_int64_t) :: back_substitutions = 0
    integer(c_int64_t) :: newton_iterations = 0
    integer(c_int64_t) :: newton_failures = 0
    integer(c_int64_t) :: callback_failures = 0
    integer(c_int64_t) :: parameter_jacobian_evaluations = 0
    integer(c_int64_t) :: sensitivity_solves = 0
    integer(c_int64_t) :: events = 0
    integer(c_int64_t) :: adjoint_steps = 0
    integer(c_int64_t) :: checkpoints = 0
  end type esdirk_statistics

  ! The shapes of the callbacks (write yours with bind(C) and pass c_funloc(yours)).
  abstract interface
    integer(c_int) function esdirk_residual_fn(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, np
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*)
      real(c_double), intent(out) :: f(nx), g(*)
      type(c_ptr), value :: user_data
    end function esdirk_residual_fn
    integer(c_int) function esdirk_jacobian_fn(nx, nz, np, t, x, z, p, J, ldj, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, np, ldj
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*)
      real(c_double), intent(inout) :: J(ldj, *)
      type(c_ptr), value :: user_data
    end function esdirk_jacobian_fn
  end interface
  public :: esdirk_residual_fn, esdirk_jacobian_fn

  public :: esdirk_problem_create, esdirk_problem_set_jacobian, esdirk_problem_set_parameter_jacobian
  public :: esdirk_problem_free, esdirk_solver_create, esdirk_solver_free
  public :: esdirk_solver_set_tolerances, esdirk_solver_set_tolerance_vectors, esdirk_solver_set_algebraic_atol
  public :: esdirk_solver_set_step_limits, esdirk_solver_set_controller, esdirk_solver_set_newton
  public :: esdirk_solver_set_filter_error_estimate, esdirk_solver_set_failure_limits
  public :: esdirk_solver_initialize, esdirk_solver_restart, esdirk_solver_integrate_to, esdirk_solver_step
  public :: esdirk_solver_set_stop_time, esdirk_solver_clear_stop_time, esdirk_solver_dense_output
  public :: esdirk_solver_get_state, esdirk_solver_get_statistics
  public :: esdirk_status_string, esdirk_last_error_string

  interface
    integer(c_int) function esdirk_problem_create(nx, nz, np, residual, user_data, problem) &
        bind(C, name="esdirk_problem_create")
      import :: c_int, c_funptr, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, np
      type(c_funptr), value :: residual
      type(c_ptr), value :: user_data
      type(c_ptr), intent(out) :: problem
    end function esdirk_problem_create

    integer(c_int) function esdirk_problem_set_jacobian(problem, jacobian) &
        bind(C, name="esdirk_problem_set_jacobian")
      import :: c_int, c_funptr, c_ptr
      type(c_ptr), value :: problem
      type(c_funptr), value :: jacobian
    end function esdirk_problem_set_jacobian

    integer(c_int) function esdirk_problem_set_parameter_jacobian(problem, parameter_jacobian) &
        bind(C, name="esdirk_problem_set_parameter_jacobian")
      import :: c_int, c_funptr, c_ptr
      type(c_ptr), value :: problem
      type(c_funptr), value :: parameter_jacobian
    end function esdirk_problem_set_parameter_jacobian

    subroutine esdirk_problem_free(problem) bind(C, name="esdirk_problem_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: problem
    end subroutine esdirk_problem_free

    integer(c_int) function esdirk_solver_create(problem, solver) bind(C, name="esdirk_solver_create")
      import :: c_int, c_ptr
      type(c_ptr), value :: problem
      type(c_ptr), intent(out) :: solver
    end function esdirk_solver_create

    subroutine esdirk_solver_free(solver) bind(C, name="esdirk_solver_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: solver
    end subroutine esdirk_solver_free

    integer(c_int) function esdirk_solver_set_tolerances(solver, rtol, atol) &
        bind(C, name="esdirk_solver_set_tolerances")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), value :: rtol, atol
    end function esdirk_solver_set_tolerances

    integer(c_int) function esdirk_solver_set_tolerance_vectors(solver, rtol, atol, nx) &
        bind(C, name="esdirk_solver_set_tolerance_vectors")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: rtol(*), atol(*)
      integer(esdirk_int), value :: nx
    end function esdirk_solver_set_tolerance_vectors

    integer(c_int) function esdirk_solver_set_algebraic_atol(solver, atol, nz) &
        bind(C, name="esdirk_solver_set_algebraic_atol")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: atol(*)
      integer(esdirk_int), value :: nz
    end function esdirk_solver_set_algebraic_atol

    integer(c_int) function esdirk_solver_set_step_limits(solver, initial_step, min_step, max_step, max_steps) &
        bind(C, name="esdirk_solver_set_step_limits")
      import :: c_int, c_ptr, c_double, c_long
      type(c_ptr), value :: solver
      real(c_double), value :: initial_step, min_step, max_step
      integer(c_long), value :: max_steps
    end function esdirk_solver_set_step_limits

    integer(c_int) function esdirk_solver_set_controller(solver, predictive, k1, k2, safety, &
        min_step_ratio, max_step_ratio) bind(C, name="esdirk_solver_set_controller")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      integer(c_int), value :: predictive
      real(c_double), value :: k1, k2, safety, min_step_ratio, max_step_ratio
    end function esdirk_solver_set_controller

    integer(c_int) function esdirk_solver_set_newton(solver, max_iterations, tolerance, reference_contraction) &
        bind(C, name="esdirk_solver_set_newton")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      integer(c_int), value :: max_iterations
      real(c_double), value :: tolerance, reference_contraction
    end function esdirk_solver_set_newton

    integer(c_int) function esdirk_solver_set_filter_error_estimate(solver, filter) &
        bind(C, name="esdirk_solver_set_filter_error_estimate")
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
      integer(c_int), value :: filter
    end function esdirk_solver_set_filter_error_estimate

    integer(c_int) function esdirk_solver_set_failure_limits(solver, max_error_test_failures, &
        max_newton_failures, max_callback_failures) bind(C, name="esdirk_solver_set_failure_limits")
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
      integer(c_int), value :: max_error_test_failures, max_newton_failures, max_callback_failures
    end function esdirk_solver_set_failure_limits

    integer(c_int) function esdirk_solver_initialize(solver, t0, x0, nx, z0, nz, p, np) &
        bind(C, name="esdirk_solver_initialize")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), value :: t0
      real(c_double), intent(in) :: x0(*), z0(*), p(*)
      integer(esdirk_int), value :: nx, nz, np
    end function esdirk_solver_initialize

    integer(c_int) function esdirk_solver_restart(solver, t, x, nx, z, nz, p, np) &
        bind(C, name="esdirk_solver_restart")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), value :: t
      real(c_double), intent(in) :: x(*), z(*), p(*)
      integer(esdirk_int), value :: nx, nz, np
    end function esdirk_solver_restart

    integer(c_int) function esdirk_solver_integrate_to(solver, tout, x, nx, z, nz) &
        bind(C, name="esdirk_solver_integrate_to")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), value :: tout
      real(c_double), intent(out) :: x(*), z(*)
      integer(esdirk_int), value :: nx, nz
    end function esdirk_solver_integrate_to

    integer(c_int) function esdirk_solver_step(solver, tout) bind(C, name="esdirk_solver_step")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), value :: tout
    end function esdirk_solver_step

    integer(c_int) function esdirk_solver_set_stop_time(solver, tstop) bind(C, name="esdirk_solver_set_stop_time")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), value :: tstop
    end function esdirk_solver_set_stop_time

    integer(c_int) function esdirk_solver_clear_stop_time(solver) bind(C, name="esdirk_solver_clear_stop_time")
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
    end function esdirk_solver_clear_stop_time

    integer(c_int) function esdirk_solver_dense_output(solver, t, x, nx, z, nz) &
        bind(C, name="esdirk_solver_dense_output")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), value :: t
      real(c_double), intent(out) :: x(*), z(*)
      integer(esdirk_int), value :: nx, nz
    end function esdirk_solver_dense_output

    integer(c_int) function esdirk_solver_get_state(solver, t, x, nx, z, nz) bind(C, name="esdirk_solver_get_state")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(out) :: t
      real(c_double), intent(out) :: x(*), z(*)
      integer(esdirk_int), value :: nx, nz
    end function esdirk_solver_get_state

    integer(c_int) function esdirk_solver_get_statistics(solver, statistics) &
        bind(C, name="esdirk_solver_get_statistics")
      import :: c_int, c_ptr, esdirk_statistics
      type(c_ptr), value :: solver
      type(esdirk_statistics), intent(out) :: statistics
    end function esdirk_solver_get_statistics

    type(c_ptr) function c_esdirk_status_name(status) bind(C, name="esdirk_status_name")
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function c_esdirk_status_name

    type(c_ptr) function c_esdirk_solver_last_error(solver) bind(C, name="esdirk_solver_last_error")
      import :: c_ptr
      type(c_ptr), value :: solver
    end function c_esdirk_solver_last_error

    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function c_strlen
  end interface

contains

  ! A C string as a Fortran string.
  function from_c_string(s) result(text)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = int(c_strlen(s))
    call c_f_pointer(s, chars, [n])
    allocate(character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function from_c_string

  !> The name of a status ("success", "too_many_steps", ...).
  function esdirk_status_string(status) result(name)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: name
    name = from_c_string(c_esdirk_status_name(status))
  end function esdirk_status_string

  !> The message of the last failure on a solver handle.
  function esdirk_last_error_string(solver) result(message)
    type(c_ptr), intent(in) :: solver
    character(len=:), allocatable :: message
    message = from_c_string(c_esdirk_solver_last_error(solver))
  end function esdirk_last_error_string

end module esdirk
