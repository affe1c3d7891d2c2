! The bouncing ball (Schaefer, GSoC 2021) as bind(C) callbacks: x = (z, v), p = (g, gamma),
! one mode (0).
module ball_model
  use, intrinsic :: iso_c_binding
  use esdirk, only: esdirk_int
  implicit none
  private
  real(c_double), parameter, public :: z0 = 5d0, v0 = -0.1d0, gravity = 10d0, restitution = 0.8d0
  real(c_double), parameter, public :: t_end = 1.9d0
  public :: flight, ground, impact, impact_jacobian

contains

  integer(c_int) function flight(mode, nx, nz, np, nm, t, x, z, p, mem, f, g, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: f(nx), g(*)
    type(c_ptr), value :: user_data
    f(1) = x(2)
    f(2) = -p(1)
    flight = 0
  end function flight

  ! h = z: the ground.
  integer(c_int) function ground(mode, nx, nz, np, nm, ne, t, x, z, p, mem, h, user_data) bind(C)
    integer(c_int), value :: mode
    integer(esdirk_int), value :: nx, nz, np, nm, ne
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(out) :: h(ne)
    type(c_ptr), value :: user_data
    h(1) = x(1)
    ground = 0
  end function ground

  ! z+ = z-, v+ = -gamma v-; the mode stays 0.
  integer(c_int) function impact(mode, ne, fired, time_event, nx, nz, np, nm, t, x, z, p, mem, &
      next_mode, x_plus, user_data) bind(C)
    integer(c_int), value :: mode, time_event
    integer(esdirk_int), value :: ne, nx, nz, np, nm
    integer(c_int), intent(in) :: fired(*)
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    integer(c_int), intent(inout) :: next_mode
    real(c_double), intent(inout) :: x_plus(nx)
    type(c_ptr), value :: user_data
    x_plus(1) = x(1)
    x_plus(2) = -p(2) * x(2)
    impact = 0
  end function impact

  ! D = [phi_t phi_z phi_v phi_g phi_gamma], 2 x 5.
  integer(c_int) function impact_jacobian(mode, ne, fired, time_event, nx, nz, np, nm, t, x, z, p, mem, &
      D, ldd, user_data) bind(C)
    integer(c_int), value :: mode, time_event
    integer(esdirk_int), value :: ne, nx, nz, np, nm, ldd
    integer(c_int), intent(in) :: fired(*)
    real(c_double), value :: t
    real(c_double), intent(in) :: x(nx), z(*), p(*), mem(*)
    real(c_double), intent(inout) :: D(ldd, *)
    type(c_ptr), value :: user_data
    D(1:2, 1:5) = 0d0
    D(1, 2) = 1d0
    D(2, 3) = -p(2)
    D(2, 5) = -x(2)
    impact_jacobian = 0
  end function impact_jacobian

end module ball_model
