! esdirk: the Fortran 2003 module for the esdirk C API (capi/include/esdirk/esdirk.h).
!
! iso_c_binding interfaces: the same functions and constants as the C API. The bind(C)
! interface bodies are written by the build from capi/esdirk_functions.txt (one line per C
! function); this file holds the constants, the derived types and the convenience functions.
! Handles are type(c_ptr); callbacks are bind(C) procedures passed with c_funloc; matrices
! are column-major with explicit leading dimensions, so J(i, j) in Fortran is the entry of
! equation i and state j (1-based). See doc/fortran-guide.md.
module esdirk
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer, parameter, public :: esdirk_int = c_int32_t

  ! Status codes: ESDIRK_SUCCESS, ESDIRK_STOP_TIME_REACHED, ..., ESDIRK_BUFFER_TOO_SMALL, and
  ! esdirk_status_count, esdirk_status_codes(:), esdirk_status_names(:), esdirk_status_messages(:).
  ! The build writes this file from esdirk/status_codes.def, the table C and C++ read too.
  include 'esdirk_status.inc'

  integer(c_int), parameter, public :: ESDIRK_SENSITIVITY_EXACT = 0
  integer(c_int), parameter, public :: ESDIRK_SENSITIVITY_PAPER = 1
  integer(c_int), parameter, public :: ESDIRK_ERROR_CONTROL_DEFAULT = -1
  integer(c_int), parameter, public :: ESDIRK_ERROR_CONTROL_OFF = 0
  integer(c_int), parameter, public :: ESDIRK_ERROR_CONTROL_ON = 1

  ! The integrator's counters; mirrors struct esdirk_statistics. esdirk_solver_get_statistics
  ! and esdirk_shooting_get_statistics set struct_size themselves. Deprecated with the C
  ! functions (one release): read counters by name with the handles' *_get_counter.
  type, bind(C), public :: esdirk_statistics
    integer(c_size_t) :: struct_size = 0
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
  public :: esdirk_solver_get_state, esdirk_solver_get_statistics, esdirk_solver_get_counter
  public :: esdirk_counter_name_string
  public :: esdirk_status_string, esdirk_status_message_string, esdirk_last_error_string
  public :: esdirk_string_from_c
  public :: esdirk_solver_set_sensitivity_options, esdirk_solver_start_sensitivities
  public :: esdirk_solver_integrate_sensitivities_to
  public :: esdirk_shooting_create, esdirk_shooting_free, esdirk_shooting_set_tolerances
  public :: esdirk_shooting_set_algebraic_atol, esdirk_shooting_set_sensitivity_mode
  public :: esdirk_shooting_set_sensitivity_error_control, esdirk_shooting_set_max_steps
  public :: esdirk_shooting_set_running_cost, esdirk_shooting_integrate
  public :: esdirk_shooting_get_algebraic_sensitivities, esdirk_shooting_get_statistics
  public :: esdirk_shooting_get_counter
  public :: esdirk_shooting_set_fixed_steps, esdirk_shooting_set_mesh, esdirk_shooting_freeze_mesh
  public :: esdirk_shooting_refresh_mesh, esdirk_shooting_use_adaptive_steps
  public :: esdirk_shooting_get_error_estimate, esdirk_shooting_get_mesh
  public :: esdirk_shooting_last_error_string, esdirk_structural_sigma_1based

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_c_interfaces.inc'

    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function c_strlen
  end interface

contains

  !> A NUL-terminated C string (a message, a name) as a Fortran string; "" for NULL. Every
  !> *_string wrapper of the esdirk modules uses it; it serves any const char* the C API returns.
  function esdirk_string_from_c(s) result(text)
    type(c_ptr), intent(in) :: s
    character(len=:), allocatable :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(s)) then
      text = ""
      return
    end if
    n = int(c_strlen(s))
    allocate(character(len=n) :: text)
    if (n == 0) return
    call c_f_pointer(s, chars, [n])
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function esdirk_string_from_c

  !> The name of a status ("success", "too_many_steps", ...).
  function esdirk_status_string(status) result(name)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: name
    name = esdirk_string_from_c(c_esdirk_status_name(status))
  end function esdirk_status_string

  !> One line that says what a status means.
  function esdirk_status_message_string(status) result(message)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: message
    message = esdirk_string_from_c(c_esdirk_status_message(status))
  end function esdirk_status_message_string

  !> Deprecated (one release): esdirk_solver_get_counter. The integrator's counters. The struct size is set here, so a program compiled against
  !> this module keeps working with a later library whose struct has grown.
  integer(c_int) function esdirk_solver_get_statistics(solver, statistics) result(status)
    type(c_ptr), intent(in) :: solver
    type(esdirk_statistics), intent(out) :: statistics
    statistics%struct_size = c_sizeof(statistics)
    status = c_esdirk_solver_get_statistics(solver, statistics)
  end function esdirk_solver_get_statistics

  !> Deprecated (one release): esdirk_shooting_get_counter. Counters of the last interval
  !> (total = 0) or of all intervals (total = 1).
  integer(c_int) function esdirk_shooting_get_statistics(shooting, total, statistics) result(status)
    type(c_ptr), intent(in) :: shooting
    integer(c_int), intent(in) :: total
    type(esdirk_statistics), intent(out) :: statistics
    statistics%struct_size = c_sizeof(statistics)
    status = c_esdirk_shooting_get_statistics(shooting, total, statistics)
  end function esdirk_shooting_get_statistics

  !> One counter by name ("steps", "lu_factorizations", ...), including counters that are
  !> newer than the esdirk_statistics type.
  integer(c_int) function esdirk_solver_get_counter(solver, name, value) result(status)
    type(c_ptr), intent(in) :: solver
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(out) :: value
    status = c_esdirk_solver_get_counter(solver, trim(name) // c_null_char, value)
  end function esdirk_solver_get_counter

  !> One counter of the last interval (total = 0) or of all intervals (total = 1) by name.
  integer(c_int) function esdirk_shooting_get_counter(shooting, total, name, value) result(status)
    type(c_ptr), intent(in) :: shooting
    integer(c_int), intent(in) :: total
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(out) :: value
    status = c_esdirk_shooting_get_counter(shooting, total, trim(name) // c_null_char, value)
  end function esdirk_shooting_get_counter

  !> The name of the index-th counter (1-based); "" past the last.
  function esdirk_counter_name_string(index) result(name)
    integer, intent(in) :: index
    character(len=:), allocatable :: name
    type(c_ptr) :: text
    text = c_esdirk_counter_name(int(index - 1, c_int))
    name = esdirk_string_from_c(text)
  end function esdirk_counter_name_string

  !> The message of the last failure on a solver handle.
  function esdirk_last_error_string(solver) result(message)
    type(c_ptr), intent(in) :: solver
    character(len=:), allocatable :: message
    message = esdirk_string_from_c(c_esdirk_solver_last_error(solver))
  end function esdirk_last_error_string

  !> The message of the last failure on a shooting handle.
  function esdirk_shooting_last_error_string(shooting) result(message)
    type(c_ptr), intent(in) :: shooting
    character(len=:), allocatable :: message
    message = esdirk_string_from_c(c_esdirk_shooting_last_error(shooting))
  end function esdirk_shooting_last_error_string

  !> The Sigma-method with Fortran's 1-based equation and variable indices in the entries
  !> (orders stay as they are). Offsets come back per equation and per variable.
  integer(c_int) function esdirk_structural_sigma_1based(n_equations, n_variables, entry_equation, &
      entry_variable, entry_order, equation_offsets, variable_offsets, max_offset_index, &
      pryce_structural_index, degrees_of_freedom) result(status)
    integer(esdirk_int), intent(in) :: n_equations, n_variables
    integer(esdirk_int), intent(in) :: entry_equation(:), entry_variable(:), entry_order(:)
    integer(esdirk_int), intent(out) :: equation_offsets(n_equations), variable_offsets(n_variables)
    integer(esdirk_int), intent(out) :: max_offset_index, pryce_structural_index
    integer(c_int64_t), intent(out) :: degrees_of_freedom
    if (size(entry_variable) /= size(entry_equation) .or. size(entry_order) /= size(entry_equation)) then
      status = ESDIRK_INVALID_ARGUMENT
      return
    end if
    status = c_esdirk_structural_sigma(n_equations, n_variables, int(size(entry_equation), esdirk_int), &
        entry_equation - 1_esdirk_int, entry_variable - 1_esdirk_int, entry_order, equation_offsets, &
        variable_offsets, max_offset_index, pryce_structural_index, degrees_of_freedom)
  end function esdirk_structural_sigma_1based

end module esdirk

! esdirk_events: the hybrid-system (events) part of the C API for Fortran, a module of its own
! beside esdirk (use both). The same conventions: handles are type(c_ptr), callbacks bind(C)
! procedures passed with c_funloc, sizes by value, matrices with explicit leading dimensions.
! The mode is an integer(c_int) by value; fired(ne) is +1, -1 or 0 per component. Indices in
! the C structs stay 0-based (esdirk_event%primary, the component k of the event Jacobian
! callback); the log is read with 1-based event indices. See doc/fortran-guide.md.
module esdirk_events
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int, esdirk_statistics, esdirk_string_from_c
  implicit none
  private

  integer(c_int), parameter, public :: ESDIRK_EVENT_BOTH = 0
  integer(c_int), parameter, public :: ESDIRK_EVENT_RISING = 1
  integer(c_int), parameter, public :: ESDIRK_EVENT_FALLING = -1

  ! Mirrors struct esdirk_event; the getter sets struct_size. initial and cascade came with the
  ! struct's second version (a program built with the first gets the fields it has).
  type, bind(C), public :: esdirk_event
    integer(c_size_t) :: struct_size = 0
    real(c_double) :: t = 0, bracket = 0, dh_dt = 0
    integer(c_int) :: mode_before = 0, mode_after = 0, time_event = 0, primary = 0, iterations = 0
    integer(c_int) :: initial = 0, cascade = 0
  end type esdirk_event

  ! The shapes of the callbacks.
  abstract interface
    integer(c_int) function esdirk_hybrid_residual_fn(mode, nx, nz, np, nm, t, x, z, p, mem, f, g, &
        user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode
      integer(esdirk_int), value :: nx, nz, np, nm
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
      real(c_double), intent(out) :: f(nx), g(*)
      type(c_ptr), value :: user_data
    end function esdirk_hybrid_residual_fn
    integer(c_int) function esdirk_hybrid_jacobian_fn(mode, nx, nz, np, nm, t, x, z, p, mem, J, ld, &
        user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode
      integer(esdirk_int), value :: nx, nz, np, nm, ld
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
      real(c_double), intent(inout) :: J(ld, *)
      type(c_ptr), value :: user_data
    end function esdirk_hybrid_jacobian_fn
    integer(c_int) function esdirk_event_fn(mode, nx, nz, np, nm, ne, t, x, z, p, mem, h, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode
      integer(esdirk_int), value :: nx, nz, np, nm, ne
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
      real(c_double), intent(out) :: h(ne)
      type(c_ptr), value :: user_data
    end function esdirk_event_fn
    integer(c_int) function esdirk_event_jacobian_fn(mode, k, nx, nz, np, nm, t, x, z, p, mem, row, &
        user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode
      integer(esdirk_int), value :: k, nx, nz, np, nm
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
      real(c_double), intent(out) :: row(*)
      type(c_ptr), value :: user_data
    end function esdirk_event_jacobian_fn
    integer(c_int) function esdirk_transition_fn(mode, ne, fired, time_event, nx, nz, np, nm, t, x, z, &
        p, mem, next_mode, x_plus, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode, time_event
      integer(esdirk_int), value :: ne, nx, nz, np, nm
      integer(c_int), intent(in) :: fired(*)
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
      integer(c_int), intent(inout) :: next_mode
      real(c_double), intent(inout) :: x_plus(nx)
      type(c_ptr), value :: user_data
    end function esdirk_transition_fn
    integer(c_int) function esdirk_reset_jacobian_fn(mode, ne, fired, time_event, nx, nz, np, nm, t, x, &
        z, p, mem, D, ldd, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode, time_event
      integer(esdirk_int), value :: ne, nx, nz, np, nm, ldd
      integer(c_int), intent(in) :: fired(*)
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
      real(c_double), intent(inout) :: D(ldd, *)
      type(c_ptr), value :: user_data
    end function esdirk_reset_jacobian_fn
    integer(c_int) function esdirk_parameter_reset_fn(mode, ne, fired, time_event, nx, nz, np, nm, t, &
        x, z, p, mem, p_plus, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode, time_event
      integer(esdirk_int), value :: ne, nx, nz, np, nm
      integer(c_int), intent(in) :: fired(*)
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(np), mem(*)
      real(c_double), intent(inout) :: p_plus(np)
      type(c_ptr), value :: user_data
    end function esdirk_parameter_reset_fn
    integer(c_int) function esdirk_parameter_reset_jacobian_fn(mode, ne, fired, time_event, nx, nz, np, &
        nm, t, x, z, p, mem, E, lde, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(c_int), value :: mode, time_event
      integer(esdirk_int), value :: ne, nx, nz, np, nm, lde
      integer(c_int), intent(in) :: fired(*)
      real(c_double), value :: t
      real(c_double), intent(in) :: x(nx), z(*), p(np), mem(*)
      real(c_double), intent(inout) :: E(lde, *)
      type(c_ptr), value :: user_data
    end function esdirk_parameter_reset_jacobian_fn
    integer(c_int) function esdirk_has_mode_fn(mode, user_data) bind(C)
      import :: c_int, c_ptr
      integer(c_int), value :: mode
      type(c_ptr), value :: user_data
    end function esdirk_has_mode_fn
  end interface
  public :: esdirk_hybrid_residual_fn, esdirk_hybrid_jacobian_fn, esdirk_event_fn
  public :: esdirk_event_jacobian_fn, esdirk_transition_fn, esdirk_reset_jacobian_fn, esdirk_has_mode_fn
  public :: esdirk_parameter_reset_fn, esdirk_parameter_reset_jacobian_fn
  public :: esdirk_hybrid_problem_set_parameter_reset, esdirk_hybrid_solver_set_initial_events
  public :: esdirk_hybrid_solver_get_parameters, esdirk_hybrid_solver_set_zeno
  public :: esdirk_hybrid_solver_get_event_parameters

  public :: esdirk_hybrid_problem_create, esdirk_hybrid_problem_set_events
  public :: esdirk_hybrid_problem_set_transition, esdirk_hybrid_problem_set_jacobians
  public :: esdirk_hybrid_problem_set_has_mode, esdirk_hybrid_problem_free
  public :: esdirk_hybrid_solver_create, esdirk_hybrid_solver_free, esdirk_hybrid_last_error_string
  public :: esdirk_hybrid_solver_set_tolerances, esdirk_hybrid_solver_set_step_limits
  public :: esdirk_hybrid_solver_set_event_directions, esdirk_hybrid_solver_set_terminal
  public :: esdirk_hybrid_solver_set_time_events, esdirk_hybrid_solver_set_event_location
  public :: esdirk_hybrid_solver_set_event_limits, esdirk_hybrid_solver_set_sensitivity_jumps
  public :: esdirk_hybrid_solver_initialize, esdirk_hybrid_solver_start_sensitivities
  public :: esdirk_hybrid_solver_integrate_to, esdirk_hybrid_solver_integrate_sensitivities_to
  public :: esdirk_hybrid_solver_get_state, esdirk_hybrid_solver_get_memory
  public :: esdirk_hybrid_solver_get_event_count, esdirk_hybrid_solver_get_event
  public :: esdirk_hybrid_solver_get_event_vectors, esdirk_hybrid_solver_get_event_sensitivities
  public :: esdirk_hybrid_solver_get_statistics, esdirk_hybrid_solver_get_counter

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_events_c_interfaces.inc'
  end interface

contains

  !> The message of the last failure on a hybrid solver handle.
  function esdirk_hybrid_last_error_string(solver) result(message)
    type(c_ptr), intent(in) :: solver
    character(len=:), allocatable :: message
    message = esdirk_string_from_c(c_esdirk_hybrid_solver_last_error(solver))
  end function esdirk_hybrid_last_error_string

  !> Event `index` of the log, 1-based (struct_size is set here).
  integer(c_int) function esdirk_hybrid_solver_get_event(solver, index, event) result(status)
    type(c_ptr), intent(in) :: solver
    integer, intent(in) :: index
    type(esdirk_event), intent(out) :: event
    event%struct_size = c_sizeof(event)
    status = c_esdirk_hybrid_solver_get_event(solver, int(index - 1, esdirk_int), event)
  end function esdirk_hybrid_solver_get_event

  !> The vectors of event `index` (1-based): fired(ne), tau(ns) (ns = 0 without sensitivities),
  !> the left and right limits of x (nx) and z (nz).
  integer(c_int) function esdirk_hybrid_solver_get_event_vectors(solver, index, fired, tau, x_minus, &
      x_plus, z_minus, z_plus) result(status)
    type(c_ptr), intent(in) :: solver
    integer, intent(in) :: index
    integer(c_int), intent(out) :: fired(:)
    real(c_double), intent(out) :: tau(:), x_minus(:), x_plus(:), z_minus(:), z_plus(:)
    status = c_esdirk_hybrid_solver_get_event_vectors(solver, int(index - 1, esdirk_int), fired, &
        int(size(fired), esdirk_int), tau, int(size(tau), esdirk_int), x_minus, x_plus, &
        int(size(x_minus), esdirk_int), z_minus, z_plus, int(size(z_minus), esdirk_int))
  end function esdirk_hybrid_solver_get_event_vectors

  !> The parameters either side of event `index` (1-based): p- and p+ (np each).
  integer(c_int) function esdirk_hybrid_solver_get_event_parameters(solver, index, p_minus, p_plus) &
      result(status)
    type(c_ptr), intent(in) :: solver
    integer, intent(in) :: index
    real(c_double), intent(out) :: p_minus(:), p_plus(:)
    status = c_esdirk_hybrid_solver_get_event_parameters(solver, int(index - 1, esdirk_int), p_minus, p_plus, &
        int(size(p_minus), esdirk_int))
  end function esdirk_hybrid_solver_get_event_parameters

  !> The state sensitivities either side of event `index` (1-based): Sx-, Sx+ (nx x ns).
  integer(c_int) function esdirk_hybrid_solver_get_event_sensitivities(solver, index, sx_minus, sx_plus) &
      result(status)
    type(c_ptr), intent(in) :: solver
    integer, intent(in) :: index
    real(c_double), intent(out) :: sx_minus(:, :), sx_plus(:, :)
    status = c_esdirk_hybrid_solver_get_event_sensitivities(solver, int(index - 1, esdirk_int), sx_minus, &
        sx_plus, int(size(sx_minus, 1), esdirk_int), int(size(sx_minus, 2), esdirk_int))
  end function esdirk_hybrid_solver_get_event_sensitivities

  !> Deprecated (one release): esdirk_hybrid_solver_get_counter. The counters (struct_size is set here).
  integer(c_int) function esdirk_hybrid_solver_get_statistics(solver, statistics) result(status)
    type(c_ptr), intent(in) :: solver
    type(esdirk_statistics), intent(out) :: statistics
    statistics%struct_size = c_sizeof(statistics)
    status = c_esdirk_hybrid_solver_get_statistics(solver, statistics)
  end function esdirk_hybrid_solver_get_statistics

  !> One counter by name ("events", "event_root_iterations", ...).
  integer(c_int) function esdirk_hybrid_solver_get_counter(solver, name, value) result(status)
    type(c_ptr), intent(in) :: solver
    character(len=*), intent(in) :: name
    integer(c_int64_t), intent(out) :: value
    status = c_esdirk_hybrid_solver_get_counter(solver, trim(name) // c_null_char, value)
  end function esdirk_hybrid_solver_get_counter

end module esdirk_events
