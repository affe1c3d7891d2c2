! The Dow Chemical batch reactor (Kristensen et al., IFAC 2005, section 5) as bind(C) callbacks for the esdirk
! Fortran module: the same equations, in the same order of operations, as the C and C++ models
! (examples/dow_c/dow_model.h, examples/dow/dow_model.hpp), so all three give the same numbers.
! States u1..u6 (x), u7..u10 (z); parameters k1, k-1, k2, k3, k-3, K1, K2, K3, Q+.
module dow_model
  use, intrinsic :: iso_c_binding
  use esdirk
  implicit none
  private
  real(c_double), parameter, public :: dow_parameters(9) = [21.893_c_double, 2.14e9_c_double, &
      32.318_c_double, 21.893_c_double, 1.07e9_c_double, 7.65e-18_c_double, 4.03e-11_c_double, &
      5.32e-18_c_double, 0.0131_c_double]
  real(c_double), parameter, public :: dow_x0(6) = [1.5776_c_double, 8.32_c_double, 0.0_c_double, &
      0.0_c_double, 0.0_c_double, 0.0131_c_double]
  public :: dow_algebraic_start, dow_residual, dow_jacobian, dow_parameter_jacobian

contains

  !> u9 = u10 = 0, u7 = u8 = 2 K2 u1 / (K2 + sqrt(K2^2 + 4 K2 u1)).
  subroutine dow_algebraic_start(z0)
    real(c_double), intent(out) :: z0(4)
    real(c_double) :: K2, u1, h
    K2 = dow_parameters(7)
    u1 = dow_x0(1)
    h = 2.0_c_double * K2 * u1 / (K2 + sqrt(K2 * K2 + 4.0_c_double * K2 * u1))
    z0 = [h, h, 0.0_c_double, 0.0_c_double]
  end subroutine dow_algebraic_start

  integer(c_int) function dow_residual(nx, nz, np, t, x, z, p, f, g, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    real(c_double) :: u1, u2, u3, u4, u5, u6, u7, u8, u9, u10
    u1 = x(1); u2 = x(2); u3 = x(3); u4 = x(4); u5 = x(5); u6 = x(6)
    u7 = z(1); u8 = z(2); u9 = z(3); u10 = z(4)
    dow_residual = 0
    if (.not. (u7 > 0.0_c_double)) then  ! keep [H+] > 0 (the other branch has u7 ~ -Q+)
      dow_residual = 1
      return
    end if
    f(1) = -p(3) * u2 * u8
    f(2) = -p(1) * u2 * u6 + p(2) * u10 - p(3) * u2 * u8
    f(3) = p(3) * u2 * u8 + p(4) * u4 * u6 - p(5) * u9
    f(4) = -p(4) * u4 * u6 + p(5) * u9
    f(5) = p(1) * u2 * u6 - p(2) * u10
    f(6) = -p(1) * u2 * u6 - p(4) * u4 * u6 + p(2) * u10 + p(5) * u9
    g(1) = -p(9) + u6 + u8 + u9 + u10 - u7
    g(2) = u8 - p(7) * u1 / (p(7) + u7)
    g(3) = u9 - p(8) * u3 / (p(8) + u7)
    g(4) = u10 - p(6) * u5 / (p(6) + u7)
  end function dow_residual

  integer(c_int) function dow_jacobian(nx, nz, np, t, x, z, p, J, ldj, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, ldj
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: J(ldj, *)
    type(c_ptr), value :: user_data
    real(c_double) :: u1, u2, u3, u4, u5, u6, u7, u8
    u1 = x(1); u2 = x(2); u3 = x(3); u4 = x(4); u5 = x(5); u6 = x(6)
    u7 = z(1); u8 = z(2)
    J(1:10, 1:10) = 0.0_c_double
    J(1, 2) = -p(3) * u8
    J(1, 8) = -p(3) * u2
    J(2, 2) = -p(1) * u6 - p(3) * u8
    J(2, 6) = -p(1) * u2
    J(2, 8) = -p(3) * u2
    J(2, 10) = p(2)
    J(3, 2) = p(3) * u8
    J(3, 4) = p(4) * u6
    J(3, 6) = p(4) * u4
    J(3, 8) = p(3) * u2
    J(3, 9) = -p(5)
    J(4, 4) = -p(4) * u6
    J(4, 6) = -p(4) * u4
    J(4, 9) = p(5)
    J(5, 2) = p(1) * u6
    J(5, 6) = p(1) * u2
    J(5, 10) = -p(2)
    J(6, 2) = -p(1) * u6
    J(6, 4) = -p(4) * u6
    J(6, 6) = -p(1) * u2 - p(4) * u4
    J(6, 9) = p(5)
    J(6, 10) = p(2)
    J(7, 6) = 1.0_c_double
    J(7, 7) = -1.0_c_double
    J(7, 8) = 1.0_c_double
    J(7, 9) = 1.0_c_double
    J(7, 10) = 1.0_c_double
    J(8, 1) = -p(7) / (p(7) + u7)
    J(8, 7) = p(7) * u1 / ((p(7) + u7) * (p(7) + u7))
    J(8, 8) = 1.0_c_double
    J(9, 3) = -p(8) / (p(8) + u7)
    J(9, 7) = p(8) * u3 / ((p(8) + u7) * (p(8) + u7))
    J(9, 9) = 1.0_c_double
    J(10, 5) = -p(6) / (p(6) + u7)
    J(10, 7) = p(6) * u5 / ((p(6) + u7) * (p(6) + u7))
    J(10, 10) = 1.0_c_double
    dow_jacobian = 0
  end function dow_jacobian

  integer(c_int) function dow_parameter_jacobian(nx, nz, np, t, x, z, p, Jp, ldj, user_data) bind(C)
    integer(esdirk_int), value :: nx, nz, np, ldj
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: Jp(ldj, *)
    type(c_ptr), value :: user_data
    real(c_double) :: u1, u2, u3, u4, u5, u6, u7, u8, u9, u10
    u1 = x(1); u2 = x(2); u3 = x(3); u4 = x(4); u5 = x(5); u6 = x(6)
    u7 = z(1); u8 = z(2); u9 = z(3); u10 = z(4)
    Jp(1:10, 1:9) = 0.0_c_double
    Jp(1, 3) = -u2 * u8
    Jp(2, 1) = -u2 * u6
    Jp(2, 2) = u10
    Jp(2, 3) = -u2 * u8
    Jp(3, 3) = u2 * u8
    Jp(3, 4) = u4 * u6
    Jp(3, 5) = -u9
    Jp(4, 4) = -u4 * u6
    Jp(4, 5) = u9
    Jp(5, 1) = u2 * u6
    Jp(5, 2) = -u10
    Jp(6, 1) = -u2 * u6
    Jp(6, 2) = u10
    Jp(6, 4) = -u4 * u6
    Jp(6, 5) = u9
    Jp(7, 9) = -1.0_c_double
    Jp(8, 7) = -u1 * u7 / ((p(7) + u7) * (p(7) + u7))
    Jp(9, 8) = -u3 * u7 / ((p(8) + u7) * (p(8) + u7))
    Jp(10, 6) = -u5 * u7 / ((p(6) + u7) * (p(6) + u7))
    dow_parameter_jacobian = 0
  end function dow_parameter_jacobian

end module dow_model
