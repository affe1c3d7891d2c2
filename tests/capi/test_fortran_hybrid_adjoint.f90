! The Fortran module esdirk_hybrid_adjoint on the bouncing ball z' = v, v' = -g, impact at z = 0
! (falling), v+ = -gamma v-; x = (z, v), p = (g, gamma): the adjoint gradient of
! Phi = (sum_k z(t_k), v(t_end)) over three outputs (two impacts) against the forward
! sensitivities of the same run, the report, the same gradient bit for bit with a memory budget,
! and misuse (gradient before a recording, wrong sizes, a negative budget).
module ball_model
  use, intrinsic :: iso_c_binding
  use esdirk
  implicit none
contains
  integer(c_int) function residual(mode, nx, nz, np, nm, t, x, z, p, mem, f, g, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    f(1) = x(2)
    f(2) = -p(1)
    residual = 0
  end function residual

  integer(c_int) function ground(mode, nx, nz, np, nm, ne, t, x, z, p, mem, h, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm, ne
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: h(ne)
    type(c_ptr), value :: user_data
    h(1) = x(1)
    ground = 0
  end function ground

  integer(c_int) function impact(mode, ne, fired, time_event, nx, nz, np, nm, t, x, z, p, mem, next_mode, &
      x_plus, user_data) bind(C)
    integer(c_int), value :: mode, time_event
    integer(esdirk_int), value :: ne, nx, nz, np, nm
    integer(c_int), intent(in) :: fired(*)
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    integer(c_int), intent(inout) :: next_mode
    real(c_double), intent(inout) :: x_plus(nx)
    type(c_ptr), value :: user_data
    x_plus(1) = x(1)
    x_plus(2) = -p(2) * x(2)
    impact = 0
  end function impact

  ! Row 1 of the objective: z at every output (k is 0-based).
  integer(c_int) function heights(k, nx, nz, np, rows, t, x, z, p, dx, lddx, dz, lddz, dp, lddp, user_data) bind(C)
    integer(esdirk_int), value :: k, nx, nz, np, rows, lddx, lddz, lddp
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: dx(lddx, *), dz(lddz, *), dp(lddp, *)
    type(c_ptr), value :: user_data
    dx(1, 1) = 1.0_c_double
    heights = 0
  end function heights
end module ball_model

program test_fortran_hybrid_adjoint
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_events
  use esdirk_hybrid_adjoint
  use esdirk_adjoint, only: esdirk_objective_create, esdirk_objective_set_outputs, &
                            esdirk_objective_set_terminal_weights, esdirk_objective_free
  use esdirk_method
  use ball_model
  implicit none
  integer :: passed = 0, failed = 0, j, k
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr, objective = c_null_ptr, one = c_null_ptr
  real(c_double) :: x(2), none(1), p(2), x0(2), dx0(2, 2), dp(2, 2), S(2, 4), seed(4, 4), forward(4, 2)
  real(c_double) :: W(2, 2), times(3), t, worst, cx0(2, 2), cp(2, 2)
  integer(c_int) :: directions(1)
  integer(esdirk_int) :: outputs
  integer(c_int64_t) :: events, adjoint_steps
  integer(esdirk_int) :: logged
  type(esdirk_hybrid_adjoint_report) :: report

  p = [10.0_c_double, 0.8_c_double]
  x0 = [5.0_c_double, -0.1_c_double]
  times = [0.5_c_double, 1.2_c_double, 2.9_c_double]
  directions = ESDIRK_EVENT_FALLING
  call check(esdirk_hybrid_problem_create(2, 0, 2, 1, 0, c_funloc(residual), c_null_ptr, problem) == ESDIRK_SUCCESS, &
             "problem")
  call check(esdirk_hybrid_problem_set_events(problem, c_funloc(ground), c_null_funptr) == ESDIRK_SUCCESS, "events")
  call check(esdirk_hybrid_problem_set_transition(problem, c_funloc(impact), c_null_funptr) == ESDIRK_SUCCESS, "reset")
  call check(esdirk_hybrid_solver_create(problem, solver) == ESDIRK_SUCCESS, "solver")
  call check(esdirk_hybrid_solver_set_tolerances(solver, 1d-10, 1d-12) == ESDIRK_SUCCESS, "tolerances")
  call check(esdirk_hybrid_solver_set_event_directions(solver, directions, 1) == ESDIRK_SUCCESS, "directions")

  ! The objective: row 1 = sum_k z(t_k) (outputs), row 2 = v(t_end) (terminal weights).
  W = 0.0_c_double
  W(2, 2) = 1.0_c_double
  call check(esdirk_hybrid_objective_create(2, objective) == ESDIRK_SUCCESS, "objective")
  call check(esdirk_hybrid_objective_set_outputs(objective, c_funloc(heights), c_null_ptr) == ESDIRK_SUCCESS, "outputs")
  call check(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 2) == ESDIRK_SUCCESS, "weights")
  call check(esdirk_hybrid_objective_set_terminal_weights(objective, W, 2, 1) == ESDIRK_INVALID_ARGUMENT, "ldw < n")
  call check(len(esdirk_hybrid_objective_last_error_string(objective)) > 0, "objective message")

  ! No recording yet.
  call check(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2) == ESDIRK_WRONG_CALL_ORDER, &
             "gradient before a recording")
  call check(index(esdirk_hybrid_last_error_string(solver), "set_adjoint") > 0, "message names set_adjoint")

  ! The recorded run, with forward sensitivities along (z0, v0, g, gamma) on the same steps.
  seed = 0.0_c_double
  do j = 1, 4
    seed(j, j) = 1.0_c_double
  end do
  call check(esdirk_hybrid_solver_set_adjoint(solver, 1, 0_c_long) == ESDIRK_SUCCESS, "set_adjoint")
  call check(esdirk_hybrid_solver_initialize(solver, 0.0_c_double, 0, x0, 2, none, 0, p, 2, none, 0) &
             == ESDIRK_SUCCESS, "initialize")
  call check(esdirk_hybrid_solver_start_sensitivities(solver, seed, 4, 4, 4) == ESDIRK_SUCCESS, "start")
  forward = 0.0_c_double
  do k = 1, 3
    call check(esdirk_hybrid_solver_integrate_sensitivities_to(solver, times(k), x, 2, none, 0, S, 2, none, 1, 4, t) &
               == ESDIRK_SUCCESS, "integrate")
    forward(:, 1) = forward(:, 1) + S(1, :)
  end do
  forward(:, 2) = S(2, :)
  call check(esdirk_hybrid_solver_get_event_count(solver, events, logged) == ESDIRK_SUCCESS, "events")
  call check(events == 2, "two impacts")
  call check(esdirk_hybrid_solver_adjoint_outputs(solver, outputs) == ESDIRK_SUCCESS .and. outputs == 3, "3 outputs")
  call check(esdirk_hybrid_solver_adjoint_output_time(solver, 2, t) == ESDIRK_SUCCESS .and. t == 2.9_c_double, &
             "output time")

  call check(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 3, 3, dp, 2, 2) == ESDIRK_INVALID_ARGUMENT, &
             "wrong nx")
  call check(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2) == ESDIRK_SUCCESS, "gradient")
  worst = 0.0_c_double
  do j = 1, 2
    worst = max(worst, max(maxval(abs(dx0(:, j) - forward(1:2, j))), maxval(abs(dp(:, j) - forward(3:4, j)))) &
                       / maxval(abs(forward(:, j))))
  end do
  print '(a, es9.2)', "hybrid adjoint against forward: ", worst
  call check(worst <= 1d-12, "gradient equals the forward sensitivities")

  ! The same objective through the one objective handle of the module esdirk_adjoint (the
  ! esdirk_hybrid_objective_* functions above are its deprecated names): the same gradient to
  ! the last bit.
  call check(esdirk_objective_create(2, one) == ESDIRK_SUCCESS, "one objective")
  call check(esdirk_objective_set_outputs(one, c_funloc(heights), c_null_ptr) == ESDIRK_SUCCESS, "one: outputs")
  call check(esdirk_objective_set_terminal_weights(one, W, 2, 2) == ESDIRK_SUCCESS, "one: weights")
  call check(esdirk_hybrid_solver_adjoint_gradient(solver, one, cx0, 2, 2, cp, 2, 2) == ESDIRK_SUCCESS, "one: gradient")
  call check(all(cx0 == dx0) .and. all(cp == dp), "one objective = the hybrid objective, bit for bit")
  call esdirk_objective_free(one)

  call check(esdirk_hybrid_solver_get_adjoint_report(solver, report) == ESDIRK_SUCCESS, "report")
  call check(report%segments == 3 .and. report%jumps == 2, "three segments, two jumps")
  call check(report%adjoint_steps == report%recorded_steps .and. report%recorded_outputs == 3, "one sweep")
  call check(esdirk_hybrid_solver_get_counter(solver, "adjoint_steps", adjoint_steps) == ESDIRK_SUCCESS, "counter")
  call check(adjoint_steps == report%adjoint_steps, "counter by name")

  ! A memory budget of 2 step records (25 doubles each): the same gradient to the last bit as
  ! every step kept, on the same steps. The run above had error-controlled forward sensitivities,
  ! which choose other steps, so the reference is a states-only run that keeps every step.
  call check(esdirk_hybrid_solver_initialize(solver, 0.0_c_double, 0, x0, 2, none, 0, p, 2, none, 0) &
             == ESDIRK_SUCCESS, "initialize")
  do k = 1, 3
    call check(esdirk_hybrid_solver_integrate_to(solver, times(k), x, 2, none, 0, t) == ESDIRK_SUCCESS, "integrate")
  end do
  call check(esdirk_hybrid_solver_adjoint_gradient(solver, objective, cx0, 2, 2, cp, 2, 2) == ESDIRK_SUCCESS, &
             "states-only gradient")
  ! Two step records of 5 + 5 s doubles (nx = 2, nz = 0), s of the method "auto" takes at 1e-10.
  call check(esdirk_hybrid_solver_set_adjoint(solver, 1, int(2 * (5 + 5 * esdirk_method_stages("auto", 1d-10)), &
             c_long)) == ESDIRK_SUCCESS, "budget")
  call check(esdirk_hybrid_solver_initialize(solver, 0.0_c_double, 0, x0, 2, none, 0, p, 2, none, 0) &
             == ESDIRK_SUCCESS, "initialize")
  do k = 1, 3
    call check(esdirk_hybrid_solver_integrate_to(solver, times(k), x, 2, none, 0, t) == ESDIRK_SUCCESS, "integrate")
  end do
  call check(esdirk_hybrid_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2) == ESDIRK_SUCCESS, &
             "checkpointed gradient")
  call check(all(dx0 == cx0) .and. all(dp == cp), "bit-identical with a budget")
  call check(esdirk_hybrid_solver_get_adjoint_report(solver, report) == ESDIRK_SUCCESS, "report")
  call check(report%stored_records == 2 .and. report%recomputed_steps > 0 .and. report%checkpoints > 0, &
             "checkpoints and replays")
  call check(esdirk_hybrid_solver_set_adjoint(solver, 1, -1_c_long) == ESDIRK_INVALID_ARGUMENT, "negative budget")

  call esdirk_hybrid_objective_free(objective)
  call check(.not. c_associated(objective), "objective freed")
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

end program test_fortran_hybrid_adjoint
