! The Fortran module against the DAE x' = -z, 0 = z - x^2 (x = 1/(1+t), z = x^2), with an
! analytic Jacobian, a call counter in user_data, statistics, statuses and misuse.
module hyperbola_model
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
    integer(c_long), pointer :: calls
    call c_f_pointer(user_data, calls)
    calls = calls + 1
    f(1) = -z(1)
    g(1) = z(1) - x(1)**2
    residual = 0
  end function residual

  integer(c_int) function jacobian(nx, nz, np, t, x, z, p, J, ldj, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, ldj
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: J(ldj, *)
    type(c_ptr), value :: user_data
    J(1, 1) = 0.0_c_double       ! df/dx
    J(1, 2) = -1.0_c_double      ! df/dz
    J(2, 1) = -2.0_c_double * x(1)
    J(2, 2) = 1.0_c_double
    jacobian = 0
  end function jacobian
end module hyperbola_model

program test_fortran_core
  use, intrinsic :: iso_c_binding
  use esdirk
  use hyperbola_model
  implicit none
  integer :: passed = 0, failed = 0, k
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr
  integer(c_long), target :: calls = 0
  real(c_double) :: x(1), z(1), t, none(1)
  type(esdirk_statistics) :: stats

  call check(esdirk_problem_create(1, 1, 0, c_funloc(residual), c_loc(calls), problem) == ESDIRK_SUCCESS, "create")
  call check(esdirk_problem_set_jacobian(problem, c_funloc(jacobian)) == ESDIRK_SUCCESS, "jacobian")
  call check(esdirk_solver_create(problem, solver) == ESDIRK_SUCCESS, "solver")
  call check(esdirk_solver_set_tolerances(solver, 1d-9, 1d-9) == ESDIRK_SUCCESS, "tolerances")
  x = 1.0_c_double
  z = 3.0_c_double
  call check(esdirk_solver_initialize(solver, 0.0_c_double, x, 1, z, 1, none, 0) == ESDIRK_SUCCESS, "initialize")
  do k = 1, 4
    call check(esdirk_solver_integrate_to(solver, 0.5_c_double * k, x, 1, z, 1) == ESDIRK_SUCCESS, "integrate")
    call check(abs(x(1) - 1.0_c_double / (1.0_c_double + 0.5_c_double * k)) < 1d-7, "x exact")
    call check(abs(z(1) - 1.0_c_double / (1.0_c_double + 0.5_c_double * k)**2) < 1d-7, "z exact")
  end do
  call check(esdirk_solver_get_state(solver, t, x, 1, z, 1) == ESDIRK_SUCCESS, "state")
  call check(t >= 2.0_c_double, "time reached")
  call check(esdirk_solver_get_statistics(solver, stats) == ESDIRK_SUCCESS, "statistics")
  call check(stats%function_evaluations == calls, "evaluations counted")
  call check(stats%steps == stats%accepted_steps + stats%rejected_steps + stats%newton_failures &
             + stats%callback_failures, "steps add up")
  ! Misuse: sizes that do not match, an output time behind.
  call check(esdirk_solver_integrate_to(solver, 3.0_c_double, x, 2, z, 1) == ESDIRK_INVALID_ARGUMENT, "sizes")
  call check(index(esdirk_last_error_string(solver), "do not match") > 0, "message")
  call check(esdirk_solver_integrate_to(solver, 1.0_c_double, x, 1, z, 1) == ESDIRK_INVALID_ARGUMENT, "behind")
  call check(esdirk_status_string(ESDIRK_CALLBACK_FATAL) == "callback_fatal", "status name")
  call esdirk_solver_free(solver)
  call check(.not. c_associated(solver), "solver nulled")
  call esdirk_problem_free(problem)
  call check(.not. c_associated(problem), "problem nulled")
  call check(esdirk_solver_step(solver, 1.0_c_double) == ESDIRK_NULL_ARGUMENT, "null handle")

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
      print '(a, a)', "check failed: ", what
    end if
  end subroutine check
end program test_fortran_core
