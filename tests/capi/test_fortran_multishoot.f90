! The module esdirk_multishoot (and its setters in esdirk_method) against the DAE
! x' = -u z, 0 = z - x^2, whose intervals have the closed form x(t) = x0 / (1 + u x0 t): end
! states, A = dx/dx0, B = dx/du, one and two threads bit-identical, the running cost h = x + z
! with its integral and gradients, "auto" resolved after an evaluation, a failing interval, the
! estimation of u from exact data, and the bad input of every call with its message.
module multishoot_model
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int
  implicit none
contains
  recursive integer(c_int) function residual(nx, nz, np, t, x, z, u, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), u(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    residual = 0
    if (x(1) > 1d3) then  ! a recoverable failure: the model is not defined there
      residual = 1
      return
    end if
    f(1) = -u(1) * z(1)
    g(1) = z(1) - x(1)**2
  end function residual

  ! h = x + z: H = ln(s) / u + x0^2 d / s over an interval of length d, s = 1 + u x0 d.
  recursive integer(c_int) function running_cost(nx, nz, nu, t, x, z, u, value, dh_dx, dh_dz, dh_du, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, nu
    real(c_double), value :: t
    real(c_double), intent(in) :: x(*), z(*), u(*)
    real(c_double), intent(out) :: value
    real(c_double), intent(inout) :: dh_dx(*), dh_dz(*), dh_du(*)
    type(c_ptr), value :: user_data
    value = x(1) + z(1)
    dh_dx(1) = 1
    dh_dz(1) = 1
    dh_du(1) = 0
    running_cost = 0
  end function running_cost
end module multishoot_model

program test_fortran_multishoot
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf
  use esdirk
  use esdirk_method
  use esdirk_multishoot
  use multishoot_model
  implicit none
  integer, parameter :: n = 4
  integer :: passed = 0, failed = 0
  type(c_ptr) :: problem = c_null_ptr

  call check(esdirk_problem_create(1, 1, 1, c_funloc(residual), c_null_ptr, problem) == ESDIRK_SUCCESS, "problem")
  call intervals_match_the_closed_form()
  call running_cost_matches_the_closed_form()
  call method_setters()
  call a_failing_interval()
  call estimation_recovers_u()
  call bad_input()
  call esdirk_problem_free(problem)
  print '(i0, a, i0, a)', passed, " passed, ", failed, " failed"
  if (failed > 0) error stop 1

contains

  subroutine intervals_match_the_closed_form()
    real(c_double), parameter :: t_begin(n) = [0.0d0, 0.5d0, 1.0d0, 1.5d0], t_end(n) = [0.5d0, 1.0d0, 1.5d0, 2.0d0]
    real(c_double), parameter :: x(n) = [1.0d0, 0.8d0, 0.6d0, 0.5d0], u(n) = [2.0d0, 1.0d0, 0.5d0, 3.0d0]
    real(c_double) :: z_guess(n), x_end(n, 2), z_end(n), A(n, 2), B(n, 2), d, s
    integer(esdirk_int) :: status(n)
    type(c_ptr) :: ms
    integer :: threads, k
    z_guess = x**2
    do threads = 1, 2
      ms = c_null_ptr
      call check(esdirk_multishoot_create(problem, n, threads, ms) == ESDIRK_SUCCESS, "create")
      call check(esdirk_multishoot_set_tolerances(ms, 1d-9, 1d-12) == ESDIRK_SUCCESS, "tolerances")
      status = -99
      call check(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess, x_end=x_end(:, threads), &
                                            z_end=z_end, A=A(:, threads), B=B(:, threads), status=status) &
                 == ESDIRK_SUCCESS, "evaluate")
      do k = 1, n
        d = t_end(k) - t_begin(k)
        s = 1 + u(k) * x(k) * d
        call check(status(k) == ESDIRK_SUCCESS, "interval status")
        call check(abs(x_end(k, threads) - x(k) / s) < 1d-7, "x_end = x0 / s")
        call check(abs(z_end(k) - x_end(k, threads)**2) < 1d-9, "z_end = x_end^2")
        call check(abs(A(k, threads) - 1 / s**2) < 1d-6, "A = 1 / s^2")
        call check(abs(B(k, threads) + x(k)**2 * d / s**2) < 1d-6, "B = -x0^2 d / s^2")
      end do
      call esdirk_multishoot_free(ms)
      call check(.not. c_associated(ms), "free nulls the handle")
    end do
    call check(all(x_end(:, 1) == x_end(:, 2)), "x_end: 1 and 2 threads bit-identical")
    call check(all(A(:, 1) == A(:, 2)) .and. all(B(:, 1) == B(:, 2)), "A, B: 1 and 2 threads bit-identical")
  end subroutine intervals_match_the_closed_form

  subroutine running_cost_matches_the_closed_form()
    real(c_double), parameter :: t_begin(2) = [0.0d0, 1.0d0], t_end(2) = [1.0d0, 1.5d0]
    real(c_double), parameter :: x(2) = [1.0d0, 0.5d0], u(2) = [1.0d0, 2.0d0]
    real(c_double) :: H(2), q(2), r(2), x_end(2), d, s
    integer :: k
    type(c_ptr) :: ms
    ms = c_null_ptr
    call check(esdirk_multishoot_create(problem, 2, 2, ms) == ESDIRK_SUCCESS, "create")
    call check(esdirk_multishoot_set_tolerances(ms, 1d-10, 1d-12) == ESDIRK_SUCCESS, "tolerances")
    call check(esdirk_multishoot_set_running_cost(ms, c_funloc(running_cost), c_null_ptr) == ESDIRK_SUCCESS, &
               "running cost")
    call check(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, x**2, x_end=x_end, H=H, q=q, r=r) &
               == ESDIRK_SUCCESS, "evaluate with cost")
    do k = 1, 2
      d = t_end(k) - t_begin(k)
      s = 1 + u(k) * x(k) * d
      call check(abs(H(k) - (log(s) / u(k) + x(k)**2 * d / s)) < 1d-7, "H = ln(s)/u + x0^2 d/s")
      call check(abs(q(k) - (d / s + x(k) * d * (s + 1) / s**2)) < 1d-6, "q = dH/dx0")
      call check(abs(r(k) - (x(k) * d / (u(k) * s) - log(s) / u(k)**2 - x(k)**3 * d**2 / s**2)) < 1d-6, &
                 "r = dH/du")
    end do
    call esdirk_multishoot_free(ms)
  end subroutine running_cost_matches_the_closed_form

  subroutine method_setters()
    real(c_double) :: x_end(1), z(1), x_raw(1), x_ref(1)
    type(c_ptr) :: ms
    ms = c_null_ptr
    z = 1
    call check(esdirk_multishoot_create(problem, 1, 1, ms) == ESDIRK_SUCCESS, "create")
    call check(esdirk_multishoot_set_tolerances(ms, 1d-9, 1d-12) == ESDIRK_SUCCESS, "tolerances")
    call check(esdirk_multishoot_method_name_string(ms) == "auto", "before a run: the method set")
    call evaluate_one(ms, x_end)
    call check(esdirk_multishoot_method_name_string(ms) == "ESDIRK436", "auto at rtol 1e-9 -> ESDIRK436")
    call check(abs(x_end(1) - 0.5d0) < 1d-7, "x(1) = 1/2")
    call check(esdirk_multishoot_set_initial_step(ms, 1d-6) == ESDIRK_SUCCESS, "initial step")
    call evaluate_one(ms, x_end)
    call check(abs(x_end(1) - 0.5d0) < 1d-7, "a given first step: the same answer")
    call check(esdirk_multishoot_set_tolerances(ms, 1d-2, 1d-6) == ESDIRK_SUCCESS, "tolerances")
    call check(esdirk_multishoot_method_name_string(ms) == "auto", "an option changed: auto again")
    call evaluate_one(ms, x_ref)
    call check(esdirk_multishoot_method_name_string(ms) == "ESDIRK34", "auto at rtol 1e-2 -> ESDIRK34")
    call check(abs(x_ref(1) - 0.5d0) < 1d-2, "x(1) at 1e-2")
    call check(esdirk_multishoot_set_tolerances(ms, 1d-4, 1d-6) == ESDIRK_SUCCESS, "tolerances")
    call evaluate_one(ms, x_ref)
    call check(abs(x_ref(1) - 0.5d0) < 1d-3, "x(1) at 1e-4")

    ! The raw tolerance rule trusts rtol as it is: a larger error than the calibrated one.
    call check(esdirk_multishoot_set_tolerance_rule(ms, ESDIRK_TOLERANCE_RAW, 0.0_c_double) == ESDIRK_SUCCESS, "raw")
    call evaluate_one(ms, x_raw)
    call check(abs(x_raw(1) - 0.5d0) > abs(x_ref(1) - 0.5d0), "raw: a larger error")
    call check(esdirk_multishoot_set_tolerance_rule(ms, ESDIRK_TOLERANCE_CALIBRATED, 0.0_c_double) == ESDIRK_SUCCESS, &
               "calibrated")
    call check(esdirk_multishoot_set_method(ms, "ESDIRK547  ") == ESDIRK_SUCCESS, "ESDIRK547 (trailing blanks)")
    call evaluate_one(ms, x_end)
    call check(esdirk_multishoot_method_name_string(ms) == "ESDIRK547", "ESDIRK547 used")
    call check(esdirk_multishoot_set_method(ms, "auto") == ESDIRK_SUCCESS, "auto")
    call check(esdirk_multishoot_set_newton_test(ms, ESDIRK_NEWTON_CORRECTION, 0.03_c_double) == ESDIRK_SUCCESS, &
               "correction test")
    call check(esdirk_multishoot_set_difference_increment(ms, ESDIRK_DIFFERENCE_RELATIVE) == ESDIRK_SUCCESS, "relative")
    call check(esdirk_multishoot_set_keep_step_ratio(ms, 0.5_c_double, 2.0_c_double) == ESDIRK_SUCCESS, "keep")
    call evaluate_one(ms, x_end)
    call check(abs(x_end(1) - 0.5d0) < 1d-3, "other Newton test, increments, kept h: still x(1) = 1/2")
    call check(esdirk_multishoot_set_jacobian_reuse(ms, 0_c_int, 0.1_c_double) == ESDIRK_SUCCESS, "no reuse")

    ! Bad values: refused with a message.
    call check(esdirk_multishoot_set_jacobian_reuse(ms, 1_c_int, 0.1_c_double) == ESDIRK_INVALID_ARGUMENT, &
               "reuse refused")
    call check(index(esdirk_multishoot_last_error_string(ms), "states-only") > 0, "reuse message")
    call check(esdirk_multishoot_set_method(ms, "ESDIRK99") == ESDIRK_INVALID_ARGUMENT, "bad method")
    call check(index(esdirk_multishoot_last_error_string(ms), "ESDIRK99") > 0, "method message")
    call check(esdirk_multishoot_set_tolerance_rule(ms, 7_c_int, 0.0_c_double) == ESDIRK_INVALID_ARGUMENT, "bad rule")
    call check(index(esdirk_multishoot_last_error_string(ms), "ESDIRK_TOLERANCE_RAW") > 0, "rule message")
    call check(esdirk_multishoot_set_newton_test(ms, 3_c_int, 0.03_c_double) == ESDIRK_INVALID_ARGUMENT, "bad test")
    call check(esdirk_multishoot_set_keep_step_ratio(ms, 1.2_c_double, 1.0_c_double) == ESDIRK_INVALID_ARGUMENT, &
               "bad low")
    call check(esdirk_multishoot_set_difference_increment(ms, 2_c_int) == ESDIRK_INVALID_ARGUMENT, "bad increment")
    call check(index(esdirk_multishoot_last_error_string(ms), "ESDIRK_DIFFERENCE_RELATIVE") > 0, "increment message")
    call check(esdirk_multishoot_set_method(c_null_ptr, "auto") == ESDIRK_NULL_ARGUMENT, "method: NULL handle")
    call check(esdirk_multishoot_method_name_string(c_null_ptr) == "", "name of a NULL handle")
    call esdirk_multishoot_free(ms)
  end subroutine method_setters

  ! [0, 1] from x = 1 with u = 1: x(1) = 1/2.
  subroutine evaluate_one(ms, x_end)
    type(c_ptr), intent(in) :: ms
    real(c_double), intent(out) :: x_end(1)
    real(c_double) :: t0(1), t1(1), x(1), u(1), z(1)
    t0 = 0
    t1 = 1
    x = 1
    u = 1
    z = 1
    call check(esdirk_multishoot_evaluate(ms, t0, t1, x, u, z, x_end=x_end) == ESDIRK_SUCCESS, "evaluate")
  end subroutine evaluate_one

  ! One interval whose model fails everywhere (x > 1e3): its own status says so, the other is
  ! still evaluated, and the call returns the failing interval's status with a message.
  subroutine a_failing_interval()
    real(c_double), parameter :: t_begin(2) = [0.0d0, 0.0d0], t_end(2) = [1.0d0, 1.0d0]
    real(c_double), parameter :: x(2) = [1.0d0, 2d3], u(2) = [1.0d0, 1.0d0]
    real(c_double) :: x_end(2)
    integer(esdirk_int) :: status(2)
    integer(c_int) :: s
    type(c_ptr) :: ms
    ms = c_null_ptr
    x_end = -1
    status = -99
    call check(esdirk_multishoot_create(problem, 2, 2, ms) == ESDIRK_SUCCESS, "create")
    s = esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, x**2, x_end=x_end, status=status)
    call check(s /= ESDIRK_SUCCESS, "a failure reported")
    call check(status(1) == ESDIRK_SUCCESS .and. abs(x_end(1) - 0.5d0) < 1d-5, "the good interval evaluated")
    call check(status(2) == s, "the failing interval's status returned")
    call check(index(esdirk_multishoot_last_error_string(ms), "interval") > 0, "the message names the interval")
    call esdirk_multishoot_free(ms)
  end subroutine a_failing_interval

  ! One experiment, x measured (exactly) at t = 0, 0.5, 1, 1.5, 2 with u = 1.3 and x0 = 1 known:
  ! the estimate from u = 0.5 is 1.3 to the integration tolerance, identifiable.
  subroutine estimation_recovers_u()
    real(c_double), parameter :: truth = 1.3d0
    real(c_double) :: times(5), data(5), sigma(5), nodes(5), z_guess(4), theta(1), lower(1), upper(1), cost
    real(c_double) :: theta0(1)
    integer(esdirk_int) :: points(1), measured(1), identifiable(1), iterations, rank, converged, known(1)
    integer :: k
    type(c_ptr) :: ms
    ms = c_null_ptr
    theta0 = 0.5d0
    times = [(0.5d0 * k, k = 0, 4)]
    data = 1 / (1 + truth * times)
    sigma = 1d-2
    nodes = 1 / (1 + theta0(1) * times)  ! the start: the model chained at theta0
    z_guess = nodes(1:4)**2
    points = 5
    measured = 1  ! x(1), 1-based
    known = 1
    call check(esdirk_multishoot_create(problem, 4, 2, ms) == ESDIRK_SUCCESS, "create")
    call check(esdirk_multishoot_set_tolerances(ms, 1d-10, 1d-12) == ESDIRK_SUCCESS, "tolerances")
    call check(esdirk_multishoot_estimate(ms, 1, points, times, 1, measured, data, sigma, nodes, theta0, 1, theta, &
                                          z_guess=z_guess, initial_state_known=known, theta_lower=lower, &
                                          theta_upper=upper, identifiable=identifiable, iterations=iterations, &
                                          rank=rank, cost=cost, converged=converged) == ESDIRK_SUCCESS, "estimate")
    call check(abs(theta(1) - truth) < 1d-6, "u recovered")
    call check(lower(1) < theta(1) .and. theta(1) < upper(1) .and. upper(1) - lower(1) < 0.1d0, "confidence interval")
    call check(identifiable(1) == 1 .and. rank == 1 .and. converged == 1, "identifiable, rank 1, converged")
    call check(iterations > 0 .and. cost < 1d-8, "iterations, cost ~ 0")

    ! Inconsistent data: three points are two intervals, the handle has four.
    points = 3
    call check(esdirk_multishoot_estimate(ms, 1, points, times, 1, measured, data, sigma, nodes, theta0, 1, theta, &
                                          z_guess=z_guess) == ESDIRK_INVALID_ARGUMENT, "interval count")
    call check(index(esdirk_multishoot_last_error_string(ms), "intervals") > 0, "interval-count message")
    points = 5
    call check(esdirk_multishoot_estimate(ms, 1, points, times, 1, measured, data, sigma, nodes, theta0, 2, theta, &
                                          z_guess=z_guess) == ESDIRK_INVALID_ARGUMENT, "np")
    call check(index(esdirk_multishoot_last_error_string(ms), "np = 2") > 0, "np message")
    call check(esdirk_multishoot_estimate(ms, 1, points, times, 1, measured, data, sigma, nodes, theta0, 1, theta) &
               == ESDIRK_NULL_ARGUMENT, "z_guess required when nz > 0")
    call check(index(esdirk_multishoot_last_error_string(ms), "z_guess") > 0, "z_guess message")
    call esdirk_multishoot_free(ms)
  end subroutine estimation_recovers_u

  subroutine bad_input()
    real(c_double), parameter :: t_begin(2) = [0.0d0, 1.0d0], t_end(2) = [1.0d0, 2.0d0]
    real(c_double), parameter :: x(2) = [1.0d0, 0.5d0], u(2) = [1.0d0, 1.0d0]
    real(c_double) :: x_end(2), atol(2), x_nan(2)
    type(c_ptr) :: ms
    ms = c_null_ptr
    call check(esdirk_multishoot_create(c_null_ptr, 2, 1, ms) == ESDIRK_NULL_ARGUMENT, "NULL problem")
    call check(esdirk_multishoot_create(problem, 0, 1, ms) == ESDIRK_INVALID_ARGUMENT, "0 intervals")
    call check(esdirk_multishoot_create(problem, 2, 0, ms) == ESDIRK_INVALID_ARGUMENT, "0 threads")
    call check(.not. c_associated(ms), "no handle after a refusal")
    call check(esdirk_multishoot_set_tolerances(c_null_ptr, 1d-6, 1d-6) == ESDIRK_NULL_ARGUMENT, "NULL handle")
    call check(esdirk_multishoot_last_error_string(c_null_ptr) == "null multishoot handle", "NULL handle message")
    call check(esdirk_multishoot_evaluate(c_null_ptr, t_begin, t_end, x, u, x**2, x_end=x_end) &
               == ESDIRK_NULL_ARGUMENT, "evaluate: NULL handle")

    call check(esdirk_multishoot_create(problem, 2, 1, ms) == ESDIRK_SUCCESS, "create")
    call check(esdirk_multishoot_set_tolerances(ms, -1d0, 1d-6) == ESDIRK_INVALID_ARGUMENT, "negative rtol")
    call check(len(esdirk_multishoot_last_error_string(ms)) > 0, "tolerance message")
    call check(esdirk_multishoot_set_tolerances(ms, ieee_value(1d0, ieee_quiet_nan), 1d-6) == ESDIRK_INVALID_ARGUMENT, &
               "NaN rtol")
    call check(esdirk_multishoot_set_initial_step(ms, -1d-3) == ESDIRK_INVALID_ARGUMENT, "negative h0")
    call check(esdirk_multishoot_set_initial_step(ms, ieee_value(1d0, ieee_positive_inf)) == ESDIRK_INVALID_ARGUMENT, &
               "infinite h0")
    call check(index(esdirk_multishoot_last_error_string(ms), "h0") > 0, "h0 message")
    atol = 1d-6
    call check(esdirk_multishoot_set_algebraic_atol(ms, atol, 2) == ESDIRK_INVALID_ARGUMENT, "atol: wrong size")
    call check(index(esdirk_multishoot_last_error_string(ms), "nz = 1") > 0, "atol size message")
    call check(esdirk_multishoot_set_algebraic_atol(ms, atol, 1) == ESDIRK_SUCCESS, "atol")
    call check(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, x_end=x_end) == ESDIRK_NULL_ARGUMENT, &
               "z_guess required when nz > 0")
    call check(index(esdirk_multishoot_last_error_string(ms), "z_guess") > 0, "z_guess message")
    ! A NaN node state: a clear failure, and the handle still works afterwards.
    x_nan = [ieee_value(1d0, ieee_quiet_nan), 0.5d0]
    call check(esdirk_multishoot_evaluate(ms, t_begin, t_end, x_nan, u, x**2, x_end=x_end) /= ESDIRK_SUCCESS, &
               "NaN node state")
    call check(len(esdirk_multishoot_last_error_string(ms)) > 0, "NaN message")
    call check(esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, x**2, x_end=x_end) == ESDIRK_SUCCESS, &
               "the handle works afterwards")
    call check(abs(x_end(2) - 0.5d0 / 1.5d0) < 1d-5, "x_end after the failure")
    call esdirk_multishoot_free(ms)
    call esdirk_multishoot_free(ms)  ! a null handle: harmless
  end subroutine bad_input

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
end program test_fortran_multishoot
