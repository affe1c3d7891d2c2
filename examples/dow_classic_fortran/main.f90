! The Dow Chemical batch reactor written the old way in Fortran: one call of the classic driver
! (module esdirk_classic) from t = 0 to tend = 10 h with the nine scaled parameter
! sensitivities, vector tolerances (itol = 1), options and statistics in iwork/rwork, IDID.
! Prints the same lines of states, sensitivities and statistics as examples/dow_classic (C), so
! the two can be compared digit by digit (CTest example_dow_classic_fortran_equals_c).
program dow_classic_fortran
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_classic
  use dow_model
  use example_help
  implicit none
  integer(esdirk_int), parameter :: nx = 6, nz = 4, np = 9, n = nx + nz
  real(c_double), parameter :: algebraic_atol(nz) = [1d-14, 1d-14, 1d-16, 1d-16]
  real(c_double) :: t, tend, h, y(n), rtol(n), atol(n), S(n, np), sp(np, np)
  real(c_double) :: rwork(ESDIRK_CLASSIC_LRWORK), worst_state
  integer(esdirk_int) :: iwork(ESDIRK_CLASSIC_LIWORK)
  integer(c_int) :: idid, status
  integer :: i, j

  call print_help_if_asked([character(len=96) :: &
      "usage: dow_classic_fortran", &
      "", &
      "The Dow batch reactor by one call of the Fortran classic driver (esdirk_classic), with the", &
      "nine scaled parameter sensitivities.", &
      "", &
      "  --help       this text"])

  t = 0d0
  tend = 10d0
  h = 0d0  ! the integrator chooses the first step
  y(1:nx) = dow_x0
  call dow_algebraic_start(y(nx + 1:n))  ! a guess: made consistent by the call
  rtol = 1d-6
  atol(1:nx) = 1d-6 * 1d-6
  atol(nx + 1:n) = algebraic_atol
  S = 0d0  ! dx(0)/dp = 0
  sp = 0d0
  do j = 1, np
    sp(j, j) = dow_parameters(j)  ! directions p_j e_j: scaled sensitivities
  end do
  iwork = 0  ! defaults: exact sensitivities under error control
  rwork = 0d0

  status = esdirk_classic_sensitivities(nx, nz, np, c_funloc(dow_residual), c_funloc(dow_jacobian), &
      c_funloc(dow_parameter_jacobian), c_null_ptr, t, y, dow_parameters, tend, h, rtol, atol, 1_c_int, &
      np, S, n, sp, np, iwork, ESDIRK_CLASSIC_LIWORK, rwork, ESDIRK_CLASSIC_LRWORK, idid)
  if (idid < 0 .or. status /= idid) then
    print '(a, i0, a, a, a, a)', "esdirk_classic_sensitivities: IDID ", idid, " (", esdirk_status_string(idid), &
        "): ", esdirk_classic_last_error_string()
    print '(a)', "CHECK FAILED"
    error stop 1
  end if

  print '(a, i0)', "Dow batch reactor through the Fortran classic driver, rtol 1.0e-06, exact mode, IDID ", idid
  print '(/, a)', "states at t = 10 h"
  do i = 1, n
    print '(a, i0, 1x, es24.17e2)', "u", i, y(i)
  end do
  print '(/, a)', "scaled sensitivities p_j du_i/dp_j at t = 10 h (rows u1..u10, columns k1 km1 k2 k3 km3 K1 K2 K3 Qp)"
  do i = 1, n
    print '(a, i0, 9(1x, es24.17e2))', "u", i, S(i, :)
  end do
  print '(/, a)', "statistics (iwork)"
  print '(a, i0)', "NSTEP ", iwork(ESDIRK_IWORK_NSTEP)
  print '(a, i0)', "NFUN ", iwork(ESDIRK_IWORK_NFUN)
  print '(a, i0)', "NJAC ", iwork(ESDIRK_IWORK_NJAC)
  print '(a, i0)', "NLU ", iwork(ESDIRK_IWORK_NLU)
  print '(a, i0)', "NBACK ", iwork(ESDIRK_IWORK_NBACK)
  print '(a, i0)', "NSENS ", iwork(ESDIRK_IWORK_NSENS)
  print '(a, i0)', "NACCEPT ", iwork(ESDIRK_IWORK_NACCEPT)
  print '(a, i0)', "NREJECT ", iwork(ESDIRK_IWORK_NREJECT)

  ! The linear invariants of the states.
  worst_state = max(abs(y(1) + y(3) + y(4) - 1.5776d0), abs(y(2) + y(3) + y(4) + y(5) - 8.32d0), &
                    abs(y(5) + y(6) - y(4) - 0.0131d0))
  print '(/, a, es8.1)', "invariant drift: states", worst_state
  if (idid == ESDIRK_CLASSIC_TEND_REACHED .and. t == tend .and. worst_state <= 1d-12 .and. &
      iwork(ESDIRK_IWORK_NSENS) == iwork(ESDIRK_IWORK_NACCEPT) .and. rwork(ESDIRK_RWORK_HLAST) > 0d0 .and. &
      len(esdirk_classic_last_error_string()) == 0) then
    print '(a)', "CHECK PASSED"
  else
    print '(a)', "CHECK FAILED"
    error stop 1
  end if
end program dow_classic_fortran
