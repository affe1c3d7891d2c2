! The gradient of a least-squares fit of the Dow batch reactor by the discrete adjoint, through
! the Fortran modules esdirk and esdirk_adjoint: the Fortran version of examples/dow_adjoint_c.
! Synthetic data are the six concentrations at t = 1, 2, 5, 10 h of a run at rtol/1000 with the
! kinetic parameters 5 % higher; Phi = 1/2 sum ((u_i(t_k) - d_ik) / sigma_i)^2 at the nominal
! parameters. The gradient with respect to the 9 parameters and 6 initial states is one reverse
! sweep; the check: the forward sensitivities in all 15 directions (exact mode, kept out of the
! error test, so on the same steps), and esdirk_solver_check_gradient.
!
!     dow_adjoint_fortran
!
! Prints CHECK PASSED when every component agrees to 1e-10 relative (in practice ~1e-14).
program dow_adjoint_fortran
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_adjoint
  use esdirk_options
  use dow_model
  use fit_data
  use example_help
  implicit none
  integer(esdirk_int), parameter :: nx = 6, nz = 4, np = 9, ntheta = nx + np
  real(c_double), parameter :: rtol = 1d-6
  real(c_double) :: algebraic_atol(nz) = [1d-14, 1d-14, 1d-16, 1d-16]
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr, forward = c_null_ptr, truth = c_null_ptr
  type(c_ptr) :: objective = c_null_ptr
  real(c_double) :: z0(nz), x(nx), z(nz), dx0(nx, 1), dp(np), Sx(nx, ntheta), Sz(nz, ntheta), seed(ntheta, ntheta)
  real(c_double) :: gradient(ntheta), forward_gradient(ntheta), worst, check_worst, scale
  integer(c_int) :: passed
  character(len=160) :: summary
  character(len=4), parameter :: names(ntheta) = ["u1  ", "u2  ", "u3  ", "u4  ", "u5  ", "u6  ", "k1  ", &
      "k-1 ", "k2  ", "k3  ", "k-3 ", "K1  ", "K2  ", "K3  ", "Q+  "]
  integer :: i, j, k
  type(esdirk_adjoint_report) :: report

  call print_help_if_asked([character(len=96) :: &
      "usage: dow_adjoint_fortran", &
      "", &
      "The gradient of a least-squares fit of the Dow batch reactor by the adjoint through the", &
      "Fortran modules, checked against the forward sensitivities on the same steps.", &
      "", &
      "  --help       this text"])

  call require(esdirk_problem_create(nx, nz, np, c_funloc(dow_residual), c_null_ptr, problem), "problem")
  call require(esdirk_problem_set_jacobian(problem, c_funloc(dow_jacobian)), "jacobian")
  call require(esdirk_problem_set_parameter_jacobian(problem, c_funloc(dow_parameter_jacobian)), "jp")
  call dow_algebraic_start(z0)

  ! Synthetic data.
  call make_solver(truth, 1d-3 * rtol)
  call require(esdirk_solver_initialize(truth, 0d0, dow_x0, nx, z0, nz, 1.05d0 * dow_parameters, np), "truth")
  do k = 1, ntimes
    call require(esdirk_solver_set_stop_time(truth, times(k)), "stop time")
    call require(esdirk_solver_integrate_to(truth, times(k), x, nx, z, nz), "truth run")
    data(:, k) = x
  end do
  sigma = maxval(abs(data), dim=2) + 1d-3
  call esdirk_solver_free(truth)

  ! The recorded run and the adjoint gradient.
  call require(esdirk_objective_create(1, objective), "objective")
  call require(esdirk_objective_set_output_times(objective, times, ntimes, c_funloc(residual_gradient), &
               c_null_ptr), "output times")
  call make_solver(solver, rtol, record=.true.)
  call require(esdirk_solver_initialize(solver, 0d0, dow_x0, nx, z0, nz, dow_parameters, np), "initialize")
  do k = 1, ntimes
    call require(esdirk_solver_set_stop_time(solver, times(k)), "stop time")
    call require(esdirk_solver_integrate_to(solver, times(k), x, nx, z, nz), "integrate")
  end do
  call require(esdirk_solver_adjoint_gradient(solver, objective, dx0, nx, nx, dp, np, np), "adjoint_gradient")
  gradient = [dx0(:, 1), dp]
  call require(esdirk_solver_get_adjoint_report(solver, report), "report")
  call require(esdirk_solver_check_gradient(solver, objective, dx0, nx, nx, dp, np, np, 1d-10, 1, 0, check_worst, &
               passed, summary), "check_gradient")

  ! The forward check: all 15 directions.
  seed = 0d0
  do j = 1, ntheta
    seed(j, j) = 1d0
  end do
  forward_gradient = 0d0
  call make_solver(forward, rtol, forward_check=.true.)
  call require(esdirk_solver_initialize(forward, 0d0, dow_x0, nx, z0, nz, dow_parameters, np), "initialize")
  call require(esdirk_solver_start_sensitivities(forward, seed, ntheta, ntheta, ntheta), "start")
  do k = 1, ntimes
    call require(esdirk_solver_set_stop_time(forward, times(k)), "stop time")
    call require(esdirk_solver_integrate_sensitivities_to(forward, times(k), x, nx, z, nz, Sx, nx, Sz, nz, ntheta), &
                 "sensitivities")
    forward_gradient = forward_gradient + matmul((x - data(:, k)) / sigma**2, Sx)
  end do

  print '(a, i0, a)', "Dow least squares through Fortran, rtol 1e-6: ", report%adjoint_steps, " steps"
  print '(a8, 2a24, a11)', "variable", "adjoint", "forward", "rel. diff"
  worst = 0d0
  do j = 1, ntheta
    scale = max(abs(gradient(j)), abs(forward_gradient(j)))
    if (scale > 0d0) worst = max(worst, abs(gradient(j) - forward_gradient(j)) / scale)
    print '(a8, 2es24.14, es11.1)', names(j), gradient(j), forward_gradient(j), &
        merge(abs(gradient(j) - forward_gradient(j)) / scale, 0d0, scale > 0d0)
  end do
  print '(a, i0, a, i0, a)', "adjoint: ", report%stage_factorizations, " stage LUs, ", &
      report%transposed_solves, " transposed solves"
  print '(a)', trim(summary)
  print '(a, es9.2)', "worst relative difference ", worst
  if (worst <= 1d-10 .and. passed == 1) then
    print '(a)', "CHECK PASSED"
  else
    print '(a)', "CHECK FAILED"
  end if

  call esdirk_objective_free(objective)
  call esdirk_solver_free(forward)
  call esdirk_solver_free(solver)
  call esdirk_problem_free(problem)

contains

  ! A solver at `tolerance`; record: it records its runs for the adjoint; forward_check: exact
  ! sensitivities left out of the error test.
  subroutine make_solver(s, tolerance, record, forward_check)
    type(c_ptr), intent(inout) :: s
    real(c_double), intent(in) :: tolerance
    logical, intent(in), optional :: record, forward_check
    type(c_ptr) :: options
    options = c_null_ptr
    call require(esdirk_solver_create(problem, s), "solver_create")
    call require(esdirk_options_create(options), "options_create")
    call require(esdirk_options_set_tolerances(options, tolerance, 1d-6 * tolerance), "tolerances")
    call require(esdirk_options_set_algebraic_atol(options, algebraic_atol, nz), "algebraic atol")
    if (present(record)) then
      if (record) call require(esdirk_options_set_adjoint(options, 1, 0_c_long), "set_adjoint")
    end if
    if (present(forward_check)) then
      if (forward_check) call require(esdirk_options_set_sensitivity(options, ESDIRK_SENSITIVITY_EXACT, &
                                                                     ESDIRK_ERROR_CONTROL_OFF), "set_sensitivity")
    end if
    call require(esdirk_solver_set_options(s, options), "set_options")
    call esdirk_options_free(options)
  end subroutine make_solver

  subroutine require(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status < 0) then
      print '(4a)', "CHECK FAILED: ", what, ": ", esdirk_status_string(status)
      error stop 1
    end if
  end subroutine require
end program dow_adjoint_fortran
