! Parameter resets and initial events through the Fortran module esdirk_events: a gain switched
! by an event, x' = -k x with k := 2 k where x falls through 1/2, x(0) = x0. Closed form
! x(T) = 2 x0^2 exp(-2 k0 T), dx/dx0 = 4 x0 exp(-2 k0 T), dx/dk0 = -2 T x(T), k(T) = 2 k0 with
! dk/dk0 = 2; the hybrid adjoint's gradient of x(T) equals the forward sensitivities. As an
! initial event (x0 > 1/2, rising filter) the gain doubles at t = 0: x(T) = x0 exp(-2 k0 T).
module gain_model
  use, intrinsic :: iso_c_binding
  use esdirk
  implicit none
contains
  integer(c_int) function decay(mode, nx, nz, np, nm, t, x, z, p, mem, f, g, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    f(1) = -p(1) * x(1)
    decay = 0
  end function decay

  integer(c_int) function half(mode, nx, nz, np, nm, ne, t, x, z, p, mem, h, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm, ne
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: h(ne)
    type(c_ptr), value :: user_data
    h(1) = x(1) - 0.5_c_double
    half = 0
  end function half

  integer(c_int) function double_gain(mode, ne, fired, time_event, nx, nz, np, nm, t, x, z, p, mem, &
      p_plus, user_data) bind(C)
    integer(c_int), value :: mode, time_event
    integer(esdirk_int), value :: ne, nx, nz, np, nm
    integer(c_int), intent(in) :: fired(*)
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(np), mem(*)
    real(c_double), intent(inout) :: p_plus(np)
    type(c_ptr), value :: user_data
    p_plus(1) = 2.0_c_double * p(1)
    double_gain = 0
  end function double_gain

  ! E = [psi_t, psi_x, psi_k] = [0, 0, 2].
  integer(c_int) function double_gain_jacobian(mode, ne, fired, time_event, nx, nz, np, nm, t, x, z, p, &
      mem, E, lde, user_data) bind(C)
    integer(c_int), value :: mode, time_event
    integer(esdirk_int), value :: ne, nx, nz, np, nm, lde
    integer(c_int), intent(in) :: fired(*)
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(np), mem(*)
    real(c_double), intent(inout) :: E(lde, *)
    type(c_ptr), value :: user_data
    E(1, 1:3) = [0.0_c_double, 0.0_c_double, 2.0_c_double]
    double_gain_jacobian = 0
  end function double_gain_jacobian
end module gain_model

program test_fortran_events_resets
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_events
  use esdirk_hybrid_adjoint
  use gain_model
  implicit none
  integer :: passed = 0, failed = 0
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr, objective = c_null_ptr
  real(c_double), parameter :: x0 = 1.3_c_double, k0 = 0.8_c_double, T = 2.5_c_double
  real(c_double) :: x(1), none(1), S(1, 2), Sp(1, 2), pk(1), t_reached, exact, dx0(1, 1), dp(1, 1), W(1, 1)
  real(c_double) :: seed(2, 2), p_minus(1), p_plus(1)
  integer(c_int) :: falling(1), rising(1), initial(1)
  type(esdirk_event) :: event

  falling = ESDIRK_EVENT_FALLING
  rising = ESDIRK_EVENT_RISING
  initial = 1
  seed = reshape([1.0_c_double, 0.0_c_double, 0.0_c_double, 1.0_c_double], [2, 2])
  exact = 2.0_c_double * x0**2 * exp(-2.0_c_double * k0 * T)
  call check(esdirk_hybrid_problem_create(1, 0, 1, 1, 0, c_funloc(decay), c_null_ptr, problem) == ESDIRK_SUCCESS, &
             "problem")
  call check(esdirk_hybrid_problem_set_events(problem, c_funloc(half), c_null_funptr) == ESDIRK_SUCCESS, "events")
  call check(esdirk_hybrid_problem_set_parameter_reset(problem, 2, c_funloc(double_gain), c_null_funptr) &
             == ESDIRK_INVALID_ARGUMENT, "a reset of the wrong length")
  call check(esdirk_hybrid_problem_set_parameter_reset(problem, 1, c_funloc(double_gain), &
             c_funloc(double_gain_jacobian)) == ESDIRK_SUCCESS, "parameter reset")
  call check(esdirk_hybrid_solver_create(problem, solver) == ESDIRK_SUCCESS, "solver")
  call check(esdirk_hybrid_solver_set_tolerances(solver, 1d-10, 1d-12) == ESDIRK_SUCCESS, "tolerances")
  call check(esdirk_hybrid_solver_set_event_directions(solver, falling, 1) == ESDIRK_SUCCESS, "directions")
  call check(esdirk_hybrid_solver_set_adjoint(solver, 1, 0_c_long) == ESDIRK_SUCCESS, "set_adjoint")
  call check(esdirk_hybrid_solver_initialize(solver, 0.0_c_double, 0, [x0], 1, none, 0, [k0], 1, none, 0) &
             == ESDIRK_SUCCESS, "initialize")
  call check(esdirk_hybrid_solver_start_sensitivities(solver, seed, 2, 2, 2) == ESDIRK_SUCCESS, "start")
  call check(esdirk_hybrid_solver_integrate_sensitivities_to(solver, T, x, 1, none, 0, S, 1, none, 1, 2, t_reached) &
             == ESDIRK_SUCCESS, "integrate")
  call check(abs(x(1) - exact) < 1d-8 * exact, "x(T) closed form")
  call check(abs(S(1, 1) - 4.0_c_double * x0 * exp(-2.0_c_double * k0 * T)) < 1d-7 * abs(S(1, 1)), "dx/dx0")
  call check(abs(S(1, 2) + 2.0_c_double * T * exact) < 1d-7 * abs(S(1, 2)), "dx/dk0 through the reset")
  call check(esdirk_hybrid_solver_get_parameters(solver, pk, 1, Sp, 1, 2) == ESDIRK_SUCCESS, "get_parameters")
  call check(pk(1) == 2.0_c_double * k0 .and. abs(Sp(1, 1)) < 1d-14 .and. abs(Sp(1, 2) - 2.0_c_double) < 1d-9, &
             "k(T) = 2 k0, dk/dk0 = 2")
  ! The log: the event record (its struct as C's: initial, cascade) and p either side.
  call check(esdirk_hybrid_solver_get_event(solver, 1, event) == ESDIRK_SUCCESS, "get_event")
  call check(event%initial == 0 .and. event%cascade == 0 .and. event%primary == 0 .and. event%iterations > 0, &
             "event record")
  call check(abs(event%t - log(2.0_c_double * x0) / k0) < 1d-9, "event time")
  call check(esdirk_hybrid_solver_get_event_parameters(solver, 1, p_minus, p_plus) == ESDIRK_SUCCESS, &
             "get_event_parameters")
  call check(p_minus(1) == k0 .and. p_plus(1) == 2.0_c_double * k0, "p either side of the event")
  call check(esdirk_hybrid_solver_get_event_parameters(solver, 2, p_minus, p_plus) == ESDIRK_INVALID_ARGUMENT, &
             "an index outside the log")

  ! The adjoint of x(T) against the forward sensitivities of the same run.
  W = 1.0_c_double
  call check(esdirk_hybrid_objective_create(1, objective) == ESDIRK_SUCCESS, "objective")
  call check(esdirk_hybrid_objective_set_terminal_weights(objective, W, 1, 1) == ESDIRK_SUCCESS, "weights")
  call check(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 1, 1, dp, 1, 1) == ESDIRK_SUCCESS, &
             "gradient")
  print '(a, 2es10.2)', "adjoint - forward: ", dx0(1, 1) - S(1, 1), dp(1, 1) - S(1, 2)
  call check(abs(dx0(1, 1) - S(1, 1)) < 1d-12 * abs(S(1, 1)), "adjoint dx0")
  call check(abs(dp(1, 1) - S(1, 2)) < 1d-12 * abs(S(1, 2)), "adjoint dk0")

  ! The same gain doubled by an initial event at t = 0.
  call check(esdirk_hybrid_solver_set_initial_events(solver, initial, 2) == ESDIRK_INVALID_ARGUMENT, "wrong n")
  call check(index(esdirk_hybrid_last_error_string(solver), "set_initial_events") > 0, "message")
  call check(esdirk_hybrid_solver_set_initial_events(solver, initial, 1) == ESDIRK_SUCCESS, "initial events")
  call check(esdirk_hybrid_solver_set_event_directions(solver, rising, 1) == ESDIRK_SUCCESS, "rising")
  call check(esdirk_hybrid_solver_initialize(solver, 0.0_c_double, 0, [x0], 1, none, 0, [k0], 1, none, 0) &
             == ESDIRK_SUCCESS, "initialize again")
  call check(esdirk_hybrid_solver_integrate_to(solver, T, x, 1, none, 0, t_reached) == ESDIRK_SUCCESS, "integrate")
  call check(abs(x(1) - x0 * exp(-2.0_c_double * k0 * T)) < 1d-8 * x(1), "initial event doubles the gain")
  call check(esdirk_hybrid_solver_get_event(solver, 1, event) == ESDIRK_SUCCESS, "get_event (initial)")
  call check(event%initial == 1 .and. event%t == 0.0_c_double, "the record says initial")

  ! The Zeno options: invalid values refused at once with a message, valid ones taken.
  call check(esdirk_hybrid_solver_set_zeno(solver, 2, 1d-9) == ESDIRK_INVALID_ARGUMENT, "zeno_intervals = 2")
  call check(index(esdirk_hybrid_last_error_string(solver), "zeno_intervals") > 0, "zeno message")
  call check(esdirk_hybrid_solver_set_zeno(solver, 8, -1d0) == ESDIRK_INVALID_ARGUMENT, "zeno tolerance < 0")
  call check(index(esdirk_hybrid_last_error_string(solver), "zeno_time_tolerance") > 0, "tolerance message")
  call check(esdirk_hybrid_solver_set_zeno(solver, 12, 1d-6) == ESDIRK_SUCCESS, "zeno options")
  call check(esdirk_hybrid_solver_initialize(solver, 0.0_c_double, 0, [x0], 1, none, 0, [k0], 1, none, 0) &
             == ESDIRK_SUCCESS, "initialize with the zeno options")

  call esdirk_hybrid_objective_free(objective)
  call esdirk_hybrid_solver_free(solver)
  call esdirk_hybrid_problem_free(problem)
  print '(i0, a, i0, a)', passed, " passed, ", failed, " failed"
  if (failed > 0) error stop 1

contains

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (condition) then
      passed = passed + 1
    else
      failed = failed + 1
      print '(2a)', "check failed: ", what
    end if
  end subroutine check

end program test_fortran_events_resets
