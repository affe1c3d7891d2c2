! esdirk_geometric: the Fortran 2003 interfaces of the geometric integrators for adjoint systems
! (capi/include/esdirk/esdirk_geometric.h; doc/fortran-guide.md, "Geometric adjoints";
! doc/geometric-adjoint-guide.md).
!
! Partner tableaus of any Runge-Kutta method with their symplecticity defect, and the adjoint of
! an ODE or an index-1 DAE integrated as a (pre)symplectic partitioned Runge-Kutta method over
! fixed steps. The problem is the esdirk module's, read as q' = f(t, q, u), 0 = phi(t, q, u).
!
! Conventions here (where they differ from C, for Fortran's sake):
! - Tableau matrices are Fortran matrices: a(i, j) = a_ij (stages x stages). The C API's are
!   row-major; the wrappers transpose.
! - Tableau names are Fortran strings (trailing blanks dropped); esdirk_geometric_tableau_name_string
!   counts from 1 and is "" past the last (esdirk_geometric_tableau_count() is deprecated).
! - Arguments C takes as NULL ("none" or "not wanted") are OPTIONAL here: the algebraic guess u0
!   of an ODE (nz = 0), the partner of create_pair (absent: the symplectic partner), the defect of
!   esdirk_geometric_partner, every output of esdirk_geometric_get and _diagnostics. For the
!   backward sweep without a running cost pass c_null_funptr.
! - Step numbers n of esdirk_geometric_get are those of the C API: 0 .. steps (t_0 .. t_N).
module esdirk_geometric
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int, ESDIRK_SUCCESS, esdirk_string_from_c
  implicit none
  private

  ! The adjoint forms (esdirk_geometric_set_options). C's ESDIRK_GEOMETRIC_PARTNER is
  ! ESDIRK_GEOMETRIC_PARTNER_FORM here: Fortran names ignore case, and esdirk_geometric_partner
  ! is the function.
  integer(c_int), parameter, public :: ESDIRK_GEOMETRIC_UNNORMALIZED = 0  ! zero-weight-safe, any tableau (default)
  integer(c_int), parameter, public :: ESDIRK_GEOMETRIC_PARTNER_FORM = 1  ! the PRK with the pair's a~; all b_i /= 0

  ! The gradient of a running cost L(t, q, u): dq(nx) and du(nz) arrive zero. Returns 0, > 0 for
  ! a failure, < 0 fatal. Write yours with bind(C) and pass c_funloc(yours) to the backward sweep.
  abstract interface
    integer(c_int) function esdirk_geometric_running_fn(nx, nz, t, q, u, dq, du, user_data) bind(C)
      import :: c_int, c_double, c_ptr, esdirk_int
      integer(esdirk_int), value :: nx, nz
      real(c_double), value :: t
      real(c_double), intent(in) :: q(*), u(*)
      real(c_double), intent(inout) :: dq(*), du(*)
      type(c_ptr), value :: user_data
    end function esdirk_geometric_running_fn
  end interface
  public :: esdirk_geometric_running_fn

  public :: esdirk_geometric_tableau_count, esdirk_geometric_tableau_name_string
  public :: esdirk_geometric_tableau_stages, esdirk_geometric_tableau, esdirk_geometric_partner
  public :: esdirk_geometric_create, esdirk_geometric_create_pair, esdirk_geometric_free
  public :: esdirk_geometric_last_error_string, esdirk_geometric_set_options
  public :: esdirk_geometric_symplecticity_defect, esdirk_geometric_set_parameters
  public :: esdirk_geometric_forward, esdirk_geometric_backward, esdirk_geometric_tangent
  public :: esdirk_geometric_steps, esdirk_geometric_get, esdirk_geometric_diagnostics
  public :: esdirk_geometric_one_step_defect

  interface
    ! The bindings of the C functions, written by the build from capi/esdirk_functions.txt.
    include 'esdirk_geometric_c_interfaces.inc'
  end interface

contains

  !> The name of built-in tableau k, counted from 1 ("" outside: loop until ""; the deprecated
  !> esdirk_geometric_tableau_count() is the number of names).
  function esdirk_geometric_tableau_name_string(k) result(name)
    integer, intent(in) :: k
    character(len=:), allocatable :: name
    name = esdirk_string_from_c(c_esdirk_geometric_tableau_name(int(k - 1, esdirk_int)))
  end function esdirk_geometric_tableau_name_string

  !> The stage count of a built-in tableau (ESDIRK_INVALID_ARGUMENT for an unknown name).
  integer(c_int) function esdirk_geometric_tableau_stages(name, stages) result(status)
    character(len=*), intent(in) :: name
    integer(esdirk_int), intent(out) :: stages
    status = c_esdirk_geometric_tableau_stages(trim(name) // c_null_char, stages)
  end function esdirk_geometric_tableau_stages

  !> The coefficients of a built-in tableau: a(i, j) = a_ij, b, c (stages each) and the classical
  !> order; `stages` must be the tableau's (ESDIRK_INVALID_ARGUMENT otherwise). On a failure the
  !> outputs are left as they were.
  integer(c_int) function esdirk_geometric_tableau(name, stages, a, b, c, order) result(status)
    character(len=*), intent(in) :: name
    integer(esdirk_int), intent(in) :: stages
    real(c_double), intent(inout) :: a(max(stages, 1_esdirk_int), max(stages, 1_esdirk_int)), b(*), c(*)
    integer(esdirk_int), intent(inout) :: order
    real(c_double) :: row_major(max(stages, 1_esdirk_int), max(stages, 1_esdirk_int))
    row_major = transpose(a)
    status = c_esdirk_geometric_tableau(trim(name) // c_null_char, stages, row_major, b, c, order)
    if (status == ESDIRK_SUCCESS) a = transpose(row_major)
  end function esdirk_geometric_tableau

  !> The symplectic partner partner(i, j) = a~_ij = b_j - b_j a_ji / b_i of any tableau a(i, j),
  !> b, and max |b_i a~_ij + b_j a_ji - b_i b_j| in defect (optional). ESDIRK_INVALID_ARGUMENT for
  !> stages < 1, a non-finite entry or a zero weight (no partner with the same weights); the
  !> outputs are then left as they were.
  integer(c_int) function esdirk_geometric_partner(stages, a, b, partner, defect) result(status)
    integer(esdirk_int), intent(in) :: stages
    real(c_double), intent(in) :: a(max(stages, 1_esdirk_int), max(stages, 1_esdirk_int)), b(*)
    real(c_double), intent(inout) :: partner(max(stages, 1_esdirk_int), max(stages, 1_esdirk_int))
    real(c_double), intent(inout), optional, target :: defect
    real(c_double) :: row_major(max(stages, 1_esdirk_int), max(stages, 1_esdirk_int))
    type(c_ptr) :: defect_address
    defect_address = c_null_ptr
    if (present(defect)) defect_address = c_loc(defect)
    row_major = transpose(partner)
    status = c_esdirk_geometric_partner(stages, transpose(a), b, row_major, defect_address)
    if (status == ESDIRK_SUCCESS) partner = transpose(row_major)
  end function esdirk_geometric_partner

  !> A built-in tableau with its symplectic partner, or "pghvi1" (backward Euler with a~ = 0) or
  !> "be1" (backward Euler on both q and p, not symplectic; use the partner form). `problem` must
  !> outlive the handle.
  integer(c_int) function esdirk_geometric_create(problem, tableau, geometric) result(status)
    type(c_ptr), intent(in) :: problem
    character(len=*), intent(in) :: tableau
    type(c_ptr), intent(out) :: geometric
    status = c_esdirk_geometric_create(problem, trim(tableau) // c_null_char, geometric)
  end function esdirk_geometric_create

  !> Any tableau a(i, j) = a_ij, b, c and partner coefficients partner(i, j) = a~_ij (optional;
  !> absent: the symplectic partner, which needs every b_i /= 0).
  integer(c_int) function esdirk_geometric_create_pair(problem, stages, a, b, c, geometric, partner) result(status)
    type(c_ptr), intent(in) :: problem
    integer(esdirk_int), intent(in) :: stages
    real(c_double), intent(in) :: a(max(stages, 1_esdirk_int), max(stages, 1_esdirk_int)), b(*), c(*)
    type(c_ptr), intent(out) :: geometric
    real(c_double), intent(in), optional :: partner(max(stages, 1_esdirk_int), max(stages, 1_esdirk_int))
    real(c_double), target :: partner_row_major(max(stages, 1_esdirk_int), max(stages, 1_esdirk_int))
    type(c_ptr) :: partner_address
    partner_address = c_null_ptr
    if (present(partner)) then
      partner_row_major = transpose(partner)
      partner_address = c_loc(partner_row_major)
    end if
    status = c_esdirk_geometric_create_pair(problem, stages, transpose(a), b, c, partner_address, geometric)
  end function esdirk_geometric_create_pair

  !> The message of the last failure on a geometric handle ("NULL handle" for a null one).
  function esdirk_geometric_last_error_string(geometric) result(message)
    type(c_ptr), intent(in) :: geometric
    character(len=:), allocatable :: message
    message = esdirk_string_from_c(c_esdirk_geometric_last_error(geometric))
  end function esdirk_geometric_last_error_string

  !> The forward sweep over the step ends times(1:ntimes) (strictly monotone, ntimes >= 2) from
  !> q0(nx) with the algebraic guess u0(nz) (made consistent; absent for an ODE, nz = 0).
  integer(c_int) function esdirk_geometric_forward(geometric, times, ntimes, q0, nx, u0, nz) result(status)
    type(c_ptr), intent(in) :: geometric
    real(c_double), intent(in) :: times(*), q0(*)
    integer(esdirk_int), intent(in) :: ntimes, nx, nz
    real(c_double), intent(in), optional, target :: u0(*)
    type(c_ptr) :: u0_address
    u0_address = c_null_ptr
    if (present(u0)) u0_address = c_loc(u0(1))
    status = c_esdirk_geometric_forward(geometric, times, ntimes, q0, nx, u0_address, nz)
  end function esdirk_geometric_forward

  !> Step point n (0 .. steps): t_n, q_n(nx), u_n(nz), p_n(nx) and dq_n(nx); every output is
  !> optional (pass by keyword: p=p0). p_n and dq_n are those of the last backward / tangent
  !> sweep (zeros before).
  integer(c_int) function esdirk_geometric_get(geometric, n, nx, nz, t, q, u, p, dq) result(status)
    type(c_ptr), intent(in) :: geometric
    integer(esdirk_int), intent(in) :: n, nx, nz
    real(c_double), intent(out), optional, target :: t
    real(c_double), intent(inout), optional, target :: q(*), u(*), p(*), dq(*)
    type(c_ptr) :: t_address
    t_address = c_null_ptr
    if (present(t)) t_address = c_loc(t)
    status = c_esdirk_geometric_get(geometric, n, t_address, address(q), nx, address(u), nz, address(p), &
                                    address(dq))
  end function esdirk_geometric_get

  !> The largest stage-equation defect of the forward sweep, the largest (3.9f) defect of the
  !> backward sweep and the relative drift of <p_n, dq_n> (after backward and tangent; without a
  !> running cost); each optional.
  integer(c_int) function esdirk_geometric_diagnostics(geometric, forward_defect, adjoint_defect, &
      pairing_drift) result(status)
    type(c_ptr), intent(in) :: geometric
    real(c_double), intent(out), optional, target :: forward_defect, adjoint_defect, pairing_drift
    type(c_ptr) :: f, a, d
    f = c_null_ptr
    a = c_null_ptr
    d = c_null_ptr
    if (present(forward_defect)) f = c_loc(forward_defect)
    if (present(adjoint_defect)) a = c_loc(adjoint_defect)
    if (present(pairing_drift)) d = c_loc(pairing_drift)
    status = c_esdirk_geometric_diagnostics(geometric, f, a, d)
  end function esdirk_geometric_diagnostics

  !> The presymplectic defect max |M^T J M - J| of the one-step map (q0, p0) -> (q1, p1) of one
  !> step (t, h) from q0(nx), u_guess(nz) (absent for an ODE) with p1(nx), by difference quotients.
  integer(c_int) function esdirk_geometric_one_step_defect(geometric, t, h, q0, p1, defect, u_guess) result(status)
    type(c_ptr), intent(in) :: geometric
    real(c_double), intent(in) :: t, h, q0(*), p1(*)
    real(c_double), intent(out) :: defect
    real(c_double), intent(in), optional, target :: u_guess(*)
    type(c_ptr) :: u_address
    u_address = c_null_ptr
    if (present(u_guess)) u_address = c_loc(u_guess(1))
    status = c_esdirk_geometric_one_step_defect(geometric, t, h, q0, u_address, p1, defect)
  end function esdirk_geometric_one_step_defect

  ! The address of an optional array, c_null_ptr when it is absent (C's "not wanted").
  function address(array) result(p)
    real(c_double), intent(inout), optional, target :: array(*)
    type(c_ptr) :: p
    p = c_null_ptr
    if (present(array)) p = c_loc(array(1))
  end function address

end module esdirk_geometric
