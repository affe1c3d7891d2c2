! --help for the Fortran examples (the C++ and C ones: example_support.hpp, example_help.h).
module example_help
  implicit none
  private
  public :: print_help_if_asked
contains
  ! When an argument is --help or -h: prints the lines of `usage` (trailing blanks trimmed) and
  ! stops with exit status 0.
  subroutine print_help_if_asked(usage)
    character(len=*), intent(in) :: usage(:)
    character(len=16) :: argument
    integer :: i
    do i = 1, command_argument_count()
      call get_command_argument(i, argument)
      if (argument == "--help" .or. argument == "-h") then
        call print_lines(usage)
        stop
      end if
    end do
  end subroutine print_help_if_asked

  subroutine print_lines(lines)
    character(len=*), intent(in) :: lines(:)
    integer :: i
    do i = 1, size(lines)
      write (*, '(a)') trim(lines(i))
    end do
  end subroutine print_lines
end module example_help
