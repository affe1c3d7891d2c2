! The Fortran module esdirk_adjoint on the oscillator x1' = x2, x2' = p1 (1 - x1^2) x2 - p2 x1:
! the adjoint gradient of C = x1(T) + x2(T)^2 / 2 against the forward sensitivities on the same
! steps, the reverse shooting interval against the forward one (with a running cost), the
! report and counters, and misuse (adjoint before a run, wrong sizes).
module oscillator_model
  use, intrinsic :: iso_c_binding
  use esdirk
  implicit none
contains
  integer(c_int) function residual(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    f(1) = x(2)
    f(2) = p(1) * (1.0_c_double - x(1)**2) * x(2) - p(2) * x(1)
    residual = 0
  end function residual

  integer(c_int) function jacobian(nx, nz, np, t, x, z, p, J, ldj, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, ldj
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: J(ldj, *)
    type(c_ptr), value :: user_data
    J(1, 1) = 0.0_c_double
    J(1, 2) = 1.0_c_double
    J(2, 1) = -2.0_c_double * p(1) * x(1) * x(2) - p(2)
    J(2, 2) = p(1) * (1.0_c_double - x(1)**2)
    jacobian = 0
  end function jacobian

  integer(c_int) function parameter_jacobian(nx, nz, np, t, x, z, p, Jp, ldjp, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, ldjp
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: Jp(ldjp, *)
    type(c_ptr), value :: user_data
    Jp(1, 1) = 0.0_c_double
    Jp(1, 2) = 0.0_c_double
    Jp(2, 1) = (1.0_c_double - x(1)**2) * x(2)
    Jp(2, 2) = -x(1)
    parameter_jacobian = 0
  end function parameter_jacobian

  ! dC/dx of C = x1 + x2^2 / 2 (one objective row).
  integer(c_int) function terminal(nx, nz, np, rows, t, x, z, p, dx, lddx, dz, lddz, dp, lddp, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, rows, lddx, lddz, lddp
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: dx(lddx, *), dz(lddz, *), dp(lddp, *)
    type(c_ptr), value :: user_data
    dx(1, 1) = 1.0_c_double
    dx(2, 1) = x(2)
    terminal = 0
  end function terminal

  ! h = x1^2 + u1 x2 and its gradients.
  integer(c_int) function cost(nx, nz, nu, t, x, z, u, h, hx, hz, hu, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, nu
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), u(*)
    real(c_double), intent(out) :: h, hx(nx), hz(*), hu(*)
    type(c_ptr), value :: user_data
    h = x(1)**2 + u(1) * x(2)
    hx(1) = 2.0_c_double * x(1)
    hx(2) = u(1)
    hu(1) = x(2)
    hu(2) = 0.0_c_double
    cost = 0
  end function cost
end module oscillator_model

program test_fortran_adjoint
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_adjoint
  use esdirk_method
  use oscillator_model
  implicit none
  integer :: passed = 0, failed = 0, j
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr, forward = c_null_ptr, objective = c_null_ptr
  type(c_ptr) :: fwd = c_null_ptr, rev = c_null_ptr
  real(c_double) :: x(2), none(1), p(2), x0(2), dx0(2, 1), dp(2), S(2, 4), seed(4, 4), expected(4)
  real(c_double) :: A(2, 2), B(2, 2), q(2), r(2), H, Hr, xr(2), lx(2, 1), w(1), gx(2, 1), gu(2, 1), zero(1, 1)
  real(c_double) :: worst, mesh(16), estimate, xf(2)
  integer(esdirk_int) :: n_points
  integer(c_int) :: check_passed
  character(len=120) :: summary
  integer(c_int64_t) :: steps, adjoint_steps
  type(esdirk_adjoint_report) :: report

  p = [1.5_c_double, 1.0_c_double]
  x0 = [2.0_c_double, 0.0_c_double]
  call check(esdirk_problem_create(2, 0, 2, c_funloc(residual), c_null_ptr, problem) == ESDIRK_SUCCESS, "problem")
  call check(esdirk_problem_set_jacobian(problem, c_funloc(jacobian)) == ESDIRK_SUCCESS, "jacobian")
  call check(esdirk_problem_set_parameter_jacobian(problem, c_funloc(parameter_jacobian)) == ESDIRK_SUCCESS, "jp")

  ! The recorded run and the gradient.
  call check(esdirk_objective_create(1, objective) == ESDIRK_SUCCESS, "objective")
  call check(esdirk_objective_set_terminal(objective, c_funloc(terminal), c_null_ptr) == ESDIRK_SUCCESS, "terminal")
  call check(esdirk_solver_create(problem, solver) == ESDIRK_SUCCESS, "solver")
  call check(esdirk_solver_set_tolerances(solver, 1d-7, 1d-9) == ESDIRK_SUCCESS, "tolerances")
  call check(esdirk_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2) == ESDIRK_WRONG_CALL_ORDER, &
             "gradient before a recording")
  call check(index(esdirk_last_error_string(solver), "set_adjoint") > 0, "message names set_adjoint")
  call check(esdirk_solver_set_adjoint(solver, 1, 0_c_long) == ESDIRK_SUCCESS, "set_adjoint")
  call check(esdirk_solver_initialize(solver, 0.0_c_double, x0, 2, none, 0, p, 2) == ESDIRK_SUCCESS, "initialize")
  call check(esdirk_solver_set_stop_time(solver, 2.0_c_double) == ESDIRK_SUCCESS, "stop time")
  call check(esdirk_solver_integrate_to(solver, 2.0_c_double, x, 2, none, 0) == ESDIRK_SUCCESS, "integrate")
  call check(esdirk_solver_adjoint_gradient(solver, objective, dx0, 3, 3, dp, 2, 2) == ESDIRK_INVALID_ARGUMENT, &
             "wrong nx")
  call check(esdirk_solver_adjoint_gradient(solver, objective, dx0, 2, 2, dp, 2, 2) == ESDIRK_SUCCESS, "gradient")

  ! The forward sensitivities on the same steps.
  seed = 0.0_c_double
  do j = 1, 4
    seed(j, j) = 1.0_c_double
  end do
  call check(esdirk_solver_create(problem, forward) == ESDIRK_SUCCESS, "forward")
  call check(esdirk_solver_set_tolerances(forward, 1d-7, 1d-9) == ESDIRK_SUCCESS, "tolerances")
  call check(esdirk_solver_set_sensitivity_options(forward, ESDIRK_SENSITIVITY_EXACT, ESDIRK_ERROR_CONTROL_OFF) &
             == ESDIRK_SUCCESS, "exact, off")
  call check(esdirk_solver_initialize(forward, 0.0_c_double, x0, 2, none, 0, p, 2) == ESDIRK_SUCCESS, "initialize")
  call check(esdirk_solver_start_sensitivities(forward, seed, 4, 4, 4) == ESDIRK_SUCCESS, "start")
  call check(esdirk_solver_set_stop_time(forward, 2.0_c_double) == ESDIRK_SUCCESS, "stop time")
  call check(esdirk_solver_integrate_sensitivities_to(forward, 2.0_c_double, x, 2, none, 0, S, 2, none, 1, 4) &
             == ESDIRK_SUCCESS, "sensitivities")
  do j = 1, 4
    expected(j) = S(1, j) + x(2) * S(2, j)
  end do
  worst = max(maxval(abs(dx0(:, 1) - expected(1:2))), maxval(abs(dp - expected(3:4)))) / maxval(abs(expected))
  print '(a, es9.2)', "adjoint against forward: ", worst
  call check(worst <= 1d-12, "gradient equals the forward sensitivities")
  call check(esdirk_solver_check_gradient(solver, objective, dx0, 2, 2, dp, 2, 2, 1d-12, 1, 0, worst, check_passed, &
             summary) == ESDIRK_SUCCESS, "check_gradient")
  call check(check_passed == 1 .and. worst <= 1d-12, "the gradient passes its own check")
  call check(index(summary, "passed") > 0, "summary: " // trim(summary))
  call check(esdirk_solver_get_adjoint_report(solver, report) == ESDIRK_SUCCESS, "report")
  call check(esdirk_solver_get_counter(forward, "accepted_steps", steps) == ESDIRK_SUCCESS, "steps")
  call check(report%adjoint_steps == steps, "one adjoint step per step")
  call check(report%stage_factorizations == &
             (esdirk_method_stages(esdirk_solver_method_name_string(solver), 0d0) - 1) * steps, &
             "one stage LU per implicit stage and step")
  call check(esdirk_solver_get_counter(solver, "adjoint_transposed_solves", adjoint_steps) == ESDIRK_SUCCESS, "ctr")
  call check(adjoint_steps == report%transposed_solves, "counter by name")

  ! The reverse shooting interval against the forward one (its sensitivities out of the error test).
  call check(esdirk_shooting_create(problem, fwd) == ESDIRK_SUCCESS, "shooting")
  call check(esdirk_reverse_shooting_create(problem, rev) == ESDIRK_SUCCESS, "reverse shooting")
  call check(esdirk_shooting_set_sensitivity_error_control(fwd, ESDIRK_ERROR_CONTROL_OFF) == ESDIRK_SUCCESS, "off")
  call check(esdirk_shooting_set_running_cost(fwd, c_funloc(cost), c_null_ptr) == ESDIRK_SUCCESS, "cost")
  call check(esdirk_reverse_shooting_set_running_cost(rev, c_funloc(cost), c_null_ptr) == ESDIRK_SUCCESS, "cost")
  lx(:, 1) = [0.7_c_double, -1.3_c_double]
  w = 0.5_c_double
  zero = 0.0_c_double
  call check(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, zero, 0, 1, w, 1, gx, 2, gu, 2, 2) &
             == ESDIRK_WRONG_CALL_ORDER, "products before an interval")
  call check(esdirk_shooting_integrate(fwd, 0.0_c_double, 0.6_c_double, x0, 2, p, 2, none, 0, x, none, &
                                       A, 2, B, 2, H, q, r) == ESDIRK_SUCCESS, "forward interval")
  call check(esdirk_reverse_shooting_integrate(rev, 0.0_c_double, 0.6_c_double, x0, 2, p, 2, none, 0, xr, none, Hr) &
             == ESDIRK_SUCCESS, "reverse interval")
  call check(all(xr == x), "the same steps")
  call check(esdirk_reverse_shooting_transpose_products(rev, lx, 2, 2, zero, 0, 1, w, 1, gx, 2, gu, 2, 2) &
             == ESDIRK_SUCCESS, "products")
  worst = max(maxval(abs(gx(:, 1) - (matmul(transpose(A), lx(:, 1)) + w(1) * q))), &
              maxval(abs(gu(:, 1) - (matmul(transpose(B), lx(:, 1)) + w(1) * r)))) / maxval(abs(gx))
  print '(a, es9.2)', "reverse shooting against forward: ", worst
  call check(worst <= 1d-12, "reverse products equal the forward ones")
  call check(esdirk_reverse_shooting_transpose_products(rev, lx, 3, 3, zero, 0, 1, w, 1, gx, 2, gu, 2, 2) &
             == ESDIRK_INVALID_ARGUMENT, "wrong nx")
  call check(index(esdirk_reverse_shooting_last_error_string(rev), "sizes") > 0, "message names the sizes")
  call check(esdirk_reverse_shooting_get_counter(rev, 0, "adjoint_steps", adjoint_steps) == ESDIRK_SUCCESS, "ctr")
  call check(esdirk_reverse_shooting_get_counter(rev, 0, "accepted_steps", steps) == ESDIRK_SUCCESS, "ctr")
  call check(adjoint_steps == steps, "one sweep")

  ! The forward interval on a fixed mesh of 8 equal steps; bad input named, the mesh kept.
  call check(esdirk_shooting_set_fixed_steps(fwd, 8) == ESDIRK_SUCCESS, "fixed steps")
  call check(esdirk_shooting_integrate(fwd, 0.0_c_double, 0.6_c_double, x0, 2, p, 2, none, 0, xf, none, &
                                       A, 2, B, 2, H, q, r) == ESDIRK_SUCCESS, "fixed-mesh interval")
  call check(esdirk_shooting_get_mesh(fwd, mesh, 16, n_points) == ESDIRK_SUCCESS, "mesh")
  call check(n_points == 9 .and. mesh(9) == 0.6_c_double, "9 points to 0.6")
  call check(esdirk_shooting_get_error_estimate(fwd, estimate) == ESDIRK_SUCCESS .and. estimate > 0d0, "estimate")
  call check(esdirk_shooting_set_fixed_steps(fwd, 0) == ESDIRK_INVALID_ARGUMENT, "0 steps refused")
  call check(index(esdirk_shooting_last_error_string(fwd), "steps = 0") > 0, "message names the steps")
  call check(esdirk_shooting_set_mesh(fwd, [0d0, 0.3d0, 0.2d0, 0.6d0], 4) == ESDIRK_INVALID_ARGUMENT, "not increasing")
  call check(esdirk_shooting_integrate(fwd, 0.0_c_double, 0.6_c_double, x0, 2, p, 2, none, 0, x, none, &
                                       A, 2, B, 2, H, q, r) == ESDIRK_SUCCESS, "the mesh kept")
  call check(all(x == xf), "the same fixed mesh")
  call check(esdirk_shooting_freeze_mesh(fwd) == ESDIRK_SUCCESS .and. esdirk_shooting_refresh_mesh(fwd) == ESDIRK_SUCCESS &
             .and. esdirk_shooting_use_adaptive_steps(fwd) == ESDIRK_SUCCESS, "mesh policies")

  call esdirk_reverse_shooting_free(rev)
  call check(.not. c_associated(rev), "freed")
  call esdirk_shooting_free(fwd)
  call esdirk_objective_free(objective)
  call check(.not. c_associated(objective), "objective freed")
  call esdirk_solver_free(forward)
  call esdirk_solver_free(solver)
  call esdirk_problem_free(problem)
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

end program test_fortran_adjoint
