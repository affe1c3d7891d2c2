! The bouncing ball of F. Schaefer, "Sensitivity Analysis of Hybrid Differential Equations"
! (a GSoC 2021 post, "the post" below) through the Fortran module: the impact time tau
! (the post: 0.99005)
! and the sensitivities of z(t_end = 1.9) with respect to (z0, v0, g, gamma), dz/dz0 = 0.84,
! checked against the closed form (the numbers examples/bouncing_ball and bouncing_ball_c print).
program bouncing_ball_fortran
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_events
  use esdirk_method, only: esdirk_hybrid_solver_method_name_string
  use esdirk_options
  use ball_model
  use example_help
  implicit none
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr, options = c_null_ptr
  real(c_double) :: x(2), none(0), Sx(2, 4), seed(4, 4), tau(4), t, S, tau_exact, s_after, reference(4)
  real(c_double) :: x_minus(2), x_plus(2)
  integer(c_int) :: status, fired(1)
  integer(c_int64_t) :: located, transitions
  integer(esdirk_int) :: logged
  type(esdirk_event) :: event
  logical :: all_ok = .true.
  integer :: k

  call print_help_if_asked([character(len=96) :: &
      "usage: bouncing_ball_fortran", &
      "", &
      "The bouncing ball through the Fortran module: the impact time and the sensitivities of", &
      "z(1.9), checked against the closed form.", &
      "", &
      "  --help       this text"])

  S = sqrt(v0**2 + 2d0 * gravity * z0)
  tau_exact = (v0 + S) / gravity
  s_after = t_end - tau_exact
  ! d z(t_end) / d(z0, v0, g, gamma) of z = gamma S s - g s^2 / 2, s = t_end - tau.
  reference(1) = (restitution * gravity * s_after - restitution * S + gravity * s_after) / S
  reference(4) = S * s_after

  call require(esdirk_hybrid_problem_create(2, 0, 2, 1, 0, c_funloc(flight), c_null_ptr, problem), "create")
  call require(esdirk_hybrid_problem_set_events(problem, c_funloc(ground), c_null_funptr), "events")
  call require(esdirk_hybrid_problem_set_transition(problem, c_funloc(impact), c_funloc(impact_jacobian)), "transition")
  call require(esdirk_hybrid_solver_create(problem, solver), "solver")
  call require(esdirk_options_create(options), "options")
  call require(esdirk_options_set_tolerances(options, 1d-10, 1d-12), "tolerances")
  call require(esdirk_hybrid_solver_set_options(solver, options), "set_options")
  call esdirk_options_free(options)
  call require(esdirk_hybrid_solver_set_event_directions(solver, [ESDIRK_EVENT_FALLING], 1), "directions")
  call require(esdirk_hybrid_solver_initialize(solver, 0d0, 0, [z0, v0], 2, none, 0, [gravity, restitution], 2, &
      none, 0), "initialize")
  seed = 0d0
  do k = 1, 4
    seed(k, k) = 1d0
  end do
  call require(esdirk_hybrid_solver_start_sensitivities(solver, seed, 4, 4, 4), "sensitivities")
  status = esdirk_hybrid_solver_integrate_sensitivities_to(solver, t_end, x, 2, none, 0, Sx, 2, none, 0, 4, t)
  call require(status, "integrate")

  print '(a)', "Bouncing ball through the Fortran module, " // esdirk_hybrid_solver_method_name_string(solver) // &
      ", rtol = 1e-10"
  print '(a)', ""
  call require(esdirk_hybrid_solver_get_event_count(solver, located, logged), "event count")
  call check(located == 1 .and. logged == 1 .and. status == ESDIRK_SUCCESS .and. t == t_end, &
      "one impact, t_end reached", real(located, c_double), 1d0)
  call require(esdirk_hybrid_solver_get_event(solver, 1, event), "event")
  call require(esdirk_hybrid_solver_get_event_vectors(solver, 1, fired, tau, x_minus, x_plus, none, none), "vectors")
  call check(abs(event%t - tau_exact) < 1d-12 .and. fired(1) == -1, "impact time tau (the post: 0.99005)", &
             event%t, tau_exact)
  call check(abs(x_plus(2) + restitution * x_minus(2)) < 1d-14, "v+ = -gamma v-", x_plus(2), -restitution * x_minus(2))
  call check(abs(tau(1) - 1d0 / S) < 1d-10, "d tau/dz0 = 1/S", tau(1), 1d0 / S)
  call check(abs(x(1) - (restitution * S * s_after - 0.5d0 * gravity * s_after**2)) < 1d-10, "z(t_end)", x(1), &
      restitution * S * s_after - 0.5d0 * gravity * s_after**2)
  call check(abs(Sx(1, 1) - reference(1)) < 1d-9, "dz(t_end)/dz0 (the post: 0.84)", Sx(1, 1), reference(1))
  call check(abs(Sx(1, 4) - reference(4)) < 1d-9, "dz(t_end)/dgamma = S s", Sx(1, 4), reference(4))
  call check(nint(Sx(1, 1) * 100d0) == 84, "dz(t_end)/dz0 rounded to 2 digits", &
      real(nint(Sx(1, 1) * 100d0), c_double) / 100d0, 0.84d0)
  call require(esdirk_hybrid_solver_get_counter(solver, "event_transitions", transitions), "counter")
  call check(transitions == 1, "counter event_transitions", real(transitions, c_double), 1d0)

  call esdirk_hybrid_solver_free(solver)
  call esdirk_hybrid_problem_free(problem)
  call check(.not. c_associated(solver) .and. .not. c_associated(problem), "handles freed and nulled", 0d0, 0d0)
  print '(a)', ""
  if (all_ok) then
    print '(a)', "CHECK PASSED"
  else
    print '(a)', "CHECK FAILED"
    stop 1
  end if

contains

  subroutine require(code, what)
    integer(c_int), intent(in) :: code
    character(len=*), intent(in) :: what
    if (code < 0) then
      print '(5a)', what, " failed: ", esdirk_status_string(code), " ", esdirk_hybrid_last_error_string(solver)
      print '(a)', "CHECK FAILED"
      stop 1
    end if
  end subroutine require

  subroutine check(ok, what, value, ref)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    real(c_double), intent(in) :: value, ref
    character(len=5) :: verdict
    verdict = "WRONG"
    if (ok) verdict = "ok"
    print '(2x, a44, es18.10, "  closed form", es18.10, 2x, a)', what, value, ref, trim(verdict)
    all_ok = all_ok .and. ok
  end subroutine check

end program bouncing_ball_fortran
