! esdirk_multishoot: the Fortran 2003 interfaces of multiple shooting
! (capi/include/esdirk/esdirk_multishoot.h; doc/fortran-guide.md, "Multiple shooting";
! doc/multiple-shooting-guide.md).
!
! The N shooting intervals of one NLP iteration evaluated on a thread pool, bit-identical to a
! serial evaluation, and the equality-constrained Gauss-Newton parameter estimation on them.
! Handles are type(c_ptr); the problem handle is the esdirk module's (its parameters are the
! controls u_k, or the estimated theta). Arrays are flat, interval after interval, as in C:
! x(nx, N), A(nx, nx, N) (each block column-major), B(nx, nu, N), H(N), ... Outputs the C API
! takes as NULL when not wanted are OPTIONAL arguments here (pass them by keyword: x_end=...,
! A=...); an absent one is passed as NULL. The multiple-shooting method setters are in
! esdirk_method (esdirk_multishoot_set_method, ...).
!
! The intervals run on several threads at once: the model and running-cost callbacks must be
! safe to call concurrently (pure functions of their arguments are) and should be declared
! RECURSIVE, so that their local variables live on each thread's stack.
module esdirk_multishoot
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int, esdirk_string_from_c
  implicit none
  private

  ! The running cost h(t, x, z, u) with its gradients dh/dx (nx), dh/dz (nz), dh/du (nu): the
  ! shape of esdirk_running_cost_fn (esdirk.h). Write yours with bind(C) and pass c_funloc(yours)
  ! to esdirk_multishoot_set_running_cost. Returns 0, > 0 for a recoverable failure, < 0 fatal.
  abstract interface
    integer(c_int) function esdirk_running_cost_fn(nx, nz, nu, t, x, z, u, value, dh_dx, dh_dz, dh_du, &
        user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz, nu
      real(c_double), value :: t
      real(c_double), intent(in) :: x(*), z(*), u(*)
      real(c_double), intent(out) :: value
      real(c_double), intent(inout) :: dh_dx(*), dh_dz(*), dh_du(*)
      type(c_ptr), value :: user_data
    end function esdirk_running_cost_fn
  end interface
  public :: esdirk_running_cost_fn

  public :: esdirk_multishoot_create, esdirk_multishoot_free, esdirk_multishoot_last_error_string
  public :: esdirk_multishoot_set_tolerances, esdirk_multishoot_set_algebraic_atol
  public :: esdirk_multishoot_set_initial_step, esdirk_multishoot_set_running_cost
  public :: esdirk_multishoot_evaluate, esdirk_multishoot_estimate

  ! The C descriptions of an estimation (esdirk_estimation_data, esdirk_estimation_result);
  ! esdirk_multishoot_estimate fills them from Fortran arrays.
  type, bind(C) :: estimation_data
    integer(esdirk_int) :: experiments = 0
    type(c_ptr) :: points = c_null_ptr
    type(c_ptr) :: times = c_null_ptr
    integer(esdirk_int) :: ny = 0
    type(c_ptr) :: measured = c_null_ptr
    type(c_ptr) :: data = c_null_ptr
    type(c_ptr) :: sigma = c_null_ptr
    type(c_ptr) :: nodes = c_null_ptr
    type(c_ptr) :: z_guess = c_null_ptr
    type(c_ptr) :: initial_state_known = c_null_ptr
  end type estimation_data

  type, bind(C) :: estimation_result
    type(c_ptr) :: theta = c_null_ptr
    type(c_ptr) :: theta_lower = c_null_ptr
    type(c_ptr) :: theta_upper = c_null_ptr
    type(c_ptr) :: identifiable = c_null_ptr
    integer(esdirk_int) :: iterations = 0
    integer(esdirk_int) :: rank = 0
    real(c_double) :: cost = 0
    integer(esdirk_int) :: converged = 0
  end type estimation_result

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_multishoot_c_interfaces.inc'
  end interface

contains

  !> Evaluates all intervals: t_begin(N), t_end(N), x(nx, N), u(nu, N) and z_guess(nz, N) (may be
  !> absent when nz = 0) in; the optional outputs x_end(nx, N), z_end(nz, N), A(nx, nx, N),
  !> B(nx, nu, N), H(N) (the running cost's integral), q(nx, N) = dH/dx_k, r(nu, N) = dH/du_k and
  !> status(N) (each interval's status). ESDIRK_SUCCESS if every interval succeeded; otherwise the
  !> status of the first failing one, with a message naming it (the others are still evaluated).
  integer(c_int) function esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, z_guess, x_end, z_end, &
      A, B, H, q, r, status) result(s)
    type(c_ptr), intent(in) :: ms
    real(c_double), intent(in) :: t_begin(*), t_end(*), x(*), u(*)
    real(c_double), intent(in), optional, target :: z_guess(*)
    real(c_double), intent(inout), optional, target :: x_end(*), z_end(*), A(*), B(*), H(*), q(*), r(*)
    integer(esdirk_int), intent(inout), optional, target :: status(*)
    s = c_esdirk_multishoot_evaluate(ms, t_begin, t_end, x, u, address_in(z_guess), address(x_end), &
                                     address(z_end), address(A), address(B), address(H), address(q), &
                                     address(r), int_address(status))
  end function esdirk_multishoot_evaluate

  !> Parameter estimation by multiple shooting (doc/multiple-shooting-guide.md). `experiments`
  !> experiments; experiment e has points(e) measurement times (points(e) - 1 intervals; their
  !> total must equal the handle's interval count). Flat over all experiments' points: times,
  !> data(ny, :) and sigma(ny, :) of the states measured(1:ny) (1-BASED state numbers: 1 is x(1)),
  !> nodes(nx, :) (the start guesses of the node states). z_guess(nz, :) per interval (may be
  !> absent when nz = 0); initial_state_known(experiments) one flag (0/1) per experiment (absent:
  !> all known). theta0(np) starts the estimate (np = the problem's np). rcond: relative
  !> singular-value cutoff (0: 1e-8); max_iterations (0: 60). theta(np) gets the estimate; the
  !> optional outputs are the 95 % confidence interval (IEEE -Infinity, +Infinity: not
  !> identifiable), the identifiability flags, the iteration count, the rank, the cost and
  !> converged (0/1). ESDIRK_SUCCESS when converged; ESDIRK_INVALID_ARGUMENT for inconsistent
  !> data (the message names the experiment), an infeasible start or no convergence (the outputs
  !> are filled).
  integer(c_int) function esdirk_multishoot_estimate(ms, experiments, points, times, ny, measured, data, &
      sigma, nodes, theta0, np, theta, z_guess, initial_state_known, rcond, max_iterations, theta_lower, &
      theta_upper, identifiable, iterations, rank, cost, converged) result(s)
    type(c_ptr), intent(in) :: ms
    integer(esdirk_int), intent(in) :: experiments, ny, np
    integer(esdirk_int), intent(in), target :: points(*)
    integer(esdirk_int), intent(in) :: measured(*)
    real(c_double), intent(in), target :: times(*), data(*), sigma(*), nodes(*)
    real(c_double), intent(in) :: theta0(*)
    real(c_double), intent(inout), target :: theta(*)
    real(c_double), intent(in), optional, target :: z_guess(*)
    integer(esdirk_int), intent(in), optional, target :: initial_state_known(*)
    real(c_double), intent(in), optional :: rcond
    integer(esdirk_int), intent(in), optional :: max_iterations
    real(c_double), intent(inout), optional, target :: theta_lower(*), theta_upper(*)
    integer(esdirk_int), intent(inout), optional, target :: identifiable(*)
    integer(esdirk_int), intent(out), optional :: iterations, rank, converged
    real(c_double), intent(out), optional :: cost
    type(estimation_data) :: d
    type(estimation_result) :: res
    integer(esdirk_int), allocatable, target :: measured0(:)
    real(c_double) :: cutoff
    integer(esdirk_int) :: iteration_limit
    cutoff = 0
    if (present(rcond)) cutoff = rcond
    iteration_limit = 0
    if (present(max_iterations)) iteration_limit = max_iterations
    allocate(measured0(max(ny, 1_esdirk_int)))
    if (ny > 0) measured0(1:ny) = measured(1:ny) - 1  ! the C API counts states from 0
    d%experiments = experiments
    d%points = c_loc(points(1))
    d%times = c_loc(times(1))
    d%ny = ny
    d%measured = c_loc(measured0(1))
    d%data = c_loc(data(1))
    d%sigma = c_loc(sigma(1))
    d%nodes = c_loc(nodes(1))
    d%z_guess = address_in(z_guess)
    d%initial_state_known = int_address_in(initial_state_known)
    res%theta = c_loc(theta(1))
    res%theta_lower = address(theta_lower)
    res%theta_upper = address(theta_upper)
    res%identifiable = int_address(identifiable)
    s = c_esdirk_multishoot_estimate(ms, d, theta0, np, cutoff, iteration_limit, res)
    if (present(iterations)) iterations = res%iterations
    if (present(rank)) rank = res%rank
    if (present(cost)) cost = res%cost
    if (present(converged)) converged = res%converged
  end function esdirk_multishoot_estimate

  !> The message of the last failure on a multiple-shooting handle ("" after a success).
  function esdirk_multishoot_last_error_string(ms) result(message)
    type(c_ptr), intent(in) :: ms
    character(len=:), allocatable :: message
    message = esdirk_string_from_c(c_esdirk_multishoot_last_error(ms))
  end function esdirk_multishoot_last_error_string

  ! The address of an optional array, c_null_ptr when it is absent (C's "not wanted").
  function address(array) result(p)
    real(c_double), intent(inout), optional, target :: array(*)
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(array)) p = c_loc(array(1))
  end function address

  function address_in(array) result(p)
    real(c_double), intent(in), optional, target :: array(*)
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(array)) p = c_loc(array(1))
  end function address_in

  function int_address(array) result(p)
    integer(esdirk_int), intent(inout), optional, target :: array(*)
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(array)) p = c_loc(array(1))
  end function int_address

  function int_address_in(array) result(p)
    integer(esdirk_int), intent(in), optional, target :: array(*)
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(array)) p = c_loc(array(1))
  end function int_address_in

end module esdirk_multishoot
