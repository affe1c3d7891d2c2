! The Fortran bindings of the Jacobian structure of hybrid problems (esdirk_sparse) and of the
! method setters of the hybrid solver, shooting and reverse shooting handles (esdirk_method), on
! a heated chain with a thermostat (test_capi_structure_handles.c has the same model): KLU with
! the analytic sparse Jacobian equals the dense run with the analytic dense one (events, states,
! sensitivities to 1e-12), the setters change the run, bad values are refused with a message and
! change nothing.
module thermostat_chain
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int
  implicit none
  integer, parameter :: n = 10, np = 2
  real(c_double), parameter :: c = 6.0_c_double
contains
  subroutine rates(mode, x, p, f)
    integer(c_int), intent(in) :: mode
    real(c_double), intent(in) :: x(n), p(np)
    real(c_double), intent(out) :: f(n)
    integer :: i
    real(c_double) :: left, right
    do i = 1, n
      left = 0.0_c_double
      right = 0.0_c_double
      if (i > 1) left = x(i - 1)
      if (i < n) right = x(i + 1)
      f(i) = c * (left - 2.0_c_double * x(i) + right) - p(1) * x(i)
      if (mode == 1 .and. i == 1) f(i) = f(i) + p(2)
    end do
  end subroutine rates

  integer(c_int) function residual(mode, nx, nz, npp, nm, t, x, z, p, mem, f, g, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, npp, nm
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    call rates(mode, x, p(1:np), f)
    residual = 0
  end function residual

  integer(c_int) function dense_jacobian(mode, nx, nz, npp, nm, t, x, z, p, mem, J, ld, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, npp, nm, ld
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(inout) :: J(ld, *)
    type(c_ptr), value :: user_data
    integer :: i
    J(1:n, 1:n) = 0.0_c_double
    do i = 1, n
      J(i, i) = -2.0_c_double * c - p(1)
      if (i > 1) J(i, i - 1) = c
      if (i < n) J(i, i + 1) = c
    end do
    dense_jacobian = 0
  end function dense_jacobian

  integer(c_int) function parameter_jacobian(mode, nx, nz, npp, nm, t, x, z, p, mem, Jp, ld, user_data) &
      bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, npp, nm, ld
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(inout) :: Jp(ld, *)
    type(c_ptr), value :: user_data
    Jp(1:n, 1) = -x(1:n)
    Jp(1:n, 2) = 0.0_c_double
    if (mode == 1) Jp(1, 2) = 1.0_c_double
    parameter_jacobian = 0
  end function parameter_jacobian

  ! values(k) belongs to row row_indices(k) + 1 of its column (0-based CSC from C).
  integer(c_int) function sparse_jacobian(mode, nx, nz, npp, nm, t, x, z, p, mem, nnz, column_pointers, &
      row_indices, values, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, npp, nm, nnz
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    integer(esdirk_int), intent(in) :: column_pointers(nx + nz + 1), row_indices(nnz)
    real(c_double), intent(inout) :: values(nnz)
    type(c_ptr), value :: user_data
    integer :: j, k
    do j = 1, nx
      do k = column_pointers(j) + 1, column_pointers(j + 1)
        if (row_indices(k) + 1 == j) then
          values(k) = -2.0_c_double * c - p(1)
        else
          values(k) = c
        end if
      end do
    end do
    sparse_jacobian = 0
  end function sparse_jacobian

  integer(c_int) function thermostat(mode, nx, nz, npp, nm, ne, t, x, z, p, mem, h, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, npp, nm, ne
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: h(ne)
    type(c_ptr), value :: user_data
    if (mode == 1) then
      h(1) = x(1) - 0.30_c_double
    else
      h(1) = x(1) - 0.15_c_double
    end if
    thermostat = 0
  end function thermostat

  integer(c_int) function switch_heater(mode, ne, fired, time_event, nx, nz, npp, nm, t, x, z, p, mem, &
      next_mode, x_plus, user_data) bind(C)
    integer(c_int), value :: mode, time_event
    integer(esdirk_int), value :: ne, nx, nz, npp, nm
    integer(c_int), intent(in) :: fired(*)
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    integer(c_int), intent(inout) :: next_mode
    real(c_double), intent(inout) :: x_plus(nx)
    type(c_ptr), value :: user_data
    next_mode = 1 - mode
    switch_heater = 0
  end function switch_heater

  ! The chain in mode 1 as a plain problem (the shooting handles).
  integer(c_int) function plain_residual(nx, nz, npp, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, npp
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    call rates(1_c_int, x, p(1:np), f)
    plain_residual = 0
  end function plain_residual
end module thermostat_chain

program test_fortran_structure_handles
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_events
  use esdirk_adjoint, only: esdirk_reverse_shooting_create, esdirk_reverse_shooting_free, &
                            esdirk_reverse_shooting_last_error_string
  use esdirk_method
  use esdirk_sparse
  use thermostat_chain
  implicit none
  integer, parameter :: max_events = 64
  integer :: passed = 0, failed = 0, i, j, k
  type(c_ptr) :: hp = c_null_ptr, problem = c_null_ptr, sh = c_null_ptr, rs = c_null_ptr
  type(c_ptr) :: hs = c_null_ptr, js = c_null_ptr  ! js: the hybrid problem's structure handle
  real(c_double) :: x_dense(n), x_klu(n), S_dense(n, np), S_klu(n, np), x_other(n), S_other(n, np)
  real(c_double) :: t_dense(max_events), t_klu(max_events), t_other(max_events)
  real(c_double) :: none(1), x0(n), p(np), xs_dense(n), xs_band(n), A_dense(n, n), A_band(n, n)
  real(c_double) :: B_dense(n, np), B_band(n, np), H
  integer(c_int64_t) :: events_dense, events_klu, events_other, steps_34, steps_436, value
  integer(esdirk_int) :: colptr(n + 1), rowind(3 * n), bad(3 * n), lower, upper, nnz
  integer(esdirk_int) :: missing, wrong, rows(2), cols(2)
  integer(c_int) :: kind
  character(len=:), allocatable :: name

  p = [0.5_c_double, 12.0_c_double]
  call check(esdirk_hybrid_problem_create(n, 0, np, 1, 0, c_funloc(residual), c_null_ptr, hp) &
             == ESDIRK_SUCCESS, "hybrid problem")
  call check(esdirk_hybrid_problem_set_events(hp, c_funloc(thermostat), c_null_funptr) == ESDIRK_SUCCESS, &
             "events")
  call check(esdirk_hybrid_problem_set_transition(hp, c_funloc(switch_heater), c_null_funptr) &
             == ESDIRK_SUCCESS, "transition")
  js = esdirk_hybrid_problem_jacobian_structure(hp)
  call check(c_associated(js), "structure handle")

  ! Dense with the analytic dense J, then KLU (1-based pattern) with the analytic sparse J.
  call check(esdirk_hybrid_problem_set_jacobians(hp, c_funloc(dense_jacobian), c_funloc(parameter_jacobian)) &
             == ESDIRK_SUCCESS, "dense J")
  call run_hybrid("ESDIRK34", .true., x_dense, S_dense, t_dense, events_dense, steps_34)
  k = 1
  do j = 1, n
    colptr(j) = k
    do i = max(1, j - 1), min(n, j + 1)
      rowind(k) = i
      k = k + 1
    end do
  end do
  colptr(n + 1) = k
  call check(esdirk_hybrid_problem_set_jacobians(hp, c_null_funptr, c_funloc(parameter_jacobian)) &
             == ESDIRK_SUCCESS, "no dense J")
  call check(esdirk_jacobian_structure_set_pattern_1based(js, colptr, rowind(1:k - 1), &
             ESDIRK_LINEAR_SOLVER_SPARSE) == ESDIRK_SUCCESS, "1-based pattern")
  call check(esdirk_hybrid_problem_set_sparse_jacobian(hp, c_funloc(sparse_jacobian)) == ESDIRK_SUCCESS, &
             "sparse J")
  call check(esdirk_jacobian_structure_get(js, kind, lower, upper, nnz, c_null_ptr, c_null_ptr, 0) == ESDIRK_SUCCESS, "get")
  call check(kind == ESDIRK_LINEAR_SOLVER_SPARSE .and. lower == 1 .and. upper == 1 .and. nnz == 3 * n - 2, &
             "KLU structure")
  call run_hybrid("ESDIRK34", .true., x_klu, S_klu, t_klu, events_klu, value)
  call check(events_dense >= 4 .and. events_klu == events_dense .and. value == steps_34, "same events, steps")
  call check(maxval(abs(t_klu(1:events_dense) - t_dense(1:events_dense))) <= 1d-12 * maxval(abs(t_dense)), &
             "event times: KLU = dense")
  call check(maxval(abs(x_klu - x_dense)) <= 1d-12 * maxval(abs(x_dense)), "x: KLU = dense")
  call check(maxval(abs(S_klu - S_dense)) <= 1d-12 * maxval(abs(S_dense)), "S: KLU = dense")
  ! Band LU with the same analytic sparse J.
  call check(esdirk_jacobian_structure_set_bandwidths(js, 1, 1) == ESDIRK_SUCCESS, "bandwidths")
  call run_hybrid("ESDIRK34", .true., x_other, S_other, t_other, events_other, value)
  call check(events_other == events_dense .and. maxval(abs(x_other - x_dense)) <= 1d-12 * maxval(abs(x_dense)) &
             .and. maxval(abs(S_other - S_dense)) <= 1d-12 * maxval(abs(S_dense)), "band = dense")

  ! The checker, mode by mode: the band holds both modes' entries, the analytic J is right.
  do i = 0, 1
    call check(esdirk_hybrid_problem_check_jacobian_pattern(hp, int(i, c_int), 0.0_c_double, x_dense, none, p, &
               none, 0.0_c_double, missing, rows, cols, 2, wrong) == ESDIRK_SUCCESS, "checker")
    call check(missing == 0 .and. wrong == 0, "pattern and J right in every mode")
  end do

  ! Method setters on the hybrid solver change the run; reuse refused with sensitivities.
  call run_hybrid("ESDIRK436", .false., x_other, S_other, t_other, events_other, steps_436)
  call check(steps_436 /= steps_34 .and. events_other == events_dense, "ESDIRK436 changes the steps")
  call check(esdirk_hybrid_solver_create(hp, hs) == ESDIRK_SUCCESS, "hybrid solver")
  call check(esdirk_hybrid_solver_set_method(hs, "ESDIRK547   ") == ESDIRK_SUCCESS, "trailing blanks dropped")
  call check(esdirk_hybrid_solver_method_name_string(hs) == "ESDIRK547", "method name")
  call check(esdirk_hybrid_solver_set_method(hs, "esdirk547") == ESDIRK_INVALID_ARGUMENT, "unknown method")
  call check(index(esdirk_hybrid_last_error_string(hs), "esdirk547") > 0, "message names it")
  call check(esdirk_hybrid_solver_method_name_string(hs) == "ESDIRK547", "method kept")
  call check(esdirk_hybrid_solver_set_tolerance_rule(hs, 3_c_int, 0.0_c_double) == ESDIRK_INVALID_ARGUMENT, &
             "unknown rule")
  call check(esdirk_hybrid_solver_set_tolerance_rule(hs, ESDIRK_TOLERANCE_RAW, 0.0_c_double) == ESDIRK_SUCCESS, &
             "raw rule")
  call check(esdirk_hybrid_solver_set_keep_step_ratio(hs, 2.0_c_double, 3.0_c_double) == ESDIRK_INVALID_ARGUMENT, &
             "bad keep ratio")
  call check(esdirk_hybrid_solver_set_jacobian_reuse(hs, 1_c_int, 2.0_c_double) == ESDIRK_INVALID_ARGUMENT, &
             "bad contraction")
  call check(esdirk_hybrid_solver_set_jacobian_reuse(hs, 1_c_int, 0.1_c_double) == ESDIRK_SUCCESS, "reuse")
  x0 = 0.0_c_double
  call check(esdirk_hybrid_solver_initialize(hs, 0.0_c_double, 1_c_int, x0, n, none, 0, p, np, none, 0) &
             == ESDIRK_SUCCESS, "initialize with reuse")
  call check(esdirk_hybrid_solver_start_sensitivities(hs, reshape([(0.0_c_double, i = 1, (n + np) * np)], &
             [n + np, np]), n + np, np, n + np) == ESDIRK_INVALID_ARGUMENT, "reuse refused with sensitivities")
  call check(index(esdirk_hybrid_last_error_string(hs), "reuse_jacobian") > 0, "reuse message")
  call esdirk_hybrid_solver_free(hs)

  ! Bad structures: a status, a message, the structure kept (banded 1, 1).
  call check(esdirk_jacobian_structure_set_bandwidths(js, -1, 1) == ESDIRK_INVALID_ARGUMENT, &
             "negative bandwidth")
  call check(index(esdirk_jacobian_structure_last_error(js), "lower -1") > 0, "bandwidth message")
  call check(esdirk_jacobian_structure_set_bandwidths(js, 1, n) == ESDIRK_INVALID_ARGUMENT, "bandwidth >= n")
  bad(1:k - 1) = rowind(1:k - 1)
  bad(2) = n + 1
  call check(esdirk_jacobian_structure_set_pattern_1based(js, colptr, bad(1:k - 1), &
             ESDIRK_LINEAR_SOLVER_SPARSE) == ESDIRK_INVALID_ARGUMENT, "row out of range")
  call check(index(esdirk_jacobian_structure_last_error(js), "outside") > 0, "range message")
  bad(2) = 1
  call check(esdirk_jacobian_structure_set_pattern_1based(js, colptr, bad(1:k - 1), &
             ESDIRK_LINEAR_SOLVER_SPARSE) == ESDIRK_INVALID_ARGUMENT, "duplicate row")
  call check(index(esdirk_jacobian_structure_last_error(js), "twice") > 0, "duplicate message")
  call check(esdirk_jacobian_structure_set_pattern_1based(js, colptr, rowind(1:k - 1), 9_c_int) &
             == ESDIRK_INVALID_ARGUMENT, "unknown back-end")
  call check(esdirk_jacobian_structure_get(js, kind, lower, upper, nnz, c_null_ptr, c_null_ptr, 0) == ESDIRK_SUCCESS, "get")
  call check(kind == ESDIRK_LINEAR_SOLVER_BANDED .and. lower == 1 .and. upper == 1, "structure kept")
  ! The Krylov settings on the hybrid problem's handle: checked against n, with their words.
  call check(esdirk_jacobian_structure_set_krylov(js, n + 1, 4, 0.05_c_double, 1d-3, 1) &
             == ESDIRK_INVALID_ARGUMENT, "hybrid Krylov dimension n + 1 refused")
  call check(index(esdirk_jacobian_structure_last_error(js), "Krylov dimension must be in [1, n]") > 0, &
             "hybrid Krylov message")
  call check(esdirk_jacobian_structure_set_krylov(js, n, 4, 0.05_c_double, 1.0_c_double, 1) &
             == ESDIRK_INVALID_ARGUMENT, "hybrid tolerance_with_derivatives 1 refused")
  call check(index(esdirk_jacobian_structure_last_error(js), "tolerance_with_derivatives must be in (0, 1)") > 0, &
             "hybrid tolerance_with_derivatives message")
  call check(esdirk_jacobian_structure_set_krylov(js, n, 4, 0.05_c_double, 1d-2, 1) == ESDIRK_SUCCESS, &
             "hybrid Krylov settings")
  call check(esdirk_jacobian_structure_clear(js) == ESDIRK_SUCCESS, "clear")
  call check(esdirk_jacobian_structure_get(js, kind, lower, upper, nnz, c_null_ptr, c_null_ptr, 0) == ESDIRK_SUCCESS, "get")
  call check(kind == ESDIRK_LINEAR_SOLVER_DENSE .and. nnz == n * n, "dense again")
  call esdirk_hybrid_problem_free(hp)

  ! The shooting handles: band = dense; method setters; reuse refused.
  call check(esdirk_problem_create(n, 0, np, c_funloc(plain_residual), c_null_ptr, problem) == ESDIRK_SUCCESS, &
             "plain problem")
  do i = 1, n
    x0(i) = 0.1_c_double * (i - 1)
  end do
  call shoot("ESDIRK34", xs_dense, A_dense, B_dense, steps_34)
  call check(esdirk_jacobian_structure_set_bandwidths(esdirk_problem_jacobian_structure(problem), 1, 1) &
             == ESDIRK_SUCCESS, "plain bandwidths")
  call shoot("ESDIRK34", xs_band, A_band, B_band, value)
  call check(value == steps_34 .and. maxval(abs(A_band - A_dense)) <= 1d-12 * maxval(abs(A_dense)) .and. &
             maxval(abs(B_band - B_dense)) <= 1d-12 * maxval(abs(B_dense)), "shooting: band = dense")
  call shoot("ESDIRK436", xs_band, A_band, B_band, steps_436)
  call check(steps_436 /= steps_34, "shooting: ESDIRK436 changes the steps")
  call check(esdirk_shooting_create(problem, sh) == ESDIRK_SUCCESS, "shooting")
  call check(esdirk_shooting_set_jacobian_reuse(sh, 1_c_int, 0.1_c_double) == ESDIRK_INVALID_ARGUMENT, &
             "shooting refuses reuse")
  call check(index(esdirk_shooting_last_error_string(sh), "states-only") > 0, "shooting reuse message")
  call check(esdirk_shooting_set_method(sh, "auto") == ESDIRK_SUCCESS, "auto")
  call check(esdirk_shooting_set_tolerances(sh, 1d-7, 1d-9) == ESDIRK_SUCCESS, "tolerances")
  call check(esdirk_shooting_integrate(sh, 0.0_c_double, 1.0_c_double, x0, n, p, np, none, 0, xs_band, none, &
             A_band, n, B_band, n, H, none, none) == ESDIRK_SUCCESS, "auto run")
  call check(esdirk_shooting_method_name_string(sh) == "ESDIRK436", "auto resolved by rtol")
  call esdirk_shooting_free(sh)
  call check(esdirk_reverse_shooting_create(problem, rs) == ESDIRK_SUCCESS, "reverse shooting")
  call check(esdirk_reverse_shooting_set_method(rs, "ESDIRK23") == ESDIRK_SUCCESS, "reverse method")
  call check(esdirk_reverse_shooting_set_method(rs, "BDF") == ESDIRK_INVALID_ARGUMENT, "reverse unknown")
  call check(index(esdirk_reverse_shooting_last_error_string(rs), "BDF") > 0, "reverse message")
  call check(esdirk_reverse_shooting_method_name_string(rs) == "ESDIRK23", "reverse method kept")
  call check(esdirk_reverse_shooting_set_jacobian_reuse(rs, 1_c_int, 0.1_c_double) == ESDIRK_INVALID_ARGUMENT, &
             "reverse refuses reuse")
  call check(esdirk_reverse_shooting_set_keep_step_ratio(rs, 0.9_c_double, 1.1_c_double) == ESDIRK_SUCCESS, &
             "reverse keep ratio")
  call check(esdirk_reverse_shooting_set_tolerance_rule(rs, ESDIRK_TOLERANCE_CALIBRATED, -1.0_c_double) &
             == ESDIRK_INVALID_ARGUMENT, "reverse bad factor")
  call esdirk_reverse_shooting_free(rs)
  call esdirk_problem_free(problem)

  print '(i0, " passed, ", i0, " failed")', passed, failed
  if (failed > 0) error stop 1

contains

  subroutine run_hybrid(method, sensitivities, x, S, times, events, steps)
    character(len=*), intent(in) :: method
    logical, intent(in) :: sensitivities
    real(c_double), intent(out) :: x(n), S(n, np), times(max_events)
    integer(c_int64_t), intent(out) :: events, steps
    type(c_ptr) :: solver
    type(esdirk_event) :: event
    real(c_double) :: seed(n + np, np), start(n), t_reached
    integer(esdirk_int) :: logged
    integer :: e
    solver = c_null_ptr
    start = 0.0_c_double
    seed = 0.0_c_double
    seed(n + 1, 1) = 1.0_c_double
    seed(n + 2, 2) = 1.0_c_double
    S = 0.0_c_double
    times = 0.0_c_double
    call check(esdirk_hybrid_solver_create(hp, solver) == ESDIRK_SUCCESS, "solver")
    call check(esdirk_hybrid_solver_set_tolerances(solver, 1d-7, 1d-9) == ESDIRK_SUCCESS, "tolerances")
    call check(esdirk_hybrid_solver_set_method(solver, method) == ESDIRK_SUCCESS, "method")
    call check(esdirk_hybrid_solver_initialize(solver, 0.0_c_double, 1_c_int, start, n, none, 0, p, np, none, 0) &
               == ESDIRK_SUCCESS, "initialize")
    if (sensitivities) then
      call check(esdirk_hybrid_solver_start_sensitivities(solver, seed, n + np, np, n + np) == ESDIRK_SUCCESS, &
                 "start sensitivities")
      call check(esdirk_hybrid_solver_integrate_sensitivities_to(solver, 3.0_c_double, x, n, none, 0, S, n, &
                 none, 0, np, t_reached) == ESDIRK_SUCCESS, "integrate sensitivities")
    else
      call check(esdirk_hybrid_solver_integrate_to(solver, 3.0_c_double, x, n, none, 0, t_reached) &
                 == ESDIRK_SUCCESS, "integrate")
    end if
    call check(esdirk_hybrid_solver_get_event_count(solver, events, logged) == ESDIRK_SUCCESS, "event count")
    do e = 1, min(int(logged), max_events)
      call check(esdirk_hybrid_solver_get_event(solver, e, event) == ESDIRK_SUCCESS, "event")
      times(e) = event%t
    end do
    call check(esdirk_hybrid_solver_get_counter(solver, "steps", steps) == ESDIRK_SUCCESS, "steps")
    call check(esdirk_hybrid_solver_method_name_string(solver) == method, "name of the method run")
    call esdirk_hybrid_solver_free(solver)
  end subroutine run_hybrid

  subroutine shoot(method, x, A, B, steps)
    character(len=*), intent(in) :: method
    real(c_double), intent(out) :: x(n), A(n, n), B(n, np)
    integer(c_int64_t), intent(out) :: steps
    type(c_ptr) :: shooting
    real(c_double) :: cost
    shooting = c_null_ptr
    call check(esdirk_shooting_create(problem, shooting) == ESDIRK_SUCCESS, "shooting")
    call check(esdirk_shooting_set_tolerances(shooting, 1d-7, 1d-9) == ESDIRK_SUCCESS, "tolerances")
    call check(esdirk_shooting_set_method(shooting, method) == ESDIRK_SUCCESS, "method")
    call check(esdirk_shooting_integrate(shooting, 0.0_c_double, 1.0_c_double, x0, n, p, np, none, 0, x, none, &
               A, n, B, n, cost, none, none) == ESDIRK_SUCCESS, "shoot")
    call check(esdirk_shooting_get_counter(shooting, 0_c_int, "steps", steps) == ESDIRK_SUCCESS, "steps")
    call check(esdirk_shooting_method_name_string(shooting) == method, "shooting method name")
    call esdirk_shooting_free(shooting)
  end subroutine shoot

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (condition) then
      passed = passed + 1
    else
      failed = failed + 1
      print '("check failed: ", a)', what
    end if
  end subroutine check
end program test_fortran_structure_handles
