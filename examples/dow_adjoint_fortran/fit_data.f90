! The least-squares data of the Dow fit and the gradient of its residual terms, as a bind(C)
! output-gradient callback of the esdirk_adjoint module (the data are module variables here, so
! user_data is not needed).
module fit_data
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int
  implicit none
  private
  integer, parameter, public :: ntimes = 4
  real(c_double), parameter, public :: times(ntimes) = [1d0, 2d0, 5d0, 10d0]
  real(c_double), public :: data(6, ntimes), sigma(6)
  public :: residual_gradient

contains

  !> d Phi_k / dx at output time k (0-based): (x - d_k) / sigma^2 in the one objective row.
  integer(c_int) function residual_gradient(k, nx, nz, np, rows, t, x, z, p, dx, lddx, dz, lddz, dp, lddp, &
      user_data) bind(C)
    integer(esdirk_int), value :: k, nx, nz, np, rows, lddx, lddz, lddp
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*)
    real(c_double), intent(inout) :: dx(lddx, *), dz(lddz, *), dp(lddp, *)
    type(c_ptr), value :: user_data
    dx(1:nx, 1) = (x - data(:, k + 1)) / sigma**2
    residual_gradient = 0
  end function residual_gradient
end module fit_data
