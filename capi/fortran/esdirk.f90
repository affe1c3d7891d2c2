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
  ! and esdirk_shooting_get_statistics set struct_size themselves.
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

    integer(c_int) function c_esdirk_solver_get_statistics(solver, statistics) &
        bind(C, name="esdirk_solver_get_statistics")
      import :: c_int, c_ptr, esdirk_statistics
      type(c_ptr), value :: solver
      type(esdirk_statistics), intent(inout) :: statistics
    end function c_esdirk_solver_get_statistics

    integer(c_int) function c_esdirk_solver_get_counter(solver, name, value) &
        bind(C, name="esdirk_solver_get_counter")
      import :: c_int, c_int64_t, c_ptr, c_char
      type(c_ptr), value :: solver
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(out) :: value
    end function c_esdirk_solver_get_counter

    type(c_ptr) function c_esdirk_counter_name(index) bind(C, name="esdirk_counter_name")
      import :: c_ptr, c_int
      integer(c_int), value :: index
    end function c_esdirk_counter_name

    type(c_ptr) function c_esdirk_status_name(status) bind(C, name="esdirk_status_name")
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function c_esdirk_status_name

    type(c_ptr) function c_esdirk_status_message(status) bind(C, name="esdirk_status_message")
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function c_esdirk_status_message

    type(c_ptr) function c_esdirk_solver_last_error(solver) bind(C, name="esdirk_solver_last_error")
      import :: c_ptr
      type(c_ptr), value :: solver
    end function c_esdirk_solver_last_error

    integer(c_int) function esdirk_solver_set_sensitivity_options(solver, mode, error_control) &
        bind(C, name="esdirk_solver_set_sensitivity_options")
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
      integer(c_int), value :: mode, error_control
    end function esdirk_solver_set_sensitivity_options

    !> seed: (nx + np) x ns with leading dimension ld (pass an identity matrix for all
    !> directions; the C API's NULL seed has no Fortran spelling here).
    integer(c_int) function esdirk_solver_start_sensitivities(solver, seed, rows, ns, ld) &
        bind(C, name="esdirk_solver_start_sensitivities")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: seed(ld, *)
      integer(esdirk_int), value :: rows, ns, ld
    end function esdirk_solver_start_sensitivities

    integer(c_int) function esdirk_solver_integrate_sensitivities_to(solver, tout, x, nx, z, nz, Sx, ldsx, &
        Sz, ldsz, ns) bind(C, name="esdirk_solver_integrate_sensitivities_to")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), value :: tout
      real(c_double), intent(out) :: x(*), z(*), Sx(ldsx, *), Sz(ldsz, *)
      integer(esdirk_int), value :: nx, nz, ldsx, ldsz, ns
    end function esdirk_solver_integrate_sensitivities_to

    integer(c_int) function esdirk_shooting_create(problem, shooting) bind(C, name="esdirk_shooting_create")
      import :: c_int, c_ptr
      type(c_ptr), value :: problem
      type(c_ptr), intent(out) :: shooting
    end function esdirk_shooting_create

    subroutine esdirk_shooting_free(shooting) bind(C, name="esdirk_shooting_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: shooting
    end subroutine esdirk_shooting_free

    integer(c_int) function esdirk_shooting_set_tolerances(shooting, rtol, atol) &
        bind(C, name="esdirk_shooting_set_tolerances")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: shooting
      real(c_double), value :: rtol, atol
    end function esdirk_shooting_set_tolerances

    integer(c_int) function esdirk_shooting_set_algebraic_atol(shooting, atol, nz) &
        bind(C, name="esdirk_shooting_set_algebraic_atol")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: shooting
      real(c_double), intent(in) :: atol(*)
      integer(esdirk_int), value :: nz
    end function esdirk_shooting_set_algebraic_atol

    integer(c_int) function esdirk_shooting_set_sensitivity_mode(shooting, mode) &
        bind(C, name="esdirk_shooting_set_sensitivity_mode")
      import :: c_int, c_ptr
      type(c_ptr), value :: shooting
      integer(c_int), value :: mode
    end function esdirk_shooting_set_sensitivity_mode

    integer(c_int) function esdirk_shooting_set_max_steps(shooting, max_steps) &
        bind(C, name="esdirk_shooting_set_max_steps")
      import :: c_int, c_ptr, c_long
      type(c_ptr), value :: shooting
      integer(c_long), value :: max_steps
    end function esdirk_shooting_set_max_steps

    integer(c_int) function esdirk_shooting_set_sensitivity_error_control(shooting, error_control) &
        bind(C, name="esdirk_shooting_set_sensitivity_error_control")
      import :: c_int, c_ptr
      type(c_ptr), value :: shooting
      integer(c_int), value :: error_control
    end function esdirk_shooting_set_sensitivity_error_control

    integer(c_int) function esdirk_shooting_set_running_cost(shooting, cost, user_data) &
        bind(C, name="esdirk_shooting_set_running_cost")
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: shooting
      type(c_funptr), value :: cost
      type(c_ptr), value :: user_data
    end function esdirk_shooting_set_running_cost

    integer(c_int) function esdirk_shooting_integrate(shooting, t_k, t_end, x_k, nx, u_k, nu, z_guess, nz, &
        x_next, z_next, A, lda, B, ldb, H, q, r) bind(C, name="esdirk_shooting_integrate")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: shooting
      real(c_double), value :: t_k, t_end
      real(c_double), intent(in) :: x_k(*), u_k(*), z_guess(*)
      integer(esdirk_int), value :: nx, nu, nz, lda, ldb
      real(c_double), intent(out) :: x_next(*), z_next(*), A(lda, *), B(ldb, *), H, q(*), r(*)
    end function esdirk_shooting_integrate

    integer(c_int) function esdirk_shooting_get_algebraic_sensitivities(shooting, Az, ldaz, Bz, ldbz) &
        bind(C, name="esdirk_shooting_get_algebraic_sensitivities")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: shooting
      integer(esdirk_int), value :: ldaz, ldbz
      real(c_double), intent(out) :: Az(ldaz, *), Bz(ldbz, *)
    end function esdirk_shooting_get_algebraic_sensitivities

    ! Fixed and frozen meshes (doc/multiple-shooting-guide.md); mesh points measured from t_k.
    integer(c_int) function esdirk_shooting_set_fixed_steps(shooting, steps) &
        bind(C, name="esdirk_shooting_set_fixed_steps")
      import :: c_int, c_ptr, esdirk_int
      type(c_ptr), value :: shooting
      integer(esdirk_int), value :: steps
    end function esdirk_shooting_set_fixed_steps

    integer(c_int) function esdirk_shooting_set_mesh(shooting, points, n_points) &
        bind(C, name="esdirk_shooting_set_mesh")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: shooting
      real(c_double), intent(in) :: points(*)
      integer(esdirk_int), value :: n_points
    end function esdirk_shooting_set_mesh

    integer(c_int) function esdirk_shooting_freeze_mesh(shooting) bind(C, name="esdirk_shooting_freeze_mesh")
      import :: c_int, c_ptr
      type(c_ptr), value :: shooting
    end function esdirk_shooting_freeze_mesh

    integer(c_int) function esdirk_shooting_refresh_mesh(shooting) bind(C, name="esdirk_shooting_refresh_mesh")
      import :: c_int, c_ptr
      type(c_ptr), value :: shooting
    end function esdirk_shooting_refresh_mesh

    integer(c_int) function esdirk_shooting_use_adaptive_steps(shooting) &
        bind(C, name="esdirk_shooting_use_adaptive_steps")
      import :: c_int, c_ptr
      type(c_ptr), value :: shooting
    end function esdirk_shooting_use_adaptive_steps

    integer(c_int) function esdirk_shooting_get_error_estimate(shooting, estimate) &
        bind(C, name="esdirk_shooting_get_error_estimate")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: shooting
      real(c_double), intent(out) :: estimate
    end function esdirk_shooting_get_error_estimate

    integer(c_int) function esdirk_shooting_get_mesh(shooting, points, capacity, n_points) &
        bind(C, name="esdirk_shooting_get_mesh")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: shooting
      real(c_double), intent(out) :: points(*)
      integer(esdirk_int), value :: capacity
      integer(esdirk_int), intent(out) :: n_points
    end function esdirk_shooting_get_mesh

    integer(c_int) function c_esdirk_shooting_get_statistics(shooting, total, statistics) &
        bind(C, name="esdirk_shooting_get_statistics")
      import :: c_int, c_ptr, esdirk_statistics
      type(c_ptr), value :: shooting
      integer(c_int), value :: total
      type(esdirk_statistics), intent(inout) :: statistics
    end function c_esdirk_shooting_get_statistics

    integer(c_int) function c_esdirk_shooting_get_counter(shooting, total, name, value) &
        bind(C, name="esdirk_shooting_get_counter")
      import :: c_int, c_int64_t, c_ptr, c_char
      type(c_ptr), value :: shooting
      integer(c_int), value :: total
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(out) :: value
    end function c_esdirk_shooting_get_counter

    type(c_ptr) function c_esdirk_shooting_last_error(shooting) bind(C, name="esdirk_shooting_last_error")
      import :: c_ptr
      type(c_ptr), value :: shooting
    end function c_esdirk_shooting_last_error

    integer(c_int) function c_esdirk_structural_sigma(n_equations, n_variables, n_entries, entry_equation, &
        entry_variable, entry_order, equation_offsets, variable_offsets, max_offset_index, &
        pryce_structural_index, degrees_of_freedom) bind(C, name="esdirk_structural_sigma")
      import :: c_int, c_int64_t, esdirk_int
      integer(esdirk_int), value :: n_equations, n_variables, n_entries
      integer(esdirk_int), intent(in) :: entry_equation(*), entry_variable(*), entry_order(*)
      integer(esdirk_int), intent(out) :: equation_offsets(*), variable_offsets(*)
      integer(esdirk_int), intent(out) :: max_offset_index, pryce_structural_index
      integer(c_int64_t), intent(out) :: degrees_of_freedom
    end function c_esdirk_structural_sigma

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

  !> The integrator's counters. The struct size is set here, so a program compiled against
  !> this module keeps working with a later library whose struct has grown.
  integer(c_int) function esdirk_solver_get_statistics(solver, statistics) result(status)
    type(c_ptr), intent(in) :: solver
    type(esdirk_statistics), intent(out) :: statistics
    statistics%struct_size = c_sizeof(statistics)
    status = c_esdirk_solver_get_statistics(solver, statistics)
  end function esdirk_solver_get_statistics

  !> Counters of the last interval (total = 0) or of all intervals (total = 1).
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
    integer(c_int) function esdirk_hybrid_problem_create(nx, nz, np, ne, memory, residual, user_data, &
        problem) bind(C, name="esdirk_hybrid_problem_create")
      import :: c_int, c_funptr, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, np, ne
      integer(c_int), value :: memory
      type(c_funptr), value :: residual
      type(c_ptr), value :: user_data
      type(c_ptr), intent(out) :: problem
    end function esdirk_hybrid_problem_create

    integer(c_int) function esdirk_hybrid_problem_set_events(problem, events, event_jacobian) &
        bind(C, name="esdirk_hybrid_problem_set_events")
      import :: c_int, c_funptr, c_ptr
      type(c_ptr), value :: problem
      type(c_funptr), value :: events, event_jacobian
    end function esdirk_hybrid_problem_set_events

    integer(c_int) function esdirk_hybrid_problem_set_transition(problem, transition, reset_jacobian) &
        bind(C, name="esdirk_hybrid_problem_set_transition")
      import :: c_int, c_funptr, c_ptr
      type(c_ptr), value :: problem
      type(c_funptr), value :: transition, reset_jacobian
    end function esdirk_hybrid_problem_set_transition

    integer(c_int) function esdirk_hybrid_problem_set_parameter_reset(problem, np, reset, &
        parameter_reset_jacobian) bind(C, name="esdirk_hybrid_problem_set_parameter_reset")
      import :: c_int, c_funptr, c_ptr, esdirk_int
      type(c_ptr), value :: problem
      integer(esdirk_int), value :: np
      type(c_funptr), value :: reset, parameter_reset_jacobian
    end function esdirk_hybrid_problem_set_parameter_reset

    integer(c_int) function esdirk_hybrid_problem_set_jacobians(problem, jacobian, parameter_jacobian) &
        bind(C, name="esdirk_hybrid_problem_set_jacobians")
      import :: c_int, c_funptr, c_ptr
      type(c_ptr), value :: problem
      type(c_funptr), value :: jacobian, parameter_jacobian
    end function esdirk_hybrid_problem_set_jacobians

    integer(c_int) function esdirk_hybrid_problem_set_has_mode(problem, has_mode) &
        bind(C, name="esdirk_hybrid_problem_set_has_mode")
      import :: c_int, c_funptr, c_ptr
      type(c_ptr), value :: problem
      type(c_funptr), value :: has_mode
    end function esdirk_hybrid_problem_set_has_mode

    subroutine esdirk_hybrid_problem_free(problem) bind(C, name="esdirk_hybrid_problem_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: problem
    end subroutine esdirk_hybrid_problem_free

    integer(c_int) function esdirk_hybrid_solver_create(problem, solver) bind(C, name="esdirk_hybrid_solver_create")
      import :: c_int, c_ptr
      type(c_ptr), value :: problem
      type(c_ptr), intent(out) :: solver
    end function esdirk_hybrid_solver_create

    subroutine esdirk_hybrid_solver_free(solver) bind(C, name="esdirk_hybrid_solver_free")
      import :: c_ptr
      type(c_ptr), intent(inout) :: solver
    end subroutine esdirk_hybrid_solver_free

    type(c_ptr) function c_esdirk_hybrid_solver_last_error(solver) bind(C, name="esdirk_hybrid_solver_last_error")
      import :: c_ptr
      type(c_ptr), value :: solver
    end function c_esdirk_hybrid_solver_last_error

    integer(c_int) function esdirk_hybrid_solver_set_tolerances(solver, rtol, atol) &
        bind(C, name="esdirk_hybrid_solver_set_tolerances")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), value :: rtol, atol
    end function esdirk_hybrid_solver_set_tolerances

    integer(c_int) function esdirk_hybrid_solver_set_step_limits(solver, initial_step, min_step, max_step, &
        max_steps) bind(C, name="esdirk_hybrid_solver_set_step_limits")
      import :: c_int, c_ptr, c_double, c_long
      type(c_ptr), value :: solver
      real(c_double), value :: initial_step, min_step, max_step
      integer(c_long), value :: max_steps
    end function esdirk_hybrid_solver_set_step_limits

    integer(c_int) function esdirk_hybrid_solver_set_event_directions(solver, directions, n) &
        bind(C, name="esdirk_hybrid_solver_set_event_directions")
      import :: c_int, c_ptr, esdirk_int
      type(c_ptr), value :: solver
      integer(c_int), intent(in) :: directions(*)
      integer(esdirk_int), value :: n
    end function esdirk_hybrid_solver_set_event_directions

    integer(c_int) function esdirk_hybrid_solver_set_terminal(solver, terminal, n) &
        bind(C, name="esdirk_hybrid_solver_set_terminal")
      import :: c_int, c_ptr, esdirk_int
      type(c_ptr), value :: solver
      integer(c_int), intent(in) :: terminal(*)
      integer(esdirk_int), value :: n
    end function esdirk_hybrid_solver_set_terminal

    integer(c_int) function esdirk_hybrid_solver_set_initial_events(solver, initial, n) &
        bind(C, name="esdirk_hybrid_solver_set_initial_events")
      import :: c_int, c_ptr, esdirk_int
      type(c_ptr), value :: solver
      integer(c_int), intent(in) :: initial(*)
      integer(esdirk_int), value :: n
    end function esdirk_hybrid_solver_set_initial_events

    integer(c_int) function esdirk_hybrid_solver_set_time_events(solver, times, n) &
        bind(C, name="esdirk_hybrid_solver_set_time_events")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: times(*)
      integer(esdirk_int), value :: n
    end function esdirk_hybrid_solver_set_time_events

    integer(c_int) function esdirk_hybrid_solver_set_event_location(solver, location_tolerance, &
        max_location_iterations, detection_samples) bind(C, name="esdirk_hybrid_solver_set_event_location")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      real(c_double), value :: location_tolerance
      integer(c_int), value :: max_location_iterations, detection_samples
    end function esdirk_hybrid_solver_set_event_location

    integer(c_int) function esdirk_hybrid_solver_set_event_limits(solver, max_events_per_step, &
        max_events_per_unit_time, event_window, grazing_tolerance, event_log_capacity) &
        bind(C, name="esdirk_hybrid_solver_set_event_limits")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      integer(c_int), value :: max_events_per_step, event_window, event_log_capacity
      real(c_double), value :: max_events_per_unit_time, grazing_tolerance
    end function esdirk_hybrid_solver_set_event_limits

    integer(c_int) function esdirk_hybrid_solver_set_zeno(solver, zeno_intervals, zeno_time_tolerance) &
        bind(C, name="esdirk_hybrid_solver_set_zeno")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: solver
      integer(c_int), value :: zeno_intervals
      real(c_double), value :: zeno_time_tolerance
    end function esdirk_hybrid_solver_set_zeno

    integer(c_int) function c_esdirk_hybrid_solver_get_event_parameters(solver, index, p_minus, p_plus, np) &
        bind(C, name="esdirk_hybrid_solver_get_event_parameters")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      integer(esdirk_int), value :: index, np
      real(c_double), intent(out) :: p_minus(*), p_plus(*)
    end function c_esdirk_hybrid_solver_get_event_parameters

    integer(c_int) function esdirk_hybrid_solver_set_sensitivity_jumps(solver, jumps, event_time_sensitivity) &
        bind(C, name="esdirk_hybrid_solver_set_sensitivity_jumps")
      import :: c_int, c_ptr
      type(c_ptr), value :: solver
      integer(c_int), value :: jumps, event_time_sensitivity
    end function esdirk_hybrid_solver_set_sensitivity_jumps

    integer(c_int) function esdirk_hybrid_solver_initialize(solver, t0, mode, x0, nx, z0_guess, nz, p, np, &
        mem0, nm) bind(C, name="esdirk_hybrid_solver_initialize")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), value :: t0
      integer(c_int), value :: mode
      real(c_double), intent(in) :: x0(*), z0_guess(*), p(*), mem0(*)
      integer(esdirk_int), value :: nx, nz, np, nm
    end function esdirk_hybrid_solver_initialize

    integer(c_int) function esdirk_hybrid_solver_start_sensitivities(solver, seed, rows, ns, ld) &
        bind(C, name="esdirk_hybrid_solver_start_sensitivities")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: seed(ld, *)
      integer(esdirk_int), value :: rows, ns, ld
    end function esdirk_hybrid_solver_start_sensitivities

    integer(c_int) function esdirk_hybrid_solver_integrate_to(solver, tout, x, nx, z, nz, t_reached) &
        bind(C, name="esdirk_hybrid_solver_integrate_to")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), value :: tout
      real(c_double), intent(out) :: x(*), z(*)
      integer(esdirk_int), value :: nx, nz
      real(c_double), intent(out) :: t_reached
    end function esdirk_hybrid_solver_integrate_to

    integer(c_int) function esdirk_hybrid_solver_integrate_sensitivities_to(solver, tout, x, nx, z, nz, Sx, &
        ldsx, Sz, ldsz, ns, t_reached) bind(C, name="esdirk_hybrid_solver_integrate_sensitivities_to")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), value :: tout
      real(c_double), intent(out) :: x(*), z(*), Sx(ldsx, *), Sz(*)
      integer(esdirk_int), value :: nx, nz, ldsx, ldsz, ns
      real(c_double), intent(out) :: t_reached
    end function esdirk_hybrid_solver_integrate_sensitivities_to

    integer(c_int) function esdirk_hybrid_solver_get_state(solver, t, mode, x, nx, z, nz) &
        bind(C, name="esdirk_hybrid_solver_get_state")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(out) :: t, x(*), z(*)
      integer(c_int), intent(out) :: mode
      integer(esdirk_int), value :: nx, nz
    end function esdirk_hybrid_solver_get_state

    integer(c_int) function esdirk_hybrid_solver_get_parameters(solver, p, np, Sp, ld, ns) &
        bind(C, name="esdirk_hybrid_solver_get_parameters")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(out) :: p(*), Sp(ld, *)
      integer(esdirk_int), value :: np, ld, ns
    end function esdirk_hybrid_solver_get_parameters

    integer(c_int) function esdirk_hybrid_solver_get_memory(solver, mem, nm, Smem, ld, ns) &
        bind(C, name="esdirk_hybrid_solver_get_memory")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      real(c_double), intent(out) :: mem(*), Smem(ld, *)
      integer(esdirk_int), value :: nm, ld, ns
    end function esdirk_hybrid_solver_get_memory

    integer(c_int) function esdirk_hybrid_solver_get_event_count(solver, located, logged) &
        bind(C, name="esdirk_hybrid_solver_get_event_count")
      import :: c_int, c_ptr, c_int64_t, esdirk_int
      type(c_ptr), value :: solver
      integer(c_int64_t), intent(out) :: located
      integer(esdirk_int), intent(out) :: logged
    end function esdirk_hybrid_solver_get_event_count

    integer(c_int) function c_esdirk_hybrid_solver_get_event(solver, index, event) &
        bind(C, name="esdirk_hybrid_solver_get_event")
      import :: c_int, c_ptr, esdirk_int, esdirk_event
      type(c_ptr), value :: solver
      integer(esdirk_int), value :: index
      type(esdirk_event), intent(inout) :: event
    end function c_esdirk_hybrid_solver_get_event

    integer(c_int) function c_esdirk_hybrid_solver_get_event_vectors(solver, index, fired, ne, tau, ns, &
        x_minus, x_plus, nx, z_minus, z_plus, nz) bind(C, name="esdirk_hybrid_solver_get_event_vectors")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      integer(esdirk_int), value :: index, ne, ns, nx, nz
      integer(c_int), intent(out) :: fired(*)
      real(c_double), intent(out) :: tau(*), x_minus(*), x_plus(*), z_minus(*), z_plus(*)
    end function c_esdirk_hybrid_solver_get_event_vectors

    integer(c_int) function c_esdirk_hybrid_solver_get_event_sensitivities(solver, index, sx_minus, sx_plus, &
        ld, ns) bind(C, name="esdirk_hybrid_solver_get_event_sensitivities")
      import :: c_int, c_ptr, c_double, esdirk_int
      type(c_ptr), value :: solver
      integer(esdirk_int), value :: index, ld, ns
      real(c_double), intent(out) :: sx_minus(ld, *), sx_plus(ld, *)
    end function c_esdirk_hybrid_solver_get_event_sensitivities

    integer(c_int) function c_esdirk_hybrid_solver_get_statistics(solver, statistics) &
        bind(C, name="esdirk_hybrid_solver_get_statistics")
      import :: c_int, c_ptr, esdirk_statistics
      type(c_ptr), value :: solver
      type(esdirk_statistics), intent(inout) :: statistics
    end function c_esdirk_hybrid_solver_get_statistics

    integer(c_int) function c_esdirk_hybrid_solver_get_counter(solver, name, value) &
        bind(C, name="esdirk_hybrid_solver_get_counter")
      import :: c_int, c_ptr, c_char, c_int64_t
      type(c_ptr), value :: solver
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(out) :: value
    end function c_esdirk_hybrid_solver_get_counter
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

  !> The counters (struct_size is set here).
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
