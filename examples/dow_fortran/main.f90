! The Dow Chemical batch reactor with the sensitivities to its nine parameters, through the
! esdirk Fortran module: the same run as examples/dow (C++) and examples/dow_c (C), printing the
! same lines, so the three can be compared digit by digit.
!
!     dow_fortran [paper]
program dow_fortran
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_options
  use dow_model
  use example_help
  implicit none
  integer(esdirk_int), parameter :: nx = 6, nz = 4, np = 9
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr, options = c_null_ptr
  real(c_double) :: rtol = 1.0d-6, z0(nz), x(nx), z(nz), Sx(nx, np), Sz(nz, np), seed(nx + np, np)
  real(c_double) :: algebraic_atol(nz) = [1d-14, 1d-14, 1d-16, 1d-16], m(3) = [1d0, 2d0, 5d0]
  real(c_double) :: worst_state, worst_sens, scale
  integer(c_int) :: mode = ESDIRK_SENSITIVITY_EXACT
  integer :: i, j, k
  character(len=16) :: argument

  call print_help_if_asked([character(len=96) :: &
      "usage: dow_fortran [paper]", &
      "", &
      "The Dow Chemical batch reactor with the sensitivities to its nine parameters through the", &
      "Fortran module (the numbers of the C++ and C examples).", &
      "", &
      "  paper        the IFAC 2005 paper's sensitivity mode instead of the exact one", &
      "  --help       this text"])

  if (command_argument_count() >= 1) then
    call get_command_argument(1, argument)
    if (argument == "paper") mode = ESDIRK_SENSITIVITY_PAPER
  end if

  call require(esdirk_problem_create(nx, nz, np, c_funloc(dow_residual), c_null_ptr, problem), "problem_create")
  call require(esdirk_problem_set_jacobian(problem, c_funloc(dow_jacobian)), "set_jacobian")
  call require(esdirk_problem_set_parameter_jacobian(problem, c_funloc(dow_parameter_jacobian)), &
               "set_parameter_jacobian")
  call require(esdirk_solver_create(problem, solver), "solver_create")
  call require(esdirk_options_create(options), "options_create")
  call require(esdirk_options_set_tolerances(options, rtol, 1d-6 * rtol), "set_tolerances")
  call require(esdirk_options_set_algebraic_atol(options, algebraic_atol, nz), "set_algebraic_atol")
  call require(esdirk_options_set_sensitivity(options, mode, ESDIRK_ERROR_CONTROL_DEFAULT), "set_sensitivity")
  call require(esdirk_solver_set_options(solver, options), "set_options")
  call esdirk_options_free(options)
  call dow_algebraic_start(z0)
  call require(esdirk_solver_initialize(solver, 0d0, dow_x0, nx, z0, nz, dow_parameters, np), "initialize")
  call require(esdirk_solver_set_stop_time(solver, 10d0), "set_stop_time")

  ! Seed columns p_j e_j in parameter space: scaled sensitivities p_j du/dp_j.
  seed = 0d0
  do j = 1, np
    seed(nx + j, j) = dow_parameters(j)
  end do
  call require(esdirk_solver_start_sensitivities(solver, seed, nx + np, np, nx + np), "start_sensitivities")

  ! The output grid of the C++ and C examples (10**k through pow, as C computes it).
  do k = -6, -2
    do i = 1, 3
      call require(esdirk_solver_integrate_sensitivities_to(solver, m(i) * 10d0**real(k, c_double), x, nx, &
                   z, nz, Sx, nx, Sz, nz, np), "integrate_sensitivities_to")
    end do
  end do
  do k = 1, 100
    call require(esdirk_solver_integrate_sensitivities_to(solver, 0.1d0 * k, x, nx, z, nz, Sx, nx, Sz, nz, np), &
                 "integrate_sensitivities_to")
  end do

  if (mode == ESDIRK_SENSITIVITY_EXACT) then
    print '(a)', "Dow batch reactor through the Fortran module, rtol 1.0e-06, exact mode"
  else
    print '(a)', "Dow batch reactor through the Fortran module, rtol 1.0e-06, paper mode"
  end if
  print '(/, a)', "states at t = 10 h"
  do i = 1, nx
    print '(a, i0, 1x, es24.17e2)', "u", i, x(i)
  end do
  do i = 1, nz
    print '(a, i0, 1x, es24.17e2)', "u", i + 6, z(i)
  end do
  print '(/, a)', "scaled sensitivities p_j du_i/dp_j at t = 10 h (rows u1..u10, columns k1 km1 k2 k3 km3 K1 K2 K3 Qp)"
  do i = 1, nx
    print '(a, i0, 9(1x, es24.17e2))', "u", i, Sx(i, :)
  end do
  do i = 1, nz
    print '(a, i0, 9(1x, es24.17e2))', "u", i + 6, Sz(i, :)
  end do
  ! The counters of the paper's Table 1, by their names in the library's counter table.
  print '(/, a)', "statistics"
  call print_counter("NSTEP", "steps")
  call print_counter("NFUN", "function_evaluations")
  call print_counter("NJAC", "jacobian_evaluations")
  call print_counter("NLU", "lu_factorizations")
  call print_counter("NBACK", "back_substitutions")
  call print_counter("NSENS", "sensitivity_solves")

  ! The linear invariants and their sensitivities.
  worst_state = max(abs(x(1) + x(3) + x(4) - 1.5776d0), abs(x(2) + x(3) + x(4) + x(5) - 8.32d0), &
                    abs(x(5) + x(6) - x(4) - 0.0131d0))
  worst_sens = 0d0
  do j = 1, np
    scale = maxval(abs(Sx(:, j)))
    worst_sens = max(worst_sens, abs(Sx(1, j) + Sx(3, j) + Sx(4, j)) / scale, &
                     abs(Sx(2, j) + Sx(3, j) + Sx(4, j) + Sx(5, j)) / scale, abs(Sx(5, j) + Sx(6, j) - Sx(4, j)) / scale)
  end do
  print '(/, a, es8.1, a, es8.1, a)', "invariant drift: states", worst_state, ", sensitivities", worst_sens, &
      " (relative to each column)"
  call esdirk_solver_free(solver)
  call esdirk_problem_free(problem)
  if (worst_state <= 1d-12 .and. worst_sens <= 1d-10 .and. z(1) > 0d0) then
    print '(a)', "CHECK PASSED"
  else
    print '(a)', "CHECK FAILED"
    error stop 1
  end if

contains

  subroutine print_counter(label, name)
    character(len=*), intent(in) :: label, name
    integer(c_int64_t) :: value
    call require(esdirk_solver_get_counter(solver, name, value), "get_counter")
    print '(a, 1x, i0)', label, value
  end subroutine print_counter

  subroutine require(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    ! A positive status is a normal stop (the last output time is the stop time), not a failure.
    if (status < 0) then
      print '(a, a, a, a, a, a)', what, " failed: ", esdirk_status_string(status), ": ", &
          esdirk_last_error_string(solver)
      error stop 1
    end if
  end subroutine require

end program dow_fortran
