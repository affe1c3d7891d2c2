! The Fortran module esdirk_sparse on a reaction-diffusion chain x_i' = c (x_{i-1} - 2 x_i +
! x_{i+1}) - p x_i^2 (x = 1 on the boundary): the band and KLU back-ends with the analytic
! sparse Jacobian against the dense back-end, a 1-based pattern, the checker, and bad input
! (a row out of range, a duplicate row, bandwidths negative or >= n).
module chain_model
  use, intrinsic :: iso_c_binding
  use esdirk
  implicit none
  integer, parameter :: n = 20
  real(c_double), parameter :: c = (n + 1.0_c_double)**2 / 10.0_c_double
contains
  integer(c_int) function residual(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    integer :: i
    real(c_double) :: left, right
    do i = 1, nx
      left = 1.0_c_double
      right = 1.0_c_double
      if (i > 1) left = x(i - 1)
      if (i < nx) right = x(i + 1)
      f(i) = c * (left - 2.0_c_double * x(i) + right) - p(1) * x(i)**2
    end do
    residual = 0
  end function residual

  ! values(k) belongs to row row_indices(k) + 1 of its column (0-based CSC from C).
  integer(c_int) function sparse_jacobian(nx, nz, np, t, x, z, p, nnz, column_pointers, row_indices, &
      values, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, nnz
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    integer(esdirk_int), intent(in) :: column_pointers(nx + nz + 1), row_indices(nnz)
    real(c_double), intent(inout) :: values(nnz)
    type(c_ptr), value :: user_data
    integer :: j, k
    do j = 1, nx
      do k = column_pointers(j) + 1, column_pointers(j + 1)
        if (row_indices(k) + 1 == j) then
          values(k) = -2.0_c_double * c - 2.0_c_double * p(1) * x(j)
        else
          values(k) = c
        end if
      end do
    end do
    sparse_jacobian = 0
  end function sparse_jacobian
end module chain_model

program test_fortran_sparse
  use, intrinsic :: iso_c_binding
  use esdirk
  use esdirk_sparse
  use chain_model
  implicit none
  integer :: passed = 0, failed = 0, i, j, k
  type(c_ptr) :: problem = c_null_ptr
  real(c_double) :: x_dense(n), x_band(n), x_klu(n), p(1), none(1)
  integer(esdirk_int) :: colptr(n + 1), rowind(3 * n), back_ptr(n + 1), back_rows(3 * n)
  integer(esdirk_int) :: lower, upper, nnz, missing, wrong, rows(2), cols(2)
  integer(c_int) :: kind

  p = [2.0_c_double]
  call check(esdirk_problem_create(n, 0, 1, c_funloc(residual), c_null_ptr, problem) == ESDIRK_SUCCESS, "problem")
  call solve(x_dense)
  call check(esdirk_problem_set_jacobian_bandwidths(problem, 1, 1) == ESDIRK_SUCCESS, "bandwidths")
  call check(esdirk_problem_set_sparse_jacobian(problem, c_funloc(sparse_jacobian)) == ESDIRK_SUCCESS, "sparse J")
  call check(esdirk_problem_get_jacobian_structure(problem, kind, lower, upper, nnz) == ESDIRK_SUCCESS, "get")
  call check(kind == ESDIRK_LINEAR_SOLVER_BANDED .and. lower == 1 .and. upper == 1 .and. nnz == 3 * n - 2, &
             "banded structure")
  call solve(x_band)

  ! The tridiagonal pattern, 1-based (Harwell-Boeing style).
  k = 1
  do j = 1, n
    colptr(j) = k
    do i = max(1, j - 1), min(n, j + 1)
      rowind(k) = i
      k = k + 1
    end do
  end do
  colptr(n + 1) = k
  call check(esdirk_problem_set_jacobian_pattern_1based(problem, colptr, rowind(1:k - 1), &
             ESDIRK_LINEAR_SOLVER_SPARSE) == ESDIRK_SUCCESS, "1-based pattern")
  call check(esdirk_problem_get_jacobian_pattern(problem, back_ptr, back_rows, 3 * n) == ESDIRK_SUCCESS, "get pattern")
  call check(all(back_ptr == colptr - 1) .and. all(back_rows(1:k - 1) == rowind(1:k - 1) - 1), "pattern round trip")
  call solve(x_klu)
  ! Band and KLU with the same analytic J: the same solution to rounding; the dense run (dense
  ! differences) to the differences' accuracy.
  call check(maxval(abs(x_band - x_klu)) < 1d-11, "band = KLU")
  call check(maxval(abs(x_klu - x_dense)) < 1d-7, "KLU ~ dense differences")

  ! The checker: the diagonal alone misses 2 (n - 1) entries (0-based rows/cols come back).
  call check(esdirk_problem_set_jacobian_pattern_1based(problem, [(j, j = 1, n + 1)], [(j, j = 1, n)], &
             ESDIRK_LINEAR_SOLVER_SPARSE) == ESDIRK_SUCCESS, "diagonal pattern")
  call check(esdirk_problem_check_jacobian_pattern(problem, 0.0_c_double, x_klu, none, p, 0.0_c_double, &
             missing, rows, cols, 2, wrong) == ESDIRK_SUCCESS, "checker")
  call check(missing == 2 * (n - 1) .and. abs(rows(1) - cols(1)) == 1, "missing entries named")
  call check(len(esdirk_problem_structure_error_string(problem)) > 0, "checker message")

  ! Bad input: the structure stays as it was (the diagonal pattern, sparse).
  rowind(2) = n + 1
  call check(esdirk_problem_set_jacobian_pattern_1based(problem, colptr, rowind(1:k - 1), &
             ESDIRK_LINEAR_SOLVER_SPARSE) == ESDIRK_INVALID_ARGUMENT, "row out of range")
  call check(index(esdirk_problem_structure_error_string(problem), "row") > 0, "message names the row")
  rowind(2) = 1
  call check(esdirk_problem_set_jacobian_pattern_1based(problem, colptr, rowind(1:k - 1), &
             ESDIRK_LINEAR_SOLVER_SPARSE) == ESDIRK_INVALID_ARGUMENT, "duplicate row")
  call check(esdirk_problem_set_jacobian_bandwidths(problem, -1, 1) == ESDIRK_INVALID_ARGUMENT, "negative bandwidth")
  call check(esdirk_problem_set_jacobian_bandwidths(problem, 1, n) == ESDIRK_INVALID_ARGUMENT, "bandwidth >= n")
  call check(esdirk_problem_set_jacobian_pattern_1based(problem, colptr, rowind(1:k - 1), 5_c_int) &
             == ESDIRK_INVALID_ARGUMENT, "unknown back-end")
  call check(esdirk_problem_get_jacobian_structure(problem, kind, lower, upper, nnz) == ESDIRK_SUCCESS, "get")
  call check(kind == ESDIRK_LINEAR_SOLVER_SPARSE .and. nnz == n, "structure kept after bad input")
  call check(esdirk_problem_clear_jacobian_structure(problem) == ESDIRK_SUCCESS, "clear")
  call check(esdirk_problem_get_jacobian_structure(problem, kind, lower, upper, nnz) == ESDIRK_SUCCESS, "get")
  call check(kind == ESDIRK_LINEAR_SOLVER_DENSE .and. nnz == n * n, "dense again")
  call esdirk_problem_free(problem)

  print '(i0, " passed, ", i0, " failed")', passed, failed
  if (failed > 0) error stop 1

contains

  subroutine solve(x)
    real(c_double), intent(out) :: x(n)
    type(c_ptr) :: solver
    real(c_double) :: x0(n)
    integer :: i
    solver = c_null_ptr
    do i = 1, n
      x0(i) = 1.0_c_double + sin(3.14159_c_double * i / (n + 1.0_c_double))
    end do
    call check(esdirk_solver_create(problem, solver) == ESDIRK_SUCCESS, "solver")
    call check(esdirk_solver_set_tolerances(solver, 1d-8, 1d-8) == ESDIRK_SUCCESS, "tolerances")
    call check(esdirk_solver_initialize(solver, 0.0_c_double, x0, n, none, 0, p, 1) == ESDIRK_SUCCESS, "initialize")
    call check(esdirk_solver_integrate_to(solver, 0.5_c_double, x, n, none, 0) == ESDIRK_SUCCESS, "integrate")
    call esdirk_solver_free(solver)
  end subroutine solve

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
end program test_fortran_sparse
