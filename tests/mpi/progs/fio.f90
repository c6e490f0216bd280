! fio.f90 - MPI-IO from Fortran known in advance (tests/io/test_io_fortran.sh), through
! `use mpi` (the mpif.h binding); f08io.f90 makes the same calls through `use mpi_f08`.
! Every rank R of 4, on DIR/fio.dat, its name passed blank-padded (CHARACTER(1024)):
!   MPI_FILE_OPEN          MPI_COMM_WORLD, CREATE + RDWR
!   MPI_FILE_WRITE_AT      3 x 4096 MPI_BYTEs at (3R + i) * 4 KiB, i = 0, 1, 2
!   MPI_FILE_WRITE_AT_ALL  2048 MPI_INTEGERs (8 KiB) at 48 KiB + R * 8 KiB
!   MPI_FILE_READ_AT       3 x 4096 MPI_BYTEs at (3R + i) * 4 KiB
!   MPI_FILE_READ_AT_ALL   2048 MPI_INTEGERs at 48 KiB + R * 8 KiB
!   MPI_FILE_IREAD_AT      1024 MPI_BYTEs at 3R * 4 KiB, MPI_WAIT
!   MPI_FILE_SET_VIEW      displacement 80 KiB + R * 2 KiB, etype MPI_DOUBLE_PRECISION
!   MPI_FILE_WRITE         256 doubles (2 KiB) at the individual pointer: byte 80 KiB + R * 2 KiB
!   MPI_FILE_SYNC, MPI_FILE_SEEK to 0, MPI_FILE_READ of 256 doubles (the same bytes)
!   MPI_FILE_CLOSE
! and on DIR/shared.dat, through the shared file pointer (MPI_COMM_WORLD, CREATE + RDWR):
!   MPI_FILE_WRITE_ORDERED 1024 MPI_BYTEs (MPI_STATUS_IGNORE), rank 0 alone
!   MPI_FILE_WRITE_SHARED 512 (MPICH's ROMIO lets concurrent ones overlap here: its
!   shared pointer's lock did not hold), MPI_FILE_SEEK_SHARED to 0, MPI_FILE_READ_ORDERED 1024, then the split collective
!   MPI_FILE_READ_ALL_BEGIN / _END of 256 at the individual pointer (byte 0), MPI_FILE_CLOSE.
! Rank 0 then: MPI_FILE_OPEN of DIR/missing/none fails (MPI_COMM_SELF); DIR/gone.dat is
! opened (MPI_COMM_SELF, CREATE + WRONLY), closed and deleted (MPI_FILE_DELETE).
! Arguments: DIR. Stops with MPI_ABORT (exit 1) if a call does not do what is expected.
program fio
  use mpi
  implicit none
  integer, parameter :: KiB = 1024
  integer :: rank, ierr, fh, i, req
  integer :: st(MPI_STATUS_SIZE)
  integer(kind=MPI_OFFSET_KIND) :: off
  double precision :: buf(1024)
  character(len=1024) :: dir, path
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, dir)
  buf = rank
  path = trim(dir) // '/fio.dat'
  call MPI_FILE_OPEN(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_OPEN')
  do i = 0, 2
    off = (3 * rank + i) * 4 * KiB
    call MPI_FILE_WRITE_AT(fh, off, buf, 4096, MPI_BYTE, st, ierr)
    call check(ierr == MPI_SUCCESS .and. got(st) == 4096, 'MPI_FILE_WRITE_AT')
  end do
  off = 48 * KiB + rank * 8 * KiB
  call MPI_FILE_WRITE_AT_ALL(fh, off, buf, 2048, MPI_INTEGER, st, ierr)
  call check(ierr == MPI_SUCCESS .and. got(st) == 8192, 'MPI_FILE_WRITE_AT_ALL')
  do i = 0, 2
    off = (3 * rank + i) * 4 * KiB
    call MPI_FILE_READ_AT(fh, off, buf, 4096, MPI_BYTE, st, ierr)
    call check(ierr == MPI_SUCCESS .and. got(st) == 4096, 'MPI_FILE_READ_AT')
  end do
  off = 48 * KiB + rank * 8 * KiB
  call MPI_FILE_READ_AT_ALL(fh, off, buf, 2048, MPI_INTEGER, st, ierr)
  call check(ierr == MPI_SUCCESS .and. got(st) == 8192, 'MPI_FILE_READ_AT_ALL')
  off = 3 * rank * 4 * KiB
  call MPI_FILE_IREAD_AT(fh, off, buf, 1024, MPI_BYTE, req, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_IREAD_AT')
  call MPI_WAIT(req, st, ierr)
  call check(ierr == MPI_SUCCESS .and. got(st) == 1024, 'MPI_WAIT')
  off = 80 * KiB + rank * 2 * KiB
  call MPI_FILE_SET_VIEW(fh, off, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, 'native', &
                         MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_SET_VIEW')
  call MPI_FILE_WRITE(fh, buf, 256, MPI_DOUBLE_PRECISION, st, ierr)
  call check(ierr == MPI_SUCCESS .and. got(st) == 2048, 'MPI_FILE_WRITE')
  call MPI_FILE_SYNC(fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_SYNC')
  off = 0
  call MPI_FILE_SEEK(fh, off, MPI_SEEK_SET, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_SEEK')
  call MPI_FILE_READ(fh, buf, 256, MPI_DOUBLE_PRECISION, st, ierr)
  call check(ierr == MPI_SUCCESS .and. got(st) == 2048, 'MPI_FILE_READ')
  call MPI_FILE_CLOSE(fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_CLOSE')
  path = trim(dir) // '/shared.dat'
  call MPI_FILE_OPEN(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_OPEN shared.dat')
  call MPI_FILE_WRITE_ORDERED(fh, buf, 1024, MPI_BYTE, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_WRITE_ORDERED')
  if (rank == 0) then
    call MPI_FILE_WRITE_SHARED(fh, buf, 512, MPI_BYTE, st, ierr)
    call check(ierr == MPI_SUCCESS .and. got(st) == 512, 'MPI_FILE_WRITE_SHARED')
  end if
  off = 0
  call MPI_FILE_SEEK_SHARED(fh, off, MPI_SEEK_SET, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_SEEK_SHARED')
  call MPI_FILE_READ_ORDERED(fh, buf, 1024, MPI_BYTE, st, ierr)
  call check(ierr == MPI_SUCCESS .and. got(st) == 1024, 'MPI_FILE_READ_ORDERED')
  call MPI_FILE_READ_ALL_BEGIN(fh, buf, 256, MPI_BYTE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_READ_ALL_BEGIN')
  call MPI_FILE_READ_ALL_END(fh, buf, st, ierr)
  call check(ierr == MPI_SUCCESS .and. got(st) == 256, 'MPI_FILE_READ_ALL_END')
  call MPI_FILE_CLOSE(fh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_FILE_CLOSE shared.dat')
  if (rank == 0) then
    path = trim(dir) // '/missing/none'
    call MPI_FILE_OPEN(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
    call check(ierr /= MPI_SUCCESS, 'the failing MPI_FILE_OPEN')
    path = trim(dir) // '/gone.dat'
    call MPI_FILE_OPEN(MPI_COMM_SELF, path, MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, &
                       fh, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_FILE_OPEN gone.dat')
    call MPI_FILE_CLOSE(fh, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_FILE_CLOSE gone.dat')
    call MPI_FILE_DELETE(path, MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_FILE_DELETE')
  end if
  call MPI_FINALIZE(ierr)
contains
  integer function got(status)
    integer, intent(in) :: status(MPI_STATUS_SIZE)
    integer :: n, e
    call MPI_GET_COUNT(status, MPI_BYTE, n, e)
    got = n
  end function got
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      write (0, '(a, a, a)') 'fio: ', what, ' failed'
      call MPI_ABORT(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine check
end program fio
