! omp_fortran - OpenMP in Fortran: N parallel regions of 2 threads, each with a
! worksharing do loop (a reduction) and an explicit barrier. Prints the sum, which must
! be N * 500500. Reports must write the constructs as Fortran does (!$omp parallel,
! !$omp do), C's as C does (#pragma omp parallel).
! Usage: omp_fortran [n]   (default 5)
program omp_fortran
  use omp_lib
  implicit none
  integer :: r, i, n
  integer(8) :: s
  character(len=16) :: arg
  n = 5
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  s = 0
  do r = 1, n
!$omp parallel num_threads(2) reduction(+:s)
!$omp do
    do i = 1, 1000
      s = s + i
    end do
!$omp end do
!$omp barrier
!$omp end parallel
  end do
  print '(a,i0,a,i0)', 'omp_fortran: ', n, ' regions, sum ', s
end program omp_fortran
