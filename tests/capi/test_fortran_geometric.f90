! The module esdirk_geometric against closed forms, as tests/capi/test_capi_geometric.c does in
! C: the Radau IIA(3) and Lobatto IIIA(3) -> IIIB(3) tableaus in Fortran orientation (a(i, j) =
! a_ij), the adjoint of q' = -q^3 (p_0 = 3^(-3/2); with the running cost L = q,
! p_0 = 1 - 1/sqrt(3)), the tangent pairing, a tableau passed from Fortran equal bit for bit to
! the built-in one, the parameters of q' = -k q, the index-1 DAE q' = -u q, 0 = u - q^2 with
! PGHVI-1 and BE-1, and every misuse with its status and message.
module geometric_model
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int
  implicit none
contains
  ! q' = -u q, 0 = u - q^2 (reduced: q' = -q^3); nz = 0 gives q' = -q^3 directly.
  integer(c_int) function cubic(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    cubic = 0
    if (nz == 0) then
      f(1) = -x(1)**3
      return
    end if
    f(1) = -z(1) * x(1)
    g(1) = z(1) - x(1)**2
  end function cubic

  integer(c_int) function cubic_jacobian(nx, nz, np, t, x, z, p, J, ldj, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, ldj
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: J(ldj, *)
    type(c_ptr), value :: user_data
    cubic_jacobian = 0
    if (nz == 0) then
      J(1, 1) = -3 * x(1)**2
      return
    end if
    J(1, 1) = -z(1)
    J(1, 2) = -x(1)
    J(2, 1) = -2 * x(1)
    J(2, 2) = 1
  end function cubic_jacobian

  ! q' = -k q with the parameter k: q(1) = exp(-k) q0, p_0 = exp(-k) p_N.
  integer(c_int) function decay(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    f(1) = -p(1) * x(1)
    decay = 0
  end function decay

  ! A constraint without u: not of index 1.
  integer(c_int) function no_u(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    f(1) = -x(1)
    g(1) = x(1) - 1
    no_u = 0
  end function no_u

  ! The running cost L = q.
  integer(c_int) function running(nx, nz, t, q, u, dq, du, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz
    real(c_double), value :: t
    real(c_double), intent(in) :: q(*), u(*)
    real(c_double), intent(inout) :: dq(*), du(*)
    type(c_ptr), value :: user_data
    dq(1) = 1
    running = 0
  end function running
end module geometric_model

program test_fortran_geometric
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use esdirk
  use esdirk_geometric
  use geometric_model
  implicit none
  integer :: passed = 0, failed = 0
  type(c_ptr) :: ode = c_null_ptr, dae = c_null_ptr, bad = c_null_ptr, decaying = c_null_ptr
  real(c_double) :: times(33)
  integer :: k

  times = [(k / 32.0d0, k = 0, 32)]
  call check(esdirk_problem_create(1, 0, 0, c_funloc(cubic), c_null_ptr, ode) == ESDIRK_SUCCESS, "ode")
  call check(esdirk_problem_set_jacobian(ode, c_funloc(cubic_jacobian)) == ESDIRK_SUCCESS, "ode jacobian")
  call check(esdirk_problem_create(1, 1, 0, c_funloc(cubic), c_null_ptr, dae) == ESDIRK_SUCCESS, "dae")
  call check(esdirk_problem_set_jacobian(dae, c_funloc(cubic_jacobian)) == ESDIRK_SUCCESS, "dae jacobian")
  call check(esdirk_problem_create(1, 1, 0, c_funloc(no_u), c_null_ptr, bad) == ESDIRK_SUCCESS, "no_u")
  call check(esdirk_problem_create(1, 0, 1, c_funloc(decay), c_null_ptr, decaying) == ESDIRK_SUCCESS, "decay")

  call tableaus()
  call ode_adjoint()
  call tableau_from_fortran()
  call parameters()
  call dae_adjoint()
  call misuse()

  call esdirk_problem_free(decaying)
  call esdirk_problem_free(bad)
  call esdirk_problem_free(dae)
  call esdirk_problem_free(ode)
  print '(i0, a, i0, a)', passed, " passed, ", failed, " failed"
  if (failed > 0) error stop 1

contains

  subroutine tableaus()
    integer(esdirk_int) :: count, stages, order, i
    real(c_double) :: a(3, 3), b(3), c(3), partner(3, 3), defect, iiib(3, 3)
    real(c_double) :: mid_a(2, 2), mid_b(2), nan_b(2)
    count = esdirk_geometric_tableau_count()
    call check(count >= 20, "at least 20 tableaus")
    call check(esdirk_geometric_tableau_name_string(0) == "", "no tableau 0 (names count from 1)")
    call check(esdirk_geometric_tableau_name_string(count + 1) == "", "no tableau count + 1")
    i = 0
    do while (esdirk_geometric_tableau_name_string(i + 1) /= "")
      i = i + 1
    end do
    call check(i == count, "the names end with "" (what replaces the deprecated count)")
    do i = 1, count
      call check(esdirk_geometric_tableau_stages(esdirk_geometric_tableau_name_string(i), stages) == ESDIRK_SUCCESS &
                 .and. stages >= 1, "every named tableau has stages")
    end do
    call check(esdirk_geometric_tableau_stages("radau3", stages) == ESDIRK_SUCCESS .and. stages == 3, "radau3: 3")
    call check(esdirk_geometric_tableau("radau3", 3, a, b, c, order) == ESDIRK_SUCCESS, "radau3")
    call check(order == 5 .and. abs(b(3) - 1.0d0 / 9.0d0) < 1d-16 .and. c(3) == 1, "radau3: order, b, c")
    ! Fortran orientation: stiffly accurate (last row a(3, :) = b) and row sums = c.
    call check(maxval(abs(a(3, :) - b)) < 1d-16, "radau3: a(3, :) = b")
    call check(maxval(abs(sum(a, dim=2) - c)) < 1d-15, "radau3: sum_j a(i, j) = c(i)")
    call check(esdirk_geometric_tableau("radau3", 2, a, b, c, order) == ESDIRK_INVALID_ARGUMENT, "wrong stages")
    call check(esdirk_geometric_tableau("gauss9", 3, a, b, c, order) == ESDIRK_INVALID_ARGUMENT, "unknown tableau")
    call check(esdirk_geometric_tableau_stages("gauss9", stages) == ESDIRK_INVALID_ARGUMENT, "unknown: stages")
    call check(esdirk_geometric_partner(3, a, b, partner, defect) == ESDIRK_SUCCESS .and. defect <= 4d-16, &
               "radau3: the partner is symplectic")
    ! Lobatto IIIA(3) -> IIIB(3) = [1/6 -1/6 0; 1/6 1/3 0; 1/6 5/6 0].
    call check(esdirk_geometric_tableau("lobatto_iiia3", 3, a, b, c, order) == ESDIRK_SUCCESS, "lobatto_iiia3")
    call check(esdirk_geometric_partner(3, a, b, partner) == ESDIRK_SUCCESS, "partner without defect")
    iiib = reshape([1d0 / 6, 1d0 / 6, 1d0 / 6, -1d0 / 6, 1d0 / 3, 5d0 / 6, 0d0, 0d0, 0d0], [3, 3])
    call check(maxval(abs(partner - iiib)) < 1d-15, "Lobatto IIIA(3) -> IIIB(3)")
    ! Zero weight, non-finite entry, bad size: refused.
    mid_a = reshape([0d0, 0.5d0, 0d0, 0d0], [2, 2])
    mid_b = [0d0, 1d0]
    call check(esdirk_geometric_partner(2, mid_a, mid_b, partner) == ESDIRK_INVALID_ARGUMENT, "zero weight")
    nan_b = [ieee_value(1d0, ieee_quiet_nan), 1d0]
    call check(esdirk_geometric_partner(2, mid_a, nan_b, partner) == ESDIRK_INVALID_ARGUMENT, "NaN weight")
    call check(esdirk_geometric_partner(0, mid_a, mid_b, partner) == ESDIRK_INVALID_ARGUMENT, "0 stages")
  end subroutine tableaus

  ! q' = -q^3 with Radau IIA(3) over 32 steps of [0, 1]: q(1) = 1/sqrt(3), p_0 = 3^(-3/2).
  subroutine ode_adjoint()
    type(c_ptr) :: g
    real(c_double) :: q0(1), one(1), zero(1), p0(1), qN(1), dqN(1), t0, drift, fdef, adef
    integer(esdirk_int) :: steps
    q0 = 1
    one = 1
    zero = 0
    g = c_null_ptr
    call check(esdirk_geometric_create(ode, "radau3", g) == ESDIRK_SUCCESS, "create radau3")
    call check(esdirk_geometric_backward(g, one, 1, c_null_funptr, c_null_ptr) == ESDIRK_WRONG_CALL_ORDER, &
               "backward before forward")
    call check(esdirk_geometric_steps(g, steps) == ESDIRK_WRONG_CALL_ORDER, "steps before forward")
    call check(esdirk_geometric_forward(g, times, 33, q0, 1, nz=0) == ESDIRK_SUCCESS, "forward")
    call check(esdirk_geometric_steps(g, steps) == ESDIRK_SUCCESS .and. steps == 32, "32 steps")
    call check(esdirk_geometric_get(g, 32, 1, 0, q=qN) == ESDIRK_SUCCESS, "get q_N")
    call check(abs(qN(1) - 1 / sqrt(3d0)) < 1d-8, "q(1) = 1/sqrt(3)")
    call check(esdirk_geometric_backward(g, one, 1, c_null_funptr, c_null_ptr) == ESDIRK_SUCCESS, "backward")
    t0 = -1
    call check(esdirk_geometric_get(g, 0, 1, 0, t=t0, p=p0) == ESDIRK_SUCCESS, "get p_0")
    call check(t0 == 0 .and. abs(p0(1) - 3d0**(-1.5d0)) < 1d-8, "p_0 = 3^(-3/2)")
    call check(esdirk_geometric_tangent(g, one, 1) == ESDIRK_SUCCESS, "tangent")
    call check(esdirk_geometric_get(g, 32, 1, 0, dq=dqN) == ESDIRK_SUCCESS, "get dq_N")
    call check(abs(dqN(1) - p0(1)) < 1d-15, "<p_N, dq_N> = <p_0, dq_0>")
    call check(esdirk_geometric_diagnostics(g, fdef, adef, drift) == ESDIRK_SUCCESS, "diagnostics")
    call check(drift <= 1d-13 .and. fdef <= 1d-13, "pairing drift, forward defect")
    call check(esdirk_geometric_diagnostics(g, pairing_drift=drift) == ESDIRK_SUCCESS .and. drift <= 1d-13, &
               "diagnostics: one output")
    call check(esdirk_geometric_backward(g, zero, 1, c_funloc(running), c_null_ptr) == ESDIRK_SUCCESS, &
               "backward with a running cost")
    call check(esdirk_geometric_get(g, 0, 1, 0, p=p0) == ESDIRK_SUCCESS, "get p_0")
    call check(abs(p0(1) - (1 - 1 / sqrt(3d0))) < 1d-8, "L = q: p_0 = 1 - 1/sqrt(3)")
    ! The partner form gives the same gradient.
    call check(esdirk_geometric_set_options(g, 1d-13, 25, ESDIRK_GEOMETRIC_PARTNER_FORM) == ESDIRK_SUCCESS, &
               "partner form")
    call check(esdirk_geometric_forward(g, times, 33, q0, 1, nz=0) == ESDIRK_SUCCESS, "forward")
    call check(esdirk_geometric_backward(g, one, 1, c_null_funptr, c_null_ptr) == ESDIRK_SUCCESS, "backward")
    call check(esdirk_geometric_get(g, 0, 1, 0, p=p0) == ESDIRK_SUCCESS, "get p_0")
    call check(abs(p0(1) - 3d0**(-1.5d0)) < 1d-8, "partner form: p_0 = 3^(-3/2)")
    call esdirk_geometric_free(g)
    call check(.not. c_associated(g), "free nulls the handle")
  end subroutine ode_adjoint

  ! Radau IIA(3) passed from Fortran (a(i, j) = a_ij, with and without its partner) integrates
  ! exactly as the built-in "radau3"; Lobatto IIIA-IIIB(3) (order 4) gives p_0 to 1e-6.
  subroutine tableau_from_fortran()
    type(c_ptr) :: g
    real(c_double) :: a(3, 3), b(3), c(3), partner(3, 3), q0(1), one(1), builtin(1), p0(1)
    integer(esdirk_int) :: order
    q0 = 1
    one = 1
    g = c_null_ptr
    call check(esdirk_geometric_create(ode, "radau3", g) == ESDIRK_SUCCESS, "create radau3")
    call check(gradient(g, builtin) == ESDIRK_SUCCESS, "built-in gradient")
    call esdirk_geometric_free(g)
    call check(esdirk_geometric_tableau("radau3", 3, a, b, c, order) == ESDIRK_SUCCESS, "radau3")
    call check(esdirk_geometric_create_pair(ode, 3, a, b, c, g) == ESDIRK_SUCCESS, "create_pair, symplectic partner")
    call check(gradient(g, p0) == ESDIRK_SUCCESS .and. p0(1) == builtin(1), "create_pair = built-in, bit for bit")
    call esdirk_geometric_free(g)
    call check(esdirk_geometric_partner(3, a, b, partner) == ESDIRK_SUCCESS, "partner")
    call check(esdirk_geometric_create_pair(ode, 3, a, b, c, g, partner) == ESDIRK_SUCCESS, "create_pair, partner")
    call check(gradient(g, p0) == ESDIRK_SUCCESS .and. p0(1) == builtin(1), "given partner = built-in, bit for bit")
    call esdirk_geometric_free(g)
    call check(esdirk_geometric_tableau("lobatto_iiia3", 3, a, b, c, order) == ESDIRK_SUCCESS, "lobatto_iiia3")
    call check(esdirk_geometric_partner(3, a, b, partner) == ESDIRK_SUCCESS, "partner")
    call check(esdirk_geometric_create_pair(ode, 3, a, b, c, g, partner) == ESDIRK_SUCCESS, "Lobatto IIIA-IIIB")
    call check(gradient(g, p0) == ESDIRK_SUCCESS .and. abs(p0(1) - 3d0**(-1.5d0)) < 1d-6, "Lobatto: p_0")
    call esdirk_geometric_free(g)
  end subroutine tableau_from_fortran

  integer(c_int) function gradient(g, p0) result(status)
    type(c_ptr), intent(in) :: g
    real(c_double), intent(out) :: p0(1)
    real(c_double) :: q0(1), one(1)
    q0 = 1
    one = 1
    p0 = -1
    status = esdirk_geometric_forward(g, times, 33, q0, 1, nz=0)
    if (status == ESDIRK_SUCCESS) status = esdirk_geometric_backward(g, one, 1, c_null_funptr, c_null_ptr)
    if (status == ESDIRK_SUCCESS) status = esdirk_geometric_get(g, 0, 1, 0, p=p0)
  end function gradient

  ! q' = -k q with k = 2 set on the handle: q(1) = p_0 = exp(-2).
  subroutine parameters()
    type(c_ptr) :: g
    real(c_double) :: k(2), q0(1), one(1), qN(1), p0(1)
    k = 2
    q0 = 1
    one = 1
    g = c_null_ptr
    call check(esdirk_geometric_create(decaying, "gauss2", g) == ESDIRK_SUCCESS, "create gauss2")
    call check(esdirk_geometric_set_parameters(g, k, 1) == ESDIRK_SUCCESS, "parameters")
    call check(esdirk_geometric_forward(g, times, 33, q0, 1, nz=0) == ESDIRK_SUCCESS, "forward")
    call check(esdirk_geometric_backward(g, one, 1, c_null_funptr, c_null_ptr) == ESDIRK_SUCCESS, "backward")
    call check(esdirk_geometric_get(g, 32, 1, 0, q=qN) == ESDIRK_SUCCESS, "q_N")
    call check(esdirk_geometric_get(g, 0, 1, 0, p=p0) == ESDIRK_SUCCESS, "p_0")
    call check(abs(qN(1) - exp(-2d0)) < 1d-8 .and. abs(p0(1) - exp(-2d0)) < 1d-8, "q(1) = p_0 = exp(-2)")
    call check(esdirk_geometric_set_parameters(g, k, 2) == ESDIRK_INVALID_ARGUMENT, "parameters: wrong np")
    call check(index(esdirk_geometric_last_error_string(g), "np") > 0, "np message")
    call esdirk_geometric_free(g)
  end subroutine parameters

  ! The index-1 DAE with PGHVI-1 (presymplectic) and BE-1 (not symplectic).
  subroutine dae_adjoint()
    type(c_ptr) :: g
    real(c_double) :: q0(1), u0(1), one(1), p0(1), u(1), defect
    q0 = 1
    u0 = 0.5d0
    one = 1
    g = c_null_ptr
    call check(esdirk_geometric_create(dae, "pghvi1", g) == ESDIRK_SUCCESS, "create pghvi1")
    call check(esdirk_geometric_symplecticity_defect(g, defect) == ESDIRK_SUCCESS .and. defect == 0, &
               "pghvi1: symplectic pair")
    call check(esdirk_geometric_forward(g, times, 33, q0, 1, u0, 1) == ESDIRK_SUCCESS, "forward")
    call check(esdirk_geometric_backward(g, one, 1, c_null_funptr, c_null_ptr) == ESDIRK_SUCCESS, "backward")
    call check(esdirk_geometric_get(g, 0, 1, 1, p=p0, u=u) == ESDIRK_SUCCESS, "get p_0, u_0")
    call check(abs(p0(1) - 3d0**(-1.5d0)) < 2d-2, "order 1 at h = 1/32")
    call check(abs(u(1) - 1) < 1d-13, "u_0 made consistent: q0^2")
    call check(esdirk_geometric_one_step_defect(g, 0d0, 0.5d0, q0, one, defect, u0) == ESDIRK_SUCCESS, "defect")
    call check(defect <= 1d-10, "PGHVI-1: presymplectic step")
    call esdirk_geometric_free(g)
    call check(esdirk_geometric_create(dae, "be1", g) == ESDIRK_SUCCESS, "create be1")
    call check(esdirk_geometric_symplecticity_defect(g, defect) == ESDIRK_SUCCESS .and. defect == 1, "be1: defect 1")
    call check(esdirk_geometric_set_options(g, 1d-13, 25, ESDIRK_GEOMETRIC_PARTNER_FORM) == ESDIRK_SUCCESS, &
               "partner form")
    call check(esdirk_geometric_one_step_defect(g, 0d0, 0.5d0, q0, one, defect, u0) == ESDIRK_SUCCESS, "defect")
    call check(defect >= 1d-3, "BE-1: not presymplectic")
    call esdirk_geometric_free(g)
  end subroutine dae_adjoint

  subroutine misuse()
    type(c_ptr) :: g
    real(c_double) :: q0(2), u0(1), one(1), p0(1), mid_a(2, 2), mid_b(2), mid_c(2)
    integer(esdirk_int) :: k_steps
    q0 = 1
    u0 = 0.5d0
    one = 1
    g = c_null_ptr
    call check(esdirk_geometric_create(ode, "radau3", g) == ESDIRK_SUCCESS, "create")
    call check(esdirk_geometric_forward(g, times, 33, q0, 1, nz=0) == ESDIRK_SUCCESS, "forward")
    call check(esdirk_geometric_get(g, 33, 1, 0, p=p0) == ESDIRK_INVALID_ARGUMENT, "step 33 of 32")
    call check(esdirk_geometric_forward(g, times, 1, q0, 1, nz=0) == ESDIRK_INVALID_ARGUMENT, "one time")
    call check(esdirk_geometric_forward(g, times, 33, q0, 2, nz=0) == ESDIRK_INVALID_ARGUMENT, "nx = 2")
    call check(esdirk_geometric_forward(g, times, 33, q0, 1, u0, 1) == ESDIRK_INVALID_ARGUMENT, "nz = 1 for an ODE")
    call check(esdirk_geometric_set_options(g, -1d0, 25, ESDIRK_GEOMETRIC_UNNORMALIZED) == ESDIRK_INVALID_ARGUMENT, &
               "negative tolerance")
    call check(esdirk_geometric_set_options(g, 1d-13, 25, 7) == ESDIRK_INVALID_ARGUMENT, "form 7")
    call check(len(esdirk_geometric_last_error_string(g)) > 0, "form message")
    call esdirk_geometric_free(g)
    ! Explicit midpoint: a zero weight, the unnormalized form only.
    mid_a = reshape([0d0, 0.5d0, 0d0, 0d0], [2, 2])
    mid_b = [0d0, 1d0]
    mid_c = [0d0, 0.5d0]
    call check(esdirk_geometric_create_pair(ode, 2, mid_a, mid_b, mid_c, g) == ESDIRK_INVALID_ARGUMENT, &
               "zero weight: no symplectic partner")
    call check(.not. c_associated(g), "no handle after a refusal")
    call check(esdirk_geometric_create(ode, "explicit_midpoint", g) == ESDIRK_SUCCESS, "explicit_midpoint")
    call check(esdirk_geometric_set_options(g, 1d-13, 25, ESDIRK_GEOMETRIC_PARTNER_FORM) == ESDIRK_INVALID_ARGUMENT, &
               "zero weight: no partner form")
    call check(gradient(g, p0) == ESDIRK_SUCCESS .and. abs(p0(1) - 3d0**(-1.5d0)) < 1d-3, &
               "explicit midpoint: p_0 to order 2")
    call esdirk_geometric_free(g)
    call check(esdirk_geometric_create(ode, "nonsense", g) == ESDIRK_INVALID_ARGUMENT, "unknown tableau")
    call check(esdirk_geometric_create(c_null_ptr, "radau3", g) == ESDIRK_NULL_ARGUMENT, "NULL problem")
    ! Not of index 1; no convergence with one Newton iteration.
    call check(esdirk_geometric_create(bad, "radau2", g) == ESDIRK_SUCCESS, "create radau2")
    call check(esdirk_geometric_forward(g, times, 33, q0, 1, u0, 1) == ESDIRK_SINGULAR_CONSTRAINT_JACOBIAN, &
               "not of index 1")
    call check(index(esdirk_geometric_last_error_string(g), "index 1") > 0, "index-1 message")
    call esdirk_geometric_free(g)
    call check(esdirk_geometric_create(ode, "gauss2", g) == ESDIRK_SUCCESS, "create gauss2")
    call check(esdirk_geometric_set_options(g, 1d-13, 1, ESDIRK_GEOMETRIC_UNNORMALIZED) == ESDIRK_SUCCESS, &
               "1 iteration")
    call check(esdirk_geometric_forward(g, times, 33, q0, 1, nz=0) == ESDIRK_CONSTRAINT_SOLVE_FAILED, "no convergence")
    call esdirk_geometric_free(g)
    call esdirk_geometric_free(g)  ! a null handle: harmless
    call check(esdirk_geometric_last_error_string(c_null_ptr) == "NULL handle", "NULL handle message")
    call check(esdirk_geometric_steps(c_null_ptr, k_steps) == ESDIRK_NULL_ARGUMENT, "steps: NULL handle")
  end subroutine misuse

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
end program test_fortran_geometric
