! The module esdirk_method against the DAE x' = -z, 0 = z - x^2 (x = 1/(1+t)): the raw rule
! against the calibrated one, "auto" resolved by rtol, Jacobian reuse in its counter, and bad
! values refused with the options kept; a matrix-free Newton-Krylov run with the exact J v and a
! user preconditioner (module esdirk_sparse) against the direct run; the same DAE as a one-mode
! hybrid problem with the hybrid Krylov callbacks, which get the mode, and the sensitivities'
! Krylov stage-solve settings.
module method_model
  use, intrinsic :: iso_c_binding
  use esdirk
  implicit none
  integer(c_int64_t) :: products = 0, setups = 0, solves = 0
  integer(c_int64_t) :: hybrid_products = 0, hybrid_setups = 0, wrong_modes = 0
  real(c_double) :: inverse(2, 2) = 0
contains
  integer(c_int) function residual(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    f(1) = -z(1)
    g(1) = z(1) - x(1)**2
    residual = 0
  end function residual

  ! Matrix-free Newton-Krylov: the exact J v of J = [0 -1; -2x 1], and a preconditioner that is
  ! M = E - h_gamma J itself (from the J the setup receives), inverted in closed form.
  integer(c_int) function times_jacobian(nx, nz, np, t, x, z, p, v, out, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), v(nx + nz)
    real(c_double), intent(out) :: out(nx + nz)
    type(c_ptr), value :: user_data
    products = products + 1
    out(1) = -v(2)
    out(2) = -2 * x(1) * v(1) + v(2)
    times_jacobian = 0
  end function times_jacobian

  integer(c_int) function setup(nx, nz, np, t, x, z, p, h_gamma, nnz, column_pointers, &
      row_indices, values, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, nnz
    real(c_double), value :: t, h_gamma
    real(c_double), intent(in) :: x(nx), z(*), p(*), values(nnz)
    integer(esdirk_int), intent(in) :: column_pointers(nx + nz + 1), row_indices(nnz)
    type(c_ptr), value :: user_data
    real(c_double) :: m(2, 2), det
    setups = setups + 1
    ! The full 2 x 2 pattern, rows sorted: values = J(1,1), J(2,1), J(1,2), J(2,2).
    m(1, 1) = 1 - h_gamma * values(1)
    m(2, 1) = values(2)
    m(1, 2) = -h_gamma * values(3)
    m(2, 2) = values(4)
    det = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1)
    inverse = reshape([m(2, 2), -m(2, 1), -m(1, 2), m(1, 1)], [2, 2]) / det
    setup = 0
  end function setup

  integer(c_int) function solve(nx, nz, r, out, transpose, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz
    real(c_double), intent(in) :: r(nx + nz)
    real(c_double), intent(out) :: out(nx + nz)
    integer(c_int), value :: transpose
    type(c_ptr), value :: user_data
    solves = solves + 1
    if (transpose /= 0) then
      out = matmul(transpose_of(inverse), r)
    else
      out = matmul(inverse, r)
    end if
    solve = 0
  end function solve

  ! The hybrid twins (mode 3, no memory): the plain callbacks, counting calls and wrong modes.
  integer(c_int) function hybrid_residual(mode, nx, nz, np, nm, t, x, z, p, mem, f, g, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    hybrid_residual = residual(nx, nz, np, t, x, z, p, f, g, user_data)
  end function hybrid_residual

  integer(c_int) function hybrid_times_jacobian(mode, nx, nz, np, nm, t, x, z, p, mem, v, out, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*), v(nx + nz)
    real(c_double), intent(out) :: out(nx + nz)
    type(c_ptr), value :: user_data
    if (mode /= 3 .or. nm /= 0) wrong_modes = wrong_modes + 1
    hybrid_products = hybrid_products + 1
    hybrid_times_jacobian = times_jacobian(nx, nz, np, t, x, z, p, v, out, user_data)
  end function hybrid_times_jacobian

  integer(c_int) function hybrid_setup(mode, nx, nz, np, nm, t, x, z, p, mem, h_gamma, nnz, column_pointers, &
      row_indices, values, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm, nnz
    real(c_double), value :: t, h_gamma
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*), values(nnz)
    integer(esdirk_int), intent(in) :: column_pointers(nx + nz + 1), row_indices(nnz)
    type(c_ptr), value :: user_data
    if (mode /= 3 .or. nm /= 0) wrong_modes = wrong_modes + 1
    hybrid_setups = hybrid_setups + 1
    hybrid_setup = setup(nx, nz, np, t, x, z, p, h_gamma, nnz, column_pointers, row_indices, values, user_data)
  end function hybrid_setup

  pure function transpose_of(a) result(b)
    real(c_double), intent(in) :: a(2, 2)
    real(c_double) :: b(2, 2)
    b = transpose(a)
  end function transpose_of
end module method_model

program test_fortran_method
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_method
  use esdirk_options
  use esdirk_events, only: esdirk_hybrid_problem_create, esdirk_hybrid_problem_free, esdirk_hybrid_solver_create, &
      esdirk_hybrid_solver_free, esdirk_hybrid_solver_set_tolerances, esdirk_hybrid_solver_initialize, &
      esdirk_hybrid_solver_integrate_to, esdirk_hybrid_solver_get_counter
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use esdirk_sparse, only: esdirk_problem_jacobian_structure, esdirk_jacobian_structure_set_pattern, &
      esdirk_jacobian_structure_set_krylov, esdirk_jacobian_structure_set_krylov_options, &
      esdirk_jacobian_structure_last_error, esdirk_problem_set_krylov_callbacks, ESDIRK_LINEAR_SOLVER_KRYLOV, &
      esdirk_hybrid_problem_jacobian_structure, esdirk_hybrid_problem_set_krylov_callbacks, &
      esdirk_jacobian_structure_set_krylov_sensitivity, &
      ESDIRK_KRYLOV_PRECONDITIONER_ILU0
  use method_model
  implicit none
  integer :: passed = 0, failed = 0
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr, options = c_null_ptr, structure = c_null_ptr
  type(c_ptr) :: hybrid = c_null_ptr, hybrid_solver = c_null_ptr, hybrid_structure = c_null_ptr
  real(c_double) :: t_reached
  real(c_double) :: bad_terms(4)
  integer :: k
  integer(c_int64_t) :: steps_calibrated, steps_raw, steps, reuses, iterations_rate, iterations_correction
  integer(c_int64_t) :: counted
  real(c_double) :: x_direct
  integer(esdirk_int) :: pointers(3) = [0, 2, 4], rows(4) = [0, 1, 0, 1]
  real(c_double) :: error_calibrated, error_raw, error, x(1), z(1), none(1)

  call check(esdirk_problem_create(1, 1, 0, c_funloc(residual), c_null_ptr, problem) == ESDIRK_SUCCESS, "create")
  call check(esdirk_solver_create(problem, solver) == ESDIRK_SUCCESS, "solver")
  call check(esdirk_solver_method_name_string(solver) == "auto", "default method")

  call run(1d-8, error_calibrated, steps_calibrated)
  call check(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_RAW, 0.0_c_double) == ESDIRK_SUCCESS, "raw")
  call run(1d-8, error_raw, steps_raw)
  call check(steps_raw < steps_calibrated, "raw: fewer steps")
  call check(error_raw > 3 * error_calibrated, "raw: larger error")
  call check(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_CALIBRATED, 0.0_c_double) == ESDIRK_SUCCESS, &
             "calibrated")

  call check(esdirk_solver_set_method(solver, "ESDIRK34") == ESDIRK_SUCCESS, "ESDIRK34")
  call run(1d-8, error, steps)
  call check(esdirk_solver_method_name_string(solver) == "ESDIRK34", "ESDIRK34 at 1e-8")
  call check(esdirk_method_stages("ESDIRK34", 1d-8) == 4 .and. esdirk_method_stages("auto", 1d-8) == 6 .and. &
             esdirk_method_stages("auto", 1d-2) == 4 .and. esdirk_method_stages("ESDIRK99", 1d-8) == -1, "stages")
  call check(esdirk_solver_set_method(solver, "auto") == ESDIRK_SUCCESS, "auto")
  call run(1d-9, error, steps)
  call check(esdirk_solver_method_name_string(solver) == "ESDIRK436", "auto at 1e-9")
  call check(error < 1d-7, "auto: error")
  call run(1d-2, error, steps)
  call check(esdirk_solver_method_name_string(solver) == "ESDIRK34", "auto at 1e-2")
  call check(esdirk_solver_set_method(solver, "auto  ") == ESDIRK_SUCCESS, "trailing blanks")

  call run(1d-8, error, steps)
  call check(esdirk_solver_get_counter(solver, "newton_iterations", iterations_rate) == ESDIRK_SUCCESS, "iterations")
  call check(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_CORRECTION, 0.03_c_double) == ESDIRK_SUCCESS, &
             "correction test")
  call run(1d-8, error, steps)
  call check(esdirk_solver_get_counter(solver, "newton_iterations", iterations_correction) == ESDIRK_SUCCESS, &
             "iterations")
  call check(iterations_correction > iterations_rate, "the correction test iterates more")
  call check(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_CONTRACTION_RATE, 0.03_c_double) == ESDIRK_SUCCESS, &
             "rate test")

  call check(esdirk_solver_set_jacobian_reuse(solver, 1_c_int, 0.5_c_double) == ESDIRK_SUCCESS, "reuse")
  call check(esdirk_solver_set_keep_step_ratio(solver, 0.5_c_double, 2.0_c_double) == ESDIRK_SUCCESS, "keep")
  call run(1d-6, error, steps)
  call check(esdirk_solver_get_counter(solver, "jacobian_reuses", reuses) == ESDIRK_SUCCESS, "counter")
  call check(reuses > 0, "Jacobians reused")
  call check(esdirk_solver_set_keep_step_ratio(solver, 1.0_c_double, 1.0_c_double) == ESDIRK_SUCCESS, "h moves")
  call check(esdirk_solver_set_lu_reuse_h_change(solver, 0.3_c_double) == ESDIRK_SUCCESS, "nearby h")
  call run(1d-6, error, steps)
  call check(esdirk_solver_get_counter(solver, "lu_reuses", reuses) == ESDIRK_SUCCESS, "counter")
  call check(reuses > 0, "LUs reused across nearby h")
  call check(esdirk_solver_set_lu_reuse_h_change(solver, 0.0_c_double) == ESDIRK_SUCCESS, "same h only")
  call check(esdirk_solver_set_jacobian_reuse(solver, 0_c_int, 0.1_c_double) == ESDIRK_SUCCESS, "no reuse")
  call check(esdirk_solver_set_keep_step_ratio(solver, 1.0_c_double, 1.0_c_double) == ESDIRK_SUCCESS, "no keep")

  ! Bad values: refused, a message, the options kept (the next run equals the first one).
  call check(esdirk_solver_set_tolerance_rule(solver, 7_c_int, 0.0_c_double) == ESDIRK_INVALID_ARGUMENT, "bad rule")
  call check(esdirk_solver_set_tolerance_rule(solver, ESDIRK_TOLERANCE_RAW, -2.0_c_double) == ESDIRK_INVALID_ARGUMENT, &
             "bad factor")
  call check(index(esdirk_last_error_string(solver), "calibration_factor") > 0, "factor message")
  call check(esdirk_solver_set_newton_test(solver, 3_c_int, 0.03_c_double) == ESDIRK_INVALID_ARGUMENT, "bad Newton test")
  call check(esdirk_solver_set_newton_test(solver, ESDIRK_NEWTON_CORRECTION, 1.0_c_double) == ESDIRK_INVALID_ARGUMENT, &
             "bad rate floor")
  call check(index(esdirk_last_error_string(solver), "newton_rate_floor") > 0, "rate floor message")
  call check(esdirk_solver_set_method(solver, "ESDIRK99") == ESDIRK_INVALID_ARGUMENT, "bad method")
  call check(index(esdirk_last_error_string(solver), "ESDIRK99") > 0, "method message")
  call check(esdirk_solver_set_jacobian_reuse(solver, 1_c_int, 1.5_c_double) == ESDIRK_INVALID_ARGUMENT, "bad contraction")
  call check(esdirk_solver_set_keep_step_ratio(solver, 1.2_c_double, 1.0_c_double) == ESDIRK_INVALID_ARGUMENT, "bad low")
  call check(esdirk_solver_set_keep_step_ratio(solver, 1.0_c_double, 0.5_c_double) == ESDIRK_INVALID_ARGUMENT, "bad high")
  call check(esdirk_solver_set_lu_reuse_h_change(solver, 1.0_c_double) == ESDIRK_INVALID_ARGUMENT, "bad h change")
  call check(index(esdirk_last_error_string(solver), "lu_reuse_h_change") > 0, "h change message")
  call check(esdirk_solver_set_difference_increment(solver, 2_c_int) == ESDIRK_INVALID_ARGUMENT, "bad increment rule")
  call check(index(esdirk_last_error_string(solver), "ESDIRK_DIFFERENCE_RELATIVE") > 0, "increment message")
  call check(esdirk_solver_set_difference_increment(solver, ESDIRK_DIFFERENCE_RELATIVE) == ESDIRK_SUCCESS, "relative")
  call check(esdirk_solver_set_difference_increment(solver, ESDIRK_DIFFERENCE_ERROR_WEIGHTED) == ESDIRK_SUCCESS, &
             "error-weighted")
  call run(1d-8, error, steps)
  call check(steps == steps_calibrated .and. error == error_calibrated, "options kept")
  call check(esdirk_solver_get_counter(solver, "jacobian_reuses", reuses) == ESDIRK_SUCCESS, "counter")
  call check(reuses == 0, "no reuse after refusals")

  ! The options object (module esdirk_options) gives the runs of the setters above, bit for bit.
  call check(esdirk_options_create(options) == ESDIRK_SUCCESS, "options")
  call check(esdirk_options_set_method(options, "ESDIRK99") == ESDIRK_INVALID_ARGUMENT, "options: bad method")
  call check(index(esdirk_options_last_error_string(options), "set_method: ") == 1, "options: message")
  call check(esdirk_options_set_method(options, "auto  ") == ESDIRK_SUCCESS, "options: method")
  call check(esdirk_options_set_tolerance_rule(options, ESDIRK_TOLERANCE_RAW, 0.0_c_double) == ESDIRK_SUCCESS, &
             "options: raw")
  call check(esdirk_solver_set_options(solver, options) == ESDIRK_SUCCESS, "set_options: raw")
  call run(1d-8, error, steps)
  call check(steps == steps_raw .and. error == error_raw, "options: raw run")
  call check(esdirk_options_set_tolerance_rule(options, ESDIRK_TOLERANCE_CALIBRATED, 0.0_c_double) == ESDIRK_SUCCESS, &
             "options: calibrated")
  call check(esdirk_solver_set_options(solver, options) == ESDIRK_SUCCESS, "set_options: calibrated")
  call run(1d-8, error, steps)
  call check(steps == steps_calibrated .and. error == error_calibrated, "options: calibrated run")
  ! Every setter of the object is reachable from Fortran (the module exports what the
  ! description binds), each refusing a bad value with the object kept.
  call check(esdirk_options_set_step_limits(options, 0d0, 0d0, 1d0, 0_c_long) == ESDIRK_INVALID_ARGUMENT, &
             "options: max_steps 0 refused")
  call check(esdirk_options_set_controller(options, 1, 1d0, 1d0, 2d0, 0.2d0, 5d0) == ESDIRK_INVALID_ARGUMENT, &
             "options: safety 2 refused")
  call check(esdirk_options_set_newton(options, 0, 0.1d0, 0.3d0) == ESDIRK_INVALID_ARGUMENT, &
             "options: 0 Newton iterations refused")
  call check(esdirk_options_set_failure_limits(options, 0, 12, 12) == ESDIRK_INVALID_ARGUMENT, &
             "options: failure limit 0 refused")
  call check(esdirk_options_set_filter_error_estimate(options, 0) == ESDIRK_SUCCESS, "options: filter")
  call check(esdirk_options_set_sensitivity(options, 7, -1) == ESDIRK_INVALID_ARGUMENT, "options: mode 7 refused")
  call check(esdirk_options_last_error_string(options) == &
             "set_sensitivity: mode must be ESDIRK_SENSITIVITY_EXACT or _PAPER", "options: mode message")
  call check(esdirk_options_set_adjoint(options, 1, -1_c_long) == ESDIRK_INVALID_ARGUMENT, &
             "options: negative budget refused")
  call check(esdirk_options_set_sensitivity(options, ESDIRK_SENSITIVITY_EXACT, ESDIRK_ERROR_CONTROL_DEFAULT) &
             == ESDIRK_SUCCESS, "options: sensitivity")
  call check(esdirk_options_set_adjoint(options, 0, 0_c_long) == ESDIRK_SUCCESS, "options: no recording")
  call check(esdirk_solver_set_options(solver, options) == ESDIRK_SUCCESS, "set_options: the defaults again")
  call run(1d-8, error, steps)
  call check(steps == steps_calibrated .and. error == error_calibrated, "options: default run")
  call esdirk_options_free(options)
  call check(.not. c_associated(options), "options freed")
  structure = esdirk_problem_jacobian_structure(problem)
  call check(c_associated(structure), "structure handle")
  call check(esdirk_jacobian_structure_set_krylov(structure, 0, 4, 0.05_c_double, 1d-3, 1) == ESDIRK_INVALID_ARGUMENT, &
             "Krylov dimension 0 refused")

  ! Matrix-free Newton-Krylov with the exact J v and a user preconditioner: the direct run.
  call run(1d-8, error, steps)
  x_direct = x(1)
  call check(esdirk_jacobian_structure_set_pattern(structure, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV) &
             == ESDIRK_SUCCESS, "Krylov pattern")
  ! The forcing term while derivatives are attached: out of (0, 1) refused in the words of the
  ! other tolerances, with n.
  bad_terms = [0.0_c_double, 1.0_c_double, -1d-3, ieee_value(1.0_c_double, ieee_quiet_nan)]
  do k = 1, 4
    call check(esdirk_jacobian_structure_set_krylov(structure, 2, 4, 0.05_c_double, bad_terms(k), 2) &
               == ESDIRK_INVALID_ARGUMENT, "tolerance_with_derivatives out of (0, 1) refused")
    call check(index(esdirk_jacobian_structure_last_error(structure), &
                     "Krylov settings: the tolerance_with_derivatives must be in (0, 1) (got ") == 1 .and. &
               index(esdirk_jacobian_structure_last_error(structure), ", n = 2)") > 0, &
               "tolerance_with_derivatives message")
  end do
  call check(esdirk_jacobian_structure_set_krylov(structure, 2, 4, 0.05_c_double, 1d-3, 2) == ESDIRK_SUCCESS, &
             "Krylov settings")
  call check(esdirk_jacobian_structure_last_error(structure) == "", "no message after a success")
  call check(esdirk_jacobian_structure_set_krylov_options(structure, 1, 0.0_c_double, ESDIRK_KRYLOV_PRECONDITIONER_ILU0) &
             == ESDIRK_INVALID_ARGUMENT, "sensitivity tolerance 0 refused")
  call check(esdirk_jacobian_structure_set_krylov_options(structure, 1, 1d-10, 5) == ESDIRK_INVALID_ARGUMENT, &
             "preconditioner 5 refused")
  call check(esdirk_jacobian_structure_set_krylov_options(structure, 1, 1d-10, ESDIRK_KRYLOV_PRECONDITIONER_ILU0) &
             == ESDIRK_SUCCESS, "matrix-free")
  call check(esdirk_problem_set_krylov_callbacks(problem, c_funloc(times_jacobian), c_funloc(setup), c_null_funptr) &
             == ESDIRK_INVALID_ARGUMENT, "setup without solve refused")
  call check(esdirk_problem_set_krylov_callbacks(problem, c_funloc(times_jacobian), c_funloc(setup), c_funloc(solve)) &
             == ESDIRK_SUCCESS, "Krylov callbacks")
  call run(1d-8, error, steps)
  print '(a, es10.3, a, 3i6)', "matrix-free Krylov: |x - x_direct| = ", abs(x(1) - x_direct), &
      ", products, setups, solves:", products, setups, solves
  call check(abs(x(1) - x_direct) < 1d-7, "matrix-free Krylov = direct")
  call check(esdirk_solver_get_counter(solver, "jacobian_vector_products", counted) == ESDIRK_SUCCESS &
             .and. counted == products .and. products > 0, "J v callback counted")
  call check(esdirk_solver_get_counter(solver, "preconditioner_setups", counted) == ESDIRK_SUCCESS &
             .and. counted == setups .and. setups > 0, "setup callback counted")
  call check(esdirk_solver_get_counter(solver, "preconditioner_solves", counted) == ESDIRK_SUCCESS &
             .and. counted == solves .and. solves > 0, "solve callback counted")

  ! The same DAE as a one-mode hybrid problem (mode 3, no events) on the same matrix-free Krylov
  ! run: its callbacks get the mode, and the run reaches x(2) = 1/3.
  call check(esdirk_hybrid_problem_create(1, 1, 0, 0, 0, c_funloc(hybrid_residual), c_null_ptr, hybrid) &
             == ESDIRK_SUCCESS, "hybrid problem")
  hybrid_structure = esdirk_hybrid_problem_jacobian_structure(hybrid)
  call check(esdirk_jacobian_structure_set_pattern(hybrid_structure, pointers, rows, ESDIRK_LINEAR_SOLVER_KRYLOV) &
             == ESDIRK_SUCCESS, "hybrid Krylov pattern")
  call check(esdirk_jacobian_structure_set_krylov_options(hybrid_structure, 1, 1d-10, ESDIRK_KRYLOV_PRECONDITIONER_ILU0) &
             == ESDIRK_SUCCESS, "hybrid matrix-free")
  call check(esdirk_jacobian_structure_set_krylov_sensitivity(hybrid_structure, 1, 1.0_c_double) &
             == ESDIRK_INVALID_ARGUMENT, "sensitivity error fraction 1 refused")
  call check(index(esdirk_jacobian_structure_last_error(hybrid_structure), &
                   "the sensitivity_error_fraction must be in [0, 1)") > 0, "error fraction message")
  call check(esdirk_jacobian_structure_set_krylov_sensitivity(hybrid_structure, 0, 0.01_c_double) == ESDIRK_SUCCESS, &
             "sensitivity stage settings")
  call check(esdirk_hybrid_problem_set_krylov_callbacks(hybrid, c_funloc(hybrid_times_jacobian), &
                                                        c_funloc(hybrid_setup), c_funloc(solve)) == ESDIRK_SUCCESS, &
             "hybrid Krylov callbacks")
  call check(esdirk_hybrid_solver_create(hybrid, hybrid_solver) == ESDIRK_SUCCESS, "hybrid solver")
  call check(esdirk_hybrid_solver_set_tolerances(hybrid_solver, 1d-8, 1d-8) == ESDIRK_SUCCESS, "hybrid tolerances")
  x = 1.0_c_double
  z = 0.5_c_double
  call check(esdirk_hybrid_solver_initialize(hybrid_solver, 0.0_c_double, 3, x, 1, z, 1, none, 0, none, 0) &
             == ESDIRK_SUCCESS, "hybrid initialize")
  call check(esdirk_hybrid_solver_integrate_to(hybrid_solver, 2.0_c_double, x, 1, z, 1, t_reached) >= 0, &
             "hybrid integrate")
  print '(a, es10.3, a, 2i6)', "hybrid matrix-free Krylov: |x - 1/3| = ", abs(x(1) - 1.0_c_double / 3.0_c_double), &
      ", products, setups:", hybrid_products, hybrid_setups
  call check(abs(x(1) - 1.0_c_double / 3.0_c_double) < 1d-6, "hybrid Krylov run reaches 1/3")
  call check(hybrid_products > 0 .and. hybrid_setups > 0 .and. wrong_modes == 0, "hybrid callbacks get their mode")
  call check(esdirk_hybrid_solver_get_counter(hybrid_solver, "preconditioner_setups", counted) == ESDIRK_SUCCESS &
             .and. counted == hybrid_setups, "hybrid setups counted")
  call esdirk_hybrid_solver_free(hybrid_solver)
  call esdirk_hybrid_problem_free(hybrid)

  call esdirk_solver_free(solver)
  call esdirk_problem_free(problem)
  print '(i0, a, i0, a)', passed, " passed, ", failed, " failed"
  if (failed > 0) error stop 1

contains
  ! To t = 2 at rtol = atol = tol: the error of x and the steps.
  subroutine run(tol, err, nsteps)
    real(c_double), intent(in) :: tol
    real(c_double), intent(out) :: err
    integer(c_int64_t), intent(out) :: nsteps
    x = 1.0_c_double
    z = 0.5_c_double
    call check(esdirk_solver_set_tolerances(solver, tol, tol) == ESDIRK_SUCCESS, "tolerances")
    call check(esdirk_solver_initialize(solver, 0.0_c_double, x, 1, z, 1, none, 0) == ESDIRK_SUCCESS, "initialize")
    call check(esdirk_solver_set_stop_time(solver, 2.0_c_double) == ESDIRK_SUCCESS, "stop time")
    call check(esdirk_solver_integrate_to(solver, 2.0_c_double, x, 1, z, 1) >= 0, "integrate")
    call check(esdirk_solver_get_counter(solver, "steps", nsteps) == ESDIRK_SUCCESS, "steps")
    err = abs(x(1) - 1.0_c_double / 3.0_c_double)
  end subroutine run

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
end program test_fortran_method
