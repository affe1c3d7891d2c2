! The status table and the statistics through the Fortran module: every code of the generated
! parameters has the C library's name and message, no other value in -300..300 has a name, a
! stop time before tout returns ESDIRK_STOP_TIME_REACHED, the statistics carry their size and
! every counter of the library can be read by name.
module bindings_model
  use, intrinsic :: iso_c_binding
  use esdirk
  implicit none
contains
  integer(c_int) function decay(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    f(1) = -x(1)
    decay = 0
  end function decay
end module bindings_model

program test_bindings_fortran
  use, intrinsic :: iso_c_binding
  use esdirk
  use bindings_model
  implicit none
  integer :: passed = 0, failed = 0, i, n
  integer(c_int) :: v
  type(c_ptr) :: problem = c_null_ptr, solver = c_null_ptr
  real(c_double) :: x(1), t, none(1)
  integer(c_int64_t) :: value
  type(esdirk_statistics) :: stats
  character(len=:), allocatable :: name

  ! Every generated code against the C library.
  call check(esdirk_status_count >= 19, "count")
  do i = 1, esdirk_status_count
    call check(esdirk_status_string(esdirk_status_codes(i)) == trim(esdirk_status_names(i)), &
               "name of " // trim(esdirk_status_names(i)))
    call check(esdirk_status_message_string(esdirk_status_codes(i)) == trim(esdirk_status_messages(i)), &
               "message of " // trim(esdirk_status_names(i)))
    call check(count(esdirk_status_codes == esdirk_status_codes(i)) == 1, "distinct")
  end do
  ! No code of the C library is missing from the Fortran parameters.
  do v = -300_c_int, 300_c_int
    if (any(esdirk_status_codes == v)) cycle
    call check(esdirk_status_string(v) == "unknown", "no other code")
  end do
  call check(ESDIRK_SUCCESS == 0 .and. ESDIRK_STOP_TIME_REACHED == 1 .and. ESDIRK_LISTENER_STOP == 2, &
             "normal stops")
  call check(ESDIRK_TOO_MANY_STEPS == -1 .and. ESDIRK_BUFFER_TOO_SMALL == -106, "failures")

  ! A stop time before tout is a normal stop with a positive code.
  call check(esdirk_problem_create(1, 0, 0, c_funloc(decay), c_null_ptr, problem) == ESDIRK_SUCCESS, "create")
  call check(esdirk_solver_create(problem, solver) == ESDIRK_SUCCESS, "solver")
  x = 1.0_c_double
  call check(esdirk_solver_initialize(solver, 0.0_c_double, x, 1, none, 0, none, 0) == ESDIRK_SUCCESS, "init")
  call check(esdirk_solver_set_stop_time(solver, 1.5_c_double) == ESDIRK_SUCCESS, "stop time")
  call check(esdirk_solver_integrate_to(solver, 2.0_c_double, x, 1, none, 0) == ESDIRK_STOP_TIME_REACHED, &
             "stop time reached")
  call check(esdirk_solver_get_state(solver, t, x, 1, none, 0) == ESDIRK_SUCCESS, "state")
  call check(t == 1.5_c_double, "at the stop time")

  ! Statistics: the module sets struct_size; counters by name agree with the struct.
  call check(esdirk_solver_get_statistics(solver, stats) == ESDIRK_SUCCESS, "statistics")
  call check(stats%struct_size == c_sizeof(stats), "struct size")
  call check(stats%steps > 0, "steps")
  call check(esdirk_solver_get_counter(solver, "steps", value) == ESDIRK_SUCCESS, "counter")
  call check(value == stats%steps, "counter value")
  call check(esdirk_solver_get_counter(solver, "lu_factorizations", value) == ESDIRK_SUCCESS, "counter")
  call check(value == stats%lu_factorizations, "counter value")
  call check(esdirk_solver_get_counter(solver, "no_such_counter", value) == ESDIRK_INVALID_ARGUMENT, &
             "unknown counter")
  n = 0
  do
    name = esdirk_counter_name_string(n + 1)
    if (len(name) == 0) exit
    n = n + 1
    call check(esdirk_solver_get_counter(solver, name, value) == ESDIRK_SUCCESS, "counter " // name)
  end do
  call check(n >= 16, "counters listed")

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
      print '(a, a)', "check failed: ", what
    end if
  end subroutine check
end program test_bindings_fortran
